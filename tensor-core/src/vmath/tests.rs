//! Tests that cover several families at once: the strided f32 sweeps and random f64
//! sweeps of the original functions, and their special values (C99 Annex F). The
//! hyperbolic (tanh, sinh, cosh) and logistic (sigmoid, silu, softplus, swish) families
//! have their own files: `hyperbolic_tests.rs`, `sigmoid_tests.rs`.

use super::sweep::*;
use super::*;

#[test]
fn f32_sweep_erf_gelu() {
    let ex = [
        0.0f32, 1.0, -1.0, 0.55, 22.0, 9.0, -9.0, 0.84375, 1.25, 2.857, 6.0, -6.0, 4.0, 3.0,
    ];
    let xs = f32_inputs(STRIDE, &ex, 2000);
    run_f32("erf_f32", erf_f32, erf_scalar_f64, &xs, 2.0);
    let ex3 = [
        0.0f32, -1.0, -5.0, -10.0, -13.0, -14.0, -1.2, 1.0, 5.0, -1.7, -0.75,
    ];
    let xs3 = f32_inputs(STRIDE, &ex3, 2000);
    run_f32("gelu_f32", gelu_f32, gelu_ref, &xs3, 2.0);
}

#[test]
fn f64_random() {
    let xs = make_inputs(1, |r, i| match i % 3 {
        0 => r.unif(-745.2, 709.8),
        1 => r.logu(-60, 3, true),
        _ => r.unif(-1.0, 1.0),
    });
    run_f64("exp_f64", exp_f64, f64::exp, &xs, 2.0);
    let xs = make_inputs(2, |r, i| match i % 3 {
        0 => f64::from_bits(r.next() & 0x7fef_ffff_ffff_ffff),
        1 => r.unif(0.5, 2.0),
        _ => f64::from_bits(r.next() & 0x000f_ffff_ffff_ffff),
    });
    run_f64("log_f64", log_f64, f64::ln, &xs, 2.0);
    let xs = make_inputs(3, |r, i| match i % 3 {
        0 => f64::from_bits(r.next() & 0x7fef_ffff_ffff_ffff),
        1 => r.unif(-1.0, 1.0),
        _ => r.logu(-70, 0, true),
    });
    run_f64("log1p_f64", log1p_f64, f64::ln_1p, &xs, 2.0);
    let xs = make_inputs(4, |r, i| match i % 4 {
        0 => r.unif(-1e6, 1e6),
        1 => r.logu(-30, 4, true),
        2 => {
            let k = (r.next() % 600_000) as f64;
            k * std::f64::consts::FRAC_PI_2 + r.unif(-1e-6, 1e-6)
        }
        _ => r.logu(20, 1000, true),
    });
    // Lanes beyond 1.6e6 call std's sin/cos themselves (trig_fallback): under Miri both
    // sides carry its modelled libm error.
    run_f64("sin_f64", sin_f64, f64::sin, &xs, 2.0 + LIBM_ULP);
    run_f64("cos_f64", cos_f64, f64::cos, &xs, 2.0 + LIBM_ULP);
    let xs = make_inputs(6, |r, i| match i % 2 {
        0 => r.unif(-7.0, 7.0),
        _ => r.logu(-60, 3, true),
    });
    // The fdlibm references call std's `exp` twice for |x| >= 1.25 (`erfc_tail_scalar`):
    // one `LIBM_ULP` here, `run_f64` adds the other (Miri failed erfc at 10 ulp > 8).
    run_f64("erf_f64", erf_f64, erf_scalar_f64, &xs, 4.0 + LIBM_ULP);
    let xs = make_inputs(7, |r, _| r.unif(-1.0, 30.0));
    run_f64(
        "erfc_f64",
        erfc_fdlibm_f64,
        erfc_scalar_f64,
        &xs,
        4.0 + LIBM_ULP,
    );
    let xs = make_inputs(9, |r, i| match i % 2 {
        0 => r.unif(-28.0, 10.0),
        _ => r.logu(-40, 4, true),
    });
    // Against reference.rs's gelu (double-double exp below x = -1.77, within ~0.5
    // ulp of mpmath down to the subnormal range), held to the 2-ulp bound.
    // gelu_ref calls std's `exp` up to three times (fdlibm erfc's two, then e^(-h²)):
    // two `LIBM_ULP` here, `run_f64` adds the third.
    run_f64("gelu_f64", gelu_f64, gelu_ref, &xs, 2.0 + 2.0 * LIBM_ULP);
}

