//! Convolution operands for the GEMM engine: implicit im2col.
//!
//! A convolution of one batch element and one group is the product
//! `out (O × P) = W (O × C·K) · im2col(x) (C·K × P)`, `K` the kernel's positions and `P` the
//! output positions. Neither side is a strided view, so each is a [`PackSource`] that the
//! engine's packers read tile by tile:
//!
//! - [`Im2col`]: element `(c·K + tap, p)` is the input under kernel position `tap` of the
//!   window at output position `p`, or zero where that lies in the padding. The zeros are
//!   produced here (the padding is virtual: no padded copy, no full im2col buffer); only
//!   the `kc × nc` block the driver packs exists at any time.
//! - [`ConvWeights`]: the weight `[O, C, k…]` read as `O × C·K` through any strides (a
//!   row-pitched parameter included), so it is never copied either.
//!
//! Rules: spatial axes are always three (a 1-D or 2-D convolution leads with axes of
//! length 1, kernel 1, stride 1, no padding), so one code path serves all ranks. Every
//! read goes through safe slice indexing: the constructors check that the elements the
//! sources can name lie inside their slices (as [`MatRef::new`](super::MatRef::new)
//! does), and a window position outside the input is never read, only replaced by zero.
//! There is no `unsafe` in this file.

use super::source::{Convert, PackSource};
use super::GemmError;

/// Spatial axes of every [`ConvWindow`] (fewer are led by axes of length 1).
pub const SPATIAL: usize = 3;

/// The window of a convolution along the three spatial axes: input index
/// `o·strides + t·dilations - pads` for output index `o` and kernel index `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvWindow {
    /// Kernel extent per axis (≥ 1).
    pub kernel: [usize; SPATIAL],
    /// Stride per axis (≥ 1).
    pub strides: [usize; SPATIAL],
    /// Dilation per axis (≥ 1).
    pub dilations: [usize; SPATIAL],
    /// Padding at the beginning of each axis (the end's is implied by `out`).
    pub pads: [usize; SPATIAL],
    /// Output length per axis.
    pub out: [usize; SPATIAL],
}

impl ConvWindow {
    /// Kernel positions `K`.
    pub fn taps(&self) -> usize {
        self.kernel.iter().product()
    }
    /// Output positions `P`.
    pub fn positions(&self) -> usize {
        self.out.iter().product()
    }
}

/// The strided input of one batch element and group: element `(c, y0, y1, y2)` at
/// `data[offset + c·chan_stride + Σ y_a·strides[a]]`, `c < channels`, `y_a < lens[a]`.
#[derive(Debug)]
pub struct ConvInput<'a, T> {
    /// The buffer.
    pub data: &'a [T],
    /// Index of element `(0, 0, 0, 0)`.
    pub offset: usize,
    /// Channels (of this group).
    pub channels: usize,
    /// Elements between channels.
    pub chan_stride: isize,
    /// Length of each spatial axis.
    pub lens: [usize; SPATIAL],
    /// Elements between neighbours along each spatial axis.
    pub strides: [isize; SPATIAL],
}

// Copy whatever `T` is (a derive would ask `T: Copy`): every field is a number or a
// shared slice.
impl<T> Clone for ConvInput<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ConvInput<'_, T> {}

/// Whether the corners of a strided box (extents `dims`, strides `strides`, from
/// `offset`) lie inside a buffer of `len` elements; an empty box always does. The extreme
/// indices are at the corners; i128 cannot overflow for 64-bit operands.
fn box_inside(offset: usize, dims: &[usize], strides: &[isize], len: usize) -> bool {
    if dims.contains(&0) {
        return true;
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&n, &s) in dims.iter().zip(strides) {
        let last = (n as i128 - 1) * s as i128;
        lo += last.min(0);
        hi += last.max(0);
    }
    lo >= 0 && hi < len as i128
}

