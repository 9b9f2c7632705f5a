//! sin, cos, tan, atan, asin, acos: the fdlibm f64 kernels, the f32 paths through f64
//! lanes (sin, cos, tan without FMA) and the pure-f32 ones (tan on FMA builds, atan,
//! asin, acos).

use super::*;

// ---------------------------------------------------------------------------
// sin / cos  (fdlibm e_rem_pio2.c medium path + k_sin.c + k_cos.c)
// ---------------------------------------------------------------------------
// n = rint(x*2/pi); r = x - n*pi/2 with pi/2 split into three 33-bit pieces
// PIO2_1,PIO2_2,PIO2_3 (+ tails) so each n*PIO2_i is exact for |n| < 2^20,
// giving y0 + y1 = r to ~2^-118 relative (all three fdlibm rounds are always
// applied).  Valid for |x| <= 1.6e6 (n < 2^20); larger finite lanes use std.
// Kernels: sin(r) = r + r^3*(S1 + r^2*S2 ...), |err| < 2^-58 ;
// cos(r) = 1 - r^2/2 + r^4*(C1 + ...), |err| < 2^-58 (fdlibm Remez coeffs).
pub(super) const INVPIO2: f64 = f64::from_bits(0x3FE45F306DC9C883);
pub(super) const PIO2_1: f64 = f64::from_bits(0x3FF921FB54400000);
pub(super) const PIO2_2: f64 = f64::from_bits(0x3DD0B4611A600000);
pub(super) const PIO2_3: f64 = f64::from_bits(0x3BA3198A2E000000);
pub(super) const PIO2_3T: f64 = f64::from_bits(0x397B839A252049C1);
pub(super) const S1: f64 = -1.66666666666666324348e-01;
pub(super) const S2: f64 = 8.33333333332248946124e-03;
pub(super) const S3: f64 = -1.98412698298579493134e-04;
pub(super) const S4: f64 = 2.75573137070700676789e-06;
pub(super) const S5: f64 = -2.50507602534068634195e-08;
pub(super) const S6: f64 = 1.58969099521155010221e-10;
pub(super) const C1: f64 = 4.16666666666666019037e-02;
pub(super) const C2: f64 = -1.38888888888741095749e-03;
pub(super) const C3: f64 = 2.48015872894767294178e-05;
pub(super) const C4: f64 = -2.75573143513906633035e-07;
pub(super) const C5: f64 = 2.08757232129817482790e-09;
pub(super) const C6: f64 = -1.13596475577881948265e-11;
pub(super) const TRIG_SIMD_MAX: f64 = 1.6e6;

#[inline(always)]
pub(super) fn k_sin(x: F, y: F) -> F {
    let z = x * x;
    let w = z * z;
    let r = sp(S2) + z * (sp(S3) + z * S4) + z * w * (sp(S5) + z * S6);
    let v = z * x;
    x - ((z * (y * 0.5 - v * r) - y) - v * S1)
}

#[inline(always)]
pub(super) fn k_cos(x: F, y: F) -> F {
    let z = x * x;
    let w = z * z;
    let r = z * (sp(C1) + z * (sp(C2) + z * C3)) + w * w * (sp(C4) + z * (sp(C5) + z * C6));
    let hz = z * 0.5;
    let w = sp(1.0) - hz;
    w + (((sp(1.0) - w) - hz) + (z * r - x * y))
}

/// Returns (sin x, cos x) for |x| <= TRIG_SIMD_MAX (other lanes garbage).
#[inline(always)]
pub(super) fn sincos_core(x: F) -> (F, F) {
    let xc = sel(x.abs().simd_le(sp(TRIG_SIMD_MAX)), x, sp(0.0));
    let fnn = rint(xc * INVPIO2);
    let n = f2i(fnn);
    // round 1: exact (PIO2_1 has 33 bits, |n| < 2^20; Sterbenz for the difference)
    let t = xc - fnn * PIO2_1;
    // round 2: r2 + e2 = t - n*PIO2_2 exactly (TwoSum; n*PIO2_2 is exact)
    let (r2, e2) = two_diff(t, fnn * PIO2_2);
    // round 3: PIO2_2T = PIO2_3 + PIO2_3T
    let (r3, e3) = two_diff(r2, fnn * PIO2_3);
    // x - n*pi/2 = r3 + e3 + e2 - n*PIO2_3T  (+ O(n * 2^-150))
    let w = fnn * PIO2_3T - e3 - e2;
    let y0 = r3 - w;
    let y1 = (r3 - y0) - w;
    let s = k_sin(y0, y1);
    let c = k_cos(y0, y1);
    let odd = i2f(n & us(1)).simd_eq(sp(1.0));
    let q2 = i2f(n & us(2)).simd_eq(sp(2.0));
    let q3 = i2f((n + us(1)) & us(2)).simd_eq(sp(2.0));
    // sin: q0 s, q1 c, q2 -s, q3 -c ; cos: q0 c, q1 -s, q2 -c, q3 s
    let sin_mag = sel(odd, c, s);
    let cos_mag = sel(odd, s, c);
    let sinv = sel(q2, -sin_mag, sin_mag);
    let cosv = sel(q3, -cos_mag, cos_mag);
    (sinv, cosv)
}

