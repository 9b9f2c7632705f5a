//! The generator: a random well-typed graph from a seed. It builds the graph as a sequence
//! of `let`s, each one op over values already in scope (parameters, earlier `let`s, weak
//! literals), typing every step by the language's rules (types.rs, docs/language.md), so
//! every graph it makes must compile. Values are reused at random (shared subexpressions);
//! a graph returns one to three of them.

use crate::ast::*;
use crate::rng::Rng;
use crate::types::{broadcast, promote, DType, Dim, Lin, Ty};
use DType::*;

mod vision;

/// A value in scope.
#[derive(Clone, Debug)]
struct Val {
    expr: Expr,
    ty: Ty,
    /// Computed from bare scalars and literals only (not a graph output).
    scalar: bool,
}

/// Literal sizes of the base shape; small, with odd tails around the 8-lane width.
const SIZES: &[usize] = &[1, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 33];
const NAMES: &[&str] = &["B", "S", "N"];
/// Cap on the literal elements of any value (tile and broadcast_to can grow them).
const MAX_ELEMENTS: usize = 2048;

/// Large graphs (issue 33: no legal graph may crash or stall rustc): literal sizes up to
/// 1024, values up to 2^20 elements, ranks up to 6, `tile`/`pad`/`concat` with large
/// factors, counts and part lists; no products, einsums or model ops (the interpreter's
/// cost grows with their work, not their size). One graph in `LARGE_ONE_IN` is large, drawn
/// from a stream of its own (`is_large`), so the other graphs are the same as before; a
/// seed with `ALL_LARGE` set makes every graph large (the release batch, README.md).
const LARGE_SIZES: &[usize] = &[
    1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100, 127, 256, 1000, 1024,
];
const LARGE_MAX_ELEMENTS: usize = 1 << 20;
pub const LARGE_ONE_IN: u64 = 40;
pub const ALL_LARGE: u64 = 1 << 63;

/// Whether graph `index` of `seed` is a large one (`LARGE_SIZES`).
pub fn is_large(seed: u64, index: u64) -> bool {
    seed & ALL_LARGE != 0 || Rng::for_item(seed, index, 3).below(LARGE_ONE_IN as usize) == 0
}

/// Float literals exact in every float dtype, so that where a literal is rounded cannot
/// matter.
const FLOAT_LITS: &[f64] = &[0.0, 0.5, 1.0, 2.0, -1.5, 3.25, 0.125, -4.0, 100.0, -0.75];

/// Unary functions of the op table (`FUNCTIONS` rows of arity 1 without parameters) and
/// the dtypes each takes.
#[derive(Clone, Copy, PartialEq)]
pub enum Takes {
    Num,
    Float,
    Int,
    IntOrBool,
    Bool,
}

pub const UNARY: &[(&str, Takes)] = &[
    ("neg", Takes::Num),
    ("abs", Takes::Num),
    ("relu", Takes::Num),
    ("floor", Takes::Num),
    ("round", Takes::Num),
    ("roundeven", Takes::Num),
    ("trunc", Takes::Num),
    ("ceil", Takes::Num),
    ("square", Takes::Num),
    ("sign", Takes::Num),
    ("sqrt", Takes::Float),
    ("rsqrt", Takes::Float),
    ("exp", Takes::Float),
    ("log", Takes::Float),
    ("log1p", Takes::Float),
    ("sin", Takes::Float),
    ("cos", Takes::Float),
    ("tanh", Takes::Float),
    ("erf", Takes::Float),
    ("sigmoid", Takes::Float),
    ("gelu", Takes::Float),
    ("silu", Takes::Float),
    ("exp2", Takes::Float),
    ("log2", Takes::Float),
    ("expm1", Takes::Float),
    ("tan", Takes::Float),
    ("atan", Takes::Float),
    ("asin", Takes::Float),
    ("acos", Takes::Float),
    ("sinh", Takes::Float),
    ("cosh", Takes::Float),
    ("softplus", Takes::Float),
    ("asinh", Takes::Float),
    ("acosh", Takes::Float),
    ("atanh", Takes::Float),
    ("erfc", Takes::Float),
    ("cbrt", Takes::Float),
    ("mish", Takes::Float),
    ("gelu_tanh", Takes::Float),
    ("is_nan", Takes::Float),
    ("is_inf", Takes::Float),
    ("is_finite", Takes::Float),
    ("reciprocal", Takes::Float),
    ("softsign", Takes::Float),
    ("hard_swish", Takes::Float),
    ("bitwise_count", Takes::Int),
    ("bitwise_not", Takes::IntOrBool),
    ("logical_not", Takes::Bool),
];

/// The activations with named float parameters, and the literals each parameter takes.
pub const ACTIVATIONS: &[(&str, &[&str])] = &[
    ("leaky_relu", &["alpha"]),
    ("thresholded_relu", &["alpha"]),
    ("hard_sigmoid", &["alpha", "beta"]),
    ("shrink", &["lambd", "bias"]),
    ("elu", &["alpha"]),
    ("celu", &["alpha"]),
    ("selu", &["alpha", "gamma"]),
    ("swish", &["alpha"]),
];

/// Binary ops and what their promoted dtype must be.
#[derive(Clone, Copy, PartialEq)]
pub enum BinKind {
    Arith,
    Compare,
    Bitwise,
    Shift,
    Logical,
}

pub const BINARY: &[(&str, Option<BinOp>, BinKind)] = &[
    ("add", Some(BinOp::Add), BinKind::Arith),
    ("sub", Some(BinOp::Sub), BinKind::Arith),
    ("mul", Some(BinOp::Mul), BinKind::Arith),
    ("div", Some(BinOp::Div), BinKind::Arith),
    ("rem", Some(BinOp::Rem), BinKind::Arith),
    ("mod", None, BinKind::Arith),
    ("pow", None, BinKind::Arith),
    ("max", None, BinKind::Arith),
    ("min", None, BinKind::Arith),
    ("equal", Some(BinOp::Eq), BinKind::Compare),
    ("not_equal", Some(BinOp::Ne), BinKind::Compare),
    ("less", Some(BinOp::Lt), BinKind::Compare),
    ("less_equal", Some(BinOp::Le), BinKind::Compare),
    ("greater", Some(BinOp::Gt), BinKind::Compare),
    ("greater_equal", Some(BinOp::Ge), BinKind::Compare),
    ("bitwise_and", Some(BinOp::BitAnd), BinKind::Bitwise),
    ("bitwise_or", Some(BinOp::BitOr), BinKind::Bitwise),
    ("bitwise_xor", Some(BinOp::BitXor), BinKind::Bitwise),
    ("shift_left", Some(BinOp::Shl), BinKind::Shift),
    ("shift_right", Some(BinOp::Shr), BinKind::Shift),
    ("logical_and", Some(BinOp::And), BinKind::Logical),
    ("logical_or", Some(BinOp::Or), BinKind::Logical),
    ("logical_xor", None, BinKind::Logical),
];

fn kind_accepts(kind: BinKind, d: DType) -> bool {
    match kind {
        BinKind::Arith => d != Bool,
        BinKind::Compare => true,
        BinKind::Bitwise => !d.is_float(),
        BinKind::Shift => d.is_int(),
        BinKind::Logical => d == Bool,
    }
}

fn takes(t: Takes, d: DType) -> bool {
    match t {
        Takes::Num => d != Bool,
        Takes::Float => d.is_float(),
        Takes::Int => d.is_int(),
        Takes::IntOrBool => !d.is_float(),
        Takes::Bool => d == Bool,
    }
}

struct Gen {
    rng: Rng,
    base: Vec<Dim>,
    params: Vec<Param>,
    pool: Vec<Val>,
    lets: Vec<(String, Expr)>,
    let_types: Vec<Ty>,
    indices: Vec<IndexParam>,
    parts: Vec<(String, Ty)>,
    force_concat: bool,
    /// `is_large`: large literal sizes and reorganisation factors.
    large: bool,
}

fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

fn call(f: &'static str, args: Vec<Arg>, named: Vec<(&'static str, Arg)>) -> Expr {
    Expr::Call(Call { f, args, named })
}

/// The graph number `index` of the run seeded with `seed`.
pub fn generate(seed: u64, index: u64) -> Graph {
    let rng = Rng::for_item(seed, index, 1);
    let mut g = Gen {
        rng,
        base: Vec::new(),
        params: Vec::new(),
        pool: Vec::new(),
        lets: Vec::new(),
        let_types: Vec::new(),
        indices: Vec::new(),
        parts: Vec::new(),
        force_concat: false,
        large: is_large(seed, index),
    };
    g.make_base();
    let n_params = 1 + g.rng.below(4);
    for i in 0..n_params {
        let dims = if i == 0 {
            Some(g.base.clone())
        } else {
            g.param_dims()
        };
        let dtype = g.param_dtype();
        g.add_param(dtype, dims);
    }
    let n_lets = 2 + g.rng.below(6);
    let mut tries = 0;
    while g.lets.len() < n_lets && tries < 60 {
        tries += 1;
        // Index parameters an op adds are plain ones if its `let` is dropped: a later op
        // may still read them as values, and the call is then not fallible through them.
        let indices = g.indices.len();
        let v = g.op();
        let cap = if g.large {
            LARGE_MAX_ELEMENTS
        } else {
            MAX_ELEMENTS
        };
        let ok = v
            .as_ref()
            .is_some_and(|v| v.ty.rank() <= 6 && v.ty.lit_len().unwrap_or(1) <= cap);
        if !ok {
            g.indices.truncate(indices);
        }
        if let Some(v) = v {
            if ok {
                let name = format!("v{}", g.lets.len());
                g.lets.push((name.clone(), v.expr));
                g.let_types.push(v.ty.clone());
                g.pool.push(Val {
                    expr: var(&name),
                    ty: v.ty,
                    scalar: v.scalar,
                });
            }
        }
    }
    // Outputs: values nothing else reads (so every let feeds an output), the last first,
    // at most three, none computed from scalars only.
    let lets_start = g.pool.len()
        - g.lets.len()
        - (g.parts.len() - g.lets.iter().filter(|l| l.0.contains(',')).count());
    let read_later = |i: usize| {
        let name = match &g.pool[i].expr {
            Expr::Var(v) => v.clone(),
            _ => return true,
        };
        g.lets.iter().any(|(_, e)| uses(e, &name))
    };
    let mut outs: Vec<usize> = (lets_start..g.pool.len())
        .rev()
        .filter(|&i| !g.pool[i].scalar && !read_later(i))
        .take(3)
        .collect();
    if outs.is_empty() {
        let c: Vec<usize> = (0..g.pool.len()).filter(|&i| !g.pool[i].scalar).collect();
        outs.push(c.last().copied().unwrap_or(0));
    }
    let outputs: Vec<Expr> = outs.iter().map(|&i| g.pool[i].expr.clone()).collect();
    let out_types: Vec<Ty> = outs.iter().map(|&i| g.pool[i].ty.clone()).collect();
    // Index parameters of an op whose `let` was dropped (too large) are plain ones.
    let (lets, params) = (&g.lets, &g.params);
    g.indices
        .retain(|ip| lets.iter().any(|(_, e)| uses(e, &params[ip.param].name)));
    // Unused parameters get a `_` name (no warning).
    let mut params = g.params.clone();
    for p in &mut params {
        let used = g.lets.iter().any(|(_, e)| uses(e, &p.name))
            || outputs.iter().any(|e| uses(e, &p.name));
        if !used {
            p.name = format!("_{}", p.name);
        }
    }
    let mut names: Vec<&'static str> = Vec::new();
    for p in &params {
        for d in p.dims.iter().flatten() {
            d.names(&mut names);
        }
    }
    // How the harness declares and calls it: a stream of its own, so that the graph
    // itself does not depend on the form.
    let mut form_rng = Rng::for_item(seed, index, 2);
    let form = match form_rng.weighted(&[6, 2, 1, 1]) {
        0 => Form::Item,
        1 => Form::Into,
        k => Form::Closure { typed: k == 2 },
    };
    Graph {
        name: format!("g{index}"),
        params,
        lets: g.lets,
        let_types: g.let_types,
        outputs,
        out_types,
        names,
        form,
        indices: g.indices,
        parts: g.parts,
    }
}

