//! The derivatives of the ops of several operands or of whole rows: binary functions
//! (`max`/`min` sharing ties, `pow`, `where`, `prelu`), reductions, softmax, the
//! normalisations, the losses, attention and matrix products.

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{BinOp, Expr, LitValue, NamedArg};
use crate::dtype::DType;
use crate::shape::Dim;

use super::build::*;
use super::{no_rule, Backward};

/// A call being differentiated by `Backward::composite_rule`: its result `v` (a name) and
/// type `out`, the function and its arguments (`x` the first, or `0.0` without one), and
/// the result's cotangent `g`.
pub(super) struct CompositeCall<'a> {
    pub(super) name: String,
    pub(super) v: Expr,
    pub(super) out: &'a (DType, Vec<Dim>),
    pub(super) func: &'a Ident,
    pub(super) args: &'a [Expr],
    pub(super) named: &'a [NamedArg],
    pub(super) g: Expr,
    pub(super) x: Expr,
    /// Whether each argument carries a cotangent.
    pub(super) arg_live: Vec<bool>,
}

impl Backward<'_> {
    /// The rules of the ops of several operands or whole rows (not `STRUCTURE_OPS`, not
    /// elementwise): a method per op (`CompositeCall`: the call being differentiated).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn composite_rule(
        &mut self,
        v: &str,
        out: &(DType, Vec<Dim>),
        func: &Ident,
        args: &[Expr],
        named: &[NamedArg],
        g: Expr,
    ) -> Result<(), syn::Error> {
        let name = func.to_string();
        let x = args.first().cloned().unwrap_or_else(|| lit_f(0.0));
        let arg_live: Vec<bool> = args
            .iter()
            .map(|a| self.live_operand(a).is_some())
            .collect();
        let c = CompositeCall {
            name: name.clone(),
            v: var(v),
            out,
            func,
            args,
            named,
            g: g.clone(),
            x,
            arg_live,
        };
        match (name.as_str(), args.len()) {
            ("prelu", 2) => self.rule_prelu(&c),
            ("mean_of", k) if k >= 2 => {
                for a in args {
                    if self.live_operand(a).is_some() {
                        self.send(a, div(g.clone(), lit_f(k as f64)), out)?;
                    }
                }
                Ok(())
            }
            ("attention", 3) => self.attention_rule(func, out, args, named, g),
            ("l2_normalize", 1) => self.rule_l2_normalize(&c),
            ("layer_norm" | "rms_norm", _) => self.norm_rule(&name, func, out, args, named, g),
            ("softmax_cross_entropy" | "nll_loss", _) => {
                self.loss_rule(&name, func, out, args, named, g)
            }
            ("max" | "min", 2) => self.rule_max_min(&c),
            ("pow", 2) => self.rule_pow(&c),
            ("add", 2) | ("sub", 2) | ("mul", 2) | ("div", 2) => {
                let op = match name.as_str() {
                    "add" => BinOp::Add,
                    "sub" => BinOp::Sub,
                    "mul" => BinOp::Mul,
                    _ => BinOp::Div,
                };
                let e = binary(op, args[0].clone(), args[1].clone());
                self.rule(v, &e, g)
            }
            ("where", 3) => self.rule_where(&c),
            ("matmul", 2) => self.matmul_rule(out, &args[0], &args[1], g),
            (
                "sum" | "mean" | "max" | "min" | "prod" | "reduce_sum_square"
                | "reduce_log_sum_exp" | "reduce_l1" | "reduce_l2" | "reduce_log_sum",
                1,
            ) => self.rule_reduction(&c),
            ("softmax" | "logsoftmax", 1) => self.rule_softmax(&c),
            ("max_pool" | "average_pool", 1) => self.pool_rule(&c),
            // No rule: an error only if a cotangent would have to pass.
            _ if !self.any_live(&args.iter().collect::<Vec<_>>()) => Ok(()),
            _ => Err(no_rule(self.function, self.graph, func, "its operands")),
        }
    }

    /// `prelu(a, slope)`: `g·slope` (or `g`) to `a`, `g·a` where `a < 0` to the slope.
    fn rule_prelu(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let out = c.out;
        let args = c.args;
        let g = c.g.clone();
        let arg_live = &c.arg_live;
        let (a, slope) = (&args[0], &args[1]);
        let negative = binary(BinOp::Lt, a.clone(), lit_f(0.0));
        if arg_live[0] {
            self.send(
                a,
                call(
                    "where",
                    vec![negative.clone(), mul(g.clone(), slope.clone()), g.clone()],
                ),
                out,
            )?;
        }
        if arg_live[1] {
            self.send(
                slope,
                call(
                    "where",
                    vec![negative, mul(g.clone(), a.clone()), cast(lit_f(0.0), out.0)],
                ),
                out,
            )?;
        }
        Ok(())
    }

    /// `l2_normalize`: `(g - y·Σg·y) / ‖x‖` along the axis.
    fn rule_l2_normalize(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let vv = c.v.clone();
        let x = c.x.clone();
        let func = c.func;
        let named = c.named;
        let g = c.g.clone();
        // y = x / n, n = sqrt(sum(x²)) along the axis: dx = (g - y·sum(g·y)) / n.
        let (xt, xd) = self.ty_of(&x)?;
        let axis =
            literal_axis(named, -1, xd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
        let keep = || vec![("axis", int_list(&[axis])), keepdims()];
        let norm = call(
            "sqrt",
            vec![with_named(
                call("sum", vec![mul(x.clone(), x.clone())]),
                keep(),
            )],
        );
        let along = with_named(call("sum", vec![mul(g.clone(), vv.clone())]), keep());
        let d = div(sub(g.clone(), mul(vv, along)), norm);
        self.send(&x, d, &(xt, xd))
    }

    /// Binary `max`/`min`: the winner gets the cotangent, ties share it evenly.
    fn rule_max_min(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let name = &c.name;
        let out = c.out;
        let args = c.args;
        let g = c.g.clone();
        let arg_live = &c.arg_live;
        let (a, b) = (&args[0], &args[1]);
        let wins = if name == "max" { BinOp::Gt } else { BinOp::Lt };
        if arg_live[0] {
            self.send(
                a,
                mul(g.clone(), tie_share(out.0, wins, a.clone(), b.clone())),
                out,
            )?;
        }
        if arg_live[1] {
            self.send(
                b,
                mul(g.clone(), tie_share(out.0, wins, b.clone(), a.clone())),
                out,
            )?;
        }
        Ok(())
    }

    /// `pow(a, b)`: JAX's conventions at 0 (`da` 0 where `b = 0`, `log(a)` taken as 0 where `a = 0`).
    fn rule_pow(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let vv = c.v.clone();
        let out = c.out;
        let args = c.args;
        let g = c.g.clone();
        let arg_live = &c.arg_live;
        let (a, b) = (&args[0], &args[1]);
        if arg_live[0] {
            let power = mul(
                b.clone(),
                call("pow", vec![a.clone(), sub(b.clone(), lit_f(1.0))]),
            );
            // da = 0 where b = 0; a literal exponent decides that here.
            let d = match b {
                Expr::Lit(LitValue::Float(e, _), _) if *e == 0.0 => None,
                Expr::Lit(LitValue::Int(0), _) => None,
                Expr::Lit(..) => Some(power),
                _ => Some(call(
                    "where",
                    vec![binary(BinOp::Eq, b.clone(), lit_f(0.0)), lit_f(0.0), power],
                )),
            };
            if let Some(d) = d {
                self.send(a, mul(g.clone(), d), out)?;
            }
        }
        if arg_live[1] {
            // JAX: log(a) taken as 0 where a = 0.
            let safe = call(
                "where",
                vec![
                    binary(BinOp::Eq, a.clone(), lit_f(0.0)),
                    lit_f(1.0),
                    a.clone(),
                ],
            );
            self.send(b, mul(g.clone(), mul(vv, call("log", vec![safe]))), out)?;
        }
        Ok(())
    }

    /// `where(c, a, b)`: the cotangent to the branch each element took.
    fn rule_where(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let out = c.out;
        let args = c.args;
        let g = c.g.clone();
        let arg_live = &c.arg_live;
        let (c, a, b) = (&args[0], &args[1], &args[2]);
        if arg_live[1] {
            self.send(
                a,
                call("where", vec![c.clone(), g.clone(), lit_f(0.0)]),
                out,
            )?;
        }
        if arg_live[2] {
            self.send(
                b,
                call("where", vec![c.clone(), lit_f(0.0), g.clone()]),
                out,
            )?;
        }
        Ok(())
    }

    /// The reductions: the cotangent broadcast back over the reduced axes, times the
    /// reduction's derivative (ties of `max`/`min` share evenly; `prod` exact at zeros).
    fn rule_reduction(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let name = &c.name;
        let vv = c.v.clone();
        let x = c.x.clone();
        let func = c.func;
        let named = c.named;
        let g = c.g.clone();
        let (xt, xd) = self.ty_of(&x)?;
        let axes = reduced_axes(named, xd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
        let kept = named_bool(named, "keepdims").unwrap_or(false);
        let back =
            |e: Expr| expand_back(e, &axes, kept, &xd).map_err(|m| syn::Error::new(func.span(), m));
        let gx = back(g.clone())?;
        let d = match name.as_str() {
            "sum" => gx,
            "mean" => {
                let n = count(xt, &xd, &axes).map_err(|m| syn::Error::new(func.span(), m))?;
                div(gx, n)
            }
            "max" | "min" => {
                // Ties share evenly: the count of maxima along the reduced axes.
                let vx = back(vv)?;
                let hit = cast(binary(BinOp::Eq, x.clone(), vx), xt);
                let hit = self.let_(hit);
                let ties = call("sum", vec![hit.clone()]);
                let ties = with_named(ties, vec![("axis", int_list(&axes)), keepdims()]);
                div(mul(gx, hit), ties)
            }
            "reduce_sum_square" => mul(gx, mul(lit_f(2.0), x.clone())),
            // |x|' as `abs`'s rule: 1 at 0 (JAX).
            "reduce_l1" => call(
                "where",
                vec![
                    binary(BinOp::Ge, x.clone(), lit_f(0.0)),
                    gx.clone(),
                    neg(gx),
                ],
            ),
            // x / ‖x‖: NaN where the norm is 0 (0/0), as JAX's `norm`.
            "reduce_l2" => mul(gx, div(x.clone(), back(vv)?)),
            "reduce_log_sum" => {
                let total = with_named(
                    call("sum", vec![x.clone()]),
                    vec![("axis", int_list(&axes)), keepdims()],
                );
                div(gx, total)
            }
            "prod" => {
                // The product of the others, exact at zeros (no division by a
                // zero factor): with no zero in the group it is prod / x; with
                // one, the zero's is the product of the rest and every other's
                // is 0; with two or more, all are 0.
                let group = |e: Expr, f: &str| {
                    with_named(
                        call(f, vec![e]),
                        vec![("axis", int_list(&axes)), keepdims()],
                    )
                };
                let zero = self.let_(binary(BinOp::Eq, x.clone(), lit_f(0.0)));
                let nonzero = call("where", vec![zero.clone(), lit_f(1.0), x.clone()]);
                let rest = self.let_(group(nonzero, "prod"));
                let zeros = self.let_(group(cast(zero.clone(), xt), "sum"));
                let at_zero = call(
                    "where",
                    vec![
                        binary(BinOp::Eq, zeros.clone(), lit_f(1.0)),
                        rest.clone(),
                        lit_f(0.0),
                    ],
                );
                let elsewhere = call(
                    "where",
                    vec![
                        binary(BinOp::Eq, zeros, lit_f(0.0)),
                        div(rest, x.clone()),
                        lit_f(0.0),
                    ],
                );
                mul(gx, call("where", vec![zero, at_zero, elsewhere]))
            }
            _ => {
                let vx = back(vv)?;
                mul(gx, call("exp", vec![sub(x.clone(), vx)]))
            }
        };
        self.send(&x, d, &(xt, xd))
    }

    /// `softmax`/`logsoftmax` along the axis, from the result.
    fn rule_softmax(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let name = &c.name;
        let vv = c.v.clone();
        let x = c.x.clone();
        let func = c.func;
        let named = c.named;
        let g = c.g.clone();
        let (xt, xd) = self.ty_of(&x)?;
        let axis =
            literal_axis(named, -1, xd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
        let keep = vec![("axis", int_list(&[axis])), keepdims()];
        let d = if name == "softmax" {
            let s = with_named(call("sum", vec![mul(g.clone(), vv.clone())]), keep);
            mul(vv, sub(g.clone(), s))
        } else {
            let s = with_named(call("sum", vec![g.clone()]), keep);
            sub(g.clone(), mul(call("exp", vec![vv]), s))
        };
        self.send(&x, d, &(xt, xd))
    }

    /// `layer_norm(x, γ, β, axis, eps)` and `rms_norm(x, γ, axis, eps)`, with `x̂` the
    /// normalised `x` and `r = 1/sqrt(σ² + eps)` recomputed from `x`:
    /// `dx = r·(gγ - mean(gγ) - x̂·mean(gγ·x̂))` (rms_norm: without the first mean),
    /// `dγ = g·x̂`, `dβ = g`, each summed over the axes `γ`, `β` were broadcast along.
    fn norm_rule(
        &mut self,
        name: &str,
        func: &Ident,
        out: &(DType, Vec<Dim>),
        args: &[Expr],
        named: &[NamedArg],
        g: Expr,
    ) -> Result<(), syn::Error> {
        let err = |m: String| syn::Error::new(func.span(), m);
        let x = &args[0];
        let (xt, xd) = self.ty_of(x)?;
        let rank = xd.len();
        let first = literal_axis(named, -1, rank).map_err(err)?;
        let axes: Vec<usize> = (first..rank).collect();
        let keep = || vec![("axis", int_list(&axes)), keepdims()];
        let mean = |e: Expr| with_named(call("mean", vec![e]), keep());
        let eps = named_value(named, "eps")
            .unwrap_or_else(|| lit_f(if name == "layer_norm" { 1e-5 } else { 1e-6 }));
        let (centred, var_) = if name == "layer_norm" {
            let mu = self.let_(mean(x.clone()));
            let d = self.let_(sub(x.clone(), mu));
            (d.clone(), mean(mul(d.clone(), d)))
        } else {
            (x.clone(), mean(mul(x.clone(), x.clone())))
        };
        let r = self.let_(call("rsqrt", vec![add(var_, eps)]));
        let xhat = self.let_(mul(centred, r.clone()));
        let gamma = &args[1];
        if self.live_operand(x).is_some() {
            let gg = self.let_(mul(g.clone(), gamma.clone()));
            let mut inner = sub(
                gg.clone(),
                mul(xhat.clone(), mean(mul(gg.clone(), xhat.clone()))),
            );
            if name == "layer_norm" {
                inner = sub(inner, mean(gg));
            }
            self.send(x, mul(r, inner), &(xt, xd.clone()))?;
        }
        if self.live_operand(gamma).is_some() {
            self.send(gamma, mul(g.clone(), xhat), out)?;
        }
        if name == "layer_norm" && self.live_operand(&args[2]).is_some() {
            self.send(&args[2], g, out)?;
        }
        Ok(())
    }

    /// `softmax_cross_entropy(x, labels, …)` and `nll_loss`: per element
    /// `dx = (p - onehot)·c` (nll_loss: `-onehot·c`), `p` the softmax over the classes
    /// (axis 1), `c` the element's weight (`weight[label]`, 0 where the label is
    /// `ignore_index`) times its cotangent, divided by the sum of the weights for `mean`.
    fn loss_rule(
        &mut self,
        name: &str,
        func: &Ident,
        out: &(DType, Vec<Dim>),
        args: &[Expr],
        named: &[NamedArg],
        g: Expr,
    ) -> Result<(), syn::Error> {
        let err = |m: String| syn::Error::new(func.span(), m);
        let x = &args[0];
        if self.live_operand(x).is_none() {
            return Ok(());
        }
        let (xt, xd) = self.ty_of(x)?;
        let rank = xd.len();
        let classes = xd[1].clone();
        let mut column = vec![classes.clone()];
        column.extend(std::iter::repeat_n(Dim::Static(1), rank - 2));
        let Expr::Call {
            args: mut class_count,
            ..
        } = dims_list(&[classes]).map_err(err)?
        else {
            unreachable!("dims_list gives a list")
        };
        let positions =
            reshape(call("arange", vec![class_count.remove(0)]), &column).map_err(err)?;
        let label = self.let_(call(
            "expand_dims",
            vec![cast(args[1].clone(), DType::I64), int(1)],
        ));
        let hit = self.let_(cast(binary(BinOp::Eq, positions, label.clone()), xt));
        let mut coef: Option<Expr> = None;
        if let Some(w) = named_value(named, "weight") {
            let w = reshape(cast(w, xt), &column).map_err(err)?;
            let picked = with_named(
                call("sum", vec![mul(hit.clone(), w)]),
                vec![("axis", int_list(&[1])), keepdims()],
            );
            coef = Some(picked);
        }
        if let Some(ignore) = named_value(named, "ignore_index") {
            let valid = cast(binary(BinOp::Ne, label, ignore), xt);
            coef = Some(match coef {
                Some(c) => mul(c, valid),
                None => valid,
            });
        }
        let coef = coef.map(|c| self.let_(c));
        let reduction = match named_value(named, "reduction") {
            Some(Expr::Var(r)) => r.to_string(),
            None => "mean".to_string(),
            Some(_) => return Err(err("derive: `reduction` is `mean`, `sum` or `none`".into())),
        };
        let scale = match reduction.as_str() {
            "none" => {
                let ge = call("expand_dims", vec![g, int(1)]);
                match coef {
                    Some(c) => mul(ge, c),
                    None => ge,
                }
            }
            "sum" => match coef {
                Some(c) => mul(g, c),
                None => g,
            },
            _ => {
                let mut label_dims = vec![xd[0].clone(), Dim::Static(1)];
                label_dims.extend(xd[2..].iter().cloned());
                let all: Vec<usize> = (0..rank).collect();
                match coef {
                    Some(c) => {
                        let total = with_named(
                            call(
                                "sum",
                                vec![broadcast_to(c.clone(), &label_dims).map_err(err)?],
                            ),
                            vec![],
                        );
                        mul(div(g, total), c)
                    }
                    None => {
                        let n = count(xt, &label_dims, &all).map_err(err)?;
                        let n = if matches!(n, Expr::Lit(..)) {
                            n
                        } else {
                            reshape(n, &[]).map_err(err)?
                        };
                        div(g, n)
                    }
                }
            }
        };
        let d = if name == "softmax_cross_entropy" {
            let p = with_named(call("softmax", vec![x.clone()]), vec![("axis", int(1))]);
            mul(sub(p, hit), scale)
        } else {
            neg(mul(hit, scale))
        };
        let _ = out;
        self.send(x, d, &(xt, xd))
    }

    /// `attention(q, k, v, …)`: the probabilities are recomputed whole (`[B, H, Sq, Skv]`,
    /// not in tiles), then `dv = pᵀ·g`, `dp = g·vᵀ`, `ds = p·(dp − Σ dp·p)` (times `1 − t²`
    /// under a softcap, `t` the capped tanh), `dq = ds·k·scale`, `dk = dsᵀ·q·scale`. Grouped
    /// queries are split into `[B, Hkv, G, Sq, D]` and the group summed for `dk`, `dv`.
    fn attention_rule(
        &mut self,
        func: &Ident,
        out: &(DType, Vec<Dim>),
        args: &[Expr],
        named: &[NamedArg],
        g: Expr,
    ) -> Result<(), syn::Error> {
        let err = |m: String| syn::Error::new(func.span(), m);
        let (q, k, v) = (&args[0], &args[1], &args[2]);
        let (qt, qd) = self.ty_of(q)?;
        let (_, kd) = self.ty_of(k)?;
        let (_, vd) = self.ty_of(v)?;
        let lit_dim = |d: &Dim, what: &str| {
            d.as_static().ok_or_else(|| {
                err(format!(
                    "`{}`: the derivative of `attention` needs a literal {what}",
                    self.function
                ))
            })
        };
        let (hq, hkv) = (
            lit_dim(&qd[1], "query head count")?,
            lit_dim(&kd[1], "key head count")?,
        );
        let groups = hq / hkv.max(1);
        let head_dim = lit_dim(&qd[3], "head dim")?;
        let scale = match named_value(named, "scale") {
            Some(e) => e,
            None => lit_f(1.0 / (head_dim as f64).sqrt()),
        };
        let softcap = named_value(named, "softcap");
        let (sq, skv) = (qd[2].clone(), kd[2].clone());
        // Grouped queries: q and g as [B, Hkv, G, Sq, ·]; masks broadcast over the group.
        let five = |e: Expr, last: &Dim| -> Result<Expr, syn::Error> {
            reshape(
                e,
                &[
                    qd[0].clone(),
                    Dim::Static(hkv),
                    Dim::Static(groups),
                    sq.clone(),
                    last.clone(),
                ],
            )
            .map_err(err)
        };
        let (qg, gg) = if groups > 1 {
            (
                self.let_(five(q.clone(), &qd[3])?),
                self.let_(five(g.clone(), &vd[3])?),
            )
        } else {
            (q.clone(), g.clone())
        };
        let (sub_q, sub_s) = if groups > 1 {
            ("bhgqd", "bhgqk")
        } else {
            ("bhqd", "bhqk")
        };
        let es = |spec: String, a: Expr, b: Expr| {
            call(
                "einsum",
                vec![Expr::Lit(LitValue::Str(spec), Span::call_site()), a, b],
            )
        };
        let mut s = self.let_(mul(
            es(format!("{sub_q},bhkd->{sub_s}"), qg.clone(), k.clone()),
            scale.clone(),
        ));
        let mut cap_t = None;
        if let Some(c) = &softcap {
            let t = self.let_(call("tanh", vec![div(s.clone(), c.clone())]));
            s = self.let_(mul(c.clone(), t.clone()));
            cap_t = Some(t);
        }
        s = self.attention_masked(func, s, named, groups, qt, (&sq, &skv))?;
        // A row with every key masked has probabilities 0 (its output is 0), not NaN.
        let p = with_named(call("softmax", vec![s]), vec![("axis", neg(int(1)))]);
        let p = self.let_(p);
        let p = self.let_(call(
            "where",
            vec![call("is_nan", vec![p.clone()]), cast(lit_f(0.0), qt), p],
        ));
        let kv_dims = |d: &[Dim]| d.to_vec();
        if self.live_operand(v).is_some() {
            let dv = es(format!("{sub_s},{sub_q}->bhkd"), p.clone(), gg.clone());
            self.send(v, dv, &(out.0, kv_dims(&vd)))?;
        }
        if self.live_operand(q).is_none() && self.live_operand(k).is_none() {
            return Ok(());
        }
        let dp = self.let_(es(format!("{sub_q},bhkd->{sub_s}"), gg, v.clone()));
        let row = with_named(
            call("sum", vec![mul(dp.clone(), p.clone())]),
            vec![("axis", neg(int(1))), keepdims()],
        );
        let mut ds = mul(p, sub(dp, row));
        if let Some(t) = cap_t {
            ds = mul(ds, sub(lit_f(1.0), mul(t.clone(), t)));
        }
        let ds = self.let_(ds);
        if self.live_operand(q).is_some() {
            let mut dq = mul(
                es(format!("{sub_s},bhkd->{sub_q}"), ds.clone(), k.clone()),
                scale.clone(),
            );
            if groups > 1 {
                dq = reshape(dq, &qd).map_err(err)?;
            }
            self.send(q, dq, &(out.0, qd.clone()))?;
        }
        if self.live_operand(k).is_some() {
            let dk = mul(es(format!("{sub_s},{sub_q}->bhkd"), ds, qg), scale);
            self.send(k, dk, &(out.0, kv_dims(&kd)))?;
        }
        Ok(())
    }

    /// The scores `s` of `attention` with its masks applied as the forward applies them:
    /// `attn_mask` (a bool mask selects, a float one adds; lifted over the query group) and
    /// `is_causal` (query i sees key j when i + Skv − Sq ≥ j).
    fn attention_masked(
        &mut self,
        func: &Ident,
        mut s: Expr,
        named: &[NamedArg],
        groups: usize,
        qt: DType,
        (sq, skv): (&Dim, &Dim),
    ) -> Result<Expr, syn::Error> {
        let err = |m: String| syn::Error::new(func.span(), m);
        let causal = named_bool(named, "is_causal").unwrap_or(false);
        let mask = named_value(named, "attn_mask");
        // −∞ (the language has no literal for it): log 0 in the scores' dtype.
        let minus_inf = call("log", vec![cast(lit_f(0.0), qt)]);
        let lift = |m: Expr, rank: usize| {
            if groups > 1 && rank == 4 {
                call("expand_dims", vec![m, int(2)])
            } else {
                m
            }
        };
        if let Some(m) = &mask {
            let Expr::Var(name) = m else {
                return Err(err(format!("`{}`: the derivative of `attention` takes a mask that is a parameter or a name", self.function)));
            };
            let (mt, md) = self.ty_of(m)?;
            if groups > 1 && md.len() == 4 && md[1] != Dim::Static(1) {
                return Err(err(format!("`{}`: the derivative of grouped-query `attention` with a per-head mask is not written yet", self.function)));
            }
            let lifted = lift(var(&name.to_string()), md.len());
            s = self.let_(if mt == DType::Bool {
                call("where", vec![lifted, s, minus_inf.clone()])
            } else {
                add(s, lifted)
            });
        }
        if causal {
            // Query i sees key j when i + Skv − Sq ≥ j: counted from the ends, when
            // (Sq − 1 − i) ≤ (Skv − 1 − j).
            let from_end = |n: &Dim| -> Result<Expr, syn::Error> {
                let list = dims_list(std::slice::from_ref(n)).map_err(err)?;
                let Expr::Call { args: mut one, .. } = list else {
                    unreachable!("a list")
                };
                Ok(with_named(
                    call("flip", vec![call("arange", vec![one.remove(0)])]),
                    vec![("axis", int(0))],
                ))
            };
            let rows = reshape(from_end(sq)?, &[sq.clone(), Dim::Static(1)]).map_err(err)?;
            let cols = reshape(from_end(skv)?, &[Dim::Static(1), skv.clone()]).map_err(err)?;
            s = self.let_(call(
                "where",
                vec![binary(BinOp::Le, rows, cols), s, minus_inf.clone()],
            ));
        }
        Ok(s)
    }

    /// `[…, M, K] · […, K, N]`: `da = g · bᵀ`, `db = aᵀ · g` (batch axes summed by `fit`
    /// where they were broadcast); a 1-D operand is a row (left) or a column (right).
    fn matmul_rule(
        &mut self,
        out: &(DType, Vec<Dim>),
        a: &Expr,
        b: &Expr,
        g: Expr,
    ) -> Result<(), syn::Error> {
        let (at, ad) = self.ty_of(a)?;
        let (bt, bd) = self.ty_of(b)?;
        let (ra, rb) = (ad.len(), bd.len());
        let t = |e: Expr, rank: usize| -> Expr {
            let mut perm: Vec<usize> = (0..rank).collect();
            perm.swap(rank - 2, rank - 1);
            call("transpose", vec![e, int_list(&perm)])
        };
        let (da, db) = match (ra, rb) {
            (1, 1) => (mul(g.clone(), b.clone()), mul(g, a.clone())),
            (1, 2) => (
                call("matmul", vec![b.clone(), g.clone()]),
                mul(call("expand_dims", vec![a.clone(), int(1)]), call("expand_dims", vec![g, int(0)])),
            ),
            (2, 1) => (
                mul(call("expand_dims", vec![g.clone(), int(1)]), call("expand_dims", vec![b.clone(), int(0)])),
                call("matmul", vec![g, a.clone()]),
            ),
            (ra, rb) if ra >= 2 && rb >= 2 => (
                call("matmul", vec![g.clone(), t(b.clone(), rb)]),
                call("matmul", vec![t(a.clone(), ra), g]),
            ),
            _ => {
                return Err(syn::Error::new(
                    Span::call_site(),
                    format!("`{}`: the derivative of a batched matmul with a 1-D operand is not written yet", self.function),
                ))
            }
        };
        // The products' types: the operands' dtype promoted as the forward's, over the
        // batch axes of the result; `fit` sums the broadcast batch axes and casts.
        let out_rank = out.1.len();
        let batch = &out.1[..out_rank.saturating_sub(2)];
        if self.live_operand(a).is_some() {
            let mut dims = batch.to_vec();
            dims.extend(ad[ra.saturating_sub(2)..].iter().cloned());
            let dims = if ra == 1 { ad.clone() } else { dims };
            let _ = at;
            self.send(a, da, &(out.0, dims))?;
        }
        if self.live_operand(b).is_some() {
            let mut dims = batch.to_vec();
            dims.extend(bd[rb.saturating_sub(2)..].iter().cloned());
            let dims = if rb == 1 { bd.clone() } else { dims };
            let _ = bt;
            self.send(b, db, &(out.0, dims))?;
        }
        Ok(())
    }
}
