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
//! (used by `examples/ulp_sweep.rs` to measure them on machines with AVX2);
//! `TENSORGRAPH_SIMD=avx2` keeps the AVX2 + FMA ones on AVX-512 machines.
//!
//! Block entry points (`block`): the graph macro's loops on default x86-64 builds gather
//! the arguments of these five functions for [`BLOCK`] elements into a buffer and make one
//! call per block (see tensor-macros' `emit_nest`), so the dispatch and the crossing into
//! AVX code are paid once per 256 elements instead of once per 8 lanes (~5 ns each,
//! measured). A block runs 16 lanes at a time in zmm registers where the CPU has AVX-512F
//! and DQ ([`Avx512`]), else 8 in AVX2 + FMA, else the baseline kernels. Every path
//! computes the same bits as the per-vector AVX2 + FMA entry points, lane for lane: the
//! same operations in the same order, and `recip_approx` (sigmoid's 12-bit seed) is
//! `rcpps` on each 8-lane half on AVX-512 too, not `vrcp14ps` (tests: `block_*`).

use super::*;

/// Calls `$callback! { $(name f32x8_function f32x16_function;)* }` with each dispatched
/// f32-lane kernel of `f32_kernels.rs`: the function table's rows whose 16-lane form is a
/// `kernel` (functions.rs; `exp_f32` and `exp_f32x16` for `exp`), then softmax's
/// `exp_nonpos`, which is no function of the language. Every list of this file (entry
/// points, blocks, 16-lane functions, their tests) is generated from it.
macro_rules! for_each_f32_kernel {
    ($callback:ident) => {
        crate::functions::for_each_float_function!(f32_kernel_rows, $callback);
    };
}

