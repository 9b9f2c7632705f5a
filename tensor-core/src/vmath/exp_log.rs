//! exp, exp2, expm1, log, log2, log1p: the fdlibm f64 kernels, the double-double e^x of
//! tanh, sigmoid and mish (`exp_dd_parts`, `exp_dd_scaled`), and the short f32 paths
//! (with the AVX-512 table-driven log and log2).

use super::*;

// ---------------------------------------------------------------------------
// exp  (fdlibm e_exp.c)
// ---------------------------------------------------------------------------
// x = k*ln2 + r, |r| <= ln2/2, k = rint(x/ln2); ln2 = LN2_HI + LN2_LO where
// LN2_HI has 32 significant bits so k*LN2_HI is exact for |k| < 2^21.
// exp(r) = 1 + r + r*c/(2-c),  c = r - r^2*(P1 + r^2*(P2 + ... + r^2*P5)),
// P1..P5: fdlibm Remez coefficients, |error| < 2^-59 ; fdlibm: < 1 ulp.
pub(super) const LN2_HI: f64 = 6.93147180369123816490e-01; // 0x3fe62e42fee00000
pub(super) const LN2_LO: f64 = 1.90821492927058770002e-10; // 0x3dea39ef35793c76
pub(super) const INVLN2: f64 = 1.44269504088896338700e+00; // 0x3ff71547652b82fe
pub(super) const EP1: f64 = 1.66666666666666019037e-01;
pub(super) const EP2: f64 = -2.77777777770155933842e-03;
pub(super) const EP3: f64 = 6.61375632143793436117e-05;
pub(super) const EP4: f64 = -1.65339022054652515390e-06;
pub(super) const EP5: f64 = 4.13813679705723846039e-08;
pub(super) const EXP_O_THRESHOLD: f64 = 7.09782712893383973096e+02; // exp(x) overflows above
pub(super) const EXP_U_THRESHOLD: f64 = -7.45133219101941108420e+02; // exp(x) == 0 below

/// exp(x) * 2^s for finite x in [-1000, 710] and integer-valued s (|s| <= 300);
/// the 2^s factor is folded into the final exponent scaling, so results
/// that would be subnormal (or overflow) for s = 0 keep full precision.
#[inline(always)]
pub(super) fn exp_core(xc: F, s: F) -> F {
    exp_core2(xc, sp(0.0), s)
}

/// exp(a + b) * 2^s where b is a small (|b| < 1) low-order addend: the
/// fdlibm reduction hi = a - k*ln2_hi stays exact and b is folded into the
/// low part lo, so a + b never has to be rounded to one double.
#[inline(always)]
pub(super) fn exp_core2(a: F, b: F, s: F) -> F {
    let kf = rint((a + b) * INVLN2);
    let hi = a - kf * LN2_HI;
    let lo = kf * LN2_LO - b;
    let r = hi - lo;
    let t = r * r;
    let c = r - t * (sp(EP1) + t * (sp(EP2) + t * (sp(EP3) + t * (sp(EP4) + t * EP5))));
    let y = sp(1.0) - ((lo - (r * c) / (sp(2.0) - c)) - hi);
    scale(y, kf + s)
}

/// e^x for each lane of an f64x8 (fdlibm algorithm, <= 1 ulp in normal range).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn exp_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.simd_gt(sp(710.0)), sp(710.0), x);
    let xc = sel(xc.simd_lt(sp(-746.0)), sp(-746.0), xc);
    let xc = sel(is_nan(xc), sp(0.0), xc);
    let mut res = exp_core(xc, sp(0.0));
    res = sel(x.simd_gt(sp(EXP_O_THRESHOLD)), sp(f64::INFINITY), res);
    res = sel(x.simd_lt(sp(EXP_U_THRESHOLD)), sp(0.0), res);
    sel(is_nan(x), x, res)
}

// ---------------------------------------------------------------------------
// expm1 (fdlibm s_expm1.c, musl variant) -- used by sinh, cosh
// ---------------------------------------------------------------------------
// Same reduction as exp, with a correction term c for the rounding of r.
// expm1(r) via R1(r^2), a degree-5 Remez polynomial (|err| < 2^-61, fdlibm),
// then reconstruction 2^k*(expm1(r)+1)-1 in the branch-specific forms of
// fdlibm, which fdlibm proves < 1 ulp.
pub(super) const Q1: f64 = -3.33333333333331316428e-02;
pub(super) const Q2: f64 = 1.58730158725481460165e-03;
pub(super) const Q3: f64 = -7.93650757867487942473e-05;
pub(super) const Q4: f64 = 4.00821782732936239552e-06;
pub(super) const Q5: f64 = -2.01099218183624371326e-07;

