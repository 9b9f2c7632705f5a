//! Small f32 products without packing: when both operands are `f32` views (`B`'s columns
//! contiguous) and the product is small, packing them costs more than it saves (half the
//! time of a 32×32×32 product went to packing), so the AVX-512 kernel reads them in place,
//! tile by tile. Larger products, other element types, other CPUs: the packed path.
//!
//! Where the limits come from (`tests::tune_small`, one thread, ns per product, unpacked
//! against packed with the same 12×32 tile): 64³ 2 303 / 3 803, 96³ 6 892 / 9 811, 128³
//! 16 781 / 21 910, and at 128³'s work in oblong shapes (m×k×n) 128×1024×16 22 302 /
//! 70 101, 16×1024×128 23 354 / 42 944, 128×16×1024 28 129 / 34 371, 8×512×512 28 393 /
//! 53 923: below 2²¹ multiply-adds and 128 rows the unpacked kernel wins everywhere
//! measured (a `B` micro-panel of up to `k` rows stays in L1 or streams from L2 for every
//! tile row, which costs less than packing it).

use super::epilogue::Block;
use super::isa::{cpu_isa, Isa};
use super::source::PackSource;

/// Products of at most this many multiply-adds (128³) take the unpacked path.
pub(super) const SMALL_WORK: usize = 1 << 21;

/// Products of at most this many rows take the unpacked path.
pub(super) const SMALL_ROWS: usize = 128;

/// Tile of the unpacked kernel: 12 rows by 32 columns (16 when `n ≤ 16`).
const MR: usize = 12;

/// Runs `C = A·B` (shapes checked by the caller, `k ≥ 1`) unpacked if it is small, both
/// operands are `f32` views with `B`'s columns contiguous and the CPU has AVX-512;
/// returns whether it did. The whole `C` goes to the epilogue as one block (at most 128
/// rows and 4096 columns, within the AVX-512 kernel's `mc × nc`).
pub(super) fn try_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m > SMALL_ROWS || (m * n).saturating_mul(k) > SMALL_WORK {
        return false;
    }
    direct_f32(a, b, c, ldc, epilogue)
}

/// The unpacked path of [`try_f32`] whatever the size (`m ≤ 144`, `n ≤ 4096`: one block
/// for the epilogue); returns whether it ran.
pub(super) fn direct_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m == 0 || n == 0 || k == 0 || m > 144 || n > 4096 {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if cpu_isa() >= Isa::Avx512 {
        let Some((da, db)) = super::source::direct_pair(a, b) else {
            return false;
        };
        use super::avx512::{f32_direct, Prefetch};
        let nr = if n <= 16 { 16 } else { 32 };
        let run = if nr == 16 {
            f32_direct::<MR, 1>
        } else {
            f32_direct::<MR, 2>
        };
        for j0 in (0..n).step_by(nr) {
            let nb = nr.min(n - j0);
            for i0 in (0..m).step_by(MR) {
                let mb = MR.min(m - i0);
                let start = i0 * ldc + j0;
                let tile = &mut c[start..start + (mb - 1) * ldc + nb];
                run(
                    &da,
                    (i0, mb),
                    &db,
                    (j0, nb),
                    tile,
                    ldc,
                    true,
                    Prefetch::NONE,
                );
            }
        }
        let end = (m - 1) * ldc + n;
        epilogue(Block::new(&mut c[..end], 0, 0, m, n, ldc));
        return true;
    }
    let _ = (a, b, c, ldc, epilogue, cpu_isa, Isa::Avx512);
    false
}
