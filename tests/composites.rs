//! The composite rows of the op table against their hand-written compositions (bit for
//! bit: the same nodes in the same order) and against formulas computed here: layer_norm,
//! rms_norm, l2_normalize, quantize_linear / dequantize_linear (ONNX's formulas, bit for
//! bit), and the variadic max/min/add/sum_of/mean_of.
#![allow(deprecated)]

mod common;
use common::*;
use tensorgraph::prelude::*;

graph! {
    fn ln_op(x: f32[B, 3, 37], g: f32[3, 37], b: f32[3, 37]) -> (f32[B, 3, 37], f32[B, 3, 37]) {
        (layer_norm(x, g, b, axis = 1), layer_norm(x, g, b, axis = -2, eps = 0.5))
    }
    fn ln_hand(x: f32[B, 3, 37], g: f32[3, 37], b: f32[3, 37]) -> (f32[B, 3, 37], f32[B, 3, 37]) {
        let mu = mean(x, axis = [1, 2], keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = [1, 2], keepdims = true);
        (d / sqrt(var + 1e-5) * g + b, d / sqrt(var + 0.5) * g + b)
    }
    fn ln_last(x: f32[B, 37], g: f32[37], b: f32[37]) -> f32[B, 37] { layer_norm(x, g, b) }
    fn ln_last_hand(x: f32[B, 37], g: f32[37], b: f32[37]) -> f32[B, 37] {
        let mu = mean(x, axis = -1, keepdims = true);
        let d = x - mu;
        d / sqrt(mean(d * d, axis = -1, keepdims = true) + 1e-5) * g + b
    }
    fn ln_half(x: f16[B, 37], g: f16[37], b: f16[37]) -> f16[B, 37] { layer_norm(x, g, b) }
    fn ln_half_hand(x: f16[B, 37], g: f16[37], b: f16[37]) -> f16[B, 37] {
        let xf = x as f32;
        let mu = mean(xf, axis = -1, keepdims = true);
        let d = xf - mu;
        (d / sqrt(mean(d * d, axis = -1, keepdims = true) + 1e-5) * (g as f32) + (b as f32)) as f16
    }
    fn rms_op(x: f64[B, 37], g: f64[37], e: f64) -> (f64[B, 37], f64[B, 37]) { (rms_norm(x, g), rms_norm(x, g, eps = e)) }
    fn rms_hand(x: f64[B, 37], g: f64[37], e: f64) -> (f64[B, 37], f64[B, 37]) {
        let ms = mean(x * x, axis = -1, keepdims = true);
        (x / sqrt(ms + 1e-6) * g, x / sqrt(ms + e) * g)
    }
    fn l2_op(x: f32[5, N]) -> (f32[5, N], f32[5, N]) { (l2_normalize(x), l2_normalize(x, axis = 0)) }
    fn l2_hand(x: f32[5, N]) -> (f32[5, N], f32[5, N]) {
        (x / sqrt(sum(x * x, axis = 1, keepdims = true)), x / sqrt(sum(x * x, axis = 0, keepdims = true)))
    }
}

fn same_f32(a: &[f32], b: &[f32], what: &str) {
    assert_close(what, a, b, |i| format!("at {i}"), 0.0);
}

