use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8], a: f64) -> f32[8] {
        elu(x, alpha = a)
    }
}

fn main() {}
