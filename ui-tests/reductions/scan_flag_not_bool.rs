use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        cumsum(x, axis = 0, exclusive = 1)
    }
}

fn main() {}
