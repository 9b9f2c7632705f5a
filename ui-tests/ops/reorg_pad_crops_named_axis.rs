use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B]) -> f32[B - 1] {
        pad(x, [-1, 0])
    }
}

fn main() {}
