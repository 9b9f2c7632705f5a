//! Non-temporal ("streaming") stores for outputs larger than the caches.
//!
//! An ordinary store to a line that is not in the cache first reads the line from memory
//! (a read-for-ownership), so a kernel writing a 64 MiB output moves it twice. A
//! non-temporal store writes whole lines without reading them and without filling the
//! cache. Graph loops whose outputs are too large to stay in the last-level cache anyway
//! (`emit/nests.rs`, `STREAM_MIN_BYTES`) store their full chunks with [`store_streaming`]:
//! W1 (`relu(a + b) * 2` of `f32[16M]`) moves three streams instead of four (BENCHMARKS.md
//! "Streaming stores").
//!
//! The x86 instructions need aligned addresses; [`stream_head`] tells a loop how many
//! elements to store the ordinary way first so that its chunks start aligned, and
//! [`store_streaming`] checks the alignment of every chunk itself, falling back to an
//! ordinary store, so a wrong head costs speed, never correctness. Streaming stores are
//! weakly ordered: a loop that used them ends with [`stream_fence`] before another thread
//! may read what it wrote.

use crate::dtype::Element;
use crate::lanes::{LANES, V};

/// The alignment a chunk of `lanes` elements of `E` needs for streaming stores: its size,
/// up to one cache line; 0 where chunks are too small to stream (under 16 bytes).
#[inline(always)]
const fn chunk_alignment<E>(lanes: usize) -> usize {
    let bytes = lanes * core::mem::size_of::<E>();
    if bytes < 16 || bytes % 16 != 0 {
        0
    } else if bytes < 64 {
        bytes
    } else {
        64
    }
}

/// The widest non-temporal store the build's target features give, in bytes: 64 with
/// AVX-512F, 32 with AVX, else 16 (SSE2, every x86-64 CPU).
const BUILD_WIDTH: usize = if cfg!(target_feature = "avx512f") {
    64
} else if cfg!(target_feature = "avx") {
    32
} else {
    16
};

/// How many elements from `dst[offset]` on to store the ordinary way so that the chunks
/// after them start at an address [`store_streaming`] can stream to: fewer than `LANES`,
/// or 0 when no head of fewer than `LANES` elements aligns them.
#[inline(always)]
pub fn stream_head<E: Element>(dst: &[E], offset: usize) -> usize {
    stream_head_for::<E>(dst, offset, LANES)
}

/// [`stream_head`] for chunks of `lanes` elements (the dispatched AVX-512 copy's 16,
/// lanes_avx512.rs): fewer than `lanes`, aligning the chunks to their size up to 64 bytes.
#[inline(always)]
pub(crate) fn stream_head_for<E: Element>(dst: &[E], offset: usize, lanes: usize) -> usize {
    let align = chunk_alignment::<E>(lanes);
    let size = core::mem::size_of::<E>();
    if align == 0 || size == 0 {
        return 0;
    }
    let address = (dst.as_ptr() as usize).wrapping_add(offset.wrapping_mul(size));
    let gap = (align - address % align) % align;
    if gap % size != 0 || gap / size >= lanes {
        return 0;
    }
    gap / size
}

/// Writes the `LANES` lanes of `value` to `dst[offset..offset + LANES]` as `lanes::store`
/// does (rounding once into the storage dtype), with non-temporal stores when the chunk's
/// address is aligned for them; an ordinary store otherwise (and on targets without them,
/// and under Miri). Panics (never writes out of bounds) if the chunk leaves `dst`.
#[inline(always)]
pub fn store_streaming<E: Element>(dst: &mut [E], offset: usize, value: V<E::Compute>) {
    // SAFETY: `BUILD_WIDTH` is a width the build's own target features provide, so every
    // CPU that runs this code has its instructions.
    unsafe { store_streaming_lanes::<E, LANES>(dst, offset, value.0, BUILD_WIDTH) }
}

