use tensorgraph::prelude::*;

graph! {
    fn norm(input: f32[8], scale: f32[8]) -> f32[8] {
        let centered = input - 0.5;
        centred * scale
    }
}

fn main() {}
