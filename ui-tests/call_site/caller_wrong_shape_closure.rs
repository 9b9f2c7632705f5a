// The closure form takes `&dyn` argument traits (a closure cannot be generic): a wrong
// argument is a failed coercion at the call, reported on the argument, with the same
// checks as the named form.
use tensorgraph::prelude::*;

fn main() {
    let outer = graph!(|a: f32[4, 1], b: f32[1, 8]| a + b);
    let a = Tensor::<f32, Shape![4, 1]>::zeros();
    let b = Tensor::<f32, Shape![8]>::zeros();
    let _y = outer(&a, &b);
    let c = Tensor::<f64, Shape![1, 9]>::zeros();
    let _z = outer(&a, &c);
}
