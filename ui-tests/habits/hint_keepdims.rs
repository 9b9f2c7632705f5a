// NumPy's `x - x.mean(axis=1)` habit: the reduction dropped its axis; the error points at
// `keepdims = true`, with which the two broadcast.
use tensorgraph::prelude::*;

graph! {
    fn centred(x: f32[4, 8]) -> f32[4, 8] { x - mean(x, axis = 1) }
}

fn main() {}
