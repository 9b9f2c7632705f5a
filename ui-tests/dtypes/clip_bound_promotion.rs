use tensorgraph::prelude::*;

graph! {
    fn f(x: u32[8], lo: i32) -> u32[8] {
        clip(x, min = lo)
    }
}

fn main() {}