pub(super) fn trig_fallback(x: F, res: F, f: fn(f64) -> f64) -> F {
    let big = x.abs().simd_gt(sp(TRIG_SIMD_MAX)) & x.abs().simd_lt(sp(f64::INFINITY));
    if big.none() {
        return res;
    }
    // Rare path: huge finite |x|; std performs an exact (Payne–Hanek) reduction.
    let xa = x.to_array();
    let mut ra = res.to_array();
    let m = big.to_bitmask();
    for i in 0..8 {
        if m & (1 << i) != 0 {
            ra[i] = f(xa[i]);
        }
    }
    F::new(ra)
}

/// sin(x): SIMD for |x| <= 1.6e6, per-lane std fallback beyond.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sin_f64(x: f64x8) -> f64x8 {
    let (s, _) = sincos_core(x);
    let s = sel(x.simd_eq(sp(0.0)), x, s); // sin(+-0) = +-0
    let s = sel(
        x.abs().simd_eq(sp(f64::INFINITY)) | is_nan(x),
        sp(f64::NAN),
        s,
    );
    trig_fallback(x, s, f64::sin)
}

/// cos(x): SIMD for |x| <= 1.6e6, per-lane std fallback beyond.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cos_f64(x: f64x8) -> f64x8 {
    let (_, c) = sincos_core(x);
    let c = sel(
        x.abs().simd_eq(sp(f64::INFINITY)) | is_nan(x),
        sp(f64::NAN),
        c,
    );
    trig_fallback(x, c, f64::cos)
}

/// tan(x) = sin/cos of the shared reduction (each < 1 ulp, one division); lanes beyond
/// the Cody–Waite range use std's exact reduction.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tan_f64(x: f64x8) -> f64x8 {
    let (s, c) = sincos_core(x);
    let t = s / c;
    let t = sel(x.simd_eq(sp(0.0)), x, t);
    let t = sel(
        x.abs().simd_eq(sp(f64::INFINITY)) | is_nan(x),
        sp(f64::NAN),
        t,
    );
    trig_fallback(x, t, f64::tan)
}

// atan (fdlibm s_atan.c): |x| reduced into one of five intervals around 0, 0.5, 1, 1.5
// and inf; atan(x) = atanhi[id] + atanlo[id] + atan(t) with an odd degree-23 Remez
// polynomial (|err| < 2^-56.9 for |t| <= 7/16). fdlibm: < 1 ulp.
pub(super) const ATANHI: [f64; 4] = [
    4.63647609000806093515e-01,
    7.85398163397448278999e-01,
    9.82793723247329054082e-01,
    1.57079632679489655800e+00,
];
pub(super) const ATANLO: [f64; 4] = [
    2.26987774529616870924e-17,
    3.06161699786838301793e-17,
    1.39033110312309984516e-17,
    6.12323399573676603587e-17,
];
pub(super) const AT: [f64; 11] = [
    3.33333333333329318027e-01,
    -1.99999999998764832476e-01,
    1.42857142725034663711e-01,
    -1.11111104054623557880e-01,
    9.09088713343650656196e-02,
    -7.69187620504482999495e-02,
    6.66107313738753120669e-02,
    -5.83357013379057348645e-02,
    4.97687799461593236017e-02,
    -3.65315727442169155270e-02,
    1.62858201153657823623e-02,
];

/// Arctangent (fdlibm algorithm, branch-free).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn atan_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let m0 = a.simd_ge(sp(0.4375));
    let m1 = a.simd_ge(sp(0.6875));
    let m2 = a.simd_ge(sp(1.1875));
    let m3 = a.simd_ge(sp(2.4375));
    let num = sel(
        m3,
        sp(-1.0),
        sel(m2, a - 1.5, sel(m1, a - 1.0, sel(m0, a * 2.0 - 1.0, a))),
    );
    let den = sel(
        m3,
        a,
        sel(
            m2,
            a * 1.5 + 1.0,
            sel(m1, a + 1.0, sel(m0, a + 2.0, sp(1.0))),
        ),
    );
    let t = num / den;
    let hi = sel(
        m3,
        sp(ATANHI[3]),
        sel(
            m2,
            sp(ATANHI[2]),
            sel(m1, sp(ATANHI[1]), sel(m0, sp(ATANHI[0]), sp(0.0))),
        ),
    );
    let lo = sel(
        m3,
        sp(ATANLO[3]),
        sel(
            m2,
            sp(ATANLO[2]),
            sel(m1, sp(ATANLO[1]), sel(m0, sp(ATANLO[0]), sp(0.0))),
        ),
    );
    let z = t * t;
    let w = z * z;
    let s1 = z
        * (sp(AT[0])
            + w * (sp(AT[2]) + w * (sp(AT[4]) + w * (sp(AT[6]) + w * (sp(AT[8]) + w * AT[10])))));
    let s2 = w * (sp(AT[1]) + w * (sp(AT[3]) + w * (sp(AT[5]) + w * (sp(AT[7]) + w * AT[9]))));
    let r = hi - ((t * (s1 + s2) - lo) - t);
    let res = copysign(r, x);
    sel(is_nan(x), x, res)
}

