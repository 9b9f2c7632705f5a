//! Typed graph → loop IR. Outputs of one shape share one fused loop nest. Each input is
//! addressed by strides into the nest (0 where it broadcasts), never copied; adjacent
//! axes that every buffer walks contiguously collapse into one, so same-shape inputs
//! become one flat loop. Nodes are placed at the outermost level they can live at:
//! per call (constants, scalars, rank-0 inputs), per row (inputs splatted along the
//! inner axis), or per SIMD chunk.

use crate::ir::{Buffer, Kernel, Level, LoopNest, NodeId, NodeKind, Operand, TypedGraph};

pub fn lower_graph(graph: &TypedGraph) -> Kernel {
    let mut shapes: Vec<Vec<usize>> = Vec::new();
    for &out in &graph.outputs {
        let dims = &graph.nodes[out].dims;
        if !shapes.contains(dims) {
            shapes.push(dims.clone());
        }
    }
    let nests = shapes.iter().map(|dims| lower_nest(graph, dims)).collect();
    Kernel { nests }
}

/// Row-major strides of `dims` aligned to the loop shape `loop_dims`, 0 on broadcast axes.
fn aligned_strides(dims: &[usize], loop_dims: &[usize]) -> Vec<usize> {
    let lead = loop_dims.len() - dims.len();
    let mut strides = vec![0; loop_dims.len()];
    let mut stride = 1;
    for axis in (0..loop_dims.len()).rev() {
        if axis < lead {
            break;
        }
        let d = dims[axis - lead];
        strides[axis] = if d == 1 { 0 } else { stride };
        stride *= d;
    }
    strides
}

fn lower_nest(graph: &TypedGraph, loop_dims: &[usize]) -> LoopNest {
    let stores: Vec<(usize, NodeId)> = graph
        .outputs
        .iter()
        .enumerate()
        .filter(|(_, &n)| graph.nodes[n].dims == loop_dims)
        .map(|(i, &n)| (i, n))
        .collect();

    // Nodes reachable from this nest's outputs, in topological (id) order.
    let mut needed = vec![false; graph.nodes.len()];
    let mut stack: Vec<NodeId> = stores.iter().map(|&(_, n)| n).collect();
    while let Some(n) = stack.pop() {
        if needed[n] {
            continue;
        }
        needed[n] = true;
        match &graph.nodes[n].kind {
            NodeKind::Op { args, .. } => stack.extend(args),
            NodeKind::Select { cond, a, b } => stack.extend([*cond, *a, *b]),
            NodeKind::Cast { input } => stack.push(*input),
            NodeKind::Input { .. } | NodeKind::Scalar { .. } | NodeKind::Const(_) => {}
        }
    }

    // Buffers and their full-rank strides.
    let mut buffers: Vec<(Buffer, Vec<usize>)> = Vec::new();
    for (id, node) in graph.nodes.iter().enumerate() {
        if let (true, NodeKind::Input { param }) = (needed[id], &node.kind) {
            buffers.push((Buffer::Input(*param), aligned_strides(&node.dims, loop_dims)));
        }
    }
    for &(index, node) in &stores {
        let _ = node;
        buffers.push((Buffer::Output(index), aligned_strides(loop_dims, loop_dims)));
    }

    // Drop axes of extent 1, then merge neighbours every buffer walks contiguously.
    let mut axes: Vec<(usize, Vec<usize>)> = Vec::new();
    for (axis, &extent) in loop_dims.iter().enumerate() {
        if extent == 1 {
            continue;
        }
        let strides: Vec<usize> = buffers.iter().map(|b| b.1[axis]).collect();
        if let Some((prev_extent, prev_strides)) = axes.last_mut() {
            let contiguous = prev_strides.iter().zip(&strides).all(|(&p, &s)| p == s * extent);
            if contiguous {
                *prev_extent *= extent;
                *prev_strides = strides;
                continue;
            }
        }
        axes.push((extent, strides));
    }
    if axes.is_empty() {
        axes.push((1, vec![0; buffers.len()]));
    }
    let (inner, inner_strides) = axes.pop().expect("at least one axis");
    let outer: Vec<usize> = axes.iter().map(|a| a.0).collect();
    let operands: Vec<Operand> = buffers
        .iter()
        .enumerate()
        .map(|(k, (buffer, _))| Operand {
            buffer: buffer.clone(),
            outer_strides: axes.iter().map(|a| a.1[k]).collect(),
            inner_stride: inner_strides[k],
        })
        .collect();
    debug_assert!(operands.iter().all(|o| o.inner_stride <= 1), "the inner axis is contiguous or broadcast");

    // Levels: inputs by how they move; everything else is as deep as its deepest argument.
    let mut level = vec![Level::Global; graph.nodes.len()];
    let mut schedule = Vec::new();
    for (id, node) in graph.nodes.iter().enumerate() {
        if !needed[id] {
            continue;
        }
        level[id] = match &node.kind {
            NodeKind::Input { param } => {
                let op = operands.iter().find(|o| o.buffer == Buffer::Input(*param)).expect("input operand");
                if op.inner_stride == 1 {
                    Level::Inner
                } else if op.outer_strides.iter().any(|&s| s != 0) {
                    Level::Row
                } else {
                    Level::Global
                }
            }
            NodeKind::Scalar { .. } | NodeKind::Const(_) => Level::Global,
            NodeKind::Op { args, .. } => args.iter().map(|&a| level[a]).max().unwrap_or(Level::Global),
            NodeKind::Select { cond, a, b } => level[*cond].max(level[*a]).max(level[*b]),
            NodeKind::Cast { input } => level[*input],
        };
        schedule.push((id, level[id]));
    }

    LoopNest { outer, inner, operands, schedule, stores }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_align_right_and_zero_broadcast_axes() {
        assert_eq!(aligned_strides(&[768], &[4, 768]), vec![0, 1]);
        assert_eq!(aligned_strides(&[4, 1], &[4, 8]), vec![1, 0]);
        assert_eq!(aligned_strides(&[2, 3, 4], &[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(aligned_strides(&[], &[2, 3]), vec![0, 0]);
    }
}
