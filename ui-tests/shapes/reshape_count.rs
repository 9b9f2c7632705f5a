use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 8]) -> f32[3, 16] {
        reshape(x, [3, 16])
    }
}

fn main() {}
