//! Operands as the packers read them: strided views ([`MatRef`]) and computed elements
//! ([`FnSource`]), both converting to the packed type on the way (the prologue).

use super::GemmError;
use crate::dtype::{bf16, f16};

/// The conversion applied to every operand element while it is packed.
///
/// Floats widen exactly (`f16`/`bf16` → `f32` → `f64`); integers convert to the `i32` or
/// `i64` lanes with wrapping (`as`), which is exact for the types each integer entry point
/// sends there and gives the modular result the `acc = i32` option promises otherwise.
pub trait Convert<P>: Copy {
    /// The packed value.
    fn convert(self) -> P;

    /// `s` itself when `Self` is `P` (no conversion): small products then read the
    /// operand in place instead of packing it.
    #[inline]
    fn as_packed(s: &[Self]) -> Option<&[P]> {
        let _ = s;
        None
    }
}

macro_rules! convert_identity {
    ($($t:ty),*) => {$(
        impl Convert<$t> for $t {
            #[inline(always)]
            fn convert(self) -> $t {
                self
            }
            #[inline]
            fn as_packed(s: &[$t]) -> Option<&[$t]> {
                Some(s)
            }
        }
    )*};
}
convert_identity!(f32, f64, i32, i64);

macro_rules! convert_as {
    ($p:ty: $($t:ty),*) => {$(
        impl Convert<$p> for $t {
            #[inline(always)]
            fn convert(self) -> $p {
                self as $p
            }
        }
    )*};
}
convert_as!(f64: f32);
convert_as!(i32: i8, u8, i16, u16, u32, i64, u64);
convert_as!(i64: i8, u8, i16, u16, i32, u32, u64);

impl Convert<f32> for f16 {
    #[inline(always)]
    fn convert(self) -> f32 {
        self.to_f32()
    }
}
impl Convert<f32> for bf16 {
    #[inline(always)]
    fn convert(self) -> f32 {
        self.to_f32()
    }
}
impl Convert<f64> for f16 {
    #[inline(always)]
    fn convert(self) -> f64 {
        self.to_f64()
    }
}
impl Convert<f64> for bf16 {
    #[inline(always)]
    fn convert(self) -> f64 {
        self.to_f64()
    }
}

/// A `rows × cols` operand whose elements the packers read as `P`.
///
/// `read_row` and `read_col` have defaults through [`get`](PackSource::get); a source
/// overrides them when it can read a run faster (contiguous slices).
pub trait PackSource<P>: Sync {
    /// Rows.
    fn rows(&self) -> usize;
    /// Columns.
    fn cols(&self) -> usize;
    /// Element `(i, j)`, converted; called only with `i < rows`, `j < cols`.
    fn get(&self, i: usize, j: usize) -> P;

    /// Writes elements `(i, j0 + t)` for `t < len` to `out[t * step]`.
    #[inline]
    fn read_row(&self, i: usize, j0: usize, len: usize, out: &mut [P], step: usize) {
        for (t, o) in out.iter_mut().step_by(step).take(len).enumerate() {
            *o = self.get(i, j0 + t);
        }
    }

    /// Writes elements `(i0 + t, j)` for `t < len` to `out[t * step]`.
    #[inline]
    fn read_col(&self, i0: usize, j: usize, len: usize, out: &mut [P], step: usize) {
        for (t, o) in out.iter_mut().step_by(step).take(len).enumerate() {
            *o = self.get(i0 + t, j);
        }
    }

    /// Writes elements `(i, j0 + t)` for `t < len` to `out[(t / nr)·panel_stride + t % nr]`:
    /// one row across consecutive `nr`-wide panels, the order `pack_b` packs a row-major
    /// `B` in. The default reads each panel's run with [`read_row`](PackSource::read_row);
    /// a source whose position arithmetic is costly per call overrides it (the implicit
    /// im2col finds each element's window once per row, not once per panel).
    #[inline]
    fn read_row_panels(
        &self,
        i: usize,
        (j0, len): (usize, usize),
        nr: usize,
        out: &mut [P],
        panel_stride: usize,
    ) {
        for q in 0..len.div_ceil(nr) {
            let cols = nr.min(len - q * nr);
            self.read_row(i, j0 + q * nr, cols, &mut out[q * panel_stride..], 1);
        }
    }

