//! Differentiable random graphs (issue 32 item 6): a graph drawn from the ops that
//! tensor-macros/src/derive/ has rules for, with a `grad fn` (`value_and_grad`, a rank-0
//! loss) or a `vjp fn` over its float parameters, and an f32 twin of it (the same draws,
//! f32 parameters, casts up to f64 and back where the f64 graph casts to f64 twice). The
//! gradients are checked by tensorgraph-tests/tests/graphgen_grad.rs against central finite
//! differences of the f64 graph in `interp` (the f64 interpreter) along random directions,
//! and the f32 twin's against the f64 ones; [`batch_source`] writes the batch it compiles.
//!
//! Every function is applied on a safe domain (`log(square(x) + 0.5)`, `exp(tanh(x))`,
//! `asin(tanh(x) * 0.875)`), so the f64 values stay finite and moderate; the kinks that
//! remain (relu, abs, max/min, clip, where, the piecewise activations) are found by the
//! finite differences themselves (two step sizes that disagree), not avoided.
//!
//! Shapes are literal (no names); sizes 1..=5 keep the interpreter's finite differences
//! cheap. The draws never depend on the dtype, so the twin has the same structure.

use crate::ast::{Arg, BinOp, Call, Expr, Form, Graph, IndexItem, Lit, Param, TargetDim};
use crate::render;
use crate::rng::Rng;
use crate::types::{DType, Dim, Ty};

/// The seed of the batch CI runs.
pub const GRAD_CI_SEED: u64 = 0x32_6AD0_2026_1128;

/// A differentiable graph and its twin.
#[derive(Clone, Debug)]
pub struct GradGraph {
    /// The f64 graph (named `gg{index}`).
    pub graph: Graph,
    /// The same graph in f32 (named `gg{index}_f32`).
    pub twin: Graph,
    /// The parameters differentiated, in `wrt` order (indices into `graph.params`).
    pub wrt: Vec<usize>,
    /// A `vjp fn` (one output of any shape) rather than `value_and_grad` (a rank-0 loss).
    pub vjp: bool,
}

impl GradGraph {
    /// The dims of parameter `i`.
    pub fn param_dims(&self, i: usize) -> Vec<usize> {
        lit_dims(&self.graph.params[i].ty().dims)
    }

    /// The dims of output `k`.
    pub fn out_dims(&self, k: usize) -> Vec<usize> {
        lit_dims(&self.graph.out_types[k].dims)
    }

    /// The number of outputs (two only for some `vjp`s).
    pub fn outputs(&self) -> usize {
        self.graph.outputs.len()
    }

    /// `graph!` source of both graphs and their derivative items.
    pub fn source(&self) -> String {
        let wrt: Vec<&str> = self
            .wrt
            .iter()
            .map(|&i| self.graph.params[i].name.as_str())
            .collect();
        let mut s = String::new();
        for g in [&self.graph, &self.twin] {
            s += &render::graph(g);
            let (kind, f) = if self.vjp {
                ("vjp", "vjp")
            } else {
                ("grad", "value_and_grad")
            };
            s += &format!(
                "{kind} fn {n}_d = {f}({n}, wrt = [{}]);\n",
                wrt.join(", "),
                n = g.name
            );
        }
        s
    }
}

fn lit_dims(d: &[Dim]) -> Vec<usize> {
    d.iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            _ => unreachable!("literal dims only"),
        })
        .collect()
}

fn call(f: &'static str, args: Vec<Expr>, named: Vec<(&'static str, Arg)>) -> Expr {
    Expr::Call(Call {
        f,
        args: args.into_iter().map(Arg::E).collect(),
        named,
    })
}

fn flit(x: f64) -> Expr {
    Expr::Lit(Lit::Float(x))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, Box::new(a), Box::new(b))
}

/// `square(x) + k`: positive, at least `k`.
fn positive(x: Expr, k: f64) -> Expr {
    bin(BinOp::Add, call("square", vec![x], vec![]), flit(k))
}

