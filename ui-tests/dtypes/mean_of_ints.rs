use tensorgraph::prelude::*;

graph! {
    fn f(a: i32[8], b: i32[8]) -> i32[8] {
        mean_of(a, b)
    }
}

fn main() {}
