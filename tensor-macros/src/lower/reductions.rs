//! A reduction's nests: the input evaluated over its loop box, combined into the
//! accumulator temp (arg reductions also keep the best value and a running index).

use std::collections::HashMap;

use crate::ir::{BufferRef, LoopNest, NodeId, Offset, ReduceKind, Sink, TypedGraph};
use crate::shape::Dim;

use super::nests::{build_regions, contiguous_strides};

pub(super) fn lower_reduction(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    node: NodeId,
    input: NodeId,
    kind: ReduceKind,
    axes: &[usize],
    best: Option<usize>,
) -> Result<Vec<LoopNest>, NodeId> {
    let in_dims = graph.nodes[input].dims.clone();
    let out_dims = &graph.nodes[node].dims;
    let acc_temp = temp_of[&node];
    build_regions(graph, temp_of, &in_dims, Some(node), &mut |b, map| {
        let value = b.value(input, map.clone())?;
        // The accumulator has the input's rank with the reduced axes 1 (keepdims form).
        let acc = b.operand(BufferRef::Temp(acc_temp), out_dims, map);
        let best = best.map(|t| b.operand(BufferRef::Temp(t), out_dims, map));
        let index = best.map(|_| {
            // The flat row-major index over the reduced axes only.
            let reduced: Vec<Dim> = axes.iter().map(|&a| in_dims[a].clone()).collect();
            let reduced_strides = contiguous_strides(&reduced);
            let mut strides = vec![Offset::zero(); in_dims.len()];
            let mut base = Offset::zero();
            for (k, &a) in axes.iter().enumerate() {
                if !in_dims[a].is_static(1) {
                    strides[a] = Offset::size(&reduced_strides[k]);
                    base = base.add(&map[a].offset.mul(&reduced_strides[k]));
                }
            }
            b.raw_operand(BufferRef::Index, base, strides)
        });
        Ok(Sink::Reduce {
            kind,
            acc,
            value,
            best,
            index,
            stores: Vec::new(),
            sibling: None,
        })
    })
}
