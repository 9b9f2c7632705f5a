// The unused-parameter warning, made an error here so its text is snapshotted.
#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    fn first(a: f32[8], b: f32[8]) -> f32[8] {
        a * 2.0
    }
}

fn main() {}
