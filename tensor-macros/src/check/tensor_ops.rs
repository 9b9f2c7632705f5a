//! Typing of the ops that are not elementwise: reductions (Theano `CAReduceDtype` rules),
//! the softmax family, and shape ops (views and reshape).
//!
//! Reduction dtypes (docs/language.md):
//! - `sum`/`prod` (and `reduce_l1`, `reduce_sum_square`): signed integers and `bool` give
//!   `i64`, unsigned `u64`, floats keep their dtype; `dtype = …` overrides. The default
//!   accumulator is `i64`/`u64` for integer outputs and `f64` for float outputs; `acc = …`
//!   overrides, and must hold every value of the input dtype.
//! - `mean` gives the input's float dtype (`f64` for integers and `bool`), accumulated in
//!   `f64` unless `acc = …`.
//! - `max`/`min` keep the dtype; `any`/`all` give `bool`; `argmax`/`argmin` give `i64`.
//! - `max`/`min`/`argmax`/`argmin` over an empty axis are errors (the size is static).
//! Axes may be negative; repeated or out-of-range axes are errors.

use proc_macro2::Span;
use syn::Ident;

use super::{Checker, Typed};
use crate::ast::{Expr, LitValue, NamedArg, UnOp};
use crate::dtype::DType;
use crate::ir::{ConstValue, NodeId, NodeKind, ReduceKind};
use crate::ops::{self, ArgKind, ReduceDtype, TensorOp, TensorOpKind};
use crate::shape::{broadcast, dims_text, static_len, Dim};

/// One item of a `reshape`/`broadcast_to` target: a literal (`-1` for reshape's inferred
/// dim), a dim name of the graph, or a dim expression of them (`N - 2`, `(N + 1) / 2`).
enum TargetDim {
    Lit(i128),
    Name(String),
    Expr(crate::dim_expr::Poly),
}

/// The dim expression an item of a target list spells: integer literals and `names`
/// combined by `+ - *`, `/` by a positive literal (floor), `max`/`min` of two; `None` for
/// anything else.
fn target_poly(e: &Expr, names: &[String]) -> Option<crate::dim_expr::Poly> {
    use crate::ast::{BinOp, UnOp};
    use crate::dim_expr::Poly;
    match e {
        Expr::Var(ident) => {
            let n = ident.to_string();
            names.contains(&n).then(|| Poly::name(&n))
        }
        Expr::Unary {
            op: UnOp::Neg,
            expr,
            ..
        } => target_poly(expr, names).map(|p| p.scale(-1)),
        Expr::Binary { op, lhs, rhs, .. } => {
            let a = target_poly(lhs, names)?;
            match op {
                BinOp::Div => {
                    let d = int_literal(rhs).filter(|&d| d > 0)?;
                    Some(a.floor_div(u64::try_from(d).ok()?))
                }
                BinOp::Add => Some(a.add(&target_poly(rhs, names)?)),
                BinOp::Sub => Some(a.sub(&target_poly(rhs, names)?)),
                BinOp::Mul => Some(a.mul(&target_poly(rhs, names)?)),
                _ => None,
            }
        }
        Expr::Call { func, args, named } if named.is_empty() && args.len() == 2 => {
            let (a, b) = (target_poly(&args[0], names)?, target_poly(&args[1], names)?);
            match func.to_string().as_str() {
                "max" => Some(a.maximum(&b)),
                "min" => Some(a.minimum(&b)),
                _ => None,
            }
        }
        _ => int_literal(e).map(Poly::constant),
    }
}

/// The dims of `reshape(x, target)` (with `infer` the index of a `-1`, set to 1 in
/// `target`), or why not (`{shown}` stands for the input's type text).
///
/// Rule (docs/language.md): every symbolic dim stays one whole axis, in the same order, and the
/// literal dims between two names (or before the first, after the last) regroup among
/// themselves: `[B, 768]` → `[B, 12, 64]`. A `-1` absorbs literal dims of its run only.
fn reshape_target(
    dims: &[Dim],
    mut target: Vec<Dim>,
    infer: Option<usize>,
    written: &str,
) -> Result<Vec<Dim>, String> {
    let names = |d: &[Dim]| -> Vec<Dim> { d.iter().filter(|x| x.is_symbolic()).cloned().collect() };
    let (in_names, out_names) = (names(dims), names(&target));
    if in_names != out_names {
        return Err(format!(
            "cannot reshape {{shown}} into {written}: a reshape keeps every symbolic dim as one whole axis, in order ({} here, {} in the target)\n\
             note: a symbolic dim is never split or merged: its size is only known at run time",
            dims_text(&in_names),
            dims_text(&out_names)
        ));
    }
    // Runs of literal dims between the names: run k is before name k (the last run after
    // the last name).
    let runs = |d: &[Dim]| -> Vec<(usize, usize)> {
        let mut runs = Vec::new();
        let mut start = 0;
        for (k, x) in d.iter().enumerate() {
            if x.is_symbolic() {
                runs.push((start, k));
                start = k + 1;
            }
        }
        runs.push((start, d.len()));
        runs
    };
    let product = |d: &[Dim]| -> usize { d.iter().map(|x| x.as_static().unwrap_or(1)).product() };
    let (in_runs, out_runs) = (runs(dims), runs(&target));
    for (&(a, b), &(c, e)) in in_runs.iter().zip(&out_runs) {
        let count = product(&dims[a..b]);
        if let Some(k) = infer.filter(|k| (c..e).contains(k)) {
            let known = product(&target[c..e]);
            if known == 0 || count % known != 0 {
                let whole = in_names.is_empty();
                return Err(if whole {
                    format!("cannot infer the `-1` dim: {{shown}} has {count} elements, not a multiple of {known}")
                } else {
                    format!("cannot infer the `-1` dim: its run of literal dims in {{shown}} has {count} elements, not a multiple of {known}")
                });
            }
            target[k] = Dim::Static(count / known);
        }
        let new_count = product(&target[c..e]);
        if new_count != count {
            return Err(if in_names.is_empty() {
                format!(
                    "cannot reshape {{shown}} ({count} elements) into {} ({new_count} elements)",
                    dims_text(&target)
                )
            } else {
                format!(
                    "cannot reshape {{shown}} into {written}: the literal dims {} regroup into {} ({count} vs {new_count} elements)\n\
                     note: a reshape keeps every symbolic dim as one whole axis; only the literal dims between them regroup",
                    dims_text(&dims[a..b]),
                    dims_text(&target[c..e])
                )
            });
        }
    }
    Ok(target)
}