/// Whether `e` reads variable `name`.
pub fn uses(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Var(v) => v == name,
        Expr::Lit(_) => false,
        Expr::Bin(_, a, b) => uses(a, name) || uses(b, name),
        Expr::Neg(a) | Expr::Not(a) | Expr::Cast(a, _) | Expr::Index(a, _) => uses(a, name),
        Expr::Call(c) => {
            c.args.iter().any(|a| arg_uses(a, name))
                || c.named.iter().any(|(_, a)| arg_uses(a, name))
        }
    }
}

fn arg_uses(a: &Arg, name: &str) -> bool {
    match a {
        Arg::E(e) => uses(e, name),
        Arg::List(v) => v.iter().any(|e| uses(e, name)),
        _ => false,
    }
}

impl Gen {
    fn make_base(&mut self) {
        let rank = self.rng.weighted(&[5, 20, 30, 20, 12, 8, 5]);
        let symbolic = self.rng.chance(0.3);
        loop {
            let mut dims = Vec::new();
            let mut used_names = 0;
            for _ in 0..rank {
                if symbolic && used_names < NAMES.len() && self.rng.chance(0.4) {
                    // Sometimes an affine expression the call solves the name from
                    // (`f32[2 * N]`, `f32[N + 1]`).
                    let n = NAMES[used_names];
                    if self.rng.chance(0.3) {
                        let (c, k) = *self.rng.pick(&[(2, 0), (1, 1), (3, 0), (2, 1), (1, 2)]);
                        dims.push(
                            Dim::from_lin(Lin::name(n).scale(c).add(&Lin::constant(k))).unwrap(),
                        );
                    } else {
                        dims.push(Dim::Name(n));
                    }
                    used_names += 1;
                } else if self.rng.chance(0.02) {
                    dims.push(Dim::Lit(0));
                } else if self.large {
                    dims.push(Dim::Lit(*self.rng.pick(LARGE_SIZES)));
                } else {
                    dims.push(Dim::Lit(*self.rng.pick(SIZES)));
                }
            }
            let lits: usize = dims
                .iter()
                .map(|d| if let Dim::Lit(n) = d { *n } else { 1 })
                .product();
            if lits <= if self.large { 1 << 18 } else { 600 } {
                self.base = dims;
                return;
            }
        }
    }

    /// A suffix of the base shape, with some dims replaced by 1; or a bare scalar.
    fn param_dims(&mut self) -> Option<Vec<Dim>> {
        if self.rng.chance(0.1) {
            return None;
        }
        let drop = self.rng.below(self.base.len() + 1);
        let dims = self.base[drop..]
            .iter()
            .map(|d| {
                let p = if !d.is_lit() { 0.15 } else { 0.25 };
                if self.rng.chance(p) {
                    Dim::Lit(1)
                } else {
                    d.clone()
                }
            })
            .collect();
        Some(dims)
    }

    fn param_dtype(&mut self) -> DType {
        if !self.params.is_empty() && self.rng.chance(0.4) {
            let i = self.rng.below(self.params.len());
            self.params[i].dtype
        } else {
            *self.rng.pick(&DType::ALL)
        }
    }

    fn add_param(&mut self, dtype: DType, dims: Option<Vec<Dim>>) -> Val {
        let name = format!("p{}", self.params.len());
        let scalar = dims.is_none();
        let ty = Ty {
            dtype,
            dims: dims.clone().unwrap_or_default(),
        };
        self.params.push(Param {
            name: name.clone(),
            dtype,
            dims,
        });
        let v = Val {
            expr: var(&name),
            ty,
            scalar,
        };
        self.pool.push(v.clone());
        v
    }

    /// A value in scope, recent ones more often.
    fn pick(&mut self) -> Val {
        let n = self.pool.len();
        let i = if self.rng.chance(0.5) {
            n - 1 - self.rng.below(n.min(3))
        } else {
            self.rng.below(n)
        };
        self.pool[i].clone()
    }

    /// A value that is a tensor of rank ≥ `min_rank`, if any.
    fn pick_tensor(&mut self, min_rank: usize) -> Option<Val> {
        let c: Vec<usize> = (0..self.pool.len())
            .filter(|&i| !self.pool[i].scalar && self.pool[i].ty.rank() >= min_rank)
            .collect();
        if c.is_empty() {
            return None;
        }
        let i = if self.rng.chance(0.5) {
            c[c.len() - 1 - self.rng.below(c.len().min(3))]
        } else {
            *self.rng.pick(&c)
        };
        Some(self.pool[i].clone())
    }

    fn float_dtype(&mut self) -> DType {
        *self.rng.pick(&[F16, BF16, F32, F32, F64, F64])
    }

    /// `v` converted by `as` to a dtype the predicate accepts, if it does not already.
    fn coerce(&mut self, v: Val, ok: impl Fn(DType) -> bool) -> Val {
        if ok(v.ty.dtype) {
            return v;
        }
        let choices: Vec<DType> = DType::ALL.into_iter().filter(|&d| ok(d)).collect();
        let d = *self.rng.pick(&choices);
        cast(v, d)
    }

    /// A weak literal of dtype `d`.
    fn literal(&mut self, d: DType) -> Lit {
        if d == Bool {
            return Lit::Bool(self.rng.chance(0.5));
        }
        if d.is_float() {
            if self.rng.chance(0.05) {
                return Lit::Float(*self.rng.pick(&[f64::INFINITY, f64::NEG_INFINITY, f64::NAN]));
            }
            if self.rng.chance(0.25) {
                return Lit::Int(self.rng.range(-3, 10) as i128);
            }
            return Lit::Float(*self.rng.pick(FLOAT_LITS));
        }
        let (lo, hi) = d.int_range();
        let c: Vec<i128> = [0, 1, 2, 3, 5, 7, -1, -3, 100, lo, hi, lo + 1, hi - 1, 31, 8]
            .into_iter()
            .filter(|v| (lo..=hi).contains(v))
            .collect();
        Lit::Int(*self.rng.pick(&c))
    }

    fn op(&mut self) -> Option<Val> {
        let w = if self.large {
            // Work linear in the elements only; reorganisations often.
            [30, 18, 6, 6, 12, 3, 4, 8, 30, 0, 0, 4, 4, 0, 0, 0]
        } else {
            [30, 18, 6, 6, 12, 3, 4, 8, 8, 4, 5, 4, 4, 5, 22, 6]
        };
        match self.rng.weighted(&w) {
            15 => self.vision(),
            14 => self.issue30(),
            13 => self.einsum(),
            12 => self.normalisation(),
            0 => self.binary(),
            1 => self.unary(),
            2 => {
                let v = self.pick();
                let d = *self.rng.pick(&DType::ALL);
                (d != v.ty.dtype).then(|| cast(v, d))
            }
            3 => self.where_(),
            4 => self.reduction(),
            5 => self.softmax(),
            6 => self.scan(),
            7 => self.shape_op(),
            8 => self.reorg(),
            9 => self.matmul(),
            10 => self.composite(),
            _ => self.activation(),
        }
    }

    /// A second operand for `a` under `kind`: a value that broadcasts and promotes, or a
    /// weak literal. Returns the operand and the promoted dtype.
    fn operand_for(&mut self, a: &Val, kind: BinKind) -> Option<(Val, DType)> {
        if !self.rng.chance(0.25) {
            let mut c: Vec<(Val, DType)> = Vec::new();
            for v in &self.pool {
                if let (Some(dims), Some(p)) = (
                    broadcast(&a.ty.dims, &v.ty.dims),
                    promote(a.ty.dtype, v.ty.dtype),
                ) {
                    if kind_accepts(kind, p) && dims.len() <= 6 {
                        c.push((v.clone(), p));
                    }
                }
            }
            if !c.is_empty() {
                return Some(c[self.rng.below(c.len())].clone());
            }
        }
        let d = a.ty.dtype;
        if !kind_accepts(kind, d) {
            return None;
        }
        let lit = if kind == BinKind::Shift {
            let (_, hi) = d.int_range();
            Lit::Int((self.rng.below(d.bits() as usize + 3) as i128).min(hi))
        } else {
            self.literal(d)
        };
        Some((
            Val {
                expr: Expr::Lit(lit),
                ty: Ty {
                    dtype: d,
                    dims: Vec::new(),
                },
                scalar: true,
            },
            d,
        ))
    }

    fn binary(&mut self) -> Option<Val> {
        let a = self.pick();
        let &(f, op, kind) = self.rng.pick(BINARY);
        let a = if kind_accepts(kind, a.ty.dtype) {
            a
        } else {
            self.coerce(a, |d| kind_accepts(kind, d))
        };
        let (b, p) = self.operand_for(&a, kind)?;
        let dims = broadcast(&a.ty.dims, &b.ty.dims)?;
        let (x, y) = if self.rng.chance(0.3) {
            (b.clone(), a.clone())
        } else {
            (a.clone(), b.clone())
        };
        let expr = match op {
            Some(op) if self.rng.chance(0.7) => Expr::Bin(op, Box::new(x.expr), Box::new(y.expr)),
            _ => call(f, vec![Arg::E(x.expr), Arg::E(y.expr)], vec![]),
        };
        let dtype = if kind == BinKind::Compare { Bool } else { p };
        Some(Val {
            expr,
            ty: Ty { dtype, dims },
            scalar: a.scalar && b.scalar,
        })
    }

    fn unary(&mut self) -> Option<Val> {
        let v = self.pick();
        let &(f, t) = self.rng.pick(UNARY);
        let v = self.coerce(v, |d| takes(t, d));
        let dtype = match f {
            "is_nan" | "is_inf" | "is_finite" => Bool,
            "bitwise_count" => U8,
            _ => v.ty.dtype,
        };
        let expr = match f {
            "neg" if self.rng.chance(0.5) => Expr::Neg(Box::new(v.expr)),
            "bitwise_not" if self.rng.chance(0.5) => Expr::Not(Box::new(v.expr)),
            _ => call(f, vec![Arg::E(v.expr)], vec![]),
        };
        Some(Val {
            expr,
            ty: Ty {
                dtype,
                dims: v.ty.dims,
            },
            scalar: v.scalar,
        })
    }

    fn activation(&mut self) -> Option<Val> {
        let v = self.pick();
        let v = self.coerce(v, |d| d.is_float());
        let &(f, params) = self.rng.pick(ACTIVATIONS);
        let mut named = Vec::new();
        for &p in params {
            if self.rng.chance(0.6) {
                if self.rng.chance(0.3) {
                    // A run-time scalar of the tensor's dtype: a bare scalar or rank-0
                    // parameter, new or already in scope.
                    let d = v.ty.dtype;
                    let existing: Vec<String> = self
                        .params
                        .iter()
                        .filter(|q| q.dtype == d && q.dims.as_ref().is_none_or(|x| x.is_empty()))
                        .map(|q| q.name.clone())
                        .collect();
                    let name = if !existing.is_empty() && self.rng.chance(0.3) {
                        self.rng.pick(&existing).clone()
                    } else {
                        let dims = self.rng.chance(0.5).then(Vec::new);
                        match self.add_param(d, dims).expr {
                            Expr::Var(n) => n,
                            _ => unreachable!(),
                        }
                    };
                    named.push((p, Arg::E(Expr::Var(name))));
                    continue;
                }
                let value = if f == "celu" {
                    *self.rng.pick(&[0.5, 1.0, 2.0, 0.25, 1.5])
                } else {
                    *self.rng.pick(&[-0.5, 0.25, 0.5, 1.0, 2.0, 1.5, 0.0, 0.125])
                };
                named.push((p, Arg::E(Expr::Lit(Lit::Float(value)))));
            }
        }
        Some(Val {
            expr: call(f, vec![Arg::E(v.expr)], named),
            ty: v.ty,
            scalar: v.scalar,
        })
    }

