//! The common 2-D case of `resize` on its own loop: the depth axis unchanged and every
//! output row the weighted sum of two input rows (`linear` along the middle axis), as
//! the ×2 `linear` upsample of a feature map is. Same values as the general pass (the
//! same row cache, the same `Sum` of two rows, the same order of operations); what it
//! drops is the general pass's per-row bookkeeping (the depth's taps, four cache slots
//! per output row, the tap-count dispatch), and a last axis made of one ×2 run
//! (`TwoByTwo`) is resized by a function of its own rather than the general `resize_row`
//! (whose set-up for any runs and phases cost more than the ×2 run itself per row).

use super::{
    load, prefetch_row, put_chunk, resize_row, single_output, Lerp, OutWriter, ResizeAxis,
    RowPhases, Sum, TwoByTwo, PREFETCH_ROWS, SPAN,
};
use crate::lanes::{LANES, V};
use crate::stream::{store_streaming, stream_fence, stream_head};

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

/// The two-tap loop over `depths` planes into `out` (exactly their output), streamed
/// when `stream`: rows a whole number of vectors long through `WholeVectorRows`, others
/// through `OutWriter`. The caller has checked the call, as for `resize_two_tap_rows`.
#[allow(clippy::too_many_arguments)]
pub(super) fn two_tap_pass<T: Lerp>(
    x: &[T],
    pitch: usize,
    depths: usize,
    ah: &ResizeAxis<'_, T>,
    aw: &ResizeAxis<'_, T>,
    cache: &mut [T],
    row_len: usize,
    out: &mut [T],
    stream: bool,
) {
    let mut phases = RowPhases::new(aw.len);
    let whole_rows = if stream {
        WholeVectorRows::new(&mut *out, aw.out)
    } else {
        None
    };
    if let Some(mut put) = whole_rows {
        resize_two_tap_rows(
            x,
            pitch,
            depths,
            ah,
            aw,
            cache,
            row_len,
            &mut phases,
            &mut put,
        );
        put.finish();
    } else {
        let mut put = OutWriter::new(out, stream);
        resize_two_tap_rows(
            x,
            pitch,
            depths,
            ah,
            aw,
            cache,
            row_len,
            &mut phases,
            &mut put,
        );
        put.finish();
    }
    if stream {
        stream_fence();
    }
}

/// The rows of `rows` planes (each `ah.len` input rows `pitch` apart in `x`) resized along
/// the last axis into `cache` (`SPAN` rows of `row_len`, slot `h mod SPAN`, each a vector
/// of margin first) and summed two at a time into `put`'s output rows. The caller
/// (`resize_planes`) has checked the call: every tap is inside its axis, `x` holds every
/// row, `put` every output element.
#[allow(clippy::too_many_arguments)]
fn resize_two_tap_rows<T: Lerp>(
    x: &[T],
    pitch: usize,
    planes: usize,
    ah: &ResizeAxis<'_, T>,
    aw: &ResizeAxis<'_, T>,
    cache: &mut [T],
    row_len: usize,
    phases: &mut RowPhases<T>,
    put: &mut impl TwoRowSink<T>,
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
            let rows = [taps[0] % SPAN * row_len, taps[1] % SPAN * row_len];
            put.sum_row(aw.out, cache, rows, [weights[0], weights[1]]);
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

/// Where the two-tap loop writes its output rows: each the weighted sum of two cached rows
/// (`buf[rows[j] + LANES..]` is row `j`'s element 0, with a vector of margin before it and
/// at least two past its `n` elements), `w[0]·row0 + w[1]·row1` per element, rounded per
/// step (the expression form's order).
pub(super) trait TwoRowSink<T: Lerp> {
    fn sum_row(&mut self, n: usize, buf: &[T], rows: [usize; 2], w: [T; 2]);
}

impl<T: Lerp> TwoRowSink<T> for OutWriter<'_, T> {
    #[inline(always)]
    fn sum_row(&mut self, n: usize, buf: &[T], rows: [usize; 2], w: [T; 2]) {
        self.row(
            n,
            &Sum::<T, 2> {
                buf,
                rows,
                weights: w,
            },
        );
    }
}