// asin / acos (fdlibm e_asin.c, e_acos.c): R(z) = z·P(z)/Q(z) Remez rational approximation
// of (asin(√z) - √z)/√z (|err| < 2^-58.75); for |x| >= 0.5 the identity
// asin(x) = π/2 - 2 asin(√((1-x)/2)) with √ split into a 21-bit head. fdlibm: < 1 ulp.
pub(super) const PIO2_HI: f64 = 1.57079632679489655800e+00;
pub(super) const PIO2_LO: f64 = 6.12323399573676603587e-17;
pub(super) const PIO4_HI: f64 = 7.85398163397448278999e-01;
pub(super) const PS: [f64; 6] = [
    1.66666666666666657415e-01,
    -3.25565818622400915405e-01,
    2.01212532134862925881e-01,
    -4.00555345006794114027e-02,
    7.91534994289814532176e-04,
    3.47933107596021167570e-05,
];
pub(super) const QS: [f64; 5] = [
    1.0,
    -2.40339491173441421878e+00,
    2.02094576023350569471e+00,
    -6.88283971605453293030e-01,
    7.70381505559019352791e-02,
];

#[inline(always)]
pub(super) fn asin_r(z: F) -> F {
    z * horner(z, &PS) / horner(z, &QS)
}

/// Arcsine (fdlibm algorithm, branch-free); NaN outside [-1, 1].
#[cfg_attr(target_feature = "avx2", inline)]
pub fn asin_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    // |x| < 0.5
    let small = x + x * asin_r(x * x);
    // |x| >= 0.5
    let z = (sp(1.0) - sel(a.simd_gt(sp(1.0)), sp(1.0), a)) * 0.5;
    let s = z.sqrt();
    let r = asin_r(z);
    let near1 = sp(PIO2_HI) - ((s + s * r) * 2.0 - PIO2_LO);
    let f = clear_low(s);
    let c = (z - f * f) / (s + f);
    let p = (s * r) * 2.0 - (sp(PIO2_LO) - c * 2.0);
    let q = sp(PIO4_HI) - f * 2.0;
    let mid = sp(PIO4_HI) - (p - q);
    let big = copysign(sel(a.simd_ge(sp(0.975)), near1, mid), x);
    let mut res = sel(a.simd_lt(sp(0.5)), small, big);
    res = sel(a.simd_gt(sp(1.0)), sp(f64::NAN), res);
    sel(is_nan(x), x, res)
}

pub(super) const PI_F64: f64 = 3.14159265358979311600e+00;

/// Arccosine (fdlibm algorithm, branch-free); NaN outside [-1, 1].
#[cfg_attr(target_feature = "avx2", inline)]
pub fn acos_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    // |x| < 0.5
    let small = sp(PIO2_HI) - (x - (sp(PIO2_LO) - x * asin_r(x * x)));
    // |x| >= 0.5: z = (1 - |x|)/2
    let z = (sp(1.0) - sel(a.simd_gt(sp(1.0)), sp(1.0), a)) * 0.5;
    let s = z.sqrt();
    let r = asin_r(z);
    let neg = (sp(PIO2_HI) - (s + (r * s - PIO2_LO))) * 2.0;
    let df = clear_low(s);
    let c = (z - df * df) / (s + df);
    let pos = (df + (r * s + c)) * 2.0;
    let mut res = sel(a.simd_lt(sp(0.5)), small, sel(x.simd_lt(sp(0.0)), neg, pos));
    res = sel(x.simd_eq(sp(-1.0)), sp(PI_F64), res);
    res = sel(x.simd_eq(sp(1.0)), sp(0.0), res);
    res = sel(a.simd_gt(sp(1.0)), sp(f64::NAN), res);
    sel(is_nan(x), x, res)
}

// Trigonometric f32 kernels. The polynomials are minimax fits of the relative error made
// for these kernels (Remez exchange in mpmath, `tensor-core/tools/remez_trig.py`). The
// f64-lane sin/cos/tan fits (coefficients rounded to f64) stay below 2^-29.6 relative, so
// with the f64 rounding errors the value before the final rounding to f32 is within 2^-29
// relative: <= 0.5 + 2^-5 f32 ulp. Horner, not Estrin, there: on AVX-512 they are bound
// by the two ports that execute 512-bit operations (Estrin's extra multiplies measured
// slower), not by latency. The f32-lane kernels (tan on FMA builds; atan, asin, acos
// below) use f32 coefficients and state their own budgets.

