use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[N]) -> f32[N + K] {
        x
    }
}

fn main() {}