/// NumPy broadcasting of literal dims.
pub fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// Functions of any real argument (kinks allowed).
const DIRECT: &[&str] = &[
    "tanh",
    "sigmoid",
    "atan",
    "asinh",
    "sin",
    "cos",
    "softplus",
    "silu",
    "gelu",
    "gelu_tanh",
    "mish",
    "erf",
    "erfc",
    "softsign",
    "square",
    "relu",
    "abs",
    "hard_swish",
    "hard_sigmoid",
    "selu",
];
/// Functions of `tanh(x)` (a bounded argument).
const BOUNDED: &[&str] = &["exp", "exp2", "expm1", "sinh", "cosh", "tan"];
/// Functions of `square(x) + 0.5` (a positive argument).
const POSITIVE: &[&str] = &[
    "log",
    "log2",
    "log1p",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "cbrt",
];
/// Functions of `tanh(x) * 0.875` (inside (-1, 1)).
const UNIT: &[&str] = &["asin", "acos", "atanh"];
/// Activations with a named parameter, with the value drawn.
const WITH_PARAM: &[(&str, &str, &[f64])] = &[
    ("leaky_relu", "alpha", &[0.2, 0.01]),
    ("elu", "alpha", &[0.7, 1.0]),
    ("celu", "alpha", &[0.5, 1.5]),
    ("swish", "alpha", &[1.5, 0.5]),
    ("thresholded_relu", "alpha", &[0.3, 1.0]),
    ("shrink", "lambd", &[0.2, 0.5]),
];
const REDUCTIONS: &[&str] = &[
    "sum",
    "mean",
    "max",
    "min",
    "reduce_sum_square",
    "reduce_log_sum_exp",
    "prod",
    "reduce_l1",
    "reduce_l2",
    "reduce_log_sum",
];

struct Gen {
    rng: Rng,
    /// The graph's float dtype.
    f: DType,
    params: Vec<Param>,
    /// Whether each parameter is differentiated (false: a weight of the loss).
    diff: Vec<bool>,
    lets: Vec<(String, Expr)>,
    let_types: Vec<Ty>,
    /// Every value in scope: name, dims, times read.
    vals: Vec<(String, Vec<usize>, usize)>,
}

const SIZES: &[usize] = &[1, 2, 2, 3, 3, 4, 5];

impl Gen {
    fn ty(&self, dims: &[usize]) -> Ty {
        Ty {
            dtype: self.f,
            dims: dims.iter().map(|&n| Dim::Lit(n)).collect(),
        }
    }

    fn new_param(&mut self, dims: Vec<usize>, diff: bool) -> Expr {
        let name = format!("p{}", self.params.len());
        self.params.push(Param {
            name: name.clone(),
            dtype: self.f,
            dims: Some(dims.iter().map(|&n| Dim::Lit(n)).collect()),
        });
        self.diff.push(diff);
        self.vals.push((name.clone(), dims, 1));
        Expr::Var(name)
    }

    /// A value in scope, mostly one nothing reads yet or a recent one.
    fn pick(&mut self) -> (Expr, Vec<usize>) {
        let unread: Vec<usize> = (0..self.vals.len())
            .filter(|&i| self.vals[i].2 == 0)
            .collect();
        // Mostly the last value (deep chains), else one nothing reads (every parameter
        // reaches the output), else any.
        let i = if self.rng.chance(0.45) {
            self.vals.len() - 1
        } else if !unread.is_empty() && self.rng.chance(0.6) {
            *self.rng.pick(&unread)
        } else if self.rng.chance(0.3) {
            self.vals.len() - 1
        } else {
            self.rng.below(self.vals.len())
        };
        self.vals[i].2 += 1;
        (Expr::Var(self.vals[i].0.clone()), self.vals[i].1.clone())
    }

    fn pick_rank(&mut self, min: usize) -> Option<(Expr, Vec<usize>)> {
        for _ in 0..6 {
            let i = self.rng.below(self.vals.len());
            let j = self.vals.len() - 1;
            let k = if self.rng.chance(0.5) { j } else { i };
            if self.vals[k].1.len() >= min {
                self.vals[k].2 += 1;
                return Some((Expr::Var(self.vals[k].0.clone()), self.vals[k].1.clone()));
            }
        }
        None
    }

    /// Dims that broadcast with `dims`: a suffix, some axes 1.
    fn suffix_of(&mut self, dims: &[usize]) -> Vec<usize> {
        let keep = self.rng.range(0, dims.len() as i64) as usize;
        dims[dims.len() - keep..]
            .iter()
            .map(|&n| if self.rng.chance(0.25) { 1 } else { n })
            .collect()
    }

    /// A second operand for an elementwise op with a value of `dims`: a value in scope that
    /// broadcasts with it, a new parameter, or a literal.
    fn operand_for(&mut self, dims: &[usize]) -> (Expr, Vec<usize>) {
        self.operand(dims, true)
    }

