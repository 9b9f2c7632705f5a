//! The lane layer of the AVX-512 copy of a dispatched kernel (issue 36, step 2): 16 lanes in
//! a build whose `LANES` is 8.
//!
//! `dispatch_kernel!` (lib.rs) compiles a graph's kernel three times on x86-64 builds without
//! AVX2 (the `dispatch` feature): a baseline copy, an AVX2 + FMA copy (lanes_avx2.rs) and a
//! `#[target_feature(enable = "avx512f,avx512dq,avx2,fma")]` copy that binds `__tg_lanes` to
//! this module. The kernel body names every item whose type or behaviour depends on the
//! lane count through `__tg_lanes` (the macro's emit/names.rs `LANE_OPS` states the rule):
//! the lane type `V`, `LANES`, the chunk loads and stores, `cast`, the reduction helpers
//! and the lane traits. This module re-exports all of `__private` and shadows exactly those
//! names with 16-lane versions, so the same body text runs 16 lanes per chunk here and 8 in
//! the other copies; the emitter's loops are already written for either count (the native
//! AVX-512 build has 16).
//!
//! The rule every item here follows: a 16-lane operation is the 8-lane operation of the
//! AVX2 + FMA layer on each half (lanes 0-7, lanes 8-15), or, for the float methods that
//! `zmm_float_lanes!` writes on `__m512`/`__m512d`, the same IEEE operation on all 16 lanes
//! with the NaN and ±0 rules of lanes.rs. Every lane operation is lane-wise, so a lane's bits
//! are those of the same lane in the 8-lane copies; only what combines lanes differs, and
//! only in order: `fold` (pairwise over 16 lanes: a float sum's rounding differs, within the
//! reduction bound of docs/language.md; exact combines give the same value) and the
//! accumulators of a row reduction (chunk `u` of a row starts at element 16·u).
//!
//! Why the intrinsics are sound: every `unsafe` block here calls AVX-512F intrinsics on
//! registers or on a local array (the bools' bytes); none touches a caller's memory. The
//! functions of this module run only inside the AVX-512 copy of a kernel (the only place that
//! binds `__tg_lanes` to this module, `dispatch_kernel!`), which its kernel function calls
//! only where `vmath::kernel_isa()` is 3, i.e. where the running CPU reports avx512f,
//! avx512dq, avx2 and fma (`is_x86_feature_detected!`). Nothing else names this module (it is
//! under the hidden `__private`, which is not a stable API).

// `CastTo`, `Element`, `Compare` and `Num` come from the glob below (the same items).
use crate::dtype::LaneScalar;
use crate::lanes_avx2 as half;

/// Everything generated code names, as in the baseline copy; the items below shadow their
/// namesakes from this glob.
pub use crate::__private::*;

/// Lanes per value in this copy.
pub const LANES: usize = 16;

/// Lanes per half: the build's lane count, that of the 8-lane layers each half runs.
const HALF: usize = crate::lanes::LANES;
const _: () = assert!(2 * HALF == LANES, "the AVX-512 lane layer is two 8-lane halves");

/// A half: the 8-lane value of the other copies.
type Half<T> = crate::lanes::V<T>;

/// `LANES` values of a compute type, the unit this copy's kernels work in (`lanes::V` with
/// 16 lanes).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct V<T>(pub [T; LANES]);

impl<T: LaneScalar> V<T> {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// Every lane `value`.
    pub fn splat(value: T) -> Self {
        V([value; LANES])
    }

    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// Lanes 0-7 and lanes 8-15.
    fn halves(self) -> [Half<T>; 2] {
        let mut lo = [T::default(); HALF];
        let mut hi = [T::default(); HALF];
        lo.copy_from_slice(&self.0[..HALF]);
        hi.copy_from_slice(&self.0[HALF..]);
        [crate::lanes::V(lo), crate::lanes::V(hi)]
    }

    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The value whose lanes 0-7 are `lo`'s and 8-15 `hi`'s.
    fn join(lo: Half<T>, hi: Half<T>) -> Self {
        let mut out = [T::default(); LANES];
        out[..HALF].copy_from_slice(&lo.0);
        out[HALF..].copy_from_slice(&hi.0);
        V(out)
    }
}