/// Special inputs (NaN, ±inf, ±0, overflow and subnormal ends) and their exact results: a
/// table of f32 cases (the f64 versions checked on the same inputs), exp's thresholds, then
/// a table of `pow` cases. Long for its tables, not its logic.
#[test]
fn special_values() {
    let inf = f32::INFINITY;
    let nan = f32::NAN;
    let c32: &[(&str, fn(f32x8) -> f32x8, f32, f32)] = &[
        ("exp", exp_f32, nan, nan),
        ("exp", exp_f32, -inf, 0.0),
        ("exp", exp_f32, inf, inf),
        ("exp", exp_f32, 0.0, 1.0),
        ("exp", exp_f32, -0.0, 1.0),
        ("exp", exp_f32, 88.7229, inf),
        ("exp", exp_f32, 89.0, inf),
        ("exp", exp_f32, -104.0, 0.0),
        ("log", log_f32, 0.0, -inf),
        ("log", log_f32, -0.0, -inf),
        ("log", log_f32, -1.0, nan),
        ("log", log_f32, -inf, nan),
        ("log", log_f32, inf, inf),
        ("log", log_f32, 1.0, 0.0),
        ("log", log_f32, nan, nan),
        ("log1p", log1p_f32, -1.0, -inf),
        ("log1p", log1p_f32, -2.0, nan),
        ("log1p", log1p_f32, -0.0, -0.0),
        ("log1p", log1p_f32, 0.0, 0.0),
        ("log1p", log1p_f32, inf, inf),
        ("log1p", log1p_f32, -inf, nan),
        ("log1p", log1p_f32, nan, nan),
        ("sin", sin_f32, 0.0, 0.0),
        ("sin", sin_f32, -0.0, -0.0),
        ("sin", sin_f32, inf, nan),
        ("sin", sin_f32, -inf, nan),
        ("sin", sin_f32, nan, nan),
        ("cos", cos_f32, 0.0, 1.0),
        ("cos", cos_f32, -0.0, 1.0),
        ("cos", cos_f32, inf, nan),
        ("cos", cos_f32, -inf, nan),
        ("cos", cos_f32, nan, nan),
        ("erf", erf_f32, inf, 1.0),
        ("erf", erf_f32, -inf, -1.0),
        ("erf", erf_f32, -0.0, -0.0),
        ("erf", erf_f32, 0.0, 0.0),
        ("erf", erf_f32, nan, nan),
        ("gelu", gelu_f32, -inf, -0.0),
        ("gelu", gelu_f32, inf, inf),
        ("gelu", gelu_f32, 0.0, 0.0),
        ("gelu", gelu_f32, -0.0, -0.0),
        ("gelu", gelu_f32, -100.0, -0.0),
        ("gelu", gelu_f32, nan, nan),
    ];
    for &(n, f, x, want) in c32 {
        let got = s32(f, x);
        assert!(same32(got, want), "{n}_f32({x}) = {got}, want {want}");
        // f64 versions agree on these specials
        let f64fn: fn(F) -> F = match n {
            "exp" => exp_f64,
            "log" => log_f64,
            "log1p" => log1p_f64,
            "sin" => sin_f64,
            "cos" => cos_f64,
            "erf" => erf_f64,
            _ => gelu_f64,
        };
        if !(n == "exp" && x.is_finite() && x.abs() > 80.0) && x != -100.0 {
            let g = s64(f64fn, x as f64);
            assert!(same64(g, want as f64), "{n}_f64({x}) = {g}, want {want}");
        }
    }
    // exp thresholds (f32)
    // ln(f32::MAX) = 88.7228390587...: the f32 nearest 88.72284 is
    // 88.72283935546875 > ln(MAX) and its exp rounds to inf; the f32 just
    // below, 88.72283172607422, is the largest with a finite exp.
    assert!(s32(exp_f32, 88.72283).is_finite());
    // Correctly rounded there (against std's exp: see `LIBM_ULP`).
    let g = s32(exp_f32, 88.72283);
    assert!(err_f32(g, (88.72283f32 as f64).exp()) <= 0.5 + LIBM_ULP_IN_F32);
    assert_eq!(s32(exp_f32, 88.72284), inf);
    assert_eq!(s32(exp_f32, 88.7229), inf);
    // subnormal results of exp are accurate, not flushed
    for &x in &[-100.0f32, -103.0, -103.9, -95.5] {
        let g = s32(exp_f32, x);
        assert!(
            g > 0.0 && err_f32(g, (x as f64).exp()) <= 0.5 + LIBM_ULP_IN_F32,
            "exp({x}) = {g}"
        );
    }
    for &x in &[-709.0f64, -720.0, -740.0, -745.0] {
        let g = s64(exp_f64, x);
        assert!(
            g > 0.0 && err_f64(g, x.exp()) <= 1.0 + LIBM_ULP,
            "exp({x}) = {g}"
        );
    }
    // Equal to glibc's exp natively (LIBM_ULP = 0 there).
    assert!(err_f64(s64(exp_f64, 709.78), 709.78f64.exp()) <= LIBM_ULP);
    assert_eq!(s64(exp_f64, 709.8), f64::INFINITY);
    assert_eq!(s64(exp_f64, -745.2), 0.0);
    // log of subnormals
    for &x in &[1e-45f32, 1e-40, 5.877e-39, f32::MIN_POSITIVE] {
        let g = s32(log_f32, x);
        assert!(
            err_f32(g, (x as f64).ln()) <= 0.5 + LIBM_ULP_IN_F32,
            "log({x}) = {g}"
        );
    }
    for &x in &[5e-324f64, 1e-310, 2.2e-308] {
        let g = s64(log_f64, x);
        assert!(err_f64(g, x.ln()) <= 1.0 + LIBM_ULP, "log({x}) = {g}");
    }
    assert!(same64(s64(log1p_f64, -0.0), -0.0));
    assert!(same64(s64(sin_f64, -0.0), -0.0));
    assert!(same64(s64(erf_f64, -0.0), -0.0));
    assert!(same64(s64(gelu_f64, -1000.0), -0.0));

    // pow (C99 Annex F)
    let p = |x: f64, y: f64| pow_f64(F::splat(x), F::splat(y)).to_array()[0];
    let pf = |x: f32, y: f32| pow_f32(f32x8::splat(x), f32x8::splat(y)).to_array()[0];
    let dn = f64::NAN;
    let di = f64::INFINITY;
    let cases: &[(f64, f64, f64)] = &[
        (dn, 0.0, 1.0),
        (dn, -0.0, 1.0),
        (1.0, dn, 1.0),
        (1.0, di, 1.0),
        (-1.0, di, 1.0),
        (-1.0, -di, 1.0),
        (dn, 1.0, dn),
        (2.0, dn, dn),
        (-2.0, 3.0, -8.0),
        (-2.0, 2.0, 4.0),
        (-2.0, -3.0, -0.125),
        (-2.0, 0.5, dn),
        (-8.0, 1.0 / 3.0, dn),
        (0.0, -1.0, di),
        (-0.0, -1.0, -di),
        (-0.0, -2.0, di),
        (0.0, -0.5, di),
        (0.0, 3.0, 0.0),
        (-0.0, 3.0, -0.0),
        (-0.0, 2.0, 0.0),
        (-0.0, 0.5, 0.0),
        (0.5, di, 0.0),
        (0.5, -di, di),
        (2.0, di, di),
        (2.0, -di, 0.0),
        (-0.5, di, 0.0),
        (-2.0, -di, 0.0),
        (di, 0.5, di),
        (di, -0.5, 0.0),
        (-di, 3.0, -di),
        (-di, 2.0, di),
        (-di, -3.0, -0.0),
        (-di, -2.0, 0.0),
        (-di, 0.5, di),
        (10.0, 400.0, di),
        (-10.0, 401.0, -di),
        (10.0, -400.0, 0.0),
        (-10.0, -401.0, -0.0),
        (2.0, -1074.0, 5e-324),
        (2.0, 1023.0, 8.98846567431158e307),
        (2.0, 1024.0, di),
        (2.0, 0.5, std::f64::consts::SQRT_2),
        (3.0, 2.0, 9.0),
        (10.0, 22.0, 1e22),
    ];
    for &(x, y, want) in cases {
        let got = p(x, y);
        assert!(same64(got, want), "pow_f64({x}, {y}) = {got}, want {want}");
        if (x as f32 as f64 == x || x.is_nan())
            && (y as f32 as f64 == y || y.is_nan())
            && want.abs() < 1e38
            || want.is_infinite()
            || want.is_nan()
        {
            let got32 = pf(x as f32, y as f32);
            let w32 = if x.abs() == 10.0 && y.abs() > 300.0 {
                want as f32
            } else {
                want as f32
            };
            assert!(
                same32(got32, w32),
                "pow_f32({x}, {y}) = {got32}, want {w32}"
            );
        }
    }
}

