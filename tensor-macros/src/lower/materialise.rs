//! Which nodes get a temp (reductions, scans, products and what they read, reshapes of
//! computed values) and which are read in place (views of buffers).

use crate::ir::{AxisMap, NodeId, NodeKind, TypedGraph};

/// Nodes that get a temp, in topological order: reductions, and computed values that a
/// reshape reinterprets.
/// `forced` nodes get one too (`lower_graph`: read in part across symbolic pieces).
pub(super) fn materialised_nodes(graph: &TypedGraph, forced: &[NodeId]) -> Vec<NodeId> {
    // Only what the outputs need: the checker may leave nodes no output reads (a `let`
    // nobody uses, a branch of a composite), and a dead reduction must not run.
    let mut live = vec![false; graph.nodes.len()];
    let mut stack: Vec<NodeId> = graph.outputs.clone();
    while let Some(n) = stack.pop() {
        if !live[n] {
            live[n] = true;
            stack.extend(node_args(&graph.nodes[n].kind));
        }
    }
    let mut set = vec![false; graph.nodes.len()];
    for &n in forced {
        set[n] = live[n];
    }
    let mut users = vec![0usize; graph.nodes.len()];
    for (id, node) in graph.nodes.iter().enumerate() {
        if live[id] {
            for arg in node_args(&node.kind) {
                users[arg] += 1;
            }
        }
    }
    for (id, node) in graph.nodes.iter().enumerate() {
        if !live[id] {
            continue;
        }
        match &node.kind {
            NodeKind::Reduce { input, .. } => {
                set[id] = true;
                // An expensive value that a reduction consumes and something else uses too
                // (softmax's `exp(x - max)`) is computed once into a temp rather than in
                // both nests. The reduction may read it through a cast of its own (`sum`
                // of an `f32` accumulates in `f64`): the value before the cast is kept.
                let mut shared = *input;
                while let NodeKind::Cast { input } = graph.nodes[shared].kind {
                    if users[shared] > 1 {
                        break;
                    }
                    shared = input;
                }
                if users[shared] > 1 && expensive(graph, &set, shared) {
                    set[shared] = true;
                }
            }
            NodeKind::Reshape { input } if !addressable(graph, &set, *input) => set[*input] = true,
            // `gather` reads its data at computed positions: a row-major buffer.
            NodeKind::Gather { data, .. } if !addressable(graph, &set, *data) => set[*data] = true,
            // A scan reads a row-major temp of its accumulator dtype and writes its own.
            NodeKind::Scan { input, .. } | NodeKind::TopK { input, .. } => {
                set[id] = true;
                set[*input] = true;
            }
            // A runtime step over row-major buffers of its dtype: a parameter passed
            // unchanged is read in place, anything else from a temp.
            NodeKind::Attention { q, k, v, mask, .. } => {
                set[id] = true;
                let dtype = graph.nodes[id].dtype;
                for operand in [*q, *k, *v].into_iter().chain(*mask) {
                    let node = &graph.nodes[operand];
                    if !(matches!(node.kind, NodeKind::Input { .. }) && node.dtype == dtype) {
                        set[operand] = true;
                    }
                }
            }
            // `max_pool`'s and `resize`'s passes read row-major planes of their dtype, like
            // attention.
            NodeKind::MaxPool { x, .. } | NodeKind::Resize { x, .. } => {
                set[id] = true;
                let node = &graph.nodes[*x];
                if !(matches!(node.kind, NodeKind::Input { .. })
                    && node.dtype == graph.nodes[id].dtype)
                {
                    set[*x] = true;
                }
            }
            NodeKind::Scatter {
                data,
                indices,
                updates,
                ..
            } => {
                set[id] = true;
                for operand in [*data, *indices, *updates] {
                    set[operand] = true;
                }
            }
            NodeKind::GatherNd { data, indices, .. } => {
                set[id] = true;
                set[*data] = true;
                set[*indices] = true;
            }
            // Filled by its `TopK` node's step.
            NodeKind::TopKIndices { .. } => set[id] = true,
            // A product reads its operands in place when they are buffers or views of
            // one (a transpose is a stride), else from a temp.
            NodeKind::MatMul { a, b } | NodeKind::Conv { x: b, w: a, .. } => {
                set[id] = true;
                let bias = match &graph.nodes[id].kind {
                    NodeKind::Conv { bias, .. } => *bias,
                    _ => None,
                };
                for operand in [*a, *b].into_iter().chain(bias) {
                    if !viewable(graph, &set, operand) {
                        set[operand] = true;
                    }
                }
            }
            _ => {}
        }
    }
    (0..graph.nodes.len()).filter(|&i| set[i]).collect()
}

