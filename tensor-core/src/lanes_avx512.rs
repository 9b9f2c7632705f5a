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
//! registers or on a local array (the bools' bytes), or `store_streaming_lanes`, whose own
//! checks keep its stores inside the caller's slice (stream.rs). The
//! functions of this module run only inside the AVX-512 copy of a kernel (the only place that
//! binds `__tg_lanes` to this module, `dispatch_kernel!`), which its kernel function calls
//! only where `vmath::kernel_isa()` is 3, i.e. where the running CPU reports avx512f,
//! avx512dq, avx2 and fma (`is_x86_feature_detected!`). Nothing else names this module (it is
//! under the hidden `__private`, which is not a stable API).

use core::arch::x86_64::*;

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
const _: () = assert!(
    2 * HALF == LANES,
    "the AVX-512 lane layer is two 8-lane halves"
);

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

/// Whether `E` is its own compute type (every dtype but `f16`/`bf16`, whose chunk
/// conversions are 8-lane functions of their own: dtype.rs `chunk_to_compute`): then a full
/// chunk is read and written whole, one 64-byte move for f32, where two 8-lane calls gave two
/// 32-byte ones (and a 64-byte load of what two 32-byte stores wrote waits for them to reach
/// the cache instead of being forwarded: W6's in-place gelu block).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
const fn plain<E: Element>() -> bool {
    core::mem::size_of::<E>() == core::mem::size_of::<E::Compute>()
        && !matches!(
            E::DTYPE,
            crate::dtype::DType::F16 | crate::dtype::DType::BF16
        )
}

/// `src[offset..offset + LANES]` as an array (a panic, never a read past `src`, if it leaves
/// it: generated code keeps full chunks inside their row, as lanes.rs `load`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn full_chunk<E: Element>(src: &[E], offset: usize) -> &[E; LANES] {
    // The range is `LANES` long: the `expect` cannot fire.
    src[offset..offset + LANES]
        .try_into()
        .expect("a full chunk is LANES long")
}

/// `dst[offset..offset + LANES]` as an array (as `full_chunk`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn full_chunk_mut<E: Element>(dst: &mut [E], offset: usize) -> &mut [E; LANES] {
    // The range is `LANES` long: the `expect` cannot fire.
    (&mut dst[offset..offset + LANES])
        .try_into()
        .expect("a full chunk is LANES long")
}

impl<E: Element> V<E> {
    /// Each lane's `to_compute`.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn map_compute(self) -> V<E::Compute> {
        let mut out = [E::Compute::default(); LANES];
        for i in 0..LANES {
            out[i] = self.0[i].to_compute();
        }
        V(out)
    }
}

/// Reads `n ≤ LANES` elements of `src` from `offset` (lanes.rs `load` on each half; a half
/// with no element is the compute type's zero and reads nothing).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn load<E: Element>(src: &[E], offset: usize, n: usize) -> V<E::Compute> {
    if n == LANES && plain::<E>() {
        return V(*full_chunk(src, offset)).map_compute();
    }
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
    if n == LANES && plain::<E>() {
        let chunk = full_chunk_mut(dst, offset);
        for i in 0..LANES {
            chunk[i] = E::from_compute(value.0[i]);
        }
        return;
    }
    let [lo, hi] = value.halves();
    crate::lanes::store(dst, offset, n.min(HALF), lo);
    if n > HALF {
        crate::lanes::store(dst, offset + HALF, n - HALF, hi);
    }
}

/// How many elements from `dst[offset]` on to store the ordinary way so that the 16-lane
/// chunks after them start at an address `store_streaming` streams to (64 bytes for f32):
/// fewer than `LANES` (stream.rs `stream_head_for`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn stream_head<E: Element>(dst: &[E], offset: usize) -> usize {
    crate::stream::stream_head_for::<E>(dst, offset, LANES)
}

/// Writes the 16 lanes of `value` to `dst[offset..offset + LANES]` as `store` does, with
/// 64-byte non-temporal stores (`vmovntdq zmm`) where the chunk is aligned to its size up to
/// 64 bytes, an ordinary store otherwise (stream.rs `store_streaming_lanes`; the build's
/// own `store_streaming` would write 16 bytes at a time). Panics (never writes out of
/// bounds) if the chunk leaves `dst`.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn store_streaming<E: Element>(dst: &mut [E], offset: usize, value: V<E::Compute>) {
    // SAFETY: this module runs only inside the AVX-512 copy of a kernel, on CPUs with
    // AVX-512F (module doc, "Why the intrinsics are sound"), the width 64's contract.
    unsafe { crate::stream::store_streaming_lanes::<E, LANES>(dst, offset, value.0, 64) }
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

