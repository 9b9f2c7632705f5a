use tensorgraph::prelude::*;

fn main() {
    let n = 4;
    let _y = Tensor::<f32, Shape![4, 8, 1, 1, 1, 1, 2]>::zeros();
    let _x = Tensor::<f32, Shape![n + 1, 4]>::zeros();
}
