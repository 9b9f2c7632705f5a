//! The runtime passes over `[N, C, spatial…]` planes: `max_pool` (`NodeKind::MaxPool`,
//! check/pool_kernel.rs; tensor-core pool.rs) and `resize` (`NodeKind::Resize`,
//! check/resize_kernel.rs; tensor-core resize.rs). Each is a step nest that reads the
//! input's planes whole (a parameter in place, else its temp) and writes the node's temp,
//! or the graph output that only copies it (`pools_into_outputs`: the passes are
//! memory-bound, and a copy of the output would add a quarter of a 3×3/2 pool's traffic and
//! two fifths of a ×2 resize's).

use std::collections::HashMap;

use crate::ir::{
    AxisStep, BufferRef, LoopNest, NodeId, NodeKind, PoolGeometry, ResizeTaps, ScanStep, Size,
    Stage, Temp, TypedGraph,
};

/// What a plane pass computes (the node's geometry).
pub(super) enum PlanePass<'a> {
    MaxPool(&'a PoolGeometry),
    Resize(&'a [ResizeTaps]),
}

/// The step nest of plane-pass node `node` over `x` (`[N, C, spatial…]`).
pub(super) fn lower_plane_pass(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    node: NodeId,
    x: NodeId,
    pass: PlanePass<'_>,
) -> LoopNest {
    let dims = &graph.nodes[x].dims;
    // A parameter passed unchanged is read in place (materialise.rs), a row-strided one
    // (the pitched kernel) through its row pitch.
    let input = match temp_of.get(&x) {
        Some(&t) => BufferRef::Temp(t),
        None => match graph.nodes[x].kind {
            NodeKind::Input { param } => BufferRef::Input(param),
            _ => unreachable!("a plane pass's input is a temp or a parameter"),
        },
    };
    let row_pitch = super::nests::row_pitch(&input, dims);
    let out = temp_of[&node];
    let (x_ref, out_ref, planes) = (
        input.clone(),
        BufferRef::Temp(out),
        Size::product(&dims[..2]),
    );
    let op = match pass {
        PlanePass::MaxPool(window) => AxisStep::MaxPool {
            x: x_ref,
            out: out_ref,
            planes,
            row_pitch,
            window: window.clone(),
        },
        PlanePass::Resize(axes) => AxisStep::Resize {
            x: x_ref,
            out: out_ref,
            planes,
            row_pitch,
            axes: axes.to_vec(),
        },
    };
    let step = ScanStep {
        input: out,
        output: out,
        outer: Size::lit(0),
        len: Size::lit(0),
        inner: Size::lit(0),
        op,
    };
    // Operands: the input, then the output it writes.
    super::step_nest_of(step, &[input, BufferRef::Temp(out)], &[1])
}

/// Each plane-pass step whose temp only a plain copy into a graph output reads (the copy's
/// nest alone in its stage, storing the temp's elements in order to an output of the same
/// dtype and length that nothing else writes) writes that output instead; the copy goes.
/// `products_into_outputs` does the same for products; a row-pitched output keeps its
/// copy (its addressing differs from the temp's).
pub(super) fn pools_into_outputs(
    graph: &TypedGraph,
    temps: &mut [Temp],
    nests: &mut Vec<LoopNest>,
    stages: &mut Vec<Stage>,
) {
    let mut s = 0;
    while s < stages.len() {
        let Some((copy, o)) = direct_output(graph, temps, nests, stages, s) else {
            s += 1;
            continue;
        };
        let step = stages[s].first;
        let Some(AxisStep::MaxPool { out, .. } | AxisStep::Resize { out, .. }) =
            nests[step].scan.as_mut().map(|st| &mut st.op)
        else {
            unreachable!("direct_output found a plane-pass step");
        };
        let BufferRef::Temp(t) = *out else {
            unreachable!("a step not yet redirected");
        };
        *out = BufferRef::Output(o);
        nests[step].operands[1].buffer = BufferRef::Output(o);
        temps[t].len = Size::lit(0);
        temps[t].row_local = None;
        stages.retain(|st| !(st.first == copy && st.count == 1));
        nests.remove(copy);
        for stage in stages.iter_mut().filter(|st| st.first > copy) {
            stage.first -= 1;
        }
        s += 1;
    }
}

/// For stage `s`, a plane-pass step alone: the nest that copies its temp into an output and
/// that output, when the step can write the output instead (see `pools_into_outputs`).
fn direct_output(
    graph: &TypedGraph,
    temps: &[Temp],
    nests: &[LoopNest],
    stages: &[Stage],
    s: usize,
) -> Option<(usize, usize)> {
    let stage = &stages[s];
    let step = stage.first;
    let Some(
        AxisStep::MaxPool {
            out: BufferRef::Temp(t),
            ..
        }
        | AxisStep::Resize {
            out: BufferRef::Temp(t),
            ..
        },
    ) = nests[step].scan.as_ref().map(|st| &st.op)
    else {
        return None;
    };
    let t = *t;
    if stage.count != 1 || stage.row_loop.is_some() {
        return None;
    }
    let (copy, o) = super::sole_copy_into_output(graph, temps, nests, step, t)?;
    let alone = stages.iter().any(|st| st.first == copy && st.count == 1);
    alone.then_some((copy, o))
}
