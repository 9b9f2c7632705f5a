//! `inf` and `nan` are weak float literals: a masked softmax writes `-inf`.
use tensorgraph::prelude::*;

graph! {
    fn masked_softmax(x: f32[2, 4], mask: bool[2, 4]) -> f32[2, 4] {
        softmax(where(mask, x, -inf), axis = 1)
    }
    fn fill(x: f16[4]) -> (f16[4], f64[4]) { (where(x > 0.0, x, nan), where(x > 0.0, x as f64, inf)) }
}

fn main() {
    let x = Tensor::<f32, Shape![2, 4]>::full(1.0);
    let mask = Tensor::<bool, Shape![2, 4]>::from_vec(vec![true, true, false, false, true, false, true, false]).unwrap();
    let y = masked_softmax(&x, &mask);
    assert_eq!(y.as_slice(), &[0.5, 0.5, 0.0, 0.0, 0.5, 0.0, 0.5, 0.0]);
    let (a, b) = fill(&Tensor::from_vec(vec![f16::from_f32(1.0), f16::from_f32(-1.0), f16::ZERO, f16::from_f32(2.0)]).unwrap());
    assert!(a.as_slice()[1].is_nan() && a.as_slice()[0] == f16::from_f32(1.0));
    assert_eq!(b.as_slice(), &[1.0, f64::INFINITY, f64::INFINITY, 2.0]);
}
