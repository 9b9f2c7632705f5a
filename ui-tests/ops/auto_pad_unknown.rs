use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 5, 5]) -> f32[1, 1, 5, 5] {
        max_pool(x, kernel_shape = [3, 3], auto_pad = same)
    }
}

fn main() {}
