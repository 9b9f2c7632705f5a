use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        where(x > 0.0, x, f32::INFINITY)
    }
}

fn main() {}
