//! AVX-512 micro-kernels (x86-64), compiled with `#[target_feature]` so a baseline build
//! carries them and uses them only on CPUs that have AVX-512F.
//!
//! A tile is `MR` rows by `NV` vectors of 16 f32 (or 8 f64) lanes, held in `MR·NV` of the
//! 32 `zmm` registers; per `k` step the kernel loads `NV` vectors of packed `B`, broadcasts
//! `MR` values of packed `A` and issues `MR·NV` FMAs. Partial tiles (the right and bottom
//! edges of `C`) are read and written through lane masks, so an edge tile costs the same as
//! a full one and never touches `C` outside its `mr × nr` corner.
//!
//! Each safe wrapper asserts AVX-512F and the [`MicroFn`](super::kernel::MicroFn) contract
//! before its `unsafe` call, so it is sound whoever calls it.

use super::kernel::{check_tile, Kernel};
use super::source::Direct;
use core::arch::x86_64::*;

/// Whether the CPU runs the kernels of this file.
pub(super) fn has_avx512f() -> bool {
    is_x86_feature_detected!("avx512f")
}

/// f32, a 12×32 tile: 24 accumulators, 2 `B` vectors and the broadcasts in 32 `zmm`
/// registers; per `k` step 24 FMAs (12 cycles on two 512-bit FMA pipes) against 2 vector
/// loads and 12 broadcasts. Blocks for a Zen 5 core (48 KiB L1d, 1 MiB L2, 32 MiB L3):
/// `kc = 512` (a 64 KiB `B` micro-panel and a 24 KiB `A` micro-panel, streamed from L2 by
/// the hardware prefetcher at 15 bytes a cycle) means two passes over each `C` tile at
/// 1024³ instead of six with `kc = 192` (whose `B` micro-panel fit L1): 3-5% faster in
/// every sweep with the machine's second core left to the benchmark (`tests::tune_avx512`
/// under `tools/bench-priority`, BENCHMARKS.md); `kc` 384 and 1024 measured within 1% of
/// 512, 160-256 behind. `mc = 144` makes the packed `A` block 288 KiB of L2; `mc` from 48
/// to 432 measured within noise. `nc = 4096` covers whole rows of `B` for the benches'
/// sizes (a `kc × nc` block of 8 MiB, in L3). 6×64 and 14×32 tiles measured within 1% of
/// 12×32 at every `kc`.
pub(super) static AVX512_F32: Kernel<f32, f32> = Kernel {
    name: "avx512f 12x32",
    mr: 12,
    nr: 32,
    mc: 144,
    kc: 512,
    nc: 4096,
    run: f32_tile::<12, 2>,
};

/// f32, an 8×48 tile for convolutions (gemm/shifted.rs): the same 24 accumulators as
/// 12×32, 3 `B` vectors and 8 broadcasts per `k` step; 64 output channels are 8 whole
/// tiles (12×32 computes 72 rows for them). `kc` is the `k` block of a packed `B`
/// micro-panel (`kc × 48`): 576 keeps C3's `k` whole (a 110 KiB panel, read from L2 by
/// the seven row tiles after the first, which packed it); C3 CPU time, load ~7, fused
/// packing: 576 1.16-1.24 ms, 288 1.19-1.28, 192 1.23-1.26, 144 1.24-1.28. `mc` and `nc`
/// are unused (shifted.rs blocks the weight by bytes and packs one panel at a time).
pub(super) static AVX512_F32_CONV: Kernel<f32, f32> = Kernel {
    name: "avx512f 8x48",
    mr: 8,
    nr: 48,
    mc: 8,
    kc: 576,
    nc: 48,
    run: f32_tile::<8, 3>,
};

/// f64, a 12×16 tile: the f32 kernel's registers with half the lanes, and the same bytes
/// per block.
pub(super) static AVX512_F64: Kernel<f64, f64> = Kernel {
    name: "avx512f 12x16",
    mr: 12,
    nr: 16,
    mc: 144,
    kc: 192,
    nc: 2048,
    run: f64_12x16,
};

