//! The op table: the one registry of every callable of the language. Elementwise
//! functions and operators (`FUNCTIONS`: arity, typing rule, named parameters, the
//! runtime lane function), `where`, and the tensor ops (`TENSOR_OPS`: reductions, the
//! softmax family, shape ops, with their named parameters and dtype rule). The checker
//! dispatches on a row's kind, reads named arguments against the row's `params`, and
//! "did you mean" hints and the language reference list the rows. Adding an elementwise op
//! is one row here, one lane implementation and one scalar reference in tensor-core, and
//! their tests.

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
    /// Integers only, `u8` out (`bitwise_count`).
    BitCount,
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
            Typing::BitCount => dtype.is_integer(),
        }
    }

    pub fn result(self, input: DType) -> DType {
        match self {
            Typing::Compare | Typing::FloatPredicate => DType::Bool,
            Typing::BitCount => DType::U8,
            _ => input,
        }
    }

    /// What the op accepts, for messages.
    pub fn accepted_text(self) -> &'static str {
        match self {
            Typing::Compare => "any dtype",
            Typing::Arith | Typing::NumUnary => "integer and float dtypes",
            Typing::Bitwise => "integer dtypes (bitwise) and `bool` (logical)",
            Typing::Shift | Typing::BitCount => "integer dtypes",
            Typing::Logical => "`bool`",
            Typing::FloatUnary | Typing::FloatPredicate => {
                "float dtypes (`f16`, `bf16`, `f32`, `f64`)"
            }
        }
    }
}

/// What a named parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// An integer literal axis, or a list of them: `axis = 1`, `axis = [0, -1]`.
    Axes,
    /// `true` or `false`.
    Bool,
    /// A numeric dtype name: `dtype = f64`.
    DType,
    /// A float in the dtype of the op's tensor: a literal, or a scalar or rank-0 float
    /// parameter of the graph. It reaches the lane function as one more operand.
    Float,
    /// Any operand that promotes and broadcasts with the tensor, as the other side of a
    /// binary op: a literal, a scalar, a tensor (`clip`'s bounds).
    Operand,
    /// An integer literal, possibly negative: `start = -1`.
    Int,
    /// A literal or a scalar/rank-0 parameter of the tensor's own dtype (`pad`'s `value`).
    Scalar,
    /// One of these words: `mode = reflect`.
    Word(&'static [&'static str]),
}

/// A named parameter of a callable, after its tensor arguments.
#[derive(Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ArgKind,
    /// The default, as a literal of the language; `None` for an optional parameter that
    /// changes behaviour when present (`axis`: all axes when absent).
    pub default: Option<&'static str>,
}

