use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4]) -> f32[6] {
        pad(x, [1, 1], mode = wrap)
    }
}

fn main() {}
