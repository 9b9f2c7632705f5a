//! tanh, sinh, cosh (f64 kernels and f32 paths); the inverse functions are in
//! `inverse_hyperbolic.rs`.

use super::*;

// ---------------------------------------------------------------------------
// tanh: fdlibm's formula with e^(-2|x|) in double-double
// ---------------------------------------------------------------------------
// tanh|x| = (1 - u)/(1 + u), u = e^(-2|x|) = 2^k·(1 + p), p = e^r - 1. fdlibm computes
// -t/(t+2) from t = expm1(-2|x|) rounded to one double, whose ~1 ulp error the quotient
// amplifies up to 2x (3 ulp measured). Here p is carried as hi + lo:
// -2|x| = k·ln2 + r with r = rh + rl (fdlibm's split: rh + rl = r to ~2^-80 absolute),
// p = rh + rh^2/2 (exact: two_prod, then one fast two-sum) + [rl·(1 + rh) + rh^3·T(rh)]
// (then renormalised, so the quotient below may treat the low parts as tiny),
// T the Taylor series 1/3! + rh/4! + ... + rh^11/14! (remainder < 2^-61.6 relative for
// |r| <= 0.347; the bracket is < 0.02·|p|, so its roundings are < 2^-57 of p).
// 1 - u = (1 - 2^k) - 2^k·p and 1 + u = 2 - (1 - u) are formed with exact fast two-sums
// (for k = 0, 1 - u = -p: no cancellation), and the double-double quotient is q0 = n·(1/d)
// plus one exact-remainder correction: a few 2^-56 before the final rounding (< 0.6 ulp).
// |x| >= 22: 1; |x| < 2^-28: x. Sign copied. No FMA (same results on every build).

/// Coefficients of T: 1/k! for k = 3..=14.
pub(super) const TANH_T: [f64; 12] = [
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
    1.0 / 39916800.0,
    1.0 / 479001600.0,
    1.0 / 6227020800.0,
    1.0 / 87178291200.0,
];

/// Hyperbolic tangent, < 1 ulp (double-double e^(-2|x|), see above).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tanh_f64(x: f64x8) -> f64x8 {
    let ax = x.abs();
    let a = sel(ax.simd_gt(sp(22.0)), sp(22.0), ax);
    let (kf, ph, pl) = exp_dd_parts(a * -2.0, sp(0.0));
    // n = 1 - 2^k(1 + p) = (1 - 2^k) - 2^k·p; 2^k·p is exact scaling.
    let two_k = pow2(kf);
    let (a1, a1_e) = fast_two_sum(sp(1.0), -two_k);
    let (nh, n_e) = fast_two_sum(a1, -(two_k * ph));
    let nl = n_e + a1_e - two_k * pl;
    // d = 1 + u = 2 - n
    let (dh, d_e) = fast_two_sum(sp(2.0), -nh);
    let dl = d_e - nl;
    let z = div_dd(nh, nl, dh, dl);
    let z = sel(ax.simd_ge(sp(22.0)), sp(1.0), z);
    let mut res = copysign(z, x);
    res = sel(ax.simd_lt(sp(3.725290298461914e-9)), x, res); // 2^-28
    sel(is_nan(x), x, res)
}

/// sinh (fdlibm e_sinh.c): from expm1 below 22, from e^|x|/2 above (the halving is
/// folded into exp's exponent, so sinh stays finite up to its own overflow threshold).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sinh_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let ac = sel(a.simd_gt(sp(22.0)), sp(22.0), a);
    let t = expm1_f64(ac);
    let below1 = (t * 2.0 - (t * t) / (t + 1.0)) * 0.5;
    let above1 = (t + t / (t + 1.0)) * 0.5;
    let mid = sel(a.simd_lt(sp(1.0)), below1, above1);
    let big = exp_core(
        sel(a.simd_gt(sp(711.0)) | is_nan(a), sp(711.0), a),
        sp(-1.0),
    );
    let mut res = copysign(sel(a.simd_lt(sp(22.0)), mid, big), x);
    res = sel(a.simd_lt(sp(3.725290298461914e-9)), x, res); // 2^-28: sinh x = x
    sel(is_nan(x), x, res)
}

