//! AST → typed graph. Applies the promotion, weak-literal, broadcasting and op-typing
//! rules; accumulates every error (never stops at the first) and never emits tokens.
//! An expression that failed to check becomes `Typed::Poison`, which later rules accept
//! silently, so one mistake is reported once.

use proc_macro2::Span;
use std::collections::HashMap;

use crate::ast::{
    expr_text, operand_text, BinOp, Expr, GraphFn, LitValue, Outputs, ParamType, ReturnType, UnOp,
};
use crate::dtype::{promote, promotion_hint, DType, PromotionError};
use crate::ir::{ConstValue, Node, NodeId, NodeKind, TypedGraph};
use crate::ops::{self, Op, Typing};
use crate::shape::{aligned_picture, broadcast, dims_text, Dim};
use crate::spellings::OTHER_LIBRARY_NAMES;

/// Collects errors, and warnings; `check` returns them all at once.
#[derive(Default)]
pub struct Errors {
    list: Vec<syn::Error>,
    warnings: Vec<Warning>,
}

/// A warning the driver emits as a real, `#[allow(deprecated)]`-able compiler warning.
pub struct Warning {
    pub span: Span,
    /// The marker's name: what rustc prints as the "deprecated constant".
    pub marker: String,
    pub message: String,
}

impl Errors {
    pub fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        self.list.push(syn::Error::new(span, message));
    }

    pub fn push_error(&mut self, error: syn::Error) {
        self.list.push(error);
    }

    pub fn warn(&mut self, span: Span, marker: String, message: String) {
        self.warnings.push(Warning {
            span,
            marker,
            message,
        });
    }

    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// All errors combined into one, or `None`.
    pub fn combined(self) -> Option<syn::Error> {
        let mut iter = self.list.into_iter();
        let mut first = iter.next()?;
        for e in iter {
            first.combine(e);
        }
        Some(first)
    }
}

/// A weak (untyped) literal value after compile-time folding.
#[derive(Clone, Debug)]
enum Weak {
    Int(i128),
    Float(f64, Option<String>),
    Bool(bool),
}

impl Weak {
    fn describe(&self) -> String {
        match self {
            Weak::Int(v) => format!("integer literal `{v}`"),
            Weak::Float(v, text) => format!(
                "float literal `{}`",
                text.clone().unwrap_or_else(|| format!("{v:?}"))
            ),
            Weak::Bool(b) => format!("bool literal `{b}`"),
        }
    }
}

#[derive(Clone, Debug)]
enum Typed {
    Strong(NodeId),
    Weak(Weak, Span),
    /// Already reported.
    Poison,
}

/// The type a declared output or parameter has, in DSL notation.
pub fn type_text(dtype: DType, dims: &[Dim]) -> String {
    format!("{}{}", dtype.name(), dims_text(dims))
}

mod attention;
mod composites;
mod conv_gemm;
mod einsum;
mod indexing;
mod losses;
mod matmul;
mod pool_kernel;
mod positions;
mod ranking;
mod reorg;
mod resize_kernel;
mod tensor_ops;
mod tuples;
mod vision;

/// The most elements a value may hold (tensor-core's `bind::MAX_ELEMENTS`).
const MAX_ELEMENTS: usize = 1 << 53;

