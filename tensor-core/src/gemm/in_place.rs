//! Products of few rows with a large right operand (an MLP's `x · W`, `h · W`, `g · Wᵀ` at
//! a small batch): `B` is read in place, once, while it is multiplied, with no packing.
//!
//! Why: the packed path copies `B` into panels before the micro-kernel reads them. With
//! few rows each packed panel serves only `m / mr` tiles, so the copy is most of the
//! product's memory traffic and it does not overlap the arithmetic: at 32 rows and a
//! 768 × 3072 weight the packing alone took as long as reading the weight twice
//! (NOTES.md "Compile-time gradients", "B = 32, what did not help"). Here the kernel reads
//! the weight where it lies and prefetches the part it will need next while it computes.
//!
//! Two layouts of `B`:
//! - **`B`'s rows contiguous** (row-major `W`): `k` in blocks of about
//!   [`ROW_BLOCK_BYTES`] of `B` (so that the pages a block spans stay in the TLB: a panel
//!   reads one run of every row, a page each); per block `A`'s columns are packed into
//!   panels of 8 rows (`A` is small). Then column panels of 48 in order: the first row
//!   tile runs avx512.rs `f32_packed_a`, which loads the panel from `B` in place, stores
//!   it as a packed micro-panel as it goes, and prefetches the *next* panel into L2
//!   (`Prefetch`); the other row tiles run the packed 8×48 kernel on that copy. They
//!   cannot read the panel in place: `B`'s rows, 3 or 12 KiB apart, fall in the same L1
//!   sets, so a panel of `B` never stays in L1 (in cache, 32×256×768: 0.164 ms read in
//!   place by every tile, 0.101 with the copy).
//! - **`B`'s columns contiguous** (`B = Wᵀ`, `W` row-major): the transposed problem
//!   `Cᵀ = W · Aᵀ`. `Aᵀ` is small and packed once (`k × m`, rows padded to 16); the
//!   left operand of avx512.rs `f32_direct` (which broadcasts it) is `W` itself, `MR`
//!   of its rows at a time, each read once in order (and the next `MR` rows
//!   prefetched); the tile (`MR` columns of `C`) is written transposed into `C`
//!   through a small buffer.
//!
//! Only on AVX-512 (other CPUs keep the packed engine), for `f32` views read in place
//! (`PackSource::direct`), and on one thread (a product the engine would split runs
//! there). The epilogue gets blocks of all `m` rows and [`EPILOGUE_COLS`] columns or
//! fewer. Each element of `C` is a sum of `k` fused multiply-adds in order of `p`: the
//! packed path's bound, `k · 2⁻²⁴ · Σ|a||b|`.

use super::epilogue::Block;
use super::source::PackSource;

/// Products of at most this many rows may take this path.
pub(super) const IN_PLACE_ROWS: usize = 64;

/// ... and only when `B` has at least this many elements (1 MiB of `f32`, half of L2):
/// a smaller `B` stays in cache once packed, and the packed path reuses it well.
pub(super) const IN_PLACE_MIN_B: usize = 1 << 18;

/// Bytes of `B`'s rows per block of `k` (row-major `B`): the pages a block spans must stay
/// in the TLB while the panels walk down it (a panel reads one run of each row).
pub(super) const ROW_BLOCK_BYTES: usize = 768 << 10;

/// Columns of `C` per epilogue block (whole panels, so at most this plus a panel).
const EPILOGUE_COLS: usize = 512;

/// Runs `C = A · B` with `B` read in place when the product is one of few rows and a
/// large `B` (see the module doc), both operands are `f32` views with a unit stride on
/// one of `B`'s axes, the CPU has AVX-512 and the product runs on one thread (`threads`);
/// returns whether it did. Shapes were checked by the caller.
pub(super) fn try_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    threads: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m > IN_PLACE_ROWS || k.saturating_mul(n) < IN_PLACE_MIN_B || threads > 1 {
        return false;
    }
    run_f32(a, b, c, ldc, epilogue)
}

/// The in-place product whatever the size (`m ≤ 64`); returns whether it ran (the CPU,
/// the operands' kinds and strides; the tests call it directly).
pub(super) fn run_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    run_f32_blocked(a, b, c, ldc, ROW_BLOCK_BYTES, epilogue)
}

