use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 768]) -> f32[B, 12, 60] {
        reshape(x, [B, 12, 60])
    }
}

fn main() {}
