use tensorgraph::prelude::*;

graph! {
    fn mix(a: f16[4], b: bf16[4]) -> f32[4] {
        a + b
    }
}

fn main() {}