/// Reads `n ≤ LANES` elements of `src` from `offset` (lanes.rs `load` on each half; a half
/// with no element is the compute type's zero and reads nothing).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn load<E: Element>(src: &[E], offset: usize, n: usize) -> V<E::Compute> {
    let lo = crate::lanes::load(src, offset, n.min(HALF));
    let hi = if n > HALF {
        crate::lanes::load(src, offset + HALF, n - HALF)
    } else {
        Half::splat(E::Compute::default())
    };
    V::join(lo, hi)
}

/// Reads `n ≤ LANES` elements of `src` spaced `stride` apart from `offset` (lanes.rs
/// `load_strided` on each half).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn load_strided<E: Element>(
    src: &[E],
    offset: usize,
    stride: usize,
    n: usize,
) -> V<E::Compute> {
    let lo = crate::lanes::load_strided(src, offset, stride, n.min(HALF));
    let hi = if n > HALF {
        crate::lanes::load_strided(src, offset + HALF * stride, stride, n - HALF)
    } else {
        Half::splat(E::Compute::default())
    };
    V::join(lo, hi)
}

/// Lane `i < n` is `src[offset - i * stride]` (lanes.rs `load_strided_back` on each half;
/// the second half starts `HALF` elements further back, which exist when `n > HALF`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn load_strided_back<E: Element>(
    src: &[E],
    offset: usize,
    stride: usize,
    n: usize,
) -> V<E::Compute> {
    let lo = crate::lanes::load_strided_back(src, offset, stride, n.min(HALF));
    let hi = if n > HALF {
        crate::lanes::load_strided_back(src, offset - HALF * stride, stride, n - HALF)
    } else {
        Half::splat(E::Compute::default())
    };
    V::join(lo, hi)
}

/// Writes the first `n ≤ LANES` lanes of `value` to `dst[offset..offset + n]` (lanes.rs
/// `store` on each half that has lanes to write).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn store<E: Element>(dst: &mut [E], offset: usize, n: usize, value: V<E::Compute>) {
    let [lo, hi] = value.halves();
    crate::lanes::store(dst, offset, n.min(HALF), lo);
    if n > HALF {
        crate::lanes::store(dst, offset + HALF, n - HALF, hi);
    }
}

/// `stream::store_streaming` of each half. The head that `stream_head` (the 8-lane one,
/// fewer than 8 < `LANES` elements, re-exported) gives aligns both halves; an unaligned half
/// is stored the ordinary way, so alignment is speed, never correctness.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn store_streaming<E: Element>(dst: &mut [E], offset: usize, value: V<E::Compute>) {
    let [lo, hi] = value.halves();
    crate::stream::store_streaming(dst, offset, lo);
    crate::stream::store_streaming(dst, offset + HALF, hi);
}

/// `x as D` on lanes (lanes.rs `cast` on each half).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn cast<S: CastTo<D>, D: Element>(value: V<S::Compute>) -> V<D::Compute> {
    let [lo, hi] = value.halves();
    V::join(
        crate::lanes::cast::<S, D>(lo),
        crate::lanes::cast::<S, D>(hi),
    )
}

/// Lanes `0..n` true, the rest false (reduce.rs `lane_mask`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn lane_mask(n: usize) -> V<bool> {
    let mut out = [false; LANES];
    for (i, lane) in out.iter_mut().enumerate() {
        *lane = i < n;
    }
    V(out)
}

/// `value` where `mask`, else `identity` (reduce.rs `mask_or`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn mask_or<T: LaneScalar>(mask: V<bool>, value: V<T>, identity: T) -> V<T> {
    let mut out = value;
    for i in 0..LANES {
        if !mask.0[i] {
            out.0[i] = identity;
        }
    }
    out
}

/// Folds the 16 lanes into one value with `f`, pairwise as reduce.rs `fold` (lane `i` with
/// lane `i + 8`, then the 8-lane fold of those).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn fold<T: LaneScalar>(v: V<T>, f: impl Fn(T, T) -> T) -> T {
    let mut width = LANES;
    let mut lanes = v.0;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            lanes[i] = f(lanes[i], lanes[i + width]);
        }
    }
    lanes[0]
}

