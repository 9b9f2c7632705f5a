//! asinh, acosh, atanh on f32x8 / f64x8 lanes.
//!
//! f32: in f64 lanes, one formula each whose only inexact steps are a few f64 roundings
//! (the argument of log1p to ~2^-51 relative; log1p's condition number is at most 1 for a
//! nonnegative argument) and the f32-sized `log1p` polynomial (`LOG_G`, 2^-27.6): the f64
//! value is within 2^-27 relative, the f32 result within 0.5 + 2^-3 ulp.
//!
//! f64: fdlibm's formulations (`s_asinh.c`, `e_acosh.c`, `e_atanh.c`) with the argument of
//! the final `log1p`/`log` carried in double-double and applied as `log1p(h) + l/(1 + h)`
//! (or `log(h) + l/h`), so the error is fdlibm's `log1p`/`log` (< 1 ulp) plus the final
//! addition's rounding: within 2 ulp (ACCURACY.md).

use super::*;

/// ln(1 + u) for u >= 0 finite (f32 results): u = 1 + w as for `log1p_f32`, k = 0 uses u
/// itself as f (exact), k != 0 reduces the rounded 1 + u (its 2^-53 relative error moves
/// the log by 2^-53 absolute, against a result above 0.34). Relative error < 2^-27.
#[inline(always)]
fn log1p_nonneg_for_f32(u: F) -> F {
    let (fr, kf) = log_reduce(sp(1.0) + u);
    let f = sel(kf.simd_eq(sp(0.0)), u, fr);
    fma(f, poly_estrin(f, &LOG_G), kf * LN2_D)
}

/// asinh(x) (f32 lanes), <= 1 ulp: `log1p(a + a²/(1 + √(1 + a²)))` for a = |x| (every
/// finite f32 a, squared, stays finite in f64), the sign copied. ±0, ±inf and NaN are
/// their own asinh.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn asinh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let a = w.abs();
    let p = a * a;
    let u = a + p / (sp(1.0) + (sp(1.0) + p).sqrt());
    let r = log1p_nonneg_for_f32(u);
    // +inf gives inf/inf = NaN above; `!(a < inf)` is +inf and NaN
    let r = sel(a.simd_lt(sp(f64::INFINITY)), r, a);
    narrow(copysign(r, w))
}

/// acosh(x) (f32 lanes), <= 1 ulp: `log1p(t + √(t(t + 2)))` with t = x - 1 (exact in f64).
/// NaN below 1 (and for NaN), +0 at 1, +inf at +inf.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn acosh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let t = w - 1.0;
    let u = t + (t * (t + 2.0)).sqrt();
    let r = log1p_nonneg_for_f32(u);
    let r = sel(w.simd_lt(sp(f64::INFINITY)), r, w);
    narrow(sel(w.simd_lt(sp(1.0)), sp(f64::NAN), r))
}

/// atanh(x) (f32 lanes), <= 1 ulp: `½·log1p(2a/(1 - a))` for a = |x| (1 - a is exact in
/// f64), the sign copied; ±1 give ±inf, |x| > 1 NaN.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn atanh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let a = w.abs();
    let q = (a + a) / (sp(1.0) - a);
    let r = log1p_nonneg_for_f32(q) * 0.5;
    let r = sel(a.simd_eq(sp(1.0)), sp(f64::INFINITY), r);
    let r = sel(a.simd_gt(sp(1.0)), sp(f64::NAN), r);
    narrow(sel(is_nan(w), w, copysign(r, w)))
}

const TWO_POW_28: f64 = 268435456.0;
const TWO_POW_M28: f64 = 3.725290298461914e-9;
const TWO_POW_1022: f64 = 4.49423283715579e307;

/// `ln(vh + wt) + ln 2·[huge]` for the large branches of asinh and acosh: `vh` = 2a (or a
/// itself where `huge`, a >= 2^1022, 2a would overflow), `wt` the small second term
/// (|wt| < vh/16), summed in double-double and applied as `log(h) + l/h`.
#[inline(always)]
fn log_2a_plus(a: F, wt: F) -> F {
    let huge = a.simd_ge(sp(TWO_POW_1022));
    let (vh, vl) = fast_two_sum(sel(huge, a, a * 2.0), wt);
    log_f64(vh) + sel(huge, sp(LN2_D), vl / vh)
}

/// asinh(x) (f64 lanes), <= 2 ulp. |x| < 2^-28: x. |x| < 2: `log1p(u)`, u = a + a²/(1 +
/// √(1 + a²)) as a double-double (Dekker products, a corrected square root and quotient),
/// `log1p(uh) + ul/(1 + uh)`. |x| >= 2: `ln(2a + 1/(√(a² + 1) + a))` (the second term
/// dropped from 2^28), `ln a + ln 2` from 2^1022.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn asinh_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let small_lane = a.simd_lt(sp(2.0));
    // a < 2
    let ac = sel(small_lane, a, sp(2.0));
    let (p, pe) = two_prod(ac, ac);
    let (w, we) = two_sum(sp(1.0), p);
    let we = we + pe;
    let s = w.sqrt();
    let (ss, sse) = two_prod(s, s);
    let sl = (((w - ss) - sse) + we) / (s + s);
    let (dh, dl) = fast_two_sum(s, sp(1.0));
    let dl = dl + sl;
    let q0 = p / dh;
    let (qd, qde) = two_prod(q0, dh);
    let ql = ((((p - qd) - qde) + pe) - q0 * dl) / dh;
    let (uh, ue) = fast_two_sum(ac, q0);
    let small = log1p_f64(uh) + (ue + ql) / (sp(1.0) + uh);
    // a >= 2
    let ab = sel(small_lane, sp(2.0), a);
    let aw = sel(ab.simd_gt(sp(TWO_POW_28)), sp(TWO_POW_28), ab);
    let wt = sp(1.0) / (fma(aw, aw, sp(1.0)).sqrt() + aw);
    let wt = sel(ab.simd_gt(sp(TWO_POW_28)), sp(0.0), wt);
    let big = log_2a_plus(ab, wt);
    let r = sel(small_lane, small, big);
    let r = sel(a.simd_lt(sp(TWO_POW_M28)), a, r);
    sel(is_nan(x), x, copysign(r, x))
}