    /// `operand_for`, or never a literal (an argument of `square`, `tanh`: a literal
    /// there has no dtype).
    fn operand(&mut self, dims: &[usize], literal: bool) -> (Expr, Vec<usize>) {
        let w: &[u32] = if literal { &[5, 3, 2] } else { &[5, 3, 0] };
        match self.rng.weighted(w) {
            0 => {
                let fits: Vec<usize> = (0..self.vals.len())
                    .filter(|&i| broadcast(dims, &self.vals[i].1).is_some())
                    .collect();
                if fits.is_empty() {
                    return (self.new_param(dims.to_vec(), true), dims.to_vec());
                }
                let i = *self.rng.pick(&fits);
                self.vals[i].2 += 1;
                (Expr::Var(self.vals[i].0.clone()), self.vals[i].1.clone())
            }
            1 => {
                let d = self.suffix_of(dims);
                (self.new_param(d.clone(), true), d)
            }
            _ => (flit(*self.rng.pick(&[0.5, -0.75, 1.5, 2.0])), vec![]),
        }
    }

    fn axis(&mut self, rank: usize) -> i64 {
        let a = self.rng.below(rank) as i64;
        if self.rng.chance(0.3) {
            a - rank as i64
        } else {
            a
        }
    }

    /// One operation over values in scope: its expression and dims.
    fn op(&mut self) -> Option<(Expr, Vec<usize>)> {
        let w = [
            10, // unary function
            8,  // binary arithmetic
            3,  // max/min/where
            6,  // reduction
            5,  // matmul
            3,  // softmax/logsoftmax
            2,  // layer_norm/rms_norm
            4,  // concat/pad/slice
            3,  // shape ops
            2,  // cast region
            2,  // cumsum/flip/clip/prelu/sort
            1,  // variadic
        ];
        Some(match self.rng.weighted(&w) {
            0 => {
                let (x, d) = self.pick();
                let e = match self.rng.weighted(&[6, 3, 3, 2, 1, 3]) {
                    0 => call(*self.rng.pick(DIRECT), vec![x], vec![]),
                    1 => call(
                        *self.rng.pick(BOUNDED),
                        vec![call("tanh", vec![x], vec![])],
                        vec![],
                    ),
                    2 => call(*self.rng.pick(POSITIVE), vec![positive(x, 0.5)], vec![]),
                    3 => {
                        let f = *self.rng.pick(UNIT);
                        let arg = bin(BinOp::Mul, call("tanh", vec![x], vec![]), flit(0.875));
                        call(f, vec![arg], vec![])
                    }
                    4 => {
                        if self.rng.chance(0.5) {
                            call("acosh", vec![positive(x, 1.5)], vec![])
                        } else {
                            let (y, dy) = self.operand(&d, false);
                            let out = broadcast(&d, &dy)?;
                            let e = call(
                                "pow",
                                vec![positive(x, 0.5), call("tanh", vec![y], vec![])],
                                vec![],
                            );
                            return Some((e, out));
                        }
                    }
                    _ => {
                        let &(f, p, vals) = self.rng.pick(WITH_PARAM);
                        let v = *self.rng.pick(vals);
                        call(f, vec![x], vec![(p, Arg::E(flit(v)))])
                    }
                };
                (e, d)
            }
            1 => {
                let (a, da) = self.pick();
                let op = self.rng.weighted(&[3, 2, 3, 2, 1]);
                let (b, db) = self.operand(&da, op != 3);
                let out = broadcast(&da, &db)?;
                let e = match op {
                    0 => bin(BinOp::Add, a, b),
                    1 => bin(BinOp::Sub, a, b),
                    2 => bin(BinOp::Mul, a, b),
                    3 => bin(BinOp::Div, a, positive(b, 0.5)),
                    _ => Expr::Neg(Box::new(bin(BinOp::Mul, a, b))),
                };
                (e, out)
            }
            2 => {
                let (a, da) = self.pick();
                let (b, db) = self.operand_for(&da);
                let out = broadcast(&da, &db)?;
                match self.rng.below(3) {
                    0 => (call("max", vec![a, b], vec![]), out),
                    1 => (call("min", vec![a, b], vec![]), out),
                    _ => {
                        let (c, dc) = self.pick();
                        let out = broadcast(&out, &dc)?;
                        let cond = bin(BinOp::Gt, c, flit(0.25));
                        (call("where", vec![cond, a, b], vec![]), out)
                    }
                }
            }
            3 => {
                let (x, d) = self.pick_rank(1)?;
                let f = *self.rng.pick(REDUCTIONS);
                // The log of a sum needs a positive sum; the L2 norm's derivative is NaN
                // at 0 (as JAX's), which a value that is 0 whatever its inputs (a
                // logsoftmax over an axis of 1: seed 46, graph 120) reaches.
                let x = if matches!(f, "reduce_log_sum" | "reduce_l2") {
                    positive(x, 0.5)
                } else {
                    x
                };
                let rank = d.len();
                let mut named = Vec::new();
                let mut axes: Vec<usize> = (0..rank).collect();
                match self.rng.below(3) {
                    0 => {}
                    1 => {
                        let a = self.axis(rank);
                        axes = vec![a.rem_euclid(rank as i64) as usize];
                        named.push(("axis", Arg::Int(a)));
                    }
                    _ => {
                        let mut picked: Vec<usize> =
                            (0..rank).filter(|_| self.rng.chance(0.5)).collect();
                        if picked.is_empty() {
                            picked.push(self.rng.below(rank));
                        }
                        named.push((
                            "axis",
                            Arg::Ints(picked.iter().map(|&a| a as i64).collect()),
                        ));
                        axes = picked;
                    }
                }
                let keep = self.rng.chance(0.4);
                if keep {
                    named.push(("keepdims", Arg::Bool(true)));
                }
                let out = (0..rank)
                    .filter_map(|a| match (axes.contains(&a), keep) {
                        (false, _) => Some(d[a]),
                        (true, true) => Some(1),
                        (true, false) => None,
                    })
                    .collect();
                (call(f, vec![x], named), out)
            }
            4 => {
                let (x, d) = self.pick_rank(1)?;
                let rank = d.len();
                let m = *self.rng.pick(SIZES);
                if rank >= 2 && self.rng.chance(0.2) {
                    // Both operands differentiated: x @ xᵀ (the last two axes swapped).
                    let mut perm: Vec<i64> = (0..rank as i64).collect();
                    perm.swap(rank - 2, rank - 1);
                    let t = Expr::Call(Call {
                        f: "transpose",
                        args: vec![Arg::E(x.clone()), Arg::Ints(perm)],
                        named: vec![],
                    });
                    let mut out = d.clone();
                    out[rank - 1] = d[rank - 2];
                    (bin(BinOp::MatMul, x, t), out)
                } else if rank == 2 && self.rng.chance(0.2) {
                    // A batched product with a rank-3 parameter: [b, m, k] @ [b, k, n].
                    let b = *self.rng.pick(&[2, 3]);
                    let w = self.new_param(vec![b, d[1], m], true);
                    (bin(BinOp::MatMul, x, w), vec![b, d[0], m])
                } else if rank >= 2 && self.rng.chance(0.3) {
                    // A new parameter on the left: [m, k] @ [..., k, n].
                    let w = self.new_param(vec![m, d[rank - 2]], true);
                    let mut out = d.clone();
                    out[rank - 2] = m;
                    (bin(BinOp::MatMul, w, x), out)
                } else {
                    let k = d[rank - 1];
                    let w = self.new_param(vec![k, m], true);
                    let mut out = d[..rank - 1].to_vec();
                    out.push(m);
                    let e = if self.rng.chance(0.2) {
                        call("matmul", vec![x, w], vec![])
                    } else {
                        bin(BinOp::MatMul, x, w)
                    };
                    (e, out)
                }
            }
            5 => {
                let (x, d) = self.pick_rank(1)?;
                let f = if self.rng.chance(0.5) {
                    "softmax"
                } else {
                    "logsoftmax"
                };
                let a = self.axis(d.len());
                (call(f, vec![x], vec![("axis", Arg::Int(a))]), d)
            }
            6 => {
                let (x, d) = self.pick_rank(1)?;
                let last = d[d.len() - 1];
                if self.rng.chance(0.2) {
                    // Away from the zero vector, where the norm's derivative is undefined.
                    let a = self.axis(d.len());
                    let x = positive(x, 0.25);
                    (
                        call("l2_normalize", vec![x], vec![("axis", Arg::Int(a))]),
                        d,
                    )
                } else if self.rng.chance(0.6) {
                    let g = self.new_param(vec![last], true);
                    let b = self.new_param(vec![last], true);
                    (call("layer_norm", vec![x, g, b], vec![]), d)
                } else {
                    let g = self.new_param(vec![last], true);
                    (call("rms_norm", vec![x, g], vec![]), d)
                }
            }
            7 => {
                let (x, d) = self.pick_rank(1)?;
                let rank = d.len();
                let a = self.rng.below(rank);
                match self.rng.below(4) {
                    0 => {
                        // Two or three parts, a new parameter among them or a value twice
                        // (its cotangent is the sum of both parts').
                        let variant = self.rng.below(4);
                        let mut out = d.clone();
                        let list = if variant == 3 {
                            out[a] += d[a];
                            vec![x.clone(), x]
                        } else {
                            let mut pd = d.clone();
                            pd[a] = self.rng.range(1, 3) as usize;
                            let p = self.new_param(pd.clone(), true);
                            out[a] += pd[a];
                            match variant {
                                0 => vec![x, p],
                                1 => vec![p, x],
                                _ => {
                                    out[a] += d[a];
                                    vec![x.clone(), p, x]
                                }
                            }
                        };
                        (
                            Expr::Call(Call {
                                f: "concat",
                                args: vec![Arg::List(list)],
                                named: vec![("axis", Arg::Int(a as i64))],
                            }),
                            out,
                        )
                    }
                    1 => {
                        let mut pads = Vec::new();
                        let mut out = d.clone();
                        // constant (with crops), reflect (counts below the length) or edge.
                        let mode = self.rng.below(4);
                        for o in out.iter_mut() {
                            let n = *o as i64;
                            let (mut b, mut e) = (self.rng.range(0, 2), self.rng.range(0, 2));
                            if mode == 1 {
                                (b, e) = (b.min(n - 1), e.min(n - 1));
                            }
                            if mode == 0 && n >= 3 && self.rng.chance(0.3) {
                                b = -1;
                            }
                            pads.extend([b, e]);
                            *o = (n + b + e) as usize;
                        }
                        let mut named = Vec::new();
                        match mode {
                            1 => named.push(("mode", Arg::Word("reflect"))),
                            2 => named.push(("mode", Arg::Word("edge"))),
                            _ => {
                                if self.rng.chance(0.5) {
                                    named.push(("value", Arg::E(flit(0.5))));
                                }
                            }
                        }
                        (
                            Expr::Call(Call {
                                f: "pad",
                                args: vec![Arg::E(x), Arg::Ints(pads)],
                                named,
                            }),
                            out,
                        )
                    }
                    k => {
                        let n = d[a] as i64;
                        let s = self.rng.range(0, n - 1);
                        let e = self.rng.range(s + 1, n);
                        let mut out = d.clone();
                        out[a] = (e - s) as usize;
                        if k == 2 && self.rng.chance(0.4) {
                            // A step: forwards or backwards, bounds clamped as NumPy's.
                            let step = *self.rng.pick(&[2i64, 3, -1, -2, -3]);
                            let start = self.rng.chance(0.6).then(|| self.rng.range(-n, n));
                            let end = self.rng.chance(0.5).then(|| self.rng.range(-n - 1, n + 1));
                            let len = crate::gen::slice_indices(n, start, end, step).len();
                            if len == 0 {
                                return None;
                            }
                            out[a] = len;
                            let mut named =
                                vec![("axis", Arg::Int(a as i64)), ("step", Arg::Int(step))];
                            if let Some(s) = start {
                                named.push(("start", Arg::Int(s)));
                            }
                            if let Some(e) = end {
                                named.push(("end", Arg::Int(e)));
                            }
                            (
                                Expr::Call(Call {
                                    f: "slice",
                                    args: vec![Arg::E(x)],
                                    named,
                                }),
                                out,
                            )
                        } else if k == 2 {
                            // Bounds from the end too (`start = -2`, `end = -1`).
                            let from_end = self.rng.chance(0.3);
                            let b = |v: i64| if from_end { v - n } else { v };
                            let mut named =
                                vec![("axis", Arg::Int(a as i64)), ("start", Arg::Int(b(s)))];
                            if e < n {
                                named.push(("end", Arg::Int(b(e))));
                            } else if self.rng.chance(0.5) {
                                named.push(("end", Arg::Int(e)));
                            }
                            (
                                Expr::Call(Call {
                                    f: "slice",
                                    args: vec![Arg::E(x)],
                                    named,
                                }),
                                out,
                            )
                        } else {
                            let mut items = vec![IndexItem::Range(None, None, None); a];
                            if self.rng.chance(0.3) {
                                // An index drops the axis.
                                items.push(IndexItem::At(s));
                                out.remove(a);
                            } else {
                                items.push(IndexItem::Range(Some(s), Some(e), None));
                            }
                            (Expr::Index(Box::new(x), items), out)
                        }
                    }
                }
            }
            8 => {
                let (x, d) = self.pick();
                let rank = d.len();
                match self.rng.below(5) {
                    3 if rank >= 1 => {
                        let reps: Vec<i64> = (0..rank).map(|_| self.rng.range(1, 2)).collect();
                        let out = d.iter().zip(&reps).map(|(&n, &r)| n * r as usize).collect();
                        (
                            Expr::Call(Call {
                                f: "tile",
                                args: vec![Arg::E(x), Arg::Ints(reps)],
                                named: vec![],
                            }),
                            out,
                        )
                    }
                    4 => {
                        // A new leading axis, and 1s grown.
                        let mut out = vec![*self.rng.pick(&[2, 3])];
                        out.extend(d.iter().map(|&n| if n == 1 { 3 } else { n }));
                        (
                            Expr::Call(Call {
                                f: "broadcast_to",
                                args: vec![
                                    Arg::E(x),
                                    Arg::Dims(
                                        out.iter().map(|&n| TargetDim::Dim(Dim::Lit(n))).collect(),
                                    ),
                                ],
                                named: vec![],
                            }),
                            out,
                        )
                    }
                    0 if rank >= 2 => {
                        let mut perm: Vec<usize> = (0..rank).collect();
                        self.rng.shuffle(&mut perm);
                        let out = perm.iter().map(|&p| d[p]).collect();
                        (
                            Expr::Call(Call {
                                f: "transpose",
                                args: vec![
                                    Arg::E(x),
                                    Arg::Ints(perm.iter().map(|&p| p as i64).collect()),
                                ],
                                named: vec![],
                            }),
                            out,
                        )
                    }
                    1 if rank >= 1 => {
                        let a = self.rng.below(rank + 1);
                        let mut out = d.clone();
                        out.insert(a, 1);
                        (
                            Expr::Call(Call {
                                f: "expand_dims",
                                args: vec![Arg::E(x), Arg::Int(a as i64)],
                                named: vec![],
                            }),
                            out,
                        )
                    }
                    _ => {
                        // Flatten, or split the first axis's size in two.
                        let n: usize = d.iter().product();
                        let out = if rank >= 2 || n < 4 || n % 2 != 0 {
                            vec![n]
                        } else {
                            vec![2, n / 2]
                        };
                        (
                            Expr::Call(Call {
                                f: "reshape",
                                args: vec![
                                    Arg::E(x),
                                    Arg::Dims(
                                        out.iter().map(|&n| TargetDim::Dim(Dim::Lit(n))).collect(),
                                    ),
                                ],
                                named: vec![],
                            }),
                            out,
                        )
                    }
                }
            }
            9 => {
                // Up to f64 for a function, and back (the f64 graph: two casts to f64).
                let (x, d) = self.pick();
                let wide = Expr::Cast(Box::new(x), DType::F64);
                let f = *self
                    .rng
                    .pick(&["tanh", "sin", "softplus", "square", "atan"]);
                let inner = call(f, vec![wide], vec![]);
                (Expr::Cast(Box::new(inner), self.f), d)
            }
            10 => {
                let (x, d) = self.pick_rank(1)?;
                let rank = d.len();
                match self.rng.below(5) {
                    0 => {
                        let mut named = vec![("axis", Arg::Int(self.axis(rank)))];
                        for p in ["exclusive", "reverse"] {
                            if self.rng.chance(0.3) {
                                named.push((p, Arg::Bool(true)));
                            }
                        }
                        (call("cumsum", vec![x], named), d)
                    }
                    1 => (
                        call("flip", vec![x], vec![("axis", Arg::Int(self.axis(rank)))]),
                        d,
                    ),
                    // The gradient follows the permutation (derive/structure.rs).
                    4 => {
                        let mut named = vec![("axis", Arg::Int(self.axis(rank)))];
                        if self.rng.chance(0.5) {
                            named.push(("descending", Arg::Bool(true)));
                        }
                        (call("sort", vec![x], named), d)
                    }
                    2 => (
                        call(
                            "clip",
                            vec![x],
                            vec![("min", Arg::E(flit(-0.5))), ("max", Arg::E(flit(0.75)))],
                        ),
                        d,
                    ),
                    _ => {
                        let (s, ds) = self.operand_for(&d);
                        // The slope broadcasts into the input's shape.
                        if broadcast(&d, &ds)? != d {
                            return None;
                        }
                        (call("prelu", vec![x, s], vec![]), d)
                    }
                }
            }
            _ => {
                let (a, da) = self.pick();
                let (b, db) = self.operand_for(&da);
                let (c, dc) = self.operand_for(&da);
                let out = broadcast(&broadcast(&da, &db)?, &dc)?;
                let f = *self.rng.pick(&["max", "min", "add", "sum_of", "mean_of"]);
                (call(f, vec![a, b, c], vec![]), out)
            }
        })
    }
}