/// [`store_streaming`] for a chunk of `N` lanes, with non-temporal stores up to
/// `max_width` bytes wide (16, 32 or 64) whatever the build's target features: the
/// dispatched AVX2 copy's 8 lanes with 32-byte stores (lanes_avx2.rs) and the AVX-512
/// copy's 16 with 64-byte ones (lanes_avx512.rs), where the build's own width is 16
/// (`movntdq`). The chunk streams when its address is a multiple of its size up to 64
/// bytes (`stream_head_for` gives the head that makes it so); each store is
/// `min(alignment, max_width)` bytes wide.
///
/// # Safety
/// The running CPU has AVX-512F if `max_width` is 64, AVX if it is 32.
#[inline(always)]
pub(crate) unsafe fn store_streaming_lanes<E: Element, const N: usize>(
    dst: &mut [E],
    offset: usize,
    lanes: [E::Compute; N],
    max_width: usize,
) {
    // The range is `N` long: the `expect` cannot fire; the index is in bounds as for
    // `lanes::store` (generated code streams only full chunks of an output row).
    let chunk: &mut [E; N] = (&mut dst[offset..offset + N])
        .try_into()
        .expect("a full chunk is N long");
    let mut values = [E::default(); N];
    for (slot, lane) in values.iter_mut().zip(lanes) {
        *slot = E::from_compute(lane);
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let align = chunk_alignment::<E>(N);
        if align != 0 && (chunk.as_ptr() as usize) % align == 0 {
            // SAFETY: `chunk` is `N` elements of `dst`, exclusively borrowed, so its
            // `size_of::<[E; N]>()` bytes are valid for writes; `values` is a local array
            // of the same size, valid for reads. The size is a multiple of `align` (16, 32
            // or 64, `chunk_alignment`), the address a multiple of `align` (checked just
            // above), and the width `min(align, max_width)` divides both (all are powers of
            // two); the CPU has that width's instructions (this function's contract). Any
            // bit pattern of `E` written is one that `E::from_compute` produced.
            unsafe {
                stream_bytes(
                    chunk.as_mut_ptr().cast::<u8>(),
                    values.as_ptr().cast::<u8>(),
                    core::mem::size_of::<[E; N]>(),
                    align.min(max_width),
                )
            };
            return;
        }
    }
    let _ = max_width;
    *chunk = values;
}

/// Copies `bytes` bytes from `src` to `dst` with non-temporal stores `width` bytes wide
/// (`vmovntdq zmm` for 64, `vmovntdq ymm` for 32, `movntdq` for 16).
///
/// # Safety
/// `width` is 16, 32 or 64 and divides `bytes`; `dst` valid for `bytes` bytes of writes and
/// aligned to `width`; `src` valid for `bytes` bytes of reads; the running CPU has AVX-512F
/// if `width` is 64 and AVX if it is 32.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn stream_bytes(dst: *mut u8, src: *const u8, bytes: usize, width: usize) {
    use core::arch::x86_64::*;
    let mut at = 0;
    while at < bytes {
        // SAFETY: `at + width <= bytes` (`width` divides `bytes`, `at` is a multiple of
        // it), so both ranges are inside the caller's; `dst + at` is `width`-aligned (`dst`
        // is, and `at` is a multiple of `width`), as the streaming stores require; the
        // loads are unaligned ones. The CPU has the width's instructions (the contract).
        unsafe {
            match width {
                64 => {
                    let v = _mm512_loadu_si512(src.add(at).cast());
                    _mm512_stream_si512(dst.add(at).cast(), v);
                }
                32 => {
                    let v = _mm256_loadu_si256(src.add(at).cast());
                    _mm256_stream_si256(dst.add(at).cast(), v);
                }
                _ => {
                    let v = _mm_loadu_si128(src.add(at).cast());
                    _mm_stream_si128(dst.add(at).cast(), v);
                }
            }
        }
        at += width;
    }
}

