use tensorgraph::prelude::*;

graph! {
    fn total(x: f16[4, 8]) -> f32[4] {
        sum(x, axis = 1)
    }
}

fn main() {}