/// `Zmm` methods that are one binary intrinsic each.
macro_rules! zmm_binary {
    ($($name:ident: $intrinsic:ident),* $(,)?) => {$(
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $name(self, o: Self) -> Self {
            // SAFETY: a register operation of AVX-512F/DQ (module doc, "Why the intrinsics
            // are sound").
            unsafe { $intrinsic(self, o) }
        }
    )*};
}

/// A 512-bit register of float lanes: the operations `zmm_float_lanes!` is written in, one
/// AVX-512 instruction each, for `__m512` (16 × f32) and `__m512d` (8 × f64). Comparisons
/// give a mask register (`__mmask16`, `__mmask8`), which `select` reads: AVX-512 blends by
/// mask, not by the sign bits that the AVX2 layer's `blendvps` reads.
trait Zmm: Copy {
    /// The comparison mask, one bit per lane.
    type Mask: Copy;
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
    /// `vmaxps`/`vmaxpd`: `self > o ? self : o` (so `o` where either is NaN).
    fn max_no_nan(self, o: Self) -> Self;
    /// `vminps`/`vminpd`: `self < o ? self : o`.
    fn min_no_nan(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    /// The lanes where the comparison `P` (`_CMP_*`) holds.
    fn cmp<const P: i32>(self, o: Self) -> Self::Mask;
    /// Each lane from `if_set` where `mask` has its bit, else from `if_clear`.
    fn select(mask: Self::Mask, if_set: Self, if_clear: Self) -> Self;
    /// `vrndscaleps` with immediate `M` (scale 0: to an integer; the rounding-mode bits and
    /// `_MM_FROUND_NO_EXC` are those of SSE4.1's `roundps`).
    fn round<const M: i32>(self) -> Self;
    /// `round::<M>` with the input's sign bit put back (`floor(-0.0) = -0.0`, `trunc(-0.3) =
    /// -0.0`), as lanes.rs writes the roundings for `wide`.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn round_keeping_sign<const M: i32>(self) -> Self {
        self.round::<M>().or(self.and(Self::splat(-0.0)))
    }
    /// The mask's bits, lane `i` in bit `i`.
    fn mask_bits(mask: Self::Mask) -> u32;
    /// The mask whose lane `i` is bit `i` of `bits` (the register's `PER_REG` low bits).
    fn mask_from_bits(bits: u32) -> Self::Mask;
}

