use tensorgraph::prelude::*;

// Every mistake of every graph is reported in one compile.
graph! {
    fn many(a: u32[4], b: i32[4], c: f32[3]) -> f32[4] {
        let s = a + b;
        let t = c * 300000000000;
        sin(a) + c
    }

    fn more(x: u8[2]) -> u8[2] {
        x + 256
    }
}

fn main() {}
