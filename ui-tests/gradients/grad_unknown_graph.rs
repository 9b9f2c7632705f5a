// `value_and_grad` of a graph that is not in this `graph!` block.
use tensorgraph::prelude::*;

graph! {
    fn loss(x: f32[4]) -> f32[] {
        sum(x * x)
    }
    grad fn loss_grad = value_and_grad(los, wrt = [x]);
}

fn main() {}
