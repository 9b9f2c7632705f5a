use tensorgraph::prelude::*;

graph! {
    fn double(x: f32[-1]) -> f32[4] {
        x * 2.0
    }
}

fn main() {}
