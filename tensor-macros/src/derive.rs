//! Reverse-mode derivatives at compile time: `grad fn NAME = value_and_grad(GRAPH, wrt =
//! [p, …]);` and `vjp fn NAME = vjp(GRAPH, wrt = [p, …]);` become ordinary graph functions
//! whose bodies this phase writes in the language itself, then `check`, `lower` and `emit`
//! compile like any other graph. So the backward is fused by the same rules as the forward
//! (elementwise derivatives recomputed inside the kernels that consume them, products on
//! the GEMM engine with transposed operands read in place), has the same dtype and shape
//! checks, and the same call-entry errors.
//!
//! Steps:
//! 1. A-normal form: every operation of the forward body gets a `let` of its own
//!    (`__tg_v{k}`), so each intermediate value has a name. Names are aliases, not buffers:
//!    the lowering fuses across them as before.
//! 2. The A-normal body is type-checked (`check::check_graph_scoped`), which gives every
//!    name its dtype and dims.
//! 3. Walking the `let`s backwards from the output, each operation's rule (`rule`) turns
//!    the cotangent of its result into contributions to its operands, each fitted to its
//!    operand's type (`fit`: summed over broadcast axes, cast back to the operand's
//!    dtype). Contributions to one name add up (`__tg_d{k}` lets).
//!
//! Only values that depend on a `wrt` parameter and are floats carry cotangents. An
//! operation on that path with no rule is a compile error naming it; `stop_gradient(e)`
//! cuts a path. Conventions at non-differentiable points are JAX's: `relu'(0) = 0`,
//! `abs'(0) = 1`, ties of `max`/`min` (elementwise or reduced) share the cotangent evenly,
//! rounding, `sign`, comparisons and integer results pass no cotangent.

use std::collections::{HashMap, HashSet};

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{
    BinOp, DerivedFn, DerivedKind, Expr, GraphFn, Let, LitValue, NamedArg, Outputs, Param,
    ParamType, ReturnType, UnOp,
};
use crate::check::{check_graph_scoped, type_text, Errors, ScopeTypes};
use crate::dtype::DType;
use crate::shape::Dim;

