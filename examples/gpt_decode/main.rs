//! Generates 32 tokens with a two-layer GPT-style decoder with random weights, one `graph!`
//! call per step (model.rs): the prompt in one step, then one token per step, the key/value
//! cache growing by `concat`, the next token sampled from the 8 best by their softmax.
//!
//! `cargo run --release --example gpt_decode`

mod model;

use model::{Cache, Model, Rng, TOP, VOCAB};

fn main() -> Result<(), tensorgraph::ShapeError> {
    let model = Model::random(42);
    let mut rng = Rng(7);
    let prompt: Vec<i64> = (0..8).map(|i| (i * 37 + 11) % VOCAB as i64).collect();
    let mut cache = Cache::default();
    let mut tokens = prompt.clone();
    let mut next_ids = prompt;
    let started = std::time::Instant::now();
    for _ in 0..32 {
        let (logits, ids, grown) = model.step(&next_ids, &cache)?;
        cache = grown;
        // Sample among the 8 best by their softmax (temperature 1).
        let m = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let weights: Vec<f32> = logits.iter().map(|l| (l - m).exp()).collect();
        let total: f32 = weights.iter().sum();
        let mut u = rng.next_f32() * total;
        let mut choice = ids[TOP - 1];
        for (w, &id) in weights.iter().zip(&ids) {
            if u < *w {
                choice = id;
                break;
            }
            u -= w;
        }
        tokens.push(choice);
        next_ids = vec![choice];
    }
    println!("tokens: {tokens:?}");
    println!(
        "cache: {} tokens; 32 steps in {:?}",
        cache.len(),
        started.elapsed()
    );
    Ok(())
}