/// sin(r)/r = 1 + z·(S1 + ... + S5·z^4), z = r², |r| <= π/2 (+2^-20): |rel err| < 2^-34.4.
pub(super) const SINPI_P: [f64; 6] = [
    1.0,
    -0.16666666639024222,
    0.008333331426084178,
    -0.00019840890740131545,
    2.7525885130219867e-06,
    -2.388969269961668e-08,
];
/// sin(r)/r = 1 + z·(S1 + ... + S4·z^3) on |r| <= π/4 (+2^-20): |rel err| < 2^-36.7.
pub(super) const SIN4_P: [f64; 5] = [
    1.0,
    -0.16666666644249772,
    0.008333329332187988,
    -0.00019839262448288628,
    2.717357208193048e-06,
];
/// cos(r) = 1 + z·(C0 + ... + C3·z^3) on |r| <= π/4 (+2^-20): |rel err| < 2^-33.0.
pub(super) const COS4_P: [f64; 5] = [
    1.0,
    -0.4999999975382335,
    0.04166662272589835,
    -0.0013886684067928189,
    2.4379952204100374e-05,
];
pub(super) const INVPI: f64 = std::f64::consts::FRAC_1_PI;

/// f32 inputs with |x| < 2^19: the multiple m of π/2 is below 2^19, so m·PIO2_1 (33 bits)
/// is exact and so is x - m·PIO2_1 wherever it cancels (x >= 0.78: both are multiples of
/// 2^-32 below 2); the second term leaves an absolute error below 2^-67, against
/// |x - m·π/2| > 2^-32 for every such f32 that is not 0 (m = 0 is exact).
pub(super) const TRIG_F32_FAST_MAX: f32 = 524288.0;
pub(super) const PIO2_1T: f64 = f64::from_bits(0x3DD0B4611A626331);

/// r = x - m·π/2 for an integer-valued m, |m| < 2^20 (see TRIG_F32_FAST_MAX).
#[inline(always)]
pub(super) fn reduce_pio2(w: F, m: F) -> F {
    fma(m, sp(-PIO2_1T), fma(m, sp(-PIO2_1), w))
}

/// rint(v) as (value, bits of v + MAGIC): the low bit of the integer is bit 0 of the latter.
#[inline(always)]
pub(super) fn rint_bits(v: F) -> (F, U) {
    let t = v + MAGIC;
    (t - MAGIC, bits(t))
}

/// sin(r) for |r| <= π/2, written r·(1 + z·P) so that sin(±0) = ±0.
#[inline(always)]
pub(super) fn sin_pi(r: F) -> F {
    r * poly_fma(r * r, &SINPI_P)
}

/// Finish a sin/cos/tan lane set computed in f64 lanes: lanes with |x| >= 2^19,
/// infinities and NaNs (rare) take `exact`, the f64 function, out of line; it reduces huge
/// arguments exactly (Payne–Hanek). The fast path narrows in registers: merging the paths
/// in f64 lanes went through the stack (a failed store forward per call) and let LLVM split
/// the narrowing into pieces.
#[inline(always)]
pub(super) fn trig_f32_finish(x: f32x8, res: F, exact: fn(f32x8) -> f32x8) -> f32x8 {
    let fast = x.abs().simd_lt(f32x8::splat(TRIG_F32_FAST_MAX));
    fast_or_rare_lanes(x, fast, narrow(res), exact)
}

/// sin(x) (f32 lanes): x = k·π + r, |r| <= π/2, sin x = (-1)^k sin r with one polynomial.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sin_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (k, kb) = rint_bits(w * INVPI);
    let s = sin_pi(reduce_pio2(w, k + k));
    trig_f32_finish(x, from_bits(bits(s) ^ (kb << 63)), |x| {
        narrow(sin_f64(widen(x)))
    })
}

/// cos(x) (f32 lanes): x = (k - 1/2)·π + r, |r| <= π/2, cos x = (-1)^k sin r.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cos_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (k, kb) = rint_bits(fma(w, sp(INVPI), sp(0.5)));
    let s = sin_pi(reduce_pio2(w, fma(k, sp(2.0), sp(-1.0))));
    trig_f32_finish(x, from_bits(bits(s) ^ (kb << 63)), |x| {
        narrow(cos_f64(widen(x)))
    })
}

/// tan(x) with f64 lanes: x = n·π/2 + r, |r| <= π/4; tan x = sin r / cos r (n even) or
/// -cos r / sin r (n odd), the quotient by `div_f32_newton`. This is `tan_f32` on builds
/// without FMA; FMA builds use it for the lanes the f32 kernel below leaves out.
#[inline(always)]
pub(super) fn tan_f32_in_f64(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (n, nb) = rint_bits(w * INVPIO2);
    let r = reduce_pio2(w, n);
    let z = r * r;
    let s = r * poly_fma(z, &SIN4_P); // as r·(1 + z·P): tan(±0) = ±0
    let c = poly_fma(z, &COS4_P);
    let odd = from_bits((nb & us(1)).simd_eq(us(1)));
    let q = div_f32_newton(sel(odd, -c, s), sel(odd, s, c));
    trig_f32_finish(x, q, |x| narrow(tan_f64(widen(x))))
}

