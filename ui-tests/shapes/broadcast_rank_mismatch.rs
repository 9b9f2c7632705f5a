use tensorgraph::prelude::*;

graph! {
    fn add(x: f32[2, 4, 3], bias: f32[4, 2]) -> f32[2, 4, 3] {
        x + bias
    }
}

fn main() {}
