//! Splitting a stage's rows into tasks. With the `parallel` feature (on by default) tasks
//! run on rayon's thread pool; without it they run in order on the calling thread. Only
//! kernels above a size threshold (decided by the macro, where sizes are static) are split
//! at all, so small tensors never pay for threads.
//!
//! Build cost (issue 17): the generated code splits its buffers with `chunks_mut` (core's
//! iterator, cheap to compile) and hands the chunks to [`run_chunked`], which passes them
//! to the thread pool through [`run_tasks`], a non-generic function compiled once, here.
//! Before, every stage of every graph instantiated rayon's `par_chunks_mut` bridge (the
//! producer/consumer splitting, `join_context`, the stack jobs) for its own closure type:
//! in a 50-graph crate with run-time dims that was about 45% of the LLVM IR.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

/// Consecutive chunks of `chunk_len` elements of a buffer, one per task; the last may be
/// shorter. Disjoint `&mut` chunks: tasks never share a written element.
#[inline]
pub fn row_chunks<T: Send>(slice: &mut [T], chunk_len: usize) -> core::slice::ChunksMut<'_, T> {
    // `chunks_mut` panics on 0: generated code splits only rows of at least one element
    // (tensor-macros lower/stages.rs `plan_stages` for literal rows, the `!= 0` test of `__tg_split` for
    // symbolic ones) into tasks of at least one row (`rows_per_task` ≥ 1).
    slice.chunks_mut(chunk_len)
}

/// Runs `task(i)` once for every `i < count`: on rayon's pool with the `parallel` feature,
/// else in order on this thread. Not generic, so it is compiled once, in this crate.
pub fn run_tasks(count: usize, task: &(dyn Fn(usize) + Sync)) {
    #[cfg(feature = "parallel")]
    {
        use rayon::iter::{IntoParallelIterator, ParallelIterator};
        (0..count).into_par_iter().for_each(task);
    }
    #[cfg(not(feature = "parallel"))]
    for i in 0..count {
        task(i);
    }
}

/// Tasks handed to the pool per round by [`run_chunked`]; a stage with more chunks runs
/// them in rounds of this many (a stage is split into chunks of about
/// [`TASK_ELEMENTS`], so one round covers 4M elements).
pub const TASKS_PER_ROUND: usize = 64;

/// Runs `body` on every item of `items` (each a task's disjoint chunks of the stage's
/// buffers), several at a time on the thread pool: items are moved into slots on this
/// thread, and each task takes its own slot's item.
///
/// Never inlined: generic over the item type, it is compiled in the user's crate, and
/// inlined its slots and iterator plumbing were copied into every graph function with a
/// stage split at run time (issue 17); called, it is one copy per item type. One call per
/// split stage, next to the stage's tasks.
#[inline(never)]
pub fn run_chunked<I: Send>(items: impl Iterator<Item = I>, body: &(dyn Fn(I) + Sync)) {
    let mut items = items.peekable();
    let mut slots: [TaskSlot<I>; TASKS_PER_ROUND] = [TaskSlot::EMPTY; TASKS_PER_ROUND];
    while items.peek().is_some() {
        let mut filled = 0;
        for (slot, item) in slots.iter_mut().zip(&mut items) {
            slot.put(item);
            filled += 1;
        }
        run_tasks(filled, &|k| {
            if let Some(item) = slots[k].take() {
                body(item);
            }
        });
    }
}

/// One task's item, moved in on the thread that fills the slots (`put`, through `&mut`)
/// and taken out by exactly one task (`take`, through `&`, from any thread).
struct TaskSlot<I> {
    /// Set by the `take` that wins; `put` clears it.
    taken: AtomicBool,
    item: UnsafeCell<Option<I>>,
}

// SAFETY: a shared `TaskSlot` gives access to its item only through `take`, which touches
// the cell only after winning the `taken` swap, so at most one thread ever reaches the
// item between two `put`s (which need `&mut`, i.e. no other reference). Moving an `I` to
// that thread needs `I: Send`, nothing more.
unsafe impl<I: Send> Sync for TaskSlot<I> {}

impl<I> TaskSlot<I> {
    /// An empty slot (nothing to take).
    const EMPTY: Self = TaskSlot {
        taken: AtomicBool::new(true),
        item: UnsafeCell::new(None),
    };

    fn put(&mut self, item: I) {
        *self.item.get_mut() = Some(item);
        *self.taken.get_mut() = false;
    }

    fn take(&self) -> Option<I> {
        if self.taken.swap(true, Ordering::AcqRel) {
            return None;
        }
        // SAFETY: this call won the swap from `false` to `true`: no other `take` will
        // touch the cell until the next `put`, and `put` needs `&mut self`, which cannot
        // coexist with the `&self` of this call. So this is the only access to the cell.
        unsafe { (*self.item.get()).take() }
    }
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
    split_rows(rows, work)
}

/// The rows per task of a stage large enough to split. Out of line: its two divisions
/// would otherwise be inlined into every kernel's entry, for calls that run long enough
/// not to notice the call (issue 17).
#[inline(never)]
fn split_rows(rows: usize, work: usize) -> usize {
    let per_row = (work / rows).max(1);
    (TASK_ELEMENTS / per_row).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_chunked_gives_every_item_to_exactly_one_task() {
        // More items than one round holds, with a short last round.
        for n in [
            0,
            1,
            5,
            TASKS_PER_ROUND,
            TASKS_PER_ROUND + 1,
            3 * TASKS_PER_ROUND + 7,
        ] {
            let mut data = vec![0u32; n * 3];
            run_chunked(data.chunks_mut(3).enumerate(), &|(i, chunk): (
                usize,
                &mut [u32],
            )| {
                for (j, x) in chunk.iter_mut().enumerate() {
                    *x += (i * 3 + j) as u32 + 1;
                }
            });
            let want: Vec<u32> = (1..=n as u32 * 3).collect();
            assert_eq!(data, want, "n = {n}");
        }
    }

    #[test]
    fn a_slot_gives_its_item_once() {
        let mut slot = TaskSlot::EMPTY;
        assert_eq!(slot.take(), None);
        slot.put(7);
        assert_eq!(slot.take(), Some(7));
        assert_eq!(slot.take(), None);
        slot.put(8);
        assert_eq!(slot.take(), Some(8));
    }

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
