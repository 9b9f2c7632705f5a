//! The interpreter: a graph over the scalar reference semantics (value.rs), op by op on
//! whole tensors, written from docs/language.md and NOTES.md. It shares no code with the
//! macro: shapes, broadcasting, reductions, views and reorganisations are index loops
//! here; per-element values come from `tensor_core::reference`.

use std::collections::HashMap;

use crate::ast::*;
use crate::gen::slice_indices;
use crate::types::{promote, DType, Dim};
use crate::value::{apply, cast, round_store_e, ANY_F, E};
use DType::*;

mod vision;

/// A tensor value: row-major elements.
#[derive(Clone, Debug)]
pub struct T {
    pub dtype: DType,
    pub dims: Vec<usize>,
    pub data: Vec<E>,
}

impl T {
    fn scalar(dtype: DType, e: E) -> T {
        T {
            dtype,
            dims: vec![],
            data: vec![e],
        }
    }
}

/// Why a graph does not produce outputs for these inputs.
#[derive(Debug, PartialEq)]
pub enum Fail {
    /// The call must return `Err` (an empty named axis of `max`/`min`/`argmax`/`argmin`).
    EmptyAxis,
    /// The call must return `Err`: a named axis sliced with literal bounds is shorter
    /// than the bounds need (one of them would be clamped).
    ShortAxis,
    /// The call must return `Err(IndexOutOfRange)`: an index or label parameter holds one
    /// outside its axis.
    IndexOutOfRange,
}

fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

fn count(dims: &[usize]) -> usize {
    dims.iter().product()
}

/// The multi-index of flat position `i`.
fn unflatten(mut i: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for a in (0..dims.len()).rev() {
        if dims[a] > 0 {
            idx[a] = i % dims[a];
            i /= dims[a];
        }
    }
    idx
}

fn flatten(idx: &[usize], dims: &[usize]) -> usize {
    idx.iter().zip(strides(dims)).map(|(i, s)| i * s).sum()
}

/// Right-aligned broadcasting of run-time extents.
fn broadcast_dims(a: &[usize], b: &[usize]) -> Vec<usize> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|i| {
            let x = (i + a.len()).checked_sub(r).map_or(1, |k| a[k]);
            let y = (i + b.len()).checked_sub(r).map_or(1, |k| b[k]);
            if x == 1 {
                y
            } else {
                x
            }
        })
        .collect()
}

/// Element of `t` read at output index `idx` of a broadcast result.
fn read_bcast(t: &T, idx: &[usize]) -> E {
    let off = idx.len() - t.dims.len();
    let mut flat = 0;
    let st = strides(&t.dims);
    for a in 0..t.dims.len() {
        let i = if t.dims[a] == 1 { 0 } else { idx[a + off] };
        flat += i * st[a];
    }
    t.data[flat]
}

fn zip(ts: &[&T], dtype: DType, f: impl Fn(&[E]) -> E) -> T {
    let mut dims: Vec<usize> = vec![];
    for t in ts {
        dims = broadcast_dims(&dims, &t.dims);
    }
    let n = count(&dims);
    let data = (0..n)
        .map(|i| {
            let idx = unflatten(i, &dims);
            let args: Vec<E> = ts.iter().map(|t| read_bcast(t, &idx)).collect();
            f(&args)
        })
        .collect();
    T { dtype, dims, data }
}

pub fn convert(t: &T, to: DType) -> T {
    if t.dtype == to {
        return t.clone();
    }
    T {
        dtype: to,
        dims: t.dims.clone(),
        data: t.data.iter().map(|&e| cast(t.dtype, e, to)).collect(),
    }
}

fn lit_value(l: &Lit, d: DType) -> E {
    match (l, d) {
        (Lit::Bool(b), _) => E::B(*b),
        (Lit::Int(i), d) if d.is_float() => E::F(*i as f64),
        (Lit::Int(i), _) => E::I(*i),
        (Lit::Float(f), _) => E::F(*f),
    }
}

fn is_compare(f: &str) -> bool {
    matches!(
        f,
        "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal"
    )
}

/// The hull of two elements (a `where` whose condition is unknown).
fn either(a: E, b: E) -> E {
    // `0.0 == -0.0`: two zeros of different signs are a range of both (seed 48, graph 754:
    // an undetermined `where` between `+0.0` and `-0.0`).
    let signs_differ = matches!((a, b), (E::F(x), E::F(y)) if x.to_bits() != y.to_bits());
    if a == b && !signs_differ {
        return a;
    }
    match (a.bounds(), b.bounds()) {
        (Some((l1, h1, n1)), Some((l2, h2, n2))) => E::range(l1.min(l2), h1.max(h2), n1 || n2),
        _ => E::Any,
    }
}

struct Interp<'a> {
    env: HashMap<String, T>,
    /// The static dims of every parameter and `let` (which axes are named).
    types: HashMap<String, Vec<Dim>>,
    sizes: &'a HashMap<&'static str, usize>,
}

/// Runs `g` on `inputs` (one per parameter, in order; a bare scalar as rank 0) with the
/// named dims bound to `sizes`. Outputs are rounded to their storage formats.
pub fn run(g: &Graph, inputs: &[T], sizes: &HashMap<&'static str, usize>) -> Result<Vec<T>, Fail> {
    let mut it = Interp {
        env: HashMap::new(),
        types: HashMap::new(),
        sizes,
    };
    for (p, t) in g.params.iter().zip(inputs) {
        it.env.insert(p.name.clone(), t.clone());
        it.types.insert(p.name.clone(), p.ty().dims);
    }
    for ((name, _), ty) in g.lets.iter().zip(&g.let_types) {
        it.types.insert(name.clone(), ty.dims.clone());
    }
    for (name, ty) in &g.parts {
        it.types.insert(name.clone(), ty.dims.clone());
    }
    // Call entry evaluates every dim expression: a negative one is an `Err`.
    let size = |n: &str| sizes[n] as i64;
    let all_dims = g
        .let_types
        .iter()
        .chain(g.parts.iter().map(|p| &p.1))
        .chain(&g.out_types)
        .flat_map(|t| t.dims.iter());
    for d in all_dims {
        if d.eval(&size) < 0 {
            return Err(Fail::ShortAxis);
        }
    }
    for (name, e) in &g.lets {
        if name.contains(',') {
            let Expr::Call(c) = e else {
                panic!("a tuple op")
            };
            let parts = it.tuple(c)?;
            for (n, t) in name.split(", ").zip(parts) {
                it.env.insert(n.to_string(), t);
            }
            continue;
        }
        let v = it.eval(e)?;
        it.env.insert(name.clone(), v);
    }
    let mut outs = Vec::new();
    for e in &g.outputs {
        let t = it.eval(e)?;
        let d = t.dtype;
        outs.push(T {
            dtype: d,
            dims: t.dims,
            data: t.data.into_iter().map(|x| round_store_e(d, x)).collect(),
        });
    }
    Ok(outs)
}

