use tensorgraph::prelude::*;

graph! {
    fn scale(x: f32[4, 8], s: f32) -> f32[4, 8] {
        x * s
    }
}

fn main() {
    // Another rank, or a run-time dim where the graph has only literal ones: the message
    // prints the argument's shape in Rust's array notation (`[f32; 32]`, `[[f32; 8]]`; a
    // trait per rank, to print `f32[32]`, cost too much compile time: NOTES.md "Call-site
    // errors"), and no second error follows.
    let x = Tensor::<f32, Shape![32]>::zeros();
    let _y = scale(&x, 2.0);
    let rows = Tensor::<f32, Shape![_, 8]>::zeros_with_dims([4, 8]).unwrap();
    let _z = scale(&rows, 2.0);
    // A run-time inner dim prints as a `Vec` row (an array's element type is sized).
    let cols = Tensor::<f32, Shape![4, _]>::zeros_with_dims([4, 8]).unwrap();
    let _w = scale(&cols, 2.0);
}
