//! Ops whose value is a tuple of tensors, bound with `let (a, b) = …` or returned as the
//! graph's outputs (docs/language.md, "Tuple-valued ops"): `split`, `top_k`
//! (`check/ranking.rs`) and `max_pool_with_indices` (`check/vision.rs`).

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::{Expr, NamedArg};
use crate::dim_expr::Poly;
use crate::ir::{AxisMap, Offset, Size};
use crate::ops::{self, TensorOpKind};
use crate::shape::Dim;

/// The tuple-valued ops.
pub(super) const TUPLE_OPS: &[&str] = &["split", "top_k", "max_pool_with_indices"];

impl Checker<'_> {
    /// The parts of a tuple-valued op's call, `count` of them when the pattern or the
    /// declared outputs fix it; `None` once reported.
    pub(super) fn check_tuple_expr(
        &mut self,
        e: &Expr,
        count: Option<usize>,
    ) -> Option<Vec<Typed>> {
        let Expr::Call { func, args, named } = e else {
            self.errors.push(
                e.span(),
                format!(
                    "a tuple pattern takes a tuple-valued op ({}), not `{}`",
                    TUPLE_OPS.join(", "),
                    crate::ast::expr_text(e)
                ),
            );
            return None;
        };
        let name = func.to_string();
        let parts = match name.as_str() {
            "split" => self.check_split(func.span(), args, named)?,
            "top_k" => self.check_top_k(func.span(), args, named)?,
            "max_pool_with_indices" => self.check_pool_with_indices(func.span(), args, named)?,
            _ => {
                self.errors.push(
                    func.span(),
                    format!("`{name}` gives one tensor, so it binds to one name; the tuple-valued ops are {}", TUPLE_OPS.join(", ")),
                );
                return None;
            }
        };
        if let Some(count) = count.filter(|&c| c != parts.len()) {
            self.errors.push(
                func.span(),
                format!(
                    "`{name}` gives {} parts here, and {count} are named",
                    parts.len()
                ),
            );
            return None;
        }
        Some(parts)
    }

    /// `split(x, [s0, s1, …], axis = 0)` (ONNX `Split` with its sizes): consecutive parts
    /// along `axis` of the given lengths, which add up to the axis's. On a symbolic axis
    /// one size may be `-1`, the rest of the axis (`split(x, [1, -1])` of `[N]` gives
    /// `[1]` and `[N - 1]`), and the call checks that the axis holds the literal sizes.
    fn check_split(&mut self, span: Span, args: &[Expr], named: &[NamedArg]) -> Option<Vec<Typed>> {
        let op = ops::registry_row("split");
        let mut axis = (0i128, span);
        for n in named {
            self.param_spec(op, n)?;
            match super::tensor_ops::int_literal(&n.value) {
                Some(v) => axis = (v, n.value.span()),
                None => {
                    self.errors
                        .push(n.value.span(), "`axis` of `split` is an integer literal");
                    return None;
                }
            }
        }
        let [x, sizes] = args else {
            self.errors.push(
                span,
                "`split` takes a tensor and the sizes of its parts: `split(x, [2, 3], axis = 0)`",
            );
            return None;
        };
        let x = self.tensor_arg("split", x)?;
        let k = self.reorg_axis("split", x, axis)?;
        let Some(items) = super::tensor_ops::list_items(sizes) else {
            self.errors.push(
                sizes.span(),
                "`split` takes the sizes of its parts as a list of integer literals, e.g. `[2, 3]`",
            );
            return None;
        };
        let mut parts = Vec::new();
        for item in items {
            match super::tensor_ops::int_literal(item) {
                Some(v) if v >= -1 => parts.push((v, item.span())),
                _ => {
                    self.errors.push(item.span(), "a size of `split` is an integer literal ≥ 0 (or -1 for the rest of a symbolic axis)");
                    return None;
                }
            }
        }
        if parts.len() < 2 {
            self.errors
                .push(sizes.span(), "`split` gives two or more parts");
            return None;
        }
        let dims = self.node(x).dims.clone();
        let shown = type_text(self.node(x).dtype, &dims);
        let rest: Vec<&(i128, Span)> = parts.iter().filter(|p| p.0 == -1).collect();
        let literal_total: i128 = parts.iter().filter(|p| p.0 >= 0).map(|p| p.0).sum();
        match (&dims[k], rest.len()) {
            (_, 2..) => {
                self.errors.push(
                    rest[1].1,
                    "`split` takes at most one `-1` (the rest of the axis)",
                );
                return None;
            }
            (Dim::Static(n), 1) => {
                if literal_total > *n as i128 {
                    self.errors.push(sizes.span(), format!("`split` of axis {k} of {shown}: the sizes add up to {literal_total}, more than {n}"));
                    return None;
                }
            }
            (Dim::Static(n), 0) if literal_total != *n as i128 => {
                self.errors.push(
                    sizes.span(),
                    format!("`split` of axis {k} of {shown}: the sizes add up to {literal_total}, not {n}\nhelp: the parts cover the whole axis; `-1` stands for the rest of it"),
                );
                return None;
            }
            (axis_dim, 0) if axis_dim.is_symbolic() => {
                self.errors.push(
                    sizes.span(),
                    format!("`split` of the symbolic axis `{axis_dim}` of {shown}: literal sizes cannot add up to it\nhelp: give one part as `-1`, the rest of the axis (`[{literal_total}, -1]`)"),
                );
                return None;
            }
            _ => {}
        }
        if literal_total > 0 && dims[k].is_symbolic() {
            self.graph
                .at_least
                .push((dims[k].clone(), literal_total as usize, "split"));
        }
        let axis_len = dims[k].poly();
        let axis_size = Offset::size(&Size::of(&dims[k]));
        // Each part's first index: literal up to the `-1`, from the end after it.
        let mut out = Vec::new();
        let mut before = 0i128;
        let mut after_rest = false;
        for (i, &(size, _)) in parts.iter().enumerate() {
            let (start, len) = if size == -1 {
                after_rest = true;
                let later: i128 = parts[i + 1..].iter().map(|p| p.0).sum();
                let len = axis_len.sub(&Poly::constant(before + later));
                (Offset::lit(before), Dim::from_poly(len).ok()?)
            } else if after_rest {
                let from_end: i128 = parts[i..].iter().map(|p| p.0).sum();
                (
                    axis_size.add(&Offset::lit(-from_end)),
                    Dim::Static(size as usize),
                )
            } else {
                (Offset::lit(before), Dim::Static(size as usize))
            };
            before += size.max(0);
            let mut part_dims = dims.clone();
            part_dims[k] = len;
            let mut axes = vec![AxisMap::Same; dims.len()];
            axes[k] = AxisMap::Affine { start, step: 1 };
            out.push(self.reorg_node(vec![x], None, axes, part_dims));
        }
        Some(out)
    }

    /// A tuple-valued op where one tensor is expected.
    pub(super) fn tuple_in_place_of_tensor(&mut self, span: Span, name: &str) -> Typed {
        self.errors.push(
            span,
            format!("`{name}` gives a tuple of tensors: bind its parts with `let (a, b) = {name}(…);`, or return it as the graph's outputs"),
        );
        Typed::Poison
    }
}

/// Whether `e` calls a tuple-valued op at its top.
pub(super) fn is_tuple_call(e: &Expr) -> bool {
    matches!(e, Expr::Call { func, .. } if ops::TENSOR_OPS.iter().any(|t| func == t.name && t.kind == TensorOpKind::Tuple))
}
