//! Typed graph → loop IR.
//!
//! Stages: every reduction is materialised into a temp by its own loop nest, with its
//! elementwise producers computed inside that nest (`sum(x * y)` never stores `x * y`).
//! A reshape of a computed value materialises that value first (row-major reinterpretation
//! is only free on a contiguous buffer). Everything else is fused: graph outputs of one
//! shape share one loop nest, reading parameters and temps in place.
//!
//! Addressing: a value is evaluated in a nest at a *mapping* from its own axes to the
//! nest's loop axes (or to nothing, where it broadcasts). Broadcasting and views
//! (transpose, dimshuffle, expand_dims, squeeze, broadcast_to) only change mappings, so
//! they reach the loads as strides: views, never copies. Adjacent loop axes that every
//! buffer walks contiguously collapse, so same-shape inputs become one flat loop.
//!
//! Levels: values depending only on constants, scalars and single-element buffers are
//! computed once per call; values reading only buffers splatted along the inner axis,
//! once per row; the rest once per SIMD chunk.

use std::collections::HashMap;

use crate::ir::{
    BufferRef, Kernel, Level, LoopNest, NodeId, NodeKind, Operand, ReduceKind, Sink, Stage, Tasks,
    Temp, TempInit, TypedGraph, Value, ValueSource,
};

/// Node axis → loop axis, `None` where the node's index is 0 (its dim is 1 or broadcast).
type Mapping = Vec<Option<usize>>;

pub fn lower_graph(graph: &TypedGraph) -> Kernel {
    let materialised = materialised_nodes(graph);
    let mut temps = Vec::new();
    let mut temp_of: HashMap<NodeId, usize> = HashMap::new();
    let mut nests = Vec::new();
    for &node in &materialised {
        let n = &graph.nodes[node];
        let len = n.dims.iter().product();
        let init = match &n.kind {
            NodeKind::Reduce { kind, .. } => kind.identity(),
            _ => TempInit::Zero,
        };
        temps.push(Temp {
            dtype: n.dtype.compute(),
            len,
            init,
            row_local: None,
        });
        temp_of.insert(node, temps.len() - 1);
        let nest = match &n.kind {
            NodeKind::Reduce { input, kind, axes } => {
                let best = if matches!(kind, ReduceKind::ArgMax | ReduceKind::ArgMin) {
                    let init = if *kind == ReduceKind::ArgMax {
                        TempInit::Lowest
                    } else {
                        TempInit::Highest
                    };
                    temps.push(Temp {
                        dtype: graph.nodes[*input].dtype.compute(),
                        len,
                        init,
                        row_local: None,
                    });
                    Some(temps.len() - 1)
                } else {
                    None
                };
                lower_reduction(graph, &temp_of, node, *input, *kind, axes, best)
            }
            _ => {
                let mut b = NestBuilder::new(graph, &temp_of, n.dims.clone(), Some(node));
                let v = b.value(node, identity(n.dims.len()));
                let target = b.operand(
                    BufferRef::Temp(temp_of[&node]),
                    &n.dims,
                    &identity(n.dims.len()),
                );
                b.finish(Sink::Store(vec![(target, v)]))
            }
        };
        nests.push(nest);
    }

    // Outputs, one nest per distinct shape.
    let mut shapes: Vec<Vec<usize>> = Vec::new();
    for &out in &graph.outputs {
        let dims = &graph.nodes[out].dims;
        if !shapes.contains(dims) {
            shapes.push(dims.clone());
        }
    }
    for dims in shapes {
        let mut b = NestBuilder::new(graph, &temp_of, dims.clone(), None);
        let mut stores = Vec::new();
        for (index, &out) in graph.outputs.iter().enumerate() {
            if graph.nodes[out].dims == dims {
                let v = b.value(out, identity(dims.len()));
                let target = b.operand(BufferRef::Output(index), &dims, &identity(dims.len()));
                stores.push((target, v));
            }
        }
        nests.push(b.finish(Sink::Store(stores)));
    }
    let output_lens: Vec<usize> = graph
        .outputs
        .iter()
        .map(|&o| graph.nodes[o].dims.iter().product())
        .collect();
    for nest in &mut nests {
        split_flat_loop(nest);
    }
    let stages = plan_stages(&temps, &output_lens, &nests);
    mark_row_local(&mut temps, &nests, &stages);
    let stages = stages
        .into_iter()
        .map(|mut stage| {
            if let Some(tasks) = &mut stage.tasks {
                tasks.chunked.retain(
                    |(b, _)| !matches!(b, BufferRef::Temp(t) if temps[*t].row_local.is_some()),
                );
            }
            stage
        })
        .collect();
    Kernel {
        temps,
        nests,
        stages,
    }
}

