use tensorgraph::prelude::*;

graph! {
    fn count(a: bool[8], b: bool[8]) -> bool[8] {
        a + b
    }
}

fn main() {}