/// Graph `index` of `seed` in dtype `f` (named `name`): the draws do not depend on `f`.
fn draw(seed: u64, index: u64, f: DType, name: String) -> (Graph, Vec<usize>, bool) {
    let mut g = Gen {
        rng: Rng::for_item(seed, index, 32),
        f,
        params: vec![],
        diff: vec![],
        lets: vec![],
        let_types: vec![],
        vals: vec![],
    };
    let rank = g.rng.range(1, 3) as usize;
    let base: Vec<usize> = (0..rank).map(|_| *g.rng.pick(SIZES)).collect();
    let n_params = g.rng.range(1, 3);
    for k in 0..n_params {
        let d = if k == 0 {
            base.clone()
        } else if g.rng.chance(0.1) {
            vec![]
        } else {
            g.suffix_of(&base)
        };
        g.new_param(d, true);
        let last = g.vals.len() - 1;
        g.vals[last].2 = 0;
    }
    let n_lets = g.rng.range(3, 7);
    let mut tries = 0;
    while g.lets.len() < n_lets as usize && tries < 50 {
        tries += 1;
        // A failed draw may have marked values read or added parameters: roll back.
        let saved = (g.params.len(), g.diff.len(), g.vals.clone());
        match g.op() {
            Some((e, d)) if d.iter().product::<usize>() <= 400 && d.len() <= 4 => {
                let name = format!("v{}", g.lets.len());
                let ty = g.ty(&d);
                g.lets.push((name.clone(), e));
                g.let_types.push(ty);
                g.vals.push((name, d, 0));
            }
            _ => {
                g.params.truncate(saved.0);
                g.diff.truncate(saved.1);
                g.vals = saved.2;
            }
        }
    }
    let vjp = g.rng.chance(0.3);
    // The values nothing reads (parameters too: every differentiated one reaches the
    // output), the last one first.
    let mut unread: Vec<(String, Vec<usize>)> = g
        .vals
        .iter()
        .filter(|v| v.2 == 0)
        .map(|v| (v.0.clone(), v.1.clone()))
        .collect();
    unread.reverse();
    let outs: Vec<(Expr, Vec<usize>)> = if vjp {
        // One output, or two (a cotangent each); the other values nothing reads go into
        // the first as sums.
        let two = unread.len() >= 2 && g.rng.chance(0.4);
        let (last, d) = unread[0].clone();
        let mut e = Expr::Var(last);
        for (u, _) in &unread[if two { 2 } else { 1 }..] {
            e = bin(
                BinOp::Add,
                e,
                call("sum", vec![Expr::Var(u.clone())], vec![]),
            );
        }
        let mut outs = vec![(e, d)];
        if two {
            outs.push((Expr::Var(unread[1].0.clone()), unread[1].1.clone()));
        }
        outs
    } else {
        let mut e: Option<Expr> = None;
        for (u, d) in &unread {
            // Weights that make every element's gradient its own.
            let w = g.new_param(d.clone(), false);
            let term = call(
                "sum",
                vec![bin(BinOp::Mul, Expr::Var(u.clone()), w)],
                vec![],
            );
            e = Some(match e {
                None => term,
                Some(e) => bin(BinOp::Add, e, term),
            });
        }
        vec![(e.unwrap(), vec![])]
    };
    let mut wrt: Vec<usize> = (0..g.params.len()).filter(|&i| g.diff[i]).collect();
    if wrt.len() >= 2 && g.rng.chance(0.2) {
        let k = g.rng.below(wrt.len());
        wrt.remove(k);
    }
    let out_types = outs.iter().map(|o| g.ty(&o.1)).collect();
    let graph = Graph {
        name,
        params: g.params,
        lets: g.lets,
        let_types: g.let_types,
        outputs: outs.into_iter().map(|o| o.0).collect(),
        out_types,
        names: vec![],
        form: Form::Item,
        indices: vec![],
        parts: vec![],
    };
    (graph, wrt, vjp)
}

