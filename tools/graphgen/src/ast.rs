//! The generator's own syntax tree of a graph: what `render` prints and `interp` runs.

use crate::types::{DType, Dim, Ty};

/// A weak literal.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Int(i128),
    /// A float literal whose value is exact in every float dtype.
    Float(f64),
    Bool(bool),
}

/// An operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    And,
    Or,
    MatMul,
}

impl BinOp {
    pub fn token(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            And => "&&",
            Or => "||",
            MatMul => "@",
        }
    }

    /// The function of the op table the operator stands for.
    pub fn function(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Rem => "rem",
            Eq => "equal",
            Ne => "not_equal",
            Lt => "less",
            Le => "less_equal",
            Gt => "greater",
            Ge => "greater_equal",
            BitAnd => "bitwise_and",
            BitOr => "bitwise_or",
            BitXor => "bitwise_xor",
            Shl => "shift_left",
            Shr => "shift_right",
            And => "logical_and",
            Or => "logical_or",
            MatMul => "matmul",
        }
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Var(String),
    Lit(Lit),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Cast(Box<Expr>, DType),
    Call(Call),
    /// NumPy indexing sugar `x[1, :, ::2, None, ...]`.
    Index(Box<Expr>, Vec<IndexItem>),
}

/// One item of indexing sugar.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexItem {
    At(i64),
    Range(Option<i64>, Option<i64>, Option<i64>),
    NewAxis,
    Ellipsis,
}

/// A parameter holding indices into an axis of `len` (gather) or labels of `len` classes
/// (a loss, `ignore` the ignore_index): the inputs give valid ones, and sometimes one out
/// of range.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexParam {
    pub param: usize,
    pub len: Dim,
    /// Negative indices count from the end (gather); labels are `0..len`.
    pub negative: bool,
    pub ignore: Option<i64>,
}

/// `f(args…, name = value…)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub f: &'static str,
    pub args: Vec<Arg>,
    pub named: Vec<(&'static str, Arg)>,
}

/// An argument of a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    E(Expr),
    Int(i64),
    Ints(Vec<i64>),
    /// `dimshuffle`'s pattern: an input axis or `'x'`.
    Pattern(Vec<Option<usize>>),
    /// `broadcast_to`/`reshape` targets: literal dims, names, `-1`.
    Dims(Vec<TargetDim>),
    Bool(bool),
    /// A dim argument (`arange(N + 1)`, `depth = N`).
    Dim(Dim),
    DType(DType),
    Word(&'static str),
    /// `concat([a, b], …)`.
    List(Vec<Expr>),
    Str(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TargetDim {
    Dim(Dim),
    Infer,
}

/// A parameter: a tensor `x: f32[2, B]`, or a bare scalar `s: f32`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub dtype: DType,
    /// `None` for a bare scalar.
    pub dims: Option<Vec<Dim>>,
}

impl Param {
    pub fn ty(&self) -> Ty {
        Ty {
            dtype: self.dtype,
            dims: self.dims.clone().unwrap_or_default(),
        }
    }
}

/// How the harness declares and calls a graph (tensorgraph-tests' build script).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `graph! { fn g(…) -> … { … } }`, called as `g(…)`.
    Item,
    /// The same item, called as `g_into(…, &mut out…)` into caller-provided views
    /// prefilled with a sentinel (a failed call must leave them untouched).
    Into,
    /// `graph!(|…| -> … { … })` (`typed`: with the `-> …` output type) inside the runner.
    Closure { typed: bool },
}

/// A graph function.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub name: String,
    pub params: Vec<Param>,
    pub lets: Vec<(String, Expr)>,
    /// The static type of each `let`, as the generator typed it (the interpreter needs to
    /// know which axes are named: a named axis sliced with literal bounds is checked at
    /// call entry).
    pub let_types: Vec<Ty>,
    pub outputs: Vec<Expr>,
    pub out_types: Vec<Ty>,
    /// The dim names, in order of first use.
    pub names: Vec<&'static str>,
    pub form: Form,
    /// Index and label parameters.
    pub indices: Vec<IndexParam>,
    /// The type of each part of a tuple `let` (`let (v3a, v3b) = …`, whose name in
    /// `lets` is `v3a, v3b`).
    pub parts: Vec<(String, Ty)>,
}

impl Graph {
    pub fn is_symbolic(&self) -> bool {
        !self.names.is_empty()
    }

    /// Whether the call returns `Result` (names, or indices checked at call entry).
    pub fn is_fallible(&self) -> bool {
        self.is_symbolic() || !self.indices.is_empty()
    }
}