/// tan(x) (f32 lanes): x = n·π/2 + r, |r| <= π/4; tan x = sin r / cos r (n even) or
/// -cos r / sin r (n odd), evaluated in f64 lanes (`tan_f32_in_f64`).
#[cfg(not(target_feature = "fma"))]
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tan_f32(x: f32x8) -> f32x8 {
    tan_f32_in_f64(x)
}

// Pure-f32 tan for FMA builds. The f64 kernel above is latency bound on its four f32 <-> f64
// conversions (7 cycles each on a zmm) and its division's narrow/widen; this one stays in
// f32 lanes. tan r is the quotient of a rational minimax fit r·P(z)/Q(z), z = r², whose
// numerator and denominator are carried as unevaluated sums hi + lo of two f32 (the
// reduced argument too), so that the quotient is correctly rounded but for the errors
// listed on `tan_f32`. It needs single-rounding fused multiply-adds (exact products): FMA
// builds only.

/// |x| below this takes the f32 kernel; above it (and infinities, NaN) the lanes are
/// recomputed by `tan_f32_in_f64`. For f32 x below 2^18: n < 2^17.4, so `TAN_MAGIC` rounds
/// x·(2/π) to an integer, and |r| <= π/4 + (π/2)·2^18·|TAN_2_PI - 2/π| = 0.79597.
#[cfg(target_feature = "fma")]
pub(super) const TAN_F32_MAX: f32 = 262144.0;
/// 1.5·2^23: fma(x, c, TAN_MAGIC) is TAN_MAGIC + rint(x·c) for |x·c| < 2^22, and its last
/// bit is the parity of the integer.
#[cfg(target_feature = "fma")]
pub(super) const TAN_MAGIC: f32 = 12582912.0;
/// 2/π rounded to f32 (relative error -2^-24.6).
#[cfg(target_feature = "fma")]
pub(super) const TAN_2_PI: f32 = f32::from_bits(0x3F22_F983);
/// π/2 = P1 + P2 + P3 + 1.06e-23: P1 is π/2 rounded down to f32 (so P2 > 0, which keeps
/// the sign of a zero through `r1 - n·P2`), P2 and P3 the next f32 pieces.
#[cfg(target_feature = "fma")]
pub(super) const TAN_P1: f32 = f32::from_bits(0x3FC9_0FDA);
#[cfg(target_feature = "fma")]
pub(super) const TAN_P2: f32 = f32::from_bits(0x33A2_2169);
#[cfg(target_feature = "fma")]
pub(super) const TAN_P3: f32 = f32::from_bits(0xA6F7_2CED);
/// tan(r)/r = P(z)/Q(z) with P = 1 + P1·z + P2·z², Q = 1 + Q1·z + Q2·z², z = r²,
/// |r| <= 0.79597 (+2^-20): |rel err| < 2^-30.6 with these f32 coefficients [P1, P2, Q1, Q2]
/// (`remez_trig.py tanrat`; the Padé approximant of the same degrees errs by 2^-25.9).
#[cfg(target_feature = "fma")]
pub(super) const TAN_RAT: [f32; 4] = [
    f32::from_bits(0xBDE4_1291),
    f32::from_bits(0x3A8C_F087),
    f32::from_bits(0xBEE3_AF4F),
    f32::from_bits(0x3C82_DC63),
];

