use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[6]) -> f32[2] {
        let (a, b) = split(x, [2, 2, 2]);
        a + b
    }
}

fn main() {}
