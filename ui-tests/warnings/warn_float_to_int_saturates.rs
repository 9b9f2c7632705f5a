#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    fn to_u8(x: f32[8]) -> u8[8] {
        x as u8
    }
}

fn main() {}
