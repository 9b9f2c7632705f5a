//! The common 2-D case of `resize` on its own loop: the depth axis unchanged and every
//! output row the weighted sum of two input rows (`linear` along the middle axis), as
//! the ×2 `linear` upsample of a feature map is. Same values as the general pass (the
//! same row cache, the same `Sum` of two rows, the same order of operations); what it
//! drops is the general pass's per-row bookkeeping (the depth's taps, four cache slots
//! per output row, the tap-count dispatch), and a last axis made of one ×2 run
//! (`TwoByTwo`) is resized by a function of its own rather than the general `resize_row`
//! (whose set-up for any runs and phases cost more than the ×2 run itself per row).

use super::{
    prefetch_row, resize_row, single_output, Lerp, OutWriter, ResizeAxis, RowPhases, Sum, TwoByTwo,
    PREFETCH_ROWS, SPAN,
};
use crate::lanes::{LANES, V};

/// Whether [`resize_two_tap_rows`] runs this resize: the depth axis unchanged (`taps == 0`)
/// and two weighted taps per output along the middle axis.
pub(super) fn takes<T>(ad: &ResizeAxis<'_, T>, ah: &ResizeAxis<'_, T>) -> bool {
    ad.taps == 0 && ah.taps == 2 && !ah.weights.is_empty()
}

/// The last axis's single ×2 run: `[first, 2, 1, count]` with two weighted taps per
/// output, its taps and weights hoisted (`TwoByTwo`); `None` for any other last axis.
pub(super) fn x2_run<T: Lerp>(aw: &ResizeAxis<'_, T>) -> Option<(usize, usize, TwoByTwo<T>)> {
    let &[[first, 2, 1, count]] = aw.runs else {
        return None;
    };
    if aw.taps != 2 || aw.weights.is_empty() {
        return None;
    }
    let k = first * 2;
    Some((
        first,
        count,
        TwoByTwo {
            at: [
                aw.index[k],
                aw.index[k + 1],
                aw.index[k + 2],
                aw.index[k + 3],
            ],
            w: [0, 1, 2, 3].map(|j| V::splat(aw.weights[k + j])),
        },
    ))
}

/// The rows of `rows` planes (each `ah.len` input rows `pitch` apart in `x`) resized along
/// the last axis into `cache` (`SPAN` rows of `row_len`, slot `h mod SPAN`, each a vector
/// of margin first) and summed two at a time into `put`'s output rows. The caller
/// (`resize_planes`) has checked the call: every tap is inside its axis, `x` holds every
/// row, `put` every output element.
#[allow(clippy::too_many_arguments)]
pub(super) fn resize_two_tap_rows<T: Lerp>(
    x: &[T],
    pitch: usize,
    planes: usize,
    ah: &ResizeAxis<'_, T>,
    aw: &ResizeAxis<'_, T>,
    cache: &mut [T],
    row_len: usize,
    phases: &mut RowPhases<T>,
    put: &mut OutWriter<'_, T>,
) {
    let width = aw.len;
    let run = x2_run(aw);
    let mut tags = [usize::MAX; SPAN];
    for plane in 0..planes {
        let first_row = plane * ah.len;
        for (taps, weights) in ah.index.chunks_exact(2).zip(ah.weights.chunks_exact(2)) {
            for &h in taps {
                let row = first_row + h;
                let slot = h % SPAN;
                if tags[slot] == row {
                    continue;
                }
                tags[slot] = row;
                prefetch_row(x, (row + PREFETCH_ROWS).saturating_mul(pitch), width);
                let rest = &x[row * pitch..];
                let dst = &mut cache[slot * row_len + LANES..][..row_len - LANES];
                match &run {
                    // The run reads the input in place when a vector past the row is still
                    // in `x` (as `resize_row` does); the last row of `x` takes the general
                    // function, which copies it first.
                    Some((first, count, run)) if rest.len() >= width + LANES => {
                        resize_row_x2(rest, width, dst, aw, *first, *count, run)
                    }
                    _ => resize_row(rest, width, dst, aw, phases),
                }
            }
            let sum = Sum::<T, 2> {
                buf: cache,
                rows: [taps[0] % SPAN * row_len, taps[1] % SPAN * row_len],
                weights: [weights[0], weights[1]],
            };
            put.row(aw.out, &sum);
        }
    }
}

/// `resize_row` for a last axis of one ×2 run (`x2_run`): the outputs before and after
/// the run one at a time, the run by `TwoByTwo` from the input row in place (`rest` holds
/// a vector past the row's `width`).
#[inline(never)]
fn resize_row_x2<T: Lerp>(
    rest: &[T],
    width: usize,
    dst: &mut [T],
    aw: &ResizeAxis<'_, T>,
    first: usize,
    count: usize,
    run: &TwoByTwo<T>,
) {
    let src = &rest[..width];
    let end = first + 2 * count;
    for (o, d) in dst[..first].iter_mut().enumerate() {
        *d = single_output(src, aw, o);
    }
    run.write(rest, &mut dst[first..], count);
    for (o, d) in dst[..aw.out].iter_mut().enumerate().skip(end) {
        *d = single_output(src, aw, o);
    }
}