struct Checker<'a> {
    errors: &'a mut Errors,
    graph: TypedGraph,
    scope: HashMap<String, Typed>,
    /// Parameter name → how often it is read, for the unused-parameter warning.
    param_names: Vec<String>,
    /// Why a node has the dtype it has, where a rule changed it (`sum` of `i32` is `i64`),
    /// for output-mismatch messages.
    dtype_notes: HashMap<NodeId, String>,
    /// The dim names of the inputs' types: the names a graph may use.
    dim_names: Vec<String>,
    /// Integer `/` and `%` nodes, with their operator span and operands, for the warning
    /// when such a result is promoted to a float.
    int_divisions: HashMap<NodeId, (Span, Expr, Expr, &'static str)>,
    /// Reductions that dropped their axes (`keepdims = false`): the result node, the
    /// function's name and the dims with the axes kept, for the hint when such a result
    /// fails to broadcast back against its input (`x - mean(x, axis = 1)`).
    dropped_axes: HashMap<NodeId, (&'static str, Vec<Dim>)>,
    /// The `let` being checked, when its value is one call of names (A-normal form), and
    /// what the composite ops among such lets were built as (`check_vision`): for `derive`,
    /// which differentiates a composite through the expression it is.
    expanding: Option<String>,
    expansions: Expansions,
}

/// `let` name → the expression a composite op at that `let` was built as, over the
/// placeholder names `__tg_vision{k}` for its `k`-th argument.
pub type Expansions = HashMap<String, Expr>;

/// Checks one graph function. Returns the typed graph when there were no errors.
pub fn check_graph(f: &GraphFn, errors: &mut Errors) -> Option<TypedGraph> {
    check_graph_scoped(f, errors).map(|(graph, _)| graph)
}

/// The dtype and dims of every tensor-valued name of a checked graph (parameters and
/// `let`s; a `let` bound twice has its last value): what `derive` needs to write a graph's
/// derivatives.
pub type ScopeTypes = HashMap<String, (DType, Vec<Dim>)>;

/// `check_graph`, with the types of the names in scope at the end of the body.
pub fn check_graph_scoped(f: &GraphFn, errors: &mut Errors) -> Option<(TypedGraph, ScopeTypes)> {
    check_graph_expanded(f, errors).map(|(graph, types, _)| (graph, types))
}

/// `check_graph_scoped`, with the expressions the composite ops of one-call `let`s were
/// built as.
pub fn check_graph_expanded(
    f: &GraphFn,
    errors: &mut Errors,
) -> Option<(TypedGraph, ScopeTypes, Expansions)> {
    let mut checker = Checker {
        errors,
        graph: TypedGraph::default(),
        scope: HashMap::new(),
        param_names: Vec::new(),
        dtype_notes: HashMap::new(),
        dim_names: Vec::new(),
        int_divisions: HashMap::new(),
        dropped_axes: HashMap::new(),
        expanding: None,
        expansions: HashMap::new(),
    };
    checker.check_params(f);
    check_output_names(f, checker.errors);
    check_input_names(f, checker.errors);
    checker.check_lets(f);
    checker.check_outputs(f);
    checker.check_memory(f);
    if !checker.errors.is_empty() {
        return None;
    }
    let nodes = &checker.graph.nodes;
    let types = checker
        .scope
        .iter()
        .filter_map(|(name, typed)| match typed {
            Typed::Strong(node) => Some((
                name.clone(),
                (nodes[*node].dtype, nodes[*node].dims.clone()),
            )),
            Typed::Weak(..) | Typed::Poison => None,
        })
        .collect();
    Some((checker.graph, types, checker.expansions))
}

impl Checker<'_> {
    /// The body's `let`s, each bound in scope to its value (a tuple `let` to its parts); a
    /// `let` of one call whose arguments are names records the expression a composite op
    /// was built as (`expanding`).
    fn check_lets(&mut self, f: &GraphFn) {
        for binding in &f.lets {
            match &binding.tuple {
                None => {
                    let one_call = matches!(&binding.value, Expr::Call { args, .. }
                        if args.iter().all(|a| matches!(a, Expr::Var(_))));
                    self.expanding = one_call.then(|| binding.name.to_string());
                    let value = self.check_expr(&binding.value);
                    self.expanding = None;
                    self.scope.insert(binding.name.to_string(), value);
                }
                Some(names) => {
                    let parts = self.check_tuple_expr(&binding.value, Some(names.len()));
                    for (k, name) in names.iter().enumerate() {
                        let part = parts.as_ref().map_or(Typed::Poison, |p| p[k].clone());
                        self.scope.insert(name.to_string(), part);
                    }
                }
            }
        }
    }

    /// The outputs, each checked against the declared return type; a type that differs is
    /// an error with the dtype's note and a hint (`output_type_message`); an output that is
    /// `Poison` with no error reported is an internal error.
    fn check_outputs(&mut self, f: &GraphFn) {
        let declared: Option<Vec<&ParamType>> = f.ret.as_ref().map(|r| match r {
            ReturnType::Single(t) => vec![t],
            ReturnType::Tuple(list) => list.iter().collect(),
        });
        // A tuple-valued op as the whole body (`split(x, [2, 3])`): its parts are the outputs.
        let (exprs, parts): (Vec<&Expr>, Option<Vec<Typed>>) = match &f.outputs {
            Outputs::Single(e) if tuples::is_tuple_call(e) => {
                let want = declared.as_ref().map(Vec::len);
                let parts = self
                    .check_tuple_expr(e, want)
                    .unwrap_or_else(|| vec![Typed::Poison; want.unwrap_or(1)]);
                (vec![e; parts.len()], Some(parts))
            }
            Outputs::Single(e) => (vec![e], None),
            Outputs::Tuple(list, _) => (list.iter().collect(), None),
        };
        if let Some(declared) = &declared {
            if declared.len() != exprs.len() {
                let span = match &f.outputs {
                    Outputs::Single(e) => e.span(),
                    Outputs::Tuple(_, span) => *span,
                };
                self.errors.push(
                    span,
                    format!(
                        "the graph declares {} output{} but its body gives {}",
                        declared.len(),
                        if declared.len() == 1 { "" } else { "s" },
                        exprs.len()
                    ),
                );
            }
        }
        let mut silent_poison = None;
        for (i, expr) in exprs.iter().enumerate() {
            let typed = match &parts {
                Some(parts) => parts[i].clone(),
                None => self.check_expr(expr),
            };
            let node = match typed {
                Typed::Strong(node) => node,
                Typed::Weak(weak, span) => {
                    self.errors.push(
                        span,
                        format!(
                            "a graph output needs a dtype, but this output is only an untyped {}\n\
                             help: give it a dtype with a cast, e.g. `(… as f32)`, or combine it with a tensor",
                            weak.describe()
                        ),
                    );
                    continue;
                }
                Typed::Poison => {
                    silent_poison = silent_poison.or(Some(expr.span()));
                    continue;
                }
            };
            let node_ref = &self.graph.nodes[node];
            if let Some(decl) = declared.as_ref().and_then(|d| d.get(i)) {
                let decl_dims = decl.dims.clone().unwrap_or_default();
                let unbound = decl_dims
                    .iter()
                    .flat_map(Dim::names)
                    .any(|n| !self.dim_names.contains(&n));
                if unbound {
                    // Reported by `check_output_names`; a type comparison would only repeat it.
                    continue;
                }
                if node_ref.dtype != decl.dtype || node_ref.dims != decl_dims {
                    let message = self.output_type_message(expr, node, decl, &decl_dims);
                    self.errors.push(expr.span(), message);
                    continue;
                }
            }
            self.graph.outputs.push(node);
        }
        if let (true, Some(span)) = (self.errors.is_empty(), silent_poison) {
            // A rule gave up (`Poison`) without saying why: never emit a graph that lacks an
            // output (its buffer would come back unwritten). A bug of the checker, reported as
            // one rather than as wrong results.
            self.errors.push(
                span,
                "internal error of `graph!`: this output failed to check but no rule said why; please report this graph",
            );
        }
    }

    /// The error of an output whose type differs from the declared `decl`: both types, the
    /// note of how the dtype came about, and a hint (a reduction's `dtype =`, or a cast).
    fn output_type_message(
        &self,
        expr: &Expr,
        node: NodeId,
        decl: &ParamType,
        decl_dims: &[Dim],
    ) -> String {
        let node_ref = &self.graph.nodes[node];
        let found = type_text(node_ref.dtype, &node_ref.dims);
        let expected = type_text(decl.dtype, decl_dims);
        let mut message = format!(
            "mismatched output type: the graph declares `{expected}` but this computes `{found}`"
        );
        if node_ref.dtype != decl.dtype {
            if let Some(note) = self.dtype_notes.get(&node) {
                message.push_str(&format!("\nnote: {note}"));
            }
        }
        let reduction = match expr {
            Expr::Call { func, .. }
                if ops::TENSOR_OPS
                    .iter()
                    .any(|t| *func == t.name && t.params.iter().any(|p| p.name == "dtype")) =>
            {
                Some(func.to_string())
            }
            _ => None,
        };
        if let (Some(func), true) = (&reduction, node_ref.dtype != decl.dtype) {
            // A cast of the narrow result would keep its rounding; `dtype =`
            // accumulates and returns the declared dtype (docs/language.md, "Diagnostics").
            let why = if node_ref.dtype.fits_in(decl.dtype) && decl.dtype.is_float() {
                format!(
                    "; casting the result would keep the `{}` rounding",
                    node_ref.dtype.name()
                )
            } else {
                String::new()
            };
            message.push_str(&format!(
                "\nhelp: ask the reduction for it: `{func}(…, dtype = {})`{why}",
                decl.dtype.name(),
            ));
        } else if node_ref.dtype != decl.dtype && node_ref.dims == decl_dims {
            message.push_str(&format!(
                "\nhelp: cast the result: `{}`",
                cast_text(expr, decl.dtype)
            ));
        }
        message
    }

    /// Refuses a graph of literal dims with a value of more than 2^53 elements (the reason
    /// is the comment below).
    fn check_memory(&mut self, f: &GraphFn) {
        // Every value of literal dims holds at most 2^53 elements (tensor-core's `MAX_ELEMENTS`,
        // which call entry applies to the sizes with names): a graph with only literal dims
        // cannot fail at run time, so a value no memory can hold (`sum(x, axis = 0)` of
        // `x: f32[0, 2^61]` has 2^61 elements) is refused here rather than panicking when its
        // buffer is allocated (issue 37, item 2).
        if self.errors.is_empty() {
            let past_memory = |n: &crate::ir::Node| {
                crate::shape::static_len(&n.dims).is_some_and(|len| len > MAX_ELEMENTS)
            };
            // An output names itself in the graph's notation; any other value by its dims.
            let nodes = &self.graph.nodes;
            let output = self
                .graph
                .outputs
                .iter()
                .map(|&o| &nodes[o])
                .find(|n| past_memory(n));
            let what = match (output, nodes.iter().find(|n| past_memory(n))) {
                (Some(node), _) => Some(format!(
                    "an output of this graph, `{}`,",
                    type_text(node.dtype, &node.dims)
                )),
                (None, Some(node)) => Some(format!(
                    "a value inside this graph, shaped {},",
                    dims_text(&node.dims)
                )),
                (None, None) => None,
            };
            if let Some(what) = what {
                self.errors.push(
                    f.name.span(),
                    format!("{what} has more than 2^53 elements: no memory can hold it"),
                );
            }
        }
    }
}

/// Every name of an input gets a size at call entry: from an axis declared as the name
/// itself (`f32[N]`), or solved from an axis `c·N + rest` once the names of `rest` are
/// bound (`f32[2 * N + 1]`, `f32[N + M]` with `M` bound elsewhere). A name that stands
/// only inside expressions that cannot give it (`(N + 1) / 2`, `N * M`, `max(N, M)`) has
/// no size.
fn check_input_names(f: &GraphFn, errors: &mut Errors) {
    let dims: Vec<(&Dim, Span)> = f
        .params
        .iter()
        .filter_map(|p| {
            p.ty.dims
                .as_ref()
                .map(|d| d.iter().zip(p.ty.dim_spans.iter().copied()))
        })
        .flatten()
        .collect();
    let mut bound: Vec<String> = dims
        .iter()
        .filter_map(|(d, _)| match d {
            Dim::Named(n) => Some(n.clone()),
            _ => None,
        })
        .collect();
    loop {
        let before = bound.len();
        for (d, _) in &dims {
            let open: Vec<String> = d
                .names()
                .into_iter()
                .filter(|n| !bound.contains(n))
                .collect();
            if let ([name], Dim::Expr(p)) = (open.as_slice(), d) {
                if p.affine_coefficient(name).is_some() {
                    bound.push(name.clone());
                }
            }
        }
        if bound.len() == before {
            break;
        }
    }
    let mut reported = Vec::new();
    for (d, span) in &dims {
        for name in d.names() {
            if bound.contains(&name) || reported.contains(&name) {
                continue;
            }
            errors.push(
                *span,
                format!(
                    "the dim name `{name}` cannot get a size from the input dim `{d}`: call entry solves a name only from an axis `c * {name} + k` (the other names of `k` bound elsewhere)\n\
                     help: give `{name}` plainly on an axis of some input, or declare this axis in that form"
                ),
            );
            reported.push(name);
        }
    }
}

