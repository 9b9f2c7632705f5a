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
//!
//! The pipeline (`lower_graph`, this file) in order, one concern per file:
//! `materialise` (which nodes get a temp), `nests`, `reductions` and `products` (a loop nest
//! or GEMM step per temp and per output shape), `splits` (nests cut for threads), `stages`
//! (consecutive nests sharing a row loop, row-local temps, tasks), `row_fusion` (passes of
//! a stage merged or pipelined).

use std::collections::HashMap;

use crate::dtype::DType;
use crate::ir::{
    AxisStep, BufferRef, Kernel, LoopNest, NodeId, NodeKind, Offset, Operand, ReduceKind, ScanStep,
    Sink, Size, Temp, TempInit, TypedGraph,
};
use crate::shape::Dim;

mod materialise;
mod nests;
mod products;
mod reductions;
mod row_fusion;
mod splits;
mod stages;
#[cfg(test)]
mod tests;
mod windows;

use materialise::materialised_nodes;
use nests::build_regions;
pub use nests::{output_pitch_name, pitch_name};
use products::{lower_conv, lower_matmul, products_into_outputs};
use reductions::lower_reduction;
use row_fusion::{fuse_row_reductions, pipeline_first_pass, rows_in_outputs};
pub use splits::PARALLEL_MIN_ELEMENTS;
use splits::{split_flat_loop, split_kept_columns, split_reduced_rows};
use stages::{mark_row_local, plan_stages};

pub fn lower_graph(graph: &TypedGraph) -> Kernel {
    // A nest that reads part of a symbolic pieces axis (a slice of a `concat` along names)
    // asks for that node in a temp; lowering starts again with it materialised. Each round
    // adds a node, so this ends.
    let mut forced = Vec::new();
    loop {
        match lower_with(graph, &forced) {
            Ok(kernel) => return kernel,
            Err(node) => {
                assert!(
                    !forced.contains(&node),
                    "a materialised node is read from its temp"
                );
                forced.push(node);
            }
        }
    }
}

/// The kernel that reads each parameter with `pitched[i]` (rank 2 or more) through a
/// run-time row pitch (the internal size `nests::pitch_name(i)`), and writes each output
/// with `pitched_outputs[o]` (rank 2 or more) through one (`nests::output_pitch_name(o)`):
/// rows `pitch` elements apart, each contiguous, so that row-strided ndarray views run in
/// place. `None` when a nest reads such a parameter in another way (as a reshape's other
/// dims), or nothing is pitched: the arguments must then be contiguous.
pub fn lower_graph_pitched(
    graph: &TypedGraph,
    pitched: &[bool],
    pitched_outputs: &[bool],
) -> Option<Kernel> {
    let mut dims: Vec<Option<Vec<crate::shape::Dim>>> = vec![None; pitched.len()];
    for node in &graph.nodes {
        if let NodeKind::Input { param } = node.kind {
            if pitched.get(param) == Some(&true) && node.dims.len() >= 2 {
                dims[param] = Some(node.dims.clone());
            }
        }
    }
    let out_dims: Vec<Option<Vec<crate::shape::Dim>>> = graph
        .outputs
        .iter()
        .enumerate()
        .map(|(index, &o)| {
            let d = &graph.nodes[o].dims;
            (pitched_outputs.get(index) == Some(&true) && d.len() >= 2).then(|| d.clone())
        })
        .collect();
    if dims.iter().chain(&out_dims).all(Option::is_none) {
        return None;
    }
    let context = nests::PitchContext {
        dims,
        out_dims,
        unsupported: false,
    };
    let (kernel, context) = nests::with_pitches(context, || lower_graph(graph));
    (!context.unsupported).then_some(kernel)
}

