use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[N]) -> f32[N] {
        tril(x)
    }
}

fn main() {}
