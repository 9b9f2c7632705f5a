//! The AVX-512 helpers, each under its `cfg` with the portable version beside it: f32 <->
//! f64 conversion (`widen`, `narrow`), reciprocal estimates (`recip_1_2`,
//! `recip_for_quotient`) and the k-register lane masks of the f32-lane kernels
//! (`LaneMask`, `lanes_gt`, `select_where`, the merge-masked `*_where` arithmetic).

use super::*;

/// Widen 8 f32 lanes to 8 f64 lanes (exact).  Without AVX-512 LLVM lowers the array map to
/// one cvtps2pd per register of the f64x8 (4 on SSE2, 2 on AVX2), which is the layout wide
/// uses there.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
pub(crate) fn widen(x: f32x8) -> F {
    F::new(x.to_array().map(|v| v as f64))
}
/// Widen 8 f32 lanes to 8 f64 lanes (exact): one `vcvtps2pd zmm, ymm`.
///
/// The array map above compiles here to two 256-bit conversions stored to the stack and
/// reloaded as one zmm (LLVM prefers 256-bit vectors on these cores): a failed store
/// forward that made every f32 function wait for the previous call to retire (sin measured
/// 24.7 µs per 4096 values this way, wide's own 5.8 µs).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
pub(crate) fn widen(x: f32x8) -> F {
    use core::arch::x86_64::{__m256, __m512d, _mm512_cvtps_pd};
    let v: __m256 = bytemuck::cast(x);
    // SAFETY: `_mm512_cvtps_pd` only requires the avx512f target feature, and this item is
    // compiled only when avx512f is enabled for the whole build (the `cfg` above), so every
    // CPU this code can run on has it. It reads and writes registers only.
    let w: __m512d = unsafe { _mm512_cvtps_pd(v) };
    bytemuck::cast(w)
}
/// Round 8 f64 lanes to f32 (single correctly rounded conversion per lane,
/// cvtpd2ps; overflow -> inf, subnormal results rounded correctly).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
pub(crate) fn narrow(x: F) -> f32x8 {
    f32x8::new(x.to_array().map(|v| v as f32))
}
/// Round 8 f64 lanes to f32: one `vcvtpd2ps ymm, zmm` (the same rounding as `as f32`:
/// round to nearest even, overflow to inf, correctly rounded subnormals). The array map
/// compiles to it in most kernels, but where a value's two paths merge LLVM has split it
/// into scalar conversions (seen in sin/cos/tan).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
pub(crate) fn narrow(x: F) -> f32x8 {
    use core::arch::x86_64::{__m256, __m512d, _mm512_cvtpd_ps};
    let v: __m512d = bytemuck::cast(x);
    // SAFETY: as in `widen`: `_mm512_cvtpd_ps` needs only avx512f, which the `cfg` above
    // guarantees for the whole build; it reads and writes registers only. It rounds with
    // the MXCSR mode, which Rust code never changes from round-to-nearest-even.
    let n: __m256 = unsafe { _mm512_cvtpd_ps(v) };
    bytemuck::cast(n)
}

/// 1/d for d in [1, 2], within 2^-28 relative on AVX-512 builds: `vrcp14pd` (2^-14, no
/// divider) and one Newton step e = 1 - d·r0, r0 + r0·e, whose error is the square of
/// r0's. Elsewhere `div_f32_newton` (an f32 division, 2^-45).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
pub(super) fn recip_1_2(d: F) -> F {
    use core::arch::x86_64::_mm512_rcp14_pd;
    // SAFETY: `_mm512_rcp14_pd` needs avx512f, which the `cfg` above guarantees for the
    // whole build. Registers only.
    let r0: F = bytemuck::cast(unsafe { _mm512_rcp14_pd(bytemuck::cast(d)) });
    fma(r0, fma(-d, r0, sp(1.0)), r0)
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
pub(super) fn recip_1_2(d: F) -> F {
    div_f32_newton(sp(1.0), d)
}

/// 1/d to within 2^-14 relative, for a d whose reciprocal is a normal f32: `vrcp14ps`
/// (4 cycles, no divider) with AVX-512VL, an exact division otherwise (`vrcpps` errs by
/// 2^-11.4, too coarse for `tan_f32`'s one correction).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn recip_for_quotient(d: f32x8) -> f32x8 {
    use core::arch::x86_64::{__m256, _mm256_rcp14_ps};
    let dv: __m256 = bytemuck::cast(d);
    // SAFETY: `_mm256_rcp14_ps` needs avx512f and avx512vl; this item is compiled only when
    // avx512vl (which implies avx512f) is enabled for the whole build (the `cfg` above), so
    // every CPU this code runs on has it. It reads and writes registers only.
    let r: __m256 = unsafe { _mm256_rcp14_ps(dv) };
    bytemuck::cast(r)
}
#[cfg(all(
    target_feature = "fma",
    not(all(target_arch = "x86_64", target_feature = "avx512vl"))
))]
#[inline(always)]
pub(super) fn recip_for_quotient(d: f32x8) -> f32x8 {
    f32x8::ONE / d
}

