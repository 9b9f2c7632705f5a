use tensorgraph::prelude::*;

graph! {
    fn half(x: i32[8]) -> i32[8] {
        x * 0.5
    }
}

fn main() {}
