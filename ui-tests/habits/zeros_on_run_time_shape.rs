// `zeros()` needs a shape of literal dims; with a run-time dim (`_`) the error names the
// constructors that take the extents.
use tensorgraph::prelude::*;

fn main() {
    let _t = Tensor::<f32, Shape![_, 64]>::zeros();
}