// Lane masks for the f32 kernels below. wide's `simd_gt` + `select` compile on AVX-512
// builds to a vector compare, a `vpmovd2m` that moves its result into a k register, and
// a blend: two uops on a short kernel's critical path. Here a compare writes the k
// register itself and a select is merged into the arithmetic that produces the selected
// value (merge masking: lanes outside the mask keep `src`). Other builds use wide's
// all-ones / all-zeros lanes and `select`, with the same values in every lane.

/// Which lanes a `lanes_gt` compare selected: a k register on AVX-512VL builds.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
pub(super) type LaneMask = core::arch::x86_64::__mmask8;
/// Which lanes a `lanes_gt` compare selected: all-ones lanes, as wide's compares give.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
pub(super) type LaneMask = f32x8;

/// The lanes where a > b (false where either is NaN).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn lanes_gt(a: f32x8, b: f32x8) -> LaneMask {
    use core::arch::x86_64::{_mm256_cmp_ps_mask, _CMP_GT_OQ};
    // SAFETY: needs avx512f and avx512vl, which the `cfg` above guarantees for the whole
    // build (vl implies f). Registers only.
    unsafe { _mm256_cmp_ps_mask::<_CMP_GT_OQ>(bytemuck::cast(a), bytemuck::cast(b)) }
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
pub(super) fn lanes_gt(a: f32x8, b: f32x8) -> LaneMask {
    a.simd_gt(b)
}

/// The lanes where a >= b (false where either is NaN).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn lanes_ge(a: f32x8, b: f32x8) -> LaneMask {
    use core::arch::x86_64::{_mm256_cmp_ps_mask, _CMP_GE_OQ};
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    unsafe { _mm256_cmp_ps_mask::<_CMP_GE_OQ>(bytemuck::cast(a), bytemuck::cast(b)) }
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
pub(super) fn lanes_ge(a: f32x8, b: f32x8) -> LaneMask {
    a.simd_ge(b)
}

/// `a` in the lanes of `k`, `b` in the others.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn select_where(k: LaneMask, a: f32x8, b: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_blend_ps;
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_blend_ps(k, bytemuck::cast(b), bytemuck::cast(a)) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
pub(super) fn select_where(k: LaneMask, a: f32x8, b: f32x8) -> f32x8 {
    k.select(a, b)
}

/// sqrt(a) in the lanes of `k`, `src` in the others.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn sqrt_where(k: LaneMask, src: f32x8, a: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_sqrt_ps;
    let (src, a) = (bytemuck::cast(src), bytemuck::cast(a));
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_sqrt_ps(src, k, a) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
pub(super) fn sqrt_where(k: LaneMask, src: f32x8, a: f32x8) -> f32x8 {
    k.select(a.sqrt(), src)
}

/// num/den in the lanes of `k`, `src` in the others (the division still runs on every
/// lane: its cost does not depend on the mask).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn div_where(k: LaneMask, src: f32x8, num: f32x8, den: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_div_ps;
    let (src, num, den) = (
        bytemuck::cast(src),
        bytemuck::cast(num),
        bytemuck::cast(den),
    );
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_div_ps(src, k, num, den) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
pub(super) fn div_where(k: LaneMask, src: f32x8, num: f32x8, den: f32x8) -> f32x8 {
    k.select(num / den, src)
}

/// a + b in the lanes of `k`, `src` in the others.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn add_where(k: LaneMask, src: f32x8, a: f32x8, b: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_add_ps;
    let (src, a, b) = (bytemuck::cast(src), bytemuck::cast(a), bytemuck::cast(b));
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_add_ps(src, k, a, b) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
pub(super) fn add_where(k: LaneMask, src: f32x8, a: f32x8, b: f32x8) -> f32x8 {
    k.select(a + b, src)
}
