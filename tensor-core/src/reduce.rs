//! Reduction support: identities, lane masks for tails, horizontal folds and the
//! arg-max/arg-min combine. Sums, products, max/min, any/all combine with the ordinary
//! lane ops (`NumLanes::add_lanes`, `BitwiseLanes::or_lanes` …); this module adds what
//! only a reduction needs.
//!
//! Order of accumulation is unspecified (DESIGN.md): lanes accumulate independently and
//! fold at the end of a row.

use crate::dtype::LaneScalar;
use crate::lanes::{LANES, V};
use crate::reference::{Compare, Num};

/// Identity elements of the reduction combines, per compute type.
pub trait Identity: LaneScalar {
    /// For `sum`: 0.
    const ZERO: Self;
    /// For `prod`: 1.
    const ONE: Self;
    /// For `max`: -inf, or the integer minimum.
    const LOWEST: Self;
    /// For `min`: +inf, or the integer maximum.
    const HIGHEST: Self;
}

macro_rules! int_identity {
    ($($t:ty),*) => {$(
        impl Identity for $t {
            const ZERO: $t = 0;
            const ONE: $t = 1;
            const LOWEST: $t = <$t>::MIN;
            const HIGHEST: $t = <$t>::MAX;
        }
    )*};
}
int_identity!(u8, u16, u32, u64, i8, i16, i32, i64);

impl Identity for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const LOWEST: f32 = f32::NEG_INFINITY;
    const HIGHEST: f32 = f32::INFINITY;
}
impl Identity for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const LOWEST: f64 = f64::NEG_INFINITY;
    const HIGHEST: f64 = f64::INFINITY;
}
impl Identity for bool {
    const ZERO: bool = false;
    const ONE: bool = true;
    const LOWEST: bool = false;
    const HIGHEST: bool = true;
}

/// Lanes `0..n` true, the rest false: tail lanes of a chunk hold padding and must not
/// reach an accumulator.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn lane_mask(n: usize) -> V<bool> {
    V(core::array::from_fn(|i| i < n))
}

/// `value` where `mask`, else `identity`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn mask_or<T: LaneScalar>(mask: V<bool>, value: V<T>, identity: T) -> V<T> {
    V(core::array::from_fn(|i| {
        if mask.0[i] {
            value.0[i]
        } else {
            identity
        }
    }))
}

/// Folds the lanes of `v` into one value with `f`, pairwise (lane order does not matter
/// for the commutative, associative combines used here, up to float rounding).
#[cfg_attr(debug_assertions, inline)]
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

/// The lane indices `base, base + 1, …` as `i64`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn iota(base: usize) -> V<i64> {
    V(core::array::from_fn(|i| (base + i) as i64))
}

/// Whether `(v, i)` beats `(best, best_i)` for arg-max (`MAX = true`) or arg-min: a larger
/// (smaller) value wins, the first NaN wins over everything (NumPy), ties keep the
/// smaller index. A negative `best_i` marks an empty slot, which anything beats.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_better<T: Num + Compare, const MAX: bool>(v: T, i: i64, best: T, best_i: i64) -> bool {
    if best_i < 0 {
        return true;
    }
    let v_nan = <T as Compare>::ne(v, v);
    let best_nan = <T as Compare>::ne(best, best);
    if best_nan {
        return v_nan && i < best_i;
    }
    if v_nan {
        return true;
    }
    let strictly = if MAX {
        <T as Compare>::gt(v, best)
    } else {
        <T as Compare>::lt(v, best)
    };
    strictly || (<T as Compare>::eq(v, best) && i < best_i)
}

/// Lane-wise arg-max/arg-min step; lanes where `mask` is false are skipped.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_combine<T: Num + Compare, const MAX: bool>(
    best: &mut V<T>,
    best_i: &mut V<i64>,
    v: V<T>,
    i: V<i64>,
    mask: V<bool>,
) {
    for lane in 0..LANES {
        if mask.0[lane] && arg_better::<T, MAX>(v.0[lane], i.0[lane], best.0[lane], best_i.0[lane])
        {
            best.0[lane] = v.0[lane];
            best_i.0[lane] = i.0[lane];
        }
    }
}