#[test]
fn f32_sweep_more() {
    let ex = [
        0.0f32, 1.0, -1.0, 0.5, -0.5, 88.7, -103.0, 127.9, -149.5, 1e-7, -1e-7, 0.34657, 22.0,
        0.975, 0.4375, 2.4375,
    ];
    let xs = f32_inputs(STRIDE, &ex, 2000);
    run_f32("exp2_f32", exp2_f32, f64::exp2, &xs, 1.0);
    run_f32("expm1_f32", expm1_f32, f64::exp_m1, &xs, 1.0);
    run_f32("log2_f32", log2_f32, f64::log2, &xs, 1.0);
    run_f32("rsqrt_f32", rsqrt_f32, |x| 1.0 / x.sqrt(), &xs, 1.0);
    run_f32("sqrt_f32", sqrt_f32, f64::sqrt, &xs, 0.5);
    run_f32("atan_f32", atan_f32, f64::atan, &xs, 2.0);
    run_f32("asin_f32", asin_f32, f64::asin, &xs, 2.0);
    run_f32("acos_f32", acos_f32, f64::acos, &xs, 2.0);
    let xs = f32_inputs(STRIDE, &pio2_multiples(), 64);
    run_f32("tan_f32", tan_f32, f64::tan, &xs, 2.0);
}

