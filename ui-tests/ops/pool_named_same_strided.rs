use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, H, W]) -> f32[1, 1, H, W] {
        max_pool(x, kernel_shape = [3, 3], strides = [2, 2], auto_pad = same_upper)
    }
}

fn main() {}
