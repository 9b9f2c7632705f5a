//! Reduction support: identities, lane masks for tails, horizontal folds and the
//! arg-max/arg-min combine. Sums, products, max/min, any/all combine with the ordinary
//! lane ops (`NumLanes::add_lanes`, `BitwiseLanes::or_lanes` …); this module adds what
//! only a reduction needs.
//!
//! Order of accumulation is unspecified (docs/language.md): lanes accumulate independently and
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
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn lane_mask(n: usize) -> V<bool> {
    V(core::array::from_fn(|i| i < n))
}

/// `value` where `mask`, else `identity`.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
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

/// The lane indices `base, base + 1, …` as `i64`.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn iota(base: usize) -> V<i64> {
    V(core::array::from_fn(|i| (base + i) as i64))
}

/// `base, base + step, base + 2·step, …`: the indices of a chunk whose lanes are `step`
/// apart in the running index (an inner loop along an outer reduced axis).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn iota_strided(base: usize, step: usize) -> V<i64> {
    V(core::array::from_fn(|i| (base + i * step) as i64))
}

/// The positions of a chunk along a node axis (`arange`, the rows and columns of
/// `tril`/`eye`): lane `l` is `row + (j + l)·step`, where `row` is the position at the
/// row's first element and `step` the axis's step per inner counter (1, 0, or negative
/// through a flip), all as two's-complement `usize` offsets (generated code computes
/// them with wrapping arithmetic, so a negative step is a wrapped one). Wrapping here
/// too: the true positions are in range, and the reinterpretation as `i64` gives them.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn positions(row: usize, j: usize, step: usize) -> V<i64> {
    let mut lanes = [0i64; crate::lanes::LANES];
    for (l, lane) in lanes.iter_mut().enumerate() {
        *lane = row.wrapping_add(j.wrapping_add(l).wrapping_mul(step)) as i64;
    }
    V(lanes)
}

/// Whether `(v, i)` beats `(best, best_i)` for arg-max (`MAX = true`) or arg-min: a larger
/// (smaller) value wins, the first NaN wins over everything (NumPy), ties keep the
/// smaller index. A negative `best_i` marks an empty slot, which anything beats.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
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
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_combine<T: Num + Compare, const MAX: bool>(
    best: &mut V<T>,
    best_i: &mut V<i64>,
    v: V<T>,
    i: V<i64>,
    mask: V<bool>,
) {
    // `arg_better` without branches (`&`/`|` on bools, selects), so that the loop over
    // the lanes vectorises: with `&&`/`||` and an `if` per lane it ran as scalar code,
    // row argmax of f32[4096, 1024] 2.43 ms against 1.45 (BENCHMARKS.md "Arg-max").
    for lane in 0..LANES {
        let (x, xi, b, bi) = (v.0[lane], i.0[lane], best.0[lane], best_i.0[lane]);
        let x_nan = <T as Compare>::ne(x, x);
        let b_nan = <T as Compare>::ne(b, b);
        let strictly = if MAX {
            <T as Compare>::gt(x, b)
        } else {
            <T as Compare>::lt(x, b)
        };
        let earlier = xi < bi;
        let over_number = x_nan | strictly | (<T as Compare>::eq(x, b) & earlier);
        let over_nan = x_nan & earlier;
        let better = (bi < 0) | (b_nan & over_nan) | (!b_nan & over_number);
        let take = mask.0[lane] & better;
        best.0[lane] = if take { x } else { b };
        best_i.0[lane] = if take { xi } else { bi };
    }
}

