//! Every op × every dtype it accepts, kernel against the scalar reference semantics.
//!
//! Binary ops take `[21, 1]` against `[1, 21]` edge values, so one graph covers every
//! pair of edge values (NaN, ±inf, ±0, subnormals, integer MIN/MAX, zero divisors) and
//! the `[N,1] + [1,M]` broadcast pattern, with a 21-long inner loop (two SIMD chunks and
//! a tail). Exact ops must match bit for bit; transcendentals within `float_bound`.

// Casts that can overflow (`f64 as f16` …) warn by design; here they are the point.
#![allow(deprecated)]

mod common;
use common::*;
use tensorgraph::cast::CastTo;
use tensorgraph::prelude::*;
use tensorgraph::reference::{Bitwise, Compare, Float, Num, Shift};
use tensorgraph::Element;

type C<T> = <T as Element>::Compute;

fn pair_inputs<T: TestElem>() -> (Tensor<T, Shape![21, 1]>, Tensor<T, Shape![1, 21]>) {
    let e = T::edge_values();
    (
        Tensor::from_vec(e.clone()).unwrap(),
        Tensor::from_vec(e).unwrap(),
    )
}

fn check_pairs<T: TestElem, R: TestElem>(
    op: &str,
    a: &[T],
    b: &[T],
    got: &[R],
    f: impl Fn(T::Compute, T::Compute) -> R::Compute,
) {
    check_pairs_within(op, a, b, got, f, 0.0)
}

fn check_pairs_within<T: TestElem, R: TestElem>(
    op: &str,
    a: &[T],
    b: &[T],
    got: &[R],
    f: impl Fn(T::Compute, T::Compute) -> R::Compute,
    ulps: f64,
) {
    let n = b.len();
    let expected: Vec<R> = (0..a.len() * n)
        .map(|k| R::from_compute(f(a[k / n].to_compute(), b[k % n].to_compute())))
        .collect();
    assert_close(
        op,
        got,
        &expected,
        |k| format!("{:?}, {:?}", a[k / n], b[k % n]),
        ulps,
    );
}

/// `pow` is exact on integers and a transcendental on floats.
fn pow_bound(dtype: tensorgraph::DType) -> f64 {
    if matches!(
        dtype,
        tensorgraph::DType::F16
            | tensorgraph::DType::BF16
            | tensorgraph::DType::F32
            | tensorgraph::DType::F64
    ) {
        float_bound("pow", dtype)
    } else {
        0.0
    }
}

fn check_unary<T: TestElem, R: TestElem>(
    op: &str,
    a: &[T],
    got: &[R],
    f: impl Fn(T::Compute) -> R::Compute,
    ulps: f64,
) {
    let expected: Vec<R> = a
        .iter()
        .map(|&x| R::from_compute(f(x.to_compute())))
        .collect();
    assert_close(op, got, &expected, |k| format!("{:?}", a[k]), ulps);
}

macro_rules! arith_suite {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let (a, b) = pair_inputs::<$t>();
            let (sa, sb) = (a.as_slice(), b.as_slice());
            check_pairs("+", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a + b)(&a, &b).as_slice(), <C<$t> as Num>::add);
            check_pairs("-", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a - b)(&a, &b).as_slice(), <C<$t> as Num>::sub);
            check_pairs("*", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a * b)(&a, &b).as_slice(), <C<$t> as Num>::mul);
            check_pairs("/", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a / b)(&a, &b).as_slice(), <C<$t> as Num>::div);
            check_pairs("%", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a % b)(&a, &b).as_slice(), <C<$t> as Num>::rem);
            check_pairs("mod", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| mod(a, b))(&a, &b).as_slice(), <C<$t> as Num>::modulo);
            check_pairs_within("pow", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| pow(a, b))(&a, &b).as_slice(), <C<$t> as Num>::pow, pow_bound(<$t as Element>::DTYPE));
            check_pairs("max", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| max(a, b))(&a, &b).as_slice(), <C<$t> as Num>::max);
            check_pairs("min", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| min(a, b))(&a, &b).as_slice(), <C<$t> as Num>::min);
            check_pairs("add", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| add(a, sub(mul(b, a), div(a, b))))(&a, &b).as_slice(),
                |x, y| <C<$t> as Num>::add(x, <C<$t> as Num>::sub(<C<$t> as Num>::mul(y, x), <C<$t> as Num>::div(x, y))));
            // Weak literals take the tensor's dtype.
            check_unary("a * 3 + 1", sa, graph!(|a: $t[21, 1]| a * 3 + 1)(&a).as_slice(),
                |x| <C<$t> as Num>::add(<C<$t> as Num>::mul(x, (3 as $t).to_compute()), (1 as $t).to_compute()), 0.0);
            // A run-time scalar parameter.
            let s: $t = sb[5];
            check_unary("a - s", sa, graph!(|a: $t[21, 1], s: $t| a - s)(&a, s).as_slice(),
                |x| <C<$t> as Num>::sub(x, s.to_compute()), 0.0);
        }
    )*};
}

