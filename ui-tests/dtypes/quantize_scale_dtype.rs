use tensorgraph::prelude::*;

graph! {
    fn f(q: u8[8], s: i32, zp: u8) -> i32[8] {
        dequantize_linear(q, s, zp)
    }
}

fn main() {}
