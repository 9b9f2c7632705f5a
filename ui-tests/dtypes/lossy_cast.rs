// The lossy-cast warning, made an error here so its text is snapshotted.
#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    fn narrow(x: f64[8]) -> f16[8] {
        x as f16
    }
}

fn main() {}
