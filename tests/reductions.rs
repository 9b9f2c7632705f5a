//! Reductions, the softmax family and shape ops against references computed here by
//! index arithmetic (f64 or exact integer math), on rows of 37 (four SIMD chunks and a
//! tail) and 3 (tail only), every axis choice, NaN, and empty axes.
#![allow(deprecated)]

mod common;
use common::*;
use tensorgraph::prelude::*;
use tensorgraph::Element;

/// For each output position (row-major over the kept axes), the input values along the
/// reduced axes in row-major order.
fn groups<T: Copy>(data: &[T], dims: &[usize], axes: &[usize]) -> Vec<Vec<T>> {
    let kept: Vec<usize> = (0..dims.len()).filter(|a| !axes.contains(a)).collect();
    let out_len: usize = kept.iter().map(|&a| dims[a]).product();
    let mut out = vec![Vec::new(); out_len];
    let mut index = vec![0usize; dims.len()];
    for (offset, &v) in data.iter().enumerate() {
        let mut rest = offset;
        for a in (0..dims.len()).rev() {
            index[a] = rest % dims[a];
            rest /= dims[a];
        }
        let mut o = 0;
        for &a in &kept {
            o = o * dims[a] + index[a];
        }
        out[o].push(v);
    }
    out
}

fn f32_data<S: tensorgraph::StaticShape>(seed: u64) -> Tensor<f32, S> {
    Tensor::from_vec(f32::random(S::LEN, seed)).unwrap()
}

fn close_f32(got: &[f32], expected: &[f64], rel: f64, what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        // Relative, except where the exact value is below f32's normal range.
        let ok = (g.is_nan() && e.is_nan())
            || (g as f64 == e)
            || ((g as f64 - e).abs() <= rel * e.abs() + f32::MIN_POSITIVE as f64);
        assert!(ok, "{what} at {i}: got {g}, expected {e}");
    }
}

graph! {
    fn sum_rows(x: f32[5, 37]) -> f32[5] { sum(x, axis = 1) }
    fn sum_cols(x: f32[5, 37]) -> f32[37] { sum(x, axis = 0) }
    fn sum_all(x: f32[5, 37]) -> f32[] { sum(x) }
    fn sum_keep(x: f32[5, 37]) -> f32[5, 1] { sum(x, axis = -1, keepdims = true) }
    fn sum_f32_acc(x: f32[5, 37]) -> f32[5] { sum(x, axis = 1, acc = f32) }
    fn sum_outer_inner(x: f32[3, 4, 37]) -> f32[4] { sum(x, axis = [0, -1]) }
    fn sum_middle(x: f32[3, 4, 37]) -> f32[3, 37] { sum(x, axis = 1) }
}

#[test]
fn float_sums_every_axis_choice() {
    let x = f32_data::<Shape![5, 37]>(1);
    let xs = x.as_slice();
    let sums = |axes: &[usize]| -> Vec<f64> {
        groups(xs, &[5, 37], axes)
            .iter()
            .map(|g| g.iter().map(|&v| v as f64).sum())
            .collect()
    };
    // f64 accumulation: the f32 result is the f64 sum rounded once (up to f64 reassociation).
    close_f32(sum_rows(&x).as_slice(), &sums(&[1]), 1e-7, "sum axis 1");
    close_f32(sum_cols(&x).as_slice(), &sums(&[0]), 1e-7, "sum axis 0");
    close_f32(sum_all(&x).as_slice(), &sums(&[0, 1]), 1e-7, "sum all");
    close_f32(sum_keep(&x).as_slice(), &sums(&[1]), 1e-7, "sum keepdims");
    close_f32(
        sum_f32_acc(&x).as_slice(),
        &sums(&[1]),
        1e-5,
        "sum acc = f32",
    );
    let y = f32_data::<Shape![3, 4, 37]>(2);
    let ys = y.as_slice();
    let sums3 = |axes: &[usize]| -> Vec<f64> {
        groups(ys, &[3, 4, 37], axes)
            .iter()
            .map(|g| g.iter().map(|&v| v as f64).sum())
            .collect()
    };
    close_f32(
        sum_outer_inner(&y).as_slice(),
        &sums3(&[0, 2]),
        1e-7,
        "sum axes [0, 2]",
    );
    close_f32(
        sum_middle(&y).as_slice(),
        &sums3(&[1]),
        1e-7,
        "sum axis 1 of 3",
    );
}

