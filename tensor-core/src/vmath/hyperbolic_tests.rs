//! Tests of `hyperbolic.rs` (tanh, sinh, cosh): every `STRIDE`-th f32 and random f64 inputs
//! against glibc (< 1 ulp itself), within the family's 2-ulp bound; special values and
//! overflow thresholds bit for bit; tails of every length.

use super::*;
use crate::vmath::sweep::*;

#[test]
fn f32_sweep() {
    let ex = [
        0.0f32, 1.0, -1.0, 0.55, 22.0, 9.0, -9.0, 0.84375, 10.0, 0.34657, 89.4, 88.7, 3.0,
    ];
    let xs = f32_inputs(STRIDE, &ex, 2000);
    run_f32("tanh_f32", tanh_f32, f64::tanh, &xs, 2.0);
    run_f32("sinh_f32", sinh_f32, f64::sinh, &xs, 2.0);
    run_f32("cosh_f32", cosh_f32, f64::cosh, &xs, 2.0);
}

#[test]
fn f64_random() {
    let xs = make_inputs(5, |r, i| match i % 2 {
        0 => r.unif(-25.0, 25.0),
        _ => r.logu(-60, 2, true),
    });
    run_f64("tanh_f64", tanh_f64, f64::tanh, &xs, 2.0);
    let xs = make_inputs(17, |r, i| match i % 3 {
        0 => r.unif(-711.0, 711.0),
        1 => r.logu(-60, 5, true),
        _ => r.unif(-2.0, 2.0),
    });
    run_f64("sinh_f64", sinh_f64, f64::sinh, &xs, 2.0);
    run_f64("cosh_f64", cosh_f64, f64::cosh, &xs, 2.0);
}

#[test]
fn special_values() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let cases: &[(&str, fn(f32x8) -> f32x8, fn(F) -> F, f64, f64)] = &[
        ("tanh", tanh_f32, tanh_f64, inf, 1.0),
        ("tanh", tanh_f32, tanh_f64, -inf, -1.0),
        ("tanh", tanh_f32, tanh_f64, 0.0, 0.0),
        ("tanh", tanh_f32, tanh_f64, -0.0, -0.0),
        ("tanh", tanh_f32, tanh_f64, 30.0, 1.0),
        ("tanh", tanh_f32, tanh_f64, -30.0, -1.0),
        ("tanh", tanh_f32, tanh_f64, nan, nan),
        ("sinh", sinh_f32, sinh_f64, 0.0, 0.0),
        ("sinh", sinh_f32, sinh_f64, -0.0, -0.0),
        ("sinh", sinh_f32, sinh_f64, inf, inf),
        ("sinh", sinh_f32, sinh_f64, -inf, -inf),
        ("sinh", sinh_f32, sinh_f64, nan, nan),
        ("cosh", cosh_f32, cosh_f64, 0.0, 1.0),
        ("cosh", cosh_f32, cosh_f64, -0.0, 1.0),
        ("cosh", cosh_f32, cosh_f64, inf, inf),
        ("cosh", cosh_f32, cosh_f64, -inf, inf),
        ("cosh", cosh_f32, cosh_f64, nan, nan),
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
    // Tiny arguments: tanh and sinh return x itself (subnormals too), cosh 1.
    for x in [1e-30f32, -1e-40, f32::MIN_POSITIVE] {
        assert!(
            same32(s32(tanh_f32, x), x) && same32(s32(sinh_f32, x), x),
            "tiny {x}"
        );
        assert!(same32(s32(cosh_f32, x), 1.0), "cosh({x})");
    }
    for x in [1e-300f64, -5e-324, 3e-9] {
        assert!(
            same64(s64(tanh_f64, x), x.tanh()) && same64(s64(sinh_f64, x), x.sinh()),
            "tiny {x}"
        );
    }
    // Overflow thresholds: f32 sinh/cosh overflow past ln(2·f32::MAX) = 89.4159…, f64 past
    // 710.4758….
    assert_eq!(s32(sinh_f32, 89.5), f32::INFINITY);
    assert_eq!(s32(cosh_f32, -89.5), f32::INFINITY);
    assert!(s32(sinh_f32, 89.41).is_finite() && s32(cosh_f32, -89.41).is_finite());
    assert!(err_f64(s64(sinh_f64, 710.0), 710f64.sinh()) <= 2.0);
    assert!(err_f64(s64(cosh_f64, -710.4), (-710.4f64).cosh()) <= 2.0);
    assert_eq!(s64(sinh_f64, 711.0), f64::INFINITY);
    assert_eq!(s64(sinh_f64, -711.0), f64::NEG_INFINITY);
    assert_eq!(s64(cosh_f64, -711.0), f64::INFINITY);
}

#[test]
fn tails() {
    let edges = [
        0.0,
        0.34657,
        1.0,
        3.0,
        10.0,
        22.0,
        89.4,
        710.4,
        f64::INFINITY,
        f64::NAN,
        1e-300,
    ];
    let xd = edge_and_random(&edges, (-30.0, 30.0), 200, 41);
    let xf: Vec<f32> = edge_and_random(&edges, (-95.0, 95.0), 200, 42)
        .iter()
        .map(|&x| x as f32)
        .collect();
    check_tails_f32("tanh_f32", tanh_f32, f64::tanh, &xf, 2.0);
    check_tails_f32("sinh_f32", sinh_f32, f64::sinh, &xf, 2.0);
    check_tails_f32("cosh_f32", cosh_f32, f64::cosh, &xf, 2.0);
    check_tails_f64("tanh_f64", tanh_f64, f64::tanh, &xd, 2.0);
    check_tails_f64("sinh_f64", sinh_f64, f64::sinh, &xd, 2.0);
    check_tails_f64("cosh_f64", cosh_f64, f64::cosh, &xd, 2.0);
}
