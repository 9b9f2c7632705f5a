use tensorgraph::prelude::*;

graph! {
    fn square(x: f32[8]) -> f32[8] {
        pow(x)
    }
}

fn main() {}