impl Interp<'_> {
    fn dim(&self, d: &Dim) -> usize {
        match d {
            Dim::Lit(n) => *n,
            d => d.eval(&|n| self.sizes[n] as i64).max(0) as usize,
        }
    }

    fn eval(&mut self, e: &Expr) -> Result<T, Fail> {
        Ok(match e {
            Expr::Var(v) => self.env[v].clone(),
            Expr::Lit(_) => panic!("a literal reaches eval only beside a strong operand"),
            Expr::Bin(BinOp::MatMul, a, b) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                self.matmul(&a, &b, None)
            }
            Expr::Bin(op, a, b) => {
                let (a, b) = self.pair(a, b)?;
                binary(op.function(), &a, &b)
            }
            Expr::Neg(a) => unary("neg", &self.eval(a)?, &[]),
            Expr::Not(a) => unary("bitwise_not", &self.eval(a)?, &[]),
            Expr::Cast(a, d) => convert(&self.eval(a)?, *d),
            Expr::Call(c) => self.call(c)?,
            Expr::Index(x, items) => {
                let x = self.eval(x)?;
                index_sugar(&x, items)
            }
        })
    }

    /// Two operands, a weak literal taking the other's dtype.
    fn pair(&mut self, a: &Expr, b: &Expr) -> Result<(T, T), Fail> {
        Ok(match (a, b) {
            (Expr::Lit(l), b) => {
                let b = self.eval(b)?;
                (T::scalar(b.dtype, lit_value(l, b.dtype)), b)
            }
            (a, Expr::Lit(l)) => {
                let a = self.eval(a)?;
                let l = T::scalar(a.dtype, lit_value(l, a.dtype));
                (a, l)
            }
            (a, b) => (self.eval(a)?, self.eval(b)?),
        })
    }

    fn operand(&mut self, a: &Arg, like: &T) -> Result<T, Fail> {
        match a {
            Arg::E(Expr::Lit(l)) => Ok(T::scalar(like.dtype, lit_value(l, like.dtype))),
            Arg::E(e) => self.eval(e),
            _ => panic!("an operand"),
        }
    }

    fn call(&mut self, c: &Call) -> Result<T, Fail> {
        let named = |n: &str| c.named.iter().find(|(k, _)| *k == n).map(|(_, a)| a);
        let int = |n: &str| match named(n) {
            Some(Arg::Int(i)) => Some(*i),
            _ => None,
        };
        let flag = |n: &str| matches!(named(n), Some(Arg::Bool(true)));
        let dtype = |n: &str| match named(n) {
            Some(Arg::DType(d)) => Some(*d),
            _ => None,
        };
        let expr = |i: usize| match &c.args[i] {
            Arg::E(e) => e.clone(),
            _ => panic!("a tensor argument"),
        };
        let f = c.f;
        match f {
            "where" => {
                let cond = self.eval(&expr(0))?;
                let (a, b) = self.pair(&expr(1), &expr(2))?;
                let p = promote(a.dtype, b.dtype).expect("branches promote");
                let (a, b) = (convert(&a, p), convert(&b, p));
                Ok(zip(&[&cond, &a, &b], p, |v| match v[0] {
                    E::B(true) => v[1],
                    E::B(false) => v[2],
                    _ => either(v[1], v[2]),
                }))
            }
            "max" | "min" | "add" | "sum_of" | "mean_of"
                if c.args.len() >= 2 && c.named.is_empty() =>
            {
                let op = match f {
                    "max" => "max",
                    "min" => "min",
                    _ => "add",
                };
                let (a, b) = self.pair(&expr(0), &expr(1))?;
                let mut acc = binary(op, &a, &b);
                for arg in &c.args[2..] {
                    let rhs = self.operand(arg, &acc)?;
                    acc = binary(op, &acc, &rhs);
                }
                if f == "mean_of" {
                    let n = T::scalar(acc.dtype, E::F(c.args.len() as f64));
                    acc = binary("div", &acc, &n);
                }
                Ok(acc)
            }
            _ if c.args.len() == 2 && is_binary_fn(f) => {
                let (a, b) = self.pair(&expr(0), &expr(1))?;
                if f == "matmul" {
                    return Ok(self.matmul(&a, &b, dtype("acc")));
                }
                Ok(binary(f, &a, &b))
            }
            "clip" | "clamp" => {
                let mut x = self.eval(&expr(0))?;
                if let Some(a) = named("min") {
                    let lo = self.operand(a, &x)?;
                    x = binary("max", &x, &lo);
                }
                if let Some(b) = named("max") {
                    let hi = self.operand(b, &x)?;
                    x = binary("min", &x, &hi);
                }
                Ok(x)
            }
            "prelu" => {
                let x = self.eval(&expr(0))?;
                let slope = self.operand(&c.args[1], &x)?;
                let zero = T::scalar(x.dtype, E::F(0.0));
                let neg = binary("less", &x, &zero);
                let scaled = binary("mul", &x, &slope);
                let p = promote(scaled.dtype, x.dtype).unwrap();
                let (a, b) = (convert(&scaled, p), convert(&x, p));
                Ok(zip(&[&neg, &a, &b], p, |v| match v[0] {
                    E::B(true) => v[1],
                    E::B(false) => v[2],
                    _ => either(v[1], v[2]),
                }))
            }
            "sum" | "prod" | "reduce_l1" | "reduce_sum_square" | "mean" | "reduce_l2"
            | "reduce_log_sum" | "reduce_log_sum_exp" | "max" | "min" | "any" | "all"
            | "argmax" | "argmin" => {
                let x = self.eval(&expr(0))?;
                let axes = axes_of(named("axis"), x.dims.len());
                self.reduce(f, &x, axes, flag("keepdims"), dtype("dtype"), dtype("acc"))
            }
            "softmax" | "logsoftmax" => {
                let x = self.eval(&expr(0))?;
                let axis = axes_of(named("axis"), x.dims.len()).map_or(x.dims.len() - 1, |a| a[0]);
                Ok(softmax(f, &x, axis))
            }
            "cumsum" | "cumprod" => {
                let x = self.eval(&expr(0))?;
                let axis = axes_of(named("axis"), x.dims.len()).unwrap()[0];
                let base = if f == "cumsum" { "sum" } else { "prod" };
                let (out, acc) = reduce_dtypes(base, x.dtype, dtype("dtype"), dtype("acc"));
                Ok(scan(
                    f == "cumsum",
                    &x,
                    axis,
                    flag("exclusive"),
                    flag("reverse"),
                    out,
                    acc,
                ))
            }
            "transpose" | "dimshuffle" | "expand_dims" | "squeeze" | "broadcast_to" | "reshape" => {
                let x = self.eval(&expr(0))?;
                Ok(self.shape_op(f, &x, c.args.get(1)))
            }
            "slice" | "flip" | "pad" | "tile" => {
                let x = self.eval(&expr(0))?;
                Ok(match f {
                    "slice" => {
                        let a = norm_axis(int("axis").unwrap(), x.dims.len());
                        let step = int("step").unwrap_or(1);
                        let named_axis = match &c.args[0] {
                            Arg::E(Expr::Var(v)) => !self.types[v][a].is_lit(),
                            _ => false,
                        };
                        if named_axis {
                            // Literal bounds on a named axis: the call checks that
                            // neither is clamped (unless the slice is empty anyway).
                            let n = x.dims[a] as i64;
                            let clamped = |v: i64| {
                                let v = if v < 0 { v + n } else { v };
                                if step > 0 {
                                    !(0..=n).contains(&v)
                                } else {
                                    !(-1..n).contains(&v)
                                }
                            };
                            let (s, e) = (int("start"), int("end"));
                            let whole =
                                e.is_none() && s.is_none_or(|s| s == if step > 0 { 0 } else { -1 });
                            // (Bounds from one end only: from both, the length is an
                            // expression and the axis must be long enough.)
                            let empty = s.is_some()
                                && e.is_some()
                                && (s.unwrap() < 0) == (e.unwrap() < 0)
                                && slice_indices(1 << 20, s, e, step).is_empty();
                            if !whole
                                && !empty
                                && (s.is_some_and(clamped) || e.is_some_and(clamped))
                            {
                                return Err(Fail::ShortAxis);
                            }
                            // Bounds from both ends: a negative length is an `Err`.
                            let at = |b: i64| if b < 0 { b + n } else { b };
                            let len = if step > 0 {
                                let (s, e) = (s.map_or(0, at), e.map_or(n, at));
                                (e - s + step - 1).div_euclid(step)
                            } else {
                                let (s, e) = (s.map_or(n - 1, at), e.map_or(-1, at));
                                (s - e - step - 1).div_euclid(-step)
                            };
                            if !empty && len < 0 {
                                return Err(Fail::ShortAxis);
                            }
                        }
                        let idx = slice_indices(x.dims[a] as i64, int("start"), int("end"), step);
                        gather_axis(
                            &x,
                            a,
                            &idx.into_iter().map(Some).collect::<Vec<_>>(),
                            E::Any,
                        )
                    }
                    "flip" => {
                        let axes = axes_of(named("axis"), x.dims.len())
                            .unwrap_or_else(|| (0..x.dims.len()).collect());
                        let mut t = x.clone();
                        for a in axes {
                            let n = t.dims[a];
                            let idx: Vec<Option<usize>> = (0..n).rev().map(Some).collect();
                            t = gather_axis(&t, a, &idx, E::Any);
                        }
                        t
                    }
                    "pad" => {
                        let Arg::Ints(pads) = &c.args[1] else {
                            panic!("pads")
                        };
                        let value = match named("value") {
                            Some(a) => self.operand(a, &x)?.data[0],
                            None => convert(&T::scalar(I64, E::I(0)), x.dtype).data[0],
                        };
                        let mode = match named("mode") {
                            Some(Arg::Word(w)) => *w,
                            _ => "constant",
                        };
                        let mut t = x.clone();
                        for a in 0..x.dims.len() {
                            let (b, e) = (pads[2 * a], pads[2 * a + 1]);
                            let n = t.dims[a] as i64;
                            // A symbolic axis: `edge` needs an element, `reflect` more
                            // than either count (checked at call entry).
                            let symbolic = match &c.args[0] {
                                Arg::E(Expr::Var(v)) => !self.types[v][a].is_lit(),
                                _ => false,
                            };
                            if symbolic
                                && (b, e) != (0, 0)
                                && match mode {
                                    "edge" => n < 1,
                                    "reflect" => n <= b.max(e),
                                    _ => false,
                                }
                            {
                                return Err(Fail::ShortAxis);
                            }
                            let idx: Vec<Option<usize>> = (-b..n + e)
                                .map(|i| {
                                    if (0..n).contains(&i) {
                                        Some(i as usize)
                                    } else {
                                        match mode {
                                            "reflect" => {
                                                Some(if i < 0 { -i } else { 2 * (n - 1) - i }
                                                    as usize)
                                            }
                                            "edge" => Some(i.clamp(0, n - 1) as usize),
                                            _ => None,
                                        }
                                    }
                                })
                                .collect();
                            t = gather_axis(&t, a, &idx, value);
                        }
                        t
                    }
                    _ => {
                        let Arg::Ints(reps) = &c.args[1] else {
                            panic!("reps")
                        };
                        let mut t = x.clone();
                        for a in 0..x.dims.len() {
                            let n = t.dims[a];
                            let idx: Vec<Option<usize>> = (0..n * reps[a] as usize)
                                .map(|i| Some(i % n.max(1)))
                                .collect();
                            t = gather_axis(&t, a, &idx, E::Any);
                        }
                        t
                    }
                })
            }
            "gather" | "gather_elements" => {
                let x = self.eval(&expr(0))?;
                let ids = self.eval(&expr(1))?;
                let a = norm_axis(int("axis").unwrap_or(0), x.dims.len());
                let n = x.dims[a] as i128;
                let mut pos = Vec::new();
                for e in &ids.data {
                    let E::I(i) = *e else {
                        panic!("an integer index")
                    };
                    if i < -n || i >= n {
                        return Err(Fail::IndexOutOfRange);
                    }
                    pos.push(if i < 0 { i + n } else { i } as usize);
                }
                let dims: Vec<usize> = if f == "gather" {
                    let mut d = x.dims[..a].to_vec();
                    d.extend(&ids.dims);
                    d.extend(&x.dims[a + 1..]);
                    d
                } else {
                    ids.dims.clone()
                };
                let r = ids.dims.len();
                let data = (0..count(&dims))
                    .map(|k| {
                        let o = unflatten(k, &dims);
                        let src: Vec<usize> = if f == "gather" {
                            let mut s = o[..a].to_vec();
                            s.push(pos[flatten(&o[a..a + r], &ids.dims)]);
                            s.extend(&o[a + r..]);
                            s
                        } else {
                            let mut s = o.clone();
                            s[a] = pos[k];
                            s
                        };
                        x.data[flatten(&src, &x.dims)]
                    })
                    .collect();
                Ok(T {
                    dtype: x.dtype,
                    dims,
                    data,
                })
            }
            "one_hot" => {
                let ids = self.eval(&expr(0))?;
                let depth = match named("depth") {
                    Some(Arg::Dim(d)) => self.dim(d),
                    _ => panic!("depth"),
                };
                let d = dtype("dtype").unwrap_or(F32);
                let lit = |n: &str, v: i128| match named(n) {
                    Some(Arg::E(Expr::Lit(Lit::Int(i)))) => *i,
                    _ => v,
                };
                let on = convert(&T::scalar(I64, E::I(lit("on", 1))), d).data[0];
                let off = convert(&T::scalar(I64, E::I(lit("off", 0))), d).data[0];
                let rank = ids.dims.len();
                let at = match int("axis") {
                    Some(w) if w < 0 => (w + rank as i64 + 1) as usize,
                    Some(w) => w as usize,
                    None => rank,
                };
                let mut dims = ids.dims.clone();
                dims.insert(at, depth);
                let data = (0..count(&dims))
                    .map(|k| {
                        let mut o = unflatten(k, &dims);
                        let j = o.remove(at) as i128;
                        // An index not determined (a cast of a range) leaves its row so.
                        let E::I(i) = ids.data[flatten(&o, &ids.dims)] else {
                            return E::Any;
                        };
                        let dd = depth as i128;
                        let i = if i < 0 { i + dd } else { i };
                        if i == j && (0..dd).contains(&i) {
                            on
                        } else {
                            off
                        }
                    })
                    .collect();
                Ok(T {
                    dtype: d,
                    dims,
                    data,
                })
            }
            "arange" | "eye" => {
                let d = dtype("dtype").unwrap_or(if f == "arange" { I64 } else { F32 });
                let dim = |i: usize| match &c.args[i] {
                    Arg::Dim(d) => self.dim(d),
                    _ => panic!("a dim"),
                };
                if f == "arange" {
                    let n = dim(0);
                    let t = T {
                        dtype: I64,
                        dims: vec![n],
                        data: (0..n).map(|i| E::I(i as i128)).collect(),
                    };
                    return Ok(convert(&t, d));
                }
                let (r, cc) = (dim(0), if c.args.len() > 1 { dim(1) } else { dim(0) });
                let k = int("k").unwrap_or(0);
                let one = convert(&T::scalar(Bool, E::B(true)), d).data[0];
                let zero = convert(&T::scalar(Bool, E::B(false)), d).data[0];
                let data = (0..r * cc)
                    .map(|p| {
                        if (p % cc) as i64 - (p / cc) as i64 == k {
                            one
                        } else {
                            zero
                        }
                    })
                    .collect();
                Ok(T {
                    dtype: d,
                    dims: vec![r, cc],
                    data,
                })
            }
            "tril" | "triu" => {
                let x = self.eval(&expr(0))?;
                let k = int("k").unwrap_or(0);
                let zero = convert(&T::scalar(Bool, E::B(false)), x.dtype).data[0];
                let r = x.dims.len();
                let mut t = x.clone();
                for (p, v) in t.data.iter_mut().enumerate() {
                    let o = unflatten(p, &x.dims);
                    let diff = o[r - 1] as i64 - o[r - 2] as i64;
                    let keep = if f == "tril" { diff <= k } else { diff >= k };
                    if !keep {
                        *v = zero;
                    }
                }
                Ok(t)
            }
            "sort" | "argsort" => {
                let x = self.eval(&expr(0))?;
                let a = norm_axis(int("axis").unwrap_or(-1), x.dims.len());
                let n = x.dims[a];
                let (v, i) = top_k(&x, a, n, !flag("descending") == false);
                Ok(if f == "sort" { v } else { i })
            }
            "softmax_cross_entropy" | "nll_loss" => {
                let x = self.eval(&expr(0))?;
                let labels = self.eval(&expr(1))?;
                let w = match named("weight") {
                    Some(a) => Some(self.operand(a, &x)?),
                    None => None,
                };
                let ignore = int("ignore_index");
                let reduction = match named("reduction") {
                    Some(Arg::Word(w)) => *w,
                    _ => "mean",
                };
                loss(f, &x, &labels, w.as_ref(), ignore, reduction)
            }
            "attention" => {
                let q = self.eval(&expr(0))?;
                let k = self.eval(&expr(1))?;
                let v = self.eval(&expr(2))?;
                let mask = match named("attn_mask") {
                    Some(Arg::E(e)) => Some(self.eval(e)?),
                    _ => None,
                };
                let lit = |n: &str| match named(n) {
                    Some(Arg::E(Expr::Lit(Lit::Float(x)))) => Some(*x),
                    _ => None,
                };
                Ok(attention(
                    &q,
                    &k,
                    &v,
                    mask.as_ref(),
                    flag("is_causal"),
                    lit("scale"),
                    lit("softcap").unwrap_or(0.0),
                ))
            }
            "conv" | "max_pool" | "average_pool" => {
                let x = self.eval(&expr(0))?;
                let ints = |n: &str| match named(n) {
                    Some(Arg::Ints(v)) => v.iter().map(|&i| i as usize).collect(),
                    _ => Vec::new(),
                };
                let mut geo = vision::Geometry {
                    kernel: ints("kernel_shape"),
                    strides: ints("strides"),
                    dilations: ints("dilations"),
                    pads: ints("pads"),
                };
                if f != "conv" {
                    return Ok(vision::pool(
                        &x,
                        &geo,
                        (f == "average_pool").then(|| flag("count_include_pad")),
                    ));
                }
                let w = self.eval(&expr(1))?;
                geo.kernel = w.dims[2..].to_vec();
                let bias = match c.args.get(2) {
                    Some(Arg::E(e)) => Some(self.eval(e)?),
                    _ => None,
                };
                let group = int("group").unwrap_or(1) as usize;
                Ok(vision::conv(&x, &w, bias.as_ref(), &geo, group))
            }
            "einsum" => {
                let Arg::Str(subscripts) = &c.args[0] else {
                    panic!("einsum's subscripts")
                };
                let ops: Vec<T> = c.args[1..]
                    .iter()
                    .map(|a| match a {
                        Arg::E(e) => self.eval(e),
                        _ => panic!("an einsum operand"),
                    })
                    .collect::<Result<_, _>>()?;
                Ok(einsum(subscripts, &ops))
            }
            "quantize_linear" | "dequantize_linear" => {
                let x = self.eval(&expr(0))?;
                let scale = self.eval(&expr(1))?;
                let zp = self.eval(&expr(2))?;
                Ok(quantization(f == "quantize_linear", &x, &scale, &zp))
            }
            "layer_norm" | "rms_norm" | "l2_normalize" => {
                let x = self.eval(&expr(0))?;
                let rank = x.dims.len();
                let first = axes_of(named("axis"), rank).map_or(rank - 1, |a| a[0]);
                let axes: Vec<usize> = if f == "l2_normalize" {
                    vec![first]
                } else {
                    (first..rank).collect()
                };
                let cd = x.dtype.compute();
                let eps = match named("eps") {
                    Some(Arg::E(Expr::Lit(Lit::Float(v)))) => *v,
                    _ if f == "layer_norm" => 1e-5,
                    _ => 1e-6,
                };
                let eps = T::scalar(cd, E::F(if cd == F32 { eps as f32 as f64 } else { eps }));
                let mut scales = Vec::new();
                for a in &c.args[1..] {
                    let t = self.operand(a, &T::scalar(cd, E::F(0.0)))?;
                    scales.push(convert(&t, cd));
                }
                Ok(self.normalise(f, &x, &axes, &eps, &scales))
            }
            "concat" => {
                let Arg::List(parts) = &c.args[0] else {
                    panic!("parts")
                };
                let parts: Vec<T> = parts
                    .iter()
                    .map(|e| self.eval(e))
                    .collect::<Result<_, _>>()?;
                let a = norm_axis(int("axis").unwrap(), parts[0].dims.len());
                let p = parts
                    .iter()
                    .skip(1)
                    .fold(parts[0].dtype, |d, t| promote(d, t.dtype).unwrap());
                let parts: Vec<T> = parts.iter().map(|t| convert(t, p)).collect();
                Ok(concat(&parts, a))
            }
            _ => {
                // Elementwise unary, with named float parameters.
                let x = self.eval(&expr(0))?;
                let params = activation_params(f, c, &self.env);
                Ok(unary(f, &x, &params))
            }
        }
    }

    fn shape_op(&self, f: &str, x: &T, arg: Option<&Arg>) -> T {
        let rank = x.dims.len();
        match (f, arg) {
            ("transpose", Some(Arg::Ints(p))) => permute(
                x,
                &p.iter()
                    .map(|&a| Some(norm_axis(a, rank)))
                    .collect::<Vec<_>>(),
            ),
            ("transpose", None) => permute(x, &(0..rank).rev().map(Some).collect::<Vec<_>>()),
            ("dimshuffle", Some(Arg::Pattern(p))) => permute(x, p),
            ("expand_dims", Some(Arg::Int(a))) => {
                let at = norm_axis(*a, rank + 1);
                let mut dims = x.dims.clone();
                dims.insert(at, 1);
                T {
                    dtype: x.dtype,
                    dims,
                    data: x.data.clone(),
                }
            }
            ("squeeze", arg) => {
                let dims = match arg {
                    Some(Arg::Int(a)) => {
                        let mut d = x.dims.clone();
                        d.remove(norm_axis(*a, rank));
                        d
                    }
                    _ => x.dims.iter().copied().filter(|&d| d != 1).collect(),
                };
                T {
                    dtype: x.dtype,
                    dims,
                    data: x.data.clone(),
                }
            }
            ("broadcast_to", Some(Arg::Dims(t))) | ("reshape", Some(Arg::Dims(t))) => {
                let mut dims: Vec<usize> = Vec::new();
                let mut infer = None;
                for (i, d) in t.iter().enumerate() {
                    match d {
                        TargetDim::Dim(d) => dims.push(self.dim(d)),
                        TargetDim::Infer => {
                            infer = Some(i);
                            dims.push(1);
                        }
                    }
                }
                if let Some(i) = infer {
                    dims[i] = count(&x.dims) / count(&dims).max(1);
                }
                if f == "reshape" {
                    T {
                        dtype: x.dtype,
                        dims,
                        data: x.data.clone(),
                    }
                } else {
                    let n = count(&dims);
                    let data = (0..n)
                        .map(|i| read_bcast(x, &unflatten(i, &dims)))
                        .collect();
                    T {
                        dtype: x.dtype,
                        dims,
                        data,
                    }
                }
            }
            _ => panic!("shape op {f} {arg:?}"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce(
        &self,
        f: &str,
        x: &T,
        axes: Option<Vec<usize>>,
        keepdims: bool,
        dtype: Option<DType>,
        acc: Option<DType>,
    ) -> Result<T, Fail> {
        let rank = x.dims.len();
        let axes = axes.unwrap_or_else(|| (0..rank).collect());
        let out_dims: Vec<usize> = (0..rank)
            .map(|a| if axes.contains(&a) { 1 } else { x.dims[a] })
            .collect();
        let red_dims: Vec<usize> = axes.iter().map(|&a| x.dims[a]).collect();
        let mut sorted = axes.clone();
        sorted.sort();
        let red_sorted: Vec<usize> = sorted.iter().map(|&a| x.dims[a]).collect();
        let _ = red_dims;
        let n = count(&red_sorted);
        if n == 0 && matches!(f, "max" | "min" | "argmax" | "argmin") && count(&out_dims) > 0 {
            return Err(Fail::EmptyAxis);
        }
        if n == 0 && matches!(f, "max" | "min" | "argmax" | "argmin") {
            // An empty output: the call still checks the named axis at entry.
            return Err(Fail::EmptyAxis);
        }
        let (out, accd) = reduce_dtypes(f, x.dtype, dtype, acc);
        let mut data = Vec::new();
        for o in 0..count(&out_dims) {
            let oidx = unflatten(o, &out_dims);
            let group: Vec<E> = (0..n)
                .map(|r| {
                    let ridx = unflatten(r, &red_sorted);
                    let mut idx = oidx.clone();
                    for (k, &a) in sorted.iter().enumerate() {
                        idx[a] = ridx[k];
                    }
                    x.data[flatten(&idx, &x.dims)]
                })
                .collect();
            data.push(reduce_group(f, x.dtype, &group, accd, out));
        }
        let dims = if keepdims {
            out_dims
        } else {
            (0..rank)
                .filter(|a| !axes.contains(a))
                .map(|a| x.dims[a])
                .collect()
        };
        Ok(T {
            dtype: out,
            dims,
            data,
        })
    }

    /// The normalisations as check/composites.rs states them: in the compute dtype, sums
    /// in f64 (a `mean` divides in f64 and converts back), rounded once into x's dtype.
    fn normalise(&self, f: &str, x: &T, axes: &[usize], eps: &T, scales: &[T]) -> T {
        let c = x.dtype.compute();
        let xc = convert(x, c);
        let n: usize = axes.iter().map(|&a| x.dims[a]).product();
        let sum = |v: &T| -> T {
            let wide = convert(v, F64);
            self.reduce("sum", &wide, Some(axes.to_vec()), true, None, Some(F64))
                .expect("a sum never fails")
        };
        let mean = |v: &T| -> T {
            let s = sum(v);
            let m = binary("div", &s, &T::scalar(F64, E::F(n as f64)));
            convert(&m, c)
        };
        let y = match f {
            "layer_norm" => {
                let mu = mean(&xc);
                let d = binary("sub", &xc, &mu);
                let var = mean(&binary("mul", &d, &d));
                let r = unary("sqrt", &binary("add", &var, eps), &[]);
                let n = binary("div", &d, &r);
                binary("add", &binary("mul", &n, &scales[0]), &scales[1])
            }
            "rms_norm" => {
                let ms = mean(&binary("mul", &xc, &xc));
                let r = unary("sqrt", &binary("add", &ms, eps), &[]);
                binary("mul", &binary("div", &xc, &r), &scales[0])
            }
            _ => {
                let s = convert(&sum(&binary("mul", &xc, &xc)), c);
                binary("div", &xc, &unary("sqrt", &s, &[]))
            }
        };
        convert(&y, x.dtype)
    }

    fn matmul(&self, a: &T, b: &T, acc: Option<DType>) -> T {
        let p = promote(a.dtype, b.dtype).unwrap();
        let (out, accd) = if p.is_float() {
            (p, acc.unwrap_or(if p == F64 { F64 } else { F32 }))
        } else {
            (p.sum_out(), p.sum_out())
        };
        let (a, b) = (convert(a, accd), convert(b, accd));
        let a1 = a.dims.len() == 1;
        let b1 = b.dims.len() == 1;
        let ad = if a1 {
            vec![1, a.dims[0]]
        } else {
            a.dims.clone()
        };
        let bd = if b1 {
            vec![b.dims[0], 1]
        } else {
            b.dims.clone()
        };
        let (m, k, n) = (ad[ad.len() - 2], ad[ad.len() - 1], bd[bd.len() - 1]);
        let batch = broadcast_dims(&ad[..ad.len() - 2], &bd[..bd.len() - 2]);
        let at = T {
            dtype: a.dtype,
            dims: ad.clone(),
            data: a.data.clone(),
        };
        let bt = T {
            dtype: b.dtype,
            dims: bd.clone(),
            data: b.data.clone(),
        };
        let mut full = batch.clone();
        full.extend([m, n]);
        let mut data = Vec::new();
        for o in 0..count(&full) {
            let idx = unflatten(o, &full);
            let (i, j) = (idx[idx.len() - 2], idx[idx.len() - 1]);
            let terms: Vec<(E, E)> = (0..k)
                .map(|kk| {
                    let mut ia = idx[..idx.len() - 2].to_vec();
                    ia.extend([i, kk]);
                    let mut ib = idx[..idx.len() - 2].to_vec();
                    ib.extend([kk, j]);
                    (read_bcast(&at, &ia), read_bcast(&bt, &ib))
                })
                .collect();
            data.push(dot(&terms, accd));
        }
        let mut dims = batch;
        if !a1 {
            dims.push(m);
        }
        if !b1 {
            dims.push(n);
        }
        convert(
            &T {
                dtype: accd,
                dims,
                data,
            },
            out,
        )
    }
}

/// `quantize_linear`: `roundeven(x / scale) + zero_point` in the wider compute dtype,
/// saturated by `as`; `dequantize_linear`: `(q - zero_point)` in i64, converted, times
/// the scale in its compute dtype.
fn quantization(quantize: bool, x: &T, scale: &T, zp: &T) -> T {
    if quantize {
        let c = if x.dtype.compute() == F64 || scale.dtype.compute() == F64 {
            F64
        } else {
            F32
        };
        let (xc, sc, zc) = (convert(x, c), convert(scale, c), convert(zp, c));
        let r = unary("roundeven", &binary("div", &xc, &sc), &[]);
        convert(&binary("add", &r, &zc), zp.dtype)
    } else {
        let c = scale.dtype.compute();
        let d = binary("sub", &convert(x, I64), &convert(zp, I64));
        let y = binary("mul", &convert(&d, c), &convert(scale, c));
        convert(&y, scale.dtype)
    }
}

fn is_binary_fn(f: &str) -> bool {
    matches!(
        f,
        "add"
            | "sub"
            | "mul"
            | "div"
            | "rem"
            | "mod"
            | "pow"
            | "max"
            | "min"
            | "equal"
            | "not_equal"
            | "less"
            | "less_equal"
            | "greater"
            | "greater_equal"
            | "bitwise_and"
            | "bitwise_or"
            | "bitwise_xor"
            | "shift_left"
            | "shift_right"
            | "logical_and"
            | "logical_or"
            | "logical_xor"
            | "matmul"
    )
}

/// The named float parameters of an activation: a literal, a run-time scalar (a bare
/// scalar or rank-0 parameter of the tensor's dtype, read from `env`) or the default.
fn activation_params(f: &str, c: &Call, env: &HashMap<String, T>) -> Vec<f64> {
    let spec: &[(&str, f64)] = match f {
        "leaky_relu" => &[("alpha", 0.01)],
        "thresholded_relu" => &[("alpha", 1.0)],
        "hard_sigmoid" => &[("alpha", 0.2), ("beta", 0.5)],
        "shrink" => &[("lambd", 0.5), ("bias", 0.0)],
        "elu" | "celu" | "swish" => &[("alpha", 1.0)],
        "selu" => &[
            ("alpha", 1.67326319217681884765625),
            ("gamma", 1.05070102214813232421875),
        ],
        _ => &[],
    };
    spec.iter()
        .map(
            |(n, default)| match c.named.iter().find(|(k, _)| k == n).map(|(_, a)| a) {
                Some(Arg::E(Expr::Lit(Lit::Float(v)))) => *v,
                Some(Arg::E(Expr::Lit(Lit::Int(v)))) => *v as f64,
                Some(Arg::E(Expr::Var(name))) => match env[name].data[..] {
                    [E::F(v)] => v,
                    ref other => panic!("a scalar parameter {name} = {other:?}"),
                },
                _ => *default,
            },
        )
        .collect()
}

/// A default parameter is a literal of the tensor's dtype: rounded into it.
fn round_param(d: DType, v: f64) -> f64 {
    crate::value::round_store(d, v)
}

pub fn binary(f: &str, a: &T, b: &T) -> T {
    let p = promote(a.dtype, b.dtype).expect("operands promote");
    let (a, b) = (convert(a, p), convert(b, p));
    let out = if is_compare(f) { Bool } else { p };
    zip(&[&a, &b], out, |v| apply(f, p, v, &[]))
}

pub fn unary(f: &str, x: &T, params: &[f64]) -> T {
    let out = match f {
        "is_nan" | "is_inf" | "is_finite" => Bool,
        "bitwise_count" => U8,
        _ => x.dtype,
    };
    let params: Vec<f64> = params.iter().map(|&p| round_param(x.dtype, p)).collect();
    let d = x.dtype;
    zip(&[x], out, |v| apply(f, d, v, &params))
}

fn norm_axis(a: i64, rank: usize) -> usize {
    if a < 0 {
        (a + rank as i64) as usize
    } else {
        a as usize
    }
}

fn axes_of(a: Option<&Arg>, rank: usize) -> Option<Vec<usize>> {
    match a? {
        Arg::Int(i) => Some(vec![norm_axis(*i, rank)]),
        Arg::Ints(v) => Some(v.iter().map(|&i| norm_axis(i, rank)).collect()),
        _ => None,
    }
}

/// Output and accumulator dtypes of a reduction (docs/language.md, Theano's rules).
pub fn reduce_dtypes(
    f: &str,
    xd: DType,
    dtype: Option<DType>,
    acc: Option<DType>,
) -> (DType, DType) {
    let float_red = matches!(
        f,
        "mean" | "reduce_l2" | "reduce_log_sum" | "reduce_log_sum_exp"
    );
    let out = dtype.unwrap_or(match f {
        "sum" | "prod" | "reduce_l1" | "reduce_sum_square" => xd.sum_out(),
        "mean" if !xd.is_float() => F64,
        "any" | "all" => Bool,
        "argmax" | "argmin" => I64,
        _ => xd,
    });
    let acc = match f {
        "sum" | "prod" | "reduce_l1" | "reduce_sum_square" | "mean" | "reduce_l2"
        | "reduce_log_sum" | "reduce_log_sum_exp" => {
            acc.unwrap_or(if out.is_float() || float_red {
                F64
            } else if out.is_unsigned() {
                U64
            } else {
                I64
            })
        }
        _ => xd,
    };
    (out, acc)
}

const EPS32: f64 = 1.0 / (1u64 << 24) as f64;
const EPS64: f64 = 1.0 / (1u64 << 53) as f64;

fn eps(c: DType) -> f64 {
    if c == F64 {
        EPS64
    } else {
        EPS32
    }
}

/// A float sum in accumulator `c` in any order: within (n + 2)·eps·Σ|x| of the exact
/// sum (the kernel's order and ours each cost at most (n − 1)·eps·Σ|x|).
fn float_sum(terms: &[E], c: DType) -> E {
    if terms.is_empty() {
        return E::F(0.0);
    }
    let mut lo = 0.0;
    let mut hi = 0.0;
    let mut mag = 0.0f64;
    let mut nan = false;
    let (mut pinf, mut ninf) = (false, false);
    let mut only_nan = false;
    let mut exact = true;
    for t in terms {
        match t.bounds() {
            None => return E::Any,
            Some((l, h, n)) => {
                if !t.is_exact() {
                    exact = false;
                }
                nan |= n;
                if l > h {
                    only_nan = true;
                    continue;
                }
                if l == f64::INFINITY || h == f64::INFINITY {
                    if l == f64::INFINITY {
                        pinf = true;
                    } else {
                        return ANY_F;
                    }
                    continue;
                }
                if l == f64::NEG_INFINITY || h == f64::NEG_INFINITY {
                    if h == f64::NEG_INFINITY {
                        ninf = true;
                    } else {
                        return ANY_F;
                    }
                    continue;
                }
                lo += l;
                hi += h;
                mag += l.abs().max(h.abs());
            }
        }
    }
    if only_nan || (pinf && ninf) {
        return if exact {
            E::F(f64::NAN)
        } else {
            E::range(1.0, 0.0, true)
        };
    }
    // Partial sums (or products rounded into the accumulator) that may leave its range
    // make the result depend on the order.
    let max = crate::value::max_of(c);
    if mag >= max / 2.0 {
        return ANY_F;
    }
    if pinf {
        return if exact && !nan {
            E::F(f64::INFINITY)
        } else {
            E::range(f64::INFINITY, f64::INFINITY, nan)
        };
    }
    if ninf {
        return if exact && !nan {
            E::F(f64::NEG_INFINITY)
        } else {
            E::range(f64::NEG_INFINITY, f64::NEG_INFINITY, nan)
        };
    }
    // Relative to Σ|x|, plus where partial sums or products are subnormal an absolute
    // half-spacing per rounding (up to two per term: a product, then the add), which no
    // relative bound covers (seed 9's graph 1545: an f32 product of 3.9e-44 came out one
    // subnormal step lower).
    let tiny = if c == F64 {
        5e-324
    } else {
        1.401298464324817e-45
    };
    let bound = (terms.len() as f64 + 2.0) * eps(c) * mag
        + f64::MIN_POSITIVE
        + (2.0 * terms.len() as f64 + 2.0) * tiny;
    let mut l = lo - bound;
    let mut h = hi + bound;
    if h > max {
        h = f64::INFINITY;
    }
    if l < -max {
        l = f64::NEG_INFINITY;
    }
    E::range(l, h, nan)
}

fn float_prod(terms: &[E], c: DType) -> E {
    let mut p = 1.0f64;
    let mut big = 0.0f64;
    let mut small = 0.0f64;
    let mut exact = true;
    for t in terms {
        match *t {
            E::F(x) => {
                if x.is_nan() {
                    return E::F(f64::NAN);
                }
                p *= x;
                let a = x.abs();
                if a > 1.0 {
                    big += a.log2();
                } else if a > 0.0 && a < 1.0 {
                    small += a.log2();
                }
            }
            _ => exact = false,
        }
    }
    if !exact {
        return ANY_F;
    }
    let (max_e, min_e) = if c == F64 {
        (1023.0, -1021.0)
    } else {
        (127.0, -125.0)
    };
    let has_zero = terms.iter().any(|t| *t == E::F(0.0));
    let has_inf = terms
        .iter()
        .any(|t| matches!(t, E::F(x) if x.is_infinite()));
    if has_zero && has_inf {
        return E::F(f64::NAN);
    }
    // Partial products outside the normal range make the result depend on the order
    // (an overflow times a zero is NaN in one order and 0 in another).
    if big >= max_e - 1.0 || small <= min_e + 24.0 {
        return ANY_F;
    }
    if has_zero {
        return E::range(-0.0, 0.0, false);
    }
    if has_inf {
        return E::F(p.signum() * f64::INFINITY);
    }
    let b = (terms.len() as f64 + 2.0) * eps(c) * p.abs();
    E::range(p - b, p + b, false)
}

/// One output element of a reduction over `group` (input dtype `xd`).
fn reduce_group(f: &str, xd: DType, group: &[E], acc: DType, out: DType) -> E {
    let to_acc: Vec<E> = group.iter().map(|&e| cast(xd, e, acc)).collect();
    let fin = |e: E, from: DType| cast(from, e, out);
    let sum = |terms: &[E]| -> E {
        if acc.is_float() {
            float_sum(terms, acc)
        } else {
            terms
                .iter()
                .fold(E::I(0), |s, &t| apply("add", acc, &[s, t], &[]))
        }
    };
    match f {
        "sum" | "mean" | "reduce_l1" | "reduce_sum_square" | "reduce_l2" | "reduce_log_sum" => {
            let terms: Vec<E> = match f {
                "reduce_l1" => to_acc
                    .iter()
                    .map(|&e| apply("abs", acc, &[e], &[]))
                    .collect(),
                "reduce_sum_square" | "reduce_l2" => to_acc
                    .iter()
                    .map(|&e| apply("mul", acc, &[e, e], &[]))
                    .collect(),
                _ => to_acc,
            };
            let s = sum(&terms);
            let r = match f {
                "mean" => {
                    let n = cast(I64, E::I(group.len() as i128), acc);
                    apply("div", acc, &[s, n], &[])
                }
                "reduce_l2" => apply("sqrt", acc, &[s], &[]),
                "reduce_log_sum" => apply("log", acc, &[s], &[]),
                _ => s,
            };
            fin(r, acc)
        }
        "prod" => {
            let r = if acc.is_float() {
                float_prod(&to_acc, acc)
            } else {
                to_acc
                    .iter()
                    .fold(E::I(1), |s, &t| apply("mul", acc, &[s, t], &[]))
            };
            fin(r, acc)
        }
        "reduce_log_sum_exp" => {
            let m = to_acc.iter().fold(E::F(f64::NEG_INFINITY), |m, &t| {
                apply("max", acc, &[m, t], &[])
            });
            let m_safe = match apply("is_inf", acc, &[m], &[]) {
                E::B(true) => E::F(0.0),
                E::B(false) => m,
                _ => either(m, E::F(0.0)),
            };
            let terms: Vec<E> = to_acc
                .iter()
                .map(|&t| {
                    let d = apply("sub", acc, &[t, m_safe], &[]);
                    apply("exp", acc, &[d], &[])
                })
                .collect();
            let s = sum(&terms);
            let l = apply("log", acc, &[s], &[]);
            fin(apply("add", acc, &[l, m_safe], &[]), acc)
        }
        "max" | "min" => {
            let c = xd;
            let mut r = group[0];
            for &t in &group[1..] {
                r = apply(f, c, &[r, t], &[]);
            }
            r
        }
        "any" | "all" => {
            let bs: Vec<E> = group.iter().map(|&e| cast(xd, e, Bool)).collect();
            let target = f == "any";
            if bs.contains(&E::B(target)) {
                E::B(target)
            } else if bs.contains(&E::Any) {
                E::Any
            } else {
                E::B(!target)
            }
        }
        "argmax" | "argmin" => {
            if group.iter().any(|e| !e.is_exact()) {
                return E::Any;
            }
            let key = |e: E| match e {
                E::B(b) => b as u8 as f64,
                E::I(i) => i as f64,
                E::F(x) => x,
                _ => unreachable!(),
            };
            if xd.is_int() && matches!(xd, U64 | I64) {
                // Exact comparison of 64-bit integers.
                let v: Vec<i128> = group
                    .iter()
                    .map(|e| if let E::I(i) = e { *i } else { 0 })
                    .collect();
                let mut best = 0;
                for i in 1..v.len() {
                    if (f == "argmax" && v[i] > v[best]) || (f == "argmin" && v[i] < v[best]) {
                        best = i;
                    }
                }
                return E::I(best as i128);
            }
            let v: Vec<f64> = group.iter().map(|&e| key(e)).collect();
            if let Some(i) = v.iter().position(|x| x.is_nan()) {
                return E::I(i as i128);
            }
            let mut best = 0;
            for i in 1..v.len() {
                if (f == "argmax" && v[i] > v[best]) || (f == "argmin" && v[i] < v[best]) {
                    best = i;
                }
            }
            // Ties between -0 and +0 depend on how zero signs compare.
            if v[best] == 0.0
                && v.iter()
                    .any(|&x| x == 0.0 && x.is_sign_negative() != v[best].is_sign_negative())
            {
                return E::Any;
            }
            E::I(best as i128)
        }
        _ => panic!("reduction {f}"),
    }
}

/// `softmax`/`logsoftmax` in the compute dtype (NOTES.md): max, `exp(x - max)`, a sum in
/// the compute dtype, then the quotient or `d - log(s)`; rounded into x's dtype.
fn softmax(f: &str, x: &T, axis: usize) -> T {
    let c = x.dtype.compute();
    let xc = convert(x, c);
    let n = x.dims[axis];
    let mut out = xc.clone();
    let st = strides(&x.dims);
    let rows = count(&x.dims) / n.max(1);
    let mut outer_dims = x.dims.clone();
    outer_dims[axis] = 1;
    for r in 0..rows.min(count(&outer_dims)) {
        let base_idx = unflatten(r, &outer_dims);
        let base = flatten(&base_idx, &x.dims);
        let pos: Vec<usize> = (0..n).map(|i| base + i * st[axis]).collect();
        let vals: Vec<E> = pos.iter().map(|&p| xc.data[p]).collect();
        let (d, e, s) = shifted_exps(&vals, c);
        for i in 0..n {
            out.data[pos[i]] = if f == "softmax" {
                apply("div", c, &[e[i], s], &[])
            } else {
                let l = apply("log", c, &[s], &[]);
                apply("sub", c, &[d[i], l], &[])
            };
        }
    }
    convert(&out, x.dtype)
}

/// `cumsum`/`cumprod`: sequential along the axis in the accumulator, each output
/// converted once.
fn scan(
    sum: bool,
    x: &T,
    axis: usize,
    exclusive: bool,
    reverse: bool,
    out: DType,
    acc: DType,
) -> T {
    let xa = convert(x, acc);
    let n = x.dims[axis];
    let st = strides(&x.dims);
    let mut res = xa.clone();
    let mut outer = x.dims.clone();
    outer[axis] = 1;
    let identity = cast(I64, E::I(if sum { 0 } else { 1 }), acc);
    for r in 0..count(&outer) {
        let base = flatten(&unflatten(r, &outer), &x.dims);
        let order: Vec<usize> = if reverse {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        };
        let mut run = identity;
        for &i in &order {
            let p = base + i * st[axis];
            let v = xa.data[p];
            let next = apply(if sum { "add" } else { "mul" }, acc, &[run, v], &[]);
            res.data[p] = if exclusive { run } else { next };
            run = next;
        }
    }
    convert(&res, out)
}

/// Output axis `k` read from input axis `pattern[k]` (`None`: a new axis of 1).
fn permute(x: &T, pattern: &[Option<usize>]) -> T {
    let dims: Vec<usize> = pattern.iter().map(|p| p.map_or(1, |a| x.dims[a])).collect();
    let st = strides(&x.dims);
    let data = (0..count(&dims))
        .map(|i| {
            let idx = unflatten(i, &dims);
            let flat: usize = pattern
                .iter()
                .zip(&idx)
                .map(|(p, &i)| p.map_or(0, |a| i * st[a]))
                .sum();
            x.data[flat]
        })
        .collect();
    T {
        dtype: x.dtype,
        dims,
        data,
    }
}

/// Output position `i` along `axis` reads input position `idx[i]`, or `fill`.
fn gather_axis(x: &T, axis: usize, idx: &[Option<usize>], fill: E) -> T {
    let mut dims = x.dims.clone();
    dims[axis] = idx.len();
    let data = (0..count(&dims))
        .map(|i| {
            let mut at = unflatten(i, &dims);
            match idx[at[axis]] {
                Some(j) => {
                    at[axis] = j;
                    x.data[flatten(&at, &x.dims)]
                }
                None => fill,
            }
        })
        .collect();
    T {
        dtype: x.dtype,
        dims,
        data,
    }
}

fn concat(parts: &[T], axis: usize) -> T {
    let mut dims = parts[0].dims.clone();
    dims[axis] = parts.iter().map(|p| p.dims[axis]).sum();
    let data = (0..count(&dims))
        .map(|i| {
            let mut at = unflatten(i, &dims);
            let mut k = at[axis];
            for p in parts {
                if k < p.dims[axis] {
                    at[axis] = k;
                    return p.data[flatten(&at, &p.dims)];
                }
                k -= p.dims[axis];
            }
            unreachable!()
        })
        .collect();
    T {
        dtype: parts[0].dtype,
        dims,
        data,
    }
}

/// One element of a matrix product in accumulator `c`: integers exact (wrapping), floats
/// within (K + 2)·u·Σ|a·b| (docs/language.md states (K + 1)·u; any order, FMA or not).
fn dot(terms: &[(E, E)], c: DType) -> E {
    if !c.is_float() {
        return terms.iter().fold(E::I(0), |s, &(a, b)| {
            let p = apply("mul", c, &[a, b], &[]);
            apply("add", c, &[s, p], &[])
        });
    }
    // Products exact in f64 for f32 operands; for f64 ones within 1 f64 ulp, which the
    // bound covers.
    let prods: Vec<E> = terms
        .iter()
        .map(|&(a, b)| apply("mul", F64, &[a, b], &[]))
        .collect();
    // A product that overflows f64 from finite factors is finite inside an FMA: the
    // result depends on how the kernel multiplies.
    let overflow = terms.iter().zip(&prods).any(|(&(a, b), p)| {
        let finite = |e: E| {
            e.bounds()
                .is_some_and(|(l, h, _)| l.is_finite() && h.is_finite())
        };
        finite(a)
            && finite(b)
            && p.bounds()
                .is_some_and(|(l, h, _)| l.is_infinite() || h.is_infinite())
    });
    if overflow {
        return ANY_F;
    }
    float_sum(&prods, c)
}

/// An axis label of `einsum`: a letter, or the `k`-th `...` dim counted from the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Batch(usize),
    Letter(char),
}

/// One subscript group (`ij`, `...ij`, `i...j`): its labels for an operand of `rank`
/// axes, and whether it has `...`.
fn einsum_labels(group: &str, rank: usize) -> (Vec<Label>, bool) {
    let (before, after, ellipsis) = match group.split_once("...") {
        Some((b, a)) => (b, a, true),
        None => (group, "", false),
    };
    let letters = before.chars().count() + after.chars().count();
    let batch = rank - letters;
    let labels = before
        .chars()
        .map(Label::Letter)
        .chain((0..batch).rev().map(Label::Batch))
        .chain(after.chars().map(Label::Letter))
        .collect();
    (labels, ellipsis)
}

/// `einsum` written from docs/language.md as NumPy's sum over every assignment of the
/// labels, with the language's rounding (dtypes as `matmul`): the operands promote to `p`;
/// each operand's letters that neither the other operand nor the output has are summed
/// first in `p`'s accumulator (`f32` for `f16`/`bf16`/`f32`, `f64` for `f64`, integers
/// `i64`/`u64`) and rounded to `p`; the two operands' products are summed over their
/// shared letters the output lacks in that accumulator and rounded once to `p`. Integers
/// wrap, so their order does not matter. One operand and no sum: a view (its dtype kept).
fn einsum(subscripts: &str, ops: &[T]) -> T {
    let (inputs, output) = match subscripts.split_once("->") {
        Some((i, o)) => (i, Some(o)),
        None => (subscripts, None),
    };
    let labels: Vec<Vec<Label>> = inputs
        .split(',')
        .zip(ops)
        .map(|(g, t)| einsum_labels(g, t.dims.len()).0)
        .collect();
    // The size of every label (a `...` dim of 1 stretches).
    let mut size: Vec<(Label, usize)> = Vec::new();
    for (ls, t) in labels.iter().zip(ops) {
        for (&l, &n) in ls.iter().zip(&t.dims) {
            match size.iter_mut().find(|(m, _)| *m == l) {
                None => size.push((l, n)),
                Some((_, m)) if *m == 1 => *m = n,
                Some((_, m)) => assert!(*m == n || n == 1, "{subscripts}: {l:?} is {m} and {n}"),
            }
        }
    }
    let size_of = |l: Label| size.iter().find(|(m, _)| *m == l).unwrap().1;
    let batch_rank = size
        .iter()
        .filter(|(l, _)| matches!(l, Label::Batch(_)))
        .count();
    let out: Vec<Label> = match output {
        Some(o) => {
            let (before, after) = o.split_once("...").unwrap_or((o, ""));
            before
                .chars()
                .map(Label::Letter)
                .chain((0..batch_rank).rev().map(Label::Batch))
                .chain(after.chars().map(Label::Letter))
                .collect()
        }
        None => {
            let mut once: Vec<char> = Vec::new();
            for ls in &labels {
                for &l in ls {
                    if let Label::Letter(c) = l {
                        let n: usize = labels.iter().flatten().filter(|&&m| m == l).count();
                        if n == 1 {
                            once.push(c);
                        }
                    }
                }
            }
            once.sort();
            (0..batch_rank)
                .rev()
                .map(Label::Batch)
                .chain(once.into_iter().map(Label::Letter))
                .collect()
        }
    };
    let p = ops.iter().skip(1).fold(ops[0].dtype, |d, t| {
        promote(d, t.dtype).expect("einsum operands promote")
    });
    let acc_of = |d: DType| -> DType {
        match d {
            F64 => F64,
            d if d.is_float() => F32,
            d => d.sum_out(),
        }
    };
    let unique = |ls: &[Label]| -> Vec<Label> {
        let mut u: Vec<Label> = Vec::new();
        for &l in ls {
            if !u.contains(&l) {
                u.push(l);
            }
        }
        u
    };
    let dims: Vec<usize> = out.iter().map(|&l| size_of(l)).collect();
    // Reads operand k at an assignment of labels (a `...` dim of 1 reads index 0).
    let read = |k: usize, at: &dyn Fn(Label) -> usize| -> E {
        let t = &ops[k];
        let idx: Vec<usize> = labels[k]
            .iter()
            .zip(&t.dims)
            .map(|(&l, &n)| if n == 1 { 0 } else { at(l) })
            .collect();
        t.data[flatten(&idx, &t.dims)]
    };
    // Every assignment of `free` labels, appended to the fixed ones.
    let assignments = |free: &[Label]| -> Vec<Vec<usize>> {
        let ds: Vec<usize> = free.iter().map(|&l| size_of(l)).collect();
        (0..count(&ds)).map(|i| unflatten(i, &ds)).collect()
    };
    let lookup = |fixed: &[(Label, usize)], l: Label| -> usize {
        fixed
            .iter()
            .find(|(m, _)| *m == l)
            .map(|&(_, v)| v)
            .unwrap()
    };
    // Operand k's value at the fixed labels, with its lone letters (no other operand nor
    // the output has them) summed: in `p`'s accumulator, floats rounded back to `p`. And
    // the dtype of that value.
    let operand = |k: usize, fixed: &[(Label, usize)]| -> (E, DType) {
        let others: Vec<Label> = labels
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .flat_map(|(_, ls)| ls.iter().copied())
            .chain(out.iter().copied())
            .collect();
        let lone: Vec<Label> = unique(&labels[k])
            .into_iter()
            .filter(|l| !others.contains(l))
            .collect();
        let d = ops[k].dtype;
        if lone.is_empty() {
            return (read(k, &|l| lookup(fixed, l)), d);
        }
        let acc = acc_of(p);
        let terms: Vec<E> = assignments(&lone)
            .into_iter()
            .map(|v| {
                let mut all = fixed.to_vec();
                all.extend(lone.iter().copied().zip(v));
                cast(d, read(k, &|l| lookup(&all, l)), acc)
            })
            .collect();
        if acc.is_float() {
            (cast(acc, float_sum(&terms, acc), p), p)
        } else {
            let sum = terms
                .iter()
                .fold(E::I(0), |s, &t| apply("add", acc, &[s, t], &[]));
            (sum, acc)
        }
    };
    let mut data = Vec::new();
    let dims_out = dims.clone();
    let out_dtype;
    if ops.len() == 1 {
        for o in 0..count(&dims_out) {
            let idx = unflatten(o, &dims_out);
            let fixed: Vec<(Label, usize)> = out.iter().copied().zip(idx).collect();
            data.push(operand(0, &fixed).0);
        }
        // A lone operand keeps its dtype unless it is summed (integers widen then).
        let summed = unique(&labels[0]).iter().any(|l| !out.contains(l));
        out_dtype = if summed && !p.is_float() {
            acc_of(p)
        } else {
            p
        };
    } else {
        assert_eq!(
            ops.len(),
            2,
            "the generator makes einsums of one or two operands"
        );
        let contracted: Vec<Label> = unique(&labels[0])
            .into_iter()
            .filter(|l| labels[1].contains(l) && !out.contains(l))
            .collect();
        // The product in `p`'s accumulator, rounded once to `p` (integers: the
        // accumulator's dtype, wrapping).
        let acc = acc_of(p);
        out_dtype = if p.is_float() { p } else { acc };
        for o in 0..count(&dims_out) {
            let idx = unflatten(o, &dims_out);
            let fixed: Vec<(Label, usize)> = out.iter().copied().zip(idx).collect();
            let terms: Vec<(E, E)> = assignments(&contracted)
                .into_iter()
                .map(|v| {
                    let mut all = fixed.clone();
                    all.extend(contracted.iter().copied().zip(v));
                    let (a, da) = operand(0, &all);
                    let (b, db) = operand(1, &all);
                    (cast(da, a, acc), cast(db, b, acc))
                })
                .collect();
            let e = dot(&terms, acc);
            data.push(if acc.is_float() { cast(acc, e, p) } else { e });
        }
    }
    T {
        dtype: out_dtype,
        dims,
        data,
    }
}

impl Interp<'_> {
    /// A tuple-valued op: `split`, `top_k`.
    fn tuple(&mut self, c: &Call) -> Result<Vec<T>, Fail> {
        let int = |n: &str| {
            c.named
                .iter()
                .find(|(k, _)| *k == n)
                .and_then(|(_, a)| match a {
                    Arg::Int(i) => Some(*i),
                    _ => None,
                })
        };
        let Arg::E(xe) = &c.args[0] else {
            panic!("a tensor")
        };
        let x = self.eval(xe)?;
        match c.f {
            "split" => {
                let Arg::Ints(sizes) = &c.args[1] else {
                    panic!("sizes")
                };
                let a = norm_axis(int("axis").unwrap_or(0), x.dims.len());
                let n = x.dims[a] as i64;
                let lits: i64 = sizes.iter().filter(|&&s| s >= 0).sum();
                if lits > n || (!sizes.contains(&-1) && lits != n) {
                    return Err(Fail::ShortAxis);
                }
                let mut at = 0usize;
                Ok(sizes
                    .iter()
                    .map(|&s| {
                        let len = if s < 0 {
                            (n - lits) as usize
                        } else {
                            s as usize
                        };
                        let idx: Vec<Option<usize>> = (at..at + len).map(Some).collect();
                        at += len;
                        gather_axis(&x, a, &idx, E::Any)
                    })
                    .collect())
            }
            "top_k" => {
                let a = norm_axis(int("axis").unwrap_or(-1), x.dims.len());
                let k = int("k").unwrap() as usize;
                if k > x.dims[a] {
                    return Err(Fail::ShortAxis);
                }
                let largest = !c
                    .named
                    .iter()
                    .any(|(n, v)| *n == "largest" && *v == Arg::Bool(false));
                let (v, i) = top_k(&x, a, k, largest);
                Ok(vec![v, i])
            }
            f => panic!("tuple op {f}"),
        }
    }
}