/// Folds lane-wise arg-max/arg-min state into one scalar slot.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_fold<T: Num + Compare, const MAX: bool>(
    best: V<T>,
    best_i: V<i64>,
    slot: &mut T,
    slot_i: &mut i64,
) {
    for lane in 0..LANES {
        if best_i.0[lane] >= 0 && arg_better::<T, MAX>(best.0[lane], best_i.0[lane], *slot, *slot_i)
        {
            *slot = best.0[lane];
            *slot_i = best_i.0[lane];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_rules_follow_numpy() {
        // Larger wins, ties keep the first index, the first NaN wins.
        assert!(arg_better::<f32, true>(2.0, 5, 1.0, 0));
        assert!(!arg_better::<f32, true>(1.0, 5, 1.0, 0));
        assert!(arg_better::<f32, true>(1.0, 0, 1.0, 5));
        assert!(arg_better::<f32, true>(f32::NAN, 9, 1.0, 0));
        assert!(!arg_better::<f32, true>(3.0, 1, f32::NAN, 0));
        assert!(arg_better::<f32, true>(f32::NAN, 1, f32::NAN, 4));
        assert!(arg_better::<i32, false>(-3, 7, 2, 0));
        assert!(arg_better::<f32, true>(
            f32::NEG_INFINITY,
            3,
            f32::NEG_INFINITY,
            -1
        ));
    }

    #[test]
    fn fold_and_masks() {
        let v = V(core::array::from_fn(|i| i as i64 + 1));
        assert_eq!(fold(v, |a, b| a + b), (1..=LANES as i64).sum::<i64>());
        let m = lane_mask(3);
        assert_eq!(mask_or(m, v, 0).0.iter().sum::<i64>(), 6);
    }
}

/// The extents of a scan's buffers: `outer × len × inner`, row-major, scanned along `len`.
#[derive(Clone, Copy, Debug)]
pub struct ScanShape {
    /// The product of the extents before the scanned axis.
    pub outer: usize,
    /// The extent of the scanned axis.
    pub len: usize,
    /// The product of the extents after the scanned axis.
    pub inner: usize,
}

/// `cumsum` (`prod = false`) or `cumprod` of `src` into `dst` along the middle axis of
/// `shape`, sequentially in scan order (a scan's order is part of its result), each step
/// combined by the reference `Num::add`/`Num::mul` (wrapping on integers). `exclusive`:
/// each output is the combine of the elements before it (the first is the identity);
/// `reverse`: the scan runs from the last element to the first. Rows of `inner` elements
/// combine elementwise, so the loop over them vectorises.
///
/// Buffers shorter than the shape are a caller bug; the slices are indexed with checks,
/// so that panics rather than reading past them.
pub fn scan<T: crate::reference::Num + Identity + Copy + Send + Sync>(
    src: &[T],
    dst: &mut [T],
    shape: ScanShape,
    prod: bool,
    exclusive: bool,
    reverse: bool,
) {
    let ScanShape { outer, len, inner } = shape;
    let row_len = len * inner;
    let (src, dst) = (&src[..outer * row_len], &mut dst[..outer * row_len]);
    // Rows scan independently: large scans split their rows across threads.
    let rows_per_task = crate::parallel::rows_per_task(outer, outer * row_len, SCAN_PARALLEL_MIN);
    if row_len == 0 || rows_per_task >= outer {
        scan_rows(src, dst, len, inner, prod, exclusive, reverse);
        return;
    }
    let chunk = rows_per_task * row_len;
    // Through the runtime's one task runner (no rayon instantiation per dtype in the
    // user's crate; see `crate::parallel`).
    crate::parallel::run_chunked(src.chunks(chunk).zip(dst.chunks_mut(chunk)), &|(s, d): (
        &[T],
        &mut [T],
    )| {
        scan_rows(s, d, len, inner, prod, exclusive, reverse)
    });
}

/// Scans below this many elements stay on the calling thread (as the kernels' stages).
const SCAN_PARALLEL_MIN: usize = 1 << 18;

/// `scan` over whole rows of `len × inner` elements, on this thread.
fn scan_rows<T: crate::reference::Num + Identity + Copy>(
    src: &[T],
    dst: &mut [T],
    len: usize,
    inner: usize,
    prod: bool,
    exclusive: bool,
    reverse: bool,
) {
    let identity = if prod { T::ONE } else { T::ZERO };
    let combine = |a: T, b: T| if prod { T::mul(a, b) } else { T::add(a, b) };
    let row_len = len * inner;
    if row_len == 0 {
        return;
    }
    for (s, d) in src.chunks(row_len).zip(dst.chunks_mut(row_len)) {
        for step in 0..len {
            let k = if reverse { len - 1 - step } else { step };
            let here = k * inner;
            if step == 0 {
                for j in 0..inner {
                    d[here + j] = if exclusive {
                        identity
                    } else {
                        combine(identity, s[here + j])
                    };
                }
                continue;
            }
            let prev = if reverse { here + inner } else { here - inner };
            for j in 0..inner {
                let carried = d[prev + j];
                let x = if exclusive { s[prev + j] } else { s[here + j] };
                d[here + j] = combine(carried, x);
            }
        }
    }
}
