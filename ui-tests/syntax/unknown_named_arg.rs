use tensorgraph::prelude::*;

graph! {
    fn leaky(x: f32[8]) -> f32[8] {
        relu(x, alpha = 0.1)
    }
}

fn main() {}
