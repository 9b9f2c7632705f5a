//! The common 2-D case of `resize` on its own loop: the depth axis unchanged and every
//! output row the weighted sum of two input rows (`linear` along the middle axis), as
//! the ×2 `linear` upsample of a feature map is. Same values as the general pass (the
//! same row cache, the same `Sum` of two rows, the same order of operations); what it
//! drops is the general pass's per-row bookkeeping (the depth's taps, four cache slots
//! per output row, the tap-count dispatch), and a last axis made of one ×2 run
//! (`TwoByTwo`) is resized by a function of its own rather than the general `resize_row`
//! (whose set-up for any runs and phases cost more than the ×2 run itself per row).

use super::{
    load, prefetch_row, resize_row, single_output, Lerp, OutWriter, ResizeAxis, RowPhases, Sum,
    TwoByTwo, PREFETCH_ROWS, SPAN,
};
use crate::lanes::{LANES, V};
use crate::stream::{store_streaming, stream_head};

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

/// The ×2 upsample's fused loop: [`takes`] with a last axis of one ×2 run ([`x2_run`]) of
/// at least `LANES` periods. Each group of consecutive output rows with the same two input
/// rows (the pairs `2k + 1, 2k + 2` of a ×2 `half_pixel` upsample; the edge rows alone,
/// [`RowGroups`]) is computed straight from those two rows in one loop (`x2_rows`): per
/// vector of the run, both input rows resized along the last axis in registers
/// (`TwoByTwo`'s products and sum, the two phases interleaved) and each output row's
/// weighted sum of the two stored (no ring of resized rows). Values: the same products and
/// sums in the same order as the ring and `Sum::<T, 2>` (the last axis first, every step
/// rounded), so the same bits.
///
/// Unless `stream`, the rows are stored in `out` where they belong. With `stream` they are
/// computed into one half of a two-group stage (in L1) and the group before, in the other
/// half, is streamed by `OutWriter` (aligned chunks, `vmovntps`): reading back the group
/// just written would stall each load on the stores it straddles (store forwarding fails
/// across two stores), the group before has left the store buffer.
///
/// Returns `false` (having written nothing) for any other last axis. The caller
/// (`resize_planes`) has checked the call: every tap is inside its axis, `x` holds every
/// row of the `planes` planes (`ah.len` rows `pitch` apart each), `out` every output
/// element (`planes · ah.out · aw.out` of them).
pub(super) fn resize_x2_fused<T: Lerp>(
    x: &[T],
    pitch: usize,
    planes: usize,
    ah: &ResizeAxis<'_, T>,
    aw: &ResizeAxis<'_, T>,
    out: &mut [T],
    stream: bool,
) -> bool {
    let Some((first, count, run)) = x2_run(aw) else {
        return false;
    };
    if count < LANES {
        return false;
    }
    let ow = aw.out;
    let groups = RowGroups {
        x,
        pitch,
        ah,
        width: aw.len,
        rows: planes * ah.out,
        row: 0,
    };
    if !stream {
        let mut pos = 0;
        for (src, weights, n) in groups {
            let rows = &mut out[pos..pos + n * ow];
            let (a, b) = rows.split_at_mut(ow);
            if n == 2 {
                x2_rows(src, weights, [a, b], aw, first, count, &run);
            } else {
                x2_rows(src, [weights[0]], [a], aw, first, count, &run);
            }
            pos += n * ow;
        }
        return true;
    }
    // Each half of the stage: the group's rows `lead` elements in (the lanes of its first
    // chunk before the group: the tail of the group before), a vector past them.
    let half_len = 2 * ow + 2 * LANES;
    let mut stage = vec![T::default(); 2 * half_len];
    // Output position `p` starts a streaming-aligned chunk when `p ≡ head` (mod `LANES`).
    let head = stream_head(out, 0);
    let mut lead = (LANES - head) % LANES;
    let mut pos = 0;
    let mut before: Option<Staged> = None;
    let mut cur = 0;
    for (src, weights, n) in groups {
        let (h0, h1) = stage.split_at_mut(half_len);
        let (this, other) = if cur == 0 { (h0, h1) } else { (h1, h0) };
        if let Some(b) = &before {
            // The tail of the group before (its lanes after its last whole chunk).
            let tail = b.whole() * LANES;
            this[..LANES].copy_from_slice(&other[tail..tail + LANES]);
        }
        let (a, rest) = this[lead..].split_at_mut(ow);
        if n == 2 {
            x2_rows(src, weights, [a, &mut rest[..ow]], aw, first, count, &run);
        } else {
            x2_rows(src, [weights[0]], [a], aw, first, count, &run);
        }
        if let Some(b) = &before {
            b.stream_whole(other, out);
        }
        let staged = Staged {
            pos,
            lead,
            len: n * ow,
        };
        lead = (lead + staged.len) % LANES;
        pos += staged.len;
        before = Some(staged);
        cur ^= 1;
    }
    if let Some(b) = &before {
        let last = &stage[(cur ^ 1) * half_len..][..half_len];
        b.stream_whole(last, out);
        let tail = b.whole() * LANES;
        let end = b.pos + b.len;
        let from = end - (b.lead + b.len - tail).min(end);
        out[from..end].copy_from_slice(&last[b.lead + b.len - (end - from)..b.lead + b.len]);
    }
    true
}

