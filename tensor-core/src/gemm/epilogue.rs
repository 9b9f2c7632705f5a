//! The epilogue's view of a finished block of `C`.

/// A finished `rows × cols` block of `C` whose top-left element is `C[row0, col0]`, handed
/// to the epilogue while it is still in cache. Each element of `C` is in exactly one block,
/// and a block is final: the engine never writes it again.
#[derive(Debug)]
pub struct Block<'a, T> {
    /// From `C[row0, col0]` to `C[row0 + rows - 1, col0 + cols - 1]` inclusive.
    data: &'a mut [T],
    row0: usize,
    col0: usize,
    rows: usize,
    cols: usize,
    ldc: usize,
}

impl<'a, T> Block<'a, T> {
    /// `data` must start at `C[row0, col0]` and hold `(rows - 1) · ldc + cols` elements
    /// (the driver slices it so); `rows`, `cols` ≥ 1.
    pub(super) fn new(
        data: &'a mut [T],
        row0: usize,
        col0: usize,
        rows: usize,
        cols: usize,
        ldc: usize,
    ) -> Self {
        debug_assert!(rows >= 1 && cols >= 1 && data.len() == (rows - 1) * ldc + cols);
        Block {
            data,
            row0,
            col0,
            rows,
            cols,
            ldc,
        }
    }

    /// The row of `C` at which the block starts.
    pub fn row0(&self) -> usize {
        self.row0
    }
    /// The column of `C` at which the block starts.
    pub fn col0(&self) -> usize {
        self.col0
    }
    /// Rows of the block.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns of the block.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// `C`'s leading dimension.
    pub fn ldc(&self) -> usize {
        self.ldc
    }

    /// Row `r` of the block (`r < rows`): `C[row0 + r, col0 .. col0 + cols]`.
    #[inline]
    pub fn row_mut(&mut self, r: usize) -> &mut [T] {
        let start = r * self.ldc;
        &mut self.data[start..start + self.cols]
    }

    /// Row `r` of the block, read-only.
    #[inline]
    pub fn row(&self, r: usize) -> &[T] {
        let start = r * self.ldc;
        &self.data[start..start + self.cols]
    }

    /// Calls `f(i, j, row)` for every row of the block, where `(i, j)` is the position in
    /// `C` of the row's first element.
    #[inline]
    pub fn for_each_row(&mut self, mut f: impl FnMut(usize, usize, &mut [T])) {
        for r in 0..self.rows {
            let (i, j) = (self.row0 + r, self.col0);
            f(i, j, self.row_mut(r));
        }
    }
}
