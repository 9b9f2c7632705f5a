use tensorgraph::prelude::*;

graph! {
    fn add(a: f32[3], b: f32[4]) -> f32[4] {
        a + b
    }
}

fn main() {}
