//! `matmul(a, b)` and `a @ b` (the parser writes the operator as the call): NumPy's
//! `matmul` rules, checked while compiling.
//! - A 1-D `a` is a row `[1, K]`, a 1-D `b` a column `[K, 1]`; the added axis is removed
//!   from the result. Rank 0 is an error (`*` scales).
//! - The contracted dims (`a`'s last, `b`'s second to last) must be equal: the same
//!   literal or the same name. Batch dims (all but the last two) broadcast as elementwise
//!   operands do.
//! - dtypes promote as binary operands (`bool` refused). Accumulation: `f32` in `f32`
//!   (`acc = f64` opts into `f64`), `f64` in `f64`, `f16`/`bf16` in `f32` rounded once to
//!   the operand dtype; integers in `i64` (signed) or `u64` (unsigned), which is also the
//!   result (Theano's `sum` rule; wrapping past the range).

use proc_macro2::Span;

use super::tensor_ops::expr_span;
use super::{type_text, Checker, Typed};
use crate::ast::{Expr, NamedArg};
use crate::dtype::DType;
use crate::ir::{NodeId, NodeKind};
use crate::ops::TensorOp;
use crate::shape::{broadcast, dims_text, Dim};

/// (accumulator, result) dtypes of a product (or an einsum sum) of `d` operands: floats
/// accumulate in `f32` (`f16`, `bf16`, `f32`) or `f64` and keep their dtype; integers (and
/// `bool`, for einsum's sums) accumulate in and give `i64` (signed) or `u64` (unsigned).
pub(super) fn product_dtypes(d: DType) -> (DType, DType) {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => (DType::F32, d),
        DType::F64 => (DType::F64, DType::F64),
        d if d.category() == crate::dtype::Category::Int || d == DType::Bool => {
            (DType::I64, DType::I64)
        }
        _ => (DType::U64, DType::U64),
    }
}

