use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 2, 6]) -> f32[1, 1, 1, 4] {
        average_pool(x, kernel_shape = [3, 3], auto_pad = valid)
    }
}

fn main() {}
