//! The rows of the wider operator table added so far, every dtype they accept, against the
//! scalar reference semantics (`reference::Activation`, `Num::ceil/square/sign`,
//! `BitCount`) on edge values and random values over lengths with SIMD tails, and spot
//! values from the ONNX definitions computed here in f64. Named parameters as literals, as
//! scalar parameters and as defaults; `clip`/`prelu` with literal, scalar and tensor bounds.
#![allow(deprecated)]

mod common;
use common::*;
use tensorgraph::prelude::*;
use tensorgraph::reference::{Activation, BitCount, Num};
use tensorgraph::Element;

/// 21 edge values then 16 random ones: 37 elements, four chunks and a tail.
fn inputs<T: TestElem>(seed: u64) -> Vec<T> {
    let mut v = T::edge_values();
    v.extend(T::random(16, seed));
    v
}

fn expect<T: TestElem>(x: &[T], f: impl Fn(T::Compute) -> T::Compute) -> Vec<T> {
    x.iter()
        .map(|&v| T::from_compute(f(v.to_compute())))
        .collect()
}

macro_rules! float_ops {
    ($($test:ident: $t:ident, $ulps:expr;)*) => {$(
        #[test]
        fn $test() {
            type C = <$t as Element>::Compute;
            let x = inputs::<$t>(7);
            let t = Tensor::<$t, Shape![_]>::from_vec(x.clone()).unwrap();
            let show = |i: usize| format!("x = {:?}", x[i]);
            // A parameter literal takes the tensor's dtype, as the checker rounds it.
            let half = |v: f64| <$t as TestFloat>::from_f64_rounded(v).to_compute();

            let (ceil_, square_, sign_, recip, softsign, hswish) = graph!(|x: $t[N]| (ceil(x), square(x), sign(x), reciprocal(x), softsign(x), hard_swish(x)))(&t).unwrap();
            assert_close("ceil", ceil_.as_slice(), &expect(&x, <C as Num>::ceil), show, 0.0);
            assert_close("square", square_.as_slice(), &expect(&x, <C as Num>::square), show, 0.0);
            assert_close("sign", sign_.as_slice(), &expect(&x, <C as Num>::sign), show, 0.0);
            assert_close("reciprocal", recip.as_slice(), &expect(&x, <C as Activation>::reciprocal), show, 0.0);
            assert_close("softsign", softsign.as_slice(), &expect(&x, <C as Activation>::softsign), show, 0.0);
            assert_close("hard_swish", hswish.as_slice(), &expect(&x, <C as Activation>::hard_swish), show, 0.0);

            // Defaults.
            let (lr, tr, hs, sh) = graph!(|x: $t[N]| (leaky_relu(x), thresholded_relu(x), hard_sigmoid(x), shrink(x)))(&t).unwrap();
            assert_close("leaky_relu", lr.as_slice(), &expect(&x, |v| <C as Activation>::leaky_relu(v, half(0.01))), show, 0.0);
            assert_close("thresholded_relu", tr.as_slice(), &expect(&x, |v| <C as Activation>::thresholded_relu(v, half(1.0))), show, 0.0);
            assert_close("hard_sigmoid", hs.as_slice(), &expect(&x, |v| <C as Activation>::hard_sigmoid(v, half(0.2), half(0.5))), show, 0.0);
            assert_close("shrink", sh.as_slice(), &expect(&x, |v| <C as Activation>::shrink(v, half(0.5), half(0.0))), show, 0.0);
            // Literals and scalar parameters.
            let a = <$t as TestFloat>::from_f64_rounded(0.25);
            let (lr, sh, hs) = graph!(|x: $t[N], a: $t| (leaky_relu(x, alpha = a), shrink(x, lambd = 1.5, bias = a), hard_sigmoid(x, beta = 0.75, alpha = a)))(&t, a).unwrap();
            let a = half(0.25);
            assert_close("leaky_relu(alpha = a)", lr.as_slice(), &expect(&x, |v| <C as Activation>::leaky_relu(v, a)), show, 0.0);
            assert_close("shrink(1.5, a)", sh.as_slice(), &expect(&x, |v| <C as Activation>::shrink(v, half(1.5), a)), show, 0.0);
            assert_close("hard_sigmoid(a, 0.75)", hs.as_slice(), &expect(&x, |v| <C as Activation>::hard_sigmoid(v, a, half(0.75))), show, 0.0);

            // The expm1 / sigmoid family, within its bound.
            let (elu_, celu_, selu_, swish_, elu2, swish2) = graph!(|x: $t[N]| (elu(x), celu(x, alpha = 2.0), selu(x), swish(x), elu(x, alpha = 0.5), swish(x, alpha = 1.702)))(&t).unwrap();
            let ulps = $ulps;
            assert_close("elu", elu_.as_slice(), &expect(&x, |v| <C as Activation>::elu(v, half(1.0))), show, ulps);
            assert_close("celu", celu_.as_slice(), &expect(&x, |v| <C as Activation>::celu(v, half(2.0))), show, ulps);
            let (sa, sg) = (half(1.67326319217681884765625), half(1.05070102214813232421875));
            assert_close("selu", selu_.as_slice(), &expect(&x, |v| <C as Activation>::selu(v, sa, sg)), show, ulps);
            assert_close("swish", swish_.as_slice(), &expect(&x, |v| <C as Activation>::swish(v, half(1.0))), show, ulps);
            assert_close("elu(0.5)", elu2.as_slice(), &expect(&x, |v| <C as Activation>::elu(v, half(0.5))), show, ulps);
            assert_close("swish(1.702)", swish2.as_slice(), &expect(&x, |v| <C as Activation>::swish(v, half(1.702))), show, ulps);

            let fin = graph!(|x: $t[N]| is_finite(x))(&t).unwrap();
            for (i, &v) in x.iter().enumerate() {
                let v = v.to_compute();
                assert_eq!(fin.as_slice()[i], !(v != v) && v.abs() != <C as From<f32>>::from(f32::INFINITY), "is_finite {v:?}");
            }
        }
    )*};
}

