//! Ranking along an axis (docs/language.md, "Ranking"): `top_k` (a tuple of values and
//! `i64` positions), `sort` and `argsort`. Computed by a runtime step (tensor-core
//! `reduce::top_k`) from a temp of the input into temps of the results: ties rank by the
//! lower position (ONNX `TopK`), NaN above every number.

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::{Expr, NamedArg};
use crate::dtype::DType;
use crate::ir::NodeKind;
use crate::ops::TensorOp;
use crate::shape::Dim;

impl Checker<'_> {
    /// `top_k(x, k = K, axis = -1, largest = true, sorted = true)` → `(values, indices)`.
    pub(super) fn check_top_k(
        &mut self,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Option<Vec<Typed>> {
        let op = crate::ops::registry_row("top_k");
        let [x] = args else {
            self.errors
                .push(span, "`top_k` takes one tensor: `top_k(x, k = 5)`");
            return None;
        };
        let x = self.tensor_arg("top_k", x)?;
        let (mut k, mut axis, mut largest) = (None, (-1i128, span), true);
        for n in named {
            self.param_spec(op, n)?;
            let at = n.value.span();
            match n.name.to_string().as_str() {
                "k" => k = Some(&n.value),
                "axis" => {
                    axis = (
                        super::tensor_ops::int_literal(&n.value).or_else(|| {
                            self.errors
                                .push(at, "`axis` of `top_k` is an integer literal");
                            None
                        })?,
                        at,
                    )
                }
                flag => {
                    let v = self.bool_literal(&n.value, flag)?;
                    if flag == "largest" {
                        largest = v;
                    }
                    // `sorted = false` lets ONNX return any order; the values come sorted.
                }
            }
        }
        let Some(k) = k else {
            self.errors.push(
                span,
                "`top_k` needs `k = …`: how many values to keep (`top_k(x, k = 5)`)",
            );
            return None;
        };
        let k_dim = self.dim_arg("top_k", k)?;
        let a = self.reorg_axis("top_k", x, axis)?;
        let dims = self.node(x).dims.clone();
        match (&dims[a], &k_dim) {
            (_, kd) if *kd == dims[a] => {}
            (Dim::Static(n), Dim::Static(kv)) if kv > n => {
                self.errors.push(
                    k.span(),
                    format!(
                        "`top_k` keeps {kv} of axis {a} of {}, which has {n}",
                        type_text(self.node(x).dtype, &dims)
                    ),
                );
                return None;
            }
            (Dim::Static(_), Dim::Static(_)) => {}
            (axis_dim, Dim::Static(kv)) => {
                // A symbolic axis: the call checks that it holds `k`.
                if *kv > 0 {
                    self.graph.at_least.push((axis_dim.clone(), *kv, "top_k"));
                }
            }
            (_, kd) => {
                self.errors.push(
                    k.span(),
                    format!("`top_k` keeps a literal number of values, or the whole axis `{}`; `k = {kd}` is neither", dims[a]),
                );
                return None;
            }
        }
        let (values, indices) = self.ranking(x, a, k_dim, largest);
        Some(vec![Typed::Strong(values), Typed::Strong(indices)])
    }

    /// `sort(x, axis = -1, descending = false)` and `argsort(…)`: `top_k` over the whole
    /// axis, the values or their positions.
    pub(super) fn check_sort(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        let [x] = args else {
            self.errors.push(
                span,
                format!("`{name}` takes one tensor: `{name}(x, axis = -1)`"),
            );
            return Typed::Poison;
        };
        let Some(x) = self.tensor_arg(name, x) else {
            return Typed::Poison;
        };
        let (mut axis, mut descending) = ((-1i128, span), false);
        for n in named {
            if self.param_spec(op, n).is_none() {
                return Typed::Poison;
            }
            let at = n.value.span();
            if n.name == "axis" {
                match super::tensor_ops::int_literal(&n.value) {
                    Some(v) => axis = (v, at),
                    None => {
                        self.errors
                            .push(at, format!("`axis` of `{name}` is an integer literal"));
                        return Typed::Poison;
                    }
                }
            } else {
                match self.bool_literal(&n.value, "descending") {
                    Some(v) => descending = v,
                    None => return Typed::Poison,
                }
            }
        }
        let Some(a) = self.reorg_axis(name, x, axis) else {
            return Typed::Poison;
        };
        let whole = self.node(x).dims[a].clone();
        let (values, indices) = self.ranking(x, a, whole, descending);
        Typed::Strong(if name == "sort" { values } else { indices })
    }

    /// The values and positions nodes of ranking `x` along `axis`, `k` kept.
    fn ranking(&mut self, x: usize, axis: usize, k: Dim, largest: bool) -> (usize, usize) {
        let mut dims = self.node(x).dims.clone();
        dims[axis] = k;
        let dtype = self.node(x).dtype;
        let values = self.add(
            NodeKind::TopK {
                input: x,
                axis,
                largest,
            },
            dtype,
            dims.clone(),
        );
        let indices = self.add(NodeKind::TopKIndices { of: values }, DType::I64, dims);
        (values, indices)
    }

    /// `true` or `false`, for the flag `flag`.
    fn bool_literal(&mut self, e: &Expr, flag: &str) -> Option<bool> {
        match e {
            Expr::Lit(crate::ast::LitValue::Bool(b), _) => Some(*b),
            _ => {
                self.errors
                    .push(e.span(), format!("`{flag}` is `true` or `false`"));
                None
            }
        }
    }
}
