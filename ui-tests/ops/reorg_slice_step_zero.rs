use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        slice(x, axis = 0, step = 0)
    }
}

fn main() {}