/// `arg_combine` for the chunks of one row, in order, whose lane `l` holds the element at
/// index `base + l · step` (`step` 0 or 1, the same for the whole row). The state keeps,
/// per lane, the `base` of the chunk its best came from (-1: empty); [`arg_indices`]
/// turns that into indices once per row. Every lane sees larger indices than it holds, so
/// an index never beats an earlier one on a tie and a held NaN is never replaced: "an
/// empty lane takes anything; else a NaN or a strictly larger (smaller) value wins over a
/// number". Recording the chunk's base (a broadcast) instead of a vector of indices keeps
/// the loop free of index vectors, which LLVM built through the stack (row argmax of
/// f32[4096, 1024]: BENCHMARKS.md "Arg-max").
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn arg_step<T: Num + Compare, const MAX: bool>(
    best: &mut V<T>,
    best_base: &mut V<i64>,
    v: V<T>,
    base: usize,
    mask: V<bool>,
) {
    let base = base as i64;
    for lane in 0..LANES {
        let (x, b, bb) = (v.0[lane], best.0[lane], best_base.0[lane]);
        let strictly = if MAX {
            <T as Compare>::gt(x, b)
        } else {
            <T as Compare>::lt(x, b)
        };
        let over_number = <T as Compare>::ne(x, x) | strictly;
        let take = mask.0[lane] & ((bb < 0) | (<T as Compare>::eq(b, b) & over_number));
        best.0[lane] = if take { x } else { b };
        best_base.0[lane] = if take { base } else { bb };
    }
}

/// The indices of an [`arg_step`] state: lane `l` holding a chunk base `b ≥ 0` held the
/// element at `b + l · step`; -1 stays -1 (empty).
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

/// Folds lane-wise arg-max/arg-min state into one scalar slot.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
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

    /// Values where the arg rules differ: NaN, ties of ±0, infinities.
    const SPECIALS: [f32; 7] = [
        f32::NAN,
        -1.0,
        0.0,
        -0.0,
        2.0,
        f32::NEG_INFINITY,
        f32::INFINITY,
    ];

    /// The tests' generator (`crate::testing::Rng`) from `seed`: 31-bit values.
    fn random(seed: u64) -> impl FnMut() -> usize {
        let mut rng = crate::testing::Rng::new(seed);
        move || (rng.next_u64() >> 33) as usize
    }

    /// The branch-free lane step takes exactly the lanes that `arg_better` says beat the
    /// current best, on values with NaNs, ties, empty slots and masked-off lanes.
    #[test]
    fn arg_combine_takes_what_arg_better_takes() {
        let values = SPECIALS;
        let mut next = random(7);
        for round in 0..2000 {
            let best = V(core::array::from_fn(|_| values[next() % values.len()]));
            let best_i = V(core::array::from_fn(|_| next() as i64 % 6 - 1));
            let v = V(core::array::from_fn(|_| values[next() % values.len()]));
            let i = V(core::array::from_fn(|_| next() as i64 % 5));
            let mask = lane_mask(next() % (LANES + 1));
            for max in [true, false] {
                let (mut b, mut bi) = (best, best_i);
                if max {
                    arg_combine::<f32, true>(&mut b, &mut bi, v, i, mask);
                } else {
                    arg_combine::<f32, false>(&mut b, &mut bi, v, i, mask);
                }
                for lane in 0..LANES {
                    let better = if max {
                        arg_better::<f32, true>(v.0[lane], i.0[lane], best.0[lane], best_i.0[lane])
                    } else {
                        arg_better::<f32, false>(v.0[lane], i.0[lane], best.0[lane], best_i.0[lane])
                    };
                    let take = mask.0[lane] && better;
                    let (want, want_i) = if take {
                        (v.0[lane], i.0[lane])
                    } else {
                        (best.0[lane], best_i.0[lane])
                    };
                    assert_eq!(
                        (b.0[lane].to_bits(), bi.0[lane]),
                        (want.to_bits(), want_i),
                        "round {round} lane {lane} max {max}"
                    );
                }
            }
        }
    }

    /// A row fed chunk by chunk (indices increasing) through `arg_step`, then folded,
    /// gives the reference's first maximal (minimal) index, NaNs first, on rows of NaNs,
    /// infinities, ties and signed zeros.
    #[test]
    fn arg_step_on_rows_gives_the_reference_index() {
        let values = SPECIALS;
        let mut next = random(11);
        for round in 0..3000 {
            let len = 1 + next() % (4 * LANES);
            // Few distinct values per row, so ties and repeated NaNs are common.
            let pick: Vec<f32> = (0..3).map(|_| values[next() % values.len()]).collect();
            let row: Vec<f32> = (0..len).map(|_| pick[next() % 3]).collect();
            for max in [true, false] {
                let mut want = (row[0], 0i64);
                for (k, &x) in row.iter().enumerate().skip(1) {
                    let better = if max {
                        arg_better::<f32, true>(x, k as i64, want.0, want.1)
                    } else {
                        arg_better::<f32, false>(x, k as i64, want.0, want.1)
                    };
                    if better {
                        want = (x, k as i64);
                    }
                }
                let mut best = V::splat(if max {
                    f32::NEG_INFINITY
                } else {
                    f32::INFINITY
                });
                let mut best_base = V::splat(-1i64);
                for j in (0..len).step_by(LANES) {
                    let n = (len - j).min(LANES);
                    let v = V(core::array::from_fn(
                        |l| if l < n { row[j + l] } else { 0.0 },
                    ));
                    if max {
                        arg_step::<f32, true>(&mut best, &mut best_base, v, j, lane_mask(n));
                    } else {
                        arg_step::<f32, false>(&mut best, &mut best_base, v, j, lane_mask(n));
                    }
                }
                let best_i = arg_indices(best_base, 1);
                let (mut slot, mut slot_i) = (0.0f32, -1i64);
                if max {
                    arg_fold::<f32, true>(best, best_i, &mut slot, &mut slot_i);
                } else {
                    arg_fold::<f32, false>(best, best_i, &mut slot, &mut slot_i);
                }
                assert_eq!(slot_i, want.1, "round {round} max {max}: {row:?}");
            }
        }
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

/// The order `top_k` ranks values in: `Less` when `a` comes before `b`. NaN ranks above
/// every number (as PyTorch's `topk`, and NumPy's `sort`, which puts NaN last in ascending
/// order); equal values rank by position, the lower first (ONNX `TopK`).
fn rank<T: PartialOrd>(a: &T, ia: usize, b: &T, ib: usize, largest: bool) -> core::cmp::Ordering {
    use core::cmp::Ordering;
    #[allow(clippy::eq_op)]
    let (a_nan, b_nan) = (a != a, b != b);
    let ascending = match (a_nan, b_nan) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    };
    let by_value = if largest {
        ascending.reverse()
    } else {
        ascending
    };
    by_value.then(ia.cmp(&ib))
}

