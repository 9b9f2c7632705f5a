// An ndarray array of another rank than the parameter's (`--features ndarray`: run by
// tensorgraph-tests/tests/ui_ndarray.rs): the message gives both ranks, the note the reshape,
// whose spellings compile as the note gives them.
use ndarray::{Array1, Array2, Array3, Axis};
use tensorgraph::prelude::*;

graph! {
    fn rows(x: f32[B, 768], g: f32[768]) -> f32[B, 768] {
        x * g
    }
}

fn main() -> Result<(), tensorgraph::ShapeError> {
    let g = Tensor::<f32, Shape![768]>::zeros();
    let cube = Array3::<f32>::zeros((2, 3, 768));
    let _a = rows(&cube, &g)?;
    let line = Array1::<f32>::zeros(768);
    let _b = rows(&line, &g)?;
    // A tensor of another rank is still printed in Rust's array notation (NOTES.md).
    let flat = Tensor::<f32, Shape![_]>::zeros_with_dims([768])?;
    let _f = rows(&flat, &g)?;
    // The fixes.
    let b = 6;
    let _c = rows(&cube.view().into_shape_with_order((b, 768)).unwrap(), &g)?;
    let _d = rows(&cube.index_axis(Axis(0), 1), &g)?;
    let _e = rows(&line.view().insert_axis(Axis(0)), &g)?;
    // An `_into` output of another rank.
    let x = Array2::<f32>::zeros((2, 768));
    let mut out = Array3::<f32>::zeros((1, 2, 768));
    rows_into(&x, &g, &mut out)?;
    rows_into(&x, &g, out.view_mut().into_shape_with_order((2, 768)).unwrap())?;
    rows_into(&x, &g, out.index_axis_mut(Axis(0), 0))?;
    let mut row = Array1::<f32>::zeros(768);
    rows_into(&x.index_axis(Axis(0), 0).insert_axis(Axis(0)), &g, row.view_mut().insert_axis(Axis(0)))?;
    Ok(())
}
