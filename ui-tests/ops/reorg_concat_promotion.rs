use tensorgraph::prelude::*;

graph! {
    fn f(a: u32[2], b: i32[2]) -> i64[4] {
        concat([a, b], axis = 0)
    }
}

fn main() {}