/// The nest of a runtime step (`ScanStep`: a scan, `top_k`, a scatter, `gather_nd`,
/// `attention`): no loops of its own; its operands name the temps it reads and writes
/// (`temps[0]` its input, `temps[1]` its output, then the others) and its sink the ones it
/// writes, so that stage planning sees who reads and writes them.
fn step_nest(step: ScanStep, temps: &[usize], written: &[usize]) -> LoopNest {
    let buffers: Vec<BufferRef> = temps.iter().map(|&t| BufferRef::Temp(t)).collect();
    step_nest_of(step, &buffers, written)
}

/// `step_nest` over buffers that may be parameters read in place (`attention`'s).
fn step_nest_of(step: ScanStep, buffers: &[BufferRef], written: &[usize]) -> LoopNest {
    let operands = buffers
        .iter()
        .map(|b| Operand {
            buffer: b.clone(),
            base: Offset::zero(),
            outer_strides: Vec::new(),
            inner_stride: Offset::zero(),
        })
        .collect();
    LoopNest {
        scan: Some(step),
        matmul: None,
        outer: Vec::new(),
        inner: Size::lit(1),
        ragged: None,
        operands,
        values: Vec::new(),
        sink: Sink::Store(written.iter().map(|&w| (w, usize::MAX)).collect()),
    }
}

/// The nest that copies temp `t` (written by nest `writer`) unchanged into a graph output,
/// and that output, when it is `t`'s only reader: one store of one load at the same place
/// (a row-pitched output is addressed otherwise), the output's only writer, of the temp's
/// dtype and length. The writer can then write the output itself (`products_into_outputs`,
/// `windows::pools_into_outputs`, which add their own rules on the stages).
fn sole_copy_into_output(
    graph: &TypedGraph,
    temps: &[Temp],
    nests: &[LoopNest],
    writer: usize,
    t: usize,
) -> Option<(usize, usize)> {
    use crate::ir::ValueSource;
    let temp = BufferRef::Temp(t);
    let readers: Vec<usize> = (0..nests.len())
        .filter(|&k| k != writer && nests[k].operands.iter().any(|o| o.buffer == temp))
        .collect();
    let &[copy] = readers.as_slice() else {
        return None;
    };
    let nest = &nests[copy];
    if nest.matmul.is_some() || nest.scan.is_some() {
        return None;
    }
    let Sink::Store(stores) = &nest.sink else {
        return None;
    };
    let &[(k, v)] = stores.as_slice() else {
        return None;
    };
    let BufferRef::Output(o) = nest.operands[k].buffer else {
        return None;
    };
    let [value] = nest.values.as_slice() else {
        return None;
    };
    let ValueSource::Load { operand: j } = value.source else {
        return None;
    };
    let (load, store) = (&nest.operands[j], &nest.operands[k]);
    let same_place = load.buffer == temp
        && load.base == store.base
        && load.outer_strides == store.outer_strides
        && load.inner_stride == store.inner_stride;
    let writers = nests
        .iter()
        .filter(|n| {
            n.operands
                .iter()
                .any(|op| op.buffer == BufferRef::Output(o))
        })
        .count();
    let output = &graph.nodes[graph.outputs[o]];
    let same_type = output.dtype == temps[t].dtype;
    // A view of the temp (a slice of it) can share the addressing of its own elements (a
    // step along an axis of extent 1 has no stride): the whole temp must be it.
    let same_len = Size::product(&output.dims) == temps[t].len;
    (v == 0 && same_place && writers == 1 && same_type && same_len).then_some((copy, o))
}

