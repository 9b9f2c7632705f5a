// A float sum, prod or mean cast to a wider float rounds the reduction's accumulation to
// the narrow dtype first: the warning points at `dtype = …`, which keeps it.
#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    fn total(x: f16[4, 8]) -> f32[4] {
        sum(x, axis = 1) as f32
    }

    fn average(x: f32[4, 8]) -> f64[4] {
        mean(x, axis = 1) as f64
    }

    // Not this warning: the reduction asked for its dtype, or the cast narrows (lossy_cast).
    fn asked(x: f16[4, 8], y: f32[4, 8]) -> (f32[4], f64[4], f16[4]) {
        (sum(x, axis = 1, dtype = f32), mean(y, axis = 1, dtype = f64), prod(y, axis = 1) as f16)
    }
}

fn main() {}
