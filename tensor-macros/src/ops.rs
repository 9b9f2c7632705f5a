//! The op table: every elementwise function and operator, its arity, its typing rule,
//! and the runtime lane function that computes it. Adding an op is one row here, one
//! lane implementation and one scalar reference in tensor-core, and their tests.

use crate::ast::{BinOp, UnOp};
use crate::dtype::{Category, DType};

/// Which dtypes an op accepts, and what it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typing {
    /// Integers and floats; inputs promote; the result has the promoted dtype.
    Arith,
    /// Every dtype; inputs promote; the result is `bool`.
    Compare,
    /// Integers (bitwise) and `bool` (logical); inputs promote.
    Bitwise,
    /// Integers only; inputs promote.
    Shift,
    /// `bool` only.
    Logical,
    /// Integers and floats, one input, same dtype out.
    NumUnary,
    /// Floats only (`f16`/`bf16` compute in `f32`), same dtype out.
    FloatUnary,
    /// Floats only, `bool` out.
    FloatPredicate,
}

impl Typing {
    pub fn accepts(self, dtype: DType) -> bool {
        match self {
            Typing::Compare => true,
            Typing::Arith | Typing::NumUnary => dtype.category() != Category::Bool,
            Typing::Bitwise => !dtype.is_float(),
            Typing::Shift => dtype.is_integer(),
            Typing::Logical => dtype == DType::Bool,
            Typing::FloatUnary | Typing::FloatPredicate => dtype.is_float(),
        }
    }

    pub fn result(self, input: DType) -> DType {
        match self {
            Typing::Compare | Typing::FloatPredicate => DType::Bool,
            _ => input,
        }
    }

    /// What the op accepts, for messages.
    pub fn accepted_text(self) -> &'static str {
        match self {
            Typing::Compare => "any dtype",
            Typing::Arith | Typing::NumUnary => "integer and float dtypes",
            Typing::Bitwise => "integer dtypes (bitwise) and `bool` (logical)",
            Typing::Shift => "integer dtypes",
            Typing::Logical => "`bool`",
            Typing::FloatUnary | Typing::FloatPredicate => {
                "float dtypes (`f16`, `bf16`, `f32`, `f64`)"
            }
        }
    }
}

/// One elementwise op.
#[derive(Debug)]
pub struct Op {
    /// The function name in the graph language (operators have their MAX name too).
    pub name: &'static str,
    pub arity: usize,
    pub typing: Typing,
    /// The tensor-core trait and method that compute it on lanes.
    pub lane_trait: &'static str,
    pub lane_fn: &'static str,
}

const fn op(
    name: &'static str,
    arity: usize,
    typing: Typing,
    lane_trait: &'static str,
    lane_fn: &'static str,
) -> Op {
    Op {
        name,
        arity,
        typing,
        lane_trait,
        lane_fn,
    }
}

use Typing::*;

/// Every callable function except `where` (typed specially: a `bool` condition and two
/// promoted branches) and `max`/`min`, which are here as the binary elementwise forms.
pub const FUNCTIONS: &[Op] = &[
    op("add", 2, Arith, "NumLanes", "add_lanes"),
    op("sub", 2, Arith, "NumLanes", "sub_lanes"),
    op("mul", 2, Arith, "NumLanes", "mul_lanes"),
    op("div", 2, Arith, "NumLanes", "div_lanes"),
    op("mod", 2, Arith, "NumLanes", "modulo_lanes"),
    op("rem", 2, Arith, "NumLanes", "rem_lanes"),
    op("pow", 2, Arith, "NumLanes", "pow_lanes"),
    op("max", 2, Arith, "NumLanes", "max_lanes"),
    op("min", 2, Arith, "NumLanes", "min_lanes"),
    op("equal", 2, Compare, "CompareLanes", "eq_lanes"),
    op("not_equal", 2, Compare, "CompareLanes", "ne_lanes"),
    op("greater", 2, Compare, "CompareLanes", "gt_lanes"),
    op("greater_equal", 2, Compare, "CompareLanes", "ge_lanes"),
    op("less", 2, Compare, "CompareLanes", "lt_lanes"),
    op("less_equal", 2, Compare, "CompareLanes", "le_lanes"),
    op("neg", 1, NumUnary, "NumLanes", "neg_lanes"),
    op("abs", 1, NumUnary, "NumLanes", "abs_lanes"),
    op("relu", 1, NumUnary, "NumLanes", "relu_lanes"),
    op("floor", 1, NumUnary, "NumLanes", "floor_lanes"),
    op("round", 1, NumUnary, "NumLanes", "round_lanes"),
    op("roundeven", 1, NumUnary, "NumLanes", "roundeven_lanes"),
    op("trunc", 1, NumUnary, "NumLanes", "trunc_lanes"),
    op("sqrt", 1, FloatUnary, "FloatLanes", "sqrt_lanes"),
    op("rsqrt", 1, FloatUnary, "FloatLanes", "rsqrt_lanes"),
    op("exp", 1, FloatUnary, "FloatLanes", "exp_lanes"),
    op("log", 1, FloatUnary, "FloatLanes", "log_lanes"),
    op("log1p", 1, FloatUnary, "FloatLanes", "log1p_lanes"),
    op("sin", 1, FloatUnary, "FloatLanes", "sin_lanes"),
    op("cos", 1, FloatUnary, "FloatLanes", "cos_lanes"),
    op("tanh", 1, FloatUnary, "FloatLanes", "tanh_lanes"),
    op("erf", 1, FloatUnary, "FloatLanes", "erf_lanes"),
    op("sigmoid", 1, FloatUnary, "FloatLanes", "sigmoid_lanes"),
    op("gelu", 1, FloatUnary, "FloatLanes", "gelu_lanes"),
    op("silu", 1, FloatUnary, "FloatLanes", "silu_lanes"),
    op("exp2", 1, FloatUnary, "FloatLanes", "exp2_lanes"),
    op("log2", 1, FloatUnary, "FloatLanes", "log2_lanes"),
    op("expm1", 1, FloatUnary, "FloatLanes", "expm1_lanes"),
    op("tan", 1, FloatUnary, "FloatLanes", "tan_lanes"),
    op("atan", 1, FloatUnary, "FloatLanes", "atan_lanes"),
    op("asin", 1, FloatUnary, "FloatLanes", "asin_lanes"),
    op("acos", 1, FloatUnary, "FloatLanes", "acos_lanes"),
    op("sinh", 1, FloatUnary, "FloatLanes", "sinh_lanes"),
    op("cosh", 1, FloatUnary, "FloatLanes", "cosh_lanes"),
    op("softplus", 1, FloatUnary, "FloatLanes", "softplus_lanes"),
    op("is_nan", 1, FloatPredicate, "FloatLanes", "is_nan_lanes"),
    op("is_inf", 1, FloatPredicate, "FloatLanes", "is_inf_lanes"),
];

