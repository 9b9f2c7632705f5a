use tensorgraph::prelude::*;

graph! {
    fn offset(pixels: u8[16], delta: i8[16]) -> i16[16] {
        pixels + delta
    }
}

fn main() {}
