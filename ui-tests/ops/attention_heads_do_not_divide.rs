use tensorgraph::prelude::*;

graph! {
    fn f(q: f32[1, 4, 2, 8], k: f32[1, 3, 2, 8], v: f32[1, 3, 2, 8]) -> f32[1, 4, 2, 8] {
        attention(q, k, v)
    }
}

fn main() {}