/// `x[(i0 + t)·step]`-style output writer: `out[t·step] = v`.
#[inline(always)]
fn put<P>(out: &mut [P], t: usize, step: usize, v: P) {
    out[t * step] = v;
}

/// The `C·K × P` im2col matrix of a [`ConvInput`] under a [`ConvWindow`], never stored.
#[derive(Clone, Copy, Debug)]
pub struct Im2col<'a, T> {
    x: ConvInput<'a, T>,
    w: ConvWindow,
    taps: usize,
    rows: usize,
    /// The columns `col0 .. col0 + cols` of the whole `C·K × P` matrix (`columns`).
    col0: usize,
    cols: usize,
}

impl<'a, T> Im2col<'a, T> {
    /// The implicit im2col of `x` under `w`. `Err` when an element of `x` lies outside its
    /// buffer, a kernel, stride or dilation is 0, or the sizes overflow.
    pub fn new(x: ConvInput<'a, T>, w: ConvWindow) -> Result<Self, GemmError> {
        let oob = GemmError::ViewOutOfBounds {
            rows: x.channels,
            cols: x.lens.iter().product(),
            len: x.data.len(),
        };
        let mut dims = vec![x.channels];
        dims.extend(x.lens);
        let mut strides = vec![x.chan_stride];
        strides.extend(x.strides);
        if !box_inside(x.offset, &dims, &strides, x.data.len()) {
            return Err(oob);
        }
        for a in 0..SPATIAL {
            if w.kernel[a] == 0 || w.strides[a] == 0 || w.dilations[a] == 0 {
                return Err(oob);
            }
            // Every input coordinate `o·s + t·d - pad` fits an isize.
            let reach = w.out[a]
                .saturating_sub(1)
                .checked_mul(w.strides[a])
                .zip((w.kernel[a] - 1).checked_mul(w.dilations[a]))
                .and_then(|(a, b)| a.checked_add(b))
                .filter(|&r| r <= isize::MAX as usize && w.pads[a] <= isize::MAX as usize);
            if reach.is_none() {
                return Err(oob);
            }
        }
        let taps = w.taps();
        let rows = x.channels.checked_mul(taps).ok_or(oob.clone())?;
        let cols = w.out[0]
            .checked_mul(w.out[1])
            .and_then(|n| n.checked_mul(w.out[2]))
            .ok_or(oob)?;
        Ok(Im2col {
            x,
            w,
            taps,
            rows,
            col0: 0,
            cols,
        })
    }

    /// The input, the window and the first column of this matrix (gemm/shifted.rs).
    pub(super) fn parts(&self) -> (ConvInput<'a, T>, ConvWindow, usize) {
        (self.x, self.w, self.col0)
    }

    /// Columns `j0 .. j0 + n` of this matrix (clamped to its columns): the output positions
    /// of one chunk, so that a product's packed `B` block fits in L2 (conv.rs).
    pub fn columns(&self, j0: usize, n: usize) -> Self {
        let j0 = j0.min(self.cols);
        Im2col {
            x: self.x,
            w: self.w,
            taps: self.taps,
            rows: self.rows,
            col0: self.col0 + j0,
            cols: n.min(self.cols - j0),
        }
    }

    /// Row `i` as `(channel, kernel index per axis)`.
    #[inline(always)]
    fn row_at(&self, i: usize) -> (usize, [usize; SPATIAL]) {
        let (c, tap) = (i / self.taps, i % self.taps);
        let k = &self.w.kernel;
        (c, [tap / (k[1] * k[2]), tap / k[2] % k[1], tap % k[2]])
    }

    /// `t·dilation - pad` per axis for the kernel index `t`: input index = `o·stride + it`.
    #[inline(always)]
    fn shifts(&self, tap: [usize; SPATIAL]) -> [isize; SPATIAL] {
        // Fits: `new` checked `(k - 1)·d` and `pad` against isize::MAX.
        core::array::from_fn(|a| (tap[a] * self.w.dilations[a]) as isize - self.w.pads[a] as isize)
    }

