use tensorgraph::prelude::*;

graph! {
    fn widen(a: u8[4], b: u16[4]) -> u8[4] {
        a + b
    }
}

fn main() {}
