use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 768], w: f32[512, 64]) -> f32[4, 64] {
        x @ w
    }
}

fn main() {}
