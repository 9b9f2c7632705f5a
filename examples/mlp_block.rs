//! A transformer MLP epilogue as one fused kernel: bf16 activations, f32 parameters, a
//! dropout-style keep mask, a residual add, and two outputs (f32 and an f16 copy), written
//! with `_into` so the steady-state loop allocates nothing.
//!
//! `cargo run --release --example mlp_block`

use tensorgraph::prelude::*;

graph! {
    /// `y = where(keep, gelu(h + bias) / (1 - p), 0) + residual`, returned in f32 and f16.
    // `y as f16` warns that values beyond ±65504 become infinite; these are small.
    #[allow(deprecated)]
    pub fn epilogue(
        h: bf16[8, 64],
        bias: f32[64],
        residual: f32[8, 64],
        keep: bool[8, 64],
        inv_keep_prob: f32,
    ) -> (f32[8, 64], f16[8, 64]) {
        let a = gelu(h as f32 + bias);
        let y = where(keep, a * inv_keep_prob, 0.0) + residual;
        (y, y as f16)
    }
}

fn main() {
    let h = Tensor::<bf16, Shape![8, 64]>::from_fn(|[i, j]| {
        bf16::from_f32((i as f32 - 4.0) * 0.5 + j as f32 * 0.01)
    });
    let bias = Tensor::<f32, Shape![64]>::from_fn(|[j]| (j % 3) as f32 * 0.1 - 0.1);
    let residual = Tensor::<f32, Shape![8, 64]>::from_fn(|[i, _]| i as f32);
    // A deterministic "dropout" mask keeping 7 of every 8 activations.
    let keep = Tensor::<bool, Shape![8, 64]>::from_fn(|[i, j]| (i * 64 + j) % 8 != 3);
    let p_drop = 0.125f32;

    let (y, y16) = epilogue(&h, &bias, &residual, &keep, 1.0 / (1.0 - p_drop));
    println!("y[0, 0..4] = {:?}", &y.as_slice()[..4]);
    println!("y[7, 0..4] = {:?}", &y.as_slice()[7 * 64..7 * 64 + 4]);
    println!("as f16: {:?}", &y16.as_slice()[..4]);

    // Steady state: reuse the output buffers, no allocation per step.
    let mut out = Tensor::<f32, Shape![8, 64]>::zeros();
    let mut out16 = Tensor::<f16, Shape![8, 64]>::zeros();
    let mut checksum = 0.0f64;
    for step in 0..1000 {
        let scale = 1.0 / (1.0 - p_drop) + step as f32 * 1e-6;
        epilogue_into(&h, &bias, &residual, &keep, scale, &mut out, &mut out16);
        checksum += out.as_slice().iter().map(|&v| v as f64).sum::<f64>();
    }
    println!("checksum over 1000 steps: {checksum:.3}");
    assert_eq!(
        out16.as_slice()[5].to_f32(),
        f16::from_f32(out.as_slice()[5]).to_f32()
    );
}