/// e^x - 1 (fdlibm s_expm1.c, < 1 ulp).
pub fn expm1_f64(x: F) -> F {
    let xc = sel(x.simd_gt(sp(710.0)), sp(710.0), x);
    let xc = sel(xc.simd_lt(sp(-45.0)), sp(-45.0), xc);
    let xc = sel(is_nan(xc), sp(0.0), xc);
    let kf = rint(xc * INVLN2);
    let hi = xc - kf * LN2_HI;
    let lo = kf * LN2_LO;
    let xr = hi - lo;
    let c = (hi - xr) - lo;
    let hfx = xr * 0.5;
    let hxs = xr * hfx;
    let r1 = sp(1.0) + hxs * (sp(Q1) + hxs * (sp(Q2) + hxs * (sp(Q3) + hxs * (sp(Q4) + hxs * Q5))));
    let t = sp(3.0) - r1 * hfx;
    let e = hxs * ((r1 - t) / (sp(6.0) - xr * t));
    // k == 0
    let res0 = xr - (xr * e - hxs);
    let e2 = xr * (e - c) - c - hxs;
    // k == -1
    let res_m1 = (xr - e2) * 0.5 - 0.5;
    // k == 1
    let res_1 = sel(
        xr.simd_lt(sp(-0.25)),
        (e2 - (xr + 0.5)) * -2.0,
        sp(1.0) + (xr - e2) * 2.0,
    );
    // k <= -2 or k > 56: 2^k*(r - e + 1) - 1, with 2^k = 2^(k-1)*2 (k may be 1024)
    let big = (xr - e2 + 1.0) * pow2(kf - 1.0) * 2.0 - 1.0;
    // 2 <= k <= 56
    let kmid = sel(
        kf.simd_lt(sp(2.0)),
        sp(2.0),
        sel(kf.simd_gt(sp(56.0)), sp(56.0), kf),
    );
    let twopk = pow2(kmid);
    let umk = pow2(-kmid);
    let mid_lo = (xr - e2 + (sp(1.0) - umk)) * twopk; // k < 20
    let mid_hi = (xr - (e2 + umk) + 1.0) * twopk; // k >= 20
    let mut res = sel(kf.simd_lt(sp(20.0)), mid_lo, mid_hi);
    res = sel(kf.simd_lt(sp(2.0)) | kf.simd_gt(sp(56.0)), big, res);
    res = sel(kf.simd_eq(sp(1.0)), res_1, res);
    res = sel(kf.simd_eq(sp(-1.0)), res_m1, res);
    res = sel(kf.simd_eq(sp(0.0)), res0, res);
    res = sel(x.simd_gt(sp(EXP_O_THRESHOLD)), sp(f64::INFINITY), res);
    res = sel(x.simd_lt(sp(-45.0)), sp(-1.0), res);
    // |x| < 2^-54: expm1(x) = x (also keeps -0.0)
    res = sel(x.abs().simd_lt(sp(5.551115123125783e-17)), x, res);
    sel(is_nan(x), x, res)
}

// ---------------------------------------------------------------------------
// log / log1p (fdlibm e_log.c, s_log1p.c in musl's formulation)
// ---------------------------------------------------------------------------
// x = 2^k * (1+f), sqrt(2)/2 < 1+f < sqrt(2).  s = f/(2+f),
// log(1+f) = f - f^2/2 + s*(f^2/2 + R(s^2)), R a Remez polynomial
// (Lg1..Lg7, |err| < 2^-58.45, fdlibm), log(x) = k*ln2_hi + (log(1+f) +
// k*ln2_lo).  fdlibm: < 1 ulp.  For log1p, u = 1+x is decomposed the same
// way and c = (x - (u-1))/u (or (1-(u-x))/u) corrects the rounding of u.
pub(super) const LG1: f64 = 6.666666666666735130e-01;
pub(super) const LG2: f64 = 3.999999999940941908e-01;
pub(super) const LG3: f64 = 2.857142874366239149e-01;
pub(super) const LG4: f64 = 2.222219843214978396e-01;
pub(super) const LG5: f64 = 1.818357216161805012e-01;
pub(super) const LG6: f64 = 1.531383769920937332e-01;
pub(super) const LG7: f64 = 1.479819860511658591e-01;
/// 0x3ff0000000000000 - 0x3fe6a09e00000000: shifts the binade boundary to
/// sqrt(2)/2 (musl's trick) so that the mantissa lands in [sqrt2/2, sqrt2).
pub(super) const SQRT2_SHIFT: u64 = 0x3ff0_0000_0000_0000 - 0x3fe6_a09e_0000_0000;

