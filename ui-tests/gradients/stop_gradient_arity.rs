// `stop_gradient` takes one argument.
use tensorgraph::prelude::*;

graph! {
    fn loss(x: f32[4], y: f32[4]) -> f32[] {
        sum(stop_gradient(x, y))
    }
}

fn main() {}
