//! A pre-norm transformer block (one attention head, an MLP with gelu) as one graph over a
//! sequence whose length `S` is known only at run time: layer norm, three projections,
//! causal attention (`where` with a mask, `softmax`), the output projection, residuals.
//! Every product is checked at compile time (a wrong weight shape does not compile) and
//! its elementwise consumers run on each block of its rows while they are in cache.
//!
//! `cargo run --release --example transformer_block` (add `--features safetensors` to save
//! the weights to a safetensors file first and run the block on views of the mapped file)

use tensorgraph::prelude::*;

/// The model width and the MLP's hidden width.
pub const D: usize = 64;
pub const H: usize = 256;

graph! {
    /// `y = x + attention(layer_norm(x)); y + mlp(layer_norm(y))`, causal: token `i` sees
    /// tokens `j ≤ i` (`mask[i, j]`).
    #[allow(clippy::too_many_arguments)]
    pub fn block(
        x: f32[S, 64], mask: bool[S, S],
        g1: f32[64], b1: f32[64], wq: f32[64, 64], wk: f32[64, 64], wv: f32[64, 64], wo: f32[64, 64],
        g2: f32[64], b2: f32[64], w1: f32[64, 256], c1: f32[256], w2: f32[256, 64], c2: f32[64]
    ) -> f32[S, 64] {
        let h = layer_norm(x, g1, b1);
        let scores = where(mask, (h @ wq) @ transpose(h @ wk) * 0.125, -inf);
        let y = x + (softmax(scores, axis = -1) @ (h @ wv)) @ wo;
        y + gelu(layer_norm(y, g2, b2) @ w1 + c1) @ w2 + c2
    }
}

/// The block's weights, row-major.
pub struct Weights {
    pub g1: Vec<f32>,
    pub b1: Vec<f32>,
    pub wq: Vec<f32>,
    pub wk: Vec<f32>,
    pub wv: Vec<f32>,
    pub wo: Vec<f32>,
    pub g2: Vec<f32>,
    pub b2: Vec<f32>,
    pub w1: Vec<f32>,
    pub c1: Vec<f32>,
    pub w2: Vec<f32>,
    pub c2: Vec<f32>,
}

impl Weights {
    /// Deterministic weights of a sensible scale (`1/√fan_in`).
    pub fn new(seed: u64) -> Weights {
        let mut state = seed | 1;
        let mut next = move |scale: f32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0) * scale
        };
        let mut v = |n: usize, scale: f32, offset: f32| -> Vec<f32> {
            (0..n).map(|_| offset + next(scale)).collect()
        };
        let (d, h) = (D as f32, H as f32);
        Weights {
            g1: v(D, 0.1, 1.0),
            b1: v(D, 0.1, 0.0),
            wq: v(D * D, 1.0 / d.sqrt(), 0.0),
            wk: v(D * D, 1.0 / d.sqrt(), 0.0),
            wv: v(D * D, 1.0 / d.sqrt(), 0.0),
            wo: v(D * D, 1.0 / d.sqrt(), 0.0),
            g2: v(D, 0.1, 1.0),
            b2: v(D, 0.1, 0.0),
            w1: v(D * H, 1.0 / d.sqrt(), 0.0),
            c1: v(H, 0.1, 0.0),
            w2: v(H * D, 1.0 / h.sqrt(), 0.0),
            c2: v(D, 0.1, 0.0),
        }
    }

    /// The block on `x` (`seq × D`, row-major).
    pub fn run(&self, x: &[f32], seq: usize) -> Result<Vec<f32>, tensorgraph::ShapeError> {
        let mask: Vec<bool> = (0..seq * seq).map(|k| k % seq <= k / seq).collect();
        // Two names in one type: the mask carries its dims (a flat slice could not say them).
        let mask = Tensor::<bool, Shape![_, _]>::from_shape_vec([seq, seq], mask)?;
        let y = block(
            x, &mask, &self.g1, &self.b1, &self.wq, &self.wk, &self.wv, &self.wo, &self.g2,
            &self.b2, &self.w1, &self.c1, &self.w2, &self.c2,
        )?;
        Ok(y.as_slice().to_vec())
    }
}