/// log(1+f) + k*ln2 + c for the reduced f, integer-valued dk.
#[inline(always)]
pub(super) fn log_kernel(f: F, dk: F, c: F) -> F {
    let hfsq = f * f * 0.5;
    let s = f / (sp(2.0) + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (sp(LG2) + w * (sp(LG4) + w * LG6));
    let t2 = z * (sp(LG1) + w * (sp(LG3) + w * (sp(LG5) + w * LG7)));
    let r = t2 + t1;
    s * (hfsq + r) + (dk * LN2_LO + c) - hfsq + f + dk * LN2_HI
}

/// Decompose positive normal x: returns (f, k) with x = 2^k (1+f), 1+f in [sqrt2/2, sqrt2).
#[inline(always)]
pub(super) fn log_reduce(x: F) -> (F, F) {
    let hx = bits(x) + us(SQRT2_SHIFT);
    let kf = i2f((hx >> 52) - us(0x3ff));
    let m = from_bits((hx & us(0x000f_ffff_ffff_ffff)) + us(0x3fe6_a09e_0000_0000));
    (m - 1.0, kf)
}

/// Natural logarithm (fdlibm algorithm, < 1 ulp; subnormals handled by prescaling).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log_f64(x: f64x8) -> f64x8 {
    let sub = x.simd_lt(sp(f64::MIN_POSITIVE));
    let xs = sel(sub, x * 18014398509481984.0, x); // * 2^54
    let (f, kf) = log_reduce(xs);
    let kf = kf - (sp(54.0) & sub);
    let mut res = log_kernel(f, kf, sp(0.0));
    res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    res = sel(x.simd_lt(sp(0.0)), sp(f64::NAN), res);
    res = sel(x.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), res);
    sel(is_nan(x), x, res)
}

/// log(1+x) (musl/fdlibm log1p algorithm, < 1 ulp).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log1p_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.simd_lt(sp(-0.5)) | is_nan(x), sp(-0.5), x); // keep u > 0
    let u = sp(1.0) + xc;
    let (fr, kf) = log_reduce(u);
    let k0 = kf.simd_eq(sp(0.0));
    let c = sel(kf.simd_ge(sp(2.0)), sp(1.0) - (u - xc), xc - (u - 1.0)) / u;
    let c = sel(k0 | kf.simd_ge(sp(54.0)), sp(0.0), c);
    let f = sel(k0, xc, fr);
    let mut res = log_kernel(f, kf, c);
    // x in [-1, -0.5): 1+x is exact (Sterbenz), so log(1+x) is exactly log(u)
    let lt = x.simd_lt(sp(-0.5));
    if lt.any() {
        res = sel(lt, log_f64(sp(1.0) + x), res);
    }
    res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    res = sel(x.simd_lt(sp(-1.0)), sp(f64::NAN), res);
    res = sel(x.simd_eq(sp(-1.0)), sp(f64::NEG_INFINITY), res);
    // |x| < 2^-53: log1p(x) = x (correctly rounded; keeps -0.0)
    res = sel(x.abs().simd_lt(sp(1.1102230246251565e-16)), x, res);
    sel(is_nan(x), x, res)
}

/// e^(v + v_lo) = 2^k·(1 + ph + pl) for -1800 <= v <= 0 and |v_lo| <= ulp(v) (the
/// reduction above: k·LN2_HI is exact for |k| < 2^21, and k·LN2_LO's rounding stays below
/// 2^-74 up to |k| = 2600; 2^k is the caller's to apply, possibly scaled, and `swish_f64`
/// uses the range below -800): returns (k, ph, pl)
/// with (ph, pl) normalised (|pl| <= ulp(ph)/2), within a few 2^-57 of e^r - 1 relative.
/// Used where e^v must carry more than one double's precision (tanh, silu, gelu).
#[inline(always)]
pub(super) fn exp_dd_parts(v: F, v_lo: F) -> (F, F, F) {
    let kf = rint(v * INVLN2);
    let hi = v - kf * LN2_HI; // exact
    let lo = kf * LN2_LO - v_lo;
    let rh = hi - lo;
    let rl = (hi - rh) - lo;
    // p = e^(rh + rl) - 1 = ph + pl
    let (sq, sq_e) = two_prod(rh, rh);
    let (p1, e1) = fast_two_sum(rh, sq * 0.5);
    let tail = e1 + sq_e * 0.5 + (rl + rl * rh + rh * sq * horner(rh, &TANH_T));
    let (ph, pl) = fast_two_sum(p1, tail);
    (kf, ph, pl)
}

