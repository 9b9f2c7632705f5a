use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 8]) -> f32[8] {
        squeeze(x, 0)
    }
}

fn main() {}
