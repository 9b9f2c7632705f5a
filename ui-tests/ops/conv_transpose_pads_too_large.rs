use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 2], w: f32[1, 1, 2]) -> f32[1, 1, 1] {
        conv_transpose(x, w, pads = [2, 1])
    }
}

fn main() {}