/// e^(v + v_lo)·2^sc as a double-double (eh, el) for `exp_dd_parts`'s domain and an
/// integer-valued sc (0 or 256 here) that keeps 2^(k + sc) normal: 2^(k + sc)·(1 + ph +
/// pl), with 1 + ph exact by `fast_two_sum` and the scaling exact for eh (el may be
/// subnormal, at most 2^-64 of e).
#[inline(always)]
pub(super) fn exp_dd_scaled(v: F, v_lo: F, sc: F) -> (F, F) {
    let (kf, ph, pl) = exp_dd_parts(v, v_lo);
    let two_k = pow2(kf + sc);
    let (e1, e1_l) = fast_two_sum(sp(1.0), ph);
    (two_k * e1, two_k * (e1_l + pl))
}

// ---------------------------------------------------------------------------
// exp2, log2 (f64 lanes)
// ---------------------------------------------------------------------------

/// ln 2 to 106 bits: LN2_D + LN2_D_LO.
pub(super) const LN2_D: f64 = std::f64::consts::LN_2;
pub(super) const LN2_D_LO: f64 = 2.319046813846299558e-17;

/// 2^x: k = rint(x) splits off the exponent exactly; 2^r = e^(r ln2) with r·ln2 formed
/// in double-double (Dekker product), so the fdlibm exp core sees an argument accurate
/// to ~2^-100 and the only errors are exp's (< 1 ulp). Integer x gives 2^x exactly.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn exp2_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.simd_gt(sp(1025.0)), sp(1025.0), x);
    let xc = sel(xc.simd_lt(sp(-1100.0)), sp(-1100.0), xc);
    let xc = sel(is_nan(xc), sp(0.0), xc);
    let kf = rint(xc);
    let r = xc - kf; // exact, |r| <= 0.5
    let (h, e) = two_prod(r, sp(LN2_D));
    let lo = e + r * LN2_D_LO;
    let res = exp_core2(h, lo, kf);
    sel(is_nan(x), x, res)
}

/// fdlibm k_log1p: log(1+f) - f + f²/2 for the reduced f.
#[inline(always)]
pub(super) fn k_log1p(f: F) -> F {
    let hfsq = f * f * 0.5;
    let s = f / (sp(2.0) + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (sp(LG2) + w * (sp(LG4) + w * LG6));
    let t2 = z * (sp(LG1) + w * (sp(LG3) + w * (sp(LG5) + w * LG7)));
    s * (hfsq + t2 + t1)
}

pub(super) const IVLN2HI: f64 = 1.44269504072144627571e+00; // 0x3ff7154765200000
pub(super) const IVLN2LO: f64 = 1.67517131648865118353e-10;

/// log2(x) (fdlibm e_log2.c: log(1+f) split into a 21-bit head and a tail so that the
/// multiplication by 1/ln2 and the addition of k carry extra precision; < 1 ulp).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log2_f64(x: f64x8) -> f64x8 {
    let sub = x.simd_lt(sp(f64::MIN_POSITIVE));
    let xs = sel(sub, x * 18014398509481984.0, x); // * 2^54
    let (f, kf) = log_reduce(xs);
    let kf = kf - (sp(54.0) & sub);
    let hfsq = f * f * 0.5;
    let r = k_log1p(f);
    let hi = clear_low(f - hfsq);
    let lo = ((f - hi) - hfsq) + r;
    let val_hi = hi * IVLN2HI;
    let val_lo = (lo + hi) * IVLN2LO + lo * IVLN2HI;
    let w = kf + val_hi;
    let val_lo = val_lo + ((kf - w) + val_hi);
    let mut res = val_lo + w;
    res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    res = sel(x.simd_lt(sp(0.0)), sp(f64::NAN), res);
    res = sel(x.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), res);
    sel(is_nan(x), x, res)
}

/// 1/k! for k = 0..=10.
pub(super) const INV_FACT: [f64; 11] = [
    1.0,
    1.0,
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
];

/// e^r = 1 + r·Q(r) on |r| <= ln2/2 + 2^-20: relative error < 2^-34.3 (`tools/exp_fit.py
/// 7`), so an f32 result is within 0.5 + 2^-10 ulp. (Taylor needs degree 10 for 2^-41;
/// expm1 keeps that, for its cancellation near 0.)
pub(super) const EXP_Q: [f64; 7] = [
    1.0000000002067497,
    0.500000007744086,
    0.16666665186436985,
    0.041666271541258244,
    0.00833356348505238,
    0.001394597110132719,
    0.0001977101630230691,
];

