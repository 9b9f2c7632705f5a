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