pub(super) fn node_args(kind: &NodeKind) -> Vec<NodeId> {
    match kind {
        NodeKind::Op { args, .. } => args.clone(),
        NodeKind::Select { cond, a, b } => vec![*cond, *a, *b],
        NodeKind::Cast { input }
        | NodeKind::Reduce { input, .. }
        | NodeKind::Scan { input, .. }
        | NodeKind::View { input, .. }
        | NodeKind::Reshape { input } => {
            vec![*input]
        }
        NodeKind::Reorg { inputs, fill, .. } => inputs.iter().copied().chain(*fill).collect(),
        NodeKind::MatMul { a, b } => vec![*a, *b],
        NodeKind::Conv { x, w, bias, .. } => [*x, *w].into_iter().chain(*bias).collect(),
        NodeKind::MaxPool { x, .. } | NodeKind::Resize { x, .. } => vec![*x],
        NodeKind::Gather { data, indices, .. } => vec![*data, *indices],
        NodeKind::TopK { input, .. } => vec![*input],
        NodeKind::TopKIndices { of } => vec![*of],
        NodeKind::Scatter {
            data,
            indices,
            updates,
            ..
        } => vec![*data, *indices, *updates],
        NodeKind::GatherNd { data, indices, .. } => vec![*data, *indices],
        NodeKind::Attention { q, k, v, mask, .. } => {
            [*q, *k, *v].into_iter().chain(*mask).collect()
        }
        NodeKind::Diagonal { input, .. } => vec![*input],
        NodeKind::Input { .. }
        | NodeKind::Position { .. }
        | NodeKind::Scalar { .. }
        | NodeKind::Const(_)
        | NodeKind::Count { .. } => Vec::new(),
    }
}

/// Whether computing `node` in a nest involves a transcendental (anything but the
/// cheap float ops), up to materialised values and leaves. Each node is visited once, so
/// shared subexpressions cost nothing extra.
pub(super) fn expensive(graph: &TypedGraph, materialised: &[bool], node: NodeId) -> bool {
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if seen[n] || materialised[n] {
            continue;
        }
        seen[n] = true;
        if let NodeKind::Op { op, .. } = &graph.nodes[n].kind {
            if (op.typing == crate::ops::Typing::FloatUnary && op.name != "sqrt")
                || op.name == "pow"
            {
                return true;
            }
        }
        stack.extend(node_args(&graph.nodes[n].kind));
    }
    false
}

/// Whether `node` is a contiguous buffer in row-major order: a parameter, a temp, or a
/// reshape of one.
pub(super) fn addressable(graph: &TypedGraph, materialised: &[bool], node: NodeId) -> bool {
    match &graph.nodes[node].kind {
        NodeKind::Input { .. } => true,
        NodeKind::Reshape { input } => addressable(graph, materialised, *input),
        _ => materialised[node],
    }
}

/// Whether `node` is a buffer read through an affine map: a parameter, a temp, a reshape
/// of one, or a view, slice or flip of one (no computation, no pieces).
pub(super) fn viewable(graph: &TypedGraph, materialised: &[bool], node: NodeId) -> bool {
    if materialised[node] {
        return true;
    }
    match &graph.nodes[node].kind {
        NodeKind::Input { .. } => true,
        NodeKind::Reshape { input } => addressable(graph, materialised, *input),
        NodeKind::View { input, .. } | NodeKind::Diagonal { input, .. } => {
            viewable(graph, materialised, *input)
        }
        NodeKind::Reorg {
            inputs,
            fill: None,
            axes,
        } if axes
            .iter()
            .all(|a| !matches!(a, AxisMap::Pieces(_) | AxisMap::SymbolicPieces(_))) =>
        {
            viewable(graph, materialised, inputs[0])
        }
        _ => false,
    }
}
