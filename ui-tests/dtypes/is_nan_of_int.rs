use tensorgraph::prelude::*;

graph! {
    fn bad(x: i64[8]) -> bool[8] {
        is_nan(x)
    }
}

fn main() {}