#[test]
fn normalisations_equal_their_hand_written_composition() {
    let g = Tensor::<f32, Shape![3, 37]>::from_vec(
        f32::random(111, 1)
            .iter()
            .map(|v| v.clamp(-3.0, 3.0))
            .collect(),
    )
    .unwrap();
    let b = Tensor::<f32, Shape![3, 37]>::from_vec(
        f32::random(111, 2)
            .iter()
            .map(|v| v.clamp(-3.0, 3.0))
            .collect(),
    )
    .unwrap();
    for rows in [0, 1, 4, 900] {
        let x: Vec<f32> = f32::random(rows * 111, 3)
            .iter()
            .map(|v| v.clamp(-1e3, 1e3))
            .collect();
        let (a1, a2) = ln_op(&x, &g, &b).unwrap();
        let (h1, h2) = ln_hand(&x, &g, &b).unwrap();
        same_f32(a1.as_slice(), h1.as_slice(), "layer_norm axis 1");
        same_f32(a2.as_slice(), h2.as_slice(), "layer_norm eps 0.5");
    }
    let g1 = Tensor::<f32, Shape![37]>::from_vec(f32::random(37, 4)).unwrap();
    let b1 = Tensor::<f32, Shape![37]>::from_vec(f32::random(37, 5)).unwrap();
    let x: Vec<f32> = f32::random(7 * 37, 6)
        .iter()
        .map(|v| v.clamp(-50.0, 50.0))
        .collect();
    same_f32(
        ln_last(&x, &g1, &b1).unwrap().as_slice(),
        ln_last_hand(&x, &g1, &b1).unwrap().as_slice(),
        "layer_norm",
    );
    // Against f64 math: mean 0 and variance 1 before the affine part.
    let ones = Tensor::<f32, Shape![37]>::full(1.0);
    let zeros = Tensor::<f32, Shape![37]>::zeros();
    let y = ln_last(&x, &ones, &zeros).unwrap();
    for r in 0..7 {
        let row = &y.as_slice()[r * 37..(r + 1) * 37];
        let m: f64 = row.iter().map(|&v| v as f64).sum::<f64>() / 37.0;
        let v: f64 = row.iter().map(|&v| (v as f64 - m).powi(2)).sum::<f64>() / 37.0;
        assert!(
            m.abs() < 1e-5 && (v - 1.0).abs() < 1e-3,
            "row {r}: mean {m}, var {v}"
        );
    }
    let xh: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
    let gh = Tensor::<f16, Shape![37]>::from_vec(
        g1.as_slice().iter().map(|&v| f16::from_f32(v)).collect(),
    )
    .unwrap();
    let bh = Tensor::<f16, Shape![37]>::from_vec(
        b1.as_slice().iter().map(|&v| f16::from_f32(v)).collect(),
    )
    .unwrap();
    let a = ln_half(&xh, &gh, &bh).unwrap();
    let h = ln_half_hand(&xh, &gh, &bh).unwrap();
    assert_close(
        "layer_norm f16",
        a.as_slice(),
        h.as_slice(),
        |i| format!("at {i}"),
        0.0,
    );

    let x = f64::random(6 * 37, 7);
    let g = Tensor::<f64, Shape![37]>::from_vec(f64::random(37, 8)).unwrap();
    let (a1, a2) = rms_op(&x, &g, 0.25).unwrap();
    let (h1, h2) = rms_hand(&x, &g, 0.25).unwrap();
    assert_close(
        "rms_norm",
        a1.as_slice(),
        h1.as_slice(),
        |i| format!("at {i}"),
        0.0,
    );
    assert_close(
        "rms_norm eps",
        a2.as_slice(),
        h2.as_slice(),
        |i| format!("at {i}"),
        0.0,
    );

    for n in [1, 9, 300] {
        let x = f32::random(5 * n, 9);
        let (a1, a2) = l2_op(&x).unwrap();
        let (h1, h2) = l2_hand(&x).unwrap();
        same_f32(a1.as_slice(), h1.as_slice(), "l2_normalize");
        same_f32(a2.as_slice(), h2.as_slice(), "l2_normalize axis 0");
    }
    // A zero vector: 0/0, as ONNX's reference.
    let (z, _) = l2_op(&[0.0f32; 5][..]).unwrap();
    assert!(z.as_slice().iter().all(|v| v.is_nan()));
}

