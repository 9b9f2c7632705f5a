//! `B` packed once for many products: the weight of a layer shared by every row block of
//! a graph's product and by every task, so that `B` is packed once per call instead of once
//! per block (see [`PackedB`]).

use super::kernel::{blocks, Kernel};
use super::pack::pack_b;
use super::source::PackSource;
use super::GemmError;

/// A `B` of at least this many elements is packed on rayon's threads (natively 2^16; under
/// Miri 2^8, so that the tests' small operands still take the threaded path: NOTES.md,
/// "Undefined-behaviour checks").
#[cfg(feature = "parallel")]
const MIN_PARALLEL_PACK: usize = if cfg!(miri) { 1 << 8 } else { 1 << 16 };

/// Bytes the packed panels are aligned to (a cache line).
const ALIGN: usize = 64;

/// Panels of `B` one task packs when packing is split across threads.
const PANELS_PER_TASK: usize = 8;

/// A `k × n` right operand packed for one kernel: the panels the driver would pack for
/// every `(nc column block, kc row block)`, in that order, so a product reads them instead of
/// packing. Made by [`pack_b_f32`](super::pack_b_f32) / [`pack_b_f64`](super::pack_b_f64)
/// into a buffer the caller owns (a graph's scratch pool), used by the `_packed` entry
/// points, which may be called from several threads at once.
#[derive(Debug)]
pub struct PackedB<'a, P> {
    panels: &'a [P],
    k: usize,
    n: usize,
    nr: usize,
    kc: usize,
    nc: usize,
    /// The kernel packed for (its `name`): a product with another kernel is refused.
    kernel: &'static str,
}

/// Elements of a buffer for `B` (`k × n`) packed for `ker`: whole `nr` panels, plus the
/// slack to start on a cache line.
pub(super) fn buffer_len<P, O>(ker: &Kernel<P, O>, k: usize, n: usize) -> Option<usize> {
    k.checked_mul(n.checked_next_multiple_of(ker.nr)?)?
        .checked_add(ALIGN / core::mem::size_of::<P>())
}

impl<'a, P: Copy + Default + Send + Sync> PackedB<'a, P> {
    /// Packs `src` for `ker` into `buf` (at least [`buffer_len`] elements), on rayon's
    /// threads when `parallel` and the operand is large.
    pub(super) fn pack<O, S: PackSource<P>>(
        ker: &Kernel<P, O>,
        src: &S,
        buf: &'a mut [P],
        parallel: bool,
    ) -> Result<Self, GemmError> {
        let (k, n) = (src.rows(), src.cols());
        let needed = buffer_len(ker, k, n).ok_or(GemmError::PackBufferTooShort {
            needed: usize::MAX,
            len: buf.len(),
        })?;
        if buf.len() < needed {
            return Err(GemmError::PackBufferTooShort {
                needed,
                len: buf.len(),
            });
        }
        let skip = match buf.as_ptr().align_offset(ALIGN) {
            off if off <= ALIGN / core::mem::size_of::<P>() => off,
            _ => 0,
        };
        let nr = ker.nr;
        let (kc, nc) = blocks(ker, k, n);
        let len = k * n.next_multiple_of(nr);
        #[cfg(feature = "parallel")]
        let parallel = parallel && k * n >= MIN_PARALLEL_PACK && rayon::current_num_threads() > 1;
        #[cfg(not(feature = "parallel"))]
        let parallel = parallel && false;
        // The blocks in the driver's order (column blocks outside, k blocks inside), each
        // a run of `nr` panels left to right; no allocation (graphs' `_into` promise it).
        let mut rest: &mut [P] = &mut buf[skip..skip + len];
        for jc in (0..n).step_by(nc) {
            let nb = nc.min(n - jc);
            for pc in (0..k).step_by(kc) {
                let kb = kc.min(k - pc);
                let size = nb.next_multiple_of(nr) * kb;
                let (block, tail) = core::mem::take(&mut rest).split_at_mut(size);
                rest = tail;
                // Groups of panels, one task each when parallel.
                let group = PANELS_PER_TASK * nr;
                let pack = |(g, out): (usize, &mut [P])| {
                    let left = jc + g * group;
                    pack_b(src, (pc, kb), (left, group.min(jc + nb - left)), nr, out)
                };
                if parallel {
                    // Through the runtime's one task runner, so no rayon code is
                    // instantiated per element and source type (issue 17).
                    crate::parallel::run_chunked(block.chunks_mut(kb * group).enumerate(), &pack);
                } else {
                    pack_b(src, (pc, kb), (jc, nb), nr, block);
                }
            }
        }
        let buf: &'a [P] = buf;
        Ok(PackedB {
            panels: &buf[skip..skip + len],
            k,
            n,
            nr,
            kc,
            nc,
            kernel: ker.name,
        })
    }
}

impl<P> PackedB<'_, P> {
    /// Rows (`k`).
    pub fn rows(&self) -> usize {
        self.k
    }
    /// Columns (`n`).
    pub fn cols(&self) -> usize {
        self.n
    }

    /// Whether the driver with `ker` reads the blocks this was packed with.
    pub(super) fn fits<O>(&self, ker: &Kernel<P, O>) -> bool {
        self.kernel == ker.name
            && self.nr == ker.nr
            && (self.kc, self.nc) == blocks(ker, self.k, self.n)
    }

    /// The packed `kb × nb` block at column `jc` (a multiple of `nc`) and row `pc` (a
    /// multiple of `kc`): the `jc` column block starts after `jc·k` elements (the blocks
    /// before it are `nc` wide, a multiple of `nr`), its `pc` row block `pc·nb'` further,
    /// `nb'` being `nb` rounded up to whole panels.
    pub(super) fn block(&self, (pc, kb): (usize, usize), (jc, nb): (usize, usize)) -> &[P] {
        let width = nb.next_multiple_of(self.nr);
        let start = jc * self.k + pc * width;
        &self.panels[start..start + kb * width]
    }
}
