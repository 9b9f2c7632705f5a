use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B, 4], y: f32[S, 4]) -> f32[B, 4] {
        x + y
    }
}

fn main() {}
