//! The ops of the table that are compositions of others, typed as the composition is:
//! `clip`/`clamp`, `prelu`, the variadic `max`/`min`/`add`/`sum_of`/`mean_of`, the
//! normalisations `layer_norm`, `rms_norm`, `l2_normalize`, and `quantize_linear` /
//! `dequantize_linear`. Each is written here in terms of the elementwise ops and
//! reductions, so it fuses like the hand-written graph and needs no lane function of its
//! own. Rules (ONNX semantics, docs/language.md wins where they differ):
//! - `clip(x, min = a, max = b)` is `min(max(x, a), b)`: NumPy's order (`max` wins when
//!   `a > b`), NaN stays NaN; bounds promote and broadcast like binary operands.
//! - `prelu(x, slope)` is `where(x < 0, x * slope, x)`.
//! - `max(a, b, c, …)`, `min`, `add` (`sum_of`) fold left to right with the binary op's
//!   promotion and broadcasting; `mean_of(a, b, …)` is their sum divided by the count (float
//!   operands).
//! - `layer_norm(x, gamma, beta, axis = -1, eps = 1e-5)` normalises over the axes from
//!   `axis` to the last (ONNX `LayerNormalization`): `(x - μ) / sqrt(σ² + eps) · γ + β`
//!   with `σ² = mean((x - μ)²)`, in the compute dtype (`f32` for `f16`/`bf16`, as ONNX's
//!   default `stash_type`; the sums accumulate in `f64`, as `mean` does), rounded once
//!   into `x`'s dtype; `gamma`, `beta` broadcast to `x`'s shape.
//! - `rms_norm(x, gamma, axis = -1, eps = 1e-6)`: `x / sqrt(mean(x²) + eps) · γ` over the
//!   same axes (ONNX `RMSNormalization`).
//! - `l2_normalize(x, axis = -1)`: `x / sqrt(sum(x²))` along one axis (ONNX
//!   `LpNormalization`, `p = 2`); a zero vector gives NaN (0/0), as ONNX's reference.
//! - `quantize_linear(x, scale, zero_point)` → `zero_point`'s dtype (`u8 i8 u16 i16`):
//!   `saturate(roundeven(x / scale) + zero_point)`, computed in the wider of `x`'s and
//!   `scale`'s compute dtypes; NaN gives 0 (Rust's saturating `as`). Per-axis scales and
//!   zero points are tensors that broadcast.
//! - `dequantize_linear(q, scale, zero_point)` → `scale`'s dtype: `(q - zero_point) ·
//!   scale`, the difference exact in `i64`, converted once, multiplied in the compute dtype.

use proc_macro2::Span;

use super::tensor_ops::{expr_span, ReduceArgs};
use super::{Checker, Typed, Weak};
use crate::ast::{Expr, NamedArg};
use crate::dtype::DType;
use crate::ir::{NodeId, ReduceKind};
use crate::ops::{self, TensorOp};
use crate::shape::Dim;