macro_rules! integer_reductions {
    ($($test:ident: $t:ident => $wide:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let x = Tensor::<$t, Shape![4, 37]>::from_vec(<$t>::random(4 * 37, 3)).unwrap();
            let xs = x.as_slice();
            let g1 = groups(xs, &[4, 37], &[1]);
            let g0 = groups(xs, &[4, 37], &[0]);
            let s = graph!(|x: $t[4, 37]| sum(x, axis = 1))(&x);
            let p = graph!(|x: $t[4, 37]| prod(x, axis = 0))(&x);
            let mx = graph!(|x: $t[4, 37]| max(x, axis = 1))(&x);
            let mn = graph!(|x: $t[4, 37]| min(x, axis = 0))(&x);
            let an = graph!(|x: $t[4, 37]| any(x, axis = 1))(&x);
            let al = graph!(|x: $t[4, 37]| all(x))(&x);
            let am = graph!(|x: $t[4, 37]| argmax(x, axis = 1))(&x);
            let ai = graph!(|x: $t[4, 37]| argmin(x))(&x);
            let me = graph!(|x: $t[4, 37]| mean(x, axis = 1))(&x);
            for (i, g) in g1.iter().enumerate() {
                let expected = g.iter().fold(0 as $wide, |a, &v| a.wrapping_add(v as $wide));
                assert_eq!(s.as_slice()[i], expected, "sum row {i}");
                assert_eq!(mx.as_slice()[i], *g.iter().max().unwrap(), "max row {i}");
                assert_eq!(an.as_slice()[i], g.iter().any(|&v| v != 0), "any row {i}");
                let best = g.iter().enumerate().fold(0, |b, (k, &v)| if v > g[b] { k } else { b });
                assert_eq!(am.as_slice()[i], best as i64, "argmax row {i}");
                let mean: f64 = g.iter().map(|&v| v as f64).sum::<f64>() / 37.0;
                assert!((me.as_slice()[i] - mean).abs() <= 1e-12 * mean.abs().max(1.0), "mean row {i}");
            }
            for (j, g) in g0.iter().enumerate() {
                let expected = g.iter().fold(1 as $wide, |a, &v| a.wrapping_mul(v as $wide));
                assert_eq!(p.as_slice()[j], expected, "prod col {j}");
                assert_eq!(mn.as_slice()[j], *g.iter().min().unwrap(), "min col {j}");
            }
            assert_eq!(al.as_slice()[0], xs.iter().all(|&v| v != 0));
            let best = xs.iter().enumerate().fold(0, |b, (k, &v)| if v < xs[b] { k } else { b });
            assert_eq!(ai.as_slice()[0], best as i64, "flattened argmin");
        }
    )*};
}
integer_reductions!(reduce_u8: u8 => u64, reduce_u16: u16 => u64, reduce_u32: u32 => u64, reduce_u64: u64 => u64,
    reduce_i8: i8 => i64, reduce_i16: i16 => i64, reduce_i32: i32 => i64, reduce_i64: i64 => i64);

macro_rules! float_reductions {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            // Edge values (NaN, ±inf, ±0, subnormals, MAX) in rows of 21, plus a clean row.
            let mut data = <$t>::edge_values();
            data.extend(<$t>::random(21, 4));
            let x = Tensor::<$t, Shape![2, 21]>::from_vec(data).unwrap();
            let xs: Vec<f64> = x.as_slice().iter().map(|v| v.to_compute() as f64).collect();
            let rows = groups(&xs, &[2, 21], &[1]);
            let mx = graph!(|x: $t[2, 21]| max(x, axis = 1))(&x);
            let mn = graph!(|x: $t[2, 21]| min(x, axis = -1))(&x);
            let am = graph!(|x: $t[2, 21]| argmax(x, axis = 1))(&x);
            let an = graph!(|x: $t[2, 21]| all(x, axis = 1))(&x);
            let s = graph!(|x: $t[2, 21]| sum(x, axis = 1))(&x);
            // Row 0 holds a NaN: max/min propagate it, argmax points at it (index 0).
            assert!(mx.as_slice()[0].to_compute().is_nan());
            assert!(mn.as_slice()[0].to_compute().is_nan());
            assert_eq!(am.as_slice()[0], 0);
            assert!(!an.as_slice()[0], "row 0 has a zero");
            assert!(s.as_slice()[0].to_compute().is_nan());
            let clean = &rows[1];
            let max = clean.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let min = clean.iter().cloned().fold(f64::INFINITY, f64::min);
            assert_eq!(mx.as_slice()[1].to_compute() as f64, max);
            assert_eq!(mn.as_slice()[1].to_compute() as f64, min);
            let arg = clean.iter().position(|&v| v == max).unwrap();
            assert_eq!(am.as_slice()[1], arg as i64);
            assert!(an.as_slice()[1]);
            let sum: f64 = clean.iter().sum();
            if core::mem::size_of::<$t>() < 8 {
                // Accumulated in f64, rounded once into the dtype (the f64 sum's dependence
                // on the order is far below the dtype's ULP).
                assert_eq!(s.as_slice()[1], <$t as TestFloat>::from_f64_rounded(sum));
            } else {
                // f64: the lanes' accumulators add in another order than this loop, so the
                // reductions' bound (n·eps·Σ|x|) and not the bits (the data of an earlier
                // generator happened to round alike).
                let got = s.as_slice()[1].to_compute() as f64;
                let abs: f64 = clean.iter().map(|v| v.abs()).sum();
                assert!(
                    (got - sum).abs() <= 21.0 * f64::EPSILON * abs,
                    "sum {got:e}, the sequential sum {sum:e}"
                );
            }
        }
    )*};
}
float_reductions!(float_reduce_f16: f16, float_reduce_bf16: bf16, float_reduce_f32: f32, float_reduce_f64: f64);