#[test]
fn f64_random_more() {
    let xs = make_inputs(11, |r, i| match i % 3 {
        0 => r.unif(-1075.0, 1024.0),
        1 => r.logu(-60, 3, true),
        _ => r.unif(-1.0, 1.0),
    });
    run_f64("exp2_f64", exp2_f64, f64::exp2, &xs, 1.0);
    let xs = make_inputs(12, |r, i| match i % 3 {
        0 => r.unif(-40.0, 709.0),
        1 => r.logu(-60, 3, true),
        _ => r.unif(-1.0, 1.0),
    });
    run_f64("expm1_f64", expm1_f64, f64::exp_m1, &xs, 1.0);
    let xs = make_inputs(13, |r, i| match i % 3 {
        0 => f64::from_bits(r.next() & 0x7fef_ffff_ffff_ffff),
        1 => r.unif(0.5, 2.0),
        _ => f64::from_bits(r.next() & 0x000f_ffff_ffff_ffff),
    });
    run_f64("log2_f64", log2_f64, f64::log2, &xs, 1.0);
    let xs = make_inputs(14, |r, i| match i % 4 {
        0 => r.unif(-1e6, 1e6),
        1 => r.logu(-30, 4, true),
        2 => {
            let k = (r.next() % 600_000) as f64;
            k * std::f64::consts::FRAC_PI_2 + r.unif(-1e-6, 1e-6)
        }
        _ => r.logu(20, 1000, true),
    });
    // As sin/cos above: lanes beyond 1.6e6 call std's tan.
    run_f64("tan_f64", tan_f64, f64::tan, &xs, 2.0 + LIBM_ULP);
    let xs = make_inputs(15, |r, i| match i % 3 {
        0 => r.unif(-4.0, 4.0),
        1 => r.logu(-60, 70, true),
        _ => r.unif(-1.0, 1.0),
    });
    run_f64("atan_f64", atan_f64, f64::atan, &xs, 2.0);
    let xs = make_inputs(16, |r, i| match i % 2 {
        0 => r.unif(-1.0, 1.0),
        _ => r.logu(-60, 0, true),
    });
    run_f64("asin_f64", asin_f64, f64::asin, &xs, 2.0);
    run_f64("acos_f64", acos_f64, f64::acos, &xs, 2.0);
}

