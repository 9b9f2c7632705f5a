use tensorgraph::prelude::*;

graph! {
    fn f(a: f32[2, 3, 4], b: f32[5, 4, 6]) -> f32[2, 3, 6] {
        a @ b
    }
}

fn main() {}
