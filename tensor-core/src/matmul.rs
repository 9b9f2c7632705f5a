//! The runtime entry of `matmul` / `a @ b`: one GEMM call per batch index of a graph's
//! product, from two strided operands into a row-major block of a temp. Generated code
//! calls [`matmul`] with offsets and signed strides that lowering derived from the
//! operands' views (a transposed operand is a column stride, not a copy).
//!
//! Accumulation is in the element type: `f32` (or `f64` when a graph asks `acc = f64`),
//! `f64`, and `i64`/`u64` with wrapping arithmetic (integer products are exact until they
//! wrap, as `sum` of integers).

/// Where one GEMM operand is: element `(row, col)` is at
/// `offset + row × row_stride + col × col_stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixAt {
    /// Index of element `(0, 0)`.
    pub offset: usize,
    /// Elements between rows (negative for a flipped view, 0 where it broadcasts).
    pub row_stride: isize,
    /// Elements between columns.
    pub col_stride: isize,
}

impl MatrixAt {
    /// The index of `(row, col)`. Wrapping arithmetic: the result is an in-bounds index for
    /// every element a product reads (lowering builds only such maps); the slice indexing
    /// that uses it checks the bound, so a wrong map panics instead of reading elsewhere.
    #[inline(always)]
    fn index(&self, row: usize, col: usize) -> usize {
        (self.offset as isize)
            .wrapping_add((row as isize).wrapping_mul(self.row_stride))
            .wrapping_add((col as isize).wrapping_mul(self.col_stride)) as usize
    }
}

/// The element types a product accumulates in.
pub trait GemmScalar: Copy + Default + Send + Sync + 'static {
    /// `acc + a × b` (wrapping for integers).
    fn mul_add(acc: Self, a: Self, b: Self) -> Self;
}

impl GemmScalar for f32 {
    #[inline(always)]
    fn mul_add(acc: f32, a: f32, b: f32) -> f32 {
        acc + a * b
    }
}

impl GemmScalar for f64 {
    #[inline(always)]
    fn mul_add(acc: f64, a: f64, b: f64) -> f64 {
        acc + a * b
    }
}

impl GemmScalar for i64 {
    #[inline(always)]
    fn mul_add(acc: i64, a: i64, b: i64) -> i64 {
        acc.wrapping_add(a.wrapping_mul(b))
    }
}

impl GemmScalar for u64 {
    #[inline(always)]
    fn mul_add(acc: u64, a: u64, b: u64) -> u64 {
        acc.wrapping_add(a.wrapping_mul(b))
    }
}

/// `c[c_offset..][i × n + j] = Σ_p a(i, p) · b(p, j)` for `i < m`, `j < n`, `p < k`: the
/// `m × n` row-major block at `c_offset` is overwritten.
///
/// Panics (never reads or writes out of bounds) if an operand's map leaves its slice or
/// the block does not fit in `c`.
#[allow(clippy::too_many_arguments)]
pub fn matmul<T: GemmScalar>(
    a: &[T],
    a_at: MatrixAt,
    b: &[T],
    b_at: MatrixAt,
    c: &mut [T],
    c_offset: usize,
    m: usize,
    n: usize,
    k: usize,
) {
    let block = &mut c[c_offset..c_offset + m * n];
    for i in 0..m {
        let row = &mut block[i * n..(i + 1) * n];
        row.fill(T::default());
        for p in 0..k {
            let aip = a[a_at.index(i, p)];
            if b_at.col_stride == 1 && n > 0 {
                // A contiguous row of `b`: the loop the compiler vectorises.
                let start = b_at.index(p, 0);
                for (cj, &bj) in row.iter_mut().zip(&b[start..start + n]) {
                    *cj = T::mul_add(*cj, aip, bj);
                }
            } else {
                for (j, cj) in row.iter_mut().enumerate() {
                    *cj = T::mul_add(*cj, aip, b[b_at.index(p, j)]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_and_transposed_operands() {
        // a = [[1, 2, 3], [4, 5, 6]] (2×3), b = aᵀ read through strides (3×2).
        let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut c = [0.0f64; 5];
        let at = MatrixAt {
            offset: 0,
            row_stride: 3,
            col_stride: 1,
        };
        let bt = MatrixAt {
            offset: 0,
            row_stride: 1,
            col_stride: 3,
        };
        matmul(&a, at, &a, bt, &mut c, 1, 2, 2, 3);
        assert_eq!(c, [0.0, 14.0, 32.0, 32.0, 77.0]);
        // A flipped `a` (rows reversed): offset at the last row, negative row stride.
        let flipped = MatrixAt {
            offset: 3,
            row_stride: -3,
            col_stride: 1,
        };
        let mut d = [0i64; 4];
        let ai: Vec<i64> = a.iter().map(|&v| v as i64).collect();
        matmul(&ai, flipped, &ai, bt, &mut d, 0, 2, 2, 3);
        assert_eq!(d, [32, 77, 14, 32]);
    }

    #[test]
    fn integers_wrap() {
        let a = [u64::MAX, 2];
        let at = MatrixAt {
            offset: 0,
            row_stride: 2,
            col_stride: 1,
        };
        let bt = MatrixAt {
            offset: 0,
            row_stride: 1,
            col_stride: 1,
        };
        let mut c = [0u64; 1];
        matmul(&a, at, &[3, 5], bt, &mut c, 0, 1, 1, 2);
        assert_eq!(c[0], u64::MAX.wrapping_mul(3).wrapping_add(10));
    }
}
