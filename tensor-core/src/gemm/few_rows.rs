//! Products of very few rows (a decode step's `x · W`, a tiny batch): `C = A · B` with `A`
//! of at most [`FEW_ROWS`] rows streams `B` row by row, each row of `B` read once and used
//! by every row of `A` while it is in L1, with no packing. Packing `B` costs a read and a
//! write of all of it for `m` rows of use: for one row it is most of the product.
//! `tests::tune_small` with `TUNE_WIDE=1` (release, native, one thread, m×768×3072, the
//! machine loaded by four other builds, load 5.4: ratios, not times), ms: streamed /
//! unpacked 12×32 tiles / packed: 1 row 0.56 / 2.09 / 3.13, 2 rows 0.94 / 2.16 / 2.44,
//! 4 rows 1.39 / 2.12 / 2.70, 8 rows 2.35 / 2.19 / 2.99 (even), 16 rows 4.54 / 2.94 / 2.25.
//!
//! Each element of `C` is `Σ_p a[i, p] · b[p, j]` summed in order of `p` (a multiply and an
//! add, never fused: the same bound as the packed path, `k · 2⁻²⁴ · Σ|a||b|`).

use super::epilogue::Block;
use super::source::{direct_pair, PackSource};

/// Products of at most this many rows take this path.
pub(super) const FEW_ROWS: usize = 4;

/// The most rows [`stream_f32`] takes (its coefficient buffer).
const MAX_STREAM_ROWS: usize = 32;

/// Columns of `C` per pass: `FEW_ROWS` rows of them and one row of `B` stay in L1.
const CHUNK: usize = 1024;

/// Runs `C = A · B` by streaming `B` when `A` has at most [`FEW_ROWS`] rows and both are
/// `f32` views with `B`'s columns contiguous; returns whether it did. The epilogue gets
/// one block per chunk of columns, all rows.
pub(super) fn try_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    if a.rows() > FEW_ROWS {
        return false;
    }
    stream_f32(a, b, c, ldc, epilogue)
}

/// The loop of [`try_f32`] for any number of rows (the tuning test times it).
pub(super) fn stream_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m == 0 || m > MAX_STREAM_ROWS || k == 0 || n == 0 {
        return false;
    }
    let Some((da, db)) = direct_pair(a, b) else {
        return false;
    };
    let mut coeffs = [0f32; MAX_STREAM_ROWS];
    for j0 in (0..n).step_by(CHUNK) {
        let nb = CHUNK.min(n - j0);
        for i in 0..m {
            c[i * ldc + j0..i * ldc + j0 + nb].fill(0.0);
        }
        for p in 0..k {
            let brow = db.row_run(p, j0, nb);
            for (i, x) in coeffs.iter_mut().enumerate().take(m) {
                *x = da.get(i, p);
            }
            for (i, &x) in coeffs.iter().enumerate().take(m) {
                let crow = &mut c[i * ldc + j0..i * ldc + j0 + nb];
                for (cj, &bj) in crow.iter_mut().zip(brow) {
                    *cj += x * bj;
                }
            }
        }
        let start = j0;
        let end = (m - 1) * ldc + j0 + nb;
        epilogue(Block::new(&mut c[start..end], 0, j0, m, nb, ldc));
    }
    true
}
