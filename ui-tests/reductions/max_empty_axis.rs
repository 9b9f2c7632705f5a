use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 0]) -> f32[4] {
        max(x, axis = 1)
    }
}

fn main() {}