/// ONNX `TopK` along `axis`: the `k` best, best first, ties by the lower position, NaN
/// above every number. A row holding a value known only as a range is not determined.
fn top_k(x: &T, axis: usize, k: usize, largest: bool) -> (T, T) {
    // Ranking reads a temp of the input: half-precision values as stored.
    let xs: Vec<E> = x.data.iter().map(|&e| round_store_e(x.dtype, e)).collect();
    let mut dims = x.dims.clone();
    dims[axis] = k;
    let n = x.dims[axis];
    let mut vals = vec![E::Any; count(&dims)];
    let mut idxs = vec![E::Any; count(&dims)];
    let mut outer = x.dims.clone();
    outer[axis] = 1;
    for r in 0..count(&outer) {
        let o = unflatten(r, &outer);
        let at = |j: usize, d: &[usize]| {
            let mut p = o.clone();
            p[axis] = j;
            flatten(&p, d)
        };
        let row: Vec<E> = (0..n).map(|j| xs[at(j, &x.dims)]).collect();
        if !row.iter().all(|e| e.is_exact()) {
            continue;
        }
        // A key that sorts best first: NaN highest.
        let key = |e: E| -> (u8, f64, i128) {
            match e {
                E::F(v) if v.is_nan() => (1, 0.0, 0),
                E::F(v) => (0, v, 0),
                E::I(i) => (0, 0.0, i),
                E::B(b) => (0, 0.0, b as i128),
                _ => unreachable!(),
            }
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| {
            let (a, b) = (key(row[i]), key(row[j]));
            let c =
                a.0.cmp(&b.0)
                    .then(a.1.partial_cmp(&b.1).unwrap())
                    .then(a.2.cmp(&b.2));
            let c = if largest { c.reverse() } else { c };
            // NaN is above every number either way: last when ascending.
            let c = if !largest && a.0 != b.0 { c } else { c };
            c.then(i.cmp(&j))
        });
        for (t, &j) in order.iter().take(k).enumerate() {
            vals[at(t, &dims)] = row[j];
            idxs[at(t, &dims)] = E::I(j as i128);
        }
    }
    (
        T {
            dtype: x.dtype,
            dims: dims.clone(),
            data: vals,
        },
        T {
            dtype: I64,
            dims,
            data: idxs,
        },
    )
}