/// Every name in an output type appears in some input: the call binds names from the
/// inputs only, so an output's size must follow from them.
fn check_output_names(f: &GraphFn, errors: &mut Errors) {
    let bound: Vec<String> = f
        .params
        .iter()
        .filter_map(|p| p.ty.dims.as_ref())
        .flatten()
        .flat_map(Dim::names)
        .collect();
    let declared: Vec<&ParamType> = match &f.ret {
        Some(ReturnType::Single(t)) => vec![t],
        Some(ReturnType::Tuple(list)) => list.iter().collect(),
        None => Vec::new(),
    };
    for ty in declared {
        let Some(dims) = &ty.dims else { continue };
        for (dim, span) in dims.iter().zip(&ty.dim_spans) {
            let missing: Vec<String> = dim
                .names()
                .into_iter()
                .filter(|n| !bound.contains(n))
                .collect();
            if !missing.is_empty() {
                let what = match dim {
                    Dim::Expr(_) => format!("the name `{}` of the output dim `{dim}`", missing[0]),
                    _ => format!("the output dim `{dim}`"),
                };
                let inputs: Vec<String> = f
                    .params
                    .iter()
                    .filter_map(|p| {
                        p.ty.dims
                            .as_ref()
                            .map(|d| format!("{}: {}", p.name, type_text(p.ty.dtype, d)))
                    })
                    .collect();
                errors.push(
                    *span,
                    format!(
                        "{what} appears in no input, so its size is unknown when the graph is called\n\
                         note: names are bound from the input shapes alone; the inputs are ({})\n\
                         help: use a name an input has, or a literal size",
                        inputs.join(", ")
                    ),
                );
            }
        }
    }
}

/// Parameter names read nowhere in the body, for the unused-parameter warning.
pub fn unused_params(f: &GraphFn) -> Vec<&syn::Ident> {
    let mut used = std::collections::HashSet::new();
    fn walk(e: &Expr, used: &mut std::collections::HashSet<String>) {
        match e {
            Expr::Var(i) => {
                used.insert(i.to_string());
            }
            Expr::Lit(..) => {}
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => walk(expr, used),
            Expr::Binary { lhs, rhs, .. } => {
                walk(lhs, used);
                walk(rhs, used);
            }
            Expr::Call { args, named, .. } => {
                for a in args {
                    walk(a, used);
                }
                for n in named {
                    walk(&n.value, used);
                }
            }
        }
    }
    for l in &f.lets {
        walk(&l.value, &mut used);
    }
    match &f.outputs {
        Outputs::Single(e) => walk(e, &mut used),
        Outputs::Tuple(list, _) => list.iter().for_each(|e| walk(e, &mut used)),
    }
    // `_x`, as in Rust, is a parameter meant to be unused.
    f.params
        .iter()
        .filter(|p| {
            let name = p.name.to_string();
            !name.starts_with('_') && !used.contains(&name)
        })
        .map(|p| &p.name)
        .collect()
}

