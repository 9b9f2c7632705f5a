use tensorgraph::prelude::*;

graph! {
    fn f(table: f32[10, 4], ids: f32[3]) -> f32[3, 4] {
        gather(table, ids)
    }
}

fn main() {}