/// cosh (fdlibm e_cosh.c).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cosh_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let ac = sel(a.simd_gt(sp(22.0)), sp(22.0), a);
    let t = expm1_f64(ac);
    let w = t + 1.0;
    let small = sp(1.0) + (t * t) / (w + w);
    let e = exp_f64(ac);
    let mid = e * 0.5 + sp(0.5) / e;
    let big = exp_core(
        sel(a.simd_gt(sp(711.0)) | is_nan(a), sp(711.0), a),
        sp(-1.0),
    );
    let res = sel(
        a.simd_lt(sp(0.3465735902799726)),
        small,
        sel(a.simd_lt(sp(22.0)), mid, big),
    );
    sel(is_nan(x), x.abs(), res)
}

/// sinh(r) = r·S(r^2), cosh(r) = C(r^2) for |r| <= ln2/2 + 2^-40:
/// Taylor to r^9 / r^10 (remainders < 2^-40 / 2^-47 relative).
pub(super) const SINH_T: [f64; 5] = [1.0, 1.0 / 6.0, 1.0 / 120.0, 1.0 / 5040.0, 1.0 / 362880.0];
pub(super) const COSH_T: [f64; 6] = [
    1.0,
    0.5,
    1.0 / 24.0,
    1.0 / 720.0,
    1.0 / 40320.0,
    1.0 / 3628800.0,
];

/// (sinh a, cosh a) for a = |x| of an f32 x (clamped here to 130, where both already
/// overflow f32), relative error < 2^-38,
/// without a division: a = k·ln2 + r and
///   sinh a = sinh(k ln2)·cosh r + cosh(k ln2)·sinh r,
///   cosh a = cosh(k ln2)·cosh r + sinh(k ln2)·sinh r,
/// with sinh(k ln2), cosh(k ln2) = 2^(k-1) ∓ 2^(-k-1). For k = 0 the sinh is sinh(r)
/// itself (exact zero and one factors: no cancellation near 0); for k >= 1 (a > 0.34)
/// the terms exceed sinh a by at most coth(0.34) < 3.5, so the roundings stay < 2^-50.
#[inline(always)]
pub(super) fn sinh_cosh_for_f32(a: F) -> (F, F) {
    let (kf, r) = reduce_ln2(sel(a.simd_gt(sp(130.0)), sp(130.0), a));
    let z = r * r;
    let sh_r = r * poly_fma(z, &SINH_T);
    let ch_r = poly_fma(z, &COSH_T);
    let hi = pow2(kf - 1.0);
    let lo = pow2(-kf - 1.0);
    let (sh_k, ch_k) = (hi - lo, hi + lo);
    (fma(ch_k, sh_r, sh_k * ch_r), fma(ch_k, ch_r, sh_k * sh_r))
}

/// sinh(x) (f32 lanes), <= 2 ulp on every input; overflows to inf exactly where the f64
/// value rounds past f32::MAX.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sinh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let a = w.abs();
    let (sh, _) = sinh_cosh_for_f32(a);
    narrow(sel(is_nan(w), w, copysign(sh, w)))
}

/// cosh(x) (f32 lanes), <= 2 ulp on every input.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cosh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let a = w.abs();
    let (_, ch) = sinh_cosh_for_f32(a);
    narrow(sel(is_nan(w), a, ch))
}

/// tanh(x) (f32 lanes), <= 2 ulp on every input: the f32-lane kernel
/// `f32_kernels::tanh` (`dispatch.rs`).
#[inline]
pub fn tanh_f32(x: f32x8) -> f32x8 {
    dispatch::tanh(x)
}

#[cfg(test)]
#[path = "hyperbolic_tests.rs"]
mod tests;
