//! Small f32 products without packing: when both operands are `f32` views (`B`'s columns
//! contiguous) and the product is small, packing them costs more than the product itself
//! (half the time of a 32×32×32 product went to packing), so the AVX-512 kernel reads them
//! in place, tile by tile. Larger products, other element types, other CPUs: the packed
//! path.

use super::epilogue::Block;
use super::kernel::{cpu_isa, Isa};
use super::source::PackSource;

/// Products of at most this many multiply-adds (64³) take the unpacked path.
pub(super) const SMALL_WORK: usize = 1 << 18;

/// Tile of the unpacked kernel: 12 rows by 32 columns (16 when `n ≤ 16`).
const MR: usize = 12;

/// Runs `C = A·B` (shapes checked by the caller, `k ≥ 1`) unpacked if it is small, both
/// operands are `f32` views with `B`'s columns contiguous and the CPU has AVX-512;
/// returns whether it did. The whole `C` goes to the epilogue as one block (at most 64 rows
/// and 4096 columns, within every kernel's `mc × nc`).
pub(super) fn try_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m == 0 || n == 0 || k == 0 || m > 64 || n > 4096 || (m * n).saturating_mul(k) > SMALL_WORK {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if cpu_isa() >= Isa::Avx512 {
        let (Some(da), Some(db)) = (a.direct(), b.direct()) else {
            return false;
        };
        if db.strides().1 != 1 {
            return false;
        }
        use super::avx512::f32_direct;
        let nr = if n <= 16 { 16 } else { 32 };
        for j0 in (0..n).step_by(nr) {
            let nb = nr.min(n - j0);
            for i0 in (0..m).step_by(MR) {
                let mb = MR.min(m - i0);
                let start = i0 * ldc + j0;
                let tile = &mut c[start..start + (mb - 1) * ldc + nb];
                if nr == 16 {
                    f32_direct::<MR, 1>(&da, (i0, mb), &db, (j0, nb), tile, ldc);
                } else {
                    f32_direct::<MR, 2>(&da, (i0, mb), &db, (j0, nb), tile, ldc);
                }
            }
        }
        let end = (m - 1) * ldc + n;
        epilogue(Block::new(&mut c[..end], 0, 0, m, n, ldc));
        return true;
    }
    let _ = (a, b, c, ldc, epilogue, cpu_isa, Isa::Avx512);
    false
}
