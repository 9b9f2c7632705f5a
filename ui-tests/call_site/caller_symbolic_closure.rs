// A closure with dim names stays a generic function (`graph_closure`), whose tensor
// parameters are `&(impl …)`: a wrong argument names the parameter, but rustc reports it
// where the function is named: the closure's `|`.
use tensorgraph::prelude::*;

fn main() {
    let f = graph!(|x: f32[B, 4], y: f32[4]| x * y);
    let x = Tensor::<f32, Shape![2, 4]>::zeros();
    let y = Tensor::<f32, Shape![5]>::zeros();
    let _z = f(&x, &y);
}
