use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[6]) -> f32[3] {
        split(x, [3, 3]) * 2.0
    }
}

fn main() {}
