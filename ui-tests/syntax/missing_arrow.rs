use tensorgraph::prelude::*;

graph! {
    fn double(x: f32[8]) f32[8] {
        x * 2.0
    }
}

fn main() {
    // The signature is still emitted: this call raises no follow-on error.
    let x = Tensor::<f32, Shape![8]>::zeros();
    let _y: Tensor<f32, Shape![8]> = double(&x);
}
