use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 8]) -> f32[4] {
        max(x, axis = 1, dtype = f64)
    }
}

fn main() {}
