use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        cumprod(x, axis = 1.5)
    }
}

fn main() {}
