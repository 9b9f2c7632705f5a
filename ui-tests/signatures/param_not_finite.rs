use tensorgraph::prelude::*;

graph! {
    fn f(x: f16[8]) -> f16[8] {
        elu(x, alpha = 70000.0)
    }
}

fn main() {}
