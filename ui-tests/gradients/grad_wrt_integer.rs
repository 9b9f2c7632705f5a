// `wrt` names an integer parameter: only float parameters have gradients.
use tensorgraph::prelude::*;

graph! {
    fn loss(x: f32[4], n: i32[4]) -> f32[] {
        sum(x * (n as f32))
    }
    grad fn loss_grad = value_and_grad(loss, wrt = [x, n]);
}

fn main() {}