graph! {
    fn quant(x: f32[N, 3], scale: f32[3], zp: u8[3]) -> u8[N, 3] { quantize_linear(x, scale, zp) }
    fn quant_i8(x: f16[N], scale: f32, zp: i8) -> i8[N] { quantize_linear(x, scale, zp) }
    fn dequant(q: u8[N, 3], scale: f32[3], zp: u8[3]) -> f32[N, 3] { dequantize_linear(q, scale, zp) }
    fn dequant_i32(q: i32[N], scale: f64, zp: i32) -> f64[N] { dequantize_linear(q, scale, zp) }
    fn dequant_bf16(q: i16[N], scale: bf16, zp: i16) -> bf16[N] { dequantize_linear(q, scale, zp) }
    /// The quantized-inference prologue: dequantize, compute, quantize again.
    fn requant(q: i8[N], s: f32, zp: i8) -> i8[N] { quantize_linear(relu(dequantize_linear(q, s, zp)) * 2.0, s, zp) }
}

#[test]
fn quantization_is_onnx_bit_for_bit() {
    let x: Vec<f32> = vec![
        0.0,
        0.5,
        1.5,
        2.5,
        -0.5,
        -1.5,
        1e9,
        -1e9,
        f32::NAN,
        254.49,
        254.5,
        255.5,
        3.0,
        -3.0,
        127.0,
    ];
    let scale = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, 0.5, 2.0]).unwrap();
    let zp = Tensor::<u8, Shape![3]>::from_vec(vec![0, 128, 10]).unwrap();
    let q = quant(&x, &scale, &zp).unwrap();
    for (i, &v) in x.iter().enumerate() {
        let (s, z) = (scale[[i % 3]], zp[[i % 3]] as f32);
        // ONNX: saturate(round_half_to_even(x / scale) + zero_point); NaN → 0 here.
        let want = ((v / s).round_ties_even() + z).clamp(0.0, 255.0);
        let want = if want.is_nan() { 0 } else { want as u8 };
        assert_eq!(
            q.as_slice()[i],
            want,
            "quantize_linear({v}) with scale {s}, zero point {z}"
        );
    }
    let xh: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
    let qi = quant_i8(&xh, 0.25, -3).unwrap();
    for (i, &v) in xh.iter().enumerate() {
        let w = ((v.to_f32() / 0.25).round_ties_even() - 3.0).clamp(-128.0, 127.0);
        assert_eq!(
            qi.as_slice()[i],
            if w.is_nan() { 0 } else { w as i8 },
            "quantize_linear f16 {v}"
        );
    }
    let qs: Vec<u8> = (0..=255)
        .collect::<Vec<u8>>()
        .into_iter()
        .flat_map(|v| [v, v, v])
        .collect();
    let d = dequant(&qs, &scale, &zp).unwrap();
    for (i, &v) in qs.iter().enumerate() {
        let want = (v as i64 - zp[[i % 3]] as i64) as f32 * scale[[i % 3]];
        assert_eq!(d.as_slice()[i].to_bits(), want.to_bits());
    }
    let qi32 = vec![i32::MIN, -1, 0, 1, i32::MAX];
    let d = dequant_i32(&qi32, 0.5, i32::MAX).unwrap();
    for (i, &v) in qi32.iter().enumerate() {
        assert_eq!(
            d.as_slice()[i],
            (v as i64 - i32::MAX as i64) as f64 * 0.5,
            "no i32 overflow in q - zero_point"
        );
    }
    let qb = vec![i16::MIN, -7, 0, 300, i16::MAX];
    let d = dequant_bf16(&qb, bf16::from_f32(0.1), 5).unwrap();
    for (i, &v) in qb.iter().enumerate() {
        let want = bf16::from_f32((v as i64 - 5) as f32 * bf16::from_f32(0.1).to_f32());
        assert_eq!(d.as_slice()[i], want);
    }
    let q8: Vec<i8> = (i8::MIN..=i8::MAX).collect();
    let r = requant(&q8, 0.5, 4).unwrap();
    for (i, &v) in q8.iter().enumerate() {
        let deq = ((v as i64 - 4) as f32 * 0.5).max(0.0) * 2.0;
        let w = ((deq / 0.5).round_ties_even() + 4.0).clamp(-128.0, 127.0) as i8;
        assert_eq!(r.as_slice()[i], w);
    }
}

