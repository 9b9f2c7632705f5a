use tensorgraph::prelude::*;

graph! {
    fn double(x: f32[3, 4]) -> f32[3, 4] {
        x * 2.0
    }
}

fn main() {
    let x = Tensor::<f32, Shape![3, 4]>::zeros();
    let y = Tensor::<f32, Shape![3, 4]>::zeros();
    // `y` without `&mut`: the output's own message, not rustc's "mismatched types".
    double_into(&x, y);
}