#[test]
fn bool_reductions_widen_and_count() {
    let b = Tensor::<bool, Shape![3, 9]>::from_vec(bool::random(27, 8)).unwrap();
    let count = graph!(|b: bool[3, 9]| sum(b, axis = 1))(&b);
    let any = graph!(|b: bool[3, 9]| any(b, axis = 0))(&b);
    let all = graph!(|b: bool[3, 9]| all(b, axis = [0, 1], keepdims = true))(&b);
    let arg = graph!(|b: bool[3, 9]| argmax(b, axis = 1))(&b);
    for (i, g) in groups(b.as_slice(), &[3, 9], &[1]).iter().enumerate() {
        assert_eq!(count.as_slice()[i], g.iter().filter(|&&v| v).count() as i64);
        assert_eq!(
            arg.as_slice()[i],
            g.iter().position(|&v| v).unwrap_or(0) as i64
        );
    }
    for (j, g) in groups(b.as_slice(), &[3, 9], &[0]).iter().enumerate() {
        assert_eq!(any.as_slice()[j], g.iter().any(|&v| v));
    }
    assert_eq!(all.shape(), &[1, 1]);
    assert_eq!(all.as_slice()[0], b.as_slice().iter().all(|&v| v));
}

#[test]
fn empty_axes_give_identities() {
    let x = Tensor::<f32, Shape![3, 0]>::zeros();
    let (s, p, m) =
        graph!(|x: f32[3, 0]| (sum(x, axis = 1), prod(x, axis = 1), mean(x, axis = 1)))(&x);
    assert_eq!(s.as_slice(), &[0.0; 3]);
    assert_eq!(p.as_slice(), &[1.0; 3]);
    assert!(
        m.as_slice().iter().all(|v| v.is_nan()),
        "mean of nothing is NaN, as NumPy"
    );
    let i = Tensor::<i8, Shape![0, 4]>::zeros();
    let si = graph!(|i: i8[0, 4]| sum(i, axis = 0))(&i);
    assert_eq!(si.as_slice(), &[0i64; 4]);
}

graph! {
    fn dot_rows(x: f32[6, 37], y: f32[6, 37]) -> f32[6] { sum(x * y, axis = 1) }
    fn max_abs_diff(x: f32[6, 37], y: f32[6, 37]) -> f32[] { max(abs(x - y)) }
    fn centre(x: f32[6, 37]) -> f32[6, 37] { x - mean(x, axis = 1, keepdims = true) }
    /// Layer normalisation as a graph.
    fn layer_norm(x: f32[6, 37], gamma: f32[37], beta: f32[37]) -> f32[6, 37] {
        let mu = mean(x, axis = -1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = -1, keepdims = true);
        d * rsqrt(var + 0.00001) * gamma + beta
    }
    fn norms(x: f64[4, 19]) -> (f64[4], f64[4], f64[4], f64[4], f64[4]) {
        (reduce_l1(x, axis = 1), reduce_l2(x, axis = 1), reduce_sum_square(x, axis = 1),
         reduce_log_sum(abs(x), axis = 1), reduce_log_sum_exp(x, axis = 1))
    }
    fn softmaxes(x: f32[5, 37]) -> (f32[5, 37], f32[5, 37], f32[5, 37]) {
        (softmax(x), logsoftmax(x, axis = -1), softmax(x, axis = 0))
    }
}

#[test]
fn fused_producers_and_consumers() {
    let x = f32_data::<Shape![6, 37]>(5);
    let y = f32_data::<Shape![6, 37]>(6);
    let (xs, ys) = (x.as_slice(), y.as_slice());
    let dots: Vec<f64> = (0..6)
        .map(|i| {
            (0..37)
                .map(|j| (xs[i * 37 + j] * ys[i * 37 + j]) as f64)
                .sum()
        })
        .collect();
    close_f32(dot_rows(&x, &y).as_slice(), &dots, 1e-7, "sum(x * y)");
    let mad = xs
        .iter()
        .zip(ys)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert_eq!(max_abs_diff(&x, &y)[[]], mad);

    let c = centre(&x);
    let gamma = f32_data::<Shape![37]>(7);
    let beta = f32_data::<Shape![37]>(8);
    let ln = layer_norm(&x, &gamma, &beta);
    for i in 0..6 {
        let row = &xs[i * 37..(i + 1) * 37];
        let mu = (row.iter().map(|&v| v as f64).sum::<f64>() / 37.0) as f32;
        let var = (row
            .iter()
            .map(|&v| ((v - mu) * (v - mu)) as f64)
            .sum::<f64>()
            / 37.0) as f32;
        for j in 0..37 {
            assert_eq!(c[[i, j]], row[j] - mu, "centre {i},{j}");
            let expected = (row[j] - mu) as f64 / ((var + 1e-5) as f64).sqrt() * gamma[[j]] as f64
                + beta[[j]] as f64;
            let got = ln[[i, j]] as f64;
            assert!(
                (got - expected).abs() <= 1e-5 * expected.abs().max(1.0),
                "layer norm {i},{j}: {got} vs {expected}"
            );
        }
    }
}

