// An op without a derivative on the path from a `wrt` parameter to the output.
use tensorgraph::prelude::*;

graph! {
    fn loss(x: f32[4], s: f32, z: u8) -> f32[] {
        sum(dequantize_linear(quantize_linear(x, s, z), s, z))
    }
    grad fn loss_grad = value_and_grad(loss, wrt = [x]);
}

fn main() {}
