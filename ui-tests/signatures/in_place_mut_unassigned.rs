// A `mut` parameter the body never assigns.
use tensorgraph::prelude::*;

graph! {
    fn step(mut w: f32[4], mut m: f32[4], g: f32[4]) {
        w = w - g;
    }
}

fn main() {}