/// Named arguments of a reduction, after reading.
#[derive(Default)]
pub(super) struct ReduceArgs {
    /// `None`: all axes. Each axis with the expression to point errors at.
    pub(super) axes: Option<Vec<(i128, Span)>>,
    pub(super) axis_is_list: bool,
    pub(super) axis_span: Option<Span>,
    pub(super) keepdims: bool,
    pub(super) exclusive: bool,
    pub(super) reverse: bool,
    pub(super) dtype: Option<(DType, Span)>,
    pub(super) acc: Option<(DType, Span)>,
}

/// An integer literal, possibly negated.
pub(super) fn int_literal(e: &Expr) -> Option<i128> {
    match e {
        Expr::Lit(LitValue::Int(v), _) => i128::try_from(*v).ok(),
        Expr::Unary {
            op: UnOp::Neg,
            expr,
            ..
        } => int_literal(expr).map(|v| -v),
        _ => None,
    }
}

/// A float (or integer) literal, possibly negated.
pub(super) fn float_literal(e: &Expr) -> Option<f64> {
    match e {
        Expr::Lit(LitValue::Float(v, _), _) => Some(*v),
        Expr::Lit(LitValue::Int(v), _) => Some(*v as f64),
        Expr::Unary {
            op: UnOp::Neg,
            expr,
            ..
        } => float_literal(expr).map(|v| -v),
        _ => None,
    }
}

/// A dtype written as a named argument's value: `dtype = f32`.
pub(super) fn dtype_literal(e: &Expr) -> Option<DType> {
    match e {
        Expr::Var(ident) => DType::from_name(&ident.to_string()),
        _ => None,
    }
}

/// The items of a `[…]` list argument.
pub(super) fn list_items(e: &Expr) -> Option<&[Expr]> {
    match e {
        Expr::Call { func, args, .. } if func == "__list" => Some(args),
        _ => None,
    }
}

pub(super) fn expr_span(e: &Expr) -> Span {
    match e {
        Expr::Call { func, .. } => func.span(),
        other => other.span(),
    }
}

/// Whether a reduction's output and accumulator dtypes follow `sum`.
fn sum_like(op: &TensorOp) -> bool {
    op.kind == TensorOpKind::Reduction(ReduceDtype::SumLike)
}

/// Whether a reduction takes `dtype`/`acc` arguments.
fn takes_dtypes(op: &TensorOp) -> bool {
    sum_like(op) || float_reduction(op) || op.name == "mean"
}

/// Whether a reduction needs a float input and gives a float.
fn float_reduction(op: &TensorOp) -> bool {
    op.kind == TensorOpKind::Reduction(ReduceDtype::Float)
}

/// A shape op being checked (`Checker::check_shape_op`): its operand `x`, the arguments
/// after it, and `x`'s type.
struct ShapeOp<'a> {
    name: &'a str,
    span: Span,
    x: NodeId,
    rest: &'a [Expr],
    dims: Vec<Dim>,
    dtype: DType,
    rank: i128,
    /// `x`'s type as errors show it.
    shown: String,
}

