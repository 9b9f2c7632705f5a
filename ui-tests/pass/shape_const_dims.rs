//! `Shape!` takes `const` names and braced const expressions besides literals, and the
//! result is the same type as the literal spelling (so it is what a graph takes).
use tensorgraph::prelude::*;

const N: usize = 4;

graph! {
    fn scale(x: f32[4, 8], s: f32) -> f32[4, 8] {
        x * s
    }
}

fn row_len<const M: usize>(t: &Tensor<f32, Shape![N, M]>) -> usize {
    t.as_slice().len() / N
}

fn main() {
    let x = Tensor::<f32, Shape![N, { 2 * N }]>::full(1.5);
    let y: Tensor<f32, Shape![4, 8]> = scale(&x, 2.0);
    assert_eq!(y.as_slice(), &[3.0; 32]);
    assert_eq!(row_len(&y), 8);
    fragments();
}

// Dims handed over by `macro_rules!` fragments.
macro_rules! square {
    ($n:expr) => {
        Tensor::<u8, Shape![$n, $n]>::zeros()
    };
}
macro_rules! row {
    ($n:literal) => {
        Tensor::<u8, Shape![1, $n]>::zeros()
    };
}

fn fragments() {
    assert_eq!(square!(3).as_slice().len(), 9);
    assert_eq!(square!(N + 1).as_slice().len(), 25);
    assert_eq!(row!(7).as_slice().len(), 7);
}