graph! {
    fn variadic(a: f32[N], b: f32[N], c: f32[1], d: f32[N]) -> (f32[N], f32[N], f32[N], f32[N], f32[N]) {
        (max(a, b, c, d), min(a, b, c), add(a, b, c, d), sum_of(a, b), mean_of(a, b, c))
    }
    fn variadic_int(a: i32[4], b: i32[4], c: i32[4]) -> (i32[4], i32[4]) { (max(a, b, c), add(a, b, c)) }
}

#[test]
fn variadic_ops_fold_left() {
    let a = f32::random(41, 1);
    let mut b = f32::random(41, 2);
    b[3] = f32::NAN;
    let c = [0.25f32];
    let d = f32::random(41, 3);
    let (mx, mn, ad, s2, me) = variadic(&a, &b, &c[..], &d).unwrap();
    let fmax = |p: f32, q: f32| {
        if p.is_nan() || q.is_nan() {
            f32::NAN
        } else {
            p.max(q)
        }
    };
    let fmin = |p: f32, q: f32| {
        if p.is_nan() || q.is_nan() {
            f32::NAN
        } else {
            p.min(q)
        }
    };
    for i in 0..41 {
        let same = |got: f32, want: f32, what: &str| {
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{what} at {i}: {got} vs {want}"
            )
        };
        same(mx[[i]], fmax(fmax(fmax(a[i], b[i]), c[0]), d[i]), "max");
        same(mn[[i]], fmin(fmin(a[i], b[i]), c[0]), "min");
        same(ad[[i]], ((a[i] + b[i]) + c[0]) + d[i], "add");
        same(s2[[i]], a[i] + b[i], "sum_of");
        same(me[[i]], ((a[i] + b[i]) + c[0]) / 3.0, "mean_of");
    }
    let t = |v: [i32; 4]| Tensor::<i32, Shape![4]>::from_vec(v.to_vec()).unwrap();
    let (m, s) = variadic_int(
        &t([1, i32::MAX, -5, 0]),
        &t([2, 1, -7, 0]),
        &t([0, 1, 9, -1]),
    );
    assert_eq!(m.as_slice(), &[2, i32::MAX, 9, 0]);
    assert_eq!(s.as_slice(), &[3, i32::MAX.wrapping_add(2), -3, -1]);
}

