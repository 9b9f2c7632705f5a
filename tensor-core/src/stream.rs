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

/// The alignment a chunk of `LANES` elements of `E` needs for streaming stores: its size,
/// up to one cache line; 0 where chunks are too small to stream (under 16 bytes).
#[inline(always)]
const fn chunk_alignment<E>() -> usize {
    let bytes = LANES * core::mem::size_of::<E>();
    if bytes < 16 || bytes % 16 != 0 {
        0
    } else if bytes < 64 {
        bytes
    } else {
        64
    }
}

/// How many elements from `dst[offset]` on to store the ordinary way so that the chunks
/// after them start at an address [`store_streaming`] can stream to: fewer than `LANES`,
/// or 0 when no head of fewer than `LANES` elements aligns them.
#[inline(always)]
pub fn stream_head<E: Element>(dst: &[E], offset: usize) -> usize {
    let align = chunk_alignment::<E>();
    let size = core::mem::size_of::<E>();
    if align == 0 || size == 0 {
        return 0;
    }
    let address = (dst.as_ptr() as usize).wrapping_add(offset.wrapping_mul(size));
    let gap = (align - address % align) % align;
    if gap % size != 0 || gap / size >= LANES {
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
    // The range is `LANES` long: the `expect` cannot fire; the index is in bounds as for
    // `lanes::store` (generated code streams only full chunks of an output row).
    let chunk: &mut [E; LANES] = (&mut dst[offset..offset + LANES])
        .try_into()
        .expect("a full chunk is LANES long");
    let mut values = [E::default(); LANES];
    for (slot, lane) in values.iter_mut().zip(value.0) {
        *slot = E::from_compute(lane);
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let align = chunk_alignment::<E>();
        if align != 0 && (chunk.as_ptr() as usize) % align == 0 {
            // SAFETY: `chunk` is `LANES` elements of `dst`, exclusively borrowed, so its
            // `size_of::<[E; LANES]>()` bytes are valid for writes; `values` is a local
            // array of the same size, valid for reads. The size is a multiple of 16 and
            // the address a multiple of `align` (≥ 16, and the width of every piece
            // `stream_bytes` writes, checked just above), as the instructions require. Any
            // bit pattern of `E` written is one that `E::from_compute` produced.
            unsafe {
                stream_bytes(
                    chunk.as_mut_ptr().cast::<u8>(),
                    values.as_ptr().cast::<u8>(),
                    core::mem::size_of::<[E; LANES]>(),
                    align,
                )
            };
            return;
        }
    }
    *chunk = values;
}

/// Copies `bytes` bytes from `src` to `dst` with non-temporal stores of `align` bytes each
/// (the widest vector the build has, at most `align`).
///
/// # Safety
/// `dst` valid for `bytes` bytes of writes and aligned to `align`; `src` valid for `bytes`
/// bytes of reads; `align` 16, 32 or 64 and dividing `bytes`.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn stream_bytes(dst: *mut u8, src: *const u8, bytes: usize, align: usize) {
    use core::arch::x86_64::*;
    let mut at = 0;
    #[cfg(target_feature = "avx512f")]
    if align == 64 {
        while at < bytes {
            // SAFETY: `at + 64 <= bytes` (64 divides `bytes`), `dst + at` is 64-aligned
            // (`dst` is, and `at` is a multiple of 64); AVX-512F is enabled at compile time.
            unsafe {
                let v = _mm512_loadu_si512(src.add(at).cast());
                _mm512_stream_si512(dst.add(at).cast(), v);
            }
            at += 64;
        }
        return;
    }
    #[cfg(target_feature = "avx")]
    if align >= 32 {
        while at < bytes {
            // SAFETY: as above with 32-byte pieces (32 divides `align`, which divides
            // `bytes`); AVX is enabled at compile time.
            unsafe {
                let v = _mm256_loadu_si256(src.add(at).cast());
                _mm256_stream_si256(dst.add(at).cast(), v);
            }
            at += 32;
        }
        return;
    }
    let _ = align;
    while at < bytes {
        // SAFETY: as above with 16-byte pieces (16 divides `align`); SSE2 is part of every
        // x86-64 CPU.
        unsafe {
            let v = _mm_loadu_si128(src.add(at).cast());
            _mm_stream_si128(dst.add(at).cast(), v);
        }
        at += 16;
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

    /// Every offset of an output, from every misalignment of the buffer: the head plus
    /// streamed chunks plus ordinary tails write exactly what ordinary stores would.
    #[test]
    fn streaming_chunks_write_what_stores_write() {
        fn check<E: Element>(make: impl Fn(usize) -> E::Compute)
        where
            E::Compute: Copy,
        {
            let len = 8 * LANES + 13;
            for shift in 0..LANES {
                let mut backing = vec![E::default(); len + shift];
                let dst = &mut backing[shift..];
                let head = stream_head(dst, 0);
                assert!(head < LANES);
                let mut expected = vec![E::default(); len];
                let mut j = 0;
                let mut put = |dst: &mut [E], j: usize, n: usize, stream: bool| {
                    let value = V(core::array::from_fn(|i| make(j + i)));
                    if stream {
                        store_streaming(dst, j, value);
                    } else {
                        crate::lanes::store(dst, j, n, value);
                    }
                    for i in 0..n {
                        expected[j + i] = E::from_compute(make(j + i));
                    }
                };
                if head > 0 {
                    put(dst, 0, head, false);
                    j = head;
                }
                while j + LANES <= len {
                    put(dst, j, LANES, true);
                    j += LANES;
                }
                if j < len {
                    put(dst, j, len - j, false);
                }
                stream_fence();
                assert_eq!(&dst[..], &expected[..], "shift {shift}");
                let align = chunk_alignment::<E>();
                if align != 0 && (dst.as_ptr() as usize) % core::mem::size_of::<E>() == 0 {
                    let address = dst.as_ptr() as usize + head * core::mem::size_of::<E>();
                    assert_eq!(address % align, 0, "shift {shift}: head {head}");
                }
            }
        }
        check::<f32>(|i| i as f32 * 0.5 - 3.0);
        check::<f64>(|i| i as f64 * -0.25);
        check::<u8>(|i| (i * 7) as u8);
        check::<i64>(|i| i as i64 - 40);
        check::<bool>(|i| i % 3 == 0);
        check::<crate::f16>(|i| i as f32 * 0.1);
    }
}
