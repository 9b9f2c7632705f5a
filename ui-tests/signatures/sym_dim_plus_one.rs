use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B + 1]) -> f32[B] {
        x
    }
}

fn main() {}
