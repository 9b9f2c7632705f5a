use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4]) -> (f32[5], i64[5]) {
        top_k(x, k = 5)
    }
}

fn main() {}
