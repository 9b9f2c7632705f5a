//! sigmoid, silu and softplus (f64 kernels and f32 paths): the logistic family built on
//! e^-|x|.

use super::*;

// ---------------------------------------------------------------------------
// sigmoid and silu (their shared `logistic_dd`), softplus
// ---------------------------------------------------------------------------

/// sigmoid(x) = 1/(1+exp(-x)) (f64 lanes), < 1 ulp: `logistic_dd` (e^-|x| in
/// double-double, the quotient rounded once; subnormal results for x < -708 keep full
/// accuracy). (e/(1+e) from the one-double exp measured 2.000 against a reference with the
/// same one-double exp.)
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sigmoid_f64(x: f64x8) -> f64x8 {
    logistic_dd::<false>(x)
}

/// x·sigmoid(x) (f64 lanes), < 1 ulp: `logistic_dd` times x, rounded once. Above 40, e
/// is below 2^-57 and the result is x; ±0 keep their sign. (`x · sigmoid(x)` from the
/// one-double exp measured 2.85 ulp against mpmath.)
#[cfg_attr(target_feature = "avx2", inline)]
pub fn silu_f64(x: f64x8) -> f64x8 {
    let res = logistic_dd::<true>(x);
    // x > 40 (and +inf): x; ±0: x; -inf: the limit -0.0 (the clamp gives that); NaN
    // propagates through `logistic_dd`.
    sel(x.simd_gt(sp(40.0)) | x.simd_eq(sp(0.0)), x, res)
}

/// sigmoid(x) (f64) or, with `TIMES_X`, x·sigmoid(x), rounded once: 1/(1 + e) for x >= 0
/// and e/(1 + e) for x < 0, with e = e^-|x| = 2^k·(1 + p) in double-double
/// (`exp_dd_parts`, a few 2^-57), 1 + e and x·e formed exactly (`fast_two_sum`,
/// `two_prod`), and the double-double quotient rounded once after one exact-remainder
/// correction, as in `tanh_f64`.
///
/// Below -700, 1 + e is 1 far beyond f64 precision, and e (subnormal from -708.4, 0 from
/// -745.1, while silu is nonzero down to -751.7) is carried scaled by 2^256 (folded into
/// k): the quotient is rounded once in the normal range and then scaled by 2^-256, exact
/// for normal results and one more rounding into the subnormal range (< 0.5 ulp of it
/// plus 2^-53 relative). x is clamped at -800, where the result is ±0 either way. NaN
/// gives NaN (it passes every clamp and select), +inf 1 (sigmoid) and -inf +0 / -0; silu selects x itself above 40 and at
/// ±0 (here silu(-0) would be +0). For |x| < 2^-1021 silu's x/2 can be an exact tie that
/// the x²/4 term (underflowed) no longer breaks: half an ulp, rounded to even.
#[inline(always)]
pub(super) fn logistic_dd<const TIMES_X: bool>(x: F) -> F {
    let tail = x.simd_lt(sp(-700.0));
    let xc = sel(x.simd_lt(sp(-800.0)), sp(-800.0), x);
    let a = xc.abs();
    let a = sel(a.simd_gt(sp(700.0)) & !tail, sp(700.0), a);
    let (eh, el) = exp_dd_scaled(-a, sp(0.0), sp(256.0) & tail);
    let (dh, d_l) = fast_two_sum(sp(1.0), eh);
    let (dh, dl) = (sel(tail, sp(1.0), dh), sel(tail, sp(0.0), d_l + el));
    let neg = xc.simd_lt(sp(0.0));
    let (nh, nl) = if TIMES_X {
        let (xe, xe_l) = two_prod(xc, eh);
        (sel(neg, xe, xc), sel(neg, xe_l + xc * el, sp(0.0)))
    } else {
        (sel(neg, eh, sp(1.0)), sel(neg, el, sp(0.0)))
    };
    let q = div_dd(nh, nl, dh, dl);
    sel(tail, q * 8.636168555094445e-78, q) // 2^-256
}