/// `top_k` along the middle axis of `src` (`outer × len × inner`, row-major): for each of
/// the `outer × inner` lines, its `k ≤ len` best values in rank order (`rank`: the largest
/// first when `largest`, else the smallest; ties by the lower position) into `values`
/// (`outer × k × inner`) and their positions into `indices`. `sort`/`argsort` are `k =
/// len`. Each line is ranked in a scratch buffer of `len` positions from the thread's pool
/// (no allocation on a repeated call): a partial selection, then a sort of the first `k`.
pub fn top_k<T: Copy + PartialOrd>(
    src: &[T],
    values: &mut [T],
    indices: &mut [i64],
    shape: ScanShape,
    k: usize,
    largest: bool,
) {
    let ScanShape { outer, len, inner } = shape;
    let k = k.min(len);
    if k == 0 || outer == 0 || inner == 0 {
        return;
    }
    let mut order = crate::scratch::ScratchVec::<i64>::new(len, 0);
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| src[(o * len + j) * inner + i];
            for (j, slot) in order.iter_mut().enumerate() {
                *slot = j as i64;
            }
            let cmp = |a: &i64, b: &i64| {
                let (a, b) = (*a as usize, *b as usize);
                rank(&at(a), a, &at(b), b, largest)
            };
            if k < len {
                order.select_nth_unstable_by(k - 1, cmp);
            }
            order[..k].sort_unstable_by(cmp);
            for (r, &j) in order[..k].iter().enumerate() {
                let out = (o * k + r) * inner + i;
                values[out] = at(j as usize);
                indices[out] = j;
            }
        }
    }
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
