//! Splitting a product across threads: rows of `A` and `C` in contiguous shares (whole
//! tiles each), one per thread, so every thread writes its own rows of `C` (disjoint
//! `&mut` slices, no unsafe) and packs its own `A`. `B` is either packed by every thread
//! for itself, block by block as its loops go (tall products: see [`SHARE_B_BELOW_ROWS`]),
//! or packed once on all threads before the product and shared (short ones, and a
//! [`PackedB`](super::PackedB) given by the caller).

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

/// Rows per thread below which a split product packs `B` once and shares it. Packing `B`
/// costs about half a cycle per element, a thread's multiply-adds `rows / 32` cycles per
/// element of `B` (two 16-lane FMA pipes), so from 256 rows per thread on, a thread that
/// packs all of `B` for itself spends at most ~6% of its time on it, and skips what sharing
/// costs: a packing pass before the product, a second round of tasks, and panels read from
/// the other core's cache. Measured at 1024³ with two threads (wall time, second core given
/// to the benchmark, `tests::tune_threads`): 4.53-4.62 ms packing per thread against
/// 4.81-4.84 ms shared; at 512³ 0.57 against 0.64-0.66 ms.
pub(super) const SHARE_B_BELOW_ROWS: usize = 256;

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

/// [`run_b`] for a `B` to pack: block by block as the driver goes, on one thread or on
/// each of several with at least [`SHARE_B_BELOW_ROWS`] rows; split into shorter shares,
/// packed once beforehand (on all threads) into a buffer of the calling thread and shared.
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
    let threads = thread_count(m, k, n, ker.mr, options);
    match len {
        Some(len) if threads > 1 && m / threads < SHARE_B_BELOW_ROWS => with_shared_b(len, |buf| {
            let packed = PackedB::pack(ker, b, buf, true).expect("buffer_len sized the buffer");
            run_b(ker, a, &packed, c, ldc, options, epilogue)
        }),
        _ => run_b(ker, a, &PackEachBlock(b), c, ldc, options, epilogue),
    }
}
