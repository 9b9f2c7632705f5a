//! Positions computed in the kernel from the loop indices, never stored (docs/language.md,
//! "Positions"): `arange(D, dtype = i64)`, `eye(D0, D1, k = 0, dtype = f32)`, `tril(x, k =
//! 0)`, `triu(x, k = 0)`. Each is an elementwise graph over `NodeKind::Position` nodes (the
//! index along one axis), so it fuses with everything around it: a causal mask
//! `where(tril(ones) …)` costs two integer compares per element and no buffer.

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::{BinOp, Expr, NamedArg};
use crate::dim_expr::Poly;
use crate::dtype::DType;
use crate::ir::{ConstValue, NodeId, NodeKind};
use crate::ops::TensorOp;
use crate::shape::Dim;

impl Checker<'_> {
    /// A row of kind `Position`; `args` are the positional arguments as written.
    pub(super) fn check_position(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        let mut k = 0i128;
        let mut dtype = None;
        for n in named {
            if self.param_spec(op, n).is_none() {
                return Typed::Poison;
            }
            let at = n.value.span();
            if n.name == "k" {
                match super::tensor_ops::int_literal(&n.value) {
                    Some(v) => k = v,
                    None => {
                        self.errors.push(at, format!("`k` of `{name}` is an integer literal (the diagonal's offset)"));
                        return Typed::Poison;
                    }
                }
            } else {
                let d = match &n.value {
                    Expr::Var(ident) => DType::from_name(&ident.to_string()),
                    _ => None,
                };
                match d {
                    Some(d) => dtype = Some(d),
                    None => {
                        self.errors.push(at, "`dtype` is a dtype, one of `bool`, `u8` … `u64`, `i8` … `i64`, `f16`, `bf16`, `f32`, `f64`");
                        return Typed::Poison;
                    }
                }
            }
        }
        match name {
            "arange" => {
                let [d] = args else {
                    self.errors.push(span, "`arange` takes one dim: `arange(N, dtype = i64)` is 0, 1, …, N - 1");
                    return Typed::Poison;
                };
                let Some(d) = self.dim_arg(name, d) else {
                    return Typed::Poison;
                };
                let dtype = dtype.unwrap_or(DType::I64);
                if dtype == DType::Bool {
                    self.errors.push(span, "`arange` counts in a numeric dtype, not `bool`");
                    return Typed::Poison;
                }
                let at = self.add(NodeKind::Position { axis: 0 }, DType::I64, vec![d]);
                Typed::Strong(self.convert(at, dtype))
            }
            "eye" => {
                let dims: Option<Vec<Dim>> = match args {
                    [a] => self.dim_arg(name, a).map(|d| vec![d.clone(), d]),
                    [a, b] => self.dim_arg(name, a).zip(self.dim_arg(name, b)).map(|(a, b)| vec![a, b]),
                    _ => {
                        self.errors.push(span, "`eye` takes one or two dims: `eye(N)`, `eye(N, M, k = 0, dtype = f32)`");
                        return Typed::Poison;
                    }
                };
                let Some(dims) = dims else {
                    return Typed::Poison;
                };
                let dtype = dtype.unwrap_or(DType::F32);
                // 1 where `col - row == k`.
                let on = self.diagonal_offset(&dims, k, "equal");
                let (one, zero) = (self.const_of(1, dtype), self.const_of(0, dtype));
                Typed::Strong(self.add(NodeKind::Select { cond: on, a: one, b: zero }, dtype, dims))
            }
            _ => {
                let [x] = args else {
                    self.errors.push(span, format!("`{name}` takes one tensor: `{name}(x, k = 0)`"));
                    return Typed::Poison;
                };
                if dtype.is_some() {
                    self.errors.push(span, format!("`{name}` keeps its tensor's dtype: it has no `dtype`"));
                    return Typed::Poison;
                }
                let Some(x) = self.tensor_arg(name, x) else {
                    return Typed::Poison;
                };
                let dims = self.node(x).dims.clone();
                if dims.len() < 2 {
                    self.errors.push(
                        span,
                        format!("`{name}` works on the last two axes of a matrix (or a batch of them), and {} has rank {}", type_text(self.node(x).dtype, &dims), dims.len()),
                    );
                    return Typed::Poison;
                }
                // `tril` keeps `col - row <= k`, `triu` keeps `col - row >= k`.
                let keep = self.diagonal_offset(&dims, k, if name == "tril" { "less_equal" } else { "greater_equal" });
                let xd = self.node(x).dtype;
                let zero = self.const_of(0, xd);
                Typed::Strong(self.add(NodeKind::Select { cond: keep, a: x, b: zero }, xd, dims))
            }
        }
    }

    /// `col - row <cmp> k` over `dims` (row and column the last two axes), as `bool`.
    fn diagonal_offset(&mut self, dims: &[Dim], k: i128, cmp: &str) -> NodeId {
        let rank = dims.len();
        let row = self.add(NodeKind::Position { axis: rank - 2 }, DType::I64, dims.to_vec());
        let col = self.add(NodeKind::Position { axis: rank - 1 }, DType::I64, dims.to_vec());
        let diff = self.op_node("sub", &[col, row]);
        let k = self.add(NodeKind::Const(ConstValue::Int(k)), DType::I64, Vec::new());
        self.op_node(cmp, &[diff, k])
    }

    /// The constant `v` in `dtype` (1 is `true` for `bool`).
    fn const_of(&mut self, v: i128, dtype: DType) -> NodeId {
        let value = if dtype == DType::Bool {
            ConstValue::Bool(v != 0)
        } else if dtype.is_float() {
            ConstValue::Float(v as f64, None)
        } else {
            ConstValue::Int(v)
        };
        self.add(NodeKind::Const(value), dtype, Vec::new())
    }

    /// A dim argument: a literal, a dim name of the signature, or an expression of them.
    fn dim_arg(&mut self, name: &str, e: &Expr) -> Option<Dim> {
        let poly = self.dim_poly(e);
        let Some(poly) = poly else {
            self.errors.push(
                e.span(),
                format!("`{name}` takes dims: a literal, a dim name of the signature (`N`), or an expression of them (`N + 1`)"),
            );
            return None;
        };
        match Dim::from_poly(poly) {
            Ok(d) => Some(d),
            Err(v) => {
                self.errors.push(e.span(), format!("this dim is {v}: dimensions are sizes, so they cannot be negative"));
                None
            }
        }
    }

    fn dim_poly(&self, e: &Expr) -> Option<Poly> {
        match e {
            Expr::Lit(..) => super::tensor_ops::int_literal(e).filter(|v| *v >= 0).map(Poly::constant),
            Expr::Var(ident) => {
                let name = ident.to_string();
                self.dim_names.contains(&name).then(|| Poly::name(&name))
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                let (a, b) = (self.dim_poly(lhs)?, self.dim_poly(rhs)?);
                match op {
                    BinOp::Add => Some(a.add(&b)),
                    BinOp::Sub => Some(a.sub(&b)),
                    BinOp::Mul => Some(a.mul(&b)),
                    BinOp::Div => match b.as_constant() {
                        Some(d) if d > 0 => Some(a.floor_div(d as u64)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