/// A group of output rows in a half of the stage: output positions `pos .. pos + len` at
/// `lead .. lead + len` of the half, so the half's chunk `k` (`k · LANES ..`) is the
/// output's chunk at `pos − lead + k · LANES`, streaming-aligned.
struct Staged {
    pos: usize,
    lead: usize,
    len: usize,
}

impl Staged {
    /// The half's whole chunks (the lanes after them are the next group's first chunk's).
    fn whole(&self) -> usize {
        (self.lead + self.len) / LANES
    }

    /// Streams the half's whole chunks to `out`; the first group's first chunk, which
    /// starts before the output (`pos < lead`), is stored from the output's start.
    #[inline(always)]
    fn stream_whole<T: Lerp>(&self, half: &[T], out: &mut [T]) {
        let chunks = half[..self.whole() * LANES].as_chunks::<LANES>().0;
        for (k, chunk) in chunks.iter().enumerate() {
            let at = self.pos + k * LANES;
            if at >= self.lead {
                store_streaming(out, at - self.lead, V(*chunk));
            } else {
                let skip = self.lead - at;
                out[..LANES - skip].copy_from_slice(&chunk[skip..]);
            }
        }
    }
}

/// The output rows of a 2-D resize with two weighted taps along the middle axis, in order,
/// grouped: each item is the two input rows (`width` long), the weights of each row of the
/// group, and the group's row count (2 when the next row has the same taps, else 1; the
/// second weights then repeat the first).
struct RowGroups<'a, 'b, T> {
    x: &'a [T],
    pitch: usize,
    ah: &'b ResizeAxis<'b, T>,
    width: usize,
    /// Output rows of all planes (`planes · ah.out`), and the next one.
    rows: usize,
    row: usize,
}

impl<'a, T: Lerp> Iterator for RowGroups<'a, '_, T> {
    type Item = ([&'a [T]; 2], [[T; 2]; 2], usize);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.row >= self.rows {
            return None;
        }
        let ah = self.ah;
        let (plane, oh) = (self.row / ah.out, self.row % ah.out);
        let first_row = plane * ah.len;
        let taps = [ah.index[2 * oh], ah.index[2 * oh + 1]];
        let wa = [ah.weights[2 * oh], ah.weights[2 * oh + 1]];
        let (x, pitch, width) = (self.x, self.pitch, self.width);
        let src = [
            &x[(first_row + taps[0]) * pitch..][..width],
            &x[(first_row + taps[1]) * pitch..][..width],
        ];
        prefetch_row(
            x,
            (first_row + taps[1] + PREFETCH_ROWS).saturating_mul(pitch),
            width,
        );
        // (Compared one by one: as slices, the taps went through the stack and the 16-byte
        // reload of two 8-byte stores stalled, 20% of the loop's samples.)
        let pair =
            oh + 1 < ah.out && ah.index[2 * oh + 2] == taps[0] && ah.index[2 * oh + 3] == taps[1];
        if pair {
            let wb = [ah.weights[2 * oh + 2], ah.weights[2 * oh + 3]];
            self.row += 2;
            Some((src, [wa, wb], 2))
        } else {
            self.row += 1;
            Some((src, [wa, wa], 1))
        }
    }
}

