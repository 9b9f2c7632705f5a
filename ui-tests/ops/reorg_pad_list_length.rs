use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 3]) -> f32[6, 3] {
        pad(x, [1, 1])
    }
}

fn main() {}
