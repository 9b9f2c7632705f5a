use tensorgraph::prelude::*;

graph! {
    fn layer(x: f32[2, 3, 4], b: f16[4]) -> f32[2, 3, 4] {
        x + b
    }
}

fn main() {
    // Each wrong argument is reported once, in the graph's notation, whatever the rank
    // and dtype; views are arguments like tensors.
    let x = Tensor::<f64, Shape![2, 4, 3]>::zeros();
    let b = Tensor::<bf16, Shape![4]>::zeros();
    let _y = layer(&x, b.view());
    let s = Tensor::<f32, Shape![]>::zeros();
    let _z = layer(&s, &b);
}