/// `for_each_f32_kernel!`'s filter over the table's rows (a muncher: one row a step).
macro_rules! f32_kernel_rows {
    (($callback:ident) $($rows:tt)*) => {
        f32_kernel_rows!(@munch $callback [] $($rows)*);
    };
    (@munch $callback:ident [$($kernels:tt)*] $(#[$doc:meta])* $name:ident:
     $lane_trait:ident::$lane:ident, $bound:tt,
     unary ($r:ident, $family:ident::{$k32:ident, $k64:ident}, kernel $k16:ident);
     $($rest:tt)*) => {
        f32_kernel_rows!(@munch $callback [$($kernels)* $name $k32 $k16;] $($rest)*);
    };
    (@munch $callback:ident [$($kernels:tt)*] $(#[$doc:meta])* $name:ident:
     $lane_trait:ident::$lane:ident, $bound:tt, $kind:ident $args:tt; $($rest:tt)*) => {
        f32_kernel_rows!(@munch $callback [$($kernels)*] $($rest)*);
    };
    (@munch $callback:ident [$($kernels:tt)*]) => {
        $callback! { $($kernels)* exp_nonpos exp_nonpos_f32 exp_nonpos_f32x16; }
    };
}

/// f32x8 entry points: the f32-lane kernels on wide's `f32x8`, inlined (AVX2 builds and
/// other architectures).
#[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
macro_rules! entries {
    ($($f:ident $k32:ident $k16:ident;)*) => {$(
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
    ($($f:ident $k32:ident $k16:ident;)*) => {
        $(
            #[inline]
            pub(super) fn $f(x: f32x8) -> f32x8 {
                if avx2_fma() {
                    // SAFETY: `avx2_fma()` is true only if the running CPU reports both
                    // avx2 and fma (`is_x86_feature_detected!`), the features `avx2::$f`
                    // is compiled with.
                    unsafe { avx2::x8::$f(x) }
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
            /// The kernels on an `f32x8`, split into the two SSE registers the `extern
            /// "C"` functions below take and put together again.
            pub(super) mod x8 {
                use super::*;
                $(
                    /// `avx2::$f` on wide's `f32x8`.
                    ///
                    /// # Safety
                    /// The CPU must support avx2 and fma.
                    #[inline(always)]
                    pub(in super::super) unsafe fn $f(x: f32x8) -> f32x8 {
                        let [lo, hi]: [__m128; 2] = bytemuck::cast(x);
                        let mut hi_out = lo;
                        // SAFETY: avx2 and fma, this function's contract.
                        let lo_out = unsafe { super::$f(lo, hi, &mut hi_out) };
                        bytemuck::cast([lo_out, hi_out])
                    }
                )*
            }
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

for_each_f32_kernel!(entries);

/// Elements per call of the block entry points: a multiple of 16, and small enough that a
/// graph's argument buffers stay in L1 (256 f32 = 1 KiB each).
pub const BLOCK: usize = 256;
// The block kernels walk a block in `chunks_exact` of 8 and 16 lanes: a remainder would be
// skipped, not computed.
const _: () = assert!(BLOCK % 16 == 0);

/// The five f32-lane kernels over a block of [`BLOCK`] values, in place (see the module
/// doc). The graph macro calls them on default x86-64 builds; on other builds they run
/// the build's own f32x8 kernels chunk by chunk (same results as `vmath::exp_f32` & co.).
pub mod block {
    use super::*;

    macro_rules! blocks {
        ($($f:ident $name:ident $k16:ident;)*) => {$(
            #[doc = concat!("`", stringify!($f), "` on a block (as `vmath::", stringify!($name),
                "`).")]
            #[inline]
            pub fn $name(buf: &mut [f32; BLOCK]) {
                #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
                match level() {
                    // SAFETY: `level()` is 3 only if the CPU reports avx512f, avx512dq,
                    // avx2 and fma (`is_x86_feature_detected!`), the features
                    // `avx512_blocks::$f` is compiled with.
                    3 => return unsafe { avx512_blocks::$f(buf) },
                    // SAFETY: `level()` is 2 or more only if the CPU reports avx2 and fma,
                    // the features `avx2_blocks::$f` is compiled with.
                    2 => return unsafe { avx2_blocks::$f(buf) },
                    _ => {}
                }
                for chunk in buf.chunks_exact_mut(8) {
                    let y = f32_kernels::$f(f32x8::from(&*chunk));
                    chunk.copy_from_slice(&y.to_array());
                }
            }
        )*};
    }
    for_each_f32_kernel!(blocks);

    /// The [`BLOCK`] elements of `slice` from `at` as an array: the graph macro's in-place
    /// block calls, whose loop keeps `at + BLOCK` within the slice (else a panic, never
    /// an access past it).
    #[inline(always)]
    pub fn block_mut(slice: &mut [f32], at: usize) -> &mut [f32; BLOCK] {
        // The range is `BLOCK` long: the `expect` cannot fire. Generated code calls this
        // on the block it has just stored chunk by chunk (`__tg_j + F32_BLOCK` within the
        // row), so the index is in bounds.
        (&mut slice[at..at + BLOCK])
            .try_into()
            .expect("a range of BLOCK elements")
    }

    /// The division blocks' dispatch: `avx512` on AVX-512 CPUs, `vdivps` on AVX2, else the
    /// division one by one (the same bits everywhere).
    macro_rules! dispatch_division {
        ($buf:ident, $b:ident, $avx512:expr) => {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
            match level() {
                // SAFETY: `level()` is 3 only if the CPU reports avx512f, avx512dq, avx2
                // and fma (`is_x86_feature_detected!`), the features the functions of
                // `division_avx512` are compiled with.
                3 => return unsafe { $avx512 },
                // SAFETY: `level()` is 2 or more only if the CPU reports avx2 and fma, the
                // features `avx2_blocks::divide` is compiled with.
                2 => return unsafe { avx2_blocks::divide($buf, $b) },
                _ => {}
            }
            for a in $buf.iter_mut() {
                *a /= $b;
            }
        };
    }

    /// `a / b` on a block for one divisor `b` (a graph's float division by a value fixed
    /// for the row or the call, as `FloatLanes::div_invariant_lanes`): the correctly
    /// rounded quotient, bit-identical to the division. On AVX-512 CPUs 16 lanes at a time
    /// by Markstein's correction where the operands allow it (`lanes::div_invariant_m512`),
    /// on AVX2 8 lanes by `vdivps`, else one by one.
    #[inline]
    pub fn div_invariant_f32(buf: &mut [f32; BLOCK], b: f32) {
        dispatch_division!(buf, b, division_avx512::div_invariant(buf, b));
    }

    /// Softmax's `e / sum` on a block (as `FloatLanes::div_softmax_lanes`: every value in
    /// [0, 1] or NaN, `b` the row's sum; `in_range` its promise that every value of the row
    /// is NaN or at least 2^-76), bit-identical to the division. On AVX-512 CPUs by
    /// `lanes::div_softmax_m512` (`div_softmax_in_range_m512` with the promise), on AVX2 by
    /// `vdivps`, else one by one. The default build's softmax spent a third of its time in
    /// SSE `divps` before (W3, BENCHMARKS.md "Peers", seventh session).
    #[inline]
    pub fn div_softmax_f32(buf: &mut [f32; BLOCK], b: f32, in_range: bool) {
        // Read on builds that dispatch (the division below does not need it).
        let _ = in_range;
        dispatch_division!(buf, b, division_avx512::div_softmax(buf, b, in_range));
    }

    /// The zmm divisions over a block, 16 lanes at a time.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    pub(in crate::vmath) mod division_avx512 {
        use super::BLOCK;
        use crate::lanes::{div_invariant_m512, div_softmax_in_range_m512, div_softmax_m512};
        use core::arch::x86_64::{__m512, _mm512_loadu_ps, _mm512_set1_ps, _mm512_storeu_ps};

        /// Each 16 lanes of the block through `f` (a zmm division by `b`).
        #[inline(always)]
        fn each(buf: &mut [f32; BLOCK], b: f32, f: impl Fn(__m512, __m512) -> __m512) {
            // SAFETY: a register splat; its callers run only where the CPU has avx512f.
            let b = unsafe { _mm512_set1_ps(b) };
            for chunk in buf.chunks_exact_mut(16) {
                // SAFETY: `chunk` is 16 f32s (64 bytes), read and written unaligned;
                // avx512f as above.
                unsafe {
                    let a = _mm512_loadu_ps(chunk.as_ptr());
                    _mm512_storeu_ps(chunk.as_mut_ptr(), f(a, b));
                }
            }
        }

        /// `block::div_invariant_f32` on AVX-512.
        ///
        /// # Safety
        /// The CPU must support avx512f, avx512dq, avx2 and fma.
        #[target_feature(enable = "avx512f,avx512dq,avx2,fma")]
        pub(in crate::vmath) unsafe fn div_invariant(buf: &mut [f32; BLOCK], b: f32) {
            // SAFETY: avx512f, this function's contract.
            each(buf, b, |a, b| unsafe { div_invariant_m512(a, b) });
        }

        /// `block::div_softmax_f32` on AVX-512.
        ///
        /// # Safety
        /// The CPU must support avx512f, avx512dq, avx2 and fma.
        #[target_feature(enable = "avx512f,avx512dq,avx2,fma")]
        pub(in crate::vmath) unsafe fn div_softmax(buf: &mut [f32; BLOCK], b: f32, in_range: bool) {
            if in_range {
                // SAFETY: avx512f, this function's contract.
                each(buf, b, |a, b| unsafe { div_softmax_in_range_m512(a, b) });
            } else {
                // SAFETY: as above.
                each(buf, b, |a, b| unsafe { div_softmax_m512(a, b) });
            }
        }
    }

    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    pub(in crate::vmath) mod avx2_blocks {
        use super::super::*;
        use core::arch::x86_64::{_mm256_loadu_ps, _mm256_storeu_ps};
        macro_rules! avx2_blocks {
            ($($f:ident $k32:ident $k16:ident;)*) => {$(
                /// The kernel on `Avx2Fma` lanes over the block, 8 at a time.
                ///
                /// # Safety
                /// The CPU must support avx2 and fma.
                #[target_feature(enable = "avx2,fma")]
                pub(in crate::vmath) unsafe fn $f(buf: &mut [f32; BLOCK]) {
                    for chunk in buf.chunks_exact_mut(8) {
                        // SAFETY: `chunk` is 8 f32s (32 bytes), read and written unaligned.
                        unsafe {
                            let x = Avx2Fma::from_m256(_mm256_loadu_ps(chunk.as_ptr()));
                            _mm256_storeu_ps(chunk.as_mut_ptr(), f32_kernels::$f(x).to_m256());
                        }
                    }
                }
            )*};
        }
        for_each_f32_kernel!(avx2_blocks);

        /// `a / b` over the block by `vdivps`, 8 lanes at a time (the correctly rounded
        /// quotient, as the division).
        ///
        /// # Safety
        /// The CPU must support avx2 and fma.
        #[target_feature(enable = "avx2,fma")]
        pub(in crate::vmath) unsafe fn divide(buf: &mut [f32; BLOCK], b: f32) {
            use core::arch::x86_64::{_mm256_div_ps, _mm256_set1_ps};
            let b = _mm256_set1_ps(b);
            for chunk in buf.chunks_exact_mut(8) {
                // SAFETY: `chunk` is 8 f32s (32 bytes), read and written unaligned.
                unsafe {
                    let a = _mm256_loadu_ps(chunk.as_ptr());
                    _mm256_storeu_ps(chunk.as_mut_ptr(), _mm256_div_ps(a, b));
                }
            }
        }
    }

    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    pub(in crate::vmath) mod avx512_blocks {
        use super::super::*;
        use core::arch::x86_64::{_mm512_loadu_ps, _mm512_storeu_ps};
        macro_rules! avx512_blocks {
            ($($f:ident $k32:ident $k16:ident;)*) => {$(
                /// The kernel on `Avx512` lanes over the block, 16 at a time.
                ///
                /// # Safety
                /// The CPU must support avx512f, avx512dq, avx2 and fma.
                #[target_feature(enable = "avx512f,avx512dq,avx2,fma")]
                pub(in crate::vmath) unsafe fn $f(buf: &mut [f32; BLOCK]) {
                    for chunk in buf.chunks_exact_mut(16) {
                        // SAFETY: `chunk` is 16 f32s (64 bytes), read and written unaligned.
                        unsafe {
                            let x = Avx512::from_m512(_mm512_loadu_ps(chunk.as_ptr()));
                            _mm512_storeu_ps(chunk.as_mut_ptr(), f32_kernels::$f(x).to_m512());
                        }
                    }
                }
            )*};
        }
        for_each_f32_kernel!(avx512_blocks);
    }
}

/// The f32-lane kernels on 16 lanes (wide's `f32x16`: one zmm register on AVX-512 builds,
/// two f32x8 elsewhere), the width `lanes::V<f32>` has on AVX-512 builds. The same
/// arithmetic as the f32x8 functions (`exp_f32`, …), lane for lane, but `exp_nonpos_f32x16`:
/// e^x for x <= 0 on AVX-512 builds by the table kernel, not the same bits as
/// `vmath::exp_nonpos_f32` (same bound; no upper clamp, so a positive x, outside the domain,
/// does not give 1 there).
pub mod x16 {
    use super::*;
    use wide::f32x16;
    macro_rules! x16 {
        ($($f:ident $k32:ident $name:ident;)*) => {$(
            #[doc = concat!("`", stringify!($f), "` on 16 lanes (as `vmath::", stringify!($k32),
                "`).")]
            #[inline]
            pub fn $name(x: f32x16) -> f32x16 {
                f32_kernels::$f(x)
            }
        )*};
    }
    for_each_f32_kernel!(x16);

    /// An f32x8 function applied to each half of 16 lanes (the functions without a
    /// 16-lane kernel).
    #[inline(always)]
    pub fn halves(f: fn(f32x8) -> f32x8, x: f32x16) -> f32x16 {
        let [a, b]: [f32x8; 2] = bytemuck::cast(x);
        bytemuck::cast([f(a), f(b)])
    }
}

/// Whether this process's [`block`] kernels run the AVX2 + FMA or AVX-512 path (x86-64
/// builds without AVX2, on a CPU with AVX2 and FMA, `TENSORGRAPH_SIMD` not `baseline`):
/// the portable kernels' operations with each `mul_add` rounded once. The debug backend's
/// scalar twins of the kernels (blocks/ops/vmath_twins.rs) compute exactly those bits and
/// run only where this holds; elsewhere it calls the block kernels.
#[inline]
pub(crate) fn blocks_run_avx2_fma() -> bool {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    return avx2_fma();
    #[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
    false
}

/// Which code the f32-lane kernels (exp, tanh, sigmoid, erf, gelu on f32) run in this
/// process: `"avx512+avx2+fma"` (blocks on AVX-512, single vectors on AVX2 + FMA),
/// `"avx2+fma"` or `"baseline"` (chosen at run time on x86-64 builds without AVX2), or
/// `"compile-time"` (the build's own target features: AVX2 builds and other
/// architectures).
pub fn f32_kernel_isa() -> &'static str {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    return match level() {
        3 => "avx512+avx2+fma",
        2 => "avx2+fma",
        _ => "baseline",
    };
    #[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
    "compile-time"
}

/// The f32-lane kernels on one zmm register, for the AVX-512 copy of a dispatched graph
/// kernel (lanes_avx512.rs), which inlines them into its loops instead of calling a block
/// entry point (NOTES.md "Softmax of the AVX-512 copy inline"): the arithmetic of the
/// level-3 block kernels (`block::avx512_blocks`, `f32_kernels` on `Avx512` lanes), so
/// the same bits as those blocks and as the AVX2 + FMA entry points.
#[cfg(all(
    feature = "dispatch",
    target_arch = "x86_64",
    not(target_feature = "avx2")
))]
pub(crate) mod zmm {
    use super::*;
    use core::arch::x86_64::__m512;