impl Checker<'_> {
    fn add(&mut self, kind: NodeKind, dtype: DType, dims: Vec<Dim>) -> NodeId {
        self.graph.nodes.push(Node { kind, dtype, dims });
        self.graph.nodes.len() - 1
    }

    fn check_params(&mut self, f: &GraphFn) {
        for (index, param) in f.params.iter().enumerate() {
            let name = param.name.to_string();
            if self.param_names.contains(&name) {
                self.errors.push(
                    param.name.span(),
                    format!("the parameter `{name}` is declared twice"),
                );
            }
            self.param_names.push(name.clone());
            for n in param.ty.dims.iter().flatten().flat_map(Dim::names) {
                if !self.dim_names.contains(&n) {
                    self.dim_names.push(n);
                }
            }
            if let Some(dims) = &param.ty.dims {
                let literal = dims
                    .iter()
                    .filter_map(Dim::as_static)
                    .try_fold(1usize, |a, d| a.checked_mul(d));
                if literal.is_none() {
                    self.errors.push(
                        param.ty.span,
                        format!("the literal dims of `{name}` multiply past the largest usize: no buffer can hold them"),
                    );
                }
            }
            let node = match &param.ty.dims {
                Some(dims) => self.add(
                    NodeKind::Input { param: index },
                    param.ty.dtype,
                    dims.clone(),
                ),
                None => self.add(
                    NodeKind::Scalar { param: index },
                    param.ty.dtype,
                    Vec::new(),
                ),
            };
            self.scope.entry(name).or_insert(Typed::Strong(node));
        }
    }

    fn node(&self, id: NodeId) -> &Node {
        &self.graph.nodes[id]
    }

    fn check_expr(&mut self, expr: &Expr) -> Typed {
        match expr {
            Expr::Var(ident) => {
                let name = ident.to_string();
                if let Some(t) = self.scope.get(&name) {
                    return t.clone();
                }
                // `inf` and `nan` are weak float literals (unless a binding shadows them):
                // `where(mask, s, -inf)` for a masked softmax.
                match name.as_str() {
                    "inf" => {
                        return Typed::Weak(Weak::Float(f64::INFINITY, Some(name)), ident.span())
                    }
                    "nan" => return Typed::Weak(Weak::Float(f64::NAN, Some(name)), ident.span()),
                    _ => {}
                }
                let mut message = format!("cannot find `{name}` in this graph");
                let lower = name.to_ascii_lowercase();
                if matches!(lower.as_str(), "inf" | "infinity" | "nan" | "neg_infinity") {
                    // Other languages' spellings of the special floats (`INFINITY`, `Inf`,
                    // `NaN`, `NEG_INFINITY`).
                    let literal = match lower.as_str() {
                        "nan" => "nan",
                        "neg_infinity" => "-inf",
                        _ => "inf",
                    };
                    message.push_str(&format!(
                        "\nhelp: write `{literal}`, a float literal that takes the other operand's dtype"
                    ));
                } else if ops::function(&name).is_some() || name == "where" {
                    message.push_str(&format!(
                        "\nhelp: `{name}` is a function: call it as `{name}(…)`"
                    ));
                } else if let Some(close) = self.closest_variable(&name) {
                    message.push_str(&format!(
                        "\nhelp: a parameter or binding with a similar name exists: `{close}`"
                    ));
                } else {
                    message.push_str(&format!(
                        "\nnote: a graph sees only its parameters and `let` bindings, not Rust variables outside it\n\
                         help: to use a Rust value, add a scalar parameter (`{name}: f32`) and pass it when calling the graph"
                    ));
                }
                self.errors.push(ident.span(), message);
                Typed::Poison
            }
            Expr::Lit(value, span) => Typed::Weak(
                match value {
                    LitValue::Int(v) => match i128::try_from(*v) {
                        Ok(v) => Weak::Int(v),
                        Err(_) => {
                            self.errors
                                .push(*span, "integer literal is too large for any dtype");
                            return Typed::Poison;
                        }
                    },
                    LitValue::Float(v, text) => Weak::Float(*v, Some(text.clone())),
                    LitValue::Bool(b) => Weak::Bool(*b),
                    LitValue::Char(c) => {
                        self.errors.push(
                            *span,
                            format!("a char literal `'{c}'` is only meaningful in a `dimshuffle` pattern, as `'x'`"),
                        );
                        return Typed::Poison;
                    }
                    LitValue::Str(_) => {
                        self.errors.push(
                            *span,
                            "a string is only the subscripts of `einsum`: `einsum(\"ij,jk->ik\", a, b)`",
                        );
                        return Typed::Poison;
                    }
                },
                *span,
            ),
            Expr::Unary { op, op_span, expr } => {
                let operand = self.check_expr(expr);
                self.check_unary(*op, *op_span, operand, expr)
            }
            Expr::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                let l = self.check_expr(lhs);
                let r = self.check_expr(rhs);
                self.check_binary(
                    ops::binary_operator(*op),
                    Some(*op),
                    *op_span,
                    l,
                    r,
                    [lhs, rhs],
                )
            }
            Expr::Cast {
                expr, as_span, to, ..
            } => {
                let inner = self.check_expr(expr);
                self.check_cast(inner, *to, *as_span, expr)
            }
            Expr::Call {
                func, args, named, ..
            } => self.check_call(func, args, named),
        }
    }

    fn closest_variable(&self, name: &str) -> Option<String> {
        self.scope
            .keys()
            .filter(|k| {
                let d = ops::edit_distance(k, name);
                d <= (k.len().max(name.len()) / 3).max(1)
            })
            .min_by_key(|k| ops::edit_distance(k, name))
            .cloned()
    }

    fn check_unary(&mut self, op: UnOp, span: Span, operand: Typed, expr: &Expr) -> Typed {
        match operand {
            Typed::Poison => Typed::Poison,
            Typed::Weak(w, lit_span) => match (op, w) {
                (UnOp::Neg, Weak::Int(v)) => {
                    Typed::Weak(Weak::Int(-v), span.join(lit_span).unwrap_or(span))
                }
                (UnOp::Neg, Weak::Float(v, text)) => Typed::Weak(
                    Weak::Float(-v, text.map(|t| format!("-{t}"))),
                    span.join(lit_span).unwrap_or(span),
                ),
                (UnOp::Not, Weak::Bool(b)) => Typed::Weak(Weak::Bool(!b), span),
                (_, w) => {
                    self.errors.push(
                        span,
                        format!(
                            "cannot apply `{}` to the untyped {}\nhelp: give it a dtype first, e.g. `(… as i32)`",
                            if op == UnOp::Neg { "-" } else { "!" },
                            w.describe()
                        ),
                    );
                    Typed::Poison
                }
            },
            Typed::Strong(node) => {
                self.apply_unary(ops::unary_operator(op), span, node, Some(op), expr)
            }
        }
    }

    fn apply_unary(
        &mut self,
        op: &'static Op,
        span: Span,
        node: NodeId,
        operator: Option<UnOp>,
        operand: &Expr,
    ) -> Typed {
        let dtype = self.node(node).dtype;
        if !op.typing.accepts(dtype) {
            let what = match operator {
                Some(UnOp::Neg) => "unary `-`".to_string(),
                Some(UnOp::Not) => "`!`".to_string(),
                None => format!("`{}`", op.name),
            };
            let rewrite = |to: DType| match operator {
                Some(UnOp::Neg) => format!("-({})", cast_text(operand, to)),
                Some(UnOp::Not) => format!("!({})", cast_text(operand, to)),
                None => format!("{}({})", op.name, cast_text(operand, to)),
            };
            let to = hint_dtype(
                op.typing,
                dtype,
                if operator == Some(UnOp::Neg) {
                    Some(BinOp::Sub)
                } else {
                    None
                },
            );
            let message =
                not_defined_message(&what, op.typing, dtype, |t| rewrite(to.unwrap_or(t)));
            self.errors.push(span, message);
            return Typed::Poison;
        }
        let dims = self.node(node).dims.clone();
        Typed::Strong(self.add(
            NodeKind::Op {
                op,
                args: vec![node],
            },
            op.typing.result(dtype),
            dims,
        ))
    }

    /// Two operands, at most one a weak literal: the literal takes the other's dtype (checked).
    /// `None` once an error is reported; poison or two literals are the caller's cases.
    fn strong_pair(&mut self, a: Typed, b: Typed, exprs: [&Expr; 2]) -> Option<(NodeId, NodeId)> {
        match (a, b) {
            (Typed::Strong(a), Typed::Weak(w, ws)) => {
                let dtype = self.node(a).dtype;
                self.materialize(&w, ws, dtype, Some(exprs[0]))
                    .map(|b| (a, b))
            }
            (Typed::Weak(w, ws), Typed::Strong(b)) => {
                let dtype = self.node(b).dtype;
                self.materialize(&w, ws, dtype, Some(exprs[1]))
                    .map(|a| (a, b))
            }
            (Typed::Strong(a), Typed::Strong(b)) => Some((a, b)),
            _ => None,
        }
    }

    /// MAX's promotion of two operands, or an error on `span` naming both dtypes.
    fn promote_or_report(
        &mut self,
        span: Span,
        what: &str,
        a: NodeId,
        b: NodeId,
        exprs: [&Expr; 2],
    ) -> Option<DType> {
        let (ad, bd) = (self.node(a).dtype, self.node(b).dtype);
        match promote(ad, bd) {
            Ok(d) => Some(d),
            Err(e) => {
                self.errors
                    .push(span, promotion_message(what, ad, bd, e, exprs));
                None
            }
        }
    }

    /// Binary operators and two-argument functions: promotion, weak literals, broadcasting.
    fn check_binary(
        &mut self,
        op: &'static Op,
        operator: Option<BinOp>,
        span: Span,
        l: Typed,
        r: Typed,
        exprs: [&Expr; 2],
    ) -> Typed {
        let what = match operator {
            Some(o) => format!("`{}`", o.symbol()),
            None => format!("`{}`", op.name),
        };
        let (l, r) = match (l, r) {
            (Typed::Poison, _) | (_, Typed::Poison) => return Typed::Poison,
            (Typed::Weak(a, sa), Typed::Weak(b, sb)) => {
                return self.fold(op, operator, span, a, sa, b, sb)
            }
            (l, r) => match self.strong_pair(l, r, exprs) {
                Some(pair) => pair,
                None => return Typed::Poison,
            },
        };
        let Some(dtype) = self.promote_or_report(span, &what, l, r, exprs) else {
            return Typed::Poison;
        };
        if !op.typing.accepts(dtype) {
            // Name the operand whose dtype the op refuses (a literal took its dtype).
            let rewrite = |to: DType| match operator {
                Some(o) => format!(
                    "{} {} {}",
                    operand_cast(exprs[0], to),
                    o.symbol(),
                    operand_cast(exprs[1], to)
                ),
                None => format!(
                    "{}({}, {})",
                    op.name,
                    cast_text(exprs[0], to),
                    cast_text(exprs[1], to)
                ),
            };
            let to = hint_dtype(op.typing, dtype, operator);
            let message =
                not_defined_message(&what, op.typing, dtype, |t| rewrite(to.unwrap_or(t)));
            self.errors.push(span, message);
            return Typed::Poison;
        }
        let dims = match self.broadcast_or_report(span, &what, l, r) {
            Some(d) => d,
            None => return Typed::Poison,
        };
        if dtype.is_float() {
            for n in [l, r] {
                self.warn_integer_division(n, dtype);
            }
        }
        let l = self.convert(l, dtype);
        let r = self.convert(r, dtype);
        let node = self.add(
            NodeKind::Op {
                op,
                args: vec![l, r],
            },
            op.typing.result(dtype),
            dims,
        );
        if dtype.is_integer() && matches!(op.name, "div" | "rem") {
            self.int_divisions
                .insert(node, (span, exprs[0].clone(), exprs[1].clone(), op.name));
        }
        Typed::Strong(node)
    }

    /// docs/language.md: an integer `/` or `%` whose result is then promoted to a float truncates
    /// before the promotion (`img / 255 - mean` with `img: u8`): a warning on the `/`
    /// whose help casts first.
    fn warn_integer_division(&mut self, node: NodeId, to: DType) {
        let Some((span, lhs, rhs, name)) = self.int_divisions.get(&node).cloned() else {
            return;
        };
        let symbol = if name == "div" { "/" } else { "%" };
        let from = self.node(node).dtype.name();
        let rewrite = format!("{} {symbol} {}", operand_cast(&lhs, to), operand_text(&rhs));
        let written = format!("{} {symbol} {}", operand_text(&lhs), operand_text(&rhs));
        self.errors.warn(
            span,
            "integer_division_then_float".to_string(),
            format!(
                "`{written}` divides `{from}` values, truncating, and only then is the result promoted to `{}`\n\
                 help: cast first to divide in `{}`: `{rewrite}`",
                to.name(),
                to.name()
            ),
        );
    }

    fn broadcast_or_report(
        &mut self,
        span: Span,
        what: &str,
        l: NodeId,
        r: NodeId,
    ) -> Option<Vec<Dim>> {
        let (ls, rs) = (self.node(l).dims.clone(), self.node(r).dims.clone());
        match broadcast(&ls, &rs) {
            Ok(d)
                if d.iter()
                    .filter_map(Dim::as_static)
                    .try_fold(1usize, |a, x| a.checked_mul(x))
                    .is_none() =>
            {
                self.errors.push(
                    span,
                    format!("{what} of {} and {} gives {}, whose literal dims multiply past the largest usize", dims_text(&ls), dims_text(&rs), dims_text(&d)),
                );
                None
            }
            Ok(d) => Some(d),
            Err(e) => {
                // NumPy's habit `x - mean(x, axis = 1)`: the reduction dropped the axis the
                // other operand still has; with it kept as 1 the two broadcast.
                let keepdims = [(l, &rs), (r, &ls)].into_iter().find_map(|(node, other)| {
                    let (name, kept) = self.dropped_axes.get(&node)?;
                    broadcast(kept, other).ok()?;
                    Some(format!(
                        "\nhelp: `{name}` dropped the reduced axes; with `keepdims = true` it keeps them as 1s ({}), which broadcast against {}",
                        dims_text(kept),
                        dims_text(other)
                    ))
                });
                self.errors.push(
                    span,
                    format!(
                        "shapes {} and {} do not broadcast in {what}\n{}\n{}{}",
                        dims_text(&ls),
                        dims_text(&rs),
                        aligned_picture(&ls, &rs, &e),
                        e.note(),
                        keepdims.unwrap_or_default()
                    ),
                );
                None
            }
        }
    }

    /// Inserts a promotion cast when `node` is not already `dtype`.
    fn convert(&mut self, node: NodeId, dtype: DType) -> NodeId {
        if self.node(node).dtype == dtype {
            return node;
        }
        let dims = self.node(node).dims.clone();
        self.add(NodeKind::Cast { input: node }, dtype, dims)
    }

    /// A weak literal takes `dtype`, if it represents the literal exactly (integers) or
    /// finitely (floats).
    /// `other` is the strong operand the literal takes its dtype from, for the message.
    fn materialize(
        &mut self,
        w: &Weak,
        lit_span: Span,
        dtype: DType,
        other: Option<&Expr>,
    ) -> Option<NodeId> {
        match literal_as(w, dtype, other) {
            Ok(value) => Some(self.add(NodeKind::Const(value), dtype, Vec::new())),
            Err(message) => {
                self.errors.push(lit_span, message);
                None
            }
        }
    }

    /// Literal-only arithmetic folds at compile time, in `i128` or `f64`.
    #[allow(clippy::too_many_arguments)]
    fn fold(
        &mut self,
        op: &'static Op,
        operator: Option<BinOp>,
        span: Span,
        a: Weak,
        sa: Span,
        b: Weak,
        sb: Span,
    ) -> Typed {
        let joined = sa.join(sb).unwrap_or(span);
        let folded = match (op.name, a, b) {
            (_, Weak::Bool(x), Weak::Bool(y)) => match operator {
                Some(BinOp::And) | Some(BinOp::BitAnd) => Some(Weak::Bool(x & y)),
                Some(BinOp::Or) | Some(BinOp::BitOr) => Some(Weak::Bool(x | y)),
                Some(BinOp::BitXor) => Some(Weak::Bool(x ^ y)),
                _ => None,
            },
            (name, Weak::Int(x), Weak::Int(y)) => match name {
                "add" => x.checked_add(y).map(Weak::Int),
                "sub" => x.checked_sub(y).map(Weak::Int),
                "mul" => x.checked_mul(y).map(Weak::Int),
                "div" if y != 0 => x.checked_div(y).map(Weak::Int),
                "rem" if y != 0 => x.checked_rem(y).map(Weak::Int),
                "bitwise_and" => Some(Weak::Int(x & y)),
                "bitwise_or" => Some(Weak::Int(x | y)),
                "bitwise_xor" => Some(Weak::Int(x ^ y)),
                "shift_left" if (0..64).contains(&y) => x
                    .checked_shl(y as u32)
                    .filter(|v| v >> y == x)
                    .map(Weak::Int),
                "shift_right" if (0..64).contains(&y) => Some(Weak::Int(x >> y)),
                _ => None,
            },
            (name, x, y) => {
                let as_f64 = |w: &Weak| match w {
                    Weak::Int(v) => Some(*v as f64),
                    Weak::Float(v, _) => Some(*v),
                    Weak::Bool(_) => None,
                };
                match (as_f64(&x), as_f64(&y)) {
                    (Some(x), Some(y)) => match name {
                        "add" => Some(x + y),
                        "sub" => Some(x - y),
                        "mul" => Some(x * y),
                        "div" => Some(x / y),
                        "rem" => Some(x % y),
                        _ => None,
                    }
                    .filter(|v| v.is_finite())
                    .map(|v| Weak::Float(v, None)),
                    _ => None,
                }
            }
        };
        match folded {
            Some(w) => Typed::Weak(w, joined),
            None => {
                let what = operator
                    .map(|o| format!("`{}`", o.symbol()))
                    .unwrap_or_else(|| format!("`{}`", op.name));
                self.errors.push(
                    span,
                    format!(
                        "{what} on untyped literals only cannot be folded at compile time\n\
                         help: give one operand a dtype with a cast, e.g. `(2 as i32)`"
                    ),
                );
                Typed::Poison
            }
        }
    }

    fn check_cast(&mut self, inner: Typed, to: DType, as_span: Span, expr: &Expr) -> Typed {
        match inner {
            Typed::Poison => Typed::Poison,
            Typed::Weak(w, _) => {
                let value = match w {
                    Weak::Bool(b) => cast_const_int(b as i128, to),
                    Weak::Int(v) => cast_const_int(v, to),
                    Weak::Float(v, text) => cast_const_float(v, text, to),
                };
                Typed::Strong(self.add(NodeKind::Const(value), to, Vec::new()))
            }
            Typed::Strong(node) => {
                let from = self.node(node).dtype;
                if from == to {
                    return Typed::Strong(node);
                }
                if let Some(warning) = lossy_cast_warning(from, to, expr) {
                    self.errors.warn(
                        as_span,
                        format!("lossy_cast_{}_to_{}", from.name(), to.name()),
                        warning,
                    );
                }
                if let Some(warning) = reduction_cast_warning(from, to, expr) {
                    self.errors.warn(
                        as_span,
                        format!("reduction_then_cast_{}_to_{}", from.name(), to.name()),
                        warning,
                    );
                }
                let dims = self.node(node).dims.clone();
                Typed::Strong(self.add(NodeKind::Cast { input: node }, to, dims))
            }
        }
    }

    fn check_call(
        &mut self,
        func: &syn::Ident,
        args: &[Expr],
        named: &[crate::ast::NamedArg],
    ) -> Typed {
        let name = func.to_string();
        let span = func.span();
        if name == "__list" {
            self.errors.push(
                span,
                "a list `[…]` is only an argument of reductions and shape ops",
            );
            return Typed::Poison;
        }
        if name == "stop_gradient" {
            // The identity for values; `derive` passes no cotangent through it.
            if let ([arg], []) = (args, named) {
                return self.check_expr(arg);
            }
            self.errors.push(
                span,
                "`stop_gradient` takes one argument: `stop_gradient(x)`",
            );
            return Typed::Poison;
        }
        let op = match ops::lookup(&name, args.len(), !named.is_empty()) {
            Some(ops::Callable::Tensor(t)) => return self.check_tensor_op(t, func, args, named),
            Some(ops::Callable::Where) => {
                let typed: Vec<Typed> = args.iter().map(|a| self.check_expr(a)).collect();
                return self.check_where(span, typed, args, named);
            }
            Some(ops::Callable::Elementwise(op)) => op,
            None => {
                for a in args {
                    self.check_expr(a);
                }
                let mut message = format!("unknown function `{name}`");
                if let Some((_, ours)) = OTHER_LIBRARY_NAMES
                    .iter()
                    .find(|(theirs, _)| *theirs == name)
                {
                    message.push_str(&format!(
                        "\nhelp: `{name}` is another library's name: the graph language calls it `{ours}`"
                    ));
                } else if let Some(close) = ops::closest_name(&name) {
                    message.push_str(&format!(
                        "\nhelp: a function with a similar name exists: `{close}`"
                    ));
                }
                self.errors.push(span, message);
                return Typed::Poison;
            }
        };
        let typed: Vec<Typed> = args.iter().map(|a| self.check_expr(a)).collect();
        let mut ok = true;
        for n in named {
            let arg = n.name.to_string();
            if op.params.iter().any(|p| p.name == arg) {
                continue;
            }
            let hint = if name == "relu" && arg == "alpha" {
                "; `relu` takes no named arguments\nhelp: `leaky_relu(x, alpha = …)` is relu with a slope below 0".to_string()
            } else if op.params.is_empty() {
                format!("; `{name}` takes no named arguments")
            } else {
                format!("; it takes {}", ops::param_list(op.params))
            };
            self.errors.push(
                n.name.span(),
                format!("`{name}` has no argument named `{arg}`{hint}"),
            );
            ok = false;
        }
        if !ok {
            return Typed::Poison;
        }
        if typed.len() > 2 && matches!(name.as_str(), "max" | "min" | "add") {
            let mut it = typed.into_iter();
            let first = it.next().expect("three or more");
            return self.fold_variadic(&name, span, first, it.collect(), args);
        }
        if typed.len() != op.arity {
            self.errors.push(
                span,
                format!(
                    "`{name}` takes {} argument{} but {} {} given",
                    op.arity,
                    if op.arity == 1 { "" } else { "s" },
                    typed.len(),
                    if typed.len() == 1 { "was" } else { "were" }
                ),
            );
            return Typed::Poison;
        }
        if op.arity == 2 {
            let mut it = typed.into_iter();
            let (l, r) = (it.next().expect("arity 2"), it.next().expect("arity 2"));
            return self.check_binary(op, None, span, l, r, [&args[0], &args[1]]);
        }
        match typed.into_iter().next().expect("arity 1") {
            Typed::Poison => Typed::Poison,
            Typed::Weak(w, ws) => {
                self.errors.push(
                    ws,
                    format!(
                        "`{name}` needs a tensor or a typed value, but got the untyped {}\n\
                         help: give the literal a dtype, e.g. `{name}(2.0 as f32)`",
                        w.describe()
                    ),
                );
                Typed::Poison
            }
            Typed::Strong(node) => {
                let applied = self.apply_unary(op, span, node, None, &args[0]);
                match applied {
                    Typed::Strong(n) if !op.params.is_empty() => self.add_params(op, n, named),
                    other => other,
                }
            }
        }
    }

    /// Appends an op's named float parameters to its node's operands: each a literal in
    /// the tensor's dtype (checked to be finite there), a scalar or rank-0 parameter of
    /// that dtype, or the row's default.
    fn add_params(
        &mut self,
        op: &'static Op,
        node: NodeId,
        named: &[crate::ast::NamedArg],
    ) -> Typed {
        let NodeKind::Op { args, .. } = &self.node(node).kind else {
            return Typed::Strong(node);
        };
        let mut args = args.clone();
        let x = args[0];
        let dtype = self.node(x).dtype;
        let mut ok = true;
        for spec in op.params {
            let given = named.iter().find(|n| n.name == spec.name);
            let value = match given {
                Some(n) => match self.check_expr(&n.value) {
                    Typed::Poison => None,
                    Typed::Weak(w, ws) => self.materialize(&w, ws, dtype, None),
                    Typed::Strong(v) => {
                        let (vd, rank) = (self.node(v).dtype, self.node(v).dims.len());
                        if vd != dtype || rank != 0 {
                            self.errors.push(
                                expr_span_of(&n.value),
                                format!(
                                    "`{}` of `{}` is a literal or a scalar of the tensor's dtype `{}`, found {}\n\
                                     help: pass a literal (`{} = {}`) or a scalar parameter `{}: {}`",
                                    spec.name,
                                    op.name,
                                    dtype.name(),
                                    match self.node(v).kind {
                                        NodeKind::Scalar { .. } => format!("the scalar `{}`", vd.name()),
                                        _ => format!("`{}`", type_text(vd, &self.node(v).dims)),
                                    },
                                    spec.name,
                                    spec.default.unwrap_or("0.5"),
                                    spec.name,
                                    dtype.name()
                                ),
                            );
                            None
                        } else {
                            Some(v)
                        }
                    }
                },
                None => {
                    let text = spec.default.expect("elementwise parameters have defaults");
                    let v: f64 = text.parse().expect("defaults are float literals");
                    self.materialize(
                        &Weak::Float(v, Some(text.to_string())),
                        proc_macro2::Span::call_site(),
                        dtype,
                        None,
                    )
                }
            };
            match value {
                Some(v) => args.push(v),
                None => ok = false,
            }
        }
        if !ok {
            return Typed::Poison;
        }
        let n = self.node(node).clone();
        Typed::Strong(self.add(NodeKind::Op { op, args }, n.dtype, n.dims))
    }

    /// `where(cond, a, b)`: `cond` is `bool`; `a` and `b` promote; all three broadcast.
    fn check_where(
        &mut self,
        span: Span,
        typed: Vec<Typed>,
        args: &[Expr],
        named: &[crate::ast::NamedArg],
    ) -> Typed {
        for n in named {
            self.errors.push(
                n.name.span(),
                format!("`where` has no argument named `{}`", n.name),
            );
        }
        if typed.len() != 3 {
            self.errors.push(
                span,
                format!(
                    "`where` takes 3 arguments (cond, a, b) but {} were given",
                    typed.len()
                ),
            );
            return Typed::Poison;
        }
        if !named.is_empty() {
            return Typed::Poison;
        }
        let mut it = typed.into_iter();
        let (c, a, b) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        let cond = match c {
            Typed::Poison => return Typed::Poison,
            Typed::Weak(w, ws) => match self.materialize(&w, ws, DType::Bool, None) {
                Some(n) => n,
                None => return Typed::Poison,
            },
            Typed::Strong(n) => {
                let d = self.node(n).dtype;
                if d != DType::Bool {
                    self.errors.push(
                        args[0].span(),
                        format!("the condition of `where` must be `bool`, found `{}`\nhelp: compare it, e.g. `x != 0`", d.name()),
                    );
                    return Typed::Poison;
                }
                n
            }
        };
        // Branches: promote like a binary op, with a weak branch taking the other's dtype.
        let (a, b) = match (a, b) {
            (Typed::Poison, _) | (_, Typed::Poison) => return Typed::Poison,
            (Typed::Weak(..), Typed::Weak(..)) => {
                self.errors.push(span, "both branches of `where` are untyped literals\nhelp: give one a dtype, e.g. `(0.0 as f32)`");
                return Typed::Poison;
            }
            (a, b) => match self.strong_pair(a, b, [&args[1], &args[2]]) {
                Some(pair) => pair,
                None => return Typed::Poison,
            },
        };
        let Some(dtype) = self.promote_or_report(span, "`where`", a, b, [&args[1], &args[2]])
        else {
            return Typed::Poison;
        };
        let ab = match self.broadcast_or_report(span, "`where`", a, b) {
            Some(d) => d,
            None => return Typed::Poison,
        };
        let cond_dims = self.node(cond).dims.clone();
        let dims = match broadcast(&cond_dims, &ab) {
            Ok(d) => d,
            Err(e) => {
                self.errors.push(
                    span,
                    format!(
                        "the condition's shape {} does not broadcast with the branches' shape {} in `where`\n{}\n{}",
                        dims_text(&cond_dims),
                        dims_text(&ab),
                        aligned_picture(&cond_dims, &ab, &e),
                        e.note()
                    ),
                );
                return Typed::Poison;
            }
        };
        let a = self.convert(a, dtype);
        let b = self.convert(b, dtype);
        Typed::Strong(self.add(NodeKind::Select { cond, a, b }, dtype, dims))
    }
}

