//! Positions computed in the kernel from the loop indices, never stored (docs/language.md,
//! "Positions"): `arange(D, dtype = i64)`, `eye(D0, D1, k = 0, dtype = f32)`, `tril(x, k =
//! 0)`, `triu(x, k = 0)`. Each is an elementwise graph over `NodeKind::Position` nodes (the
//! index along one axis), so it fuses with everything around it: a causal mask
//! `where(tril(ones) …)` costs two integer compares per element and no buffer.

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::{BinOp, Expr, NamedArg};
use crate::dim_expr::Poly;
use crate::dtype::{Category, DType};
use crate::ir::{ConstValue, NodeId, NodeKind};
use crate::ops::TensorOp;
use crate::shape::Dim;

/// `one_hot`'s named arguments: `depth`, `axis` (with its span), `dtype`, `on`, `off`.
type OneHotArgs<'e> = (
    Option<&'e Expr>,
    (i128, Span),
    DType,
    Option<&'e Expr>,
    Option<&'e Expr>,
);

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
        if name == "one_hot" {
            return self.check_one_hot(op, span, args, named);
        }
        let Some((k, dtype)) = self.position_named_args(op, named) else {
            return Typed::Poison;
        };
        match name {
            "arange" => {
                let [d] = args else {
                    self.errors.push(
                        span,
                        "`arange` takes one dim: `arange(N, dtype = i64)` is 0, 1, …, N - 1",
                    );
                    return Typed::Poison;
                };
                let Some(d) = self.dim_arg(name, d) else {
                    return Typed::Poison;
                };
                let dtype = dtype.unwrap_or(DType::I64);
                if dtype == DType::Bool {
                    self.errors
                        .push(span, "`arange` counts in a numeric dtype, not `bool`");
                    return Typed::Poison;
                }
                let at = self.add(NodeKind::Position { axis: 0 }, DType::I64, vec![d]);
                Typed::Strong(self.convert(at, dtype))
            }
            "eye" => {
                let dims: Option<Vec<Dim>> = match args {
                    [a] => self.dim_arg(name, a).map(|d| vec![d.clone(), d]),
                    [a, b] => self
                        .dim_arg(name, a)
                        .zip(self.dim_arg(name, b))
                        .map(|(a, b)| vec![a, b]),
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
                Typed::Strong(self.add(
                    NodeKind::Select {
                        cond: on,
                        a: one,
                        b: zero,
                    },
                    dtype,
                    dims,
                ))
            }
            _ => self.check_triangle(name, span, args, k, dtype),
        }
    }

    /// `k` and `dtype` of `arange`, `eye`, `tril`, `triu`; `None` after an error.
    fn position_named_args(
        &mut self,
        op: &'static TensorOp,
        named: &[NamedArg],
    ) -> Option<(i128, Option<DType>)> {
        let name = op.name;
        let mut k = 0i128;
        let mut dtype = None;
        for n in named {
            self.param_spec(op, n)?;
            let at = n.value.span();
            if n.name == "k" {
                match super::tensor_ops::int_literal(&n.value) {
                    Some(v) => k = v,
                    None => {
                        self.errors.push(
                            at,
                            format!(
                                "`k` of `{name}` is an integer literal (the diagonal's offset)"
                            ),
                        );
                        return None;
                    }
                }
            } else {
                match super::tensor_ops::dtype_literal(&n.value) {
                    Some(d) => dtype = Some(d),
                    None => {
                        self.errors.push(at, "`dtype` is a dtype, one of `bool`, `u8` … `u64`, `i8` … `i64`, `f16`, `bf16`, `f32`, `f64`");
                        return None;
                    }
                }
            }
        }
        Some((k, dtype))
    }

    /// `tril(x, k = 0)` and `triu`: `x` where `col - row <= k` (`>= k`), 0 elsewhere.
    fn check_triangle(
        &mut self,
        name: &'static str,
        span: Span,
        args: &[Expr],
        k: i128,
        dtype: Option<DType>,
    ) -> Typed {
        let [x] = args else {
            self.errors.push(
                span,
                format!("`{name}` takes one tensor: `{name}(x, k = 0)`"),
            );
            return Typed::Poison;
        };
        if dtype.is_some() {
            self.errors.push(
                span,
                format!("`{name}` keeps its tensor's dtype: it has no `dtype`"),
            );
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
        let keep = self.diagonal_offset(
            &dims,
            k,
            if name == "tril" {
                "less_equal"
            } else {
                "greater_equal"
            },
        );
        let xd = self.node(x).dtype;
        let zero = self.const_of(0, xd);
        Typed::Strong(self.add(
            NodeKind::Select {
                cond: keep,
                a: x,
                b: zero,
            },
            xd,
            dims,
        ))
    }

    /// `one_hot(indices, depth = D, axis = -1, on = 1, off = 0, dtype = f32)`, ONNX
    /// `OneHot`: a new axis of `D` at `axis`, `on` where its position is the index
    /// (negative indices count from the end) and `off` elsewhere; an index outside
    /// `-D..D` gives a row of `off` (ONNX), so nothing is checked at call entry.
    fn check_one_hot(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let [indices] = args else {
            self.errors.push(
                span,
                "`one_hot` takes one index tensor: `one_hot(ids, depth = 10)`",
            );
            return Typed::Poison;
        };
        let Some((depth, axis, dtype, on, off)) = self.one_hot_named_args(op, span, named) else {
            return Typed::Poison;
        };
        let Some(depth) = depth else {
            self.errors.push(span, "`one_hot` needs `depth = …`: the number of classes, a literal or a dim (`one_hot(ids, depth = 10)`)");
            return Typed::Poison;
        };
        let Some(d) = self.dim_arg("one_hot", depth) else {
            return Typed::Poison;
        };
        let Some(ids) = self.tensor_arg("one_hot", indices) else {
            return Typed::Poison;
        };
        let id_dtype = self.node(ids).dtype;
        if !id_dtype.is_integer() {
            self.errors.push(
                indices.span(),
                format!("the indices of `one_hot` are integers, not `{}`\nhelp: any integer dtype works; a float index would be `… as i64`", id_dtype.name()),
            );
            return Typed::Poison;
        }
        let mut dims = self.node(ids).dims.clone();
        let rank = dims.len() as i128 + 1;
        if axis.0 < -rank || axis.0 >= rank {
            self.errors.push(axis.1, format!("`one_hot`: axis {} is out of range for a result of rank {rank} (valid: -{rank}..={})", axis.0, rank - 1));
            return Typed::Poison;
        }
        let k = if axis.0 < 0 { axis.0 + rank } else { axis.0 } as usize;
        if dims.len() == 6 {
            self.errors.push(
                span,
                "`one_hot` adds an axis, and tensors have rank 6 at most",
            );
            return Typed::Poison;
        }
        dims.insert(k, d.clone());
        // The index, as `i64` and with the new axis (size 1) at `k`; negative ones + D.
        let wide = self.convert(ids, DType::I64);
        let id = self.insert_axis(wide, k);
        // Only a signed index counts from the end: a `u64` above `i64::MAX` is negative as
        // `i64` and matches no position (out of range: a row of `off`, as ONNX).
        let normalised = self.one_hot_index(id, id_dtype, &d);
        let position = self.add(NodeKind::Position { axis: k }, DType::I64, dims.clone());
        let hot = self.op_node("equal", &[position, normalised]);
        let value = |this: &mut Self, e: Option<&Expr>, default: i128| -> Option<NodeId> {
            match e {
                None => Some(this.const_of(default, dtype)),
                Some(e) => match this.check_expr(e) {
                    Typed::Weak(w, ws) => this.materialize(&w, ws, dtype, None),
                    Typed::Poison => None,
                    Typed::Strong(n) => {
                        let (nd, rank) = (this.node(n).dtype, this.node(n).dims.len());
                        if nd == dtype && rank == 0 {
                            return Some(n);
                        }
                        this.errors.push(e.span(), format!("`on` and `off` of `one_hot` are literals or scalars of its dtype `{}`", dtype.name()));
                        None
                    }
                },
            }
        };
        let (Some(on), Some(off)) = (value(self, on, 1), value(self, off, 0)) else {
            return Typed::Poison;
        };
        Typed::Strong(self.add(
            NodeKind::Select {
                cond: hot,
                a: on,
                b: off,
            },
            dtype,
            dims,
        ))
    }

    /// `depth`, `axis` (with its span), `dtype`, `on` and `off` of `one_hot`; `None` after an
    /// error.
    fn one_hot_named_args<'e>(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        named: &'e [NamedArg],
    ) -> Option<OneHotArgs<'e>> {
        let mut depth = None;
        let mut axis = (-1i128, span);
        let mut dtype = DType::F32;
        let (mut on, mut off): (Option<&Expr>, Option<&Expr>) = (None, None);
        for n in named {
            self.param_spec(op, n)?;
            let at = n.value.span();
            match n.name.to_string().as_str() {
                "depth" => depth = Some(&n.value),
                "axis" => match super::tensor_ops::int_literal(&n.value) {
                    Some(v) => axis = (v, at),
                    None => {
                        self.errors
                            .push(at, "`axis` of `one_hot` is an integer literal");
                        return None;
                    }
                },
                "on" => on = Some(&n.value),
                "off" => off = Some(&n.value),
                _ => match super::tensor_ops::dtype_literal(&n.value) {
                    Some(d) => dtype = d,
                    None => {
                        self.errors.push(at, "`dtype` is a dtype, one of `bool`, `u8` … `u64`, `i8` … `i64`, `f16`, `bf16`, `f32`, `f64`");
                        return None;
                    }
                },
            }
        }
        Some((depth, axis, dtype, on, off))
    }

    /// The index `id` (`i64`, dtype `id_dtype` before) counted from the end of the new axis
    /// of `d` when negative; only a signed index counts from the end: a `u64` above
    /// `i64::MAX` is negative as `i64` and matches no position (out of range: a row of
    /// `off`, as ONNX).
    fn one_hot_index(&mut self, id: NodeId, id_dtype: DType, d: &Dim) -> NodeId {
        if matches!(id_dtype.category(), Category::Uint) {
            id
        } else {
            let depth_value = match d.as_static() {
                Some(n) => self.const_of(n as i128, DType::I64),
                None => self.add(
                    NodeKind::Count {
                        dims: vec![d.clone()],
                    },
                    DType::I64,
                    Vec::new(),
                ),
            };
            let zero = self.const_of(0, DType::I64);
            let negative = self.op_node("less", &[id, zero]);
            let from_end = self.op_node("add", &[id, depth_value]);
            let id_dims = self.node(id).dims.clone();
            self.add(
                NodeKind::Select {
                    cond: negative,
                    a: from_end,
                    b: id,
                },
                DType::I64,
                id_dims,
            )
        }
    }

    /// `col - row <cmp> k` over `dims` (row and column the last two axes), as `bool`.
    fn diagonal_offset(&mut self, dims: &[Dim], k: i128, cmp: &str) -> NodeId {
        let rank = dims.len();
        let row = self.add(
            NodeKind::Position { axis: rank - 2 },
            DType::I64,
            dims.to_vec(),
        );
        let col = self.add(
            NodeKind::Position { axis: rank - 1 },
            DType::I64,
            dims.to_vec(),
        );
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
    pub(super) fn dim_arg(&mut self, name: &str, e: &Expr) -> Option<Dim> {
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
                self.errors.push(
                    e.span(),
                    format!("this dim is {v}: dimensions are sizes, so they cannot be negative"),
                );
                None
            }
        }
    }

    fn dim_poly(&self, e: &Expr) -> Option<Poly> {
        match e {
            Expr::Lit(..) => super::tensor_ops::int_literal(e)
                .filter(|v| *v >= 0)
                .map(Poly::constant),
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
