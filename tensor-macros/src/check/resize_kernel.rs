//! `resize` as one runtime pass (tensor-core resize.rs): the node `check/vision.rs` builds
//! for a resize whose sizes allow it, instead of its expression form (per resized axis,
//! strided views weighted and interleaved, each axis a materialised temp: 14% of the memory
//! bound for a linear ×2, BENCHMARKS.md "Vision (issue 31)").
//!
//! Rules (why each): the dtype is `f32` or `f64` (the runtime's kernel; `f16`/`bf16` and the
//! integer and `bool` dtypes `nearest` takes keep the expression form); the tensor is `[N,
//! C, spatial…]` with 1 to 3 spatial axes, every one of literal length (the taps are
//! compiled in), and only spatial axes are resized (the pass runs over `N·C` planes, so `N`
//! and `C` may be named; a resize of `N` or `C`, or of a rank-1 or rank-2 tensor, keeps the
//! expression form). The pass computes each output as the expression form does, the same
//! taps and weights in the same order with every step rounded, so both forms give the same
//! bits (NaN payloads aside); the expression form stays the op's expansion for `derive`
//! (check/vision.rs records it), so gradients are unchanged.

use super::Checker;
use crate::dtype::DType;
use crate::ir::{NodeId, NodeKind, ResizeTaps};
use crate::shape::Dim;

/// The scope name the resize node is bound to while the op's value is checked.
pub(super) const RESIZE_NODE_NAME: &str = "__tg_resize";

impl Checker<'_> {
    /// Adds the resize node of `x` for the resized axes `resized` (`(axis, taps)`) and binds
    /// it to [`RESIZE_NODE_NAME`]; `false` when the rules above keep the expression form.
    pub(super) fn resize_on_kernel(&mut self, x: NodeId, resized: &[(usize, ResizeTaps)]) -> bool {
        let (dtype, dims) = (self.node(x).dtype, self.node(x).dims.clone());
        let rank = dims.len();
        if !matches!(dtype, DType::F32 | DType::F64)
            || !(3..=5).contains(&rank)
            || resized.is_empty()
            || resized.iter().any(|(k, _)| *k < 2)
        {
            return false;
        }
        let mut axes = Vec::new();
        for (k, dim) in dims.iter().enumerate().skip(2) {
            let Some(len) = dim.as_static() else {
                return false;
            };
            axes.push(match resized.iter().find(|(a, _)| *a == k) {
                Some((_, taps)) => taps.clone(),
                None => ResizeTaps {
                    len,
                    out: len,
                    taps: 0,
                    index: Vec::new(),
                    weights: Vec::new(),
                    runs: Vec::new(),
                },
            });
        }
        // Runs matter along the last axis only (the outer axes' outputs are whole rows).
        let last = axes.len() - 1;
        for a in &mut axes[..last] {
            a.runs.clear();
        }
        let mut out_dims = dims[..2].to_vec();
        out_dims.extend(axes.iter().map(|a| Dim::Static(a.out)));
        let node = self.add(NodeKind::Resize { x, axes }, dtype, out_dims);
        self.scope
            .insert(RESIZE_NODE_NAME.to_string(), super::Typed::Strong(node));
        true
    }
}