    /// The input index of output index `o` on axis `a`, if inside the input.
    #[inline(always)]
    fn input_index(&self, a: usize, o: usize, shift: isize) -> Option<usize> {
        let i = (o * self.w.strides[a]) as isize + shift;
        (i >= 0 && (i as usize) < self.x.lens[a]).then_some(i as usize)
    }
}

impl<T: Convert<P> + Sync, P: Copy + Default> PackSource<P> for Im2col<'_, T> {
    #[inline]
    fn rows(&self) -> usize {
        self.rows
    }
    #[inline]
    fn cols(&self) -> usize {
        self.cols
    }

    fn get(&self, i: usize, j: usize) -> P {
        let (c, tap) = self.row_at(i);
        let shift = self.shifts(tap);
        let o = &self.w.out;
        let j = self.col0 + j;
        let pos = [j / (o[1] * o[2]), j / o[2] % o[1], j % o[2]];
        // Every partial sum of the index lies between the corners of `new`'s box, so
        // none overflows.
        let mut idx = self.x.offset as isize + c as isize * self.x.chan_stride;
        for a in 0..SPATIAL {
            match self.input_index(a, pos[a], shift[a]) {
                Some(y) => idx += y as isize * self.x.strides[a],
                None => return P::default(),
            }
        }
        // In bounds: `c < channels` and each `y < lens` (checked by `new`'s box).
        self.x.data[idx as usize].convert()
    }

    /// Output positions `j0 .. j0 + len` of row `i`, one output row (the last axis) at a
    /// time: the window's input row is found once, then the positions left of the input,
    /// inside it and right of it are three runs (zeros, a strided copy, zeros).
    fn read_row(&self, i: usize, j0: usize, len: usize, out: &mut [P], step: usize) {
        self.walk_row(i, (j0, len), |t, run| match run {
            Run::Zeros(n) => {
                for u in t..t + n {
                    put(out, u, step, P::default());
                }
            }
            Run::Copy(src, walk) => {
                if walk == 1 && step == 1 {
                    for (d, v) in out[t..t + src.len()].iter_mut().zip(src) {
                        *d = v.convert();
                    }
                } else {
                    for (u, v) in src.iter().step_by(walk).enumerate() {
                        put(out, t + u, step, v.convert());
                    }
                }
            }
        });
    }

    /// As `read_row`, into `pack_b`'s panels: each run split where a panel ends.
    fn read_row_panels(
        &self,
        i: usize,
        cols: (usize, usize),
        nr: usize,
        out: &mut [P],
        panel_stride: usize,
    ) {
        // Position `t` of the row is `out[(t / nr)·panel_stride + t % nr]`.
        // The runs come in order and cover the row, so a cursor (panel, column in it)
        // follows them without a division per run.
        let (mut panel, mut col) = (0usize, 0usize);
        self.walk_row(i, cols, |_, run| {
            let (mut n, mut src, walk) = match run {
                Run::Zeros(n) => (n, None, 0),
                Run::Copy(src, walk) => (src.len().div_ceil(walk), Some(src), walk),
            };
            while n > 0 {
                let m = n.min(nr - col);
                let d = panel * panel_stride + col;
                match src {
                    None => out[d..d + m].fill(P::default()),
                    Some(run) if walk == 1 => {
                        for (o, v) in out[d..d + m].iter_mut().zip(&run[..m]) {
                            *o = v.convert();
                        }
                    }
                    Some(run) => {
                        for (o, v) in out[d..d + m].iter_mut().zip(run.iter().step_by(walk)) {
                            *o = v.convert();
                        }
                    }
                }
                src = src.map(|run| &run[(m * walk).min(run.len())..]);
                n -= m;
                col += m;
                if col == nr {
                    (panel, col) = (panel + 1, 0);
                }
            }
        });
    }
}

/// A run of positions of an im2col row (`Im2col::walk_row`).
enum Run<'a, T> {
    /// This many positions in the padding.
    Zeros(usize),
    /// Positions reading `src[0], src[walk], …` (`src` ends at the last one read).
    Copy(&'a [T], usize),
}

