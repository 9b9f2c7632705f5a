//! selu's negative side in f64 lanes: gamma·alpha·(e^x - 1) rounded once.
//!
//! `gamma·(alpha·expm1(x))` adds two roundings to expm1's own < 1 ulp and measured 1.49 ulp
//! (mpmath, x = -0.3226); the ACCURACY.md bound is 2, which that composition cannot promise.
//! Here e^x - 1 and gamma·alpha are both double-doubles and only the final product rounds.
//! (elu and celu keep `alpha·expm1(x)`: one rounding after expm1, within 2 by construction.)

use super::*;

/// 2^995.
const TWO_995: f64 = 3.3484643974570854e299;
/// 2^200.
const TWO_200: f64 = 1.6069380442589903e60;

/// gamma·x for x > 0, gamma·alpha·(e^x - 1) for x <= 0 (f64 lanes, per-lane parameters),
/// < 0.6 ulp where 2^-900 < |gamma·alpha| < 2^900:
///
/// - e^x - 1 as a double-double: `exp_dd_parts` gives e^x = 2^k·(1 + ph + pl) to a few
///   2^-57 relative of e^r - 1; for k = 0 (|x| <= ln2/2) (ph, pl) is e^x - 1 itself, with
///   no cancellation; for k < 0, 2^k·(1 + ph) - 1 by exact two-sums (|e^x - 1| >= 0.29 there,
///   so the relative error stays a few 2^-57). x is clamped at -40, below which e^x < 2^-57
///   leaves e^x - 1 = -1 + e^x with e^x beyond any rounding of the product.
/// - gamma·alpha = gh + gl exactly (`two_prod`), the product of the two double-doubles
///   rounded once.
///
/// Lanes whose |gamma·alpha| is outside (2^-900, 2^900) or whose gamma or alpha reaches
/// 2^995 (where the exact product's split could overflow or its remainder underflow) take the composition
/// `gamma·(alpha·expm1(x))` instead, in a branch taken only when such a lane exists. x = ±0
/// gives gamma·(alpha·x) (its sign from all three), NaN gives NaN, -inf gives
/// -gamma·alpha rounded once.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn selu_f64(x: f64x8, alpha: f64x8, gamma: f64x8) -> f64x8 {
    let xc = sel(x.simd_lt(sp(-40.0)), sp(-40.0), x);
    // Positive, zero and NaN lanes take their own value below; keep exp_dd_parts's domain.
    let xc = sel(xc.simd_lt(sp(0.0)), xc, sp(0.0));
    let (kf, ph, pl) = exp_dd_parts(xc, sp(0.0));
    let two_k = pow2(kf);
    let (e1, e1_l) = fast_two_sum(sp(1.0), ph);
    let (d, d_e) = two_sum(two_k * e1, sp(-1.0));
    let k0 = kf.simd_eq(sp(0.0));
    let mh = sel(k0, ph, d);
    let ml = sel(k0, pl, d_e + two_k * (e1_l + pl));
    // Below 2^-900 (x itself, there), e^x - 1 is scaled by 2^200 so that the exact
    // product's partial products stay above the subnormal range; the result is scaled
    // back once (exact for normal results, one rounding into the subnormal range).
    let tiny = mh.abs().simd_lt(sp(1.1830521861667747e-271));
    let (mh, ml) = (sel(tiny, mh * TWO_200, mh), sel(tiny, ml * TWO_200, ml));
    let (gh, gl) = two_prod(gamma, alpha);
    let (p, pe) = two_prod(gh, mh);
    let neg = p + (pe + (gh * ml + gl * mh));
    let neg = sel(tiny, neg * (1.0 / TWO_200), neg);

    // 2^-900 < |gamma·alpha| < 2^900, and gamma, alpha below 2^995 (Veltkamp's split
    // multiplies by 2^27 + 1); a NaN parameter fails the test too.
    let ga = gh.abs();
    let safe = ga.simd_gt(sp(1.1830521861667747e-271))
        & ga.simd_lt(sp(8.452712498170644e270))
        & gamma.abs().simd_lt(sp(TWO_995))
        & alpha.abs().simd_lt(sp(TWO_995));
    let plain = !safe;
    let neg = if plain.any() {
        sel(plain, gamma * (alpha * expm1_f64(x)), neg)
    } else {
        neg
    };
    let res = sel(x.simd_gt(sp(0.0)), gamma * x, neg);
    sel(x.simd_eq(sp(0.0)) | is_nan(x), gamma * (alpha * x), res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Activation;
    use crate::ulp::err_f64;

    /// ONNX's selu defaults (f32 values, exact in f64).
    const ALPHA: f64 = 1.67326319217681884765625;
    const GAMMA: f64 = 1.05070102214813232421875;

    fn kernel(x: f64, alpha: f64, gamma: f64) -> f64 {
        selu_f64(F::splat(x), F::splat(alpha), F::splat(gamma)).to_array()[0]
    }

    /// mpmath (300 bits, `gamma·alpha·expm1(x)` with the parameters exact, rounded once
    /// to f64; `tensor-core/tools/selu_swish_mpmath.py`): the
    /// worst case of the old composition (x = -0.3226), 13 x in [-0.35, 0), 13 in
    /// [-40, -0.35), 6 log-uniform tiny, 5 positive, and -745.5. Python `random.seed(14)`.
    const MPMATH: &[(f64, f64)] = &[
        (-0.32260703188773565, -0.48478111104864946),
        (-0.03738998819557948, -0.06452156684731802),
        (-0.2459049333953994, -0.3832716998266105),
        (-0.22821470710999636, -0.35873429140234003),
        (-0.3291233363481412, -0.49305146500783625),
        (-0.0948903292961131, -0.1591560370496082),
        (-0.08952142970156371, -0.15054838483072874),
        (-0.25692077745064384, -0.3983334753876697),
        (-0.2304575063840265, -0.36186926945429765),
        (-0.10604579086092428, -0.17689386689390377),
        (-0.2394815948269344, -0.37441229335715404),
        (-0.13883577576155487, -0.2279007432742284),
        (-0.2721308057615393, -0.4188590597157098),
        (-0.041439849452903486, -0.07136645210948651),
        (-9.202501511780694, -1.7579221528431952),
        (-36.09301137079181, -1.75809934634303),
        (-14.545995746786026, -1.7580984995101234),
        (-10.674952461947274, -1.7580587047742384),
        (-32.23975291689993, -1.7580993463430128),
        (-25.395474520847603, -1.7580993463265893),
        (-6.2857459957573685, -1.7548245928665593),
        (-22.210340461763597, -1.758099345945642),
        (-26.67756244776275, -1.7580993463384686),
        (-6.890198011476544, -1.7563101070095442),
        (-26.1898372707739, -1.7580993463356012),
        (-5.227994604295417, -1.7486684232261704),
        (-13.714675857512454, -1.7580974017202613),
        (-7.571697472534081e-276, -1.3311796377169344e-275),
        (-1.3246089648989334e-239, -2.328794155348933e-239),
        (-2.641560365823068e-08, -4.644125491140502e-08),
        (-5.0010809605556235e-180, -8.792397167761415e-180),
        (-0.00013783442650930244, -0.0002423099154418312),
        (-1.4314212849529097e-169, -2.516580825417211e-169),
        (30.376560648677636, 31.916683322910327),
        (43.6297691020605, 45.84184299162197),
        (34.34417504301477, 36.08545982253),
        (5.5765727828370135, 5.859310723010305),
        (29.454208402863557, 30.947566875452846),
        (-745.5, -1.7580993463430303),
    ];

    #[test]
    fn reference_and_kernel_against_mpmath() {
        let (mut max_r, mut max_k) = (0.0f64, 0.0f64);
        for &(x, want) in MPMATH {
            let r = <f64 as Activation>::selu(x, ALPHA, GAMMA);
            let k = kernel(x, ALPHA, GAMMA);
            let (er, ek) = (err_f64(r, want), err_f64(k, want));
            assert!(
                er <= 0.5,
                "selu reference at {x:e}: {r:e}, mpmath {want:e} ({er} ulp)"
            );
            assert!(
                ek <= 1.0,
                "selu_f64 at {x:e}: {k:e}, mpmath {want:e} ({ek} ulp)"
            );
            (max_r, max_k) = (max_r.max(er), max_k.max(ek));
        }
        println!("selu vs mpmath: reference {max_r:.3} ulp, kernel {max_k:.3} ulp");
    }

    /// Random x (every lane position, tails of 1..8 lanes through the lane function)
    /// against the double-double reference: within 1 ulp at the defaults and at other
    /// parameters, including per-lane parameters.
    #[test]
    fn random_against_reference() {
        let mut rng = crate::testing::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.unit();
        let params = [
            (ALPHA, GAMMA),
            (1.0, 1.0),
            (0.3, 2.5),
            (1e-5, 3e4),
            (-2.0, 0.75),
        ];
        let mut max = 0.0f64;
        // A hundredth of the inputs under Miri (NOTES.md, "Undefined-behaviour checks").
        for i in 0..(if cfg!(miri) { 400 } else { 40000 }) {
            let x = match i % 4 {
                0 => -0.35 * next(),
                1 => -40.0 * next(),
                2 => -super::super::sweep::exact_pow2(-(next() * 1000.0) as i32) * (1.0 + next()),
                _ => 60.0 * (next() - 0.8),
            };
            let lanes: [f64; 8] = core::array::from_fn(|l| x * (1.0 + l as f64 / 64.0));
            let ps: [(f64, f64); 8] = core::array::from_fn(|l| params[(i + l) % params.len()]);
            let out = selu_f64(
                F::from(lanes),
                F::from(ps.map(|p| p.0)),
                F::from(ps.map(|p| p.1)),
            )
            .to_array();
            for l in 0..8 {
                let want = <f64 as Activation>::selu(lanes[l], ps[l].0, ps[l].1);
                let e = err_f64(out[l], want);
                assert!(
                    e <= 1.0,
                    "selu({:e}, {:?}): {:e}, reference {want:e} ({e} ulp)",
                    lanes[l],
                    ps[l],
                    out[l]
                );
                max = max.max(e);
            }
        }
        println!("selu_f64 vs reference: max {max:.3} ulp");
    }

    /// Special values bit for bit, and parameters outside the double-double range (the
    /// composed path) against the same composition.
    #[test]
    fn special_values_and_extreme_parameters() {
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let ga = GAMMA * ALPHA;
        for (x, want) in [
            (0.0, 0.0),
            (-0.0, -0.0),
            (f64::NAN, f64::NAN),
            (f64::INFINITY, f64::INFINITY),
            (f64::NEG_INFINITY, -ga),
            (-800.0, -ga),
            (1.0, GAMMA),
            (5e-324, GAMMA * 5e-324),
            (-5e-324, -5e-324 * ga),
            // |e^x - 1| = |x| below the subnormal-safe range of the exact product: both
            // scale by 2^200 (the reference's FMA remainder once rounded to a tie here).
            (-3.0625368543091215e-307, -5.3842440417123064e-307),
        ] {
            let k = kernel(x, ALPHA, GAMMA);
            let r = <f64 as Activation>::selu(x, ALPHA, GAMMA);
            assert!(same(k, want), "selu_f64({x:e}) = {k:e}, want {want:e}");
            assert!(
                same(r, want),
                "reference selu({x:e}) = {r:e}, want {want:e}"
            );
        }
        for (alpha, gamma) in [
            (1e300, 1e10),
            (1e-200, 1e-200),
            (f64::INFINITY, 1.0),
            (f64::NAN, 1.0),
            (2.0, 1e299),
        ] {
            for x in [-0.5, -3.0, -1e-3] {
                let k = kernel(x, alpha, gamma);
                // std's `exp_m1`: see `LIBM_ULP`.
                let want = gamma * (alpha * x.exp_m1());
                let e = err_f64(k, want);
                assert!(
                    same(k, want) || e <= 2.0 + super::super::sweep::LIBM_ULP,
                    "selu_f64({x}, {alpha:e}, {gamma:e}) = {k:e}, composition {want:e}"
                );
            }
        }
    }
}
