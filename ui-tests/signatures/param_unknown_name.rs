use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        leaky_relu(x, slope = 0.2)
    }
}

fn main() {}
