//! AVX2 + FMA micro-kernels (x86-64), compiled with `#[target_feature]` so a baseline build
//! carries them and uses them only on CPUs that have the features.
//!
//! The f32 kernel keeps a 6×16 tile in twelve `ymm` accumulators; per `k` step it loads two
//! `ymm` of packed `B`, broadcasts six values of packed `A` and issues twelve FMAs — 16
//! registers in all. The f64 kernel is the same with a 6×8 tile.
//!
//! Each safe wrapper asserts the CPU features and the [`MicroFn`](super::kernel::MicroFn)
//! contract before its `unsafe` call, so it is sound whoever calls it.

use super::kernel::{check_tile, generic_tile, Kernel};
use core::arch::x86_64::*;

/// Whether the CPU runs the kernels of this file.
pub(super) fn has_avx2_fma() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

/// f32, 6×16 tile. Blocks for Zen 3-class caches (32 KiB L1d, 512 KiB L2 per core):
/// `kc = 256` puts a 16 KiB `B` micro-panel and a 6 KiB `A` micro-panel in L1; `mc = 144`
/// makes the packed `A` block 144 KiB, well inside L2; `nc = 4080` makes the packed `B`
/// block 4 MiB, a share of L3.
pub(super) static AVX2_F32: Kernel<f32, f32> = Kernel {
    name: "avx2-fma 6x16",
    mr: 6,
    nr: 16,
    mc: 144,
    kc: 256,
    nc: 4080,
    run: f32_6x16,
};

/// f64, 6×8 tile; the same bytes per block as the f32 kernel.
pub(super) static AVX2_F64: Kernel<f64, f64> = Kernel {
    name: "avx2-fma 6x8",
    mr: 6,
    nr: 8,
    mc: 72,
    kc: 256,
    nc: 2040,
    run: f64_6x8,
};

/// i32 products summed in i32 (wrapping), 6×16.
pub(super) static AVX2_I32_I32: Kernel<i32, i32> = Kernel {
    name: "avx2 6x16",
    mr: 6,
    nr: 16,
    mc: 144,
    kc: 256,
    nc: 4080,
    run: i32_6x16::<i32>,
};

/// i32 products summed in i32 within a `k` block and added into i64 `C`.
pub(super) fn avx2_i32_i64() -> Kernel<i32, i64> {
    Kernel {
        name: "avx2 6x16",
        mr: 6,
        nr: 16,
        mc: 144,
        kc: 256,
        nc: 4080,
        run: i32_6x16::<i64>,
    }
}

#[allow(clippy::too_many_arguments)]
fn f32_6x16(
    kc: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    assert!(has_avx2_fma(), "the AVX2 kernel needs AVX2 and FMA");
    check_tile(kc, a, b, c, ldc, (mr, nr), (6, 16));
    // SAFETY: the CPU has AVX2 and FMA (asserted), and `check_tile` asserted the lengths
    // `f32_6x16_avx2` relies on: it reads `a[..6·kc]`, `b[..16·kc]` and touches
    // `c[i·ldc + j]` only for `i < mr`, `j < nr`.
    unsafe {
        f32_6x16_avx2(
            kc,
            a.as_ptr(),
            b.as_ptr(),
            c.as_mut_ptr(),
            ldc,
            mr,
            nr,
            first,
        )
    }
}

