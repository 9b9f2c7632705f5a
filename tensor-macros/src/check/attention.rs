//! `attention(q, k, v, attn_mask = m, is_causal = false, scale = s, softcap = c)`
//! (docs/language.md, "Attention"): ONNX `Attention` (opset 23) over `[B, H, S, D]`, with
//! grouped-query heads when `k`/`v` have fewer heads. Computed by a runtime step in tiles
//! with an online softmax (tensor-core `attention`): no `S × S` matrix is stored.

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::{Expr, LitValue, NamedArg};
use crate::dtype::DType;
use crate::ir::{ConstValue, NodeId, NodeKind};
use crate::ops::TensorOp;
use crate::shape::{broadcast, Dim};

impl Checker<'_> {
    pub(super) fn check_attention(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let [q, k, v] = args else {
            self.errors.push(span, "`attention` takes the queries, keys and values: `attention(q, k, v, is_causal = true)`, each `[B, H, S, D]`");
            return Typed::Poison;
        };
        let Some((mask, causal, scale, softcap)) = self.attention_named_args(op, named) else {
            return Typed::Poison;
        };
        let (Some(q), Some(k), Some(v)) = (
            self.tensor_arg("attention", q),
            self.tensor_arg("attention", k),
            self.tensor_arg("attention", v),
        ) else {
            return Typed::Poison;
        };
        let dtype = self.node(q).dtype;
        let shapes: Vec<(DType, Vec<Dim>)> = [q, k, v]
            .iter()
            .map(|&n| (self.node(n).dtype, self.node(n).dims.clone()))
            .collect();
        let shown: Vec<String> = shapes.iter().map(|(d, dims)| type_text(*d, dims)).collect();
        let fail = |this: &mut Self, why: String| {
            this.errors.push(
                span,
                format!("`attention` of q {}, k {}, v {}: {why}\nnote: q is [B, Hq, Sq, D], k [B, Hkv, Skv, D], v [B, Hkv, Skv, Dv], one float dtype; Hkv divides Hq (grouped-query heads)", shown[0], shown[1], shown[2]),
            );
            Typed::Poison
        };
        if !dtype.is_float() || shapes.iter().any(|(d, _)| *d != dtype) {
            return fail(self, "they must have one float dtype".into());
        }
        if shapes.iter().any(|(_, dims)| dims.len() != 4) {
            return fail(self, "each must have rank 4".into());
        }
        let (qd, kd, vd) = (&shapes[0].1, &shapes[1].1, &shapes[2].1);
        if qd[0] != kd[0] || kd[0] != vd[0] {
            return fail(self, "their batches differ".into());
        }
        if qd[3] != kd[3] {
            return fail(
                self,
                format!("q's rows are {} long and k's {}", qd[3], kd[3]),
            );
        }
        if kd[1] != vd[1] || kd[2] != vd[2] {
            return fail(self, "k and v differ in heads or length".into());
        }
        let grouped = match (&qd[1], &kd[1]) {
            (a, b) if a == b => true,
            (Dim::Static(a), Dim::Static(b)) => *b > 0 && a % b == 0,
            _ => false,
        };
        if !grouped {
            return fail(
                self,
                format!(
                    "{} key/value heads do not divide {} query heads",
                    kd[1], qd[1]
                ),
            );
        }
        let c = dtype.compute();
        let scores = vec![qd[0].clone(), qd[1].clone(), qd[2].clone(), kd[2].clone()];
        // The mask as additive values in the compute type: a boolean one is 0 or -inf.
        let mask = match mask {
            None => None,
            Some(e) => {
                let Some(m) = self.attention_mask(e, dtype, &scores, c) else {
                    return Typed::Poison;
                };
                Some(m)
            }
        };
        let (qc, kc, vc) = (self.convert(q, c), self.convert(k, c), self.convert(v, c));
        let out_dims = vec![qd[0].clone(), qd[1].clone(), qd[2].clone(), vd[3].clone()];
        let node: NodeId = self.add(
            NodeKind::Attention {
                q: qc,
                k: kc,
                v: vc,
                mask,
                causal,
                scale,
                softcap,
            },
            c,
            out_dims,
        );
        Typed::Strong(self.convert(node, dtype))
    }

    /// `attn_mask`, `is_causal`, `scale` and `softcap`; `None` after an error.
    fn attention_named_args<'e>(
        &mut self,
        op: &'static TensorOp,
        named: &'e [NamedArg],
    ) -> Option<(Option<&'e Expr>, bool, Option<f64>, f64)> {
        let (mut mask, mut causal, mut scale, mut softcap) = (None, false, None, 0.0);
        for n in named {
            self.param_spec(op, n)?;
            let at = n.value.span();
            match n.name.to_string().as_str() {
                "attn_mask" => mask = Some(&n.value),
                "is_causal" => match &n.value {
                    Expr::Lit(LitValue::Bool(b), _) => causal = *b,
                    _ => {
                        self.errors.push(at, "`is_causal` is `true` or `false`");
                        return None;
                    }
                },
                name => match super::tensor_ops::float_literal(&n.value) {
                    Some(x) if x.is_finite() && (name == "scale" || x >= 0.0) => {
                        if name == "scale" {
                            scale = Some(x);
                        } else {
                            softcap = x;
                        }
                    }
                    _ => {
                        self.errors.push(
                            at,
                            format!(
                                "`{name}` of `attention` is a float literal{}",
                                if name == "softcap" {
                                    " ≥ 0 (0: no cap)"
                                } else {
                                    ""
                                }
                            ),
                        );
                        return None;
                    }
                },
            }
        }
        Some((mask, causal, scale, softcap))
    }

    /// The mask `e` as additive values in the compute type `c` (a boolean one is 0 or -inf),
    /// checked to broadcast to the `scores` dims; `None` after an error.
    fn attention_mask(
        &mut self,
        e: &Expr,
        dtype: DType,
        scores: &[Dim],
        c: DType,
    ) -> Option<NodeId> {
        let m = self.tensor_arg("attention", e)?;
        let (md, mdims) = (self.node(m).dtype, self.node(m).dims.clone());
        if broadcast(&mdims, scores).ok().as_deref() != Some(scores) {
            self.errors.push(
                e.span(),
                format!(
                    "`attn_mask` {} does not broadcast to the scores [B, Hq, Sq, Skv] = {}",
                    type_text(md, &mdims),
                    crate::shape::dims_text(scores)
                ),
            );
            return None;
        }
        if md == DType::Bool {
            let zero = self.float_const(0.0, c);
            let minus_inf = self.add(
                NodeKind::Const(ConstValue::Float(f64::NEG_INFINITY, None)),
                c,
                Vec::new(),
            );
            Some(self.add(
                NodeKind::Select {
                    cond: m,
                    a: zero,
                    b: minus_inf,
                },
                c,
                mdims,
            ))
        } else if md == dtype {
            Some(self.convert(m, c))
        } else {
            self.errors.push(e.span(), format!("`attn_mask` is `bool` (false masks a key) or the dtype `{}` of the scores (added to them), found `{}`", dtype.name(), md.name()));
            None
        }
    }
}