/// Where an error about an argument expression points: a call's name, else the expression.
fn expr_span_of(e: &Expr) -> Span {
    match e {
        Expr::Call { func, .. } => func.span(),
        other => other.span(),
    }
}

/// An operand cast to `to`, parenthesised to sit beside a binary operator.
fn operand_cast(e: &Expr, to: DType) -> String {
    match e {
        Expr::Lit(..) => expr_text(e),
        _ => format!("({})", cast_text(e, to)),
    }
}

/// `operand as dtype`, unless the operand is a literal (which takes the dtype anyway).
fn cast_text(e: &Expr, to: DType) -> String {
    match e {
        Expr::Lit(..) => expr_text(e),
        _ => format!("{} as {}", operand_text(e), to.name()),
    }
}

fn promotion_message(
    what: &str,
    a: DType,
    b: DType,
    e: PromotionError,
    exprs: [&Expr; 2],
) -> String {
    let (rule, refused) = match e {
        PromotionError::Unrepresentable { input, candidate } => (
            format!(
                "note: promotion takes the higher category and the wider width, here `{}`, \
                 and `{}` cannot hold every `{}` value",
                candidate.name(),
                candidate.name(),
                input.name()
            ),
            if input == a { 0 } else { 1 },
        ),
        PromotionError::FormatClash => (
            "note: `f16` and `bf16` are 16-bit floats in different formats; neither holds every value of the other"
                .to_string(),
            0,
        ),
    };
    let dtypes = [a, b];
    let (side, other) = (exprs[refused], dtypes[1 - refused]);
    let help = match promotion_hint(a, b) {
        Some(to) => format!(
            "help: cast `{}` so both fit exactly: `{}`, or `{}` if its values are known to fit in `{}`",
            operand_text(side),
            cast_text(side, to),
            cast_text(side, other),
            other.name()
        ),
        None => format!(
            "help: no dtype holds every `{}` and every `{}` value; if the values are known to fit, cast one side: `{}` or `{}`",
            a.name(),
            b.name(),
            cast_text(exprs[0], b),
            cast_text(exprs[1], a)
        ),
    };
    format!(
        "cannot promote `{}` with `{}` in {what}\n{rule}\n{help}",
        a.name(),
        b.name()
    )
}