float_ops! {
    ops_f32: f32, 1.0;
    ops_f64: f64, 3.0;
    ops_f16: f16, 1.0;
    ops_bf16: bf16, 1.0;
}

/// Spot values from the ONNX definitions, computed here in f64 (not by the reference).
#[test]
fn onnx_spot_values() {
    let x = vec![-3.0f64, -1.0, -0.25, 0.0, 0.3, 2.0, 7.0];
    let t = Tensor::<f64, Shape![_]>::from_vec(x.clone()).unwrap();
    let (lr, hsig, hsw, sh, elu_, selu_) = graph!(|x: f64[N]| (leaky_relu(x, alpha = 0.1), hard_sigmoid(x), hard_swish(x), shrink(x, lambd = 0.5, bias = 0.25), elu(x), selu(x)))(&t).unwrap();
    for (i, &v) in x.iter().enumerate() {
        let close = |got: f64, want: f64, what: &str| {
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(1e-300),
                "{what}({v}) = {got}, ONNX {want}"
            )
        };
        close(lr[[i]], if v < 0.0 { 0.1 * v } else { v }, "leaky_relu");
        close(hsig[[i]], (0.2 * v + 0.5).clamp(0.0, 1.0), "hard_sigmoid");
        close(hsw[[i]], v * (v / 6.0 + 0.5).clamp(0.0, 1.0), "hard_swish");
        close(
            sh[[i]],
            if v < -0.5 {
                v + 0.25
            } else if v > 0.5 {
                v - 0.25
            } else {
                0.0
            },
            "shrink",
        );
        close(elu_[[i]], if v > 0.0 { v } else { v.exp() - 1.0 }, "elu");
        let (a, g) = (1.67326319217681884765625, 1.05070102214813232421875);
        close(
            selu_[[i]],
            if v > 0.0 {
                g * v
            } else {
                g * (a * v.exp() - a)
            },
            "selu",
        );
    }
}

macro_rules! int_ops {
    ($($test:ident: $t:ident;)*) => {$(
        #[test]
        fn $test() {
            type C = <$t as Element>::Compute;
            let x = inputs::<$t>(9);
            let y = <$t>::random(37, 10);
            let t = Tensor::<$t, Shape![_]>::from_vec(x.clone()).unwrap();
            let u = Tensor::<$t, Shape![_]>::from_vec(y.clone()).unwrap();
            let show = |i: usize| format!("x = {:?}", x[i]);
            let (ceil_, square_, sign_, count) = graph!(|x: $t[N]| (ceil(x), square(x), sign(x), bitwise_count(x)))(&t).unwrap();
            assert_close("ceil", ceil_.as_slice(), &expect(&x, <C as Num>::ceil), show, 0.0);
            assert_close("square", square_.as_slice(), &expect(&x, <C as Num>::square), show, 0.0);
            assert_close("sign", sign_.as_slice(), &expect(&x, <C as Num>::sign), show, 0.0);
            let expected: Vec<u8> = x.iter().map(|&v| <$t as BitCount>::bitwise_count(v)).collect();
            assert_eq!(count.as_slice(), &expected[..]);
            // NumPy: the ones of |x|, independent of the reference.
            for (i, &v) in x.iter().enumerate() {
                assert_eq!(count[[i]] as u32, (v as i128).unsigned_abs().count_ones(), "bitwise_count({v})");
            }
            let (and_, or_, xor_, not_, shl, shr) = graph!(|x: $t[N], y: $t[N]| (bitwise_and(x, y), bitwise_or(x, y), bitwise_xor(x, y), bitwise_not(x), shift_left(x, y % 8), shift_right(x, y % 8)))(&t, &u).unwrap();
            let (and2, or2, xor2, not2, shl2, shr2) = graph!(|x: $t[N], y: $t[N]| (x & y, x | y, x ^ y, !x, x << y % 8, x >> y % 8))(&t, &u).unwrap();
            assert_eq!(and_.as_slice(), and2.as_slice());
            assert_eq!(or_.as_slice(), or2.as_slice());
            assert_eq!(xor_.as_slice(), xor2.as_slice());
            assert_eq!(not_.as_slice(), not2.as_slice());
            assert_eq!(shl.as_slice(), shl2.as_slice());
            assert_eq!(shr.as_slice(), shr2.as_slice());
        }
    )*};
}

