use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, S, 4]) -> f32[B, 4] {
        reshape(x, [B, -1])
    }
}

fn main() {}
