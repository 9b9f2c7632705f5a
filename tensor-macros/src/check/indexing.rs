//! Ops that read positions from an index tensor (docs/language.md, "Indexing"): `gather`.
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
        Typed::Strong(self.add(NodeKind::Gather { data, indices: ids, axis }, dtype, dims))
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