/// tan(x) (f32 lanes, FMA builds): x = n·π/2 + r, tan x = N/D (n even) or -D/N (n odd)
/// with N = r·P(z), D = Q(z) (`TAN_RAT`), all in f32 lanes for |x| < 2^18 (`TAN_F32_MAX`).
///
/// * Reduction: n = rint(x·TAN_2_PI) (one rounding, by `TAN_MAGIC`). r1 = x - n·P1 is
///   exact (one FMA: x and n·P1 are multiples of 2^-24, or of 2^-23 above 1, and |r1| < 1,
///   or < 2). rh = r1 - ph with ph = n·P2 rounded: r1 is a multiple of ulp(ph) (|ph| < 2^-5),
///   so Fast2Sum gives r1 - rh exactly and rl = (r1 - rh) - n·P2 - n·P3 (two FMAs) holds
///   what rh leaves of x - n·(P1 + P2 + P3). The two roundings in rl and the tail of π/2
///   after P3 (1.06e-23) leave |rh + rl - r| < 2^-47·|rh| + n·2^-70.4, which is below
///   2^-29.2·|r| for every f32 |x| < 2^18: |r| is at least 2^-27.83 (x = 252.89821), and at
///   least 2^-21.05, 2^-25.88, 2^-24.88, 2^-23.88 in the binades 2^14 .. 2^17 where n is
///   large (smallest |x - n·π/2| over every f32 of each binade, found exhaustively). The
///   measured maximum over all those x is 2^-33.8. |rl| <= ulp(rh)/2 but where r is tiny:
///   there rl can reach 20% of rh, never half.
/// * N = nh + nl: nh = rq + w·p rounded, w = rh·z, z = rh², p = P1 + P2·z, with
///   rq = x - n·(P1 + P2 + P3) in three roundings (rh alone can be 20% off r where r is
///   tiny, and the quotient's first value needs nh within 2^-14 of N). nl = (rh - nh) +
///   (w·p + rl) is the rest: rh - nh is exact (Sterbenz), w·p + rl rounds by 2^-27.8 of N.
///   The sign of a zero: nh = rq + w·p is +0 for x = -0 (a sum of -0 and +0), so the
///   numerator takes the sign of rh, which is that of N for every x (a no-op but at -0).
/// * D = dh + dl: dh = 1 + z·q rounded with q = Q1 + Q2·z, dl = z·q + (1 - dh) its exact
///   residual (rounded once; 1 - dh is exact). q's rounding errs by 2^-26.2 of D.
/// * Left out: z's rounding moves N/D by 2^-25.8 at most (z enters N and D in the same
///   direction, and log(P/Q) grows as z/3); D is evaluated at rh, not at rh + rl, and N
///   takes rl with coefficient 1 instead of dN/dr: together rl·(1 + tan² - 1/D) <= 2^-24.95
///   of tan r (|rl| <= 2^-24·|r|, worst at |r| = 0.796).
/// * Quotient U/V (U, V = N, D or -D, N): with v0 = 1/vh to 2^-14 (`recip_for_quotient`),
///   q0 = uh·v0, residual e = q0·(vh + vl) - (uh + ul) (q0·vh - uh is exact), q = q0 - e·v0
///   rounded once. q0 and v0 are each within about 2^-14 of U/V and 1/V, so the correction
///   errs by 2^-28.
///
/// The value before the last rounding is within about 2^-23.7 relative of tan x (1.23 ulp
/// at most, 0.5 more for the rounding); measured over every f32 input: 1.26 ulp (see
/// ACCURACY.md for the walk). |x| >= 2^18, ±inf and NaN lanes go out of line to
/// `tan_f32_in_f64` (NaN for ±inf and NaN; exact reduction above 2^19).
#[cfg(target_feature = "fma")]
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tan_f32(x: f32x8) -> f32x8 {
    use wide::u32x8;
    let v = f32x8::splat;
    let sign = u32x8::splat(0x8000_0000);
    let t = x.mul_add(v(TAN_2_PI), v(TAN_MAGIC));
    let n = t - v(TAN_MAGIC);
    let r1 = n.mul_neg_add(v(TAN_P1), x);
    let rh = r1 - n * v(TAN_P2);
    let rl = n.mul_neg_add(v(TAN_P3), n.mul_neg_add(v(TAN_P2), r1 - rh));
    let rq = n.mul_neg_add(v(TAN_P3), n.mul_neg_add(v(TAN_P2), r1)); // r to 2^-23
    let z = rh * rh;
    let w = rh * z;
    let p = z.mul_add(v(TAN_RAT[1]), v(TAN_RAT[0]));
    let nh = w.mul_add(p, rq);
    let nl = (rh - nh) + w.mul_add(p, rl);
    let q = z.mul_add(v(TAN_RAT[3]), v(TAN_RAT[2]));
    let dh = z.mul_add(q, v(1.0));
    let dl = z.mul_add(q, v(1.0) - dh);
    let odd = f32x8::from_bits((t.to_bits() & u32x8::splat(1)).simd_eq(u32x8::splat(1)));
    let nh_signed = f32x8::from_bits(nh.to_bits() | (rh.to_bits() & sign));
    let uh = odd.select(-dh, nh_signed);
    let ul = odd.select(-dl, nl);
    let vh = odd.select(nh, dh);
    let vl = odd.select(nl, dl);
    let v0 = recip_for_quotient(vh);
    let q0 = uh * v0;
    let e = q0.mul_sub(vh, uh) + q0.mul_sub(vl, ul);
    let ok = x.abs().simd_lt(v(TAN_F32_MAX));
    fast_or_rare_lanes(x, ok, e.mul_neg_add(v0, q0), tan_f32_in_f64)
}

// ---------------------------------------------------------------------------
// atan, asin, acos in f32 lanes
// ---------------------------------------------------------------------------
// These three evaluate in f32, unlike the kernels above. They are short and latency
// bound (a caller's loop overlaps only ~3 calls); in f64 lanes the two f32 <-> f64
// conversions (7 cycles and 2 uops each on AVX-512) and the f64 polynomials cost 1.2-2.1x
// wide's time, in f32 they take about its time (ACCURACY.md). What keeps them within
// 2 ulp in f32 without extra-precision arithmetic: polynomials with f32 coefficients over
// the whole reduced interval (no inexact reduction quotient), constants split as hi + lo,
// and additions arranged so that the only rounding before the last is exact or costs at
// most half an ulp (see each function). They use no exact FMA residual, so FMA and
// non-FMA builds agree within a few hundredths of an ulp (ACCURACY.md walks both).

