use tensorgraph::prelude::*;

graph! {
    fn double(x: f32[8]) -> f32[8] {
        let y = x * ;
        y
    }
}

fn main() {}
