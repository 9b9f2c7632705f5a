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
    BinOp, DerivedFn, DerivedKind, Expr, GraphFn, Let, NamedArg, Outputs, Param, ParamType,
    ReturnType, UnOp,
};
use crate::check::{check_graph_expanded, type_text, Errors, Expansions, ScopeTypes};
use crate::dtype::DType;
use crate::shape::Dim;

mod build;
mod composites;
mod elementwise;
mod pooling;
mod structure;

use build::*;
use elementwise::{elementwise, Elementwise};

/// The graph function `d` asks for, written from `forward`: or the compile errors that
/// stop it (a `wrt` name that is not a float tensor parameter, a non-scalar output for
/// `value_and_grad`, an operation without a derivative rule on a path to a `wrt`
/// parameter). The steps of the module's doc, each a function.
pub fn derive(forward: &GraphFn, d: DerivedFn) -> Result<GraphFn, syn::Error> {
    let function = match d.kind {
        DerivedKind::ValueAndGrad => "value_and_grad",
        DerivedKind::Vjp => "vjp",
    };
    let wrt = wrt_params(forward, &d, function)?;
    let declared = declared_outputs(forward, &d)?;

    // 1. A-normal form.
    let (mut anf, outputs) = a_normal_form(forward);

    // 2. Types of every name (composite ops on a path from `wrt` expanded first).
    let (types, outputs) = anf_types(forward, &d, &mut anf, &outputs, &wrt)?;
    let live = live_names(&anf, &types, &wrt, function, &forward.name)?;

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
    let seeds = seeds(&d, &outputs, &declared, &types, &mut params)?;
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
    let grads = gradients(forward, &wrt, &back.ct)?;
    let mut lets = back.anf.lets.clone();
    lets.append(&mut back.anf.backward);
    let (outputs_expr, ret) = derived_outputs(forward, &d, &declared, &outputs, grads);
    let attrs = derived_docs(forward, &d.kind, &d.wrt, d.attrs);
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

/// The `wrt` names of `d`, each a float tensor parameter of `forward`, named once.
fn wrt_params(forward: &GraphFn, d: &DerivedFn, function: &str) -> Result<Vec<String>, syn::Error> {
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
        if wrt.iter().any(|w: &String| name == w) {
            return Err(syn::Error::new(
                name.span(),
                format!("`{name}` is named twice in `wrt`"),
            ));
        }
        wrt.push(name.to_string());
    }
    Ok(wrt)
}

/// `forward`'s declared output types; `value_and_grad` needs one rank-0 float output.
fn declared_outputs(forward: &GraphFn, d: &DerivedFn) -> Result<Vec<ParamType>, syn::Error> {
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

    Ok(declared)
}

/// Step 1: `forward`'s body with a `let` per operation, and the names of its outputs.
fn a_normal_form(forward: &GraphFn) -> (Anf, Vec<String>) {
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

    (anf, outputs)
}

/// Step 2: the dtype and dims of every name of the A-normal body (`check_graph_expanded`),
/// after the composite ops on a path from `wrt` are replaced by their expansions (step
/// 2b), and the outputs' names then; an error when `forward` itself does not compile.
fn anf_types(
    forward: &GraphFn,
    d: &DerivedFn,
    anf: &mut Anf,
    outputs: &[String],
    wrt: &[String],
) -> Result<(ScopeTypes, Vec<String>), syn::Error> {
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
        outputs: output_exprs(outputs),
        syntax_errors: Vec::new(),
    };
    let not_compiling = || {
        syn::Error::new(
            d.name.span(),
            format!(
                "`{}` cannot be derived until `{}` compiles: fix its errors first",
                d.name, forward.name
            ),
        )
    };
    let mut errors = Errors::default();
    let Some((_, mut types, expansions)) = check_graph_expanded(&typed_fn, &mut errors) else {
        return Err(not_compiling());
    };
    // 2b. Composite ops (convolution, pooling, the vision normalisations) on a path from a
    // `wrt` parameter are replaced by the expressions they are built as, so that their
    // derivatives come from the rules of the ops they are made of; the forward value is
    // unchanged (the checker compiles the op as that very expression).
    // (Pools with a dedicated rule, `pooling.rs`, stay calls.)
    let dedicated: HashSet<String> = anf
        .lets
        .iter()
        .filter(|l| match &l.value {
            Expr::Call { func, args, named } => {
                match (args.as_slice(), types.get(&l.name.to_string())) {
                    ([Expr::Var(x)], Some((_, od))) => {
                        types.get(&x.to_string()).is_some_and(|(_, xd)| {
                            pooling::geometry(&func.to_string(), named, xd, od).is_some()
                        })
                    }
                    _ => false,
                }
            }
            _ => false,
        })
        .map(|l| l.name.to_string())
        .collect();
    if anf.expand_composites(&expansions, wrt, &dedicated) {
        let outputs_now: Vec<String> = outputs.iter().map(|o| anf.renamed(o)).collect();
        let expanded_fn = GraphFn {
            lets: anf.lets.clone(),
            outputs: output_exprs(&outputs_now),
            ..typed_fn
        };
        let Some((_, t, _)) = check_graph_expanded(&expanded_fn, &mut errors) else {
            return Err(not_compiling());
        };
        types = t;
    }
    let outputs: Vec<String> = outputs.iter().map(|o| anf.renamed(o)).collect();
    Ok((types, outputs))
}

