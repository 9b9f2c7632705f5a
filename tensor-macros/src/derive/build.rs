//! Expression builders for the derivative bodies `derive` writes, and the shape plumbing
//! every rule shares: `fit` (a contribution to its operand's type), `expand_back` (a
//! reduction's cotangent over its input), dim lists, axis and named-argument readers.

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{BinOp, Expr, LitValue, NamedArg, UnOp};
use crate::dtype::DType;
use crate::shape::Dim;

/// `g · s` for `max`'s winner `a` against `b`: 1 where `a` wins, 1/2 where they tie.
pub(super) fn tie_share(dtype: DType, wins: BinOp, a: Expr, b: Expr) -> Expr {
    call(
        "where",
        vec![
            binary(wins, a.clone(), b.clone()),
            cast(lit_f(1.0), dtype),
            call(
                "where",
                vec![
                    binary(BinOp::Eq, a, b),
                    cast(lit_f(0.5), dtype),
                    cast(lit_f(0.0), dtype),
                ],
            ),
        ],
    )
}

/// Fits a contribution of type `from` to an operand of type `to`: sums the axes the
/// operand was broadcast along (leading axes it lacks, and its 1s that grew) and casts to
/// its dtype.
pub(super) fn fit(
    e: Expr,
    from: &(DType, Vec<Dim>),
    to: &(DType, Vec<Dim>),
) -> Result<Expr, String> {
    let (r, q) = (from.1.len(), to.1.len());
    let mut e = e;
    if r < q {
        return Err("derive: a contribution of lower rank than its operand".into());
    }
    let lead = r - q;
    let mut dims: Vec<Dim> = from.1.clone();
    if lead > 0 {
        let axes: Vec<usize> = (0..lead).collect();
        e = with_named(call("sum", vec![e]), vec![("axis", int_list(&axes))]);
        dims.drain(..lead);
    }
    let grown: Vec<usize> = (0..q)
        .filter(|&k| to.1[k] == Dim::Static(1) && dims[k] != Dim::Static(1))
        .collect();
    if !grown.is_empty() {
        e = with_named(
            call("sum", vec![e]),
            vec![
                ("axis", int_list(&grown)),
                (
                    "keepdims",
                    Expr::Lit(LitValue::Bool(true), Span::call_site()),
                ),
            ],
        );
    }
    if from.0 != to.0 {
        e = cast(e, to.0);
    }
    Ok(e)
}

/// A reduction's cotangent `g` back over the input's dims: its dropped axes restored as
/// 1s, then broadcast.
pub(super) fn expand_back(
    g: Expr,
    axes: &[usize],
    keepdims: bool,
    dims: &[Dim],
) -> Result<Expr, String> {
    let mut e = g;
    if !keepdims {
        let mut sorted = axes.to_vec();
        sorted.sort_unstable();
        for a in sorted {
            e = call("expand_dims", vec![e, int(a)]);
        }
    }
    broadcast_to(e, dims)
}

pub(super) fn broadcast_to(e: Expr, dims: &[Dim]) -> Result<Expr, String> {
    Ok(call("broadcast_to", vec![e, dims_list(dims)?]))
}

pub(super) fn reshape(e: Expr, dims: &[Dim]) -> Result<Expr, String> {
    Ok(call("reshape", vec![e, dims_list(dims)?]))
}

/// The DSL list of `dims`: literals, names and dim expressions.
pub(super) fn dims_list(dims: &[Dim]) -> Result<Expr, String> {
    Ok(Expr::Call {
        func: Ident::new("__list", Span::call_site()),
        args: dims.iter().map(dim_expr).collect(),
        named: Vec::new(),
    })
}

/// A dim as the language writes it in a target list.
fn dim_expr(d: &Dim) -> Expr {
    match d {
        Dim::Static(n) => int(*n),
        Dim::Named(n) => var(n),
        Dim::Expr(p) => poly_expr(p),
    }
}

