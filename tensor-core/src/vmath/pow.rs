//! pow (fdlibm e_pow.c for f64 lanes, a short log2/exp2 path for f32 lanes).

use super::*;

// ---------------------------------------------------------------------------
// pow (fdlibm e_pow.c, 2004 version)
// ---------------------------------------------------------------------------
// log2|x| = t1 + t2 is computed in simulated extra precision: x = 2^n * ax,
// ax in [1,sqrt3) reduced against bp = 1 or 1.5, s = (ax-bp)/(ax+bp) split
// into s_h (21 bits) + s_l, log2(ax) = dp_h + (2/(3 ln2))*(3s + s^3 + ...)
// with the L1..L6 Remez polynomial; y*log2|x| = p_h + p_l with y split into
// 21-bit y1 + y2 so y1*t1 is exact; 2^(p_h+p_l) = 2^n * exp(z), z the
// remainder, with the same P1..P5 exp polynomial as e_exp.c.  fdlibm states
// the result is "nearly rounded" (< 1 ulp in practice).
pub(super) const DP_H1: f64 = 5.84962487220764160156e-01; // 0x3FE2B80340000000
pub(super) const DP_L1: f64 = 1.35003920212974897128e-08; // 0x3E4CFDEB43CFD006
pub(super) const TWO53: f64 = 9007199254740992.0;
pub(super) const L1: f64 = 5.99999999999994648725e-01;
pub(super) const L2: f64 = 4.28571428578550184252e-01;
pub(super) const L3: f64 = 3.33333329818377432918e-01;
pub(super) const L4: f64 = 2.72728123808534006489e-01;
pub(super) const L5: f64 = 2.30660745775561754067e-01;
pub(super) const L6: f64 = 2.06975017800338417784e-01;
pub(super) const POW_LG2: f64 = 6.93147180559945286227e-01;
pub(super) const POW_LG2_H: f64 = 6.93147182464599609375e-01;
pub(super) const POW_LG2_L: f64 = -1.90465429995776804525e-09;
pub(super) const OVT: f64 = 8.0085662595372944372e-17;
pub(super) const CP: f64 = 9.61796693925975554329e-01;
pub(super) const CP_H: f64 = 9.61796700954437255859e-01;
pub(super) const CP_L: f64 = -7.02846165095275826516e-09;

/// Returns (is_integer(y), is_odd_integer(y)) as lane masks.
#[inline(always)]
pub(super) fn int_odd(y: F) -> (F, F) {
    let ay = y.abs();
    let finite = ay.simd_lt(sp(f64::INFINITY));
    let big = ay.simd_ge(sp(4503599627370496.0)); // 2^52: always an integer
    let r = (ay + 4503599627370496.0) - 4503599627370496.0;
    let yint = finite & (big | r.simd_eq(ay));
    let h = ay * 0.5;
    let hbig = h.simd_ge(sp(4503599627370496.0));
    let rh = (h + 4503599627370496.0) - 4503599627370496.0;
    let hint = hbig | rh.simd_eq(h);
    (yint, yint & !hint)
}

