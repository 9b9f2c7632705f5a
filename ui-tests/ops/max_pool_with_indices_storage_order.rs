use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 4, 4]) -> (f32[1, 1, 2, 2], i64[1, 1, 2, 2]) {
        max_pool_with_indices(x, kernel_shape = [2, 2], strides = [2, 2], storage_order = 1)
    }
}

fn main() {}
