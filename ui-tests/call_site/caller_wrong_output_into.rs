use tensorgraph::prelude::*;

graph! {
    fn double(x: f32[3, 4]) -> f32[3, 4] {
        x * 2.0
    }
}

fn main() {
    let x = Tensor::<f32, Shape![3, 4]>::zeros();
    let mut y = Tensor::<f32, Shape![4, 3]>::zeros();
    double_into(&x, &mut y);
}