/// The `Zmm` impl of a register type from its intrinsics (the `_ps` or `_pd` family).
macro_rules! zmm_impl {
    ($r:ty, $mask:ty, $per_reg:literal, $scalar:ty, set1: $set1:ident, sqrt: $sqrt:ident,
     blend: $blend:ident, cmp: $cmp:ident, round: $round:ident,
     binary: [$($name:ident: $intrinsic:ident),*]) => {
        impl Zmm for $r {
            type Mask = $mask;
            const PER_REG: usize = $per_reg;
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn splat(x: f64) -> Self {
                // SAFETY: a register operation of AVX-512F (module doc, "Why the intrinsics
                // are sound").
                unsafe { $set1(x as $scalar) }
            }
            zmm_binary!($($name: $intrinsic),*);
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sqrt(self) -> Self {
                // SAFETY: as `splat`.
                unsafe { $sqrt(self) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cmp<const P: i32>(self, o: Self) -> $mask {
                // SAFETY: as `splat`.
                unsafe { $cmp::<P>(self, o) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn select(mask: $mask, if_set: Self, if_clear: Self) -> Self {
                // SAFETY: as `splat`. `mask_blend(k, a, b)` takes `b` where `k` has its bit.
                unsafe { $blend(mask, if_clear, if_set) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn round<const M: i32>(self) -> Self {
                // SAFETY: as `splat`.
                unsafe { $round::<M>(self) }
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn mask_bits(mask: $mask) -> u32 {
                mask as u32
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn mask_from_bits(bits: u32) -> $mask {
                bits as $mask
            }
        }
    };
}

zmm_impl!(__m512, __mmask16, 16, f32, set1: _mm512_set1_ps, sqrt: _mm512_sqrt_ps,
blend: _mm512_mask_blend_ps, cmp: _mm512_cmp_ps_mask, round: _mm512_roundscale_ps,
binary: [add: _mm512_add_ps, sub: _mm512_sub_ps, mul: _mm512_mul_ps, div: _mm512_div_ps,
    and: _mm512_and_ps, or: _mm512_or_ps, xor: _mm512_xor_ps, andnot: _mm512_andnot_ps,
    max_no_nan: _mm512_max_ps, min_no_nan: _mm512_min_ps]);

zmm_impl!(__m512d, __mmask8, 8, f64, set1: _mm512_set1_pd, sqrt: _mm512_sqrt_pd,
blend: _mm512_mask_blend_pd, cmp: _mm512_cmp_pd_mask, round: _mm512_roundscale_pd,
binary: [add: _mm512_add_pd, sub: _mm512_sub_pd, mul: _mm512_mul_pd, div: _mm512_div_pd,
    and: _mm512_and_pd, or: _mm512_or_pd, xor: _mm512_xor_pd, andnot: _mm512_andnot_pd,
    max_no_nan: _mm512_max_pd, min_no_nan: _mm512_min_pd]);

/// The 16 lanes' bools as a bit mask, lane `i` in bit `i`: the bytes (0 or 1, a `bool`'s
/// only values) widened to 32-bit lanes and tested (`vpmovzxbd`, `vptestmd`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn bits_of(cond: V<bool>) -> u32 {
    let bytes: [u8; LANES] = cond.0.map(u8::from);
    // SAFETY: register operations of SSE2 and AVX-512F (module doc, "Why the intrinsics are
    // sound"); `bytes` is a local array of 16 bytes, read whole by the unaligned load.
    unsafe {
        let bytes = _mm_loadu_si128(bytes.as_ptr().cast());
        let wide = _mm512_cvtepu8_epi32(bytes);
        _mm512_test_epi32_mask(wide, wide) as u32
    }
}

/// The bools of a 16-bit mask, lane `i` from bit `i`: 32-bit lanes of 1 where the bit is
/// set, narrowed to bytes (`vpmovdb`).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn bools_of(bits: u32) -> V<bool> {
    let mut bytes = [0u8; LANES];
    // SAFETY: register operations of SSE2 and AVX-512F (module doc, "Why the intrinsics are
    // sound"); the store writes the 16 bytes of the local array `bytes`.
    unsafe {
        let ones = _mm512_maskz_set1_epi32(bits as __mmask16, 1);
        _mm_storeu_si128(bytes.as_mut_ptr().cast(), _mm512_cvtepi32_epi8(ones));
    }
    // Every byte is 0 or 1 (the narrowing of 0 or 1).
    let mut out = [false; LANES];
    for (lane, &byte) in out.iter_mut().zip(&bytes) {
        *lane = byte != 0;
    }
    V(out)
}

/// `$body` on each of the `$n` registers (`$r`) of the operands: `$x` is operand `$v`'s
/// register in it; the results as lanes.
macro_rules! per_reg {
    ($r:ty, $n:literal; [$($x:ident = $v:ident),+] => $body:expr) => {{
        $(let $x: [$r; $n] = bytemuck::cast($v.0);)+
        let mut out = [<$r as Zmm>::splat(0.0); $n];
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
/// the AVX2 layer writes as vector code, here on `zmm`, each the same IEEE operations as its
/// `wide` version in lanes.rs' `float_lanes!` (and its `ymm` one in lanes_avx2.rs).
macro_rules! zmm_float_lanes {
    ($t:ty, $r:ty, $n:literal, { $($float_extra:tt)* }) => {
        /// Register `i`'s mask from the 16 lanes' bit mask.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn masks(cond: V<bool>) -> [<$r as Zmm>::Mask; $n] {
            let bits = bits_of(cond);
            let mut out = [<$r as Zmm>::mask_from_bits(0); $n];
            for (i, mask) in out.iter_mut().enumerate() {
                *mask = <$r as Zmm>::mask_from_bits(bits >> (i * <$r as Zmm>::PER_REG));
            }
            out
        }

        /// `cmp::<P>` of each lane pair, as bools.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn compare<const P: i32>(a: V<$t>, b: V<$t>) -> V<bool> {
            let x: [$r; $n] = bytemuck::cast(a.0);
            let y: [$r; $n] = bytemuck::cast(b.0);
            let mut bits = 0u32;
            for i in 0..$n {
                bits |= <$r as Zmm>::mask_bits(x[i].cmp::<P>(y[i])) << (i * <$r as Zmm>::PER_REG);
            }
            bools_of(bits)
        }

        impl SelectLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn select_lanes(cond: V<bool>, a: V<$t>, b: V<$t>) -> V<$t> {
                let m = masks(cond);
                let x: [$r; $n] = bytemuck::cast(a.0);
                let y: [$r; $n] = bytemuck::cast(b.0);
                let mut out = [<$r as Zmm>::splat(0.0); $n];
                for i in 0..$n {
                    out[i] = <$r as Zmm>::select(m[i], x[i], y[i]);
                }
                V(bytemuck::cast(out))
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
                per_reg!($r, $n; [x = a] => x.xor(<$r as Zmm>::splat(-0.0)))
            }
            /// The sign bit cleared, as wide's `abs`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn abs_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => <$r as Zmm>::splat(-0.0).andnot(x))
            }
            /// NaN (`a + b`) if either is NaN; the greater; equal values (±0 included)
            /// combine by bits, `+0 & -0 = +0` (lanes.rs `max_lanes`).
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn max_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => {
                    let ordered = <$r as Zmm>::select(
                        x.cmp::<_CMP_GT_OQ>(y),
                        x,
                        <$r as Zmm>::select(y.cmp::<_CMP_GT_OQ>(x), y, x.and(y)),
                    );
                    <$r as Zmm>::select(x.cmp::<_CMP_UNORD_Q>(y), x.add(y), ordered)
                })
            }
            /// As `max_lanes`, with `min(+0, -0) = +0 | -0 = -0`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn min_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => {
                    let ordered = <$r as Zmm>::select(
                        x.cmp::<_CMP_LT_OQ>(y),
                        x,
                        <$r as Zmm>::select(y.cmp::<_CMP_LT_OQ>(x), y, x.or(y)),
                    );
                    <$r as Zmm>::select(x.cmp::<_CMP_UNORD_Q>(y), x.add(y), ordered)
                })
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn relu_lanes(a: V<$t>) -> V<$t> {
                <$t as NumLanes>::max_lanes(a, V::splat(0.0))
            }
            /// The roundings: `vrndscaleps`, the input's sign bit put back.
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
            /// −1, +1, or `x` itself for ±0 and NaN: two compares and two selects.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sign_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => {
                    let zero = <$r as Zmm>::splat(0.0);
                    let positive =
                        <$r as Zmm>::select(x.cmp::<_CMP_GT_OQ>(zero), <$r as Zmm>::splat(1.0), x);
                    <$r as Zmm>::select(x.cmp::<_CMP_LT_OQ>(zero), <$r as Zmm>::splat(-1.0), positive)
                })
            }
            /// Half away from zero: the truncation, plus ±1 where the dropped fraction is
            /// at least one half.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn round_lanes(a: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a] => {
                    let sign = <$r as Zmm>::splat(-0.0);
                    let t = x.round::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>();
                    let away = sign
                        .andnot(x.sub(t))
                        .cmp::<_CMP_GE_OQ>(<$r as Zmm>::splat(0.5));
                    let step = <$r as Zmm>::splat(1.0).or(x.and(sign));
                    <$r as Zmm>::select(away, t.add(step), t)
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
            /// `vmaxps(a, b)`: `b` where either is NaN (lanes.rs: wide's `fast_max`).
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn max_no_nan_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.max_no_nan(y))
            }
            /// `vminps(a, b)`: `b` where either is NaN (lanes.rs: wide's `fast_min`).
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn min_no_nan_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                per_reg!($r, $n; [x = a, y = b] => x.min_no_nan(y))
            }
            $($float_extra)*
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

