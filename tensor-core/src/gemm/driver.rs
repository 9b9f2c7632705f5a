//! The blocked loops of one thread (BLIS's order): for each `nc` column block of `B`, for
//! each `kc` block of `k`, pack `B`'s `kc × nc` block (or find it in a [`PackedB`]); for
//! each `mc` row block of `A`, pack `A`'s `mc × kc` block and run the micro-kernel over its
//! tiles (tile columns outside, tile rows inside, so a `B` micro-panel stays in L1 while
//! the `A` block streams from L2). After the last `k` block a `C` block is final and goes
//! to the epilogue.

use super::epilogue::Block;
use super::kernel::{blocks, even_split, Kernel};
use super::pack::{pack_a, pack_b, with_workspace};
use super::packed::PackedB;
use super::source::PackSource;

/// The right operand as the driver reads it: packed block by block on the way, or
/// packed beforehand.
pub(super) trait BSide<P>: Sync {
    /// Columns (`n`).
    fn cols(&self) -> usize;
    /// Whether [`block`](BSide::block) packs into the scratch it is given.
    fn packs(&self) -> bool;
    /// Whether `B`'s rows are contiguous (a row-major `B`, packed row by row).
    fn rows_are_contiguous(&self) -> bool {
        true
    }
    /// The packed `kb × nb` block at `(pc, jc)` in `nr` panels: packed into `scratch`
    /// (which holds `kc·nc` elements) or found ready.
    fn block<'s>(
        &'s self,
        pc: (usize, usize),
        jc: (usize, usize),
        nr: usize,
        scratch: &'s mut [P],
    ) -> &'s [P];
}

/// A [`PackSource`] packed block by block (each thread packs the blocks it uses).
pub(super) struct PackEachBlock<'s, S>(pub(super) &'s S);

impl<P: Copy + Default, S: PackSource<P>> BSide<P> for PackEachBlock<'_, S> {
    fn cols(&self) -> usize {
        self.0.cols()
    }
    fn packs(&self) -> bool {
        true
    }
    fn rows_are_contiguous(&self) -> bool {
        self.0.rows_are_contiguous()
    }
    fn block<'s>(
        &'s self,
        pc: (usize, usize),
        jc: (usize, usize),
        nr: usize,
        scratch: &'s mut [P],
    ) -> &'s [P] {
        pack_b(self.0, pc, jc, nr, scratch);
        scratch
    }
}

impl<P: Sync> BSide<P> for PackedB<'_, P> {
    fn cols(&self) -> usize {
        PackedB::cols(self)
    }
    fn packs(&self) -> bool {
        false
    }
    fn block<'s>(
        &'s self,
        pc: (usize, usize),
        jc: (usize, usize),
        _nr: usize,
        _scratch: &'s mut [P],
    ) -> &'s [P] {
        PackedB::block(self, pc, jc)
    }
}

/// Bytes of the packed `B` block of a product of few rows (see [`few_rows_kc`]): half
/// of a 2 MiB L2, leaving room for `C`'s rows and `A`'s block.
const FEW_ROWS_B_BLOCK: usize = 1 << 20;

/// The blocks of a product of at most four tiles of rows (`m ≤ 4·mr`) whose `B` is packed
/// on the way: smaller than the kernel's, so that the packed `kc × nc` block stays in L2
/// (`FEW_ROWS_B_BLOCK`). Each packed micro-panel serves only `m / mr` tiles, so the
/// product is bound by moving `B`: packed into a block in L3 (a 4.7 MB block for a
/// 768 × 3072 weight), `B` crosses memory twice more (the packed copy written, then read
/// back). `C` is updated once per `k` block; at these `m` its rows stay in L2.
/// - A row-major `B` (packed row by row: runs of `nc` elements) gets a shorter `k` block:
///   `tests::tune_mlp` (thread CPU time, load ~6), 32 × 768 × 3072: 2.97-3.77 → 2.18-2.28
///   ms (kc 384 → 96), 32 × 3072 × 768: 2.2-2.3 → 2.0-2.1 ms.
/// - A column-major `B` (`G·Wᵀ`, packed down its columns: runs of `kc` elements, slower
///   short: 2.8 → 3.6 ms with kc 96) keeps its `k` block and gets a narrower column block:
///   32 × 768 × 3072 with `B = w2ᵀ` 3.04-3.19 → 2.59-2.68 ms (nc 3072 → 640).
fn few_rows_blocks(
    (kc, nc): (usize, usize),
    (m, k): (usize, usize),
    (mr, nr): (usize, usize),
    elem: usize,
    rows_are_contiguous: bool,
) -> (usize, usize) {
    if m > 4 * mr || kc * nc * elem <= FEW_ROWS_B_BLOCK {
        return (kc, nc);
    }
    if rows_are_contiguous {
        let cap = (FEW_ROWS_B_BLOCK / (nc * elem)).max(64);
        (even_split(k, cap, 1).min(kc), nc)
    } else {
        let cap = (FEW_ROWS_B_BLOCK / (kc * elem)) / nr * nr;
        (kc, cap.clamp(nr, nc))
    }
}