/// Differentiable graph `index` of `seed`.
pub fn generate(seed: u64, index: u64) -> GradGraph {
    let (graph, wrt, vjp) = draw(seed, index, DType::F64, format!("gg{index}"));
    let (twin, _, _) = draw(seed, index, DType::F32, format!("gg{index}_f32"));
    GradGraph {
        graph,
        twin,
        wrt,
        vjp,
    }
}

fn shape(dims: &[usize]) -> (String, String) {
    let d: Vec<String> = dims.iter().map(|n| n.to_string()).collect();
    (
        format!("Shape![{}]", d.join(", ")),
        format!("[{}]", d.join(", ")),
    )
}

/// The module of one graph: both graphs, their derivatives and `run(inputs, cotangent)`,
/// which returns the f64 value and gradients and the f32 twin's (as f64; the twin's inputs
/// and cotangent are the f64 ones rounded to f32). The value is NaN for a `vjp`.
pub fn graph_module(gg: &GradGraph) -> String {
    let name = &gg.graph.name;
    let mut s = format!(
        "#[allow(deprecated, unused_parens, unused_variables, non_snake_case, clippy::all)]\nmod {name} {{\n    use tensorgraph::prelude::*;\n    tensorgraph::graph! {{\n{}    }}\n",
        gg.source()
    );
    s += "    pub fn run(inp: &[Vec<f64>], ct: &[Vec<f64>]) -> (f64, Vec<Vec<f64>>, f64, Vec<Vec<f64>>) {\n";
    let mut args64 = Vec::new();
    let mut args32 = Vec::new();
    for i in 0..gg.graph.params.len() {
        let (sh, d) = shape(&gg.param_dims(i));
        s += &format!(
            "        let a{i}: Vec<f64> = inp[{i}].clone();\n        let v{i} = TensorView::<f64, {sh}>::with_dims({d}, &a{i}).unwrap();\n        let b{i}: Vec<f32> = inp[{i}].iter().map(|&x| x as f32).collect();\n        let w{i} = TensorView::<f32, {sh}>::with_dims({d}, &b{i}).unwrap();\n"
        );
        args64.push(format!("&v{i}"));
        args32.push(format!("&w{i}"));
    }
    if gg.vjp {
        for k in 0..gg.outputs() {
            let (sh, d) = shape(&gg.out_dims(k));
            s += &format!(
                "        let c64_{k}: Vec<f64> = ct[{k}].clone();\n        let ct64_{k} = TensorView::<f64, {sh}>::with_dims({d}, &c64_{k}).unwrap();\n        let c32_{k}: Vec<f32> = ct[{k}].iter().map(|&x| x as f32).collect();\n        let ct32_{k} = TensorView::<f32, {sh}>::with_dims({d}, &c32_{k}).unwrap();\n"
            );
            args64.push(format!("&ct64_{k}"));
            args32.push(format!("&ct32_{k}"));
        }
    }
    let n = gg.wrt.len();
    for (suffix, args, ty) in [("", &args64, "f64"), ("_f32", &args32, "f32")] {
        s += &format!(
            "        let out{suffix} = {name}{suffix}_d({});\n",
            args.join(", ")
        );
        let grads: Vec<String> = if gg.vjp && n == 1 {
            vec![format!(
                "out{suffix}.as_slice().iter().map(|&x| x as f64).collect::<Vec<f64>>()"
            )]
        } else {
            let first = if gg.vjp { 0 } else { 1 };
            (0..n)
                .map(|k| {
                    format!(
                        "out{suffix}.{}.as_slice().iter().map(|&x| x as f64).collect::<Vec<f64>>()",
                        k + first
                    )
                })
                .collect()
        };
        let value = if gg.vjp {
            "f64::NAN".to_string()
        } else {
            format!("out{suffix}.0.item() as f64")
        };
        let _ = ty;
        s += &format!(
            "        let value{suffix}: f64 = {value};\n        let grads{suffix}: Vec<Vec<f64>> = vec![{}];\n",
            grads.join(", ")
        );
    }
    s += "        (value, grads, value_f32, grads_f32)\n    }\n";
    // The f64 forward: ⟨ct, output⟩ (finite differences where the interpreter leaves the
    // value undetermined).
    let vars: Vec<String> = (0..gg.graph.params.len())
        .map(|i| {
            let (sh, d) = shape(&gg.param_dims(i));
            format!("&TensorView::<f64, {sh}>::with_dims({d}, &inp[{i}]).unwrap()")
        })
        .collect();
    let dot = if gg.outputs() == 1 {
        "out.as_slice().iter().zip(&ct[0]).map(|(x, c)| x * c).sum()".to_string()
    } else {
        (0..gg.outputs())
            .map(|k| {
                format!("out.{k}.as_slice().iter().zip(&ct[{k}]).map(|(x, c)| x * c).sum::<f64>()")
            })
            .collect::<Vec<_>>()
            .join(" + ")
    };
    s += &format!(
        "    pub fn forward(inp: &[Vec<f64>], ct: &[Vec<f64>]) -> f64 {{\n        let out = {name}({});\n        {dot}\n    }}\n}}\n",
        vars.join(", ")
    );
    s
}

/// The batch of graphs `start..start + count` of `seed`.
pub fn batch_source(seed: u64, start: u64, count: u64) -> String {
    let mut s =
        format!("/// The seed the batch was generated from.\npub const SEED: u64 = {seed:#x};\n\n");
    let mut table = Vec::new();
    for i in start..start + count {
        let gg = generate(seed, i);
        s += &graph_module(&gg);
        table.push(format!("({i}, {n}::run, {n}::forward)", n = gg.graph.name));
    }
    s += &format!(
        "/// A graph's `run`.\npub type Runner = fn(&[Vec<f64>], &[Vec<f64>]) -> (f64, Vec<Vec<f64>>, f64, Vec<Vec<f64>>);\n/// A graph's `forward`.\npub type Forward = fn(&[Vec<f64>], &[Vec<f64>]) -> f64;\n/// (index, runner, forward) of every graph.\npub const BATCH: &[(u64, Runner, Forward)] = &[\n    {}\n];\n",
        table.join(",\n    ")
    );
    s
}
