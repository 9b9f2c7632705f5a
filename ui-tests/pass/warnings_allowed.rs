// Graph warnings are ordinary `deprecated` lints: `#[allow]` silences them even where
// the crate denies them.
#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    #[allow(deprecated)]
    fn first(a: f32[8], b: f32[8]) -> f16[8] {
        (a as f64 * 2.0) as f16
    }

    // `_b`, as in Rust, is meant to be unused.
    fn second(a: f32[8], _b: f32[8]) -> f32[8] {
        a
    }
}

fn main() {
    let a = Tensor::<f32, Shape![8]>::zeros();
    let _ = first(&a, &a);
    let _ = second(&a, &a);
    #[allow(deprecated)]
    let closure = graph!(|x: f64[2], unused: f32[2]| x as f32);
    let _ = closure(&Tensor::<f64, Shape![2]>::zeros(), &Tensor::<f32, Shape![2]>::zeros());
}