macro_rules! arith_suite_half {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let (a, b) = pair_inputs::<$t>();
            let (sa, sb) = (a.as_slice(), b.as_slice());
            check_pairs("+", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a + b)(&a, &b).as_slice(), <f32 as Num>::add);
            check_pairs("-", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a - b)(&a, &b).as_slice(), <f32 as Num>::sub);
            check_pairs("*", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a * b)(&a, &b).as_slice(), <f32 as Num>::mul);
            check_pairs("/", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a / b)(&a, &b).as_slice(), <f32 as Num>::div);
            check_pairs("%", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a % b)(&a, &b).as_slice(), <f32 as Num>::rem);
            check_pairs("mod", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| mod(a, b))(&a, &b).as_slice(), <f32 as Num>::modulo);
            check_pairs_within("pow", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| pow(a, b))(&a, &b).as_slice(), <f32 as Num>::pow, pow_bound(<$t as Element>::DTYPE));
            check_pairs("max", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| max(a, b))(&a, &b).as_slice(), <f32 as Num>::max);
            check_pairs("min", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| min(a, b))(&a, &b).as_slice(), <f32 as Num>::min);
            // Intermediates of a half-precision chain stay in f32 and round once on store.
            check_pairs("a * b + a", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a * b + a)(&a, &b).as_slice(),
                |x, y| x * y + x);
            check_unary("a * 3 + 0.5", sa, graph!(|a: $t[21, 1]| a * 3 + 0.5)(&a).as_slice(), |x| x * 3.0 + 0.5, 0.0);
        }
    )*};
}

arith_suite!(arith_u8: u8, arith_u16: u16, arith_u32: u32, arith_u64: u64, arith_i8: i8, arith_i16: i16,
    arith_i32: i32, arith_i64: i64, arith_f32: f32, arith_f64: f64);
arith_suite_half!(arith_f16: f16, arith_bf16: bf16);

macro_rules! unary_num_suite {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let a = Tensor::<$t, Shape![21]>::from_vec(<$t>::edge_values()).unwrap();
            let sa = a.as_slice();
            check_unary("neg", sa, graph!(|a: $t[21]| -a)(&a).as_slice(), <C<$t> as Num>::neg, 0.0);
            check_unary("abs", sa, graph!(|a: $t[21]| abs(a))(&a).as_slice(), <C<$t> as Num>::abs, 0.0);
            check_unary("relu", sa, graph!(|a: $t[21]| relu(a))(&a).as_slice(), <C<$t> as Num>::relu, 0.0);
            check_unary("floor", sa, graph!(|a: $t[21]| floor(a))(&a).as_slice(), <C<$t> as Num>::floor, 0.0);
            check_unary("round", sa, graph!(|a: $t[21]| round(a))(&a).as_slice(), <C<$t> as Num>::round, 0.0);
            check_unary("roundeven", sa, graph!(|a: $t[21]| roundeven(a))(&a).as_slice(), <C<$t> as Num>::roundeven, 0.0);
            check_unary("trunc", sa, graph!(|a: $t[21]| trunc(a))(&a).as_slice(), <C<$t> as Num>::trunc, 0.0);
        }
    )*};
}
unary_num_suite!(unary_u8: u8, unary_u16: u16, unary_u32: u32, unary_u64: u64, unary_i8: i8, unary_i16: i16,
    unary_i32: i32, unary_i64: i64, unary_f16: f16, unary_bf16: bf16, unary_f32: f32, unary_f64: f64);

