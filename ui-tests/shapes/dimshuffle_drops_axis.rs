use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 8]) -> f32[8, 1] {
        dimshuffle(x, [1, 'x'])
    }
}

fn main() {}