/// e^r for |r| <= ln2/2 + 2^-20 (f32 results): 1 + r·Q(r), Estrin; e^0 = 1 exactly.
#[inline(always)]
pub(super) fn exp_poly_small(r: F) -> F {
    fma(r, poly_estrin(r, &EXP_Q), sp(1.0))
}

/// x = k·ln2 + r for f64 x from f32 inputs clamped to |x| <= 260: (k, r), |r| <= ln2/2 +
/// 2^-40. r = x - k·LN2_D takes one rounding with FMA; without, the product's rounding
/// (<= 2^-45 for |k| <= 375) is the only other one, as the subtraction is exact (Sterbenz:
/// x and k·ln2 are within a factor 2 whenever k != 0). LN2_D is ln 2 to 2^-54 relative, so
/// r is off by < 2^-44 absolute in all: far inside the 2^-30 an f32 result needs
/// (fdlibm's second ln 2 word is not needed here).
#[inline(always)]
pub(super) fn reduce_ln2(x: F) -> (F, F) {
    let kf = rint(x * INVLN2);
    (kf, fma(kf, sp(-LN2_D), x))
}

/// e^x for x already clamped to [-160, 130] (f32 inputs): result is an f64 whose
/// rounding to f32 gives exp's f32 value (including overflow and subnormals).
#[inline(always)]
pub(super) fn exp_f64_for_f32(x: F) -> F {
    let (kf, r) = reduce_ln2(x);
    exp_poly_small(r) * pow2(kf)
}

/// e^x - 1 for x clamped to [-160, 130] (f32 inputs), relative error < 2^-39:
/// e^r - 1 = r·(1 + r/2 + ... + r^9/10!) (remainder < 2^-40.6 relative for |r| <= 0.347),
/// then 2^k·(e^r - 1) + (2^k - 1), one fused step. k = 0 returns the polynomial itself
/// (no cancellation near 0); for k != 0, |e^x - 1| > 0.29 and both terms are at most
/// 3.5 times larger, so the roundings stay below 2^-50 relative.
#[inline(always)]
pub(super) fn expm1_f64_for_f32(x: F) -> F {
    let (kf, r) = reduce_ln2(x);
    let p = r * poly_estrin(r, &INV_FACT[1..]);
    let two_k = pow2(kf);
    fma(two_k, p, two_k - 1.0)
}

#[inline(always)]
pub(super) fn clamp_exp_arg(x: F) -> F {
    let xc = sel(x.simd_gt(sp(130.0)), sp(130.0), x);
    sel(xc.simd_lt(sp(-160.0)), sp(-160.0), xc)
}

/// e^x (f32 lanes), <= 1 ulp on every input: the f32-lane kernel `f32_kernels::exp` (`dispatch.rs`).
#[inline]
pub fn exp_f32(x: f32x8) -> f32x8 {
    dispatch::exp(x)
}

/// e^x for x <= 0 (f32 lanes), NaN for NaN, <= 1 ulp (walked: 0.812): softmax's
/// `exp(x - max)`, whose argument is never positive; cheaper than `exp_f32` by what the
/// sign allows (`f32_kernels::exp_nonpos`). A positive x is outside its domain: these
/// 8-lane kernels return 1, the 16-lane AVX-512 one (`x16::exp_nonpos_f32x16`) e^x up
/// to 88.72 and no meaningful value far above it (`f32_kernels::exp_nonpos_table32`).
#[inline]
pub fn exp_nonpos_f32(x: f32x8) -> f32x8 {
    dispatch::exp_nonpos(x)
}

/// 2^x (f32 lanes): 2^x = 2^k · e^(r·ln2), k = rint(x), exact split.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn exp2_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let xc = clamp_exp_arg(w);
    let kf = rint(xc);
    let r = (xc - kf) * LN2_D;
    let res = exp_poly_small(r) * pow2(kf);
    narrow(sel(is_nan(w), w, res))
}

/// e^x - 1 (f32 lanes), <= 1 ulp on every input (f64 polynomial, rounded once).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn expm1_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let res = expm1_f64_for_f32(clamp_exp_arg(w));
    let res = sel(w.simd_eq(sp(0.0)), w, res); // the fused step turns -0.0 into +0.0
    narrow(sel(is_nan(w), w, res))
}

