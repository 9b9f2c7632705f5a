//! The op reference (docs/ops.md) and its examples (tests/op_examples.rs), generated from
//! the op registry (`ops::FUNCTIONS`, `ops::TENSOR_OPS`, `where`) and tensor-core's
//! precision table (`functions`): every callable with its signature, dtypes, named
//! parameters and defaults, formula, precision bound and a runnable example.
//!
//! What the registry holds (names, arity, typing rule, named parameters and defaults,
//! operators, precision) is read from it; what it does not (the formula in words and the
//! example) is one entry per callable in `ELEMENTWISE` and `TENSOR` below, and a test fails
//! when a registry row has no entry or an entry names no row. Another test fails when the
//! checked-in files differ from what this module generates; regenerate them with
//!
//! ```text
//! TG_BLESS_DOCS=1 cargo test -p tensorgraph-macros --lib op_reference
//! ```
#![cfg(test)]

use std::fmt::Write as _;

use tensor_core::functions::FLOAT_FUNCTIONS;

use crate::ast::BinOp;
use crate::ops::{
    self, ArgKind, Op, ParamSpec, ReduceDtype, TensorOp, TensorOpKind, Typing, FUNCTIONS,
    TENSOR_OPS,
};

/// How an example is written.
enum Example {
    /// `call` (over `x`) on a `dtype[n]` tensor `x`; the result compared exactly.
    Unary(&'static str, &'static str, &'static str, &'static str),
    /// As `Unary`, compared within 1e-6 relative (the op's precision bound is tighter).
    Approx(&'static str, &'static str, &'static str, &'static str),
    /// `call` over `a` and `b`, two `dtype[n]` tensors; the result compared exactly.
    Binary(
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ),
    /// Rust statements after `use tensorgraph::prelude::*;`.
    Code(&'static str),
}

use Example::{Approx, Binary, Code, Unary};

/// The part of an elementwise row's documentation the registry does not hold.
struct Doc {
    name: &'static str,
    formula: &'static str,
    example: Example,
}

const fn doc(name: &'static str, formula: &'static str, example: Example) -> Doc {
    Doc {
        name,
        formula,
        example,
    }
}

/// The part of a tensor op's documentation the registry does not hold.
struct TensorDoc {
    name: &'static str,
    /// The positional arguments as a call writes them.
    args: &'static str,
    /// The dtype rule where the op's kind does not give it (`None`: from the kind).
    dtypes: Option<&'static str>,
    formula: &'static str,
    precision: &'static str,
    example: Example,
}

const X3: &str = "[-1.0, 0.5, 2.0]";

/// One entry per row of `ops::FUNCTIONS`, in its order.
const ELEMENTWISE: &[Doc] = &[
    doc("add", "`a + b` (integers wrap)", Binary("a + b", "i32", "[1, 2, 3]", "[10, 20, 30]", "[11, 22, 33]")),
    doc("sub", "`a - b` (integers wrap)", Binary("a - b", "u8", "[5, 0, 200]", "[3, 1, 100]", "[2, 255, 100]")),
    doc("mul", "`a · b` (integers wrap)", Binary("a * b", "f32", "[1.5, -2.0, 0.5]", "[2.0, 3.0, 0.25]", "[3.0, -6.0, 0.125]")),
    doc("div", "`a / b`; integers truncate towards zero, and an integer division by zero gives 0", Binary("a / b", "i32", "[7, -7, 7]", "[2, 2, 0]", "[3, -3, 0]")),
    doc("mod", "the floored remainder `a - floor(a / b)·b` (the sign of the divisor, Python's `%`); an integer divisor of 0 gives 0", Binary("mod(a, b)", "i32", "[7, -7, 7, -7]", "[3, 3, -3, -3]", "[1, 2, -2, -1]")),
    doc("rem", "the truncated remainder (the sign of the dividend, Rust's `%`); an integer divisor of 0 gives 0", Binary("a % b", "i32", "[7, -7, 7, -7]", "[3, 3, -3, -3]", "[1, -1, 1, -1]")),
    doc("pow", "`a` to the power `b`; integers wrap, and a negative integer exponent gives 0 except for bases 1 and -1", Binary("pow(a, b)", "i64", "[2, 3, -1, 2]", "[10, 2, 3, -1]", "[1024, 9, -1, 0]")),
    doc("max", "the larger of `a` and `b`; NaN propagates, `-0.0 < +0.0`", Binary("max(a, b)", "f32", "[1.0, -0.0, 5.0]", "[2.0, 0.0, -5.0]", "[2.0, 0.0, 5.0]")),
    doc("min", "the smaller of `a` and `b`; NaN propagates, `-0.0 < +0.0`", Binary("min(a, b)", "i8", "[1, -128, 5]", "[2, 127, -5]", "[1, -128, -5]")),
    doc("equal", "`a == b` (IEEE: NaN equals nothing)", Binary("a == b", "f32", "[1.0, 2.0, NAN]", "[1.0, 3.0, NAN]", "[true, false, false]")),
    doc("not_equal", "`a != b` (true where either is NaN)", Binary("a != b", "i32", "[1, 2, 3]", "[1, 0, 3]", "[false, true, false]")),
    doc("greater", "`a > b`", Binary("a > b", "f32", "[1.0, 2.0, 3.0]", "[2.0, 2.0, 2.0]", "[false, false, true]")),
    doc("greater_equal", "`a >= b`", Binary("a >= b", "f32", "[1.0, 2.0, 3.0]", "[2.0, 2.0, 2.0]", "[false, true, true]")),
    doc("less", "`a < b`", Binary("a < b", "u16", "[1, 2, 3]", "[2, 2, 2]", "[true, false, false]")),
    doc("less_equal", "`a <= b`", Binary("a <= b", "u16", "[1, 2, 3]", "[2, 2, 2]", "[true, true, false]")),
    doc("neg", "`-x` (integers wrap)", Unary("-x", "i32", "[1, -2, 0]", "[-1, 2, 0]")),
    doc("abs", "`|x|` (integers wrap: `abs(MIN) = MIN`)", Unary("abs(x)", "i8", "[-3, 4, -128]", "[3, 4, -128]")),
    doc("relu", "`max(x, 0)`", Unary("relu(x)", "f32", X3, "[0.0, 0.5, 2.0]")),
    doc("floor", "rounds towards -∞ (the identity on integers)", Unary("floor(x)", "f32", "[-1.5, 0.5, 2.0]", "[-2.0, 0.0, 2.0]")),
    doc("round", "rounds half away from zero (the identity on integers)", Unary("round(x)", "f32", "[-2.5, 0.5, 1.5]", "[-3.0, 1.0, 2.0]")),
    doc("roundeven", "rounds half to even (the identity on integers)", Unary("roundeven(x)", "f32", "[-2.5, 0.5, 1.5]", "[-2.0, 0.0, 2.0]")),
    doc("trunc", "rounds towards zero (the identity on integers)", Unary("trunc(x)", "f32", "[-1.5, 0.5, 2.7]", "[-1.0, 0.0, 2.0]")),
    doc("sqrt", "`√x` (NaN below 0)", Unary("sqrt(x)", "f32", "[0.25, 4.0, 9.0]", "[0.5, 2.0, 3.0]")),
    doc("rsqrt", "`1 / √x`", Approx("rsqrt(x)", "f32", "[0.25, 2.0, 9.0]", "[2.0, 0.70710677, 0.33333334]")),
    doc("exp", "`e^x`", Approx("exp(x)", "f32", X3, "[0.36787945, 1.6487212, 7.389056]")),
    doc("log", "`ln x` (NaN below 0, -∞ at 0)", Approx("log(x)", "f32", "[0.25, 1.0, 10.0]", "[-1.3862944, 0.0, 2.3025851]")),
    doc("log1p", "`ln(1 + x)`, accurate near 0", Approx("log1p(x)", "f32", "[-0.5, 0.001, 10.0]", "[-0.6931472, 0.0009995003, 2.3978953]")),
    doc("sin", "`sin x` (radians)", Approx("sin(x)", "f32", X3, "[-0.84147096, 0.47942555, 0.9092974]")),
    doc("cos", "`cos x` (radians)", Approx("cos(x)", "f32", X3, "[0.5403023, 0.87758255, -0.41614684]")),
    doc("tanh", "`tanh x`", Approx("tanh(x)", "f32", X3, "[-0.7615942, 0.46211717, 0.9640276]")),
    doc("erf", "the error function `2/√π ∫₀ˣ e^(-t²) dt`", Approx("erf(x)", "f32", X3, "[-0.8427008, 0.5204999, 0.9953223]")),
    doc("sigmoid", "`1 / (1 + e^-x)`", Approx("sigmoid(x)", "f32", X3, "[0.26894143, 0.62245935, 0.8807971]")),
    doc("gelu", "`x·Φ(x) = x/2·(1 + erf(x/√2))` (the exact GELU)", Approx("gelu(x)", "f32", X3, "[-0.15865526, 0.34573123, 1.9544997]")),
    doc("silu", "`x·sigmoid(x)`", Approx("silu(x)", "f32", X3, "[-0.26894143, 0.31122968, 1.7615942]")),
    doc("exp2", "`2^x`", Approx("exp2(x)", "f32", "[-1.0, 0.5, 3.0]", "[0.5, 1.4142135, 8.0]")),
    doc("log2", "`log₂ x`", Approx("log2(x)", "f32", "[0.25, 3.0, 10.0]", "[-2.0, 1.5849625, 3.321928]")),
    doc("expm1", "`e^x - 1`, accurate near 0", Approx("expm1(x)", "f32", "[-1.0, 0.001, 2.0]", "[-0.63212055, 0.0010005002, 6.389056]")),
    doc("tan", "`tan x` (radians)", Approx("tan(x)", "f32", "[-1.0, 0.5, 1.5]", "[-1.5574077, 0.5463025, 14.10142]")),
    doc("atan", "`arctan x`, in (-π/2, π/2)", Approx("atan(x)", "f32", X3, "[-0.7853982, 0.4636476, 1.1071488]")),
    doc("asin", "`arcsin x`, in [-π/2, π/2] (NaN outside [-1, 1])", Approx("asin(x)", "f32", "[-1.0, 0.5, 0.25]", "[-1.5707964, 0.5235988, 0.25268024]")),
    doc("acos", "`arccos x`, in [0, π] (NaN outside [-1, 1])", Approx("acos(x)", "f32", "[-1.0, 0.5, 0.25]", "[3.1415927, 1.0471976, 1.3181161]")),
    doc("sinh", "`sinh x`", Approx("sinh(x)", "f32", X3, "[-1.1752012, 0.5210953, 3.6268604]")),
    doc("cosh", "`cosh x`", Approx("cosh(x)", "f32", X3, "[1.5430807, 1.127626, 3.7621956]")),
    doc("softplus", "`ln(1 + e^x)`", Approx("softplus(x)", "f32", X3, "[0.3132617, 0.974077, 2.126928]")),
    doc("asinh", "`arsinh x`", Approx("asinh(x)", "f32", X3, "[-0.8813736, 0.4812118, 1.4436355]")),
    doc("acosh", "`arcosh x` (NaN below 1)", Approx("acosh(x)", "f32", "[1.0, 1.5, 4.0]", "[0.0, 0.9624236, 2.063437]")),
    doc("atanh", "`artanh x` (NaN outside [-1, 1], ±∞ at ±1)", Approx("atanh(x)", "f32", "[-0.5, 0.25, 0.75]", "[-0.54930615, 0.25541282, 0.97295505]")),
    doc("erfc", "`1 - erf(x)`, accurate where it is small", Approx("erfc(x)", "f32", X3, "[1.8427008, 0.47950011, 0.004677735]")),
    doc("cbrt", "`∛x` (negative for negative `x`)", Approx("cbrt(x)", "f32", "[-8.0, 2.0, 27.0]", "[-2.0, 1.2599211, 3.0]")),
    doc("mish", "`x·tanh(softplus(x))`", Approx("mish(x)", "f32", X3, "[-0.30340147, 0.3752452, 1.943959]")),
    doc("gelu_tanh", "`x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))` (GELU's tanh approximation)", Approx("gelu_tanh(x)", "f32", X3, "[-0.15880801, 0.345714, 1.9545977]")),
    doc("is_nan", "`x` is NaN", Unary("is_nan(x)", "f32", "[NAN, 1.0, INFINITY]", "[true, false, false]")),
    doc("is_inf", "`x` is +∞ or -∞", Unary("is_inf(x)", "f32", "[NAN, 1.0, NEG_INFINITY]", "[false, false, true]")),
    doc("ceil", "rounds towards +∞ (the identity on integers)", Unary("ceil(x)", "f32", "[-1.5, 0.5, 2.0]", "[-1.0, 1.0, 2.0]")),
    doc("square", "`x·x` (integers wrap)", Unary("square(x)", "i32", "[-3, 0, 5]", "[9, 0, 25]")),
    doc("sign", "-1, 0 or 1 (0 or 1 for unsigned); `sign(±0.0) = ±0.0`, NaN stays NaN", Unary("sign(x)", "f32", "[-2.5, 0.0, 7.0]", "[-1.0, 0.0, 1.0]")),
    doc("reciprocal", "`1 / x`", Unary("reciprocal(x)", "f32", "[-4.0, 0.5, 2.0]", "[-0.25, 2.0, 0.5]")),
    doc("softsign", "`x / (1 + |x|)`", Unary("softsign(x)", "f32", "[-1.0, 0.0, 3.0]", "[-0.5, 0.0, 0.75]")),
    doc("is_finite", "`x` is neither infinite nor NaN", Unary("is_finite(x)", "f32", "[NAN, 1.0, INFINITY]", "[false, true, false]")),
    doc("hard_swish", "`x·max(0, min(1, x/6 + 1/2))` (ONNX `HardSwish`)", Unary("hard_swish(x)", "f32", "[-4.0, 0.0, 3.0]", "[-0.0, 0.0, 3.0]")),
    doc("leaky_relu", "`x` where `x ≥ 0`, else `alpha·x`", Unary("leaky_relu(x, alpha = 0.5)", "f32", X3, "[-0.5, 0.5, 2.0]")),
    doc("thresholded_relu", "`x` where `x > alpha`, else 0", Unary("thresholded_relu(x, alpha = 1.0)", "f32", X3, "[0.0, 0.0, 2.0]")),
    doc("hard_sigmoid", "`max(0, min(1, alpha·x + beta))`", Unary("hard_sigmoid(x)", "f32", "[-5.0, 0.5, 4.0]", "[0.0, 0.6, 1.0]")),
    doc("shrink", "`x + bias` where `x < -lambd`, `x - bias` where `x > lambd`, else 0", Unary("shrink(x, lambd = 1.0, bias = 0.5)", "f32", "[-2.0, 0.5, 3.0]", "[-1.5, 0.0, 2.5]")),
    doc("elu", "`x` where `x > 0`, else `alpha·(e^x - 1)`", Approx("elu(x)", "f32", X3, "[-0.63212055, 0.5, 2.0]")),
    doc("celu", "`max(0, x) + min(0, alpha·(e^(x/alpha) - 1))`", Approx("celu(x)", "f32", X3, "[-0.63212055, 0.5, 2.0]")),
    doc("selu", "`gamma·x` where `x > 0`, else `gamma·alpha·(e^x - 1)`", Approx("selu(x)", "f32", X3, "[-1.1113307, 0.5253505, 2.101402]")),
    doc("swish", "`x·sigmoid(alpha·x)`", Approx("swish(x)", "f32", X3, "[-0.26894143, 0.31122968, 1.7615942]")),
    doc("bitwise_count", "the number of one bits of `|x|` (NumPy's `bitwise_count`)", Unary("bitwise_count(x)", "i16", "[0, 7, -6]", "[0, 3, 2]")),
    doc("bitwise_and", "bitwise AND on integers, logical AND on `bool`", Binary("a & b", "u8", "[12, 255, 0]", "[10, 15, 7]", "[8, 15, 0]")),
    doc("bitwise_or", "bitwise OR on integers, logical OR on `bool`", Binary("a | b", "u8", "[12, 240, 0]", "[10, 15, 7]", "[14, 255, 7]")),
    doc("bitwise_xor", "bitwise XOR on integers, logical XOR on `bool`", Binary("a ^ b", "u8", "[12, 255, 0]", "[10, 15, 7]", "[6, 240, 7]")),
    doc("bitwise_not", "bitwise NOT on integers, logical NOT on `bool`", Unary("!x", "i8", "[0, -1, 5]", "[-1, 0, -6]")),
    doc("shift_left", "`a << b`; a shift amount outside `0..bits` gives 0", Binary("a << b", "u8", "[1, 3, 1]", "[3, 1, 8]", "[8, 6, 0]")),
    doc("shift_right", "`a >> b` (arithmetic for signed integers); a shift amount outside `0..bits` gives 0, or -1 for a negative `a`", Binary("a >> b", "i32", "[16, -16, -1]", "[2, 2, 40]", "[4, -4, -1]")),
    doc("logical_and", "`a && b`", Binary("a && b", "bool", "[true, true, false]", "[true, false, false]", "[true, false, false]")),
    doc("logical_or", "`a || b`", Binary("a || b", "bool", "[true, true, false]", "[true, false, false]", "[true, true, false]")),
    doc("logical_xor", "`a != b` on `bool`", Binary("logical_xor(a, b)", "bool", "[true, true, false]", "[true, false, false]", "[false, true, false]")),
    doc("logical_not", "`!x` on `bool`", Unary("logical_not(x)", "bool", "[true, false, true]", "[false, true, false]")),
];

/// `where(cond, a, b)`, which is no row of either table.
const WHERE: TensorDoc = TensorDoc {
    name: "where",
    args: "cond, a, b",
    dtypes: Some("`cond` is `bool`; `a` and `b` promote as binary operands and give the result's dtype; all three broadcast"),
    formula: "`a` where `cond`, else `b`, elementwise",
    precision: "exact",
    example: Code(r#"let f = graph!(|c: bool[3], a: f32[3], b: f32[]| where(c, a, b));
let c = Tensor::<bool, Shape![3]>::from_vec(vec![true, false, true]).unwrap();
let a = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, 2.0, 3.0]).unwrap();
let b = Tensor::<f32, Shape![]>::from_vec(vec![-1.0]).unwrap();
assert_eq!(f(&c, &a, &b).as_slice(), &[1.0, -1.0, 3.0]);"#),
};

