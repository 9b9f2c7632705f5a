use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 768]) -> f32[2, 384] {
        reshape(x, [2, -1])
    }
}

fn main() {}