// log(1+f) = f·G(f) for the reduced f in [sqrt2/2 - 1, sqrt2 - 1] (`log_reduce`), with G
// a polynomial: no division (s = f/(2+f) would cost a vdivpd). Coefficients: our own
// Chebyshev fits (mpmath `chebyfit`, fit range padded by 2^-20), max relative error of G,
// coefficients rounded to f64, as stated on each table.

/// ln(1+f)/f, degree 9: relative error < 2^-27.6.
pub(super) const LOG_G: [f64; 10] = [
    0.9999999993832872,
    -0.4999998849583206,
    0.33333345348007315,
    -0.25001579131077856,
    0.2000093958859448,
    -0.16608368688955777,
    0.1419964642406117,
    -0.13266033951342357,
    0.12806637493916143,
    -0.07451214627269837,
];
/// log2(1+f)/f, degree 9: relative error < 2^-27.6.
pub(super) const LOG2_G: [f64; 10] = [
    1.442695039999235,
    -0.7213473544744213,
    0.4808985202980935,
    -0.3606965422679902,
    0.28855256357584996,
    -0.23960811144812033,
    0.20485759478369753,
    -0.19138841393866238,
    0.1847607240293548,
    -0.10749830391361499,
];
/// (2^r - 1)/r on |r| <= 1/2 (+2^-20), degree 6: 2^r = 1 + r·Q(r) has relative error
/// < 2^-33.1 and is exactly 1 at r = 0.
pub(super) const EXP2_Q: [f64; 7] = [
    0.6931471805599453,
    0.2402265092229135,
    0.055504108839098176,
    0.009618056677971448,
    0.0013333502385736975,
    0.00015461444919863564,
    1.529732393103067e-05,
];

/// log's special lanes: +inf and NaN are their own log (`!(w < inf)` is both), negative
/// x gives NaN, +-0 gives -inf.
#[inline(always)]
pub(super) fn log_specials(w: F, res: F) -> F {
    let mut res = sel(w.simd_lt(sp(f64::INFINITY)), res, w);
    res = sel(w.simd_lt(sp(0.0)), sp(f64::NAN), res);
    sel(w.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), res)
}

/// ln(x) (f32 lanes), <= 1 ulp on every input: `log_f32_table` on AVX-512 builds, for
/// positive finite x (the other lanes out of line, by `log_f32_poly`); `log_f32_poly`
/// elsewhere.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log_f32(x: f32x8) -> f32x8 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    return fast_or_rare_lanes(
        x,
        positive_finite(x),
        log_table::log_f32_table::<false>(x),
        log_f32_poly,
    );
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    log_f32_poly(x)
}

/// log2(x) (f32 lanes): as `log_f32`, in base 2; exact for powers of two.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log2_f32(x: f32x8) -> f32x8 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    return fast_or_rare_lanes(
        x,
        positive_finite(x),
        log_table::log_f32_table::<true>(x),
        log2_f32_poly,
    );
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    log2_f32_poly(x)
}

/// ln(x) for every f32 x: k·ln2 + f·G(f) in f64 lanes (subnormals are normal there).
/// G's 2^-27.6 and the one-bit cancellation when k = -1 leave the f64 value within
/// 2^-26.6 relative, i.e. <= 0.5 + 2^-2.6 ulp after the rounding to f32. Lanes that are
/// not positive finite are reduced too (into garbage, no traps) and replaced by
/// `log_specials`.
#[inline(always)]
pub(super) fn log_f32_poly(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (f, kf) = log_reduce(w);
    let res = fma(f, poly_estrin(f, &LOG_G), kf * LN2_D);
    narrow(log_specials(w, res))
}

/// log2(x) for every f32 x: k + f·G2(f), exact for powers of two; same budget as
/// `log_f32_poly`.
#[inline(always)]
pub(super) fn log2_f32_poly(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (f, kf) = log_reduce(w);
    let res = fma(f, poly_estrin(f, &LOG2_G), kf);
    narrow(log_specials(w, res))
}

/// The lanes with 0 < x < inf (subnormals included), as one unsigned compare of the
/// bits: x - 1 wraps around for +0, and negative x, inf and NaN are above.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
pub(super) fn positive_finite(x: f32x8) -> f32x8 {
    bits_in(x, 1, f32::INFINITY.to_bits() - 1)
}

