//! Splitting a stage's rows into tasks. With the `parallel` feature (on by default) tasks
//! run on rayon's thread pool; without it they run in order on the calling thread. Only
//! kernels above a size threshold (decided by the macro, where sizes are static) are split
//! at all, so small tensors never pay for threads.

/// The iterator traits generated code brings into scope to zip, enumerate and consume row
/// chunks: rayon's with `parallel`, `Iterator`'s (in the prelude) without.
pub mod parallel_traits {
    #[cfg(feature = "parallel")]
    pub use rayon::iter::{IndexedParallelIterator, ParallelIterator};
}

/// Consecutive chunks of `chunk_len` elements of a buffer, one per task; the last may be
/// shorter. Disjoint `&mut` chunks: tasks never share a written element.
#[cfg(feature = "parallel")]
#[inline]
pub fn row_chunks<T: Send>(slice: &mut [T], chunk_len: usize) -> rayon::slice::ChunksMut<'_, T> {
    use rayon::slice::ParallelSliceMut;
    slice.par_chunks_mut(chunk_len)
}

/// Consecutive chunks of `chunk_len` elements of a buffer, one per task; the last may be
/// shorter.
#[cfg(not(feature = "parallel"))]
#[inline]
pub fn row_chunks<T: Send>(slice: &mut [T], chunk_len: usize) -> core::slice::ChunksMut<'_, T> {
    slice.chunks_mut(chunk_len)
}

/// Elements per task when a stage is split: large enough to amortise scheduling, small
/// enough to balance (the macro's static split uses the same figure).
pub const TASK_ELEMENTS: usize = 1 << 16;

/// Rows per task for a stage whose sizes are known only at run time: `rows` (one task,
/// on the calling thread, never touching the pool) when the stage does fewer than
/// `min_work` elements, else about `TASK_ELEMENTS` elements' worth of rows.
#[inline]
pub fn rows_per_task(rows: usize, work: usize, min_work: usize) -> usize {
    if work < min_work || rows <= 1 {
        return rows.max(1);
    }
    let per_row = (work / rows).max(1);
    (TASK_ELEMENTS / per_row).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_stages_are_one_task() {
        assert_eq!(rows_per_task(100, 1000, 1 << 18), 100);
        assert_eq!(rows_per_task(0, 0, 1 << 18), 1);
        assert_eq!(rows_per_task(1, 1 << 20, 1 << 18), 1);
    }

    #[test]
    fn large_stages_split_by_task_size() {
        // 4096 rows of 1024: 64 rows per task.
        assert_eq!(rows_per_task(4096, 4096 * 1024, 1 << 18), 64);
        // Rows longer than a task: one row each.
        assert_eq!(rows_per_task(8, 8 << 20, 1 << 18), 1);
    }
}