    /// Whether runs along a row are cheaper to read than runs down a column (true for
    /// row-major data).
    #[inline]
    fn rows_are_contiguous(&self) -> bool {
        true
    }

    /// Writes elements `(i0 + t, j0 + j)` for `j < cols`, `t < len` to `out[t·step + j]`:
    /// the transposing copy that packs the panels of a `B` whose columns are contiguous
    /// (a transposed weight, `G·Wᵀ`), `cols ≤ step`. The default reads each column once.
    #[inline]
    fn read_col_panel(
        &self,
        (i0, len): (usize, usize),
        (j0, cols): (usize, usize),
        out: &mut [P],
        step: usize,
    ) {
        for j in 0..cols {
            self.read_col(i0, j0 + j, len, &mut out[j..], step);
        }
    }

    /// The operand as a strided view of packed-type values, when it is one (a `MatRef`
    /// of `P` itself): small products read it in place. Only a `MatRef` can make one.
    #[doc(hidden)]
    #[inline]
    fn direct(&self) -> Option<Direct<'_, P>> {
        None
    }

    /// Writes elements `(i0 + i, j0 + t)` for `i < rows`, `t < len` to
    /// `out[t·step + i]`: the transposing copy that packs `A`'s panels (`rows ≤ step`).
    #[inline]
    fn read_panel(
        &self,
        (i0, rows): (usize, usize),
        (j0, len): (usize, usize),
        out: &mut [P],
        step: usize,
    ) {
        if self.rows_are_contiguous() {
            for i in 0..rows {
                self.read_row(i0 + i, j0, len, &mut out[i..], step);
            }
        } else {
            for (t, run) in out.chunks_mut(step).take(len).enumerate() {
                self.read_col(i0, j0 + t, rows, run, 1);
            }
        }
    }
}

impl<P, S: PackSource<P> + ?Sized> PackSource<P> for &S {
    #[inline]
    fn rows(&self) -> usize {
        (**self).rows()
    }
    #[inline]
    fn cols(&self) -> usize {
        (**self).cols()
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> P {
        (**self).get(i, j)
    }
    #[inline]
    fn read_row(&self, i: usize, j0: usize, len: usize, out: &mut [P], step: usize) {
        (**self).read_row(i, j0, len, out, step)
    }
    #[inline]
    fn read_col(&self, i0: usize, j: usize, len: usize, out: &mut [P], step: usize) {
        (**self).read_col(i0, j, len, out, step)
    }
    #[inline]
    fn read_row_panels(
        &self,
        i: usize,
        cols: (usize, usize),
        nr: usize,
        out: &mut [P],
        panel_stride: usize,
    ) {
        (**self).read_row_panels(i, cols, nr, out, panel_stride)
    }
    #[inline]
    fn rows_are_contiguous(&self) -> bool {
        (**self).rows_are_contiguous()
    }
    #[inline]
    fn read_panel(&self, rows: (usize, usize), cols: (usize, usize), out: &mut [P], step: usize) {
        (**self).read_panel(rows, cols, out, step)
    }
    #[inline]
    fn read_col_panel(
        &self,
        rows: (usize, usize),
        cols: (usize, usize),
        out: &mut [P],
        step: usize,
    ) {
        (**self).read_col_panel(rows, cols, out, step)
    }
    #[inline]
    fn direct(&self) -> Option<Direct<'_, P>> {
        (**self).direct()
    }
}

