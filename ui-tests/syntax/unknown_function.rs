use tensorgraph::prelude::*;

graph! {
    fn act(x: f32[8]) -> f32[8] {
        reul(x)
    }
}

fn main() {}
