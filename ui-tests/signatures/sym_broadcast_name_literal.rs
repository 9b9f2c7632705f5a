use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 768], y: f32[4, 768]) -> f32[B, 768] {
        x * y
    }
}

fn main() {}
