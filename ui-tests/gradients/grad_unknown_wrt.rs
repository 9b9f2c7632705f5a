// `wrt` names a parameter the graph does not have.
use tensorgraph::prelude::*;

graph! {
    fn loss(x: f32[4], w: f32[4]) -> f32[] {
        sum(x * w)
    }
    grad fn loss_grad = value_and_grad(loss, wrt = [weights]);
}

fn main() {}
