// A rule not written for this case: `tile` repeating a named axis (its copies have no
// spelling: a reshape never splits a symbolic dim, a slice bound cannot be `N`).
use tensorgraph::prelude::*;

graph! {
    fn loss(x: f32[N, 3]) -> f32[] {
        sum(square(tile(x, [2, 1])))
    }
    grad fn loss_grad = value_and_grad(loss, wrt = [x]);
}

fn main() {}
