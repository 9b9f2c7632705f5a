//! `softmax_cross_entropy` and `nll_loss` against ONNX's definitions computed here in f64:
//! every reduction, class weights, `ignore_index`, extra dims after the class axis, large
//! and equal scores, and labels out of range as an `Err`.

use tensorgraph::prelude::*;
use tensorgraph::ShapeError;

graph! {
    fn sce_mean(x: f32[N, C], labels: i64[N]) -> f32[] { softmax_cross_entropy(x, labels) }
    fn sce_sum(x: f32[N, C], labels: i32[N]) -> f32[] { softmax_cross_entropy(x, labels, reduction = sum) }
    fn sce_none_w(x: f64[N, C], labels: i64[N], w: f64[C]) -> f64[N] {
        softmax_cross_entropy(x, labels, weight = w, reduction = none, ignore_index = -100)
    }
    fn sce_mean_w(x: f64[N, C], labels: i64[N], w: f64[C]) -> f64[] {
        softmax_cross_entropy(x, labels, weight = w, ignore_index = 2)
    }
    fn sce_spatial(x: f32[2, 3, 4], labels: u8[2, 4]) -> f32[2, 4] {
        softmax_cross_entropy(x, labels, reduction = none)
    }
    fn nll(lp: f32[N, C], labels: i64[N], w: f32[C]) -> (f32[], f32[N]) {
        (nll_loss(lp, labels, weight = w), nll_loss(lp, labels, reduction = none))
    }
}

/// ONNX SoftmaxCrossEntropyLoss per element of `[n, c]` scores, and the weights used.
fn reference(
    x: &[f64],
    c: usize,
    labels: &[i64],
    w: Option<&[f64]>,
    ignore: Option<i64>,
    log_probs: bool,
) -> (Vec<f64>, Vec<f64>) {
    let mut loss = Vec::new();
    let mut weights = Vec::new();
    for (r, &label) in labels.iter().enumerate() {
        let row = &x[r * c..(r + 1) * c];
        if Some(label) == ignore {
            loss.push(0.0);
            weights.push(0.0);
            continue;
        }
        let logp = if log_probs {
            row[label as usize]
        } else {
            let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lse = row.iter().map(|v| (v - m).exp()).sum::<f64>().ln() + m;
            row[label as usize] - lse
        };
        let wl = w.map_or(1.0, |w| w[label as usize]);
        loss.push(-wl * logp);
        weights.push(wl);
    }
    (loss, weights)
}

