use tensorgraph::prelude::*;

// `N` and `2 * N` are different dims (their normal forms differ): no broadcast.
graph! {
    fn f(x: f32[N], y: f32[2 * N]) -> f32[N] {
        x + y
    }
}

fn main() {}