/// # Safety
/// AVX2 and FMA present; `a` valid for `6·kc` reads, `b` for `16·kc`, and `c[i·ldc + j]`
/// valid for reads and writes for `i < mr ≤ 6`, `j < nr ≤ 16`.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn f32_6x16_avx2(
    kc: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    // Warm the tile of C the kernel ends on (rows `ldc` apart, often 4 KiB: the same L1
    // set, which the hardware prefetcher does not guess).
    for i in 0..mr {
        // SAFETY: prefetches never fault; the addresses are inside the tile anyway.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(c.add(i * ldc) as *const i8);
            _mm_prefetch::<_MM_HINT_T0>(c.add(i * ldc + nr - 1) as *const i8);
        }
    }
    let mut acc = [[_mm256_setzero_ps(); 2]; 6];
    // One `k` step: two loads of B, six broadcasts of A, twelve FMAs.
    macro_rules! step {
        ($p:expr) => {{
            // SAFETY: the caller keeps p < kc, so `b + 16p .. + 16` and `a + 6p .. + 6`
            // are inside the panels (the caller's contract).
            let (b0, b1, ap) = unsafe {
                let bp = b.add(16 * $p);
                (
                    _mm256_loadu_ps(bp),
                    _mm256_loadu_ps(bp.add(8)),
                    a.add(6 * $p),
                )
            };
            for (i, row) in acc.iter_mut().enumerate() {
                // SAFETY: i < 6, inside the `A` step (see above).
                let ai = unsafe { _mm256_broadcast_ss(&*ap.add(i)) };
                row[0] = _mm256_fmadd_ps(ai, b0, row[0]);
                row[1] = _mm256_fmadd_ps(ai, b1, row[1]);
            }
        }};
    }
    // Four steps per trip (fewer loop branches and address updates); then the rest.
    let mut p = 0;
    while p + 4 <= kc {
        step!(p);
        step!(p + 1);
        step!(p + 2);
        step!(p + 3);
        p += 4;
    }
    while p < kc {
        step!(p);
        p += 1;
    }
    if mr == 6 && nr == 16 {
        for (i, row) in acc.iter().enumerate() {
            // SAFETY: a full tile: `c + i·ldc + 0..16` for i < 6 = mr, 16 = nr is inside
            // the caller's contract.
            unsafe {
                let cp = c.add(i * ldc);
                let (mut lo, mut hi) = (row[0], row[1]);
                if !first {
                    lo = _mm256_add_ps(lo, _mm256_loadu_ps(cp));
                    hi = _mm256_add_ps(hi, _mm256_loadu_ps(cp.add(8)));
                }
                _mm256_storeu_ps(cp, lo);
                _mm256_storeu_ps(cp.add(8), hi);
            }
        }
    } else {
        let mut tile = [[0f32; 16]; 6];
        for (t, row) in tile.iter_mut().zip(&acc) {
            // SAFETY: `t` is a local [f32; 16]: 16 writable floats.
            unsafe {
                _mm256_storeu_ps(t.as_mut_ptr(), row[0]);
                _mm256_storeu_ps(t.as_mut_ptr().add(8), row[1]);
            }
        }
        for (i, t) in tile.iter().enumerate().take(mr) {
            for (j, &v) in t.iter().enumerate().take(nr) {
                // SAFETY: i < mr, j < nr: inside the caller's contract.
                unsafe {
                    let cp = c.add(i * ldc + j);
                    *cp = if first { v } else { *cp + v };
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn f64_6x8(
    kc: usize,
    a: &[f64],
    b: &[f64],
    c: &mut [f64],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    assert!(has_avx2_fma(), "the AVX2 kernel needs AVX2 and FMA");
    check_tile(kc, a, b, c, ldc, (mr, nr), (6, 8));
    // SAFETY: as in `f32_6x16`, with `a[..6·kc]`, `b[..8·kc]`, `i < mr ≤ 6`, `j < nr ≤ 8`.
    unsafe {
        f64_6x8_avx2(
            kc,
            a.as_ptr(),
            b.as_ptr(),
            c.as_mut_ptr(),
            ldc,
            mr,
            nr,
            first,
        )
    }
}

/// # Safety
/// AVX2 and FMA present; `a` valid for `6·kc` reads, `b` for `8·kc`, and `c[i·ldc + j]`
/// valid for reads and writes for `i < mr ≤ 6`, `j < nr ≤ 8`.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn f64_6x8_avx2(
    kc: usize,
    a: *const f64,
    b: *const f64,
    c: *mut f64,
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    let mut acc = [[_mm256_setzero_pd(); 2]; 6];
    for p in 0..kc {
        // SAFETY: p < kc: `b + 8p .. + 8` and `a + 6p .. + 6` are inside the panels.
        let (b0, b1, ap) = unsafe {
            let bp = b.add(8 * p);
            (
                _mm256_loadu_pd(bp),
                _mm256_loadu_pd(bp.add(4)),
                a.add(6 * p),
            )
        };
        for (i, row) in acc.iter_mut().enumerate() {
            // SAFETY: i < 6, inside the `A` step.
            let ai = unsafe { _mm256_broadcast_sd(&*ap.add(i)) };
            row[0] = _mm256_fmadd_pd(ai, b0, row[0]);
            row[1] = _mm256_fmadd_pd(ai, b1, row[1]);
        }
    }
    if mr == 6 && nr == 8 {
        for (i, row) in acc.iter().enumerate() {
            // SAFETY: a full tile: `c + i·ldc + 0..8`, i < 6, inside the contract.
            unsafe {
                let cp = c.add(i * ldc);
                let (mut lo, mut hi) = (row[0], row[1]);
                if !first {
                    lo = _mm256_add_pd(lo, _mm256_loadu_pd(cp));
                    hi = _mm256_add_pd(hi, _mm256_loadu_pd(cp.add(4)));
                }
                _mm256_storeu_pd(cp, lo);
                _mm256_storeu_pd(cp.add(4), hi);
            }
        }
    } else {
        let mut tile = [[0f64; 8]; 6];
        for (t, row) in tile.iter_mut().zip(&acc) {
            // SAFETY: `t` is a local [f64; 8]: 8 writable doubles.
            unsafe {
                _mm256_storeu_pd(t.as_mut_ptr(), row[0]);
                _mm256_storeu_pd(t.as_mut_ptr().add(4), row[1]);
            }
        }
        for (i, t) in tile.iter().enumerate().take(mr) {
            for (j, &v) in t.iter().enumerate().take(nr) {
                // SAFETY: i < mr, j < nr: inside the caller's contract.
                unsafe {
                    let cp = c.add(i * ldc + j);
                    *cp = if first { v } else { *cp + v };
                }
            }
        }
    }
}

/// The plain-Rust integer tile compiled for AVX2 (LLVM turns its `NR` loop into `vpmulld`
/// and `vpaddd`).
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn i32_tile_avx2<O: super::kernel::Store<i32>>(
    kc: usize,
    a: &[i32],
    b: &[i32],
    c: &mut [O],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    generic_tile::<i32, O, 6, 16>(kc, a, b, c, ldc, mr, nr, first)
}

/// The AVX2 integer kernel for an `i32` or `i64` output (one instance per output type).
#[allow(clippy::too_many_arguments)]
fn i32_6x16<O: super::kernel::Store<i32>>(
    kc: usize,
    a: &[i32],
    b: &[i32],
    c: &mut [O],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    assert!(has_avx2_fma(), "the AVX2 kernel needs AVX2");
    // SAFETY: the CPU has AVX2 (asserted); the body is safe code that checks its slices.
    unsafe { i32_tile_avx2(kc, a, b, c, ldc, mr, nr, first) }
}
