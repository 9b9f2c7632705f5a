use tensorgraph::prelude::*;

graph! {
    fn add(x: f32[8], x: f32[8]) -> f32[8] {
        x + x
    }
}

fn main() {}