/// The dtype a "cast first" hint suggests for an op that refuses `dtype`.
fn hint_dtype(typing: Typing, dtype: DType, operator: Option<BinOp>) -> Option<DType> {
    Some(match typing {
        Typing::FloatUnary | Typing::FloatPredicate => DType::F32,
        Typing::Arith | Typing::NumUnary if dtype == DType::Bool => {
            if operator == Some(BinOp::Sub) {
                DType::I8
            } else {
                DType::U8
            }
        }
        Typing::Bitwise | Typing::Shift if dtype == DType::F64 => DType::I64,
        Typing::Bitwise | Typing::Shift if dtype.is_float() => DType::I32,
        Typing::Shift => DType::U8,
        _ => return None,
    })
}

/// An op refuses the dtype its operands have. `rewrite` turns "cast each operand to `T`"
/// into the user's expression with those casts, for the hint.
fn not_defined_message(
    what: &str,
    typing: Typing,
    dtype: DType,
    rewrite: impl Fn(DType) -> String,
) -> String {
    let help = match (typing, hint_dtype(typing, dtype, None)) {
        (Typing::FloatPredicate, Some(to)) => {
            format!("help: integers are never NaN or infinite; to test a float view of it, cast it first: `{}`", rewrite(to))
        }
        (Typing::FloatUnary, Some(to)) => format!("help: cast to a float first: `{}`", rewrite(to)),
        (Typing::Bitwise | Typing::Shift, Some(to)) if dtype.is_float() => {
            format!("help: cast to an integer first: `{}`", rewrite(to))
        }
        (Typing::Arith | Typing::NumUnary | Typing::Shift, Some(to)) if dtype == DType::Bool => {
            format!("help: cast the `bool` to a number first: `{}`", rewrite(to))
        }
        (Typing::Logical, _) => {
            "help: `&&` and `||` take `bool`; compare to get one, e.g. `x != 0`, or use `&`/`|` for bitwise ops on integers"
                .to_string()
        }
        _ => String::new(),
    };
    format!(
        "{what} is not defined for `{}`: it takes {}\n{help}",
        dtype.name(),
        typing.accepted_text()
    )
    .trim_end()
    .to_string()
}