// ---------------------------------------------------------------------------
// log and log2 on AVX-512 builds: a 16-entry table and a degree-5 polynomial
// ---------------------------------------------------------------------------
// The reduction of `log_f32_poly` leaves f in [-0.29, 0.41] and needs a degree-9
// polynomial (10 coefficients); with a table lookup (`vpermt2pd`, one uop per table of
// 16 f64), the reduced argument is within 0.0297 of 0 and four coefficients reach 2^-31.
// Tables and coefficients: `tools/log_table.py 4` (the reduction is explained there).
// ln x = k·ln2 + LNC[i] + log1p(r), r = z·INVC[i] - 1, x = 2^k·z, z in [0.699, 1.398).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
pub(super) mod log_table {
    use super::*;

    /// Bits of f64 0.69921875 (f32 0x3f330000): z = x / 2^k lies in [OFF, 2·OFF).
    const LOG_OFF: u64 = 0x3fe6_6000_0000_0000;
    /// 1/c for the midpoint c of each of the 16 subintervals of z, rounded to f64; exactly 1
    /// for the one that holds 1 (i = 9).
    const LOG_INVC: [f64; 16] = [
        1.3989071038251366,
        1.3403141361256545,
        1.2864321608040201,
        1.2367149758454106,
        1.1906976744186046,
        1.147982062780269,
        1.1082251082251082,
        1.0711297071129706,
        1.0364372469635628,
        1.0,
        0.9481481481481482,
        0.8951048951048951,
        0.847682119205298,
        0.8050314465408805,
        0.7664670658682635,
        0.7314285714285714,
    ];
    /// -ln(LOG_INVC[i]) rounded to f64 (0 for i = 9).
    const LOG_LNC: [f64; 16] = [
        -0.33569129163814154,
        -0.2929040164329327,
        -0.2518726197550701,
        -0.21245865121419336,
        -0.17453941635189965,
        -0.1380056730194437,
        -0.10275973395776894,
        -0.06871389254805173,
        -0.03578910785158529,
        0.0,
        0.05324451451881224,
        0.11081436634029011,
        0.16524957289530717,
        0.2168739383006143,
        0.2659635484971379,
        0.3127557100038969,
    ];
    /// -log2(LOG_INVC[i]) rounded to f64 (0 for i = 9).
    const LOG_LOG2C: [f64; 16] = [
        -0.4843001617159575,
        -0.4225711719642514,
        -0.3633753794563512,
        -0.3065130425006747,
        -0.2518071504105397,
        -0.19910010007969525,
        -0.14825095858394247,
        -0.09913319201925132,
        -0.05163276841532236,
        0.0,
        0.07681559705083084,
        0.1598713367783894,
        0.2384047393250789,
        0.3128829552843553,
        0.38370429247405213,
        0.4512111118323288,
    ];
    /// log1p(r) = r + r²·P(r) on |r| <= 0.0297: relative error < 2^-31.0.
    const LOG_TAB_P: [f64; 4] = [
        -0.4999999357059919,
        0.3333332846923619,
        -0.25021968536677713,
        0.20017847952840223,
    ];
    /// The same divided by ln 2 (log2(1 + r) = r/ln2 + r²·P2(r)).
    const LOG2_TAB_P: [f64; 4] = [
        -0.7213474276878351,
        0.48089827678889957,
        -0.36099069921144605,
        0.2887964997083188,
    ];

    /// table[idx & 15] in each lane: one `vpermt2pd` (bits 0-2 pick the entry of a register,
    /// bit 3 the register; higher bits of idx are ignored).
    #[inline(always)]
    fn lookup16(table: &[f64; 16], idx: U) -> F {
        use core::arch::x86_64::_mm512_permutex2var_pd;
        let lo: F = F::new(table[..8].try_into().unwrap());
        let hi: F = F::new(table[8..].try_into().unwrap());
        // SAFETY: `_mm512_permutex2var_pd` needs avx512f, which the `cfg` above guarantees for
        // the whole build. It reads the two registers only: any index bits select one of
        // their 16 lanes, nothing outside them.
        bytemuck::cast(unsafe {
            _mm512_permutex2var_pd(bytemuck::cast(lo), bytemuck::cast(idx), bytemuck::cast(hi))
        })
    }

