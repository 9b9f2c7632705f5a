// A `grad fn` item is `value_and_grad(…)`; `vjp(…)` belongs to a `vjp fn`.
use tensorgraph::prelude::*;

graph! {
    fn loss(x: f32[4]) -> f32[] {
        sum(x * x)
    }
    grad fn loss_grad = vjp(loss, wrt = [x]);
}

fn main() {}