    fn where_(&mut self) -> Option<Val> {
        let a = self.pick();
        // The condition: a bool value that broadcasts, or a comparison of `a`.
        let conds: Vec<Val> = self
            .pool
            .iter()
            .filter(|v| v.ty.dtype == Bool && broadcast(&a.ty.dims, &v.ty.dims).is_some())
            .cloned()
            .collect();
        let cond = if !conds.is_empty() && self.rng.chance(0.6) {
            conds[self.rng.below(conds.len())].clone()
        } else {
            let lit = self.literal(a.ty.dtype);
            Val {
                expr: Expr::Bin(
                    BinOp::Gt,
                    Box::new(a.expr.clone()),
                    Box::new(Expr::Lit(lit)),
                ),
                ty: Ty {
                    dtype: Bool,
                    dims: a.ty.dims.clone(),
                },
                scalar: a.scalar,
            }
        };
        let (b, p) = self.operand_for(&a, BinKind::Compare)?;
        let dims = broadcast(&broadcast(&a.ty.dims, &b.ty.dims)?, &cond.ty.dims)?;
        let (x, y) = if self.rng.chance(0.5) {
            (a.clone(), b.clone())
        } else {
            (b.clone(), a.clone())
        };
        Some(Val {
            expr: call(
                "where",
                vec![Arg::E(cond.expr), Arg::E(x.expr), Arg::E(y.expr)],
                vec![],
            ),
            ty: Ty { dtype: p, dims },
            scalar: a.scalar && b.scalar && cond.scalar,
        })
    }

    /// Axes of a rank-`rank` value: one (maybe negative) or a list.
    fn axes(&mut self, rank: usize, list_ok: bool) -> (Vec<usize>, Arg) {
        let a = self.rng.below(rank);
        if !list_ok || self.rng.chance(0.6) {
            let written = if self.rng.chance(0.3) {
                a as i64 - rank as i64
            } else {
                a as i64
            };
            return (vec![a], Arg::Int(written));
        }
        let mut all: Vec<usize> = (0..rank).collect();
        self.rng.shuffle(&mut all);
        let k = 1 + self.rng.below(rank);
        let chosen: Vec<usize> = all[..k].to_vec();
        let written = chosen
            .iter()
            .map(|&a| {
                if self.rng.chance(0.3) {
                    a as i64 - rank as i64
                } else {
                    a as i64
                }
            })
            .collect();
        (chosen, Arg::Ints(written))
    }