macro_rules! compare_suite {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let (a, b) = pair_inputs::<$t>();
            let (sa, sb) = (a.as_slice(), b.as_slice());
            check_pairs("==", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a == b)(&a, &b).as_slice(), <C<$t> as Compare>::eq);
            check_pairs("!=", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a != b)(&a, &b).as_slice(), <C<$t> as Compare>::ne);
            check_pairs("<", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a < b)(&a, &b).as_slice(), <C<$t> as Compare>::lt);
            check_pairs("<=", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a <= b)(&a, &b).as_slice(), <C<$t> as Compare>::le);
            check_pairs(">", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a > b)(&a, &b).as_slice(), <C<$t> as Compare>::gt);
            check_pairs(">=", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a >= b)(&a, &b).as_slice(), <C<$t> as Compare>::ge);
            check_pairs("greater_equal", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| greater_equal(a, b))(&a, &b).as_slice(), <C<$t> as Compare>::ge);
            check_pairs("not_equal", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| not_equal(a, b))(&a, &b).as_slice(), <C<$t> as Compare>::ne);
        }
    )*};
}
compare_suite!(compare_bool: bool, compare_u8: u8, compare_u16: u16, compare_u32: u32, compare_u64: u64,
    compare_i8: i8, compare_i16: i16, compare_i32: i32, compare_i64: i64, compare_f16: f16, compare_bf16: bf16,
    compare_f32: f32, compare_f64: f64);

macro_rules! bitwise_suite {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let (a, b) = pair_inputs::<$t>();
            let (sa, sb) = (a.as_slice(), b.as_slice());
            check_pairs("&", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a & b)(&a, &b).as_slice(), <C<$t> as Bitwise>::and);
            check_pairs("|", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a | b)(&a, &b).as_slice(), <C<$t> as Bitwise>::or);
            check_pairs("^", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a ^ b)(&a, &b).as_slice(), <C<$t> as Bitwise>::xor);
            check_unary("!", sa, graph!(|a: $t[21, 1]| !a)(&a).as_slice(), <C<$t> as Bitwise>::not, 0.0);
        }
    )*};
}
bitwise_suite!(bitwise_bool: bool, bitwise_u8: u8, bitwise_u16: u16, bitwise_u32: u32, bitwise_u64: u64,
    bitwise_i8: i8, bitwise_i16: i16, bitwise_i32: i32, bitwise_i64: i64);

macro_rules! shift_suite {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let (a, b) = pair_inputs::<$t>();
            let (sa, sb) = (a.as_slice(), b.as_slice());
            check_pairs("<<", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a << b)(&a, &b).as_slice(), <C<$t> as Shift>::shl);
            check_pairs(">>", sa, sb, graph!(|a: $t[21, 1], b: $t[1, 21]| a >> b)(&a, &b).as_slice(), <C<$t> as Shift>::shr);
            check_unary("a << 3", sa, graph!(|a: $t[21, 1]| a << 3)(&a).as_slice(), |x| <C<$t> as Shift>::shl(x, 3), 0.0);
        }
    )*};
}
shift_suite!(shift_u8: u8, shift_u16: u16, shift_u32: u32, shift_u64: u64, shift_i8: i8, shift_i16: i16,
    shift_i32: i32, shift_i64: i64);

#[test]
fn logical_bool() {
    let (a, b) = pair_inputs::<bool>();
    let (sa, sb) = (a.as_slice(), b.as_slice());
    check_pairs(
        "&&",
        sa,
        sb,
        graph!(|a: bool[21, 1], b: bool[1, 21]| a && b)(&a, &b).as_slice(),
        |x, y| x && y,
    );
    check_pairs(
        "||",
        sa,
        sb,
        graph!(|a: bool[21, 1], b: bool[1, 21]| a || b)(&a, &b).as_slice(),
        |x, y| x || y,
    );
    check_pairs(
        "!a || b",
        sa,
        sb,
        graph!(|a: bool[21, 1], b: bool[1, 21]| !a || b == true)(&a, &b).as_slice(),
        |x, y| !x || y,
    );
}

