use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 2, 2]) -> f32[1, 1, 1, 1] {
        max_pool(x, kernel_shape = [3, 3])
    }
}

fn main() {}