/// [`run_f32`] with blocks of `block_bytes` of a row-major `B` (the tuning test's knob).
pub(super) fn run_f32_blocked(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    block_bytes: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) -> bool {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m == 0 || k == 0 || n == 0 || m > IN_PLACE_ROWS {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if super::isa::cpu_isa() >= super::isa::Isa::Avx512 {
        // `A` is packed (rows of `B`) or read through `read_panel` (columns of `B`),
        // so only `B` must be a view; `A` must be one too only so that it costs no
        // more than a read (a computed `FnSource` is left to the packed engine).
        let (Some(_), Some(db)) = (a.direct(), b.direct()) else {
            return false;
        };
        let (row_stride, col_stride) = db.strides();
        if col_stride == 1 {
            avx512_path::rows_in_place(a, &db, c, ldc, block_bytes, epilogue);
            return true;
        }
        if row_stride == 1 {
            avx512_path::columns_in_place(a, &db, c, ldc, epilogue);
            return true;
        }
        return false;
    }
    let _ = (a, b, c, ldc, epilogue, EPILOGUE_COLS);
    false
}

/// Delivers the columns `*start .. end` of `C` (all `m` rows) to the epilogue when they
/// reach [`EPILOGUE_COLS`] or the last column `n`, and moves `*start` on.
fn deliver(
    c: &mut [f32],
    ldc: usize,
    (m, n): (usize, usize),
    start: &mut usize,
    end: usize,
    epilogue: &dyn Fn(Block<'_, f32>),
) {
    if end < n && end - *start < EPILOGUE_COLS {
        return;
    }
    let last = (m - 1) * ldc + end;
    epilogue(Block::new(
        &mut c[*start..last],
        0,
        *start,
        m,
        end - *start,
        ldc,
    ));
    *start = end;
}

#[cfg(target_arch = "x86_64")]
mod avx512_path {
    use super::super::avx512::{f32_direct, f32_packed_a, Prefetch, AVX512_F32_CONV};
    use super::super::epilogue::Block;
    use super::super::kernel::even_split;
    use super::super::pack::{pack_a, with_workspace};
    use super::super::source::{Direct, MatRef, PackSource};
    use super::deliver;

    /// Lanes of an f32 vector.
    const LANES: usize = 16;

    /// Cache lines to prefetch for a run of `len` f32 values from `first` (one more when
    /// the run does not start on a line).
    fn lines(first: *const f32, len: usize) -> usize {
        let misaligned = usize::from(first.align_offset(64) != 0);
        (len * 4).div_ceil(64) + misaligned
    }

    /// `B`'s rows contiguous: blocks of `B`'s rows of about `block_bytes`; in each, `A`'s
    /// columns packed into panels of `MR` rows (small: all of `A` is at most 64 rows),
    /// then column panels of `16·NV`: the first row tile reads the panel in place (and
    /// prefetches the next one) while it stores it packed, the other tiles read the
    /// packed copy with the packed kernel (module doc).
    pub(super) fn rows_in_place(
        a: &impl PackSource<f32>,
        b: &Direct<'_, f32>,
        c: &mut [f32],
        ldc: usize,
        block_bytes: usize,
        epilogue: &dyn Fn(Block<'_, f32>),
    ) {
        const MR: usize = 8;
        const NV: usize = 3;
        let packed_kernel = &AVX512_F32_CONV;
        assert!(packed_kernel.mr == MR && packed_kernel.nr == NV * LANES);
        let ((k, n), m) = (b.dims(), a.rows());
        let width = NV * LANES;
        let tiles = m.div_ceil(MR);
        let kc = even_split(k, (block_bytes / (4 * n)).max(16), 1);
        with_workspace::<f32, _>(tiles * MR * kc, kc * width, |a_buf, b_panel| {
            let mut delivered = 0;
            for p0 in (0..k).step_by(kc) {
                let kb = kc.min(k - p0);
                pack_a(a, (0, m), (p0, kb), MR, a_buf);
                let b_block = b.block((p0, kb), (0, n));
                for j0 in (0..n).step_by(width) {
                    let nb = width.min(n - j0);
                    // The next panel: the next one of this block, else the next block's
                    // first; the first tile prefetches it whole.
                    let next = if j0 + width < n {
                        Some((p0, kb, j0 + width))
                    } else if p0 + kb < k {
                        Some((p0 + kb, kc.min(k - p0 - kb), 0))
                    } else {
                        None
                    };
                    let prefetch = next.map_or(Prefetch::NONE, |(q0, qb, next)| {
                        let first = b.at(q0, next);
                        Prefetch {
                            first,
                            row_stride: b.strides().0,
                            rows: qb,
                            lines: lines(first, width.min(n - next)),
                        }
                    });
                    let b_panel = &mut b_panel[..kb * width];
                    for (t, panel) in a_buf.chunks_exact(kb * MR).take(tiles).enumerate() {
                        let (i0, mb) = (t * MR, MR.min(m - t * MR));
                        let start = i0 * ldc + j0;
                        let tile = &mut c[start..start + (mb - 1) * ldc + nb];
                        if t == 0 {
                            f32_packed_a::<MR, NV>(
                                panel,
                                &b_block,
                                (j0, nb),
                                tile,
                                ldc,
                                mb,
                                p0 == 0,
                                prefetch,
                                b_panel,
                            );
                        } else {
                            (packed_kernel.run)(kb, panel, b_panel, tile, ldc, mb, nb, p0 == 0);
                        }
                    }
                    if p0 + kb == k {
                        deliver(c, ldc, (m, n), &mut delivered, j0 + nb, epilogue);
                    }
                }
            }
        });
    }

    /// `B`'s columns contiguous: `Cᵀ = Bᵀ · Aᵀ` with `Bᵀ` read in place (module doc).
    pub(super) fn columns_in_place(
        a: &impl PackSource<f32>,
        b: &Direct<'_, f32>,
        c: &mut [f32],
        ldc: usize,
        epilogue: &dyn Fn(Block<'_, f32>),
    ) {
        match a.rows().div_ceil(LANES) {
            1 => transposed::<12, 1>(a, b, c, ldc, epilogue),
            2 => transposed::<12, 2>(a, b, c, ldc, epilogue),
            3 => transposed::<8, 3>(a, b, c, ldc, epilogue),
            _ => transposed::<6, 4>(a, b, c, ldc, epilogue),
        }
    }

    /// The largest tile [`transposed`] buffers (`MR · 16·NV` values: 24 vectors).
    const TILE: usize = 24 * LANES;

    fn transposed<const MR: usize, const NV: usize>(
        a: &impl PackSource<f32>,
        b: &Direct<'_, f32>,
        c: &mut [f32],
        ldc: usize,
        epilogue: &dyn Fn(Block<'_, f32>),
    ) {
        let ((k, n), m) = (b.dims(), a.rows());
        let width = NV * LANES;
        assert!(MR * width <= TILE && m <= width, "tile too large");
        let padded = m.next_multiple_of(LANES);
        let w = b.t();
        // One step more than Aᵀ's `k` rows: `read_panel` writes into a slice from each
        // group's first column that holds `k` whole steps.
        with_workspace::<f32, _>((k + 1) * padded, 0, |at, _| {
            // Aᵀ packed: at[p·padded + i] = A[i, p], zeros for i ≥ m (the lanes the
            // kernel loads past m).
            for i0 in (0..m).step_by(LANES) {
                let rows = LANES.min(m - i0);
                a.read_panel((i0, rows), (0, k), &mut at[i0..], padded);
            }
            let at = &mut at[..k * padded];
            for step in at.chunks_exact_mut(padded) {
                step[m..].fill(0.0);
            }
            let view = MatRef::row_major(at, k, padded).expect("the buffer holds k rows");
            let at = view.direct().expect("an f32 view is read in place");
            let mut tile = [0f32; TILE];
            let mut delivered = 0;
            for j0 in (0..n).step_by(MR) {
                let nj = MR.min(n - j0);
                let next = j0 + MR;
                let prefetch = if next < n {
                    let first = w.at(next, 0);
                    Prefetch {
                        first,
                        row_stride: w.strides().0,
                        rows: MR.min(n - next),
                        lines: lines(first, k),
                    }
                } else {
                    Prefetch::NONE
                };
                // The kernel computes rows j0 .. j0 + nj of Cᵀ, columns 0 .. m.
                f32_direct::<MR, NV>(&w, (j0, nj), &at, (0, m), &mut tile, width, true, prefetch);
                for (r, run) in tile.chunks_exact(width).take(nj).enumerate() {
                    for (i, &x) in run[..m].iter().enumerate() {
                        c[i * ldc + j0 + r] = x;
                    }
                }
                deliver(c, ldc, (m, n), &mut delivered, j0 + nj, epilogue);
            }
        });
    }
}