#[test]
fn special_values_more() {
    let inf = f32::INFINITY;
    let nan = f32::NAN;
    let pio2 = std::f32::consts::FRAC_PI_2;
    let pi = std::f32::consts::PI;
    // C99 Annex F.
    let c32: &[(&str, fn(f32x8) -> f32x8, fn(F) -> F, f32, f32)] = &[
        ("exp2", exp2_f32, exp2_f64, 0.0, 1.0),
        ("exp2", exp2_f32, exp2_f64, -0.0, 1.0),
        ("exp2", exp2_f32, exp2_f64, -inf, 0.0),
        ("exp2", exp2_f32, exp2_f64, inf, inf),
        ("exp2", exp2_f32, exp2_f64, nan, nan),
        ("exp2", exp2_f32, exp2_f64, 10.0, 1024.0),
        ("exp2", exp2_f32, exp2_f64, -149.0, 1e-45),
        ("expm1", expm1_f32, expm1_f64, 0.0, 0.0),
        ("expm1", expm1_f32, expm1_f64, -0.0, -0.0),
        ("expm1", expm1_f32, expm1_f64, -inf, -1.0),
        ("expm1", expm1_f32, expm1_f64, inf, inf),
        ("expm1", expm1_f32, expm1_f64, nan, nan),
        ("log2", log2_f32, log2_f64, 1.0, 0.0),
        ("log2", log2_f32, log2_f64, 0.0, -inf),
        ("log2", log2_f32, log2_f64, -0.0, -inf),
        ("log2", log2_f32, log2_f64, -1.0, nan),
        ("log2", log2_f32, log2_f64, inf, inf),
        ("log2", log2_f32, log2_f64, -inf, nan),
        ("log2", log2_f32, log2_f64, 1024.0, 10.0),
        ("log2", log2_f32, log2_f64, 1e-45, -149.0),
        ("log2", log2_f32, log2_f64, nan, nan),
        ("tan", tan_f32, tan_f64, 0.0, 0.0),
        ("tan", tan_f32, tan_f64, -0.0, -0.0),
        ("tan", tan_f32, tan_f64, inf, nan),
        ("tan", tan_f32, tan_f64, -inf, nan),
        ("tan", tan_f32, tan_f64, nan, nan),
        ("atan", atan_f32, atan_f64, 0.0, 0.0),
        ("atan", atan_f32, atan_f64, -0.0, -0.0),
        ("atan", atan_f32, atan_f64, inf, pio2),
        ("atan", atan_f32, atan_f64, -inf, -pio2),
        ("atan", atan_f32, atan_f64, nan, nan),
        ("asin", asin_f32, asin_f64, 0.0, 0.0),
        ("asin", asin_f32, asin_f64, -0.0, -0.0),
        ("asin", asin_f32, asin_f64, 1.0, pio2),
        ("asin", asin_f32, asin_f64, -1.0, -pio2),
        ("asin", asin_f32, asin_f64, 1.5, nan),
        ("asin", asin_f32, asin_f64, -inf, nan),
        ("asin", asin_f32, asin_f64, nan, nan),
        ("acos", acos_f32, acos_f64, 1.0, 0.0),
        ("acos", acos_f32, acos_f64, -1.0, pi),
        ("acos", acos_f32, acos_f64, 0.0, pio2),
        ("acos", acos_f32, acos_f64, 1.5, nan),
        ("acos", acos_f32, acos_f64, inf, nan),
        ("acos", acos_f32, acos_f64, nan, nan),
        ("rsqrt", rsqrt_f32, rsqrt_f64, 0.0, inf),
        ("rsqrt", rsqrt_f32, rsqrt_f64, -0.0, -inf),
        ("rsqrt", rsqrt_f32, rsqrt_f64, inf, 0.0),
        ("rsqrt", rsqrt_f32, rsqrt_f64, -1.0, nan),
        ("rsqrt", rsqrt_f32, rsqrt_f64, 4.0, 0.5),
        ("sqrt", sqrt_f32, sqrt_f64, -0.0, -0.0),
        ("sqrt", sqrt_f32, sqrt_f64, -1.0, nan),
        ("sqrt", sqrt_f32, sqrt_f64, inf, inf),
    ];
    for &(n, f, g, x, want) in c32 {
        let got = s32(f, x);
        assert!(same32(got, want), "{n}_f32({x}) = {got}, want {want}");
        let want64 = match (n, want) {
            ("atan", w) if w.abs() == pio2 => std::f64::consts::FRAC_PI_2.copysign(w as f64),
            ("asin", w) if w.abs() == pio2 => std::f64::consts::FRAC_PI_2.copysign(w as f64),
            ("acos", w) if w == pio2 => std::f64::consts::FRAC_PI_2,
            ("acos", w) if w == pi => std::f64::consts::PI,
            ("exp2", w) if x == -149.0 => (w as f64).max(exact_pow2(-149)),
            _ => want as f64,
        };
        let got64 = s64(g, x as f64);
        assert!(
            same64(got64, want64),
            "{n}_f64({x}) = {got64}, want {want64}"
        );
    }
    // Overflow thresholds and subnormal results.
    assert_eq!(s32(exp2_f32, 128.0), inf);
    let g = s32(exp2_f32, 127.99);
    assert!(err_f32(g, (127.99f32 as f64).exp2()) <= 0.5 + LIBM_ULP_IN_F32);
    assert_eq!(s64(exp2_f64, 1024.0), f64::INFINITY);
    assert_eq!(s64(exp2_f64, -1074.0), 5e-324);
    assert_eq!(s64(exp2_f64, -1075.5), 0.0);
    // Every finite f32 huge argument reduces correctly.
    for &x in &[f32::MAX, -f32::MAX, 1e30, 3.0e38, 524288.0, 524287.9] {
        for (f, r) in [
            (sin_f32 as fn(f32x8) -> f32x8, f64::sin as fn(f64) -> f64),
            (cos_f32, f64::cos),
            (tan_f32, f64::tan),
        ] {
            let g = s32(f, x);
            assert!(err_f32(g, r(x as f64)) <= 0.5 + 1e-6, "trig({x}) = {g}");
        }
    }
}