/// A strided matrix view: element `(i, j)` is `data[offset + i·row_stride + j·col_stride]`.
///
/// Strides are in elements and may be negative or zero (a broadcast); the constructor checks
/// that every index of the view lies inside `data`, so reading never fails afterwards.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a, T> {
    data: &'a [T],
    rows: usize,
    cols: usize,
    row_stride: isize,
    col_stride: isize,
    offset: usize,
}

impl<'a, T> MatRef<'a, T> {
    /// A view of `data`; `Err` if some element of the view falls outside `data` or the
    /// index arithmetic overflows. An empty view (`rows` or `cols` 0) is always valid.
    pub fn new(
        data: &'a [T],
        rows: usize,
        cols: usize,
        row_stride: isize,
        col_stride: isize,
        offset: usize,
    ) -> Result<Self, GemmError> {
        let view = MatRef {
            data,
            rows,
            cols,
            row_stride,
            col_stride,
            offset,
        };
        if rows == 0 || cols == 0 {
            return Ok(view);
        }
        let oob = GemmError::ViewOutOfBounds {
            rows,
            cols,
            len: data.len(),
        };
        // The extreme indices are at the corners; i128 cannot overflow for usize/isize
        // operands of 64 bits.
        let span = |n: usize, s: isize| -> (i128, i128) {
            let last = (n as i128 - 1) * s as i128;
            (last.min(0), last.max(0))
        };
        let (r_lo, r_hi) = span(rows, row_stride);
        let (c_lo, c_hi) = span(cols, col_stride);
        let lo = offset as i128 + r_lo + c_lo;
        let hi = offset as i128 + r_hi + c_hi;
        if lo < 0 || hi >= data.len() as i128 {
            return Err(oob);
        }
        Ok(view)
    }

    /// A row-major `rows × cols` view of the start of `data` (row stride `cols`).
    pub fn row_major(data: &'a [T], rows: usize, cols: usize) -> Result<Self, GemmError> {
        let stride = isize::try_from(cols).map_err(|_| GemmError::ViewOutOfBounds {
            rows,
            cols,
            len: data.len(),
        })?;
        Self::new(data, rows, cols, stride, 1, 0)
    }