/// The lane indices `base, base + 1, …` as `i64` (reduce.rs `iota`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn iota(base: usize) -> V<i64> {
    iota_strided(base, 1)
}

/// `base, base + step, base + 2·step, …` (reduce.rs `iota_strided`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn iota_strided(base: usize, step: usize) -> V<i64> {
    let mut out = [0i64; LANES];
    for (i, lane) in out.iter_mut().enumerate() {
        *lane = (base + i * step) as i64;
    }
    V(out)
}

/// Lane `l` is `row + (j + l)·step` in wrapping arithmetic (reduce.rs `positions`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn positions(row: usize, j: usize, step: usize) -> V<i64> {
    let mut out = [0i64; LANES];
    for (l, lane) in out.iter_mut().enumerate() {
        *lane = row.wrapping_add(j.wrapping_add(l).wrapping_mul(step)) as i64;
    }
    V(out)
}

/// reduce.rs `arg_combine` on each half (it is lane-wise).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_combine<T: Num + Compare, const MAX: bool>(
    best: &mut V<T>,
    best_i: &mut V<i64>,
    v: V<T>,
    i: V<i64>,
    mask: V<bool>,
) {
    let ([mut b0, mut b1], [mut i0, mut i1]) = (best.halves(), best_i.halves());
    let ([v0, v1], [x0, x1], [m0, m1]) = (v.halves(), i.halves(), mask.halves());
    crate::reduce::arg_combine::<T, MAX>(&mut b0, &mut i0, v0, x0, m0);
    crate::reduce::arg_combine::<T, MAX>(&mut b1, &mut i1, v1, x1, m1);
    *best = V::join(b0, b1);
    *best_i = V::join(i0, i1);
}

/// reduce.rs `arg_step` on each half (it is lane-wise).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_step<T: Num + Compare, const MAX: bool>(
    best: &mut V<T>,
    best_base: &mut V<i64>,
    v: V<T>,
    base: usize,
    mask: V<bool>,
) {
    let ([mut b0, mut b1], [mut i0, mut i1]) = (best.halves(), best_base.halves());
    let ([v0, v1], [m0, m1]) = (v.halves(), mask.halves());
    crate::reduce::arg_step::<T, MAX>(&mut b0, &mut i0, v0, base, m0);
    crate::reduce::arg_step::<T, MAX>(&mut b1, &mut i1, v1, base, m1);
    *best = V::join(b0, b1);
    *best_base = V::join(i0, i1);
}

/// The indices of an `arg_step` state: lane `l` holding a chunk base `b ≥ 0` held the element
/// at `b + l · step`; -1 stays -1 (reduce.rs `arg_indices` over 16 lanes: the lane number is
/// the 16-lane one, so it is not written by halves).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_indices(best_base: V<i64>, step: usize) -> V<i64> {
    let mut out = best_base;
    for (lane, index) in out.0.iter_mut().enumerate() {
        if *index >= 0 {
            *index += (lane * step) as i64;
        }
    }
    out
}

/// reduce.rs `arg_fold` of lanes 0-7, then of lanes 8-15: the lanes in order, as the 16-lane
/// loop would visit them.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_fold<T: Num + Compare, const MAX: bool>(
    best: V<T>,
    best_i: V<i64>,
    slot: &mut T,
    slot_i: &mut i64,
) {
    let ([b0, b1], [i0, i1]) = (best.halves(), best_i.halves());
    crate::reduce::arg_fold::<T, MAX>(b0, i0, slot, slot_i);
    crate::reduce::arg_fold::<T, MAX>(b1, i1, slot, slot_i);
}

