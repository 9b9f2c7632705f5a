use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[N]) -> i64[N] {
        arange(x)
    }
}

fn main() {}
