//! Losses (docs/language.md, "Losses"), ONNX `SoftmaxCrossEntropyLoss` and
//! `NegativeLogLikelihoodLoss`: `softmax_cross_entropy(scores, labels, weight = w,
//! reduction = mean, ignore_index = i)` and `nll_loss(log_probs, labels, …)`. Scores are
//! `[N, C, d…]` (classes on axis 1), labels `[N, d…]` of any integer dtype. Each is a
//! graph of existing ops that the lowering fuses into passes over the rows of scores:
//! - the label's entry is picked by a compare of positions along the class axis with the
//!   label (`sum(where(class == label, x, 0))`), so no gather and no one-hot tensor;
//! - its weight the same way (`weight[label]`, or 1), set to 0 for an `ignore_index`
//!   label: the weighted loss of an ignored element is 0 and it leaves `mean`'s divisor;
//! - `softmax_cross_entropy`'s `-log softmax(x)[label]` is `log Σ exp(x - max) - (x[label]
//!   - max)`, softmax's own shifted sums.
//! Labels that are a parameter are checked at call entry to lie in `0..C` (or to be
//! `ignore_index`); the graph then returns `Result`.

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::{Expr, NamedArg};
use crate::dtype::DType;
use crate::ir::{ConstValue, IndexCheck, NodeId, NodeKind, ReduceKind};
use crate::ops::{self, TensorOp};
use crate::shape::Dim;

