use tensorgraph::prelude::*;

graph! {
    fn f(x: i32[4, 8]) -> i32[4, 8] {
        softmax(x)
    }
}

fn main() {}
