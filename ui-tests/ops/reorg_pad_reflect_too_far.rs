use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[3]) -> f32[6] {
        pad(x, [3, 0], mode = reflect)
    }
}

fn main() {}