/// x^y with C99 Annex F special cases (fdlibm algorithm, SIMD).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn pow_f64(x: f64x8, y: f64x8) -> f64x8 {
    let (yint, yodd) = int_odd(y);
    let ax0 = x.abs();
    // ---- log2|x| = t1 + t2 ------------------------------------------------
    let axs = sel(
        ax0.simd_eq(sp(0.0)) | ax0.simd_ge(sp(f64::INFINITY)) | is_nan(ax0),
        sp(1.0),
        ax0,
    );
    let sub = axs.simd_lt(sp(f64::MIN_POSITIVE));
    let ax = sel(sub, axs * TWO53, axs);
    let mut nf = sp(-53.0) & sub;
    let ix = (bits(ax) >> 32) & us(0x7fff_ffff);
    nf += i2f((ix >> 20) - us(0x3ff));
    let j = i2f(ix & us(0x000f_ffff));
    let k0 = j.simd_le(sp(0x3988E as f64)); // |x| < sqrt(3/2)
    let k1 = !k0 & j.simd_lt(sp(0xBB67A as f64)); // |x| < sqrt(3)
    let k2 = !(k0 | k1); // reduce by one more binade
    let ixn = ((ix & us(0x000f_ffff)) | us(0x3ff0_0000)) - (mask_u(k2) & us(0x0010_0000));
    nf += sp(1.0) & k2;
    let ax = from_bits((ixn << 32) | (bits(ax) & us(0xffff_ffff)));
    let bp = sel(k1, sp(1.5), sp(1.0));
    let dp_h = sp(DP_H1) & k1;
    let dp_l = sp(DP_L1) & k1;
    // ss = s_h + s_l = (ax - bp)/(ax + bp)
    let u = ax - bp;
    let v = sp(1.0) / (ax + bp);
    let ss = u * v;
    let s_h = clear_low(ss);
    // t_h = ax + bp rounded to its high word (fdlibm's bit construction)
    let th_hi = ((ixn >> 1) | us(0x2000_0000)) + us(0x0008_0000) + (mask_u(k1) & us(1 << 18));
    let t_h = from_bits(th_hi << 32);
    let t_l = ax - (t_h - bp);
    let s_l = v * ((u - s_h * t_h) - s_h * t_l);
    let s2 = ss * ss;
    let mut r = s2
        * s2
        * (sp(L1) + s2 * (sp(L2) + s2 * (sp(L3) + s2 * (sp(L4) + s2 * (sp(L5) + s2 * L6)))));
    r += s_l * (s_h + ss);
    let s2 = s_h * s_h;
    let t_h = clear_low(sp(3.0) + s2 + r);
    let t_l = r - ((t_h - 3.0) - s2);
    let u = s_h * t_h;
    let v = s_l * t_h + t_l * ss;
    let p_h = clear_low(u + v);
    let p_l = v - (p_h - u);
    let z_h = p_h * CP_H;
    let z_l = p_h * CP_L + p_l * CP + dp_l;
    let t1 = clear_low(((z_h + z_l) + dp_h) + nf);
    let t2 = z_l - (((t1 - nf) - dp_h) - z_h);
    // ---- y * log2|x| = p_h + p_l ------------------------------------------
    let yc = sel(y.abs().simd_lt(sp(f64::INFINITY)), y, sp(0.0)); // NaN/inf handled below
    let y1 = clear_low(yc);
    let p_l = (yc - y1) * t1 + yc * t2;
    let p_h = y1 * t1;
    let z = p_l + p_h;
    let overflow = z.simd_gt(sp(1024.0)) | (z.simd_eq(sp(1024.0)) & (p_l + OVT).simd_gt(z - p_h));
    let underflow = z.simd_lt(sp(-1075.0)) | (z.simd_eq(sp(-1075.0)) & p_l.simd_le(z - p_h));
    // ---- 2^(p_h + p_l) -----------------------------------------------------
    let zc = sel(
        z.simd_gt(sp(1100.0)),
        sp(1100.0),
        sel(z.simd_lt(sp(-1100.0)), sp(-1100.0), z),
    );
    let nn = sel(zc.abs().simd_gt(sp(0.5)), rint(zc), sp(0.0));
    let p_h = p_h - nn; // exact
    let t = clear_low(p_l + p_h);
    let u = t * POW_LG2_H;
    let v = (p_l - (t - p_h)) * POW_LG2 + t * POW_LG2_L;
    let z = u + v;
    let w = v - (z - u);
    let t = z * z;
    let t1 = z - t * (sp(EP1) + t * (sp(EP2) + t * (sp(EP3) + t * (sp(EP4) + t * EP5))));
    let r = (z * t1) / (t1 - 2.0) - (w + z * w);
    let z = sp(1.0) - (r - z);
    let core = scale(z, nn);
    // ---- sign and special cases (later selects take priority) ----------------
    let xneg = i2f(bits(x) >> 63).simd_eq(sp(1.0)); // sign bit set (incl. -0, -inf)
    let neg_res = xneg & yodd;
    let sgn = sel(neg_res, sp(-1.0), sp(1.0));
    let mut res = core * sgn;
    res = sel(overflow, sgn * f64::INFINITY, res);
    res = sel(underflow, sgn * 0.0, res);
    // (x < 0 finite) ** (non-integer finite y) = NaN
    res = sel(x.simd_lt(sp(0.0)) & !yint, sp(f64::NAN), res);
    // x = +-0 or +-inf
    let zz = sel(y.simd_lt(sp(0.0)), sp(1.0) / ax0, ax0);
    let zz = sel(neg_res, -zz, zz);
    res = sel(
        ax0.simd_eq(sp(0.0)) | ax0.simd_eq(sp(f64::INFINITY)),
        zz,
        res,
    );
    // y = +-inf
    let yinf = sel(
        ax0.simd_eq(sp(1.0)),
        sp(1.0),
        sel(
            ax0.simd_gt(sp(1.0)),
            sel(y.simd_gt(sp(0.0)), sp(f64::INFINITY), sp(0.0)),
            sel(y.simd_lt(sp(0.0)), sp(f64::INFINITY), sp(0.0)),
        ),
    );
    res = sel(y.abs().simd_eq(sp(f64::INFINITY)), yinf, res);
    // y = 0.5, x >= +0: correctly rounded sqrt (as fdlibm; excludes -0 whose result is +0)
    let sqrt_ok = y.simd_eq(sp(0.5)) & (x.simd_gt(sp(0.0)) | (x.simd_eq(sp(0.0)) & !xneg));
    res = sel(sqrt_ok, x.sqrt(), res);
    res = sel(is_nan(x) | is_nan(y), x + y, res);
    res = sel(x.simd_eq(sp(1.0)), sp(1.0), res);
    sel(y.simd_eq(sp(0.0)), sp(1.0), res)
}