    /// The transpose, as a view of the same data.
    pub fn t(self) -> Self {
        MatRef {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    /// Rows.
    pub fn nrows(&self) -> usize {
        self.rows
    }

    /// Columns.
    pub fn ncols(&self) -> usize {
        self.cols
    }

    /// The index of `(i, j)` in `data`; in bounds for `i < rows`, `j < cols` (checked by
    /// `new`), and the slice indexing that uses it checks again.
    #[inline(always)]
    fn index(&self, i: usize, j: usize) -> usize {
        (self.offset as isize + i as isize * self.row_stride + j as isize * self.col_stride)
            as usize
    }

    /// Reads `len` elements from `(i, j)` stepping by `stride` in `data` into `out[t*step]`.
    #[inline(always)]
    fn read_run<P>(&self, start: usize, stride: isize, len: usize, out: &mut [P], step: usize)
    where
        T: Convert<P>,
    {
        if len == 0 {
            return;
        }
        if stride == 1 {
            // Contiguous (the common row-major case): one bounds check for the run.
            let src = &self.data[start..start + len];
            if step == 1 {
                for (o, x) in out[..len].iter_mut().zip(src) {
                    *o = x.convert();
                }
            } else {
                for (o, x) in out.iter_mut().step_by(step).zip(src) {
                    *o = x.convert();
                }
            }
        } else {
            let mut idx = start as isize;
            for o in out.iter_mut().step_by(step).take(len) {
                *o = self.data[idx as usize].convert();
                idx += stride;
            }
        }
    }
}

impl<T: Convert<P> + Sync, P> PackSource<P> for MatRef<'_, T> {
    #[inline]
    fn rows(&self) -> usize {
        self.rows
    }
    #[inline]
    fn cols(&self) -> usize {
        self.cols
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> P {
        self.data[self.index(i, j)].convert()
    }
    #[inline]
    fn read_row(&self, i: usize, j0: usize, len: usize, out: &mut [P], step: usize) {
        if len > 0 {
            self.read_run(self.index(i, j0), self.col_stride, len, out, step);
        }
    }
    #[inline]
    fn read_col(&self, i0: usize, j: usize, len: usize, out: &mut [P], step: usize) {
        if len > 0 {
            self.read_run(self.index(i0, j), self.row_stride, len, out, step);
        }
    }
    #[inline]
    fn rows_are_contiguous(&self) -> bool {
        self.col_stride.unsigned_abs() <= self.row_stride.unsigned_abs()
    }
    #[inline]
    fn direct(&self) -> Option<Direct<'_, P>> {
        T::as_packed(self.data).map(|data| Direct {
            data,
            rows: self.rows,
            cols: self.cols,
            row_stride: self.row_stride,
            col_stride: self.col_stride,
            offset: self.offset,
        })
    }
    #[inline]
    fn read_col_panel(
        &self,
        rows: (usize, usize),
        (j0, cols): (usize, usize),
        out: &mut [P],
        step: usize,
    ) {
        // The transpose's rows are this view's columns: its panel copy (the 4×4 register
        // transposes) when they are contiguous, at most `PANEL_ROWS` of them at a time.
        let t = self.t();
        for c in (0..cols).step_by(PANEL_ROWS) {
            let width = PANEL_ROWS.min(cols - c);
            t.read_panel_at((j0 + c, width), rows, out, step, c);
        }
    }
    #[inline]
    fn read_panel(&self, rows: (usize, usize), cols: (usize, usize), out: &mut [P], step: usize) {
        self.read_panel_at(rows, cols, out, step, 0);
    }
}

impl<'a, T: Sync> MatRef<'a, T> {
    /// [`PackSource::read_panel`] into columns `at ..` of each step: writes elements
    /// `(i0 + i, j0 + t)` for `i < rows`, `t < len` to `out[t·step + at + i]`
    /// (`at + rows ≤ step`).
    #[inline]
    fn read_panel_at<P>(
        &self,
        (i0, rows): (usize, usize),
        (j0, len): (usize, usize),
        out: &mut [P],
        step: usize,
        at: usize,
    ) where
        T: Convert<P>,
        MatRef<'a, T>: PackSource<P>,
    {
        if self.col_stride != 1 || rows > PANEL_ROWS || len == 0 {
            // Columns contiguous, strided or broadcast: a run down each column.
            for (t, run) in out.chunks_mut(step).take(len).enumerate() {
                self.read_col(i0, j0 + t, rows, &mut run[at..], 1);
            }
            return;
        }
        // Rows contiguous: each row's run sliced once, then the panel written in order,
        // one `k` step (`rows` values, one from each row, all in L1) at a time. Writing in
        // order is what makes this fast: the row-by-row copy strides its writes.
        let mut runs: [&[T]; PANEL_ROWS] = [&[]; PANEL_ROWS];
        for (i, run) in runs.iter_mut().enumerate().take(rows) {
            let start = self.index(i0 + i, j0);
            *run = &self.data[start..start + len];
        }
        let runs = &runs[..rows];
        // Four steps at a time: four values of each row read as one array.
        let quads = len / 4;
        for (u, dst) in out[..quads * 4 * step]
            .chunks_exact_mut(4 * step)
            .enumerate()
        {
            let (d0, rest) = dst.split_at_mut(step);
            let (d1, rest) = rest.split_at_mut(step);
            let (d2, d3) = rest.split_at_mut(step);
            // Four rows at a time: a 4×4 block read as four runs and written as four
            // (a transpose LLVM does in registers, with whole-vector loads and stores:
            // packing A took 4.4% of a 1024³ product with one scalar store per value).
            let mut groups = runs.chunks_exact(4);
            for (g, four) in (&mut groups).enumerate() {
                let x: [[P; 4]; 4] = core::array::from_fn(|r| {
                    let v: &[T; 4] = four[r][4 * u..4 * u + 4].try_into().expect("four values");
                    v.map(|e| e.convert())
                });
                let [[a0, a1, a2, a3], [b0, b1, b2, b3], [c0, c1, c2, c3], [e0, e1, e2, e3]] = x;
                let put = |dst: &mut [P], v: [P; 4]| {
                    for (d, e) in dst.iter_mut().zip(v) {
                        *d = e;
                    }
                };
                let i = at + 4 * g;
                put(&mut d0[i..i + 4], [a0, b0, c0, e0]);
                put(&mut d1[i..i + 4], [a1, b1, c1, e1]);
                put(&mut d2[i..i + 4], [a2, b2, c2, e2]);
                put(&mut d3[i..i + 4], [a3, b3, c3, e3]);
            }
            let first = runs.len() - groups.remainder().len();
            for (i, run) in groups.remainder().iter().enumerate() {
                let x: &[T; 4] = run[4 * u..4 * u + 4].try_into().expect("four values");
                d0[at + first + i] = x[0].convert();
                d1[at + first + i] = x[1].convert();
                d2[at + first + i] = x[2].convert();
                d3[at + first + i] = x[3].convert();
            }
        }
        for t in quads * 4..len {
            for (o, run) in out[t * step + at..t * step + at + rows]
                .iter_mut()
                .zip(runs)
            {
                *o = run[t].convert();
            }
        }
    }
}

/// An operand read in place: a [`MatRef`] whose elements are already of the packed type.
/// Only `MatRef::direct` makes one, so every index `offset + i·row_stride + j·col_stride`
/// with `i < rows`, `j < cols` is inside `data` (checked by `MatRef::new`): the small-product
/// kernels rely on it.
#[derive(Clone, Copy, Debug)]
pub struct Direct<'a, P> {
    data: &'a [P],
    rows: usize,
    cols: usize,
    row_stride: isize,
    col_stride: isize,
    offset: usize,
}

