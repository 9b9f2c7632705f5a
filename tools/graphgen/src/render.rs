//! A graph as `graph!` source text.

use crate::ast::{Arg, Expr, Graph, IndexItem, Lit, TargetDim};

pub fn lit(l: &Lit) -> String {
    match l {
        Lit::Int(v) => v.to_string(),
        Lit::Bool(b) => b.to_string(),
        Lit::Float(f) if f.is_nan() => "nan".into(),
        Lit::Float(f) if f.is_infinite() => if *f > 0.0 { "inf" } else { "-inf" }.into(),
        Lit::Float(f) => format!("{f:?}"),
    }
}

pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Var(v) => v.clone(),
        Expr::Lit(l) => lit(l),
        Expr::Bin(op, a, b) => format!("({} {} {})", expr(a), op.token(), expr(b)),
        Expr::Neg(a) => format!("(-{})", expr(a)),
        Expr::Not(a) => format!("(!{})", expr(a)),
        Expr::Cast(a, d) => format!("({} as {d})", expr(a)),
        Expr::Call(c) => {
            let mut parts: Vec<String> = c.args.iter().map(arg).collect();
            parts.extend(c.named.iter().map(|(n, a)| format!("{n} = {}", arg(a))));
            format!("{}({})", c.f, parts.join(", "))
        }
        Expr::Index(x, items) => format!(
            "{}[{}]",
            expr(x),
            join(items, |i| match i {
                IndexItem::At(k) => k.to_string(),
                IndexItem::NewAxis => "None".into(),
                IndexItem::Ellipsis => "...".into(),
                IndexItem::Range(a, b, c) => {
                    let o = |v: &Option<i64>| v.map_or(String::new(), |v| v.to_string());
                    match c {
                        Some(c) => format!("{}:{}:{}", o(a), o(b), c),
                        None => format!("{}:{}", o(a), o(b)),
                    }
                }
            })
        ),
    }
}

fn join<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(", ")
}

pub fn arg(a: &Arg) -> String {
    match a {
        Arg::E(e) => expr(e),
        Arg::Int(i) => i.to_string(),
        Arg::Ints(v) => format!("[{}]", join(v, |i| i.to_string())),
        Arg::Pattern(p) => format!(
            "[{}]",
            join(p, |x| x.map_or("'x'".to_string(), |a| a.to_string()))
        ),
        Arg::Dims(d) => format!(
            "[{}]",
            join(d, |t| match t {
                TargetDim::Dim(d) => d.to_string(),
                TargetDim::Infer => "-1".into(),
            })
        ),
        Arg::Bool(b) => b.to_string(),
        Arg::Dim(d) => d.to_string(),
        Arg::DType(d) => d.name().into(),
        Arg::Word(w) => (*w).into(),
        Arg::List(v) => format!("[{}]", join(v, expr)),
        Arg::Str(s) => format!("{s:?}"),
    }
}

fn params(g: &Graph) -> String {
    join(&g.params, |p| match &p.dims {
        None => format!("{}: {}", p.name, p.dtype),
        Some(d) => format!("{}: {}[{}]", p.name, p.dtype, join(d, |d| d.to_string())),
    })
}

/// The output type and the block `{ lets; outputs }`.
fn ret_and_block(g: &Graph) -> (String, String) {
    let outs: Vec<String> = g.out_types.iter().map(|t| t.text()).collect();
    let (ret, body) = if outs.len() == 1 {
        (outs[0].clone(), expr(&g.outputs[0]))
    } else {
        (
            format!("({})", outs.join(", ")),
            format!("({})", join(&g.outputs, expr)),
        )
    };
    let mut s = "{\n".to_string();
    for (name, e) in &g.lets {
        if name.contains(',') {
            s += &format!("    let ({name}) = {};\n", expr(e));
        } else {
            s += &format!("    let {name} = {};\n", expr(e));
        }
    }
    s += &format!("    {body}\n}}");
    (ret, s)
}

/// The item `fn name(params) -> outs { lets; outputs }`.
pub fn graph(g: &Graph) -> String {
    let (ret, block) = ret_and_block(g);
    format!("fn {}({}) -> {ret} {block}\n", g.name, params(g))
}

/// The closure form `|params| -> outs { lets; outputs }` (`typed`: with `-> outs`).
pub fn closure(g: &Graph, typed: bool) -> String {
    let (ret, block) = ret_and_block(g);
    if typed {
        format!("|{}| -> {ret} {block}", params(g))
    } else {
        format!("|{}| {block}", params(g))
    }
}