/// The ULP bound each transcendental is held to (ACCURACY.md); exact ops are 0.
/// `f16`/`bf16` compute in `f32` and round once, so they may land one half-precision ULP
/// from the reference's own rounding.
pub fn float_bound(op: &str, dtype: tensorgraph::DType) -> f64 {
    use tensorgraph::DType::*;
    if matches!(op, "is_nan" | "is_inf") {
        return 0.0;
    }
    // The one table of bounds (tensor-core's `functions`, ACCURACY.md's numbers).
    let bound = |f64_lanes| {
        tensorgraph::functions::ulp_bound(op, f64_lanes)
            .unwrap_or_else(|| panic!("`{op}` has no row in tensorgraph::functions"))
    };
    match dtype {
        // Computed in f32 lanes and rounded once into the narrow dtype.
        F16 | BF16 if bound(false) == 0.0 => 0.0,
        F16 | BF16 => 1.0,
        F32 => bound(false),
        F64 => bound(true),
        _ => unreachable!(),
    }
}

macro_rules! float_suite {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let edges = Tensor::<$t, Shape![21]>::from_vec(<$t>::edge_values()).unwrap();
            let sweep = Tensor::<$t, Shape![4099]>::from_vec(<$t>::random(4099, 7)).unwrap();
            let d = <$t as Element>::DTYPE;
            check_unary("sqrt", edges.as_slice(), graph!(|a: $t[21]| sqrt(a))(&edges).as_slice(), <C<$t> as Float>::sqrt, float_bound("sqrt", d));
            check_unary("rsqrt", edges.as_slice(), graph!(|a: $t[21]| rsqrt(a))(&edges).as_slice(), <C<$t> as Float>::rsqrt, float_bound("rsqrt", d));
            check_unary("exp", edges.as_slice(), graph!(|a: $t[21]| exp(a))(&edges).as_slice(), <C<$t> as Float>::exp, float_bound("exp", d));
            check_unary("log", edges.as_slice(), graph!(|a: $t[21]| log(a))(&edges).as_slice(), <C<$t> as Float>::log, float_bound("log", d));
            check_unary("log1p", edges.as_slice(), graph!(|a: $t[21]| log1p(a))(&edges).as_slice(), <C<$t> as Float>::log1p, float_bound("log1p", d));
            check_unary("sin", edges.as_slice(), graph!(|a: $t[21]| sin(a))(&edges).as_slice(), <C<$t> as Float>::sin, float_bound("sin", d));
            check_unary("cos", edges.as_slice(), graph!(|a: $t[21]| cos(a))(&edges).as_slice(), <C<$t> as Float>::cos, float_bound("cos", d));
            check_unary("tanh", edges.as_slice(), graph!(|a: $t[21]| tanh(a))(&edges).as_slice(), <C<$t> as Float>::tanh, float_bound("tanh", d));
            check_unary("erf", edges.as_slice(), graph!(|a: $t[21]| erf(a))(&edges).as_slice(), <C<$t> as Float>::erf, float_bound("erf", d));
            check_unary("sigmoid", edges.as_slice(), graph!(|a: $t[21]| sigmoid(a))(&edges).as_slice(), <C<$t> as Float>::sigmoid, float_bound("sigmoid", d));
            check_unary("gelu", edges.as_slice(), graph!(|a: $t[21]| gelu(a))(&edges).as_slice(), <C<$t> as Float>::gelu, float_bound("gelu", d));
            check_unary("silu", edges.as_slice(), graph!(|a: $t[21]| silu(a))(&edges).as_slice(), <C<$t> as Float>::silu, float_bound("silu", d));
            check_unary("exp2", edges.as_slice(), graph!(|a: $t[21]| exp2(a))(&edges).as_slice(), <C<$t> as Float>::exp2, float_bound("exp2", d));
            check_unary("log2", edges.as_slice(), graph!(|a: $t[21]| log2(a))(&edges).as_slice(), <C<$t> as Float>::log2, float_bound("log2", d));
            check_unary("expm1", edges.as_slice(), graph!(|a: $t[21]| expm1(a))(&edges).as_slice(), <C<$t> as Float>::expm1, float_bound("expm1", d));
            check_unary("tan", edges.as_slice(), graph!(|a: $t[21]| tan(a))(&edges).as_slice(), <C<$t> as Float>::tan, float_bound("tan", d));
            check_unary("atan", edges.as_slice(), graph!(|a: $t[21]| atan(a))(&edges).as_slice(), <C<$t> as Float>::atan, float_bound("atan", d));
            check_unary("asin", edges.as_slice(), graph!(|a: $t[21]| asin(a))(&edges).as_slice(), <C<$t> as Float>::asin, float_bound("asin", d));
            check_unary("acos", edges.as_slice(), graph!(|a: $t[21]| acos(a))(&edges).as_slice(), <C<$t> as Float>::acos, float_bound("acos", d));
            check_unary("sinh", edges.as_slice(), graph!(|a: $t[21]| sinh(a))(&edges).as_slice(), <C<$t> as Float>::sinh, float_bound("sinh", d));
            check_unary("cosh", edges.as_slice(), graph!(|a: $t[21]| cosh(a))(&edges).as_slice(), <C<$t> as Float>::cosh, float_bound("cosh", d));
            check_unary("softplus", edges.as_slice(), graph!(|a: $t[21]| softplus(a))(&edges).as_slice(), <C<$t> as Float>::softplus, float_bound("softplus", d));
            check_unary("is_nan", edges.as_slice(), graph!(|a: $t[21]| is_nan(a))(&edges).as_slice(), <C<$t> as Float>::is_nan, 0.0);
            check_unary("is_inf", edges.as_slice(), graph!(|a: $t[21]| is_inf(a))(&edges).as_slice(), <C<$t> as Float>::is_inf, 0.0);
            // A denser sweep over ±1e-4..1e4 for the transcendentals.
            let s = sweep.as_slice();
            check_unary("exp", s, graph!(|a: $t[4099]| exp(a))(&sweep).as_slice(), <C<$t> as Float>::exp, float_bound("exp", d));
            check_unary("log", s, graph!(|a: $t[4099]| log(abs(a)))(&sweep).as_slice(), |x| <C<$t> as Float>::log(<C<$t> as Num>::abs(x)), float_bound("log", d));
            check_unary("log1p", s, graph!(|a: $t[4099]| log1p(a))(&sweep).as_slice(), <C<$t> as Float>::log1p, float_bound("log1p", d));
            check_unary("sin", s, graph!(|a: $t[4099]| sin(a))(&sweep).as_slice(), <C<$t> as Float>::sin, float_bound("sin", d));
            check_unary("cos", s, graph!(|a: $t[4099]| cos(a))(&sweep).as_slice(), <C<$t> as Float>::cos, float_bound("cos", d));
            check_unary("tanh", s, graph!(|a: $t[4099]| tanh(a))(&sweep).as_slice(), <C<$t> as Float>::tanh, float_bound("tanh", d));
            check_unary("erf", s, graph!(|a: $t[4099]| erf(a))(&sweep).as_slice(), <C<$t> as Float>::erf, float_bound("erf", d));
            check_unary("sigmoid", s, graph!(|a: $t[4099]| sigmoid(a))(&sweep).as_slice(), <C<$t> as Float>::sigmoid, float_bound("sigmoid", d));
            // The sweep stops at -37: below, gelu's result is subnormal in f64 and the scalar
            // reference (plain erfc) is less accurate than the kernel's scaled tail, which
            // tensor-core's vmath tests check against high-precision values instead.
            check_unary("gelu", s, graph!(|a: $t[4099]| gelu(max(a, -37)))(&sweep).as_slice(),
                |x| <C<$t> as Float>::gelu(<C<$t> as Num>::max(x, -37.0)), float_bound("gelu", d));
            check_unary("silu", s, graph!(|a: $t[4099]| silu(a))(&sweep).as_slice(), <C<$t> as Float>::silu, float_bound("silu", d));
            check_unary("exp2", s, graph!(|a: $t[4099]| exp2(a))(&sweep).as_slice(), <C<$t> as Float>::exp2, float_bound("exp2", d));
            check_unary("expm1", s, graph!(|a: $t[4099]| expm1(a))(&sweep).as_slice(), <C<$t> as Float>::expm1, float_bound("expm1", d));
            check_unary("tan", s, graph!(|a: $t[4099]| tan(a))(&sweep).as_slice(), <C<$t> as Float>::tan, float_bound("tan", d));
            check_unary("atan", s, graph!(|a: $t[4099]| atan(a))(&sweep).as_slice(), <C<$t> as Float>::atan, float_bound("atan", d));
            check_unary("sinh", s, graph!(|a: $t[4099]| sinh(a))(&sweep).as_slice(), <C<$t> as Float>::sinh, float_bound("sinh", d));
            check_unary("cosh", s, graph!(|a: $t[4099]| cosh(a))(&sweep).as_slice(), <C<$t> as Float>::cosh, float_bound("cosh", d));
            check_unary("softplus", s, graph!(|a: $t[4099]| softplus(a))(&sweep).as_slice(), <C<$t> as Float>::softplus, float_bound("softplus", d));
            check_unary("log2", s, graph!(|a: $t[4099]| log2(abs(a)))(&sweep).as_slice(), |x| <C<$t> as Float>::log2(<C<$t> as Num>::abs(x)), float_bound("log2", d));
            // asin/acos: the sweep folded into [-1, 1] by x / (1 + |x|).
            check_unary("asin", s, graph!(|a: $t[4099]| asin(a / (abs(a) + 1)))(&sweep).as_slice(),
                |x| <C<$t> as Float>::asin(<C<$t> as Num>::div(x, <C<$t> as Num>::add(<C<$t> as Num>::abs(x), (1.0 as f32 as _)))), float_bound("asin", d));
            check_unary("acos", s, graph!(|a: $t[4099]| acos(a / (abs(a) + 1)))(&sweep).as_slice(),
                |x| <C<$t> as Float>::acos(<C<$t> as Num>::div(x, <C<$t> as Num>::add(<C<$t> as Num>::abs(x), (1.0 as f32 as _)))), float_bound("acos", d));
            check_unary("rsqrt", s, graph!(|a: $t[4099]| rsqrt(abs(a)))(&sweep).as_slice(), |x| <C<$t> as Float>::rsqrt(<C<$t> as Num>::abs(x)), float_bound("rsqrt", d));
        }
    )*};
}
float_suite!(float_f16: f16, float_bf16: bf16, float_f32: f32, float_f64: f64);