/// x^y (f32 lanes), C99 special cases: 2^(y·log2|x|) in f64, rounded once.
///
/// log2|x| = k + f·G(f) (POW_LOG2_G, relative 2^-38.3); t = y·log2|x| only matters for
/// |t| <= 150 (beyond, the f32 result is 0 or inf), where the absolute error of t is
/// < 150·2^-38.3 + 2^-45 < 2^-31; 2^t = 2^n·(1 + r·Q(r)), n = rint(t), r = t - n exact,
/// Q relative 2^-33.1. Total < 2^-30 relative: <= 0.5 + 2^-6 ulp. Powers of two with
/// integer t are exact. Special cases fall out of the same formula where they can
/// (log2 0 = -inf, log2 inf = inf, t clamped to [-200, 200]); the rest are selects.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn pow_f32(x: f32x8, y: f32x8) -> f32x8 {
    let (xw, yw) = (widen(x), widen(y));
    let ax = xw.abs();
    let (f, kf) = log_reduce(ax); // 0, inf, NaN lanes: garbage, replaced below
    let l = fma(f, poly_estrin(f, &POW_LOG2_G), kf);
    let l = sel(ax.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), l);
    let l = sel(ax.simd_eq(sp(f64::INFINITY)), sp(f64::INFINITY), l);
    // |x| = 1: t = 0 even for y = +-inf (pow(-1, +-inf) = 1)
    let t = sel(l.simd_eq(sp(0.0)), sp(0.0), yw * l);
    let t = sel(t.simd_gt(sp(200.0)), sp(200.0), t);
    let t = sel(t.simd_lt(sp(-200.0)), sp(-200.0), t);
    let n = rint(t);
    let r = t - n;
    let mut res = fma(r, poly_estrin(r, &EXP2_Q), sp(1.0)) * pow2(n);
    let (yint, yodd) = int_odd(yw);
    // negative x (including -0 and -inf) to an odd integer power is negative
    res = from_bits(bits(res) ^ (sign_bit(xw) & mask_u(yodd)));
    // finite x < 0 to a finite non-integer power: NaN
    let yfin = yw.abs().simd_lt(sp(f64::INFINITY));
    res = sel(
        xw.simd_lt(sp(0.0)) & ax.simd_lt(sp(f64::INFINITY)) & yfin & !yint,
        sp(f64::NAN),
        res,
    );
    res = sel(is_nan(xw) | is_nan(yw), xw + yw, res);
    narrow(sel(xw.simd_eq(sp(1.0)) | yw.simd_eq(sp(0.0)), sp(1.0), res))
}