/// The f32 lanes' softmax and division methods inline on zmm, the arithmetic of the
/// level-3 block entry points (vmath `block::exp_nonpos_f32`, `div_softmax_f32`,
/// `div_invariant_f32`), so the same bits as those blocks: this copy runs them in its chunk
/// loops instead of calling the blocks (`vmath_blocks` below), as the native AVX-512 build
/// does. Each is bit-identical to what the 8-lane copies compute (the division itself, or
/// the AVX2 + FMA `exp_nonpos`), see vmath `zmm` and lanes.rs `div_softmax_m512`.
mod f32_lanes {
    use super::*;
    zmm_float_lanes!(f32, __m512, 1, {
        /// e^a for a <= 0 on zmm (`vmath::zmm::exp_nonpos`).
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn exp_nonpos_lanes(a: V<f32>) -> V<f32> {
            // SAFETY: avx512f, avx512dq, avx2 and fma, which this module's code runs with
            // (module doc, "Why the intrinsics are sound"); registers only.
            V(bytemuck::cast(unsafe {
                crate::vmath::zmm::exp_nonpos(bytemuck::cast(a.0))
            }))
        }
        /// Markstein's quotient where the operands allow it, else `vdivps`
        /// (`div_invariant_m512`): bit-identical to the division.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn div_invariant_lanes(a: V<f32>, b: V<f32>) -> V<f32> {
            // SAFETY: avx512f, as above; registers only.
            V(bytemuck::cast(unsafe {
                crate::lanes::div_invariant_m512(bytemuck::cast(a.0), bytemuck::cast(b.0))
            }))
        }
        /// Softmax's `e / sum` as the level-3 block runs it (`div_softmax_in_range_m512`
        /// with the row's promise, lane 0 of `in_range`, else `div_softmax_m512`):
        /// bit-identical to the division under `div_softmax_lanes`' contract (lanes.rs).
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn div_softmax_lanes(a: V<f32>, b: V<f32>, in_range: V<bool>) -> V<f32> {
            let (a, b) = (bytemuck::cast(a.0), bytemuck::cast(b.0));
            // SAFETY: avx512f, as above; registers only.
            V(bytemuck::cast(unsafe {
                if in_range.0[0] {
                    crate::lanes::div_softmax_in_range_m512(a, b)
                } else {
                    crate::lanes::div_softmax_m512(a, b)
                }
            }))
        }
    });
}