impl Checker<'_> {
    pub(super) fn check_loss(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        let [scores, labels] = args else {
            self.errors.push(span, format!("`{name}` takes the scores and the labels: `{name}(x, labels, reduction = mean)`"));
            return Typed::Poison;
        };
        let Some((weight, reduction, ignore)) = self.loss_named_args(op, named) else {
            return Typed::Poison;
        };
        let Some((x, l, xd, dims)) = self.loss_operands(name, scores, labels, ignore) else {
            return Typed::Poison;
        };
        let c = xd.compute();
        let xc = self.convert(x, c);
        let axes = [1usize];
        // `hot`: where the class axis's position is the label, over the scores' dims.
        let wide = self.convert(l, DType::I64);
        let label = self.insert_axis(wide, 1);
        let class = self.add(NodeKind::Position { axis: 1 }, DType::I64, dims.clone());
        let hot = self.op_node("equal", &[class, label]);
        let zero = self.float_const(0.0, c);
        // `v` (broadcast to the scores' dims) at the label, summed over the class axis.
        let pick = |this: &mut Self, v: NodeId| -> NodeId {
            let chosen = this.add(
                NodeKind::Select {
                    cond: hot,
                    a: v,
                    b: zero,
                },
                c,
                dims.clone(),
            );
            this.reduce_node(chosen, ReduceKind::Sum, &axes, c)
        };
        // A value at the label, sign of zero included: the max over the class axis of the
        // value at the label and −∞ elsewhere (a sum would turn a picked −0 into +0, where
        // ONNX's `-x[label]` gives +0 for −0, and `-x[label] · w[label]` +0 for w = −0).
        // Every label that is not ignored matches a class (checked at call entry).
        let minus_inf = self.float_const(f64::NEG_INFINITY, c);
        let pick_exact = |this: &mut Self, v: NodeId| -> NodeId {
            let chosen = this.add(
                NodeKind::Select {
                    cond: hot,
                    a: v,
                    b: minus_inf,
                },
                c,
                dims.clone(),
            );
            this.reduce_node(chosen, ReduceKind::Max, &axes, c)
        };
        // The label's weight: `weight[label]`, or 1; 0 where no class matches (ignored).
        let one = self.float_const(1.0, c);
        let w = match weight {
            None => pick(self, one),
            Some(e) => {
                let Some(wn) = self.tensor_arg(name, e) else {
                    return Typed::Poison;
                };
                let (wd, wdims) = (self.node(wn).dtype, self.node(wn).dims.clone());
                if wd != xd || wdims != [dims[1].clone()] {
                    self.errors.push(
                        e.span(),
                        format!(
                            "`weight` of `{name}` is one {} per class: {}, found {}",
                            xd.name(),
                            type_text(xd, &[dims[1].clone()]),
                            type_text(wd, &wdims)
                        ),
                    );
                    return Typed::Poison;
                }
                // Along the class axis: `[C]` as `[1, C, 1, …]`.
                let mut map = vec![None; dims.len()];
                map[1] = Some(0);
                let mut wv_dims = vec![Dim::Static(1); dims.len()];
                wv_dims[1] = dims[1].clone();
                let wc = self.convert(wn, c);
                let wv = self.add(NodeKind::View { input: wc, map }, c, wv_dims);
                pick_exact(self, wv)
            }
        };
        // An `ignore_index` inside `0..C` matches a class: its weight is set to 0 here.
        let kept = ignore.map(|i| {
            let i = self.add(NodeKind::Const(ConstValue::Int(i)), DType::I64, Vec::new());
            self.op_node("not_equal", &[label, i])
        });
        let w = match kept {
            None => w,
            Some(kept) => {
                let wd = self.node(w).dims.clone();
                self.add(
                    NodeKind::Select {
                        cond: kept,
                        a: w,
                        b: zero,
                    },
                    c,
                    wd,
                )
            }
        };
        // `-log p[label]`, per element, keepdims form `[N, 1, d…]`.
        let neg_log_p = if name == "nll_loss" {
            let p = pick_exact(self, xc);
            self.op_node("neg", &[p])
        } else {
            let m = self.reduce_node(xc, ReduceKind::MaxNoNan, &axes, c);
            let d = self.op_node("sub", &[xc, m]);
            let e = self.op_with_node(&ops::EXP_NONPOS, &[d]);
            let s = self.reduce_node(e, ReduceKind::Sum, &axes, c);
            let lse = self.op_node("log", &[s]);
            let picked = pick_exact(self, d);
            self.op_node("sub", &[lse, picked])
        };
        let weighted = self.op_node("mul", &[w, neg_log_p]);
        // An ignored element's loss is +0 (ONNX), not `0 · -log p`: −0 for a positive score,
        // NaN for a label outside the classes (its pick is −∞).
        let weighted = match kept {
            None => weighted,
            Some(kept) => {
                let wd = self.node(weighted).dims.clone();
                self.add(
                    NodeKind::Select {
                        cond: kept,
                        a: weighted,
                        b: zero,
                    },
                    c,
                    wd,
                )
            }
        };
        self.loss_total(weighted, w, &dims, &reduction, xd)
    }

    /// `weight`, `reduction` and `ignore_index` of a loss; `None` after an error.
    fn loss_named_args<'e>(
        &mut self,
        op: &'static TensorOp,
        named: &'e [NamedArg],
    ) -> Option<(Option<&'e Expr>, String, Option<i128>)> {
        let (mut weight, mut reduction, mut ignore) = (None, "mean".to_string(), None);
        for n in named {
            self.param_spec(op, n)?;
            let at = n.value.span();
            match n.name.to_string().as_str() {
                "weight" => weight = Some(&n.value),
                "ignore_index" => match super::tensor_ops::int_literal(&n.value) {
                    Some(v) => ignore = Some(v),
                    None => {
                        self.errors.push(at, "`ignore_index` is an integer literal");
                        return None;
                    }
                },
                _ => match &n.value {
                    Expr::Var(v) if ["mean", "sum", "none"].contains(&v.to_string().as_str()) => {
                        reduction = v.to_string();
                    }
                    _ => {
                        self.errors
                            .push(at, "`reduction` is `mean`, `sum` or `none` (ONNX's)");
                        return None;
                    }
                },
            }
        }
        Some((weight, reduction, ignore))
    }

    /// The scores `[N, C, …]` (float) and the labels (integers shaped as the scores without
    /// their class axis), checked; a parameter's labels get their call-entry check. Returns
    /// the scores' and labels' nodes, and the scores' dtype and dims.
    fn loss_operands(
        &mut self,
        name: &'static str,
        scores: &Expr,
        labels: &Expr,
        ignore: Option<i128>,
    ) -> Option<(NodeId, NodeId, DType, Vec<Dim>)> {
        let x = self.tensor_arg(name, scores)?;
        let l = self.tensor_arg(name, labels)?;
        let (xd, dims) = (self.node(x).dtype, self.node(x).dims.clone());
        if !xd.is_float() || dims.len() < 2 {
            self.errors.push(
                scores.span(),
                format!("`{name}` takes float scores of rank 2 or more, `[N, C, …]` with the classes on axis 1; found {}", type_text(xd, &dims)),
            );
            return None;
        }
        let (ld, label_dims) = (self.node(l).dtype, self.node(l).dims.clone());
        let mut want = dims.clone();
        want.remove(1);
        if !ld.is_integer() || label_dims != want {
            self.errors.push(
                labels.span(),
                format!(
                    "the labels of `{name}` are integers shaped as the scores without their class axis: {} for scores {}, found {}",
                    type_text(DType::I64, &want),
                    type_text(xd, &dims),
                    type_text(ld, &label_dims)
                ),
            );
            return None;
        }
        if let NodeKind::Input { param } = self.node(l).kind {
            self.require_index_check(IndexCheck {
                param,
                bound: dims[1].clone(),
                op: name,
                negative: false,
                skip: ignore,
                tuple_bounds: Vec::new(),
            });
        }
        Some((x, l, xd, dims))
    }

    /// The weighted per-element loss (an ignored element's +0), reduced by `reduction`
    /// (`none`, `sum`, `mean`: the sum over the sum of the labels' weights).
    fn loss_total(
        &mut self,
        weighted: NodeId,
        w: NodeId,
        dims: &[Dim],
        reduction: &str,
        xd: DType,
    ) -> Typed {
        let (c, axes) = (xd.compute(), [1usize]);
        let per_element = self.drop_axes(weighted, &axes);
        let all: Vec<usize> = (0..per_element_rank(dims)).collect();
        // Sums accumulate in f64, as `sum` of a float does.
        let total = |this: &mut Self, v: NodeId| -> NodeId {
            let wide = this.convert(v, DType::F64);
            let s = this.reduce_node(wide, ReduceKind::Sum, &all, DType::F64);
            this.drop_axes(s, &all)
        };
        let y = match reduction {
            "none" => per_element,
            "sum" => {
                let s = total(self, per_element);
                self.convert(s, c)
            }
            _ => {
                let s = total(self, per_element);
                let w_elements = self.drop_axes(w, &axes);
                let n = total(self, w_elements);
                let m = self.op_node("div", &[s, n]);
                self.convert(m, c)
            }
        };
        Typed::Strong(self.convert(y, xd))
    }
}

/// The rank of the per-element loss: the scores' without the class axis.
fn per_element_rank(dims: &[Dim]) -> usize {
    dims.len() - 1
}
