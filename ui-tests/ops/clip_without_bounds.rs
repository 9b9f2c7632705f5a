use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        clip(x)
    }
}

fn main() {}