/// Names accepted as calls, for "did you mean" hints.
pub fn all_function_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = FUNCTIONS.iter().map(|o| o.name).collect();
    names.push("where");
    names.extend(crate::check::TENSOR_OP_NAMES);
    names
}

pub fn function(name: &str) -> Option<&'static Op> {
    FUNCTIONS.iter().find(|o| o.name == name)
}

fn named(name: &str) -> &'static Op {
    function(name).expect("every operator maps to a row of FUNCTIONS")
}

/// The op behind a binary operator.
pub fn binary_operator(operator: BinOp) -> &'static Op {
    const BIT_AND: Op = op("bitwise_and", 2, Bitwise, "BitwiseLanes", "and_lanes");
    const BIT_OR: Op = op("bitwise_or", 2, Bitwise, "BitwiseLanes", "or_lanes");
    const BIT_XOR: Op = op("bitwise_xor", 2, Bitwise, "BitwiseLanes", "xor_lanes");
    const SHL: Op = op("shift_left", 2, Shift, "ShiftLanes", "shl_lanes");
    const SHR: Op = op("shift_right", 2, Shift, "ShiftLanes", "shr_lanes");
    const AND: Op = op("logical_and", 2, Logical, "BitwiseLanes", "and_lanes");
    const OR: Op = op("logical_or", 2, Logical, "BitwiseLanes", "or_lanes");
    match operator {
        BinOp::Add => named("add"),
        BinOp::Sub => named("sub"),
        BinOp::Mul => named("mul"),
        BinOp::Div => named("div"),
        BinOp::Rem => named("rem"),
        BinOp::Eq => named("equal"),
        BinOp::Ne => named("not_equal"),
        BinOp::Lt => named("less"),
        BinOp::Le => named("less_equal"),
        BinOp::Gt => named("greater"),
        BinOp::Ge => named("greater_equal"),
        BinOp::BitAnd => &BIT_AND,
        BinOp::BitOr => &BIT_OR,
        BinOp::BitXor => &BIT_XOR,
        BinOp::Shl => &SHL,
        BinOp::Shr => &SHR,
        BinOp::And => &AND,
        BinOp::Or => &OR,
    }
}

/// The op behind a unary operator: `-` negates numbers, `!` is bitwise/logical not.
pub fn unary_operator(operator: UnOp) -> &'static Op {
    const NOT: Op = op("not", 1, Bitwise, "BitwiseLanes", "not_lanes");
    match operator {
        UnOp::Neg => named("neg"),
        UnOp::Not => &NOT,
    }
}

/// The known name closest to `unknown` by edit distance (a swap of two neighbours is one
/// edit: `reul` → `relu`), if any is close.
pub fn closest_name(unknown: &str) -> Option<&'static str> {
    all_function_names()
        .into_iter()
        .map(|n| (edit_distance(unknown, n), n))
        .filter(|&(d, n)| d <= (n.len().max(unknown.len()) / 3).max(1))
        .min()
        .map(|(_, n)| n)
}

/// Edit distance with adjacent transpositions (optimal string alignment).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=b.len() {
        d[0][j] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}