/// Default methods that run the 8-lane method of the same name (`$base`, the AVX2 + FMA
/// layer's trait or, for traits that layer does not shadow, lanes.rs') on each half:
/// `binary` and `unary` on `V<Self>`, `compare` to `V<bool>`, `predicate` from one operand to
/// `V<bool>`, `ternary` on three.
macro_rules! by_halves {
    ($base:path; binary: $($b:ident),*; unary: $($u:ident),*; compare: $($c:ident),*;
     predicate: $($p:ident),*; ternary: $($t:ident),*) => {
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The 8-lane `", stringify!($b), "` on each half.")]
            fn $b(a: V<Self>, b: V<Self>) -> V<Self> {
                let ([a0, a1], [b0, b1]) = (a.halves(), b.halves());
                V::join(<Self as $base>::$b(a0, b0), <Self as $base>::$b(a1, b1))
            }
        )*
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The 8-lane `", stringify!($u), "` on each half.")]
            fn $u(a: V<Self>) -> V<Self> {
                let [a0, a1] = a.halves();
                V::join(<Self as $base>::$u(a0), <Self as $base>::$u(a1))
            }
        )*
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The 8-lane `", stringify!($c), "` on each half.")]
            fn $c(a: V<Self>, b: V<Self>) -> V<bool> {
                let ([a0, a1], [b0, b1]) = (a.halves(), b.halves());
                V::join(<Self as $base>::$c(a0, b0), <Self as $base>::$c(a1, b1))
            }
        )*
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The 8-lane `", stringify!($p), "` on each half.")]
            fn $p(a: V<Self>) -> V<bool> {
                let [a0, a1] = a.halves();
                V::join(<Self as $base>::$p(a0), <Self as $base>::$p(a1))
            }
        )*
        $(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[doc = concat!("The 8-lane `", stringify!($t), "` on each half.")]
            fn $t(a: V<Self>, b: V<Self>, c: V<Self>) -> V<Self> {
                let ([a0, a1], [b0, b1], [c0, c1]) = (a.halves(), b.halves(), c.halves());
                V::join(<Self as $base>::$t(a0, b0, c0), <Self as $base>::$t(a1, b1, c1))
            }
        )*
    };
}

/// Arithmetic lane by lane: lanes.rs `NumLanes`' methods on 16 lanes.
pub trait NumLanes: half::NumLanes + LaneScalar {
    by_halves!(half::NumLanes;
        binary: add_lanes, sub_lanes, mul_lanes, div_lanes, rem_lanes, modulo_lanes,
            max_lanes, min_lanes, pow_lanes;
        unary: neg_lanes, abs_lanes, relu_lanes, floor_lanes, round_lanes, roundeven_lanes,
            trunc_lanes, ceil_lanes, sign_lanes, square_lanes;
        compare:; predicate:; ternary:);
}

/// Comparisons lane by lane: lanes.rs `CompareLanes`' methods on 16 lanes.
pub trait CompareLanes: half::CompareLanes + LaneScalar {
    by_halves!(half::CompareLanes;
        binary:; unary:;
        compare: eq_lanes, ne_lanes, lt_lanes, le_lanes, gt_lanes, ge_lanes;
        predicate:; ternary:);
}

/// `where(cond, a, b)` on 16 lanes.
pub trait SelectLanes: half::SelectLanes + LaneScalar {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The 8-lane `select_lanes` on each half.
    fn select_lanes(cond: V<bool>, a: V<Self>, b: V<Self>) -> V<Self> {
        let ([c0, c1], [a0, a1], [b0, b1]) = (cond.halves(), a.halves(), b.halves());
        V::join(
            <Self as half::SelectLanes>::select_lanes(c0, a0, b0),
            <Self as half::SelectLanes>::select_lanes(c1, a1, b1),
        )
    }
}

/// `& | ^ !` lane by lane on 16 lanes.
pub trait BitwiseLanes: half::BitwiseLanes + LaneScalar {
    by_halves!(half::BitwiseLanes;
        binary: and_lanes, or_lanes, xor_lanes; unary: not_lanes;
        compare:; predicate:; ternary:);
}

/// `<< >>` lane by lane on 16 lanes.
pub trait ShiftLanes: half::ShiftLanes + LaneScalar {
    by_halves!(half::ShiftLanes;
        binary: shl_lanes, shr_lanes; unary:;
        compare:; predicate:; ternary:);
}

