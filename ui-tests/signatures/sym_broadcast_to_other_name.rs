use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[B], y: f32[S]) -> f32[S] {
        broadcast_to(x, [S]) + y
    }
}

fn main() {}
