//! The model, data and training step of `examples/train_mlp` (shared with
//! tests/train_mlp.rs): a two-layer MLP, `gelu(x·w1 + b1)·w2 + b2`, trained with Adam on a
//! three-class spiral by gradients that `graph!` derives at compile time.

use tensorgraph::prelude::*;
use tensorgraph::ShapeError;

/// Points per class, inputs, hidden units, classes, batch size.
pub const PER_CLASS: usize = 100;
pub const INPUTS: usize = 2;
pub const HIDDEN: usize = 64;
pub const CLASSES: usize = 3;
pub const BATCH: usize = 50;

graph! {
    /// The mean cross-entropy of one batch.
    pub fn loss(x: f32[50, 2], y: i64[50], w1: f32[2, 64], b1: f32[64], w2: f32[64, 3], b2: f32[3]) -> f32[] {
        let h = gelu(x @ w1 + b1);
        softmax_cross_entropy(h @ w2 + b2, y)
    }
    /// The loss and its gradients, in one call.
    pub grad fn loss_grad = value_and_grad(loss, wrt = [w1, b1, w2, b2]);

    /// The predicted class of each point.
    pub fn predict(x: f32[N, 2], w1: f32[2, 64], b1: f32[64], w2: f32[64, 3], b2: f32[3]) -> i64[N] {
        argmax(gelu(x @ w1 + b1) @ w2 + b2, axis = 1)
    }

    /// One Adam step of every parameter, in place (β1 = 0.9, β2 = 0.999, ε = 1e-8): `c1`,
    /// `c2` are the bias corrections `1 - β^t`. The moments are updated first and the
    /// parameters read their new values.
    pub fn adam(
        mut w1: f32[2, 64], mut b1: f32[64], mut w2: f32[64, 3], mut b2: f32[3],
        mut mw1: f32[2, 64], mut mb1: f32[64], mut mw2: f32[64, 3], mut mb2: f32[3],
        mut vw1: f32[2, 64], mut vb1: f32[64], mut vw2: f32[64, 3], mut vb2: f32[3],
        gw1: f32[2, 64], gb1: f32[64], gw2: f32[64, 3], gb2: f32[3],
        lr: f32, c1: f32, c2: f32,
    ) {
        mw1 = 0.9 * mw1 + 0.1 * gw1;
        mb1 = 0.9 * mb1 + 0.1 * gb1;
        mw2 = 0.9 * mw2 + 0.1 * gw2;
        mb2 = 0.9 * mb2 + 0.1 * gb2;
        vw1 = 0.999 * vw1 + 0.001 * (gw1 * gw1);
        vb1 = 0.999 * vb1 + 0.001 * (gb1 * gb1);
        vw2 = 0.999 * vw2 + 0.001 * (gw2 * gw2);
        vb2 = 0.999 * vb2 + 0.001 * (gb2 * gb2);
        w1 = w1 - lr * (mw1 / c1) / (sqrt(vw1 / c2) + 1e-8);
        b1 = b1 - lr * (mb1 / c1) / (sqrt(vb1 / c2) + 1e-8);
        w2 = w2 - lr * (mw2 / c1) / (sqrt(vw2 / c2) + 1e-8);
        b2 = b2 - lr * (mb2 / c1) / (sqrt(vb2 / c2) + 1e-8);
    }
}

/// xorshift64*: the example's data and initial weights, the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
        bits as f32 / (1u64 << 24) as f32
    }
    /// Approximately standard normal (the sum of 12 uniforms, minus 6).
    pub fn normal(&mut self) -> f32 {
        (0..12).map(|_| self.unit()).sum::<f32>() - 6.0
    }
}

/// The classic three-arm spiral: `PER_CLASS` points per class, shuffled.
pub fn spiral(rng: &mut Rng) -> (Vec<f32>, Vec<i64>) {
    let mut points = Vec::new();
    for class in 0..CLASSES {
        for i in 0..PER_CLASS {
            let r = i as f32 / PER_CLASS as f32;
            let t = class as f32 * 4.0 + r * 4.0 + rng.normal() * 0.2;
            points.push((r * t.sin(), r * t.cos(), class as i64));
        }
    }
    // Fisher-Yates.
    for i in (1..points.len()).rev() {
        let j = (rng.unit() * (i + 1) as f32) as usize % (i + 1);
        points.swap(i, j);
    }
    let x = points.iter().flat_map(|p| [p.0, p.1]).collect();
    let y = points.iter().map(|p| p.2).collect();
    (x, y)
}

