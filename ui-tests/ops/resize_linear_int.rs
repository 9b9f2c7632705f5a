use tensorgraph::prelude::*;

graph! {
    fn f(x: i32[1, 1, 2, 2]) -> i32[1, 1, 4, 4] {
        resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear)
    }
}

fn main() {}