/// `N` output rows (`dst`, each `aw.out` long) from the two input rows `src` (each `aw.len`
/// long): row `r` is `weights[r][0] · src[0]' + weights[r][1] · src[1]'`, `'` the last
/// axis's resize (the run `first, count` by `run`, at least `LANES` periods, the outputs
/// outside it by `single_output`), each step rounded in that order.
#[inline(always)]
fn x2_rows<T: Lerp, const N: usize>(
    src: [&[T]; 2],
    weights: [[T; 2]; N],
    mut dst: [&mut [T]; N],
    aw: &ResizeAxis<'_, T>,
    first: usize,
    count: usize,
    run: &TwoByTwo<T>,
) {
    let wv: [[V<T>; 2]; N] =
        core::array::from_fn(|r| [V::splat(weights[r][0]), V::splat(weights[r][1])]);
    // Each tap's `count` inputs and each row's run cut once, so the loop's vectors need no
    // range check of their own (`t + LANES ≤ count` is the loop's condition).
    let taps = [
        run_taps(src[0], run.at, count),
        run_taps(src[1], run.at, count),
    ];
    let mut runs: [&mut [T]; N] = core::array::from_fn(|_| &mut [][..]);
    for (r, d) in dst.iter_mut().enumerate() {
        runs[r] = &mut d[first..first + 2 * count];
    }
    let last = count - LANES;
    let mut t = 0;
    while t < last {
        x2_vectors(&taps, &run.w, &wv, &mut runs, t);
        t += LANES;
    }
    // The last vector ends at the run's end (`count ≥ LANES`): it recomputes a few outputs
    // of the one before with the same values rather than reading past a tap.
    x2_vectors(&taps, &run.w, &wv, &mut runs, last);
    let end = first + 2 * count;
    for o in (0..first).chain(end..aw.out) {
        let e = [single_output(src[0], aw, o), single_output(src[1], aw, o)];
        for r in 0..N {
            let w = weights[r];
            dst[r][o] = T::add(T::mul(w[0], e[0]), T::mul(w[1], e[1]));
        }
    }
}

/// `dst = v` (`dst` is `LANES` long).
#[inline(always)]
fn store_whole<T: Copy>(dst: &mut [T], v: V<T>) {
    let dst: &mut [T; LANES] = dst.try_into().expect("LANES");
    *dst = v.0;
}

/// The four taps' inputs of a ×2 run (`at`, `count` each) in `row`.
#[inline(always)]
fn run_taps<T>(row: &[T], at: [usize; 4], count: usize) -> [&[T]; 4] {
    [
        &row[at[0]..at[0] + count],
        &row[at[1]..at[1] + count],
        &row[at[2]..at[2] + count],
        &row[at[3]..at[3] + count],
    ]
}

/// Outputs `2t .. 2t + 2·LANES` of the run in each of the `N` rows (`runs`, the run's part
/// of each output row): both input rows' run outputs (`taps`, `run_taps`; weights `w`, as
/// `TwoByTwo`), interleaved, and each output row's weighted sum of them (`wv`).
#[inline(always)]
fn x2_vectors<T: Lerp, const N: usize>(
    taps: &[[&[T]; 4]; 2],
    w: &[V<T>; 4],
    wv: &[[V<T>; 2]; N],
    runs: &mut [&mut [T]; N],
    t: usize,
) {
    let resized = |taps: &[&[T]; 4]| {
        let p0 = T::add_lanes(
            T::mul_lanes(w[0], load(taps[0], t)),
            T::mul_lanes(w[1], load(taps[1], t)),
        );
        let p1 = T::add_lanes(
            T::mul_lanes(w[2], load(taps[2], t)),
            T::mul_lanes(w[3], load(taps[3], t)),
        );
        interleave(p0, p1)
    };
    let r0 = resized(&taps[0]);
    let r1 = resized(&taps[1]);
    for (run, w) in runs.iter_mut().zip(wv) {
        let out = &mut run[2 * t..2 * t + 2 * LANES];
        let (lo, hi) = out.split_at_mut(LANES);
        store_whole(
            lo,
            T::add_lanes(T::mul_lanes(w[0], r0[0]), T::mul_lanes(w[1], r1[0])),
        );
        store_whole(
            hi,
            T::add_lanes(T::mul_lanes(w[0], r0[1]), T::mul_lanes(w[1], r1[1])),
        );
    }
}

/// The two vectors `[a0, b0, a1, b1, …]`: lanes `0..LANES/2` of `a` and `b` interleaved, then
/// lanes `LANES/2..LANES` (a constant shuffle: `vpermt2ps` on AVX-512).
#[inline(always)]
fn interleave<T: Copy>(a: V<T>, b: V<T>) -> [V<T>; 2] {
    let mut lo = a.0;
    let mut hi = a.0;
    for l in 0..LANES / 2 {
        lo[2 * l] = a.0[l];
        lo[2 * l + 1] = b.0[l];
        hi[2 * l] = a.0[LANES / 2 + l];
        hi[2 * l + 1] = b.0[LANES / 2 + l];
    }
    [V(lo), V(hi)]
}