/// `quantize_linear` and `dequantize_linear` for every target dtype (u8 i8 u16 i16) with
/// f32, f16 and bf16 scales, bit for bit against the formula computed here: x / scale in
/// f32 (the compute dtype of all three), round half to even, + zero point, saturated to
/// the target (NaN → 0); `(q - zero_point)` exact, times the scale in f32, rounded once into
/// the scale's dtype. A per-tensor (scalar) scale and a per-axis one (`[3]`, broadcast over
/// rows), over 3·N elements with N = 1..40 (every SIMD tail length).
macro_rules! quantization_grid {
    ($($test:ident: $q:ident, $f:ident, $from:expr, $to:expr;)*) => {$(
        #[test]
        fn $test() {
            graph! {
                fn q_scalar(x: $f[N], s: $f, z: $q) -> $q[N] { quantize_linear(x, s, z) }
                fn q_axis(x: $f[N, 3], s: $f[3], z: $q[3]) -> $q[N, 3] { quantize_linear(x, s, z) }
                fn d_scalar(q: $q[N], s: $f, z: $q) -> $f[N] { dequantize_linear(q, s, z) }
                fn d_axis(q: $q[N, 3], s: $f[3], z: $q[3]) -> $f[N, 3] { dequantize_linear(q, s, z) }
            }
            let from: fn(f32) -> $f = $from;
            let to: fn($f) -> f32 = $to;
            let (lo, hi) = (<$q>::MIN as f32, <$q>::MAX as f32);
            let quant = |x: $f, s: $f, z: $q| -> $q {
                let v = ((to(x) / to(s)).round_ties_even() + z as f32).clamp(lo, hi);
                if v.is_nan() { 0 } else { v as $q }
            };
            let deq = |q: $q, s: $f, z: $q| -> $f { from((q as i64 - z as i64) as f32 * to(s)) };
            // Ties, both saturation edges and their neighbours, ±0, ±inf, NaN, then spread values.
            let mut xs: Vec<f32> = vec![0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.0, f32::NAN,
                f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30];
            for edge in [lo, hi] {
                for d in [-1.5f32, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 1.5] {
                    xs.push(edge * 0.5 + d);
                    xs.push(edge + d);
                }
            }
            let mut rng = tensor_core::testing::Rng::new(0x9e37_79b9_7f4a_7c15);
            while xs.len() < 120 {
                xs.push((rng.unit() * 2.4 - 1.2) as f32 * hi);
            }
            let xs: Vec<$f> = xs.into_iter().map(from).collect();
            let scales = [from(1.0), from(0.5), from(0.037), from(3.0)];
            let zps: [$q; 3] = [0 as $q, (<$q>::MAX / 2) as $q, (lo / 4.0) as $q];
            for n in 1..=40 {
                let x = &xs[..n];
                for (&sv, &zv) in scales.iter().zip(zps.iter().cycle()) {
                    let got = q_scalar(x, sv, zv).unwrap();
                    for (i, &v) in x.iter().enumerate() {
                        assert_eq!(got.as_slice()[i], quant(v, sv, zv), "quantize_linear({}, {}, {zv})", to(v), to(sv));
                    }
                    let qs: Vec<$q> = got.as_slice().to_vec();
                    let d = d_scalar(&qs[..], sv, zv).unwrap();
                    for (i, &q) in qs.iter().enumerate() {
                        assert_eq!(to(d.as_slice()[i]).to_bits(), to(deq(q, sv, zv)).to_bits(), "dequantize_linear({q}, {}, {zv})", to(sv));
                    }
                }
                let x3 = &xs[..3 * n];
                let sa = Tensor::<$f, Shape![3]>::from_vec(vec![scales[1], scales[2], scales[3]]).unwrap();
                let za = Tensor::<$q, Shape![3]>::from_vec(zps.to_vec()).unwrap();
                let got = q_axis(x3, &sa, &za).unwrap();
                for (i, &v) in x3.iter().enumerate() {
                    assert_eq!(got.as_slice()[i], quant(v, sa[[i % 3]], za[[i % 3]]), "per-axis quantize_linear({})", to(v));
                }
                let qs: Vec<$q> = got.as_slice().to_vec();
                let d = d_axis(&qs[..], &sa, &za).unwrap();
                for (i, &q) in qs.iter().enumerate() {
                    assert_eq!(to(d.as_slice()[i]).to_bits(), to(deq(q, sa[[i % 3]], za[[i % 3]])).to_bits(), "per-axis dequantize_linear({q})");
                }
            }
        }
    )*};
}
quantization_grid! {
    quantize_u8_f32: u8, f32, |v| v, |v| v;
    quantize_i8_f32: i8, f32, |v| v, |v| v;
    quantize_u16_f32: u16, f32, |v| v, |v| v;
    quantize_i16_f32: i16, f32, |v| v, |v| v;
    quantize_u8_f16: u8, f16, f16::from_f32, f16::to_f32;
    quantize_i8_f16: i8, f16, f16::from_f32, f16::to_f32;
    quantize_u16_f16: u16, f16, f16::from_f32, f16::to_f32;
    quantize_i16_f16: i16, f16, f16::from_f32, f16::to_f32;
    quantize_u8_bf16: u8, bf16, bf16::from_f32, bf16::to_f32;
    quantize_i8_bf16: i8, bf16, bf16::from_f32, bf16::to_f32;
    quantize_u16_bf16: u16, bf16, bf16::from_f32, bf16::to_f32;
    quantize_i16_bf16: i16, bf16, bf16::from_f32, bf16::to_f32;
}

