use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[3]) -> f32[3] {
        tile(x, [-1])
    }
}

fn main() {}