int_ops! {
    ints_u8: u8; ints_u16: u16; ints_u32: u32; ints_u64: u64;
    ints_i8: i8; ints_i16: i16; ints_i32: i32; ints_i64: i64;
}

#[test]
fn logical_ops_on_bool() {
    let a = bool::random(37, 3);
    let b = bool::random(37, 4);
    let (x, n, an, o) = graph!(|a: bool[37], b: bool[37]| (logical_xor(a, b), logical_not(a), logical_and(a, b), logical_or(a, b)))(
        &Tensor::from_vec(a.clone()).unwrap(),
        &Tensor::from_vec(b.clone()).unwrap(),
    );
    for i in 0..37 {
        assert_eq!(x[[i]], a[i] ^ b[i]);
        assert_eq!(n[[i]], !a[i]);
        assert_eq!(an[[i]], a[i] && b[i]);
        assert_eq!(o[[i]], a[i] || b[i]);
    }
}

graph! {
    fn clips(x: f32[B, 5], lo: f32, hi: f32[5]) -> (f32[B, 5], f32[B, 5], f32[B, 5], f32[B, 5]) {
        (clip(x, min = -1.0, max = 1.0), clamp(x, min = lo), clip(x, max = hi), clip(x, min = lo, max = hi))
    }
    fn clip_int(x: i32[7]) -> i32[7] { clip(x, min = -3, max = 100) }
    fn prelus(x: f32[B, 5], slope: f32[5], s: f32) -> (f32[B, 5], f32[B, 5]) {
        (prelu(x, slope), prelu(x, s))
    }
}

#[test]
fn clip_and_prelu_bounds_broadcast() {
    let x: Vec<f32> = inputs::<f32>(11).into_iter().take(35).collect();
    let hi = Tensor::<f32, Shape![5]>::from_vec(vec![0.0, 1.0, f32::INFINITY, -2.0, 3.5]).unwrap();
    let (a, b, c, d) = clips(&x, -0.5, &hi).unwrap();
    // NumPy's clip: min(max(x, lo), hi), NaN stays NaN.
    let max = |p: f32, q: f32| {
        if p.is_nan() || q.is_nan() {
            f32::NAN
        } else {
            p.max(q)
        }
    };
    let min = |p: f32, q: f32| {
        if p.is_nan() || q.is_nan() {
            f32::NAN
        } else {
            p.min(q)
        }
    };
    for (i, &v) in x.iter().enumerate() {
        let h = hi[[i % 5]];
        let same = |got: f32, want: f32, what: &str| {
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "{what}({v}) = {got}, want {want}"
            )
        };
        same(a.as_slice()[i], min(max(v, -1.0), 1.0), "clip");
        same(b.as_slice()[i], max(v, -0.5), "clamp(min)");
        same(c.as_slice()[i], min(v, h), "clip(max)");
        same(d.as_slice()[i], min(max(v, -0.5), h), "clip(min, max)");
    }
    let xi =
        Tensor::<i32, Shape![7]>::from_vec(vec![i32::MIN, -4, -3, 0, 99, 100, i32::MAX]).unwrap();
    assert_eq!(clip_int(&xi).as_slice(), &[-3, -3, -3, 0, 99, 100, 100]);
    let slope = Tensor::<f32, Shape![5]>::from_vec(vec![0.1, 0.2, 0.0, -1.0, 2.0]).unwrap();
    let (p, q) = prelus(&x, &slope, 0.25).unwrap();
    for (i, &v) in x.iter().enumerate() {
        let want = if v < 0.0 { v * slope[[i % 5]] } else { v };
        assert!(
            p.as_slice()[i].to_bits() == want.to_bits()
                || (want.is_nan() && p.as_slice()[i].is_nan())
        );
        let want = if v < 0.0 { v * 0.25 } else { v };
        assert!(
            q.as_slice()[i].to_bits() == want.to_bits()
                || (want.is_nan() && q.as_slice()[i].is_nan())
        );
    }
}

/// New ops fuse with reductions as producers and consumers.
#[test]
fn fused_with_reductions() {
    let x: Vec<f32> = f32::random(3 * 37, 12)
        .iter()
        .map(|v| v.clamp(-20.0, 20.0))
        .collect();
    let y =
        graph!(|x: f32[B, 37]| sum(elu(x) * hard_sigmoid(x), axis = 1, dtype = f64))(&x).unwrap();
    for r in 0..3 {
        let want: f64 = x[r * 37..(r + 1) * 37]
            .iter()
            .map(|&v| {
                let e = <f32 as Activation>::elu(v, 1.0);
                let h = <f32 as Activation>::hard_sigmoid(v, 0.2, 0.5);
                (e * h) as f64
            })
            .sum();
        assert!(
            (y[[r]] - want).abs() <= 1e-12 * want.abs().max(1.0),
            "row {r}"
        );
    }
}
