//! Splitting a product across threads: rows of `A` and `C` in contiguous shares (whole
//! tiles each), one per thread, so every thread writes its own rows of `C` (disjoint
//! `&mut` slices, no unsafe) and packs its own `A`; each packs `B` itself (unless `B` is a
//! [`PackedB`](super::PackedB) packed once for all of them), which costs
//! `k·n` per thread against `m·n·k / threads` multiply-adds.

use super::driver::{gemm_serial, BSide, PackEachBlock};
use super::epilogue::Block;
use super::kernel::Kernel;
use super::pack::with_shared_b;
use super::packed::{buffer_len, PackedB};
use super::source::PackSource;
#[cfg(feature = "parallel")]
use super::source::RowRange;
use super::{Options, Parallelism};

/// Products of at least this many multiply-adds are split (about 1 ms on one core). Under
/// Miri a small threshold, so that the tests' small products still take the threaded path.
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
const MIN_PARALLEL_WORK: usize = if cfg!(miri) { 1 << 12 } else { 1 << 22 };

/// How many threads a product of `m × k × n` gets.
pub(super) fn thread_count(m: usize, k: usize, n: usize, mr: usize, options: Options) -> usize {
    #[cfg(feature = "parallel")]
    if options.parallelism == Parallelism::Auto
        && m.saturating_mul(n).saturating_mul(k) >= MIN_PARALLEL_WORK
    {
        return rayon::current_num_threads().min(m / mr).max(1);
    }
    let _ = (m, k, n, mr, options, Parallelism::Auto);
    1
}

/// Runs `C = A·B` with the epilogue, on as many threads as [`thread_count`] says.
pub(super) fn run_b<P, O, SA, SB, E>(
    ker: &Kernel<P, O>,
    a: &SA,
    b: &SB,
    c: &mut [O],
    ldc: usize,
    options: Options,
    epilogue: &E,
) where
    P: bytemuck::Pod + Default,
    O: Copy + Default + Send,
    SA: PackSource<P>,
    SB: BSide<P>,
    E: Fn(Block<'_, O>) + Sync,
{
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let threads = thread_count(m, k, n, ker.mr, options);
    if threads <= 1 {
        gemm_serial(ker, a, b, c, ldc, 0, &mut |blk| epilogue(blk));
        return;
    }
    #[cfg(feature = "parallel")]
    {
        use rayon::iter::{IntoParallelIterator, ParallelIterator};
        let share = m.div_ceil(threads).next_multiple_of(ker.mr);
        let mut parts = Vec::with_capacity(threads);
        let mut rest = c;
        let mut row0 = 0;
        while row0 < m {
            let rows = share.min(m - row0);
            let take = (rows * ldc).min(rest.len());
            let (mine, tail) = rest.split_at_mut(take);
            parts.push((row0, rows, mine));
            rest = tail;
            row0 += rows;
        }
        parts.into_par_iter().for_each(|(row0, rows, c_part)| {
            let a_part = RowRange { src: a, row0, rows };
            gemm_serial(ker, &a_part, b, c_part, ldc, row0, &mut |blk| epilogue(blk));
        });
    }
}

/// [`run_b`] for a `B` to pack: on one thread, block by block as the driver goes; split
/// across threads, packed once beforehand (on all of them) into a buffer of the calling
/// thread and shared, so no thread packs all of `B` for itself.
pub(super) fn run<P, O, SA, SB, E>(
    ker: &Kernel<P, O>,
    a: &SA,
    b: &SB,
    c: &mut [O],
    ldc: usize,
    options: Options,
    epilogue: &E,
) where
    P: bytemuck::Pod + Default + Send + Sync,
    O: Copy + Default + Send,
    SA: PackSource<P>,
    SB: PackSource<P>,
    E: Fn(Block<'_, O>) + Sync,
{
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let len = buffer_len(ker, k, n);
    match len {
        Some(len) if thread_count(m, k, n, ker.mr, options) > 1 => with_shared_b(len, |buf| {
            let packed = PackedB::pack(ker, b, buf, true).expect("buffer_len sized the buffer");
            run_b(ker, a, &packed, c, ldc, options, epilogue)
        }),
        _ => run_b(ker, a, &PackEachBlock(b), c, ldc, options, epilogue),
    }
}
