use tensorgraph::prelude::*;

graph! {
    fn f(x: i32[4, 8]) -> i32[4] {
        sum(x, axis = 1)
    }
}

fn main() {}
