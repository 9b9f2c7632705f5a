#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    fn to_u8(x: i32[8]) -> u8[8] {
        x as u8
    }
}

fn main() {}
