//! Runtime CPU dispatch of the f32-lane kernels (`f32_kernels.rs`) for x86-64 builds
//! without AVX2: the kernels a default (`x86-64` baseline: SSE2, no FMA) build would run
//! are compiled a second time for AVX2 + FMA, and the first call in a process picks one.
//!
//! wide's vectors cannot serve here: they choose their implementation with
//! `cfg(target_feature)` when the crate is compiled, so on a baseline build an `f32x8` is
//! two SSE registers and its `mul_add` a multiply and an add, also inside a
//! `#[target_feature(enable = "avx2,fma")]` function (read in the assembly: 128-bit
//! `vmulps`/`vaddps` pairs, no `ymm`, no `vfmadd`). So the kernels are generic over
//! [`F32Simd`](super::f32_kernels::F32Simd), and [`Avx2Fma`] implements it with
//! `core::arch` intrinsics on `__m256`. Its methods are `#[inline(always)]`: they inline
//! into the `#[target_feature]` entry points below, where the intrinsics become single
//! AVX2/FMA instructions (read in the assembly: ymm operations and `vfmadd`, no calls).
//!
//! Builds with AVX2 (`-C target-cpu=native` on any AVX2 machine) call the kernels on wide's
//! types directly, inlined into the graph kernels; nothing here is compiled for them.
//!
//! `TENSORGRAPH_SIMD=baseline` in the environment (read once) keeps the baseline kernels
//! (used by `examples/ulp_sweep.rs` to measure them on machines with AVX2).

use super::*;

/// f32x8 entry points: the f32-lane kernels on wide's `f32x8`, inlined (AVX2 builds and
/// other architectures).
#[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
macro_rules! entries {
    ($($f:ident),*) => {$(
        #[inline(always)]
        pub(super) fn $f(x: f32x8) -> f32x8 {
            f32_kernels::$f(x)
        }
    )*};
}

/// f32x8 entry points on x86-64 builds without AVX2: the AVX2 + FMA kernel where the CPU
/// has both (`avx2_fma`), else the kernel on wide's baseline `f32x8`.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
macro_rules! entries {
    ($($f:ident),*) => {
        $(
            #[inline]
            pub(super) fn $f(x: f32x8) -> f32x8 {
                if avx2_fma() {
                    use core::arch::x86_64::__m128;
                    let [lo, hi]: [__m128; 2] = bytemuck::cast(x);
                    let mut hi_out = lo;
                    // SAFETY: `avx2_fma()` is true only if the running CPU reports both
                    // avx2 and fma (`is_x86_feature_detected!`), the features `avx2::$f`
                    // is compiled with.
                    let lo_out = unsafe { avx2::$f(lo, hi, &mut hi_out) };
                    bytemuck::cast([lo_out, hi_out])
                } else {
                    f32_kernels::$f(x)
                }
            }
        )*
        // `extern "C"` only for its register convention: these are called from Rust alone,
        // and __m128 is an SSE register in that ABI on every x86-64 target.
        #[allow(improper_ctypes_definitions)]
        mod avx2 {
            use super::*;
            use core::arch::x86_64::{
                __m128, _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_set_m128,
            };
            $(
                /// The kernel on `Avx2Fma` lanes. The 8 lanes come in two SSE registers
                /// and the low half goes back in one (the C ABI; an f32x8 argument is
                /// passed through memory, as two 16-byte stores that the 32-byte load here
                /// cannot forward from: measured 18 ns per call for exp, 5.4 ns this way,
                /// 10 ns for the baseline kernel inline).
                ///
                /// # Safety
                /// The CPU must support avx2 and fma.
                #[target_feature(enable = "avx2,fma")]
                pub(super) unsafe extern "C" fn $f(
                    lo: __m128,
                    hi: __m128,
                    hi_out: &mut __m128,
                ) -> __m128 {
                    let r = f32_kernels::$f(Avx2Fma::from_m256(_mm256_set_m128(hi, lo))).to_m256();
                    *hi_out = _mm256_extractf128_ps::<1>(r);
                    _mm256_castps256_ps128(r)
                }
            )*
        }
    };
}

