use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 1, 5, 5], w: f32[1, 1, 3, 3]) -> f32[1, 1, 5, 5] {
        conv(x, w, pads = [1, 1, 1, 1], auto_pad = same_upper)
    }
}

fn main() {}
