// The parameter traits accept `&Tensor`, views of borrowed slices, and `_into`.
use tensorgraph::prelude::*;

graph! {
    pub fn axpy(a: f32[], x: f32[4], y: f32[4]) -> f32[4] {
        a * x + y
    }
}

fn main() {
    let a = Tensor::<f32, Shape![]>::from_vec(vec![2.0]).unwrap();
    let x = Tensor::<f32, Shape![4]>::from_vec(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let data = [1.0f32; 4];
    let y = TensorView::<f32, Shape![4]>::new(&data).unwrap();
    assert_eq!(axpy(&a, &x, &y).as_slice(), &[3.0, 5.0, 7.0, 9.0]);
    let mut out = Tensor::<f32, Shape![4]>::zeros();
    axpy_into(&a, &x, &y, &mut out);
    assert_eq!(out.as_slice(), &[3.0, 5.0, 7.0, 9.0]);
    // A `&mut Tensor` variable is reborrowed by each `_into` call, not moved into the first.
    let out_ref = &mut out;
    axpy_into(&a, &x, &y, out_ref);
    axpy_into(&a, &x, &y, out_ref);
    assert_eq!(out_ref.as_slice(), &[3.0, 5.0, 7.0, 9.0]);
    let f = graph!(|x: f32[4]| x * 2.0);
    assert_eq!(f(&y).as_slice(), &[2.0; 4]);
    // The closure form takes tensors and views (as `&dyn` its parameter traits) and
    // scalars by value.
    let g = graph!(|x: f32[4], s: f32| x * s);
    assert_eq!(g(&x, 0.5).as_slice(), &[0.5, 1.0, 1.5, 2.0]);
    let mut buffer = [1.0f32, 2.0, 3.0, 4.0];
    let view_mut = TensorViewMut::<f32, Shape![4]>::new(&mut buffer).unwrap();
    assert_eq!(g(&view_mut, -1.0).as_slice(), &[-1.0, -2.0, -3.0, -4.0]);
}
