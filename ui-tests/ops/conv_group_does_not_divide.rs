use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[1, 3, 4, 4], w: f32[4, 1, 3, 3]) -> f32[1, 4, 2, 2] {
        conv(x, w, group = 2)
    }
}

fn main() {}
