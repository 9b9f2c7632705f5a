use tensorgraph::prelude::*;

graph! {
    fn scale(x: f32[4, 8], s: f32) -> f32[4, 8] {
        x * s
    }
}

fn main() {
    let x = Tensor::<f32, Shape![4, 8]>::zeros();
    let y = scale(x, 2.0);
    let _first = y[[0, 0]];
}
