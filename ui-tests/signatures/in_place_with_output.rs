// A graph with `mut` parameters that also returns a value.
use tensorgraph::prelude::*;

graph! {
    fn step(mut w: f32[4], g: f32[4]) -> f32[] {
        w = w - g;
        sum(g * g)
    }
}

fn main() {}