/// swish(x) = x·sigmoid(alpha·x) (f64 lanes, per-lane alpha), < 1 ulp: `logistic_dd`'s
/// evaluation with alpha folded into the argument and x's exponent into the final scaling.
/// (`x · sigmoid_f64(alpha·x)` lost up to 718 ulp below x = -708, where sigmoid is
/// subnormal, and rounding v = alpha·x alone would cost |v|·2^-53 relative, hundreds of
/// ulp near v = -700.)
///
/// - x = m·2^ex and alpha = ma·2^ea (`split_exponent`, |m|, |ma| in [1, 2)), so v =
///   alpha·x = (ma·m)·2^(ea + ex) is exact as vh + vl: vh the rounded product, vl the
///   remainder of `two_prod` of two numbers in [1, 2), scaled exactly (where v leaves the
///   normal range its tail no longer matters: |v| < 2^-1021 moves sigmoid by < 2^-1023,
///   and |v| > 2^1000 saturates it).
/// - v >= -700: e = e^-|v| in double-double (`exp_dd_parts` on -|vh| ∓ vl), the quotient
///   m·e/(1 + e) (v < 0) or m/(1 + e) rounded once (`div_dd`, as `logistic_dd`), in the
///   normal range because |m| is in [1, 2) and e >= e^-700.
/// - v < -700: 1 + e is 1 far beyond double-double precision and the result is
///   x·e^v = m·2^ex·2^k·(1 + p): m·(1 + p) rounded once, the exponent k + ex kept apart.
///   vh is clamped at -1800, where |x|·e^v < 2^(1024 - 2596) is 0 for every finite x.
/// - Then one scaling by 2^(ex, or k + ex): exact for normal results, one more rounding
///   into the subnormal range (< 0.5 ulp of it plus 2^-53 relative), as in `logistic_dd`.
///
/// Limits and special lanes: x = ±0 gives x; alpha = 0 gives x/2; v = +inf gives x; v =
/// -inf gives ±0 with x's sign (swish(-inf) = -0 at alpha > 0, not -inf·0); a NaN in x or
/// alpha, or 0·inf, gives NaN.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn swish_f64(x: f64x8, alpha: f64x8) -> f64x8 {
    let (m, ex) = split_exponent(x);
    let (ma, ea) = split_exponent(alpha);
    let (_, pe) = two_prod(ma, m);
    let kv = ea + ex;
    let kv = sel(kv.simd_gt(sp(1100.0)), sp(1100.0), kv);
    let kv = sel(kv.simd_lt(sp(-1100.0)), sp(-1100.0), kv);
    // vh is the rounded product itself (= p·2^kv wherever that is normal; ±inf where it
    // overflows, also for an infinite alpha); vl its remainder, 0 where the product is 0.
    let vh = alpha * x;
    let zero_v = alpha.simd_eq(sp(0.0)) | x.simd_eq(sp(0.0));
    let vl = sel(zero_v, sp(0.0), scale(pe, kv));

    let tail = vh.simd_lt(sp(-700.0));
    let neg = vh.simd_lt(sp(0.0));
    // The exponential's argument: -|v| (clamped at -700: beyond, 1 + e is 1 anyway), or v
    // itself in the tail (clamped at -1800); its low part only where it is still v's.
    let a = vh.abs();
    let big = a.simd_gt(sp(700.0));
    let arg = sel(tail, vh, -a);
    let arg = sel(big & !tail, sp(-700.0), arg);
    let arg = sel(arg.simd_lt(sp(-1800.0)), sp(-1800.0), arg);
    let arg_lo = sel(neg, vl, -vl);
    let arg_lo = sel((big & !tail) | vh.simd_lt(sp(-1800.0)), sp(0.0), arg_lo);
    let (kf, ph, pl) = exp_dd_parts(arg, arg_lo);
    // Outside the tail e = 2^k·(1 + p) (k >= -1010: normal); in the tail 1 + p alone, its
    // 2^k joining ex in the final scaling.
    let two_k = pow2(sel(tail, sp(0.0), kf));
    let (e1, e1_l) = fast_two_sum(sp(1.0), ph);
    let (eh, el) = (two_k * e1, two_k * (e1_l + pl));
    let (dh, d_l) = fast_two_sum(sp(1.0), eh);
    let (dh, dl) = (sel(tail, sp(1.0), dh), sel(tail, sp(0.0), d_l + el));
    let (me, me_l) = two_prod(m, eh);
    let nh = sel(neg, me, m);
    let nl = sel(neg, me_l + m * el, sp(0.0));
    let q = div_dd(nh, nl, dh, dl);
    let k = sel(tail, kf, sp(0.0)) + ex;
    // Below 2^-1100 the result is 0 (|q| < 4); the clamp keeps `scale` in its range.
    let k = sel(k.simd_lt(sp(-1100.0)), sp(-1100.0), k);
    let res = scale(q, k);

    let res = sel(vh.simd_eq(sp(f64::INFINITY)), x, res);
    let res = sel(vh.simd_lt(sp(-1800.0)), copysign(sp(0.0), x), res);
    let res = sel(x.simd_eq(sp(0.0)), x, res);
    sel(is_nan(vh), vh, res)
}

