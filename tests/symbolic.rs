//! Graphs with symbolic dims (`x: f32[B, 768]`) at run-time sizes 0, 1, LANES-1, LANES,
//! LANES+1, 3·LANES+1, a prime near 1000 and one above the thread threshold, against the
//! same graph with literal dims (bit for bit: the kernels compute each element with the
//! same lane functions) or against references computed here; and every call-entry error.
#![allow(deprecated)]

mod common;
use common::*;
use tensorgraph::prelude::*;
use tensorgraph::{Dyn, ShapeError};

/// The sizes every family runs at. `THREADED` is above the 2^18-element split.
const SIZES: [usize; 7] = [0, 1, 7, 8, 9, 25, big(997)];

/// A size that is large only to cross the 2^18-element split or to be "near 1000": under
/// Miri (NOTES.md, "Undefined-behaviour checks") 33, still several chunks and a tail (the
/// generated kernels' split is not reached under Miri, see `THREADED`).
const fn big(n: usize) -> usize {
    if cfg!(miri) {
        33
    } else {
        n
    }
}
/// Under Miri (NOTES.md, "Undefined-behaviour checks") not above the threshold: 2^18
/// elements of transcendental kernels would take hours there.
const THREADED: usize = if cfg!(miri) {
    3 * 8 + 2
} else {
    (1 << 18) + 13
};

// ---------------------------------------------------------------------------------------
// Elementwise: the symbolic graph over n elements equals the literal-dim graph applied to
// each 8-element chunk (the last one padded), bit for bit.

graph! {
    fn ew_f32(x: f32[N], y: f32[N]) -> f32[N] {
        let h = relu(x + y) * 2.0 - x / (y * y + 1.0);
        where(x > y, tanh(h) * exp(-x * x), sigmoid(h) + floor(x))
    }
    fn ew_f32_8(x: f32[8], y: f32[8]) -> f32[8] {
        let h = relu(x + y) * 2.0 - x / (y * y + 1.0);
        where(x > y, tanh(h) * exp(-x * x), sigmoid(h) + floor(x))
    }
    fn ew_i32(x: i32[N], y: i32[N]) -> (i32[N], bool[N]) {
        ((x * y + 7) / (y | 1) % 13 - (x >> 3), x ^ y < 0)
    }
    fn ew_i32_8(x: i32[8], y: i32[8]) -> (i32[8], bool[8]) {
        ((x * y + 7) / (y | 1) % 13 - (x >> 3), x ^ y < 0)
    }
    fn ew_f16(x: f16[N], y: u8[N]) -> f32[N] { (x * 2.0 + (y as f16)) as f32 }
    fn ew_f16_8(x: f16[8], y: u8[8]) -> f32[8] { (x * 2.0 + (y as f16)) as f32 }
}

/// The literal-dim graph `g8` over 8-element chunks of `xs` and `ys`.
fn by_chunks<A: Copy + Default, B: Copy + Default, R: Clone>(
    xs: &[A],
    ys: &[B],
    g8: impl Fn(&[A; 8], &[B; 8]) -> Vec<R>,
) -> Vec<R> {
    let mut out = Vec::with_capacity(xs.len());
    for start in (0..xs.len()).step_by(8) {
        let mut a = [A::default(); 8];
        let mut b = [B::default(); 8];
        let n = (xs.len() - start).min(8);
        a[..n].copy_from_slice(&xs[start..start + n]);
        b[..n].copy_from_slice(&ys[start..start + n]);
        out.extend(g8(&a, &b).into_iter().take(n));
    }
    out
}

fn t8<T: tensorgraph::Element>(v: &[T; 8]) -> Tensor<T, Shape![8]> {
    Tensor::from_vec(v.to_vec()).unwrap()
}

#[test]
fn elementwise_f32_matches_literal_dims_at_every_size() {
    for n in SIZES.into_iter().chain([THREADED]) {
        let mut x = f32::random(n, 1);
        let y = f32::random(n, 2);
        // Edge values at the front.
        for (slot, e) in x.iter_mut().zip(f32::edge_values()) {
            *slot = e;
        }
        let got = ew_f32(&x, &y).unwrap();
        assert_eq!(got.shape(), &[n]);
        let expected = by_chunks(&x, &y, |a, b| ew_f32_8(&t8(a), &t8(b)).into_vec());
        assert_close(
            "ew_f32",
            got.as_slice(),
            &expected,
            |i| format!("n = {n}, x = {}, y = {}", x[i], y[i]),
            0.0,
        );
    }
}

