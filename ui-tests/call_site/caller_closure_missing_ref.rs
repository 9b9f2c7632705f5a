// The closure form's parameters are `&dyn` types, so a tensor passed without `&` is
// rustc's own "mismatched types" with its "consider borrowing here" (a closure cannot take
// its arguments through a generic trait, as the item form does).
use tensorgraph::prelude::*;

fn main() {
    let scaled = graph!(|a: f32[4, 1], s: f32| a * s);
    let a = Tensor::<f32, Shape![4, 1]>::zeros();
    let _y = scaled(a, 2.0);
}
