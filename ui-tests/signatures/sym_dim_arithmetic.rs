use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B], y: f32[2 * B]) -> f32[B] {
        x
    }
}

fn main() {}
