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
        let mut axis = (0i128, span);
        for n in named {
            if self.param_spec(op, n).is_none() {
                return Typed::Poison;
            }
            match super::tensor_ops::int_literal(&n.value) {
                Some(v) => axis = (v, n.value.span()),
                None => {
                    self.errors.push(n.value.span(), format!("`axis` of `{name}` is an integer literal"));
                    return Typed::Poison;
                }
            }
        }
        let [data, indices] = args else {
            let at = args.get(2).map(Expr::span).unwrap_or(span);
            self.errors.push(at, format!("`{name}` takes a tensor and its indices: `{name}(data, indices, axis = 0)`"));
            return Typed::Poison;
        };
        let (Some(data), Some(ids)) = (self.tensor_arg(name, data), self.index_arg(name, indices)) else {
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
        let NodeKind::Input { param } = self.node(ids).kind else {
            unreachable!("index_arg returns parameters");
        };
        let check = IndexCheck {
            param,
            bound: data_dims[axis].clone(),
            op: name,
        };
        if !self.graph.index_checks.contains(&check) {
            self.graph.index_checks.push(check);
        }
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
        let NodeKind::Input { param } = self.node(ids).kind else {
            unreachable!("index_arg returns parameters");
        };
        let check = IndexCheck {
            param,
            bound: data_dims[axis].clone(),
            op: "gather_elements",
        };
        if !self.graph.index_checks.contains(&check) {
            self.graph.index_checks.push(check);
        }
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

    /// The index tensor of `name`: a parameter of an integer dtype.
    fn index_arg(&mut self, name: &str, e: &Expr) -> Option<NodeId> {
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
        if !matches!(n.kind, NodeKind::Input { .. }) {
            self.errors.push(
                e.span(),
                format!("the indices of `{name}` are a parameter of the graph (`ids: i64[N]`), which call entry checks in one pass before any kernel reads through them; a computed index tensor is not supported yet\nhelp: compute the indices in another graph and pass them in"),
            );
            return None;
        }
        Some(node)
    }
}