/// layer_norm, rms_norm and l2_normalize for the dtypes the tests above leave out (f64
/// layer_norm and l2_normalize, f32 rms_norm, every one for bf16, rms_norm and l2_normalize
/// for f16), bit for bit against the hand-written composition: in the dtype itself for
/// f32/f64, in f32 and rounded once for f16/bf16 (the compute dtype, as documented).
macro_rules! normalisation_grid {
    (@hand full, $t:ident) => {
        graph! {
            fn hand(x: $t[B, 37], g: $t[37], b: $t[37]) -> ($t[B, 37], $t[B, 37], $t[B, 37]) {
                let mu = mean(x, axis = -1, keepdims = true);
                let d = x - mu;
                let ln = d / sqrt(mean(d * d, axis = -1, keepdims = true) + 1e-5) * g + b;
                let rms = x / sqrt(mean(x * x, axis = -1, keepdims = true) + 0.25) * g;
                (ln, rms, x / sqrt(sum(x * x, axis = -1, keepdims = true)))
            }
        }
    };
    (@hand half, $t:ident) => {
        graph! {
            fn hand(x: $t[B, 37], g: $t[37], b: $t[37]) -> ($t[B, 37], $t[B, 37], $t[B, 37]) {
                let xf = x as f32;
                let mu = mean(xf, axis = -1, keepdims = true);
                let d = xf - mu;
                let ln = d / sqrt(mean(d * d, axis = -1, keepdims = true) + 1e-5) * (g as f32) + (b as f32);
                let rms = xf / sqrt(mean(xf * xf, axis = -1, keepdims = true) + 0.25) * (g as f32);
                let l2 = xf / sqrt(sum(xf * xf, axis = -1, keepdims = true));
                (ln as $t, rms as $t, l2 as $t)
            }
        }
    };
    ($($test:ident: $t:ident, $kind:ident;)*) => {$(
        #[test]
        fn $test() {
            graph! {
                fn ops(x: $t[B, 37], g: $t[37], b: $t[37]) -> ($t[B, 37], $t[B, 37], $t[B, 37]) {
                    (layer_norm(x, g, b), rms_norm(x, g, eps = 0.25), l2_normalize(x))
                }
            }
            normalisation_grid!(@hand $kind, $t);
            let g = Tensor::<$t, Shape![37]>::from_vec(<$t>::random(37, 11)).unwrap();
            let b = Tensor::<$t, Shape![37]>::from_vec(<$t>::random(37, 12)).unwrap();
            for rows in [0usize, 1, 3, 70] {
                let x = Tensor::<$t, Shape![_, 37]>::from_shape_vec([rows, 37], <$t>::random(rows * 37, 13)).unwrap();
                let (a1, a2, a3) = ops(&x, &g, &b).unwrap();
                let (h1, h2, h3) = hand(&x, &g, &b).unwrap();
                for (what, a, h) in [("layer_norm", &a1, &h1), ("rms_norm", &a2, &h2), ("l2_normalize", &a3, &h3)] {
                    for (i, (&u, &v)) in a.as_slice().iter().zip(h.as_slice()).enumerate() {
                        assert!(<$t as TestElem>::same(u, v), "{what} {} rows = {rows}, at {i}: {u:?} vs {v:?}", stringify!($t));
                    }
                }
            }
        }
    )*};
}
normalisation_grid! {
    normalisations_f64: f64, full;
    normalisations_f32: f32, full;
    normalisations_f16: f16, half;
    normalisations_bf16: bf16, half;
}