/// ONNX `SoftmaxCrossEntropyLoss` / `NegativeLogLikelihoodLoss` over `[N, C, d…]`.
fn loss(
    f: &str,
    x: &T,
    labels: &T,
    w: Option<&T>,
    ignore: Option<i64>,
    reduction: &str,
) -> Result<T, Fail> {
    let c = x.dtype.compute();
    let xc = convert(x, c);
    let w = w.map(|w| convert(w, c));
    let classes = x.dims[1];
    let mut ls = Vec::new();
    for e in &labels.data {
        let E::I(l) = *e else {
            panic!("an integer label")
        };
        if Some(l as i64) == ignore.filter(|_| l >= i64::MIN as i128 && l <= i64::MAX as i128) {
            ls.push(None);
        } else if (0..classes as i128).contains(&l) {
            ls.push(Some(l as usize));
        } else {
            return Err(Fail::IndexOutOfRange);
        }
    }
    let mut losses = Vec::new();
    let mut weights = Vec::new();
    for (p, l) in ls.iter().enumerate() {
        let o = unflatten(p, &labels.dims);
        let at = |j: usize| {
            let mut q = o.clone();
            q.insert(1, j);
            xc.data[flatten(&q, &x.dims)]
        };
        let Some(l) = *l else {
            losses.push(E::F(0.0));
            weights.push(E::F(0.0));
            continue;
        };
        let lp = if f == "nll_loss" {
            at(l)
        } else {
            let vals: Vec<E> = (0..classes).map(at).collect();
            let (d, _, s) = shifted_exps(&vals, c);
            apply("sub", c, &[d[l], apply("log", c, &[s], &[])], &[])
        };
        let wl = w.as_ref().map_or(E::F(1.0), |w| w.data[l]);
        losses.push(apply("neg", c, &[apply("mul", c, &[lp, wl], &[])], &[]));
        weights.push(wl);
    }
    // The loss is computed in the compute dtype and stored as the scores' dtype: a cast
    // (the kernel's last node), which rounds f16/bf16 (seed 42, graph 836: a bf16 mean
    // read by `sin`).
    let store = |e: E| cast(c, e, x.dtype);
    Ok(match reduction {
        "none" => T {
            dtype: x.dtype,
            dims: labels.dims.clone(),
            data: losses.into_iter().map(store).collect(),
        },
        "sum" => T::scalar(x.dtype, store(float_sum(&losses, c))),
        _ => {
            let s = float_sum(&losses, c);
            let ws = float_sum(&weights, c);
            T::scalar(x.dtype, store(apply("div", c, &[s, ws], &[])))
        }
    })
}

