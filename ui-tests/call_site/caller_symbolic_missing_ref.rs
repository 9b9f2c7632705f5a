use tensorgraph::prelude::*;

graph! {
    fn rows(x: f32[B, 768], g: f32[768]) -> f32[B, 768] {
        x * g
    }
}

fn main() -> Result<(), tensorgraph::ShapeError> {
    let x = Tensor::<f32, Shape![_, 768]>::zeros_with_dims([4, 768])?;
    let g = Tensor::<f32, Shape![768]>::zeros();
    let y = rows(x, &g)?;
    let _first = y[[0, 0]];
    Ok(())
}