impl<T> Im2col<'_, T> {
    /// Walks positions `j0 .. j0 + len` of row `i` as runs, one output row (the last
    /// spatial axis) at a time, calling `sink(t, run)` for the run starting at the walk's
    /// `t`-th position. The window's input row is found once
    /// per output row, and the positions left of the input, inside it and right of it are
    /// three runs.
    #[inline(always)]
    fn walk_row(
        &self,
        i: usize,
        (j0, len): (usize, usize),
        mut sink: impl FnMut(usize, Run<'_, T>),
    ) {
        if len == 0 {
            return;
        }
        let (c, tap) = self.row_at(i);
        let shift = self.shifts(tap);
        let o = self.w.out;
        let j0 = self.col0 + j0;
        let (mut oz, mut oy, mut ox) = (j0 / (o[1] * o[2]), j0 / o[2] % o[1], j0 % o[2]);
        let (s, xs) = (self.w.strides[2], self.x.strides[2]);
        // Output indices along the last axis whose input index is inside `0..lens[2]`.
        let first_in = if shift[2] >= 0 {
            0
        } else {
            shift[2].unsigned_abs().div_ceil(s)
        };
        let top = self.x.lens[2] as isize - 1 - shift[2];
        let end_in = if top < 0 { 0 } else { top as usize / s + 1 };
        let walk = s as isize * xs;
        let mut t = 0;
        while t < len {
            let run = (o[2] - ox).min(len - t);
            let row = self
                .input_index(0, oz, shift[0])
                .zip(self.input_index(1, oy, shift[1]));
            let (lo, hi) = match row {
                Some(_) => (first_in.clamp(ox, ox + run), end_in.clamp(ox, ox + run)),
                None => (ox + run, ox + run),
            };
            // No position inside the input (`first_in ≥ end_in`): all zeros.
            let hi = hi.max(lo);
            if lo > ox {
                sink(t, Run::Zeros(lo - ox));
            }
            if let (Some((y0, y1)), true) = (row, hi > lo) {
                // Every partial sum lies between the corners of `new`'s box (no overflow).
                let base = self.x.offset as isize
                    + c as isize * self.x.chan_stride
                    + y0 as isize * self.x.strides[0]
                    + y1 as isize * self.x.strides[1];
                // The input indices of `lo` and of `hi - 1` on the last axis are in
                // `0..lens[2]`: every index read is inside the box `new` checked.
                let first = base + ((lo * s) as isize + shift[2]) * xs;
                let last = first + (hi - lo - 1) as isize * walk;
                let dst = t + (lo - ox);
                if walk > 0 {
                    sink(
                        dst,
                        Run::Copy(&self.x.data[first as usize..=last as usize], walk as usize),
                    );
                } else {
                    // A negative or zero walk (a flipped or broadcast input): one by one.
                    for u in 0..hi - lo {
                        let idx = (first + u as isize * walk) as usize;
                        sink(dst + u, Run::Copy(&self.x.data[idx..=idx], 1));
                    }
                }
            }
            if ox + run > hi {
                sink(t + (hi - ox), Run::Zeros(ox + run - hi));
            }
            t += run;
            ox += run;
            if ox == o[2] {
                ox = 0;
                oy += 1;
                if oy == o[1] {
                    oy = 0;
                    oz += 1;
                }
            }
        }
    }
}

/// The weight `[O, C, k0, k1, k2]` of one group read as the `O × C·K` matrix `A`, through
/// any strides: element `(o, (c, t0, t1, t2))` at `data[offset + o·row_stride + c·s0 +
/// t0·s1 + t1·s2 + t2·s3]`.
#[derive(Clone, Copy, Debug)]
pub struct ConvWeights<'a, T> {
    data: &'a [T],
    offset: usize,
    rows: usize,
    row_stride: isize,
    dims: [usize; 4],
    strides: [isize; 4],
    cols: usize,
}

