use tensorgraph::prelude::*;

graph! {
    fn wave(x: i32[8]) -> f32[8] {
        sin(x)
    }
}

fn main() {}
