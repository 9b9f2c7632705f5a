use tensorgraph::prelude::*;

graph! {
    fn flip(b: bool[8]) -> bool[8] {
        -b
    }
}

fn main() {}