#[test]
fn elementwise_integers_and_half_match_literal_dims() {
    for n in SIZES.into_iter().chain([THREADED]) {
        let x = i32::random(n, 3);
        let y = i32::random(n, 4);
        let (a, b) = ew_i32(&x, &y).unwrap();
        let expected_a = by_chunks(&x, &y, |p, q| ew_i32_8(&t8(p), &t8(q)).0.into_vec());
        let expected_b = by_chunks(&x, &y, |p, q| ew_i32_8(&t8(p), &t8(q)).1.into_vec());
        assert_eq!(a.as_slice(), &expected_a[..], "n = {n}");
        assert_eq!(b.as_slice(), &expected_b[..], "n = {n}");

        let h = f16::random(n, 5);
        let u = u8::random(n, 6);
        let got = ew_f16(&h, &u).unwrap();
        let expected = by_chunks(&h, &u, |p, q| ew_f16_8(&t8(p), &t8(q)).into_vec());
        assert_close(
            "ew_f16",
            got.as_slice(),
            &expected,
            |i| format!("n = {n} at {i}"),
            0.0,
        );
    }
}

// ---------------------------------------------------------------------------------------
// Broadcasting: a name matches the same name or a literal 1.

graph! {
    fn bias_rows(x: f32[B, 37], bias: f32[37], scale: f32[B, 1]) -> f32[B, 37] {
        (x + bias) * scale
    }
    fn bias_rows_1(x: f32[1, 37], bias: f32[37], scale: f32[1, 1]) -> f32[1, 37] {
        (x + bias) * scale
    }
    /// An outer product of two names: `[B, 1]` with `[1, S]`.
    fn outer(a: f64[B, 1], b: f64[1, S]) -> f64[B, S] { a * b + 1.0 }
}

#[test]
fn broadcasting_rows_matches_the_literal_row_graph() {
    for b in SIZES.into_iter().chain([big((1 << 18) / 37 + 5)]) {
        let x = f32::random(b * 37, 7);
        let bias = Tensor::<f32, Shape![37]>::from_vec(f32::random(37, 8)).unwrap();
        let scale = f32::random(b, 9);
        let got = bias_rows(&x, &bias, &scale).unwrap();
        assert_eq!(got.shape(), &[b, 37]);
        for r in 0..b {
            let row = Tensor::<f32, Shape![1, 37]>::from_slice(&x[r * 37..(r + 1) * 37]).unwrap();
            let s = Tensor::<f32, Shape![1, 1]>::from_vec(vec![scale[r]]).unwrap();
            let expected = bias_rows_1(&row, &bias, &s);
            assert_close(
                "bias_rows",
                &got.as_slice()[r * 37..(r + 1) * 37],
                expected.as_slice(),
                |i| format!("B = {b}, row {r}, col {i}"),
                0.0,
            );
        }
    }
}