/// `attention(q, k, v, …)`: ONNX `Attention` (opset 23) over `[B, H, S, D]` computed
/// whole-row in f64 from its definition: scores `scale · q·kᵀ` (`scale` defaults to
/// `1/sqrt(D)`), `softcap · tanh(s / softcap)` when `softcap > 0`, then the mask (a `false`
/// or, with `is_causal`, a key `j > i + Skv - Sq` is left out; a float mask is added),
/// softmax over the keys and the weighted sum of the value rows; query head `h` reads
/// key/value head `h / (Hq / Hkv)`; a row whose every key is left out is 0.
///
/// The kernels tile the keys with an online softmax in the compute type, so each output
/// is a range. The bound, per query row: every score within `δ` of the exact one (the dot
/// product as `dot`'s `(D + 2)·eps·Σ|q·k|` times the scale, an `eps` per scaling, capping
/// and mask add, and `6·eps·softcap` for the kernel's `tanh`), each subtraction of the
/// running maximum and each `exp` an `eps`-order relative error, so every unnormalised
/// weight is within a factor `1 + η`, `η = e^{2δ}(1 + 8·eps) − 1`, and the normalised
/// weights move the output by at most `2η/(1 − η)·Σ pⱼ|vⱼ|`; the weighted sum and its
/// rescalings add `(2·Skv + 8)·eps·Σ pⱼ|vⱼ|`, the division `eps·|o|`, and weights that
/// underflow an absolute `2·Skv·min_normal·max|v|`. A row with a non-finite or inexact
/// input, or whose `η` is not small (huge scores), is not determined.
fn attention(
    q: &T,
    k: &T,
    v: &T,
    mask: Option<&T>,
    causal: bool,
    scale: Option<f64>,
    softcap: f64,
) -> T {
    let c = q.dtype.compute();
    let ep = eps(c);
    let (min_normal, tiny) = if c == F64 {
        (f64::MIN_POSITIVE, 5e-324)
    } else {
        (f32::MIN_POSITIVE as f64, 1.401298464324817e-45)
    };
    let max = crate::value::max_of(c);
    let round = |x: f64| if c == F64 { x } else { x as f32 as f64 };
    let (qc, kc, vc) = (convert(q, c), convert(k, c), convert(v, c));
    let [bn, hq, sq, d] = [q.dims[0], q.dims[1], q.dims[2], q.dims[3]];
    let [hkv, skv] = [k.dims[1], k.dims[2]];
    let dv = v.dims[3];
    let sc = round(scale.unwrap_or(1.0 / (d as f64).sqrt()));
    let mask = mask.map(|m| {
        if m.dtype == Bool {
            m.clone()
        } else {
            convert(m, c)
        }
    });
    let fin = |e: E| match e {
        E::F(x) if x.is_finite() => Some(x),
        _ => None,
    };
    let out_dims = vec![bn, hq, sq, dv];
    let mut data = vec![E::F(0.0); count(&out_dims)];
    for b in 0..bn {
        for h in 0..hq {
            let kh = h / (hq / hkv.max(1)).max(1);
            for i in 0..sq {
                let base = ((b * hq + h) * sq + i) * dv;
                let row: Option<Vec<E>> = (|| {
                    let qrow: Vec<f64> = (0..d)
                        .map(|x| fin(qc.data[((b * hq + h) * sq + i) * d + x]))
                        .collect::<Option<_>>()?;
                    let mut kept: Vec<(usize, f64, f64)> = Vec::new();
                    for j in 0..skv {
                        let mut out = causal && j as i64 > i as i64 + skv as i64 - sq as i64;
                        let mut add = None;
                        if let Some(m) = &mask {
                            match read_bcast(m, &[b, h, i, j]) {
                                E::B(keep) => out |= !keep,
                                e => add = Some(fin(e)?),
                            }
                        }
                        let krow: Vec<f64> = (0..d)
                            .map(|x| fin(kc.data[((b * hkv + kh) * skv + j) * d + x]))
                            .collect::<Option<_>>()?;
                        if out {
                            continue;
                        }
                        let dot: f64 = qrow.iter().zip(&krow).map(|(a, b)| a * b).sum();
                        let mag: f64 = qrow.iter().zip(&krow).map(|(a, b)| (a * b).abs()).sum();
                        if mag >= max / 4.0 {
                            return None;
                        }
                        let mut s = sc * dot;
                        let mut ds = sc.abs() * (d as f64 + 2.0) * ep * mag
                            + 2.0 * ep * s.abs()
                            + (2.0 * d as f64 + 2.0) * tiny
                            + min_normal;
                        if softcap > 0.0 {
                            s = softcap * (s / softcap).tanh();
                            ds += 6.0 * ep * softcap + 2.0 * ep * s.abs();
                        }
                        if let Some(m) = add {
                            s += m;
                            ds += 2.0 * ep * (s.abs() + m.abs());
                        }
                        kept.push((j, s, ds));
                    }
                    // Every value row is read (a non-finite one may reach the output
                    // through a weight of 0 · inf).
                    let vals: Vec<Vec<f64>> = (0..skv)
                        .map(|j| {
                            (0..dv)
                                .map(|e| fin(vc.data[((b * hkv + kh) * skv + j) * dv + e]))
                                .collect::<Option<Vec<f64>>>()
                        })
                        .collect::<Option<_>>()?;
                    if kept.is_empty() {
                        return Some(vec![E::F(0.0); dv]);
                    }
                    let m = kept.iter().fold(f64::NEG_INFINITY, |m, k| m.max(k.1));
                    let delta = kept
                        .iter()
                        .map(|&(_, s, ds)| ds + 2.0 * ep * (s.abs() + m.abs()))
                        .fold(0.0, f64::max);
                    let eta = (2.0 * delta).exp_m1() + 8.0 * ep * (2.0 * delta).exp();
                    if !(eta < 0.25) {
                        return None;
                    }
                    let w: Vec<f64> = kept.iter().map(|&(_, s, _)| (s - m).exp()).collect();
                    let z: f64 = w.iter().sum();
                    let mut out = Vec::with_capacity(dv);
                    for e in 0..dv {
                        let o: f64 = kept
                            .iter()
                            .zip(&w)
                            .map(|(kj, wj)| wj * vals[kj.0][e])
                            .sum::<f64>()
                            / z;
                        let a: f64 = kept
                            .iter()
                            .zip(&w)
                            .map(|(kj, wj)| wj * vals[kj.0][e].abs())
                            .sum::<f64>()
                            / z;
                        let vmax = kept
                            .iter()
                            .map(|kj| vals[kj.0][e].abs())
                            .fold(0.0, f64::max);
                        if a >= max / 4.0 || vmax >= max / 4.0 {
                            return None;
                        }
                        let bound = (2.0 * eta / (1.0 - eta) + (2.0 * skv as f64 + 8.0) * ep) * a
                            + ep * o.abs()
                            + 2.0 * skv as f64 * min_normal * vmax.max(1.0)
                            + (2.0 * skv as f64 + 2.0) * tiny;
                        out.push(E::range(o - bound, o + bound, false));
                    }
                    Some(out)
                })();
                let row = row.unwrap_or_else(|| vec![E::Any; dv]);
                for (e, x) in row.into_iter().enumerate() {
                    data[base + e] = x;
                }
            }
        }
    }
    convert(
        &T {
            dtype: c,
            dims: out_dims,
            data,
        },
        q.dtype,
    )
}