/// `C = A·B` on the calling thread. `c` starts at `C[0, 0]` of this call (the epilogue's
/// row numbers add `row_base`); the shapes were checked by the caller:
/// `b.rows() == a.cols()`, `ldc ≥ n`, `c.len() ≥ (m - 1)·ldc + n`, and a packed `b` was
/// packed for `ker`.
pub(super) fn gemm_serial<P, O, SA, SB>(
    ker: &Kernel<P, O>,
    a: &SA,
    b: &SB,
    c: &mut [O],
    ldc: usize,
    row_base: usize,
    epilogue: &mut dyn FnMut(Block<'_, O>),
) where
    P: bytemuck::Pod + Default,
    O: Copy + Default,
    SA: PackSource<P>,
    SB: BSide<P> + ?Sized,
{
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m == 0 || n == 0 {
        return;
    }
    let (mr, nr) = (ker.mr, ker.nr);
    // Row blocks of even size (1024 rows with mc = 144: 7 × 132 + 100 rather than
    // 7 × 144 + 16, whose last block reuses each B micro-panel for two tiles only).
    let mc = even_split(m, ker.mc, mr);
    let (kc, nc) = blocks(ker, k, n);
    let (kc, nc) = if b.packs() {
        few_rows_blocks(
            (kc, nc),
            (m, k),
            (mr, nr),
            size_of::<P>(),
            b.rows_are_contiguous(),
        )
    } else {
        (kc, nc)
    };

    if k == 0 {
        // An empty sum: C = 0, still delivered block by block.
        for jc in (0..n).step_by(nc) {
            let nb = nc.min(n - jc);
            for ic in (0..m).step_by(mc) {
                let mb = mc.min(m - ic);
                for i in ic..ic + mb {
                    c[i * ldc + jc..i * ldc + jc + nb].fill(O::default());
                }
                let start = ic * ldc + jc;
                let end = (ic + mb - 1) * ldc + jc + nb;
                epilogue(Block::new(
                    &mut c[start..end],
                    row_base + ic,
                    jc,
                    mb,
                    nb,
                    ldc,
                ));
            }
        }
        return;
    }

    let b_scratch = if b.packs() { kc * nc } else { 0 };
    with_workspace::<P, _>(mc * kc, b_scratch, |a_buf, b_buf| {
        for jc in (0..n).step_by(nc) {
            let nb = nc.min(n - jc);
            for pc in (0..k).step_by(kc) {
                let kb = kc.min(k - pc);
                let (first, last) = (pc == 0, pc + kb == k);
                let b_block = b.block((pc, kb), (jc, nb), nr, &mut *b_buf);
                for ic in (0..m).step_by(mc) {
                    let mb = mc.min(m - ic);
                    pack_a(a, (ic, mb), (pc, kb), mr, a_buf);
                    for (jq, jr) in (0..nb).step_by(nr).enumerate() {
                        let nr_eff = nr.min(nb - jr);
                        let b_panel = &b_block[jq * kb * nr..(jq + 1) * kb * nr];
                        for (iq, ir) in (0..mb).step_by(mr).enumerate() {
                            let mr_eff = mr.min(mb - ir);
                            let a_panel = &a_buf[iq * kb * mr..(iq + 1) * kb * mr];
                            let start = (ic + ir) * ldc + jc + jr;
                            let tile = &mut c[start..start + (mr_eff - 1) * ldc + nr_eff];
                            (ker.run)(kb, a_panel, b_panel, tile, ldc, mr_eff, nr_eff, first);
                        }
                    }
                    if last {
                        let start = ic * ldc + jc;
                        let end = (ic + mb - 1) * ldc + jc + nb;
                        epilogue(Block::new(
                            &mut c[start..end],
                            row_base + ic,
                            jc,
                            mb,
                            nb,
                            ldc,
                        ));
                    }
                }
            }
        }
    });
}