/// softplus(x) = log(1 + e^x), evaluated as max(x, 0) + log1p(e^-|x|): e^-|x| <= 1 never
/// overflows, and for x -> -inf the result follows e^x into the subnormal range.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn softplus_f64(x: f64x8) -> f64x8 {
    let e = exp_f64(-x.abs());
    let l = log1p_f64(e);
    let pos = sel(x.simd_gt(sp(0.0)), x, sp(0.0));
    let res = pos + l;
    sel(is_nan(x), x, res)
}

/// sigmoid(x) = 1/(1+t) for x >= 0 and t/(1+t) for x < 0, with t = e^-|x| in (0, 1]:
/// the denominator stays in [1, 2] (no overflow, and a reciprocal estimate refined once:
/// `recip_1_2`) and the negative side keeps full relative accuracy down to the
/// subnormals. Returns (t, 1/(1+t)). t is within 2^-34 relative of e^-|x|
/// (`exp_poly_small`; the reduction adds < 2^-44); 1/(1+t) of the computed t is within
/// 2^-28 (`recip_1_2`; the rounding of 1 + t adds 2^-53), and t's error moves it by
/// another 2^-34·t/(1+t). t/(1+t) is within 2^-27.9, and the f32 result within
/// 0.5 + 2^-3.9 ulp. -|x| needs only the lower clamp (NaN passes through it).
#[inline(always)]
pub(super) fn sigmoid_parts(w: F) -> (F, F) {
    let a = -w.abs();
    let a = sel(a.simd_lt(sp(-160.0)), sp(-160.0), a);
    let t = exp_f64_for_f32(a);
    (t, recip_1_2(sp(1.0) + t))
}

/// 1/(1+e^-x) (f32 lanes), <= 2 ulp on every input: the f32-lane kernel
/// `f32_kernels::sigmoid` (`dispatch.rs`).
#[inline]
pub fn sigmoid_f32(x: f32x8) -> f32x8 {
    dispatch::sigmoid(x)
}

/// x·sigmoid(x) (f32 lanes): the product in f64, rounded once.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn silu_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (t, q) = sigmoid_parts(w);
    let res = w * sel(w.simd_lt(sp(0.0)), t * q, q);
    // Below -200, x·e^x is far below the f32 range (the clamp of exp's argument would
    // otherwise leave a tiny nonzero value); that includes -inf, whose limit is -0.0.
    let res = sel(w.simd_lt(sp(-200.0)), sp(-0.0), res);
    narrow(sel(is_nan(w), w, res))
}

f32_via_f64! {
    /// log(1 + e^x) (f32 lanes).
    softplus_f32 => softplus_f64;
}

#[cfg(test)]
#[path = "sigmoid_tests.rs"]
mod tests;