#[test]
fn operator_table_reductions() {
    let x = Tensor::<f64, Shape![4, 19]>::from_vec(f64::random(76, 9)).unwrap();
    let (l1, l2, ss, ls, lse) = norms(&x);
    for (i, g) in groups(x.as_slice(), &[4, 19], &[1]).iter().enumerate() {
        let rel = |got: f64, e: f64, what: &str| {
            assert!(
                (got - e).abs() <= 1e-13 * e.abs(),
                "{what} row {i}: {got} vs {e}"
            )
        };
        rel(l1[[i]], g.iter().map(|v| v.abs()).sum(), "reduce_l1");
        rel(
            l2[[i]],
            g.iter().map(|v| v * v).sum::<f64>().sqrt(),
            "reduce_l2",
        );
        rel(ss[[i]], g.iter().map(|v| v * v).sum(), "reduce_sum_square");
        rel(
            ls[[i]],
            g.iter().map(|v| v.abs()).sum::<f64>().ln(),
            "reduce_log_sum",
        );
        let m = g.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        rel(
            lse[[i]],
            m + g.iter().map(|v| (v - m).exp()).sum::<f64>().ln(),
            "reduce_log_sum_exp",
        );
    }
    // All -inf gives -inf, any +inf gives +inf (the max is not subtracted when infinite).
    let inf = Tensor::<f32, Shape![2, 3]>::from_vec(vec![
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
        1.0,
        f32::INFINITY,
        2.0,
    ])
    .unwrap();
    let r = graph!(|x: f32[2, 3]| reduce_log_sum_exp(x, axis = 1))(&inf);
    assert_eq!(r.as_slice(), &[f32::NEG_INFINITY, f32::INFINITY]);
}

#[test]
fn softmax_is_stable_and_normalised() {
    let mut data = f32::random(5 * 37, 10);
    data[3] = 1000.0; // exp would overflow without subtracting the max
    data[40] = -1000.0;
    let x = Tensor::<f32, Shape![5, 37]>::from_vec(data).unwrap();
    let (sm, lsm, sm0) = softmaxes(&x);
    let xs: Vec<f64> = x.as_slice().iter().map(|&v| v as f64).collect();
    let reference = |axis: usize, log: bool| -> Vec<f64> {
        let mut out = vec![0.0; 5 * 37];
        let (outer, inner) = if axis == 1 { (5, 37) } else { (37, 5) };
        for o in 0..outer {
            let idx = |k: usize| if axis == 1 { o * 37 + k } else { k * 37 + o };
            let m = (0..inner)
                .map(|k| xs[idx(k)])
                .fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = (0..inner).map(|k| (xs[idx(k)] - m).exp()).sum();
            for k in 0..inner {
                out[idx(k)] = if log {
                    xs[idx(k)] - m - s.ln()
                } else {
                    (xs[idx(k)] - m).exp() / s
                };
            }
        }
        out
    };
    close_f32(sm.as_slice(), &reference(1, false), 2e-6, "softmax");
    close_f32(sm0.as_slice(), &reference(0, false), 2e-6, "softmax axis 0");
    let lref = reference(1, true);
    for (i, (&g, &e)) in lsm.as_slice().iter().zip(&lref).enumerate() {
        assert!(
            (g as f64 - e).abs() <= 2e-6 * e.abs().max(1.0),
            "logsoftmax at {i}: {g} vs {e}"
        );
    }
    for row in sm.as_slice().chunks(37) {
        let total: f32 = row.iter().sum();
        assert!((total - 1.0).abs() < 1e-5);
    }
    let h = Tensor::<f16, Shape![2, 9]>::from_fn(|[i, j]| f16::from_f32(i as f32 - j as f32 * 0.5));
    let hs = graph!(|h: f16[2, 9]| softmax(h, axis = 1))(&h);
    for i in 0..2 {
        let row: Vec<f64> = (0..9).map(|j| h[[i, j]].to_f64()).collect();
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for j in 0..9 {
            let e = (row[j] - m).exp() / s;
            assert!(
                (hs[[i, j]].to_f64() - e).abs() <= 1e-3 * e,
                "f16 softmax {i},{j}"
            );
        }
    }
}

graph! {
    fn views(x: f32[3, 4], col: f32[3]) -> (f32[4, 3], f32[4, 1, 3], f32[3, 1, 4], f32[3, 4], f32[2, 3, 4]) {
        (
            transpose(x) * 2.0,
            dimshuffle(x, [1, 'x', 0]),
            expand_dims(x, 1) + 0.0,
            x + broadcast_to(expand_dims(col, -1), [3, 4]),
            broadcast_to(x, [2, 3, 4]),
        )
    }
    fn squeezes(x: f32[3, 1, 4, 1]) -> (f32[3, 4], f32[3, 4, 1], f32[12]) {
        (squeeze(x), squeeze(x, 1), reshape(x, [-1]))
    }
    fn reshaped(x: f32[4, 6], y: f32[6]) -> (f32[2, 12], f32[24], f32[6, 4]) {
        (reshape(x, [2, 12]) + 1.0, reshape(x + y, [24]), transpose(reshape(x, [4, 6]), [1, 0]) + transpose(x))
    }
    fn transposed_sum(x: f32[37, 5]) -> f32[5] { sum(transpose(x), axis = 1) }
}

