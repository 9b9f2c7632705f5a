use tensorgraph::prelude::*;

graph! {
    fn scale(x: i32[8], w: f32[8]) -> f32[8] {
        x * w
    }
}

fn main() {}