/// The names of `params` for messages: "`axis`, `keepdims`".
pub fn param_list(params: &[ParamSpec]) -> String {
    params
        .iter()
        .map(|p| format!("`{}`", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

const fn param(name: &'static str, ty: ArgKind, default: Option<&'static str>) -> ParamSpec {
    ParamSpec { name, ty, default }
}

/// One elementwise op.
#[derive(Debug)]
pub struct Op {
    /// The function name in the graph language (operators have their MAX name too).
    pub name: &'static str,
    /// Tensor operands, not counting named parameters.
    pub arity: usize,
    pub typing: Typing,
    /// The tensor-core trait and method that compute it on lanes. Its arguments are the
    /// tensor operands, then each named parameter in `params` order.
    pub lane_trait: &'static str,
    pub lane_fn: &'static str,
    pub params: &'static [ParamSpec],
    /// A `FloatLanes` method for a float divisor fixed for the row or the call (its
    /// reciprocal hoisted out of the loop; the same bits as `lane_fn`), or `None`.
    pub invariant_divisor: Option<&'static str>,
}

impl Op {
    /// `self` with the invariant-divisor form `method` (see `Op::invariant_divisor`).
    const fn with_invariant_divisor(mut self, method: &'static str) -> Op {
        self.invariant_divisor = Some(method);
        self
    }
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
        params: &[],
        invariant_divisor: None,
    }
}

/// An elementwise op with named float parameters (`leaky_relu(x, alpha = 0.01)`).
const fn op_with(
    name: &'static str,
    typing: Typing,
    lane_trait: &'static str,
    lane_fn: &'static str,
    params: &'static [ParamSpec],
) -> Op {
    Op {
        name,
        arity: 1,
        typing,
        lane_trait,
        lane_fn,
        params,
        invariant_divisor: None,
    }
}

use Typing::*;

/// Every callable function except `where` (typed specially: a `bool` condition and two
/// promoted branches) and `max`/`min`, which are here as the binary elementwise forms.
pub const FUNCTIONS: &[Op] = &[
    op("add", 2, Arith, "NumLanes", "add_lanes"),
    op("sub", 2, Arith, "NumLanes", "sub_lanes"),
    op("mul", 2, Arith, "NumLanes", "mul_lanes"),
    op("div", 2, Arith, "NumLanes", "div_lanes").with_invariant_divisor("div_invariant_lanes"),
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
    op("asinh", 1, FloatUnary, "FloatLanes", "asinh_lanes"),
    op("acosh", 1, FloatUnary, "FloatLanes", "acosh_lanes"),
    op("atanh", 1, FloatUnary, "FloatLanes", "atanh_lanes"),
    op("erfc", 1, FloatUnary, "FloatLanes", "erfc_lanes"),
    op("cbrt", 1, FloatUnary, "FloatLanes", "cbrt_lanes"),
    op("mish", 1, FloatUnary, "FloatLanes", "mish_lanes"),
    op("gelu_tanh", 1, FloatUnary, "FloatLanes", "gelu_tanh_lanes"),
    op("is_nan", 1, FloatPredicate, "FloatLanes", "is_nan_lanes"),
    op("is_inf", 1, FloatPredicate, "FloatLanes", "is_inf_lanes"),
    // The wider operator table (ONNX semantics; reference::Activation states each).
    op("ceil", 1, NumUnary, "NumLanes", "ceil_lanes"),
    op("square", 1, NumUnary, "NumLanes", "square_lanes"),
    op("sign", 1, NumUnary, "NumLanes", "sign_lanes"),
    op(
        "reciprocal",
        1,
        FloatUnary,
        "ActivationLanes",
        "reciprocal_lanes",
    ),
    op(
        "softsign",
        1,
        FloatUnary,
        "ActivationLanes",
        "softsign_lanes",
    ),
    op(
        "is_finite",
        1,
        FloatPredicate,
        "ActivationLanes",
        "is_finite_lanes",
    ),
    op(
        "hard_swish",
        1,
        FloatUnary,
        "ActivationLanes",
        "hard_swish_lanes",
    ),
    op_with(
        "leaky_relu",
        FloatUnary,
        "ActivationLanes",
        "leaky_relu_lanes",
        &[param("alpha", ArgKind::Float, Some("0.01"))],
    ),
    op_with(
        "thresholded_relu",
        FloatUnary,
        "ActivationLanes",
        "thresholded_relu_lanes",
        &[param("alpha", ArgKind::Float, Some("1.0"))],
    ),
    op_with(
        "hard_sigmoid",
        FloatUnary,
        "ActivationLanes",
        "hard_sigmoid_lanes",
        &[
            param("alpha", ArgKind::Float, Some("0.2")),
            param("beta", ArgKind::Float, Some("0.5")),
        ],
    ),
    op_with(
        "shrink",
        FloatUnary,
        "ActivationLanes",
        "shrink_lanes",
        &[
            param("lambd", ArgKind::Float, Some("0.5")),
            param("bias", ArgKind::Float, Some("0.0")),
        ],
    ),
    op_with(
        "elu",
        FloatUnary,
        "ActivationLanes",
        "elu_lanes",
        &[param("alpha", ArgKind::Float, Some("1.0"))],
    ),
    op_with(
        "celu",
        FloatUnary,
        "ActivationLanes",
        "celu_lanes",
        &[param("alpha", ArgKind::Float, Some("1.0"))],
    ),
    // ONNX's defaults, the f32 values of 1.6732632… and 1.0507010….
    op_with(
        "selu",
        FloatUnary,
        "ActivationLanes",
        "selu_lanes",
        &[
            param("alpha", ArgKind::Float, Some("1.67326319217681884765625")),
            param("gamma", ArgKind::Float, Some("1.05070102214813232421875")),
        ],
    ),
    op_with(
        "swish",
        FloatUnary,
        "ActivationLanes",
        "swish_lanes",
        &[param("alpha", ArgKind::Float, Some("1.0"))],
    ),
    op(
        "bitwise_count",
        1,
        BitCount,
        "BitCountLanes",
        "bitwise_count_lanes",
    ),
    op("bitwise_and", 2, Bitwise, "BitwiseLanes", "and_lanes"),
    op("bitwise_or", 2, Bitwise, "BitwiseLanes", "or_lanes"),
    op("bitwise_xor", 2, Bitwise, "BitwiseLanes", "xor_lanes"),
    op("bitwise_not", 1, Bitwise, "BitwiseLanes", "not_lanes"),
    op("shift_left", 2, Shift, "ShiftLanes", "shl_lanes"),
    op("shift_right", 2, Shift, "ShiftLanes", "shr_lanes"),
    op("logical_and", 2, Logical, "BitwiseLanes", "and_lanes"),
    op("logical_or", 2, Logical, "BitwiseLanes", "or_lanes"),
    op("logical_xor", 2, Logical, "BitwiseLanes", "xor_lanes"),
    op("logical_not", 1, Logical, "BitwiseLanes", "not_lanes"),
];

/// How a reduction's output dtype and accumulator follow from its input (Theano's
/// `CAReduceDtype`; the rules are stated in check/tensor_ops.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceDtype {
    /// `sum`, `prod`, `reduce_l1`, `reduce_sum_square`: signed and `bool` widen to `i64`,
    /// unsigned to `u64`, floats keep theirs; `dtype =` and `acc =` choose.
    SumLike,
    /// `mean`: a float (`f64` for integers), accumulated in `f64` unless `acc =`.
    Mean,
    /// `reduce_l2`, `reduce_log_sum`, `reduce_log_sum_exp`: float input, float output.
    Float,
    /// `max`, `min`: the input dtype.
    Keep,
    /// `any`, `all`: `bool`.
    Bool,
    /// `argmax`, `argmin`: `i64` indices.
    Index,
}

/// What kind of tensor op a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorOpKind {
    Reduction(ReduceDtype),
    /// `softmax`, `logsoftmax` over one axis.
    Softmax,
    /// Views and reshape: positional arguments after the tensor, no named ones.
    Shape,
    /// `cumsum`/`cumprod`: a scan along one axis, with `sum`/`prod`'s dtype rule.
    Scan,
    /// Written as a composition of elementwise ops in the checker (`clip`, `prelu`),
    /// with the promotion and broadcasting of binary ops.
    Composite,
    /// Data reorganisation (`slice`, `flip`, `pad`, `tile`, `concat`): an index map that
    /// each consumer reads through (`check/reorg.rs`, `ir::NodeKind::Reorg`).
    Reorg,
    /// `matmul(a, b)`, also the operator `a @ b` (`check/matmul.rs`): a runtime GEMM step.
    MatMul,
    /// Reads positions from an index tensor (`gather`; `check/indexing.rs`): the graph
    /// checks the indices at call entry and returns `Result`.
    Indexing,
    /// Positions computed from the loop indices (`arange`, `eye`, `tril`, `triu`;
    /// `check/positions.rs`): elementwise, never stored.
    Position,
    /// A tuple of tensors (`split`, `top_k`; `check/tuples.rs`): bound with `let (a, b) =
    /// …` or returned as the graph's outputs.
    Tuple,
    /// `sort`/`argsort` along an axis (`check/ranking.rs`): a runtime step.
    Sort,
    /// `softmax_cross_entropy`, `nll_loss` (`check/losses.rs`).
    Loss,
    /// `attention` (`check/attention.rs`): a runtime step in tiles.
    Attention,
    /// The normalisations, global pools and block rearrangements of vision models
    /// (`check/vision.rs`): their hand-written graphs of existing ops.
    Vision,
}

