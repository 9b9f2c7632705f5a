//! erfc and cbrt on f32x8 / f64x8 lanes.

use super::*;

/// erfc(x) (f32 lanes), <= 1 ulp: fdlibm's erfc (`s_erf.c`, the f64 kernel `erf_erfc_f64`)
/// in f64 lanes, rounded once. Its f64 value is within a few f64 ulps relative down to the
/// f32 subnormal range (f32 erfc underflows at x = 10.05; the f64 kernel is relative-
/// accurate to x = 26), so the f32 result is within 0.5 + 2^-27 ulp. erfc(+inf) = 0,
/// erfc(-inf) = 2.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn erfc_f32(x: f32x8) -> f32x8 {
    narrow(erf_erfc_f64(widen(x)).1)
}

/// erfc(x) (f64 lanes), <= 2 ulp. Below 1.25 fdlibm's `s_erf.c` (`erf_erfc_f64`; results
/// above 0.08, or `2 - r` with r < 0.08 for x <= -1.25). From 1.25, fdlibm's `e^(a + b)/x`
/// with the exponential in double-double (`exp_dd_scaled` on the exact sum of fdlibm's
/// two exponents: fdlibm's `exp(a)·exp(b)` rounds twice) and the quotient corrected once,
/// as in `gelu_f64`'s tail; above 20 (results below 1e-176) scaled by 2^256 and scaled
/// back once into the possibly subnormal result. 0 from 28 (erfc(27.3) is below half
/// the smallest subnormal).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn erfc_f64(x: f64x8) -> f64x8 {
    let mut ec = erf_erfc_f64(x).1;
    let tail = x.simd_ge(sp(1.25));
    if tail.any() {
        let vt = sel(x.simd_gt(sp(28.0)), sp(28.0), sel(tail, x, sp(1.25)));
        let deep = vt.simd_gt(sp(20.0));
        let (a, b) = erfc_tail_exponents(vt);
        // |a| >= 2.125 > |b|: the sum is exact as a double-double
        let (v0, v0_l) = fast_two_sum(a, b);
        let (eh, el) = exp_dd_scaled(v0, v0_l, sp(256.0) & deep);
        let q0 = eh / vt;
        let (qd, qd_l) = two_prod(q0, vt);
        let ql = (((eh - qd) - qd_l) + el) / vt;
        let r = (q0 + ql) * sel(deep, sp(8.636168555094445e-78), sp(1.0)); // 2^-256
        ec = sel(tail, r, ec);
    }
    let ec = sel(x.simd_ge(sp(28.0)), sp(0.0), ec);
    sel(is_nan(x), x, ec)
}

/// cbrt(m) on [1, 2]: degree-5 Chebyshev fit (mpmath `chebyfit` on [1 - 2^-20, 2 + 2^-20]),
/// absolute error < 1.7e-6 (2^-19.2 relative).
const CBRT_P: [f64; 6] = [
    0.4751469022624911,
    0.8317432490461737,
    -0.46029785246692834,
    0.19665487005615123,
    -0.04831834114140013,
    0.005072955516737278,
];
/// 2^(1/3), 2^(2/3), rounded (only a starting point: the Newton step removes the rounding).
const CBRT2: f64 = 1.2599210498948732;
const CBRT4: f64 = 1.5874010519681996;

/// For a positive normal f64 `a = m·2^e` (m in [1, 2)): `(y, t, q)` with `a = t·2^(3q)`,
/// t = m·2^r in [1, 8) exact (e = 3q + r, r in {0, 1, 2}), and y = cbrt(t) after one
/// Newton step `y - (y³ - t)/(3y²)` from the polynomial's 2^-19.2: relative error 2^-37.4
/// from the step (its error is ~ the square of the start's) plus a few 2^-53 from the
/// rounded residual.
#[inline(always)]
fn cbrt_reduced(a: F) -> (F, F, F) {
    let e = i2f((bits(a) >> 52) - us(1023));
    let m = from_bits((bits(a) & us(0x000f_ffff_ffff_ffff)) | us(0x3ff0_0000_0000_0000));
    // e/3 - 1/3 is q - 1/3, q or q + 1/3: rint gives q
    let q = rint((e - 1.0) * (1.0 / 3.0));
    let r = e - q * 3.0;
    let t = m * pow2(r);
    let c = sel(
        r.simd_eq(sp(0.0)),
        sp(1.0),
        sel(r.simd_eq(sp(1.0)), sp(CBRT2), sp(CBRT4)),
    );
    let y = poly_estrin(m, &CBRT_P) * c;
    let y = y - (y * y * y - t) / (y * y * 3.0);
    (y, t, q)
}