impl<'a, T> ConvWeights<'a, T> {
    /// `rows` output channels of the weight at `offset`; `dims` are `[C, k0, k1, k2]`.
    /// `Err` when an element lies outside `data` or the sizes overflow.
    pub fn new(
        data: &'a [T],
        offset: usize,
        (rows, row_stride): (usize, isize),
        dims: [usize; 4],
        strides: [isize; 4],
    ) -> Result<Self, GemmError> {
        let cols = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        let oob = GemmError::ViewOutOfBounds {
            rows,
            cols: cols.unwrap_or(usize::MAX),
            len: data.len(),
        };
        let cols = cols.ok_or(oob.clone())?;
        let all_dims = [rows, dims[0], dims[1], dims[2], dims[3]];
        let all_strides = [row_stride, strides[0], strides[1], strides[2], strides[3]];
        if !box_inside(offset, &all_dims, &all_strides, data.len()) {
            return Err(oob);
        }
        Ok(ConvWeights {
            data,
            offset,
            rows,
            row_stride,
            dims,
            strides,
            cols,
        })
    }

    /// Column `j` as its index per weight axis.
    #[inline(always)]
    fn col_at(&self, j: usize) -> [usize; 4] {
        let d = &self.dims;
        let mut rest = j;
        let mut at = [0; 4];
        for a in (0..4).rev() {
            at[a] = rest % d[a];
            rest /= d[a];
        }
        at
    }

    #[inline(always)]
    fn index(&self, i: usize, at: [usize; 4]) -> usize {
        let mut idx = self.offset as isize + i as isize * self.row_stride;
        for (&t, &s) in at.iter().zip(&self.strides) {
            idx += t as isize * s;
        }
        idx as usize
    }
}