/// The ops that read indices (the gathers; the losses' labels): a graph calling one
/// returns `Result` (an index out of range is an `Err`), whatever its dims.
pub const INDEX_OPS: &[&str] = &[
    "gather",
    "gather_elements",
    "gather_nd",
    "scatter_elements",
    "scatter_nd",
    "softmax_cross_entropy",
    "nll_loss",
];

/// A tensor op: one tensor, then named parameters (or, for shape ops, positional lists).
#[derive(Debug)]
pub struct TensorOp {
    pub name: &'static str,
    pub kind: TensorOpKind,
    pub params: &'static [ParamSpec],
}

use ArgKind::{Axes, Bool as BoolParam, DType as DTypeParam};

const AXIS: ParamSpec = param("axis", Axes, None);
const KEEPDIMS: ParamSpec = param("keepdims", BoolParam, Some("false"));
const DTYPE: ParamSpec = param("dtype", DTypeParam, None);
const ACC: ParamSpec = param("acc", DTypeParam, None);
/// Reductions whose output and accumulator dtypes can be chosen.
const TYPED_REDUCE: &[ParamSpec] = &[AXIS, KEEPDIMS, DTYPE, ACC];
const REDUCE: &[ParamSpec] = &[AXIS, KEEPDIMS];

const fn tensor_op(
    name: &'static str,
    kind: TensorOpKind,
    params: &'static [ParamSpec],
) -> TensorOp {
    TensorOp { name, kind, params }
}