fn m<T: tensorgraph::Element>(r: usize, c: usize, v: &[T]) -> Tensor<T, tensorgraph::Shape![_, _]> {
    Tensor::from_shape_vec([r, c], v.to_vec()).unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn cross_entropy_as_onnx() {
    for (n, c) in [(1usize, 1usize), (1, 5), (3, 4), (17, 10), (64, 1000)] {
        let x: Vec<f32> = (0..n * c)
            .map(|i| ((i * 7919 % 101) as f32 - 50.0) * 0.3)
            .collect();
        let labels: Vec<i64> = (0..n as i64).map(|i| (i * 31) % c as i64).collect();
        let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let (loss, _) = reference(&x64, c, &labels, None, None, false);
        let mean = loss.iter().sum::<f64>() / n as f64;
        let got = sce_mean(&m(n, c, &x), &labels).unwrap().item() as f64;
        assert!(close(got, mean, 1e-5), "n={n} c={c}: {got} vs {mean}");
        let l32: Vec<i32> = labels.iter().map(|&v| v as i32).collect();
        let got = sce_sum(&m(n, c, &x), &l32).unwrap().item() as f64;
        assert!(close(got, loss.iter().sum(), 1e-5), "sum n={n} c={c}");

        let w: Vec<f64> = (0..c).map(|k| 0.5 + k as f64 * 0.25).collect();
        let mut lab = labels.clone();
        if n > 2 {
            lab[1] = -100;
        }
        let (loss, _) = reference(&x64, c, &lab, Some(&w), Some(-100), false);
        let got = sce_none_w(&m(n, c, &x64), &lab, &w).unwrap();
        for (g, want) in got.as_slice().iter().zip(&loss) {
            assert!(close(*g, *want, 1e-12), "none n={n} c={c}: {g} vs {want}");
        }
        if c > 2 {
            let mut lab = labels.clone();
            lab[0] = 2;
            let (loss, weights) = reference(&x64, c, &lab, Some(&w), Some(2), false);
            let want = loss.iter().sum::<f64>() / weights.iter().sum::<f64>();
            let got = sce_mean_w(&m(n, c, &x64), &lab, &w).unwrap().item();
            if weights.iter().sum::<f64>() == 0.0 {
                assert!(got.is_nan(), "n={n} c={c}: {got}");
            } else {
                assert!(
                    close(got, want, 1e-12),
                    "mean w n={n} c={c}: {got} vs {want}"
                );
            }
        }
    }
}

#[test]
fn spatial_dims_and_nll() {
    let x: Vec<f32> = (0..24).map(|i| (i as f32 * 0.37).sin() * 4.0).collect();
    let labels = Tensor::<u8, Shape![2, 4]>::from_vec(vec![0, 1, 2, 0, 2, 2, 1, 0]).unwrap();
    let y = sce_spatial(&Tensor::from_vec(x.clone()).unwrap(), &labels).unwrap();
    for b in 0..2 {
        for p in 0..4 {
            let row: Vec<f64> = (0..3).map(|k| x[(b * 3 + k) * 4 + p] as f64).collect();
            let (loss, _) = reference(&row, 3, &[labels[[b, p]] as i64], None, None, false);
            assert!(close(y[[b, p]] as f64, loss[0], 1e-5));
        }
    }
    let lp: Vec<f32> = (0..12).map(|i| -(i as f32) * 0.1 - 0.05).collect();
    let labels = [3i64, 0, 2];
    let w = [1.0f32, 2.0, 0.5, 3.0];
    let (mean, none) = nll(&m(3, 4, &lp), &labels[..], &w[..]).unwrap();
    let lp64: Vec<f64> = lp.iter().map(|&v| v as f64).collect();
    let w64: Vec<f64> = w.iter().map(|&v| v as f64).collect();
    let (loss, weights) = reference(&lp64, 4, &labels, Some(&w64), None, true);
    assert!(close(
        mean.item() as f64,
        loss.iter().sum::<f64>() / weights.iter().sum::<f64>(),
        1e-6
    ));
    let (plain, _) = reference(&lp64, 4, &labels, None, None, true);
    for (g, want) in none.as_slice().iter().zip(&plain) {
        assert!(close(*g as f64, *want, 1e-6));
    }
}

#[test]
fn labels_out_of_range_are_errors() {
    let x = vec![0.0f32; 3 * 4];
    for bad in [4i64, -1, i64::MAX, i64::MIN] {
        let err = sce_mean(&m(3, 4, &x), &[0, bad, 1][..]).unwrap_err();
        match &err {
            ShapeError::IndexOutOfRange {
                op: "softmax_cross_entropy",
                value,
                position,
                ..
            } => {
                assert_eq!(*value, bad as i128);
                assert_eq!(position, "[1]");
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("valid: 0..4"), "{err}");
    }
    // `ignore_index` is allowed whatever its value.
    let w = vec![1.0f64; 4];
    let x64 = vec![0.0f64; 3 * 4];
    assert!(sce_none_w(&m(3, 4, &x64), &[0, -100, 3][..], &w).is_ok());
    assert!(sce_none_w(&m(3, 4, &x64), &[0, -99, 3][..], &w).is_err());
}

graph! {
    fn nll_signed_zero(lp: f32[N, C], labels: i64[N]) -> f32[N] {
        nll_loss(lp, labels, reduction = none, ignore_index = 1)
    }
    fn nll_signed_weight(lp: f32[N, 3], labels: i64[N], w: f32[3]) -> f32[N] {
        nll_loss(lp, labels, weight = w, reduction = none)
    }
}

/// Signed zeros as ONNX's reference gives them (found by the random-graph soak, seed 35,
/// graphs 477 and 479; NOTES.md, "Random graphs: attention"): the loss of a picked `-0.0`
/// is `-(-0.0) = +0.0`, of a picked `+0.0` it is `-0.0`, and an ignored element's is
/// `+0.0` whatever its scores. The kernels pick the label's score with a max over
/// `where(class == label, x, -inf)`, which keeps its sign (a sum turned `-0.0` into `+0.0`),
/// and select `+0.0` for an ignored element (`+0.0 · -x` was `-0.0` for a positive score).
#[test]
fn nll_signed_zeros_as_onnx() {
    // Row 0 picks -0.0; row 1 is ignored with positive scores; row 2 picks +0.0; row 3 is
    // ignored with -0.0 at its label.
    let lp = [-0.0f32, 0.5, 0.25, 0.75, 0.0, 0.3, 0.2, -0.0];
    let y = nll_signed_zero(&m(4, 2, &lp), &[0i64, 1, 0, 1][..]).unwrap();
    let bits: Vec<u32> = y.as_slice().iter().map(|v| v.to_bits()).collect();
    let want: Vec<u32> = [0.0f32, 0.0, -0.0, 0.0]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(bits, want);
    // A weight of -0.0 (seed 35, graph 669): ONNX's `-x[label] · w[label]`, the weight's
    // sign kept (a summed pick of the weight made it +0.0).
    let w = [-0.0f32, 0.0, 2.0];
    let lp = [
        1.0f32, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 5.0,
    ];
    let y = nll_signed_weight(&m(4, 3, &lp), &[0i64, 0, 1, 2][..], &w).unwrap();
    let bits: Vec<u32> = y.as_slice().iter().map(|v| v.to_bits()).collect();
    let want: Vec<u32> = [(-1.0f32) * -0.0, (1.0f32) * -0.0, (0.0f32) * 0.0, -10.0]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(bits, want);
}
