//! `conv` on the GEMM engine: the node `check/vision.rs` builds for a convolution whose
//! sizes allow it, instead of its expression of einsums over strided views.
//!
//! Rules (why each): the dtype is `f32` or `f64` (the engine's float kernels; f16/bf16 keep
//! the einsum form, which converts while it materialises); every pad is ≥ 0 (they are
//! virtual, zeros the packer writes); not depthwise (`group = C = O`: its elementwise
//! form is faster, see below). The batch `N` and the spatial lengths may be named or
//! expressions: the im2col's window (tensor-core gemm/im2col.rs `ConvWindow`, run-time
//! `usize`s) is built at call time from the input's lengths and the output lengths'
//! dim expressions (`output_lengths`), and a too-short axis is the call's `Err` at entry
//! (`axes_hold_window`), before any kernel runs.
//! The expression form stays the op's expansion for `derive` (check/vision.rs records it),
//! so gradients come from the einsums' rules; both forms compute the same sums (the
//! product order differs, so results agree within the sums' rounding).

use super::Checker;
use crate::dim_expr::Poly;
use crate::dtype::DType;
use crate::ir::{ConvGeometry, NodeId, NodeKind, Size};
use crate::shape::Dim;

/// The scope name the conv node is bound to while the op's expression is checked.
pub(super) const CONV_NODE_NAME: &str = "__tg_conv_gemm";

/// The windows of a convolution or a pooling as the checker planned them (a view of
/// check/vision.rs `Windows`), read by this file and check/pool_kernel.rs.
pub(super) struct WindowPlan<'p> {
    pub kernel: &'p [i128],
    pub strides: &'p [i128],
    pub dilations: &'p [i128],
    /// `pad`'s counts for every axis of the input: (begin, end) per axis.
    pub pads: &'p [i128],
    pub outs: &'p [i128],
    /// Whether each spatial axis is symbolic.
    pub open: &'p [bool],
}

/// A convolution's windows and its `group`.
pub(super) struct ConvPlan<'p> {
    pub w: WindowPlan<'p>,
    pub group: i128,
}

impl WindowPlan<'_> {
    /// Spatial axis `a`'s window, `dilation·(k − 1) + 1`, and its pads, begin + end.
    fn window_and_pads(&self, a: usize) -> (i128, i128) {
        let window = (self.kernel[a] - 1) * self.dilations[a] + 1;
        (window, self.pads[2 * (a + 2)] + self.pads[2 * (a + 2) + 1])
    }
}

impl Checker<'_> {
    /// Adds the conv node of `x`, `w` and the bias (`[O]`, `x`'s dtype: checked by the
    /// caller) and binds it to [`CONV_NODE_NAME`], or `false` when the rules above send the
    /// convolution to its einsum form. The bias is the node's own operand, not an add after
    /// it: the runtime adds it to each tile of finished sums while the tile is in L1, the
    /// same `fl(Σ + b)` (NOTES.md "The conv's bias in the product's store").
    pub(super) fn conv_on_gemm(
        &mut self,
        (x, w, bias): (NodeId, NodeId, Option<NodeId>),
        plan: &ConvPlan<'_>,
    ) -> bool {
        let (dtype, dims) = (self.node(x).dtype, self.node(x).dims.clone());
        let rank = dims.len();
        let r = rank - 2;
        if !matches!(dtype, DType::F32 | DType::F64) {
            return false;
        }
        let usize_of = |v: &[i128]| -> Option<Vec<usize>> {
            v.iter().map(|&n| usize::try_from(n).ok()).collect()
        };
        let (Some(kernel), Some(strides), Some(dilations), Some(pads)) = (
            usize_of(plan.w.kernel),
            usize_of(plan.w.strides),
            usize_of(plan.w.dilations),
            usize_of(plan.w.pads),
        ) else {
            return false;
        };
        let (Some(o), Some(c)) = (self.node(w).dims[0].as_static(), dims[1].as_static()) else {
            return false;
        };
        // Depthwise (`group = C = O`): the einsum form is one fused elementwise pass over
        // the k² strided views, each output element a sum of k² products; as a product it
        // would be a GEMM of one row per group, all packing (measured 12x slower,
        // BENCHMARKS.md "Vision (issue 31)").
        if plan.group as usize == c && o == c {
            return false;
        }
        let Some(outs) = output_lengths(&dims[2..], plan) else {
            return false;
        };
        let window = ConvGeometry {
            group: plan.group as usize,
            kernel,
            strides,
            dilations,
            pads: (0..r).map(|a| pads[2 * (a + 2)]).collect(),
            lens: dims[2..].iter().map(Size::of).collect(),
            outs: outs.iter().map(Size::of).collect(),
        };
        let mut out_dims = vec![dims[0].clone(), Dim::Static(o)];
        out_dims.extend(outs);
        let node = self.add(NodeKind::Conv { x, w, bias, window }, dtype, out_dims);
        self.scope
            .insert(CONV_NODE_NAME.to_string(), super::Typed::Strong(node));
        true
    }
}

impl Checker<'_> {
    /// Call entry's check that each symbolic spatial axis of `x` holds the window: a
    /// window longer than its padded axis is the call's `Err` (`ShapeError::TooShort`,
    /// naming `op`), whichever form computes the convolution or pooling. The expression
    /// forms' slices alone would let a padded axis one shorter than the window through
    /// (each slice needs `window - 1`; the output length is then 0), and the GEMM form
    /// reads no slice: this requirement is the one rule for all (docs/language.md).
    pub(super) fn axes_hold_window(&mut self, x: NodeId, plan: &WindowPlan<'_>, op: &'static str) {
        let dims = self.node(x).dims.clone();
        for (a, axis) in dims[2..].iter().enumerate() {
            let (window, pads) = plan.window_and_pads(a);
            if let (true, Ok(least)) = (plan.open[a], usize::try_from(window - pads)) {
                if least > 0 {
                    self.graph.at_least.push((axis.clone(), least, op));
                }
            }
        }
    }
}

/// The output length of each spatial axis of `lens`: the plan's literal for a literal axis;
/// for a symbolic one ONNX's `(L + pads - dilation·(k - 1) - 1) / stride + 1` as a dim
/// expression, in the normal form the einsum form's slices give it (`floor((L + pads -
/// window + stride) / stride)`), so that both forms type the same. `None` when the
/// expression has no dim (a negative constant: cannot happen for a symbolic `L`).
fn output_lengths(lens: &[Dim], plan: &ConvPlan<'_>) -> Option<Vec<Dim>> {
    let r = lens.len();
    (0..r)
        .map(|a| {
            if !plan.w.open[a] {
                return usize::try_from(plan.w.outs[a]).ok().map(Dim::Static);
            }
            let (window, pads) = plan.w.window_and_pads(a);
            let s = plan.w.strides[a];
            let room = lens[a].poly().add(&Poly::constant(pads - window + s));
            Dim::from_poly(room.floor_div(u64::try_from(s).ok()?)).ok()
        })
        .collect()
}
