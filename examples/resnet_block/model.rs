//! The network of `examples/resnet_block` (shared with tests/resnet_block.rs): an image of
//! run-time size, `u8` HWC, normalised into NCHW `f32`, a stem convolution, one ResNet
//! basic block (conv-bn-relu, conv-bn, the residual added, relu), a global average pool
//! and a linear classifier. Every shape is checked when the crate compiles; the image's
//! height and width are named dims (`H`, `W`), so the same functions take any size.

use tensorgraph::prelude::*;
use tensorgraph::ShapeError;

/// Channels of the block, and classes.
pub const C: usize = 16;
pub const CLASSES: usize = 10;

graph! {
    /// `u8` HWC pixels to normalised NCHW `f32`: `(x / 255 - mean) / std` per channel.
    pub fn preprocess(img: u8[H, W, 3], mean: f32[3], std: f32[3]) -> f32[1, 3, H, W] {
        expand_dims(transpose(((img as f32) / 255.0 - mean) / std, [2, 0, 1]), 0)
    }

    /// The stem (conv 3→16, batch norm, relu), the basic block and the classifier's logits.
    /// Each batch norm takes (scale, bias, mean, var).
    pub fn resnet(
        x: f32[1, 3, H, W],
        w0: f32[16, 3, 3, 3], s0: f32[16], b0: f32[16], m0: f32[16], v0: f32[16],
        w1: f32[16, 16, 3, 3], s1: f32[16], b1: f32[16], m1: f32[16], v1: f32[16],
        w2: f32[16, 16, 3, 3], s2: f32[16], b2: f32[16], m2: f32[16], v2: f32[16],
        wc: f32[16, 10], bc: f32[10],
    ) -> f32[1, 10] {
        let h0 = relu(batch_norm(conv(x, w0, pads = [1, 1, 1, 1]), s0, b0, m0, v0));
        let h1 = relu(batch_norm(conv(h0, w1, pads = [1, 1, 1, 1]), s1, b1, m1, v1));
        let h2 = batch_norm(conv(h1, w2, pads = [1, 1, 1, 1]), s2, b2, m2, v2);
        let y = relu(h2 + h0);
        reshape(global_average_pool(y), [1, 16]) @ wc + bc
    }
}

/// A seeded generator (xorshift64*) for the weights and the synthetic image.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    /// Uniform in `[-1, 1)`.
    pub fn uniform(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        r as f32 / (1u64 << 23) as f32 - 1.0
    }
    pub fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.uniform() * scale).collect()
    }
}

/// A batch norm's four per-channel tensors: scale, bias, running mean, running variance.
pub struct Norm {
    pub scale: Tensor<f32, Shape![16]>,
    pub bias: Tensor<f32, Shape![16]>,
    pub mean: Tensor<f32, Shape![16]>,
    pub var: Tensor<f32, Shape![16]>,
}

/// The network's parameters, random (He-scaled convolutions, batch norms near identity).
pub struct Weights {
    pub w0: Tensor<f32, Shape![16, 3, 3, 3]>,
    pub n0: Norm,
    pub w1: Tensor<f32, Shape![16, 16, 3, 3]>,
    pub n1: Norm,
    pub w2: Tensor<f32, Shape![16, 16, 3, 3]>,
    pub n2: Norm,
    pub wc: Tensor<f32, Shape![16, 10]>,
    pub bc: Tensor<f32, Shape![10]>,
}

impl Norm {
    fn new(rng: &mut Rng) -> Result<Norm, ShapeError> {
        let var: Vec<f32> = rng.vec(C, 0.2).into_iter().map(|v| 1.0 + v).collect();
        let scale: Vec<f32> = rng.vec(C, 0.1).into_iter().map(|v| 1.0 + v).collect();
        Ok(Norm {
            scale: Tensor::from_vec(scale)?,
            bias: Tensor::from_vec(rng.vec(C, 0.1))?,
            mean: Tensor::from_vec(rng.vec(C, 0.1))?,
            var: Tensor::from_vec(var)?,
        })
    }
}

impl Weights {
    pub fn new(rng: &mut Rng) -> Result<Weights, ShapeError> {
        let he = |fan_in: usize| (6.0 / fan_in as f32).sqrt();
        Ok(Weights {
            w0: Tensor::from_vec(rng.vec(C * 3 * 9, he(3 * 9)))?,
            n0: Norm::new(rng)?,
            w1: Tensor::from_vec(rng.vec(C * C * 9, he(C * 9)))?,
            n1: Norm::new(rng)?,
            w2: Tensor::from_vec(rng.vec(C * C * 9, he(C * 9)))?,
            n2: Norm::new(rng)?,
            wc: Tensor::from_vec(rng.vec(C * CLASSES, he(C)))?,
            bc: Tensor::from_vec(rng.vec(CLASSES, 0.1))?,
        })
    }

    /// The logits of a preprocessed image.
    pub fn logits(&self, x: &Tensor<f32, Shape![1, 3, _, _]>) -> Result<Vec<f32>, ShapeError> {
        let (n0, n1, n2) = (&self.n0, &self.n1, &self.n2);
        let y = resnet(
            x, &self.w0, &n0.scale, &n0.bias, &n0.mean, &n0.var, &self.w1, &n1.scale, &n1.bias,
            &n1.mean, &n1.var, &self.w2, &n2.scale, &n2.bias, &n2.mean, &n2.var, &self.wc,
            &self.bc,
        )?;
        Ok(y.as_slice().to_vec())
    }
}

/// ImageNet's channel means and standard deviations.
pub fn imagenet_stats() -> Result<(Tensor<f32, Shape![3]>, Tensor<f32, Shape![3]>), ShapeError> {
    Ok((
        Tensor::from_vec(vec![0.485, 0.456, 0.406])?,
        Tensor::from_vec(vec![0.229, 0.224, 0.225])?,
    ))
}

/// A synthetic `h × w` RGB image (HWC bytes): smooth gradients and seeded noise.
pub fn image(h: usize, w: usize, rng: &mut Rng) -> Result<Tensor<u8, Shape![_, _, 3]>, ShapeError> {
    let mut px = Vec::with_capacity(h * w * 3);
    for i in 0..h {
        for j in 0..w {
            for c in 0..3 {
                let smooth = (i * 255 / h.max(1) + j * 128 / w.max(1) + c * 40) as f32;
                let v = smooth + rng.uniform() * 20.0;
                px.push(v.clamp(0.0, 255.0) as u8);
            }
        }
    }
    Tensor::from_shape_vec([h, w, 3], px)
}
