#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    fn normalize(img: u8[8], mean: f32[8]) -> f32[8] {
        img / 255 - mean
    }
}

fn main() {}
