use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B]) -> f32[B] {
        pad(x, [1, 1])
    }
}

fn main() {}
