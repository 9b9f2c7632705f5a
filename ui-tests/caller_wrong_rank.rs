use tensorgraph::prelude::*;

graph! {
    fn scale(x: f32[4, 8], s: f32) -> f32[4, 8] {
        x * s
    }
}

fn main() {
    // Another rank: the message prints the argument's type (a rank-1 tensor has no
    // `f32[_, _]` to print), and no second error follows.
    let x = Tensor::<f32, Shape![32]>::zeros();
    let _y = scale(&x, 2.0);
}
