// Assigning a parameter that is not declared `mut`.
use tensorgraph::prelude::*;

graph! {
    fn step(mut w: f32[4], g: f32[4]) {
        g = g * 0.5;
        w = w - g;
    }
}

fn main() {}
