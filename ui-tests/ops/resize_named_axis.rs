use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, H, 2]) -> f32[1, 1, H, 4] {
        resize(x, sizes = [4, 4], axes = [2, 3])
    }
}

fn main() {}
