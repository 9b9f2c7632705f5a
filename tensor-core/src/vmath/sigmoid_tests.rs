//! Tests of the logistic family (`sigmoid.rs`): sigmoid, silu, softplus and swish, each
//! against its scalar reference (`reference.rs`: double-double e^x, rounded once; softplus
//! from glibc's exp and log1p) within the family's 2-ulp bound, special values bit for bit,
//! and tails of every length.

use super::*;
use crate::reference::{Activation, Float};
use crate::vmath::sweep::*;

fn silu_ref(x: f64) -> f64 {
    <f64 as Float>::silu(x)
}

#[test]
fn f32_sweep() {
    let ex = [
        0.0f32, -88.0, -103.0, 88.0, 16.0, -16.0, 1.0, -1.0, -36.0, -200.0,
    ];
    let xs = f32_inputs(STRIDE, &ex, 2000);
    run_f32("sigmoid_f32", sigmoid_f32, sigmoid_ref, &xs, 2.0);
    run_f32("silu_f32", silu_f32, silu_ref, &xs, 2.0);
    // softplus_ref calls std's `exp` and `ln_1p`: one `LIBM_ULP` each (`run_f32`/`run_f64`
    // and `check_tails_*` add one; Miri failed softplus_f64 at 8 ulp > 6 and 7 in a tail).
    run_f32(
        "softplus_f32",
        softplus_f32,
        softplus_ref,
        &xs,
        2.0 + LIBM_ULP_IN_F32,
    );
}

#[test]
fn f64_random() {
    let xs = make_inputs(8, |r, i| match i % 2 {
        0 => r.unif(-750.0, 40.0),
        _ => r.logu(-40, 5, true),
    });
    run_f64("sigmoid_f64", sigmoid_f64, sigmoid_ref, &xs, 2.0);
    let xs = make_inputs(10, |r, i| match i % 2 {
        0 => r.unif(-760.0, 40.0),
        _ => r.logu(-40, 3, true),
    });
    run_f64("silu_f64", silu_f64, silu_ref, &xs, 2.0);
    let xs = make_inputs(18, |r, i| match i % 2 {
        0 => r.unif(-750.0, 40.0),
        _ => r.logu(-40, 5, true),
    });
    run_f64(
        "softplus_f64",
        softplus_f64,
        softplus_ref,
        &xs,
        2.0 + LIBM_ULP,
    );
}

#[test]
fn special_values() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    // (name, f32 kernel, f64 kernel, x, exact result): C99-style limits at ±inf, ±0, NaN.
    let cases: &[(&str, fn(f32x8) -> f32x8, fn(F) -> F, f64, f64)] = &[
        ("sigmoid", sigmoid_f32, sigmoid_f64, -inf, 0.0),
        ("sigmoid", sigmoid_f32, sigmoid_f64, inf, 1.0),
        ("sigmoid", sigmoid_f32, sigmoid_f64, 0.0, 0.5),
        ("sigmoid", sigmoid_f32, sigmoid_f64, -0.0, 0.5),
        ("sigmoid", sigmoid_f32, sigmoid_f64, nan, nan),
        ("sigmoid", sigmoid_f32, sigmoid_f64, -800.0, 0.0),
        ("sigmoid", sigmoid_f32, sigmoid_f64, 800.0, 1.0),
        ("silu", silu_f32, silu_f64, 0.0, 0.0),
        ("silu", silu_f32, silu_f64, -0.0, -0.0),
        ("silu", silu_f32, silu_f64, inf, inf),
        ("silu", silu_f32, silu_f64, -inf, -0.0),
        ("silu", silu_f32, silu_f64, -800.0, -0.0),
        ("silu", silu_f32, silu_f64, 100.0, 100.0),
        ("silu", silu_f32, silu_f64, nan, nan),
        ("softplus", softplus_f32, softplus_f64, -inf, 0.0),
        ("softplus", softplus_f32, softplus_f64, inf, inf),
        ("softplus", softplus_f32, softplus_f64, nan, nan),
        ("softplus", softplus_f32, softplus_f64, 100.0, 100.0),
    ];
    for &(n, f32f, f64f, x, want) in cases {
        let got = s32(f32f, x as f32);
        assert!(
            same32(got, want as f32),
            "{n}_f32({x}) = {got}, want {want}"
        );
        let got = s64(f64f, x);
        assert!(same64(got, want), "{n}_f64({x}) = {got}, want {want}");
    }
    // Results near and below the subnormal range are rounded once, not flushed.
    assert!(s64(sigmoid_f64, -740.0) > 0.0);
    assert!(s64(silu_f64, -745.5) < 0.0);
    for x in [-740.0, -745.0, -720.5] {
        assert!(
            err_f64(s64(sigmoid_f64, x), sigmoid_ref(x)) <= 1.0,
            "sigmoid_f64({x})"
        );
        assert!(
            err_f64(s64(silu_f64, x), silu_ref(x)) <= 1.0,
            "silu_f64({x})"
        );
    }
    let sp = s32(softplus_f32, -100.0);
    assert!(
        sp > 0.0 && err_f32(sp, softplus_ref(-100.0)) <= 0.5 + LIBM_ULP_IN_F32,
        "softplus(-100) = {sp}"
    );
}