mod f64_lanes {
    use super::*;
    zmm_float_lanes!(f64, __m512d, 2, {
        /// The division itself: `div_invariant_lanes` is bit-identical to `div_lanes` by
        /// its contract (lanes.rs), as in the AVX2 layer.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn div_invariant_lanes(a: V<f64>, b: V<f64>) -> V<f64> {
            <f64 as NumLanes>::div_lanes(a, b)
        }
        /// The division itself, as `div_invariant_lanes`.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn div_softmax_lanes(a: V<f64>, b: V<f64>, in_range: V<bool>) -> V<f64> {
            let _ = in_range;
            <f64 as NumLanes>::div_lanes(a, b)
        }
    });
}

/// Which f32 block entry points this copy calls (lib.rs `__private::vmath_blocks`): all but
/// softmax's exp and the row divisions, which its f32 lanes compute inline with the blocks'
/// bits (`f32_lanes` above). Inline, a softmax row's exp pass is one load, subtract, exp,
/// store and add per chunk, where the blocked loop stored `x - max`, called the block (16
/// `zmm` spilled and reloaded around each call, the level byte read before it) and read the
/// result back; and its scale pass no longer keeps the next row's max loads on the stack
/// across the division block's call (NOTES.md "Softmax of the AVX-512 copy inline").
pub mod vmath_blocks {
    pub use crate::__private::vmath_blocks::*;
    pub const EXP_NONPOS_F32: bool = false;
    pub const DIV_INVARIANT_F32: bool = false;
    pub const DIV_SOFTMAX_F32: bool = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether this CPU runs the AVX-512 copy (its features), and the block kernels run
    /// their FMA paths (level 2 or 3: the bits `vmath::zmm` promises to match).
    fn runs_avx512() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && crate::vmath::kernel_isa() >= 2
    }

    fn same(got: f32, want: f32) -> bool {
        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
    }

    /// The inline zmm `exp_nonpos` of this copy (the native build's table kernel) against
    /// the f64 exponential: within exp's bound, 1 ULP (ACCURACY.md), over every class of its
    /// domain: -0, +0, subnormal and tiny negatives, the clamp at -104 and past it, the
    /// underflow range, -inf, NaN and random negatives; e^-0 = e^+0 = 1 and e^-inf = +0
    /// exactly, NaN for NaN.
    #[test]
    fn exp_nonpos_lanes_are_exp_within_one_ulp() {
        if !runs_avx512() {
            return;
        }
        let mut rng = crate::testing::Rng::new(0x5851_f42d_4c95_7f2d);
        let special = [
            0.0f32,
            -0.0,
            -f32::from_bits(1),
            -1e-30,
            -1e-7,
            -0.5,
            -1.0,
            -87.33655,
            -87.5,
            -103.27893,
            -103.97208,
            -104.0,
            -105.0,
            -150.0,
            -1e30,
            f32::NEG_INFINITY,
        ];
        let rounds = if cfg!(debug_assertions) {
            20_000
        } else {
            400_000
        };
        for round in 0..rounds {
            let a: [f32; LANES] = core::array::from_fn(|i| match (round + i) % 4 {
                0 => special[(round / 4 + i) % special.len()],
                // Any negative float (sign bit set; NaN payloads included).
                1 => f32::from_bits(rng.next_u64() as u32 | 0x8000_0000),
                // Softmax's usual range, x - max in [-110, 0].
                _ => -((rng.next_u64() % (1 << 24)) as f32) * (110.0 / (1 << 24) as f32),
            });
            let got = <f32 as FloatLanes>::exp_nonpos_lanes(V(a)).0;
            for i in 0..LANES {
                let (x, y) = (a[i], got[i]);
                if x.is_nan() {
                    assert!(y.is_nan(), "exp_nonpos(NaN) = {y:e}");
                    continue;
                }
                let want = (x as f64).exp();
                // One ULP of the f32 nearest `want` (the smallest subnormal's spacing below
                // 2^-126).
                let w = want as f32;
                let ulp = (f32::from_bits(w.to_bits() + 1) - w).max(f32::from_bits(1)) as f64;
                assert!(
                    (y as f64 - want).abs() <= ulp,
                    "exp_nonpos({x:e}) = {y:e}, f64 {want:e}"
                );
                if x == 0.0 {
                    assert_eq!(y, 1.0, "exp_nonpos({x:e})");
                }
                if x == f32::NEG_INFINITY {
                    assert_eq!(y.to_bits(), 0, "exp_nonpos(-inf)");
                }
            }
        }
    }

    /// The inline zmm divisions of this copy are the division: `div_softmax_lanes` for
    /// softmax's operands (a in [0, 1] or NaN, b a row sum: at least 1, or NaN, inf, huge),
    /// with and without the row's `in_range` promise where it holds; `div_invariant_lanes`
    /// for any operands (every class of float, fast-path and slow-path lanes mixed).
    #[test]
    fn division_lanes_are_the_division() {
        if !runs_avx512() {
            return;
        }
        let mut rng = crate::testing::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u64();
        let check = |got: [f32; LANES], a: [f32; LANES], b: f32, what: &str| {
            for i in 0..LANES {
                let want = a[i] / b;
                assert!(
                    same(got[i], want),
                    "{what}: {:e} / {:e} = {:e}, want {:e}",
                    a[i],
                    b,
                    got[i],
                    want
                );
            }
        };
        let rounds = if cfg!(debug_assertions) {
            20_000
        } else {
            300_000
        };
        for k in 0..rounds {
            let (b, a) = crate::lanes::softmax_division_operands::<LANES>(k, &mut next);
            let soft = |promise: bool| {
                <f32 as FloatLanes>::div_softmax_lanes(V(a), V::splat(b), V::splat(promise)).0
            };
            check(soft(false), a, b, "div_softmax");
            if a.iter()
                .all(|&x| x.is_nan() || x >= f32::from_bits(0x1980_0000))
            {
                check(soft(true), a, b, "div_softmax, in range");
            }
            // Any operands for the invariant division.
            let b_any = if k % 2 == 0 {
                f32::from_bits(next() as u32)
            } else {
                b
            };
            let mut a_any: [f32; LANES] = core::array::from_fn(|_| {
                let x = next();
                f32::from_bits((((27 + x % 201) as u32) << 23) | ((x >> 20) as u32 & 0x807f_ffff))
            });
            if next() & 1 == 0 {
                a_any[(next() % LANES as u64) as usize] = f32::from_bits(next() as u32);
            }
            let got = <f32 as FloatLanes>::div_invariant_lanes(V(a_any), V::splat(b_any)).0;
            check(got, a_any, b_any, "div_invariant");
        }
    }
}
