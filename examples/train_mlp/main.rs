//! Trains a two-layer MLP with Adam on a three-class spiral, with the gradients derived at
//! compile time by `grad fn loss_grad = value_and_grad(loss, wrt = [w1, b1, w2, b2]);`
//! (model.rs). Prints the mean loss per epoch and the final accuracy.
//!
//! `cargo run --release --example train_mlp`

mod model;

use model::{load_batch, spiral, Model, Rng, BATCH, CLASSES, PER_CLASS};
use tensorgraph::prelude::*;

fn main() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(2026);
    let (x, y) = spiral(&mut rng);
    let mut model = Model::new(&mut rng);
    let batches = PER_CLASS * CLASSES / BATCH;
    let mut xb = Tensor::zeros();
    let mut yb = Tensor::zeros();
    println!("accuracy before training: {:.3}", model.accuracy(&x, &y)?);
    for epoch in 0..300 {
        let mut total = 0.0;
        for k in 0..batches {
            load_batch(&x, &y, k, &mut xb, &mut yb);
            total += model.step(&xb, &yb, 0.01)?;
        }
        if epoch % 30 == 0 || epoch == 299 {
            println!("epoch {epoch:3}: mean loss {:.4}", total / batches as f32);
        }
    }
    println!("accuracy after training: {:.3}", model.accuracy(&x, &y)?);
    Ok(())
}
