use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[4, 8]) -> i64[4] {
        argmax(x, axis = [0, 1])
    }
}

fn main() {}
