use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 4], w: f32[1, 1, 3]) -> f32[1, 1, 10] {
        conv_transpose(x, w, strides = [2], output_padding = [2])
    }
}

fn main() {}
