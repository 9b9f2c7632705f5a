use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4], s: f64) -> f32[6] {
        pad(x, [1, 1], value = s)
    }
}

fn main() {}
