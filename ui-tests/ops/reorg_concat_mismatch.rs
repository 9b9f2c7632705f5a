use tensorgraph::prelude::*;

graph! {
    fn f(a: f32[2, 3], b: f32[2, 4]) -> f32[4, 3] {
        concat([a, b], axis = 0)
    }
}

fn main() {}
