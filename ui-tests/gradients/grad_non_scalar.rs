// `value_and_grad` of a graph whose output is not a scalar.
use tensorgraph::prelude::*;

graph! {
    fn layer(x: f32[4], w: f32[4]) -> f32[4] {
        tanh(x * w)
    }
    grad fn layer_grad = value_and_grad(layer, wrt = [w]);
}

fn main() {}
