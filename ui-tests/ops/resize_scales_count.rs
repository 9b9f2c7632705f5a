use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 2, 2]) -> f32[1, 1, 4, 4] {
        resize(x, scales = [2.0, 2.0])
    }
}

fn main() {}
