//! W1 `relu(a + b) * 2.0`, W2 `tanh(x) * exp(-(x * x))` over 2^20 f32 (a dim name `N`)
//! and W3 `softmax(x, axis = -1)` over [1024, 1024] f32, each called through its `_into`
//! form, against the same loops written by hand in scalar Rust in the same build: ms per
//! call, the median of 15 calls after one. `cargo run` in a debug build runs the block
//! programs (NOTES.md "Debug backend"); see run.sh for the builds compared.

use std::time::Instant;

tensorgraph::graph! {
    fn w1(a: f32[N], b: f32[N]) -> f32[N] { relu(a + b) * 2.0 }
    fn w2(x: f32[N]) -> f32[N] { tanh(x) * exp(-(x * x)) }
    fn w3(x: f32[R, 1024]) -> f32[R, 1024] { softmax(x, axis = -1) }
}

fn hand_w1(a: &[f32], b: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = (a[i] + b[i]).max(0.0) * 2.0;
    }
}

fn hand_w2(x: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = x[i].tanh() * (-(x[i] * x[i])).exp();
    }
}

fn hand_w3(x: &[f32], out: &mut [f32], cols: usize) {
    for r in 0..x.len() / cols {
        let row = &x[r * cols..(r + 1) * cols];
        let mut max = f32::NEG_INFINITY;
        for i in 0..cols {
            max = max.max(row[i]);
        }
        let mut sum = 0.0;
        for i in 0..cols {
            let e = (row[i] - max).exp();
            out[r * cols + i] = e;
            sum += e;
        }
        for i in 0..cols {
            out[r * cols + i] /= sum;
        }
    }
}

fn median_ms(mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..15)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[7]
}

fn main() {
    let n = 1 << 20;
    let a: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 250.0 - 2.0)
        .collect();
    let b: Vec<f32> = (0..n)
        .map(|i| ((i * 104729) % 1000) as f32 / 500.0 - 1.0)
        .collect();
    let mut out = vec![0f32; n];
    let x3 = tensorgraph::Tensor::<f32, tensorgraph::Shape![_, 1024]>::from_shape_vec(
        [n / 1024, 1024],
        a.clone(),
    )
    .unwrap();
    let mut out3 = tensorgraph::Tensor::<f32, tensorgraph::Shape![_, 1024]>::from_shape_vec(
        [n / 1024, 1024],
        vec![0f32; n],
    )
    .unwrap();
    // `debug_run w1 hand_w1` runs only those (a profile of one workload).
    let only: Vec<String> = std::env::args().skip(1).collect();
    let want = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let mut figures = Vec::new();
    if want("w1") {
        figures.push(("w1", median_ms(|| w1_into(&a, &b, &mut out[..]).unwrap())));
    }
    if want("hand_w1") {
        figures.push(("hand_w1", median_ms(|| hand_w1(&a, &b, &mut out))));
    }
    if want("w2") {
        figures.push(("w2", median_ms(|| w2_into(&a, &mut out[..]).unwrap())));
    }
    if want("hand_w2") {
        figures.push(("hand_w2", median_ms(|| hand_w2(&a, &mut out))));
    }
    if want("w3") {
        figures.push(("w3", median_ms(|| w3_into(&x3, &mut out3).unwrap())));
    }
    if want("hand_w3") {
        figures.push(("hand_w3", median_ms(|| hand_w3(&a, &mut out, 1024))));
    }
    let line: Vec<String> = figures.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
    println!("{}", line.join("  "));
}
