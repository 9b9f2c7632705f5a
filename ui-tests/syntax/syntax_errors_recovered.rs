use tensorgraph::prelude::*;

// Each malformed statement is reported; parsing resumes at the next `;` or `,`.
graph! {
    fn broken(x: f32[8], y: f33[8], z: f32[4.0]) -> f32[8] {
        let a = x + ;
        let b: f32 = x;
        a * b
    }
}

fn main() {}
