//! The runtime entry of `resize` (issue 31 item 7; NOTES.md "resize on a runtime pass"): one
//! pass per plane instead of the graph's expression form (per resized axis, strided views
//! weighted and interleaved by `expand_dims` + `concat` + `reshape`, each axis a
//! materialised temp: 14% of the memory bound for a linear ×2).
//!
//! The interpolation is separable and the expression form computes the last axis first,
//! then the one before it, then the first (ONNX's reference nests its 1-D interpolations
//! the same way), each output `Σ_j w_j · v_j` summed left to right with every product and
//! sum rounded (no fused multiply-add). This pass keeps that order exactly, so its values
//! are the expression form's bit for bit:
//! - the last axis of each input row is resized once into a cached row (a row is used by
//!   up to four output rows; the cache holds 4 × 4 rows, slot `(d mod 4, h mod 4)`, so the
//!   ≤ 4 consecutive rows along each of the two outer axes one output row reads never evict
//!   each other);
//! - each output row is then the weighted sum of its cached rows along the middle axis,
//!   and of those sums along the first axis, a vector at a time, written with streaming
//!   stores (`stream::store_streaming`) when the output is larger than [`STREAM_MIN_BYTES`].
//!
//! Along the last axis the taps repeat with a period (`ResizeAxis::runs`, found at compile
//! time): outputs `first + f + p·t` read input `index[first + f] + q·t`, so with the input
//! row split into its `q` phases (`phase_r[k] = row[k·q + r]`) each tap of a period's
//! output `f` is one contiguous vector of a phase; a ×2 upsample (`p = 2`, `q = 1`) then
//! interleaves its two output phases. Outputs in no run (the clamped edges) are computed
//! one at a time.
//!
//! Generated code (tensor-macros emit/stages.rs) calls [`Resize::resize`] with the taps the
//! checker computed (check/vision.rs `resize_taps`, check/resize_kernel.rs) as static
//! arrays; it is implemented for `f32` and `f64` here, so a user's crate calls code compiled
//! once in the runtime (issue 17). Reads and writes are slice indexing, each range checked;
//! no `unsafe` here (the streaming store's is in stream.rs).

mod two_tap_rows;

use crate::dtype::Element;
use crate::lanes::{prefetch_chunk, NumLanes, SelectLanes, LANES, V};
use crate::stream::{store_streaming, stream_fence, stream_head};

/// Outputs at least this large are written with streaming stores (they would evict the
/// input and the cached rows, and an ordinary store reads each line first).
pub const STREAM_MIN_BYTES: usize = 1 << 21;
/// Rows cached per outer axis: an output reads at most this many consecutive input
/// positions along an axis (cubic's four).
const SPAN: usize = 4;
/// Input rows ahead of the one being resized whose lines are prefetched.
const PREFETCH_ROWS: usize = 2;
/// Bytes of a cache line.
const LINE: usize = 64;

/// One spatial axis of a resize. An axis the resize leaves alone has no taps (`taps == 0`,
/// `len == out`: output `o` is input `o`, [`ResizeAxis::unchanged`]).
#[derive(Clone, Copy, Debug)]
pub struct ResizeAxis<'a, T> {
    /// Input length.
    pub len: usize,
    /// Output length.
    pub out: usize,
    /// Input positions each output reads (1 to 4; 0 for an unchanged axis).
    pub taps: usize,
    /// `index[o·taps + j]`: output `o`'s tap `j`, in `0..len`; along the first two axes an
    /// output's taps lie within 4 consecutive positions.
    pub index: &'a [usize],
    /// The taps' weights, laid out as `index` (`linear`, `cubic`); empty for `nearest`,
    /// which selects its one tap.
    pub weights: &'a [T],
    /// Runs of outputs along the last axis whose taps repeat: `[first, p, q, count]` stands
    /// for outputs `first + f + p·t` (`f < p`, `t < count`) reading `index[first + f] + q·t`
    /// with `weights[first + f]`, as `index`/`weights` also say; in order, not
    /// overlapping. Outputs in no run are computed one at a time; empty is allowed.
    pub runs: &'a [[usize; 4]],
}

impl<T> ResizeAxis<'_, T> {
    /// An axis of length `len` that the resize leaves alone.
    pub const fn unchanged(len: usize) -> Self {
        ResizeAxis {
            len,
            out: len,
            taps: 0,
            index: &[],
            weights: &[],
            runs: &[],
        }
    }
}

