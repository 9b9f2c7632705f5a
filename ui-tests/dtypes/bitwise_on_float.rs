use tensorgraph::prelude::*;

graph! {
    fn mask(x: f32[8], m: f32[8]) -> f32[8] {
        x & m
    }
}

fn main() {}
