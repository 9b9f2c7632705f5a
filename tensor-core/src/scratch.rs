//! Scratch buffers for a kernel's temps (reduction accumulators, materialised values,
//! a product's row blocks), kept per thread and per element type and reused call after
//! call: a graph's `_into` allocates on its first call on a thread (and when a later
//! call needs a larger buffer), then no more.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

/// Buffers a thread keeps per element type: enough for the temps of one kernel.
const POOLED: usize = 32;

/// Element types with a per-thread pool of buffers.
pub trait Scratch: Copy + 'static {
    /// Runs `f` on this thread's pool of buffers of this type; `None` while the thread's
    /// locals are being destroyed.
    fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R>;
}

macro_rules! pools {
    ($($t:ty),*) => {$(
        impl Scratch for $t {
            fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<$t>>) -> R) -> Option<R> {
                thread_local! {
                    static POOL: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
                }
                POOL.try_with(|pool| f(&mut pool.borrow_mut())).ok()
            }
        }
    )*};
}
pools!(
    bool,
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    half::f16,
    half::bf16,
    f32,
    f64
);

/// A buffer of `len` elements, each `init`, taken from this thread's pool and given back
/// when dropped.
pub struct ScratchVec<T: Scratch> {
    vec: Vec<T>,
}

impl<T: Scratch> ScratchVec<T> {
    /// A buffer of `len` copies of `init`: the smallest pooled buffer with room for `len`
    /// if there is one, else the largest (which grows), else a new one.
    pub fn new(len: usize, init: T) -> Self {
        let mut vec = Self::take(len);
        vec.clear();
        vec.resize(len, init);
        ScratchVec { vec }
    }

    /// A buffer of `len` elements whose contents are whatever an earlier user of the
    /// pooled buffer left (`init` only where it grows): for buffers that are written
    /// before they are read (a packed operand, a product's block), so a call does not
    /// clear megabytes it is about to overwrite.
    pub fn stale(len: usize, init: T) -> Self {
        let mut vec = Self::take(len);
        vec.truncate(len);
        vec.resize(len, init);
        ScratchVec { vec }
    }

    /// The pooled buffer [`new`](ScratchVec::new) and [`stale`](ScratchVec::stale) start
    /// from.
    fn take(len: usize) -> Vec<T> {
        T::with_pool(|pool| {
            // The smallest that fits, so that the temps of one kernel find their own
            // buffers again on the next call.
            let fits = (0..pool.len())
                .filter(|&i| pool[i].capacity() >= len)
                .min_by_key(|&i| pool[i].capacity());
            let pick = fits.or_else(|| (0..pool.len()).max_by_key(|&i| pool[i].capacity()));
            pick.map(|i| pool.swap_remove(i))
        })
        .flatten()
        .unwrap_or_default()
    }
}

impl<T: Scratch> Deref for ScratchVec<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.vec
    }
}

impl<T: Scratch> DerefMut for ScratchVec<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.vec
    }
}

impl<T: Scratch> Drop for ScratchVec<T> {
    fn drop(&mut self) {
        let vec = std::mem::take(&mut self.vec);
        if vec.capacity() == 0 {
            return;
        }
        // A buffer dropped while the thread's pools are torn down is simply freed.
        T::with_pool(|pool| {
            if pool.len() < POOLED {
                pool.push(vec);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_initialised_and_reused() {
        let first_ptr = {
            let mut a = ScratchVec::<f32>::new(100, 1.5);
            assert!(a.iter().all(|&v| v == 1.5));
            a[3] = 7.0;
            a.as_ptr()
        };
        let b = ScratchVec::<f32>::new(50, 0.0);
        // The same allocation, re-initialised.
        assert_eq!(b.as_ptr(), first_ptr);
        assert_eq!(b.len(), 50);
        assert!(b.iter().all(|&v| v == 0.0));
        // Two live buffers are distinct.
        let c = ScratchVec::<f32>::new(10, 2.0);
        assert_ne!(b.as_ptr(), c.as_ptr());
        let e = ScratchVec::<i64>::new(0, 0);
        assert!(e.is_empty());
    }
}