/// The element types `resize` runs on in the runtime.
pub trait Resize: Sized {
    /// `out[p] = resize(x[p])` for each of `planes` planes (`N·C`): planes of the axes'
    /// `len`s in `x`, rows `row_pitch` apart (every plane's rows in one sequence), and
    /// row-major planes of their `out`s in `out`. Writes nothing (and never reads out of
    /// bounds) if `x` or `out` is shorter than its planes, a row is longer than the pitch,
    /// or an axis is inconsistent (see [`ResizeAxis`]): generated code passes only
    /// consistent calls.
    fn resize(
        x: &[Self],
        out: &mut [Self],
        planes: usize,
        row_pitch: usize,
        axes: &[ResizeAxis<'_, Self>; 3],
    );
}

macro_rules! resize {
    ($($t:ty),*) => {$(
        impl Resize for $t {
            fn resize(
                x: &[$t],
                out: &mut [$t],
                planes: usize,
                row_pitch: usize,
                axes: &[ResizeAxis<'_, $t>; 3],
            ) {
                resize_planes(x, out, planes, row_pitch, axes);
            }
        }
    )*};
}
resize!(f32, f64);

/// What a resize runs on: lane arithmetic and the storage of its own compute type.
trait Lerp: NumLanes + SelectLanes + Element<Compute = Self> {}
impl<T: NumLanes + SelectLanes + Element<Compute = T>> Lerp for T {}

/// Whether `axis` is consistent (the rules of [`ResizeAxis`]); `outer` for the first two
/// axes (the span rule), `last` for the last (runs).
fn axis_is_consistent<T: PartialEq + Copy>(a: &ResizeAxis<'_, T>, outer: bool) -> bool {
    if a.taps == 0 {
        return a.len == a.out && a.index.is_empty() && a.weights.is_empty() && a.runs.is_empty();
    }
    let Some(n) = a.out.checked_mul(a.taps) else {
        return false;
    };
    if a.taps > SPAN
        || a.len == 0
        || a.index.len() != n
        || !(a.weights.is_empty() && a.taps == 1 || a.weights.len() == n)
        || a.index.iter().any(|&i| i >= a.len)
    {
        return false;
    }
    if outer {
        // The cache's rule: one output's rows are distinct modulo `SPAN` unless equal.
        let spans_ok = a.index.chunks_exact(a.taps).all(|t| {
            let (lo, hi) = (t.iter().min(), t.iter().max());
            matches!((lo, hi), (Some(lo), Some(hi)) if hi - lo < SPAN)
        });
        return spans_ok && a.runs.is_empty();
    }
    // Runs: in order, inside the axis, and standing for exactly `index`/`weights`.
    let mut end = 0;
    for &[first, p, q, count] in a.runs {
        let Some(stop) = p.checked_mul(count).and_then(|c| c.checked_add(first)) else {
            return false;
        };
        if first < end || stop > a.out || p == 0 || q == 0 || q > a.len || count == 0 {
            return false;
        }
        end = stop;
        for f in 0..p {
            let head = (first + f) * a.taps;
            for t in 0..count {
                let o = (first + f + p * t) * a.taps;
                for j in 0..a.taps {
                    let shifted = (q * t).checked_add(a.index[head + j]);
                    if shifted != Some(a.index[o + j])
                        || (!a.weights.is_empty() && a.weights[o + j] != a.weights[head + j])
                    {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// [`Resize::resize`]. Per plane and output row: the output row's input rows (the first
/// two axes' taps) resized along the last axis into the cache if they are not there
/// (`resize_row`), then their weighted sums along the middle axis (`hsum`, one per tap of
/// the first axis) and along the first (into `out`).
fn resize_planes<T: Lerp>(
    x: &[T],
    out: &mut [T],
    planes: usize,
    pitch: usize,
    axes: &[ResizeAxis<'_, T>; 3],
) {
    let [ad, ah, aw] = axes;
    let consistent = axis_is_consistent(ad, true)
        && axis_is_consistent(ah, true)
        && axis_is_consistent(aw, false);
    if !consistent {
        return;
    }
    let product = |v: [usize; 3]| v.iter().try_fold(1usize, |p, &n| p.checked_mul(n));
    let (Some(in_plane), Some(out_plane)) = (
        product([ad.len, ah.len, aw.len]),
        product([ad.out, ah.out, aw.out]),
    ) else {
        return;
    };
    let plane_rows = ad.len * ah.len;
    let width = aw.len;
    let Some(rows) = planes.checked_mul(plane_rows) else {
        return;
    };
    let need_x = match rows.checked_sub(1) {
        Some(last) if width > 0 => {
            match last.checked_mul(pitch).and_then(|e| e.checked_add(width)) {
                Some(n) => n,
                None => return,
            }
        }
        _ => 0,
    };
    let Some(need_out) = planes.checked_mul(out_plane) else {
        return;
    };
    if x.len() < need_x || out.len() < need_out || pitch < width || need_out == 0 {
        return;
    }
    if in_plane == 0 {
        // Every resized axis has an input (`axis_is_consistent`), so an empty plane has an
        // empty output plane too: nothing to write.
        return;
    }
    let ow = aw.out;
    // A cached row: a vector of margin, the resized row, and whole vectors past it (the
    // run kernel writes whole vectors of `p` phases; the sums read whole vectors from a
    // vector before the row, `OutWriter::row`, to a vector past it).
    let max_p = aw.runs.iter().map(|r| r[1]).max().unwrap_or(1);
    let row_len = LANES + ow + (max_p + 1) * LANES;
    let mut cache = vec![T::default(); SPAN * SPAN * row_len];
    let mut tags = [usize::MAX; SPAN * SPAN];
    // The input row split into phases (`RowPhases`), reused row to row.
    let mut phases = RowPhases::new(width);
    // Up to `SPAN` sums along the middle axis, one per tap of the first (3-D only).
    let mut hsums = vec![
        T::default();
        if ad.weights.is_empty() {
            0
        } else {
            SPAN * row_len
        }
    ];
    let stream = need_out.saturating_mul(core::mem::size_of::<T>()) >= STREAM_MIN_BYTES;
    if two_tap_rows::takes(ad, ah) {
        // Each depth of each plane is a plane of the 2-D resize.
        let cache = &mut cache[..SPAN * row_len];
        let out = &mut out[..need_out];
        two_tap_rows::two_tap_pass(
            x,
            pitch,
            planes * ad.len,
            ah,
            aw,
            cache,
            row_len,
            out,
            stream,
        );
        return;
    }
    let mut put = OutWriter::new(&mut out[..need_out], stream);
    // Plain functions, no closures, in this loop (see `weighted`).
    for p in 0..planes {
        let first_row = p * plane_rows;
        for od in 0..ad.out {
            for oh in 0..ah.out {
                let ((d0, nd), (h0, nh)) = (axis_taps(ad, od), axis_taps(ah, oh));
                // The rows this output row reads, into the cache.
                for jd in 0..nd {
                    let d = tap_at(ad, d0 + jd, od);
                    for jh in 0..nh {
                        let h = tap_at(ah, h0 + jh, oh);
                        let slot = slot_of(d, h);
                        let row = first_row + d * ah.len + h;
                        if tags[slot] != row {
                            tags[slot] = row;
                            prefetch_row(x, (row + PREFETCH_ROWS).saturating_mul(pitch), width);
                            let src = &x[row * pitch..];
                            let dst = &mut cache[slot * row_len + LANES..][..row_len - LANES];
                            resize_row(src, width, dst, aw, &mut phases);
                        }
                    }
                }
                // The middle axis's weights (none for a selection) and, per depth `d`, the
                // offsets of its cached rows.
                let wh = if ah.weights.is_empty() {
                    &[][..]
                } else {
                    &ah.weights[h0..h0 + nh]
                };
                if ad.weights.is_empty() {
                    // One depth: the output row is the middle axis's sum (or selection).
                    let rows = middle_rows(ah, tap_at(ad, d0, od), h0, nh, oh, row_len);
                    put_sum(&mut put, ow, &cache, rows, wh, nh);
                } else {
                    // Each depth's sum along the middle axis (or its selected row), then theirs.
                    let mut sums = [0usize; SPAN];
                    for (jd, sum) in sums.iter_mut().enumerate().take(nd) {
                        let rows = middle_rows(ah, tap_at(ad, d0 + jd, od), h0, nh, oh, row_len);
                        let dst = &mut hsums[jd * row_len..][..row_len];
                        if wh.is_empty() {
                            dst.copy_from_slice(&cache[rows[0]..][..row_len]);
                        } else {
                            let mut i = 0;
                            while i < LANES + ow {
                                let v = weighted(&cache, &rows[..nh], wh, i);
                                dst[i..i + LANES].copy_from_slice(&v.0);
                                i += LANES;
                            }
                        }
                        *sum = jd * row_len;
                    }
                    put_sum(&mut put, ow, &hsums, sums, &ad.weights[d0..d0 + nd], nd);
                }
            }
        }
    }
    put.finish();
    if stream {
        stream_fence();
    }
}

/// Prefetches the cache lines of the input row at `x[start..start + width]` (any
/// `start`: a prefetch past `x` is only a hint, `prefetch_chunk`). The input rows are read
/// in order, so the row `PREFETCH_ROWS` after the one being resized is the one to fetch;
/// the hardware prefetchers alone left the first load of each row waiting (the profile's
/// hottest load in `resize_row`).
#[inline(always)]
fn prefetch_row<T>(x: &[T], start: usize, width: usize) {
    let step = LINE / core::mem::size_of::<T>().max(1);
    let mut at = start;
    while at < start.saturating_add(width) {
        prefetch_chunk(x, at);
        at += step;
    }
}

/// The cache slot of input row `(d, h)`.
#[inline(always)]
fn slot_of(d: usize, h: usize) -> usize {
    (d % SPAN) * SPAN + h % SPAN
}

/// The offsets in the cache of the rows of depth `d` that output row `oh` reads along the
/// middle axis (its `nh` taps from `h0`; the last repeated to `SPAN`).
#[inline(always)]
fn middle_rows<T>(
    ah: &ResizeAxis<'_, T>,
    d: usize,
    h0: usize,
    nh: usize,
    oh: usize,
    row_len: usize,
) -> [usize; SPAN] {
    let mut rows = [0usize; SPAN];
    for (j, row) in rows.iter_mut().enumerate() {
        *row = slot_of(d, tap_at(ah, h0 + j.min(nh - 1), oh)) * row_len;
    }
    rows
}

/// Output `o`'s first tap in `a.index` and its count (`o` itself, one, for an unchanged
/// axis).
#[inline(always)]
fn axis_taps<T>(a: &ResizeAxis<'_, T>, o: usize) -> (usize, usize) {
    match a.taps {
        0 => (o, 1),
        t => (o * t, t),
    }
}

/// The input position of tap `k` (from `axis_taps`) of output `o`.
#[inline(always)]
fn tap_at<T>(a: &ResizeAxis<'_, T>, k: usize, o: usize) -> usize {
    if a.taps == 0 {
        o
    } else {
        a.index[k]
    }
}

/// Writes the next output row (`n` long): `Σ_j weights[j] · rows_j` of the `taps` rows
/// at `rows` in `buf` (the first row alone when `weights` is empty, a selection), the tap
/// count literal for the usual 2 and 4 so the sum unrolls.
#[inline(always)]
fn put_sum<T: Lerp>(
    put: &mut OutWriter<'_, T>,
    n: usize,
    buf: &[T],
    rows: [usize; SPAN],
    weights: &[T],
    taps: usize,
) {
    if weights.is_empty() {
        return put.row(n, &Selected(&buf[rows[0]..]));
    }
    match taps {
        2 => put.row(
            n,
            &Sum::<T, 2> {
                buf,
                rows: [rows[0], rows[1]],
                weights: [weights[0], weights[1]],
            },
        ),
        4 => put.row(
            n,
            &Sum::<T, 4> {
                buf,
                rows,
                weights: [weights[0], weights[1], weights[2], weights[3]],
            },
        ),
        _ => {
            let w: [T; SPAN] = core::array::from_fn(|j| weights[j.min(taps - 1)]);
            let sum = Sum::<T, SPAN> {
                buf,
                rows,
                weights: w,
            };
            put.row(n, &Partial(sum, taps));
        }
    }
}

/// What an output row holds (`OutWriter::row`): `at(a)` is its elements `a − LANES .. a`.
/// A trait with inlined methods rather than a closure, which the compiler left as a call
/// returning each vector through memory (a store-forwarding stall per vector: measured).
trait RowValue<T: Lerp> {
    fn at(&self, a: usize) -> V<T>;

    /// `chunks[i] = self.at(a + i·LANES)` (streamed when `stream`): the writer's loop over
    /// a row's whole chunks. The sums override it with a loop over slices of chunks cut
    /// once, so no vector is range checked on its own.
    #[inline(always)]
    fn put_chunks(&self, a: usize, chunks: &mut [[T; LANES]], stream: bool) {
        for (i, chunk) in chunks.iter_mut().enumerate() {
            put_chunk(chunk, self.at(a + i * LANES), stream);
        }
    }
}

/// Writes one whole, aligned chunk of the output (`OutWriter`'s chunks after the head).
#[inline(always)]
fn put_chunk<T: Lerp>(chunk: &mut [T; LANES], v: V<T>, stream: bool) {
    if stream {
        store_streaming(chunk, 0, v);
    } else {
        *chunk = v.0;
    }
}

/// A cached row itself (a selection).
struct Selected<'b, T>(&'b [T]);

impl<T: Lerp> RowValue<T> for Selected<'_, T> {
    #[inline(always)]
    fn at(&self, a: usize) -> V<T> {
        load(self.0, a)
    }

    #[inline(always)]
    fn put_chunks(&self, a: usize, chunks: &mut [[T; LANES]], stream: bool) {
        let row = self.0[a..][..chunks.len() * LANES].as_chunks::<LANES>().0;
        for (chunk, v) in chunks.iter_mut().zip(row) {
            put_chunk(chunk, V(*v), stream);
        }
    }
}

/// `Σ_j weights[j] · buf[rows[j] + a..][..LANES]` over `N` rows.
struct Sum<'b, T, const N: usize> {
    buf: &'b [T],
    rows: [usize; N],
    weights: [T; N],
}

impl<T: Lerp, const N: usize> RowValue<T> for Sum<'_, T, N> {
    #[inline(always)]
    fn at(&self, a: usize) -> V<T> {
        weighted(self.buf, &self.rows, &self.weights, a)
    }

    #[inline(always)]
    fn put_chunks(&self, a: usize, chunks: &mut [[T; LANES]], stream: bool) {
        let len = chunks.len() * LANES;
        let rows: [&[[T; LANES]]; N] =
            core::array::from_fn(|j| self.buf[self.rows[j] + a..][..len].as_chunks::<LANES>().0);
        let weights = self.weights.map(V::splat);
        for (i, chunk) in chunks.iter_mut().enumerate() {
            // Left to right, every step rounded, as `weighted`.
            let mut sum = T::mul_lanes(weights[0], V(rows[0][i]));
            for j in 1..N {
                sum = T::add_lanes(sum, T::mul_lanes(weights[j], V(rows[j][i])));
            }
            put_chunk(chunk, sum, stream);
        }
    }
}

/// The first `.1` rows of a `Sum` (1 or 3 weighted taps: the checker passes 2 or 4,
/// but the runtime takes any count up to 4).
struct Partial<'b, T>(Sum<'b, T, SPAN>, usize);

impl<T: Lerp> RowValue<T> for Partial<'_, T> {
    #[inline(always)]
    fn at(&self, a: usize) -> V<T> {
        weighted(
            self.0.buf,
            &self.0.rows[..self.1],
            &self.0.weights[..self.1],
            a,
        )
    }
}

/// `Σ_j weights[j] · buf[rows[j] + a..][..LANES]`, left to right, every step rounded (the
/// expression form's order).
#[inline(always)]
fn weighted<T: Lerp>(buf: &[T], rows: &[usize], weights: &[T], a: usize) -> V<T> {
    // No closures here: in a function this large the compiler left them as calls that
    // return each vector through memory (measured).
    let n = rows.len().min(weights.len());
    let mut sum = T::mul_lanes(V::splat(weights[0]), load(buf, rows[0] + a));
    for j in 1..n {
        sum = T::add_lanes(
            sum,
            T::mul_lanes(V::splat(weights[j]), load(buf, rows[j] + a)),
        );
    }
    sum
}

/// `buf[at..at + LANES]` as a vector.
#[inline(always)]
fn load<T: Copy>(buf: &[T], at: usize) -> V<T> {
    V(<[T; LANES]>::try_from(&buf[at..at + LANES]).expect("a LANES range"))
}

/// The output written a vector at a time in one sequence of rows, each chunk of `LANES`
/// at an address aligned for streaming stores when `stream` (`stream_head`): a chunk that
/// spans two rows takes the first row's lanes (kept in `carry`) and the next row's
/// (blended in), so every row of a plane streams whatever its length and the buffer's
/// alignment. Ordinary stores for the first `head` elements and the last partial chunk.
struct OutWriter<'o, T> {
    out: &'o mut [T],
    stream: bool,
    /// Elements of the rows written so far.
    pos: usize,
    /// The chunk being filled: its first `pending` lanes are the last elements written
    /// (it starts at `pos − pending`, which is negative for the head chunk, whose lanes
    /// before element 0 are nothing).
    carry: V<T>,
    pending: usize,
}

impl<'o, T: Lerp> OutWriter<'o, T> {
    fn new(out: &'o mut [T], stream: bool) -> Self {
        let head = if stream { stream_head(out, 0) } else { 0 };
        OutWriter {
            out,
            stream,
            pos: 0,
            carry: V::splat(T::default()),
            // The head chunk lacks its first `LANES − head` lanes for good.
            pending: if head == 0 { 0 } else { LANES - head },
        }
    }

    /// Stores the chunk whose lane `LANES − 1` is element `end − 1` (`end ≥ LANES`, or the
    /// head chunk, whose lanes before element 0 are dropped).
    #[inline(always)]
    fn store_chunk(&mut self, end: usize, v: V<T>) {
        if end < LANES {
            for (o, &e) in self.out[..end].iter_mut().zip(&v.0[LANES - end..]) {
                *o = e;
            }
        } else if self.stream {
            store_streaming(self.out, end - LANES, v);
        } else {
            let whole: &mut [T; LANES] =
                (&mut self.out[end - LANES..end]).try_into().expect("LANES");
            *whole = v.0;
        }
    }

    /// Writes the next row, `n` elements: `value.at(a)` gives its elements `a − LANES ..
    /// a` (`a` from 0, a vector before the row, to `n + LANES`). A function of its own
    /// per kind of row (not inlined into the pass, whose size made the compiler stop
    /// inlining the vector arithmetic).
    #[inline(never)]
    fn row(&mut self, n: usize, value: &impl RowValue<T>) {
        let mut e = 0;
        if self.pending > 0 {
            // Finish the open chunk: lane `l ≥ pending` is this row's element `l − pending`.
            let k = self.pending;
            // One masked select of the two vectors (a compare with the lane numbers and a
            // blend): a per-lane `if` over the arrays compiled to inserts and stack
            // shuffles (8% of the pass in the profile), and a store under a branch to a
            // compare and insert per lane.
            let mut from_carry = V([false; LANES]);
            for (l, lane) in from_carry.0.iter_mut().enumerate() {
                *lane = l < k;
            }
            let merged = T::select_lanes(from_carry, self.carry, value.at(LANES - k));
            let need = LANES - k;
            if need > n {
                self.carry = merged;
                self.pending += n;
                self.pos += n;
                return;
            }
            self.store_chunk(self.pos + need, merged);
            e = need;
            self.pending = 0;
        }
        // The whole chunks, as one slice of chunks: the row value's loop then runs without
        // a range check per vector (`RowValue::put_chunks`).
        let whole = (n - e) / LANES;
        let start = self.pos + e;
        let chunks = self.out[start..start + whole * LANES]
            .as_chunks_mut::<LANES>()
            .0;
        value.put_chunks(LANES + e, chunks, self.stream);
        e += whole * LANES;
        if e < n {
            self.carry = value.at(LANES + e);
            self.pending = n - e;
        }
        self.pos += n;
    }

    /// Writes the open chunk's lanes.
    fn finish(&mut self) {
        let start = self.pos - self.pending.min(self.pos);
        let skip = self.pending - (self.pos - start);
        for (o, &e) in self.out[start..self.pos]
            .iter_mut()
            .zip(&self.carry.0[skip..])
        {
            *o = e;
        }
    }
}

/// A run of period 2 and step 1 with two weighted taps per output (the ×2 `linear`
/// upsample): output `2t + f` is `w[2f]·row[at[2f] + t] + w[2f + 1]·row[at[2f + 1] + t]`.
struct TwoByTwo<T> {
    at: [usize; 4],
    w: [V<T>; 4],
}

impl<T: Lerp> TwoByTwo<T> {
    /// Writes the run's `2·count` outputs to `dst` (whole vectors: `dst` holds `2·LANES`
    /// past them) from the row `row` (a vector past every tap, `RowPhases` with `q = 1`).
    #[inline(always)]
    fn write(&self, row: &[T], dst: &mut [T], count: usize) {
        let [a0, a1, b0, b1] = self.at;
        let [w0, w1, w2, w3] = self.w;
        // Whole vectors of periods; each tap's vectors cut once as a slice of chunks (no
        // range check per vector). In bounds: `t < count` reads `tap + t ≤ width − 1`, and
        // `row` holds a vector past the row, so `tap + n·LANES ≤ tap + count − 1 + LANES`
        // is inside `row`; `dst` holds the `2·n·LANES` the original per-vector loop wrote.
        let n = count.div_ceil(LANES);
        let taps = |a: usize| row[a..][..n * LANES].as_chunks::<LANES>().0;
        let out = dst[..2 * n * LANES].as_chunks_mut::<LANES>().0;
        if a0 == b0 && a1 == b1 {
            // Both phases read the same two vectors (×2 `half_pixel`: taps `t`, `t + 1`
            // with weights ¾, ¼ and ¼, ¾): loaded once. Same products, same order.
            for ((pair, p), q) in out.chunks_exact_mut(2).zip(taps(a0)).zip(taps(a1)) {
                let (p, q) = (V(*p), V(*q));
                let v0 = T::add_lanes(T::mul_lanes(w0, p), T::mul_lanes(w1, q));
                let v1 = T::add_lanes(T::mul_lanes(w2, p), T::mul_lanes(w3, q));
                interleave(pair, v0, v1);
            }
        } else {
            let rows = taps(a0).iter().zip(taps(a1)).zip(taps(b0)).zip(taps(b1));
            for (pair, (((p0, p1), q0), q1)) in out.chunks_exact_mut(2).zip(rows) {
                let v0 = T::add_lanes(T::mul_lanes(w0, V(*p0)), T::mul_lanes(w1, V(*p1)));
                let v1 = T::add_lanes(T::mul_lanes(w2, V(*q0)), T::mul_lanes(w3, V(*q1)));
                interleave(pair, v0, v1);
            }
        }
    }
}

/// `pair` (two chunks) = the lanes of `v0` and `v1` alternately, `v0`'s first.
#[inline(always)]
fn interleave<T: Copy>(pair: &mut [[T; LANES]], v0: V<T>, v1: V<T>) {
    let [lo, hi] = pair else { return };
    const HALF: usize = LANES / 2;
    for i in 0..HALF {
        lo[2 * i] = v0.0[i];
        lo[2 * i + 1] = v1.0[i];
        hi[2 * i] = v0.0[HALF + i];
        hi[2 * i + 1] = v1.0[HALF + i];
    }
}

/// One output phase of a run, `LANES` of its periods from `t0`: `Σ_j weights[j] ·
/// phase(index[j] mod q)[index[j] / q + t0..]` left to right (the selected vector when
/// `weights` is empty), each tap one contiguous vector of a phase (`RowPhases`).
#[inline(always)]
fn run_phase<T: Lerp>(
    buf: &[T],
    m: usize,
    q: usize,
    index: &[usize],
    weights: &[T],
    t0: usize,
) -> V<T> {
    let i = index[0];
    let first = load(buf, (i % q) * m + i / q + t0);
    if weights.is_empty() {
        return first;
    }
    let mut sum = T::mul_lanes(V::splat(weights[0]), first);
    for (j, &i) in index.iter().enumerate().skip(1) {
        let v = load(buf, (i % q) * m + i / q + t0);
        sum = T::add_lanes(sum, T::mul_lanes(V::splat(weights[j]), v));
    }
    sum
}

/// An input row split into `q` phases `m` long (`phase_r[k] = row[k·q + r]`, anything past
/// the row), so a run's taps are contiguous vectors; `q = 1` is a copy with room for whole
/// vectors past the end.
struct RowPhases<T> {
    buf: Vec<T>,
    width: usize,
}

impl<T: Lerp> RowPhases<T> {
    fn new(width: usize) -> Self {
        RowPhases {
            buf: Vec::new(),
            width,
        }
    }

    /// The phase length for step `q`: every position a run reads (`index + q·t ≤ len − 1`,
    /// so `index/q + t ≤ (len − 1)/q`) and a whole vector past it.
    fn phase_len(&self, q: usize) -> usize {
        self.width.div_ceil(q) + LANES
    }

    /// Splits `row` into its `q` phases; returns the buffer and the phase length.
    fn split(&mut self, row: &[T], q: usize) -> (&[T], usize) {
        let m = self.phase_len(q);
        if self.buf.len() < q * m {
            self.buf.resize(q * m, T::default());
        }
        match q {
            1 => self.buf[..row.len()].copy_from_slice(row),
            2 => {
                let (even, odd) = self.buf.split_at_mut(m);
                for ((e, o), pair) in even.iter_mut().zip(odd.iter_mut()).zip(row.chunks(2)) {
                    *e = pair[0];
                    if let Some(&v) = pair.get(1) {
                        *o = v;
                    }
                }
            }
            _ => {
                for (k, chunk) in row.chunks(q).enumerate() {
                    for (r, &v) in chunk.iter().enumerate() {
                        self.buf[r * m + k] = v;
                    }
                }
            }
        }
        (&self.buf[..q * m], m)
    }
}

/// `dst[o] = Σ_j w[o·taps + j] · src[index[o·taps + j]]` (or the selected `src[index[o]]`)
/// for every output `o` of the last axis, runs a vector at a time (see the module's
/// documentation); `dst` has `(max p + 1)·LANES` elements past the output for the runs'
/// whole vectors.
#[inline(never)]
fn resize_row<T: Lerp>(
    rest: &[T],
    width: usize,
    dst: &mut [T],
    a: &ResizeAxis<'_, T>,
    phases: &mut RowPhases<T>,
) {
    let src = &rest[..width];
    if a.taps == 0 {
        dst[..src.len()].copy_from_slice(src);
        return;
    }
    let mut done = 0;
    let mut split: Option<usize> = None;
    for &[first, p, q, count] in a.runs {
        for (o, d) in dst[done..first].iter_mut().enumerate() {
            *d = single_output(src, a, done + o);
        }
        // Step 1 reads the input itself when a vector past the row is still in `x` (the
        // lanes past the row make outputs past the run, overwritten): a copy just written
        // and read back at other offsets stalled each load (store forwarding fails across
        // stores, measured).
        let (buf, m) = if q == 1 && rest.len() >= width + LANES {
            (rest, 0)
        } else {
            if split != Some(q) {
                phases.split(src, q);
                split = Some(q);
            }
            let m = phases.phase_len(q);
            (&phases.buf[..q * m], m)
        };
        let taps = a.taps;
        let lead = |f: usize| {
            let k = (first + f) * taps;
            let w = if a.weights.is_empty() {
                &[][..]
            } else {
                &a.weights[k..k + taps]
            };
            (&a.index[k..k + taps], w)
        };
        if q == 1 && p == 2 && taps == 2 && !a.weights.is_empty() {
            // The ×2 linear upsample's run, its taps and weights hoisted out of the loop.
            let k = first * taps;
            let run = TwoByTwo {
                at: [a.index[k], a.index[k + 1], a.index[k + 2], a.index[k + 3]],
                w: [0, 1, 2, 3].map(|j| V::splat(a.weights[k + j])),
            };
            run.write(buf, &mut dst[first..], count);
            done = first + p * count;
            continue;
        }
        let mut t0 = 0;
        while t0 < count {
            let base = first + p * t0;
            match p {
                1 => {
                    let (i, w) = lead(0);
                    dst[base..base + LANES].copy_from_slice(&run_phase(buf, m, q, i, w, t0).0);
                }
                2 => {
                    let ((i0, w0), (i1, w1)) = (lead(0), lead(1));
                    let v0 = run_phase(buf, m, q, i0, w0, t0);
                    let v1 = run_phase(buf, m, q, i1, w1, t0);
                    interleave(dst[base..base + 2 * LANES].as_chunks_mut().0, v0, v1);
                }
                _ => {
                    for f in 0..p {
                        let (i, w) = lead(f);
                        let v = run_phase(buf, m, q, i, w, t0);
                        for (l, &e) in v.0.iter().enumerate() {
                            dst[base + f + p * l] = e;
                        }
                    }
                }
            }
            t0 += LANES;
        }
        done = first + p * count;
    }
    for (o, d) in dst[..a.out].iter_mut().enumerate().skip(done) {
        *d = single_output(src, a, o);
    }
}

/// Output `o` of the last axis on its own (the outputs in no run: the clamped edges):
/// `Σ_j w[o·taps + j] · src[index[o·taps + j]]` left to right, or the selected value. A
/// function rather than a closure, which the compiler left as a call (6% of the ×2
/// resize in the profile).
#[inline(always)]
fn single_output<T: Lerp>(src: &[T], a: &ResizeAxis<'_, T>, o: usize) -> T {
    let k = o * a.taps;
    let index = &a.index[k..k + a.taps];
    if a.weights.is_empty() {
        return src[index[0]];
    }
    let weights = &a.weights[k..k + a.taps];
    let mut sum = T::mul(weights[0], src[index[0]]);
    for (&w, &i) in weights.iter().zip(index).skip(1) {
        sum = T::add(sum, T::mul(w, src[i]));
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An axis's taps as the checker computes them (check/vision.rs `resize_taps`, the
    /// coordinate transforms of ONNX's spec written again here for `half_pixel`,
    /// `asymmetric` and `align_corners`), with `cubic`'s Keys weights (a = -0.75).
    struct Axis {
        len: usize,
        out: usize,
        taps: usize,
        index: Vec<usize>,
        weights: Vec<f64>,
        runs: Vec<[usize; 4]>,
    }

    fn axis(mode: &str, coords: &str, len: usize, out: usize) -> Axis {
        let scale = out as f64 / len as f64;
        let (mut index, mut weights) = (Vec::new(), Vec::new());
        let taps = match mode {
            "nearest" => 1,
            "linear" => 2,
            _ => 4,
        };
        for o in 0..out {
            let x = o as f64;
            let xo = match coords {
                "half_pixel" => (x + 0.5) / scale - 0.5,
                "align_corners" if out > 1 => x * (len as f64 - 1.0) / (out as f64 - 1.0),
                "align_corners" => 0.0,
                _ => x / scale,
            };
            let fl = xo.floor();
            let integer = xo == fl;
            let r = if integer { 1.0 } else { xo - fl };
            let clamp = |i: i64| i.clamp(0, len as i64 - 1) as usize;
            let fl = fl as i64;
            match mode {
                "nearest" => index.push(clamp(if integer || r <= 0.5 { fl } else { fl + 1 })),
                "linear" => {
                    let base = if integer { fl - 1 } else { fl };
                    index.extend([clamp(base), clamp(base + 1)]);
                    weights.extend([1.0 - r, r]);
                }
                _ => {
                    let base = if integer { fl - 2 } else { fl - 1 };
                    let (a, s) = (-0.75, 1.0 - r);
                    index.extend((base..base + 4).map(clamp));
                    weights.extend([
                        ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
                        ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
                        ((a * (s + 1.0) - 5.0 * a) * (s + 1.0) + 8.0 * a) * (s + 1.0) - 4.0 * a,
                    ]);
                }
            }
        }
        let runs = runs_of(&index, &weights, taps, out);
        Axis {
            len,
            out,
            taps,
            index,
            weights,
            runs,
        }
    }

    /// Runs of exactly repeating taps (periods up to 6), greedy from the left.
    fn runs_of(index: &[usize], weights: &[f64], taps: usize, out: usize) -> Vec<[usize; 4]> {
        let same = |a: usize, b: usize, shift: usize| {
            (0..taps).all(|j| {
                index[b * taps + j] == index[a * taps + j] + shift
                    && (weights.is_empty() || weights[b * taps + j] == weights[a * taps + j])
            })
        };
        let mut runs = Vec::new();
        let mut o0 = 0;
        while o0 < out {
            let mut best: Option<[usize; 4]> = None;
            for p in 1..=6.min(out - o0) {
                if o0 + p >= out || index[(o0 + p) * taps] <= index[o0 * taps] {
                    continue;
                }
                let q = index[(o0 + p) * taps] - index[o0 * taps];
                let mut count = 1;
                while o0 + p * (count + 1) <= out
                    && (0..p).all(|f| same(o0 + f, o0 + f + p * count, q * count))
                {
                    count += 1;
                }
                if count >= 2 && best.is_none_or(|b| p * count > b[1] * b[3]) {
                    best = Some([o0, p, q, count]);
                }
            }
            match best {
                Some(run) => {
                    runs.push(run);
                    o0 += run[1] * run[3];
                }
                None => o0 += 1,
            }
        }
        runs
    }

    fn view<T: Copy>(a: &Axis, weights: &[T], last: bool) -> ResizeAxis<'static, T> {
        // Leaked: the runtime takes the static arrays generated code passes.
        ResizeAxis {
            len: a.len,
            out: a.out,
            taps: a.taps,
            index: Vec::leak(a.index.clone()),
            weights: Vec::leak(weights.to_vec()),
            runs: if last { Vec::leak(a.runs.clone()) } else { &[] },
        }
    }

    /// The expression form's arithmetic in `T`: per axis, the last first, `Σ_j w_j · v_j`
    /// left to right (the selected value for `nearest`), every step rounded.
    fn reference<T: Lerp>(x: &[T], planes: usize, axes: &[ResizeAxis<'_, T>; 3]) -> Vec<T> {
        let mut cur = x.to_vec();
        let mut dims = [planes, axes[0].len, axes[1].len, axes[2].len];
        for k in (0..3).rev() {
            let a = &axes[k];
            if a.taps == 0 {
                continue;
            }
            let outer: usize = dims[..k + 1].iter().product();
            let inner: usize = dims[k + 2..].iter().product();
            let mut next = Vec::with_capacity(outer * a.out * inner);
            for o in 0..outer {
                for i in 0..a.out {
                    for e in 0..inner {
                        let v = |j: usize| cur[(o * a.len + a.index[i * a.taps + j]) * inner + e];
                        next.push(if a.weights.is_empty() {
                            v(0)
                        } else {
                            let term = |j: usize| T::mul(a.weights[i * a.taps + j], v(j));
                            (1..a.taps).fold(term(0), |s, j| T::add(s, term(j)))
                        });
                    }
                }
            }
            cur = next;
            dims[k + 1] = a.out;
        }
        cur
    }

    fn values(n: usize, seed: u64) -> Vec<f64> {
        (0..n as u64)
            .map(|i| ((i * 2654435761 + seed * 40503) % 2001) as f64 / 1000.0 - 1.0)
            .collect()
    }

    fn same_bits<T: Lerp + Into<f64>>(got: &[T], want: &[T]) -> bool {
        got.len() == want.len()
            && got.iter().zip(want).all(|(&g, &w)| {
                let (g, w): (f64, f64) = (g.into(), w.into());
                (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits()
            })
    }

    /// Runs f32 and f64 over `planes` planes resized by `axes` (`None`: unchanged),
    /// against the expression form's arithmetic, with `specials` written into the input.
    fn check(planes: usize, lens: [usize; 3], axes: [Option<Axis>; 3], specials: &[(usize, f64)]) {
        let outs: [usize; 3] =
            core::array::from_fn(|k| axes[k].as_ref().map_or(lens[k], |a| a.out));
        let n = planes * lens.iter().product::<usize>();
        let mut x = values(n, 5);
        for &(at, v) in specials {
            if n > 0 {
                x[at % n] = v;
            }
        }
        fn run<T: Lerp + Resize + Into<f64>>(
            x: &[T],
            planes: usize,
            lens: [usize; 3],
            outs: [usize; 3],
            axes: &[Option<Axis>; 3],
            cast: impl Fn(f64) -> T,
        ) {
            let views: [ResizeAxis<'static, T>; 3] = core::array::from_fn(|k| match &axes[k] {
                Some(a) => view(
                    a,
                    &a.weights.iter().map(|&w| cast(w)).collect::<Vec<_>>(),
                    k == 2,
                ),
                None => ResizeAxis::unchanged(lens[k]),
            });
            let want = reference(x, planes, &views);
            assert_eq!(want.len(), planes * outs.iter().product::<usize>());
            let mut got = vec![cast(7.0); want.len()];
            T::resize(x, &mut got, planes, lens[2], &views);
            assert!(
                same_bits(&got, &want),
                "{lens:?} -> {outs:?}: {:?}",
                got.iter().zip(&want).position(|(g, w)| {
                    let (g, w): (f64, f64) = ((*g).into(), (*w).into());
                    g.to_bits() != w.to_bits() && !(g.is_nan() && w.is_nan())
                })
            );
        }
        run(&x, planes, lens, outs, &axes, |v| v);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        run(&x32, planes, lens, outs, &axes, |v| v as f32);
    }

    /// The f64 pass against ONNX's definition for a 2-D linear resize (the weights of
    /// `half_pixel` ×2 are exact in binary, so the definition's value is exact too).
    #[test]
    fn linear_x2_matches_the_definition() {
        let (h, w) = (5, 37);
        let x = values(2 * h * w, 3);
        let (ah, aw) = (
            axis("linear", "half_pixel", h, 2 * h),
            axis("linear", "half_pixel", w, 2 * w),
        );
        let axes = [
            ResizeAxis::unchanged(1),
            view(&ah, &ah.weights, false),
            view(&aw, &aw.weights, true),
        ];
        let mut got = vec![0.0; 2 * 4 * h * w];
        f64::resize(&x, &mut got, 2, w, &axes);
        // ONNX: x_original = (o + 0.5) / 2 - 0.5, clamped neighbours, 1-D then 1-D.
        let lerp1 = |o: usize, len: usize| {
            let xo = (o as f64 + 0.5) / 2.0 - 0.5;
            let f = xo.floor();
            let r = xo - f;
            let c = |i: f64| (i.max(0.0) as usize).min(len - 1);
            (c(f), c(f + 1.0), r)
        };
        for p in 0..2 {
            for oh in 0..2 * h {
                for ow in 0..2 * w {
                    let (h0, h1, rh) = lerp1(oh, h);
                    let (w0, w1, rw) = lerp1(ow, w);
                    let at = |i: usize, j: usize| x[(p * h + i) * w + j];
                    let row = |i: usize| (1.0 - rw) * at(i, w0) + rw * at(i, w1);
                    let want = (1.0 - rh) * row(h0) + rh * row(h1);
                    let g = got[(p * 2 * h + oh) * 2 * w + ow];
                    assert!((g - want).abs() < 1e-12, "{p} {oh} {ow}: {g} vs {want}");
                }
            }
        }
    }

    #[test]
    fn every_mode_is_the_expression_forms_arithmetic() {
        for mode in ["nearest", "linear", "cubic"] {
            for coords in ["half_pixel", "asymmetric", "align_corners"] {
                // Upscale ×2, ×3, ×2.5, downscale, odd sizes, in 1-D, 2-D and 3-D.
                for (h, oh, w, ow) in [
                    (5, 10, 7, 14),
                    (3, 9, 33, 99),
                    (4, 10, 6, 15),
                    (9, 4, 40, 13),
                    (1, 3, 1, 2),
                    (2, 1, 70, 35),
                ] {
                    check(
                        3,
                        [1, h, w],
                        [
                            None,
                            Some(axis(mode, coords, h, oh)),
                            Some(axis(mode, coords, w, ow)),
                        ],
                        &[],
                    );
                    check(
                        2,
                        [1, 1, w],
                        [None, None, Some(axis(mode, coords, w, ow))],
                        &[],
                    );
                    check(
                        1,
                        [1, h, w],
                        [None, Some(axis(mode, coords, h, oh)), None],
                        &[],
                    );
                }
                check(
                    2,
                    [3, 4, 19],
                    [
                        Some(axis(mode, coords, 3, 5)),
                        Some(axis(mode, coords, 4, 8)),
                        Some(axis(mode, coords, 19, 38)),
                    ],
                    &[],
                );
                check(
                    1,
                    [4, 3, 18],
                    [
                        Some(axis(mode, coords, 4, 2)),
                        None,
                        Some(axis(mode, coords, 18, 27)),
                    ],
                    &[],
                );
            }
        }
    }

    #[test]
    fn nan_and_infinities_as_the_expression_form() {
        let specials = [
            (3, f64::NAN),
            (40, f64::INFINITY),
            (41, f64::NEG_INFINITY),
            (77, f64::NAN),
            (100, -0.0),
        ];
        for mode in ["nearest", "linear", "cubic"] {
            check(
                2,
                [1, 7, 21],
                [
                    None,
                    Some(axis(mode, "half_pixel", 7, 14)),
                    Some(axis(mode, "half_pixel", 21, 42)),
                ],
                &specials,
            );
            check(
                2,
                [1, 7, 21],
                [
                    None,
                    Some(axis(mode, "align_corners", 7, 3)),
                    Some(axis(mode, "asymmetric", 21, 50)),
                ],
                &specials,
            );
        }
    }

    #[test]
    fn rows_a_pitch_apart_and_no_planes() {
        let (h, w) = (6, 13);
        let (ah, aw) = (
            axis("linear", "half_pixel", h, 12),
            axis("linear", "half_pixel", w, 26),
        );
        let axes = [
            ResizeAxis::unchanged(1),
            view(&ah, &ah.weights, false),
            view(&aw, &aw.weights, true),
        ];
        let dense = values(3 * h * w, 9);
        let pitch = 21;
        let mut pitched = vec![f64::NAN; (3 * h - 1) * pitch + w];
        for r in 0..3 * h {
            pitched[r * pitch..][..w].copy_from_slice(&dense[r * w..][..w]);
        }
        let want = reference(&dense, 3, &axes);
        let mut got = vec![0.0; want.len()];
        f64::resize(&pitched, &mut got, 3, pitch, &axes);
        assert!(same_bits(&got, &want));
        // No planes: nothing read, nothing written.
        let mut none: [f64; 0] = [];
        f64::resize(&[], &mut none, 0, w, &axes);
    }

    /// An output over `STREAM_MIN_BYTES` (streamed) at every misalignment of its buffer,
    /// rows of a length no multiple of `LANES`: the chunks spanning two rows, the head and
    /// the tail are written as ordinary stores would.
    #[test]
    fn streamed_outputs_at_every_alignment() {
        let (planes, h, w) = (12, 64, 181);
        let (ah, aw) = (
            axis("linear", "half_pixel", h, 2 * h),
            axis("linear", "half_pixel", w, 2 * w),
        );
        let f32s = |v: &[f64]| v.iter().map(|&w| w as f32).collect::<Vec<f32>>();
        let axes = [
            ResizeAxis::unchanged(1),
            view(&ah, &f32s(&ah.weights), false),
            view(&aw, &f32s(&aw.weights), true),
        ];
        let x: Vec<f32> = values(planes * h * w, 4)
            .iter()
            .map(|&v| v as f32)
            .collect();
        let want = reference(&x, planes, &axes);
        assert!(want.len() * 4 >= STREAM_MIN_BYTES);
        for shift in [0, 1, 5, 15] {
            let mut backing = vec![7.0f32; want.len() + shift + 1];
            f32::resize(
                &x,
                &mut backing[shift..shift + want.len()],
                planes,
                w,
                &axes,
            );
            assert!(
                same_bits(&backing[shift..shift + want.len()], &want),
                "shift {shift}"
            );
            assert!(backing[..shift]
                .iter()
                .chain(&backing[shift + want.len()..])
                .all(|&v| v == 7.0));
        }
    }

    /// The 2-D two-tap loop (`two_tap_rows`): depth unchanged (one or three depths), a
    /// `linear` middle axis, heights 1, 2 and 5, odd and tiny widths, ×2 (the one-run last
    /// axis, `resize_row_x2`) and other last axes (the general `resize_row`), NaN and ±inf,
    /// rows a pitch apart, no planes: bit for bit the expression form's arithmetic.
    #[test]
    fn two_tap_rows_as_the_expression_form() {
        let specials = [
            (0, f64::NAN),
            (6, f64::INFINITY),
            (7, f64::NEG_INFINITY),
            (30, -0.0),
        ];
        for coords in ["half_pixel", "asymmetric", "align_corners"] {
            for (h, oh) in [(1, 2), (2, 4), (5, 10), (5, 3)] {
                for (w, ow) in [
                    (1, 2),
                    (2, 4),
                    (3, 6),
                    (17, 34),
                    (33, 66),
                    (19, 45),
                    (40, 13),
                ] {
                    let axes = |_| {
                        [
                            None,
                            Some(axis("linear", coords, h, oh)),
                            Some(axis("linear", coords, w, ow)),
                        ]
                    };
                    check(2, [1, h, w], axes(()), &specials);
                    check(2, [3, h, w], axes(()), &specials);
                    // Nearest and cubic along the last axis under the linear middle one.
                    let mixed = |mode| {
                        [
                            None,
                            Some(axis("linear", coords, h, oh)),
                            Some(axis(mode, coords, w, ow)),
                        ]
                    };
                    check(1, [2, h, w], mixed("nearest"), &specials);
                    check(1, [1, h, w], mixed("cubic"), &specials);
                }
            }
        }
        // The benchmark's ×2 half_pixel last axis is one ×2 run, so it takes `resize_row_x2`.
        let aw = axis("linear", "half_pixel", 56, 112);
        assert_eq!(aw.runs, [[1, 2, 1, 55]]);
        let view_w = view(&aw, &aw.weights, true);
        assert!(two_tap_rows::x2_run(&view_w).is_some());
        // Rows a pitch apart (the last row then has a vector past it in `x`, so every row
        // takes the in-place ×2 run), three depths, and no planes.
        let (h, w, pitch) = (5, 23, 23 + LANES + 3);
        let ah = axis("linear", "half_pixel", h, 2 * h);
        let aw = axis("linear", "half_pixel", w, 2 * w);
        let axes = [
            ResizeAxis::unchanged(3),
            view(&ah, &ah.weights, false),
            view(&aw, &aw.weights, true),
        ];
        let dense = values(2 * 3 * h * w, 11);
        let mut pitched = vec![f64::NAN; 2 * 3 * h * pitch];
        for r in 0..2 * 3 * h {
            pitched[r * pitch..][..w].copy_from_slice(&dense[r * w..][..w]);
        }
        let want = reference(&dense, 2, &axes);
        let mut got = vec![0.0; want.len()];
        f64::resize(&pitched, &mut got, 2, pitch, &axes);
        assert!(same_bits(&got, &want));
        let mut none: [f64; 0] = [];
        f64::resize(&[], &mut none, 0, pitch, &axes);
    }

    /// Streamed outputs of the two-tap loop at more misalignments, with rows whose length
    /// is a multiple of `LANES` (every row starts at the same misalignment: the benchmark's
    /// case) and rows of odd length.
    #[test]
    fn two_tap_rows_streamed_at_misalignments() {
        for (planes, h, w) in [(40, 56, 8 * LANES), (44, 33, 97)] {
            let (ah, aw) = (
                axis("linear", "half_pixel", h, 2 * h),
                axis("linear", "half_pixel", w, 2 * w),
            );
            let f32s = |v: &[f64]| v.iter().map(|&w| w as f32).collect::<Vec<f32>>();
            let axes = [
                ResizeAxis::unchanged(1),
                view(&ah, &f32s(&ah.weights), false),
                view(&aw, &f32s(&aw.weights), true),
            ];
            let mut x: Vec<f32> = values(planes * h * w, 6)
                .iter()
                .map(|&v| v as f32)
                .collect();
            x[w + 3] = f32::NAN;
            x[5 * w] = f32::INFINITY;
            let want = reference(&x, planes, &axes);
            assert!(want.len() * 4 >= STREAM_MIN_BYTES);
            for shift in [2, 3, 4, 8, 13] {
                let mut backing = vec![7.0f32; want.len() + shift + 1];
                let out = &mut backing[shift..shift + want.len()];
                f32::resize(&x, out, planes, w, &axes);
                assert!(same_bits(out, &want), "{w} shift {shift}");
                assert!(backing[..shift]
                    .iter()
                    .chain(&backing[shift + want.len()..])
                    .all(|&v| v == 7.0));
            }
        }
    }

    /// The streamed two-tap pass with rows a whole number of vectors long
    /// (`WholeVectorRows`: every chunk aligned, the chunk spanning two rows merged under a
    /// mask fixed for the call) at every misalignment of the output, called directly so
    /// small outputs stream too: heights 1-3 (one output row, from a downscale, and a
    /// single spanning chunk), rows of 1, 2, 3 and 7 vectors, the ×2 run (`resize_row_x2`)
    /// and a general last axis, one and three planes, NaN/±inf/−0 in the input; bit for
    /// bit the expression form's arithmetic, nothing written outside the output. Rows of
    /// other lengths take `OutWriter`, checked the same way.
    #[test]
    fn whole_vector_rows_at_every_misalignment() {
        fn run<T: Lerp + Resize + Into<f64>>(cast: impl Fn(f64) -> T) {
            let specials = [
                (0, f64::NAN),
                (5, f64::INFINITY),
                (9, f64::NEG_INFINITY),
                (12, -0.0),
            ];
            for (h, oh) in [(1, 2), (2, 1), (2, 4), (3, 6), (3, 2)] {
                for (w, ow, whole) in [
                    (LANES / 2, LANES, true),
                    (LANES, 2 * LANES, true),
                    (3 * LANES / 2, 3 * LANES, true),
                    (7 * LANES / 2, 7 * LANES, true),
                    (13, 3 * LANES, true),
                    (LANES / 2 + 1, LANES + 2, false),
                ] {
                    for planes in [1, 3] {
                        let (ah, aw) = (
                            axis("linear", "half_pixel", h, oh),
                            axis("linear", "half_pixel", w, ow),
                        );
                        let cw = |a: &Axis| a.weights.iter().map(|&v| cast(v)).collect::<Vec<T>>();
                        let axes = [
                            ResizeAxis::unchanged(1),
                            view(&ah, &cw(&ah), false),
                            view(&aw, &cw(&aw), true),
                        ];
                        let mut x: Vec<T> =
                            values(planes * h * w, 8).iter().map(|&v| cast(v)).collect();
                        for &(at, v) in &specials {
                            let n = x.len();
                            x[at % n] = cast(v);
                        }
                        let want = reference(&x, planes, &axes);
                        let max_p = aw.runs.iter().map(|r| r[1]).max().unwrap_or(1);
                        let row_len = LANES + ow + (max_p + 1) * LANES;
                        for shift in 0..LANES {
                            let mut backing = vec![cast(7.0); want.len() + LANES + 1];
                            let out = &mut backing[shift..shift + want.len()];
                            let aligned = two_tap_rows::WholeVectorRows::new(&mut *out, ow);
                            assert_eq!(aligned.is_some(), whole, "{w} -> {ow}");
                            let mut cache = vec![T::default(); SPAN * row_len];
                            two_tap_rows::two_tap_pass(
                                &x, w, planes, &axes[1], &axes[2], &mut cache, row_len, out, true,
                            );
                            assert!(
                                same_bits(out, &want),
                                "{h}x{w} -> {oh}x{ow} ×{planes} shift {shift}"
                            );
                            assert!(backing[..shift]
                                .iter()
                                .chain(&backing[shift + want.len()..])
                                .all(|&v| v.into() == 7.0));
                        }
                    }
                }
            }
        }
        run::<f32>(|v| v as f32);
        run::<f64>(|v| v);
    }

    #[test]
    fn inconsistent_calls_write_nothing() {
        let (ah, aw) = (
            axis("linear", "half_pixel", 4, 8),
            axis("linear", "half_pixel", 5, 10),
        );
        let good = [
            ResizeAxis::unchanged(1),
            view(&ah, &ah.weights, false),
            view(&aw, &aw.weights, true),
        ];
        let x = values(20, 1);
        let mut out = vec![5.0; 80];
        let bad = |f: &dyn Fn(&mut [ResizeAxis<'static, f64>; 3])| {
            let mut a = good;
            f(&mut a);
            a
        };
        let calls: Vec<(usize, usize, usize, [ResizeAxis<'static, f64>; 3])> = vec![
            (19, 80, 5, good),
            (20, 79, 5, good),
            (20, 80, 4, good),
            (20, 80, 5, bad(&|a| a[2].index = &[0, 1])),
            (20, 80, 5, bad(&|a| a[2].index = Vec::leak(vec![5; 20]))),
            (20, 80, 5, bad(&|a| a[2].weights = &[1.0])),
            (20, 80, 5, bad(&|a| a[2].taps = 5)),
            (20, 80, 5, bad(&|a| a[1].weights = &[])),
            (20, 80, 5, bad(&|a| a[1].runs = &[[0, 1, 1, 2]])),
            (20, 80, 5, bad(&|a| a[2].runs = &[[0, 2, 1, 6]])),
            (
                20,
                80,
                5,
                bad(&|a| a[2].runs = &[[4, 2, 1, 2], [0, 2, 1, 2]]),
            ),
            (20, 80, 5, bad(&|a| a[2].runs = &[[2, 2, 7, 2]])),
            (
                20,
                80,
                5,
                bad(&|a| {
                    a[0] = ResizeAxis {
                        out: 2,
                        ..ResizeAxis::unchanged(1)
                    }
                }),
            ),
        ];
        for (k, (nx, nout, pitch, axes)) in calls.into_iter().enumerate() {
            f64::resize(&x[..nx], &mut out[..nout], 1, pitch, &axes);
            assert!(out.iter().all(|&v| v == 5.0), "call {k} wrote");
        }
        f64::resize(&x, &mut out, 1, 5, &good);
        assert!(out.iter().all(|&v| v != 5.0));
        // An output reading rows 4 apart along an outer axis (the cache holds 4).
        let ah = axis("linear", "half_pixel", 5, 10);
        let mut index = ah.index.clone();
        index[1] = 4;
        let spread = [
            ResizeAxis::unchanged(1),
            ResizeAxis {
                index: Vec::leak(index),
                ..view(&ah, &ah.weights, false)
            },
            good[2],
        ];
        let x = values(25, 1);
        let mut out = vec![5.0; 100];
        f64::resize(&x, &mut out, 1, 5, &spread);
        assert!(out.iter().all(|&v| v == 5.0));
    }
}
