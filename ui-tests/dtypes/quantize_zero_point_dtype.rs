use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8], s: f32, zp: i32) -> i32[8] {
        quantize_linear(x, s, zp)
    }
}

fn main() {}