#[test]
fn views_are_strided_reads() {
    let x = f32_data::<Shape![3, 4]>(11);
    let col = f32_data::<Shape![3]>(12);
    let (t, ds, ed, bc, b3) = views(&x, &col);
    for i in 0..3 {
        for j in 0..4 {
            assert_eq!(t[[j, i]], x[[i, j]] * 2.0);
            assert_eq!(ds[[j, 0, i]], x[[i, j]]);
            assert_eq!(ed[[i, 0, j]], x[[i, j]]);
            assert_eq!(bc[[i, j]], x[[i, j]] + col[[i]]);
            assert_eq!(b3[[0, i, j]], x[[i, j]]);
            assert_eq!(b3[[1, i, j]], x[[i, j]]);
        }
    }
    let y = f32_data::<Shape![3, 1, 4, 1]>(13);
    let (s_all, s1, flat) = squeezes(&y);
    assert_eq!(s_all.as_slice(), y.as_slice());
    assert_eq!(s1.as_slice(), y.as_slice());
    assert_eq!(flat.as_slice(), y.as_slice());

    let a = f32_data::<Shape![4, 6]>(14);
    let r = f32_data::<Shape![6]>(15);
    let (r1, r2, r3) = reshaped(&a, &r);
    for k in 0..24 {
        assert_eq!(r1.as_slice()[k], a.as_slice()[k] + 1.0);
        assert_eq!(r2.as_slice()[k], a.as_slice()[k] + r[[k % 6]]);
    }
    for i in 0..4 {
        for j in 0..6 {
            assert_eq!(r3[[j, i]], a[[i, j]] + a[[i, j]]);
        }
    }
    let z = f32_data::<Shape![37, 5]>(16);
    let ts = transposed_sum(&z);
    let expected: Vec<f64> = groups(z.as_slice(), &[37, 5], &[0])
        .iter()
        .map(|g| g.iter().map(|&v| v as f64).sum())
        .collect();
    close_f32(ts.as_slice(), &expected, 1e-7, "sum of transpose");
}

#[test]
fn dtype_and_acc_overrides() {
    let x = Tensor::<i32, Shape![3, 11]>::from_vec(i32::random(33, 21)).unwrap();
    let as_f64 = graph!(|x: i32[3, 11]| sum(x, axis = 1, dtype = f64))(&x);
    let as_i32 = graph!(|x: i32[3, 11]| sum(x, axis = 1, dtype = i32))(&x);
    let mean32 = graph!(|x: i32[3, 11]| mean(x, axis = 1, dtype = f32))(&x);
    for (i, g) in groups(x.as_slice(), &[3, 11], &[1]).iter().enumerate() {
        let exact: i64 = g.iter().map(|&v| v as i64).sum();
        // Float output: accumulated in f64 (exact here), rounded once.
        assert_eq!(as_f64[[i]], exact as f64);
        // Integer output narrower than the accumulator: i64 sum, then Rust `as`.
        assert_eq!(as_i32[[i]], exact as i32);
        assert_eq!(mean32[[i]], (exact as f64 / 11.0) as f32);
    }
    let h = Tensor::<f16, Shape![40]>::from_fn(|[i]| f16::from_f32(1.0 + i as f32 / 64.0));
    let (s64, s32, p) = graph!(|h: f16[40]| (sum(h), sum(h, acc = f32), prod(h, axis = 0)))(&h);
    let exact: f64 = h.as_slice().iter().map(|v| v.to_f64()).sum();
    assert_eq!(s64[[]], f16::from_f64(exact));
    assert_eq!(
        s32[[]],
        f16::from_f64(exact),
        "small sums are exact in f32 too"
    );
    let prod: f64 = h.as_slice().iter().map(|v| v.to_f64()).product();
    assert_eq!(p[[]], f16::from_f64(prod));
}

/// Equal after rounding into the dtype; for f64 itself, whose sums are not exact in any
/// order, within a few ulps of the f64 reference.
fn same_rounded<T: TestFloat>(got: T, exact: f64, what: &str) {
    let expected = T::from_f64_rounded(exact);
    let ulps = if T::DTYPE == tensorgraph::DType::F64 {
        8.0
    } else {
        0.0
    };
    assert!(
        T::ulps(got, expected) <= ulps,
        "{what}: {got:?} vs {expected:?}"
    );
}

macro_rules! float_more {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let x = Tensor::<$t, Shape![3, 37]>::from_vec(<$t>::random(3 * 37, 31)).unwrap();
            let xs: Vec<f64> = x.as_slice().iter().map(|v| v.to_compute() as f64).collect();
            let (p, a, m, ai, mn) = graph!(|x: $t[3, 37]| (
                prod(x, axis = 0), any(x > 1000, axis = 1), mean(x, axis = 1), argmin(x, axis = 1), min(x)
            ))(&x);
            for (j, g) in groups(&xs, &[3, 37], &[0]).iter().enumerate() {
                same_rounded(p.as_slice()[j], g.iter().product(), "prod");
            }
            for (i, g) in groups(&xs, &[3, 37], &[1]).iter().enumerate() {
                assert_eq!(a.as_slice()[i], g.iter().any(|&v| v > 1000.0), "any {i}");
                let mean = g.iter().sum::<f64>() / 37.0;
                same_rounded(m.as_slice()[i], mean, "mean");
                let min = g.iter().cloned().fold(f64::INFINITY, f64::min);
                assert_eq!(ai.as_slice()[i], g.iter().position(|&v| v == min).unwrap() as i64, "argmin {i}");
            }
            assert_eq!(mn[[]].to_compute() as f64, xs.iter().cloned().fold(f64::INFINITY, f64::min));
        }
    )*};
}
float_more!(more_f16: f16, more_bf16: bf16, more_f32: f32, more_f64: f64);

graph! {
    fn count_true_i8(x: bool[3, 200]) -> i64[3] { sum(x, axis = 1, acc = i8) }
}

