use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 8]) -> f32[4] {
        sum(x, axis = [1, -1])
    }
}

fn main() {}
