// Rust's `return y;` in a graph body: the value is the expression the body ends with.
use tensorgraph::prelude::*;

graph! {
    fn doubled(x: f32[4]) -> f32[4] {
        let y = x * 2.0;
        return y;
    }
}

fn main() {}