/// π/2 as f32 hi + lo (hi = RN(π/2), lo = RN(π/2 - hi), |hi + lo - π/2| < 2^-49).
pub(super) const PIO2_F32_HI: f32 = f32::from_bits(0x3fc9_0fdb);
pub(super) const PIO2_F32_LO: f32 = f32::from_bits(0xb33b_bd2e);

/// atan(t) = t + t·z·P(z), z = t², on |t| <= 1; f32 coefficients (fixed one at a time,
/// the rest refitted: `tools/remez_trig.py atan1 8 f32`): |rel err| < 2^-25.7.
pub(super) const ATAN1_P: [f64; 8] = [
    -0.33333152532577515,
    0.19993767142295837,
    -0.14211001992225647,
    0.10665769129991531,
    -0.07551678270101547,
    0.043205536901950836,
    -0.01636429876089096,
    0.0029199037235230207,
];

/// atan(x) (f32 lanes): for a = |x| <= 1, t = a and atan a = t + t·z·P; above, t = r =
/// RN(1/a) and atan a = π/2 - atan r = (hi - r) + (lo - r·z·P); the sign of x is put on
/// last (an OR: atan is odd, and this keeps atan(-0) = -0). hi - r is exact where r > 0.571
/// (multiples of 2^-24 below 1) and is at least 1 elsewhere, as is the result: it rounds
/// by half a result ulp at most. Budget in result ulps, worst just above |x| = 1: 0.5
/// final rounding + 0.25 for r's rounding (half an ulp of r, weighted by atan'(1) = 1/2) +
/// ~0.4 for z, t·z and P + ~0.15 for the rounding of lo - r·z·P (about 0.19 there) + 0.2
/// for the fit: ~1.5, measured 1.47 (FMA) and 1.49. (Evaluating in signed values
/// instead, to avoid the final OR, needs three sign operations and measured 5% slower.)
/// The two selects are merge-masked on AVX-512 (see `LaneMask`): with wide's compare and
/// blends this was 1.00-1.04x wide's time inlined, 0.89-0.93x with them.
#[inline]
pub fn atan_f32(x: f32x8) -> f32x8 {
    let one = f32x8::ONE;
    let a = x.abs();
    let big = lanes_gt(a, one);
    let t = div_where(big, a, one, a); // 1/a above 1
    let z = t * t;
    let tz = t * z;
    let p = poly_estrin(z, &ATAN1_P);
    let small = tz.mul_add(p, t);
    let h = f32x8::splat(PIO2_F32_HI) - t;
    let low = (-tz).mul_add(p, f32x8::splat(PIO2_F32_LO));
    add_where(big, small, h, low) | (x & f32x8::splat(-0.0))
}

/// asin(s) = s + s·z·P(z), z = s², on |s| <= 1/2; f32 coefficients (fixed one at a time,
/// the rest refitted: `tools/remez_trig.py asin 5 f32`): |rel err| < 2^-27.4.
pub(super) const ASIN_P_F32: [f64; 5] = [
    0.16666731238365173,
    0.07495956867933273,
    0.04540149122476578,
    0.024475686252117157,
    0.04171570762991905,
];

/// For f32 x: (s, z, s·z, P(z), big) with big = |x| >= 1/2, z = x² and s = |x|
/// below 1/2, else z = (1 - |x|)/2 (exact; negative above 1, so s is NaN there) and s = √z
/// rounded: this 2^-24 relative error of s reaches asin/acos as at most 0.6 ulp (at |x| =
/// 1/2; it shrinks with s), which the error budgets below include.
#[inline(always)]
pub(super) fn asin_reduce_f32(a: f32x8) -> (f32x8, f32x8, f32x8, f32x8, LaneMask) {
    let half = f32x8::splat(0.5);
    let big = lanes_ge(a, half);
    let z = select_where(big, a.mul_add(-half, half), a * a);
    let s = sqrt_where(big, a, z);
    let sz = s * z;
    (s, z, sz, poly_fma(z, &ASIN_P_F32), big)
}

/// π/2 split for asin as hi + lo with lo ≈ 0.008 (|hi + lo - π/2| < 2^-33): see `asin_f32`.
pub(super) const ASIN_PIO2_HI: f32 = f32::from_bits(0x3fc8_09b6); // 1.5627964
pub(super) const ASIN_PIO2_LO: f32 = f32::from_bits(0x3c03_1251); // 0.0079999724

/// asin(x) (f32 lanes): s + s·z·P below |x| = 1/2; above, π/2 - 2·asin s =
/// h + (lo - 2s·z·P) with h = hi - 2s. hi is π/2 - 0.008, not RN(π/2), so that h can
/// only round where the result is not below it: h is exact (a multiple of 2^-24 below 1)
/// for 2s >= hi - 1 = 0.5628, and for smaller s it is at least 1 while lo - 2s·z·P >=
/// 0.00029 > 0 (2s³·P <= 0.0077), so its rounding is at most half an ulp of the result.
/// (With hi = RN(π/2), h >= 1 > result happened for |x| in [0.837, 0.842]: 2.03 ulp.)
/// Budget: 0.5 final rounding + 0.6 root at |x| = 1/2 (0.3 where h rounds, + 0.5 for h)
/// + ~0.2 for z, s·z, P and the fit.
#[inline]
pub fn asin_f32(x: f32x8) -> f32x8 {
    let (s, _, sz, p, big) = asin_reduce_f32(x.abs());
    let small = sz.mul_add(p, s);
    let h = s.mul_add(f32x8::splat(-2.0), f32x8::splat(ASIN_PIO2_HI));
    let low = (sz * -2.0).mul_add(p, f32x8::splat(ASIN_PIO2_LO));
    add_where(big, small, h, low) | (x & f32x8::splat(-0.0))
}