/// A `bool` input fits every numeric accumulator (the promotion table's rule): `acc = i8`
/// is accepted and wraps there (found by the random-graph generator, issue 18; the
/// checker had refused it as "narrower than `bool`").
#[test]
fn bool_sums_take_any_numeric_accumulator() {
    let data: Vec<bool> = (0..600)
        .map(|i| i < 200 || (i >= 400 && i % 3 == 0))
        .collect();
    let x = Tensor::<bool, Shape![3, 200]>::from_vec(data.clone()).unwrap();
    let got = count_true_i8(&x);
    for r in 0..3 {
        let count = data[r * 200..(r + 1) * 200].iter().filter(|&&b| b).count();
        // The i8 accumulator wraps: 200 is -56.
        assert_eq!(got[[r]], count as u8 as i8 as i64, "row {r}");
    }
    assert_eq!(got[[0]], -56);
}

graph! {
    fn softmax_special_37(x: f32[12, 37]) -> (f32[12, 37], f32[12, 37]) {
        (softmax(x, axis = 1), logsoftmax(x, axis = 1))
    }
    fn softmax_special_1029(x: f32[12, 1029]) -> (f32[12, 1029], f32[12, 1029]) {
        (softmax(x, axis = 1), logsoftmax(x, axis = 1))
    }
    // Two outputs from one `exp(x - max)` row: the first is where the row is kept
    // (`lower::rows_in_outputs`), the second reads it back in the same pass.
    fn softmax_two_outputs(x: f32[12, 37]) -> (f32[12, 37], f32[12, 37]) {
        let s = softmax(x, axis = 1);
        (s, s * 2.0)
    }
}

/// Rows whose softmax depends on the NaN-free max and the exp of a never-positive
/// argument being right at their edges (`ReduceKind::MaxNoNan`, `exp_nonpos`): NaN
/// anywhere (first, last lane of the tail, before the largest value), +inf once and
/// twice, all -inf, some -inf, all equal, ±0 as the max, arguments whose exp is
/// subnormal or zero, values near f32::MAX.
fn special_rows(n: usize) -> Vec<f32> {
    let mut rows = Vec::new();
    let base = f32::random(n, 31);
    for r in 0..12 {
        let mut row: Vec<f32> = base.iter().map(|v| v * (1.0 + r as f32 * 0.1)).collect();
        match r {
            0 => {}
            1 => row[0] = f32::NAN,
            2 => row[n - 1] = f32::NAN,
            3 => {
                row[n / 3] = f32::NAN;
                row[n / 3 + 1] = 500.0;
            }
            4 => row[n / 2] = f32::INFINITY,
            5 => {
                row[1] = f32::INFINITY;
                row[n - 2] = f32::INFINITY;
            }
            6 => row.iter_mut().for_each(|v| *v = f32::NEG_INFINITY),
            7 => row
                .iter_mut()
                .step_by(3)
                .for_each(|v| *v = f32::NEG_INFINITY),
            8 => row.iter_mut().for_each(|v| *v = 3.5),
            9 => {
                // One 0 (the max, so the sum is 1 plus what underflows): then e^-88,
                // e^-90, e^-100 (subnormal) and +0 (below e^-104) over and over.
                let spread = [
                    -88.0,
                    -90.0,
                    -100.0,
                    -103.9,
                    -104.5,
                    -200.0,
                    -1e30,
                    -f32::MAX,
                ];
                for (k, v) in row.iter_mut().enumerate() {
                    *v = if k == 0 {
                        0.0
                    } else {
                        spread[(k - 1) % spread.len()]
                    };
                }
            }
            10 => {
                row.iter_mut().for_each(|v| *v = -v.abs() - 1.0);
                row[2] = -0.0;
                row[n - 3] = 0.0;
            }
            _ => {
                row.iter_mut().for_each(|v| *v = f32::MAX - v.abs() * 1e32);
            }
        }
        rows.extend(row);
    }
    rows
}

/// softmax and logsoftmax of each row in f64 from the f32 differences `x - max` (the
/// kernel's order): NaN everywhere on a row holding a NaN or +inf or only -inf.
fn special_reference(x: &[f32], n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut sm, mut lsm) = (Vec::new(), Vec::new());
    for row in x.chunks(n) {
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &v| {
            if a.is_nan() || v.is_nan() {
                f32::NAN
            } else {
                a.max(v)
            }
        });
        let d: Vec<f64> = row.iter().map(|&v| (v - m) as f64).collect();
        let s: f64 = d.iter().map(|v| v.exp()).sum();
        sm.extend(d.iter().map(|v| v.exp() / s));
        lsm.extend(d.iter().map(|v| v - s.ln()));
    }
    (sm, lsm)
}

