use tensorgraph::prelude::*;

fn main() {
    let outer = graph!(|a: f32[4, 1], b: f32[1, 8]| a + b);
    let a = Tensor::<f32, Shape![4, 1]>::zeros();
    let b = Tensor::<f32, Shape![8]>::zeros();
    let _y = outer(&a, &b);
}
