// NumPy/PyTorch's tuple of axes: lists of axes are written in brackets.
use tensorgraph::prelude::*;

graph! {
    fn moved(x: f32[2, 3, 4]) -> f32[4, 2, 3] { transpose(x, (2, 0, 1)) }
}

fn main() {}
