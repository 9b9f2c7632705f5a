use tensorgraph::prelude::*;

graph! {
    fn f(a: u32[3, 4], b: i32[4, 2]) -> i64[3, 2] {
        a @ b
    }
}

fn main() {}
