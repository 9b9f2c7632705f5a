use tensorgraph::prelude::*;

graph! {
    fn mul(a: f32[2, 3], b: f32[3, 2]) -> f32[2, 3] {
        a * b
    }
}

fn main() {}