/// Temps that a row stage writes and nothing outside it reads hold one row at a time.
fn mark_row_local(temps: &mut [Temp], nests: &[LoopNest], stages: &[Stage]) {
    for stage in stages {
        let Some(rows) = stage.row_loop else { continue };
        let inside = stage.first..stage.first + stage.count;
        for nest in &nests[inside.clone()] {
            for o in written_operands(nest) {
                let BufferRef::Temp(t) = nest.operands[o].buffer else {
                    continue;
                };
                let read_outside = nests.iter().enumerate().any(|(k, n)| {
                    !inside.contains(&k)
                        && n.operands.iter().any(|op| op.buffer == BufferRef::Temp(t))
                });
                if !read_outside && temps[t].len % rows == 0 {
                    temps[t].row_local = Some(temps[t].len / rows);
                }
            }
        }
    }
}

/// Kernels with fewer elements than this run on the calling thread only: below it the
/// cost of waking threads exceeds the work (see BENCHMARKS.md).
pub const PARALLEL_MIN_ELEMENTS: usize = 1 << 18;
/// Elements per task: large enough to amortise scheduling, small enough to balance.
const TASK_ELEMENTS: usize = 1 << 16;

/// A large flat loop becomes rows of `B` (a multiple of the lane count dividing the
/// length), so it can be split across threads.
fn split_flat_loop(nest: &mut LoopNest) {
    if !nest.outer.is_empty() || nest.inner < PARALLEL_MIN_ELEMENTS {
        return;
    }
    let Some(block) = (12..=16)
        .rev()
        .map(|b| 1usize << b)
        .find(|b| nest.inner % b == 0)
    else {
        return;
    };
    nest.outer = vec![nest.inner / block];
    for op in &mut nest.operands {
        op.outer_strides = vec![op.inner_stride * block];
    }
    nest.inner = block;
}

/// The temps and outputs a nest writes, as operands.
fn written_operands(nest: &LoopNest) -> Vec<usize> {
    match &nest.sink {
        Sink::Store(stores) => stores.iter().map(|&(o, _)| o).collect(),
        Sink::Reduce { acc, best, .. } => std::iter::once(*acc).chain(*best).collect(),
    }
}

/// Greedy runs of consecutive nests that can share their outermost loop: each iterates
/// the same outermost extent E, and every temp written in the run is addressed row by
/// row (outermost stride = len / E), so row `i` of a later nest reads only what row `i`
/// of an earlier nest wrote. A run is also split into tasks when it is large and every
/// buffer it writes is addressed row by row.
fn plan_stages(temps: &[Temp], output_lens: &[usize], nests: &[LoopNest]) -> Vec<Stage> {
    let buffer_len = |b: &BufferRef| match b {
        BufferRef::Temp(t) => Some(temps[*t].len),
        BufferRef::Output(o) => Some(output_lens[*o]),
        _ => None,
    };
    // Whether every operand of `nest` on `buffer` is addressed row by row over `rows`.
    let row_addressed = |nest: &LoopNest, buffer: &BufferRef, rows: usize| -> bool {
        let Some(len) = buffer_len(buffer) else {
            return false;
        };
        nest.operands
            .iter()
            .filter(|o| o.buffer == *buffer)
            .all(|o| len % rows == 0 && o.outer_strides.first() == Some(&(len / rows)))
    };
    let written = |run: &[LoopNest]| -> Vec<BufferRef> {
        let mut out: Vec<BufferRef> = Vec::new();
        for nest in run {
            for o in written_operands(nest) {
                let b = nest.operands[o].buffer.clone();
                if !out.contains(&b) {
                    out.push(b);
                }
            }
        }
        out
    };
    let mut stages = Vec::new();
    let mut start = 0;
    while start < nests.len() {
        let rows = nests[start].outer.first().copied().filter(|&e| e > 1);
        let mut end = start + 1;
        if let Some(rows) = rows {
            while end < nests.len() && nests[end].outer.first() == Some(&rows) {
                let run = &nests[start..=end];
                let temps_written: Vec<BufferRef> = written(run)
                    .into_iter()
                    .filter(|b| matches!(b, BufferRef::Temp(_)))
                    .collect();
                if !run
                    .iter()
                    .all(|n| temps_written.iter().all(|b| row_addressed(n, b, rows)))
                {
                    break;
                }
                end += 1;
            }
        }
        let run = &nests[start..end];
        let work: usize = run
            .iter()
            .map(|n| n.outer.iter().product::<usize>() * n.inner)
            .sum();
        let tasks = rows
            .filter(|_| work >= PARALLEL_MIN_ELEMENTS)
            .and_then(|rows| {
                let bufs = written(run);
                let all_rows = bufs
                    .iter()
                    .all(|b| run.iter().all(|n| row_addressed(n, b, rows)));
                all_rows.then(|| Tasks {
                    rows_per_task: (TASK_ELEMENTS / (work / rows).max(1)).max(1),
                    chunked: bufs
                        .iter()
                        .map(|b| {
                            (
                                b.clone(),
                                buffer_len(b).expect("written buffers have a length") / rows,
                            )
                        })
                        .collect(),
                })
            });
        let row_loop = if end - start > 1 || tasks.is_some() {
            rows
        } else {
            None
        };
        stages.push(Stage {
            first: start,
            count: end - start,
            row_loop,
            tasks,
        });
        start = end;
    }
    stages
}

