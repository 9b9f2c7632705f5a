use tensorgraph::prelude::*;

graph! {
    fn f(a: f32[B, K], b: f32[N, 4]) -> f32[B, 4] {
        a @ b
    }
}

fn main() {}
