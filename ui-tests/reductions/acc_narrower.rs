use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[] {
        sum(x, acc = f16)
    }
}

fn main() {}
