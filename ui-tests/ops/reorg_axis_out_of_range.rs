use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[3]) -> f32[3] {
        flip(x, axis = 1)
    }
}

fn main() {}
