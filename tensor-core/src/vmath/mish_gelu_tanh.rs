//! mish and gelu_tanh on f32x8 / f64x8 lanes: both are `x` times a function of `e^±x`
//! (or of `e^±v`), built from the exp and sigmoid kernels.

use super::*;
use crate::reference::{GELU_TANH_C2, GELU_TANH_K};

/// mish(x) = x·tanh(softplus(x)) (f32 lanes), <= 2 ulp: tanh(ln(1 + e)) = n/(n + 2) with
/// e = e^x, n = e(e + 2) (no cancellation: every term is positive), in f64 lanes and
/// rounded once. e is within 2^-34 relative (`exp_f64_for_f32`), n within 2^-33, the
/// quotient within 2^-32.5: the f32 result within 0.5 + 2^-8 ulp. x > 20: x (the factor
/// is 1 - 2e^-2x·…, 1 in f64); x < -160 (and -inf): -0, the limit (|x|e^x is far below
/// the f32 range there).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn mish_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let xe = sel(w.simd_gt(sp(20.0)), sp(20.0), w);
    let xe = sel(xe.simd_lt(sp(-160.0)), sp(-160.0), xe);
    let e = exp_f64_for_f32(xe);
    let n = e * (e + 2.0);
    let res = w * (n / (n + 2.0));
    let res = sel(w.simd_gt(sp(20.0)), w, res);
    let res = sel(w.simd_lt(sp(-160.0)), sp(-0.0), res);
    narrow(sel(is_nan(w), w, res))
}

/// mish(x) (f64 lanes), <= 2 ulp, in double-double throughout: e = e^-|x| (`exp_dd_scaled`,
/// a few 2^-57), for x < 0 `x·n/(n + 2)` with n = 2e + e², for x >= 0 `x·(1 + 2e)/(1 +
/// 2e + 2e²)`, every sum and product exact or double-double, the quotient rounded once
/// (`div_dd`). Below -700 e is carried scaled by 2^256 (n + 2 is 2 there) and the result
/// scaled back once into the subnormal range. x > 40: x; ±0 keep their sign; -inf: -0.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn mish_f64(x: f64x8) -> f64x8 {
    let tail = x.simd_lt(sp(-700.0));
    let xc = sel(x.simd_gt(sp(40.0)), sp(40.0), x);
    let xc = sel(xc.simd_lt(sp(-800.0)), sp(-800.0), xc);
    let (eh, el) = exp_dd_scaled(-xc.abs(), sp(0.0), sp(256.0) & tail);
    let (e2h, e2l) = two_prod(eh, eh);
    let e2l = e2l + (eh + eh) * el;
    let (e2h, e2l) = (e2h + e2h, e2l + e2l); // 2e²
    let (te, tel) = (eh + eh, el + el); // 2e
                                        // x < 0: n = 2e + e², d = 2 + n (2e >= e² for e <= 1)
    let (n1h, n1e) = fast_two_sum(te, e2h * 0.5);
    let n1l = n1e + tel + e2l * 0.5;
    let (d1h, d1e) = two_sum(sp(2.0), n1h);
    let d1l = d1e + n1l;
    // x >= 0: n = 1 + 2e, d = n + 2e²
    let (n2h, n2e) = two_sum(sp(1.0), te);
    let n2l = n2e + tel;
    let (d2h, d2e) = two_sum(n2h, e2h);
    let d2l = d2e + n2l + e2l;
    let neg = xc.simd_lt(sp(0.0));
    let (nh, nl) = (sel(neg, n1h, n2h), sel(neg, n1l, n2l));
    let (dh, dl) = (sel(neg, d1h, d2h), sel(neg, d1l, d2l));
    let (xnh, xne) = two_prod(xc, nh);
    let q = div_dd(xnh, xne + xc * nl, dh, dl);
    let q = sel(tail, q * 8.636168555094445e-78, q); // 2^-256
    let res = sel(x.simd_gt(sp(40.0)) | x.simd_eq(sp(0.0)), x, q);
    sel(is_nan(x), x, res)
}

/// gelu_tanh(x) = 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))) = x·sigmoid(v),
/// v = 2√(2/π)·x·(1 + 0.044715x²) (f32 lanes), <= 2 ulp: v in f64 (within 2^-51
/// relative; sigmoid's condition number |v|(1 - sigmoid(v)) is below 160 wherever the
/// result is not 0: 2^-43.7), sigmoid by `sigmoid_parts` (2^-27.9), the product rounded
/// once: within 0.5 + 2^-3.8 ulp. v < -160 (x below about -12.6, and -inf): -0, the
/// limit.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn gelu_tanh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let v = w * fma(w * w, sp(GELU_TANH_K.0), sp(1.0)) * GELU_TANH_C2.0;
    let (t, q) = sigmoid_parts(v);
    let res = w * sel(v.simd_lt(sp(0.0)), t * q, q);
    let res = sel(v.simd_lt(sp(-160.0)), sp(-0.0), res);
    narrow(sel(is_nan(w), w, res))
}

