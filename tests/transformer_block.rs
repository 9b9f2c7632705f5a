//! The transformer block of examples/transformer_block.rs against a scalar f64 reference
//! written here with plain loops, over run-time sequence lengths.

mod common;

#[allow(dead_code)]
#[path = "../examples/transformer_block.rs"]
mod example;

use example::{Weights, D, H};

fn layer_norm(x: &[f64], g: &[f32], b: &[f32]) -> Vec<f64> {
    let n = x.len() as f64;
    let mu = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / n;
    x.iter()
        .enumerate()
        .map(|(j, v)| (v - mu) / (var + 1e-5).sqrt() * g[j] as f64 + b[j] as f64)
        .collect()
}

/// `x (rows × k) · w (k × n)`.
fn matmul(x: &[f64], w: &[f32], rows: usize, k: usize, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; rows * n];
    for i in 0..rows {
        for p in 0..k {
            for j in 0..n {
                out[i * n + j] += x[i * k + p] * w[p * n + j] as f64;
            }
        }
    }
    out
}

fn reference(w: &Weights, x: &[f32], seq: usize) -> Vec<f64> {
    let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let h: Vec<f64> = (0..seq)
        .flat_map(|i| layer_norm(&xf[i * D..(i + 1) * D], &w.g1, &w.b1))
        .collect();
    let (q, k, v) = (
        matmul(&h, &w.wq, seq, D, D),
        matmul(&h, &w.wk, seq, D, D),
        matmul(&h, &w.wv, seq, D, D),
    );
    let mut attn = vec![0.0; seq * D];
    for i in 0..seq {
        // Causal: token i sees tokens 0..=i.
        let scores: Vec<f64> = (0..=i)
            .map(|j| (0..D).map(|c| q[i * D + c] * k[j * D + c]).sum::<f64>() * 0.125)
            .collect();
        let m = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = scores.iter().map(|s| (s - m).exp()).sum();
        for (j, s) in scores.iter().enumerate() {
            for c in 0..D {
                attn[i * D + c] += (s - m).exp() / z * v[j * D + c];
            }
        }
    }
    let proj = matmul(&attn, &w.wo, seq, D, D);
    let y: Vec<f64> = xf.iter().zip(&proj).map(|(a, b)| a + b).collect();
    let h2: Vec<f64> = (0..seq)
        .flat_map(|i| layer_norm(&y[i * D..(i + 1) * D], &w.g2, &w.b2))
        .collect();
    let hidden: Vec<f64> = matmul(&h2, &w.w1, seq, D, H)
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let u = v + w.c1[k % H] as f64;
            0.5 * u * (1.0 + common::erf_f64(u / std::f64::consts::SQRT_2))
        })
        .collect();
    let out = matmul(&hidden, &w.w2, seq, H, D);
    y.iter()
        .zip(&out)
        .enumerate()
        .map(|(k, (a, b))| a + b + w.c2[k % D] as f64)
        .collect()
}

#[test]
fn block_matches_the_scalar_reference_at_run_time_lengths() {
    let w = Weights::new(7);
    for seq in [1usize, 2, 7, 33, 70] {
        let x: Vec<f32> = (0..seq * D)
            .map(|k| ((k * 37 % 101) as f32 / 50.0) - 1.0)
            .collect();
        let got = w.run(&x, seq).unwrap();
        let want = reference(&w, &x, seq);
        // f32 through two layer norms, five products of length ≤ 256 and a softmax: the
        // outputs are O(1); 2e-4 absolute is ~1000 f32 ulps of headroom over the f32
        // rounding of sums of ≤ 256 terms.
        for (i, (&g, &r)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g as f64 - r).abs() <= 2e-4,
                "seq {seq}, element {i}: {g} vs {r}"
            );
        }
    }
}
