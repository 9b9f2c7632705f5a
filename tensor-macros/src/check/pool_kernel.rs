//! `max_pool` as one runtime pass (tensor-core pool.rs): the node `check/vision.rs` builds
//! for a pooling whose sizes allow it, instead of its expression (a `max` of one strided
//! view of the padded input per kernel position, which the fused kernels run as `k²`
//! gathers per output vector: 20% of the memory bound, BENCHMARKS.md "Vision (issue 31)").
//!
//! Rules (why each): the dtype is `f32` or `f64` (the runtime's kernel; `f16`/`bf16` keep the
//! expression form, which converts while it reads); the spatial lengths are literals (the
//! window is compiled in; a named spatial axis keeps the expression form, whose slices make
//! a too-short axis the call's `Err`); every pad is ≥ 0. The batch `N` and the channels may
//! be named (the step runs over `N·C` planes). The expression form stays the op's expansion
//! for `derive` (check/vision.rs records it), so gradients are unchanged; both forms give
//! the same values (`max` is exact and NaN-propagating in both; NaN payloads may differ).

use super::conv_gemm::WindowPlan;
use super::Checker;
use crate::dtype::DType;
use crate::ir::{NodeId, NodeKind, PoolGeometry};
use crate::shape::Dim;

/// The scope name the pool node is bound to while the op's value is checked.
pub(super) const POOL_NODE_NAME: &str = "__tg_max_pool";

impl Checker<'_> {
    /// Adds the max-pool node of `x` and binds it to [`POOL_NODE_NAME`]; `false` when the
    /// rules above keep the expression form.
    pub(super) fn max_pool_on_kernel(&mut self, x: NodeId, plan: &WindowPlan<'_>) -> bool {
        let (dtype, dims) = (self.node(x).dtype, self.node(x).dims.clone());
        let r = dims.len().saturating_sub(2);
        if !matches!(dtype, DType::F32 | DType::F64)
            || !(1..=3).contains(&r)
            || plan.open.iter().any(|&o| o)
        {
            return false;
        }
        let usize_of = |v: &[i128]| -> Option<Vec<usize>> {
            v.iter().map(|&n| usize::try_from(n).ok()).collect()
        };
        let lens: Option<Vec<usize>> = dims[2..].iter().map(Dim::as_static).collect();
        let (Some(lens), Some(kernel), Some(strides), Some(dilations), Some(pads), Some(outs)) = (
            lens,
            usize_of(plan.kernel),
            usize_of(plan.strides),
            usize_of(plan.dilations),
            usize_of(plan.pads),
            usize_of(plan.outs),
        ) else {
            return false;
        };
        let window = PoolGeometry {
            kernel,
            strides,
            dilations,
            pads: (0..r).map(|a| pads[2 * (a + 2)]).collect(),
            lens,
            outs: outs.clone(),
        };
        let mut out_dims = dims[..2].to_vec();
        out_dims.extend(outs.into_iter().map(Dim::Static));
        let node = self.add(NodeKind::MaxPool { x, window }, dtype, out_dims);
        self.scope
            .insert(POOL_NODE_NAME.to_string(), super::Typed::Strong(node));
        true
    }
}
