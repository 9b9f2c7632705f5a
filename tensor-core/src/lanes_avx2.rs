//! The lane layer of the AVX2 + FMA copy of a dispatched kernel (issue 36; NOTES.md "Row sums
//! and whole-kernel dispatch").
//!
//! `dispatch_kernel!` (lib.rs) compiles a graph's kernel three times on x86-64 builds without
//! AVX2: a baseline copy, a `#[target_feature(enable = "avx2,fma")]` copy and an AVX-512 copy
//! (lanes_avx512.rs, which runs this module's methods on each 8-lane half of its 16 lanes
//! where it has no `zmm` version). Generated code names
//! its lane operations through the path `__tg_lanes`, which each copy binds: the baseline copy
//! (and every build without the `dispatch` feature) to `__private` itself, so its code is the
//! same as before; the AVX2 + FMA copy to this module. This module re-exports all of
//! `__private` and shadows the lane traits whose float methods it implements with `core::arch`
//! `__m256`/`__m256d` operations: `NumLanes`, `CompareLanes`, `SelectLanes`, `FloatLanes`.
//! `wide` cannot serve that copy: it chooses SSE or AVX with `cfg(target_feature)` when this
//! crate is compiled, so inside a `#[target_feature]` function its `f32x8` stays two SSE
//! registers; and lane loops (`V::zip`), which LLVM vectorises per function, were vectorised
//! two lanes at a time across a reduction's accumulators (W5 15-20% slower; NOTES.md).
//!
//! Each trait here has a default method for every method of its `lanes.rs` namesake, calling
//! it (`forward!`): integer lanes and the float methods not written here (the vector-math
//! functions, `pow`, `rem`, `modulo`, `exp_nonpos`, `rsqrt`) run the baseline code inside the
//! AVX2 copy, as they did before this module. The float methods written here give the same
//! bits as their `lanes.rs` versions (the same IEEE operations in the same order, the same
//! NaN and ±0 rules: tests/dispatch.rs and the random-graph batch under each copy check it),
//! so the copies agree bit for bit wherever the operations are exact.
//!
//! Why the intrinsics are sound: every `unsafe` block here calls AVX or AVX2 intrinsics that
//! take and return registers and touch no memory, or `store_streaming_lanes`, whose own
//! checks keep its stores inside the caller's slice (stream.rs). The functions of this module run only
//! inside the AVX2 + FMA copy of a kernel (the only place that binds `__tg_lanes` to this
//! module, `dispatch_kernel!`) and inside the AVX-512 copy (through lanes_avx512.rs), which
//! their kernel function calls only where `vmath::kernel_isa()` is 2 or 3, i.e. where the
//! running CPU reports AVX2 and FMA (`is_x86_feature_detected!`; level 3 requires them
//! besides AVX-512 F and DQ). Nothing else names this module (it is under the hidden
//! `__private`, which is not a stable API).
//!
//! Inlining: the attribute pair of lanes.rs (`#[inline(always)]` in release builds). Inlined
//! into the `#[target_feature]` copy, the intrinsics compile to single `ymm` instructions;
//! not inlined (debug builds) they are calls, still correct on the CPUs that run the copy.

use core::arch::x86_64::*;

/// Everything generated code names, as in the baseline copy; the traits below shadow their
/// namesakes from this glob.
pub use crate::__private::*;

// The layout below (f32 lanes as one `__m256`, f64 lanes as two `__m256d`) is that of the
// 8-lane builds; this module exists only on builds without AVX2, which have 8 lanes.
const _: () = assert!(LANES == 8, "the AVX2 lane layer is written for 8 lanes");

/// Writes the 8 lanes of `value` to `dst[offset..offset + LANES]` as `store` does, with
/// 32-byte non-temporal stores (`vmovntdq ymm`) where the chunk is aligned to its size up to
/// 64 bytes (the head of `stream_head`, re-exported, aligns it), an ordinary store
/// otherwise (stream.rs `store_streaming_lanes`; the build's own `store_streaming` would
/// write 16 bytes at a time). Panics (never writes out of bounds) if the chunk leaves `dst`.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn store_streaming<E: Element>(dst: &mut [E], offset: usize, value: V<E::Compute>) {
    // SAFETY: this module runs only inside the AVX2 + FMA and AVX-512 copies of a kernel,
    // on CPUs with AVX2 (module doc, "Why the intrinsics are sound"), so with AVX, the
    // width 32's contract.
    unsafe { crate::stream::store_streaming_lanes::<E, LANES>(dst, offset, value.0, 32) }
}