/// A float cast to a float with fewer exponent bits: values beyond the target's range
/// become infinite. (`f32 as bf16` keeps the exponent and only rounds; integer casts
/// wrap or saturate as Rust's `as` does, and are not warned about.)
/// A float `sum`, `prod` or `mean` (no `dtype =`, no `acc =`) cast to a wider float:
/// `sum(x) as f32` of `f16` values rounds the `f32` accumulation to `f16` and only then
/// widens it, where `sum(x, dtype = f32)` returns the accumulation itself (issue 19: the
/// help for a declared output dtype once suggested that cast).
fn reduction_cast_warning(from: DType, to: DType, expr: &Expr) -> Option<String> {
    let Expr::Call { func, named, .. } = expr else {
        return None;
    };
    let name = func.to_string();
    let rounds = matches!(name.as_str(), "sum" | "prod" | "mean")
        && !named.iter().any(|n| n.name == "dtype" || n.name == "acc");
    let wider = match (from.float_precision(), to.float_precision()) {
        (Some(f), Some(t)) => t > f,
        _ => false,
    };
    if !rounds || !wider {
        return None;
    }
    Some(format!(
        "`{}` rounds the {name} to `{}` before widening it to `{}`\n\
         help: ask the reduction for `{}`: `{name}(…, dtype = {})` returns its wider accumulation\n\
         help: to keep the `{}` rounding, silence this with `#[allow(tensorgraph::reduction_then_cast)]` on the graph",
        cast_text(expr, to),
        from.name(),
        to.name(),
        to.name(),
        to.name(),
        from.name(),
    ))
}

fn lossy_cast_warning(from: DType, to: DType, expr: &Expr) -> Option<String> {
    let silence = "help: if the values are known to be in range, silence this with `#[allow(tensorgraph::lossy_cast)]` on the graph";
    if from.is_float() && to.is_integer() {
        let (min, max) = to.int_range().expect("integer dtype");
        return Some(format!(
            "`{}` saturates: `{}` values outside {min}..={max} become the nearest bound, NaN becomes 0, and fractions are dropped\n\
             help: `round(…)` or `roundeven(…)` first to round instead of truncating; `clip(…)` to make the bounds explicit\n{silence}",
            cast_text(expr, to),
            from.name()
        ));
    }
    if from.is_integer() && to.is_integer() && !from.fits_in(to) {
        return Some(format!(
            "`{}` wraps: `{}` values that `{}` cannot hold keep only their low {} bits (Rust `as`)\n{silence}",
            cast_text(expr, to),
            from.name(),
            to.name(),
            to.bits()
        ));
    }
    let exponent_bits = |d: DType| d.bits() - d.float_precision().unwrap_or(0);
    if !(from.is_float() && to.is_float()) || exponent_bits(to) >= exponent_bits(from) {
        return None;
    }
    let max = to.float_max().unwrap_or(0.0);
    Some(format!(
        "`{}` can lose data: `{}` values beyond ±{} become infinite in `{}`\n\
         help: if the values are known to be in range, silence this with `#[allow(tensorgraph::lossy_cast)]` on the graph",
        cast_text(expr, to),
        from.name(),
        float_text(max),
        to.name()
    ))
}

/// `65504`, `3.4028235e38`: the shortest text of a float dtype's bound.
fn float_text(v: f64) -> String {
    if v.abs() < 1e9 && v.fract() == 0.0 {
        format!("{}", v as i64)
    } else if v.abs() <= f32::MAX as f64 && (v as f32) as f64 == v {
        format!("{:e}", v as f32)
    } else {
        format!("{v:e}")
    }
}

/// The smallest integer dtype that holds `v` and every value of `dtype`, for "cast the
/// tensor to a wider dtype" hints.
fn wider_int(v: i128, dtype: DType) -> Option<DType> {
    [
        DType::U8,
        DType::I8,
        DType::U16,
        DType::I16,
        DType::U32,
        DType::I32,
        DType::U64,
        DType::I64,
    ]
    .into_iter()
    .filter(|c| dtype.fits_in(*c))
    .find(|c| c.int_range().is_some_and(|(lo, hi)| (lo..=hi).contains(&v)))
}