/// gelu_tanh(x) (f64 lanes), <= 2 ulp. The function's condition number is about 3|v|
/// for large negative x (up to ~2^11 before the result underflows), so v is formed in
/// double-double with both constants as double-doubles (0.044715 is the definition's
/// decimal; its f64 rounding alone would move results near x = -20 by ~30 ulp): Dekker
/// products, to ~2^-100. Then, as `logistic_dd`: e = e^-|v| from `exp_dd_scaled` on
/// (vh, vl), `x/(1 + e)` or `x·e/(1 + e)` in double-double, rounded once; below v = -700
/// scaled by 2^256 and scaled back once. x is clamped to [-23, 10]: above 10 the result
/// is x (1 - sigmoid(87) < 2^-125), below -23 (v < -860) it is -0, and v is clamped at
/// -800, where the result is already -0.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn gelu_tanh_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.simd_gt(sp(10.0)), sp(10.0), x);
    let xc = sel(xc.simd_lt(sp(-23.0)), sp(-23.0), xc);
    let (p, pe) = two_prod(xc, xc);
    let (kh, ke) = two_prod(sp(GELU_TANH_K.0), p);
    let kl = ke + (pe * GELU_TANH_K.0 + p * GELU_TANH_K.1);
    let (sh, se) = two_sum(sp(1.0), kh);
    let (th, te) = two_prod(xc, sh);
    let tl = te + xc * (se + kl);
    let (vh, ve) = two_prod(sp(GELU_TANH_C2.0), th);
    let vl = ve + (tl * GELU_TANH_C2.0 + th * GELU_TANH_C2.1);
    let (vh, vl) = fast_two_sum(vh, vl);
    let low = vh.simd_lt(sp(-800.0));
    let (vh, vl) = (sel(low, sp(-800.0), vh), sel(low, sp(0.0), vl));
    let tail = vh.simd_lt(sp(-700.0));
    let neg = vh.simd_lt(sp(0.0));
    // -|v| as a double-double
    let (mh, ml) = (-vh.abs(), sel(neg, vl, -vl));
    let (eh, el) = exp_dd_scaled(mh, ml, sp(256.0) & tail);
    let (dh, d_l) = fast_two_sum(sp(1.0), eh);
    let (dh, dl) = (sel(tail, sp(1.0), dh), sel(tail, sp(0.0), d_l + el));
    let (xe, xe_l) = two_prod(xc, eh);
    let (nh, nl) = (sel(neg, xe, xc), sel(neg, xe_l + xc * el, sp(0.0)));
    let q = div_dd(nh, nl, dh, dl);
    let q = sel(tail, q * 8.636168555094445e-78, q); // 2^-256
    let res = sel(x.simd_gt(sp(10.0)) | x.simd_eq(sp(0.0)), x, q);
    sel(is_nan(x), x, res)
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
        let cases = [
            (0.0, 0.0),
            (-0.0, -0.0),
            (inf, inf),
            (-inf, -0.0),
            (nan, nan),
            (-1000.0, -0.0),
            (1000.0, 1000.0),
        ];
        check_specials(mish_f32, mish_f64, <f64 as Float>::mish, &cases);
        check_specials(
            gelu_tanh_f32,
            gelu_tanh_f64,
            <f64 as Float>::gelu_tanh,
            &cases,
        );
    }

    #[test]
    fn edges_and_random() {
        let edges = [
            1.0, 20.0, 40.0, 160.0, 103.0, 700.0, 745.0, 751.0, 760.0, 1e-30, 3e38,
        ];
        check_fn(
            "mish",
            mish_f32,
            mish_f64,
            <f64 as Float>::mish,
            &edges,
            (-40.0, 40.0),
        );
        let edges = [1.0, 10.0, 12.6, 13.0, 20.0, 22.0, 23.0, 1e-30, 3e38];
        check_fn(
            "gelu_tanh",
            gelu_tanh_f32,
            gelu_tanh_f64,
            <f64 as Float>::gelu_tanh,
            &edges,
            (-25.0, 10.0),
        );
    }
}