#[test]
fn outer_product_of_two_names() {
    for (bn, sn) in [(0, 5), (5, 0), (1, 1), (3, 9), (17, big(997))] {
        let a = f64::random(bn, 1);
        let b = f64::random(sn, 2);
        let av = Tensor::<f64, Shape![_, 1]>::from_vec(a.clone()).unwrap();
        let bv = Tensor::<f64, Shape![1, _]>::from_vec(b.clone()).unwrap();
        let got = outer(&av, &bv).unwrap();
        assert_eq!(got.shape(), &[bn, sn]);
        for i in 0..bn {
            for j in 0..sn {
                assert_eq!(got[[i, j]].to_bits(), (a[i] * b[j] + 1.0).to_bits());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reductions over symbolic and literal axes, against f64 or exact integer references,
// and bit for bit against the literal graph at one size.

graph! {
    fn red_rows(x: f32[B, N]) -> (f32[B], f32[B], f32[B], f32[B], i64[B], f64[B, 1]) {
        (sum(x, axis = 1), mean(x, axis = -1), max(x, axis = 1), min(x, axis = 1),
         argmax(x, axis = 1), sum(x, axis = 1, keepdims = true, dtype = f64))
    }
    fn red_rows_37(x: f32[3, 37]) -> (f32[3], f32[3], f32[3], f32[3], i64[3], f64[3, 1]) {
        (sum(x, axis = 1), mean(x, axis = -1), max(x, axis = 1), min(x, axis = 1),
         argmax(x, axis = 1), sum(x, axis = 1, keepdims = true, dtype = f64))
    }
    fn red_cols(x: i32[B, 5]) -> (i64[5], i64[5], bool[5], bool[5], i32[5]) {
        (sum(x, axis = 0), prod(x % 3 + 2, axis = 0), any(x > 1000, axis = 0), all(x != 0, axis = 0), max(x, axis = 0))
    }
    fn red_all(x: f32[B, N]) -> (f32[], f64[]) { (sum(x, acc = f32), mean(x as f64)) }
}

#[test]
fn row_reductions_over_a_symbolic_inner_axis() {
    for b in [0, 1, 3] {
        for n in SIZES.into_iter().skip(1) {
            let x = f32::random(b * n, 11);
            let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([b, n], x.clone()).unwrap();
            let (s, m, mx, mn, am, s64) = red_rows(&xt).unwrap();
            for r in 0..b {
                let row: Vec<f64> = x[r * n..(r + 1) * n].iter().map(|&v| v as f64).collect();
                let exact: f64 = row.iter().sum();
                let abs: f64 = row.iter().map(|v| v.abs()).sum();
                assert!(
                    (s[[r]] as f64 - exact).abs() <= 1e-6 * abs + 1e-30,
                    "sum B={b} N={n}"
                );
                assert!(
                    (m[[r]] as f64 - exact / n as f64).abs() <= 1e-6 * abs / n as f64 + 1e-30,
                    "mean"
                );
                let (best, at) =
                    row.iter()
                        .enumerate()
                        .fold((f64::NEG_INFINITY, 0), |(bv, bi), (i, &v)| {
                            if v > bv {
                                (v, i)
                            } else {
                                (bv, bi)
                            }
                        });
                assert_eq!(mx[[r]] as f64, best);
                assert_eq!(am[[r]], at as i64);
                assert_eq!(
                    mn[[r]] as f64,
                    row.iter().cloned().fold(f64::INFINITY, f64::min)
                );
                assert!((s64[[r, 0]] - exact).abs() <= 1e-12 * abs);
            }
        }
    }
    // Bit for bit against literal dims.
    let x = f32::random(3 * 37, 12);
    let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([3, 37], x.clone()).unwrap();
    let lit = Tensor::<f32, Shape![3, 37]>::from_vec(x).unwrap();
    let a = red_rows(&xt).unwrap();
    let b = red_rows_37(&lit);
    assert_eq!(a.0.as_slice(), b.0.as_slice());
    assert_eq!(a.1.as_slice(), b.1.as_slice());
    assert_eq!(a.4.as_slice(), b.4.as_slice());
    assert_eq!(a.5.as_slice(), b.5.as_slice());
}

#[test]
fn column_reductions_over_a_symbolic_outer_axis() {
    for b in SIZES.into_iter().chain([big((1 << 18) / 5 + 3)]) {
        let x = i32::random(b * 5, 13);
        let (s, p, an, al, mx) = match red_cols(&x) {
            Ok(v) => v,
            Err(e) => {
                // `max` over an empty axis is the one error.
                assert_eq!(b, 0, "{e}");
                assert!(e.to_string().contains("max"), "{e}");
                continue;
            }
        };
        for c in 0..5 {
            let col: Vec<i32> = (0..b).map(|r| x[r * 5 + c]).collect();
            assert_eq!(s[[c]], col.iter().map(|&v| v as i64).sum::<i64>());
            assert_eq!(
                p[[c]],
                col.iter()
                    .fold(1i64, |acc, &v| acc.wrapping_mul((v % 3 + 2) as i64))
            );
            assert_eq!(an[[c]], col.iter().any(|&v| v > 1000));
            assert_eq!(al[[c]], col.iter().all(|&v| v != 0));
            assert_eq!(mx[[c]], *col.iter().max().unwrap());
        }
    }
}

#[test]
fn whole_tensor_reductions_and_empty_axes() {
    let empty = Tensor::<f32, Shape![_, _]>::from_shape_vec([0, 5], vec![]).unwrap();
    let (s, m) = red_all(&empty).unwrap();
    assert_eq!(s[[]], 0.0);
    assert!(m[[]].is_nan(), "mean of nothing is NaN (0/0)");
    let x = f32::random(4 * 9, 14);
    let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([4, 9], x.clone()).unwrap();
    let (s, m) = red_all(&xt).unwrap();
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    assert!((s[[]] as f64 - exact).abs() <= 1e-5 * x.iter().map(|v| v.abs() as f64).sum::<f64>());
    assert!((m[[]] - exact / 36.0).abs() <= 1e-12 * exact.abs().max(1.0));
}

// ---------------------------------------------------------------------------------------
// softmax / logsoftmax / layer norm over a symbolic axis.

graph! {
    fn softmax_sym(x: f32[B, N]) -> (f32[B, N], f32[B, N]) { (softmax(x, axis = 1), logsoftmax(x)) }
    fn softmax_37(x: f32[2, 37]) -> (f32[2, 37], f32[2, 37]) { (softmax(x, axis = 1), logsoftmax(x)) }
    fn softmax_outer(x: f64[S, 4]) -> f64[S, 4] { softmax(x, axis = 0) }
    fn layer_norm_gelu(x: f32[B, 64], g: f32[64], b: f32[64]) -> f32[B, 64] {
        let mu = mean(x, axis = 1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = 1, keepdims = true);
        gelu(d * rsqrt(var + 1e-5) * g + b)
    }
    fn layer_norm_gelu_1(x: f32[1, 64], g: f32[64], b: f32[64]) -> f32[1, 64] {
        let mu = mean(x, axis = 1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = 1, keepdims = true);
        gelu(d * rsqrt(var + 1e-5) * g + b)
    }
}

#[test]
fn softmax_over_a_symbolic_axis() {
    let x = f32::random(2 * 37, 15);
    let a = softmax_sym(&Tensor::<f32, Shape![_, _]>::from_shape_vec([2, 37], x.clone()).unwrap())
        .unwrap();
    let b = softmax_37(&Tensor::<f32, Shape![2, 37]>::from_vec(x).unwrap());
    assert_eq!(a.0.as_slice(), b.0.as_slice());
    assert_eq!(a.1.as_slice(), b.1.as_slice());
    for (bn, n) in [(1, 1), (3, 8), (2, big(997)), (big(300), big(1001))] {
        let x: Vec<f32> = f32::random(bn * n, 16)
            .iter()
            .map(|v| v.clamp(-50.0, 50.0))
            .collect();
        let (sm, lsm) =
            softmax_sym(&Tensor::<f32, Shape![_, _]>::from_shape_vec([bn, n], x.clone()).unwrap())
                .unwrap();
        for r in 0..bn {
            let row = &x[r * n..(r + 1) * n];
            let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
            let z: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
            for j in 0..n {
                let e = (row[j] as f64 - m).exp() / z;
                // f32 rounds x - max (up to ~50 here) to 2^-19 relative, which exp carries
                // into the result: 50 · 2^-24 ≈ 3e-6.
                assert!(
                    (sm[[r, j]] as f64 - e).abs() <= 4e-6 * e + 1e-38,
                    "softmax {bn}x{n}"
                );
                let le = row[j] as f64 - m - z.ln();
                assert!((lsm[[r, j]] as f64 - le).abs() <= 1e-5 * le.abs().max(1.0));
            }
        }
    }
    for s in [1, 5, big(997)] {
        let x = f64::random(s * 4, 17);
        let y = softmax_outer(&x).unwrap();
        for c in 0..4 {
            let total: f64 = (0..s).map(|r| y[[r, c]]).sum();
            assert!((total - 1.0).abs() < 1e-12, "column sums to 1");
        }
    }
}

#[test]
fn layer_norm_block_from_a_vec_matches_row_by_row() {
    let g = Tensor::<f32, Shape![64]>::from_vec(
        f32::random(64, 18)
            .iter()
            .map(|v| v.clamp(-2.0, 2.0))
            .collect(),
    )
    .unwrap();
    let b = Tensor::<f32, Shape![64]>::from_vec(
        f32::random(64, 19)
            .iter()
            .map(|v| v.clamp(-2.0, 2.0))
            .collect(),
    )
    .unwrap();
    for rows in [0, 1, 9, big((1 << 18) / 64 + 1)] {
        let x: Vec<f32> = f32::random(rows * 64, 20)
            .iter()
            .map(|v| v.clamp(-1e3, 1e3))
            .collect();
        let y = layer_norm_gelu(&x, &g, &b).unwrap();
        assert_eq!(y.shape(), &[rows, 64]);
        for r in (0..rows).step_by(97.max(rows / 50)) {
            let row = Tensor::<f32, Shape![1, 64]>::from_slice(&x[r * 64..(r + 1) * 64]).unwrap();
            let e = layer_norm_gelu_1(&row, &g, &b);
            assert_close(
                "layer_norm_gelu",
                &y.as_slice()[r * 64..(r + 1) * 64],
                e.as_slice(),
                |i| format!("row {r} col {i}"),
                0.0,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shape ops keep names.

graph! {
    fn shapes(x: f32[B, 6], v: f32[4]) -> (f32[6, B], f32[B, 1, 6], f32[B, 2, 3], f32[B, 4], f32[B, 6]) {
        (transpose(x), expand_dims(x, 1), reshape(x, [B, 2, -1]), broadcast_to(v, [B, 4]),
         squeeze(dimshuffle(expand_dims(x, 0), [1, 'x', 2]), 1))
    }
    fn rank6(x: i16[A, 1, B, 2, C, 3], y: i16[B, 1, C, 1]) -> i16[A, 1, B, 2, C, 3] { x * 3 - y }
}

#[test]
fn shape_ops_keep_names() {
    for b in [0, 1, 5] {
        let x = f32::random(b * 6, 21);
        let v = Tensor::<f32, Shape![4]>::from_vec(f32::random(4, 22)).unwrap();
        let (t, e, r, bc, sq) = shapes(&x, &v).unwrap();
        assert_eq!(t.shape(), &[6, b]);
        assert_eq!(e.shape(), &[b, 1, 6]);
        assert_eq!(r.shape(), &[b, 2, 3]);
        assert_eq!(bc.shape(), &[b, 4]);
        assert_eq!(sq.as_slice(), &x[..]);
        assert_eq!(e.as_slice(), &x[..]);
        assert_eq!(r.as_slice(), &x[..]);
        for i in 0..b {
            for j in 0..6 {
                assert_eq!(t[[j, i]].to_bits(), x[i * 6 + j].to_bits());
            }
            assert_eq!(&bc.as_slice()[i * 4..i * 4 + 4], v.as_slice());
        }
    }
}

#[test]
fn rank_six_with_three_names() {
    let (a, b, c) = (2, 3, 5);
    let x = Tensor::<i16, Shape![_, 1, _, 2, _, 3]>::from_shape_vec(
        [a, 1, b, 2, c, 3],
        i16::random(a * b * 2 * c * 3, 23),
    )
    .unwrap();
    let y = Tensor::<i16, Shape![_, 1, _, 1]>::from_shape_vec([b, 1, c, 1], i16::random(b * c, 24))
        .unwrap();
    let got = rank6(&x, &y).unwrap();
    for i in 0..a {
        for j in 0..b {
            for k in 0..2 {
                for l in 0..c {
                    for m in 0..3 {
                        let e = x[[i, 0, j, k, l, m]]
                            .wrapping_mul(3)
                            .wrapping_sub(y[[j, 0, l, 0]]);
                        assert_eq!(got[[i, 0, j, k, l, m]], e);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Inputs from anywhere, and `_into` outputs.

graph! {
    fn axpy(a: f32, x: f32[N], y: f32[N]) -> f32[N] { a * x + y }
}

#[test]
fn inputs_from_slices_vecs_views_and_tensors_of_any_shape_type() {
    let x: Vec<f32> = (0..10).map(|i| i as f32).collect();
    let y = vec![1.0f32; 10];
    let expected: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(axpy(2.0, &x, &y).unwrap().as_slice(), &expected[..]);
    assert_eq!(axpy(2.0, &x[..], &y[..]).unwrap().as_slice(), &expected[..]);
    let xs = Tensor::<f32, Shape![10]>::from_vec(x.clone()).unwrap();
    let xd = Tensor::<f32, Shape![_]>::from_vec(x.clone()).unwrap();
    let yv = TensorView::<f32, Shape![_]>::new(&y).unwrap();
    assert_eq!(axpy(2.0, &xs, &yv).unwrap().as_slice(), &expected[..]);
    assert_eq!(axpy(2.0, &xd, yv).unwrap().as_slice(), &expected[..]);
    // `_into` into a slice, a Vec and a dynamic tensor; nothing written on error.
    let mut out = vec![0.0f32; 10];
    axpy_into(2.0, &x, &y, &mut out[..]).unwrap();
    assert_eq!(out, expected);
    let mut short = vec![-1.0f32; 9];
    let err = axpy_into(2.0, &x, &y, &mut short).unwrap_err();
    assert!(
        short.iter().all(|&v| v == -1.0),
        "a failed check writes nothing"
    );
    assert!(err.to_string().contains("axpy"), "{err}");
    let mut t = Tensor::<f32, Shape![_]>::zeros_with_dims([10]).unwrap();
    axpy_into(2.0, &x, &y, &mut t).unwrap();
    assert_eq!(t.as_slice(), &expected[..]);
}

// ---------------------------------------------------------------------------------------
// Call-entry errors: which name, which argument and axis, both sizes, the signature.

graph! {
    fn ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768] { x * expand_dims(g, 1) }
    fn two(x: f32[B, S], y: f32[S]) -> f32[B, S] { x + y }
}

#[test]
fn mismatched_names_are_errors_naming_both_occurrences() {
    let x = Tensor::<f32, Shape![_, 768]>::from_vec(vec![0.0; 4 * 768]).unwrap();
    let g = vec![0.0f32; 5];
    let err = ln(&x, &g).unwrap_err();
    let text = err.to_string();
    assert_eq!(
        text,
        "graph `ln`: dim `B` is 5 in `g` (axis 0) but 4 in `x` (axis 0); signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
    );
    assert!(matches!(err, ShapeError::DimMismatch { .. }));
    // A slice whose length is not a multiple of the literal dims.
    let err = ln(&vec![0.0f32; 770][..], &g).unwrap_err();
    assert!(err.to_string().contains("770"), "{err}");
    // A run-time literal dim that differs.
    let wrong = Tensor::<f32, Shape![_, _]>::from_shape_vec([4, 767], vec![0.0; 4 * 767]).unwrap();
    let err = ln(&wrong, &vec![0.0f32; 4]).unwrap_err();
    assert!(
        err.to_string().contains("767") && err.to_string().contains("768"),
        "{err}"
    );
    // Two names from a dynamic tensor, and a mismatch on the second.
    let x = Tensor::<f32, Shape![_, _]>::from_shape_vec([2, 3], vec![1.0; 6]).unwrap();
    assert!(two(&x, &[1.0f32, 2.0, 3.0][..]).is_ok());
    let err = two(&x, &[1.0f32, 2.0][..]).unwrap_err();
    assert!(err.to_string().contains("`S`"), "{err}");
}

#[allow(dead_code)]
fn _dyn_is_public(_: Dyn) {}

// ---------------------------------------------------------------------------------------
// Review findings (helper-2), each a regression test.

graph! {
    /// A row stage split across threads whose second output has rows of 0 elements.
    fn two_widths(x: f32[B, 4096], s: f32[B, 1], y: f32[B, S]) -> (f32[B, 4096], f32[B, S]) {
        (x * s, y * s)
    }
    fn two_widths_lit(x: f32[512, 1024], y: f32[512, 0]) -> (f32[512, 1024], f32[512, 0]) {
        (x * 2.0, y * 2.0)
    }
    /// A user name that looks like the kernels' internal block counts.
    fn coll(x: f32[__blocks0]) -> f32[] { sum(x) }
    fn raw(x: f32[r#B]) -> f32[B] { x + 1.0 }
    /// Names from two arguments multiply in a temp of A·C elements.
    fn cross(a: f32[A, Z], c: f32[C, Z]) -> f32[] { sum(sum(expand_dims(a, 1) + expand_dims(c, 0), axis = 2)) }
    /// An output of A·B elements from two empty arguments.
    fn outer_empty(a: f32[A, 0], b: f32[B, 0]) -> f32[A, B] {
        expand_dims(sum(a, axis = 1), 1) + expand_dims(sum(b, axis = 1), 0)
    }
}

#[test]
fn zero_length_rows_in_a_split_stage() {
    let x = vec![1.5f32; 64 * 4096];
    let s = vec![2.0f32; 64];
    let y = Tensor::<f32, Shape![_, _]>::from_shape_vec([64, 0], vec![]).unwrap();
    let (a, b) = two_widths(&x, &s, &y).unwrap();
    assert!(a.as_slice().iter().all(|&v| v == 3.0));
    assert_eq!(b.shape(), &[64, 0]);
    let xl = Tensor::<f32, Shape![512, 1024]>::full(1.0);
    let (a, b) = two_widths_lit(&xl, &Tensor::zeros());
    assert!(a.as_slice().iter().all(|&v| v == 2.0));
    assert!(b.as_slice().is_empty());
}

#[test]
fn names_that_look_internal_or_raw() {
    assert_eq!(coll(&vec![1.0f32; 5]).unwrap()[[]], 5.0);
    assert_eq!(coll(&vec![1.0f32; 20000]).unwrap()[[]], 20000.0);
    assert_eq!(raw(&[1.0f32, 2.0][..]).unwrap().as_slice(), &[2.0, 3.0]);
}

#[test]
fn products_of_names_from_two_arguments_are_checked() {
    let a = Tensor::<f32, Shape![_, _]>::from_shape_vec([1 << 33, 0], vec![]).unwrap();
    let err = cross(&a, &a).unwrap_err();
    assert!(
        matches!(err, ShapeError::Overflow { graph: "cross", .. }),
        "{err}"
    );
    let a = Tensor::<f32, Shape![_, _]>::from_shape_vec([3, 2], vec![1.0; 6]).unwrap();
    let c = Tensor::<f32, Shape![_, _]>::from_shape_vec([4, 2], vec![0.5; 8]).unwrap();
    assert_eq!(cross(&a, &c).unwrap()[[]], 3.0 * 4.0 * 2.0 * 1.5);
}

graph! {
    /// A temp of S elements, S bound from an empty argument.
    fn lone_temp(x: f32[S, K]) -> f32[] { sum(cumsum(sum(x, axis = 1), axis = 0)) }
    /// A right operand of K·N elements that no buffer holds (a broadcast scalar), packed.
    fn packed_broadcast(x: f32[M, K], y: f32[N, Z], s: f32[]) -> f32[M, N] { x @ broadcast_to(s, [K, N]) }
}

/// Issue 37, item 2: sizes no memory holds, from names bound by empty arguments, are the
/// call's `Err` (2^53 elements at most, `bind::MAX_ELEMENTS`), not a panic where a temp or a
/// packed operand is allocated ("capacity overflow", "the operand's size fits in memory").
#[test]
fn sizes_past_memory_are_errors_not_panics() {
    let empty =
        |rows: usize| Tensor::<f32, Shape![_, _]>::from_shape_vec([rows, 0], vec![]).unwrap();
    let intermediate = |err: ShapeError| {
        assert!(
            matches!(
                err,
                ShapeError::Overflow {
                    arg: "an intermediate value",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("more than 2^53 elements"), "{err}");
    };
    intermediate(lone_temp(&empty(1 << 62)).unwrap_err());
    intermediate(lone_temp(&empty((1 << 53) + 1)).unwrap_err());
    intermediate(cross(&empty(1 << 31), &empty(1 << 31)).unwrap_err());
    let s = Tensor::<f32, Shape![]>::zeros();
    for k in [31, 33] {
        let x = Tensor::<f32, Shape![_, _]>::from_shape_vec([0, 1 << k], vec![]).unwrap();
        intermediate(packed_broadcast(&x, &empty(1 << k), &s).unwrap_err());
    }
    // At ordinary sizes the same graphs run.
    let x = Tensor::<f32, Shape![_, _]>::from_shape_vec([3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .unwrap();
    // Row sums 3, 7, 11; running sums 3, 10, 21.
    assert_eq!(lone_temp(&x).unwrap()[[]], 34.0);
    let y = Tensor::<f32, Shape![_, _]>::from_shape_vec([4, 0], vec![]).unwrap();
    let s = Tensor::<f32, Shape![]>::full(0.5);
    let p = packed_broadcast(&x, &y, &s).unwrap();
    assert_eq!(p.shape(), &[3, 4]);
    assert_eq!(p[[2, 3]], 5.5);
}

#[test]
fn an_output_too_large_to_allocate_is_an_error() {
    let a = Tensor::<f32, Shape![_, _]>::from_shape_vec([1 << 33, 0], vec![]).unwrap();
    let err = outer_empty(&a, &a).unwrap_err();
    assert_eq!(
        err,
        ShapeError::TooLarge {
            dims: "[8589934592, 8589934592]".to_string()
        }
    );
    assert_eq!(
        err.to_string(),
        "a tensor of shape [8589934592, 8589934592] has more elements than memory can address"
    );
    let b = Tensor::<f32, Shape![_, _]>::from_shape_vec([3, 0], vec![]).unwrap();
    let c = Tensor::<f32, Shape![_, _]>::from_shape_vec([2, 0], vec![]).unwrap();
    let out = outer_empty(&b, &c).unwrap();
    assert_eq!(out.shape(), &[3, 2]);
    assert!(out.as_slice().iter().all(|&v| v == 0.0));
}

graph! {
    /// Names whose sorted product meets the 0 last: `A·B·Z` and `2·A·Z`, each the element
    /// count of the argument itself.
    fn zero_last(x: f32[Z, A, B]) -> f32[] { sum(x) }
    fn zero_last_map(x: f32[Z, A, B]) -> f32[Z, A, B] { x * 2.0 }
    fn zero_last_coeff(x: f32[Z, 2, A]) -> f32[] { sum(x) }
}

/// An argument whose dims hold a 0 beside others that multiply past `usize::MAX` (a static
/// shape: `Tensor::zeros` computes only its `LEN`, which the leading 0 makes 0; call entry's
/// `checked_product` is 0 as soon as one dim is). The kernel's sizes from several names
/// (`A·B·Z`, `2·A·Z`) are computed left to right, so their partial products overflow before
/// the 0: call entry returns the `Overflow` of an intermediate value, as it did before the
/// checks of sizes an argument bounds were dropped (`bounded_by`), not a panic in the
/// kernel (debug) or an `Ok` (release).
#[test]
fn a_zero_dim_beside_dims_past_usize_is_an_overflow_error() {
    let x = Tensor::<f32, Shape![0, { 1 << 40 }, { 1 << 40 }]>::zeros();
    assert_eq!(x.as_slice().len(), 0);
    let intermediate = |err: ShapeError, graph: &str| {
        assert!(
            matches!(err, ShapeError::Overflow { graph: g, arg: "an intermediate value", .. } if g == graph),
            "{err:?}"
        );
    };
    intermediate(zero_last(&x).unwrap_err(), "zero_last");
    let mut out = Tensor::<f32, Shape![0, { 1 << 40 }, { 1 << 40 }]>::zeros();
    intermediate(
        zero_last_map_into(&x, &mut out).unwrap_err(),
        "zero_last_map",
    );
    // The allocating form fails to allocate first (its output is not addressable).
    assert!(matches!(
        zero_last_map(&x).unwrap_err(),
        ShapeError::TooLarge { .. }
    ));
    let y = Tensor::<f32, Shape![0, 2, { 1 << 63 }]>::zeros();
    intermediate(zero_last_coeff(&y).unwrap_err(), "zero_last_coeff");
    // The same graphs on ordinary empty and non-empty arguments.
    let e = Tensor::<f32, Shape![_, _, _]>::from_shape_vec([0, 3, 5], vec![]).unwrap();
    assert_eq!(zero_last(&e).unwrap()[[]], 0.0);
    let v = Tensor::<f32, Shape![_, _, _]>::from_shape_vec([2, 3, 5], vec![0.5; 30]).unwrap();
    assert_eq!(zero_last(&v).unwrap()[[]], 15.0);
    assert!(zero_last_map(&v)
        .unwrap()
        .as_slice()
        .iter()
        .all(|&t| t == 1.0));
    let w = Tensor::<f32, Shape![_, 2, _]>::from_shape_vec([3, 2, 7], vec![0.25; 42]).unwrap();
    assert_eq!(zero_last_coeff(&w).unwrap()[[]], 10.5);
}

#[test]
fn closure_with_names_and_a_declared_output() {
    let f = graph!(|x: f32[B], y: f32[B]| -> f32[B] { x * y });
    assert_eq!(
        f(&[2.0f32, 3.0][..], &[4.0f32, 5.0][..])
            .unwrap()
            .as_slice(),
        &[8.0, 15.0]
    );
    let err = f(&[2.0f32, 3.0][..], &[4.0f32][..])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("graph `closure`") && err.contains("|x: f32[B], y: f32[B]| -> f32[B]"),
        "{err}"
    );
}

/// Issue 37: the closure form with names takes borrows that end before the closure does
/// (each call chooses its own lifetime), for every argument form, called in a loop over
/// buffers made and dropped at each turn.
#[test]
fn closure_with_names_takes_short_borrows() {
    let g = graph!(|x: f32[B]| x * 2.0);
    for c in 0..3 {
        let v = vec![c as f32; 4];
        let y = g(&v[..]).unwrap();
        assert_eq!(y.as_slice(), &[2.0 * c as f32; 4]);
    }
    let h = graph!(|x: f32[B, 3], s: f32, b: f32[3]| -> f32[B, 3] { x * s + b });
    let b = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, 2.0, 3.0]).unwrap();
    for rows in 1..4 {
        let t = Tensor::<f32, Shape![_, 3]>::from_vec(vec![rows as f32; rows * 3]).unwrap();
        let y = h(&t, 0.5, &b).unwrap();
        assert_eq!(y.shape(), &[rows, 3]);
        for r in 0..rows {
            for c in 0..3 {
                assert_eq!(y[[r, c]], rows as f32 * 0.5 + (c + 1) as f32);
            }
        }
    }
    let k = graph!(|x: f32[B]| sum(x));
    for n in 0..3 {
        let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
        assert_eq!(k(&v).unwrap()[[]], (0..n).sum::<usize>() as f32);
    }
}
