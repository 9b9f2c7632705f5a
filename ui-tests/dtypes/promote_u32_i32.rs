use tensorgraph::prelude::*;

graph! {
    fn f(a: u32[4], b: i32[4]) -> i64[4] {
        a + b
    }
}

fn main() {}
