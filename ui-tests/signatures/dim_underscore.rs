use tensorgraph::prelude::*;

graph! {
    fn double(x: f32[_, 8]) -> f32[8] {
        x * 2.0
    }
}

fn main() {}
