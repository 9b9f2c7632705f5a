use tensorgraph::prelude::*;

graph! {
    fn diff(count: u64[4], delta: i64[4]) -> i64[4] {
        count + delta
    }
}

fn main() {}