/// A parameter with its gradient and Adam moments.
pub struct Param<S: tensorgraph::Shape> {
    pub value: Tensor<f32, S>,
    pub grad: Tensor<f32, S>,
    m: Tensor<f32, S>,
    v: Tensor<f32, S>,
}

impl<S: tensorgraph::Shape> Param<S>
where
    Tensor<f32, S>: Clone,
{
    pub fn new(value: Tensor<f32, S>) -> Param<S> {
        let mut zero = value.clone();
        zero.as_mut_slice().fill(0.0);
        Param {
            value,
            grad: zero.clone(),
            m: zero.clone(),
            v: zero,
        }
    }
}

/// The model: weights scaled by 1/sqrt(fan-in), biases zero.
pub struct Model {
    pub w1: Param<Shape![2, 64]>,
    pub b1: Param<Shape![64]>,
    pub w2: Param<Shape![64, 3]>,
    pub b2: Param<Shape![3]>,
    /// Adam's step count.
    t: i32,
    loss: Tensor<f32, Shape![]>,
}

impl Model {
    pub fn new(rng: &mut Rng) -> Model {
        let w1 = Tensor::from_fn(|_| rng.normal() / (INPUTS as f32).sqrt());
        let w2 = Tensor::from_fn(|_| rng.normal() / (HIDDEN as f32).sqrt());
        Model {
            w1: Param::new(w1),
            b1: Param::new(Tensor::zeros()),
            w2: Param::new(w2),
            b2: Param::new(Tensor::zeros()),
            t: 0,
            loss: Tensor::zeros(),
        }
    }

    /// One training step on a batch: the loss before the step. Allocates nothing after the
    /// first call on a thread (the graphs' temps come from its scratch pool).
    pub fn step(
        &mut self,
        x: &Tensor<f32, Shape![50, 2]>,
        y: &Tensor<i64, Shape![50]>,
        lr: f32,
    ) -> Result<f32, ShapeError> {
        loss_grad_into(
            x,
            y,
            &self.w1.value,
            &self.b1.value,
            &self.w2.value,
            &self.b2.value,
            &mut self.loss,
            &mut self.w1.grad,
            &mut self.b1.grad,
            &mut self.w2.grad,
            &mut self.b2.grad,
        )?;
        self.t += 1;
        let c1 = 1.0 - 0.9f32.powi(self.t);
        let c2 = 1.0 - 0.999f32.powi(self.t);
        let (w1, b1, w2, b2) = (&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2);
        adam(
            &mut w1.value,
            &mut b1.value,
            &mut w2.value,
            &mut b2.value,
            &mut w1.m,
            &mut b1.m,
            &mut w2.m,
            &mut b2.m,
            &mut w1.v,
            &mut b1.v,
            &mut w2.v,
            &mut b2.v,
            &w1.grad,
            &b1.grad,
            &w2.grad,
            &b2.grad,
            lr,
            c1,
            c2,
        );
        Ok(self.loss.item())
    }

    /// The fraction of points whose predicted class is their label.
    pub fn accuracy(&self, x: &[f32], y: &[i64]) -> Result<f64, ShapeError> {
        let predicted = predict(
            x,
            &self.w1.value,
            &self.b1.value,
            &self.w2.value,
            &self.b2.value,
        )?;
        let right = predicted
            .as_slice()
            .iter()
            .zip(y)
            .filter(|(p, l)| p == l)
            .count();
        Ok(right as f64 / y.len() as f64)
    }
}

/// Copies batch `k` of the data into the batch tensors.
pub fn load_batch(
    x: &[f32],
    y: &[i64],
    k: usize,
    xb: &mut Tensor<f32, Shape![50, 2]>,
    yb: &mut Tensor<i64, Shape![50]>,
) {
    xb.as_mut_slice()
        .copy_from_slice(&x[k * BATCH * INPUTS..(k + 1) * BATCH * INPUTS]);
    yb.as_mut_slice()
        .copy_from_slice(&y[k * BATCH..(k + 1) * BATCH]);
}