/// A normal form written back as an expression: a sum of (coefficient × atoms).
fn poly_expr(p: &crate::dim_expr::Poly) -> Expr {
    use crate::dim_expr::Atom;
    let atom = |a: &Atom| match a {
        Atom::Name(n) => var(n),
        Atom::FloorDiv(q, d) => binary(BinOp::Div, poly_expr(q), int(*d as usize)),
        Atom::Max(a, b) => call("max", vec![poly_expr(a), poly_expr(b)]),
        Atom::Min(a, b) => call("min", vec![poly_expr(a), poly_expr(b)]),
    };
    let mut sum: Option<Expr> = None;
    for (atoms, c) in p.terms() {
        let mut term = atoms
            .iter()
            .map(atom)
            .reduce(|a, b| binary(BinOp::Mul, a, b));
        let magnitude = int(c.unsigned_abs() as usize);
        term = Some(match term {
            None => magnitude,
            Some(t) if c.unsigned_abs() == 1 => t,
            Some(t) => binary(BinOp::Mul, magnitude, t),
        });
        let term = term.expect("set above");
        sum = Some(match (sum, c < 0) {
            (None, false) => term,
            (None, true) => neg(term),
            (Some(s), false) => binary(BinOp::Add, s, term),
            (Some(s), true) => binary(BinOp::Sub, s, term),
        });
    }
    sum.unwrap_or_else(|| int(0))
}

/// The element count of `dims` along `axes`, as a float literal (literal dims) or a
/// `sum` of ones (names: the language has no dim-as-value spelling yet).
pub(super) fn count(dtype: DType, dims: &[Dim], axes: &[usize]) -> Result<Expr, String> {
    let mut n = 1usize;
    let mut named = false;
    for &a in axes {
        match &dims[a] {
            Dim::Static(k) => n *= k,
            _ => named = true,
        }
    }
    if !named {
        return Ok(lit_f(n as f64));
    }
    let ones = broadcast_to(cast(lit_f(1.0), DType::F64), dims)?;
    Ok(cast(
        with_named(
            call("sum", vec![ones]),
            vec![
                ("axis", int_list(axes)),
                (
                    "keepdims",
                    Expr::Lit(LitValue::Bool(true), Span::call_site()),
                ),
            ],
        ),
        dtype,
    ))
}

pub(super) fn reduced_axes(named: &[NamedArg], rank: usize) -> Result<Vec<usize>, String> {
    let Some(axis) = named_value(named, "axis") else {
        return Ok((0..rank).collect());
    };
    let list = int_list_value(&axis)
        .or_else(|| int_value(&axis).map(|a| vec![a]))
        .ok_or("derive: reduction axes must be literals")?;
    let mut axes = list
        .into_iter()
        .map(|a| normalise(a, rank))
        .collect::<Result<Vec<_>, _>>()?;
    axes.sort_unstable();
    axes.dedup();
    Ok(axes)
}

pub(super) fn normalise(a: i128, rank: usize) -> Result<usize, String> {
    let r = rank as i128;
    if (-r..r).contains(&a) {
        Ok(a.rem_euclid(r.max(1)) as usize)
    } else {
        Err(format!("derive: axis {a} out of range for rank {rank}"))
    }
}

/// A named float parameter of an elementwise op: as written, or the registry's default.
pub(super) fn param_value(func: &str, named: &[NamedArg], key: &str) -> Expr {
    if let Some(v) = named_value(named, key) {
        return v;
    }
    let default = match crate::ops::lookup(func, 1, true) {
        Some(crate::ops::Callable::Elementwise(op)) => op
            .params
            .iter()
            .find(|p| p.name == key)
            .and_then(|p| p.default),
        _ => None,
    };
    let text = default.unwrap_or("0.0");
    let v: f64 = text.parse().unwrap_or(0.0);
    Expr::Lit(LitValue::Float(v, text.to_string()), Span::call_site())
}

pub(super) fn named_value(named: &[NamedArg], key: &str) -> Option<Expr> {
    named
        .iter()
        .find(|n| n.name == key)
        .map(|n| n.value.clone())
}

pub(super) fn named_bool(named: &[NamedArg], key: &str) -> Option<bool> {
    match named_value(named, key)? {
        Expr::Lit(LitValue::Bool(b), _) => Some(b),
        _ => None,
    }
}

pub(super) fn int_value(e: &Expr) -> Option<i128> {
    match e {
        Expr::Lit(LitValue::Int(v), _) => i128::try_from(*v).ok(),
        Expr::Unary {
            op: UnOp::Neg,
            expr,
            ..
        } => int_value(expr).map(|v| -v),
        _ => None,
    }
}

pub(super) fn int_list_value(e: &Expr) -> Option<Vec<i128>> {
    match e {
        Expr::Call { func, args, .. } if func == "__list" => args.iter().map(int_value).collect(),
        _ => None,
    }
}

// Expression builders.

