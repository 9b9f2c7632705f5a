// A value of literal dims with more than 2^53 elements: no memory can hold it, and a graph
// with only literal dims cannot fail at run time, so the checker refuses it.
use tensorgraph::prelude::*;

graph! {
    fn column_sums(x: f32[0, 2305843009213693952]) -> f32[2305843009213693952] { sum(x, axis = 0) }
}

fn main() {}