fn check_special(sm: &[f32], lsm: &[f32], x: &[f32], n: usize) {
    let (esm, elsm) = special_reference(x, n);
    for (r, row) in esm.chunks(n).enumerate() {
        let all_nan = matches!(r, 1..=6);
        assert_eq!(row.iter().all(|v| v.is_nan()), all_nan, "reference row {r}");
    }
    close_f32(sm, &esm, 2e-6, &format!("softmax, rows of {n}"));
    for (i, (&g, &e)) in lsm.iter().zip(&elsm).enumerate() {
        let ok = (g.is_nan() && e.is_nan())
            || g as f64 == e
            || (g as f64 - e).abs() <= 2e-6 * e.abs().max(1.0);
        assert!(ok, "logsoftmax, rows of {n}, at {i}: got {g}, expected {e}");
    }
    // Row 9 reaches the subnormal range (e^-88, e^-90, e^-100 over a sum of 1) and
    // underflows to +0 below e^-104: exact enough to be told apart.
    let row9 = &sm[9 * n..10 * n];
    assert_eq!(row9[0], 1.0);
    assert!(
        row9[1] > 0.0 && row9[1] < f32::MIN_POSITIVE * 64.0,
        "e^-88: {}",
        row9[1]
    );
    assert!(
        row9[3] > 0.0 && row9[3] < f32::MIN_POSITIVE,
        "e^-100: {}",
        row9[3]
    );
    assert_eq!(row9[6], 0.0);
    assert_eq!(row9[8], 0.0);
    // All equal: 1/n each, to the rounding of the sum and the division.
    for &v in &sm[8 * n..9 * n] {
        assert!(
            (v as f64 - 1.0 / n as f64).abs() <= 1e-6 / n as f64,
            "all equal: {v}"
        );
    }
}

#[test]
fn softmax_special_rows() {
    let x = special_rows(37);
    let (sm, lsm) =
        softmax_special_37(&Tensor::<f32, Shape![12, 37]>::from_vec(x.clone()).unwrap());
    check_special(sm.as_slice(), lsm.as_slice(), &x, 37);
    let (s1, s2) =
        softmax_two_outputs(&Tensor::<f32, Shape![12, 37]>::from_vec(x.clone()).unwrap());
    assert_eq!(
        s1.as_slice()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>(),
        sm.as_slice()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>()
    );
    for (a, b) in s1.as_slice().iter().zip(s2.as_slice()) {
        assert!(b.to_bits() == (a * 2.0).to_bits() || (a.is_nan() && b.is_nan()));
    }
    let x = special_rows(1029);
    let (sm, lsm) =
        softmax_special_1029(&Tensor::<f32, Shape![12, 1029]>::from_vec(x.clone()).unwrap());
    check_special(sm.as_slice(), lsm.as_slice(), &x, 1029);
}

/// The same special rows in f64 lanes (their `exp_nonpos` is `exp` of min(x, 0)).
#[test]
fn softmax_special_rows_f64() {
    let x: Vec<f64> = special_rows(19).iter().map(|&v| v as f64).collect();
    let sm = graph!(|x: f64[12, 19]| softmax(x, axis = 1))(
        &Tensor::<f64, Shape![12, 19]>::from_vec(x.clone()).unwrap(),
    );
    for (r, (row, got)) in x.chunks(19).zip(sm.as_slice().chunks(19)).enumerate() {
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| {
            if a.is_nan() || v.is_nan() {
                f64::NAN
            } else {
                a.max(v)
            }
        });
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for (j, (&v, &g)) in row.iter().zip(got).enumerate() {
            let e = (v - m).exp() / s;
            assert_eq!(e.is_nan(), matches!(r, 1..=6), "reference row {r}");
            assert!(
                (g.is_nan() && e.is_nan()) || g == e || (g - e).abs() <= 1e-14 * e.abs() + 1e-300,
                "f64 softmax {r},{j}: got {g}, expected {e}"
            );
        }
    }
}

graph! {
    /// Rows long enough for the four (best, index) pairs of an arg reduction's loop.
    fn long_row_args(x: f32[6, 1000]) -> (i64[6], i64[6]) {
        (argmax(x, axis = 1), argmin(x, axis = -1))
    }
    fn long_row_args_int(x: i16[3, 999]) -> (i64[3], i64[3]) {
        (argmax(x, axis = 1), argmin(x, axis = 1))
    }
}

/// The first index of the maximum (minimum), a NaN counting as larger (smaller) than
/// everything and the first NaN winning (NumPy), with the extremes placed in every part of
/// long rows (each lane and each of the loop's accumulator pairs) and repeated.
#[test]
fn arg_reductions_of_long_rows() {
    let first = |row: &[f32], max: bool| -> i64 {
        if let Some(k) = row.iter().position(|v| v.is_nan()) {
            return k as i64;
        }
        let mut best = 0;
        for (k, &v) in row.iter().enumerate() {
            if (max && v > row[best]) || (!max && v < row[best]) {
                best = k;
            }
        }
        best as i64
    };
    for case in 0..40usize {
        let mut data = f32::random(6 * 1000, 30 + case as u64);
        // Few distinct values, so ties are everywhere.
        for v in data.iter_mut() {
            *v = (*v * 4.0).round().clamp(-3.0, 3.0);
        }
        let row = |r: usize| r * 1000;
        // Row 0: the maximum repeated at positions in different pairs and lanes.
        data[row(0) + 37 + case] = 9.0;
        data[row(0) + 999 - case] = 9.0;
        // Row 1: a NaN late, then an earlier NaN in row 2, and -inf/inf in row 3.
        data[row(1) + 600 + case] = f32::NAN;
        data[row(2) + 900] = f32::NAN;
        data[row(2) + 63 + case] = f32::NAN;
        data[row(3) + case * 17] = f32::NEG_INFINITY;
        data[row(3) + 999 - case * 13] = f32::INFINITY;
        // Row 4: all equal; row 5: all -inf.
        data[row(4)..row(5)].fill(1.5);
        data[row(5)..].fill(f32::NEG_INFINITY);
        let x = Tensor::<f32, Shape![6, 1000]>::from_vec(data.clone()).unwrap();
        let (am, ai) = long_row_args(&x);
        for r in 0..6 {
            let slice = &data[row(r)..row(r) + 1000];
            assert_eq!(am[[r]], first(slice, true), "case {case}: argmax row {r}");
            assert_eq!(ai[[r]], first(slice, false), "case {case}: argmin row {r}");
        }
    }
    let ints: Vec<i16> = i16::random(3 * 999, 41).iter().map(|v| v % 7).collect();
    let x = Tensor::<i16, Shape![3, 999]>::from_vec(ints.clone()).unwrap();
    let (am, ai) = long_row_args_int(&x);
    for r in 0..3 {
        let slice = &ints[r * 999..(r + 1) * 999];
        let max = *slice.iter().max().unwrap();
        let min = *slice.iter().min().unwrap();
        assert_eq!(
            am[[r]],
            slice.iter().position(|&v| v == max).unwrap() as i64,
            "i16 argmax row {r}"
        );
        assert_eq!(
            ai[[r]],
            slice.iter().position(|&v| v == min).unwrap() as i64,
            "i16 argmin row {r}"
        );
    }
}

