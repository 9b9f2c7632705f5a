// Each kind of graph warning silenced on its own, where the crate denies `deprecated`
// (which every graph warning is): nothing fires, and rustc's own lints in the same
// `allow` still reach rustc.
#![deny(deprecated)]
use tensorgraph::prelude::*;

graph! {
    #[allow(tensorgraph::lossy_cast)]
    fn narrow(x: i32[8], y: f32[8], z: f64[8]) -> (u8[8], u8[8], f16[8]) {
        (x as u8, y as u8, z as f16)
    }

    #[allow(tensorgraph::integer_division_then_float, dead_code)]
    fn normalize(img: u8[8], mean: f32[8]) -> f32[8] {
        img / 255 - mean
    }

    #[allow(tensorgraph::unused_parameter)]
    fn first(a: f32[8], b: f32[8]) -> f32[8] {
        a
    }

    #[allow(tensorgraph::reduction_then_cast)]
    fn rounded_total(x: f16[2, 4]) -> f32[2] {
        sum(x, axis = 1) as f32
    }

    #[allow(tensorgraph::unused_parameter, tensorgraph::lossy_cast)]
    fn both(a: f64[8], b: f32[8]) -> f32[8] {
        a as f32
    }
}

fn main() {
    let x = Tensor::<i32, Shape![8]>::from_fn(|[i]| 250 + i as i32);
    let y = Tensor::<f32, Shape![8]>::from_fn(|[i]| i as f32 * 100.0);
    let z = Tensor::<f64, Shape![8]>::from_fn(|[i]| i as f64);
    let (a, b, c) = narrow(&x, &y, &z);
    assert_eq!(a[[7]], 257i32 as u8);
    assert_eq!(b[[7]], 255);
    assert_eq!(c[[3]].to_f32(), 3.0);
    let img = Tensor::<u8, Shape![8]>::from_fn(|[i]| (i * 40) as u8 /* 0..=240 */);
    let zero = Tensor::<f32, Shape![8]>::zeros();
    // Integer division first, as the warning says: 240 / 255 = 0.
    assert_eq!(normalize(&img, &zero)[[6]], 0.0);
    let halves = Tensor::<f16, Shape![2, 4]>::full(f16::from_f32(0.5));
    assert_eq!(rounded_total(&halves).as_slice(), &[2.0, 2.0]);
    let _ = first(&y, &y);
    let _ = both(&z, &y);
    // The closure form: the attributes go before its `|` (an attribute on the `let` is
    // rustc's, which knows no `tensorgraph::` lints).
    let to_u8 = graph!(#[allow(tensorgraph::lossy_cast)] |x: f32[8]| x as u8);
    assert_eq!(to_u8(&y)[[2]], 200);
    let halves = graph!(#[allow(tensorgraph::integer_division_then_float)] |img: u8[8], m: f32[8]| img / 2 - m);
    assert_eq!(halves(&img, &zero)[[1]], 20.0);
}