/// Which names carry cotangents: float values that depend on a `wrt` parameter (not cut
/// by `stop_gradient`, not parts of a tuple-valued op). A quantization or a tuple-valued
/// op on such a path is an error.
fn live_names(
    anf: &Anf,
    types: &ScopeTypes,
    wrt: &[String],
    function: &str,
    graph: &Ident,
) -> Result<HashSet<String>, syn::Error> {
    let mut live: HashSet<String> = wrt.iter().cloned().collect();
    for binding in &anf.lets {
        let depends = vars(&binding.value).iter().any(|v| live.contains(v));
        let float = types
            .get(&binding.name.to_string())
            .is_some_and(|(dt, _)| dt.is_float());
        // `top_k`'s values (its first part, the binding's name) have a rule; its
        // indices, like every integer value, carry none.
        let ranked = matches!(&binding.value, Expr::Call { func, .. } if func == "top_k");
        if depends
            && float
            && (binding.tuple.is_none() || ranked)
            && !anf.cut.contains(&binding.name.to_string())
        {
            live.insert(binding.name.to_string());
        }
        if depends {
            // Quantization's derivative is not defined (JAX's would be 0 almost everywhere,
            // which hides a mistake): cut it with `stop_gradient` to mean that.
            if let Expr::Call { func, .. } = &binding.value {
                if func == "quantize_linear" {
                    return Err(no_rule(function, graph, func, "its operands"));
                }
            }
            if binding.tuple.is_some() && !ranked {
                if let Expr::Call { func, .. } = &binding.value {
                    return Err(no_rule(function, graph, func, "its parts"));
                }
            }
        }
    }

    Ok(live)
}