fn identity(rank: usize) -> Mapping {
    (0..rank).map(Some).collect()
}

/// Nodes that get a temp, in topological order: reductions, and computed values that a
/// reshape reinterprets.
fn materialised_nodes(graph: &TypedGraph) -> Vec<NodeId> {
    let mut set = vec![false; graph.nodes.len()];
    let mut users = vec![0usize; graph.nodes.len()];
    for node in &graph.nodes {
        for arg in node_args(&node.kind) {
            users[arg] += 1;
        }
    }
    for (id, node) in graph.nodes.iter().enumerate() {
        match &node.kind {
            NodeKind::Reduce { input, .. } => {
                set[id] = true;
                // An expensive value that a reduction consumes and something else uses too
                // (softmax's `exp(x - max)`) is computed once into a temp rather than in
                // both nests.
                if users[*input] > 1 && expensive(graph, &set, *input) {
                    set[*input] = true;
                }
            }
            NodeKind::Reshape { input } if !addressable(graph, &set, *input) => set[*input] = true,
            _ => {}
        }
    }
    (0..graph.nodes.len()).filter(|&i| set[i]).collect()
}

fn node_args(kind: &NodeKind) -> Vec<NodeId> {
    match kind {
        NodeKind::Op { args, .. } => args.clone(),
        NodeKind::Select { cond, a, b } => vec![*cond, *a, *b],
        NodeKind::Cast { input }
        | NodeKind::Reduce { input, .. }
        | NodeKind::View { input, .. }
        | NodeKind::Reshape { input } => {
            vec![*input]
        }
        NodeKind::Input { .. } | NodeKind::Scalar { .. } | NodeKind::Const(_) => Vec::new(),
    }
}

/// Whether computing `node` in a nest involves a transcendental (anything but the
/// cheap float ops), up to materialised values and leaves. Each node is visited once, so
/// shared subexpressions cost nothing extra.
fn expensive(graph: &TypedGraph, materialised: &[bool], node: NodeId) -> bool {
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
fn addressable(graph: &TypedGraph, materialised: &[bool], node: NodeId) -> bool {
    match &graph.nodes[node].kind {
        NodeKind::Input { .. } => true,
        NodeKind::Reshape { input } => addressable(graph, materialised, *input),
        _ => materialised[node],
    }
}

/// Row-major strides of `dims`.
fn contiguous_strides(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; dims.len()];
    let mut stride = 1;
    for axis in (0..dims.len()).rev() {
        strides[axis] = stride;
        stride *= dims[axis];
    }
    strides
}