entries!(exp, tanh, sigmoid, erf, gelu);

/// The f32-lane kernels on 16 lanes (wide's `f32x16`: one zmm register on AVX-512 builds,
/// two f32x8 elsewhere), the width `lanes::V<f32>` has on AVX-512 builds. The same
/// arithmetic as the f32x8 functions (`exp_f32`, …), lane for lane.
pub mod x16 {
    use super::*;
    use wide::f32x16;
    macro_rules! x16 {
        ($($(#[$doc:meta])* $name:ident => $f:ident;)*) => {$(
            $(#[$doc])*
            #[inline]
            pub fn $name(x: f32x16) -> f32x16 {
                f32_kernels::$f(x)
            }
        )*};
    }
    x16! {
        /// e^x on 16 lanes (as `vmath::exp_f32`).
        exp_f32x16 => exp;
        /// tanh on 16 lanes (as `vmath::tanh_f32`).
        tanh_f32x16 => tanh;
        /// sigmoid on 16 lanes (as `vmath::sigmoid_f32`).
        sigmoid_f32x16 => sigmoid;
        /// erf on 16 lanes (as `vmath::erf_f32`).
        erf_f32x16 => erf;
        /// The exact gelu on 16 lanes (as `vmath::gelu_f32`).
        gelu_f32x16 => gelu;
    }

    /// An f32x8 function applied to each half of 16 lanes (the functions without a
    /// 16-lane kernel).
    #[inline(always)]
    pub fn halves(f: fn(f32x8) -> f32x8, x: f32x16) -> f32x16 {
        let [a, b]: [f32x8; 2] = bytemuck::cast(x);
        bytemuck::cast([f(a), f(b)])
    }
}

/// Which code the f32-lane kernels (exp, tanh, sigmoid, erf, gelu on f32) run in this
/// process: `"avx2+fma"` or `"baseline"` (chosen at run time on x86-64 builds without
/// AVX2), or `"compile-time"` (the build's own target features: AVX2 builds and other
/// architectures).
pub fn f32_kernel_isa() -> &'static str {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    return if avx2_fma() { "avx2+fma" } else { "baseline" };
    #[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
    "compile-time"
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
pub(super) use avx2_lanes::*;

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
mod avx2_lanes {
    use super::f32_kernels::F32Simd;
    use core::arch::x86_64::*;
    use core::sync::atomic::{AtomicU8, Ordering};
    use wide::f32x8;

    /// 0: not yet detected; 1: baseline kernels; 2: AVX2 + FMA kernels.
    static LEVEL: AtomicU8 = AtomicU8::new(0);

    /// Whether this process runs the AVX2 + FMA kernels: the CPU has both and
    /// `TENSORGRAPH_SIMD` is not `baseline`. Detected on the first call.
    #[inline(always)]
    pub(in super::super) fn avx2_fma() -> bool {
        match LEVEL.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => detect(),
        }
    }

    #[cold]
    fn detect() -> bool {
        let forced_baseline = std::env::var("TENSORGRAPH_SIMD").is_ok_and(|v| v == "baseline");
        let yes = !forced_baseline
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        LEVEL.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
        yes
    }

    /// Eight f32 lanes in one AVX register, for the kernels compiled with avx2 and fma.
    ///
    /// Every method calls AVX/AVX2/FMA intrinsics. That is sound because no value of this
    /// type exists outside the `#[target_feature(enable = "avx2,fma")]` entry points of
    /// `dispatch.rs` (its constructor `from_m256` is visible in `vmath` only and used only
    /// there; a `__m256` itself can only come from AVX code), and those run only after
    /// `avx2_fma()` found both features on the CPU. The methods are `#[inline(always)]`, so they are compiled
    /// inside those entry points, with the features enabled.
    #[derive(Clone, Copy)]
    #[repr(transparent)]
    pub(in super::super) struct Avx2Fma(__m256);

    impl Avx2Fma {
        #[inline(always)]
        pub(in super::super) fn from_m256(x: __m256) -> Self {
            Avx2Fma(x)
        }
        #[inline(always)]
        pub(in super::super) fn to_m256(self) -> __m256 {
            self.0
        }
        #[inline(always)]
        fn from_f32x8(x: f32x8) -> Self {
            Avx2Fma(bytemuck::cast(x))
        }
        #[inline(always)]
        fn to_f32x8(self) -> f32x8 {
            bytemuck::cast(self.0)
        }
    }

    macro_rules! binary {
        ($($tr:ident :: $m:ident => $f:ident),*) => {$(
            impl core::ops::$tr for Avx2Fma {
                type Output = Avx2Fma;
                #[inline(always)]
                fn $m(self, o: Avx2Fma) -> Avx2Fma {
                    // SAFETY: see `Avx2Fma`: only executed on CPUs with avx2 and fma.
                    Avx2Fma(unsafe { $f(self.0, o.0) })
                }
            }
        )*};
    }
    binary!(Add::add => _mm256_add_ps, Sub::sub => _mm256_sub_ps, Mul::mul => _mm256_mul_ps,
        Div::div => _mm256_div_ps, BitAnd::bitand => _mm256_and_ps, BitOr::bitor => _mm256_or_ps);

    impl core::ops::Neg for Avx2Fma {
        type Output = Avx2Fma;
        #[inline(always)]
        fn neg(self) -> Avx2Fma {
            // SAFETY: see `Avx2Fma`: only executed on CPUs with avx2 and fma.
            Avx2Fma(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
        }
    }

    // SAFETY (every `unsafe` block below): see `Avx2Fma`: these intrinsics need avx (and
    // fma for `_mm256_fmadd_ps`, avx2 for `_mm256_slli_epi32`), and this code only runs on
    // CPUs that have avx2 and fma; they read and write registers only.
    impl F32Simd for Avx2Fma {
        const FUSED: bool = true;
        #[inline(always)]
        fn splat(v: f32) -> Self {
            Avx2Fma(unsafe { _mm256_set1_ps(v) })
        }
        #[inline(always)]
        fn mul_add(self, b: Self, c: Self) -> Self {
            Avx2Fma(unsafe { _mm256_fmadd_ps(self.0, b.0, c.0) })
        }
        #[inline(always)]
        fn abs(self) -> Self {
            Avx2Fma(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
        }
        #[inline(always)]
        fn lt(self, o: Self) -> Self {
            Avx2Fma(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) })
        }
        #[inline(always)]
        fn ge(self, o: Self) -> Self {
            Avx2Fma(unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, o.0) })
        }
        #[inline(always)]
        fn is_nan(self) -> Self {
            Avx2Fma(unsafe { _mm256_cmp_ps::<_CMP_UNORD_Q>(self.0, self.0) })
        }
        #[inline(always)]
        fn select(self, a: Self, b: Self) -> Self {
            Avx2Fma(unsafe { _mm256_blendv_ps(b.0, a.0, self.0) })
        }
        #[inline(always)]
        fn max_or_second(self, o: Self) -> Self {
            Avx2Fma(unsafe { _mm256_max_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn min_or_second(self, o: Self) -> Self {
            Avx2Fma(unsafe { _mm256_min_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn all(self) -> bool {
            unsafe { _mm256_movemask_ps(self.0) == 0xff }
        }
        #[inline(always)]
        fn shl23(self) -> Self {
            Avx2Fma(unsafe {
                _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_castps_si256(self.0)))
            })
        }
        #[inline(always)]
        fn map8(self, f: fn(f32x8) -> f32x8) -> Self {
            Avx2Fma::from_f32x8(f(self.to_f32x8()))
        }
        #[inline(always)]
        fn recip_approx(self) -> Self {
            Avx2Fma(unsafe { _mm256_rcp_ps(self.0) })
        }
    }
}