const REDUCE_EXACT: &str = "integers exact (wrapping in the accumulator); floats accumulate in `f64` by default (`acc =`), in an unspecified order, rounded once to the output dtype";

/// One entry per row of `ops::TENSOR_OPS`, in its order.
const TENSOR: &[TensorDoc] = &[
    TensorDoc { name: "sum", args: "x", dtypes: None, formula: "the sum over `axis` (every axis when absent); 0 over an empty axis", precision: REDUCE_EXACT, example: Code(r#"let f = graph!(|x: i32[2, 3]| sum(x, axis = 1));
let x = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
assert_eq!(f(&x).as_slice(), &[6i64, 15]); // signed integers sum to `i64`"#) },
    TensorDoc { name: "prod", args: "x", dtypes: None, formula: "the product over `axis`; 1 over an empty axis", precision: REDUCE_EXACT, example: Code(r#"let f = graph!(|x: f32[2, 3]| prod(x, axis = 0));
let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[4.0, 10.0, 18.0]);"#) },
    TensorDoc { name: "reduce_l1", args: "x", dtypes: None, formula: "`sum(|x|)` over `axis`", precision: REDUCE_EXACT, example: Code(r#"let f = graph!(|x: f32[4]| reduce_l1(x));
let x = Tensor::<f32, Shape![4]>::from_vec(vec![1.0, -2.0, 3.0, -4.0]).unwrap();
assert_eq!(f(&x).item(), 10.0);"#) },
    TensorDoc { name: "reduce_sum_square", args: "x", dtypes: None, formula: "`sum(x²)` over `axis`", precision: REDUCE_EXACT, example: Code(r#"let f = graph!(|x: f32[3]| reduce_sum_square(x));
let x = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, -2.0, 2.0]).unwrap();
assert_eq!(f(&x).item(), 9.0);"#) },
    TensorDoc { name: "mean", args: "x", dtypes: None, formula: "`sum(x) / n` over `axis`; NaN over an empty axis", precision: "the sum as `sum` (accumulated in `f64` by default), divided once and rounded to the output dtype", example: Code(r#"let f = graph!(|x: i32[2, 2]| mean(x, axis = -1, keepdims = true));
let x = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 6]).unwrap();
let m = f(&x); // integers average to `f64`
assert_eq!(m.shape(), &[2, 1]);
assert_eq!(m.as_slice(), &[1.5, 4.5]);"#) },
    TensorDoc { name: "reduce_l2", args: "x", dtypes: None, formula: "`sqrt(sum(x²))` over `axis`", precision: "the sum as `sum`, then a correctly rounded `sqrt`", example: Code(r#"let f = graph!(|x: f32[2]| reduce_l2(x));
let x = Tensor::<f32, Shape![2]>::from_vec(vec![3.0, 4.0]).unwrap();
assert_eq!(f(&x).item(), 5.0);"#) },
    TensorDoc { name: "reduce_log_sum", args: "x", dtypes: None, formula: "`ln(sum(x))` over `axis`", precision: "the sum as `sum`, then `log` (1 ULP)", example: Code(r#"let f = graph!(|x: f32[3]| reduce_log_sum(x));
let x = Tensor::<f32, Shape![3]>::from_vec(vec![0.5, 0.25, 0.25]).unwrap();
assert_eq!(f(&x).item(), 0.0);"#) },
    TensorDoc { name: "reduce_log_sum_exp", args: "x", dtypes: None, formula: "`ln(sum(e^x))` over `axis`, computed as `m + ln(sum(e^(x - m)))` with `m` the maximum (no overflow)", precision: "`exp` and `log` bounds (1 ULP each) plus the sum's rounding", example: Code(r#"let f = graph!(|x: f32[2]| reduce_log_sum_exp(x));
let x = Tensor::<f32, Shape![2]>::from_vec(vec![1000.0, 1000.0]).unwrap();
let y = f(&x).item(); // 1000 + ln 2, where a naive e^1000 overflows
assert!((y - (1000.0 + 2f32.ln())).abs() < 1e-3);"#) },
    TensorDoc { name: "max", args: "x", dtypes: None, formula: "the largest element over `axis`; NaN propagates; an empty named axis is an `Err` at call entry (a literal empty axis a compile error)", precision: "exact", example: Code(r#"let f = graph!(|x: f32[2, 3]| max(x, axis = 1));
let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0, 5.0, 3.0, -4.0, -5.0, -6.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[5.0, -4.0]);"#) },
    TensorDoc { name: "min", args: "x", dtypes: None, formula: "the smallest element over `axis`; NaN propagates; an empty named axis is an `Err` at call entry", precision: "exact", example: Code(r#"let f = graph!(|x: u8[2, 3]| min(x));
let x = Tensor::<u8, Shape![2, 3]>::from_vec(vec![9, 5, 3, 4, 7, 6]).unwrap();
assert_eq!(f(&x).item(), 3);"#) },
    TensorDoc { name: "any", args: "x", dtypes: None, formula: "some element is nonzero (true) over `axis`; false over an empty axis", precision: "exact", example: Code(r#"let f = graph!(|x: bool[2, 2]| any(x, axis = 1));
let x = Tensor::<bool, Shape![2, 2]>::from_vec(vec![false, true, false, false]).unwrap();
assert_eq!(f(&x).as_slice(), &[true, false]);"#) },
    TensorDoc { name: "all", args: "x", dtypes: None, formula: "every element is nonzero (true) over `axis`; true over an empty axis", precision: "exact", example: Code(r#"let f = graph!(|x: i32[3]| all(x));
let x = Tensor::<i32, Shape![3]>::from_vec(vec![1, -2, 0]).unwrap();
assert!(!f(&x).item());"#) },
    TensorDoc { name: "argmax", args: "x", dtypes: None, formula: "the index of the first largest element along `axis` (a NaN counts as largest); an empty named axis is an `Err` at call entry", precision: "exact", example: Code(r#"let f = graph!(|x: f32[2, 3]| argmax(x, axis = 1));
let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0, 5.0, 5.0, 7.0, -5.0, 6.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[1i64, 0]);"#) },
    TensorDoc { name: "argmin", args: "x", dtypes: None, formula: "the index of the first smallest element along `axis` (a NaN counts as smallest)", precision: "exact", example: Code(r#"let f = graph!(|x: i32[4]| argmin(x));
let x = Tensor::<i32, Shape![4]>::from_vec(vec![3, -1, 4, -1]).unwrap();
assert_eq!(f(&x).item(), 1i64);"#) },
    TensorDoc { name: "softmax", args: "x", dtypes: None, formula: "`e^(x - m) / sum(e^(x - m))` along `axis`, `m` the maximum along it", precision: "`exp` (1 ULP) of each element, the row's sum (in an unspecified order) and a correctly rounded division by it", example: Code(r#"let f = graph!(|x: f32[2, 2]| softmax(x));
let x = Tensor::<f32, Shape![2, 2]>::from_vec(vec![0.0, 0.0, 1000.0, 1000.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[0.5, 0.5, 0.5, 0.5]);"#) },
    TensorDoc { name: "logsoftmax", args: "x", dtypes: None, formula: "`x - m - ln(sum(e^(x - m)))` along `axis`", precision: "`exp` and `log` bounds (1 ULP each) and the sum's rounding", example: Code(r#"let f = graph!(|x: f32[2]| logsoftmax(x));
let x = Tensor::<f32, Shape![2]>::from_vec(vec![3.0, 3.0]).unwrap();
for y in f(&x).as_slice() {
    assert!((y + 2f32.ln()).abs() < 1e-6);
}"#) },
    TensorDoc { name: "dimshuffle", args: "x, [axes…]", dtypes: None, formula: "Theano's `dimshuffle`: a permutation of the axes, `'x'` inserting a size-1 axis; leaving out an axis drops it (size 1 only)", precision: "exact (a view: no copy, no arithmetic)", example: Code(r#"let f = graph!(|x: f32[2, 1, 3]| dimshuffle(x, [2, 'x', 0]));
let x = Tensor::<f32, Shape![2, 1, 3]>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
let y = f(&x);
assert_eq!(y.shape(), &[3, 1, 2]);
assert_eq!(y.as_slice(), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);"#) },
    TensorDoc { name: "transpose", args: "x, [perm…]", dtypes: None, formula: "the axes in the order `perm` (NumPy's `transpose`)", precision: "exact (a view)", example: Code(r#"let f = graph!(|x: i32[2, 3]| transpose(x, [1, 0]));
let x = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
assert_eq!(f(&x).as_slice(), &[1, 4, 2, 5, 3, 6]);"#) },
    TensorDoc { name: "reshape", args: "x, [dims…]", dtypes: None, formula: "the same elements in row-major order with new dims; every name stays one whole axis, literal runs regroup, `-1` absorbs literal dims only", precision: "exact (a view)", example: Code(r#"let f = graph!(|x: f32[B, 6]| reshape(x, [B, 2, 3]));
let y = f(&vec![0.0f32; 12]).unwrap();
assert_eq!(y.shape(), &[2, 2, 3]);"#) },
    TensorDoc { name: "broadcast_to", args: "x, [dims…]", dtypes: None, formula: "`x` broadcast to the dims (the broadcasting rules of binary ops)", precision: "exact (a view)", example: Code(r#"let f = graph!(|x: f32[3]| broadcast_to(x, [2, 3]));
let x = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, 2.0, 3.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);"#) },
    TensorDoc { name: "expand_dims", args: "x, axis", dtypes: None, formula: "a size-1 axis inserted at `axis`", precision: "exact (a view)", example: Code(r#"let f = graph!(|x: f32[3]| expand_dims(x, 0));
let y = f(&Tensor::<f32, Shape![3]>::zeros());
assert_eq!(y.shape(), &[1, 3]);"#) },
    TensorDoc { name: "squeeze", args: "x, axis", dtypes: None, formula: "the size-1 axis `axis` removed (a literal 1 only)", precision: "exact (a view)", example: Code(r#"let f = graph!(|x: f32[3, 1]| squeeze(x, 1));
let y = f(&Tensor::<f32, Shape![3, 1]>::full(2.0));
assert_eq!(y.shape(), &[3]);
assert_eq!(y.as_slice(), &[2.0, 2.0, 2.0]);"#) },
    TensorDoc { name: "clip", args: "x", dtypes: Some("as the binary `max`/`min` of `x` and the bounds (integers and floats)"), formula: "`min(max(x, min), max)` (NumPy's order: `max` wins when `min > max`); either bound may be left out; bounds broadcast; NaN stays NaN", precision: "exact", example: Code(r#"let f = graph!(|x: f32[4]| clip(x, min = -1.0, max = 1.0));
let x = Tensor::<f32, Shape![4]>::from_vec(vec![-3.0, -0.5, 0.5, 3.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[-1.0, -0.5, 0.5, 1.0]);"#) },
    TensorDoc { name: "clamp", args: "x", dtypes: Some("as `clip`"), formula: "`clip` under another name", precision: "exact", example: Code(r#"let f = graph!(|x: i32[3], hi: i32| clamp(x, max = hi));
let x = Tensor::<i32, Shape![3]>::from_vec(vec![-7, 5, 9]).unwrap();
assert_eq!(f(&x, 6).as_slice(), &[-7, 5, 6]);"#) },
    TensorDoc { name: "prelu", args: "x, slope", dtypes: Some("`x` and `slope` promote as binary operands (integers and floats); `slope` broadcasts"), formula: "`where(x < 0, x·slope, x)`", precision: "exact", example: Code(r#"let f = graph!(|x: f32[2, 2], slope: f32[2]| prelu(x, slope));
let x = Tensor::<f32, Shape![2, 2]>::from_vec(vec![-1.0, -1.0, 2.0, -4.0]).unwrap();
let slope = Tensor::<f32, Shape![2]>::from_vec(vec![0.5, 0.25]).unwrap();
assert_eq!(f(&x, &slope).as_slice(), &[-0.5, -0.25, 2.0, -1.0]);"#) },
    TensorDoc { name: "cumsum", args: "x", dtypes: Some("as `sum` (signed integers and `bool` to `i64`, unsigned to `u64`, floats keep theirs; `dtype =`, `acc =`)"), formula: "the running sum along `axis` (`exclusive`: without the current element; `reverse`: from the end)", precision: "sequential along the axis in the accumulator, each partial sum rounded once to the output dtype", example: Code(r#"let f = graph!(|x: i32[4]| (cumsum(x, axis = 0), cumsum(x, axis = 0, exclusive = true, reverse = true)));
let x = Tensor::<i32, Shape![4]>::from_vec(vec![1, 2, 3, 4]).unwrap();
let (inclusive, reversed) = f(&x);
assert_eq!(inclusive.as_slice(), &[1i64, 3, 6, 10]);
assert_eq!(reversed.as_slice(), &[9i64, 7, 4, 0]);"#) },
    TensorDoc { name: "cumprod", args: "x", dtypes: Some("as `prod`"), formula: "the running product along `axis` (`exclusive`, `reverse` as `cumsum`)", precision: "as `cumsum`", example: Code(r#"let f = graph!(|x: f32[4]| cumprod(x, axis = 0));
let x = Tensor::<f32, Shape![4]>::from_vec(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[1.0, 2.0, 6.0, 24.0]);"#) },
    TensorDoc { name: "sum_of", args: "a, b, …", dtypes: Some("the operands promote as binary operands (integers and floats) and broadcast"), formula: "`a + b + …`, left to right (`add` with more than two operands is the same)", precision: "exact per addition (each rounded once)", example: Code(r#"let f = graph!(|a: f32[2], b: f32[2], c: f32[]| sum_of(a, b, c));
let a = Tensor::<f32, Shape![2]>::from_vec(vec![1.0, 2.0]).unwrap();
let b = Tensor::<f32, Shape![2]>::from_vec(vec![10.0, 20.0]).unwrap();
let c = Tensor::<f32, Shape![]>::from_vec(vec![100.0]).unwrap();
assert_eq!(f(&a, &b, &c).as_slice(), &[111.0, 122.0]);"#) },
    TensorDoc { name: "mean_of", args: "a, b, …", dtypes: Some("float operands; they promote and broadcast"), formula: "`(a + b + …) / n`", precision: "each addition and the division rounded once", example: Code(r#"let f = graph!(|a: f32[2], b: f32[2]| mean_of(a, b));
let a = Tensor::<f32, Shape![2]>::from_vec(vec![1.0, 2.0]).unwrap();
let b = Tensor::<f32, Shape![2]>::from_vec(vec![3.0, 5.0]).unwrap();
assert_eq!(f(&a, &b).as_slice(), &[2.0, 3.5]);"#) },
    TensorDoc { name: "layer_norm", args: "x, gamma, beta", dtypes: Some("floats; `gamma` and `beta` broadcast to `x`; computed in `f32` for `f16`/`bf16`, rounded once"), formula: "`(x - μ) / sqrt(σ² + eps)·gamma + beta` over the axes from `axis` to the last, `σ² = mean((x - μ)²)` (ONNX `LayerNormalization`)", precision: "the sums accumulated in `f64` (as `mean`); each other step (subtraction, `sqrt`, division, scale, shift) correctly rounded in the compute dtype, the result rounded once to `x`'s dtype", example: Code(r#"let f = graph!(|x: f32[2, 2], g: f32[2], b: f32[2]| layer_norm(x, g, b, eps = 0.0));
let x = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1.0, 3.0, -2.0, 2.0]).unwrap();
let g = Tensor::<f32, Shape![2]>::full(1.0);
let b = Tensor::<f32, Shape![2]>::from_vec(vec![0.0, 10.0]).unwrap();
assert_eq!(f(&x, &g, &b).as_slice(), &[-1.0, 11.0, -1.0, 11.0]);"#) },
    TensorDoc { name: "rms_norm", args: "x, gamma", dtypes: Some("floats; `gamma` broadcasts to `x`"), formula: "`x / sqrt(mean(x²) + eps)·gamma` over the axes from `axis` to the last (ONNX `RMSNormalization`)", precision: "as `layer_norm`", example: Code(r#"let f = graph!(|x: f32[2], g: f32[2]| rms_norm(x, g, eps = 0.0));
let x = Tensor::<f32, Shape![2]>::from_vec(vec![3.0, -3.0]).unwrap();
let g = Tensor::<f32, Shape![2]>::from_vec(vec![1.0, 2.0]).unwrap();
assert_eq!(f(&x, &g).as_slice(), &[1.0, -2.0]);"#) },
    TensorDoc { name: "l2_normalize", args: "x", dtypes: Some("floats"), formula: "`x / sqrt(sum(x²))` along `axis` (ONNX `LpNormalization`, p = 2); a zero vector gives NaN", precision: "as `reduce_l2`, then a correctly rounded division", example: Code(r#"let f = graph!(|x: f32[2, 2]| l2_normalize(x));
let x = Tensor::<f32, Shape![2, 2]>::from_vec(vec![3.0, 4.0, 0.0, -2.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[0.6, 0.8, 0.0, -1.0]);"#) },
    TensorDoc { name: "quantize_linear", args: "x, scale, zero_point", dtypes: Some("float `x` and `scale`; the result has `zero_point`'s dtype (`u8`, `i8`, `u16`, `i16`); per-axis scales and zero points broadcast"), formula: "`saturate(roundeven(x / scale) + zero_point)`; NaN gives 0", precision: "exact given the division's rounding", example: Code(r#"let q = graph!(|x: f32[4], s: f32, z: u8| quantize_linear(x, s, z));
let x = Tensor::<f32, Shape![4]>::from_vec(vec![0.0, 1.0, 2.5, 1e6]).unwrap();
assert_eq!(q(&x, 0.5, 10).as_slice(), &[10, 12, 15, 255]);"#) },
    TensorDoc { name: "dequantize_linear", args: "q, scale, zero_point", dtypes: Some("integer `q` and `zero_point`; the result has `scale`'s (float) dtype"), formula: "`(q - zero_point)·scale`, the difference exact in `i64`", precision: "one conversion and one multiplication, each rounded once", example: Code(r#"let d = graph!(|q: u8[3], s: f32, z: u8| dequantize_linear(q, s, z));
let q = Tensor::<u8, Shape![3]>::from_vec(vec![10, 12, 255]).unwrap();
assert_eq!(d(&q, 0.5, 10).as_slice(), &[0.0, 1.0, 122.5]);"#) },
    TensorDoc { name: "slice", args: "x", dtypes: None, formula: "NumPy's `x[…, start:end:step, …]` on one axis (ONNX `Slice`): negative bounds count from the end, bounds clamp, `step ≠ 0`; a named axis takes literal bounds on one side (checked at call entry) or is taken whole", precision: "exact (an index map: no copy)", example: Code(r#"let f = graph!(|x: i32[2, 4]| slice(x, axis = 1, start = 1, end = -1));
let x = Tensor::<i32, Shape![2, 4]>::from_vec(vec![1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
assert_eq!(f(&x).as_slice(), &[2, 3, 6, 7]);"#) },
    TensorDoc { name: "flip", args: "x", dtypes: None, formula: "reverses `axis` (a list of axes, or every axis when absent)", precision: "exact (an index map)", example: Code(r#"let f = graph!(|x: i32[2, 2]| flip(x));
let x = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]).unwrap();
assert_eq!(f(&x).as_slice(), &[4, 3, 2, 1]);"#) },
    TensorDoc { name: "pad", args: "x, [before0, after0, before1, after1, …]", dtypes: None, formula: "`x` with `before`/`after` elements added on each axis (negative counts crop): `value` (`mode = constant`), the mirror image without the edge (`reflect`) or the edge repeated (`edge`); literal axes only", precision: "exact (an index map)", example: Code(r#"let f = graph!(|x: f32[3]| (pad(x, [1, 2], value = 9.0), pad(x, [2, 0], mode = reflect)));
let x = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, 2.0, 3.0]).unwrap();
let (constant, reflect) = f(&x);
assert_eq!(constant.as_slice(), &[9.0, 1.0, 2.0, 3.0, 9.0, 9.0]);
assert_eq!(reflect.as_slice(), &[3.0, 2.0, 1.0, 2.0, 3.0]);"#) },
    TensorDoc { name: "tile", args: "x, [reps…]", dtypes: None, formula: "each axis repeated `r` times (0 empties it); literal axes only", precision: "exact (an index map)", example: Code(r#"let f = graph!(|x: u8[2]| tile(x, [3]));
let x = Tensor::<u8, Shape![2]>::from_vec(vec![1, 2]).unwrap();
assert_eq!(f(&x).as_slice(), &[1, 2, 1, 2, 1, 2]);"#) },
    TensorDoc { name: "concat", args: "[a, b, …]", dtypes: Some("the parts promote as binary operands and agree on every other axis (no broadcasting)"), formula: "the parts joined along `axis`; literal axes only", precision: "exact (an index map), besides the promotion's casts", example: Code(r#"let f = graph!(|a: f32[1, 2], b: f32[2, 2]| concat([a, b], axis = 0));
let a = Tensor::<f32, Shape![1, 2]>::from_vec(vec![1.0, 2.0]).unwrap();
let b = Tensor::<f32, Shape![2, 2]>::from_vec(vec![3.0, 4.0, 5.0, 6.0]).unwrap();
assert_eq!(f(&a, &b).as_slice(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);"#) },
    TensorDoc { name: "arange", args: "D", dtypes: Some("any numeric dtype (`dtype =`, default `i64`)"), formula: "0, 1, …, D − 1 along one axis of size `D` (a literal, a dim name or an expression of them); computed in the kernel, never stored", precision: "exact", example: Code(r#"let f = graph!(|x: f32[4]| x + arange(4, dtype = f32));
let x = Tensor::<f32, Shape![4]>::full(0.5);
assert_eq!(f(&x).as_slice(), &[0.5, 1.5, 2.5, 3.5]);"#) },
    TensorDoc { name: "eye", args: "D0, D1", dtypes: Some("any numeric dtype or `bool` (`dtype =`, default `f32`)"), formula: "1 where `col − row = k`, else 0, over `[D0, D1]` (`eye(D)` is square); computed in the kernel, never stored", precision: "exact", example: Code(r#"let f = graph!(|x: f32[2, 3]| x + eye(2, 3, k = 1));
let x = Tensor::<f32, Shape![2, 3]>::zeros();
assert_eq!(f(&x).as_slice(), &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);"#) },
    TensorDoc { name: "tril", args: "x", dtypes: Some("every dtype, unchanged; rank ≥ 2"), formula: "`x` where `col − row ≤ k` over its last two axes, else 0", precision: "exact", example: Code(r#"let f = graph!(|x: i32[3, 3]| tril(x));
let x = Tensor::<i32, Shape![3, 3]>::from_vec((1..=9).collect()).unwrap();
assert_eq!(f(&x).as_slice(), &[1, 0, 0, 4, 5, 0, 7, 8, 9]);"#) },
    TensorDoc { name: "triu", args: "x", dtypes: Some("every dtype, unchanged; rank ≥ 2"), formula: "`x` where `col − row ≥ k` over its last two axes, else 0", precision: "exact", example: Code(r#"let f = graph!(|x: i32[2, 3]| triu(x, k = 1));
let x = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
assert_eq!(f(&x).as_slice(), &[0, 2, 3, 0, 0, 6]);"#) },
    TensorDoc { name: "gather", args: "data, indices", dtypes: Some("`data` any dtype (the result's); `indices` any integer dtype, a parameter of the graph"), formula: "ONNX `Gather`, NumPy `take`: `data`'s axes before `axis`, then `indices`' axes, then `data`'s after `axis`, each element `data` at the position its index names (negative from the end); an index out of range is an `Err` at call entry, so the graph returns `Result`", precision: "exact", example: Code(r#"let f = graph!(|table: i32[3, 2], ids: i64[4]| gather(table, ids));
let table = Tensor::<i32, Shape![3, 2]>::from_vec(vec![0, 1, 2, 3, 4, 5]).unwrap();
let ids = Tensor::<i64, Shape![4]>::from_vec(vec![2, 0, -1, 1]).unwrap();
let y = f(&table, &ids).unwrap();
assert_eq!(y.as_slice(), &[4, 5, 0, 1, 4, 5, 2, 3]);
let out_of_range = Tensor::<i64, Shape![4]>::from_vec(vec![0, 0, 3, 0]).unwrap();
assert!(f(&table, &out_of_range).is_err());"#) },
    TensorDoc { name: "one_hot", args: "indices", dtypes: Some("`indices` any integer dtype; the result `dtype =` (default `f32`), `on` and `off` of it"), formula: "ONNX `OneHot`: a new axis of `depth` (a literal or a dim) at `axis`, `on` where its position is the index and `off` elsewhere; a negative index counts from the end, one outside `-depth..depth` gives a row of `off` (no `Err`)", precision: "exact", example: Code(r#"let f = graph!(|ids: i64[3]| one_hot(ids, depth = 3));
let ids = Tensor::<i64, Shape![3]>::from_vec(vec![0, -1, 7]).unwrap();
let y = f(&ids); // 7 is out of range: a row of `off`
assert_eq!(y.shape(), &[3, 3]);
assert_eq!(y.as_slice(), &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);"#) },
    TensorDoc { name: "gather_elements", args: "data, indices", dtypes: Some("`data` any dtype (the result's); `indices` any integer dtype, a parameter of the graph, of `data`'s rank"), formula: "ONNX `GatherElements`, NumPy `take_along_axis`: the output has `indices`' dims, each element `data` at its own index along `axis` (negative from the end); an index out of range is an `Err` at call entry", precision: "exact", example: Code(r#"let f = graph!(|x: f32[2, 3], labels: i64[2, 1]| gather_elements(x, labels, axis = 1));
let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0.1, 0.2, 0.7, 0.5, 0.3, 0.2]).unwrap();
let labels = Tensor::<i64, Shape![2, 1]>::from_vec(vec![2, 0]).unwrap();
assert_eq!(f(&x, &labels).unwrap().as_slice(), &[0.7, 0.5]);"#) },
    TensorDoc { name: "split", args: "x, [s0, s1, …]", dtypes: Some("every dtype, unchanged"), formula: "ONNX `Split`: consecutive parts of the given sizes along `axis`, which add up to its length (on a symbolic axis one size may be `-1`, the rest, checked at call entry); a tuple, bound with `let (a, b) = …` or the whole body; the parts are views", precision: "exact (views: no copy)", example: Code(r#"let f = graph!(|x: i32[5]| split(x, [2, 3]));
let x = Tensor::<i32, Shape![5]>::from_vec(vec![1, 2, 3, 4, 5]).unwrap();
let (head, tail) = f(&x);
assert_eq!(head.as_slice(), &[1, 2]);
assert_eq!(tail.as_slice(), &[3, 4, 5]);"#) },
    TensorDoc { name: "top_k", args: "x", dtypes: Some("every dtype but `bool` → a tuple of values (`x`'s dtype) and positions (`i64`)"), formula: "ONNX `TopK`: the `k` best values along `axis` (largest unless `largest = false`) and their positions, best first; ties by the lower position, NaN above every number; `k` a literal (checked against a symbolic axis at call entry)", precision: "exact", example: Code(r#"let f = graph!(|x: f32[4]| top_k(x, k = 2));
let x = Tensor::<f32, Shape![4]>::from_vec(vec![0.1, 3.0, -1.0, 3.0]).unwrap();
let (values, positions) = f(&x);
assert_eq!(values.as_slice(), &[3.0, 3.0]);
assert_eq!(positions.as_slice(), &[1, 3]);"#) },
    TensorDoc { name: "gather_nd", args: "data, indices", dtypes: Some("every dtype for `data`, any integer dtype for `indices` → `data`'s dtype"), formula: "ONNX `GatherND`: the last axis of `indices` holds tuples indexing `data`'s axes after the first `batch_dims`; the result is `indices`' dims without that axis, then `data`'s remaining axes; indices checked at call entry", precision: "exact", example: Code(r#"let f = graph!(|x: i64[3, 4], ids: i32[2, 2]| gather_nd(x, ids));
let x = Tensor::<i64, Shape![3, 4]>::from_vec((0..12).collect()).unwrap();
let ids = Tensor::<i32, Shape![2, 2]>::from_vec(vec![2, 3, -1, 0]).unwrap();
assert_eq!(f(&x, &ids).unwrap().as_slice(), &[11, 8]);"#) },
    TensorDoc { name: "scatter_elements", args: "data, indices, updates", dtypes: Some("every dtype for `data` and `updates` (numbers for a `reduction`), any integer dtype for `indices` → `data`'s dtype"), formula: "ONNX `ScatterElements`: `data` with each update written at its own position, the axis `axis` replaced by its index (or combined: `reduction = add|mul|max|min`); with `none` the last duplicate wins; indices checked at call entry", precision: "exact (a float `add`/`mul` rounds once per update, in index order)", example: Code(r#"let f = graph!(|x: f32[5], ids: i64[2], up: f32[2]| scatter_elements(x, ids, up));
let x = Tensor::<f32, Shape![5]>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
let ids = Tensor::<i64, Shape![2]>::from_vec(vec![1, 3]).unwrap();
let up = Tensor::<f32, Shape![2]>::from_vec(vec![1.5, 2.5]).unwrap();
assert_eq!(f(&x, &ids, &up).unwrap().as_slice(), &[1.0, 1.5, 3.0, 2.5, 5.0]);"#) },
    TensorDoc { name: "scatter_nd", args: "data, indices, updates", dtypes: Some("as `scatter_elements`"), formula: "ONNX `ScatterND`: for each index tuple (the last axis of `indices`), the slice of `data` it names is replaced by (or combined with) the matching slice of `updates`; indices checked at call entry", precision: "exact (a float `add`/`mul` rounds once per update)", example: Code(r#"let f = graph!(|x: i32[3, 2], ids: i64[1, 1], up: i32[1, 2]| scatter_nd(x, ids, up, reduction = add));
let x = Tensor::<i32, Shape![3, 2]>::from_vec(vec![1, 1, 1, 1, 1, 1]).unwrap();
let ids = Tensor::<i64, Shape![1, 1]>::from_vec(vec![2]).unwrap();
let up = Tensor::<i32, Shape![1, 2]>::from_vec(vec![10, 20]).unwrap();
assert_eq!(f(&x, &ids, &up).unwrap().as_slice(), &[1, 1, 1, 1, 11, 21]);"#) },
    TensorDoc { name: "batch_norm", args: "x, scale, bias, mean, var", dtypes: Some("floats; the four `[C]` parameters of `x`'s dtype"), formula: "ONNX `BatchNormalization` (inference): `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (axis 1)", precision: "as the elementwise ops it is made of", example: Code(r#"let f = graph!(|x: f32[1, 2, 2], s: f32[2], b: f32[2], m: f32[2], v: f32[2]| batch_norm(x, s, b, m, v, epsilon = 0.0));
let x = Tensor::<f32, Shape![1, 2, 2]>::from_vec(vec![1.0, 3.0, 5.0, 7.0]).unwrap();
let p = |a: f32, b: f32| Tensor::<f32, Shape![2]>::from_vec(vec![a, b]).unwrap();
assert_eq!(f(&x, &p(1.0, 2.0), &p(0.0, 1.0), &p(1.0, 5.0), &p(4.0, 1.0)).as_slice(), &[0.0, 1.0, 1.0, 5.0]);"#) },
    TensorDoc { name: "instance_norm", args: "x, scale, bias", dtypes: Some("floats; `scale` and `bias` `[C]`"), formula: "ONNX `InstanceNormalization`: normalised over the spatial axes of each (n, c) with `epsilon`, then a per-channel scale and bias", precision: "sums in `f64` for `f32`, as `mean`", example: Code(r#"let f = graph!(|x: f32[1, 1, 2], s: f32[1], b: f32[1]| instance_norm(x, s, b, epsilon = 0.0));
let x = Tensor::<f32, Shape![1, 1, 2]>::from_vec(vec![1.0, 3.0]).unwrap();
let one = Tensor::<f32, Shape![1]>::from_vec(vec![1.0]).unwrap();
let zero = Tensor::<f32, Shape![1]>::from_vec(vec![0.0]).unwrap();
assert_eq!(f(&x, &one, &zero).as_slice(), &[-1.0, 1.0]);"#) },
    TensorDoc { name: "group_norm", args: "x, scale, bias", dtypes: Some("floats; `scale` and `bias` `[C]` (opset 21)"), formula: "ONNX `GroupNormalization`: normalised over each group of `C / num_groups` channels and the spatial axes, then a per-channel scale and bias", precision: "sums in `f64` for `f32`", example: Code(r#"let f = graph!(|x: f32[1, 2, 1], s: f32[2], b: f32[2]| group_norm(x, s, b, num_groups = 1, epsilon = 0.0));
let x = Tensor::<f32, Shape![1, 2, 1]>::from_vec(vec![2.0, 4.0]).unwrap();
let s = Tensor::<f32, Shape![2]>::from_vec(vec![1.0, 1.0]).unwrap();
let b = Tensor::<f32, Shape![2]>::from_vec(vec![0.0, 0.0]).unwrap();
assert_eq!(f(&x, &s, &b).as_slice(), &[-1.0, 1.0]);"#) },
    TensorDoc { name: "mean_variance_normalization", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `MeanVarianceNormalization`: `(x - mean) / (sqrt(var) + 1e-9)` over `axes` (default every axis but 1)", precision: "sums in `f64` for `f32`", example: Code(r#"let f = graph!(|x: f64[2, 1]| mean_variance_normalization(x, axes = [0]));
let x = Tensor::<f64, Shape![2, 1]>::from_vec(vec![1.0, 3.0]).unwrap();
let y = f(&x);
assert!((y.as_slice()[0] + 1.0).abs() < 1e-8 && (y.as_slice()[1] - 1.0).abs() < 1e-8);"#) },
    TensorDoc { name: "lrn", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `LRN`: `x / (bias + alpha / size * sum of x^2 over the size channels around)^beta`", precision: "as `pow`", example: Code(r#"let f = graph!(|x: f64[1, 2, 1]| lrn(x, size = 1, alpha = 1.0, beta = 1.0, bias = 0.0));
let x = Tensor::<f64, Shape![1, 2, 1]>::from_vec(vec![2.0, 4.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[0.5, 0.25]);"#) },
    TensorDoc { name: "conv", args: "x, w, b", dtypes: Some("floats; `w` `[O, C / group, k…]` and the optional bias `b` `[O]` of `x`'s dtype"), formula: "ONNX `Conv` over 1 to 3 spatial axes (literal, or symbolic with dim-expression output lengths; `auto_pad`): `y[n, o, i…] = b[o] + Σ x_padded[n, c, i·stride + k·dilation…] · w[o, c, k…]` within each group", precision: "each product as `einsum`'s GEMM bound, the positions summed in order", example: Code(r#"let f = graph!(|x: f32[1, 1, 3], w: f32[1, 1, 2]| conv(x, w));
let x = Tensor::<f32, Shape![1, 1, 3]>::from_vec(vec![1.0, 2.0, 3.0]).unwrap();
let w = Tensor::<f32, Shape![1, 1, 2]>::from_vec(vec![1.0, 10.0]).unwrap();
assert_eq!(f(&x, &w).as_slice(), &[21.0, 32.0]);"#) },
    TensorDoc { name: "conv_transpose", args: "x, w, b", dtypes: Some("floats; `w` `[C, M / group, k…]` and the optional bias `b` `[M]` of `x`'s dtype"), formula: "ONNX `ConvTranspose` over 1 to 3 literal spatial axes: each input element times the kernel lands at `i·stride + k·dilation - pad_begin`; the output is `stride·(L - 1) + output_padding + dilation·(k - 1) + 1 - pads` long, or `output_shape` (`auto_pad = same_*`: `L·stride`) with the pads derived as ONNX's spec says", precision: "as `conv` over the zero-stuffed input", example: Code(r#"let f = graph!(|x: f32[1, 1, 2], w: f32[1, 1, 2]| conv_transpose(x, w, strides = [2]));
let x = Tensor::<f32, Shape![1, 1, 2]>::from_vec(vec![1.0, 2.0]).unwrap();
let w = Tensor::<f32, Shape![1, 1, 2]>::from_vec(vec![1.0, 10.0]).unwrap();
assert_eq!(f(&x, &w).as_slice(), &[1.0, 10.0, 2.0, 20.0]);"#) },
    TensorDoc { name: "max_pool", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `MaxPool` over 1 to 3 spatial axes (literal or symbolic): the maximum of each window (`kernel_shape`, `strides`, `pads`, `dilations`, `ceil_mode`, `auto_pad`)", precision: "exact", example: Code(r#"let f = graph!(|x: f32[1, 1, 2, 4]| max_pool(x, kernel_shape = [2, 2], strides = [2, 2]));
let x = Tensor::<f32, Shape![1, 1, 2, 4]>::from_vec(vec![1.0, 5.0, 2.0, 0.0, 3.0, 4.0, 8.0, 1.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[5.0, 8.0]);"#) },
    TensorDoc { name: "max_pool_with_indices", args: "x", dtypes: Some("floats → a tuple of values (`x`'s dtype) and indices (`i64`)"), formula: "ONNX `MaxPool` with its `Indices` output (`storage_order = 0`): `max_pool`'s values and the flat NCHW index into `x` of each window's first maximum (its first NaN when it holds one; -1 for a window of padding alone); a literal channel count", precision: "exact", example: Code(r#"let f = graph!(|x: f32[1, 1, 2, 4]| max_pool_with_indices(x, kernel_shape = [2, 2], strides = [2, 2]));
let x = Tensor::<f32, Shape![1, 1, 2, 4]>::from_vec(vec![1.0, 5.0, 2.0, 0.0, 3.0, 4.0, 8.0, 8.0]).unwrap();
let (values, indices) = f(&x);
assert_eq!(values.as_slice(), &[5.0, 8.0]);
assert_eq!(indices.as_slice(), &[1, 6]);"#) },
    TensorDoc { name: "average_pool", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `AveragePool`: the mean of each window, over its real elements unless `count_include_pad = true`", precision: "the window's sum rounds once per element, then one division", example: Code(r#"let f = graph!(|x: f32[1, 1, 1, 4]| average_pool(x, kernel_shape = [1, 2], strides = [1, 2]));
let x = Tensor::<f32, Shape![1, 1, 1, 4]>::from_vec(vec![1.0, 3.0, 2.0, 6.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[2.0, 4.0]);"#) },
    TensorDoc { name: "lp_pool", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `LpPool`: `(sum of |x|^p over the window)^(1/p)`", precision: "as `pow`", example: Code(r#"let f = graph!(|x: f64[1, 1, 2]| lp_pool(x, kernel_shape = [2], p = 2.0));
let x = Tensor::<f64, Shape![1, 1, 2]>::from_vec(vec![3.0, 4.0]).unwrap();
assert!((f(&x).as_slice()[0] - 5.0).abs() < 1e-12);"#) },
    TensorDoc { name: "resize", args: "x", dtypes: Some("every dtype for `mode = nearest`, floats for `linear` and `cubic`; unchanged"), formula: "ONNX `Resize` with literal `scales` or `sizes` (per axis of `axes`): each output position maps back by `coordinate_transformation_mode` (`half_pixel`, `half_pixel_symmetric`, `pytorch_half_pixel`, `align_corners`, `asymmetric`) and reads the nearest element (`nearest_mode`), the two around it (`linear`) or four (`cubic`, `cubic_coeff_a`, `exclude_outside`), edges clamped", precision: "coefficients in `f64`, rounded to the dtype; each axis in turn, the last first", example: Code(r#"let f = graph!(|x: f32[1, 1, 2]| resize(x, scales = [1.0, 1.0, 2.0], mode = linear));
let x = Tensor::<f32, Shape![1, 1, 2]>::from_vec(vec![1.0, 3.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[1.0, 1.5, 2.5, 3.0]);"#) },
    TensorDoc { name: "global_average_pool", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `GlobalAveragePool`: the mean over the spatial axes, kept as 1s", precision: "sums in `f64` for `f32`", example: Code(r#"let f = graph!(|x: f32[1, 1, 2, 2]| global_average_pool(x));
let x = Tensor::<f32, Shape![1, 1, 2, 2]>::from_vec(vec![1.0, 2.0, 3.0, 6.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[3.0]);"#) },
    TensorDoc { name: "global_max_pool", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `GlobalMaxPool`: the maximum over the spatial axes, kept as 1s", precision: "exact", example: Code(r#"let f = graph!(|x: f32[1, 1, 2, 2]| global_max_pool(x));
let x = Tensor::<f32, Shape![1, 1, 2, 2]>::from_vec(vec![1.0, 2.0, 3.0, 6.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[6.0]);"#) },
    TensorDoc { name: "global_lp_pool", args: "x", dtypes: Some("floats, unchanged"), formula: "ONNX `GlobalLpPool`: `(sum |x|^p)^(1/p)` over the spatial axes, kept as 1s", precision: "as `pow`", example: Code(r#"let f = graph!(|x: f64[1, 1, 2]| global_lp_pool(x, p = 2.0));
let x = Tensor::<f64, Shape![1, 1, 2]>::from_vec(vec![3.0, 4.0]).unwrap();
assert!((f(&x).as_slice()[0] - 5.0).abs() < 1e-12);"#) },
    TensorDoc { name: "space_to_depth", args: "x", dtypes: Some("every dtype, unchanged"), formula: "ONNX `SpaceToDepth`: `blocksize` × `blocksize` spatial blocks become channels (reshape, transpose, reshape)", precision: "exact", example: Code(r#"let f = graph!(|x: i32[1, 1, 2, 2]| space_to_depth(x, blocksize = 2));
let x = Tensor::<i32, Shape![1, 1, 2, 2]>::from_vec(vec![1, 2, 3, 4]).unwrap();
assert_eq!(f(&x).as_slice(), &[1, 2, 3, 4]);"#) },
    TensorDoc { name: "depth_to_space", args: "x", dtypes: Some("every dtype, unchanged"), formula: "ONNX `DepthToSpace` (`mode = dcr` or `crd`): channels become `blocksize` × `blocksize` spatial blocks", precision: "exact", example: Code(r#"let f = graph!(|x: i32[1, 4, 1, 1]| depth_to_space(x, blocksize = 2));
let x = Tensor::<i32, Shape![1, 4, 1, 1]>::from_vec(vec![1, 2, 3, 4]).unwrap();
assert_eq!(f(&x).as_slice(), &[1, 2, 3, 4]);"#) },
    TensorDoc { name: "softmax_cross_entropy", args: "scores, labels", dtypes: Some("float `scores` `[N, C, …]` (classes on axis 1), integer `labels` `[N, …]`, a float `weight` `[C]` → the scores' dtype"), formula: "ONNX `SoftmaxCrossEntropyLoss`: per element `-weight[label] · log softmax(scores)[label]`, 0 (and weight 0) where the label is `ignore_index`; `reduction = none` the per-element losses, `sum` their sum, `mean` their sum over the weights used; labels that are a parameter are checked at call entry to lie in `0..C`", precision: "sums in `f64` for `f32`; `exp`/`log` within their ULP bounds", example: Code(r#"let f = graph!(|x: f32[2, 3], labels: i64[2]| softmax_cross_entropy(x, labels));
let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
let labels = Tensor::<i64, Shape![2]>::from_vec(vec![0, 2]).unwrap();
assert!((f(&x, &labels).unwrap().item() - 3f32.ln()).abs() < 1e-6);"#) },
    TensorDoc { name: "nll_loss", args: "log_probs, labels", dtypes: Some("float `log_probs` `[N, C, …]`, integer `labels` `[N, …]`, a float `weight` `[C]` → the input's dtype"), formula: "ONNX `NegativeLogLikelihoodLoss`: per element `-weight[label] · log_probs[label]`, with `reduction` and `ignore_index` as `softmax_cross_entropy`", precision: "sums in `f64` for `f32`", example: Code(r#"let f = graph!(|lp: f32[2, 2], labels: i64[2]| nll_loss(lp, labels, reduction = sum));
let lp = Tensor::<f32, Shape![2, 2]>::from_vec(vec![-0.5, -1.0, -2.0, -0.25]).unwrap();
let labels = Tensor::<i64, Shape![2]>::from_vec(vec![1, 1]).unwrap();
assert_eq!(f(&lp, &labels).unwrap().item(), 1.25);"#) },
    TensorDoc { name: "attention", args: "q, k, v", dtypes: Some("one float dtype for `q` `[B, Hq, Sq, D]`, `k` `[B, Hkv, Skv, D]`, `v` `[B, Hkv, Skv, Dv]`; `attn_mask` `bool` or that dtype → `[B, Hq, Sq, Dv]` of it"), formula: "ONNX `Attention`: `softmax(mask(softcap(q·kᵀ · scale))) · v` per head, grouped-query when `Hkv` divides `Hq`, `is_causal` aligned bottom-right (query `i` sees keys `j ≤ i + Skv − Sq`), a fully masked row 0; in tiles with an online softmax, no `S × S` matrix", precision: "the products' GEMM bound per tile; `exp` within 1 ULP; `f16`/`bf16` compute in `f32`", example: Code(r#"let f = graph!(|q: f32[1, 1, 2, 4], k: f32[1, 1, 3, 4], v: f32[1, 1, 3, 4]| attention(q, k, v, is_causal = true));
let q = Tensor::<f32, Shape![1, 1, 2, 4]>::full(0.0);
let k = Tensor::<f32, Shape![1, 1, 3, 4]>::full(0.0);
let v = Tensor::<f32, Shape![1, 1, 3, 4]>::from_vec((0..12).map(|i| (i / 4) as f32).collect()).unwrap();
assert_eq!(f(&q, &k, &v).as_slice(), &[0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0]);"#) },
    TensorDoc { name: "sort", args: "x", dtypes: Some("every dtype but `bool`, unchanged"), formula: "the values along `axis` in order (ascending unless `descending = true`; `top_k` over the whole axis)", precision: "exact", example: Code(r#"let f = graph!(|x: f32[4]| sort(x, descending = true));
let x = Tensor::<f32, Shape![4]>::from_vec(vec![0.1, 3.0, -1.0, 2.0]).unwrap();
assert_eq!(f(&x).as_slice(), &[3.0, 2.0, 0.1, -1.0]);"#) },
    TensorDoc { name: "argsort", args: "x", dtypes: Some("every dtype but `bool` → `i64` positions"), formula: "the positions that sort `axis` (as `sort`; ties by the lower position)", precision: "exact", example: Code(r#"let f = graph!(|x: i32[4]| argsort(x));
let x = Tensor::<i32, Shape![4]>::from_vec(vec![3, 1, 2, 1]).unwrap();
assert_eq!(f(&x).as_slice(), &[1, 3, 2, 0]);"#) },
    TensorDoc { name: "matmul", args: "a, b", dtypes: Some("the operands promote as binary operands (`bool` refused); `f32` accumulates in `f32` (`acc = f64` to choose), `f64` in `f64`, `f16`/`bf16` in `f32` rounded once; integers accumulate in and return `i64` (signed) or `u64` (unsigned)"), formula: "NumPy's `matmul`, also written `a @ b`: `[…, M, K] @ […, K, N] → […, M, N]`, batch dims broadcasting; a 1-D `a` is a row and a 1-D `b` a column, the added axis removed", precision: "`|err| ≤ (K + 1)·u·Σ|a||b|` (u the accumulator's unit roundoff), plus the output rounding, plus up to K times the accumulator's smallest subnormal where products or partial sums are subnormal", example: Code(r#"let f = graph!(|a: f32[2, 3], b: f32[3, 2]| a @ b);
let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
let b = Tensor::<f32, Shape![3, 2]>::from_vec(vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
assert_eq!(f(&a, &b).as_slice(), &[4.0, 5.0, 10.0, 11.0]);"#) },
    TensorDoc { name: "einsum", args: "\"subscripts\", a, b, …", dtypes: Some("as `matmul`: the operands convert to their promoted dtype and every sum accumulates as `matmul`'s; one operand only permuted or diagonalised keeps its dtype"), formula: "NumPy's `einsum`, checked while compiling: repeated letters in one operand take the diagonal, letters absent from the output are summed; operands contract pairwise through `matmul`", precision: "as `matmul` for each contraction", example: Code(r#"let f = graph!(|a: f32[2, 3], b: f32[3, 2]| (einsum("ij,jk->ik", a, b), einsum("ij->j", a)));
let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
let b = Tensor::<f32, Shape![3, 2]>::from_vec(vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
let (product, column_sums) = f(&a, &b);
assert_eq!(product.as_slice(), &[4.0, 5.0, 10.0, 11.0]);
assert_eq!(column_sums.as_slice(), &[5.0, 7.0, 9.0]);"#) },
];

/// The operators that are spellings of a row (`+` is `add`).
fn operators(name: &str) -> Vec<String> {
    const BINARY: [BinOp; 18] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::And,
        BinOp::Or,
    ];
    let mut found: Vec<String> = BINARY
        .iter()
        .filter(|&&op| ops::binary_operator(op).name == name)
        .map(|op| format!("`a {} b`", op.symbol()))
        .collect();
    if ops::unary_operator(crate::ast::UnOp::Neg).name == name {
        found.push("`-x`".into());
    }
    if ops::unary_operator(crate::ast::UnOp::Not).name == name {
        found.push("`!x`".into());
    }
    if name == "matmul" {
        found.push("`a @ b`".into());
    }
    found
}

fn typing_text(typing: Typing) -> String {
    let result = match typing {
        Typing::Compare | Typing::FloatPredicate => "`bool`",
        Typing::BitCount => "`u8`",
        Typing::Arith | Typing::Bitwise | Typing::Shift | Typing::Logical => "the promoted dtype",
        Typing::NumUnary | Typing::FloatUnary => "the input's dtype",
    };
    let promote = match typing {
        Typing::Arith | Typing::Compare | Typing::Bitwise | Typing::Shift | Typing::Logical => {
            "; the operands promote and broadcast"
        }
        _ => "",
    };
    let half = if typing == Typing::FloatUnary {
        " (`f16`/`bf16` compute in `f32` and round once)"
    } else {
        ""
    };
    format!("{} → {result}{promote}{half}", typing.accepted_text())
}

fn kind_dtypes(kind: TensorOpKind) -> &'static str {
    match kind {
        TensorOpKind::Reduction(rule) => match rule {
            ReduceDtype::SumLike => "integers, `bool` and floats; signed integers and `bool` give `i64`, unsigned `u64`, floats their own dtype; the accumulator is `i64`/`u64`/`f64`; `dtype =` chooses the output and `acc =` the accumulator (one that cannot hold the input is an error)",
            ReduceDtype::Mean => "integers and floats → a float (`f64` for integers, else the input's dtype), accumulated in `f64` unless `acc =`",
            ReduceDtype::Float => "floats → the input's dtype (`dtype =`, `acc =` as `sum`)",
            ReduceDtype::Keep => "every dtype but `bool` → the input's dtype",
            ReduceDtype::Bool => "every dtype (nonzero is true) → `bool`",
            ReduceDtype::Index => "every dtype but `bool` → `i64` indices",
        },
        TensorOpKind::Softmax => "floats → the input's dtype",
        TensorOpKind::Shape | TensorOpKind::Reorg => "every dtype, unchanged",
        TensorOpKind::Scan
        | TensorOpKind::Composite
        | TensorOpKind::MatMul
        | TensorOpKind::Indexing
        | TensorOpKind::Position
        | TensorOpKind::Tuple
        | TensorOpKind::Sort
        | TensorOpKind::Loss
        | TensorOpKind::Attention
        | TensorOpKind::Vision => {
            unreachable!("these kinds state their dtypes per op")
        }
    }
}

fn kind_section(kind: TensorOpKind) -> (usize, &'static str) {
    match kind {
        TensorOpKind::Reduction(_) => (1, "Reductions"),
        TensorOpKind::Softmax => (2, "Softmax"),
        TensorOpKind::Scan => (3, "Scans"),
        TensorOpKind::Shape => (4, "Shape ops (views)"),
        TensorOpKind::Composite => (5, "Compositions"),
        TensorOpKind::Reorg => (6, "Data reorganisation"),
        TensorOpKind::MatMul => (7, "Matrix products"),
        TensorOpKind::Indexing => (8, "Indexing"),
        TensorOpKind::Position => (9, "Positions"),
        TensorOpKind::Tuple => (10, "Tuple-valued ops"),
        TensorOpKind::Sort => (11, "Sorting"),
        TensorOpKind::Loss => (12, "Losses"),
        TensorOpKind::Attention => (13, "Attention"),
        TensorOpKind::Vision => (14, "Normalisation, pooling and rearrangement"),
    }
}

fn arg_kind_text(ty: ArgKind) -> String {
    match ty {
        ArgKind::Axes => {
            "an axis or a list of axes (integer literals, negative from the end)".into()
        }
        ArgKind::Bool => "`true` or `false`".into(),
        ArgKind::DType => "a dtype name".into(),
        ArgKind::Float => {
            "a float literal, or a scalar or rank-0 parameter of the tensor's dtype".into()
        }
        ArgKind::Operand => {
            "a literal, scalar or tensor that promotes and broadcasts with `x`".into()
        }
        ArgKind::Int => "an integer literal (negative from the end)".into(),
        ArgKind::Scalar => "a literal, or a scalar or rank-0 parameter of `x`'s dtype".into(),
        ArgKind::Word(words) => format!(
            "one of {}",
            words
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn signature(name: &str, args: &str, params: &[ParamSpec]) -> String {
    let mut parts = vec![args.to_string()];
    for p in params {
        parts.push(match p.default {
            Some(default) => format!("{} = {default}", p.name),
            None => format!("{} = …", p.name),
        });
    }
    format!("{name}({})", parts.join(", "))
}

fn params_text(params: &[ParamSpec]) -> Option<String> {
    if params.is_empty() {
        return None;
    }
    let items: Vec<String> = params
        .iter()
        .map(|p| {
            let default = match p.default {
                Some(d) => format!("default `{d}`"),
                None => "optional, no default".into(),
            };
            format!("`{}`: {} ({default})", p.name, arg_kind_text(p.ty))
        })
        .collect();
    Some(items.join("; "))
}

/// The precision of an elementwise row, from tensor-core's table.
fn precision_text(op: &Op) -> String {
    // The table's exact rows have bound 0.
    let exact = |f: &&tensor_core::functions::FloatFunction| f.ulp_f32 == 0.0 && f.ulp_f64 == 0.0;
    if FLOAT_FUNCTIONS
        .iter()
        .any(|f| f.name == op.name && exact(&f))
    {
        return "exact: the scalar reference's bits on every build".into();
    }
    if let Some(f) = FLOAT_FUNCTIONS.iter().find(|f| f.name == op.name) {
        return format!(
            "within {} ULP in `f32`, {} ULP in `f64` (`f16`/`bf16`: computed in `f32`, within 1 ULP of their own after rounding); the repository's ACCURACY.md says how each bound is met",
            f.ulp_f32, f.ulp_f64
        );
    }
    if op.name == "mod" {
        return "integers exact; floats: the truncated remainder is exact and the sign fix (adding the divisor) rounds once, as NumPy's `divmod`".into();
    }
    match op.typing {
        Typing::Arith | Typing::NumUnary => {
            "exact: integers exactly (wrapping), floats correctly rounded (IEEE 754), the same bits on every build".into()
        }
        _ => "exact".into(),
    }
}

/// The example's Rust code, as a user writes it.
fn example_code(name: &str, example: &Example) -> String {
    let mut code = String::from("use tensorgraph::prelude::*;\n");
    let count = |list: &str| list.split(',').count();
    let values = |list: &str, dtype: &str| -> String {
        let items: Vec<String> = list
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|v| {
                let v = v.trim();
                if v.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                    format!("{dtype}::{v}")
                } else if v.starts_with('-')
                    && v[1..].chars().all(|c| c.is_ascii_uppercase() || c == '_')
                {
                    format!("-{dtype}::{}", &v[1..])
                } else {
                    v.to_string()
                }
            })
            .collect();
        format!("[{}]", items.join(", "))
    };
    match *example {
        Unary(call, dtype, x, want) | Approx(call, dtype, x, want) => {
            let n = count(x);
            let _ = writeln!(code, "let f = graph!(|x: {dtype}[{n}]| {call});");
            let _ = writeln!(
                code,
                "let x = Tensor::<{dtype}, Shape![{n}]>::from_vec(vec!{}).unwrap();",
                values(x, dtype)
            );
            if matches!(example, Approx(..)) {
                let _ = writeln!(code, "let want = {want};");
                let _ = writeln!(
                    code,
                    "for (y, want) in f(&x).as_slice().iter().zip(want) {{"
                );
                let _ = writeln!(
                    code,
                    "    assert!((y - want).abs() <= 1e-6 * want.abs().max(1e-6), \"{{y}}\");"
                );
                code.push_str("}\n");
            } else {
                let _ = writeln!(code, "assert_eq!(f(&x).as_slice(), &{want});");
            }
        }
        Binary(call, dtype, a, b, want) => {
            let n = count(a);
            let _ = writeln!(
                code,
                "let f = graph!(|a: {dtype}[{n}], b: {dtype}[{n}]| {call});"
            );
            let _ = writeln!(
                code,
                "let a = Tensor::<{dtype}, Shape![{n}]>::from_vec(vec!{}).unwrap();",
                values(a, dtype)
            );
            let _ = writeln!(
                code,
                "let b = Tensor::<{dtype}, Shape![{n}]>::from_vec(vec!{}).unwrap();",
                values(b, dtype)
            );
            let _ = writeln!(code, "assert_eq!(f(&a, &b).as_slice(), &{want});");
        }
        Code(body) => {
            code.push_str(body);
            code.push('\n');
        }
    }
    assert!(
        code.contains(name) || name == "where" || !operators(name).is_empty(),
        "the example of `{name}` does not call it"
    );
    code
}

struct Entry {
    section: (usize, &'static str),
    name: &'static str,
    test_name: String,
    signature: String,
    operators: Vec<String>,
    dtypes: String,
    params: Option<String>,
    formula: &'static str,
    precision: String,
    code: String,
}

fn entries() -> Vec<Entry> {
    let mut out = Vec::new();
    for op in FUNCTIONS {
        let d = ELEMENTWISE
            .iter()
            .find(|d| d.name == op.name)
            .unwrap_or_else(|| {
                panic!(
                    "ops::FUNCTIONS row `{}` has no entry in op_reference::ELEMENTWISE",
                    op.name
                )
            });
        let args = match op.arity {
            1 => "x",
            2 => "a, b",
            n => unreachable!("no elementwise row has {n} operands"),
        };
        out.push(Entry {
            section: (0, "Elementwise functions and operators"),
            name: op.name,
            test_name: format!("op_{}", op.name),
            signature: signature(op.name, args, op.params),
            operators: operators(op.name),
            dtypes: typing_text(op.typing),
            params: params_text(op.params),
            formula: d.formula,
            precision: precision_text(op),
            code: example_code(op.name, &d.example),
        });
    }
    let tensor_entry = |t: Option<&TensorOp>, d: &TensorDoc| {
        let (params, section): (&[ParamSpec], _) = match t {
            Some(t) => (t.params, kind_section(t.kind)),
            None => (&[], (0, "Elementwise functions and operators")),
        };
        let dtypes = match (d.dtypes, t) {
            (Some(text), _) => text.to_string(),
            (None, Some(t)) => kind_dtypes(t.kind).to_string(),
            (None, None) => unreachable!("`where` states its dtypes"),
        };
        let dup = FUNCTIONS.iter().any(|f| f.name == d.name);
        Entry {
            section,
            name: d.name,
            test_name: if dup {
                format!("op_{}_reduction", d.name)
            } else {
                format!("op_{}", d.name)
            },
            signature: signature(d.name, d.args, params),
            operators: operators(d.name),
            dtypes,
            params: params_text(params),
            formula: d.formula,
            precision: d.precision.to_string(),
            code: example_code(d.name, &d.example),
        }
    };
    out.push(tensor_entry(None, &WHERE));
    for t in TENSOR_OPS {
        let d = TENSOR.iter().find(|d| d.name == t.name).unwrap_or_else(|| {
            panic!(
                "ops::TENSOR_OPS row `{}` has no entry in op_reference::TENSOR",
                t.name
            )
        });
        out.push(tensor_entry(Some(t), d));
    }
    out.sort_by_key(|e| e.section.0); // stable: registry order within a section
    out
}

const HEADER: &str = "<!-- Generated by tensor-macros/src/op_reference.rs from the op registry (tensor-macros/src/ops.rs) and the precision table (tensor-core/src/functions.rs). Do not edit: regenerate with `TG_BLESS_DOCS=1 cargo test -p tensorgraph-macros --lib op_reference`. -->";

fn markdown() -> String {
    let entries = entries();
    let mut md = String::new();
    let _ = writeln!(md, "{HEADER}\n");
    md.push_str("# Op reference\n\n");
    md.push_str(
        "Every callable of the `graph!` language, generated from the op registry: its \
         signature (named parameters with their defaults; `= …` marks an optional one with no \
         default), the operator that spells it, the dtypes it takes and gives, its formula, \
         its precision and an example. The rules they share (promotion, broadcasting, dim \
         names) are in the language reference on [`graph!`](crate::graph!). Each example \
         runs as written, as a test of this repository (tests/op_examples.rs, generated with \
         this page).\n\n",
    );
    let mut section = usize::MAX;
    let mut index: Vec<(usize, &str, Vec<&str>)> = Vec::new();
    for e in &entries {
        match index.last_mut() {
            Some((s, _, names)) if *s == e.section.0 => names.push(e.name),
            _ => index.push((e.section.0, e.section.1, vec![e.name])),
        }
    }
    for (_, title, names) in &index {
        let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let _ = writeln!(md, "- **{title}**: {}", list.join(", "));
    }
    md.push('\n');
    for e in &entries {
        if e.section.0 != section {
            section = e.section.0;
            let _ = writeln!(md, "## {}\n", e.section.1);
        }
        let _ = writeln!(md, "### `{}`\n", e.name);
        let _ = write!(md, "`{}`", e.signature);
        if !e.operators.is_empty() {
            let _ = write!(md, " · operator {}", e.operators.join(", "));
        }
        md.push_str("\n\n");
        let _ = writeln!(md, "- **dtypes**: {}", e.dtypes);
        if let Some(params) = &e.params {
            let _ = writeln!(md, "- **named parameters**: {params}");
        }
        let _ = writeln!(md, "- **formula**: {}", e.formula);
        let _ = writeln!(md, "- **precision**: {}", e.precision);
        let _ = writeln!(md, "\n```rust\n{}```\n", e.code);
    }
    md.trim_end().to_string() + "\n"
}

fn test_file() -> String {
    let mut rs = String::new();
    rs.push_str("//! Every example of docs/ops.md (the op reference), run as written.\n");
    rs.push_str("//!\n");
    rs.push_str(
        "//! Generated by tensor-macros/src/op_reference.rs from the op registry. Do not edit:\n",
    );
    rs.push_str("//! regenerate with `TG_BLESS_DOCS=1 cargo test -p tensorgraph-macros --lib op_reference`.\n");
    rs.push_str("#![allow(clippy::approx_constant, clippy::bool_assert_comparison)]\n");
    for e in entries() {
        // `rustfmt::skip`: the file is the generator's text, whatever `cargo fmt` prefers.
        let _ = writeln!(rs, "\n#[test]\n#[rustfmt::skip]\nfn {}() {{", e.test_name);
        for line in e.code.lines() {
            if line.is_empty() {
                rs.push('\n');
            } else {
                let _ = writeln!(rs, "    {line}");
            }
        }
        rs.push_str("}\n");
    }
    rs
}

fn repo_path(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

/// Compares `path` with `generated`, or writes it when `TG_BLESS_DOCS=1`.
fn check_generated(path: &str, generated: &str) {
    let file = repo_path(path);
    if std::env::var_os("TG_BLESS_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&file, generated).unwrap_or_else(|e| panic!("{path}: {e}"));
        return;
    }
    let current = std::fs::read_to_string(&file).unwrap_or_default();
    if current != generated {
        let line = current
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || current.lines().count().min(generated.lines().count()),
                |i| i,
            )
            + 1;
        panic!(
            "{path} is stale (first difference at line {line}): the op registry or \
             op_reference.rs changed. Regenerate it with \
             `TG_BLESS_DOCS=1 cargo test -p tensorgraph-macros --lib op_reference` and commit it."
        );
    }
}

#[test]
fn docs_ops_md_is_current() {
    check_generated("docs/ops.md", &markdown());
}

#[test]
fn op_examples_rs_is_current() {
    check_generated("tests/op_examples.rs", &test_file());
}

/// Every entry names a row of the registry: none is left over when a row goes.
#[test]
fn every_entry_names_a_registry_row() {
    for d in ELEMENTWISE {
        assert!(
            FUNCTIONS.iter().any(|op| op.name == d.name),
            "op_reference::ELEMENTWISE has `{}`, which ops::FUNCTIONS does not",
            d.name
        );
    }
    for d in TENSOR {
        assert!(
            TENSOR_OPS.iter().any(|t| t.name == d.name),
            "op_reference::TENSOR has `{}`, which ops::TENSOR_OPS does not",
            d.name
        );
    }
    assert_eq!(
        ELEMENTWISE.len(),
        FUNCTIONS.len(),
        "an elementwise row documented twice"
    );
    assert_eq!(
        TENSOR.len(),
        TENSOR_OPS.len(),
        "a tensor op documented twice"
    );
    // Every name a graph can call has a section of its own.
    let md = markdown();
    for name in ops::all_function_names() {
        assert!(
            md.contains(&format!("### `{name}`")),
            "docs/ops.md has no entry for `{name}`"
        );
    }
}