impl<P> Direct<'_, P> {
    /// `(rows, cols)`.
    pub(super) fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
    /// `(row_stride, col_stride)`.
    pub(super) fn strides(&self) -> (isize, isize) {
        (self.row_stride, self.col_stride)
    }
    /// Element `(i, j)`; `i < rows` and `j < cols` (asserted).
    pub(super) fn get(&self, i: usize, j: usize) -> P
    where
        P: Copy,
    {
        assert!(
            i < self.rows && j < self.cols,
            "Direct::get outside the view"
        );
        let idx =
            self.offset as isize + i as isize * self.row_stride + j as isize * self.col_stride;
        self.data[idx as usize]
    }

    /// Elements `(i, j0..j0 + len)` of a view with unit column stride, as a slice
    /// (asserted: the stride, and the run inside the view).
    pub(super) fn row_run(&self, i: usize, j0: usize, len: usize) -> &[P] {
        assert!(
            self.col_stride == 1 && i < self.rows && j0 + len <= self.cols,
            "Direct::row_run outside the view"
        );
        let idx = (self.offset as isize + i as isize * self.row_stride + j0 as isize) as usize;
        &self.data[idx..idx + len]
    }

    /// Rows `i0 .. i0 + rows`, columns `j0 .. j0 + cols` of the view (asserted inside it),
    /// as a view.
    pub(super) fn block(self, (i0, rows): (usize, usize), (j0, cols): (usize, usize)) -> Self {
        assert!(
            i0 + rows <= self.rows && j0 + cols <= self.cols,
            "Direct::block outside the view"
        );
        if rows == 0 || cols == 0 {
            return Direct { rows, cols, ..self };
        }
        let offset =
            self.offset as isize + i0 as isize * self.row_stride + j0 as isize * self.col_stride;
        Direct {
            rows,
            cols,
            offset: offset as usize,
            ..self
        }
    }

    /// The transpose, a view of the same elements.
    pub(super) fn t(self) -> Self {
        Direct {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    /// A pointer to element `(i, j)`; `i < rows` and `j < cols` (asserted), so it is
    /// inside `data`, as is every `(i', j')` within the dims.
    pub(super) fn at(&self, i: usize, j: usize) -> *const P {
        assert!(
            i < self.rows && j < self.cols,
            "Direct::at outside the view"
        );
        let idx =
            self.offset as isize + i as isize * self.row_stride + j as isize * self.col_stride;
        &self.data[idx as usize]
    }
}

/// Both operands as views read in place, when both are (a `MatRef` of `P`) and `B`'s
/// columns are contiguous: what the products that skip packing (`small`, `few_rows`) read.
pub(super) fn direct_pair<'a, P>(
    a: &'a impl PackSource<P>,
    b: &'a impl PackSource<P>,
) -> Option<(Direct<'a, P>, Direct<'a, P>)> {
    let (da, db) = (a.direct()?, b.direct()?);
    (db.strides().1 == 1).then_some((da, db))
}