macro_rules! where_suite {
    ($($test:ident: $t:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            let cond = Tensor::<bool, Shape![21, 1]>::from_vec(bool::random(21, 3)).unwrap();
            let a = Tensor::<$t, Shape![1, 21]>::from_vec(<$t>::edge_values()).unwrap();
            let b = Tensor::<$t, Shape![]>::from_vec(vec![<$t>::edge_values()[20]]).unwrap();
            let got = graph!(|c: bool[21, 1], a: $t[1, 21], b: $t[]| where(c, a, b))(&cond, &a, &b);
            let expected: Vec<$t> = (0..21 * 21)
                .map(|k| if cond.as_slice()[k / 21] { a.as_slice()[k % 21] } else { b.as_slice()[0] })
                .collect();
            assert_close("where", got.as_slice(), &expected, |k| format!("cond {}", cond.as_slice()[k / 21]), 0.0);
        }
    )*};
}
where_suite!(where_bool: bool, where_u8: u8, where_u16: u16, where_u32: u32, where_u64: u64, where_i8: i8,
    where_i16: i16, where_i32: i32, where_i64: i64, where_f16: f16, where_bf16: bf16, where_f32: f32, where_f64: f64);

/// `a as D` for every (S, D) pair: Rust `as` semantics, bool ↔ numbers, one rounding into halves.
macro_rules! cast_row {
    ($test:ident: $s:ident => $($d:ident)*) => {
        #[test]
        fn $test() {
            let a = Tensor::<$s, Shape![21]>::from_vec(<$s>::edge_values()).unwrap();
            $(
                let got = graph!(|a: $s[21]| a as $d)(&a);
                let expected: Vec<$d> = a.as_slice().iter().map(|&x| CastTo::<$d>::cast(x)).collect();
                assert_close(concat!("as ", stringify!($d)), got.as_slice(), &expected, |k| format!("{:?}", a.as_slice()[k]), 0.0);
            )*
        }
    };
}
cast_row!(cast_from_bool: bool => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_u8: u8 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_u16: u16 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_u32: u32 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_u64: u64 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_i8: i8 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_i16: i16 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_i32: i32 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_i64: i64 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_f16: f16 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_bf16: bf16 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_f32: f32 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
cast_row!(cast_from_f64: f64 => bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64);