/// log2(1+f)/f, degree 13, for pow: relative error < 2^-38.3.
pub(super) const POW_LOG2_G: [f64; 14] = [
    1.4426950408862032,
    -0.7213475203430807,
    0.4808983490728314,
    -0.36067378977240405,
    0.28853876232813946,
    -0.2404466266813987,
    0.2061086952235731,
    -0.18043268783435104,
    0.16018226598618357,
    -0.14252337816900407,
    0.13062882011540214,
    -0.1347893695235308,
    0.13113788642400617,
    -0.06806325195174472,
];

#[cfg(test)]
mod tests {
    use super::super::sweep::*;
    use super::*;

    #[test]
    fn f32_pow() {
        let mut rng = Rng::new(0x1234_5678_9abc_def1);
        let mut st = Stats::new("pow_f32");
        let n = if cfg!(miri) {
            2_000
        } else if cfg!(debug_assertions) {
            200_000
        } else {
            3_000_000
        };
        let mut xs = Vec::with_capacity(n);
        let mut ys = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = match i % 4 {
                0 => {
                    // positive x, y scaled so that |y log2 x| <= 160 (covers overflow/subnormal)
                    let x = f32::from_bits((rng.next() as u32) & 0x7f7f_ffff);
                    let l = (x as f64).log2().abs().max(1e-3);
                    (x, (rng.unif(-160.0, 160.0) / l) as f32)
                }
                1 => {
                    // negative x, integer y
                    let x = -(rng.logu(-20, 20, false) as f32);
                    let l = (x as f64).abs().log2().abs().max(1e-3);
                    let y = (rng.unif(-150.0, 150.0) / l).round() as f32;
                    (x, y)
                }
                2 => {
                    // x near 1, large y
                    let x = 1.0 + rng.unif(-1e-3, 1e-3) as f32;
                    (x, rng.unif(-1e5, 1e5) as f32)
                }
                _ => (
                    f32::from_bits(rng.next() as u32),
                    f32::from_bits(rng.next() as u32),
                ),
            };
            xs.push(x);
            ys.push(y);
        }
        for c in 0..n / 8 {
            let mut a = [0f32; 8];
            let mut b = [0f32; 8];
            a.copy_from_slice(&xs[c * 8..c * 8 + 8]);
            b.copy_from_slice(&ys[c * 8..c * 8 + 8]);
            let out = pow_f32(f32x8::from(a), f32x8::from(b)).to_array();
            for i in 0..8 {
                let r = (a[i] as f64).powf(b[i] as f64);
                st.add(
                    a[i] as f64,
                    b[i] as f64,
                    err_f32(out[i], r),
                    out[i] == r as f32 || (out[i].is_nan() && r.is_nan()),
                );
            }
        }
        // The reference is std's `powf` (see `LIBM_ULP`).
        st.report(2.0 + LIBM_ULP_IN_F32);
    }

    #[test]
    fn f64_pow_random() {
        let mut rng = Rng::new(99);
        let mut st = Stats::new("pow_f64");
        for c in 0..(N64 / 8) {
            let mut a = [0f64; 8];
            let mut b = [0f64; 8];
            for i in 0..8 {
                let (x, y) = match (c * 8 + i) % 4 {
                    0 => {
                        let x = f64::from_bits(rng.next() & 0x7fef_ffff_ffff_ffff);
                        let l = x.log2().abs().max(1e-6);
                        (x, rng.unif(-1100.0, 1100.0) / l)
                    }
                    1 => {
                        let x = -rng.logu(-30, 30, false);
                        let l = x.abs().log2().abs().max(1e-3);
                        (x, (rng.unif(-1000.0, 1000.0) / l).round())
                    }
                    2 => (1.0 + rng.unif(-1e-6, 1e-6), rng.unif(-1e8, 1e8)),
                    _ => (rng.logu(-5, 5, false), rng.unif(-30.0, 30.0)),
                };
                a[i] = x;
                b[i] = y;
            }
            let out = pow_f64(F::from(a), F::from(b)).to_array();
            for i in 0..8 {
                let r = a[i].powf(b[i]);
                st.add(a[i], b[i], err_f64(out[i], r), out[i] == r);
            }
        }
        st.report(4.0 + LIBM_ULP);
    }
}