/// Every tensor op.
pub const TENSOR_OPS: &[TensorOp] = {
    use ReduceDtype::*;
    use TensorOpKind::{Reduction as R, Shape as S};
    &[
        tensor_op("sum", R(SumLike), TYPED_REDUCE),
        tensor_op("prod", R(SumLike), TYPED_REDUCE),
        tensor_op("reduce_l1", R(SumLike), TYPED_REDUCE),
        tensor_op("reduce_sum_square", R(SumLike), TYPED_REDUCE),
        tensor_op("mean", R(Mean), TYPED_REDUCE),
        tensor_op("reduce_l2", R(Float), TYPED_REDUCE),
        tensor_op("reduce_log_sum", R(Float), TYPED_REDUCE),
        tensor_op("reduce_log_sum_exp", R(Float), TYPED_REDUCE),
        tensor_op("max", R(Keep), REDUCE),
        tensor_op("min", R(Keep), REDUCE),
        tensor_op("any", R(Bool), REDUCE),
        tensor_op("all", R(Bool), REDUCE),
        tensor_op("argmax", R(Index), REDUCE),
        tensor_op("argmin", R(Index), REDUCE),
        tensor_op(
            "softmax",
            TensorOpKind::Softmax,
            &[param("axis", Axes, Some("-1"))],
        ),
        tensor_op(
            "logsoftmax",
            TensorOpKind::Softmax,
            &[param("axis", Axes, Some("-1"))],
        ),
        tensor_op("dimshuffle", S, &[]),
        tensor_op("transpose", S, &[]),
        tensor_op("reshape", S, &[]),
        tensor_op("broadcast_to", S, &[]),
        tensor_op("expand_dims", S, &[]),
        tensor_op("squeeze", S, &[]),
        tensor_op("clip", TensorOpKind::Composite, CLIP),
        tensor_op("clamp", TensorOpKind::Composite, CLIP),
        tensor_op("prelu", TensorOpKind::Composite, &[]),
        tensor_op("cumsum", TensorOpKind::Scan, SCAN),
        tensor_op("cumprod", TensorOpKind::Scan, SCAN),
        tensor_op("sum_of", TensorOpKind::Composite, &[]),
        tensor_op("mean_of", TensorOpKind::Composite, &[]),
        tensor_op(
            "layer_norm",
            TensorOpKind::Composite,
            &[
                param("axis", Axes, Some("-1")),
                param("eps", ArgKind::Float, Some("1e-5")),
            ],
        ),
        tensor_op(
            "rms_norm",
            TensorOpKind::Composite,
            &[
                param("axis", Axes, Some("-1")),
                param("eps", ArgKind::Float, Some("1e-6")),
            ],
        ),
        tensor_op(
            "l2_normalize",
            TensorOpKind::Composite,
            &[param("axis", Axes, Some("-1"))],
        ),
        tensor_op("quantize_linear", TensorOpKind::Composite, &[]),
        tensor_op("dequantize_linear", TensorOpKind::Composite, &[]),
        tensor_op(
            "slice",
            TensorOpKind::Reorg,
            &[
                param("axis", Axes, None),
                param("start", ArgKind::Int, None),
                param("end", ArgKind::Int, None),
                param("step", ArgKind::Int, Some("1")),
            ],
        ),
        tensor_op("flip", TensorOpKind::Reorg, &[param("axis", Axes, None)]),
        tensor_op(
            "arange",
            TensorOpKind::Position,
            &[param("dtype", DTypeParam, Some("i64"))],
        ),
        tensor_op(
            "eye",
            TensorOpKind::Position,
            &[
                param("k", ArgKind::Int, Some("0")),
                param("dtype", DTypeParam, Some("f32")),
            ],
        ),
        tensor_op(
            "one_hot",
            TensorOpKind::Position,
            &[
                param("depth", ArgKind::Operand, None),
                param("axis", Axes, Some("-1")),
                param("on", ArgKind::Operand, Some("1")),
                param("off", ArgKind::Operand, Some("0")),
                param("dtype", DTypeParam, Some("f32")),
            ],
        ),
        tensor_op(
            "tril",
            TensorOpKind::Position,
            &[param("k", ArgKind::Int, Some("0"))],
        ),
        tensor_op(
            "triu",
            TensorOpKind::Position,
            &[param("k", ArgKind::Int, Some("0"))],
        ),
        tensor_op(
            "softmax_cross_entropy",
            TensorOpKind::Loss,
            &[
                param("weight", ArgKind::Operand, None),
                param("reduction", ArgKind::Operand, Some("mean")),
                param("ignore_index", ArgKind::Int, None),
            ],
        ),
        tensor_op(
            "nll_loss",
            TensorOpKind::Loss,
            &[
                param("weight", ArgKind::Operand, None),
                param("reduction", ArgKind::Operand, Some("mean")),
                param("ignore_index", ArgKind::Int, None),
            ],
        ),
        tensor_op(
            "attention",
            TensorOpKind::Attention,
            &[
                param("attn_mask", ArgKind::Operand, None),
                param("is_causal", BoolParam, Some("false")),
                param("scale", ArgKind::Operand, Some("1 / sqrt(D)")),
                param("softcap", ArgKind::Operand, Some("0")),
            ],
        ),
        tensor_op(
            "batch_norm",
            TensorOpKind::Vision,
            &[param("epsilon", ArgKind::Float, Some("1e-5"))],
        ),
        tensor_op(
            "instance_norm",
            TensorOpKind::Vision,
            &[param("epsilon", ArgKind::Float, Some("1e-5"))],
        ),
        tensor_op(
            "group_norm",
            TensorOpKind::Vision,
            &[
                param("num_groups", ArgKind::Int, None),
                param("epsilon", ArgKind::Float, Some("1e-5")),
            ],
        ),
        tensor_op(
            "mean_variance_normalization",
            TensorOpKind::Vision,
            &[param("axes", ArgKind::Operand, Some("[0, 2, 3, …]"))],
        ),
        tensor_op(
            "lrn",
            TensorOpKind::Vision,
            &[
                param("size", ArgKind::Int, None),
                param("alpha", ArgKind::Float, Some("1e-4")),
                param("beta", ArgKind::Float, Some("0.75")),
                param("bias", ArgKind::Float, Some("1.0")),
            ],
        ),
        tensor_op(
            "conv",
            TensorOpKind::Vision,
            &[
                param("kernel_shape", ArgKind::Operand, Some("the weight's")),
                param("strides", ArgKind::Operand, Some("[1, …]")),
                param("pads", ArgKind::Operand, Some("[0, …]")),
                param("dilations", ArgKind::Operand, Some("[1, …]")),
                param("group", ArgKind::Int, Some("1")),
                param("auto_pad", ArgKind::Operand, Some("notset")),
            ],
        ),
        tensor_op(
            "conv_transpose",
            TensorOpKind::Vision,
            &[
                param("kernel_shape", ArgKind::Operand, Some("the weight's")),
                param("strides", ArgKind::Operand, Some("[1, …]")),
                param("pads", ArgKind::Operand, Some("[0, …]")),
                param("dilations", ArgKind::Operand, Some("[1, …]")),
                param("group", ArgKind::Int, Some("1")),
                param("output_padding", ArgKind::Operand, Some("[0, …]")),
                param("output_shape", ArgKind::Operand, None),
                param("auto_pad", ArgKind::Operand, Some("notset")),
            ],
        ),
        tensor_op(
            "max_pool",
            TensorOpKind::Vision,
            &[
                param("kernel_shape", ArgKind::Operand, None),
                param("auto_pad", ArgKind::Operand, Some("notset")),
                param("strides", ArgKind::Operand, Some("[1, …]")),
                param("pads", ArgKind::Operand, Some("[0, …]")),
                param("dilations", ArgKind::Operand, Some("[1, …]")),
                param("ceil_mode", BoolParam, Some("false")),
            ],
        ),
        tensor_op(
            "max_pool_with_indices",
            TensorOpKind::Tuple,
            &[
                param("kernel_shape", ArgKind::Operand, None),
                param("auto_pad", ArgKind::Operand, Some("notset")),
                param("strides", ArgKind::Operand, Some("[1, …]")),
                param("pads", ArgKind::Operand, Some("[0, …]")),
                param("dilations", ArgKind::Operand, Some("[1, …]")),
                param("ceil_mode", BoolParam, Some("false")),
                param("storage_order", ArgKind::Int, Some("0")),
            ],
        ),
        tensor_op(
            "average_pool",
            TensorOpKind::Vision,
            &[
                param("kernel_shape", ArgKind::Operand, None),
                param("auto_pad", ArgKind::Operand, Some("notset")),
                param("strides", ArgKind::Operand, Some("[1, …]")),
                param("pads", ArgKind::Operand, Some("[0, …]")),
                param("dilations", ArgKind::Operand, Some("[1, …]")),
                param("count_include_pad", BoolParam, Some("false")),
            ],
        ),
        tensor_op(
            "lp_pool",
            TensorOpKind::Vision,
            &[
                param("kernel_shape", ArgKind::Operand, None),
                param("auto_pad", ArgKind::Operand, Some("notset")),
                param("strides", ArgKind::Operand, Some("[1, …]")),
                param("pads", ArgKind::Operand, Some("[0, …]")),
                param("dilations", ArgKind::Operand, Some("[1, …]")),
                param("p", ArgKind::Float, Some("2")),
            ],
        ),
        tensor_op(
            "resize",
            TensorOpKind::Vision,
            &[
                param("scales", ArgKind::Operand, None),
                param("sizes", ArgKind::Operand, None),
                param("axes", ArgKind::Operand, Some("every axis")),
                param("mode", ArgKind::Operand, Some("nearest")),
                param(
                    "coordinate_transformation_mode",
                    ArgKind::Operand,
                    Some("half_pixel"),
                ),
                param("nearest_mode", ArgKind::Operand, Some("round_prefer_floor")),
                param("cubic_coeff_a", ArgKind::Float, Some("-0.75")),
                param("exclude_outside", BoolParam, Some("false")),
            ],
        ),
        tensor_op("global_average_pool", TensorOpKind::Vision, &[]),
        tensor_op("global_max_pool", TensorOpKind::Vision, &[]),
        tensor_op(
            "global_lp_pool",
            TensorOpKind::Vision,
            &[param("p", ArgKind::Float, Some("2"))],
        ),
        tensor_op(
            "space_to_depth",
            TensorOpKind::Vision,
            &[param("blocksize", ArgKind::Int, None)],
        ),
        tensor_op(
            "depth_to_space",
            TensorOpKind::Vision,
            &[
                param("blocksize", ArgKind::Int, None),
                param("mode", ArgKind::Operand, Some("dcr")),
            ],
        ),
        tensor_op(
            "split",
            TensorOpKind::Tuple,
            &[param("axis", Axes, Some("0"))],
        ),
        tensor_op(
            "top_k",
            TensorOpKind::Tuple,
            &[
                param("k", ArgKind::Operand, None),
                param("axis", Axes, Some("-1")),
                param("largest", BoolParam, Some("true")),
                param("sorted", BoolParam, Some("true")),
            ],
        ),
        tensor_op(
            "sort",
            TensorOpKind::Sort,
            &[
                param("axis", Axes, Some("-1")),
                param("descending", BoolParam, Some("false")),
            ],
        ),
        tensor_op(
            "argsort",
            TensorOpKind::Sort,
            &[
                param("axis", Axes, Some("-1")),
                param("descending", BoolParam, Some("false")),
            ],
        ),
        tensor_op(
            "gather",
            TensorOpKind::Indexing,
            &[param("axis", Axes, Some("0"))],
        ),
        tensor_op(
            "gather_elements",
            TensorOpKind::Indexing,
            &[param("axis", Axes, Some("0"))],
        ),
        tensor_op(
            "gather_nd",
            TensorOpKind::Indexing,
            &[param("batch_dims", ArgKind::Int, Some("0"))],
        ),
        tensor_op(
            "scatter_elements",
            TensorOpKind::Indexing,
            &[
                param("axis", Axes, Some("0")),
                param("reduction", ArgKind::Operand, Some("none")),
            ],
        ),
        tensor_op(
            "scatter_nd",
            TensorOpKind::Indexing,
            &[param("reduction", ArgKind::Operand, Some("none"))],
        ),
        tensor_op(
            "pad",
            TensorOpKind::Reorg,
            &[
                param("value", ArgKind::Scalar, Some("0")),
                param(
                    "mode",
                    ArgKind::Word(&["constant", "reflect", "edge"]),
                    Some("constant"),
                ),
            ],
        ),
        tensor_op("tile", TensorOpKind::Reorg, &[]),
        tensor_op("concat", TensorOpKind::Reorg, &[param("axis", Axes, None)]),
        tensor_op("matmul", TensorOpKind::MatMul, &[ACC]),
        tensor_op("einsum", TensorOpKind::MatMul, &[]),
    ]
};