/// `lower_graph` with the nodes of `forced` materialised too; `Err` names a node that must be.
/// Three steps: a temp and its nests per materialised node (`Lowering::node`), one nest per
/// distinct output shape (`output_nests`), then the passes over the nests (`plan_kernel`).
fn lower_with(graph: &TypedGraph, forced: &[NodeId]) -> Result<Kernel, NodeId> {
    let materialised = materialised_nodes(graph, forced);
    let mut lowering = Lowering {
        graph,
        materialised: &materialised,
        temps: Vec::new(),
        temp_of: HashMap::new(),
        nests: Vec::new(),
    };
    for &node in &materialised {
        // A `top_k`'s indices temp was made with its values (`Lowering::top_k`).
        if lowering.temp_of.contains_key(&node) {
            continue;
        }
        lowering.node(node)?;
    }
    let Lowering {
        temps,
        temp_of,
        mut nests,
        ..
    } = lowering;
    nests.extend(output_nests(graph, &temp_of)?);
    Ok(plan_kernel(graph, temps, &temp_of, nests))
}

/// The temps of the materialised nodes and the nests that write them, built node by node
/// in `materialised` order (a node's operands have their temps before it).
struct Lowering<'g> {
    graph: &'g TypedGraph,
    materialised: &'g [NodeId],
    temps: Vec<Temp>,
    /// Each materialised node's temp (a `TopKIndices` node's is made with its `TopK`'s).
    temp_of: HashMap<NodeId, usize>,
    nests: Vec<LoopNest>,
}

/// A temp that is not row-local (stage planning decides that later).
fn temp(dtype: DType, len: Size, init: TempInit, overwritten: bool) -> Temp {
    Temp {
        dtype,
        len,
        init,
        overwritten,
        row_local: None,
        gemm_block: false,
    }
}