/// Orders this thread's earlier streaming stores before its later stores (`sfence`), so
/// that whoever synchronises with this thread afterwards (a rayon join, the caller) sees
/// them. Nothing on other targets and under Miri.
#[inline(always)]
pub fn stream_fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` (SSE, in every x86-64 CPU) only orders stores; it reads and writes
    // no memory.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every offset of an output, from every misalignment of the buffer, for chunks of `N`
    /// lanes streamed `width` bytes at a time: the head (`stream_head_for`) plus streamed
    /// chunks plus ordinary tails write exactly what ordinary stores would, and the head
    /// aligns the chunks.
    fn check<E: Element, const N: usize>(make: impl Fn(usize) -> E::Compute, width: usize) {
        let len = 8 * N + 13;
        for shift in 0..N {
            let mut backing = vec![E::default(); len + shift];
            let dst = &mut backing[shift..];
            let head = stream_head_for(dst, 0, N);
            assert!(head < N);
            let expected: Vec<E> = (0..len).map(|i| E::from_compute(make(i))).collect();
            for (i, slot) in dst[..head].iter_mut().enumerate() {
                *slot = E::from_compute(make(i));
            }
            let mut j = head;
            while j + N <= len {
                let lanes = core::array::from_fn(|i| make(j + i));
                // SAFETY: the callers pass a `width` the CPU has (checked at run time).
                unsafe { store_streaming_lanes::<E, N>(dst, j, lanes, width) };
                j += N;
            }
            for (i, slot) in dst.iter_mut().enumerate().skip(j) {
                *slot = E::from_compute(make(i));
            }
            stream_fence();
            assert_eq!(
                &dst[..],
                &expected[..],
                "{N} lanes, width {width}, shift {shift}"
            );
            let align = chunk_alignment::<E>(N);
            if align != 0 && (dst.as_ptr() as usize) % core::mem::size_of::<E>() == 0 {
                let address = dst.as_ptr() as usize + head * core::mem::size_of::<E>();
                assert_eq!(address % align, 0, "{N} lanes, shift {shift}: head {head}");
            }
        }
    }

    /// Each dtype family at `N` lanes and `width`.
    fn check_dtypes<const N: usize>(width: usize) {
        check::<f32, N>(|i| i as f32 * 0.5 - 3.0, width);
        check::<f64, N>(|i| i as f64 * -0.25, width);
        check::<u8, N>(|i| (i * 7) as u8, width);
        check::<i64, N>(|i| i as i64 - 40, width);
        check::<bool, N>(|i| i % 3 == 0, width);
        check::<crate::f16, N>(|i| i as f32 * 0.1, width);
    }

    /// The build's chunks through the public entry points (`stream_head`,
    /// `store_streaming`), as generated code calls them.
    #[test]
    fn streaming_chunks_write_what_stores_write() {
        fn public<E: Element>(make: impl Fn(usize) -> E::Compute) {
            let len = 8 * LANES + 13;
            for shift in 0..LANES {
                let mut backing = vec![E::default(); len + shift];
                let dst = &mut backing[shift..];
                let head = stream_head(dst, 0);
                assert!(head < LANES);
                let expected: Vec<E> = (0..len).map(|i| E::from_compute(make(i))).collect();
                let chunk = |j: usize| V(core::array::from_fn(|i| make(j + i)));
                crate::lanes::store(dst, 0, head, chunk(0));
                let mut j = head;
                while j + LANES <= len {
                    store_streaming(dst, j, chunk(j));
                    j += LANES;
                }
                crate::lanes::store(dst, j, len - j, chunk(j));
                stream_fence();
                assert_eq!(&dst[..], &expected[..], "shift {shift}");
            }
        }
        public::<f32>(|i| i as f32 * 0.5 - 3.0);
        public::<f64>(|i| i as f64 * -0.25);
        public::<u8>(|i| (i * 7) as u8);
        public::<crate::f16>(|i| i as f32 * 0.1);
        check_dtypes::<LANES>(BUILD_WIDTH);
    }

    /// The dispatched copies' widths (lanes_avx2.rs: 8 lanes, 32-byte stores;
    /// lanes_avx512.rs: 16 lanes, 64-byte stores), where the CPU has them.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn wide_streaming_chunks_write_what_stores_write() {
        check_dtypes::<8>(16);
        check_dtypes::<16>(16);
        if std::arch::is_x86_feature_detected!("avx") {
            check_dtypes::<8>(32);
            check_dtypes::<16>(32);
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            check_dtypes::<16>(64);
            check_dtypes::<32>(64);
        } else {
            eprintln!("no AVX-512F: the 64-byte stores are not tested on this CPU");
        }
    }
}
