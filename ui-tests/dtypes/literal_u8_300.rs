use tensorgraph::prelude::*;

graph! {
    fn brighten(x: u8[16]) -> u8[16] {
        x + 300
    }
}

fn main() {}
