use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 8]) -> f32[N, 8] {
        x * 2.0
    }
}

fn main() {}