pub(super) fn var(name: &str) -> Expr {
    Expr::Var(Ident::new(name, Span::call_site()))
}

pub(super) fn int(v: usize) -> Expr {
    Expr::Lit(LitValue::Int(v as u128), Span::call_site())
}

pub(super) fn int_list(values: &[usize]) -> Expr {
    Expr::Call {
        func: Ident::new("__list", Span::call_site()),
        args: values.iter().map(|&v| int(v)).collect(),
        named: Vec::new(),
    }
}

/// A signed integer literal (`-3` is unary minus of `3`, as the parser reads it).
pub(super) fn sint(v: i128) -> Expr {
    if v < 0 {
        neg(int(v.unsigned_abs() as usize))
    } else {
        int(v as usize)
    }
}

/// `pad(e, …)` with `(before, after)` on axis `axis` of `rank` and 0 elsewhere (negative
/// counts crop).
pub(super) fn pad_axis(e: Expr, rank: usize, axis: usize, before: i128, after: i128) -> Expr {
    let mut counts = vec![int(0); 2 * rank];
    counts[2 * axis] = sint(before);
    counts[2 * axis + 1] = sint(after);
    let list = Expr::Call {
        func: Ident::new("__list", Span::call_site()),
        args: counts,
        named: Vec::new(),
    };
    call("pad", vec![e, list])
}

/// `f(e, axis = axis)`: a per-axis call such as `flip`.
pub(super) fn along(f: &str, e: Expr, axis: usize) -> Expr {
    with_named(call(f, vec![e]), vec![("axis", int(axis))])
}

/// A float literal, written with full precision (`{:?}` prints the shortest text that
/// reads back to the same `f64`).
pub(super) fn lit_f(v: f64) -> Expr {
    let text = format!("{v:?}");
    if v < 0.0 {
        return neg(lit_f(-v));
    }
    Expr::Lit(LitValue::Float(v, text), Span::call_site())
}

pub(super) fn cast(e: Expr, to: DType) -> Expr {
    Expr::Cast {
        expr: Box::new(e),
        as_span: Span::call_site(),
        to,
    }
}

pub(super) fn neg(e: Expr) -> Expr {
    Expr::Unary {
        op: UnOp::Neg,
        op_span: Span::call_site(),
        expr: Box::new(e),
    }
}

pub(super) fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary {
        op,
        op_span: Span::call_site(),
        lhs: Box::new(a),
        rhs: Box::new(b),
    }
}

pub(super) fn add(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Add, a, b)
}

pub(super) fn sub(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Sub, a, b)
}

pub(super) fn mul(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Mul, a, b)
}

pub(super) fn div(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Div, a, b)
}

pub(super) fn call(func: &str, args: Vec<Expr>) -> Expr {
    Expr::Call {
        func: Ident::new(func, Span::call_site()),
        args,
        named: Vec::new(),
    }
}

pub(super) fn with_named(e: Expr, extra: Vec<(&str, Expr)>) -> Expr {
    match e {
        Expr::Call {
            func,
            args,
            mut named,
        } => {
            named.extend(extra.into_iter().map(|(k, v)| NamedArg {
                name: Ident::new(k, Span::call_site()),
                value: v,
            }));
            Expr::Call { func, args, named }
        }
        other => other,
    }
}

/// The names an expression reads.
pub(super) fn vars(e: &Expr) -> Vec<String> {
    fn walk(e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Var(v) => out.push(v.to_string()),
            Expr::Lit(..) => {}
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => walk(expr, out),
            Expr::Binary { lhs, rhs, .. } => {
                walk(lhs, out);
                walk(rhs, out);
            }
            Expr::Call { args, named, .. } => {
                for a in args {
                    walk(a, out);
                }
                for n in named {
                    walk(&n.value, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(e, &mut out);
    out
}

/// The literal `axis = …` of a call (`default` when absent), normalised against `rank`.
pub(super) fn literal_axis(
    named: &[NamedArg],
    default: i128,
    rank: usize,
) -> Result<usize, String> {
    let axis = match named_value(named, "axis") {
        Some(a) => int_value(&a).ok_or("derive: a literal axis")?,
        None => default,
    };
    normalise(axis, rank)
}

/// `keepdims = true`.
pub(super) fn keepdims() -> (&'static str, Expr) {
    (
        "keepdims",
        Expr::Lit(LitValue::Bool(true), Span::call_site()),
    )
}
