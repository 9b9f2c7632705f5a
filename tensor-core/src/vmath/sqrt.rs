//! sqrt and rsqrt.

use super::*;

/// sqrt (f32 lanes): the hardware's correctly rounded square root.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sqrt_f32(x: f32x8) -> f32x8 {
    x.sqrt()
}
/// sqrt (f64 lanes): correctly rounded.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sqrt_f64(x: f64x8) -> f64x8 {
    x.sqrt()
}
/// 1/sqrt(x) (f64 lanes): two correctly rounded operations, < 1 ulp.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn rsqrt_f64(x: f64x8) -> f64x8 {
    sp(1.0) / x.sqrt()
}

/// 1/sqrt(x) (f32 lanes), <= 1 ulp: sqrt(1/x) in f32, two correctly rounded operations.
/// q = 1/x carries a relative error e <= 2^-24, which the square root halves: sqrt(q) is
/// within t·2^-25 <= ulp(t)/2 of t = 1/sqrt(x), and its rounding adds at most ulp/2.
/// (wide's `1/sqrt(x)` rounds sqrt(x) first, whose error the division does not halve:
/// 1.49 ulp, measured.) It is one division and one square root like wide's, with no
/// longer dependency chain; the 0.5-ulp variants (an FMA correction of 1/sqrt, or f64)
/// measured 1.4x slower.
///
/// Valid while 1/x is a normal f32, 2^-125 <= x <= 2^125; zeros (rsqrt(-0) = -inf),
/// subnormals, larger x, infinities, NaN and negative x (NaN) take the f64 path out of
/// line.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn rsqrt_f32(x: f32x8) -> f32x8 {
    // 2^-125 <= x <= 2^125 as one unsigned compare of the bits: below 2^-125 (zeros,
    // subnormals) the difference wraps around, and negative x (sign bit set) are above.
    let in_range = bits_in(x, 0x0100_0000, 0x7e00_0000); // bits of 2^-125 and 2^125
                                                         // out of range: 1/sqrt in f64 (relative error < 2^-52), rounded once
    let in_f64 = |x| narrow(sp(1.0) / widen(x).sqrt());
    fast_or_rare_lanes(x, in_range, rsqrt_in_range(x), in_f64)
}

/// 1/sqrt(x) for 2^-125 <= x <= 2^125 on AVX-512VL builds, <= 0.6 ulp, without the divider
/// (`vdivps` and `vsqrtps` share it: wide's `1/sqrt` and `sqrt(1/x)` are both bound by it,
/// 11 cycles per 8 lanes). y0 = `vrsqrt14ps`(x) = (1 + e0)/sqrt(x) with |e0| <= 2^-14;
/// d = 1 - x·y0² = -2e0 - e0² is computed almost exactly (p = x·y0 rounded, its error
/// x·y0 - p exact by FMA, then d = (1 - p·y0) - (x·y0 - p)·y0, two FMAs whose roundings
/// are below 2^-36); y = y0 + (y0/2)·d = (1 - 1.5·e0² - ...)/sqrt(x) in one rounding:
/// within 2^-27.4 relative before it, so <= 0.5 + 0.1 ulp.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
pub(super) fn rsqrt_in_range(x: f32x8) -> f32x8 {
    use core::arch::x86_64::{__m256, _mm256_rsqrt14_ps};
    let xv: __m256 = bytemuck::cast(x);
    // SAFETY: `_mm256_rsqrt14_ps` needs avx512f and avx512vl; this item is compiled only
    // when avx512vl (which implies avx512f) is enabled for the whole build (the `cfg`
    // above), so every CPU this code runs on has it. It reads and writes registers only.
    let y0: f32x8 = bytemuck::cast(unsafe { _mm256_rsqrt14_ps(xv) });
    let p = x * y0;
    let p_err = x.mul_sub(y0, p);
    let d = p_err.mul_neg_add(y0, p.mul_neg_add(y0, f32x8::ONE));
    (y0 * 0.5).mul_add(d, y0)
}
/// 1/sqrt(x) for 2^-125 <= x <= 2^125 elsewhere: sqrt(1/x), <= 1 ulp (see `rsqrt_f32`).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
pub(super) fn rsqrt_in_range(x: f32x8) -> f32x8 {
    (f32x8::ONE / x).sqrt()
}

#[cfg(test)]
mod tests {
    use super::super::sweep::*;
    use super::*;

    /// rsqrt_f32 takes the f64 path out of line for any vector with a lane outside
    /// [2^-125, 2^125]: vectors that mix such lanes (zeros, subnormals, huge, inf, NaN,
    /// negative) with ordinary ones, in every position, keep each lane's own result.
    #[test]
    fn rsqrt_f32_mixed_lanes() {
        let odd = [
            0.0f32,
            -0.0,
            1e-45,
            1e-40,
            f32::from_bits(0x00ff_ffff), // just below 2^-125
            f32::from_bits(0x7e00_0001), // just above 2^125
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            -1e-40,
            -4.0,
        ];
        let xs = mixed_lanes(&odd);
        run_f32("rsqrt_f32 mixed", rsqrt_f32, |x| 1.0 / x.sqrt(), &xs, 1.0);
    }
}
