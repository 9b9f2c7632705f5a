use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[], w: f32[3, 4]) -> f32[3, 4] {
        matmul(x, w)
    }
}

fn main() {}