/// With `--features safetensors`: the weights saved to a safetensors file (as a training
/// script leaves them), the file mapped, and the block run on views of it (no copy; each
/// view's dtype is checked when it is taken, its dims at the call's entry).
#[cfg(feature = "safetensors")]
#[allow(dead_code)]
fn run_from_file(
    weights: &Weights,
    x: &[f32],
    seq: usize,
) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    use tensorgraph::safetensors::{SafetensorsFile, SafetensorsWriter};
    let path = std::env::temp_dir().join(format!(
        "transformer_block-{}.safetensors",
        std::process::id()
    ));
    let w = weights;
    let (vector, square) = (
        |v| TensorView::<f32, Shape![_]>::new(v),
        |v| TensorView::<f32, Shape![_, 64]>::new(v),
    );
    SafetensorsWriter::new()
        .tensor("g1", vector(&w.g1)?)
        .tensor("b1", vector(&w.b1)?)
        .tensor("wq", square(&w.wq)?)
        .tensor("wk", square(&w.wk)?)
        .tensor("wv", square(&w.wv)?)
        .tensor("wo", square(&w.wo)?)
        .tensor("g2", vector(&w.g2)?)
        .tensor("b2", vector(&w.b2)?)
        .tensor("w1", TensorView::<f32, Shape![64, 256]>::new(&w.w1)?)
        .tensor("c1", vector(&w.c1)?)
        .tensor("w2", TensorView::<f32, Shape![256, 64]>::new(&w.w2)?)
        .tensor("c2", vector(&w.c2)?)
        .write(&path)?;
    // SAFETY: the file is this process's own and nothing changes it while it is mapped.
    let file = unsafe { SafetensorsFile::open(&path)? };
    let mask: Vec<bool> = (0..seq * seq).map(|k| k % seq <= k / seq).collect();
    let mask = Tensor::<bool, Shape![_, _]>::from_shape_vec([seq, seq], mask)?;
    let y = block(
        x,
        &mask,
        file.get("g1")?,
        file.get("b1")?,
        file.get("wq")?,
        file.get("wk")?,
        file.get("wv")?,
        file.get("wo")?,
        file.get("g2")?,
        file.get("b2")?,
        file.get("w1")?,
        file.get("c1")?,
        file.get("w2")?,
        file.get("c2")?,
    )?;
    drop(file);
    std::fs::remove_file(&path)?;
    Ok(y.as_slice().to_vec())
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let weights = Weights::new(7);
    for seq in [1usize, 16, 100] {
        let x: Vec<f32> = (0..seq * D)
            .map(|k| ((k * 37 % 101) as f32 / 50.0) - 1.0)
            .collect();
        let y = weights.run(&x, seq)?;
        let norm = (y.iter().map(|v| v * v).sum::<f32>() / y.len() as f32).sqrt();
        println!(
            "seq {seq:3}: output rms {norm:.4}, first row starts {:?}",
            &y[..4]
        );
        #[cfg(feature = "safetensors")]
        {
            // The same weights through a file: the same bits.
            assert_eq!(run_from_file(&weights, &x, seq)?, y);
            println!("         the same from a mapped safetensors file");
        }
    }
    // A sequence whose length disagrees with the mask is an error, not a panic.
    let x = vec![0.0f32; 3 * D];
    let mask = Tensor::<bool, Shape![_, _]>::from_shape_vec([4, 4], vec![true; 16])?;
    let w = &weights;
    let err = block(
        &x, &mask, &w.g1, &w.b1, &w.wq, &w.wk, &w.wv, &w.wo, &w.g2, &w.b2, &w.w1, &w.c1, &w.w2,
        &w.c2,
    )
    .unwrap_err();
    println!("mismatched mask: {err}");
    Ok(())
}
