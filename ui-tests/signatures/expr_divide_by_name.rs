use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[N], y: f32[M], z: f32[N / M]) -> f32[N] {
        x
    }
}

fn main() {}