/// π as f32 hi + lo (hi = RN(π), lo = RN(π - hi), |hi + lo - π| < 2^-48).
pub(super) const PI_F32_HI: f32 = f32::from_bits(0x4049_0fdb);
pub(super) const PI_F32_LO: f32 = f32::from_bits(0xb3bb_bd2e);

/// acos(x) (f32 lanes): acos x = K + m·asin(u) = (K_hi + m·u) + (K_lo +
/// m·u·z·P) with (K, m, u) = (π/2, -1, x) below |x| = 1/2, (0, 2, s) above for x > 0 and
/// (π, 2, -s) for x < 0. K_hi + m·u rounds (by 0.5 ulp at most) only where the result is
/// far from 0 (it is exact for K = 0), the root's error is 0.6 ulp of a result near 2s
/// at most, and with the final rounding every case stays below 1.7 ulp.
#[inline]
pub fn acos_f32(x: f32x8) -> f32x8 {
    let (s, z, _, p, big) = asin_reduce_f32(x.abs());
    let sign = x & f32x8::splat(-0.0);
    let neg = f32x8::ZERO.simd_gt(x);
    let u = select_where(big, s ^ sign, x);
    let m = select_where(big, f32x8::splat(2.0), f32x8::splat(-1.0));
    let k_hi = select_where(
        big,
        neg & f32x8::splat(PI_F32_HI),
        f32x8::splat(PIO2_F32_HI),
    );
    let k_lo = select_where(
        big,
        neg & f32x8::splat(PI_F32_LO),
        f32x8::splat(PIO2_F32_LO),
    );
    let mu = m * u;
    (mu * z).mul_add(p, k_lo) + (k_hi + mu)
}

#[cfg(test)]
mod tests {
    use super::super::sweep::*;
    use super::*;

    #[test]
    fn f32_sweep_trig() {
        let ex = pio2_multiples();
        let xs = f32_inputs(STRIDE, &ex, 64);
        run_f32("sin_f32", sin_f32, f64::sin, &xs, 2.0);
        run_f32("cos_f32", cos_f32, f64::cos, &xs, 2.0);
    }

    /// Every f32 in the intervals where the walks found the f32-lane trig kernels' largest
    /// errors (ACCURACY.md), both signs, held to bounds just above those maxima (not to
    /// the 2-ulp contract), so that a change of split or polynomial that costs accuracy
    /// fails here: atan just above 1 (max 1.49 at 1.061), asin near 1/2 and where π/2 - 2s
    /// would cross 1 with a plain π/2 split (max 1.27), acos near |x| = 1/2 (1.17), tan at
    /// its worst input and at the f32 nearest a multiple of π/2 below 2^18 (1.26 at
    /// 49.483566 with the f32 kernel on FMA builds; 0.501 elsewhere).
    #[test]
    fn trig_worst_intervals() {
        // Every f32 of the interval; under Miri every 2^12-th (a few hundred).
        fn every_f32(lo: f32, hi: f32) -> Vec<f32> {
            let step = if cfg!(miri) { 1 << 12 } else { 1 };
            let v: Vec<f32> = (lo.to_bits()..=hi.to_bits())
                .step_by(step)
                .map(f32::from_bits)
                .collect();
            v.iter().copied().chain(v.iter().map(|x| -x)).collect()
        }
        let tan_bound = if cfg!(target_feature = "fma") {
            1.27
        } else {
            0.51
        };
        let cases: [(&str, fn(f32x8) -> f32x8, fn(f64) -> f64, f32, f32, f64); 6] = [
            ("atan_f32 near 1", atan_f32, f64::atan, 0.995, 1.07, 1.5),
            ("asin_f32 near 1/2", asin_f32, f64::asin, 0.499, 0.55, 1.3),
            ("asin_f32 crossing 1", asin_f32, f64::asin, 0.83, 0.88, 1.3),
            ("acos_f32 near 1/2", acos_f32, f64::acos, 0.499, 0.545, 1.2),
            (
                "tan_f32 near 49.48",
                tan_f32,
                f64::tan,
                49.48,
                49.49,
                tan_bound,
            ),
            (
                "tan_f32 near 252.9",
                tan_f32,
                f64::tan,
                252.89,
                252.91,
                tan_bound,
            ),
        ];
        for (name, f, reference, lo, hi, bound) in cases {
            run_f32(name, f, reference, &every_f32(lo, hi), bound);
        }
    }
}
