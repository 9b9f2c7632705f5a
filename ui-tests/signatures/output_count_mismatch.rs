use tensorgraph::prelude::*;

graph! {
    fn pair(a: f32[4]) -> (f32[4], f32[4]) {
        relu(a)
    }
}

fn main() {}