impl<T: Convert<P> + Sync, P> PackSource<P> for ConvWeights<'_, T> {
    #[inline]
    fn rows(&self) -> usize {
        self.rows
    }
    #[inline]
    fn cols(&self) -> usize {
        self.cols
    }
    fn get(&self, i: usize, j: usize) -> P {
        // In bounds: `i < rows`, `j < cols` name an element of `new`'s box.
        self.data[self.index(i, self.col_at(j))].convert()
    }
    /// Runs along the last weight axis, the index carried across the others (no division
    /// per element).
    fn read_row(&self, i: usize, j0: usize, len: usize, out: &mut [P], step: usize) {
        if len == 0 {
            return;
        }
        let mut at = self.col_at(j0);
        let last = self.dims[3];
        let mut t = 0;
        while t < len {
            let run = (last - at[3]).min(len - t);
            let start = self.index(i, at) as isize;
            for u in 0..run {
                let idx = (start + u as isize * self.strides[3]) as usize;
                put(out, t + u, step, self.data[idx].convert());
            }
            t += run;
            at[3] = 0;
            for a in (0..3).rev() {
                at[a] += 1;
                if at[a] < self.dims[a] {
                    break;
                }
                at[a] = 0;
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The convolution by its definition, in f64: `out[o, p] = Σ_{c, t} w[o, c, t] ·
    /// x[c, p·s + t·d - pad]` (zero outside the input).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::gemm) fn reference(
        x: &[f64],
        (c, lens): (usize, [usize; 3]),
        w: &[f64],
        o: usize,
        win: &ConvWindow,
    ) -> Vec<f64> {
        let k = win.kernel;
        let p_total = win.positions();
        let mut out = vec![0.0; o * p_total];
        for oc in 0..o {
            for p in 0..p_total {
                let pos = [
                    p / (win.out[1] * win.out[2]),
                    p / win.out[2] % win.out[1],
                    p % win.out[2],
                ];
                let mut acc = 0.0;
                for ci in 0..c {
                    for t0 in 0..k[0] {
                        for t1 in 0..k[1] {
                            for t2 in 0..k[2] {
                                let t = [t0, t1, t2];
                                let mut inside = true;
                                let mut idx = ci;
                                for a in 0..3 {
                                    let y = (pos[a] * win.strides[a]) as isize
                                        + (t[a] * win.dilations[a]) as isize
                                        - win.pads[a] as isize;
                                    inside &= y >= 0 && (y as usize) < lens[a];
                                    idx = idx * lens[a] + y.max(0) as usize;
                                }
                                if inside {
                                    let wi = (((oc * c + ci) * k[0] + t0) * k[1] + t1) * k[2] + t2;
                                    acc += w[wi] * x[idx];
                                }
                            }
                        }
                    }
                }
                out[oc * p_total + p] = acc;
            }
        }
        out
    }

    /// A deterministic value stream (no dependency on a random crate).
    pub(in crate::gemm) fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    fn out_len(len: usize, k: usize, s: usize, d: usize, pb: usize, pe: usize) -> usize {
        (len + pb + pe - (k - 1) * d - 1) / s + 1
    }

    /// Convolutions of odd sizes, padding at every edge, strides and dilations, 1-D to
    /// 3-D, through the engine with both sources, against `reference`.
    #[test]
    fn conv_im2col_matches_the_definition() {
        #[allow(clippy::type_complexity)]
        let cases: &[(
            [usize; 3],
            [usize; 3],
            [usize; 3],
            [usize; 3],
            [usize; 3],
            usize,
            usize,
        )] = &[
            // lens, kernel, strides, dilations, pads (begin = end), C, O
            ([1, 1, 7], [1, 1, 3], [1, 1, 1], [1, 1, 1], [0, 0, 1], 3, 2),
            ([1, 5, 6], [1, 3, 3], [1, 1, 1], [1, 1, 1], [0, 1, 1], 4, 5),
            ([1, 9, 7], [1, 3, 2], [1, 2, 3], [1, 1, 2], [0, 2, 1], 2, 3),
            ([1, 4, 4], [1, 5, 5], [1, 1, 1], [1, 1, 1], [0, 2, 2], 1, 1),
            ([3, 4, 5], [2, 3, 2], [1, 2, 1], [2, 1, 1], [1, 1, 0], 2, 3),
            ([1, 1, 1], [1, 3, 3], [1, 1, 1], [1, 1, 1], [0, 1, 1], 3, 2),
            (
                [1, 13, 11],
                [1, 3, 3],
                [1, 1, 1],
                [1, 1, 1],
                [0, 1, 1],
                5,
                17,
            ),
        ];
        for (n, &(lens, kernel, strides, dilations, pads, c, o)) in cases.iter().enumerate() {
            let out: [usize; 3] = core::array::from_fn(|a| {
                out_len(
                    lens[a],
                    kernel[a],
                    strides[a],
                    dilations[a],
                    pads[a],
                    pads[a],
                )
            });
            let win = ConvWindow {
                kernel,
                strides,
                dilations,
                pads,
                out,
            };
            let xn = c * lens.iter().product::<usize>();
            let k = kernel.iter().product::<usize>();
            let x = values(xn, n as u64 + 1);
            let w = values(o * c * k, n as u64 + 100);
            let want = reference(&x, (c, lens), &w, o, &win);
            // Inside a larger buffer at an offset, to exercise the box check.
            let mut xbuf = vec![f64::NAN; 3];
            xbuf.extend(&x);
            let input = ConvInput {
                data: &xbuf[..],
                offset: 3,
                channels: c,
                chan_stride: (lens[0] * lens[1] * lens[2]) as isize,
                lens,
                strides: [(lens[1] * lens[2]) as isize, lens[2] as isize, 1],
            };
            let b = Im2col::new(input, win).expect("in bounds");
            let wstrides = [
                (k) as isize,
                (kernel[1] * kernel[2]) as isize,
                kernel[2] as isize,
                1,
            ];
            let a = ConvWeights::new(
                &w,
                0,
                (o, (c * k) as isize),
                [c, kernel[0], kernel[1], kernel[2]],
                wstrides,
            )
            .expect("in bounds");
            let p = win.positions();
            let mut got = vec![0.0f64; o * p];
            crate::gemm::matmul_f64(&a, &b, &mut got, p).expect("shapes");
            for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - r).abs() <= 1e-12 * (1.0 + r.abs()),
                    "case {n}, element {i}: {g} vs {r}"
                );
            }
            // And element by element through `get` and short `read_row` runs.
            for i in 0..b.rows() {
                let mut row = vec![0.0f64; p];
                let mut j = 0;
                while j < p {
                    let len = (p - j).min(5);
                    PackSource::<f64>::read_row(&b, i, j, len, &mut row[j..], 1);
                    j += len;
                }
                for (j, v) in row.iter().enumerate() {
                    let g: f64 = b.get(i, j);
                    assert_eq!(g.to_bits(), v.to_bits(), "case {n}, ({i}, {j})");
                }
            }
            // And into panels of odd widths, from an odd start (`pack_b`'s order).
            for nr in [3, 7] {
                let (j0, len) = (p.min(2), p - p.min(2));
                let stride = 2 * nr;
                for i in 0..b.rows() {
                    let mut panels = vec![f64::NAN; len.div_ceil(nr) * stride];
                    PackSource::<f64>::read_row_panels(&b, i, (j0, len), nr, &mut panels, stride);
                    for t in 0..len {
                        let g: f64 = b.get(i, j0 + t);
                        let v = panels[(t / nr) * stride + t % nr];
                        assert_eq!(g.to_bits(), v.to_bits(), "case {n}, nr {nr}, ({i}, {t})");
                    }
                }
            }
            // A window of columns reads the same elements.
            let part = b.columns(p / 3, p / 2);
            for i in 0..b.rows() {
                for j in 0..PackSource::<f64>::cols(&part) {
                    let (g, v): (f64, f64) = (part.get(i, j), b.get(i, p / 3 + j));
                    assert_eq!(g.to_bits(), v.to_bits(), "case {n}, columns ({i}, {j})");
                }
            }
            // The f32 engine too (tolerance of f32 sums).
            let (x32, w32): (Vec<f32>, Vec<f32>) = (
                xbuf.iter().map(|&v| v as f32).collect(),
                w.iter().map(|&v| v as f32).collect(),
            );
            let input32 = ConvInput {
                data: &x32[..],
                offset: input.offset,
                channels: input.channels,
                chan_stride: input.chan_stride,
                lens: input.lens,
                strides: input.strides,
            };
            let b32 = Im2col::new(input32, win).expect("in bounds");
            let a32 = ConvWeights::new(
                &w32,
                0,
                (o, (c * k) as isize),
                [c, kernel[0], kernel[1], kernel[2]],
                wstrides,
            )
            .expect("in bounds");
            let mut got32 = vec![0.0f32; o * p];
            crate::gemm::matmul_f32(&a32, &b32, &mut got32, p).expect("shapes");
            for (g, r) in got32.iter().zip(&want) {
                let bound = 1e-5 * (c * k) as f64;
                assert!((*g as f64 - r).abs() <= bound, "case {n}: {g} vs {r}");
            }
        }
    }

    /// The runtime entry (`ConvGemm`) cuts the output positions into chunks when `k` is
    /// long (here 256 columns of 576 positions; under Miri 64) and starts at a row of a larger block:
    /// the same values as the definition, and nothing outside the call's rows written. With
    /// a strided bias (every other element, from the call's first channel), each element
    /// is the same sum plus its channel's bias.
    #[test]
    fn conv_gemm_chunks_match_the_definition() {
        use crate::conv::{ConvBiasAt, ConvGemm, ConvInputAt, ConvWeightAt};
        // Miri: 4 channels (its chunks are 64 positions, conv.rs `B_BLOCK_BYTES`).
        let c = if cfg!(miri) { 4 } else { 64 };
        let (o, lens) = (3, [1, 24, 24]);
        let win = ConvWindow {
            kernel: [1, 3, 3],
            strides: [1, 1, 1],
            dilations: [1, 1, 1],
            pads: [0, 1, 1],
            out: [1, 24, 24],
        };
        let x = values(c * 576, 7);
        let w = values(o * c * 9, 8);
        let want = reference(&x, (c, lens), &w, o, &win);
        let p = win.positions();
        // Rows 1..3 of the weight into rows 1..3 of a 4-row block.
        let mut out = vec![f64::NAN; 4 * p];
        let bias = [0.0, 0.0, 0.25, f64::NAN, -1.5];
        let mut biased = vec![f64::NAN; 4 * p];
        let call = |bias: Option<(&[f64], ConvBiasAt)>, out: &mut [f64]| {
            f64::conv_gemm(
                &w,
                ConvWeightAt {
                    offset: c * 9,
                    row_stride: (c * 9) as isize,
                    col_dims: [c, 1, 3, 3],
                    col_strides: [9, 9, 3, 1],
                },
                &x,
                ConvInputAt {
                    offset: 0,
                    chan_stride: 576,
                    lens,
                    strides: [576, 24, 1],
                },
                win,
                bias,
                out,
                p,
                (2, p, c * 9),
                false,
            )
        };
        call(None, &mut out);
        call(
            Some((
                &bias,
                ConvBiasAt {
                    offset: 2,
                    stride: 2,
                },
            )),
            &mut biased,
        );
        assert!(out[..p].iter().chain(&out[3 * p..]).all(|v| v.is_nan()));
        assert!(biased[..p]
            .iter()
            .chain(&biased[3 * p..])
            .all(|v| v.is_nan()));
        for (i, (g, r)) in out[p..3 * p].iter().zip(&want[p..]).enumerate() {
            assert!(
                (g - r).abs() <= 1e-12 * (1.0 + r.abs()),
                "element {i}: {g} vs {r}"
            );
            let b = [0.25, -1.5][i / p];
            assert_eq!(
                biased[p + i].to_bits(),
                (g + b).to_bits(),
                "biased element {i}"
            );
        }
    }

    /// A view that would reach outside its buffer is refused, for the input and the
    /// weight, and a zero stride or kernel is refused.
    #[test]
    fn conv_sources_refuse_views_outside_their_buffers() {
        let data = vec![0.0f32; 2 * 4 * 4];
        let win = ConvWindow {
            kernel: [1, 3, 3],
            strides: [1, 1, 1],
            dilations: [1, 1, 1],
            pads: [0, 1, 1],
            out: [1, 4, 4],
        };
        let x = ConvInput {
            data: &data[..],
            offset: 0,
            channels: 2,
            chan_stride: 16,
            lens: [1, 4, 4],
            strides: [16, 4, 1],
        };
        assert!(Im2col::new(x, win).is_ok());
        assert!(Im2col::new(ConvInput { offset: 1, ..x }, win).is_err());
        assert!(Im2col::new(ConvInput { channels: 3, ..x }, win).is_err());
        assert!(Im2col::new(
            ConvInput {
                chan_stride: -16,
                ..x
            },
            win
        )
        .is_err());
        assert!(Im2col::new(
            x,
            ConvWindow {
                strides: [1, 0, 1],
                ..win
            }
        )
        .is_err());
        assert!(Im2col::new(
            x,
            ConvWindow {
                kernel: [0, 3, 3],
                ..win
            }
        )
        .is_err());
        assert!(ConvWeights::new(&data[..], 0, (2, 16), [1, 1, 4, 4], [16, 16, 4, 1]).is_ok());
        assert!(ConvWeights::new(&data[..], 1, (2, 16), [1, 1, 4, 4], [16, 16, 4, 1]).is_err());
        assert!(ConvWeights::new(&data[..], 0, (3, 16), [1, 1, 4, 4], [16, 16, 4, 1]).is_err());
    }
}
