use tensorgraph::prelude::*;

graph! {
    fn times_four(x: f32[8]) -> f32[8] {
        x << 2
    }
}

fn main() {}