/// NumPy basic indexing: slices and single positions per axis, `None` new axes, `...`.
fn index_sugar(x: &T, items: &[IndexItem]) -> T {
    let rank = x.dims.len();
    let ell = items.iter().position(|i| *i == IndexItem::Ellipsis);
    let real = |i: &&IndexItem| matches!(i, IndexItem::At(_) | IndexItem::Range(..));
    // The input axis of each item (None for `None` and `...`).
    let mut axis_of: Vec<Option<usize>> = vec![None; items.len()];
    let before = ell.unwrap_or(items.len());
    let mut a = 0;
    for (k, it) in items[..before].iter().enumerate() {
        if real(&it) {
            axis_of[k] = Some(a);
            a += 1;
        }
    }
    let mut first_after = rank;
    if let Some(e) = ell {
        let after = items[e + 1..].iter().filter(real).count();
        let mut a = rank - after;
        first_after = a;
        for (k, it) in items.iter().enumerate().skip(e + 1) {
            if real(&it) {
                axis_of[k] = Some(a);
                a += 1;
            }
        }
    }
    let mut y = x.clone();
    for (k, it) in items.iter().enumerate() {
        let Some(a) = axis_of[k] else { continue };
        let n = y.dims[a] as i64;
        let idx: Vec<Option<usize>> = match it {
            IndexItem::At(i) => vec![Some(if *i < 0 { i + n } else { *i } as usize)],
            IndexItem::Range(s, e, t) => slice_indices(n, *s, *e, t.unwrap_or(1))
                .into_iter()
                .map(Some)
                .collect(),
            _ => unreachable!(),
        };
        y = gather_axis(&y, a, &idx, E::Any);
    }
    // Output dims: items in order, the ellipsis's (or the trailing) axes where they stand.
    let mut dims = Vec::new();
    let push_item = |k: usize, dims: &mut Vec<usize>| match &items[k] {
        IndexItem::NewAxis => dims.push(1),
        IndexItem::Range(..) => dims.push(y.dims[axis_of[k].unwrap()]),
        _ => {}
    };
    for k in 0..before {
        push_item(k, &mut dims);
    }
    let consumed = a;
    match ell {
        Some(e) => {
            dims.extend(&y.dims[consumed..first_after]);
            for k in e + 1..items.len() {
                push_item(k, &mut dims);
            }
        }
        None => dims.extend(&y.dims[consumed..]),
    }
    T {
        dtype: y.dtype,
        dims,
        data: y.data,
    }
}

/// Softmax's shifted exponentials of a row: `x - max`, `exp(x - max)` and their sum.
fn shifted_exps(vals: &[E], c: DType) -> (Vec<E>, Vec<E>, E) {
    let m = vals
        .iter()
        .skip(1)
        .fold(vals[0], |m, &v| apply("max", c, &[m, v], &[]));
    let d: Vec<E> = vals
        .iter()
        .map(|&v| apply("sub", c, &[v, m], &[]))
        .collect();
    let e: Vec<E> = d.iter().map(|&v| apply("exp", c, &[v], &[])).collect();
    let s = float_sum(&e, c);
    (d, e, s)
}
