//! examples/train_mlp: a few epochs lower the loss, and a training step (the derived
//! `loss_grad_into` and four Adam graphs) allocates nothing after the first one on a thread,
//! counted with a global allocator that counts this thread's allocations.

#[path = "../examples/train_mlp/model.rs"]
#[allow(dead_code)]
mod model;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations;
use model::{load_batch, spiral, Model, Rng, BATCH, CLASSES, PER_CLASS};
use tensorgraph::prelude::*;
#[test]
fn training_lowers_the_loss_without_allocating() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(2026);
    let (x, y) = spiral(&mut rng);
    let mut model = Model::new(&mut rng);
    let batches = PER_CLASS * CLASSES / BATCH;
    let mut xb = Tensor::zeros();
    let mut yb = Tensor::zeros();
    let epoch =
        |model: &mut Model, xb: &mut _, yb: &mut _| -> Result<f32, tensorgraph::ShapeError> {
            let mut total = 0.0;
            for k in 0..batches {
                load_batch(&x, &y, k, xb, yb);
                total += model.step(xb, yb, 0.01)?;
            }
            Ok(total / batches as f32)
        };
    let first = epoch(&mut model, &mut xb, &mut yb)?;
    let before = allocations();
    let mut last = first;
    for _ in 0..20 {
        last = epoch(&mut model, &mut xb, &mut yb)?;
    }
    assert_eq!(allocations() - before, 0, "a training step allocated");
    assert!(
        first.is_finite() && last < 0.8 * first,
        "loss {first} -> {last}"
    );
    Ok(())
}
