use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 4]) -> f32[B, 4] {
        slice(x, axis = 0, start = 1)
    }
}

fn main() {}