// Issue 37: an arg reduction whose input is cut into regions (a `concat`, a `pad`) where a
// region one column wide leaves the rows as its inner loop: the running index steps by the
// row length there, not by 1. Found by the random-graph soak (seed 37, graph 3308:
// `argmax(concat([p1, p1, p0], axis = 1))` returned 11 where the first NaN was at 110).
graph! {
    fn arg_over_regions(a: f32[5, 1], b: f32[5, 3]) -> (i64[], i64[], i64[5], i64[4]) {
        let v = concat([a, a, b], axis = 1);
        (argmax(v), argmin(v), argmax(v, axis = 1), argmin(pad(b, [1, 0, 0, 1], value = 0.5), axis = 0))
    }
    fn arg_over_regions_named(a: f16[B, 1], b: i8[B, 8]) -> i64[] {
        argmax(concat([a, a, b], axis = 1))
    }
}

/// NumPy's argmax/argmin of `v` (row-major `[rows, cols]`, all of it, or along `axis`):
/// the first extreme index, the first NaN over everything.
fn first_arg(v: &[f64], max: bool) -> i64 {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return i as i64;
    }
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if (max && x > v[best]) || (!max && x < v[best]) {
            best = i;
        }
    }
    best as i64
}

#[test]
fn arg_reductions_over_regions_index_every_element() {
    for call in 0..2 {
        for hot in 0..25usize {
            // v is [5, 5]: columns a, a, b0, b1, b2. One hot element, sometimes a NaN.
            let mut a = vec![0.0f32; 5];
            let mut b: Vec<f32> = (0..15).map(|i| ((i * 7 + call) % 5) as f32 - 2.0).collect();
            let (r, c) = (hot / 5, hot % 5);
            let hot_value = if hot % 3 == 0 {
                f32::NAN
            } else {
                9.0 + call as f32
            };
            if c < 2 {
                a[r] = hot_value;
            } else {
                b[r * 3 + c - 2] = hot_value;
            }
            let (x, n, rows, cols) = arg_over_regions(
                &Tensor::from_vec(a.clone()).unwrap(),
                &Tensor::from_vec(b.clone()).unwrap(),
            );
            let v: Vec<f64> = (0..25)
                .map(|i| {
                    let (r, c) = (i / 5, i % 5);
                    (if c < 2 { a[r] } else { b[r * 3 + c - 2] }) as f64
                })
                .collect();
            let what = format!("call {call}, hot {hot}");
            assert_eq!(x[[]], first_arg(&v, true), "argmax, {what}");
            assert_eq!(n[[]], first_arg(&v, false), "argmin, {what}");
            for r in 0..5 {
                assert_eq!(
                    rows[[r]],
                    first_arg(&v[r * 5..r * 5 + 5], true),
                    "row {r}, {what}"
                );
            }
            // pad(b, [1, 0, 0, 1], value = 0.5): [6, 4], a row of 0.5s on top, a column on the right.
            for c in 0..4 {
                let col: Vec<f64> = (0..6)
                    .map(|r| {
                        if r == 0 || c == 3 {
                            0.5
                        } else {
                            b[(r - 1) * 3 + c] as f64
                        }
                    })
                    .collect();
                assert_eq!(cols[[c]], first_arg(&col, false), "column {c}, {what}");
            }
        }
    }
    for rows in [1usize, 3, 17] {
        for hot in [0, rows * 10 - 1, rows * 5 + 1] {
            let mut a = vec![f16::from_f32(-1.0); rows];
            let mut b = vec![3i8; rows * 8];
            let (r, c) = (hot / 10, hot % 10);
            if c < 2 {
                a[r] = f16::from_f32(100.0);
            } else {
                b[r * 8 + c - 2] = 100;
            }
            let got = arg_over_regions_named(&a, &b).unwrap();
            let v: Vec<f64> = (0..rows * 10)
                .map(|i| {
                    let (r, c) = (i / 10, i % 10);
                    if c < 2 {
                        a[r].to_f64()
                    } else {
                        b[r * 8 + c - 2] as f64
                    }
                })
                .collect();
            assert_eq!(got[[]], first_arg(&v, true), "named, B = {rows}, hot {hot}");
        }
    }
}