/// The graph function `d` asks for, written from `forward`: or the compile errors that
/// stop it (a `wrt` name that is not a float tensor parameter, a non-scalar output for
/// `value_and_grad`, an operation without a derivative rule on a path to a `wrt`
/// parameter).
pub fn derive(forward: &GraphFn, d: DerivedFn) -> Result<GraphFn, syn::Error> {
    let function = match d.kind {
        DerivedKind::ValueAndGrad => "value_and_grad",
        DerivedKind::Vjp => "vjp",
    };
    let mut wrt = Vec::new();
    for name in &d.wrt {
        let Some(param) = forward.params.iter().find(|p| p.name == *name) else {
            let names: Vec<String> = forward
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "`{}` has no parameter `{name}`; its parameters are {}",
                    forward.name,
                    names.join(", ")
                ),
            ));
        };
        if !param.ty.dtype.is_float() {
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "`{function}` with respect to `{name}`, whose type is `{}`: only float parameters have gradients\n\
                     note: JAX refuses integer and bool inputs to `grad` the same way",
                    type_text(param.ty.dtype, param.ty.dims.as_deref().unwrap_or(&[]))
                ),
            ));
        }
        if param.ty.dims.is_none() {
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "`{function}` with respect to `{name}`, a run-time scalar: declare it as a rank-0 tensor, `{name}: {}[]`, to differentiate it",
                    param.ty.dtype.name()
                ),
            ));
        }
        if wrt.iter().any(|w: &String| *w == name.to_string()) {
            return Err(syn::Error::new(
                name.span(),
                format!("`{name}` is named twice in `wrt`"),
            ));
        }
        wrt.push(name.to_string());
    }
    let declared: Vec<ParamType> = match &forward.ret {
        Some(ReturnType::Single(t)) => vec![t.clone()],
        Some(ReturnType::Tuple(list)) => list.clone(),
        None => Vec::new(),
    };
    if d.kind == DerivedKind::ValueAndGrad {
        let scalar = declared.len() == 1
            && declared[0].dims.as_ref().is_some_and(Vec::is_empty)
            && declared[0].dtype.is_float();
        if !scalar {
            let texts: Vec<String> = declared
                .iter()
                .map(|t| type_text(t.dtype, t.dims.as_deref().unwrap_or(&[])))
                .collect();
            return Err(syn::Error::new(
                d.graph.span(),
                format!(
                    "`value_and_grad` needs a graph with one rank-0 float output, but `{}` returns `{}`\n\
                     help: reduce the output to a scalar (`sum(…)`, `mean(…)`), or take `vjp(…)`, which takes a cotangent per output",
                    forward.name,
                    if texts.len() == 1 { texts[0].clone() } else { format!("({})", texts.join(", ")) }
                ),
            ));
        }
    }

    // 1. A-normal form.
    let mut anf = Anf::default();
    let mut env: HashMap<String, String> = forward
        .params
        .iter()
        .map(|p| (p.name.to_string(), p.name.to_string()))
        .collect();
    for binding in &forward.lets {
        if let Some(names) = &binding.tuple {
            // A tuple-valued op: its parts are opaque to the rules (they have none).
            let value = anf.rename(&binding.value, &env);
            let fresh: Vec<Ident> = names.iter().map(|_| anf.fresh_ident("v")).collect();
            anf.lets.push(Let {
                name: fresh[0].clone(),
                tuple: Some(fresh.clone()),
                value,
            });
            for (n, f) in names.iter().zip(&fresh) {
                env.insert(n.to_string(), f.to_string());
                anf.opaque.insert(f.to_string(), n.span());
            }
            continue;
        }
        let name = anf.bind(&binding.value, &env);
        env.insert(binding.name.to_string(), name);
    }
    let outputs: Vec<String> = match &forward.outputs {
        Outputs::Single(e) => vec![anf.bind(e, &env)],
        Outputs::Tuple(list, _) => list.iter().map(|e| anf.bind(e, &env)).collect(),
    };

    // 2. Types of every name.
    let typed_fn = GraphFn {
        attrs: Vec::new(),
        allowed_warnings: crate::ast::WARNING_KINDS
            .iter()
            .map(|s| s.to_string())
            .collect(),
        attr_errors: Vec::new(),
        vis: syn::Visibility::Inherited,
        name: forward.name.clone(),
        params: clone_params(&forward.params),
        ret: forward.ret.as_ref().map(clone_ret),
        lets: anf.lets.clone(),
        outputs: output_exprs(&outputs),
        syntax_errors: Vec::new(),
    };
    let mut errors = Errors::default();
    let Some((_, types)) = check_graph_scoped(&typed_fn, &mut errors) else {
        return Err(syn::Error::new(
            d.name.span(),
            format!(
                "`{}` cannot be derived until `{}` compiles: fix its errors first",
                d.name, forward.name
            ),
        ));
    };

    // Which names carry cotangents: float values that depend on a `wrt` parameter.
    let mut live: HashSet<String> = wrt.iter().cloned().collect();
    for binding in &anf.lets {
        let depends = vars(&binding.value).iter().any(|v| live.contains(v));
        let float = types
            .get(&binding.name.to_string())
            .is_some_and(|(dt, _)| dt.is_float());
        if depends
            && float
            && binding.tuple.is_none()
            && !anf.cut.contains(&binding.name.to_string())
        {
            live.insert(binding.name.to_string());
        }
        if depends {
            // Quantization's derivative is not defined (JAX's would be 0 almost everywhere,
            // which hides a mistake): cut it with `stop_gradient` to mean that.
            if let Expr::Call { func, .. } = &binding.value {
                if func == "quantize_linear" {
                    return Err(no_rule(function, &forward.name, func, "its operands"));
                }
            }
            if let Some(names) = &binding.tuple {
                if let Expr::Call { func, .. } = &binding.value {
                    return Err(no_rule(function, &forward.name, func, "its parts"));
                }
                let _ = names;
            }
        }
    }

    // 3. The backward pass.
    let mut back = Backward {
        anf: &mut anf,
        types: &types,
        live: &live,
        ct: HashMap::new(),
        function,
        graph: &forward.name,
    };
    let mut params = clone_params(&forward.params);
    let mut seeds = Vec::new();
    match d.kind {
        DerivedKind::ValueAndGrad => {
            let out = &outputs[0];
            let Some((dtype, _)) = types.get(out).cloned() else {
                return Err(syn::Error::new(
                    d.graph.span(),
                    "`value_and_grad`: the graph's output has no dtype",
                ));
            };
            seeds.push((out.clone(), cast(lit_f(1.0), dtype)));
        }
        DerivedKind::Vjp => {
            for (k, (out, decl)) in outputs.iter().zip(&declared).enumerate() {
                let name = if outputs.len() == 1 {
                    "cotangent".to_string()
                } else {
                    format!("cotangent_{k}")
                };
                let ident = Ident::new(&name, d.name.span());
                params.push(Param {
                    mutable: false,
                    name: ident.clone(),
                    ty: decl.clone(),
                    recovered: false,
                });
                seeds.push((out.clone(), Expr::Var(ident)));
            }
        }
    }
    for (out, seed) in seeds {
        if live.contains(&out) {
            back.accumulate(&out, seed);
        }
    }
    let lets_forward = back.anf.lets.clone();
    for binding in lets_forward.iter().rev() {
        let name = binding.name.to_string();
        let Some(g) = back.ct.get(&name).cloned() else {
            continue;
        };
        back.rule(
            &name,
            &binding.value,
            Expr::Var(Ident::new(&g, Span::call_site())),
        )?;
    }
    let mut grads = Vec::new();
    for name in &wrt {
        let param = forward
            .params
            .iter()
            .find(|p| p.name == name)
            .expect("checked above");
        let dims = param.ty.dims.clone().expect("checked above");
        let grad = match back.ct.get(name) {
            Some(g) => var(g),
            // Not on any path to the output: a zero gradient of the parameter's type.
            None => broadcast_to(cast(lit_f(0.0), param.ty.dtype), &dims)
                .map_err(|e| syn::Error::new(param.name.span(), e))?,
        };
        grads.push(grad);
    }
    let mut lets = back.anf.lets.clone();
    lets.extend(back.anf.backward.drain(..));
    let (outputs_expr, ret) = match d.kind {
        DerivedKind::ValueAndGrad => {
            let mut exprs = vec![var(&outputs[0])];
            exprs.extend(grads);
            let mut types_out = vec![declared[0].clone()];
            types_out.extend(d.wrt.iter().map(|w| {
                forward
                    .params
                    .iter()
                    .find(|p| p.name == *w)
                    .expect("checked")
                    .ty
                    .clone()
            }));
            (
                Outputs::Tuple(exprs, d.name.span()),
                ReturnType::Tuple(types_out),
            )
        }
        DerivedKind::Vjp => {
            let types_out: Vec<ParamType> = d
                .wrt
                .iter()
                .map(|w| {
                    forward
                        .params
                        .iter()
                        .find(|p| p.name == *w)
                        .expect("checked")
                        .ty
                        .clone()
                })
                .collect();
            if grads.len() == 1 {
                (
                    Outputs::Single(grads.pop().expect("one")),
                    ReturnType::Single(types_out[0].clone()),
                )
            } else {
                (
                    Outputs::Tuple(grads, d.name.span()),
                    ReturnType::Tuple(types_out),
                )
            }
        }
    };
    // rustdoc: what the function is, after the item's own doc comment.
    let wrt_text: Vec<String> = d.wrt.iter().map(|w| format!("`{w}`")).collect();
    let summary = match d.kind {
        DerivedKind::ValueAndGrad => format!(
            " The value of [`{}`] and its gradient with respect to {}, derived at compile time (reverse mode): `(value, {})`.",
            forward.name,
            wrt_text.join(", "),
            d.wrt.iter().map(|w| format!("d{w}")).collect::<Vec<_>>().join(", ")
        ),
        DerivedKind::Vjp => format!(
            " The vector-Jacobian product of [`{}`] with respect to {}, derived at compile time: takes `{}`'s parameters, then a cotangent per output (its type), and returns the gradients in that order.",
            forward.name,
            wrt_text.join(", "),
            forward.name
        ),
    };
    let mut attrs = d.attrs;
    if !attrs.is_empty() {
        attrs.push(syn::parse_quote!(#[doc = ""]));
    }
    attrs.push(syn::parse_quote!(#[doc = #summary]));
    Ok(GraphFn {
        attrs,
        allowed_warnings: crate::ast::WARNING_KINDS
            .iter()
            .map(|s| s.to_string())
            .collect(),
        attr_errors: Vec::new(),
        vis: d.vis,
        name: d.name.clone(),
        params,
        ret: Some(ret),
        lets,
        outputs: outputs_expr,
        syntax_errors: Vec::new(),
    })
}

fn no_rule(function: &str, graph: &Ident, func: &Ident, what: &str) -> syn::Error {
    syn::Error::new(
        func.span(),
        format!(
            "`{function}({graph}, …)`: `{func}` has no derivative rule, and {what} lie on a path from a `wrt` parameter to the output\n\
             help: if no gradient should flow through it, wrap it in `stop_gradient(…)`"
        ),
    )
}

fn clone_params(params: &[Param]) -> Vec<Param> {
    params
        .iter()
        .map(|p| Param {
            mutable: false,
            name: p.name.clone(),
            ty: p.ty.clone(),
            recovered: p.recovered,
        })
        .collect()
}

fn clone_ret(r: &ReturnType) -> ReturnType {
    match r {
        ReturnType::Single(t) => ReturnType::Single(t.clone()),
        ReturnType::Tuple(list) => ReturnType::Tuple(list.clone()),
    }
}

fn output_exprs(names: &[String]) -> Outputs {
    if names.len() == 1 {
        Outputs::Single(var(&names[0]))
    } else {
        Outputs::Tuple(names.iter().map(|n| var(n)).collect(), Span::call_site())
    }
}

/// The forward body in A-normal form, and the backward `let`s as they are written.
#[derive(Default)]
struct Anf {
    lets: Vec<Let>,
    backward: Vec<Let>,
    counter: usize,
    /// Names bound by `stop_gradient(…)`: no cotangent passes them.
    cut: HashSet<String>,
    /// Parts of tuple-valued ops.
    opaque: HashMap<String, Span>,
}

impl Anf {
    fn fresh_ident(&mut self, kind: &str) -> Ident {
        self.counter += 1;
        Ident::new(&format!("__tg_{kind}{}", self.counter), Span::call_site())
    }

    /// `e` with its names renamed through `env`, its operands bound to `let`s of their own;
    /// returns the name the whole of `e` is bound to.
    fn bind(&mut self, e: &Expr, env: &HashMap<String, String>) -> String {
        if let Expr::Var(v) = e {
            if let Some(name) = env.get(&v.to_string()) {
                return name.clone();
            }
        }
        let value = self.operands(e, env);
        let name = self.fresh_ident("v");
        if let Expr::Call { func, args, .. } = &value {
            if func == "stop_gradient" && args.len() == 1 {
                self.cut.insert(name.to_string());
            }
        }
        self.lets.push(Let {
            name: name.clone(),
            tuple: None,
            value,
        });
        name.to_string()
    }

    /// `e` with each tensor operand bound by `bind` (literals, lists and named arguments
    /// stay in place, renamed).
    fn operands(&mut self, e: &Expr, env: &HashMap<String, String>) -> Expr {
        // Variadic folds become the binary ops they are (left to right, the checker's
        // order), so each step has its rule.
        if let Expr::Call { func, args, named } = e {
            let name = func.to_string();
            let fold = match name.as_str() {
                "max" | "min" if args.len() > 2 && named.is_empty() => Some(name.clone()),
                "add" | "sum_of" if args.len() > 2 || (name == "sum_of" && args.len() == 2) => {
                    Some("add".to_string())
                }
                _ => None,
            };
            if let Some(f) = fold {
                let mut acc = args[0].clone();
                for a in &args[1..] {
                    acc = Expr::Call {
                        func: Ident::new(&f, func.span()),
                        args: vec![acc, a.clone()],
                        named: Vec::new(),
                    };
                }
                return self.operands(&acc, env);
            }
        }
        let operand = |this: &mut Anf, x: &Expr| -> Expr {
            match x {
                Expr::Lit(..) => x.clone(),
                Expr::Unary {
                    op: UnOp::Neg,
                    expr,
                    ..
                } if matches!(**expr, Expr::Lit(..)) => x.clone(),
                Expr::Call { func, .. } if func == "__list" => this.rename(x, env),
                _ => var(&this.bind(x, env)),
            }
        };
        match e {
            Expr::Var(_) | Expr::Lit(..) => self.rename(e, env),
            Expr::Unary { op, op_span, expr } => Expr::Unary {
                op: *op,
                op_span: *op_span,
                expr: Box::new(operand(self, expr)),
            },
            Expr::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => Expr::Binary {
                op: *op,
                op_span: *op_span,
                lhs: Box::new(operand(self, lhs)),
                rhs: Box::new(operand(self, rhs)),
            },
            Expr::Cast { expr, as_span, to } => Expr::Cast {
                expr: Box::new(operand(self, expr)),
                as_span: *as_span,
                to: *to,
            },
            Expr::Call { func, args, named } if func == "concat" => Expr::Call {
                func: func.clone(),
                // The parts of `concat`'s list are tensors: each gets a name.
                args: args
                    .iter()
                    .map(|a| match a {
                        Expr::Call {
                            func: list,
                            args: parts,
                            named: n,
                        } if list == "__list" => Expr::Call {
                            func: list.clone(),
                            args: parts.iter().map(|p| operand(self, p)).collect(),
                            named: n.clone(),
                        },
                        other => operand(self, other),
                    })
                    .collect(),
                named: named
                    .iter()
                    .map(|n| NamedArg {
                        name: n.name.clone(),
                        value: self.rename(&n.value, env),
                    })
                    .collect(),
            },
            Expr::Call { func, args, named } => Expr::Call {
                func: func.clone(),
                args: args.iter().map(|a| operand(self, a)).collect(),
                named: named
                    .iter()
                    .map(|n| NamedArg {
                        name: n.name.clone(),
                        value: self.rename(&n.value, env),
                    })
                    .collect(),
            },
        }
    }

    /// `e` with its names renamed through `env` (no new `let`s).
    fn rename(&self, e: &Expr, env: &HashMap<String, String>) -> Expr {
        match e {
            Expr::Var(v) => match env.get(&v.to_string()) {
                Some(name) => Expr::Var(Ident::new(name, v.span())),
                None => e.clone(),
            },
            Expr::Lit(..) => e.clone(),
            Expr::Unary { op, op_span, expr } => Expr::Unary {
                op: *op,
                op_span: *op_span,
                expr: Box::new(self.rename(expr, env)),
            },
            Expr::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => Expr::Binary {
                op: *op,
                op_span: *op_span,
                lhs: Box::new(self.rename(lhs, env)),
                rhs: Box::new(self.rename(rhs, env)),
            },
            Expr::Cast { expr, as_span, to } => Expr::Cast {
                expr: Box::new(self.rename(expr, env)),
                as_span: *as_span,
                to: *to,
            },
            Expr::Call { func, args, named } => Expr::Call {
                func: func.clone(),
                args: args.iter().map(|a| self.rename(a, env)).collect(),
                named: named
                    .iter()
                    .map(|n| NamedArg {
                        name: n.name.clone(),
                        value: self.rename(&n.value, env),
                    })
                    .collect(),
            },
        }
    }
}

struct Backward<'a> {
    anf: &'a mut Anf,
    types: &'a ScopeTypes,
    live: &'a HashSet<String>,
    /// Name → the `let` holding its cotangent so far.
    ct: HashMap<String, String>,
    function: &'static str,
    graph: &'a Ident,
}

impl Backward<'_> {
    /// Binds `e` to a fresh backward `let`; returns its name as an expression.
    fn let_(&mut self, e: Expr) -> Expr {
        let name = self.anf.fresh_ident("d");
        self.anf.backward.push(Let {
            name: name.clone(),
            tuple: None,
            value: e,
        });
        Expr::Var(name)
    }

    /// Adds `contribution` (already of `name`'s type) to `name`'s cotangent.
    fn accumulate(&mut self, name: &str, contribution: Expr) {
        let sum = match self.ct.get(name) {
            Some(previous) => binary(BinOp::Add, var(previous), contribution),
            None => contribution,
        };
        let Expr::Var(bound) = self.let_(sum) else {
            unreachable!("let_ returns a name")
        };
        self.ct.insert(name.to_string(), bound.to_string());
    }

    fn ty(&self, name: &str) -> Result<(DType, Vec<Dim>), syn::Error> {
        self.types.get(name).cloned().ok_or_else(|| {
            syn::Error::new(
                self.graph.span(),
                format!("internal error of `graph!`: `{}` found no type for a value of `{}`; please report this graph", self.function, self.graph),
            )
        })
    }

    /// The operand `x` of an operation, if it carries a cotangent.
    fn live_operand(&self, x: &Expr) -> Option<String> {
        match x {
            Expr::Var(v) if self.live.contains(&v.to_string()) => Some(v.to_string()),
            _ => None,
        }
    }

    /// Sends `contribution` (of the type `from`) to operand `x`, fitted to its type.
    fn send(
        &mut self,
        x: &Expr,
        contribution: Expr,
        from: &(DType, Vec<Dim>),
    ) -> Result<(), syn::Error> {
        let Some(name) = self.live_operand(x) else {
            return Ok(());
        };
        let to = self.ty(&name)?;
        let fitted =
            fit(contribution, from, &to).map_err(|e| syn::Error::new(Span::call_site(), e))?;
        self.accumulate(&name, fitted);
        Ok(())
    }

    fn any_live(&self, xs: &[&Expr]) -> bool {
        xs.iter().any(|x| self.live_operand(x).is_some())
    }

    /// The rule of the operation `v = value`, given `v`'s cotangent `g`.
    fn rule(&mut self, v: &str, value: &Expr, g: Expr) -> Result<(), syn::Error> {
        let out = self.ty(v)?;
        let vv = var(v);
        match value {
            Expr::Var(_) => self.send(value, g, &out),
            Expr::Lit(..) => Ok(()),
            Expr::Unary {
                op: UnOp::Neg,
                expr,
                ..
            } => self.send(expr, neg(g), &out),
            Expr::Unary { op: UnOp::Not, .. } => Ok(()),
            Expr::Cast { expr, .. } => {
                // Between floats: the cotangent is cast back by `fit`.
                self.send(expr, g, &out)
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                let (a, b) = (lhs.as_ref(), rhs.as_ref());
                match op {
                    BinOp::Add => {
                        self.send(a, g.clone(), &out)?;
                        self.send(b, g, &out)
                    }
                    BinOp::Sub => {
                        self.send(a, g.clone(), &out)?;
                        self.send(b, neg(g), &out)
                    }
                    BinOp::Mul => {
                        if self.live_operand(a).is_some() {
                            self.send(a, mul(g.clone(), b.clone()), &out)?;
                        }
                        if self.live_operand(b).is_some() {
                            self.send(b, mul(g, a.clone()), &out)?;
                        }
                        Ok(())
                    }
                    BinOp::Div => {
                        if self.live_operand(a).is_some() {
                            self.send(a, div(g.clone(), b.clone()), &out)?;
                        }
                        if self.live_operand(b).is_some() {
                            // d(a/b)/db = -(a/b)/b
                            self.send(b, neg(div(mul(g, vv), b.clone())), &out)?;
                        }
                        Ok(())
                    }
                    BinOp::Rem => {
                        self.send(a, g.clone(), &out)?;
                        if self.live_operand(b).is_some() {
                            let q = call("trunc", vec![div(a.clone(), b.clone())]);
                            self.send(b, neg(mul(g, q)), &out)?;
                        }
                        Ok(())
                    }
                    // Comparisons, bitwise and logical operators give no float result.
                    _ => Ok(()),
                }
            }
            Expr::Call { func, args, named } => self.call_rule(v, &out, func, args, named, g),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn call_rule(
        &mut self,
        v: &str,
        out: &(DType, Vec<Dim>),
        func: &Ident,
        args: &[Expr],
        named: &[NamedArg],
        g: Expr,
    ) -> Result<(), syn::Error> {
        let name = func.to_string();
        let vv = var(v);
        let x = args.first().cloned().unwrap_or_else(|| lit_f(0.0));
        let unary = |d: Expr| mul(g.clone(), d);
        let arg_live: Vec<bool> = args
            .iter()
            .map(|a| self.live_operand(a).is_some())
            .collect();
        let named_live = named
            .iter()
            .any(|n| vars(&n.value).iter().any(|v| self.live.contains(v)));
        if named_live && !matches!(name.as_str(), "clip" | "clamp") {
            return Err(no_rule(
                self.function,
                self.graph,
                func,
                "its named arguments",
            ));
        }
        let ln2 = std::f64::consts::LN_2;
        let contribution = match (name.as_str(), args.len()) {
            ("stop_gradient", 1) => return Ok(()),
            // Elementwise functions of one argument: g · f'(x), f' written with the result
            // `v` where that is cheaper.
            ("exp", 1) => unary(vv),
            ("exp2", 1) => unary(mul(vv, lit_f(ln2))),
            ("expm1", 1) => unary(add(vv, lit_f(1.0))),
            ("log", 1) => div(g.clone(), x.clone()),
            ("log2", 1) => div(g.clone(), mul(x.clone(), lit_f(ln2))),
            ("log1p", 1) => div(g.clone(), add(x.clone(), lit_f(1.0))),
            ("sqrt", 1) => div(mul(g.clone(), lit_f(0.5)), vv),
            ("rsqrt", 1) => mul(mul(g.clone(), lit_f(-0.5)), div(vv, x.clone())),
            ("cbrt", 1) => div(g.clone(), mul(lit_f(3.0), mul(vv.clone(), vv))),
            ("reciprocal", 1) => neg(mul(g.clone(), mul(vv.clone(), vv))),
            ("square", 1) => unary(mul(lit_f(2.0), x.clone())),
            ("sin", 1) => unary(call("cos", vec![x.clone()])),
            ("cos", 1) => neg(unary(call("sin", vec![x.clone()]))),
            ("tan", 1) => unary(add(lit_f(1.0), mul(vv.clone(), vv))),
            ("sinh", 1) => unary(call("cosh", vec![x.clone()])),
            ("cosh", 1) => unary(call("sinh", vec![x.clone()])),
            ("tanh", 1) => unary(sub(lit_f(1.0), mul(vv.clone(), vv))),
            ("atan", 1) => div(g.clone(), add(lit_f(1.0), mul(x.clone(), x.clone()))),
            ("asin", 1) => unary(call(
                "rsqrt",
                vec![sub(lit_f(1.0), mul(x.clone(), x.clone()))],
            )),
            ("acos", 1) => neg(unary(call(
                "rsqrt",
                vec![sub(lit_f(1.0), mul(x.clone(), x.clone()))],
            ))),
            ("asinh", 1) => unary(call(
                "rsqrt",
                vec![add(mul(x.clone(), x.clone()), lit_f(1.0))],
            )),
            ("acosh", 1) => unary(call(
                "rsqrt",
                vec![sub(mul(x.clone(), x.clone()), lit_f(1.0))],
            )),
            ("atanh", 1) => div(g.clone(), sub(lit_f(1.0), mul(x.clone(), x.clone()))),
            ("sigmoid", 1) => unary(mul(vv.clone(), sub(lit_f(1.0), vv))),
            ("erf", 1) => unary(mul(
                lit_f(std::f64::consts::FRAC_2_SQRT_PI),
                call("exp", vec![neg(mul(x.clone(), x.clone()))]),
            )),
            ("erfc", 1) => neg(unary(mul(
                lit_f(std::f64::consts::FRAC_2_SQRT_PI),
                call("exp", vec![neg(mul(x.clone(), x.clone()))]),
            ))),
            ("softplus", 1) => unary(call("sigmoid", vec![x.clone()])),
            ("silu", 1) => {
                let s = call("sigmoid", vec![x.clone()]);
                unary(mul(
                    s.clone(),
                    add(lit_f(1.0), mul(x.clone(), sub(lit_f(1.0), s))),
                ))
            }
            ("gelu", 1) => {
                // Φ(x) + x·φ(x)
                let cdf = mul(
                    lit_f(0.5),
                    add(
                        lit_f(1.0),
                        call(
                            "erf",
                            vec![mul(x.clone(), lit_f(std::f64::consts::FRAC_1_SQRT_2))],
                        ),
                    ),
                );
                let pdf = mul(
                    lit_f(0.398_942_280_401_432_7),
                    call("exp", vec![mul(lit_f(-0.5), mul(x.clone(), x.clone()))]),
                );
                unary(add(cdf, mul(x.clone(), pdf)))
            }
            ("relu", 1) => call(
                "where",
                vec![
                    binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                    g.clone(),
                    lit_f(0.0),
                ],
            ),
            ("abs", 1) => call(
                "where",
                vec![
                    binary(BinOp::Ge, x.clone(), lit_f(0.0)),
                    g.clone(),
                    neg(g.clone()),
                ],
            ),
            ("neg", 1) => neg(g.clone()),
            ("floor" | "ceil" | "round" | "roundeven" | "trunc" | "sign", 1) => return Ok(()),
            ("mish", 1) => {
                let t = call("tanh", vec![call("softplus", vec![x.clone()])]);
                let d = add(
                    t.clone(),
                    mul(
                        mul(x.clone(), sub(lit_f(1.0), mul(t.clone(), t))),
                        call("sigmoid", vec![x.clone()]),
                    ),
                );
                unary(d)
            }
            ("gelu_tanh", 1) => {
                // 0.5·(1 + t) + 0.5·x·(1 - t²)·k·(1 + 3·0.044715·x²), t = tanh(k·(x + 0.044715·x³))
                let k = (2.0 / std::f64::consts::PI).sqrt();
                let x3 = mul(x.clone(), mul(x.clone(), x.clone()));
                let t = call(
                    "tanh",
                    vec![mul(lit_f(k), add(x.clone(), mul(lit_f(0.044715), x3)))],
                );
                let dt = mul(
                    mul(lit_f(k), sub(lit_f(1.0), mul(t.clone(), t.clone()))),
                    add(
                        lit_f(1.0),
                        mul(lit_f(3.0 * 0.044715), mul(x.clone(), x.clone())),
                    ),
                );
                unary(add(
                    mul(lit_f(0.5), add(lit_f(1.0), t)),
                    mul(mul(lit_f(0.5), x.clone()), dt),
                ))
            }
            ("softsign", 1) => {
                let d = add(lit_f(1.0), call("abs", vec![x.clone()]));
                div(g.clone(), mul(d.clone(), d))
            }
            ("hard_sigmoid", 1) => {
                // alpha inside (0, 1), 0 on the flat parts and at their edges (as relu6).
                let alpha = param_value(&name, named, "alpha");
                let beta = param_value(&name, named, "beta");
                let u = add(mul(alpha.clone(), x.clone()), beta);
                let inside = binary(
                    BinOp::And,
                    binary(BinOp::Gt, u.clone(), lit_f(0.0)),
                    binary(BinOp::Lt, u, lit_f(1.0)),
                );
                call(
                    "where",
                    vec![inside, mul(g.clone(), alpha), cast(lit_f(0.0), out.0)],
                )
            }
            ("hard_swish", 1) => {
                // x·hs(x), hs = hard_sigmoid(alpha = 1/6, beta = 1/2): hs(x) + x/6 on (-3, 3).
                let inside = binary(
                    BinOp::And,
                    binary(BinOp::Gt, x.clone(), lit_f(-3.0)),
                    binary(BinOp::Lt, x.clone(), lit_f(3.0)),
                );
                let hs = call("hard_sigmoid", vec![x.clone()]);
                let hs = with_named(hs, vec![("alpha", lit_f(1.0 / 6.0)), ("beta", lit_f(0.5))]);
                let slope = call(
                    "where",
                    vec![inside, div(x.clone(), lit_f(6.0)), cast(lit_f(0.0), out.0)],
                );
                unary(add(hs, slope))
            }
            ("selu", 1) => {
                let alpha = param_value(&name, named, "alpha");
                let gamma = param_value(&name, named, "gamma");
                call(
                    "where",
                    vec![
                        binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                        mul(g.clone(), gamma.clone()),
                        mul(g.clone(), add(vv, mul(gamma, alpha))),
                    ],
                )
            }
            ("celu", 1) => {
                let alpha = param_value(&name, named, "alpha");
                call(
                    "where",
                    vec![
                        binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                        g.clone(),
                        mul(g.clone(), call("exp", vec![div(x.clone(), alpha)])),
                    ],
                )
            }
            ("swish", 1) => {
                let alpha = param_value(&name, named, "alpha");
                let s = call("sigmoid", vec![mul(alpha.clone(), x.clone())]);
                unary(add(
                    s.clone(),
                    mul(mul(alpha, x.clone()), mul(s.clone(), sub(lit_f(1.0), s))),
                ))
            }
            ("thresholded_relu", 1) => {
                let alpha = param_value(&name, named, "alpha");
                call(
                    "where",
                    vec![
                        binary(BinOp::Gt, x.clone(), alpha),
                        g.clone(),
                        cast(lit_f(0.0), out.0),
                    ],
                )
            }
            ("shrink", 1) => {
                let lambd = param_value(&name, named, "lambd");
                let outside = binary(
                    BinOp::Or,
                    binary(BinOp::Lt, x.clone(), neg(lambd.clone())),
                    binary(BinOp::Gt, x.clone(), lambd),
                );
                call("where", vec![outside, g.clone(), cast(lit_f(0.0), out.0)])
            }
            ("prelu", 2) => {
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
                return Ok(());
            }
            ("cumsum", 1) => {
                let (xt, xd) = self.ty_of(&x)?;
                // The reverse scan: each input feeds every later (or earlier) output.
                let reverse = named_bool(named, "reverse").unwrap_or(false);
                let mut keep: Vec<(&str, Expr)> = Vec::new();
                if let Some(axis) = named_value(named, "axis") {
                    keep.push(("axis", axis));
                }
                if let Some(e) = named_value(named, "exclusive") {
                    keep.push(("exclusive", e));
                }
                keep.push((
                    "reverse",
                    Expr::Lit(LitValue::Bool(!reverse), Span::call_site()),
                ));
                let d = with_named(call("cumsum", vec![g.clone()]), keep);
                return self.send(&x, d, &(out.0, xd)).map(|_| {
                    let _ = xt;
                });
            }
            ("flip", _) => {
                let (_, xd) = self.ty_of(&x)?;
                let mut d = call("flip", vec![g.clone()]);
                if let Expr::Call {
                    args: fargs,
                    named: fnamed,
                    ..
                } = &mut d
                {
                    fargs.extend(args[1..].iter().cloned());
                    fnamed.extend(named.iter().cloned());
                }
                return self.send(&x, d, &(out.0, xd));
            }
            ("mean_of", k) if k >= 2 => {
                for a in args {
                    if self.live_operand(a).is_some() {
                        self.send(a, div(g.clone(), lit_f(k as f64)), out)?;
                    }
                }
                return Ok(());
            }
            ("einsum", n) if n >= 2 => {
                // d operand = einsum of the cotangent with the other operands into the
                // operand's subscripts: a product's derivative is a product. Written when
                // every index of the operand appears in the output or another operand and
                // none repeats within it (no diagonals, no `...`).
                let Some(Expr::Lit(LitValue::Str(spec), _)) = args.first() else {
                    return Err(no_rule(self.function, self.graph, func, "its operands"));
                };
                let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
                let (ins, output) = match spec.split_once("->") {
                    Some((i, o)) => (i.to_string(), o.to_string()),
                    None => {
                        return Err(syn::Error::new(func.span(), format!("`{}`: the derivative of an `einsum` without `->` is not written yet", self.function)));
                    }
                };
                let subs: Vec<&str> = ins.split(',').collect();
                let operands = &args[1..];
                if subs.len() != operands.len() || spec.contains('.') {
                    return Err(syn::Error::new(
                        func.span(),
                        format!(
                            "`{}`: the derivative of this `einsum` is not written yet",
                            self.function
                        ),
                    ));
                }
                for (k, operand) in operands.iter().enumerate() {
                    if self.live_operand(operand).is_none() {
                        continue;
                    }
                    let mine = subs[k];
                    let others: String = subs
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != k)
                        .map(|(_, s)| *s)
                        .collect::<Vec<_>>()
                        .concat();
                    let repeated = mine.chars().any(|c| mine.matches(c).count() > 1);
                    let reachable = mine
                        .chars()
                        .all(|c| output.contains(c) || others.contains(c));
                    if repeated || !reachable {
                        return Err(syn::Error::new(
                            func.span(),
                            format!("`{}`: the derivative of `einsum(\"{spec}\")` with respect to operand {k} is not written yet (a repeated index, or one summed within that operand alone)", self.function),
                        ));
                    }
                    let mut parts = vec![output.clone()];
                    let mut inputs = vec![g.clone()];
                    for (j, s) in subs.iter().enumerate() {
                        if j != k {
                            parts.push(s.to_string());
                            inputs.push(operands[j].clone());
                        }
                    }
                    let spec_k = format!("{}->{mine}", parts.join(","));
                    let mut all = vec![Expr::Lit(LitValue::Str(spec_k), Span::call_site())];
                    all.extend(inputs);
                    let (_, od) = self.ty_of(operand)?;
                    self.send(operand, call("einsum", all), &(out.0, od))?;
                }
                return Ok(());
            }
            ("gather" | "gather_elements", 2) => {
                // Each read position gets the cotangent of every output element that read
                // it: a scatter-add of `g` into zeros (duplicate indices add up).
                let (data, ids) = (&args[0], &args[1]);
                let (_, dd) = self.ty_of(data)?;
                let axis = match named_value(named, "axis") {
                    Some(a) => int_value(&a)
                        .ok_or_else(|| syn::Error::new(func.span(), "derive: a literal axis"))?,
                    None => 0,
                };
                let axis =
                    normalise(axis, dd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
                let zeros = broadcast_to(cast(lit_f(0.0), out.0), &dd)
                    .map_err(|e| syn::Error::new(func.span(), e))?;
                let add = ("reduction", var("add"));
                let d = if name == "gather_elements" {
                    with_named(
                        call("scatter_elements", vec![zeros, ids.clone(), g.clone()]),
                        vec![("axis", int(axis)), add],
                    )
                } else if axis == 0 {
                    let (_, idims) = self.ty_of(ids)?;
                    let tuples = call("expand_dims", vec![ids.clone(), int(idims.len())]);
                    with_named(
                        call("scatter_nd", vec![zeros, tuples, g.clone()]),
                        vec![add],
                    )
                } else {
                    return Err(syn::Error::new(
                        func.span(),
                        format!("`{}`: the derivative of `gather` along an axis other than 0 is not written yet", self.function),
                    ));
                };
                return self.send(data, d, &(out.0, dd));
            }
            ("concat", 1) => {
                // Each part's cotangent is its slice of `g` along the axis.
                let Expr::Call { args: parts, .. } = &args[0] else {
                    return Err(no_rule(self.function, self.graph, func, "its operands"));
                };
                let rank = out.1.len();
                let axis = match named_value(named, "axis") {
                    Some(a) => int_value(&a)
                        .ok_or_else(|| syn::Error::new(func.span(), "derive: a literal axis"))?,
                    None => 0,
                };
                let axis = normalise(axis, rank).map_err(|e| syn::Error::new(func.span(), e))?;
                let mut start = 0usize;
                for part in parts {
                    let (pt, pd) = self.ty_of(part)?;
                    let Some(len) = pd[axis].as_static() else {
                        return Err(syn::Error::new(
                            func.span(),
                            format!("`{}`: the derivative of `concat` along a named axis is not written yet", self.function),
                        ));
                    };
                    if self.live_operand(part).is_some() {
                        let piece = with_named(
                            call("slice", vec![g.clone()]),
                            vec![
                                ("axis", int(axis)),
                                ("start", int(start)),
                                ("end", int(start + len)),
                            ],
                        );
                        let mut from = pd.clone();
                        from[axis] = Dim::Static(len);
                        self.send(part, piece, &(out.0, from))?;
                    }
                    let _ = pt;
                    start += len;
                }
                return Ok(());
            }
            ("pad", 2) => {
                // A constant pad's cotangent is `g` cropped back: a slice per padded axis.
                if let Some(mode) = named_value(named, "mode") {
                    if !matches!(&mode, Expr::Var(m) if m == "constant") {
                        return Err(no_rule(
                            self.function,
                            self.graph,
                            func,
                            "its operand (modes other than `constant`)",
                        ));
                    }
                }
                let (xt, xd) = self.ty_of(&x)?;
                let counts = int_list_value(&args[1])
                    .ok_or_else(|| syn::Error::new(func.span(), "derive: literal pad counts"))?;
                if counts.iter().any(|&c| c < 0) {
                    return Err(syn::Error::new(
                        func.span(),
                        format!(
                            "`{}`: the derivative of a cropping `pad` is not written yet",
                            self.function
                        ),
                    ));
                }
                let mut d = g.clone();
                for (k, pair) in counts.chunks(2).enumerate() {
                    let (before, after) = (pair[0] as usize, pair[1] as usize);
                    if before == 0 && after == 0 {
                        continue;
                    }
                    let mut named_args = vec![("axis", int(k)), ("start", int(before))];
                    if after > 0 {
                        named_args.push(("end", neg(int(after))));
                    }
                    d = with_named(call("slice", vec![d]), named_args);
                }
                return self.send(&x, d, &(out.0, xd)).map(|_| {
                    let _ = xt;
                });
            }
            ("slice", 1) => {
                // A unit-step slice of a literal axis: `g` padded back with zeros.
                let (_, xd) = self.ty_of(&x)?;
                let rank = xd.len();
                let get = |k: &str| named_value(named, k).map(|e| int_value(&e));
                let axis = normalise(get("axis").flatten().unwrap_or(0), rank)
                    .map_err(|e| syn::Error::new(func.span(), e))?;
                let step = get("step").flatten().unwrap_or(1);
                let (Some(len), 1) = (xd[axis].as_static(), step) else {
                    return Err(syn::Error::new(
                        func.span(),
                        format!("`{}`: the derivative of `slice` is written for a step of 1 along a literal axis only", self.function),
                    ));
                };
                let len = len as i128;
                let clamp = |v: i128| if v < 0 { (v + len).max(0) } else { v.min(len) };
                let start = clamp(get("start").flatten().unwrap_or(0));
                let end = clamp(get("end").flatten().unwrap_or(len)).max(start);
                let mut counts = vec![int(0); 2 * rank];
                counts[2 * axis] = int(start as usize);
                counts[2 * axis + 1] = int((len - end) as usize);
                let list = Expr::Call {
                    func: Ident::new("__list", Span::call_site()),
                    args: counts,
                    named: Vec::new(),
                };
                let d = call("pad", vec![g.clone(), list]);
                return self.send(&x, d, &(out.0, xd));
            }
            ("tile", 2) => {
                // Each element's cotangent is the sum over its copies: `g` reshaped to
                // [r0, d0, r1, d1, …] and summed over the repeat axes.
                let (_, xd) = self.ty_of(&x)?;
                let reps = int_list_value(&args[1])
                    .ok_or_else(|| syn::Error::new(func.span(), "derive: literal repeats"))?;
                let mut split = Vec::new();
                let mut axes = Vec::new();
                for (k, d) in xd.iter().enumerate() {
                    let Some(n) = d.as_static() else {
                        return Err(syn::Error::new(
                            func.span(),
                            format!(
                                "`{}`: the derivative of `tile` of a named axis is not written yet",
                                self.function
                            ),
                        ));
                    };
                    axes.push(2 * k);
                    split.push(Dim::Static(reps[k] as usize));
                    split.push(Dim::Static(n));
                }
                let r = reshape(g.clone(), &split).map_err(|e| syn::Error::new(func.span(), e))?;
                let summed = with_named(call("sum", vec![r]), vec![("axis", int_list(&axes))]);
                return self.send(&x, summed, &(out.0, xd));
            }
            ("attention", 3) => return self.attention_rule(func, out, args, named, g),
            ("layer_norm" | "rms_norm", _) => {
                return self.norm_rule(&name, func, out, args, named, g)
            }
            ("softmax_cross_entropy" | "nll_loss", _) => {
                return self.loss_rule(&name, func, out, args, named, g)
            }
            ("leaky_relu", 1) => {
                let alpha = named_value(named, "alpha").unwrap_or_else(|| lit_f(0.01));
                call(
                    "where",
                    vec![
                        binary(BinOp::Lt, x.clone(), lit_f(0.0)),
                        mul(g.clone(), alpha),
                        g.clone(),
                    ],
                )
            }
            ("elu", 1) => {
                let alpha = named_value(named, "alpha").unwrap_or_else(|| lit_f(1.0));
                call(
                    "where",
                    vec![
                        binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                        g.clone(),
                        mul(g.clone(), add(vv, alpha)),
                    ],
                )
            }
            ("clip" | "clamp", 1) => {
                // min(max(x, lo), hi), ties sharing evenly as `max`/`min` do.
                let mut d = g.clone();
                if let Some(lo) = named_value(named, "min") {
                    d = mul(d, tie_share(out.0, BinOp::Gt, x.clone(), lo));
                }
                if let Some(hi) = named_value(named, "max") {
                    d = mul(d, tie_share(out.0, BinOp::Lt, x.clone(), hi));
                }
                if named_live {
                    return Err(no_rule(self.function, self.graph, func, "its bounds"));
                }
                d
            }
            ("max" | "min", 2) => {
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
                return Ok(());
            }
            ("pow", 2) => {
                let (a, b) = (&args[0], &args[1]);
                if arg_live[0] {
                    let d = call(
                        "where",
                        vec![
                            binary(BinOp::Eq, b.clone(), lit_f(0.0)),
                            lit_f(0.0),
                            mul(
                                b.clone(),
                                call("pow", vec![a.clone(), sub(b.clone(), lit_f(1.0))]),
                            ),
                        ],
                    );
                    self.send(a, mul(g.clone(), d), out)?;
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
                return Ok(());
            }
            ("add", 2) | ("sub", 2) | ("mul", 2) | ("div", 2) => {
                let op = match name.as_str() {
                    "add" => BinOp::Add,
                    "sub" => BinOp::Sub,
                    "mul" => BinOp::Mul,
                    _ => BinOp::Div,
                };
                let e = binary(op, args[0].clone(), args[1].clone());
                return self.rule(v, &e, g);
            }
            ("where", 3) => {
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
                return Ok(());
            }
            ("matmul", 2) => return self.matmul_rule(out, &args[0], &args[1], g),
            ("sum" | "mean" | "max" | "min" | "reduce_sum_square" | "reduce_log_sum_exp", 1) => {
                let (xt, xd) = self.ty_of(&x)?;
                let axes =
                    reduced_axes(named, xd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
                let keepdims = named_bool(named, "keepdims").unwrap_or(false);
                let back = |e: Expr| {
                    expand_back(e, &axes, keepdims, &xd)
                        .map_err(|m| syn::Error::new(func.span(), m))
                };
                let gx = back(g.clone())?;
                let d = match name.as_str() {
                    "sum" => gx,
                    "mean" => {
                        let n =
                            count(xt, &xd, &axes).map_err(|m| syn::Error::new(func.span(), m))?;
                        div(gx, n)
                    }
                    "max" | "min" => {
                        // Ties share evenly: the count of maxima along the reduced axes.
                        let vx = back(vv)?;
                        let hit = cast(binary(BinOp::Eq, x.clone(), vx), xt);
                        let hit = self.let_(hit);
                        let ties = call("sum", vec![hit.clone()]);
                        let ties = with_named(
                            ties,
                            vec![
                                ("axis", int_list(&axes)),
                                (
                                    "keepdims",
                                    Expr::Lit(LitValue::Bool(true), Span::call_site()),
                                ),
                            ],
                        );
                        div(mul(gx, hit), ties)
                    }
                    "reduce_sum_square" => mul(gx, mul(lit_f(2.0), x.clone())),
                    _ => {
                        let vx = back(vv)?;
                        mul(gx, call("exp", vec![sub(x.clone(), vx)]))
                    }
                };
                return self.send(&x, d, &(xt, xd));
            }
            ("softmax" | "logsoftmax", 1) => {
                let (xt, xd) = self.ty_of(&x)?;
                let axis = match named_value(named, "axis") {
                    Some(a) => int_value(&a)
                        .ok_or_else(|| syn::Error::new(func.span(), "derive: a literal axis"))?,
                    None => -1,
                };
                let axis =
                    normalise(axis, xd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
                let keep = vec![
                    ("axis", int_list(&[axis])),
                    (
                        "keepdims",
                        Expr::Lit(LitValue::Bool(true), Span::call_site()),
                    ),
                ];
                let d = if name == "softmax" {
                    let s = with_named(call("sum", vec![mul(g.clone(), vv.clone())]), keep);
                    mul(vv, sub(g.clone(), s))
                } else {
                    let s = with_named(call("sum", vec![g.clone()]), keep);
                    sub(g.clone(), mul(call("exp", vec![vv]), s))
                };
                return self.send(&x, d, &(xt, xd));
            }
            ("transpose", _) => {
                let (xt, xd) = self.ty_of(&x)?;
                let perm = match named_value(named, "perm").or_else(|| args.get(1).cloned()) {
                    Some(p) => int_list_value(&p).ok_or_else(|| {
                        syn::Error::new(func.span(), "derive: a literal permutation")
                    })?,
                    None => (0..xd.len() as i128).rev().collect(),
                };
                let mut inverse = vec![0usize; perm.len()];
                for (k, &p) in perm.iter().enumerate() {
                    let p = normalise(p, xd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
                    inverse[p] = k;
                }
                let d = call("transpose", vec![g.clone(), int_list(&inverse)]);
                return self.send(&x, d, &(xt, xd));
            }
            ("reshape" | "expand_dims" | "squeeze", _) => {
                let (xt, xd) = self.ty_of(&x)?;
                let d = reshape(g.clone(), &xd).map_err(|m| syn::Error::new(func.span(), m))?;
                return self.send(&x, d, &(xt, xd));
            }
            ("broadcast_to", _) => g.clone(),
            _ => {
                if !self.any_live(&args.iter().collect::<Vec<_>>()) {
                    return Ok(());
                }
                return Err(no_rule(self.function, self.graph, func, "its operands"));
            }
        };
        if args.len() > 1 && args[1..].iter().any(|a| self.live_operand(a).is_some()) {
            return Err(no_rule(
                self.function,
                self.graph,
                func,
                "its second operand",
            ));
        }
        self.send(&x, contribution, out)
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
        let first = match named_value(named, "axis") {
            Some(a) => int_value(&a).ok_or_else(|| err("derive: a literal axis".into()))?,
            None => -1,
        };
        let first = normalise(first, rank).map_err(err)?;
        let axes: Vec<usize> = (first..rank).collect();
        let keep = || {
            vec![
                ("axis", int_list(&axes)),
                (
                    "keepdims",
                    Expr::Lit(LitValue::Bool(true), Span::call_site()),
                ),
            ]
        };
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
                vec![
                    ("axis", int_list(&[1])),
                    (
                        "keepdims",
                        Expr::Lit(LitValue::Bool(true), Span::call_site()),
                    ),
                ],
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
        let coef = match coef {
            Some(c) => Some(self.let_(c)),
            None => None,
        };
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
        let causal = named_bool(named, "is_causal").unwrap_or(false);
        let mask = named_value(named, "attn_mask");
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
            let rows = reshape(from_end(&sq)?, &[sq.clone(), Dim::Static(1)]).map_err(err)?;
            let cols = reshape(from_end(&skv)?, &[Dim::Static(1), skv.clone()]).map_err(err)?;
            s = self.let_(call(
                "where",
                vec![binary(BinOp::Le, rows, cols), s, minus_inf.clone()],
            ));
        }
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
            vec![
                ("axis", neg(int(1))),
                (
                    "keepdims",
                    Expr::Lit(LitValue::Bool(true), Span::call_site()),
                ),
            ],
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

    fn ty_of(&self, x: &Expr) -> Result<(DType, Vec<Dim>), syn::Error> {
        match x {
            Expr::Var(v) => self.ty(&v.to_string()),
            _ => Err(syn::Error::new(
                Span::call_site(),
                "derive: an operand that is not a name",
            )),
        }
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

/// `g · s` for `max`'s winner `a` against `b`: 1 where `a` wins, 1/2 where they tie.
fn tie_share(dtype: DType, wins: BinOp, a: Expr, b: Expr) -> Expr {
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
fn fit(e: Expr, from: &(DType, Vec<Dim>), to: &(DType, Vec<Dim>)) -> Result<Expr, String> {
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
fn expand_back(g: Expr, axes: &[usize], keepdims: bool, dims: &[Dim]) -> Result<Expr, String> {
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

fn broadcast_to(e: Expr, dims: &[Dim]) -> Result<Expr, String> {
    Ok(call("broadcast_to", vec![e, dims_list(dims)?]))
}

fn reshape(e: Expr, dims: &[Dim]) -> Result<Expr, String> {
    Ok(call("reshape", vec![e, dims_list(dims)?]))
}

/// The DSL list of `dims`: literals and names (a dim expression cannot be a shape op's
/// target yet).
fn dims_list(dims: &[Dim]) -> Result<Expr, String> {
    let items = dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => Ok(int(*n)),
            Dim::Named(n) => Ok(Expr::Var(Ident::new(n, Span::call_site()))),
            Dim::Expr(p) => Err(format!(
                "the derivative needs a value shaped by the dim expression `{p}`, which a shape op's target cannot hold yet"
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Expr::Call {
        func: Ident::new("__list", Span::call_site()),
        args: items,
        named: Vec::new(),
    })
}

/// The element count of `dims` along `axes`, as a float literal (literal dims) or a
/// `sum` of ones (names: the language has no dim-as-value spelling yet).
fn count(dtype: DType, dims: &[Dim], axes: &[usize]) -> Result<Expr, String> {
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

fn reduced_axes(named: &[NamedArg], rank: usize) -> Result<Vec<usize>, String> {
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

fn normalise(a: i128, rank: usize) -> Result<usize, String> {
    let r = rank as i128;
    if (-r..r).contains(&a) {
        Ok(a.rem_euclid(r.max(1)) as usize)
    } else {
        Err(format!("derive: axis {a} out of range for rank {rank}"))
    }
}

/// A named float parameter of an elementwise op: as written, or the registry's default.
fn param_value(func: &str, named: &[NamedArg], key: &str) -> Expr {
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

fn named_value(named: &[NamedArg], key: &str) -> Option<Expr> {
    named
        .iter()
        .find(|n| n.name == key)
        .map(|n| n.value.clone())
}

fn named_bool(named: &[NamedArg], key: &str) -> Option<bool> {
    match named_value(named, key)? {
        Expr::Lit(LitValue::Bool(b), _) => Some(b),
        _ => None,
    }
}

fn int_value(e: &Expr) -> Option<i128> {
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

fn int_list_value(e: &Expr) -> Option<Vec<i128>> {
    match e {
        Expr::Call { func, args, .. } if func == "__list" => args.iter().map(int_value).collect(),
        _ => None,
    }
}

// Expression builders.

fn var(name: &str) -> Expr {
    Expr::Var(Ident::new(name, Span::call_site()))
}

fn int(v: usize) -> Expr {
    Expr::Lit(LitValue::Int(v as u128), Span::call_site())
}

fn int_list(values: &[usize]) -> Expr {
    Expr::Call {
        func: Ident::new("__list", Span::call_site()),
        args: values.iter().map(|&v| int(v)).collect(),
        named: Vec::new(),
    }
}

/// A float literal, written with full precision (`{:?}` prints the shortest text that
/// reads back to the same `f64`).
fn lit_f(v: f64) -> Expr {
    let text = format!("{v:?}");
    if v < 0.0 {
        return neg(lit_f(-v));
    }
    Expr::Lit(LitValue::Float(v, text), Span::call_site())
}

fn cast(e: Expr, to: DType) -> Expr {
    Expr::Cast {
        expr: Box::new(e),
        as_span: Span::call_site(),
        to,
    }
}

fn neg(e: Expr) -> Expr {
    Expr::Unary {
        op: UnOp::Neg,
        op_span: Span::call_site(),
        expr: Box::new(e),
    }
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary {
        op,
        op_span: Span::call_site(),
        lhs: Box::new(a),
        rhs: Box::new(b),
    }
}

fn add(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Add, a, b)
}

fn sub(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Sub, a, b)
}

fn mul(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Mul, a, b)
}

fn div(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Div, a, b)
}

fn call(func: &str, args: Vec<Expr>) -> Expr {
    Expr::Call {
        func: Ident::new(func, Span::call_site()),
        args,
        named: Vec::new(),
    }
}

fn with_named(e: Expr, extra: Vec<(&str, Expr)>) -> Expr {
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
fn vars(e: &Expr) -> Vec<String> {
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

/// The body `derive` wrote, in the language's notation (one `let` per line): what the
/// backward computes, for reading and for tests.
#[cfg(test)]
pub fn body_text(f: &GraphFn) -> String {
    use crate::ast::expr_text;
    let mut out = String::new();
    for l in &f.lets {
        let name = match &l.tuple {
            Some(names) => format!(
                "({})",
                names
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => l.name.to_string(),
        };
        out.push_str(&format!("let {name} = {};\n", expr_text(&l.value)));
    }
    match &f.outputs {
        Outputs::Single(e) => out.push_str(&expr_text(e)),
        Outputs::Tuple(list, _) => out.push_str(&format!(
            "({})",
            list.iter().map(expr_text).collect::<Vec<_>>().join(", ")
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{GraphBody, GraphInput};

    fn derived(src: &str) -> GraphFn {
        let mut input: GraphInput = syn::parse_str(&format!("crate; {src}")).expect("parses");
        let GraphBody::Items(items) = &input.body else {
            panic!("items")
        };
        let d = input.derived.remove(0);
        let forward = items.iter().find(|f| f.name == d.graph).expect("the graph");
        derive(forward, d).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The MLP's backward: three products (no product for `x`, which is not in `wrt`), each
    /// reading a transposed operand as a view, and `gelu`'s derivative from the saved
    /// pre-activation.
    #[test]
    fn mlp_backward_is_three_products() {
        let f = derived(
            "fn mlp(x: f32[B, 8], y: i64[B], w1: f32[8, 16], b1: f32[16], w2: f32[16, 4], b2: f32[4]) -> f32[] {
                softmax_cross_entropy(gelu(x @ w1 + b1) @ w2 + b2, y)
            }
            grad fn g = value_and_grad(mlp, wrt = [w1, b1, w2, b2]);",
        );
        let text = body_text(&f);
        eprintln!("{text}");
        assert_eq!(text.matches("matmul(").count(), 2 + 3, "{text}");
        assert_eq!(text.matches("transpose(").count(), 3, "{text}");
    }
}

#[cfg(test)]
mod expansion {
    /// The MLP's derived function makes five GEMM calls (two forward, three backward): the
    /// A-normal form's names are shared, so no product is computed twice.
    #[test]
    fn mlp_gradient_computes_each_product_once() {
        let src = "crate; fn mlp(x: f32[32, 768], y: i64[32], w1: f32[768, 3072], b1: f32[3072], w2: f32[3072, 768], b2: f32[768]) -> f32[] {
                softmax_cross_entropy(gelu(x @ w1 + b1) @ w2 + b2, y)
            }
            grad fn g = value_and_grad(mlp, wrt = [w1, b1, w2, b2]);";
        let out = crate::expand(src.parse().unwrap()).to_string();
        // The derived function's kernel: the last `__tg_kernel` of the expansion (after
        // `fn g_into`).
        let g = out.find("fn g_into").expect("the derived function");
        let start = g + out[g..].find("fn __tg_kernel").expect("its kernel");
        let body = &out[start..];
        let end = body.len();
        assert_eq!(body[..end].matches("plain_matmul").count(), 5);
    }
}