fn lower_reduction(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    node: NodeId,
    input: NodeId,
    kind: ReduceKind,
    axes: &[usize],
    best: Option<usize>,
) -> LoopNest {
    let in_dims = graph.nodes[input].dims.clone();
    let mut b = NestBuilder::new(graph, temp_of, in_dims.clone(), Some(node));
    let value = b.value(input, identity(in_dims.len()));
    let out_dims = &graph.nodes[node].dims;
    let map = identity(out_dims.len());
    let acc = b.operand(BufferRef::Temp(temp_of[&node]), out_dims, &map);
    let best = best.map(|t| b.operand(BufferRef::Temp(t), out_dims, &map));
    let index = best.map(|_| {
        // The flat row-major index over the reduced axes only.
        let reduced: Vec<usize> = axes.iter().map(|&a| in_dims[a]).collect();
        let reduced_strides = contiguous_strides(&reduced);
        let mut strides = vec![0; in_dims.len()];
        for (k, &a) in axes.iter().enumerate() {
            strides[a] = if in_dims[a] == 1 {
                0
            } else {
                reduced_strides[k]
            };
        }
        b.raw_operand(BufferRef::Index, strides)
    });
    b.finish(Sink::Reduce {
        kind,
        acc,
        value,
        best,
        index,
    })
}

struct NestBuilder<'g> {
    graph: &'g TypedGraph,
    temp_of: &'g HashMap<NodeId, usize>,
    loop_dims: Vec<usize>,
    /// The node this nest materialises, read through its inputs rather than its temp.
    root: Option<NodeId>,
    operands: Vec<(BufferRef, Vec<usize>)>,
    values: Vec<Value>,
    memo: HashMap<(NodeId, Mapping), usize>,
}