    /// `dtype =` and `acc =` for a sum-like (or mean / float) reduction of `xd`.
    fn reduce_dtypes(&mut self, xd: DType, float_only: bool, named: &mut Vec<(&'static str, Arg)>) {
        if self.rng.chance(0.2) {
            let d = if float_only {
                self.float_dtype()
            } else {
                *self.rng.pick(&DType::ALL[1..])
            };
            named.push(("dtype", Arg::DType(d)));
        }
        if self.rng.chance(0.2) {
            let c: Vec<DType> = DType::ALL
                .into_iter()
                .filter(|&a| a != Bool && xd.fits_in(a) && (!float_only || a.is_float()))
                .collect();
            if !c.is_empty() {
                named.push(("acc", Arg::DType(*self.rng.pick(&c))));
            }
        }
    }

    fn reduction(&mut self) -> Option<Val> {
        const OPS: &[&str] = &[
            "sum",
            "prod",
            "reduce_l1",
            "reduce_sum_square",
            "mean",
            "reduce_l2",
            "reduce_log_sum",
            "reduce_log_sum_exp",
            "max",
            "min",
            "any",
            "all",
            "argmax",
            "argmin",
        ];
        let f = *self.rng.pick(OPS);
        let mut x = self.pick_tensor(0)?;
        let float_only = matches!(
            f,
            "mean" | "reduce_l2" | "reduce_log_sum" | "reduce_log_sum_exp"
        );
        if matches!(f, "reduce_l2" | "reduce_log_sum" | "reduce_log_sum_exp") {
            x = self.coerce(x, |d| d.is_float());
        }
        if matches!(f, "max" | "min") {
            x = self.coerce(x, |d| d != Bool);
        }
        let rank = x.ty.rank();
        let is_arg = matches!(f, "argmax" | "argmin");
        let mut named = Vec::new();
        let axes: Vec<usize> = if rank == 0 || self.rng.chance(0.2) {
            (0..rank).collect()
        } else {
            let (axes, written) = self.axes(rank, !is_arg);
            named.push(("axis", written));
            axes
        };
        if matches!(f, "max" | "min" | "argmax" | "argmin")
            && axes.iter().any(|&a| x.ty.dims[a] == Dim::Lit(0))
        {
            return None;
        }
        let keepdims = self.rng.chance(0.3);
        if keepdims {
            named.push(("keepdims", Arg::Bool(true)));
        } else if self.rng.chance(0.1) {
            named.push(("keepdims", Arg::Bool(false)));
        }
        let xd = x.ty.dtype;
        let mut out = match f {
            "sum" | "prod" | "reduce_l1" | "reduce_sum_square" => xd.sum_out(),
            "mean" => {
                if xd.is_float() {
                    xd
                } else {
                    F64
                }
            }
            "any" | "all" => Bool,
            "argmax" | "argmin" => I64,
            _ => xd,
        };
        if matches!(
            f,
            "sum" | "prod" | "reduce_l1" | "reduce_sum_square" | "mean"
        ) || float_only
        {
            self.reduce_dtypes(xd, float_only, &mut named);
            if let Some((_, Arg::DType(d))) = named.iter().find(|(n, _)| *n == "dtype") {
                out = *d;
            }
        }
        let dims = reduced_dims(&x.ty.dims, &axes, keepdims || (is_arg && false));
        let args_axes_absent = !named.iter().any(|(n, _)| *n == "axis");
        let dims = if is_arg && args_axes_absent && !keepdims {
            Vec::new()
        } else {
            dims
        };
        Some(Val {
            expr: call(f, vec![Arg::E(x.expr)], named),
            ty: Ty { dtype: out, dims },
            scalar: x.scalar,
        })
    }

    fn softmax(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let x = self.coerce(x, |d| d.is_float());
        let f = if self.rng.chance(0.5) {
            "softmax"
        } else {
            "logsoftmax"
        };
        let mut named = Vec::new();
        if self.rng.chance(0.6) {
            let (_, written) = self.axes(x.ty.rank(), false);
            named.push(("axis", written));
        }
        Some(Val {
            expr: call(f, vec![Arg::E(x.expr)], named),
            ty: x.ty,
            scalar: false,
        })
    }

    fn scan(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let f = if self.rng.chance(0.6) {
            "cumsum"
        } else {
            "cumprod"
        };
        let (_, written) = self.axes(x.ty.rank(), false);
        let mut named = vec![("axis", written)];
        for p in ["exclusive", "reverse"] {
            if self.rng.chance(0.35) {
                named.push((p, Arg::Bool(self.rng.chance(0.7))));
            }
        }
        self.reduce_dtypes(x.ty.dtype, false, &mut named);
        let out = match named.iter().find(|(n, _)| *n == "dtype") {
            Some((_, Arg::DType(d))) => *d,
            _ => x.ty.dtype.sum_out(),
        };
        Some(Val {
            expr: call(f, vec![Arg::E(x.expr)], named),
            ty: Ty {
                dtype: out,
                dims: x.ty.dims,
            },
            scalar: false,
        })
    }

    fn shape_op(&mut self) -> Option<Val> {
        let x = self.pick_tensor(0)?;
        let dims = x.ty.dims.clone();
        let rank = dims.len();
        // A value with names is reshaped more often (the rule for names is its own).
        let pick = if x.ty.lit_len().is_none() && self.rng.chance(0.25) {
            5
        } else {
            self.rng.below(6)
        };
        let (expr, out): (Expr, Vec<Dim>) = match pick {
            0 if rank >= 1 => {
                let mut perm: Vec<usize> = (0..rank).collect();
                self.rng.shuffle(&mut perm);
                let out = perm.iter().map(|&a| dims[a].clone()).collect();
                let p = perm.iter().map(|&a| a as i64).collect();
                (
                    call("transpose", vec![Arg::E(x.expr), Arg::Ints(p)], vec![]),
                    out,
                )
            }
            1 if rank < 6 => {
                let at = self.rng.below(rank + 1);
                let written = if self.rng.chance(0.3) {
                    at as i64 - rank as i64 - 1
                } else {
                    at as i64
                };
                let mut out = dims.clone();
                out.insert(at, Dim::Lit(1));
                (
                    call(
                        "expand_dims",
                        vec![Arg::E(x.expr), Arg::Int(written)],
                        vec![],
                    ),
                    out,
                )
            }
            2 => {
                let ones: Vec<usize> = (0..rank).filter(|&a| dims[a].is_one()).collect();
                let named = dims.iter().any(|d| !d.is_lit());
                if !named && (ones.is_empty() || self.rng.chance(0.3)) {
                    let out = dims.iter().filter(|d| !d.is_one()).cloned().collect();
                    (call("squeeze", vec![Arg::E(x.expr)], vec![]), out)
                } else if !ones.is_empty() {
                    let a = *self.rng.pick(&ones);
                    let mut out = dims.clone();
                    out.remove(a);
                    (
                        call("squeeze", vec![Arg::E(x.expr), Arg::Int(a as i64)], vec![]),
                        out,
                    )
                } else {
                    return None;
                }
            }
            3 => {
                // Keep the axes that are not a literal 1 (and some that are), permute,
                // insert 'x'.
                let mut kept: Vec<usize> = (0..rank)
                    .filter(|&a| !dims[a].is_one() || self.rng.chance(0.5))
                    .collect();
                self.rng.shuffle(&mut kept);
                let mut pattern: Vec<Option<usize>> = kept.into_iter().map(Some).collect();
                while pattern.len() < 6 && self.rng.chance(0.4) {
                    let at = self.rng.below(pattern.len() + 1);
                    pattern.insert(at, None);
                }
                let out = pattern
                    .iter()
                    .map(|p| p.map_or(Dim::Lit(1), |a| dims[a].clone()))
                    .collect();
                (
                    call(
                        "dimshuffle",
                        vec![Arg::E(x.expr), Arg::Pattern(pattern)],
                        vec![],
                    ),
                    out,
                )
            }
            4 => {
                // broadcast_to: 1s become base dims, maybe new leading axes.
                let mut out: Vec<Dim> = dims
                    .iter()
                    .map(|d| {
                        if d.is_one() && self.rng.chance(0.6) {
                            self.base_dim()
                        } else {
                            d.clone()
                        }
                    })
                    .collect();
                while out.len() < 6 && self.rng.chance(0.3) {
                    let d = self.base_dim();
                    out.insert(0, d);
                }
                // Targets take literals and names, not expressions (as `reshape`'s).
                if out.iter().any(|d| matches!(d, Dim::Expr(_))) {
                    return None;
                }
                let target = out.iter().cloned().map(TargetDim::Dim).collect();
                (
                    call(
                        "broadcast_to",
                        vec![Arg::E(x.expr), Arg::Dims(target)],
                        vec![],
                    ),
                    out,
                )
            }
            _ if x.ty.dims.iter().any(|d| matches!(d, Dim::Expr(_))) => return None,
            _ if x.ty.lit_len().is_none() => {
                // With names: every name stays one whole axis, in order; each run of
                // literal dims between them regroups on its own (docs/language.md). No
                // `-1` here: it absorbs literal dims only, and which ones is the run's.
                let mut out = Vec::new();
                let mut run = 1usize;
                for d in &dims {
                    match d {
                        Dim::Lit(n) => run *= n,
                        _ => {
                            let part = self.regroup(run);
                            out.extend(part);
                            out.push(d.clone());
                            run = 1;
                        }
                    }
                }
                let part = self.regroup(run);
                out.extend(part);
                let target = out.iter().cloned().map(TargetDim::Dim).collect();
                (
                    call("reshape", vec![Arg::E(x.expr), Arg::Dims(target)], vec![]),
                    out,
                )
            }
            _ => {
                let total = x.ty.lit_len()?;
                let out = self.factor(total);
                let mut target: Vec<TargetDim> = out.iter().cloned().map(TargetDim::Dim).collect();
                if total > 0 && !target.is_empty() && self.rng.chance(0.4) {
                    let i = self.rng.below(target.len());
                    target[i] = TargetDim::Infer;
                }
                (
                    call("reshape", vec![Arg::E(x.expr), Arg::Dims(target)], vec![]),
                    out,
                )
            }
        };
        Some(Val {
            expr,
            ty: Ty {
                dtype: x.ty.dtype,
                dims: out,
            },
            scalar: false,
        })
    }

    fn base_dim(&mut self) -> Dim {
        if self.base.is_empty() || self.rng.chance(0.3) {
            Dim::Lit(*self.rng.pick(&[1, 2, 3, 5]))
        } else {
            let i = self.rng.below(self.base.len());
            self.base[i].clone()
        }
    }

    /// A run of literal dims with product `total` between names of a reshape: none or
    /// some 1s when it is 1, else a factorisation.
    fn regroup(&mut self, total: usize) -> Vec<Dim> {
        if total == 1 {
            return vec![Dim::Lit(1); *self.rng.pick(&[0, 0, 1, 2])];
        }
        self.factor(total)
    }

    /// Dims whose product is `total` (rank 1..=4).
    fn factor(&mut self, mut total: usize) -> Vec<Dim> {
        let mut out = Vec::new();
        let rank = 1 + self.rng.below(4);
        for _ in 1..rank {
            let divisors: Vec<usize> = (1..=total.min(17)).filter(|d| total % d == 0).collect();
            if divisors.is_empty() {
                break;
            }
            let d = *self.rng.pick(&divisors);
            out.push(Dim::Lit(d));
            total /= d;
        }
        out.push(Dim::Lit(total));
        self.rng.shuffle(&mut out);
        out
    }

    fn reorg(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let dims = x.ty.dims.clone();
        let rank = dims.len();
        let lit_axes: Vec<usize> = (0..rank)
            .filter(|&a| matches!(dims[a], Dim::Lit(_)))
            .collect();
        let which = if self.force_concat {
            4
        } else {
            self.rng.below(5)
        };
        let (expr, out): (Expr, Vec<Dim>) = match which {
            0 => {
                // A named axis half the time there is one (its bounds are checked at call
                // entry, a path of its own).
                let named_axes: Vec<usize> = (0..rank).filter(|&a| !dims[a].is_lit()).collect();
                let a = if !named_axes.is_empty() && self.rng.chance(0.5) {
                    *self.rng.pick(&named_axes)
                } else {
                    self.rng.below(rank)
                };
                let mut named: Vec<(&'static str, Arg)> = vec![("axis", Arg::Int(a as i64))];
                let mut out = dims.clone();
                match dims[a] {
                    Dim::Lit(n) => {
                        let n = n as i64;
                        let step = *self.rng.pick(&[1i64, 1, 2, 3, -1, -2]);
                        let start = self.rng.chance(0.6).then(|| self.rng.range(-n - 2, n + 2));
                        let end = self.rng.chance(0.6).then(|| self.rng.range(-n - 2, n + 2));
                        if let Some(s) = start {
                            named.push(("start", Arg::Int(s)));
                        }
                        if let Some(e) = end {
                            named.push(("end", Arg::Int(e)));
                        }
                        if step != 1 || self.rng.chance(0.2) {
                            named.push(("step", Arg::Int(step)));
                        }
                        out[a] = Dim::Lit(slice_len(n, start, end, step));
                    }
                    _ => {
                        // Literal bounds on one side of the axis (the call checks the
                        // axis is long enough), or the whole axis (docs/language.md).
                        let step = *self.rng.pick(&[1i64, 1, 2, 3, -1, -2]);
                        let pos = |rng: &mut Rng| rng.range(0, 6);
                        let neg = |rng: &mut Rng| rng.range(-6, -1);
                        let mixed = self.rng.chance(0.35);
                        let (start, end) = match self.rng.below(5) {
                            // Bounds from both ends: an expression length (`N - 3`).
                            _ if mixed && self.rng.chance(0.5) => {
                                (Some(pos(&mut self.rng)), Some(neg(&mut self.rng)))
                            }
                            _ if mixed => (Some(neg(&mut self.rng)), Some(pos(&mut self.rng))),
                            0 => (None, None),
                            1 if self.rng.chance(0.5) => {
                                (Some(pos(&mut self.rng)), Some(pos(&mut self.rng)))
                            }
                            1 => (Some(neg(&mut self.rng)), Some(neg(&mut self.rng))),
                            2 => (Some(neg(&mut self.rng)), None),
                            3 => (Some(pos(&mut self.rng)), None),
                            _ if step > 0 => (None, Some(pos(&mut self.rng))),
                            _ => (None, Some(neg(&mut self.rng))),
                        };
                        let step = match (start, end) {
                            // The whole axis: forwards or backwards, maybe from its
                            // first element in that direction, maybe with a step
                            // (`(N + 1) / 2`).
                            (None, None) if self.rng.chance(0.5) => step,
                            (None, None) => step.signum(),
                            (Some(s), None) if s < 0 => step.abs(),
                            (Some(_), None) => -step.abs(),
                            (None, Some(e)) if e < 0 => -step.abs(),
                            (None, Some(_)) => step.abs(),
                            _ => step,
                        };
                        let start = match (start, end) {
                            (None, None) if self.rng.chance(0.3) => {
                                Some(if step > 0 { 0 } else { -1 })
                            }
                            _ => start,
                        };
                        if let Some(s) = start {
                            named.push(("start", Arg::Int(s)));
                        }
                        if let Some(e) = end {
                            named.push(("end", Arg::Int(e)));
                        }
                        if step != 1 || self.rng.chance(0.2) {
                            named.push(("step", Arg::Int(step)));
                        }
                        let whole = end.is_none()
                            && match start {
                                None => true,
                                Some(s) => s == if step > 0 { 0 } else { -1 },
                            };
                        let len = symbolic_slice_len(&dims[a], start, end, step);
                        if !(whole && step.abs() == 1) {
                            out[a] = match Dim::from_lin(len.clone()) {
                                Some(d) if !d.is_lit() => d,
                                // No clamping on an axis long enough: NumPy's length on
                                // a long one.
                                _ => Dim::Lit(slice_len(1 << 20, start, end, step)),
                            };
                        }
                    }
                }
                (call("slice", vec![Arg::E(x.expr)], named), out)
            }
            1 => {
                let named = if self.rng.chance(0.3) {
                    vec![]
                } else {
                    let (_, w) = self.axes(rank, true);
                    vec![("axis", w)]
                };
                (call("flip", vec![Arg::E(x.expr)], named), dims.clone())
            }
            2 => {
                let mode = *self.rng.pick(&["constant", "constant", "reflect", "edge"]);
                let mut pads = Vec::new();
                let mut out = dims.clone();
                for a in 0..rank {
                    let (b, e) = match dims[a] {
                        // Non-negative counts on a symbolic axis (`N + 3`); `edge` and
                        // `reflect` at least one (the call checks the axis is long enough).
                        Dim::Name(_) | Dim::Expr(_) if self.rng.chance(0.5) => (0, 0),
                        Dim::Name(_) | Dim::Expr(_) => {
                            let lo = if mode == "constant" { 0 } else { 1 };
                            (self.rng.range(lo, 2), self.rng.range(0, 2))
                        }
                        Dim::Lit(n) => {
                            let n = n as i64;
                            let large = self.large;
                            let pick = |rng: &mut Rng| -> i64 {
                                match mode {
                                    // Small counts on many axes (their pieces multiply),
                                    // large ones on few (within the element cap).
                                    "reflect" if large && rank >= 4 => {
                                        rng.range(0, (n - 1).clamp(0, 2))
                                    }
                                    "reflect" if large => rng.range(0, (n - 1).clamp(0, 40)),
                                    "reflect" => rng.range(0, (n - 1).clamp(0, 3)),
                                    "edge" if n == 0 => 0,
                                    "edge" if large && rank >= 4 => rng.range(0, 2),
                                    "edge" if large => rng.range(0, 40),
                                    "edge" => rng.range(0, 3),
                                    _ if large => rng.range(-(n.min(20)), 100),
                                    _ => rng.range(-(n.min(2)), 3),
                                }
                            };
                            let (mut b, mut e) = (pick(&mut self.rng), pick(&mut self.rng));
                            // Large graphs pad most literal axes on both sides, so the
                            // pieces of many axes multiply (issue 33).
                            let least = if mode == "reflect" { 2 } else { 1 };
                            if self.large && n >= least && self.rng.chance(0.7) {
                                (b, e) = (b.max(1), e.max(1));
                            }
                            // Crops may not remove more than the axis.
                            if b + e < -n {
                                (0, 0)
                            } else {
                                (b, e)
                            }
                        }
                    };
                    out[a] = Dim::from_lin(dims[a].lin().add(&Lin::constant(b + e))).unwrap();
                    pads.push(b);
                    pads.push(e);
                }
                let mut named = Vec::new();
                if mode == "constant" && self.rng.chance(0.6) {
                    let l = self.literal(x.ty.dtype);
                    named.push(("value", Arg::E(Expr::Lit(l))));
                }
                if mode != "constant" || self.rng.chance(0.2) {
                    named.push(("mode", Arg::Word(mode)));
                }
                (
                    call("pad", vec![Arg::E(x.expr), Arg::Ints(pads)], named),
                    out,
                )
            }
            3 => {
                let reps: Vec<i64> = dims
                    .iter()
                    .map(|d| match d {
                        Dim::Lit(_) if self.large => {
                            *self.rng.pick(&[1, 1, 2, 3, 7, 16, 100, 1000, 0])
                        }
                        Dim::Lit(_) => *self.rng.pick(&[1, 1, 2, 3, 0]),
                        _ if self.rng.chance(0.5) => 1,
                        _ => *self.rng.pick(&[2, 3, 0]),
                    })
                    .collect();
                let out = dims
                    .iter()
                    .zip(&reps)
                    .map(|(d, &r)| Dim::from_lin(d.lin().scale(r)).unwrap())
                    .collect();
                (
                    call("tile", vec![Arg::E(x.expr), Arg::Ints(reps)], vec![]),
                    out,
                )
            }
            _ => {
                // Along any axis: a symbolic one sums to an expression (`N + M`), with a
                // new parameter of a new name or a literal length half the time.
                let a = if lit_axes.is_empty() || self.rng.chance(0.4) {
                    self.rng.below(rank)
                } else {
                    *self.rng.pick(&lit_axes)
                };
                let symbolic = !dims[a].is_lit() || self.rng.chance(0.2);
                // Parts: values of the same dims but along `a`, promoting with x.
                let mut parts = vec![x.clone()];
                let mut dtype = x.ty.dtype;
                // Many parts in a large graph (each a region of its readers' boxes), not
                // along names (a new parameter each).
                let more = if self.large && !symbolic {
                    1 + self.rng.below(48)
                } else {
                    1 + self.rng.below(2)
                };
                for _ in 0..more {
                    let c: Vec<Val> = self
                        .pool
                        .iter()
                        .filter(|v| {
                            !v.scalar
                                && v.ty.rank() == rank
                                && (0..rank).all(|k| k == a || v.ty.dims[k] == dims[k])
                                && (symbolic || v.ty.dims[a].is_lit())
                                && promote(dtype, v.ty.dtype).is_some()
                        })
                        .cloned()
                        .collect();
                    let v = if symbolic && self.rng.chance(0.5) {
                        let mut pd = dims.clone();
                        pd[a] = self.new_name_or_lit();
                        let d = if self.rng.chance(0.7) {
                            dtype
                        } else {
                            self.param_dtype()
                        };
                        self.add_param(d, Some(pd))
                    } else if c.is_empty() || self.rng.chance(0.3) {
                        x.clone()
                    } else {
                        c[self.rng.below(c.len())].clone()
                    };
                    dtype = promote(dtype, v.ty.dtype)?;
                    parts.push(v);
                }
                let len = parts
                    .iter()
                    .fold(Lin::constant(0), |l, v| l.add(&v.ty.dims[a].lin()));
                let mut out = dims.clone();
                out[a] = Dim::from_lin(len).unwrap();
                let list = parts.into_iter().map(|v| v.expr).collect();
                let e = call(
                    "concat",
                    vec![Arg::List(list)],
                    vec![("axis", Arg::Int(a as i64))],
                );
                return Some(Val {
                    expr: e,
                    ty: Ty { dtype, dims: out },
                    scalar: false,
                });
            }
        };
        Some(Val {
            expr,
            ty: Ty {
                dtype: x.ty.dtype,
                dims: out,
            },
            scalar: false,
        })
    }

    /// A product of a value in scope and a new parameter, either side (NumPy `matmul`
    /// shapes). Issue 37: the lowering reads an operand in place through its view or from a
    /// temp its stage computes, so both operands are also drawn as views (a slice with
    /// offsets and steps, one that leaves a batch axis of 1 which then broadcasts, a flip, a
    /// transpose of the matrix axes) or reductions; the parameter is declared wider and
    /// sliced, or transposed, to its operand's shape.
    fn matmul(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let x = self.coerce(x, |d| d != Bool);
        let x = self.product_operand(x);
        let xd = x.ty.dims.clone();
        if xd.is_empty() {
            return None;
        }
        // `x` on the right: `param @ x`, its contracted axis second to last (or its only).
        let x_right = self.rng.chance(0.35);
        let k = if x_right && xd.len() >= 2 {
            xd[xd.len() - 2].clone()
        } else {
            xd[xd.len() - 1].clone()
        };
        // The parameter's operand shape: [K] (a vector), or [batch…, K, N] / [batch…, M, K].
        let pd: Vec<Dim> = if xd.len() == 1 || self.rng.chance(0.3) {
            if self.rng.chance(0.5) {
                vec![k.clone()]
            } else {
                let other = Dim::Lit(*self.rng.pick(&[1, 2, 3, 8, 9]));
                if x_right {
                    vec![other, k.clone()]
                } else {
                    vec![k.clone(), other]
                }
            }
        } else {
            let mut b: Vec<Dim> = xd[..xd.len() - 2].to_vec();
            if !b.is_empty() && self.rng.chance(0.4) {
                b.remove(0);
            }
            for d in &mut b {
                if d.is_one() && self.rng.chance(0.6) {
                    // `x`'s batch axis of 1 broadcasts over the parameter's.
                    *d = Dim::Lit(*self.rng.pick(&[2, 3, 5]));
                } else if self.rng.chance(0.3) {
                    *d = Dim::Lit(1);
                }
            }
            let other = Dim::Lit(*self.rng.pick(&[1, 2, 3, 8, 9]));
            if x_right {
                b.push(other);
                b.push(k.clone());
            } else {
                b.push(k.clone());
                b.push(other);
            }
            b
        };
        let ok: Vec<DType> = DType::ALL
            .into_iter()
            .filter(|&d| promote(x.ty.dtype, d).is_some_and(|p| p != Bool))
            .collect();
        let pdt = if ok.contains(&x.ty.dtype) && self.rng.chance(0.6) {
            x.ty.dtype
        } else {
            *self.rng.pick(&ok)
        };
        let param = self.param_as_view(pdt, pd.clone());
        let p = promote(x.ty.dtype, pdt)?;
        let out_dtype = if p.is_float() { p } else { p.sum_out() };
        let (a, b) = if x_right { (param, x) } else { (x, param) };
        let (ad, bd) = (a.ty.dims.clone(), b.ty.dims.clone());
        // NumPy matmul shapes.
        let (am, a1) = if ad.len() == 1 {
            (vec![Dim::Lit(1), ad[0].clone()], true)
        } else {
            (ad.clone(), false)
        };
        let (bm, b1) = if bd.len() == 1 {
            (vec![bd[0].clone(), Dim::Lit(1)], true)
        } else {
            (bd.clone(), false)
        };
        if am[am.len() - 1] != bm[bm.len() - 2] {
            return None;
        }
        let batch = broadcast(&am[..am.len() - 2], &bm[..bm.len() - 2])?;
        let mut out = batch;
        if !a1 {
            out.push(am[am.len() - 2].clone());
        }
        if !b1 {
            out.push(bm[bm.len() - 1].clone());
        }
        if out.len() > 6 {
            return None;
        }
        let mut named = Vec::new();
        if p == F32 && self.rng.chance(0.3) {
            named.push(("acc", Arg::DType(F64)));
        }
        let expr = if named.is_empty() && self.rng.chance(0.5) {
            Expr::Bin(BinOp::MatMul, Box::new(a.expr), Box::new(b.expr))
        } else {
            call("matmul", vec![Arg::E(a.expr), Arg::E(b.expr)], named)
        };
        Some(Val {
            expr,
            ty: Ty {
                dtype: out_dtype,
                dims: out,
            },
            scalar: false,
        })
    }

    /// `x` as a product reads it (issue 37), half the time as it is: a view of it (a slice
    /// of a batch axis to one element, which broadcasts; a slice with an offset and a step;
    /// a flip; a transpose of the last two axes) or a reduction over one of its axes.
    fn product_operand(&mut self, x: Val) -> Val {
        let dims = x.ty.dims.clone();
        let rank = dims.len();
        let batch_axes: Vec<usize> = (0..rank.saturating_sub(2)).collect();
        match self.rng.weighted(&[10, 4, 3, 2, 2, 4, 3]) {
            6 if rank >= 1 => {
                // A new parameter with an axis of 2, 3 or 5 before `x`'s last, reduced over it:
                // `max(q, axis = -2)` with `q: [M, T, K]` is the left operand `[M, K]` that a
                // product's stage reduces into a block temp row by row (issue 37).
                let mut qd = dims.clone();
                qd.insert(rank - 1, Dim::Lit(*self.rng.pick(&[2, 3, 5])));
                if qd.len() > 6 {
                    return x;
                }
                let q = self.add_param(x.ty.dtype, Some(qd.clone()));
                let xd = x.ty.dtype;
                let f = *self.rng.pick(&["max", "min", "sum", "mean", "prod"]);
                let f = if f == "mean" && !xd.is_float() {
                    "sum"
                } else {
                    f
                };
                let dtype = if matches!(f, "sum" | "prod") {
                    xd.sum_out()
                } else {
                    xd
                };
                let axis = if self.rng.chance(0.5) {
                    -2
                } else {
                    rank as i64 - 1
                };
                Val {
                    expr: call(f, vec![Arg::E(q.expr)], vec![("axis", Arg::Int(axis))]),
                    ty: Ty {
                        dtype,
                        dims: reduced_dims(&qd, &[rank - 1], false),
                    },
                    scalar: false,
                }
            }
            1 if !batch_axes.is_empty() => {
                let a = *self.rng.pick(&batch_axes);
                self.slice_to_one(x, a)
            }
            2 => {
                let lit: Vec<usize> = (0..rank)
                    .filter(|&a| matches!(dims[a], Dim::Lit(n) if n > 1))
                    .collect();
                if lit.is_empty() {
                    return x;
                }
                let a = *self.rng.pick(&lit);
                let Dim::Lit(n) = dims[a] else { unreachable!() };
                let n = n as i64;
                let step = *self.rng.pick(&[1i64, 2, 3, -1, -2]);
                let start = self.rng.range(-n, n - 1);
                let end = self.rng.chance(0.5).then(|| self.rng.range(-n - 1, n + 1));
                let len = slice_len(n, Some(start), end, step);
                if len == 0 {
                    return x;
                }
                let mut named = vec![("axis", Arg::Int(a as i64)), ("start", Arg::Int(start))];
                if let Some(e) = end {
                    named.push(("end", Arg::Int(e)));
                }
                named.push(("step", Arg::Int(step)));
                let mut out = dims.clone();
                out[a] = Dim::Lit(len);
                view(x, call("slice", vec![], named), out)
            }
            3 => {
                let a = self.rng.below(rank);
                let named = vec![("axis", Arg::Int(a as i64))];
                view(x, call("flip", vec![], named), dims)
            }
            4 if rank >= 2 => {
                let mut perm: Vec<i64> = (0..rank as i64).collect();
                perm.swap(rank - 2, rank - 1);
                let mut out = dims.clone();
                out.swap(rank - 2, rank - 1);
                view(x, call("transpose", vec![Arg::Ints(perm)], vec![]), out)
            }
            5 if rank >= 2 => {
                // Mostly an axis before the last two: the reduction then accumulates into a
                // temp row by row, which the product's stage computes block by block (issue
                // 37: that temp was read without its init).
                let a = if rank >= 3 && self.rng.chance(0.6) {
                    self.rng.below(rank - 2) + 1
                } else {
                    self.rng.below(rank)
                };
                let a = a.min(rank - 1);
                if dims[a] == Dim::Lit(0) {
                    return x;
                }
                let xd = x.ty.dtype;
                let f = *self.rng.pick(&["max", "min", "sum", "mean"]);
                let f = if f == "mean" && !xd.is_float() {
                    "sum"
                } else {
                    f
                };
                let dtype = if f == "sum" { xd.sum_out() } else { xd };
                let named = vec![("axis", Arg::Int(a as i64))];
                Val {
                    expr: call(f, vec![Arg::E(x.expr)], named),
                    ty: Ty {
                        dtype,
                        dims: reduced_dims(&dims, &[a], false),
                    },
                    scalar: x.scalar,
                }
            }
            _ => x,
        }
    }

    /// `slice(x, axis = a, …)` leaving one element of axis `a`: `start = s, end = s + 1`, a
    /// negative start, `end = 1`, or a step past the end. A named axis (only of a variable,
    /// which the interpreter checks) takes `start = s, end = s + 1`, which call entry checks.
    fn slice_to_one(&mut self, x: Val, a: usize) -> Val {
        let mut out = x.ty.dims.clone();
        let named = match x.ty.dims[a] {
            Dim::Lit(0) | Dim::Lit(1) => return x,
            Dim::Lit(n) => {
                let n = n as i64;
                let s = self.rng.range(0, n - 1);
                match self.rng.below(4) {
                    0 => vec![("start", Arg::Int(s)), ("end", Arg::Int(s + 1))],
                    // From the end: `end = 0` would be empty, so the last is `start = -1`.
                    1 if s == n - 1 => vec![("start", Arg::Int(-1))],
                    1 => vec![("start", Arg::Int(s - n)), ("end", Arg::Int(s - n + 1))],
                    2 => vec![("end", Arg::Int(1))],
                    _ => vec![("start", Arg::Int(s)), ("step", Arg::Int(n + 1000))],
                }
            }
            _ if matches!(x.expr, Expr::Var(_)) => {
                let s = self.rng.range(0, 3);
                vec![("start", Arg::Int(s)), ("end", Arg::Int(s + 1))]
            }
            _ => return x,
        };
        out[a] = Dim::Lit(1);
        let mut all = vec![("axis", Arg::Int(a as i64))];
        all.extend(named);
        view(x, call("slice", vec![], all), out)
    }

    /// A new parameter whose value is an operand of shape `dims`: declared with those dims,
    /// or wider along one axis and sliced to it (to one element, or every other one), or
    /// with its last two axes swapped and transposed back.
    fn param_as_view(&mut self, dtype: DType, dims: Vec<Dim>) -> Val {
        let rank = dims.len();
        match self.rng.below(5) {
            0 | 1 => {
                // Wider along an axis of literal size: a slice gives it back.
                let lit: Vec<usize> = (0..rank)
                    .filter(|&a| matches!(dims[a], Dim::Lit(n) if n >= 1))
                    .collect();
                if lit.is_empty() {
                    return self.add_param(dtype, Some(dims));
                }
                let a = *self.rng.pick(&lit);
                let Dim::Lit(n) = dims[a] else { unreachable!() };
                let mut wide = dims.clone();
                if n == 1 {
                    wide[a] = Dim::Lit(*self.rng.pick(&[2, 3, 4]));
                    let p = self.add_param(dtype, Some(wide));
                    self.slice_to_one(p, a)
                } else {
                    // Every other element from `start`: 2n - 1 + start elements hold n.
                    let start = self.rng.range(0, 1) as usize;
                    wide[a] = Dim::Lit(2 * n - 1 + start);
                    let p = self.add_param(dtype, Some(wide));
                    let named = vec![
                        ("axis", Arg::Int(a as i64)),
                        ("start", Arg::Int(start as i64)),
                        ("step", Arg::Int(2)),
                    ];
                    view(p, call("slice", vec![], named), dims)
                }
            }
            2 if rank >= 2 => {
                let mut swapped = dims.clone();
                swapped.swap(rank - 2, rank - 1);
                let p = self.add_param(dtype, Some(swapped));
                let mut perm: Vec<i64> = (0..rank as i64).collect();
                perm.swap(rank - 2, rank - 1);
                view(p, call("transpose", vec![Arg::Ints(perm)], vec![]), dims)
            }
            _ => self.add_param(dtype, Some(dims)),
        }
    }

    /// `einsum` of one operand (diagonals, sums, permutations) or of two (a value in
    /// scope and a new parameter): letters, repeated letters, `...` batch dims that
    /// broadcast, explicit or implicit output (docs/language.md).
    fn einsum(&mut self) -> Option<Val> {
        const LETTERS: &[char] = &['i', 'j', 'k', 'l', 'm', 'n', 'p', 'q', 'A', 'Z'];
        let a = self.pick_tensor(1)?;
        if a.ty.rank() > 5 {
            return None;
        }
        let a = self.coerce(a, |d| d != Bool);
        let mut letters: Vec<char> = LETTERS.to_vec();
        self.rng.shuffle(&mut letters);
        let mut fresh = letters.into_iter();
        let mut size: Vec<(char, Dim)> = Vec::new();
        let size_of = |size: &[(char, Dim)], c: char| {
            size.iter().find(|(l, _)| *l == c).map(|(_, d)| d.clone())
        };
        // Operand a: `before ... after`, the batch axes `nb` of them.
        let ra = a.ty.rank();
        let nb = if ra >= 2 && self.rng.chance(0.3) {
            1 + self.rng.below(ra - 1)
        } else {
            0
        };
        let ellipsis = nb > 0 || (ra >= 1 && self.rng.chance(0.05));
        let at = if ellipsis && self.rng.chance(0.3) {
            self.rng.below(ra - nb + 1)
        } else {
            0
        };
        let mut a_letters: Vec<char> = Vec::new();
        let a_axes: Vec<usize> = (0..at).chain(at + nb..ra).collect();
        for &ax in &a_axes {
            let d = a.ty.dims[ax].clone();
            let same: Vec<char> = a_letters
                .iter()
                .copied()
                .filter(|&c| size_of(&size, c) == Some(d.clone()))
                .collect();
            let c = if !same.is_empty() && self.rng.chance(0.5) {
                *self.rng.pick(&same)
            } else {
                let c = fresh.next()?;
                size.push((c, d));
                c
            };
            a_letters.push(c);
        }
        let a_batch: Vec<Dim> = a.ty.dims[at..at + nb].to_vec();
        let group = |ls: &[char], at: usize, ellipsis: bool| -> String {
            let mut g: String = ls[..at].iter().collect();
            if ellipsis {
                g += "...";
            }
            g.extend(ls[at..].iter());
            g
        };
        let mut groups = vec![group(&a_letters, at, ellipsis)];
        let mut all_letters = a_letters.clone();
        let mut batch = a_batch.clone();
        let mut operands = vec![a.clone()];
        let mut dtype = a.ty.dtype;
        if self.rng.chance(0.65) {
            // Operand b: some of a's letters, new ones, maybe a repeat; batch dims a
            // suffix of a's with some 1s.
            let mut unique: Vec<char> = Vec::new();
            for &c in &a_letters {
                if !unique.contains(&c) {
                    unique.push(c);
                }
            }
            let mut b_letters: Vec<char> = unique
                .iter()
                .copied()
                .filter(|_| self.rng.chance(0.55))
                .collect();
            for _ in 0..self.rng.below(3) {
                let c = fresh.next()?;
                let d = if self.rng.chance(0.3) {
                    self.base_dim()
                } else {
                    Dim::Lit(*self.rng.pick(&[1, 2, 3, 4, 5, 8, 9]))
                };
                size.push((c, d));
                b_letters.push(c);
            }
            self.rng.shuffle(&mut b_letters);
            if !b_letters.is_empty() && self.rng.chance(0.1) {
                let c = *self.rng.pick(&b_letters);
                let at = self.rng.below(b_letters.len() + 1);
                b_letters.insert(at, c);
            }
            let nbb = if ellipsis { self.rng.below(nb + 1) } else { 0 };
            let b_batch: Vec<Dim> = a_batch[nb - nbb..]
                .iter()
                .map(|d| {
                    if self.rng.chance(0.3) {
                        Dim::Lit(1)
                    } else {
                        d.clone()
                    }
                })
                .collect();
            let bat = if ellipsis {
                self.rng.below(b_letters.len() + 1)
            } else {
                0
            };
            let mut dims: Vec<Dim> = b_letters[..bat]
                .iter()
                .map(|&c| size_of(&size, c).unwrap())
                .collect();
            dims.extend(b_batch);
            dims.extend(b_letters[bat..].iter().map(|&c| size_of(&size, c).unwrap()));
            if dims.is_empty() || dims.len() > 6 {
                return None;
            }
            let ok: Vec<DType> = DType::ALL
                .into_iter()
                .filter(|&d| promote(a.ty.dtype, d).is_some_and(|p| p != Bool))
                .collect();
            let bdt = if ok.contains(&a.ty.dtype) && self.rng.chance(0.5) {
                a.ty.dtype
            } else {
                *self.rng.pick(&ok)
            };
            let b = self.add_param(bdt, Some(dims.clone()));
            dtype = promote(dtype, bdt)?;
            groups.push(group(&b_letters, bat, ellipsis));
            all_letters.extend(&b_letters);
            let bb = &dims[bat..bat + nbb];
            batch = broadcast(&batch, bb)?;
            operands.push(b);
        }
        // The output.
        let mut unique: Vec<char> = Vec::new();
        for &c in &all_letters {
            if !unique.contains(&c) {
                unique.push(c);
            }
        }
        let (out_letters, out_at, text) = if self.rng.chance(0.25) {
            // Implicit: `...`, then the letters used once, alphabetically.
            let mut once: Vec<char> = unique
                .iter()
                .copied()
                .filter(|&c| all_letters.iter().filter(|&&x| x == c).count() == 1)
                .collect();
            once.sort();
            (once, 0, groups.join(","))
        } else {
            let mut out: Vec<char> = unique
                .iter()
                .copied()
                .filter(|_| self.rng.chance(0.5))
                .collect();
            self.rng.shuffle(&mut out);
            let at = self.rng.below(out.len() + 1);
            let out_group = group(&out, at, ellipsis);
            (out, at, format!("{}->{out_group}", groups.join(",")))
        };
        let mut dims: Vec<Dim> = out_letters[..out_at]
            .iter()
            .map(|&c| size_of(&size, c).unwrap())
            .collect();
        dims.extend(batch.iter().cloned());
        dims.extend(
            out_letters[out_at..]
                .iter()
                .map(|&c| size_of(&size, c).unwrap()),
        );
        // Bound the interpreter's work: every label's size (a name counts as 17).
        let work: usize = unique
            .iter()
            .map(|&c| match size_of(&size, c).unwrap() {
                Dim::Lit(n) => n.max(1),
                _ => 17,
            })
            .chain(batch.iter().map(|d| match d {
                Dim::Lit(n) => (*n).max(1),
                _ => 17,
            }))
            .product();
        if dims.len() > 6 || work > 20_000 {
            return None;
        }
        // dtypes as `matmul`; a lone integer operand that nothing sums keeps its dtype.
        let summed = operands.len() > 1 || unique.iter().any(|c| !out_letters.contains(c));
        let out_dtype = if dtype.is_float() || !summed {
            dtype
        } else {
            dtype.sum_out()
        };
        let mut args = vec![Arg::Str(text)];
        args.extend(operands.iter().map(|v| Arg::E(v.expr.clone())));
        Some(Val {
            expr: call("einsum", args, vec![]),
            ty: Ty {
                dtype: out_dtype,
                dims,
            },
            scalar: false,
        })
    }

    fn composite(&mut self) -> Option<Val> {
        let a = self.pick();
        match self.rng.below(4) {
            0 => {
                // clip with literal bounds (or a value that broadcasts).
                let a = self.coerce(a, |d| d != Bool);
                let mut named = Vec::new();
                let mut dims = a.ty.dims.clone();
                let mut dtype = a.ty.dtype;
                let which = self.rng.below(3);
                for (i, n) in ["min", "max"].into_iter().enumerate() {
                    if which == 2 || which == i {
                        let (b, p) = self.operand_for(&a, BinKind::Arith)?;
                        dims = broadcast(&dims, &b.ty.dims)?;
                        dtype = promote(dtype, p)?;
                        named.push((n, Arg::E(b.expr)));
                    }
                }
                let f = if self.rng.chance(0.5) {
                    "clip"
                } else {
                    "clamp"
                };
                Some(Val {
                    expr: call(f, vec![Arg::E(a.expr)], named),
                    ty: Ty { dtype, dims },
                    scalar: false,
                })
                .filter(|_| !a.scalar)
            }
            1 => {
                let a = self.coerce(a, |d| d.is_float());
                let lit = Lit::Float(*self.rng.pick(&[0.25, -0.5, 2.0, 0.0]));
                Some(Val {
                    expr: call(
                        "prelu",
                        vec![Arg::E(a.expr), Arg::E(Expr::Lit(lit))],
                        vec![],
                    ),
                    ty: a.ty,
                    scalar: a.scalar,
                })
            }
            _ => {
                // Variadic: max, min, add, sum_of, mean_of over 3 operands.
                let f = *self.rng.pick(&["max", "min", "add", "sum_of", "mean_of"]);
                let a = self.coerce(a, |d| {
                    if f == "mean_of" {
                        d.is_float()
                    } else {
                        d != Bool
                    }
                });
                let mut parts = vec![a.clone()];
                let mut dims = a.ty.dims.clone();
                let mut dtype = a.ty.dtype;
                for _ in 0..2 {
                    let (b, _) = self.operand_for(&a, BinKind::Arith)?;
                    let b = if matches!(b.expr, Expr::Lit(_)) {
                        a.clone()
                    } else {
                        b
                    };
                    dims = broadcast(&dims, &b.ty.dims)?;
                    dtype = promote(dtype, b.ty.dtype)?;
                    if dtype == Bool || (f == "mean_of" && !dtype.is_float()) {
                        return None;
                    }
                    parts.push(b);
                }
                let scalar = parts.iter().all(|p| p.scalar);
                Some(Val {
                    expr: call(
                        f,
                        parts.into_iter().map(|p| Arg::E(p.expr)).collect(),
                        vec![],
                    ),
                    ty: Ty { dtype, dims },
                    scalar,
                })
            }
        }
    }
}

impl Gen {
    /// A float operand that broadcasts to `x` without widening it: a literal or a value.
    fn scale_operand(&mut self, x: &Val) -> Expr {
        let c: Vec<Val> = self
            .pool
            .iter()
            .filter(|v| {
                v.ty.dtype.is_float()
                    && broadcast(&x.ty.dims, &v.ty.dims).as_ref() == Some(&x.ty.dims)
            })
            .cloned()
            .collect();
        if c.is_empty() || self.rng.chance(0.4) {
            Expr::Lit(Lit::Float(*self.rng.pick(FLOAT_LITS)))
        } else {
            c[self.rng.below(c.len())].expr.clone()
        }
    }

    /// `layer_norm`, `rms_norm`, `l2_normalize`, `quantize_linear`, `dequantize_linear`.
    fn normalisation(&mut self) -> Option<Val> {
        let f = *self.rng.pick(&[
            "layer_norm",
            "rms_norm",
            "l2_normalize",
            "quantize_linear",
            "dequantize_linear",
        ]);
        match f {
            "quantize_linear" | "dequantize_linear" => {
                let x = self.pick_tensor(0)?;
                let quantize = f == "quantize_linear";
                let x = if quantize {
                    self.coerce(x, |d| d.is_float())
                } else {
                    self.coerce(x, |d| matches!(d, U8 | I8 | U16 | I16 | U32 | I32))
                };
                let sd = self.float_dtype();
                let per_axis = x.ty.rank() >= 1 && self.rng.chance(0.3);
                let sdims = per_axis.then(|| vec![x.ty.dims[x.ty.rank() - 1].clone()]);
                let scale = self.add_param(sd, sdims);
                let zd = if quantize {
                    *self.rng.pick(&[U8, I8, U16, I16])
                } else {
                    x.ty.dtype
                };
                let zp = self.add_param(zd, None);
                let dims = broadcast(&x.ty.dims, &scale.ty.dims)?;
                Some(Val {
                    expr: call(
                        f,
                        vec![Arg::E(x.expr), Arg::E(scale.expr), Arg::E(zp.expr)],
                        vec![],
                    ),
                    ty: Ty {
                        dtype: if quantize { zd } else { sd },
                        dims,
                    },
                    scalar: false,
                })
            }
            _ => {
                let x = self.pick_tensor(1)?;
                let x = self.coerce(x, |d| d.is_float());
                let mut args = vec![Arg::E(x.expr.clone())];
                let gammas = match f {
                    "layer_norm" => 2,
                    "rms_norm" => 1,
                    _ => 0,
                };
                for _ in 0..gammas {
                    let e = self.scale_operand(&x);
                    args.push(Arg::E(e));
                }
                let mut named = Vec::new();
                if self.rng.chance(0.6) {
                    let (_, w) = self.axes(x.ty.rank(), false);
                    named.push(("axis", w));
                }
                if f != "l2_normalize" && self.rng.chance(0.4) {
                    let eps = *self.rng.pick(&[0.0009765625, 0.0, 0.5]);
                    named.push(("eps", Arg::E(Expr::Lit(Lit::Float(eps)))));
                }
                Some(Val {
                    expr: call(f, args, named),
                    ty: x.ty,
                    scalar: false,
                })
            }
        }
    }
}

fn cast(v: Val, d: DType) -> Val {
    Val {
        expr: Expr::Cast(Box::new(v.expr), d),
        ty: Ty {
            dtype: d,
            dims: v.ty.dims,
        },
        scalar: v.scalar,
    }
}

/// `x` through a view call (`slice`, `flip`, `transpose`) whose other arguments are in `f`
/// (its `x` argument is put first), with dims `dims`.
fn view(x: Val, f: Expr, dims: Vec<Dim>) -> Val {
    let Expr::Call(mut c) = f else {
        unreachable!("a view is a call")
    };
    c.args.insert(0, Arg::E(x.expr));
    Val {
        expr: Expr::Call(c),
        ty: Ty {
            dtype: x.ty.dtype,
            dims,
        },
        scalar: x.scalar,
    }
}

fn reduced_dims(dims: &[Dim], axes: &[usize], keepdims: bool) -> Vec<Dim> {
    (0..dims.len())
        .filter_map(|a| {
            if axes.contains(&a) {
                keepdims.then_some(Dim::Lit(1))
            } else {
                Some(dims[a].clone())
            }
        })
        .collect()
}

/// NumPy's `len(range(n)[start:end:step])`.
pub fn slice_len(n: i64, start: Option<i64>, end: Option<i64>, step: i64) -> usize {
    slice_indices(n, start, end, step).len()
}

/// The indices NumPy's `x[start:end:step]` reads from an axis of length `n`.
pub fn slice_indices(n: i64, start: Option<i64>, end: Option<i64>, step: i64) -> Vec<usize> {
    let norm = |v: i64, lo: i64, hi: i64| {
        let v = if v < 0 { v + n } else { v };
        v.clamp(lo, hi)
    };
    let (s, e) = if step > 0 {
        (
            start.map_or(0, |v| norm(v, 0, n)),
            end.map_or(n, |v| norm(v, 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |v| norm(v, -1, n - 1)),
            end.map_or(-1, |v| norm(v, -1, n - 1)),
        )
    };
    let mut out = Vec::new();
    let mut i = s;
    while (step > 0 && i < e) || (step < 0 && i > e) {
        out.push(i as usize);
        i += step;
    }
    out
}

/// The length of `slice` on a symbolic axis `n` with literal bounds, unclamped
/// (docs/language.md: `ceil((end - start) / step)`, a negative bound counting from the end;
/// the call is an `Err` where that is negative or a bound lies outside the axis).
pub fn symbolic_slice_len(n: &Dim, start: Option<i64>, end: Option<i64>, step: i64) -> Lin {
    let n = n.lin();
    let at = |b: i64| {
        if b < 0 {
            n.add(&Lin::constant(b))
        } else {
            Lin::constant(b)
        }
    };
    if step > 0 {
        let s = start.map_or(Lin::constant(0), at);
        let e = end.map_or(n.clone(), at);
        e.add(&s.scale(-1)).add(&Lin::constant(step - 1)).div(step)
    } else {
        let t = -step;
        let s = start.map_or(n.add(&Lin::constant(-1)), at);
        let e = end.map_or(Lin::constant(-1), at);
        s.add(&e.scale(-1)).add(&Lin::constant(t - 1)).div(t)
    }
}

const INT_DTYPES: [DType; 8] = [U8, U16, U32, U64, I8, I16, I32, I64];
/// Names the issue-30 ops introduce in new parameters (concat's `N + M`, gather's ids).
const NEW_NAMES: &[&str] = &["M", "T"];

/// Issue 30's ops: indexing, positions, tuples, ranking, losses, indexing sugar.
impl Gen {
    fn names_in_use(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for p in &self.params {
            for d in p.dims.iter().flatten() {
                d.names(&mut v);
            }
        }
        v
    }

    /// A literal length, a name in use, or a new name.
    fn new_name_or_lit(&mut self) -> Dim {
        let used = self.names_in_use();
        let fresh: Vec<&'static str> = NEW_NAMES
            .iter()
            .copied()
            .filter(|n| !used.contains(n))
            .collect();
        match self.rng.below(3) {
            0 if !fresh.is_empty() => Dim::Name(fresh[0]),
            1 if !used.is_empty() => Dim::Name(*self.rng.pick(&used)),
            _ => Dim::Lit(*self.rng.pick(&[1, 2, 3, 5])),
        }
    }

    /// A dim argument of a position op: a literal, a name in use or an expression of one.
    fn dim_arg(&mut self) -> Dim {
        let used = self.names_in_use();
        if used.is_empty() || self.rng.chance(0.4) {
            return Dim::Lit(*self.rng.pick(&[0, 1, 2, 3, 4, 5, 9]));
        }
        let n = *self.rng.pick(&used);
        match self.rng.below(3) {
            0 => Dim::Name(n),
            1 => Dim::from_lin(Lin::name(n).add(&Lin::constant(1))).unwrap(),
            _ => Dim::from_lin(Lin::name(n).scale(2)).unwrap(),
        }
    }

    /// A new index parameter into an axis of `len`.
    fn index_param(
        &mut self,
        dims: Vec<Dim>,
        len: Dim,
        negative: bool,
        ignore: Option<i64>,
    ) -> Val {
        let d = *self.rng.pick(&INT_DTYPES);
        let v = self.add_param(d, Some(dims));
        self.indices.push(IndexParam {
            param: self.params.len() - 1,
            len,
            negative,
            ignore,
        });
        v
    }

    fn tuple_let(&mut self, e: Expr, tys: Vec<Ty>) {
        let base = format!("v{}", self.lets.len());
        let names: Vec<String> = (0..tys.len())
            .map(|i| format!("{base}{}", (b'a' + i as u8) as char))
            .collect();
        self.lets.push((names.join(", "), e));
        self.let_types.push(tys[0].clone());
        for (n, t) in names.iter().zip(tys) {
            self.parts.push((n.clone(), t.clone()));
            self.pool.push(Val {
                expr: var(n),
                ty: t,
                scalar: false,
            });
        }
    }

    fn issue30(&mut self) -> Option<Val> {
        match self.rng.weighted(&[5, 4, 3, 4, 3, 4, 5, 3, 4, 4]) {
            9 => self.attention(),
            0 => self.gather(),
            1 => self.gather_elements(),
            2 => self.one_hot(),
            3 => self.positions(),
            4 => self.split(),
            5 => self.ranking(),
            6 => self.loss(),
            7 => self.concat_new(),
            _ => self.index_sugar(),
        }
    }

    /// `attention(q, k, v, …)` (ONNX `Attention` over `[B, H, S, D]`): `q` a rank-4 value in
    /// scope (as a float) or a new parameter, `k` and `v` new parameters with the batch and
    /// row length of `q`, as many heads or a divisor of its literal head count
    /// (grouped-query), a key length of their own or `q`'s; sometimes `is_causal`, `scale`,
    /// `softcap` and a bool or additive `attn_mask` broadcast to the scores
    /// `[B, Hq, Sq, Skv]`.
    fn attention(&mut self) -> Option<Val> {
        let from_scope = self
            .pick_tensor(4)
            .filter(|v| v.ty.rank() == 4 && !v.ty.dims.contains(&Dim::Lit(0)));
        let q = match from_scope {
            Some(v) if self.rng.chance(0.5) => self.coerce(v, |d| d.is_float()),
            _ => {
                let dt = self.float_dtype();
                let sq = if self.rng.chance(0.3) {
                    self.new_name_or_lit()
                } else {
                    Dim::Lit(*self.rng.pick(&[1, 2, 3, 5, 7, 9]))
                };
                let dims = vec![
                    self.base_dim(),
                    Dim::Lit(*self.rng.pick(&[1, 2, 3, 4, 6])),
                    sq,
                    Dim::Lit(*self.rng.pick(&[1, 2, 3, 4, 8, 16])),
                ];
                self.add_param(dt, Some(dims))
            }
        };
        let dt = q.ty.dtype;
        let qd = q.ty.dims.clone();
        let hkv = match qd[1] {
            Dim::Lit(h) if h > 0 => {
                let divisors: Vec<usize> = (1..=h).filter(|d| h % d == 0).collect();
                Dim::Lit(*self.rng.pick(&divisors))
            }
            _ => qd[1].clone(),
        };
        let skv = match self.rng.below(3) {
            0 => qd[2].clone(),
            1 => self.new_name_or_lit(),
            _ => Dim::Lit(*self.rng.pick(&[1, 2, 4, 5, 9, 17])),
        };
        let dv = if self.rng.chance(0.3) {
            qd[3].clone()
        } else {
            Dim::Lit(*self.rng.pick(&[1, 2, 3, 5, 8]))
        };
        let k = self.add_param(
            dt,
            Some(vec![qd[0].clone(), hkv.clone(), skv.clone(), qd[3].clone()]),
        );
        let v = self.add_param(dt, Some(vec![qd[0].clone(), hkv, skv.clone(), dv.clone()]));
        let mut named = Vec::new();
        if self.rng.chance(0.35) {
            let scores = [qd[0].clone(), qd[1].clone(), qd[2].clone(), skv];
            let keep = 1 + self.rng.below(4);
            let dims: Vec<Dim> = scores[4 - keep..]
                .iter()
                .map(|d| {
                    if self.rng.chance(0.3) {
                        Dim::Lit(1)
                    } else {
                        d.clone()
                    }
                })
                .collect();
            let md = if self.rng.chance(0.5) { Bool } else { dt };
            let m = self.add_param(md, Some(dims));
            named.push(("attn_mask", Arg::E(m.expr)));
        }
        match self.rng.below(5) {
            0 | 1 => named.push(("is_causal", Arg::Bool(true))),
            2 => named.push(("is_causal", Arg::Bool(false))),
            _ => {}
        }
        if self.rng.chance(0.3) {
            let x = *self.rng.pick(&[0.5, 1.0, 0.125, 2.0, 0.25, 1.5]);
            named.push(("scale", Arg::E(Expr::Lit(Lit::Float(x)))));
        }
        if self.rng.chance(0.3) {
            let x = *self.rng.pick(&[1.0, 2.0, 5.0, 0.5, 0.0]);
            named.push(("softcap", Arg::E(Expr::Lit(Lit::Float(x)))));
        }
        Some(Val {
            expr: call(
                "attention",
                vec![Arg::E(q.expr), Arg::E(k.expr), Arg::E(v.expr)],
                named,
            ),
            ty: Ty {
                dtype: dt,
                dims: vec![qd[0].clone(), qd[1].clone(), qd[2].clone(), dv],
            },
            scalar: false,
        })
    }

    fn gather(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let rank = x.ty.rank();
        let a = self.rng.below(rank);
        let irank = self.rng.weighted(&[2, 5, 2]);
        if rank - 1 + irank > 6 {
            return None;
        }
        let idims: Vec<Dim> = (0..irank)
            .map(|_| {
                if self.rng.chance(0.3) {
                    self.new_name_or_lit()
                } else {
                    Dim::Lit(*self.rng.pick(&[1, 2, 3, 5, 9]))
                }
            })
            .collect();
        let ids = self.index_param(idims.clone(), x.ty.dims[a].clone(), true, None);
        let mut out = x.ty.dims[..a].to_vec();
        out.extend(idims);
        out.extend(x.ty.dims[a + 1..].iter().cloned());
        let written = if self.rng.chance(0.3) {
            a as i64 - rank as i64
        } else {
            a as i64
        };
        let named = if a == 0 && self.rng.chance(0.5) {
            vec![]
        } else {
            vec![("axis", Arg::Int(written))]
        };
        Some(Val {
            expr: call("gather", vec![Arg::E(x.expr), Arg::E(ids.expr)], named),
            ty: Ty {
                dtype: x.ty.dtype,
                dims: out,
            },
            scalar: false,
        })
    }

    fn gather_elements(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let rank = x.ty.rank();
        let a = self.rng.below(rank);
        let mut idims = x.ty.dims.clone();
        idims[a] = if self.rng.chance(0.5) {
            x.ty.dims[a].clone()
        } else {
            Dim::Lit(*self.rng.pick(&[1, 2, 3]))
        };
        let ids = self.index_param(idims.clone(), x.ty.dims[a].clone(), true, None);
        Some(Val {
            expr: call(
                "gather_elements",
                vec![Arg::E(x.expr), Arg::E(ids.expr)],
                vec![("axis", Arg::Int(a as i64))],
            ),
            ty: Ty {
                dtype: x.ty.dtype,
                dims: idims,
            },
            scalar: false,
        })
    }

    fn one_hot(&mut self) -> Option<Val> {
        let v = self.pick_tensor(0)?;
        if v.ty.rank() >= 6 {
            return None;
        }
        let v = self.coerce(v, |d| d.is_int());
        let depth = self.dim_arg();
        let rank = v.ty.rank();
        let at = self.rng.below(rank + 1);
        let mut named = vec![("depth", Arg::Dim(depth.clone()))];
        if at != rank || self.rng.chance(0.2) {
            let w = if self.rng.chance(0.5) {
                at as i64
            } else {
                at as i64 - rank as i64 - 1
            };
            named.push(("axis", Arg::Int(w)));
        }
        let dtype = *self.rng.pick(&[F32, F32, F64, I32, U8, I64, F16, BF16]);
        if dtype != F32 || self.rng.chance(0.2) {
            named.push(("dtype", Arg::DType(dtype)));
        }
        if self.rng.chance(0.4) {
            let on = *self.rng.pick(&[2i128, 5, 7]);
            let off = *self.rng.pick(&[0i128, 1, 3]);
            named.push(("on", Arg::E(Expr::Lit(Lit::Int(on)))));
            named.push(("off", Arg::E(Expr::Lit(Lit::Int(off)))));
        }
        let mut out = v.ty.dims.clone();
        out.insert(at, depth);
        Some(Val {
            expr: call("one_hot", vec![Arg::E(v.expr)], named),
            ty: Ty { dtype, dims: out },
            scalar: false,
        })
    }

    fn positions(&mut self) -> Option<Val> {
        match self.rng.below(3) {
            0 => {
                let d = self.dim_arg();
                let dtype = *self.rng.pick(&[I64, I64, I32, U8, F32, F64, F16, U64, I8]);
                let mut named = vec![];
                if dtype != I64 || self.rng.chance(0.2) {
                    named.push(("dtype", Arg::DType(dtype)));
                }
                Some(Val {
                    expr: call("arange", vec![Arg::Dim(d.clone())], named),
                    ty: Ty {
                        dtype,
                        dims: vec![d],
                    },
                    scalar: false,
                })
            }
            1 => {
                let d0 = self.dim_arg();
                let d1 = if self.rng.chance(0.5) {
                    d0.clone()
                } else {
                    self.dim_arg()
                };
                let dtype = *self.rng.pick(&[F32, F32, F64, Bool, I32, U8, BF16]);
                let mut args = vec![Arg::Dim(d0.clone())];
                if d1 != d0 || self.rng.chance(0.3) {
                    args.push(Arg::Dim(d1.clone()));
                }
                let mut named = vec![];
                if self.rng.chance(0.5) {
                    named.push(("k", Arg::Int(self.rng.range(-2, 2))));
                }
                if dtype != F32 || self.rng.chance(0.2) {
                    named.push(("dtype", Arg::DType(dtype)));
                }
                Some(Val {
                    expr: call("eye", args, named),
                    ty: Ty {
                        dtype,
                        dims: vec![d0, d1],
                    },
                    scalar: false,
                })
            }
            _ => {
                let x = self.pick_tensor(2)?;
                let f = *self.rng.pick(&["tril", "triu"]);
                let named = if self.rng.chance(0.5) {
                    vec![("k", Arg::Int(self.rng.range(-3, 3)))]
                } else {
                    vec![]
                };
                Some(Val {
                    expr: call(f, vec![Arg::E(x.expr)], named),
                    ty: x.ty,
                    scalar: false,
                })
            }
        }
    }

    fn split(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let rank = x.ty.rank();
        let a = self.rng.below(rank);
        let n_parts = 2 + self.rng.below(2);
        let mut sizes: Vec<i64> = Vec::new();
        match &x.ty.dims[a] {
            Dim::Lit(n) => {
                let n = *n as i64;
                let mut left = n;
                for _ in 0..n_parts - 1 {
                    let s = self.rng.range(0, left.min(4));
                    sizes.push(s);
                    left -= s;
                }
                sizes.push(left);
                self.rng.shuffle(&mut sizes);
            }
            _ => {
                for _ in 0..n_parts {
                    sizes.push(self.rng.range(0, 2));
                }
                let k = self.rng.below(n_parts);
                sizes[k] = -1;
            }
        }
        let lit_sum: i64 = sizes.iter().filter(|&&s| s >= 0).sum();
        let tys: Vec<Ty> = sizes
            .iter()
            .map(|&s| {
                let mut d = x.ty.dims.clone();
                d[a] = if s >= 0 {
                    Dim::Lit(s as usize)
                } else {
                    Dim::from_lin(x.ty.dims[a].lin().add(&Lin::constant(-lit_sum))).unwrap()
                };
                Ty {
                    dtype: x.ty.dtype,
                    dims: d,
                }
            })
            .collect();
        let named = if a == 0 && self.rng.chance(0.5) {
            vec![]
        } else {
            vec![(
                "axis",
                Arg::Int(if self.rng.chance(0.5) {
                    a as i64
                } else {
                    a as i64 - rank as i64
                }),
            )]
        };
        self.tuple_let(
            call("split", vec![Arg::E(x.expr), Arg::Ints(sizes)], named),
            tys,
        );
        None
    }

    fn ranking(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let x = self.coerce(x, |d| d != Bool);
        let rank = x.ty.rank();
        let a = self.rng.below(rank);
        let written = if self.rng.chance(0.5) {
            a as i64 - rank as i64
        } else {
            a as i64
        };
        let mut named = vec![];
        if written != -1 || self.rng.chance(0.3) {
            named.push(("axis", Arg::Int(written)));
        }
        match self.rng.below(3) {
            0 => {
                let k = match &x.ty.dims[a] {
                    Dim::Lit(n) => self.rng.range(0, *n as i64),
                    _ => self.rng.range(0, 3),
                };
                named.insert(0, ("k", Arg::Int(k)));
                if self.rng.chance(0.5) {
                    named.push(("largest", Arg::Bool(self.rng.chance(0.5))));
                }
                if self.rng.chance(0.2) {
                    named.push(("sorted", Arg::Bool(self.rng.chance(0.5))));
                }
                let mut d = x.ty.dims.clone();
                d[a] = Dim::Lit(k as usize);
                let tys = vec![
                    Ty {
                        dtype: x.ty.dtype,
                        dims: d.clone(),
                    },
                    Ty {
                        dtype: I64,
                        dims: d,
                    },
                ];
                self.tuple_let(call("top_k", vec![Arg::E(x.expr)], named), tys);
                None
            }
            k => {
                if self.rng.chance(0.5) {
                    named.push(("descending", Arg::Bool(self.rng.chance(0.5))));
                }
                let (f, dtype) = if k == 1 {
                    ("sort", x.ty.dtype)
                } else {
                    ("argsort", I64)
                };
                Some(Val {
                    expr: call(f, vec![Arg::E(x.expr)], named),
                    ty: Ty {
                        dtype,
                        dims: x.ty.dims,
                    },
                    scalar: false,
                })
            }
        }
    }

    fn loss(&mut self) -> Option<Val> {
        let x = self.pick_tensor(2)?;
        let x = self.coerce(x, |d| d.is_float());
        if x.ty.dims[1] == Dim::Lit(0) {
            return None;
        }
        let f = *self.rng.pick(&["softmax_cross_entropy", "nll_loss"]);
        let c = x.ty.dims[1].clone();
        let mut ldims = x.ty.dims.clone();
        ldims.remove(1);
        let ignore = self
            .rng
            .chance(0.3)
            .then(|| *self.rng.pick(&[-1i64, -100, 0, 1]));
        let labels = self.index_param(ldims.clone(), c.clone(), false, ignore);
        let mut named = vec![];
        if self.rng.chance(0.4) {
            let w = self.add_param(x.ty.dtype, Some(vec![c]));
            named.push(("weight", Arg::E(w.expr)));
        }
        let reduction = *self.rng.pick(&["none", "sum", "mean", "mean"]);
        if reduction != "mean" || self.rng.chance(0.3) {
            named.push(("reduction", Arg::Word(reduction)));
        }
        if let Some(i) = ignore {
            named.push(("ignore_index", Arg::Int(i)));
        }
        let dims = if reduction == "none" { ldims } else { vec![] };
        Some(Val {
            expr: call(f, vec![Arg::E(x.expr), Arg::E(labels.expr)], named),
            ty: Ty {
                dtype: x.ty.dtype,
                dims,
            },
            scalar: false,
        })
    }

    /// `concat` along a symbolic axis (`N + M`), through `reorg`'s concat drawn until it
    /// picks one.
    fn concat_new(&mut self) -> Option<Val> {
        self.force_concat = true;
        let v = self.reorg();
        self.force_concat = false;
        v
    }

    fn index_sugar(&mut self) -> Option<Val> {
        let x = self.pick_tensor(1)?;
        let dims = x.ty.dims.clone();
        let rank = dims.len();
        // Items for a prefix of the axes (or, after `...`, a suffix), literal axes indexed
        // or sliced, symbolic ones `:` or sliced from the start.
        let m = 1 + self.rng.below(rank.min(3));
        let ellipsis = self.rng.chance(0.35);
        let axes: Vec<usize> = if ellipsis {
            (rank - m..rank).collect()
        } else {
            (0..m).collect()
        };
        let mut items = Vec::new();
        let mut out: Vec<Dim> = Vec::new();
        let mut adims: Vec<Option<Dim>> = Vec::new();
        for &a in &axes {
            if self.rng.chance(0.15) && out.len() + rank < 6 {
                items.push(IndexItem::NewAxis);
                adims.push(Some(Dim::Lit(1)));
            }
            match &dims[a] {
                Dim::Lit(n) if *n > 0 && self.rng.chance(0.4) => {
                    let n = *n as i64;
                    let i = self.rng.range(-n, n - 1);
                    items.push(IndexItem::At(i));
                    adims.push(None);
                }
                Dim::Lit(n) if self.rng.chance(0.6) => {
                    let n = *n as i64;
                    let s = self.rng.chance(0.6).then(|| self.rng.range(-n - 1, n + 1));
                    let e = self.rng.chance(0.6).then(|| self.rng.range(-n - 1, n + 1));
                    let t = self
                        .rng
                        .chance(0.4)
                        .then(|| *self.rng.pick(&[2i64, 3, -1, -2]));
                    items.push(IndexItem::Range(s, e, t));
                    adims.push(Some(Dim::Lit(slice_len(n, s, e, t.unwrap_or(1)))));
                }
                _ => {
                    items.push(IndexItem::Range(None, None, None));
                    adims.push(Some(dims[a].clone()));
                }
            }
        }
        if ellipsis {
            items.insert(0, IndexItem::Ellipsis);
            out.extend(dims[..rank - m].iter().cloned());
            out.extend(adims.into_iter().flatten());
        } else {
            out.extend(adims.into_iter().flatten());
            out.extend(dims[m..].iter().cloned());
        }
        if out.len() > 6 {
            return None;
        }
        // A bare name is an expression here only in parentheses-free form: wrap non-vars.
        Some(Val {
            expr: Expr::Index(Box::new(x.expr), items),
            ty: Ty {
                dtype: x.ty.dtype,
                dims: out,
            },
            scalar: false,
        })
    }
}