impl Checker<'_> {
    pub(super) fn check_matmul(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let Some(acc_choice) = self.matmul_acc_choice(op, named) else {
            return Typed::Poison;
        };
        let Some((a, b)) = self.matmul_operands(span, args) else {
            return Typed::Poison;
        };
        let (ad, bd) = (self.node(a).dtype, self.node(b).dtype);
        let (a_dims, b_dims) = (self.node(a).dims.clone(), self.node(b).dims.clone());
        let shown = |d: DType, dims: &[Dim]| type_text(d, dims);
        let Some((acc, out_dtype)) = self.matmul_dtypes(span, a, b, args, acc_choice) else {
            return Typed::Poison;
        };
        // 1-D operands become a row and a column.
        let a2 = if a_dims.len() == 1 {
            let dims = vec![Dim::Static(1), a_dims[0].clone()];
            self.add(
                NodeKind::View {
                    input: a,
                    map: vec![None, Some(0)],
                },
                ad,
                dims,
            )
        } else {
            a
        };
        let b2 = if b_dims.len() == 1 {
            let dims = vec![b_dims[0].clone(), Dim::Static(1)];
            self.add(
                NodeKind::View {
                    input: b,
                    map: vec![Some(0), None],
                },
                bd,
                dims,
            )
        } else {
            b
        };
        let (a2_dims, b2_dims) = (self.node(a2).dims.clone(), self.node(b2).dims.clone());
        let (ra, rb) = (a2_dims.len(), b2_dims.len());
        let (ka, kb) = (&a2_dims[ra - 1], &b2_dims[rb - 2]);
        if ka != kb {
            let why = match (ka, kb) {
                (Dim::Expr(_), _) | (_, Dim::Expr(_)) => {
                    "\nnote: symbolic dims match only the same name or an equal expression (compared in normal form)"
                }
                (Dim::Named(_), _) | (_, Dim::Named(_)) => {
                    "\nnote: symbolic dims match only the same name"
                }
                _ => "",
            };
            self.errors.push(
                span,
                format!(
                    "`matmul` contracts the last axis of `{}`: {} with axis {} of `{}`: {}, and {ka} ≠ {kb}{why}\nhelp: a product `[…, M, K] @ […, K, N]` needs the same K; `transpose(b)` swaps the last two axes of a matrix",
                    crate::ast::expr_text(&args[0]),
                    shown(ad, &a_dims),
                    if b_dims.len() == 1 { 0 } else { b_dims.len() - 2 },
                    crate::ast::expr_text(&args[1]),
                    shown(bd, &b_dims),
                ),
            );
            return Typed::Poison;
        }
        let batch = match broadcast(&a2_dims[..ra - 2], &b2_dims[..rb - 2]) {
            Ok(batch) => batch,
            Err(_) => {
                self.errors.push(
                    span,
                    format!(
                        "`matmul` batch dims do not broadcast: {} of {} against {} of {}\nhelp: the dims before the last two broadcast as in `a + b`",
                        dims_text(&a2_dims[..ra - 2]),
                        shown(ad, &a_dims),
                        dims_text(&b2_dims[..rb - 2]),
                        shown(bd, &b_dims),
                    ),
                );
                return Typed::Poison;
            }
        };
        let mut out_dims = batch.clone();
        out_dims.push(a2_dims[ra - 2].clone());
        out_dims.push(b2_dims[rb - 1].clone());
        if Self::element_count_overflows(&out_dims) {
            self.errors
                .push(span, "the product's element count overflows usize");
            return Typed::Poison;
        }
        // Operands the GEMM converts while packing stay as they are (no converted copy):
        // narrower floats into a float accumulator, any integer into `i64`/`u64`. The
        // conversions are exact, so this equals converting first.
        let (ac, bc) = (self.packable(a2, acc), self.packable(b2, acc));
        let product = self.add(NodeKind::MatMul { a: ac, b: bc }, acc, out_dims.clone());
        let mut result: NodeId = self.convert(product, out_dtype);
        // Remove the axes the 1-D operands added: the column's first, then the row's.
        let rank = out_dims.len();
        let mut drop = Vec::new();
        if a_dims.len() == 1 {
            drop.push(rank - 2);
        }
        if b_dims.len() == 1 {
            drop.push(rank - 1);
        }
        if !drop.is_empty() {
            result = self.drop_axes(result, &drop);
        }
        Typed::Strong(result)
    }

    /// `matmul`'s `acc = f64` (the accumulator's dtype and its span), checked to be a float
    /// dtype; `None` after an error.
    fn matmul_acc_choice(
        &mut self,
        op: &'static TensorOp,
        named: &[NamedArg],
    ) -> Option<Option<(DType, Span)>> {
        let mut acc_choice: Option<(DType, Span)> = None;
        for n in named {
            if n.name != "acc" {
                self.report_unknown_named(op, n);
                return None;
            }
            match &n.value {
                Expr::Var(ident)
                    if DType::from_name(&ident.to_string()).is_some_and(|d| d.is_float()) =>
                {
                    acc_choice = DType::from_name(&ident.to_string()).map(|d| (d, ident.span()));
                }
                other => {
                    self.errors.push(
                        expr_span(other),
                        "`acc` of `matmul` is a float dtype: `acc = f64`",
                    );
                    return None;
                }
            }
        }
        Some(acc_choice)
    }

    /// `matmul`'s two operands, each a tensor of at least one axis.
    fn matmul_operands(&mut self, span: Span, args: &[Expr]) -> Option<(NodeId, NodeId)> {
        if args.len() != 2 {
            let at = args.get(2).map(expr_span).unwrap_or(span);
            self.errors
                .push(at, "`matmul` takes two tensors: `matmul(a, b)` or `a @ b`");
            return None;
        }
        let (Some(a), Some(b)) = (
            self.tensor_arg("matmul", &args[0]),
            self.tensor_arg("matmul", &args[1]),
        ) else {
            return None;
        };
        for (x, e) in [(a, &args[0]), (b, &args[1])] {
            if self.node(x).dims.is_empty() {
                self.errors.push(
                    expr_span(e),
                    format!(
                        "`matmul` of a rank-0 operand `{}`: a product needs at least one axis\nhelp: scale with `*` instead",
                        crate::ast::expr_text(e)
                    ),
                );
                return None;
            }
        }
        Some((a, b))
    }

    /// `matmul`'s accumulator and result dtypes (`product_dtypes`, or the `acc` chosen, at
    /// least as wide) from the operands' promoted dtype, not `bool`.
    fn matmul_dtypes(
        &mut self,
        span: Span,
        a: NodeId,
        b: NodeId,
        args: &[Expr],
        acc_choice: Option<(DType, Span)>,
    ) -> Option<(DType, DType)> {
        let dtype = self.promote_or_report(span, "`matmul`", a, b, [&args[0], &args[1]])?;
        if dtype == DType::Bool {
            self.errors.push(
                span,
                "`matmul` of `bool` operands: cast them to a number first, e.g. `a as i32`",
            );
            return None;
        }
        let (default_acc, out_dtype) = product_dtypes(dtype);
        let acc = match acc_choice {
            None => default_acc,
            Some((chosen, s)) => {
                if !dtype.is_float() || chosen.bits() < default_acc.bits() {
                    self.errors.push(
                        s,
                        format!(
                            "`acc = {}` for `{}` operands: the accumulator is a float at least as wide as `{}`",
                            chosen.name(),
                            dtype.name(),
                            default_acc.name()
                        ),
                    );
                    return None;
                }
                chosen
            }
        };
        Some((acc, out_dtype))
    }

    /// `x` as a GEMM operand for an `acc` accumulator: itself when the engine converts its
    /// dtype while packing, else converted.
    /// A computed `f16`/`bf16` value is held unrounded in `f32` lanes and temps (NOTES.md:
    /// it rounds where it leaves its dtype), so only a stored one packs without the
    /// conversion, which rounds it.
    pub(super) fn packable(&mut self, x: NodeId, acc: DType) -> NodeId {
        let d = self.node(x).dtype;
        let half = matches!(d, DType::F16 | DType::BF16);
        let packs = match acc {
            DType::F32 => d == DType::F32 || (half && self.holds_storage(x)),
            DType::F64 => matches!(d, DType::F32 | DType::F64) || (half && self.holds_storage(x)),
            DType::I64 | DType::U64 => d.is_integer(),
            _ => false,
        };
        if packs {
            x
        } else {
            self.convert(x, acc)
        }
    }

    /// Whether `x` holds values already in its storage format: a parameter, a constant,
    /// or a view or reorganisation of such values.
    fn holds_storage(&self, x: NodeId) -> bool {
        match &self.node(x).kind {
            NodeKind::Input { .. } | NodeKind::Scalar { .. } | NodeKind::Const(_) => true,
            NodeKind::View { input, .. }
            | NodeKind::Reshape { input }
            | NodeKind::Diagonal { input, .. } => self.holds_storage(*input),
            NodeKind::Reorg { inputs, fill, .. } => inputs
                .iter()
                .chain(fill.iter())
                .all(|&i| self.holds_storage(i)),
            _ => false,
        }
    }

    fn element_count_overflows(dims: &[Dim]) -> bool {
        dims.iter()
            .filter_map(Dim::as_static)
            .try_fold(1usize, |acc, d| acc.checked_mul(d))
            .is_none()
    }
}