impl Lowering<'_> {
    /// The temp of materialised `node` and the nests that write it: a reduction's, a runtime
    /// step's (`step_nest`), a product's, or the fused nests of any other value.
    fn node(&mut self, node: NodeId) -> Result<(), NodeId> {
        let graph = self.graph;
        let n = &graph.nodes[node];
        let len = Size::product(&n.dims);
        let init = match &n.kind {
            NodeKind::Reduce { kind, .. } => kind.identity(),
            _ => TempInit::Zero,
        };
        // Accumulators, scans and products start from their init; the rest is stored whole.
        let overwritten = !matches!(
            n.kind,
            NodeKind::Reduce { .. }
                | NodeKind::Scan { .. }
                | NodeKind::MatMul { .. }
                | NodeKind::Conv { .. }
        );
        self.temps
            .push(temp(n.dtype.compute(), len.clone(), init, overwritten));
        self.temp_of.insert(node, self.temps.len() - 1);
        let nest = match &n.kind {
            NodeKind::Reduce { input, kind, axes } => {
                return self.reduction(node, *input, *kind, axes, len);
            }
            NodeKind::Scan {
                input,
                kind,
                axis,
                exclusive,
                reverse,
            } => {
                let dims = &n.dims;
                let step = ScanStep {
                    input: self.temp_of[input],
                    output: self.temp_of[&node],
                    outer: Size::product(&dims[..*axis]),
                    len: Size::of(&dims[*axis]),
                    inner: Size::product(&dims[*axis + 1..]),
                    op: AxisStep::Scan {
                        prod: *kind == ReduceKind::Prod,
                        exclusive: *exclusive,
                        reverse: *reverse,
                    },
                };
                // The output temp is what it writes.
                step_nest(step, &[self.temp_of[input], self.temp_of[&node]], &[1])
            }
            NodeKind::TopK {
                input,
                axis,
                largest,
            } => self.top_k(node, *input, *axis, *largest, len),
            NodeKind::TopKIndices { .. } => unreachable!("made with its `TopK` node's temps"),
            NodeKind::Scatter { .. } | NodeKind::GatherNd { .. } => self.scatter_or_gather(node),
            NodeKind::Attention { .. } => self.attention(node),
            NodeKind::MaxPool { x, window } => windows::lower_plane_pass(
                graph,
                &self.temp_of,
                node,
                *x,
                windows::PlanePass::MaxPool(window),
            ),
            NodeKind::Resize { x, axes } => windows::lower_plane_pass(
                graph,
                &self.temp_of,
                node,
                *x,
                windows::PlanePass::Resize(axes),
            ),
            NodeKind::MatMul { a, b } => lower_matmul(graph, &self.temp_of, node, *a, *b),
            NodeKind::Conv { x, w, bias, window } => {
                lower_conv(graph, &self.temp_of, node, (*x, *w, *bias), window)
            }
            _ => return self.fused_value(node),
        };
        self.nests.push(nest);
        Ok(())
    }

    /// A reduction's nests; an `argmax`/`argmin` also keeps the best value so far in a
    /// temp of the input's dtype (`best`), next to the positions in the node's temp.
    fn reduction(
        &mut self,
        node: NodeId,
        input: NodeId,
        kind: ReduceKind,
        axes: &[usize],
        len: Size,
    ) -> Result<(), NodeId> {
        let graph = self.graph;
        let best = if matches!(kind, ReduceKind::ArgMax | ReduceKind::ArgMin) {
            let init = if kind == ReduceKind::ArgMax {
                TempInit::Lowest
            } else {
                TempInit::Highest
            };
            self.temps
                .push(temp(graph.nodes[input].dtype.compute(), len, init, false));
            Some(self.temps.len() - 1)
        } else {
            None
        };
        self.nests.extend(lower_reduction(
            graph,
            &self.temp_of,
            node,
            input,
            kind,
            axes,
            best,
        )?);
        Ok(())
    }

    /// `top_k`'s step: it writes the values to the node's temp and the positions to the
    /// temp of the `TopKIndices` node that reads this one, or to a temp of their own when
    /// no output wants them.
    fn top_k(
        &mut self,
        node: NodeId,
        input: NodeId,
        axis: usize,
        largest: bool,
        len: Size,
    ) -> LoopNest {
        let graph = self.graph;
        self.temps
            .push(temp(crate::dtype::DType::I64, len, TempInit::Zero, false));
        let indices = self.temps.len() - 1;
        if let Some(&ix) = self
            .materialised
            .iter()
            .find(|&&m| matches!(graph.nodes[m].kind, NodeKind::TopKIndices { of } if of == node))
        {
            self.temp_of.insert(ix, indices);
        }
        let in_dims = &graph.nodes[input].dims;
        let step = ScanStep {
            input: self.temp_of[&input],
            output: self.temp_of[&node],
            outer: Size::product(&in_dims[..axis]),
            len: Size::of(&in_dims[axis]),
            inner: Size::product(&in_dims[axis + 1..]),
            op: AxisStep::TopK {
                k: Size::of(&graph.nodes[node].dims[axis]),
                largest,
                indices,
            },
        };
        // Writes the values and the positions.
        step_nest(
            step,
            &[self.temp_of[&input], self.temp_of[&node], indices],
            &[1, 2],
        )
    }

    /// A scatter's or `gather_nd`'s step: it reads the data, the indices and a scatter's
    /// updates, and writes the node's temp.
    fn scatter_or_gather(&self, node: NodeId) -> LoopNest {
        let graph = self.graph;
        let temp_of = &self.temp_of;
        let sizes =
            |node: NodeId| -> Vec<Size> { graph.nodes[node].dims.iter().map(Size::of).collect() };
        let (data, indices, updates, op) = match &graph.nodes[node].kind {
            NodeKind::Scatter {
                data,
                indices,
                updates,
                axis,
                reduction,
            } => (
                *data,
                *indices,
                Some(*updates),
                AxisStep::Scatter {
                    indices: temp_of[indices],
                    updates: temp_of[updates],
                    data_dims: sizes(*data),
                    idx_dims: sizes(*indices),
                    axis: *axis,
                    reduction,
                },
            ),
            NodeKind::GatherNd {
                data,
                indices,
                batch_dims,
            } => (
                *data,
                *indices,
                None,
                AxisStep::GatherNd {
                    indices: temp_of[indices],
                    data_dims: sizes(*data),
                    idx_dims: sizes(*indices),
                    batch_dims: *batch_dims,
                },
            ),
            _ => unreachable!("called for a scatter or gather_nd"),
        };
        let step = ScanStep {
            input: temp_of[&data],
            output: temp_of[&node],
            outer: Size::lit(0),
            len: Size::lit(0),
            inner: Size::lit(0),
            op,
        };
        let mut temps = vec![temp_of[&data], temp_of[&node], temp_of[&indices]];
        temps.extend(updates.map(|u| temp_of[&u]));
        step_nest(step, &temps, &[1])
    }

    /// `attention`'s step: it reads `q`, `k`, `v` and the mask from their temps or in
    /// place from the parameters they are, and writes the node's temp.
    fn attention(&self, node: NodeId) -> LoopNest {
        let graph = self.graph;
        let temp_of = &self.temp_of;
        let NodeKind::Attention {
            q,
            k,
            v,
            mask,
            causal,
            scale,
            softcap,
        } = &graph.nodes[node].kind
        else {
            unreachable!("called for attention")
        };
        let (qd, kd, vd) = (
            &graph.nodes[*q].dims,
            &graph.nodes[*k].dims,
            &graph.nodes[*v].dims,
        );
        let scores = [&qd[0], &qd[1], &qd[2], &kd[2]];
        // Each operand's temp, or the parameter it is (materialise.rs reads a
        // parameter of the step's dtype in place).
        let buffer = |operand: NodeId| match temp_of.get(&operand) {
            Some(&t) => BufferRef::Temp(t),
            None => match graph.nodes[operand].kind {
                NodeKind::Input { param } => BufferRef::Input(param),
                _ => unreachable!("attention's operands are temps or parameters"),
            },
        };
        // The mask's temp is row-major over its own dims, right-aligned to the
        // scores': a stride per score axis, 0 where the mask broadcasts.
        let mask = mask.map(|m| {
            let md = &graph.nodes[m].dims;
            let own = nests::contiguous_strides(md);
            let lead = 4 - md.len();
            let strides: [Size; 4] = std::array::from_fn(|a| {
                if a < lead || md[a - lead].is_static(1) && !scores[a].is_static(1) {
                    Size::lit(0)
                } else {
                    own[a - lead].clone()
                }
            });
            (buffer(m), strides)
        });
        let step = ScanStep {
            input: temp_of[&node],
            output: temp_of[&node],
            outer: Size::lit(0),
            len: Size::lit(0),
            inner: Size::lit(0),
            op: AxisStep::Attention {
                q: buffer(*q),
                k: buffer(*k),
                v: buffer(*v),
                mask: mask.clone(),
                sizes: [
                    Size::of(&qd[0]),
                    Size::of(&qd[1]),
                    Size::of(&kd[1]),
                    Size::of(&qd[2]),
                    Size::of(&kd[2]),
                    Size::of(&qd[3]),
                    Size::of(&vd[3]),
                ],
                causal: *causal,
                scale: *scale,
                softcap: *softcap,
            },
        };
        let mut buffers = vec![
            buffer(*q),
            BufferRef::Temp(temp_of[&node]),
            buffer(*k),
            buffer(*v),
        ];
        buffers.extend(mask.map(|(m, _)| m));
        // Writes the output.
        step_nest_of(step, &buffers, &[1])
    }

    /// Any other value: the fused nests over its dims that store it to its temp.
    fn fused_value(&mut self, node: NodeId) -> Result<(), NodeId> {
        let dims = self.graph.nodes[node].dims.clone();
        let temp = self.temp_of[&node];
        self.nests.extend(build_regions(
            self.graph,
            &self.temp_of,
            &dims,
            Some(node),
            &mut |b, map| {
                let v = b.value(node, map.clone())?;
                let target = b.operand(BufferRef::Temp(temp), &dims, map);
                Ok(Sink::Store(vec![(target, v)]))
            },
        )?);
        Ok(())
    }
}

