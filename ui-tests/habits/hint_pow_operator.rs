// Python's `**` is not an operator of the language: the error says what to write.
use tensorgraph::prelude::*;

graph! {
    fn squared(x: f32[4]) -> f32[4] { x ** 2 }
}

fn main() {}
