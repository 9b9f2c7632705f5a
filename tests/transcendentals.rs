//! `asinh acosh atanh erfc cbrt mish gelu_tanh` through `graph!` for every float dtype,
//! against the scalar reference (`reference::Float`) within ACCURACY.md's bounds: edge
//! values, random magnitudes and uniform values over each function's working interval,
//! lengths with SIMD tails; special values (C99 / ONNX, and the limits at infinity) exact.
#![allow(deprecated)]

mod common;
use common::*;
use tensorgraph::prelude::*;
use tensorgraph::reference::Float;
use tensorgraph::Element;

/// Edge values, 16 random magnitudes, 24 uniform in [-1.2, 1.2] and 24 in [-30, 30]: 85
/// elements (ten chunks and a tail), in `T`.
fn inputs<T: TestFloat>(seed: u64) -> Vec<T> {
    let mut v = T::edge_values();
    v.extend(T::random(16, seed));
    let mut s = seed | 1;
    for (n, half) in [(24, 1.2), (24, 30.0)] {
        for _ in 0..n {
            let u = (xorshift(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
            v.push(T::from_f64_rounded((2.0 * u - 1.0) * half));
        }
    }
    for x in [
        1.0, -1.0, 8.0, -8.0, 27.0, 0.5, 2.0, 1.25, 10.0, -12.5, -20.0,
    ] {
        v.push(T::from_f64_rounded(x));
    }
    v
}

fn expect<T: TestElem>(x: &[T], f: impl Fn(T::Compute) -> T::Compute) -> Vec<T> {
    x.iter()
        .map(|&v| T::from_compute(f(v.to_compute())))
        .collect()
}

macro_rules! float_tests {
    ($($test:ident: $t:ident;)*) => {$(
        #[test]
        fn $test() {
            type C = <$t as Element>::Compute;
            let x = inputs::<$t>(11);
            let t = Tensor::<$t, Shape![_]>::from_vec(x.clone()).unwrap();
            let show = |i: usize| format!("x = {:?}", x[i]);
            let (asinh_, acosh_, atanh_, erfc_, cbrt_, mish_, gelu_tanh_) = graph!(|x: $t[N]|
                (asinh(x), acosh(x), atanh(x), erfc(x), cbrt(x), mish(x), gelu_tanh(x)))(&t).unwrap();
            // Each function's bound from the one table (ACCURACY.md); f16/bf16 round the f32
            // lanes' value once: within 1 ULP of their own.
            let bound = |name: &str| match <$t as Element>::DTYPE {
                tensorgraph::DType::F16 | tensorgraph::DType::BF16 => 1.0,
                d => tensorgraph::functions::ulp_bound(name, d == tensorgraph::DType::F64).unwrap(),
            };
            assert_close("asinh", asinh_.as_slice(), &expect(&x, <C as Float>::asinh), show, bound("asinh"));
            assert_close("acosh", acosh_.as_slice(), &expect(&x, <C as Float>::acosh), show, bound("acosh"));
            assert_close("atanh", atanh_.as_slice(), &expect(&x, <C as Float>::atanh), show, bound("atanh"));
            assert_close("erfc", erfc_.as_slice(), &expect(&x, <C as Float>::erfc), show, bound("erfc"));
            assert_close("cbrt", cbrt_.as_slice(), &expect(&x, <C as Float>::cbrt), show, bound("cbrt"));
            assert_close("mish", mish_.as_slice(), &expect(&x, <C as Float>::mish), show, bound("mish"));
            assert_close("gelu_tanh", gelu_tanh_.as_slice(), &expect(&x, <C as Float>::gelu_tanh), show, bound("gelu_tanh"));

            // Special values, exact (C99 Annex F, and the limits at -inf for mish/gelu_tanh).
            let v = |f: f64| <$t as TestFloat>::from_f64_rounded(f);
            let (inf, nan) = (f64::INFINITY, f64::NAN);
            let sx: Vec<$t> = [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, -8.0, 27.0, 2.0]
                .iter().map(|&f| v(f)).collect();
            let st = Tensor::<$t, Shape![_]>::from_vec(sx).unwrap();
            let (a, b, c, d, e, m, g) = graph!(|x: $t[N]|
                (asinh(x), acosh(x), atanh(x), erfc(x), cbrt(x), mish(x), gelu_tanh(x)))(&st).unwrap();
            // `None`: not a special value (checked within the bound above).
            let check = |name: &str, got: &[$t], want: [Option<f64>; 10]| {
                for (i, w) in want.iter().enumerate() {
                    if let Some(w) = *w {
                        assert!(<$t as TestElem>::same(got[i], v(w)), "{name}: special #{i}: {:?}, want {w:e}", got[i]);
                    }
                }
            };
            let n = None;
            check("asinh", a.as_slice(), [Some(0.0), Some(-0.0), Some(inf), Some(-inf), Some(nan), n, n, n, n, n]);
            check("acosh", b.as_slice(), [Some(nan), Some(nan), Some(inf), Some(nan), Some(nan), Some(0.0), Some(nan), Some(nan), n, n]);
            check("atanh", c.as_slice(), [Some(0.0), Some(-0.0), Some(nan), Some(nan), Some(nan), Some(inf), Some(-inf), Some(nan), Some(nan), Some(nan)]);
            check("erfc", d.as_slice(), [Some(1.0), Some(1.0), Some(0.0), Some(2.0), Some(nan), n, n, n, n, n]);
            check("cbrt", e.as_slice(), [Some(0.0), Some(-0.0), Some(inf), Some(-inf), Some(nan), Some(1.0), Some(-1.0), Some(-2.0), Some(3.0), n]);
            check("mish", m.as_slice(), [Some(0.0), Some(-0.0), Some(inf), Some(-0.0), Some(nan), n, n, n, n, n]);
            check("gelu_tanh", g.as_slice(), [Some(0.0), Some(-0.0), Some(inf), Some(-0.0), Some(nan), n, n, n, n, n]);
        }
    )*};
}

float_tests! {
    transcendentals_f32: f32;
    transcendentals_f64: f64;
    transcendentals_f16: f16;
    transcendentals_bf16: bf16;
}

/// Spot values from the definitions, computed here from std's f64 functions (not by the
/// reference), to a loose relative tolerance: the formulas are the ones ONNX states.
#[test]
fn definition_spot_values() {
    let x = vec![-3.0f64, -1.0, -0.25, 0.3, 0.9, 2.0, 7.0];
    let t = Tensor::<f64, Shape![_]>::from_vec(x.clone()).unwrap();
    let (a, b, c, d, e, m, g) =
        graph!(|x: f64[N]|
        (asinh(x), acosh(x), atanh(x), erfc(x), cbrt(x), mish(x), gelu_tanh(x)))(&t)
        .unwrap();
    for (i, &v) in x.iter().enumerate() {
        let close = |got: f64, want: f64, what: &str| {
            assert!(
                got == want
                    || (got - want).abs() <= 1e-13 * want.abs().max(1e-300)
                    || (got.is_nan() && want.is_nan()),
                "{what}({v}) = {got}, definition {want}"
            )
        };
        close(a[[i]], (v + (v * v + 1.0).sqrt()).ln(), "asinh");
        close(
            b[[i]],
            if v < 1.0 {
                f64::NAN
            } else {
                (v + (v * v - 1.0).sqrt()).ln()
            },
            "acosh",
        );
        close(
            c[[i]],
            if v.abs() > 1.0 {
                f64::NAN
            } else {
                0.5 * ((1.0 + v) / (1.0 - v)).ln()
            },
            "atanh",
        );
        close(e[[i]], v.signum() * v.abs().powf(1.0 / 3.0), "cbrt");
        close(m[[i]], v * (v.exp().ln_1p()).tanh(), "mish");
        let u = (2.0 / std::f64::consts::PI).sqrt() * (v + 0.044715 * v * v * v);
        close(g[[i]], 0.5 * v * (1.0 + u.tanh()), "gelu_tanh");
        let _ = d[[i]];
    }
    // erfc against tabulated values (Abramowitz & Stegun 7.1; mpmath)
    for (v, want) in [
        (0.5, 0.4795001221869535),
        (1.0, 0.15729920705028513),
        (2.0, 0.004677734981047266),
        (-1.0, 1.8427007929497148),
    ] {
        let t = Tensor::<f64, Shape![_]>::from_vec(vec![v]).unwrap();
        let got = graph!(|x: f64[N]| erfc(x))(&t).unwrap()[[0]];
        assert!(
            (got - want).abs() <= 1e-15 * want,
            "erfc({v}) = {got}, want {want}"
        );
    }
}