/// The outputs' nests: the outputs of one shape share one nest (in the order of their
/// first output).
fn output_nests(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
) -> Result<Vec<LoopNest>, NodeId> {
    let mut shapes: Vec<Vec<Dim>> = Vec::new();
    for &out in &graph.outputs {
        let dims = &graph.nodes[out].dims;
        if !shapes.contains(dims) {
            shapes.push(dims.clone());
        }
    }
    let mut nests = Vec::new();
    for dims in shapes {
        nests.extend(build_regions(
            graph,
            temp_of,
            &dims,
            None,
            &mut |b, map| {
                let mut stores = Vec::new();
                for (index, &out) in graph.outputs.iter().enumerate() {
                    if graph.nodes[out].dims == dims {
                        let v = b.value(out, map.clone())?;
                        let target = b.operand(BufferRef::Output(index), &dims, map);
                        stores.push((target, v));
                    }
                }
                Ok(Sink::Store(stores))
            },
        )?);
    }
    Ok(nests)
}

/// The passes after the nests are built, in order: nests cut for threads (`splits`),
/// stages and row-local temps (`stages`), product blocks, rows kept in outputs and passes
/// of a stage merged or pipelined (`row_fusion`).
fn plan_kernel(
    graph: &TypedGraph,
    mut temps: Vec<Temp>,
    temp_of: &HashMap<NodeId, usize>,
    nests: Vec<LoopNest>,
) -> Kernel {
    let output_lens: Vec<Size> = graph
        .outputs
        .iter()
        .enumerate()
        .map(|(index, &o)| nests::output_len(index, &graph.nodes[o].dims))
        .collect();
    let mut blocks = Vec::new();
    let mut split_nests = Vec::with_capacity(nests.len());
    for mut nest in nests {
        split_flat_loop(&mut nest, &mut blocks);
        match split_reduced_rows(&mut nest, &mut temps, temp_of) {
            Some(combine) => split_nests.extend([nest, combine]),
            None => {
                split_kept_columns(&mut nest);
                split_nests.push(nest);
            }
        }
    }
    let mut nests = split_nests;
    let mut stages = plan_stages(&temps, &output_lens, &nests);
    mark_row_local(&mut temps, &nests, &stages);
    // In a product's stage, the product and its left operand hold a block of rows.
    for nest in &nests {
        if let Some(step) = &nest.matmul {
            temps[step.output].gemm_block = temps[step.output].row_local.is_some();
            if let BufferRef::Temp(t) = step.a.buffer {
                temps[t].gemm_block = temps[t].row_local.is_some();
            }
        }
    }
    products_into_outputs(graph, &mut temps, &mut nests, &mut stages);
    windows::pools_into_outputs(graph, &mut temps, &mut nests, &mut stages);
    let output_dtypes: Vec<DType> = graph
        .outputs
        .iter()
        .map(|&o| graph.nodes[o].dtype)
        .collect();
    rows_in_outputs(&temps, &output_dtypes, &mut nests, &stages);
    let (mut nests, mut stages) = fuse_row_reductions(graph, nests, stages);
    pipeline_first_pass(&mut temps, &mut nests, &mut stages);
    // A task's chunked buffers (written, cut per task): not the temps made row-local above.
    let stages = stages
        .into_iter()
        .map(|mut stage| {
            if let Some(tasks) = &mut stage.tasks {
                tasks.chunked.retain(
                    |(b, _)| !matches!(b, BufferRef::Temp(t) if temps[*t].row_local.is_some()),
                );
                // Nothing left to cut into chunks of rows (the stage writes only row-local
                // temps, as when the nest that read them has 0 elements: seed 43, graph
                // 1987): one thread runs it.
                if tasks.chunked.is_empty() {
                    stage.tasks = None;
                }
            }
            stage
        })
        .collect();
    Kernel {
        temps,
        nests,
        stages,
        blocks,
    }
}