impl ShapeOp<'_> {
    /// Whether the op got `n` arguments after `x`; else an error with its `usage`.
    fn expect_args(
        &self,
        this: &mut Checker<'_>,
        n: std::ops::RangeInclusive<usize>,
        usage: &str,
    ) -> bool {
        let (name, span, rest) = (self.name, self.span, self.rest);
        if n.contains(&rest.len()) {
            true
        } else {
            this.errors.push(span, format!("`{name}` takes {usage}"));
            false
        }
    }

    /// A list of integer literals (with `'x'` allowed for dimshuffle).
    fn read_list(
        &self,
        this: &mut Checker<'_>,
        e: &Expr,
        allow_x: bool,
    ) -> Option<Vec<(Option<i128>, Span)>> {
        let name = self.name;
        let Some(items) = list_items(e) else {
            this.errors.push(
                expr_span(e),
                format!("`{name}` expects a list here, e.g. `[1, 0]`"),
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            match (int_literal(item), item) {
                (Some(v), _) => out.push((Some(v), item.span())),
                (None, Expr::Lit(LitValue::Char('x'), s)) if allow_x => out.push((None, *s)),
                _ => {
                    let what = if allow_x {
                        "an axis (an integer literal) or `'x'`"
                    } else {
                        "an integer literal"
                    };
                    this.errors.push(item.span(), format!("expected {what}"));
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Axis `a` (written at `s`) of a tensor of rank `rank`, negative from the end.
    fn normalise(&self, this: &mut Checker<'_>, a: i128, s: Span, rank: i128) -> Option<usize> {
        let shown = &self.shown;
        if a < -rank || a >= rank {
            this.errors.push(
                s,
                format!(
                    "axis {a} is out of range for {shown} (valid: -{rank}..={})",
                    rank - 1
                ),
            );
            return None;
        }
        Some(if a < 0 {
            (a + rank) as usize
        } else {
            a as usize
        })
    }

    /// A view of `x`.
    fn view(&self, this: &mut Checker<'_>, map: Vec<Option<usize>>, out_dims: Vec<Dim>) -> Typed {
        Typed::Strong(this.add(NodeKind::View { input: self.x, map }, self.dtype, out_dims))
    }
}

impl Checker<'_> {
    /// Reductions, softmax and shape ops: one row of `ops::TENSOR_OPS`.
    pub(super) fn check_tensor_op(
        &mut self,
        op: &'static TensorOp,
        func: &Ident,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        let span = func.span();
        if op.kind == TensorOpKind::Reorg {
            return self.check_reorg(op, span, args, named);
        }
        if op.kind == TensorOpKind::Vision {
            return self.check_vision(op, span, args, named);
        }
        if op.kind == TensorOpKind::Attention {
            return self.check_attention(op, span, args, named);
        }
        if op.kind == TensorOpKind::Loss {
            return self.check_loss(op, span, args, named);
        }
        if op.kind == TensorOpKind::Sort {
            return self.check_sort(op, span, args, named);
        }
        if op.kind == TensorOpKind::Tuple {
            return self.tuple_in_place_of_tensor(span, name);
        }
        if op.kind == TensorOpKind::Position {
            return self.check_position(op, span, args, named);
        }
        if op.kind == TensorOpKind::Indexing {
            return self.check_indexing(op, span, args, named);
        }
        if op.kind == TensorOpKind::MatMul {
            return if name == "einsum" {
                self.check_einsum(op, span, args, named)
            } else {
                self.check_matmul(op, span, args, named)
            };
        }
        let Some(first) = args.first() else {
            self.errors.push(
                span,
                format!("`{name}` needs a tensor as its first argument"),
            );
            return Typed::Poison;
        };
        let x = match self.check_expr(first) {
            Typed::Strong(n) => n,
            Typed::Poison => return Typed::Poison,
            Typed::Weak(w, ws) => {
                self.errors.push(
                    ws,
                    format!("`{name}` needs a tensor, but got the untyped {}\nhelp: give it a dtype, e.g. `(… as f32)`", w.describe()),
                );
                return Typed::Poison;
            }
        };
        match op.kind {
            TensorOpKind::Composite => self.check_composite(op, span, x, args, named),
            TensorOpKind::Shape => {
                for n in named {
                    self.errors.push(
                        n.name.span(),
                        format!("`{name}` has no named arguments; `{}` is not one", n.name),
                    );
                }
                if !named.is_empty() {
                    return Typed::Poison;
                }
                self.check_shape_op(name, span, x, &args[1..])
            }
            _ => {
                if args.len() > 1 {
                    let hint = if int_literal(&args[1]).is_some() || list_items(&args[1]).is_some()
                    {
                        format!(
                            "\nhelp: name it: `{name}({}, axis = …)`",
                            crate::ast::expr_text(first)
                        )
                    } else {
                        String::new()
                    };
                    self.errors.push(
                        expr_span(&args[1]),
                        format!("`{name}` takes one tensor; its other arguments are named{hint}"),
                    );
                    return Typed::Poison;
                }
                let Some(ra) = self.read_reduce_args(op, named) else {
                    return Typed::Poison;
                };
                if op.kind == TensorOpKind::Softmax {
                    self.check_softmax(name, span, x, &ra)
                } else if op.kind == TensorOpKind::Scan {
                    self.check_scan(op, span, x, &ra)
                } else {
                    self.check_reduction(op, span, x, &ra)
                }
            }
        }
    }

    /// The row parameter that named argument `n` sets, or `None` once reported.
    pub(super) fn param_spec(
        &mut self,
        op: &TensorOp,
        n: &NamedArg,
    ) -> Option<&'static ops::ParamSpec> {
        let spec = op.params.iter().find(|p| n.name == p.name);
        if spec.is_none() {
            self.report_unknown_named(op, n);
        }
        spec
    }

    /// Reports `n`, a named argument that `op` does not take, listing the ones it does.
    pub(super) fn report_unknown_named(&mut self, op: &TensorOp, n: &NamedArg) {
        let takes = if op.params.is_empty() {
            "no named arguments".to_string()
        } else {
            ops::param_list(op.params)
        };
        self.errors.push(
            n.name.span(),
            format!(
                "`{}` has no argument named `{}`; it takes {takes}",
                op.name, n.name
            ),
        );
    }

    /// The named arguments of a reduction or softmax, read against its row's parameters.
    pub(super) fn read_reduce_args(
        &mut self,
        op: &TensorOp,
        named: &[NamedArg],
    ) -> Option<ReduceArgs> {
        let mut ra = ReduceArgs::default();
        let mut ok = true;
        for n in named {
            let arg = n.name.to_string();
            let vspan = expr_span(&n.value);
            let Some(spec) = self.param_spec(op, n) else {
                ok = false;
                continue;
            };
            match (spec.ty, arg.as_str()) {
                (ArgKind::Axes, _) => {
                    ra.axis_span = Some(vspan);
                    if let Some(items) = list_items(&n.value) {
                        ra.axis_is_list = true;
                        let mut axes = Vec::new();
                        for item in items {
                            match int_literal(item) {
                                Some(v) => axes.push((v, item.span())),
                                None => {
                                    self.errors.push(
                                        item.span(),
                                        "an axis is an integer literal, e.g. `1` or `-1`",
                                    );
                                    ok = false;
                                }
                            }
                        }
                        ra.axes = Some(axes);
                    } else if let Some(v) = int_literal(&n.value) {
                        ra.axes = Some(vec![(v, vspan)]);
                    } else {
                        self.errors.push(vspan, "`axis` is an integer literal or a list of them, e.g. `axis = 1` or `axis = [0, 2]`");
                        ok = false;
                    }
                }
                (ArgKind::Bool, flag) => match &n.value {
                    Expr::Lit(LitValue::Bool(b), _) => match flag {
                        "exclusive" => ra.exclusive = *b,
                        "reverse" => ra.reverse = *b,
                        _ => ra.keepdims = *b,
                    },
                    _ => {
                        self.errors
                            .push(vspan, format!("`{flag}` is `true` or `false`"));
                        ok = false;
                    }
                },
                (ArgKind::DType, _) => {
                    let dtype = match &n.value {
                        Expr::Var(ident) => DType::from_name(&ident.to_string()),
                        _ => None,
                    };
                    match dtype {
                        Some(d) if d != DType::Bool => {
                            if arg == "dtype" {
                                ra.dtype = Some((d, vspan));
                            } else {
                                ra.acc = Some((d, vspan));
                            }
                        }
                        _ => {
                            self.errors.push(vspan, format!("`{arg}` is a numeric dtype, one of `u8` … `u64`, `i8` … `i64`, `f16`, `bf16`, `f32`, `f64`"));
                            ok = false;
                        }
                    }
                }
                // Read by the composite ops themselves (`eps` of `layer_norm`).
                (ArgKind::Float | ArgKind::Operand, _) => {}
                (ArgKind::Int | ArgKind::Scalar | ArgKind::Word(_), _) => {
                    unreachable!("only reorganisation rows take these, read by `check_reorg`")
                }
            }
        }
        ok.then_some(ra)
    }

    /// Normalised, checked axes (all axes when none are given).
    pub(super) fn reduction_axes(
        &mut self,
        name: &str,
        x: NodeId,
        ra: &ReduceArgs,
    ) -> Option<Vec<usize>> {
        let dims = self.node(x).dims.clone();
        let rank = dims.len() as i128;
        let Some(given) = &ra.axes else {
            return Some((0..dims.len()).collect());
        };
        let mut axes = Vec::new();
        let mut ok = true;
        for &(a, aspan) in given {
            if a < -rank || a >= rank {
                let range = if rank == 0 {
                    "none: the tensor has rank 0".to_string()
                } else {
                    format!("-{rank}..={}", rank - 1)
                };
                self.errors.push(
                    aspan,
                    format!("axis {a} is out of range for `{name}` of a rank-{rank} tensor {}{}; valid axes: {range}", self.node(x).dtype.name(), dims_text(&dims)),
                );
                ok = false;
                continue;
            }
            let norm = if a < 0 {
                (a + rank) as usize
            } else {
                a as usize
            };
            if axes.contains(&norm) {
                self.errors
                    .push(aspan, format!("axis {a} is repeated (it is axis {norm})"));
                ok = false;
                continue;
            }
            axes.push(norm);
        }
        axes.sort_unstable();
        ok.then_some(axes)
    }

    /// The items of a `reshape`/`broadcast_to` target list: integer literals and names of
    /// the graph's dims.
    fn read_target_dims(&mut self, name: &str, e: &Expr) -> Option<Vec<(TargetDim, Span)>> {
        let Some(items) = list_items(e) else {
            self.errors.push(
                expr_span(e),
                format!("`{name}` expects a list here, e.g. `[1, 0]`"),
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            if let Some(v) = int_literal(item) {
                out.push((TargetDim::Lit(v), item.span()));
            } else if let Expr::Var(ident) = item {
                let n = ident.to_string();
                if !self.dim_names.contains(&n) {
                    let known = if self.dim_names.is_empty() {
                        "this graph has no dim names".to_string()
                    } else {
                        format!(
                            "the graph's dim names are {}",
                            self.dim_names
                                .iter()
                                .map(|d| format!("`{d}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    self.errors.push(
                        ident.span(),
                        format!("`{n}` is not a dim of this graph's inputs: {known}\nnote: a target dim is a literal or a name that some input's type has"),
                    );
                    return None;
                }
                out.push((TargetDim::Name(n), item.span()));
            } else if let Some(p) = target_poly(item, &self.dim_names) {
                out.push((TargetDim::Expr(p), item.span()));
            } else {
                self.errors.push(
                    item.span(),
                    "expected an integer literal, a dim name, or a dim expression of them (`N - 2`, `(N + 1) / 2`)",
                );
                return None;
            }
        }
        Some(out)
    }

    pub(super) fn reduce_node(
        &mut self,
        input: NodeId,
        kind: ReduceKind,
        axes: &[usize],
        dtype: DType,
    ) -> NodeId {
        let mut dims = self.node(input).dims.clone();
        for &a in axes {
            dims[a] = Dim::Static(1);
        }
        self.add(
            NodeKind::Reduce {
                input,
                kind,
                axes: axes.to_vec(),
            },
            dtype,
            dims,
        )
    }

    /// `node` with a new axis of 1 at `k` (a view): `expand_dims`.
    pub(super) fn insert_axis(&mut self, node: NodeId, k: usize) -> NodeId {
        let mut dims = self.node(node).dims.clone();
        let mut map: Vec<Option<usize>> = (0..dims.len()).map(Some).collect();
        map.insert(k, None);
        dims.insert(k, Dim::Static(1));
        let dtype = self.node(node).dtype;
        self.add(NodeKind::View { input: node, map }, dtype, dims)
    }

    /// Removes the (size-1) reduced axes: `keepdims = false`.
    pub(super) fn drop_axes(&mut self, node: NodeId, axes: &[usize]) -> NodeId {
        let dims = self.node(node).dims.clone();
        let kept: Vec<usize> = (0..dims.len()).filter(|a| !axes.contains(a)).collect();
        if kept.len() == dims.len() {
            return node;
        }
        let out_dims = kept.iter().map(|&a| dims[a].clone()).collect();
        let dtype = self.node(node).dtype;
        self.add(
            NodeKind::View {
                input: node,
                map: kept.into_iter().map(Some).collect(),
            },
            dtype,
            out_dims,
        )
    }

    /// An elementwise op on operands of one dtype (no promotion), broadcasting their dims.
    pub(super) fn op_node(&mut self, name: &str, args: &[NodeId]) -> NodeId {
        let op = ops::function(name).expect("a known elementwise op");
        self.op_with_node(op, args)
    }

    /// As `op_node`, for an op given by its row (internal ops have no name to look up).
    pub(super) fn op_with_node(&mut self, op: &'static ops::Op, args: &[NodeId]) -> NodeId {
        let mut dims = Vec::new();
        for &a in args {
            dims = broadcast(&dims, &self.node(a).dims).expect("checked shapes broadcast");
        }
        let dtype = op.typing.result(self.node(args[0]).dtype);
        self.add(
            NodeKind::Op {
                op,
                args: args.to_vec(),
            },
            dtype,
            dims,
        )
    }

    /// The element count of `dims` as a float of `dtype`: a constant when every dim is a
    /// literal, else counted at run time (`mean`'s divisor).
    pub(super) fn count_node(&mut self, dims: Vec<Dim>, dtype: DType) -> NodeId {
        match static_len(&dims) {
            Some(count) => self.float_const(count as f64, dtype),
            None => self.add(NodeKind::Count { dims }, dtype, Vec::new()),
        }
    }

    pub(super) fn float_const(&mut self, value: f64, dtype: DType) -> NodeId {
        self.add(
            NodeKind::Const(ConstValue::Float(value, None)),
            dtype,
            Vec::new(),
        )
    }

    /// The output and accumulator dtypes of reduction `op` over an `xd` input, from its
    /// `dtype`/`acc` arguments and defaults (Theano's `CAReduceDtype`): `sum`-like
    /// reductions widen integers to `i64`/`u64`, `mean` and the float reductions give a
    /// float, the others keep `xd`. `None` once an error is reported.
    pub(super) fn reduction_dtypes(
        &mut self,
        op: &TensorOp,
        xd: DType,
        ra: &ReduceArgs,
    ) -> Option<(DType, DType)> {
        let name = op.name;
        // Sum-like output and accumulator dtypes.
        let sum_out = |d: DType| match d {
            DType::Bool | DType::I8 | DType::I16 | DType::I32 | DType::I64 => DType::I64,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => DType::U64,
            f => f,
        };
        let float_out = |d: DType| if d.is_float() { d } else { DType::F64 };
        let out_default = match name {
            _ if sum_like(op) => sum_out(xd),
            "mean" => float_out(xd),
            _ => xd,
        };
        let takes_dtypes = takes_dtypes(op);
        let out = match ra.dtype {
            Some((d, dspan)) if (name == "mean" || float_reduction(op)) && !d.is_float() => {
                self.errors.push(
                    dspan,
                    format!("`{name}` gives a float; `dtype = {}` is not one", d.name()),
                );
                return None;
            }
            Some((d, _)) => d,
            None => out_default,
        };
        let acc = if takes_dtypes {
            let default = if out.is_float() || name == "mean" || float_reduction(op) {
                DType::F64
            } else if matches!(out, DType::U8 | DType::U16 | DType::U32 | DType::U64) {
                DType::U64
            } else {
                DType::I64
            };
            match ra.acc {
                Some((a, aspan)) => {
                    // `bool` (0 or 1) fits every numeric accumulator, as in the promotion
                    // table (`bool` with `i8` is `i8`).
                    let input = if xd == DType::Bool { DType::U8 } else { xd };
                    let fits = if xd == DType::Bool {
                        a != DType::Bool
                    } else {
                        xd.fits_in(a)
                    };
                    if !fits {
                        self.errors.push(
                            aspan,
                            format!(
                                "`acc = {}` is narrower than the input dtype `{}`: the accumulator must hold every input value\nhelp: use `acc = {}` or wider",
                                a.name(),
                                xd.name(),
                                crate::dtype::promotion_hint(input, input).unwrap_or(input).name()
                            ),
                        );
                        return None;
                    }
                    if (name == "mean" || float_reduction(op)) && !a.is_float() {
                        self.errors.push(
                            aspan,
                            format!(
                                "`{name}` accumulates in a float; `acc = {}` is not one",
                                a.name()
                            ),
                        );
                        return None;
                    }
                    a
                }
                None => default,
            }
        } else {
            xd
        };
        Some((out, acc))
    }

    fn check_reduction(&mut self, op: &TensorOp, span: Span, x: NodeId, ra: &ReduceArgs) -> Typed {
        let name = op.name;
        let xd = self.node(x).dtype;
        let Some(mut axes) = self.reduction_axes(name, x, ra) else {
            return Typed::Poison;
        };
        if !self.reduction_applies(op, span, x, &axes, ra) {
            return Typed::Poison;
        }
        let Some((out, acc)) = self.reduction_dtypes(op, xd, ra) else {
            return Typed::Poison;
        };

        let result = self.reduction_value(name, x, &mut axes, ra, acc, out);
        let result = if ra.keepdims {
            result
        } else {
            let kept = self.node(result).dims.clone();
            let dropped = self.drop_axes(result, &axes);
            if dropped != result {
                self.dropped_axes.insert(dropped, (op.name, kept));
            }
            dropped
        };
        if self.node(result).dtype != xd && ra.dtype.is_none() {
            let rule = match name {
                "mean" => "`mean` of an integer or `bool` input gives `f64`".to_string(),
                "any" | "all" => format!("`{name}` gives `bool`"),
                "argmax" | "argmin" => format!("`{name}` gives `i64` indices"),
                _ => format!(
                    "`{name}` of `{}` gives `{}` (Theano's rule: signed integers and `bool` widen to `i64`, unsigned to `u64`)",
                    xd.name(),
                    self.node(result).dtype.name()
                ),
            };
            let fix = if takes_dtypes(op) {
                format!("; `{name}(…, dtype = …)` chooses the output dtype")
            } else {
                String::new()
            };
            self.dtype_notes.insert(result, format!("{rule}{fix}"));
        }
        Typed::Strong(result)
    }

    /// Whether reduction `op` applies to `x` over `axes`: a float reduction of a float, one
    /// axis for `argmax`/`argmin`, and for `max`/`min`/`argmax`/`argmin` no empty axis (a
    /// symbolic one is checked at call entry: recorded in `nonempty`) and no `bool`
    /// `max`/`min`. Reports why not.
    fn reduction_applies(
        &mut self,
        op: &TensorOp,
        span: Span,
        x: NodeId,
        axes: &[usize],
        ra: &ReduceArgs,
    ) -> bool {
        let name = op.name;
        let xd = self.node(x).dtype;
        let dims = self.node(x).dims.clone();
        if float_reduction(op) && !xd.is_float() {
            self.errors.push(span, format!("`{name}` is not defined for `{}`: it takes float dtypes\nhelp: cast first: `{name}(x as f32, …)`", xd.name()));
            return false;
        }
        let is_arg = matches!(name, "argmax" | "argmin");
        if is_arg && ra.axis_is_list {
            self.errors.push(
                ra.axis_span.unwrap_or(span),
                format!("`{name}` takes one axis (or none, for the flattened index), not a list"),
            );
            return false;
        }
        if matches!(name, "max" | "min" | "argmax" | "argmin") {
            // A symbolic axis may be empty at run time: the call checks it at entry.
            let empty_op: &'static str = match name {
                "max" => "max",
                "min" => "min",
                "argmax" => "argmax",
                _ => "argmin",
            };
            for &a in axes {
                let d = &dims[a];
                if d.is_symbolic()
                    && !self
                        .graph
                        .nonempty
                        .iter()
                        .any(|(m, o)| m == d && *o == empty_op)
                {
                    self.graph.nonempty.push((d.clone(), empty_op));
                }
            }
            if let Some(&a) = axes.iter().find(|&&a| dims[a].is_static(0)) {
                self.errors.push(
                    span,
                    format!(
                        "`{name}` over axis {a} of {}{}: an empty axis has no {name}",
                        xd.name(),
                        dims_text(&dims)
                    ),
                );
                return false;
            }
            if xd == DType::Bool && matches!(name, "max" | "min") {
                let alt = if name == "max" { "any" } else { "all" };
                self.errors.push(
                    span,
                    format!("`{name}` is not defined for `bool`\nhelp: use `{alt}(…)`"),
                );
                return false;
            }
        }
        true
    }

    /// The node of reduction `name` of `x` over `axes` (all of them for a flattened
    /// `argmax`/`argmin`, written back), accumulated in `acc`, given as `out`.
    fn reduction_value(
        &mut self,
        name: &str,
        x: NodeId,
        axes: &mut Vec<usize>,
        ra: &ReduceArgs,
        acc: DType,
        out: DType,
    ) -> NodeId {
        let xd = self.node(x).dtype;
        let dims = self.node(x).dims.clone();
        match name {
            "sum" | "prod" | "reduce_l1" | "reduce_sum_square" | "mean" | "reduce_l2"
            | "reduce_log_sum" => {
                let xc = self.convert(x, acc);
                let term = match name {
                    "reduce_l1" => self.op_node("abs", &[xc]),
                    "reduce_sum_square" | "reduce_l2" => self.op_node("mul", &[xc, xc]),
                    _ => xc,
                };
                let kind = if name == "prod" {
                    ReduceKind::Prod
                } else {
                    ReduceKind::Sum
                };
                let r = self.reduce_node(term, kind, axes, acc);
                let r = match name {
                    "mean" => {
                        let reduced: Vec<Dim> = axes.iter().map(|&a| dims[a].clone()).collect();
                        let c = self.count_node(reduced, acc);
                        self.op_node("div", &[r, c])
                    }
                    "reduce_l2" => self.op_node("sqrt", &[r]),
                    "reduce_log_sum" => self.op_node("log", &[r]),
                    _ => r,
                };
                self.convert(r, out)
            }
            "reduce_log_sum_exp" => {
                // Stable: m + log(sum(exp(x - m))), with an infinite m replaced by 0 so
                // all -inf gives -inf and any +inf gives +inf.
                let xc = self.convert(x, acc);
                let m = self.reduce_node(xc, ReduceKind::Max, axes, acc);
                let inf = self.op_node("is_inf", &[m]);
                let zero = self.float_const(0.0, acc);
                let m_safe = self.add(
                    NodeKind::Select {
                        cond: inf,
                        a: zero,
                        b: m,
                    },
                    acc,
                    self.node(m).dims.clone(),
                );
                let d = self.op_node("sub", &[xc, m_safe]);
                let e = self.op_node("exp", &[d]);
                let s = self.reduce_node(e, ReduceKind::Sum, axes, acc);
                let l = self.op_node("log", &[s]);
                let r = self.op_node("add", &[l, m_safe]);
                self.convert(r, out)
            }
            "max" | "min" => {
                let kind = if name == "max" {
                    ReduceKind::Max
                } else {
                    ReduceKind::Min
                };
                self.reduce_node(x, kind, axes, xd)
            }
            "any" | "all" => {
                let xb = self.convert(x, DType::Bool);
                let kind = if name == "any" {
                    ReduceKind::Any
                } else {
                    ReduceKind::All
                };
                self.reduce_node(xb, kind, axes, DType::Bool)
            }
            "argmax" | "argmin" => {
                let xv = if xd == DType::Bool {
                    self.convert(x, DType::U8)
                } else {
                    x
                };
                let kind = if name == "argmax" {
                    ReduceKind::ArgMax
                } else {
                    ReduceKind::ArgMin
                };
                if ra.axes.is_none() {
                    *axes = (0..dims.len()).collect();
                }
                self.reduce_node(xv, kind, axes, DType::I64)
            }
            _ => unreachable!("every reduction name is handled"),
        }
    }

    /// `cumsum`/`cumprod` (ONNX `CumSum`; `cumprod` alike): one axis, required; the
    /// output and accumulator dtypes follow `sum`/`prod` (the scan runs in the
    /// accumulator, each result converted to the output dtype once).
    fn check_scan(&mut self, op: &TensorOp, span: Span, x: NodeId, ra: &ReduceArgs) -> Typed {
        let name = op.name;
        let Some(given) = &ra.axes else {
            self.errors.push(
                span,
                format!("`{name}` needs an axis: `{name}(x, axis = 0)`"),
            );
            return Typed::Poison;
        };
        if ra.axis_is_list || given.len() != 1 {
            self.errors.push(
                ra.axis_span.unwrap_or(span),
                format!("`{name}` scans one axis"),
            );
            return Typed::Poison;
        }
        if self.node(x).dims.is_empty() {
            self.errors
                .push(span, format!("`{name}` needs a tensor of rank 1 or more"));
            return Typed::Poison;
        }
        let Some(axes) = self.reduction_axes(name, x, ra) else {
            return Typed::Poison;
        };
        // The dtypes of `sum`/`prod` over the same input.
        let sum_op = ops::registry_row(if name == "cumsum" { "sum" } else { "prod" });
        let Some((out, acc)) = self.reduction_dtypes(sum_op, self.node(x).dtype, ra) else {
            return Typed::Poison;
        };
        let xa = self.convert(x, acc);
        let dims = self.node(x).dims.clone();
        let kind = if name == "cumsum" {
            ReduceKind::Sum
        } else {
            ReduceKind::Prod
        };
        let scan = self.add(
            NodeKind::Scan {
                input: xa,
                kind,
                axis: axes[0],
                exclusive: ra.exclusive,
                reverse: ra.reverse,
            },
            acc,
            dims,
        );
        Typed::Strong(self.convert(scan, out))
    }

    /// `softmax(x, axis = -1)`: `exp(x - max) / sum(exp(x - max))`, in the compute dtype
    /// (`f32` for half precision); `logsoftmax`: `(x - max) - log(sum(exp(x - max)))`.
    fn check_softmax(&mut self, name: &str, span: Span, x: NodeId, ra: &ReduceArgs) -> Typed {
        let xd = self.node(x).dtype;
        if !xd.is_float() {
            self.errors.push(span, format!("`{name}` is not defined for `{}`: it takes float dtypes\nhelp: cast first: `{name}(x as f32)`", xd.name()));
            return Typed::Poison;
        }
        let rank = self.node(x).dims.len() as i128;
        if ra.axis_is_list || ra.axes.as_ref().is_some_and(|a| a.len() != 1) {
            self.errors.push(
                ra.axis_span.unwrap_or(span),
                format!("`{name}` takes one axis"),
            );
            return Typed::Poison;
        }
        if rank == 0 {
            self.errors
                .push(span, format!("`{name}` needs a tensor of rank 1 or more"));
            return Typed::Poison;
        }
        let given = ReduceArgs {
            axes: Some(ra.axes.clone().unwrap_or_else(|| vec![(-1, span)])),
            ..ReduceArgs::default()
        };
        let Some(axes) = self.reduction_axes(name, x, &given) else {
            return Typed::Poison;
        };
        let c = xd.compute();
        let xc = self.convert(x, c);
        // The shift needs no NaN propagation and `x - shift` is never positive (see
        // `ReduceKind::MaxNoNan` and `ops::EXP_NONPOS`): the row's outputs are those of
        // `exp(x - max(x))`, NaN rows included.
        let m = self.reduce_node(xc, ReduceKind::MaxNoNan, &axes, c);
        // Softmax's row minimum, next to the max so that the lowering finds their passes
        // side by side and makes them one (`lower::fuse_sibling_reductions`). Only where the
        // division uses it: f32 lanes (f64's division has no test to skip), along the last
        // axis (rows in registers; along another axis the min would be a pass of its own,
        // and the division is the plain one).
        let rows = axes.len() == 1 && axes[0] as i128 == rank - 1;
        let lo = (name == "softmax" && c == DType::F32 && rows)
            .then(|| self.reduce_node(xc, ReduceKind::MinNoNan, &axes, c));
        let d = self.op_node("sub", &[xc, m]);
        let e = self.op_with_node(&ops::EXP_NONPOS, &[d]);
        let s = self.reduce_node(e, ReduceKind::Sum, &axes, c);
        let y = if name == "softmax" {
            // Whether the row's every `e` is at least e^-50 (> 2^-76, the division's fast
            // range; `ops::DIV_SOFTMAX`): x - max >= min - max >= -50 for every x of a row
            // without NaN (a row with one has a NaN sum, which the division tests itself).
            // Without the min, false: the division tests each vector.
            let in_range = match lo {
                Some(lo) => {
                    let spread = self.op_node("sub", &[lo, m]);
                    let bound = self.float_const(-50.0, c);
                    self.op_node("greater_equal", &[spread, bound])
                }
                None => self.add(
                    NodeKind::Const(ConstValue::Bool(false)),
                    DType::Bool,
                    Vec::new(),
                ),
            };
            self.op_with_node(&ops::DIV_SOFTMAX, &[e, s, in_range])
        } else {
            let l = self.op_node("log", &[s]);
            self.op_node("sub", &[d, l])
        };
        Typed::Strong(self.convert(y, xd))
    }
    /// The shape ops (`transpose`, `dimshuffle`, `expand_dims`, `squeeze`, `broadcast_to`,
    /// `reshape`) of `x` and the arguments after it (`rest`): a method each.
    fn check_shape_op(&mut self, name: &str, span: Span, x: NodeId, rest: &[Expr]) -> Typed {
        let dims = self.node(x).dims.clone();
        let dtype = self.node(x).dtype;
        let op = ShapeOp {
            name,
            span,
            x,
            rest,
            rank: dims.len() as i128,
            shown: format!("{}{}", dtype.name(), dims_text(&dims)),
            dims,
            dtype,
        };
        match name {
            "transpose" => self.shape_transpose(&op),
            "dimshuffle" => self.shape_dimshuffle(&op),
            "expand_dims" => self.shape_expand_dims(&op),
            "squeeze" => self.shape_squeeze(&op),
            "broadcast_to" | "reshape" => self.shape_broadcast_or_reshape(&op),
            _ => unreachable!("every shape op is handled"),
        }
    }

    /// `transpose(x, perm)`: a view with the axes permuted (reversed by default).
    fn shape_transpose(&mut self, op: &ShapeOp) -> Typed {
        let rank = op.rank;
        let rest = op.rest;
        let dims = &op.dims;
        let shown = &op.shown;
        if !op.expect_args(
            self,
            0..=1,
            "a tensor and optionally a permutation: `transpose(x, [1, 0])`",
        ) {
            return Typed::Poison;
        }
        let perm: Vec<usize> = if rest.is_empty() {
            (0..dims.len()).rev().collect()
        } else {
            let Some(items) = op.read_list(self, &rest[0], false) else {
                return Typed::Poison;
            };
            if items.len() != dims.len() {
                self.errors.push(
                    expr_span(&rest[0]),
                    format!(
                        "`transpose` of {shown} needs a permutation of {} axes, got {}",
                        dims.len(),
                        items.len()
                    ),
                );
                return Typed::Poison;
            }
            let mut perm = Vec::new();
            for (a, s) in items {
                let Some(n) = op.normalise(self, a.expect("no 'x'"), s, rank) else {
                    return Typed::Poison;
                };
                if perm.contains(&n) {
                    self.errors.push(
                        s,
                        format!("axis {n} is repeated: a permutation names each axis once"),
                    );
                    return Typed::Poison;
                }
                perm.push(n);
            }
            perm
        };
        let out_dims = perm.iter().map(|&a| dims[a].clone()).collect();
        op.view(self, perm.into_iter().map(Some).collect(), out_dims)
    }

    /// `dimshuffle(x, pattern)`: a view that permutes, drops (length 1) and inserts (`'x'`) axes.
    fn shape_dimshuffle(&mut self, op: &ShapeOp) -> Typed {
        let rank = op.rank;
        let rest = op.rest;
        let dims = &op.dims;
        let shown = &op.shown;
        if !op.expect_args(
            self,
            1..=1,
            "a tensor and a pattern: `dimshuffle(x, [1, 'x', 0])`",
        ) {
            return Typed::Poison;
        }
        let Some(items) = op.read_list(self, &rest[0], true) else {
            return Typed::Poison;
        };
        let mut map = Vec::new();
        let mut out_dims = Vec::new();
        for (a, s) in items {
            match a {
                None => {
                    map.push(None);
                    out_dims.push(Dim::Static(1));
                }
                Some(a) => {
                    let Some(n) = op.normalise(self, a, s, rank) else {
                        return Typed::Poison;
                    };
                    if map.contains(&Some(n)) {
                        self.errors.push(
                            s,
                            format!("axis {n} appears twice in the `dimshuffle` pattern"),
                        );
                        return Typed::Poison;
                    }
                    map.push(Some(n));
                    out_dims.push(dims[n].clone());
                }
            }
        }
        for (a, d) in dims.iter().enumerate() {
            if !d.is_static(1) && !map.contains(&Some(a)) {
                self.errors.push(
                    expr_span(&rest[0]),
                    format!("`dimshuffle` drops axis {a} of {shown}, whose size is {d}: only size-1 axes may be dropped"),
                );
                return Typed::Poison;
            }
        }
        op.view(self, map, out_dims)
    }

    /// `expand_dims(x, axis)`: a view with a new axis of length 1.
    fn shape_expand_dims(&mut self, op: &ShapeOp) -> Typed {
        let rank = op.rank;
        let rest = op.rest;
        let dims = &op.dims;
        if !op.expect_args(self, 1..=1, "a tensor and an axis: `expand_dims(x, 0)`") {
            return Typed::Poison;
        }
        let Some(a) = int_literal(&rest[0]) else {
            self.errors
                .push(expr_span(&rest[0]), "the axis is an integer literal");
            return Typed::Poison;
        };
        let Some(at) = op.normalise(self, a, rest[0].span(), rank + 1) else {
            return Typed::Poison;
        };
        let mut map: Vec<Option<usize>> = (0..dims.len()).map(Some).collect();
        map.insert(at, None);
        let mut out_dims = dims.clone();
        out_dims.insert(at, Dim::Static(1));
        op.view(self, map, out_dims)
    }

    /// `squeeze(x, axes)`: a view without the given axes of length 1 (by default every one).
    fn shape_squeeze(&mut self, op: &ShapeOp) -> Typed {
        let rank = op.rank;
        let rest = op.rest;
        let dims = &op.dims;
        let shown = &op.shown;
        if !op.expect_args(
            self,
            0..=1,
            "a tensor and optionally an axis or a list of axes",
        ) {
            return Typed::Poison;
        }
        let axes: Vec<usize> = if rest.is_empty() {
            (0..dims.len()).filter(|&a| dims[a].is_static(1)).collect()
        } else {
            let items: Vec<(i128, Span)> = if let Some(v) = int_literal(&rest[0]) {
                vec![(v, rest[0].span())]
            } else {
                let Some(items) = op.read_list(self, &rest[0], false) else {
                    return Typed::Poison;
                };
                items
                    .into_iter()
                    .map(|(a, s)| (a.expect("no 'x'"), s))
                    .collect()
            };
            let mut axes = Vec::new();
            for (a, s) in items {
                let Some(n) = op.normalise(self, a, s, rank) else {
                    return Typed::Poison;
                };
                if !dims[n].is_static(1) {
                    let note = if dims[n].is_symbolic() {
                        "\nnote: a symbolic dim is never squeezed, even when its size is 1 at run time; only a literal 1 is"
                    } else {
                        ""
                    };
                    self.errors.push(
                        s,
                        format!(
                            "`squeeze` of axis {n} of {shown}: its size is {}, not 1{note}",
                            dims[n]
                        ),
                    );
                    return Typed::Poison;
                }
                if !axes.contains(&n) {
                    axes.push(n);
                }
            }
            axes
        };
        let kept: Vec<usize> = (0..dims.len()).filter(|a| !axes.contains(a)).collect();
        let out_dims = kept.iter().map(|&a| dims[a].clone()).collect();
        op.view(self, kept.into_iter().map(Some).collect(), out_dims)
    }

    /// `broadcast_to(x, shape)` (a view) and `reshape(x, shape)`.
    fn shape_broadcast_or_reshape(&mut self, op: &ShapeOp) -> Typed {
        let (name, x, dtype) = (op.name, op.x, op.dtype);
        let rest = op.rest;
        let dims = &op.dims;
        let shown = &op.shown;
        let usage = if name == "reshape" {
            "a tensor and the new dims: `reshape(x, [2, 16])`"
        } else {
            "a tensor and the target dims: `broadcast_to(x, [4, 8])`"
        };
        if !op.expect_args(self, 1..=1, usage) {
            return Typed::Poison;
        }
        let Some(items) = self.read_target_dims(name, &rest[0]) else {
            return Typed::Poison;
        };
        if items.len() > 6 {
            self.errors
                .push(expr_span(&rest[0]), "tensors have rank 6 at most");
            return Typed::Poison;
        }
        let mut target: Vec<Dim> = Vec::new();
        let mut infer: Option<usize> = None;
        for (k, (item, s)) in items.iter().enumerate() {
            match item {
                TargetDim::Lit(-1) if name == "reshape" && infer.is_none() => {
                    infer = Some(k);
                    target.push(Dim::Static(1));
                }
                TargetDim::Lit(a) if *a < 0 => {
                    self.errors.push(
                        *s,
                        "a dimension is a non-negative integer (`reshape` allows one `-1`)",
                    );
                    return Typed::Poison;
                }
                TargetDim::Lit(a) => target.push(Dim::Static(*a as usize)),
                TargetDim::Name(n) => target.push(Dim::Named(n.clone())),
                TargetDim::Expr(p) => match Dim::from_poly(p.clone()) {
                    Ok(d) => target.push(d),
                    Err(v) => {
                        self.errors.push(
                            *s,
                            format!("a dimension is a non-negative integer; `{p}` is {v}"),
                        );
                        return Typed::Poison;
                    }
                },
            }
        }
        if name == "reshape" {
            let written: Vec<String> = items
                .iter()
                .map(|(item, _)| match item {
                    TargetDim::Lit(v) => v.to_string(),
                    TargetDim::Name(n) => n.clone(),
                    TargetDim::Expr(p) => p.to_string(),
                })
                .collect();
            let written = format!("[{}]", written.join(", "));
            return match reshape_target(dims, target, infer, &written) {
                Ok(target) => {
                    Typed::Strong(self.add(NodeKind::Reshape { input: x }, dtype, target))
                }
                Err(message) => {
                    self.errors
                        .push(expr_span(&rest[0]), message.replace("{shown}", shown));
                    Typed::Poison
                }
            };
        }
        match broadcast(dims, &target) {
            Ok(b) if b == target => {
                let lead = target.len() - dims.len();
                let map = (0..target.len())
                    .map(|k| {
                        if k < lead || dims[k - lead] != target[k] {
                            None
                        } else {
                            Some(k - lead)
                        }
                    })
                    .collect();
                op.view(self, map, target)
            }
            _ => {
                let named = dims.iter().chain(&target).any(Dim::is_symbolic);
                self.errors.push(
                    expr_span(&rest[0]),
                    format!(
                        "cannot broadcast {shown} to {}: aligned from the right, each dim must equal the target's or be 1{}",
                        dims_text(&target),
                        if named { "\nnote: symbolic dims match only the same name; a name never stretches to another name or size" } else { "" }
                    ),
                );
                Typed::Poison
            }
        }
    }
}