/// Converts a weak literal into a constant of `dtype`, or explains why it cannot.
/// `other` is the strong operand the literal takes its dtype from, if any.
fn literal_as(w: &Weak, dtype: DType, other: Option<&Expr>) -> Result<ConstValue, String> {
    let d = dtype.name();
    let note = match other {
        Some(e) => format!(
            "\nnote: an untyped literal takes the dtype of the other operand: `{}` is `{d}`",
            operand_text(e)
        ),
        None => String::new(),
    };
    let cast_other = |to: DType| match other {
        Some(e) => format!("`{}`", cast_text(e, to)),
        None => format!("`… as {}`", to.name()),
    };
    match (w, dtype) {
        (Weak::Bool(b), DType::Bool) => Ok(ConstValue::Bool(*b)),
        (Weak::Bool(b), _) => Err(format!(
            "{} cannot take the dtype `{d}`{note}\nhelp: cast it: `({b} as {d})`",
            w.describe()
        )),
        (_, DType::Bool) => Err(format!(
            "{} cannot take the dtype `bool`{note}\nhelp: use `true` or `false`",
            w.describe()
        )),
        (Weak::Int(v), dt) if dt.is_integer() => {
            let (min, max) = dt.int_range().expect("integer dtype");
            if (min..=max).contains(v) {
                Ok(ConstValue::Int(*v))
            } else {
                let help = match wider_int(*v, dt) {
                    Some(to) => format!("\nhelp: cast the tensor to a dtype that holds it: {}", cast_other(to)),
                    None => "\nhelp: no integer dtype holds it; cast the tensor to `f64` for an approximate value".to_string(),
                };
                Err(format!("{} does not fit in `{d}`, whose range is {min}..={max}{note}{help}", w.describe()))
            }
        }
        (Weak::Int(v), dt) => {
            if int_fits_float(*v, dt) {
                Ok(ConstValue::Float(*v as f64, Some(format!("{v}.0"))))
            } else if (v.unsigned_abs() as f64) > dt.float_max().expect("float dtype") {
                Err(format!(
                    "{} overflows `{d}`, whose largest finite value is {}{note}\nhelp: cast the tensor to a wider float first: {}",
                    w.describe(),
                    float_text(dt.float_max().unwrap_or(0.0)),
                    cast_other(DType::F32.max_float_with(dt))
                ))
            } else {
                Err(format!(
                    "{} is not exactly representable in `{d}`, which has {} significant bits{note}\n\
                     help: write `{v}.0` if rounding to the nearest `{d}` is intended",
                    w.describe(),
                    dt.float_precision().unwrap_or(0),
                ))
            }
        }
        (Weak::Float(..), dt) if dt.is_integer() => Err(format!(
            "{} cannot take the integer dtype `{d}`{note}\nhelp: cast the tensor to a float first: {}",
            w.describe(),
            cast_other(DType::F32)
        )),
        (Weak::Float(v, text), dt) => {
            // `inf`, `-inf`, `nan` are what they say in every float dtype.
            if float_fits(*v, dt) || !v.is_finite() && text.as_deref().is_some_and(|t| t.ends_with("inf") || t == "nan") {
                Ok(ConstValue::Float(*v, text.clone()))
            } else {
                let help = if dt == DType::F64 {
                    String::new()
                } else {
                    format!("\nhelp: cast the tensor to a wider float first: {}", cast_other(DType::F32.max_float_with(dt)))
                };
                Err(format!(
                    "{} overflows `{d}`, whose largest finite value is {}{note}{help}",
                    w.describe(),
                    float_text(dt.float_max().unwrap_or(0.0)),
                ))
            }
        }
    }
}

trait WiderFloat {
    fn max_float_with(self, d: DType) -> DType;
}

impl WiderFloat for DType {
    /// `f32` for 16-bit floats, `f64` for `f32`.
    fn max_float_with(self, d: DType) -> DType {
        if d.bits() >= self.bits() {
            DType::F64
        } else {
            self
        }
    }
}

/// Whether the integer `v` is exactly a finite value of the float dtype `d`.
fn int_fits_float(v: i128, d: DType) -> bool {
    let precision = d.float_precision().expect("float dtype");
    let magnitude = v.unsigned_abs();
    if magnitude == 0 {
        return true;
    }
    let significant = 128 - magnitude.leading_zeros() - magnitude.trailing_zeros();
    significant <= precision && (magnitude as f64) <= d.float_max().expect("float dtype")
}

/// Whether `v` rounds to a finite value of `d`: below the largest finite value plus half
/// an ulp at the top binade.
fn float_fits(v: f64, d: DType) -> bool {
    let max = d.float_max().expect("float dtype");
    if d == DType::F64 {
        return v.is_finite();
    }
    let precision = d.float_precision().expect("float dtype") as i64;
    // max's binade from its exponent bits, and the ulp there built the same way: exact,
    // where `log2` and `powi` have no precision Rust promises.
    let top_exponent = ((max.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let top_ulp = f64::from_bits(((top_exponent - precision + 1 + 1023) as u64) << 52);
    v.abs() < max + top_ulp / 2.0
}

/// `literal as dtype` with Rust `as` semantics on the literal's value.
fn cast_const_int(v: i128, to: DType) -> ConstValue {
    match to {
        DType::Bool => ConstValue::Bool(v != 0),
        DType::U8 => ConstValue::Int(v as u8 as i128),
        DType::U16 => ConstValue::Int(v as u16 as i128),
        DType::U32 => ConstValue::Int(v as u32 as i128),
        DType::U64 => ConstValue::Int(v as u64 as i128),
        DType::I8 => ConstValue::Int(v as i8 as i128),
        DType::I16 => ConstValue::Int(v as i16 as i128),
        DType::I32 => ConstValue::Int(v as i32 as i128),
        DType::I64 => ConstValue::Int(v as i64 as i128),
        // The text keeps full precision; the emitter rounds it once into the dtype.
        _ => ConstValue::Float(v as f64, Some(format!("{v}.0"))),
    }
}

fn cast_const_float(v: f64, text: Option<String>, to: DType) -> ConstValue {
    match to {
        DType::Bool => ConstValue::Bool(v != 0.0),
        DType::U8 => ConstValue::Int(v as u8 as i128),
        DType::U16 => ConstValue::Int(v as u16 as i128),
        DType::U32 => ConstValue::Int(v as u32 as i128),
        DType::U64 => ConstValue::Int(v as u64 as i128),
        DType::I8 => ConstValue::Int(v as i8 as i128),
        DType::I16 => ConstValue::Int(v as i16 as i128),
        DType::I32 => ConstValue::Int(v as i32 as i128),
        DType::I64 => ConstValue::Int(v as i64 as i128),
        _ => ConstValue::Float(v, text),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn other_libraries_names_point_at_functions_that_exist() {
        for (theirs, ours) in crate::spellings::OTHER_LIBRARY_NAMES {
            assert!(
                crate::ops::lookup(theirs, 1, false).is_none(),
                "`{theirs}` is ours"
            );
            let name = ours.split('(').next().unwrap();
            let known = name == "where"
                || crate::ops::lookup(name, 1, false).is_some()
                || crate::ops::lookup(name, 2, false).is_some();
            assert!(known, "`{ours}` (for `{theirs}`) is no graph function");
        }
    }

    use super::*;

    fn literal_as3(w: &Weak, d: DType) -> Result<ConstValue, String> {
        literal_as(w, d, None)
    }

    #[test]
    fn literal_rules() {
        assert!(literal_as3(&Weak::Int(300), DType::U8).is_err());
        assert!(literal_as3(&Weak::Int(255), DType::U8).is_ok());
        assert!(literal_as3(&Weak::Int(-1), DType::U8).is_err());
        assert!(literal_as3(&Weak::Int(16777217), DType::F32).is_err());
        assert!(literal_as3(&Weak::Int(16777216), DType::F32).is_ok());
        assert!(literal_as3(&Weak::Int(2049), DType::F16).is_err());
        assert!(literal_as3(&Weak::Int(65504), DType::F16).is_ok());
        assert!(literal_as3(&Weak::Int(65536), DType::F16).is_err());
        assert!(literal_as3(&Weak::Float(0.5, None), DType::I32).is_err());
        assert!(literal_as3(&Weak::Float(70000.0, None), DType::F16).is_err());
        assert!(literal_as3(&Weak::Float(65519.0, None), DType::F16).is_ok());
        assert!(literal_as3(&Weak::Float(65520.0, None), DType::F16).is_err());
        assert!(literal_as3(&Weak::Float(1e39, None), DType::F32).is_err());
        assert!(literal_as3(&Weak::Float(3.4e38, None), DType::F32).is_ok());
        assert!(literal_as3(&Weak::Float(3.3e38, None), DType::BF16).is_ok());
        assert!(literal_as3(&Weak::Float(3.4e38, None), DType::BF16).is_err());
    }
}