/// A streamed output whose rows are whole vectors long (`n % LANES == 0`), so every row
/// starts at the same offset from an aligned chunk (`head`, from `stream_head`): every
/// chunk of it is aligned and streamed, the one spanning two rows (the previous row's last
/// `LANES − head` elements, `carry`, then this row's first `head`) merged by one select
/// under a mask fixed for the call. The general `OutWriter` finds the spanning chunk's
/// lanes afresh per row (its row lengths vary), which cost a mask built from lanes and the
/// open chunk kept through memory every row (the profile's largest items in the writer
/// after the stores). Ordinary stores for the output's first `head` and last `LANES −
/// head` elements only.
pub(super) struct WholeVectorRows<'o, T> {
    out: &'o mut [T],
    head: usize,
    /// The start of the next row.
    pos: usize,
    /// Lanes `l < LANES − head`: the last row's elements `n − (LANES − head) + l`.
    carry: V<T>,
    /// Lanes `l < LANES − head`: the carried lanes of a spanning chunk.
    from_carry: V<bool>,
}

impl<'o, T: Lerp> WholeVectorRows<'o, T> {
    /// A writer of `out`'s rows, each `n` long, `n` a positive multiple of `LANES`; `None`
    /// for any other `n`, or an output whose chunks no head aligns (`OutWriter` then).
    pub(super) fn new(out: &'o mut [T], n: usize) -> Option<Self> {
        let head = stream_head(out, 0);
        let aligned = out.as_ptr().wrapping_add(head) as usize % (LANES * size_of::<T>()).min(64);
        if n == 0 || !n.is_multiple_of(LANES) || !out.len().is_multiple_of(n) || aligned != 0 {
            return None;
        }
        let mut from_carry = V([false; LANES]);
        for (l, lane) in from_carry.0.iter_mut().enumerate() {
            *lane = l < LANES - head;
        }
        Some(WholeVectorRows {
            out,
            head,
            pos: 0,
            carry: V::splat(T::default()),
            from_carry,
        })
    }

    /// Writes the open chunk's carried lanes, the output's last `LANES − head` elements.
    pub(super) fn finish(&mut self) {
        if self.head > 0 && self.pos > 0 {
            let k = LANES - self.head;
            self.out[self.pos - k..self.pos].copy_from_slice(&self.carry.0[..k]);
        }
    }
}

/// `w[0]·buf[rows[0] + at..] + w[1]·buf[rows[1] + at..]`, one vector.
#[inline(always)]
fn sum2<T: Lerp>(buf: &[T], rows: [usize; 2], w: [V<T>; 2], at: usize) -> V<T> {
    T::add_lanes(
        T::mul_lanes(w[0], load(buf, rows[0] + at)),
        T::mul_lanes(w[1], load(buf, rows[1] + at)),
    )
}

impl<T: Lerp> TwoRowSink<T> for WholeVectorRows<'_, T> {
    #[inline(always)]
    fn sum_row(&mut self, n: usize, buf: &[T], rows: [usize; 2], w: [T; 2]) {
        let w = w.map(V::splat);
        let (head, pos) = (self.head, self.pos);
        // Row element `e` is at `buf[rows[j] + LANES + e]`; `e` runs from `−LANES` (the
        // margin) to `n + LANES` (the room past the row), so every load is in `buf`.
        let k = LANES - head;
        if head > 0 {
            // Lanes `k..` of this vector are the row's elements `0..head`.
            let first = sum2(buf, rows, w, LANES - k);
            if pos == 0 {
                self.out[..head].copy_from_slice(&first.0[k..]);
            } else {
                let merged = T::select_lanes(self.from_carry, self.carry, first);
                store_streaming(self.out, pos - k, merged);
            }
        }
        // The chunks inside the row, from element `head`: all of them when `head == 0`,
        // else all but the last, which spans into the next row (`carry`). Cut once as
        // slices of chunks: no range check per vector.
        let whole = if head == 0 { n / LANES } else { n / LANES - 1 };
        let len = whole * LANES;
        let chunks = self.out[pos + head..][..len].as_chunks_mut::<LANES>().0;
        let r0 = buf[rows[0] + LANES + head..][..len].as_chunks::<LANES>().0;
        let r1 = buf[rows[1] + LANES + head..][..len].as_chunks::<LANES>().0;
        for ((chunk, a), b) in chunks.iter_mut().zip(r0).zip(r1) {
            // Left to right, every step rounded, as `Sum`.
            let v = T::add_lanes(T::mul_lanes(w[0], V(*a)), T::mul_lanes(w[1], V(*b)));
            put_chunk(chunk, v, true);
        }
        if head > 0 {
            self.carry = sum2(buf, rows, w, LANES + n - k);
        }
        self.pos = pos + n;
    }
}
