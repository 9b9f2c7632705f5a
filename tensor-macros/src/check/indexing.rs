//! Ops that read positions from an index tensor (docs/language.md, "Indexing"): `gather`,
//! `gather_elements`.
//! Semantics are ONNX's: indices of any integer dtype, a negative index counts from the
//! end, and an index out of range is an `Err` at call entry naming the op, the position
//! and the value (the graph returns `Result` whatever its dims). The indices are a
//! parameter of the graph, checked in one pass over them before any kernel runs; the
//! kernels then read `data` only in range.

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::{Expr, NamedArg};
use crate::ir::{IndexCheck, NodeId, NodeKind};
use crate::ops::TensorOp;
use crate::shape::Dim;

impl Checker<'_> {
    /// A row of kind `Indexing`; `args` are the positional arguments as written.
    pub(super) fn check_indexing(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        if matches!(name, "scatter_elements" | "scatter_nd" | "gather_nd") {
            return self.check_moves(op, span, args, named);
        }
        let mut axis = (0i128, span);
        for n in named {
            if self.param_spec(op, n).is_none() {
                return Typed::Poison;
            }
            match super::tensor_ops::int_literal(&n.value) {
                Some(v) => axis = (v, n.value.span()),
                None => {
                    self.errors.push(
                        n.value.span(),
                        format!("`axis` of `{name}` is an integer literal"),
                    );
                    return Typed::Poison;
                }
            }
        }
        let [data, indices] = args else {
            let at = args.get(2).map(Expr::span).unwrap_or(span);
            self.errors.push(
                at,
                format!(
                    "`{name}` takes a tensor and its indices: `{name}(data, indices, axis = 0)`"
                ),
            );
            return Typed::Poison;
        };
        let (Some(data), Some(ids)) = (self.tensor_arg(name, data), self.index_arg(name, indices))
        else {
            return Typed::Poison;
        };
        let Some(axis) = self.reorg_axis(name, data, axis) else {
            return Typed::Poison;
        };
        let data_dims = self.node(data).dims.clone();
        let elements = name == "gather_elements";
        if elements {
            return self.check_gather_elements(span, data, ids, axis, args);
        }
        let mut dims = data_dims[..axis].to_vec();
        dims.extend(self.node(ids).dims.iter().cloned());
        dims.extend(data_dims[axis + 1..].iter().cloned());
        if dims.len() > 6 {
            self.errors.push(
                span,
                format!(
                    "`{name}` of {} by indices {} would have rank {}: tensors have rank 6 at most",
                    type_text(self.node(data).dtype, &data_dims),
                    type_text(self.node(ids).dtype, &self.node(ids).dims),
                    dims.len()
                ),
            );
            return Typed::Poison;
        }
        self.check_gathered_indices(ids, name, data_dims[axis].clone(), Vec::new());
        let dtype = self.node(data).dtype;
        Typed::Strong(self.add(
            NodeKind::Gather {
                data,
                indices: ids,
                axis,
                elements: false,
            },
            dtype,
            dims,
        ))
    }

    /// `gather_elements(data, indices, axis)`: `indices` of `data`'s rank and dims except
    /// along `axis`; the output has `indices`' dims.
    fn check_gather_elements(
        &mut self,
        span: Span,
        data: NodeId,
        ids: NodeId,
        axis: usize,
        args: &[Expr],
    ) -> Typed {
        let (data_dims, id_dims) = (self.node(data).dims.clone(), self.node(ids).dims.clone());
        let agrees = data_dims.len() == id_dims.len()
            && data_dims
                .iter()
                .zip(&id_dims)
                .enumerate()
                .all(|(k, (a, b))| k == axis || a == b);
        if !agrees {
            self.errors.push(
                args[1].span(),
                format!(
                    "`gather_elements` along axis {axis}: the indices {} must have the rank and, on every other axis, the dims of the data {}",
                    type_text(self.node(ids).dtype, &id_dims),
                    type_text(self.node(data).dtype, &data_dims)
                ),
            );
            return Typed::Poison;
        }
        let _ = span;
        self.check_gathered_indices(ids, "gather_elements", data_dims[axis].clone(), Vec::new());
        let dtype = self.node(data).dtype;
        Typed::Strong(self.add(
            NodeKind::Gather {
                data,
                indices: ids,
                axis,
                elements: true,
            },
            dtype,
            id_dims,
        ))
    }

    /// `scatter_elements(data, indices, updates, axis = 0, reduction = none)`,
    /// `scatter_nd(data, indices, updates, reduction = none)` and `gather_nd(data, indices,
    /// batch_dims = 0)`, ONNX's: runtime steps that move elements or slices by index.
    fn check_moves(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        let Some((axis, reduction, batch_dims)) = self.move_named_args(op, span, named) else {
            return Typed::Poison;
        };
        let Some((data, ids)) = self.move_operands(name, span, args) else {
            return Typed::Poison;
        };
        let (dd, dims) = (self.node(data).dtype, self.node(data).dims.clone());
        let id_dims = self.node(ids).dims.clone();
        if dd == crate::dtype::DType::Bool && reduction != "none" {
            self.errors.push(
                span,
                format!(
                    "`{name}` with `reduction = {reduction}` needs numbers, and the data is `bool`"
                ),
            );
            return Typed::Poison;
        }
        let shown = |this: &Self, n: NodeId| type_text(this.node(n).dtype, &this.node(n).dims);
        let wide = self.convert(ids, crate::dtype::DType::I64);
        // The index tuples' length (`nd` ops): a literal last axis.
        let tuple = |this: &mut Self, batch: usize| -> Option<usize> {
            match id_dims.last().and_then(Dim::as_static) {
                Some(q) if !id_dims.is_empty() && batch + q <= dims.len() => Some(q),
                _ => {
                    this.errors.push(
                        args[1].span(),
                        format!("the indices of `{name}` end in an axis of tuples, each indexing the data's first axes: a literal length at most {} here, found {}", dims.len() - batch.min(dims.len()), shown(this, ids)),
                    );
                    None
                }
            }
        };
        let check = |this: &mut Self, bound: Dim, tuple_bounds: Vec<Dim>| {
            this.check_gathered_indices(ids, name, bound, tuple_bounds)
        };
        if name == "gather_nd" {
            if batch_dims >= id_dims.len()
                || dims[..batch_dims.min(dims.len())] != id_dims[..batch_dims.min(id_dims.len())]
            {
                self.errors.push(span, format!("`gather_nd` with `batch_dims = {batch_dims}`: the data {} and the indices {} share their first {batch_dims} axes", shown(self, data), shown(self, ids)));
                return Typed::Poison;
            }
            let Some(q) = tuple(self, batch_dims) else {
                return Typed::Poison;
            };
            let mut out = id_dims[..id_dims.len() - 1].to_vec();
            out.extend(dims[batch_dims + q..].iter().cloned());
            if out.len() > 6 {
                self.errors
                    .push(span, "the result of `gather_nd` would have rank above 6");
                return Typed::Poison;
            }
            check(
                self,
                Dim::Static(0),
                dims[batch_dims..batch_dims + q].to_vec(),
            );
            let dc = self.convert(data, dd.compute());
            let node = self.add(
                NodeKind::GatherNd {
                    data: dc,
                    indices: wide,
                    batch_dims,
                },
                dd.compute(),
                out,
            );
            return Typed::Strong(self.convert(node, dd));
        }
        let Some(updates) = self.tensor_arg(name, &args[2]) else {
            return Typed::Poison;
        };
        let (ud, udims) = (self.node(updates).dtype, self.node(updates).dims.clone());
        if ud != dd {
            self.errors.push(
                args[2].span(),
                format!(
                    "the updates of `{name}` have the data's dtype `{}`, found `{}`",
                    dd.name(),
                    ud.name()
                ),
            );
            return Typed::Poison;
        }
        let axis_k = if name == "scatter_elements" {
            let Some(k) = self.reorg_axis(name, data, axis) else {
                return Typed::Poison;
            };
            let fits = id_dims.len() == dims.len()
                && id_dims.iter().zip(&dims).enumerate().all(|(a, (i, d))| {
                    a == k || i == d || matches!((i, d), (Dim::Static(i), Dim::Static(d)) if i <= d)
                });
            if !fits || udims != id_dims {
                self.errors.push(
                    span,
                    format!("`scatter_elements` along axis {k}: the indices {} have the data's rank {} and no larger dims off the axis, and the updates {} the indices' dims", shown(self, ids), shown(self, data), shown(self, updates)),
                );
                return Typed::Poison;
            }
            check(self, dims[k].clone(), Vec::new());
            Some(k)
        } else {
            let Some(q) = tuple(self, 0) else {
                return Typed::Poison;
            };
            let mut want = id_dims[..id_dims.len() - 1].to_vec();
            want.extend(dims[q..].iter().cloned());
            if udims != want {
                self.errors.push(
                    args[2].span(),
                    format!("the updates of `scatter_nd` are the indices' dims without the tuple axis, then the data's after the first {q}: {}, found {}", crate::shape::dims_text(&want), shown(self, updates)),
                );
                return Typed::Poison;
            }
            check(self, Dim::Static(0), dims[..q].to_vec());
            None
        };
        let c = dd.compute();
        let (dc, uc) = (self.convert(data, c), self.convert(updates, c));
        let node = self.add(
            NodeKind::Scatter {
                data: dc,
                indices: wide,
                updates: uc,
                axis: axis_k,
                reduction,
            },
            c,
            dims,
        );
        Typed::Strong(self.convert(node, dd))
    }

    /// `axis`, `reduction` and `batch_dims` of a move (`check_moves`); `None` after an
    /// error.
    fn move_named_args(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        named: &[NamedArg],
    ) -> Option<((i128, Span), &'static str, usize)> {
        let name = op.name;
        let (mut axis, mut reduction, mut batch_dims) = ((0i128, span), "none", 0usize);
        for n in named {
            self.param_spec(op, n)?;
            let at = n.value.span();
            match n.name.to_string().as_str() {
                "reduction" => match &n.value {
                    Expr::Var(v) => match v.to_string().as_str() {
                        "none" => reduction = "none",
                        "add" => reduction = "add",
                        "mul" => reduction = "mul",
                        "max" => reduction = "max",
                        "min" => reduction = "min",
                        _ => {
                            self.errors.push(
                                at,
                                "`reduction` is `none`, `add`, `mul`, `max` or `min` (ONNX's)",
                            );
                            return None;
                        }
                    },
                    _ => {
                        self.errors.push(
                            at,
                            "`reduction` is `none`, `add`, `mul`, `max` or `min` (ONNX's)",
                        );
                        return None;
                    }
                },
                other => match super::tensor_ops::int_literal(&n.value) {
                    Some(v) if other == "axis" => axis = (v, at),
                    Some(v) if v >= 0 => batch_dims = v as usize,
                    _ => {
                        self.errors
                            .push(at, format!("`{other}` of `{name}` is an integer literal"));
                        return None;
                    }
                },
            }
        }
        Some((axis, reduction, batch_dims))
    }

    /// A move's count of arguments, its data and its indices (`index_arg`).
    fn move_operands(
        &mut self,
        name: &'static str,
        span: Span,
        args: &[Expr],
    ) -> Option<(NodeId, NodeId)> {
        let want = if name == "gather_nd" { 2 } else { 3 };
        if args.len() != want {
            let usage = match name {
                "gather_nd" => "`gather_nd(data, indices, batch_dims = 0)`",
                "scatter_nd" => "`scatter_nd(data, indices, updates, reduction = none)`",
                _ => "`scatter_elements(data, indices, updates, axis = 0, reduction = none)`",
            };
            self.errors.push(span, format!("`{name}` takes {usage}"));
            return None;
        }
        let (Some(data), Some(ids)) = (
            self.tensor_arg(name, &args[0]),
            self.index_arg(name, &args[1]),
        ) else {
            return None;
        };
        Some((data, ids))
    }

    /// Asks call entry to check index parameter `ids` (from `index_arg`) as ONNX's
    /// gathers and scatters do: each index (or, with `tuple_bounds`, each component of a
    /// tuple on the last axis) in `-bound..bound`.
    fn check_gathered_indices(
        &mut self,
        ids: NodeId,
        op: &'static str,
        bound: Dim,
        tuple_bounds: Vec<Dim>,
    ) {
        // A view of an index parameter (`index_arg`'s `views`) holds the parameter's values:
        // its check is the parameter's. A new last axis of size 1 makes each value a
        // one-component tuple, checked as a plain index against that component's bound.
        let (ids, bound, tuple_bounds) = match &self.node(ids).kind {
            NodeKind::View { input, map } => {
                let new_last = matches!(map.last(), Some(None));
                if new_last && tuple_bounds.len() == 1 {
                    (*input, tuple_bounds[0].clone(), Vec::new())
                } else {
                    (*input, bound, tuple_bounds)
                }
            }
            _ => (ids, bound, tuple_bounds),
        };
        if let NodeKind::Input { param } = self.node(ids).kind {
            self.require_index_check(IndexCheck {
                param,
                bound,
                op,
                negative: true,
                skip: None,
                tuple_bounds,
            });
        }
    }

    /// Adds `check` to the checks call entry runs, once.
    pub(super) fn require_index_check(&mut self, check: IndexCheck) {
        if !self.graph.index_checks.contains(&check) {
            self.graph.index_checks.push(check);
        }
    }

    /// The index tensor of `name`: a parameter of an integer dtype, or for the scatters
    /// (runtime steps that read their indices from a temp) also a view of one that only
    /// inserts axes (`expand_dims(ids, 1)`, `broadcast_to(…)`): the same values, so the
    /// parameter's check at call entry covers it. The derivative of `gather` is such a
    /// scatter (`derive/`).
    fn index_arg(&mut self, name: &str, e: &Expr) -> Option<NodeId> {
        let views = matches!(name, "scatter_nd" | "scatter_elements");
        let node = self.tensor_arg(name, e)?;
        let n = self.node(node);
        if !n.dtype.is_integer() {
            self.errors.push(
                e.span(),
                format!(
                    "the indices of `{name}` are integers, not {}\nhelp: any integer dtype works (`i64`, `i32`, `u32`, …); a float index would be `… as i64`",
                    type_text(n.dtype, &n.dims)
                ),
            );
            return None;
        }
        let inserts_axes_of_a_parameter = |map: &[Option<usize>], input: NodeId| {
            let kept: Vec<usize> = map.iter().flatten().copied().collect();
            matches!(self.node(input).kind, NodeKind::Input { .. })
                && kept.iter().enumerate().all(|(k, &a)| k == a)
                && kept.len() == self.node(input).dims.len()
        };
        let view_ok = match &n.kind {
            NodeKind::View { input, map } => views && inserts_axes_of_a_parameter(map, *input),
            _ => false,
        };
        if !matches!(n.kind, NodeKind::Input { .. }) && !view_ok {
            self.errors.push(
                e.span(),
                format!("the indices of `{name}` are a parameter of the graph (`ids: i64[N]`), which call entry checks in one pass before any kernel reads through them; a computed index tensor is not supported yet\nhelp: compute the indices in another graph and pass them in"),
            );
            return None;
        }
        Some(node)
    }
}