/// `Ymm` methods that are one binary intrinsic each.
macro_rules! ymm_binary {
    ($($name:ident: $intrinsic:ident),* $(,)?) => {$(
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $name(self, o: Self) -> Self {
            // SAFETY: a register operation of AVX (module doc, "Why the intrinsics are
            // sound").
            unsafe { $intrinsic(self, o) }
        }
    )*};
}

/// A 256-bit register of float lanes: the operations `avx_float_lanes!` is written in,
/// one AVX instruction each, for `__m256` (8 × f32) and `__m256d` (4 × f64).
trait Ymm: Copy {
    /// Lanes per register.
    const PER_REG: usize;
    fn splat(x: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// `!self & o`.
    fn andnot(self, o: Self) -> Self;
    /// `maxps`/`maxpd`: `self > o ? self : o` (so `o` where either is NaN).
    fn max_no_nan(self, o: Self) -> Self;
    /// `minps`/`minpd`: `self < o ? self : o`.
    fn min_no_nan(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    /// Each lane from `if_set` where `self`'s lane has its sign bit set, else from
    /// `if_clear` (`blendvps`).
    fn blend(self, if_set: Self, if_clear: Self) -> Self;
    /// All-ones lanes where the comparison `P` (`_CMP_*`) holds.
    fn cmp<const P: i32>(self, o: Self) -> Self;
    /// `roundps` with mode `M` (`_MM_FROUND_*`).
    fn round<const M: i32>(self) -> Self;
    /// `round::<M>` with the input's sign bit put back (`floor(-0.0) = -0.0`, `trunc(-0.3) =
    /// -0.0`), as lanes.rs writes the roundings for `wide`.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn round_keeping_sign<const M: i32>(self) -> Self {
        self.round::<M>().or(self.and(Self::splat(-0.0)))
    }
    /// The sign bit of each lane, lane `i` in bit `i`.
    fn movemask(self) -> u32;
    /// A mask whose lane `i` has its sign bit set where byte `i` of `bytes` (0 or 1, a
    /// `bool`) is 1; the register's `PER_REG` lanes take the low bytes.
    fn mask_from_bytes(bytes: u64) -> Self;
}

/// The `Ymm` impl of a register type from its intrinsics (the `_ps` or `_pd` family) and
/// its `mask_from_bytes` body.
macro_rules! ymm_impl {
    ($r:ty, $per_reg:literal, $scalar:ty, set1: $set1:ident, sqrt: $sqrt:ident,
     blendv: $blendv:ident, cmp: $cmp:ident, round: $round:ident, movemask: $movemask:ident,
     binary: [$($name:ident: $intrinsic:ident),*],
     mask_from_bytes: |$bytes:ident| $mask:block) => {
        impl Ymm for $r {
            const PER_REG: usize = $per_reg;
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn splat(x: f64) -> Self {
                // SAFETY: a register operation of AVX (module doc, "Why the intrinsics are
                // sound").
                unsafe { $set1(x as $scalar) }
            }
            ymm_binary!($($name: $intrinsic),*);
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sqrt(self) -> Self {
                // SAFETY: as `splat`.
                unsafe { $sqrt(self) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn blend(self, if_set: Self, if_clear: Self) -> Self {
                // SAFETY: as `splat`.
                unsafe { $blendv(if_clear, if_set, self) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cmp<const P: i32>(self, o: Self) -> Self {
                // SAFETY: as `splat`.
                unsafe { $cmp::<P>(self, o) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn round<const M: i32>(self) -> Self {
                // SAFETY: as `splat`.
                unsafe { $round::<M>(self) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn movemask(self) -> u32 {
                // SAFETY: as `splat`.
                unsafe { $movemask(self) as u32 }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn mask_from_bytes($bytes: u64) -> Self $mask
        }
    };
}

ymm_impl!(__m256, 8, f32, set1: _mm256_set1_ps, sqrt: _mm256_sqrt_ps,
blendv: _mm256_blendv_ps, cmp: _mm256_cmp_ps, round: _mm256_round_ps,
movemask: _mm256_movemask_ps,
binary: [add: _mm256_add_ps, sub: _mm256_sub_ps, mul: _mm256_mul_ps, div: _mm256_div_ps,
    and: _mm256_and_ps, or: _mm256_or_ps, xor: _mm256_xor_ps, andnot: _mm256_andnot_ps,
    max_no_nan: _mm256_max_ps, min_no_nan: _mm256_min_ps],
mask_from_bytes: |bytes| {
    // SAFETY: register operations of SSE2 and AVX2 (module doc, "Why the intrinsics are
    // sound"): 8 bytes widened to 8 × u32 (0 or 1), shifted into the sign bit.
    unsafe {
        let ones = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bytes as i64));
        _mm256_castsi256_ps(_mm256_slli_epi32::<31>(ones))
    }
});

ymm_impl!(__m256d, 4, f64, set1: _mm256_set1_pd, sqrt: _mm256_sqrt_pd,
blendv: _mm256_blendv_pd, cmp: _mm256_cmp_pd, round: _mm256_round_pd,
movemask: _mm256_movemask_pd,
binary: [add: _mm256_add_pd, sub: _mm256_sub_pd, mul: _mm256_mul_pd, div: _mm256_div_pd,
    and: _mm256_and_pd, or: _mm256_or_pd, xor: _mm256_xor_pd, andnot: _mm256_andnot_pd,
    max_no_nan: _mm256_max_pd, min_no_nan: _mm256_min_pd],
mask_from_bytes: |bytes| {
    // SAFETY: register operations of SSE2 and AVX2 (module doc, "Why the intrinsics are
    // sound"): the low 4 bytes widened to 4 × u64 (0 or 1), shifted into the sign bit.
    unsafe {
        let ones = _mm256_cvtepu8_epi64(_mm_cvtsi64_si128(bytes as i64));
        _mm256_castsi256_pd(_mm256_slli_epi64::<63>(ones))
    }
});

/// Default methods that call the `lanes.rs` trait's method of the same name (see the
/// module doc): `binary` and `unary` methods on `V<Self>`, `compare` ones to `V<bool>`.
macro_rules! forward {
    ($base:path; binary: $($b:ident),*; unary: $($u:ident),*; compare: $($c:ident),*) => {
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The baseline `", stringify!($b), "`.")]
            fn $b(a: V<Self>, b: V<Self>) -> V<Self> {
                <Self as $base>::$b(a, b)
            }
        )*
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The baseline `", stringify!($u), "`.")]
            fn $u(a: V<Self>) -> V<Self> {
                <Self as $base>::$u(a)
            }
        )*
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The baseline `", stringify!($c), "`.")]
            fn $c(a: V<Self>, b: V<Self>) -> V<bool> {
                <Self as $base>::$c(a, b)
            }
        )*
    };
}

/// Arithmetic lane by lane: `lanes::NumLanes`' methods, the float ones on `ymm` registers.
pub trait NumLanes: crate::lanes::NumLanes {
    forward!(crate::lanes::NumLanes;
        binary: add_lanes, sub_lanes, mul_lanes, div_lanes, rem_lanes, modulo_lanes,
            max_lanes, min_lanes, pow_lanes;
        unary: neg_lanes, abs_lanes, relu_lanes, floor_lanes, round_lanes, roundeven_lanes,
            trunc_lanes, ceil_lanes, sign_lanes, square_lanes;
        compare:);
}

/// Comparisons lane by lane: `lanes::CompareLanes`' methods.
pub trait CompareLanes: crate::lanes::CompareLanes {
    forward!(crate::lanes::CompareLanes;
        binary:; unary:;
        compare: eq_lanes, ne_lanes, lt_lanes, le_lanes, gt_lanes, ge_lanes);
}

/// `where(cond, a, b)`: `lanes::SelectLanes`' method.
pub trait SelectLanes: crate::lanes::SelectLanes {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The baseline `select_lanes`.
    fn select_lanes(cond: V<bool>, a: V<Self>, b: V<Self>) -> V<Self> {
        <Self as crate::lanes::SelectLanes>::select_lanes(cond, a, b)
    }
}

/// The `FloatLanes` default of each `unary` row of the function table (functions.rs): the
/// baseline method.
macro_rules! forward_float_functions {
    (() $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(forward_float_functions!(@row $lane $kind);)*
    };
    (@row $lane:ident unary) => {
        forward!(crate::lanes::FloatLanes; binary:; unary: $lane; compare:);
    };
    (@row $lane:ident hand) => {};
}

/// The float functions lane by lane: `lanes::FloatLanes`' lane methods.
pub trait FloatLanes: crate::lanes::FloatLanes + NumLanes {
    crate::functions::for_each_float_function!(forward_float_functions);
    forward!(crate::lanes::FloatLanes;
        binary: max_no_nan_lanes, min_no_nan_lanes, div_invariant_lanes;
        unary: exp_nonpos_lanes;
        compare:);
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The baseline `div_softmax_lanes`.
    fn div_softmax_lanes(a: V<Self>, b: V<Self>, in_range: V<bool>) -> V<Self> {
        <Self as crate::lanes::FloatLanes>::div_softmax_lanes(a, b, in_range)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The baseline `div_softmax_plain_lanes`.
    fn div_softmax_plain_lanes(a: V<Self>, b: V<Self>, in_range: V<bool>) -> V<Self> {
        <Self as crate::lanes::FloatLanes>::div_softmax_plain_lanes(a, b, in_range)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The baseline `is_nan_lanes`.
    fn is_nan_lanes(a: V<Self>) -> V<bool> {
        <Self as crate::lanes::FloatLanes>::is_nan_lanes(a)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The baseline `is_inf_lanes`.
    fn is_inf_lanes(a: V<Self>) -> V<bool> {
        <Self as crate::lanes::FloatLanes>::is_inf_lanes(a)
    }
}

impl SelectLanes for bool {}
impl CompareLanes for bool {}
macro_rules! integer_lanes {
    ($($t:ty),*) => {$(
        impl SelectLanes for $t {}
        impl NumLanes for $t {}
        impl CompareLanes for $t {}
    )*};
}
integer_lanes!(u8, u16, u32, u64, i8, i16, i32, i64);

/// `$body` on each of the `$n` registers (`$r`) of the operands: `$x` is operand `$v`'s
/// register in it; the results as lanes.
macro_rules! per_reg {
    ($r:ty, $n:literal; [$($x:ident = $v:ident),+] => $body:expr) => {{
        $(let $x: [$r; $n] = bytemuck::cast($v.0);)+
        let mut out = [<$r as Ymm>::splat(0.0); $n];
        #[allow(clippy::needless_range_loop)] // one index into each operand's registers
        for i in 0..$n {
            $(let $x = $x[i];)+
            out[i] = $body;
        }
        V(bytemuck::cast(out))
    }};
}

/// `CompareLanes` methods, each `compare::<P>` with its predicate.
macro_rules! compare_methods {
    ($t:ty; $($name:ident: $predicate:ident),*) => {$(
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $name(a: V<$t>, b: V<$t>) -> V<bool> {
            compare::<$predicate>(a, b)
        }
    )*};
}

/// The float lanes of one type on `$n` registers `$r`: the methods of the traits above that
/// are written as vector code, each the same IEEE operations as its `wide` version in
/// lanes.rs' `float_lanes!`.
macro_rules! avx_float_lanes {
    ($t:ty, $r:ty, $n:literal) => {
        /// The lanes' bools as the registers' sign-bit masks.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn masks(cond: V<bool>) -> [$r; $n] {
            let mut bytes = [0u8; 8];
            for (byte, &lane) in bytes.iter_mut().zip(&cond.0) {
                *byte = lane as u8;
            }
            let bytes = u64::from_le_bytes(bytes);
            let mut out = [<$r as Ymm>::splat(0.0); $n];
            for (i, reg) in out.iter_mut().enumerate() {
                *reg = <$r as Ymm>::mask_from_bytes(bytes >> (8 * i * <$r as Ymm>::PER_REG));
            }
            out
        }

        /// The lanes whose mask lane is all ones, as bools.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn bools(mask: V<$t>) -> V<bool> {
            let regs: [$r; $n] = bytemuck::cast(mask.0);
            let mut bits = 0u32;
            for (i, reg) in regs.iter().enumerate() {
                bits |= reg.movemask() << (i * <$r as Ymm>::PER_REG);
            }
            let mut lanes = [false; LANES];
            for (i, lane) in lanes.iter_mut().enumerate() {
                *lane = (bits >> i) & 1 != 0;
            }
            V(lanes)
        }

        /// `cmp::<P>` of each lane pair, as bools.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn compare<const P: i32>(a: V<$t>, b: V<$t>) -> V<bool> {
            bools(per_reg!($r, $n; [x = a, y = b] => x.cmp::<P>(y)))
        }

        impl SelectLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn select_lanes(cond: V<bool>, a: V<$t>, b: V<$t>) -> V<$t> {
                let m: V<$t> = V(bytemuck::cast(masks(cond)));
                per_reg!($r, $n; [m = m, x = a, y = b] => m.blend(x, y))
            }
        }

        impl NumLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn add_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.add(y))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sub_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.sub(y))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn mul_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.mul(y))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn div_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.div(y))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn square_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => x.mul(x))
            }
            /// The sign bit flipped (`-x`, NaNs included), as wide's `neg`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn neg_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => x.xor(<$r as Ymm>::splat(-0.0)))
            }
            /// The sign bit cleared, as wide's `abs`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn abs_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => <$r as Ymm>::splat(-0.0).andnot(x))
            }
            /// NaN (`a + b`) if either is NaN; the greater; equal values (±0 included)
            /// combine by bits, `+0 & -0 = +0` (lanes.rs `max_lanes`).
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn max_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => {
                    let unordered = x.cmp::<_CMP_UNORD_Q>(y);
                    let ordered = x
                        .cmp::<_CMP_GT_OQ>(y)
                        .blend(x, y.cmp::<_CMP_GT_OQ>(x).blend(y, x.and(y)));
                    unordered.blend(x.add(y), ordered)
                })
            }
            /// As `max_lanes`, with `min(+0, -0) = +0 | -0 = -0`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn min_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => {
                    let unordered = x.cmp::<_CMP_UNORD_Q>(y);
                    let ordered = x
                        .cmp::<_CMP_LT_OQ>(y)
                        .blend(x, y.cmp::<_CMP_LT_OQ>(x).blend(y, x.or(y)));
                    unordered.blend(x.add(y), ordered)
                })
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn relu_lanes(a: V<$t>) -> V<$t> {
                <$t as NumLanes>::max_lanes(a, V::splat(0.0))
            }
            /// The roundings: `roundps`, the input's sign bit put back (`round_keeping_sign`).
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn floor_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => x
                    .round_keeping_sign::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn ceil_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => x
                    .round_keeping_sign::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn trunc_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => x
                    .round_keeping_sign::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn roundeven_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => x
                    .round_keeping_sign::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>())
            }
            /// −1, +1, or `x` itself for ±0 and NaN: two compares and two blends.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sign_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => {
                    let zero = <$r as Ymm>::splat(0.0);
                    let positive = x.cmp::<_CMP_GT_OQ>(zero).blend(<$r as Ymm>::splat(1.0), x);
                    x.cmp::<_CMP_LT_OQ>(zero).blend(<$r as Ymm>::splat(-1.0), positive)
                })
            }
            /// Half away from zero: the truncation, plus ±1 where the dropped fraction is
            /// at least one half.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn round_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => {
                    let sign = <$r as Ymm>::splat(-0.0);
                    let t = x.round::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>();
                    let away = sign
                        .andnot(x.sub(t))
                        .cmp::<_CMP_GE_OQ>(<$r as Ymm>::splat(0.5));
                    let step = <$r as Ymm>::splat(1.0).or(x.and(sign));
                    away.blend(t.add(step), t)
                })
            }
        }

        /// `ne` is true where either is NaN (`_CMP_NEQ_UQ`), as Rust's `!=`; the others
        /// false there (ordered predicates).
        impl CompareLanes for $t {
            compare_methods!($t; eq_lanes: _CMP_EQ_OQ, ne_lanes: _CMP_NEQ_UQ,
                lt_lanes: _CMP_LT_OQ, le_lanes: _CMP_LE_OQ, gt_lanes: _CMP_GT_OQ,
                ge_lanes: _CMP_GE_OQ);
        }

        impl FloatLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sqrt_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => x.sqrt())
            }
            /// `maxps(a, b)`: `b` where either is NaN (lanes.rs: wide's `fast_max`).
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn max_no_nan_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.max_no_nan(y))
            }
            /// `minps(a, b)`: `b` where either is NaN (lanes.rs: wide's `fast_min`).
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn min_no_nan_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.min_no_nan(y))
            }
            /// The division itself: `div_invariant_lanes` is bit-identical to `div_lanes` by
            /// its contract (lanes.rs), and a `ymm` division is cheap enough here.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn div_invariant_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                <$t as NumLanes>::div_lanes(a, b)
            }
            /// The division itself, as `div_invariant_lanes`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn div_softmax_lanes(a: V<$t>, b: V<$t>, in_range: V<bool>) -> V<$t> {
                let _ = in_range;
                <$t as NumLanes>::div_lanes(a, b)
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn div_softmax_plain_lanes(a: V<$t>, b: V<$t>, in_range: V<bool>) -> V<$t> {
                let _ = in_range;
                <$t as NumLanes>::div_lanes(a, b)
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn is_nan_lanes(a: V<$t>) -> V<bool> {
                compare::<_CMP_UNORD_Q>(a, a)
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn is_inf_lanes(a: V<$t>) -> V<bool> {
                let abs = <$t as NumLanes>::abs_lanes(a);
                compare::<_CMP_EQ_OQ>(abs, V::splat(<$t>::INFINITY))
            }
        }
    };
}

mod f32_lanes {
    use super::*;
    avx_float_lanes!(f32, __m256, 1);
}

mod f64_lanes {
    use super::*;
    avx_float_lanes!(f64, __m256d, 2);
}
