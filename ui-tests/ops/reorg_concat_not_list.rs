use tensorgraph::prelude::*;

graph! {
    fn f(a: f32[2], b: f32[2]) -> f32[4] {
        concat(a, b, axis = 0)
    }
}

fn main() {}