impl Checker<'_> {
    /// A composite op's check: `x` is its first argument, already checked.
    pub(super) fn check_composite(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        x: NodeId,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        for n in named {
            if self.param_spec(op, n).is_none() {
                return Typed::Poison;
            }
        }
        match name {
            "clip" | "clamp" => self.check_clip(name, span, x, args, named),
            "prelu" => self.check_prelu(span, x, args),
            "sum_of" | "mean_of" => {
                let rest: Vec<Typed> = args[1..].iter().map(|a| self.check_expr(a)).collect();
                self.fold_variadic(name, span, Typed::Strong(x), rest, args)
            }
            "layer_norm" | "rms_norm" | "l2_normalize" => self.check_norm(op, span, x, args, named),
            "quantize_linear" | "dequantize_linear" => self.check_quantization(name, span, x, args),
            _ => unreachable!("every composite row is handled"),
        }
    }

    /// `max`/`min`/`add` over more than two operands, and `sum_of`/`mean_of`: a left fold.
    pub(super) fn fold_variadic(
        &mut self,
        name: &str,
        span: Span,
        first: Typed,
        rest: Vec<Typed>,
        args: &[Expr],
    ) -> Typed {
        if rest.is_empty() {
            self.errors
                .push(span, format!("`{name}` takes two or more tensors"));
            return Typed::Poison;
        }
        let binary = match name {
            "sum_of" | "mean_of" => "add",
            other => other,
        };
        let op = ops::function(binary).expect("a binary row");
        let mut acc = first;
        for (k, t) in rest.into_iter().enumerate() {
            acc = self.check_binary(op, None, span, acc, t, [&args[0], &args[k + 1]]);
        }
        if name != "mean_of" {
            return acc;
        }
        let Typed::Strong(sum) = acc else {
            return acc;
        };
        let dtype = self.node(sum).dtype;
        if !dtype.is_float() {
            self.errors.push(
                span,
                format!("`mean_of` takes float tensors, found `{}`\nhelp: cast the operands, e.g. `a as f32`", dtype.name()),
            );
            return Typed::Poison;
        }
        let count = self.float_const(args.len() as f64, dtype);
        Typed::Strong(self.op_node("div", &[sum, count]))
    }

    fn check_clip(
        &mut self,
        name: &str,
        span: Span,
        x: NodeId,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        if args.len() != 1 {
            self.errors.push(
                expr_span(&args[1]),
                format!("`{name}` takes one tensor; its bounds are named: `{name}(x, min = 0.0, max = 6.0)`"),
            );
            return Typed::Poison;
        }
        if named.is_empty() {
            self.errors.push(
                span,
                format!("`{name}` needs a bound: `{name}(x, min = …)`, `max = …` or both"),
            );
            return Typed::Poison;
        }
        let mut result = Typed::Strong(x);
        for (bound, combine) in [("min", "max"), ("max", "min")] {
            if let Some(n) = named.iter().find(|n| n.name == bound) {
                let value = self.check_expr(&n.value);
                let combine = ops::function(combine).expect("a row");
                result = self.check_binary(
                    combine,
                    None,
                    n.name.span(),
                    result,
                    value,
                    [&args[0], &n.value],
                );
            }
        }
        result
    }

    fn check_prelu(&mut self, span: Span, x: NodeId, args: &[Expr]) -> Typed {
        if args.len() != 2 {
            self.errors.push(
                span,
                "`prelu` takes a tensor and a slope: `prelu(x, slope)`",
            );
            return Typed::Poison;
        }
        let slope = self.check_expr(&args[1]);
        let zero = Typed::Weak(Weak::Int(0), span);
        let less = ops::function("less").expect("a row");
        let mul = ops::function("mul").expect("a row");
        let cond = self.check_binary(
            less,
            None,
            span,
            Typed::Strong(x),
            zero,
            [&args[0], &args[0]],
        );
        let scaled = self.check_binary(
            mul,
            None,
            span,
            Typed::Strong(x),
            slope,
            [&args[0], &args[1]],
        );
        let exprs = [args[0].clone(), args[1].clone(), args[0].clone()];
        self.check_where(span, vec![cond, scaled, Typed::Strong(x)], &exprs, &[])
    }

    /// A float tensor argument (`gamma`, `scale`) converted to `to`, broadcasting into
    /// `into`'s dims; `None` once reported.
    fn float_operand(
        &mut self,
        op: &str,
        what: &str,
        e: &Expr,
        to: DType,
        into: NodeId,
    ) -> Option<NodeId> {
        let node = match self.check_expr(e) {
            Typed::Poison => return None,
            Typed::Weak(w, ws) => return self.materialize(&w, ws, to, None),
            Typed::Strong(n) => n,
        };
        let d = self.node(node).dtype;
        if !d.is_float() {
            self.errors.push(
                expr_span(e),
                format!("`{what}` of `{op}` is a float tensor, found `{}`", d.name()),
            );
            return None;
        }
        let dims =
            self.broadcast_or_report(expr_span(e), &format!("`{op}`'s `{what}`"), into, node)?;
        if dims != self.node(into).dims {
            self.errors.push(
                expr_span(e),
                format!(
                    "`{what}` of `{op}` must broadcast to the input's shape {}, but it has {}",
                    crate::shape::dims_text(&self.node(into).dims),
                    crate::shape::dims_text(&self.node(node).dims)
                ),
            );
            return None;
        }
        Some(self.convert(node, to))
    }

    fn check_norm(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        x: NodeId,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        let xd = self.node(x).dtype;
        if !xd.is_float() {
            self.errors.push(span, format!("`{name}` is not defined for `{}`: it takes float dtypes\nhelp: cast first: `{name}(x as f32, …)`", xd.name()));
            return Typed::Poison;
        }
        let tensors = match name {
            "layer_norm" => 3,
            "rms_norm" => 2,
            _ => 1,
        };
        if args.len() != tensors {
            let usage = match name {
                "layer_norm" => "`layer_norm(x, gamma, beta, axis = -1, eps = 1e-5)`",
                "rms_norm" => "`rms_norm(x, gamma, axis = -1, eps = 1e-6)`",
                _ => "`l2_normalize(x, axis = -1)`",
            };
            self.errors.push(
                span,
                format!(
                    "`{name}` takes {tensors} tensor{}: {usage}",
                    if tensors == 1 { "" } else { "s" }
                ),
            );
            return Typed::Poison;
        }
        let rank = self.node(x).dims.len();
        if rank == 0 {
            self.errors
                .push(span, format!("`{name}` needs a tensor of rank 1 or more"));
            return Typed::Poison;
        }
        // `axis`: one integer literal; the normalised axes run from it to the last
        // (`l2_normalize`: that axis only).
        let Some(ra) = self.read_reduce_args(op, named) else {
            return Typed::Poison;
        };
        if ra.axis_is_list {
            self.errors.push(
                ra.axis_span.unwrap_or(span),
                format!("`{name}` takes one axis"),
            );
            return Typed::Poison;
        }
        let given = ReduceArgs {
            axes: Some(ra.axes.clone().unwrap_or_else(|| vec![(-1, span)])),
            ..ReduceArgs::default()
        };
        let Some(first) = self.reduction_axes(name, x, &given) else {
            return Typed::Poison;
        };
        let axes: Vec<usize> = if name == "l2_normalize" {
            first
        } else {
            (first[0]..rank).collect()
        };
        let c = xd.compute();
        let xc = self.convert(x, c);
        let reduced: Vec<Dim> = axes.iter().map(|&a| self.node(x).dims[a].clone()).collect();
        // eps: a literal or scalar of the compute dtype, or the default.
        let eps = if name == "l2_normalize" {
            None
        } else {
            let value = self.norm_eps(name, span, named, c);
            match value {
                Some(v) => Some(v),
                None => return Typed::Poison,
            }
        };
        // Sums accumulate in f64, as `mean`/`sum` of a float do by default, so the op is
        // the hand-written graph bit for bit.
        let sum = |this: &mut Self, v: NodeId| -> NodeId {
            let wide = this.convert(v, DType::F64);
            this.reduce_node(wide, ReduceKind::Sum, &axes, DType::F64)
        };
        let mean = |this: &mut Self, v: NodeId| -> NodeId {
            let s = sum(this, v);
            let count = this.count_node(reduced.clone(), DType::F64);
            let m = this.op_node("div", &[s, count]);
            this.convert(m, c)
        };
        let y = match name {
            "layer_norm" => {
                let mu = mean(self, xc);
                let d = self.op_node("sub", &[xc, mu]);
                let dd = self.op_node("mul", &[d, d]);
                let var = mean(self, dd);
                let ve = self.op_node("add", &[var, eps.expect("layer_norm has eps")]);
                let r = self.op_node("sqrt", &[ve]);
                let n = self.op_node("div", &[d, r]);
                let Some(g) = self.float_operand(name, "gamma", &args[1], c, n) else {
                    return Typed::Poison;
                };
                let Some(b) = self.float_operand(name, "beta", &args[2], c, n) else {
                    return Typed::Poison;
                };
                let scaled = self.op_node("mul", &[n, g]);
                self.op_node("add", &[scaled, b])
            }
            "rms_norm" => {
                let sq = self.op_node("mul", &[xc, xc]);
                let ms = mean(self, sq);
                let me = self.op_node("add", &[ms, eps.expect("rms_norm has eps")]);
                let r = self.op_node("sqrt", &[me]);
                let n = self.op_node("div", &[xc, r]);
                let Some(g) = self.float_operand(name, "gamma", &args[1], c, n) else {
                    return Typed::Poison;
                };
                self.op_node("mul", &[n, g])
            }
            _ => {
                let sq = self.op_node("mul", &[xc, xc]);
                let wide = sum(self, sq);
                let s = self.convert(wide, c);
                let r = self.op_node("sqrt", &[s]);
                self.op_node("div", &[xc, r])
            }
        };
        Typed::Strong(self.convert(y, xd))
    }

    /// `eps` of `layer_norm`/`rms_norm` in the compute dtype `c`: a float literal or
    /// scalar, or the default (`1e-5`, `1e-6`); `None` after an error.
    fn norm_eps(&mut self, name: &str, span: Span, named: &[NamedArg], c: DType) -> Option<NodeId> {
        let default = if name == "layer_norm" { "1e-5" } else { "1e-6" };
        match named.iter().find(|n| n.name == "eps") {
            Some(n) => match self.check_expr(&n.value) {
                Typed::Poison => None,
                Typed::Weak(w, ws) => self.materialize(&w, ws, c, None),
                Typed::Strong(v)
                    if self.node(v).dims.is_empty() && self.node(v).dtype.is_float() =>
                {
                    Some(self.convert(v, c))
                }
                Typed::Strong(_) => {
                    self.errors.push(
                        expr_span(&n.value),
                        format!("`eps` of `{name}` is a float literal or a float scalar"),
                    );
                    None
                }
            },
            None => self.materialize(
                &Weak::Float(default.parse().expect("a float"), Some(default.to_string())),
                span,
                c,
                None,
            ),
        }
    }

    fn check_quantization(&mut self, name: &str, span: Span, x: NodeId, args: &[Expr]) -> Typed {
        if args.len() != 3 {
            self.errors.push(
                span,
                format!("`{name}` takes three tensors: `{name}(x, scale, zero_point)`"),
            );
            return Typed::Poison;
        }
        let xd = self.node(x).dtype;
        let scale = match self.check_expr(&args[1]) {
            Typed::Strong(n) if self.node(n).dtype.is_float() => n,
            Typed::Strong(n) => {
                let d = self.node(n).dtype;
                self.errors.push(
                    expr_span(&args[1]),
                    format!(
                        "the `scale` of `{name}` is a float tensor or scalar, found `{}`",
                        d.name()
                    ),
                );
                return Typed::Poison;
            }
            Typed::Weak(..) => {
                self.errors.push(expr_span(&args[1]), format!("the `scale` of `{name}` needs a dtype: a scalar parameter (`scale: f32`) or a tensor"));
                return Typed::Poison;
            }
            Typed::Poison => return Typed::Poison,
        };
        let zp = match self.check_expr(&args[2]) {
            Typed::Strong(n) => n,
            Typed::Weak(..) => {
                self.errors.push(expr_span(&args[2]), format!("the `zero_point` of `{name}` needs a dtype, which {}: a scalar parameter (`zp: u8`) or a tensor", if name == "quantize_linear" { "is the output's" } else { "is the input's" }));
                return Typed::Poison;
            }
            Typed::Poison => return Typed::Poison,
        };
        let (sd, zd) = (self.node(scale).dtype, self.node(zp).dtype);
        for (a, b, what) in [(x, scale, "`scale`"), (x, zp, "`zero_point`")] {
            if self
                .broadcast_or_report(
                    expr_span(&args[if what == "`scale`" { 1 } else { 2 }]),
                    &format!("`{name}`'s {what}"),
                    a,
                    b,
                )
                .is_none()
            {
                return Typed::Poison;
            }
        }
        if name == "quantize_linear" {
            if !xd.is_float() {
                self.errors.push(
                    span,
                    format!(
                        "`quantize_linear` quantizes a float tensor, found `{}`",
                        xd.name()
                    ),
                );
                return Typed::Poison;
            }
            if !matches!(zd, DType::U8 | DType::I8 | DType::U16 | DType::I16) {
                self.errors.push(expr_span(&args[2]), format!("the `zero_point` of `quantize_linear` gives the output dtype: `u8`, `i8`, `u16` or `i16`, found `{}`", zd.name()));
                return Typed::Poison;
            }
            let c = if xd.compute() == DType::F64 || sd.compute() == DType::F64 {
                DType::F64
            } else {
                DType::F32
            };
            let xc = self.convert(x, c);
            let sc = self.convert(scale, c);
            let zc = self.convert(zp, c);
            let q = self.op_node("div", &[xc, sc]);
            let r = self.op_node("roundeven", &[q]);
            let shifted = self.op_node("add", &[r, zc]);
            // `as` from a float saturates (NaN → 0): ONNX's saturation.
            return Typed::Strong(self.convert(shifted, zd));
        }
        if !xd.is_integer() {
            self.errors.push(
                span,
                format!(
                    "`dequantize_linear` takes an integer tensor, found `{}`",
                    xd.name()
                ),
            );
            return Typed::Poison;
        }
        if zd != xd {
            self.errors.push(expr_span(&args[2]), format!("the `zero_point` of `dequantize_linear` has the input's dtype `{}`, found `{}`", xd.name(), zd.name()));
            return Typed::Poison;
        }
        if matches!(xd, DType::U64 | DType::I64) {
            self.errors.push(
                span,
                format!(
                    "`dequantize_linear` takes 8-, 16- or 32-bit integers, found `{}`",
                    xd.name()
                ),
            );
            return Typed::Poison;
        }
        let c = sd.compute();
        let q = self.convert(x, DType::I64);
        let z = self.convert(zp, DType::I64);
        let d = self.op_node("sub", &[q, z]);
        let dc = self.convert(d, c);
        let sc = self.convert(scale, c);
        let y = self.op_node("mul", &[dc, sc]);
        Typed::Strong(self.convert(y, sd))
    }
}
