use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[N, 4]) -> f32[N, 2] {
        x[:, i]
    }
}

fn main() {}
