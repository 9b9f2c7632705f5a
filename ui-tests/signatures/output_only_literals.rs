use tensorgraph::prelude::*;

fn main() {
    let _ones = graph!(|x: f32[4]| 1.0 + 2.0);
}
