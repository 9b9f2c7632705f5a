// `#[allow(tensorgraph::KIND)]` silences one kind of graph warning: the others still fire,
// and a name that is no graph warning is an error listing the kinds.
#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    #[allow(tensorgraph::lossy_cast)]
    fn normalize(img: u8[8], mean: f32[8], bias: i32[8]) -> (f32[8], u8[8]) {
        (img / 255 - mean, bias as u8)
    }

    #[allow(tensorgraph::lossy_casts)]
    fn unknown(x: f32[8]) -> f32[8] {
        x
    }
}

fn main() {
    // The closure form takes the same attributes before its `|`, and lint levels only.
    let narrow = graph!(#[allow(tensorgraph::lossy_cast)] |x: f32[8], n: u8[8]| (x as u8, n / 2 - x));
    let _ = narrow(&Tensor::zeros(), &Tensor::zeros());
    let inlined = graph!(#[inline] |x: f32[8]| x * 2.0);
    let _ = inlined(&Tensor::zeros());
}
