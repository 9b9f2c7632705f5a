//! The blocked loops of one thread (BLIS's order): for each `nc` column block of `B`, for
//! each `kc` block of `k`, pack `B`'s `kc × nc` block; for each `mc` row block of `A`, pack
//! `A`'s `mc × kc` block and run the micro-kernel over its tiles (tile columns outside, tile
//! rows inside, so a `B` micro-panel stays in L1 while the `A` block streams from L2). After
//! the last `k` block a `C` block is final and goes to the epilogue.

use super::epilogue::Block;
use super::kernel::Kernel;
use super::pack::{pack_a, pack_b, with_workspace};
use super::source::PackSource;

/// `C = A·B` on the calling thread. `c` starts at `C[0, 0]` of this call (the epilogue's
/// row numbers add `row_base`); the shapes were checked by the caller:
/// `b.rows() == a.cols()`, `ldc ≥ n`, `c.len() ≥ (m - 1)·ldc + n`.
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
    SB: PackSource<P>,
{
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    if m == 0 || n == 0 {
        return;
    }
    let (mr, nr) = (ker.mr, ker.nr);
    let mc = ker.mc.min(m.next_multiple_of(mr));
    let nc = ker.nc.min(n.next_multiple_of(nr));
    let kc = ker.kc.min(k).max(1);

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

    with_workspace::<P, _>(mc * kc, kc * nc, |a_buf, b_buf| {
        for jc in (0..n).step_by(nc) {
            let nb = nc.min(n - jc);
            for pc in (0..k).step_by(kc) {
                let kb = kc.min(k - pc);
                let (first, last) = (pc == 0, pc + kb == k);
                pack_b(b, (pc, kb), (jc, nb), nr, b_buf);
                for ic in (0..m).step_by(mc) {
                    let mb = mc.min(m - ic);
                    pack_a(a, (ic, mb), (pc, kb), mr, a_buf);
                    for (jq, jr) in (0..nb).step_by(nr).enumerate() {
                        let nr_eff = nr.min(nb - jr);
                        let b_panel = &b_buf[jq * kb * nr..(jq + 1) * kb * nr];
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