/// Lanes of one vector.
const F32_LANES: usize = 16;
const F64_LANES: usize = 8;

/// The mask of the first `n` of `lanes` lanes (`n ≤ lanes ≤ 16`).
#[inline(always)]
fn lane_mask(n: usize) -> u16 {
    if n >= 16 {
        u16::MAX
    } else {
        (1u16 << n) - 1
    }
}

/// Defines a safe wrapper `$safe` and its AVX-512 body `$body` for one element type.
macro_rules! avx512_tile {
    (
        $safe:ident, $body:ident, $t:ty, $vec:ty, $lanes:expr, $mask_ty:ty,
        zero: $zero:ident, load: $load:ident, bcast: $bcast:ident, fma: $fma:ident,
        mload: $mload:ident, add: $add:ident, mstore: $mstore:ident
    ) => {
        /// Safe entry: checks AVX-512F and the `MicroFn` contract for an `MR × NV·lanes`
        /// tile, then runs the AVX-512 body.
        #[allow(clippy::too_many_arguments)]
        fn $safe<const MR: usize, const NV: usize>(
            kc: usize,
            a: &[$t],
            b: &[$t],
            c: &mut [$t],
            ldc: usize,
            mr: usize,
            nr: usize,
            first: bool,
        ) {
            assert!(has_avx512f(), "the AVX-512 kernel needs AVX-512F");
            check_tile(kc, a, b, c, ldc, (mr, nr), (MR, NV * $lanes));
            // SAFETY: the CPU has AVX-512F (asserted), and `check_tile` asserted the lengths
            // the body relies on: it reads `a[..MR·kc]`, `b[..NV·lanes·kc]` and touches
            // `c[i·ldc + j]` only for `i < mr`, `j < nr`.
            unsafe {
                $body::<MR, NV>(
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
        /// AVX-512F present; `a` valid for `MR·kc` reads, `b` for `NV·lanes·kc`, and
        /// `c[i·ldc + j]` valid for reads and writes for `i < mr ≤ MR`, `j < nr ≤ NV·lanes`.
        #[target_feature(enable = "avx512f")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn $body<const MR: usize, const NV: usize>(
            kc: usize,
            a: *const $t,
            b: *const $t,
            c: *mut $t,
            ldc: usize,
            mr: usize,
            nr: usize,
            first: bool,
        ) {
            // Warm every cache line of the C tile the kernel ends on (rows `ldc` apart,
            // often a multiple of 4 KiB, which the hardware prefetcher does not follow).
            for i in 0..mr {
                let mut j = 0;
                while j < nr {
                    // SAFETY: prefetches never fault; the addresses are inside the tile.
                    unsafe { _mm_prefetch::<_MM_HINT_T0>(c.add(i * ldc + j) as *const i8) };
                    j += 64 / core::mem::size_of::<$t>();
                }
                // SAFETY: as above (the row's last element, whose line the loop may miss
                // when the row does not start on a line).
                unsafe { _mm_prefetch::<_MM_HINT_T0>(c.add(i * ldc + nr - 1) as *const i8) };
            }
            let mut acc = [[$zero(); NV]; MR];
            // One `k` step: NV loads of B, MR broadcasts of A, MR·NV FMAs.
            macro_rules! step {
                ($p:expr) => {{
                    let mut bv = [$zero(); NV];
                    for (v, x) in bv.iter_mut().enumerate() {
                        // SAFETY: p < kc, v < NV: inside the B panel (`NV·lanes·kc`).
                        *x = unsafe { $load(b.add(($p * NV + v) * $lanes)) };
                    }
                    for (i, row) in acc.iter_mut().enumerate() {
                        // SAFETY: p < kc, i < MR: inside the A panel (`MR·kc`).
                        let ai = $bcast(unsafe { *a.add($p * MR + i) });
                        for (x, &bj) in row.iter_mut().zip(&bv) {
                            *x = $fma(ai, bj, *x);
                        }
                    }
                }};
            }
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
            // Store the mr × nr corner: whole vectors where the tile is full, a lane mask
            // on the vector that holds column nr - 1, nothing past it.
            for (i, row) in acc.iter().enumerate().take(mr) {
                for (v, &x) in row.iter().enumerate() {
                    let col = v * $lanes;
                    if col >= nr {
                        break;
                    }
                    let mask = lane_mask(nr - col) as $mask_ty;
                    // SAFETY: the masked lanes are columns col .. min(nr, col + lanes) of
                    // row i < mr: inside the caller's contract; masked-off lanes are
                    // neither read nor written (and never fault).
                    unsafe {
                        let cp = c.add(i * ldc + col);
                        let out = if first { x } else { $add(x, $mload(mask, cp)) };
                        $mstore(cp, mask, out);
                    }
                }
            }
        }
    };
}

avx512_tile!(
    f32_tile, f32_tile_avx512, f32, __m512, F32_LANES, u16,
    zero: _mm512_setzero_ps, load: _mm512_loadu_ps, bcast: _mm512_set1_ps, fma: _mm512_fmadd_ps,
    mload: _mm512_maskz_loadu_ps, add: _mm512_add_ps, mstore: _mm512_mask_storeu_ps
);
avx512_tile!(
    f64_tile, f64_tile_avx512, f64, __m512d, F64_LANES, u8,
    zero: _mm512_setzero_pd, load: _mm512_loadu_pd, bcast: _mm512_set1_pd, fma: _mm512_fmadd_pd,
    mload: _mm512_maskz_loadu_pd, add: _mm512_add_pd, mstore: _mm512_mask_storeu_pd
);

#[allow(clippy::too_many_arguments)]
fn f64_12x16(
    kc: usize,
    a: &[f64],
    b: &[f64],
    c: &mut [f64],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    f64_tile::<12, 2>(kc, a, b, c, ldc, mr, nr, first)
}

/// Candidate f32 tiles for the tuning sweep (`tests::tune_avx512`).
#[cfg(test)]
pub(super) fn f32_candidates() -> Vec<(usize, usize, super::kernel::MicroFn<f32, f32>)> {
    vec![
        (6, 32, f32_tile::<6, 2>),
        (8, 32, f32_tile::<8, 2>),
        (12, 32, f32_tile::<12, 2>),
        (14, 32, f32_tile::<14, 2>),
        (6, 64, f32_tile::<6, 4>),
        (8, 48, f32_tile::<8, 3>),
        (4, 64, f32_tile::<4, 4>),
    ]
}

/// Writes rows `i < mr` of a tile of sums into `c[i·ldc + v·16 + lane]` through the
/// lane masks (nothing where a mask is off): over `C` (`first`) or added to it.
///
/// # Safety
/// AVX-512F present; `c[i·ldc + j]` readable (unless `first`) and writable for i < mr
/// and every column `j` that `masks` leaves on.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store_f32_tile<const MR: usize, const NV: usize>(
    acc: &[[__m512; NV]; MR],
    masks: &[u16; NV],
    c: *mut f32,
    ldc: usize,
    mr: usize,
    first: bool,
) {
    for (i, row) in acc.iter().enumerate().take(mr) {
        for (v, &x) in row.iter().enumerate() {
            if masks[v] != 0 {
                // SAFETY: row i < mr, the unmasked lanes (the caller's contract).
                unsafe {
                    let cp = c.add(i * ldc + v * F32_LANES);
                    let out = if first {
                        x
                    } else {
                        _mm512_add_ps(x, _mm512_maskz_loadu_ps(masks[v], cp))
                    };
                    _mm512_mask_storeu_ps(cp, masks[v], out)
                };
            }
        }
    }
}

/// Lines of a right operand to fetch into L2 while a tile runs: `lines` cache lines from
/// each of `rows` rows, the first at `first`, rows `row_stride` elements apart (the next
/// column panel of a `B` read in place, see in_place.rs). The kernel spreads them evenly
/// over its `k` steps. Only addresses are computed (with wrapping arithmetic) and
/// prefetched; nothing is read, so they may lie anywhere.
#[derive(Clone, Copy, Debug)]
pub(super) struct Prefetch {
    pub(super) first: *const f32,
    pub(super) row_stride: isize,
    pub(super) rows: usize,
    pub(super) lines: usize,
}

impl Prefetch {
    /// No prefetching.
    pub(super) const NONE: Prefetch = Prefetch {
        first: core::ptr::null(),
        row_stride: 0,
        rows: 0,
        lines: 0,
    };
}

/// A tile read in place (no packing): rows `i0 .. i0 + mr` of `A`, columns `j0 .. j0 + nr`
/// of `B` (`B`'s columns contiguous), the whole `k` of the views, written over
/// `c[i·ldc + j]` (`first`) or added to it, while `prefetch` is fetched. See small.rs and
/// in_place.rs.
#[allow(clippy::too_many_arguments)]
pub(super) fn f32_direct<const MR: usize, const NV: usize>(
    a: &Direct<'_, f32>,
    (i0, mr): (usize, usize),
    b: &Direct<'_, f32>,
    (j0, nr): (usize, usize),
    c: &mut [f32],
    ldc: usize,
    first: bool,
    prefetch: Prefetch,
) {
    assert!(has_avx512f(), "the AVX-512 kernel needs AVX-512F");
    let ((rows, k), (kb, cols)) = (a.dims(), b.dims());
    let ((_, csa), (rsb, csb)) = (a.strides(), b.strides());
    assert!(
        k == kb
            && k >= 1
            && (1..=MR).contains(&mr)
            && (1..=NV * F32_LANES).contains(&nr)
            && i0 + mr <= rows
            && j0 + nr <= cols
            && csb == 1
            && c.len() >= (mr - 1) * ldc + nr,
        "small-product kernel called outside its contract"
    );
    // Row i of the tile reads A's row i0 + min(i, mr - 1): rows past mr repeat the last
    // one (computed, never stored), so no read leaves the view.
    let a_rows: [*const f32; MR] = core::array::from_fn(|i| a.at(i0 + i.min(mr - 1), 0));
    let b0 = b.at(0, j0);
    // SAFETY: AVX-512F is present (asserted). `Direct` guarantees every element of the
    // views is inside its slice: the kernel reads A at `a_rows[i] + p·csa` for p < k (row
    // i0 + min(i, mr-1) < rows, column p < k), and B at `b0 + p·rsb + j` for p < k and the
    // unmasked lanes j < nr (row p < k = B's rows, column j0 + j < cols); masked-off lanes
    // are not read. C is touched at `i·ldc + j` for i < mr, j < nr only (length asserted).
    // The prefetched addresses are only computed (wrapping) and prefetched, never read.
    unsafe {
        f32_direct_body::<MR, NV>(
            k,
            &a_rows,
            csa,
            b0,
            rsb,
            c.as_mut_ptr(),
            ldc,
            mr,
            nr,
            first,
            prefetch,
        )
    }
}

/// # Safety
/// AVX-512F present; `a_rows[i] + p·csa` readable for p < k, `b + p·rsb + j` readable for
/// p < k, j < nr; `c[i·ldc + j]` readable (unless `first`) and writable for i < mr,
/// j < nr.
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
unsafe fn f32_direct_body<const MR: usize, const NV: usize>(
    k: usize,
    a_rows: &[*const f32; MR],
    csa: isize,
    b: *const f32,
    rsb: isize,
    c: *mut f32,
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
    prefetch: Prefetch,
) {
    let masks: [u16; NV] = core::array::from_fn(|v| lane_mask(nr.saturating_sub(v * F32_LANES)));
    let mut acc = [[_mm512_setzero_ps(); NV]; MR];
    let mut pf = PrefetchCursor::new(prefetch, k);
    for p in 0..k {
        pf.advance(1);
        // SAFETY: p < k: inside B's rows; lanes past nr masked off (never read).
        let bp = unsafe { b.offset(p as isize * rsb) };
        let mut bv = [_mm512_setzero_ps(); NV];
        for (v, x) in bv.iter_mut().enumerate() {
            if masks[v] != 0 {
                // SAFETY: see above.
                *x = unsafe { _mm512_maskz_loadu_ps(masks[v], bp.add(v * F32_LANES)) };
            }
        }
        for (acc_row, &ap) in acc.iter_mut().zip(a_rows) {
            // SAFETY: p < k: inside the row (see `f32_direct`).
            let ai = _mm512_set1_ps(unsafe { *ap.offset(p as isize * csa) });
            for (x, &bj) in acc_row.iter_mut().zip(&bv) {
                *x = _mm512_fmadd_ps(ai, bj, *x);
            }
        }
    }
    // SAFETY: the caller's contract: `c[i·ldc + j]` for i < mr and the unmasked columns.
    unsafe { store_f32_tile(&acc, &masks, c, ldc, mr, first) };
}

/// A tile of a packed `A` panel (`a[p·MR + i]`, as `pack_a` writes it) times columns
/// `j0 .. j0 + nr` of a `B` read in place (a `kc × cols` view, columns contiguous),
/// written over `c[i·ldc + j]` for `i < mr` (`first`) or added to it, while `prefetch`
/// is fetched; the rows of `B` it loads are also stored into `packed_b` as a packed
/// `B` micro-panel (`packed_b[p·16·NV + j]`, zeros past `nr`), for the other row tiles
/// to read with the packed kernel (in_place.rs).
///
/// The broadcasts come from one pointer (no register per row of `A`, which `f32_direct`
/// spills at `MR = 8`).
#[allow(clippy::too_many_arguments)]
pub(super) fn f32_packed_a<const MR: usize, const NV: usize>(
    a: &[f32],
    b: &Direct<'_, f32>,
    (j0, nr): (usize, usize),
    c: &mut [f32],
    ldc: usize,
    mr: usize,
    first: bool,
    prefetch: Prefetch,
    packed_b: &mut [f32],
) {
    assert!(has_avx512f(), "the AVX-512 kernel needs AVX-512F");
    let ((kc, cols), (rsb, csb)) = (b.dims(), b.strides());
    assert!(
        kc >= 1
            && a.len() >= kc * MR
            && packed_b.len() >= kc * NV * F32_LANES
            && (1..=MR).contains(&mr)
            && (1..=NV * F32_LANES).contains(&nr)
            && j0 + nr <= cols
            && csb == 1
            && c.len() >= (mr - 1) * ldc + nr,
        "packed-A kernel called outside its contract"
    );
    let b0 = b.at(0, j0);
    // SAFETY: AVX-512F is present (asserted). The body reads `a[..kc·MR]` (length
    // asserted), B at `b0 + p·rsb + j` for p < kc and the unmasked lanes j < nr: element
    // (p, j0 + j) of the view, which `Direct` guarantees inside its slice; C at `i·ldc + j`
    // for i < mr, j < nr (length asserted); `packed_b[..kc·16·NV]` (length asserted).
    // Prefetched addresses are never read.
    unsafe {
        f32_packed_a_body::<MR, NV>(
            kc,
            a.as_ptr(),
            b0,
            rsb,
            packed_b.as_mut_ptr(),
            c.as_mut_ptr(),
            ldc,
            (mr, nr),
            first,
            prefetch,
        )
    }
}

/// # Safety
/// AVX-512F present; `a` readable for `kc·MR` values; `b + p·rsb + j` readable for
/// p < kc, j < nr; `packed_b` writable for `kc·16·NV` values; `c[i·ldc + j]` readable
/// (unless `first`) and writable for i < mr, j < nr.
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
unsafe fn f32_packed_a_body<const MR: usize, const NV: usize>(
    kc: usize,
    a: *const f32,
    b: *const f32,
    rsb: isize,
    packed_b: *mut f32,
    c: *mut f32,
    ldc: usize,
    (mr, nr): (usize, usize),
    first: bool,
    prefetch: Prefetch,
) {
    let masks: [u16; NV] = core::array::from_fn(|v| lane_mask(nr.saturating_sub(v * F32_LANES)));
    let mut acc = [[_mm512_setzero_ps(); NV]; MR];
    let mut pf = PrefetchCursor::new(prefetch, kc);
    // One `k` step: NV (masked) loads of B's row p, MR broadcasts, MR·NV FMAs.
    macro_rules! step {
        ($p:expr) => {{
            // SAFETY: p < kc: row p of B's view; lanes past nr masked off (not read).
            let bp = unsafe { b.offset($p as isize * rsb) };
            let mut bv = [_mm512_setzero_ps(); NV];
            for (v, x) in bv.iter_mut().enumerate() {
                if masks[v] != 0 {
                    // SAFETY: see above.
                    *x = unsafe { _mm512_maskz_loadu_ps(masks[v], bp.add(v * F32_LANES)) };
                }
                // SAFETY: p < kc, v < NV: inside `packed_b` (`kc·16·NV` values); lanes
                // past nr are the masked loads' zeros, the packed panel's padding.
                unsafe { _mm512_storeu_ps(packed_b.add(($p * NV + v) * F32_LANES), *x) };
            }
            for (i, acc_row) in acc.iter_mut().enumerate() {
                // SAFETY: p < kc, i < MR: inside the packed panel.
                let ai = _mm512_set1_ps(unsafe { *a.add($p * MR + i) });
                for (x, &bj) in acc_row.iter_mut().zip(&bv) {
                    *x = _mm512_fmadd_ps(ai, bj, *x);
                }
            }
        }};
    }
    let mut p = 0;
    while p + 4 <= kc {
        pf.advance(4);
        step!(p);
        step!(p + 1);
        step!(p + 2);
        step!(p + 3);
        p += 4;
    }
    while p < kc {
        pf.advance(1);
        step!(p);
        p += 1;
    }
    // SAFETY: the caller's contract: `c[i·ldc + j]` for i < mr and the unmasked columns.
    unsafe { store_f32_tile(&acc, &masks, c, ldc, mr, first) };
}

/// Issues a [`Prefetch`]'s lines spread evenly over `steps` kernel steps (a Bresenham
/// count: `owed` grows by the number of lines per step and pays one line per `steps`).
struct PrefetchCursor {
    prefetch: Prefetch,
    steps: usize,
    total: usize,
    owed: usize,
    row: usize,
    line: usize,
}

impl PrefetchCursor {
    #[inline(always)]
    fn new(prefetch: Prefetch, steps: usize) -> Self {
        PrefetchCursor {
            prefetch,
            steps,
            total: prefetch.rows * prefetch.lines,
            owed: 0,
            row: 0,
            line: 0,
        }
    }

    /// The lines owed after `steps` more kernel steps.
    #[inline(always)]
    fn advance(&mut self, steps: usize) {
        self.owed += self.total * steps;
        while self.owed >= self.steps {
            self.owed -= self.steps;
            let at = self
                .prefetch
                .first
                .wrapping_offset(self.row as isize * self.prefetch.row_stride)
                .wrapping_add(self.line * F32_LANES);
            // SAFETY: a prefetch never faults and reads nothing the program sees; the
            // address was computed with wrapping arithmetic (no out-of-bounds offset).
            unsafe { _mm_prefetch::<_MM_HINT_T1>(at as *const i8) };
            self.line += 1;
            if self.line == self.prefetch.lines {
                self.line = 0;
                self.row += 1;
            }
        }
    }
}