    /// ln x (or log2 x with `BASE2`) for positive finite f32 x; other lanes give garbage
    /// (no traps). In f64 lanes: x = 2^k·z with z in [OFF, 2·OFF) from the bits (f32
    /// subnormals are normal f64, so no rescaling), i = the top 4 bits of z's mantissa
    /// counted from OFF, r = z·INVC[i] - 1 in one FMA (relative error 2^-53), then
    /// (k·ln2 + LNC[i] + r) + r²·P(r). Error: P's 2^-31 relative to log1p(r), which is at
    /// most 1.3 times the result (2^-30.7); for i = 9 (INVC = 1, LNC = 0) and k = 0 nothing
    /// else rounds before the sum, so x near 1 keeps full relative accuracy; elsewhere
    /// |ln x| >= 0.0197 and the terms are at most 2.3 times the result (k = 0, i = 10,
    /// x = 1.0234375), so their f64 roundings stay below 2^-50 relative. Total < 2^-30.5
    /// before the rounding to f32 (a simulation over 250k inputs: 2^-31.07): <= 0.5 +
    /// 2^-6.5 ulp.
    #[inline(always)]
    pub(super) fn log_f32_table<const BASE2: bool>(x: f32x8) -> f32x8 {
        use wide::i64x8;
        let ix = bits(widen(x));
        let tmp = ix - us(LOG_OFF);
        // k = the exponent of x relative to OFF, as a signed integer (arithmetic shift)
        let k: i64x8 = bytemuck::cast::<U, i64x8>(tmp) >> 52;
        let kf = i2f(bytemuck::cast(k));
        let z = from_bits(ix - (tmp & us(0xfff0_0000_0000_0000)));
        let idx = tmp >> 48;
        let invc = lookup16(&LOG_INVC, idx);
        let r = fma(z, invc, sp(-1.0));
        let r2 = r * r;
        if BASE2 {
            let head = kf + lookup16(&LOG_LOG2C, idx);
            narrow(fma(
                r2,
                poly_estrin(r, &LOG2_TAB_P),
                fma(r, sp(INVLN2), head),
            ))
        } else {
            let head = fma(kf, sp(LN2_D), lookup16(&LOG_LNC, idx));
            narrow(fma(r2, poly_estrin(r, &LOG_TAB_P), head + r))
        }
    }
}

/// ln(1+x) (f32 lanes): u = 1 + x in f64 is decomposed as for log. When k = 0 the reduced
/// argument is x itself (exact, even where u rounded: |x| < 2^-29); when k != 0,
/// |x| > 0.29 and u is exact below 2^28, above which its 2^-53 rounding moves the log by
/// 2^-53 absolute against a result > 19. Same budget as `log_f32`, no correction term.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log1p_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let u = sp(1.0) + w;
    let (fr, kf) = log_reduce(u);
    let f = sel(kf.simd_eq(sp(0.0)), w, fr);
    let res = fma(f, poly_estrin(f, &LOG_G), kf * LN2_D);
    // 0 keeps its sign; otherwise u = 1 + x's special lanes are those of log (+inf, NaN
    // are their own log1p; -1 gives -inf; below -1 NaN)
    narrow(sel(w.simd_eq(sp(0.0)), w, log_specials(u, res)))
}

#[cfg(test)]
mod tests {
    use super::super::sweep::*;
    use super::*;

    #[test]
    fn f32_sweep_exp_log() {
        println!("| function     | max ulp  | at                       | frac CR    | n         |");
        let xs = f32_inputs(
            STRIDE,
            &[
                0.0, -0.0, 1.0, -1.0, 88.72284, -87.33655, -103.97, -88.0, 1e-7, 0.5,
            ],
            2000,
        );
        run_f32("exp_f32", exp_f32, f64::exp, &xs, 1.0);
        let xs = f32_inputs(
            STRIDE,
            &[
                1.0,
                0.5,
                2.0,
                f32::MIN_POSITIVE,
                1e-45,
                f32::MAX,
                0.70710677,
                1.4142135,
            ],
            2000,
        );
        run_f32("log_f32", log_f32, f64::ln, &xs, 1.0);
        let xs = f32_inputs(
            STRIDE,
            &[0.0, -0.0, -0.5, -1.0, -0.29289, 0.41421, 1e-8, -1e-8, 1.0],
            2000,
        );
        run_f32("log1p_f32", log1p_f32, f64::ln_1p, &xs, 1.0);
    }

    /// log and log2 take lanes that are not positive finite out of line on AVX-512
    /// builds (`log_f32_table`); subnormals and 1 stay on the fast path.
    #[test]
    fn log_f32_mixed_lanes() {
        let odd = [
            0.0f32,
            -0.0,
            1e-45,
            1e-40,
            f32::MIN_POSITIVE,
            1.0,
            f32::MAX,
            f32::INFINITY,
            -f32::INFINITY,
            f32::NAN,
            -1e-40,
            -4.0,
        ];
        let xs = mixed_lanes(&odd);
        run_f32("log_f32 mixed", log_f32, f64::ln, &xs, 1.0);
        run_f32("log2_f32 mixed", log2_f32, f64::log2, &xs, 1.0);
    }
}