/// The cotangents the backward pass starts from: `value_and_grad`'s 1 for its output, or
/// `vjp`'s cotangent parameters (appended to `params`), one per output.
fn seeds(
    d: &DerivedFn,
    outputs: &[String],
    declared: &[ParamType],
    types: &ScopeTypes,
    params: &mut Vec<Param>,
) -> Result<Vec<(String, Expr)>, syn::Error> {
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
            for (k, (out, decl)) in outputs.iter().zip(declared).enumerate() {
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
    Ok(seeds)
}

/// Each `wrt` parameter's gradient: its cotangent, or zeros of its type when it is not on
/// any path to an output.
fn gradients(
    forward: &GraphFn,
    wrt: &[String],
    ct: &HashMap<String, String>,
) -> Result<Vec<Expr>, syn::Error> {
    let mut grads = Vec::new();
    for name in wrt {
        let param = forward
            .params
            .iter()
            .find(|p| p.name == name)
            .expect("checked above");
        let dims = param.ty.dims.clone().expect("checked above");
        let grad = match ct.get(name) {
            Some(g) => var(g),
            // Not on any path to the output: a zero gradient of the parameter's type.
            None => broadcast_to(cast(lit_f(0.0), param.ty.dtype), &dims)
                .map_err(|e| syn::Error::new(param.name.span(), e))?,
        };
        grads.push(grad);
    }
    Ok(grads)
}

/// The derived function's outputs and return type: `(value, gradients…)` for
/// `value_and_grad`, the gradients for `vjp`.
fn derived_outputs(
    forward: &GraphFn,
    d: &DerivedFn,
    declared: &[ParamType],
    outputs: &[String],
    mut grads: Vec<Expr>,
) -> (Outputs, ReturnType) {
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
    (outputs_expr, ret)
}

/// The derived function's attributes: the item's own (`attrs`), then the rustdoc line
/// saying what the function is.
fn derived_docs(
    forward: &GraphFn,
    kind: &DerivedKind,
    wrt: &[Ident],
    mut attrs: Vec<syn::Attribute>,
) -> Vec<syn::Attribute> {
    let wrt_text: Vec<String> = wrt.iter().map(|w| format!("`{w}`")).collect();
    let summary = match kind {
        DerivedKind::ValueAndGrad => format!(
            " The value of [`{}`] and its gradient with respect to {}, derived at compile time (reverse mode): `(value, {})`.",
            forward.name,
            wrt_text.join(", "),
            wrt.iter().map(|w| format!("d{w}")).collect::<Vec<_>>().join(", ")
        ),
        DerivedKind::Vjp => format!(
            " The vector-Jacobian product of [`{}`] with respect to {}, derived at compile time: takes `{}`'s parameters, then a cotangent per output (its type), and returns the gradients in that order.",
            forward.name,
            wrt_text.join(", "),
            forward.name
        ),
    };
    if !attrs.is_empty() {
        attrs.push(syn::parse_quote!(#[doc = ""]));
    }
    attrs.push(syn::parse_quote!(#[doc = #summary]));
    attrs
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
    params.iter().map(Param::read_only).collect()
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
    /// Names of composite ops' `let`s replaced by their expansion → the expansion's result.
    renames: HashMap<String, String>,
}

impl Anf {
    /// Replaces each `let` whose value is a composite op with an expansion in
    /// `expansions` and that depends on a `wrt` parameter by the `let`s of that
    /// expression; returns whether any was. Later reads of a replaced name go to the
    /// expression's result (`renamed`).
    fn expand_composites(
        &mut self,
        expansions: &Expansions,
        wrt: &[String],
        dedicated: &HashSet<String>,
    ) -> bool {
        let mut depends: HashSet<String> = wrt.iter().cloned().collect();
        let mut any = false;
        for binding in &self.lets {
            if vars(&binding.value).iter().any(|v| depends.contains(v)) {
                depends.insert(binding.name.to_string());
                if let Some(names) = &binding.tuple {
                    depends.extend(names.iter().map(|n| n.to_string()));
                }
                let name = binding.name.to_string();
                any |= expansions.contains_key(&name) && !dedicated.contains(&name);
            }
        }
        if !any {
            return false;
        }
        let old = std::mem::take(&mut self.lets);
        let mut env: HashMap<String, String> = HashMap::new();
        for binding in old {
            let name = binding.name.to_string();
            let expansion = expansions
                .get(&name)
                .filter(|_| depends.contains(&name) && !dedicated.contains(&name));
            match (expansion, &binding.value) {
                (Some(e), Expr::Call { args, .. }) => {
                    let mut local = env.clone();
                    for (k, a) in args.iter().enumerate() {
                        if let Expr::Var(v) = a {
                            let v = v.to_string();
                            let now = env.get(&v).cloned().unwrap_or(v);
                            local.insert(format!("__tg_vision{k}"), now);
                        }
                    }
                    let result = self.bind(e, &local);
                    env.insert(name, result);
                }
                _ => {
                    let value = self.rename(&binding.value, &env);
                    self.lets.push(Let { value, ..binding });
                }
            }
        }
        self.renames.extend(env);
        true
    }

    /// The name `name` of the first A-normal form is read as after `expand_composites`.
    fn renamed(&self, name: &str) -> String {
        self.renames
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    fn fresh_ident(&mut self, kind: &str) -> Ident {
        self.counter += 1;
        Ident::new(&format!("__tg_{kind}{}", self.counter), Span::call_site())
    }

    /// `e` with its names renamed through `env`, its operands bound to `let`s of their own;
    /// returns the name the whole of `e` is bound to.
    fn bind(&mut self, e: &Expr, env: &HashMap<String, String>) -> String {
        // An expansion's staged value (check/vision.rs, `resize`): `__tg_let(name,
        // value, rest)` binds `value` and reads `name` as it in `rest`.
        if let Expr::Call { func, args, .. } = e {
            if let (true, [Expr::Var(name), value, rest]) = (func == "__tg_let", args.as_slice()) {
                let bound = self.bind(value, env);
                let mut inner = env.clone();
                inner.insert(name.to_string(), bound);
                return self.bind(rest, &inner);
            }
        }
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
            Expr::Call { func, args, named } => Expr::Call {
                func: func.clone(),
                args: args
                    .iter()
                    .map(|a| match a {
                        // The parts of `concat`'s list are tensors: each gets a name.
                        Expr::Call {
                            func: list,
                            args: parts,
                            named: n,
                        } if list == "__list" && func == "concat" => Expr::Call {
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
    /// The rule of a call `v = func(args…, named…)`: an elementwise function
    /// (`elementwise.rs`), an op that moves elements (`structure.rs`), or the others
    /// (`composites.rs`).
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
        let named_live = named
            .iter()
            .any(|n| vars(&n.value).iter().any(|v| self.live.contains(v)));
        if named_live {
            let what = if matches!(name.as_str(), "clip" | "clamp") {
                "its bounds"
            } else {
                "its named arguments (a derivative with respect to them is not defined)"
            };
            return Err(no_rule(self.function, self.graph, func, what));
        }
        if let [x] = args {
            match elementwise(&name, x.clone(), var(v), &g, named, out.0) {
                Some(Elementwise::Zero) => return Ok(()),
                Some(Elementwise::Contribution(d)) => return self.send(x, d, out),
                None => {}
            }
        }
        if STRUCTURE_OPS.contains(&name.as_str()) {
            return self.structure_rule(v, out, func, args, named, g);
        }
        self.composite_rule(v, out, func, args, named, g)
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
}

/// The ops whose rules are in `structure.rs`.
const STRUCTURE_OPS: &[&str] = &[
    "cumsum",
    "sort",
    "top_k",
    "flip",
    "einsum",
    "gather",
    "gather_elements",
    "gather_nd",
    "scatter_elements",
    "scatter_nd",
    "concat",
    "pad",
    "slice",
    "tile",
    "transpose",
    "dimshuffle",
    "reshape",
    "expand_dims",
    "squeeze",
    "broadcast_to",
];

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
    /// `max_pool`'s own rule (derive/pooling.rs) keeps a 3×3/2 pool's derived function
    /// small: 163,710 bytes of expansion against 415,658 through the pool's expansion
    /// (NOTES.md, issue 32). The bound leaves room for unrelated emission changes.
    #[test]
    fn pool_backward_expansion_is_bounded() {
        let forward = "crate; fn f(x: f32[2, 8, 16, 16], c: f32[2, 8, 8, 8]) -> f32[] {
                sum(max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]) * c)
            }";
        let both = format!("{forward} grad fn g = value_and_grad(f, wrt = [x]);");
        let a = crate::expand(forward.parse().unwrap()).to_string().len();
        let out = crate::expand(both.parse().unwrap()).to_string();
        assert!(
            !out.contains("compile_error"),
            "the derived function compiles"
        );
        let derived = out.len() - a;
        eprintln!("max_pool 3×3/2: forward {a} bytes, derived function {derived} bytes");
        assert!(derived < 250_000, "{derived} bytes");
    }

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
        // Each call is emitted twice: in the debug backend's program and in the fused
        // kernel (emit/kernel.rs; the same call in both, NOTES.md "Debug backend, third
        // slice"), of which a build compiles one.
        assert_eq!(body[..end].matches("plain_matmul").count(), 2 * 5);
    }

    /// Softmax's backward is a pipelined row stage (exp, `Σ g·y`, the output with the next
    /// row's max): its exp pass prefetches the cotangent's row, its `Σ g·y` pass the next
    /// row of `x` (emit/stages.rs `pipelined_prefetches`; NOTES.md "Softmax backward
    /// prefetch"), one line per chunk each: two passes with a prefetched slice each.
    #[test]
    fn softmax_backward_prefetches_the_rows_its_passes_read_first() {
        let src = "crate; fn sm(x: f32[64, 768]) -> f32[64, 768] { softmax(x, axis = -1) }
            vjp fn sm_vjp = vjp(sm, wrt = [x]);";
        let out = crate::expand(src.parse().unwrap()).to_string();
        let g = out.find("fn sm_vjp_into").expect("the derived function");
        let start = g + out[g..].find("fn __tg_kernel").expect("its kernel");
        let body = &out[start..];
        assert_eq!(body.matches("let __tg_pf0 :").count(), 2, "{body}");
        assert!(!body.contains("__tg_pf1"), "{body}");
        // The cotangent's row (`__tg_in1`) at this row, `x`'s (`__tg_in0`) at the next.
        let decls: Vec<&str> = body
            .split("let __tg_pf0 :")
            .skip(1)
            .map(|d| &d[..d.find('}').expect("the slice's block")])
            .collect();
        assert!(
            decls[0].contains("__tg_row , 768") && decls[0].contains("& __tg_in1 ["),
            "{}",
            decls[0]
        );
        assert!(
            decls[1].contains("__tg_pf_row , 768") && decls[1].contains("& __tg_in0 ["),
            "{}",
            decls[1]
        );
    }
}
