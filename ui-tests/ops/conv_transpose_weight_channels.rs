use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 3, 4, 4], w: f32[2, 2, 3, 3]) -> f32[1, 2, 6, 6] {
        conv_transpose(x, w)
    }
}

fn main() {}
