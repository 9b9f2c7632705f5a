//! The first program to run: `cargo run --release --example quickstart`.
use tensorgraph::prelude::*;

graph! {
    /// `relu(x + bias) * scale`: `bias` broadcasts over the rows of `x`, `scale` is a
    /// run-time scalar. One fused SIMD loop, no temporaries.
    pub fn bias_relu(x: f32[2, 4], bias: f32[4], scale: f32) -> f32[2, 4] {
        let h = x + bias;
        relu(h) * scale
    }
}

fn main() {
    let x = Tensor::<f32, Shape![2, 4]>::from_fn(|[i, j]| (i * 4 + j) as f32 - 3.5);
    let bias = Tensor::<f32, Shape![4]>::from_vec(vec![0.5, -0.5, 1.0, 0.0]).expect("4 elements");
    let y = bias_relu(&x, &bias, 2.0);
    println!("x = {x:?}");
    println!("bias = {bias:?}");
    println!("relu(x + bias) * 2 = {y:?}");

    // The closure form is a function value; `TensorView` borrows a slice without copying.
    let outer_sum = graph!(|a: f32[3, 1], b: f32[1, 4]| a * 10.0 + b);
    let a_data = [1.0f32, 2.0, 3.0];
    let a = TensorView::<f32, Shape![3, 1]>::new(&a_data).expect("3 elements");
    let b = Tensor::<f32, Shape![1, 4]>::from_vec(vec![0.0, 1.0, 2.0, 3.0]).expect("4 elements");
    println!("a * 10 + b = {:?}", outer_sum(&a, &b));
}
