// The closure form of a graph with names takes every tensor by reference (each call's borrow
// then has its own lifetime): a tensor passed without `&` is rustc's "mismatched types" with
// its "consider borrowing here", as in the closure form of a graph with only literal dims.
use tensorgraph::prelude::*;

fn main() {
    let f = graph!(|x: f32[B, 4], y: f32[4]| x * y);
    let x = Tensor::<f32, Shape![2, 4]>::zeros();
    let y = Tensor::<f32, Shape![4]>::zeros();
    let _z = f(&x, y);
}
