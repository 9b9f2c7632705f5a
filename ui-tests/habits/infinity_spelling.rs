use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        where(x > 0.0, x, f32::INFINITY)
    }

    // Other languages' bare spellings: the help is the literal, not a scalar parameter.
    fn g(x: f32[8]) -> f32[8] {
        where(x > 0.0, x, -INFINITY) + where(x < 0.0, x, NaN)
    }
}

fn main() {}
