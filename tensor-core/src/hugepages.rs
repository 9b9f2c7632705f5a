//! Transparent huge pages for large tensor buffers (Linux).
//!
//! A tensor of 16 MiB spans 4096 pages of 4 KiB: a kernel walking it row by row takes a
//! TLB miss on nearly every 4 KiB row, and on a busy machine each page walk waits on
//! memory. Linux backs memory with 2 MiB pages where a program asks for them
//! (`madvise(MADV_HUGEPAGE)`; the system default here is `madvise`, so nothing is backed
//! otherwise). NumPy asks for every array of 4 MiB or more, so the peers of the benchmarks
//! (BENCHMARKS.md "Peers") ran on huge pages and tensorgraph's tensors did not. Measured
//! with the system switched to `always` (the same effect), native build, one thread, CPU
//! ms, load 2.5-3 (2026-11-27): W1 `relu(a + b) * 2` of `f32[16M]` 6.23/6.40 -> 5.35/5.05, W5
//! `sum(x, axis = 1)` 0.325/0.298 -> 0.268/0.260, W4 (layer norm) 1.87/1.88 -> 1.69/1.55.
//!
//! The advice is asked for a buffer's whole 2 MiB pages, before its first write (a page
//! already touched keeps its 4 KiB pages until the kernel's background collapse). Buffers
//! the caller allocates (`Tensor::from_vec`, slices, `Vec`s) keep what their allocator gave;
//! [`vec_filled`] gives a program's own `Vec`s the advice.
//! On other systems, under Miri, and for buffers under [`HUGE_MIN_BYTES`], nothing is done.

// The one libc function used, declared here rather than through the `libc` crate, whose
// build (a build script and ~0.9 s of rustc) every user's clean build paid for one call.
// std links the C library on Linux, so the symbol resolves; the signature and the value of
// MADV_HUGEPAGE (14 on every Linux architecture, asm-generic/mman-common.h) are those of
// the `libc` crate 0.2.191 (src/unix/linux_like/mod.rs).
#[cfg(all(target_os = "linux", not(miri)))]
const MADV_HUGEPAGE: core::ffi::c_int = 14;
#[cfg(all(target_os = "linux", not(miri)))]
extern "C" {
    fn madvise(
        addr: *mut core::ffi::c_void,
        len: usize,
        advice: core::ffi::c_int,
    ) -> core::ffi::c_int;
}

/// Buffers of at least this many bytes ask for huge pages (NumPy's threshold).
pub const HUGE_MIN_BYTES: usize = 4 << 20;

/// Asks the kernel to back the whole 2 MiB pages of `bytes` bytes at `start` with huge
/// pages. Advice only: contents, validity and the allocation are unchanged, and a failure
/// (an old kernel, huge pages disabled) is ignored.
#[inline]
pub(crate) fn advise(start: *const u8, bytes: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        const HUGE: usize = 2 << 20;
        if bytes < HUGE_MIN_BYTES {
            return;
        }
        let begin = (start as usize).next_multiple_of(HUGE);
        let end = (start as usize).saturating_add(bytes) / HUGE * HUGE;
        if end > begin {
            // SAFETY: `begin..end` lies inside the caller's allocation `start..start + bytes`
            // (rounded inwards to 2 MiB), so it is mapped memory this process owns.
            // MADV_HUGEPAGE is advice about how to back those pages: it changes no
            // contents and no mapping, whatever its result, which is ignored.
            // The declaration above is C's `int madvise(void *, size_t, int)` (glibc, musl).
            unsafe {
                madvise(begin as *mut core::ffi::c_void, end - begin, MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (start, bytes);
}

/// An empty `Vec` with room for `len` elements, its large allocation advised as above.
#[inline]
pub(crate) fn with_capacity<T>(len: usize) -> Vec<T> {
    let data: Vec<T> = Vec::with_capacity(len);
    advise(
        data.as_ptr().cast(),
        len.saturating_mul(core::mem::size_of::<T>()),
    );
    data
}

/// `len` copies of `value`, written after the advice.
#[inline]
pub(crate) fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut data = with_capacity(len);
    data.resize(len, value);
    data
}

/// A `Vec` of `len` copies of `value` on huge pages where Linux grants them: for data a
/// program holds in `Vec`s and passes to graphs as slices (graphs with run-time dims). A
/// `Vec` from `vec![…]` or `collect()` gets 4 KiB pages on systems whose transparent huge
/// pages are `madvise` (a common default), and a kernel walking a large one row by row
/// pays a TLB miss per page: softmax over `f32[4096, 1024]` from such `Vec`s took 2.05 ms
/// against 1.73 from advised buffers (BENCHMARKS.md "Peers", sixth session). `Tensor`s
/// ask for huge pages themselves, and so does NumPy for its arrays. Advice only: the
/// result is an ordinary `Vec` (freed, grown and converted as any other), and buffers
/// under 4 MiB or off Linux are not advised.
///
#[cfg_attr(not(doctest), doc = include_str!("doc_examples/hugepages_vec_filled.md"))]
pub fn vec_filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    filled(len, value)
}

#[cfg(test)]
mod tests {
    #[test]
    fn large_buffers_are_advised_and_keep_their_values() {
        let v = super::filled(3 << 20, 1.5f32);
        assert_eq!(v.len(), 3 << 20);
        assert!(v.iter().all(|&x| x == 1.5));
        let small = super::filled(10, 7u8);
        assert_eq!(small, vec![7u8; 10]);
        let mut w: Vec<u64> = super::with_capacity(1 << 20);
        assert!(w.is_empty() && w.capacity() >= 1 << 20);
        w.extend(0..1 << 20);
        assert_eq!(w[12345], 12345);
        // No allocation at all: nothing to advise.
        let empty: Vec<f64> = super::filled(0, 0.0);
        assert!(empty.is_empty());
        // Zero-sized elements: a dangling pointer and no bytes.
        let units = super::filled(1000, ());
        assert_eq!(units.len(), 1000);
    }

    /// On Linux, the mapping that holds a large advised buffer carries the huge-page advice
    /// (`hg` in its VmFlags, /proc/self/smaps): deterministic, whether or not the kernel
    /// then finds free 2 MiB pages. A small buffer's mapping is not asked.
    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn large_buffers_carry_the_advice() {
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
            eprintln!("no /proc/self/smaps here");
            return;
        };
        let v = super::filled(16 << 20, 1u8);
        let smaps_now = std::fs::read_to_string("/proc/self/smaps").unwrap_or(smaps);
        let at = v.as_ptr() as usize + (8 << 20);
        let mut inside = false;
        let mut flags = None;
        for line in smaps_now.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = range.split_once('-') {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = lo <= at && at < hi;
                    continue;
                }
            }
            if inside && line.starts_with("VmFlags:") {
                flags = Some(line.to_string());
            }
        }
        let flags = flags.expect("the buffer's mapping is listed");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
        assert_eq!(v[(16 << 20) - 1], 1);
    }
}