#[test]
fn tails() {
    let edges = [
        0.0,
        1.0,
        16.0,
        36.0,
        40.0,
        88.0,
        103.0,
        700.0,
        745.0,
        f64::INFINITY,
        f64::NAN,
    ];
    let xd = edge_and_random(&edges, (-760.0, 40.0), 200, 21);
    let xf: Vec<f32> = edge_and_random(&edges, (-110.0, 40.0), 200, 22)
        .iter()
        .map(|&x| x as f32)
        .collect();
    check_tails_f32("sigmoid_f32", sigmoid_f32, sigmoid_ref, &xf, 2.0);
    check_tails_f32("silu_f32", silu_f32, silu_ref, &xf, 2.0);
    // softplus_ref: two libm calls (see f64_random).
    check_tails_f32(
        "softplus_f32",
        softplus_f32,
        softplus_ref,
        &xf,
        2.0 + LIBM_ULP_IN_F32,
    );
    check_tails_f64("sigmoid_f64", sigmoid_f64, sigmoid_ref, &xd, 2.0);
    check_tails_f64("silu_f64", silu_f64, silu_ref, &xd, 2.0);
    check_tails_f64(
        "softplus_f64",
        softplus_f64,
        softplus_ref,
        &xd,
        2.0 + LIBM_ULP,
    );
    check_tails_f64("swish_f64", swish_alpha_1, swish_ref_1, &xd, 2.0);
}

// ------------------------------------------------------------------ swish

fn swish(x: f64, alpha: f64) -> f64 {
    swish_f64(F::splat(x), F::splat(alpha)).to_array()[0]
}
fn swish_alpha_1(x: F) -> F {
    swish_f64(x, F::splat(1.0))
}
fn swish_ref_1(x: f64) -> f64 {
    <f64 as Activation>::swish(x, 1.0)
}

/// (x, alpha, swish(x, alpha)) from mpmath (300 bits, `x/(1 + exp(-alpha·x))`, rounded
/// once to f64, subnormals at 2^-1074; `tensor-core/tools/selu_swish_mpmath.py`,
/// `random.seed(14)`): for alpha in {1, 1.702, 0.25, -0.75}, the old kernel's worst x
/// (-717.3/alpha), four v = alpha·x in [-760, -700] (subnormal and zero results), three in
/// [-40, 40], two in [-700, -40]; then four extreme (x, alpha) pairs.
const SWISH_MPMATH: &[(f64, f64, f64)] = &[
    (-717.306033717445, 1.0, -2.15601711757052e-309),
    (-721.9762377302687, 1.0, -2.0334186029313e-311),
    (-749.1281177707699, 1.0, -3.5e-323),
    (-754.3196500478668, 1.0, -0.0),
    (-707.5123647660191, 1.0, -3.810817386357717e-305),
    (1.1025164557992184, 1.0, 0.8276936304491904),
    (-24.492903190356028, 1.0, -5.648167461503828e-10),
    (-3.791927323271544, 1.0, -0.08362987544687539),
    (-555.9959846740392, 1.0, -1.901444050263419e-239),
    (-173.16034566108374, 1.0, -1.0860900599977742e-73),
    (-421.4489034767597, 1.702, -1.26675506320236e-309),
    (-428.8902423703414, 1.702, -4.07272708e-315),
    (-442.92263123148325, 1.702, -0.0),
    (-417.692314496534, 1.702, -7.508602384272623e-307),
    (-443.3771361303898, 1.702, -0.0),
    (-10.309341539969743, 1.702, -2.471058881644725e-07),
    (-22.18578587347571, 1.702, -8.851666435525743e-16),
    (11.296885628491898, 1.702, 11.29688557806657),
    (-367.12265054532037, 1.702, -1.5814383438838848e-269),
    (-207.40034723322663, 1.702, -1.0300517267881357e-151),
    (-2869.22413486978, 0.25, -8.62406847028208e-309),
    (-3017.6839129474365, 0.25, -0.0),
    (-2924.6950173846953, 0.25, -8.34360547e-315),
    (-2875.5106887190827, 0.25, -1.795183282024653e-309),
    (-2911.6358863353344, 0.25, -2.1741393515e-313),
    (-14.346591688335877, 0.25, -0.386567007203336),
    (-4.841300344881972, 0.25, -1.1117733288102827),
    (-20.146373706594375, 0.25, -0.13002299603842343),
    (-1228.0209557529258, 0.25, -5.734883390937625e-131),
    (-2549.584832513041, 0.25, -3.879837092274121e-274),
    (956.4080449565932, -0.75, 2.874689490094107e-309),
    (975.3718804951045, -0.75, 1.950747704e-315),
    (994.4322668815244, -0.75, 1.23e-321),
    (944.09708304284, -0.75, 2.903364056341609e-305),
    (938.2117157246329, -0.75, 2.3832664792655086e-303),
    (46.245460852708845, -0.75, 3.9990585775296136e-14),
    (38.048324991024174, -0.75, 1.538871478685919e-11),
    (-21.703559769618447, -0.75, -21.70355791937553),
    (430.4598131643997, -0.75, 2.655776104821362e-138),
    (916.5200538959966, -0.75, 2.7067023589865843e-296),
    (-1e+300, 1e-297, -5.075958897548989e-135),
    (3e-310, 1e+300, 1.500000000225e-310),
    (-2.5e-320, -4e+305, -1.25e-320),
    (1.5e+308, -4.7e-306, 99.6509669699663),
];

