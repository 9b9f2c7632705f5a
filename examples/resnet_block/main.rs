//! A small CNN in `graph!` (issue 31 item 6): an image of run-time size, `u8` HWC, is
//! normalised to NCHW `f32`, goes through a stem convolution and a ResNet basic block
//! (conv-bn-relu ×2 with the residual), a global average pool and a classifier, with
//! seeded random weights (model.rs). Run with `cargo run --release --example resnet_block
//! [HEIGHT WIDTH]` (default 64 × 48): it prints the logits, the predicted class and the
//! time per image. Shapes are checked at compile time except the image's height and width,
//! which the call checks (an image of another channel count does not compile).

mod model;

use model::{image, imagenet_stats, preprocess, Rng, Weights};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let (h, w) = match args[..] {
        [h, w] => (h, w),
        _ => (64, 48),
    };
    let mut rng = Rng::new(2026);
    let weights = Weights::new(&mut rng)?;
    let img = image(h, w, &mut rng)?;
    let (mean, std) = imagenet_stats()?;

    let start = Instant::now();
    let x = preprocess(&img, &mean, &std)?;
    let logits = weights.logits(&x)?;
    let first = start.elapsed();
    let reps = 20;
    let start = Instant::now();
    for _ in 0..reps {
        let x = preprocess(&img, &mean, &std)?;
        std::hint::black_box(weights.logits(&x)?);
    }
    let per = start.elapsed() / reps;

    let best = (0..logits.len())
        .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
        .unwrap_or(0);
    println!("image {h} x {w}: logits {logits:.3?}");
    println!("class {best}; first call {first:.2?}, then {per:.2?} per image");
    Ok(())
}
