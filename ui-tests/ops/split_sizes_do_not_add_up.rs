use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[6]) -> (f32[2], f32[3]) {
        split(x, [2, 3])
    }
}

fn main() {}
