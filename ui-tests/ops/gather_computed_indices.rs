use tensorgraph::prelude::*;

graph! {
    fn f(table: f32[10, 4], ids: i64[3]) -> f32[3, 4] {
        gather(table, ids + 1)
    }
}

fn main() {}