/// ±0, ±inf and NaN are their own cube root.
#[inline(always)]
fn cbrt_specials(x: F, res: F) -> F {
    let a = x.abs();
    sel(a.simd_lt(sp(f64::INFINITY)) & a.simd_gt(sp(0.0)), res, x)
}

/// cbrt(x) (f32 lanes), <= 1 ulp: `cbrt_reduced` in f64 lanes (every f32, subnormals
/// included, is a normal f64), times 2^q (exact), the sign copied, rounded once: the f64
/// value is within 2^-37 relative, the f32 result within 0.5 + 2^-13 ulp.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cbrt_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (y, _, q) = cbrt_reduced(w.abs());
    narrow(cbrt_specials(w, copysign(y * pow2(q), w)))
}

/// cbrt(x) (f64 lanes), <= 1 ulp: `cbrt_reduced` (2^-37), then a second Newton step with
/// the residual y³ - t formed exactly (Dekker products; y³ - t itself is exact by
/// Sterbenz) up to the last product's 2^-106: its error is ~2^-74 relative and the result
/// is rounded once by the final subtraction (about 0.5 ulp). Subnormal x are scaled by
/// 2^54 first (q lowered by 18).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cbrt_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let sub = a.simd_lt(sp(f64::MIN_POSITIVE));
    let a = sel(sub, a * 18014398509481984.0, a); // 2^54
    let (y, t, q) = cbrt_reduced(a);
    let q = q - (sp(18.0) & sub);
    let (p, pe) = two_prod(y, y);
    let (c, ce) = two_prod(y, p);
    let res = ((c - t) + ce) + y * pe;
    let y = y - res / (p * 3.0);
    cbrt_specials(x, copysign(y * pow2(q), x))
}

#[cfg(test)]
mod tests {
    use super::super::check::*;
    use super::super::sweep::exact_pow2;
    use super::*;
    use crate::reference::Float;

    #[test]
    fn special_values() {
        let inf = f64::INFINITY;
        let nan = f64::NAN;
        check_specials(
            erfc_f32,
            erfc_f64,
            <f64 as Float>::erfc,
            &[
                (0.0, 1.0),
                (-0.0, 1.0),
                (inf, 0.0),
                (-inf, 2.0),
                (nan, nan),
                (30.0, 0.0),
                (-30.0, 2.0),
            ],
        );
        check_specials(
            cbrt_f32,
            cbrt_f64,
            <f64 as Float>::cbrt,
            &[
                (-8.0, -2.0),
                (8.0, 2.0),
                (27.0, 3.0),
                (-0.125, -0.5),
                (1.0, 1.0),
                (0.0, 0.0),
                (-0.0, -0.0),
                (inf, inf),
                (-inf, -inf),
                (nan, nan),
                (exact_pow2(-147), exact_pow2(-49)),
            ],
        );
        // every exact cube of an integer below 2^7 (f32) and 2^17 (f64; 2^8 under Miri)
        for k in 1..(if cfg!(miri) { 1 << 8 } else { 1 << 17 }) {
            let k = k as f64;
            let c64 = cbrt_f64(F::splat(-(k * k * k))).to_array()[0];
            assert_eq!(c64, -k, "cbrt_f64({})", -(k * k * k));
            if k < 128.0 {
                let c32 = cbrt_f32(f32x8::splat((k * k * k) as f32)).to_array()[0];
                assert_eq!(c32 as f64, k, "cbrt_f32({})", k * k * k);
            }
        }
    }

    #[test]
    fn edges_and_random() {
        let edges = [
            1.25, 0.84375, 0.5, 1.0, 6.0, 10.0, 10.05, 20.0, 26.5, 27.3, 28.0, 1e-30, 3e38,
        ];
        check_fn(
            "erfc",
            erfc_f32,
            erfc_f64,
            <f64 as Float>::erfc,
            &edges,
            (-6.0, 27.0),
        );
        let edges = [
            1.0,
            2.0,
            4.0,
            8.0,
            1e-45,
            1.1754943508222875e-38,
            3e38,
            5e-324,
            2.2250738585072014e-308,
            1.7e308,
            f64::MAX,
        ];
        check_fn(
            "cbrt",
            cbrt_f32,
            cbrt_f64,
            <f64 as Float>::cbrt,
            &edges,
            (-100.0, 100.0),
        );
    }
}
