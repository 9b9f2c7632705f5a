use tensorgraph::prelude::*;

graph! {
    fn f(a: f32[3, 4], b: f32[4, 6]) -> f32[3, 6] {
        einsum("i1,jk->ik", a, b)
    }
}

fn main() {}