/// `bitwise_count` on 16 integer lanes.
pub trait BitCountLanes: half::BitCountLanes + LaneScalar {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The 8-lane `bitwise_count_lanes` on each half.
    fn bitwise_count_lanes(a: V<Self>) -> V<u8> {
        let [a0, a1] = a.halves();
        V::join(
            <Self as half::BitCountLanes>::bitwise_count_lanes(a0),
            <Self as half::BitCountLanes>::bitwise_count_lanes(a1),
        )
    }
}

/// The `FloatLanes` default of each `unary` row of the function table (functions.rs): the
/// 8-lane method on each half.
macro_rules! float_functions_by_halves {
    (() $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(float_functions_by_halves!(@row $lane $kind);)*
    };
    (@row $lane:ident unary) => {
        by_halves!(half::FloatLanes; binary:; unary: $lane; compare:; predicate:; ternary:);
    };
    (@row $lane:ident hand) => {};
}

/// The float functions lane by lane on 16 lanes.
pub trait FloatLanes: half::FloatLanes + NumLanes {
    crate::functions::for_each_float_function!(float_functions_by_halves);
    by_halves!(half::FloatLanes;
        binary: max_no_nan_lanes, min_no_nan_lanes, div_invariant_lanes;
        unary: exp_nonpos_lanes;
        compare:;
        predicate: is_nan_lanes, is_inf_lanes;
        ternary:);
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The 8-lane `div_softmax_lanes` on each half.
    fn div_softmax_lanes(a: V<Self>, b: V<Self>, in_range: V<bool>) -> V<Self> {
        let ([a0, a1], [b0, b1], [r0, r1]) = (a.halves(), b.halves(), in_range.halves());
        V::join(
            <Self as half::FloatLanes>::div_softmax_lanes(a0, b0, r0),
            <Self as half::FloatLanes>::div_softmax_lanes(a1, b1, r1),
        )
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The 8-lane `div_softmax_plain_lanes` on each half.
    fn div_softmax_plain_lanes(a: V<Self>, b: V<Self>, in_range: V<bool>) -> V<Self> {
        let ([a0, a1], [b0, b1], [r0, r1]) = (a.halves(), b.halves(), in_range.halves());
        V::join(
            <Self as half::FloatLanes>::div_softmax_plain_lanes(a0, b0, r0),
            <Self as half::FloatLanes>::div_softmax_plain_lanes(a1, b1, r1),
        )
    }
}

/// The float rows of the wider op table on 16 lanes.
pub trait ActivationLanes: half::ActivationLanes + FloatLanes + CompareLanes + SelectLanes {
    by_halves!(half::ActivationLanes;
        binary: leaky_relu_lanes, thresholded_relu_lanes, elu_lanes, celu_lanes, swish_lanes;
        unary: reciprocal_lanes, softsign_lanes, hard_swish_lanes;
        compare:;
        predicate: is_finite_lanes;
        ternary: hard_sigmoid_lanes, shrink_lanes, selu_lanes);
}

impl SelectLanes for bool {}
impl CompareLanes for bool {}
impl BitwiseLanes for bool {}
macro_rules! integer_lanes {
    ($($t:ty),*) => {$(
        impl SelectLanes for $t {}
        impl NumLanes for $t {}
        impl CompareLanes for $t {}
        impl BitwiseLanes for $t {}
        impl ShiftLanes for $t {}
    )*};
}
integer_lanes!(u8, u16, u32, u64, i8, i16, i32, i64);
macro_rules! bit_count_lanes {
    ($($t:ty),*) => {$(impl BitCountLanes for $t {})*};
}
bit_count_lanes!(u8, u16, u32, u64, i8, i16, i32, i64);
impl ActivationLanes for f32 {}
impl ActivationLanes for f64 {}

impl SelectLanes for f32 {}
impl SelectLanes for f64 {}
impl NumLanes for f32 {}
impl NumLanes for f64 {}
impl CompareLanes for f32 {}
impl CompareLanes for f64 {}
impl FloatLanes for f32 {}
impl FloatLanes for f64 {}
