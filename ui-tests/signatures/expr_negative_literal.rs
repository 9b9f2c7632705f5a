use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[N, 2 - 3]) -> f32[N] {
        x
    }
}

fn main() {}