#[test]
fn swish_reference_and_kernel_against_mpmath() {
    let (mut max_r, mut max_k) = (0.0f64, 0.0f64);
    for &(x, alpha, want) in SWISH_MPMATH {
        let r = <f64 as Activation>::swish(x, alpha);
        let k = swish(x, alpha);
        let (er, ek) = (err_f64(r, want), err_f64(k, want));
        assert!(
            er <= 0.5,
            "swish reference ({x:e}, {alpha}): {r:e}, mpmath {want:e} ({er} ulp)"
        );
        assert!(
            ek <= 1.0,
            "swish_f64({x:e}, {alpha}): {k:e}, mpmath {want:e} ({ek} ulp)"
        );
        (max_r, max_k) = (max_r.max(er), max_k.max(ek));
    }
    println!("swish vs mpmath: reference {max_r:.3} ulp, kernel {max_k:.3} ulp");
}

/// Random x for several alphas, one alpha per lane (a scalar or tensor parameter reaches
/// the kernel as lanes), against the reference: within 1 ulp (each is < 0.6 ulp from the
/// true value; they can round to neighbouring doubles). At alpha = 1 the reference also
/// matches silu's reference, an independent evaluation.
#[test]
fn swish_random_against_reference() {
    let alphas = [1.0, 1.702, 0.25, -0.75, 3.0e-4, 40.0, -1.0, 1e-300, 1e250];
    let mut rng = Rng::new(31);
    let mut max = 0.0f64;
    for i in 0..(N64 / 2) {
        let a: [f64; 8] = core::array::from_fn(|l| alphas[(i + l) % alphas.len()]);
        let x: [f64; 8] = core::array::from_fn(|l| {
            let v = match (i + l) % 4 {
                0 => rng.unif(-760.0, 40.0),
                1 => rng.unif(-1800.0, 1800.0),
                2 => rng.logu(-1074, 1023, true),
                _ => f64::from_bits(rng.next()),
            };
            // Put v = alpha·x where it matters for the first two cases.
            if (i + l) % 4 < 2 {
                v / a[l]
            } else {
                v
            }
        });
        let out = swish_f64(F::from(x), F::from(a)).to_array();
        for l in 0..8 {
            let want = <f64 as Activation>::swish(x[l], a[l]);
            let e = err_f64(out[l], want);
            assert!(
                e <= 1.0,
                "swish_f64({:e}, {:e}) = {:e}, reference {want:e} ({e} ulp)",
                x[l],
                a[l],
                out[l]
            );
            max = max.max(e);
            if a[l] == 1.0 {
                let s = silu_ref(x[l]);
                assert!(
                    err_f64(want, s) <= 1.0,
                    "swish reference({:e}, 1) = {want:e}, silu reference {s:e}",
                    x[l]
                );
            }
        }
    }
    println!("swish_f64 vs reference: max {max:.3} ulp");
}

#[test]
fn swish_special_values() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let cases: &[(f64, f64, f64)] = &[
        (0.0, 1.0, 0.0),
        (-0.0, 1.0, -0.0),
        (-0.0, -3.0, -0.0),
        (inf, 1.0, inf),
        (-inf, 1.0, -0.0),
        (inf, -1.0, 0.0),
        (-inf, -1.0, -inf),
        (inf, 0.0, nan),
        (0.0, inf, nan),
        (nan, 1.0, nan),
        (1.0, nan, nan),
        (3.0, 0.0, 1.5),
        (-5e-324, 0.0, -0.0), // x/2 of the smallest subnormal: a tie, to even
        (2.0, inf, 2.0),
        (2.0, -inf, 0.0),
        (-2.0, inf, -0.0),
        (-800.0, 1.0, -0.0),
        (100.0, 1.0, 100.0),
        (f64::MAX, 1.0, f64::MAX),
        (-f64::MAX, 1.0, -0.0),
    ];
    for &(x, alpha, want) in cases {
        let r = <f64 as Activation>::swish(x, alpha);
        let k = swish(x, alpha);
        assert!(
            same64(r, want),
            "reference swish({x:e}, {alpha:e}) = {r:e}, want {want:e}"
        );
        assert!(
            same64(k, want),
            "swish_f64({x:e}, {alpha:e}) = {k:e}, want {want:e}"
        );
    }
    // A huge x with a tiny alpha: v = alpha·x is moderate and x·sigmoid(v) finite.
    let (x, alpha) = (f64::MAX, 1e-308);
    let v = alpha * x;
    let want = x / (1.0 + (-v).exp());
    assert!(
        err_f64(swish(x, alpha), want) <= 2.0,
        "swish_f64(MAX, 1e-308) = {:e}, ~{want:e}",
        swish(x, alpha)
    );
}
