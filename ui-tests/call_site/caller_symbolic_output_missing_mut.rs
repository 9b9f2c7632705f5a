// A graph with names takes its `_into` outputs by value (`&mut Tensor`, views, slices): an
// output passed without `&mut` is the output's own error, with rustc's borrowing help.
use tensorgraph::prelude::*;

graph! {
    fn rows(x: f32[B, 768], g: f32[768]) -> f32[B, 768] {
        x * g
    }
}

fn main() -> Result<(), tensorgraph::ShapeError> {
    let x = Tensor::<f32, Shape![_, 768]>::zeros_with_dims([4, 768])?;
    let g = Tensor::<f32, Shape![768]>::zeros();
    let y = Tensor::<f32, Shape![_, 768]>::zeros_with_dims([4, 768])?;
    rows_into(&x, &g, y)?;
    Ok(())
}
