use tensorgraph::prelude::*;

graph! {
    fn scale(x: f32[4, 8], s: f32) -> f32[4, 8] {
        x * s
    }
}

fn main() {
    let x = Tensor::<f64, Shape![4, 8]>::zeros();
    let _y = scale(&x, 2.0);
}
