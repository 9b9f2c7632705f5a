//! Lengths 0..=3·LANES+1 for every dtype: the flat loop's full chunks and every tail
//! length, against the scalar reference, bit for bit. (LANES is 8.)

mod common;
use common::*;
use tensorgraph::prelude::*;
use tensorgraph::reference::{Bitwise, Compare, Num};

/// `where(a > b, a * b, a - b) + 1` by the scalar reference.
fn reference_numeric<T: TestElem>(a: &[T], b: &[T]) -> Vec<T>
where
    T::Compute: Num + Compare,
{
    let one = T::one().to_compute();
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let (x, y) = (x.to_compute(), y.to_compute());
            let picked = if <T::Compute as Compare>::gt(x, y) {
                <T::Compute as Num>::mul(x, y)
            } else {
                <T::Compute as Num>::sub(x, y)
            };
            T::from_compute(<T::Compute as Num>::add(picked, one))
        })
        .collect()
}

macro_rules! numeric_tails {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            numeric_tails!(@lengths $t; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
        }
    )*};
    (@lengths $t:ident; $($n:literal)*) => {$({
        let a = Tensor::<$t, Shape![$n]>::from_vec(<$t>::random($n, 11)).unwrap();
        let b = Tensor::<$t, Shape![$n]>::from_vec(<$t>::random($n, 12)).unwrap();
        let got = graph!(|a: $t[$n], b: $t[$n]| where(a > b, a * b, a - b) + 1)(&a, &b);
        let expected = reference_numeric(a.as_slice(), b.as_slice());
        assert_close(concat!("length ", stringify!($n)), got.as_slice(), &expected, |k| format!("{:?}, {:?}", a.as_slice()[k], b.as_slice()[k]), 0.0);
    })*};
}

numeric_tails!(tails_u8: u8, tails_u16: u16, tails_u32: u32, tails_u64: u64, tails_i8: i8, tails_i16: i16,
    tails_i32: i32, tails_i64: i64, tails_f16: f16, tails_bf16: bf16, tails_f32: f32, tails_f64: f64);

macro_rules! bool_tails {
    ($($n:literal)*) => {$({
        let a = Tensor::<bool, Shape![$n]>::from_vec(bool::random($n, 5)).unwrap();
        let b = Tensor::<bool, Shape![$n]>::from_vec(bool::random($n, 6)).unwrap();
        let got = graph!(|a: bool[$n], b: bool[$n]| where(a, b, !a) ^ (a || b))(&a, &b);
        let expected: Vec<bool> = a.as_slice().iter().zip(b.as_slice())
            .map(|(&x, &y)| <bool as Bitwise>::xor(if x { y } else { !x }, x || y))
            .collect();
        assert_close(concat!("length ", stringify!($n)), got.as_slice(), &expected, |k| k.to_string(), 0.0);
    })*};
}

#[test]
fn tails_bool() {
    bool_tails!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
}
