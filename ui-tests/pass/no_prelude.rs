// Generated code names only absolute paths through `$crate`: no prelude, no imports.
tensorgraph::graph! {
    fn scaled(x: f32[2, 3], s: f32) -> (f32[2, 3], f32[2]) {
        (x * s, sum(x, axis = 1))
    }
}

fn main() {
    let x = tensorgraph::Tensor::<f32, tensorgraph::Shape![2, 3]>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let (y, s) = scaled(&x, 2.0);
    assert_eq!(y.as_slice(), &[2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
    assert_eq!(s.as_slice(), &[6.0, 15.0]);
}
