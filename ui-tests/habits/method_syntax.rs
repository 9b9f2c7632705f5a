use tensorgraph::prelude::*;

graph! {
    fn f(x: f32[8]) -> f32[8] {
        x.exp()
    }

    // Another library's namespace before a function: its bare name, not method syntax.
    fn g(x: f32[8]) -> f32[8] {
        np.exp(x)
    }

    fn h(x: f32[8], y: f32[8]) -> f32[8] {
        torch::maximum(x, y)
    }

    fn k(x: f32[8], y: f32[8]) -> f32[8] {
        np.minimum(x, y)
    }

    // Another library's name for a function the language spells otherwise.
    fn m(x: f32[8], y: f32[8]) -> f32[8] {
        maximum(x, y)
    }
}

fn main() {}
