use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 8], g: f32[4], b: f32[8]) -> f32[B, 8] {
        layer_norm(x, g, b)
    }
}

fn main() {}
