use tensorgraph::prelude::*;

// `N` stands only inside a floor division: no argument's size gives it.
graph! {
    fn f(x: f32[(N + 1) / 2]) -> f32[(N + 1) / 2] {
        x
    }
}

fn main() {}