    /// `exp_nonpos` (softmax's `exp(x - max)`) on 16 lanes by the 32-entry table kernel
    /// of the native AVX-512 build (`f32_kernels::exp_nonpos_table32`, the same
    /// instructions on `Avx512` lanes, so the native build's bits; within exp's 1 ULP like
    /// the block entry's polynomial kernel, whose bits it need not give).
    ///
    /// # Safety
    /// The CPU must support avx512f, avx512dq, avx2 and fma (`Avx512`'s methods use them);
    /// callers run only inside `#[target_feature]` code compiled with them.
    #[inline(always)]
    pub(crate) unsafe fn exp_nonpos(x: __m512) -> __m512 {
        f32_kernels::exp_nonpos_table32(Avx512::from_m512(x)).to_m512()
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
pub(super) use avx2_lanes::*;

/// `vmath` re-exports `kernel_isa` and `set_simd_level` from here by their full path: a
/// re-export through this module would meet `use super::*` above, which nightly reports as
/// an ambiguous import visibility (rust-lang/rust#149145).
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
pub(super) mod avx2_lanes {
    use super::f32_kernels::F32Simd;
    use core::arch::x86_64::*;
    use core::sync::atomic::{AtomicU8, Ordering};
    use wide::f32x8;

    /// 0: not yet detected; 1: baseline kernels; 2: AVX2 + FMA kernels; 3: AVX2 + FMA
    /// kernels, and the block entry points on AVX-512.
    static LEVEL: AtomicU8 = AtomicU8::new(0);

    /// Whether this process runs the AVX2 + FMA kernels: the CPU has both and
    /// `TENSORGRAPH_SIMD` is not `baseline`. Detected on the first call.
    #[inline(always)]
    pub(in super::super) fn avx2_fma() -> bool {
        level() >= 2
    }

    /// The kernels this process runs (see `LEVEL`). Detected on the first call.
    #[inline(always)]
    pub(in super::super) fn level() -> u8 {
        match LEVEL.load(Ordering::Relaxed) {
            0 => detect(),
            l => l,
        }
    }

    /// The copy of a graph kernel this process runs with the `dispatch` feature
    /// (`__private::dispatch_kernel!`): `level()`. 3, the AVX-512 copy, where the CPU has
    /// avx512f, avx512dq, avx2 and fma (and `TENSORGRAPH_SIMD` is neither `baseline` nor
    /// `avx2`); 2, the AVX2 + FMA copy, where it has avx2 and fma (and `TENSORGRAPH_SIMD` is
    /// not `baseline`); else 1, the baseline copy.
    #[inline(always)]
    pub fn kernel_isa() -> u8 {
        level()
    }

    /// Sets the level `level()` reports (1 baseline, 2 AVX2 + FMA, 3 also AVX-512 blocks)
    /// for this process, at most the CPU's own (what `detect` finds without
    /// `TENSORGRAPH_SIMD`), and returns the level set: a test hook that runs the same graphs
    /// under each copy in one process. It cannot select code the CPU lacks, which the
    /// `unsafe` calls of the entry points rely on. Not a stable API.
    #[doc(hidden)]
    pub fn set_simd_level(wanted: u8) -> u8 {
        let cpu = detect_features(None);
        let level = wanted.clamp(1, cpu);
        LEVEL.store(level, Ordering::Relaxed);
        level
    }

    #[cold]
    fn detect() -> u8 {
        let forced = std::env::var("TENSORGRAPH_SIMD").ok();
        let level = detect_features(forced.as_deref());
        LEVEL.store(level, Ordering::Relaxed);
        level
    }

    /// The level the CPU supports, lowered by a `TENSORGRAPH_SIMD` value (`forced`).
    fn detect_features(forced: Option<&str>) -> u8 {
        let avx2 = forced != Some("baseline")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        let avx512 = avx2
            && forced != Some("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq");
        if avx512 {
            3
        } else if avx2 {
            2
        } else {
            1
        }
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

    /// Sixteen f32 lanes in one zmm register, for the block kernels compiled with
    /// avx512f, avx512dq, avx2 and fma.
    ///
    /// Every method calls AVX-512F/DQ (or AVX) intrinsics. That is sound for the same
    /// reason as for `Avx2Fma`: no value of this type exists outside the
    /// `#[target_feature(enable = "avx512f,avx512dq,avx2,fma")]` block entry points (its
    /// constructor `from_m512` is visible in `vmath` only and used only there), and those
    /// run only after `level()` found all four features on the CPU. The methods are
    /// `#[inline(always)]`, so they are compiled inside those entry points.
    ///
    /// Masks are vectors (all-ones lanes), as for `Avx2Fma`; `select` reads each mask
    /// lane's sign bit (`vpmovd2m`), as `blendvps` does.
    #[derive(Clone, Copy)]
    #[repr(transparent)]
    pub(in super::super) struct Avx512(__m512);

    impl Avx512 {
        #[inline(always)]
        pub(in super::super) fn from_m512(x: __m512) -> Self {
            Avx512(x)
        }
        #[inline(always)]
        pub(in super::super) fn to_m512(self) -> __m512 {
            self.0
        }
        /// A mask register as a vector mask (all-ones lanes where set).
        #[inline(always)]
        fn from_kmask(k: __mmask16) -> Self {
            // SAFETY: see `Avx512`.
            Avx512(unsafe { _mm512_castsi512_ps(_mm512_movm_epi32(k)) })
        }
        /// The vector mask's sign bits as a mask register.
        #[inline(always)]
        fn kmask(self) -> __mmask16 {
            // SAFETY: see `Avx512`.
            unsafe { _mm512_movepi32_mask(_mm512_castps_si512(self.0)) }
        }
        #[inline(always)]
        fn halves(self) -> [__m256; 2] {
            bytemuck::cast(self.0)
        }
        #[inline(always)]
        fn from_halves(h: [__m256; 2]) -> Self {
            Avx512(bytemuck::cast(h))
        }
    }

    macro_rules! binary512 {
        ($($tr:ident :: $m:ident => $f:ident),*) => {$(
            impl core::ops::$tr for Avx512 {
                type Output = Avx512;
                #[inline(always)]
                fn $m(self, o: Avx512) -> Avx512 {
                    // SAFETY: see `Avx512`: only executed on CPUs with avx512f and avx512dq.
                    Avx512(unsafe { $f(self.0, o.0) })
                }
            }
        )*};
    }
    binary512!(Add::add => _mm512_add_ps, Sub::sub => _mm512_sub_ps, Mul::mul => _mm512_mul_ps,
        Div::div => _mm512_div_ps, BitAnd::bitand => _mm512_and_ps, BitOr::bitor => _mm512_or_ps);

    impl core::ops::Neg for Avx512 {
        type Output = Avx512;
        #[inline(always)]
        fn neg(self) -> Avx512 {
            // SAFETY: see `Avx512`: only executed on CPUs with avx512f and avx512dq.
            Avx512(unsafe { _mm512_xor_ps(self.0, _mm512_set1_ps(-0.0)) })
        }
    }

    // SAFETY (every `unsafe` block below): see `Avx512`: these intrinsics need avx512f
    // (avx512dq for the mask moves, avx for `_mm256_rcp_ps`), and this code only runs on
    // CPUs that have them; they read and write registers only.
    impl F32Simd for Avx512 {
        const FUSED: bool = true;
        #[inline(always)]
        fn splat(v: f32) -> Self {
            Avx512(unsafe { _mm512_set1_ps(v) })
        }
        #[inline(always)]
        fn mul_add(self, b: Self, c: Self) -> Self {
            Avx512(unsafe { _mm512_fmadd_ps(self.0, b.0, c.0) })
        }
        #[inline(always)]
        fn abs(self) -> Self {
            Avx512(unsafe { _mm512_andnot_ps(_mm512_set1_ps(-0.0), self.0) })
        }
        #[inline(always)]
        fn lt(self, o: Self) -> Self {
            Avx512::from_kmask(unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0) })
        }
        #[inline(always)]
        fn ge(self, o: Self) -> Self {
            Avx512::from_kmask(unsafe { _mm512_cmp_ps_mask::<_CMP_GE_OQ>(self.0, o.0) })
        }
        #[inline(always)]
        fn is_nan(self) -> Self {
            Avx512::from_kmask(unsafe { _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(self.0, self.0) })
        }
        #[inline(always)]
        fn select(self, a: Self, b: Self) -> Self {
            Avx512(unsafe { _mm512_mask_blend_ps(self.kmask(), b.0, a.0) })
        }
        #[inline(always)]
        fn max_or_second(self, o: Self) -> Self {
            Avx512(unsafe { _mm512_max_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn min_or_second(self, o: Self) -> Self {
            Avx512(unsafe { _mm512_min_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn all(self) -> bool {
            self.kmask() == 0xffff
        }
        #[inline(always)]
        fn shl23(self) -> Self {
            Avx512(unsafe {
                _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_castps_si512(self.0)))
            })
        }
        #[inline(always)]
        fn map8(self, f: fn(f32x8) -> f32x8) -> Self {
            let [lo, hi] = self.halves();
            let (lo, hi): (f32x8, f32x8) = (bytemuck::cast(lo), bytemuck::cast(hi));
            Avx512::from_halves([bytemuck::cast(f(lo)), bytemuck::cast(f(hi))])
        }
        /// `rcpps` on each 8-lane half (not `vrcp14ps`): the same 12-bit seed as the AVX2
        /// path, so sigmoid's quotient is the same bits in blocks and single vectors.
        #[inline(always)]
        fn recip_approx(self) -> Self {
            let [lo, hi] = self.halves();
            Avx512::from_halves(unsafe { [_mm256_rcp_ps(lo), _mm256_rcp_ps(hi)] })
        }
        /// `vrndscaleps`: the value the portable 1.5·2^23 trick gives.
        #[inline(always)]
        fn round_small(self) -> Self {
            Avx512(unsafe {
                _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(self.0)
            })
        }
        /// `vscalefps`: self·2^k rounded once (MXCSR's round-to-nearest-even), as the
        /// portable two products round.
        #[inline(always)]
        fn mul_pow2(self, kf: Self) -> Self {
            Avx512(unsafe { _mm512_scalef_ps(self.0, kf.0) })
        }
        #[inline(always)]
        fn mul_pow2_nonpos(self, kf: Self) -> Self {
            self.mul_pow2(kf)
        }
    }

    /// `vpermt2ps` over a 32-entry table, as the native build's `f32x16` does it (the
    /// table `exp_nonpos` of the AVX-512 copy, `vmath::zmm`).
    #[cfg(feature = "dispatch")]
    impl super::f32_kernels::Permute32 for Avx512 {
        #[inline(always)]
        fn permute32(self, table: &[f32; 32]) -> Self {
            // SAFETY: see `Avx512` (avx512f on the CPU); `table` is 32 f32s, valid for the
            // two 64-byte unaligned loads; `vpermt2ps` uses only the low 5 bits of each
            // index lane, so every index is inside the table.
            Avx512(unsafe {
                _mm512_permutex2var_ps(
                    _mm512_loadu_ps(table.as_ptr()),
                    _mm512_castps_si512(self.0),
                    _mm512_loadu_ps(table.as_ptr().add(16)),
                )
            })
        }
    }
}

/// The block entry points against the AVX2 + FMA single-vector kernels, bit for bit
/// (whatever `TENSORGRAPH_SIMD` says): every ISA of blocks this CPU can run, called
/// directly, on random bit patterns (NaN, inf, subnormals) and values across each kernel's
/// ranges (2^22 in release builds, 2^16 in debug).
#[cfg(all(test, target_arch = "x86_64", not(target_feature = "avx2")))]
mod block_tests {

    use super::*;

    fn inputs() -> Vec<f32> {
        let n = if cfg!(debug_assertions) {
            1 << 16
        } else {
            1 << 22
        };
        let mut rng = crate::testing::Rng::new(0x2545_f491_4f6c_dd1d);
        (0..n)
            .map(|i| {
                let s = rng.next_u64();
                match i % 4 {
                    0 => f32::from_bits(s as u32),
                    // [-110, 110]: past exp's clamps, gelu's -5.5 cut, tanh's 9.5.
                    1 => (s >> 40) as f32 / (1u64 << 24) as f32 * 220.0 - 110.0,
                    _ => (s >> 40) as f32 / (1u64 << 24) as f32 * 16.0 - 8.0,
                }
            })
            .collect()
    }

    /// Each ISA's block entry point of a kernel, and whether this CPU runs it.
    type Blocks<'a> = &'a [(&'a str, unsafe fn(&mut [f32; BLOCK]), bool)];

    fn check(name: &str, single: fn(f32x8) -> f32x8, blocks: Blocks<'_>) {
        check_on(name, single, blocks, &inputs());
    }

    fn check_on(name: &str, single: fn(f32x8) -> f32x8, blocks: Blocks<'_>, xs: &[f32]) {
        for (isa, f, available) in blocks {
            if !available {
                continue;
            }
            for chunk in xs.chunks_exact(BLOCK) {
                let mut buf: [f32; BLOCK] = chunk.try_into().unwrap();
                // SAFETY: called only where `available` (the CPU has the features).
                unsafe { f(&mut buf) };
                for (k, x) in chunk.chunks_exact(8).enumerate() {
                    let want = single(f32x8::from(x)).to_array();
                    for i in 0..8 {
                        let (g, w) = (buf[k * 8 + i], want[i]);
                        assert!(
                            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                            "{name} {isa} block at x = {:e}: {g:e}, single vector {w:e}",
                            x[i]
                        );
                    }
                }
            }
        }
    }

    /// The AVX2 + FMA single-vector kernel `$f` called directly, not through the entry
    /// point, which `TENSORGRAPH_SIMD=baseline` would turn into the baseline kernel (another
    /// rounding of `mul_add`): the reference the blocks must match.
    macro_rules! avx2_single {
        ($f:ident) => {
            |x: f32x8| -> f32x8 {
                // SAFETY: `check_on` calls this only for the block ISAs the CPU has, each of
                // which needs avx2 and fma, the features `avx2::$f` is compiled with.
                unsafe { super::avx2::x8::$f(x) }
            }
        };
    }

    /// A test per kernel, named after it (`block_tests::exp`).
    macro_rules! block_cases {
        ($($f:ident $k32:ident $k16:ident;)*) => {$(
            #[test]
            fn $f() {
                let avx2 = std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma");
                let avx512 = avx2
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512dq");
                check(stringify!($f), avx2_single!($f), &[
                    ("avx512", super::block::avx512_blocks::$f, avx512),
                    ("avx2", super::block::avx2_blocks::$f, avx2),
                ]);
            }
        )*};
    }
    /// gelu's tail where its results are subnormal or -0 (x in [-14.5, -13.1]: every f32 in
    /// release builds, every 13th in debug ones): the AVX-512 blocks scale by 2^k with one
    /// `vscalefps`, the AVX2 ones and the single vector by two products (`mul_pow2`), the
    /// first exact; the same bits.
    #[test]
    fn block_gelu_subnormal_results() {
        let avx2 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        let avx512 = avx2
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq");
        let step = if cfg!(debug_assertions) { 13 } else { 1 };
        let mut xs: Vec<f32> = ((-13.1f32).to_bits()..=(-14.5f32).to_bits())
            .step_by(step)
            .map(f32::from_bits)
            .collect();
        xs.truncate(xs.len() / BLOCK * BLOCK);
        check_on(
            "gelu",
            avx2_single!(gelu),
            &[
                ("avx512", super::block::avx512_blocks::gelu, avx512),
                ("avx2", super::block::avx2_blocks::gelu, avx2),
            ],
            &xs,
        );
    }

    for_each_f32_kernel!(block_cases);
}

/// The division blocks (`block::div_invariant_f32`, `block::div_softmax_f32`) against the
/// scalar division, bit for bit, through every path this CPU can run (AVX-512's
/// Markstein form, AVX2's `vdivps`, and the entry point itself, which picks one):
/// dividends of every class (random bit patterns: NaN, ±inf, ±0, subnormals; both ends of
/// the fast path's range 2^-76 and 2^100 and their neighbours; softmax's values in [0, 1])
/// over divisors inside the fast path's range [2^-20, 2^20], at both of its ends, past
/// them, and ±0, ±inf, NaN (div_invariant: every sign; div_softmax: its contract, the
/// row's sum, at least 1 or NaN, with dividends in [0, 1] or NaN).
#[cfg(all(test, target_arch = "x86_64", not(target_feature = "avx2")))]
mod division_block_tests {
    use super::*;

    use crate::testing::step as xorshift;

    fn dividends(softmax: bool) -> Vec<f32> {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut xs = Vec::new();
        let edges = [0x1980_0000u32, 0x7180_0000, 0x0080_0000, 0x3f80_0000];
        for e in edges {
            for d in 0..8u32 {
                xs.push(f32::from_bits(e + d));
                xs.push(f32::from_bits(e - d));
            }
        }
        xs.extend([
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1.0,
            f32::MAX,
        ]);
        xs.extend([f32::MIN_POSITIVE, 1e-45, 3e-39]);
        while xs.len() < 64 * BLOCK {
            let r = xorshift(&mut s);
            xs.push(match r % 3 {
                0 => f32::from_bits(r as u32 >> 8 << 8 | (r >> 40) as u32 & 0xff),
                1 => (-((r >> 40) as f32 / (1u64 << 24) as f32) * 120.0).exp(),
                _ => f32::from_bits((r >> 32) as u32),
            });
        }
        xs.truncate(64 * BLOCK);
        if softmax {
            // The contract: +0, (0, 1] or NaN.
            for x in &mut xs {
                if !(x.is_nan() || (*x >= 0.0 && *x <= 1.0)) || x.to_bits() == 0x8000_0000 {
                    *x = x.abs().fract();
                }
            }
        }
        xs
    }

    fn check(name: &str, f: &dyn Fn(&mut [f32; BLOCK], f32), b: f32, xs: &[f32]) {
        for chunk in xs.chunks_exact(BLOCK) {
            let mut buf: [f32; BLOCK] = chunk.try_into().unwrap();
            f(&mut buf, b);
            for (g, a) in buf.iter().zip(chunk) {
                let w = a / b;
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "{name}: {a:e} / {b:e} gave {g:e}, the division {w:e}"
                );
            }
        }
    }

    /// `avx512` is called only where the CPU has avx512f, avx512dq, avx2 and fma.
    fn run(
        name: &str,
        softmax: bool,
        avx512: &dyn Fn(&mut [f32; BLOCK], f32),
        entry: &dyn Fn(&mut [f32; BLOCK], f32),
        divisors: &[f32],
    ) {
        let avx2 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        let has_avx512 = avx2
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq");
        let mut xs = dividends(softmax);
        if name.ends_with("in range") {
            // The promise: NaN or at least 2^-76.
            for x in &mut xs {
                if *x < f32::from_bits(0x1980_0000) {
                    *x = 1.0 - *x;
                }
            }
        }
        for &b in divisors {
            if has_avx512 {
                check(&format!("{name} avx512"), avx512, b, &xs);
            }
            if avx2 {
                // SAFETY: the CPU has avx2 and fma (detected above).
                let f = |buf: &mut [f32; BLOCK], b| unsafe { block::avx2_blocks::divide(buf, b) };
                check(&format!("{name} avx2"), &f, b, &xs);
            }
            check(&format!("{name} entry"), entry, b, &xs);
        }
    }

    #[test]
    fn block_div_invariant_is_division() {
        let mut divisors = vec![
            1.0,
            3.0,
            1024.0,
            0.1,
            -7.5,
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for e in [0x3580_0000u32, 0x4980_0000] {
            for d in 0..3 {
                divisors.push(f32::from_bits(e + d));
                divisors.push(f32::from_bits(e - d));
                divisors.push(-f32::from_bits(e + d));
            }
        }
        divisors.extend([1e-30, 1e30, 1.0 + f32::EPSILON, 2.0 - f32::EPSILON]);
        run(
            "div_invariant",
            false,
            // SAFETY: `run` calls it only where the CPU has avx512f, avx512dq, avx2, fma.
            &|buf, b| unsafe { block::division_avx512::div_invariant(buf, b) },
            &block::div_invariant_f32,
            &divisors,
        );
    }

    #[test]
    fn block_div_softmax_is_division() {
        let mut divisors = vec![1.0, 1.5, 17.25, 1024.0, 4095.9, f32::NAN];
        for d in 0..3 {
            divisors.push(f32::from_bits(0x4980_0000 + d));
            divisors.push(f32::from_bits(0x4980_0000 - d));
        }
        divisors.extend([1.0 + f32::EPSILON, 2.0 - f32::EPSILON, 1e30, f32::INFINITY]);
        // Without the promise: every dividend of the contract.
        run(
            "div_softmax",
            true,
            // SAFETY: `run` calls it only where the CPU has avx512f, avx512dq, avx2, fma.
            &|buf, b| unsafe { block::division_avx512::div_softmax(buf, b, false) },
            &|buf, b| block::div_softmax_f32(buf, b, false),
            &divisors,
        );
        // With it (`in_range`): only dividends that are NaN or at least 2^-76.
        run(
            "div_softmax in range",
            true,
            // SAFETY: `run` calls it only where the CPU has avx512f, avx512dq, avx2, fma.
            &|buf, b| unsafe { block::division_avx512::div_softmax(buf, b, true) },
            &|buf, b| block::div_softmax_f32(buf, b, true),
            &divisors,
        );
    }
}
