// A graph with names takes tensors, views, flat slices (where at most one name needs dims)
// and ndarray arrays. Each wrong argument is one error that names the parameter.
use tensorgraph::prelude::*;

graph! {
    fn rows(x: f32[B, 768], g: f32[768]) -> f32[B, 768] {
        x * g
    }
}

graph! {
    fn mm(a: f32[M, K], b: f32[K, N]) -> f32[M, N] {
        matmul(a, b)
    }
}

fn main() -> Result<(), tensorgraph::ShapeError> {
    let g = Tensor::<f32, Shape![768]>::zeros();
    // A `Vec` of another dtype: it has no dims, so the declared literal is printed.
    let wide = vec![0.0f64; 2 * 768];
    let _a = rows(&wide, &g)?;
    // Another rank.
    let flat = Tensor::<f32, Shape![_]>::zeros_with_dims([768])?;
    let _b = rows(&flat, &g)?;
    // Two names: a flat slice cannot give both; the error gives the constructors that add
    // the dims, which compile as the note spells them.
    let v = vec![0.0f32; 6];
    let _c = mm(&v, &v)?;
    let (m, k) = (2, 3);
    let a = &Tensor::<f32, Shape![_, _]>::from_shape_vec([m, k], v.clone())?;
    let b = &TensorView::<f32, Shape![_, _]>::with_dims([k, m], &v)?;
    let _d = mm(a, b)?;
    // The same for an `_into` output.
    let mut w = vec![0.0f32; 4];
    mm_into(a, b, &mut w)?;
    mm_into(a, b, TensorViewMut::<f32, Shape![_, _]>::with_dims([m, m], &mut w)?)?;
    Ok(())
}
