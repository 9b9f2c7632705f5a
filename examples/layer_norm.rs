//! Layer normalisation written as a graph: mean, variance, rsqrt, scale, shift.
//! The two reductions run row by row, fused with their producers and with the final
//! elementwise pass, so each row is read from memory once and stays in cache.
//!
//! `cargo run --release --example layer_norm`

use tensorgraph::prelude::*;

graph! {
    /// `(x - mean) / sqrt(var + eps) * gamma + beta` over the last axis.
    pub fn layer_norm(x: f32[8, 512], gamma: f32[512], beta: f32[512], eps: f32) -> f32[8, 512] {
        let mu = mean(x, axis = -1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = -1, keepdims = true);
        d * rsqrt(var + eps) * gamma + beta
    }

    /// The row statistics alone, as several outputs of one graph.
    pub fn row_stats(x: f32[8, 512]) -> (f32[8], f32[8], f32[8], i64[8]) {
        (mean(x, axis = 1), sqrt(mean((x - mean(x, axis = 1, keepdims = true)) * (x - mean(x, axis = 1, keepdims = true)), axis = 1)),
         max(x, axis = 1), argmax(x, axis = 1))
    }
}

fn main() {
    let x = Tensor::<f32, Shape![8, 512]>::from_fn(|[i, j]| {
        ((i * 31 + j * 17) % 97) as f32 * 0.1 + i as f32
    });
    let gamma = Tensor::<f32, Shape![512]>::from_fn(|[j]| 1.0 + (j % 4) as f32 * 0.25);
    let beta = Tensor::<f32, Shape![512]>::from_fn(|[j]| (j % 3) as f32 - 1.0);

    let y = layer_norm(&x, &gamma, &beta, 1e-5);
    let (mean, std, max, argmax) = row_stats(&x);
    println!("input row means: {:?}", mean.as_slice());
    println!("input row stds:  {:?}", std.as_slice());
    println!("row max {:?} at {:?}", max.as_slice(), argmax.as_slice());

    // Every normalised row has mean ≈ 0 and variance ≈ 1 before the affine part.
    let (norm_mean, norm_std, _, _) =
        row_stats(&layer_norm(&x, &Tensor::full(1.0), &Tensor::zeros(), 1e-5));
    println!("normalised means: {:?}", norm_mean.as_slice());
    println!("normalised stds:  {:?}", norm_std.as_slice());
    println!("y[0, 0..6] = {:?}", &y.as_slice()[..6]);
    assert!(norm_std.as_slice().iter().all(|s| (s - 1.0).abs() < 1e-3));
}
