use tensorgraph::prelude::*;

graph! {
    fn outer(a: f32[4, 1], b: f32[1, 8]) -> f32[4, 1] {
        a * b
    }
}

fn main() {}