impl<'g> NestBuilder<'g> {
    fn new(
        graph: &'g TypedGraph,
        temp_of: &'g HashMap<NodeId, usize>,
        loop_dims: Vec<usize>,
        root: Option<NodeId>,
    ) -> Self {
        NestBuilder {
            graph,
            temp_of,
            loop_dims,
            root,
            operands: Vec::new(),
            values: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// The operand reading `buffer` (row-major `dims`) through `map`, shared when equal.
    fn operand(&mut self, buffer: BufferRef, dims: &[usize], map: &Mapping) -> usize {
        let own = contiguous_strides(dims);
        let mut strides = vec![0; self.loop_dims.len()];
        for (k, target) in map.iter().enumerate() {
            if let (Some(axis), true) = (target, dims[k] != 1) {
                strides[*axis] += own[k];
            }
        }
        self.raw_operand(buffer, strides)
    }

    fn raw_operand(&mut self, buffer: BufferRef, strides: Vec<usize>) -> usize {
        if let Some(i) = self
            .operands
            .iter()
            .position(|(b, s)| *b == buffer && *s == strides)
        {
            return i;
        }
        self.operands.push((buffer, strides));
        self.operands.len() - 1
    }

    /// The buffer a leaf node reads: a parameter, a temp, or what a reshape reinterprets.
    fn leaf_buffer(&self, node: NodeId) -> Option<BufferRef> {
        if Some(node) != self.root {
            if let Some(&t) = self.temp_of.get(&node) {
                return Some(BufferRef::Temp(t));
            }
        }
        match &self.graph.nodes[node].kind {
            NodeKind::Input { param } => Some(BufferRef::Input(*param)),
            NodeKind::Reshape { input } => self.leaf_buffer(*input),
            _ => None,
        }
    }

    /// The value of `node` at `map`, built once per (node, mapping).
    fn value(&mut self, node: NodeId, map: Mapping) -> usize {
        if let Some(&v) = self.memo.get(&(node, map.clone())) {
            return v;
        }
        let n = &self.graph.nodes[node];
        let is_leaf = matches!(n.kind, NodeKind::Input { .. } | NodeKind::Reshape { .. })
            || (Some(node) != self.root && self.temp_of.contains_key(&node));
        let source = if is_leaf {
            let buffer = self.leaf_buffer(node).expect("leaf nodes are buffers");
            ValueSource::Load {
                operand: self.operand(buffer, &n.dims.clone(), &map),
            }
        } else {
            match &n.kind {
                NodeKind::Scalar { param } => ValueSource::Scalar { param: *param },
                NodeKind::Const(c) => ValueSource::Const(c.clone()),
                NodeKind::Op { args, .. } => {
                    let args = args.clone();
                    let ids = args
                        .iter()
                        .map(|&a| self.arg_value(node, a, &map))
                        .collect();
                    ValueSource::Compute { args: ids }
                }
                NodeKind::Select { cond, a, b } => {
                    let (cond, a, b) = (*cond, *a, *b);
                    let ids = [cond, a, b]
                        .iter()
                        .map(|&x| self.arg_value(node, x, &map))
                        .collect();
                    ValueSource::Compute { args: ids }
                }
                NodeKind::Cast { input } => {
                    let input = *input;
                    let id = self.arg_value(node, input, &map);
                    ValueSource::Compute { args: vec![id] }
                }
                NodeKind::View { input, map: view } => {
                    // Input axis j is read where the view's axis k = view⁻¹(j) is.
                    let input = *input;
                    let mut inner: Mapping = vec![None; self.graph.nodes[input].dims.len()];
                    for (k, source) in view.iter().enumerate() {
                        if let Some(j) = source {
                            inner[*j] = map[k];
                        }
                    }
                    let v = self.value(input, inner);
                    self.memo.insert((node, map), v);
                    return v;
                }
                NodeKind::Reduce { .. } | NodeKind::Input { .. } | NodeKind::Reshape { .. } => {
                    unreachable!("reductions are materialised; inputs and reshapes are leaves")
                }
            }
        };
        self.values.push(Value {
            node,
            source,
            level: Level::Global,
        });
        let id = self.values.len() - 1;
        self.memo.insert((node, map), id);
        id
    }

    /// An elementwise argument, right-aligned and broadcast into its user's axes.
    fn arg_value(&mut self, user: NodeId, arg: NodeId, user_map: &Mapping) -> usize {
        let user_dims = &self.graph.nodes[user].dims;
        let arg_dims = &self.graph.nodes[arg].dims;
        let lead = user_dims.len() - arg_dims.len();
        let map: Mapping = (0..arg_dims.len())
            .map(|j| {
                if arg_dims[j] == 1 {
                    None
                } else {
                    user_map[j + lead]
                }
            })
            .collect();
        self.value(arg, map)
    }

    /// Collapses the loop axes and assigns levels.
    fn finish(self, sink: Sink) -> LoopNest {
        // Drop axes of extent 1, then merge neighbours every operand walks contiguously.
        let mut axes: Vec<(usize, Vec<usize>)> = Vec::new();
        for (axis, &extent) in self.loop_dims.iter().enumerate() {
            if extent == 1 {
                continue;
            }
            let strides: Vec<usize> = self.operands.iter().map(|o| o.1[axis]).collect();
            if let Some((prev_extent, prev_strides)) = axes.last_mut() {
                if prev_strides
                    .iter()
                    .zip(&strides)
                    .all(|(&p, &s)| p == s * extent)
                {
                    *prev_extent *= extent;
                    *prev_strides = strides;
                    continue;
                }
            }
            axes.push((extent, strides));
        }
        if axes.is_empty() {
            axes.push((1, vec![0; self.operands.len()]));
        }
        let (inner, inner_strides) = axes.pop().expect("at least one axis");
        let outer: Vec<usize> = axes.iter().map(|a| a.0).collect();
        let operands: Vec<Operand> = self
            .operands
            .iter()
            .enumerate()
            .map(|(k, (buffer, _))| Operand {
                buffer: buffer.clone(),
                outer_strides: axes.iter().map(|a| a.1[k]).collect(),
                inner_stride: inner_strides[k],
            })
            .collect();
        let mut values = self.values;
        for i in 0..values.len() {
            values[i].level = match &values[i].source {
                ValueSource::Load { operand } => {
                    let op = &operands[*operand];
                    if op.inner_stride != 0 {
                        Level::Inner
                    } else if op.outer_strides.iter().any(|&s| s != 0) {
                        Level::Row
                    } else {
                        Level::Global
                    }
                }
                ValueSource::Scalar { .. } | ValueSource::Const(_) => Level::Global,
                ValueSource::Compute { args } => args
                    .iter()
                    .map(|&a| values[a].level)
                    .max()
                    .unwrap_or(Level::Global),
            };
        }
        LoopNest {
            outer,
            inner,
            operands,
            values,
            sink,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_strides_are_row_major() {
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[]), Vec::<usize>::new());
    }
}