/// The most rows [`MatRef`]'s fast `read_panel` takes (the tallest micro-tile is 14).
const PANEL_ROWS: usize = 16;

/// An operand whose element `(i, j)` is `f(i, j)`: the prologue for anything a strided view
/// cannot say (dequantize with per-row scales, a fused elementwise producer).
#[derive(Clone, Copy, Debug)]
pub struct FnSource<F> {
    rows: usize,
    cols: usize,
    f: F,
}

impl<F> FnSource<F> {
    /// A `rows × cols` operand computed by `f`; `f` is called only with `i < rows`,
    /// `j < cols`, in no particular order and possibly from several threads.
    pub fn new(rows: usize, cols: usize, f: F) -> Self {
        FnSource { rows, cols, f }
    }
}

impl<P, F: Fn(usize, usize) -> P + Sync> PackSource<P> for FnSource<F> {
    #[inline]
    fn rows(&self) -> usize {
        self.rows
    }
    #[inline]
    fn cols(&self) -> usize {
        self.cols
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> P {
        (self.f)(i, j)
    }
}

/// Rows `row0 .. row0 + rows` of a source (one thread's share).
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(super) struct RowRange<'s, S> {
    pub(super) src: &'s S,
    pub(super) row0: usize,
    pub(super) rows: usize,
}

impl<P, S: PackSource<P>> PackSource<P> for RowRange<'_, S> {
    #[inline]
    fn rows(&self) -> usize {
        self.rows
    }
    #[inline]
    fn cols(&self) -> usize {
        self.src.cols()
    }
    #[inline]
    fn get(&self, i: usize, j: usize) -> P {
        self.src.get(self.row0 + i, j)
    }
    #[inline]
    fn read_row(&self, i: usize, j0: usize, len: usize, out: &mut [P], step: usize) {
        self.src.read_row(self.row0 + i, j0, len, out, step)
    }
    #[inline]
    fn read_col(&self, i0: usize, j: usize, len: usize, out: &mut [P], step: usize) {
        self.src.read_col(self.row0 + i0, j, len, out, step)
    }
    #[inline]
    fn read_row_panels(
        &self,
        i: usize,
        cols: (usize, usize),
        nr: usize,
        out: &mut [P],
        panel_stride: usize,
    ) {
        self.src
            .read_row_panels(self.row0 + i, cols, nr, out, panel_stride)
    }
    #[inline]
    fn rows_are_contiguous(&self) -> bool {
        self.src.rows_are_contiguous()
    }
    #[inline]
    fn read_panel(
        &self,
        (i0, rows): (usize, usize),
        cols: (usize, usize),
        out: &mut [P],
        step: usize,
    ) {
        self.src.read_panel((self.row0 + i0, rows), cols, out, step)
    }
}