/// `cumsum(x, axis = k, exclusive = false, reverse = false)`, with `sum`'s `dtype`/`acc`.
const SCAN: &[ParamSpec] = &[
    param("axis", Axes, None),
    param("exclusive", BoolParam, Some("false")),
    param("reverse", BoolParam, Some("false")),
    DTYPE,
    ACC,
];

/// `clip(x, min = a, max = b)`: either bound may be left out.
const CLIP: &[ParamSpec] = &[
    param("min", ArgKind::Operand, None),
    param("max", ArgKind::Operand, None),
];

/// What a call names.
#[derive(Clone, Copy, Debug)]
pub enum Callable {
    Elementwise(&'static Op),
    /// `where(cond, a, b)`: typed specially (a `bool` condition, two promoted branches).
    Where,
    Tensor(&'static TensorOp),
}

/// The registry row of tensor op `name`, for checkers that type an op by a row they name
/// (`split`, `top_k`, `max_pool_with_indices`, a scan's reduction); panics on a name the
/// registry lacks, a mistake in this crate.
pub fn registry_row(name: &str) -> &'static TensorOp {
    TENSOR_OPS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` is a registry row"))
}

/// The callable `name(…)` with `positional` tensor arguments refers to. `max`/`min` with
/// two tensors and no named arguments are elementwise; with one tensor, reductions.
pub fn lookup(name: &str, positional: usize, has_named: bool) -> Option<Callable> {
    if let Some(t) = TENSOR_OPS.iter().find(|t| t.name == name) {
        let elementwise_form = matches!(name, "max" | "min") && positional >= 2 && !has_named;
        if !elementwise_form {
            return Some(Callable::Tensor(t));
        }
    }
    if name == "where" {
        return Some(Callable::Where);
    }
    function(name).map(Callable::Elementwise)
}

/// Names accepted as calls, for "did you mean" hints.
pub fn all_function_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = FUNCTIONS.iter().map(|o| o.name).collect();
    names.push("where");
    names.extend(TENSOR_OPS.iter().map(|t| t.name));
    names
}

/// Softmax's exp: `exp` of `x - max(x)`, an argument the checker knows is <= 0 or NaN,
/// computed as e^x over that domain only (`FloatLanes::exp_nonpos_lanes`: within exp's 1
/// ULP, cheaper by what the sign allows; a positive x gives 1 on most builds but not on
/// the AVX-512 table kernel, which has no upper clamp). Internal: no row of `FUNCTIONS`, so no graph can call it.
pub static EXP_NONPOS: Op = op(
    "exp_nonpos",
    1,
    FloatUnary,
    "FloatLanes",
    "exp_nonpos_lanes",
);

/// Softmax's normalisation `e / sum(e)`, with a third operand `in_range` (bool): a float
/// division whose dividend is in [0, 1] or NaN, whose divisor is at least 1 or NaN, and
/// where `in_range` may be true only if every dividend of the row is NaN or at least
/// 2^-76 (`check_softmax` computes it as `min(x) - max(x) >= -50`). With the row's sum as
/// divisor it is `FloatLanes::div_softmax_lanes` (the same bits as `div`, cheaper by what
/// the contract allows: no per-vector test of the dividends where `in_range`); a plain
/// division where the sum varies along the inner loop (`softmax(x, axis = 0)`,
/// `div_softmax_plain_lanes`). Internal, as `EXP_NONPOS`.
pub static DIV_SOFTMAX: Op = op(
    "div_softmax",
    3,
    Arith,
    "FloatLanes",
    "div_softmax_plain_lanes",
)
.with_invariant_divisor("div_softmax_lanes");

pub fn function(name: &str) -> Option<&'static Op> {
    FUNCTIONS.iter().find(|o| o.name == name)
}

fn named(name: &str) -> &'static Op {
    function(name).expect("every operator maps to a row of FUNCTIONS")
}

/// The op behind a binary operator.
pub fn binary_operator(operator: BinOp) -> &'static Op {
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
        BinOp::BitAnd => named("bitwise_and"),
        BinOp::BitOr => named("bitwise_or"),
        BinOp::BitXor => named("bitwise_xor"),
        BinOp::Shl => named("shift_left"),
        BinOp::Shr => named("shift_right"),
        BinOp::And => named("logical_and"),
        BinOp::Or => named("logical_or"),
    }
}

/// The op behind a unary operator: `-` negates numbers, `!` is bitwise/logical not.
pub fn unary_operator(operator: UnOp) -> &'static Op {
    match operator {
        UnOp::Neg => named("neg"),
        UnOp::Not => named("bitwise_not"),
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

#[cfg(test)]
mod tests {
    /// The language reference (docs/language.md) names every callable of the registry, so
    /// a new row cannot land undocumented.
    #[test]
    fn language_reference_lists_every_callable() {
        let doc = include_str!("../../docs/language.md");
        let missing: Vec<&str> = super::all_function_names()
            .into_iter()
            .filter(|name| !names_word(doc, name))
            .collect();
        assert!(
            missing.is_empty(),
            "docs/language.md does not name: {missing:?}"
        );
    }

    /// Whether `word` occurs in `text` as a whole identifier.
    fn names_word(text: &str, word: &str) -> bool {
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        text.match_indices(word).any(|(at, _)| {
            !ident(text[..at].chars().next_back()) && !ident(text[at + word.len()..].chars().next())
        })
    }
}
