use tensorgraph::prelude::*;

graph! {
    fn f(a: f32[3, 4], b: f32[4, 6]) -> f32[3, 3] {
        einsum("ij,jk->ii", a, b)
    }
}

fn main() {}
