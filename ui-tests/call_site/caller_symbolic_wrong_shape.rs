use tensorgraph::prelude::*;

graph! {
    fn rows(x: f32[B, 768], g: f32[768]) -> f32[B, 768] {
        x * g
    }
}

fn main() {
    let x = Tensor::<f32, Shape![_, 512]>::zeros_with_dims([4, 512]).unwrap();
    let g = Tensor::<f32, Shape![768]>::zeros();
    let _y = rows(&x, &g);
}
