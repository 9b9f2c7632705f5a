use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[4, 3] {
        broadcast_to(x, [4, 3])
    }
}

fn main() {}