/// acosh(x) (f64 lanes), <= 2 ulp. x < 2: t = x - 1 (exact), `log1p(u)`, u = t + √(t(t +
/// 2)) as a double-double, `log1p(uh) + ul/(1 + uh)`. x >= 2: `ln(2x - 1/(x + √(x² -
/// 1)))` (the second term dropped from 2^28), `ln x + ln 2` from 2^1022. NaN below 1.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn acosh_f64(x: f64x8) -> f64x8 {
    let small_lane = x.simd_lt(sp(2.0));
    // 1 <= x < 2 (other lanes evaluate at 1.5)
    let xs = sel(small_lane & x.simd_ge(sp(1.0)), x, sp(1.5));
    let t = xs - 1.0;
    let (b, be) = two_sum(t, sp(2.0));
    let (p, pe) = two_prod(t, b);
    let pe = pe + t * be;
    let r = p.sqrt();
    let (rr, rre) = two_prod(r, r);
    let r_div = sel(r.simd_eq(sp(0.0)), sp(1.0), r); // x = 1: r = 0 and the residual is 0
    let rl = (((p - rr) - rre) + pe) / (r_div + r_div);
    let (uh, ue) = fast_two_sum(r, t);
    let small = log1p_f64(uh) + (ue + rl) / (sp(1.0) + uh);
    // x >= 2
    let xb = sel(small_lane, sp(2.0), x);
    let xw = sel(xb.simd_gt(sp(TWO_POW_28)), sp(TWO_POW_28), xb);
    let wt = sp(1.0) / (xw + fma(xw, xw, sp(-1.0)).sqrt());
    let wt = sel(xb.simd_gt(sp(TWO_POW_28)), sp(0.0), wt);
    let big = log_2a_plus(xb, -wt);
    let res = sel(small_lane, small, big);
    let res = sel(x.simd_lt(sp(1.0)), sp(f64::NAN), res);
    sel(is_nan(x), x, res)
}

/// atanh(x) (f64 lanes), <= 2 ulp. |x| < 2^-28: x. Else `½·log1p(q)`, q = 2a/(1 - a) with
/// 1 - a and the quotient as double-doubles, `log1p(qh) + ql/(1 + qh)`; ±1 give ±inf,
/// |x| > 1 NaN.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn atanh_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let ac = sel(a.simd_lt(sp(1.0)), a, sp(0.5));
    let (dh, dl) = fast_two_sum(sp(1.0), -ac);
    let n = ac + ac;
    let q0 = n / dh;
    let (qd, qde) = two_prod(q0, dh);
    let ql = (((n - qd) - qde) - q0 * dl) / dh;
    let r = (log1p_f64(q0) + ql / (sp(1.0) + q0)) * 0.5;
    let r = sel(a.simd_lt(sp(TWO_POW_M28)), a, r);
    let r = sel(a.simd_eq(sp(1.0)), sp(f64::INFINITY), r);
    let r = sel(a.simd_gt(sp(1.0)), sp(f64::NAN), r);
    sel(is_nan(x), x, copysign(r, x))
}

#[cfg(test)]
mod tests {
    use super::super::check::*;
    use super::*;
    use crate::reference::Float;

    #[test]
    fn special_values() {
        let inf = f64::INFINITY;
        let nan = f64::NAN;
        for (f32f, f64f, r, cases) in [
            (
                asinh_f32 as fn(f32x8) -> f32x8,
                asinh_f64 as fn(F) -> F,
                <f64 as Float>::asinh as fn(f64) -> f64,
                vec![
                    (0.0, 0.0),
                    (-0.0, -0.0),
                    (inf, inf),
                    (-inf, -inf),
                    (nan, nan),
                ],
            ),
            (
                acosh_f32,
                acosh_f64,
                <f64 as Float>::acosh,
                vec![
                    (1.0, 0.0),
                    (inf, inf),
                    (0.5, nan),
                    (0.0, nan),
                    (-1.0, nan),
                    (-inf, nan),
                    (nan, nan),
                ],
            ),
            (
                atanh_f32,
                atanh_f64,
                <f64 as Float>::atanh,
                vec![
                    (0.0, 0.0),
                    (-0.0, -0.0),
                    (1.0, inf),
                    (-1.0, -inf),
                    (1.5, nan),
                    (-2.0, nan),
                    (inf, nan),
                    (nan, nan),
                ],
            ),
        ] {
            check_specials(f32f, f64f, r, &cases);
        }
    }

    #[test]
    fn edges_and_random() {
        let edges = [
            1.0,
            1.0000001,
            0.9999999,
            2.0,
            0.5,
            3e38,
            1e-30,
            super::super::sweep::exact_pow2(28),
            super::super::sweep::exact_pow2(-28),
        ];
        check_fn(
            "asinh",
            asinh_f32,
            asinh_f64,
            <f64 as Float>::asinh,
            &edges,
            (-1e3, 1e3),
        );
        check_fn(
            "acosh",
            acosh_f32,
            acosh_f64,
            <f64 as Float>::acosh,
            &edges,
            (1.0, 1e3),
        );
        check_fn(
            "atanh",
            atanh_f32,
            atanh_f64,
            <f64 as Float>::atanh,
            &edges,
            (-1.0, 1.0),
        );
    }
}
