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

use crate::dtype::DType;
use crate::ir::{
    AxisMap, BufferRef, Kernel, Level, LoopNest, MatMulStep, NodeId, NodeKind, Offset, Operand,
    Piece, PieceSource, Pipelined, ReduceKind, ScanStep, SiblingReduce, Sink, Size, Stage, Tasks,
    Temp, TempInit, TypedGraph, Value, ValueSource,
};
use crate::shape::Dim;

/// How one axis of a node is indexed in a nest: `offset + scale × counter(axis)`, or the
/// fixed index `offset` where `axis` is `None` (a size-1 or broadcast axis, or one end of
/// an edge pad). Views and broadcasting move axes; `slice`/`flip` and the pieces of
/// `pad`/`concat`/`tile` change `scale` and `offset`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct AxisIndex {
    axis: Option<usize>,
    scale: isize,
    offset: Offset,
}

impl AxisIndex {
    fn zero() -> AxisIndex {
        AxisIndex {
            axis: None,
            scale: 0,
            offset: Offset::zero(),
        }
    }

    fn counter(axis: usize) -> AxisIndex {
        AxisIndex {
            axis: Some(axis),
            scale: 1,
            offset: Offset::zero(),
        }
    }

    /// `start + step × self`.
    fn then(&self, start: &Offset, step: isize) -> AxisIndex {
        AxisIndex {
            axis: self.axis.filter(|_| step != 0),
            scale: self.scale * step,
            offset: start.add(&self.offset.scale(step)),
        }
    }
}

/// Node axis → its index in the nest.
type Mapping = Vec<AxisIndex>;

/// A nest's loop box crosses a boundary between two pieces of a `pad`/`concat`/`tile`
/// axis: the box is cut at counter `at` of loop axis `axis` and each part is built again.
#[derive(Debug)]
struct Split {
    axis: usize,
    at: usize,
}

pub fn lower_graph(graph: &TypedGraph) -> Kernel {
    let materialised = materialised_nodes(graph);
    let mut temps = Vec::new();
    let mut temp_of: HashMap<NodeId, usize> = HashMap::new();
    let mut nests = Vec::new();
    for &node in &materialised {
        let n = &graph.nodes[node];
        let len = Size::product(&n.dims);
        let init = match &n.kind {
            NodeKind::Reduce { kind, .. } => kind.identity(),
            _ => TempInit::Zero,
        };
        temps.push(Temp {
            dtype: n.dtype.compute(),
            len: len.clone(),
            init,
            overwritten: !matches!(
                n.kind,
                NodeKind::Reduce { .. } | NodeKind::Scan { .. } | NodeKind::MatMul { .. }
            ),
            row_local: None,
            gemm_block: false,
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
                        len: len.clone(),
                        init,
                        overwritten: false,
                        row_local: None,
                        gemm_block: false,
                    });
                    Some(temps.len() - 1)
                } else {
                    None
                };
                nests.extend(lower_reduction(
                    graph, &temp_of, node, *input, *kind, axes, best,
                ));
                continue;
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
                    input: temp_of[input],
                    output: temp_of[&node],
                    outer: Size::product(&dims[..*axis]),
                    len: Size::of(&dims[*axis]),
                    inner: Size::product(&dims[*axis + 1..]),
                    prod: *kind == ReduceKind::Prod,
                    exclusive: *exclusive,
                    reverse: *reverse,
                };
                let zero = || Operand {
                    buffer: BufferRef::Input(usize::MAX),
                    base: Offset::zero(),
                    outer_strides: Vec::new(),
                    inner_stride: Offset::zero(),
                };
                let operand = |b: BufferRef| Operand {
                    buffer: b,
                    ..zero()
                };
                LoopNest {
                    scan: Some(step),
                    matmul: None,
                    outer: Vec::new(),
                    inner: Size::lit(1),
                    ragged: None,
                    operands: vec![
                        operand(BufferRef::Temp(temp_of[input])),
                        operand(BufferRef::Temp(temp_of[&node])),
                    ],
                    values: Vec::new(),
                    // The output temp is what it writes.
                    sink: Sink::Store(vec![(1, usize::MAX)]),
                }
            }
            NodeKind::MatMul { a, b } => lower_matmul(graph, &temp_of, node, *a, *b),
            _ => {
                let dims = n.dims.clone();
                let temp = temp_of[&node];
                nests.extend(build_regions(
                    graph,
                    &temp_of,
                    &dims,
                    Some(node),
                    &mut |b, map| {
                        let v = b.value(node, map.clone())?;
                        let target = b.operand(BufferRef::Temp(temp), &dims, map);
                        Ok(Sink::Store(vec![(target, v)]))
                    },
                ));
                continue;
            }
        };
        nests.push(nest);
    }

    // Outputs, one nest per distinct shape.
    let mut shapes: Vec<Vec<Dim>> = Vec::new();
    for &out in &graph.outputs {
        let dims = &graph.nodes[out].dims;
        if !shapes.contains(dims) {
            shapes.push(dims.clone());
        }
    }
    for dims in shapes {
        nests.extend(build_regions(
            graph,
            &temp_of,
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
        ));
    }
    let output_lens: Vec<Size> = graph
        .outputs
        .iter()
        .map(|&o| Size::product(&graph.nodes[o].dims))
        .collect();
    let mut blocks = Vec::new();
    let mut split_nests = Vec::with_capacity(nests.len());
    for mut nest in nests {
        split_flat_loop(&mut nest, &mut blocks);
        match split_reduced_rows(&mut nest, &mut temps, &temp_of) {
            Some(combine) => split_nests.extend([nest, combine]),
            None => {
                split_kept_columns(&mut nest);
                split_nests.push(nest);
            }
        }
    }
    let mut nests = split_nests;
    let stages = plan_stages(&temps, &output_lens, &nests);
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
    let output_dtypes: Vec<DType> = graph
        .outputs
        .iter()
        .map(|&o| graph.nodes[o].dtype)
        .collect();
    rows_in_outputs(&temps, &output_dtypes, &mut nests, &stages);
    let (mut nests, mut stages) = fuse_row_reductions(graph, nests, stages);
    pipeline_first_pass(&mut temps, &mut nests, &mut stages);
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
        blocks,
    }
}

/// Whether the product at `at` can run block by block with the nests `start..end` around
/// it: more than itself; its product and (if a nest of the run writes it) its left operand
/// read by no nest outside the run; no other temp written before it read at or after it
/// (per-row temps do not survive until the block's second pass).
fn product_fuses(nests: &[LoopNest], start: usize, end: usize, at: usize) -> bool {
    let step = nests[at].matmul.as_ref().expect("a product");
    if end == start + 1 {
        return false;
    }
    let reads = |k: usize, b: &BufferRef| nests[k].operands.iter().any(|o| o.buffer == *b);
    let product = BufferRef::Temp(step.output);
    let left = step.a.buffer.clone();
    let before: Vec<BufferRef> = nests[start..at]
        .iter()
        .flat_map(|n| {
            n.sink
                .written()
                .into_iter()
                .map(|o| n.operands[o].buffer.clone())
        })
        .collect();
    let read_outside =
        |b: &BufferRef| (0..nests.len()).any(|k| !(start..end).contains(&k) && reads(k, b));
    if read_outside(&product) || (before.contains(&left) && read_outside(&left)) {
        return false;
    }
    before
        .iter()
        .filter(|b| matches!(b, BufferRef::Temp(_)) && **b != left)
        .all(|b| !(at..end).any(|k| reads(k, b)))
}

/// Temps that a row stage writes and nothing outside it reads hold one row at a time.
fn mark_row_local(temps: &mut [Temp], nests: &[LoopNest], stages: &[Stage]) {
    for stage in stages {
        let Some(rows) = &stage.row_loop else {
            continue;
        };
        let inside = stage.first..stage.first + stage.count;
        for nest in &nests[inside.clone()] {
            for o in nest.sink.written() {
                let BufferRef::Temp(t) = nest.operands[o].buffer else {
                    continue;
                };
                let read_outside = nests.iter().enumerate().any(|(k, n)| {
                    !inside.contains(&k)
                        && n.operands.iter().any(|op| op.buffer == BufferRef::Temp(t))
                });
                if !read_outside {
                    if let Some(row) = temps[t].len.checked_div(rows) {
                        temps[t].row_local = Some(row);
                    }
                }
            }
        }
    }
}

/// A row-local temp whose last reader in its stage turns it element for element into an
/// output row of the same dtype (softmax: `e = exp(x - max)`, then `out = e / sum(e)`)
/// is kept in that output row instead: the nests that write and read the temp address
/// the output's row, and the last one reads each element before it overwrites it. The
/// output's lines are then written (and owned by this core) while the temp's nest
/// computes, and the last pass works in place in L1 instead of storing a fresh 4 KiB
/// stream whose every line waits for its read-for-ownership (W3: the scale pass was 27%
/// of the time after the exp was made cheaper; BENCHMARKS.md "Peers").
///
/// Conditions, all checked: the stage is a row loop of one outer loop per nest with the
/// same literal-or-named inner extent, no product; the temp is row-local, stored
/// whole before it is read (`overwritten`), read and written only at its own index
/// (base 0, inner stride 1), and read by no nest after the output's; the output is
/// stored by that nest alone in the stage, at its own index, one contiguous row per
/// row of the loop (base 0, inner stride 1, row stride = the inner extent).
fn rows_in_outputs(
    temps: &[Temp],
    output_dtypes: &[DType],
    nests: &mut [LoopNest],
    stages: &[Stage],
) {
    for stage in stages {
        if stage.row_loop.is_none() || stage.count < 2 {
            continue;
        }
        let range = stage.first..stage.first + stage.count;
        let inner = nests[stage.first].inner.clone();
        let plain = nests[range.clone()].iter().all(|n| {
            n.outer.len() == 1
                && n.inner == inner
                && n.ragged.is_none()
                && n.matmul.is_none()
                && n.scan.is_none()
        });
        if !plain {
            continue;
        }
        let at_own_index = |op: &Operand| op.base.is_zero() && op.inner_stride.is_lit(1);
        for last in range.clone() {
            let Sink::Store(stores) = &nests[last].sink else {
                continue;
            };
            let mut alias = None;
            for &(k, _) in stores {
                let out_op = &nests[last].operands[k];
                let BufferRef::Output(o) = out_op.buffer else {
                    continue;
                };
                let row_stride = out_op.outer_strides.first();
                let contiguous = at_own_index(out_op)
                    && row_stride.is_some_and(|s| s.as_size().as_ref() == Some(&inner));
                let only_here = range.clone().all(|n| {
                    n == last
                        || nests[n]
                            .operands
                            .iter()
                            .all(|op| op.buffer != BufferRef::Output(o))
                }) && nests[last]
                    .operands
                    .iter()
                    .filter(|op| op.buffer == BufferRef::Output(o))
                    .count()
                    == 1;
                if !contiguous || !only_here {
                    continue;
                }
                let candidate = nests[last].operands.iter().find_map(|op| match op.buffer {
                    BufferRef::Temp(t)
                        if temps[t].row_local.as_ref() == Some(&inner)
                            && !temps[t].gemm_block
                            && temps[t].overwritten
                            && temps[t].dtype == output_dtypes[o] =>
                    {
                        Some(t)
                    }
                    _ => None,
                });
                let Some(t) = candidate else {
                    continue;
                };
                let uses_ok = range.clone().all(|n| {
                    let uses = nests[n]
                        .operands
                        .iter()
                        .filter(|op| op.buffer == BufferRef::Temp(t));
                    if n > last {
                        uses.count() == 0
                    } else {
                        uses.into_iter().all(|op| at_own_index(op))
                    }
                });
                if uses_ok {
                    alias = Some((t, o, out_op.clone()));
                    break;
                }
            }
            let Some((t, o, out_op)) = alias else {
                continue;
            };
            for n in range.clone() {
                for op in &mut nests[n].operands {
                    if op.buffer == BufferRef::Temp(t) {
                        *op = Operand {
                            buffer: BufferRef::Output(o),
                            ..out_op.clone()
                        };
                    }
                }
            }
        }
    }
}

/// A row reduction that reads back only what the pass before it in the same row stage has
/// just stored (softmax: `e = exp(x - max)` stored into the output row, then `sum(e)`) is
/// fused into that pass: each chunk stores its values and accumulates the reduced one from
/// the register it already holds, so the row is not loaded a second time. W3 (softmax
/// f32[4096, 1024], native): the sum pass was 8% of the time (BENCHMARKS.md "Peers").
///
/// Conditions, all checked: both nests in one row stage, the same loops (outer extents,
/// inner extent, not ragged, no scan or product); the first only stores; the second reduces
/// along the inner axis into a register (`combine` kinds, accumulator inner stride 0) and
/// reads only (a) buffers the first stores, at exactly the addressing of that store, or (b)
/// buffers the first does not write; the first does not read the accumulator; the stored
/// values lose nothing on the way through memory (dtype = its compute dtype: no f16/bf16
/// rounding), so the register value is the value the load would give. The accumulation
/// order of the reduction is the same as in its own nest, except where the fused pass gets
/// `emit_blocked_loop`'s blocks (default x86-64 builds, a pass calling exp/tanh/...; rows
/// not known to be shorter than 256): a block's chunks accumulate into one accumulator,
/// not four in turn (the order is unspecified, docs/language.md; the same bound).
fn fuse_row_reductions(
    graph: &TypedGraph,
    nests: Vec<LoopNest>,
    stages: Vec<Stage>,
) -> (Vec<LoopNest>, Vec<Stage>) {
    let mut nests: Vec<Option<LoopNest>> = nests.into_iter().map(Some).collect();
    let mut out_nests = Vec::with_capacity(nests.len());
    let mut out_stages = Vec::with_capacity(stages.len());
    for stage in stages {
        let first = out_nests.len();
        let mut k = stage.first;
        let end = stage.first + stage.count;
        while k < end {
            let a = nests[k].take().expect("each nest is taken once");
            let fused = if stage.row_loop.is_some() && k + 1 < end {
                let b = nests[k + 1].as_ref().expect("not taken yet");
                fuse_store_and_reduce(graph, &a, b).or_else(|| fuse_sibling_reductions(&a, b))
            } else {
                None
            };
            match fused {
                Some(nest) => {
                    nests[k + 1] = None;
                    out_nests.push(nest);
                    k += 2;
                }
                None => {
                    out_nests.push(a);
                    k += 1;
                }
            }
        }
        out_stages.push(Stage {
            first,
            count: out_nests.len() - first,
            ..stage
        });
    }
    (out_nests, out_stages)
}

/// In a row stage of three or more passes whose first pass reduces inputs alone into
/// registers (softmax's row max and min) and whose last pass stores only to what an
/// earlier pass of the row stored (softmax's scale pass: rows in cache), the last pass
/// also runs the first pass for the next row: each chunk reads the next row's chunk of
/// the inputs and accumulates it into a carry temp, which becomes the first pass's result
/// at the next row. The row loop then runs the first nest only for a task's first row.
/// Measured on W3 (BENCHMARKS.md "Peers", seventh session): the max pass's own loop and
/// loads cost more than the same work inside the scale pass, which is short of
/// instructions. The next row of the stage's last row is the row itself (its reduction
/// is computed and not used).
fn pipeline_first_pass(temps: &mut Vec<Temp>, nests: &mut [LoopNest], stages: &mut [Stage]) {
    for stage in stages.iter_mut() {
        if stage.row_loop.is_none() || stage.count < 3 {
            continue;
        }
        let (f, l) = (stage.first, stage.first + stage.count - 1);
        if nests[f..=l]
            .iter()
            .any(|n| n.matmul.is_some() || n.scan.is_some())
        {
            continue;
        }
        let (first, last) = (&nests[f], &nests[l]);
        let Sink::Reduce {
            kind,
            acc,
            value,
            best: None,
            index: None,
            stores,
            sibling,
        } = &first.sink
        else {
            continue;
        };
        let Sink::Store(last_stores) = &last.sink else {
            continue;
        };
        let accs: Vec<usize> = std::iter::once(*acc)
            .chain(sibling.map(|s| s.acc))
            .collect();
        // The accumulators: row-local temps of one element per row, in registers.
        let small_acc = |k: usize| {
            let op = &first.operands[k];
            matches!(op.buffer, BufferRef::Temp(t)
                if temps[t].row_local.as_ref().and_then(Size::as_static) == Some(1))
                && op.inner_stride.is_zero()
        };
        // Everything else the first pass reads: inputs, contiguous along the row or
        // splatted, rows a size apart (not walked backwards).
        let inputs_only = first.operands.iter().enumerate().all(|(k, op)| {
            accs.contains(&k)
                || matches!(op.buffer, BufferRef::Input(_))
                    && (op.inner_stride.is_lit(1) || op.inner_stride.is_zero())
                    && op.outer_strides.len() == 1
                    && (op.outer_strides[0].is_zero() || op.outer_strides[0].as_size().is_some())
        });
        // The last pass stores only to row-local temps and rows an earlier pass of the row
        // stored (in cache).
        let stores_in_cache = last_stores.iter().all(|&(k, _)| {
            let buffer = &last.operands[k].buffer;
            matches!(buffer, BufferRef::Temp(t) if temps[*t].row_local.is_some())
                || nests[f..l].iter().any(|n| {
                    n.sink
                        .written()
                        .iter()
                        .any(|&w| n.operands[w].buffer == *buffer)
                })
        });
        if !stores.is_empty()
            || first.outer.len() != 1
            || !first.same_loops(last)
            || !accs.iter().all(|&k| small_acc(k))
            || !inputs_only
            || !stores_in_cache
            || first.values.iter().any(|v| v.level == Level::Row)
        {
            continue;
        }
        // The merged last nest: its own operands and values, then the first's (inputs
        // read at the next row, accumulators replaced by carry temps).
        let mut operands = last.operands.clone();
        let mut next_row = Vec::new();
        let mut carries = Vec::new();
        let operand_map: Vec<usize> = first
            .operands
            .iter()
            .enumerate()
            .map(|(k, op)| {
                let mut op = op.clone();
                if accs.contains(&k) {
                    let BufferRef::Temp(t) = op.buffer else {
                        unreachable!("accumulators are temps")
                    };
                    temps.push(temps[t].clone());
                    carries.push((t, temps.len() - 1));
                    op.buffer = BufferRef::Temp(temps.len() - 1);
                } else if !op.outer_strides[0].is_zero() {
                    next_row.push(operands.len());
                }
                operands.push(op);
                operands.len() - 1
            })
            .collect();
        let mut values = last.values.clone();
        let value_map = append_values(&mut values, &first.values, &operand_map, |_, _| None);
        let merged = LoopNest {
            operands,
            values,
            sink: Sink::Reduce {
                kind: *kind,
                acc: operand_map[*acc],
                value: value_map[*value],
                best: None,
                index: None,
                stores: last_stores.clone(),
                sibling: sibling.map(|s| SiblingReduce {
                    kind: s.kind,
                    acc: operand_map[s.acc],
                    value: value_map[s.value],
                }),
            },
            ..last.clone()
        };
        nests[l] = merged;
        stage.pipelined = Some(Pipelined { carries, next_row });
    }
}

/// One pass for two row reductions of the same loops that do not read each other's
/// accumulator, both into registers (softmax's row max and row min, `check_softmax`):
/// `b`'s operands and values after `a`'s, `b`'s reduction `a`'s sibling. Each reduction
/// combines the same values in the same order as in its own pass.
fn fuse_sibling_reductions(a: &LoopNest, b: &LoopNest) -> Option<LoopNest> {
    let row_reduction = |n: &LoopNest| match &n.sink {
        Sink::Reduce {
            kind,
            acc,
            value,
            best: None,
            index: None,
            stores,
            sibling: None,
        } if stores.is_empty()
            && kind.combine().is_some()
            && n.operands[*acc].inner_stride.is_zero() =>
        {
            Some((*kind, *acc, *value))
        }
        _ => None,
    };
    let (kind, acc, value) = row_reduction(a)?;
    let (b_kind, b_acc, b_value) = row_reduction(b)?;
    let reads = |n: &LoopNest, buffer: &BufferRef| n.operands.iter().any(|op| op.buffer == *buffer);
    if !a.same_loops(b) || reads(b, &a.operands[acc].buffer) || reads(a, &b.operands[b_acc].buffer)
    {
        return None;
    }
    // `b`'s operands, the one of `a` at the same place where there is one (the row both
    // read), and its loads `a`'s load of the same node there.
    let mut operands = a.operands.clone();
    let operand_map: Vec<usize> = b
        .operands
        .iter()
        .map(|op| match operands.iter().position(|o| o.same_place(op)) {
            Some(k) => k,
            None => {
                operands.push(op.clone());
                operands.len() - 1
            }
        })
        .collect();
    let mut values = a.values.clone();
    let first_operands = a.operands.len();
    let value_map = append_values(&mut values, &b.values, &operand_map, |values, v| {
        // A load of an operand of `a` (the row both read) is `a`'s load of the same node.
        let ValueSource::Load { operand } = v.source else {
            return None;
        };
        let operand = operand_map[operand];
        (operand < first_operands)
            .then(|| {
                values.iter().position(|w| {
                    w.node == v.node
                        && matches!(w.source, ValueSource::Load { operand: o } if o == operand)
                })
            })
            .flatten()
    });
    Some(LoopNest {
        operands,
        values,
        sink: Sink::Reduce {
            kind,
            acc,
            value,
            best: None,
            index: None,
            stores: Vec::new(),
            sibling: Some(SiblingReduce {
                kind: b_kind,
                acc: operand_map[b_acc],
                value: value_map[b_value],
            }),
        },
        ..a.clone()
    })
}

/// Appends the values of another nest (`from`) to `values`, for a nest that merges the two:
/// loads through `operand_map` (the other nest's operands in the merged list), computed
/// values' arguments through the map this returns (each value of `from` -> its index in
/// `values`). `existing(values, v)` may name a value already in `values` that `v` (of
/// `from`, before mapping) is, which is then used instead of a copy.
fn append_values(
    values: &mut Vec<Value>,
    from: &[Value],
    operand_map: &[usize],
    existing: impl Fn(&[Value], &Value) -> Option<usize>,
) -> Vec<usize> {
    let mut value_map: Vec<usize> = Vec::with_capacity(from.len());
    for v in from {
        if let Some(w) = existing(values, v) {
            value_map.push(w);
            continue;
        }
        let source = match &v.source {
            ValueSource::Load { operand } => ValueSource::Load {
                operand: operand_map[*operand],
            },
            ValueSource::Compute { args } => ValueSource::Compute {
                args: args.iter().map(|&x| value_map[x]).collect(),
            },
            other => other.clone(),
        };
        values.push(Value {
            node: v.node,
            source,
            level: v.level,
        });
        value_map.push(values.len() - 1);
    }
    value_map
}

/// The nest that stores what `a` stores and reduces what `b` reduces, when `b` may be
/// fused into `a` (see `fuse_row_reductions`).
fn fuse_store_and_reduce(graph: &TypedGraph, a: &LoopNest, b: &LoopNest) -> Option<LoopNest> {
    let Sink::Store(stores) = &a.sink else {
        return None;
    };
    let Sink::Reduce {
        kind,
        acc,
        value,
        best: None,
        index: None,
        stores: b_stores,
        sibling: None,
    } = &b.sink
    else {
        return None;
    };
    if !a.same_loops(b)
        || kind.combine().is_none()
        || !b_stores.is_empty()
        || !b.operands[*acc].inner_stride.is_zero()
        || a.operands
            .iter()
            .any(|op| op.buffer == b.operands[*acc].buffer)
    {
        return None;
    }
    // Each operand of `b`: the value of `a` it reads (a stored buffer), or its new index.
    let mut operands = a.operands.clone();
    let mut stored_value: Vec<Option<usize>> = vec![None; b.operands.len()];
    let mut operand_map: Vec<usize> = Vec::with_capacity(b.operands.len());
    for (k, op) in b.operands.iter().enumerate() {
        let store = stores
            .iter()
            .find(|&&(o, _)| a.operands[o].buffer == op.buffer);
        match store {
            Some(&(o, v)) => {
                let dtype = graph.nodes[a.values[v].node].dtype;
                if !a.operands[o].same_place(op)
                    || !op.inner_stride.is_lit(1)
                    || dtype != dtype.compute()
                {
                    return None;
                }
                stored_value[k] = Some(v);
                operand_map.push(o);
            }
            None => {
                operands.push(op.clone());
                operand_map.push(operands.len() - 1);
            }
        }
    }
    // `b`'s values after `a`'s; a load of a stored buffer is the stored value itself.
    let mut values = a.values.clone();
    let value_map = append_values(&mut values, &b.values, &operand_map, |values, v| {
        let ValueSource::Load { operand } = v.source else {
            return None;
        };
        let stored = stored_value[operand]?;
        // A load of a buffer reads the node stored there (or a reshape of it): one dtype,
        // which the operand loop above checked loses nothing.
        debug_assert_eq!(
            graph.nodes[values[stored].node].dtype,
            graph.nodes[v.node].dtype
        );
        Some(stored)
    });
    Some(LoopNest {
        operands,
        values,
        sink: Sink::Reduce {
            kind: *kind,
            acc: operand_map[*acc],
            value: value_map[*value],
            best: None,
            index: None,
            stores: stores.clone(),
            sibling: None,
        },
        ..a.clone()
    })
}

/// Kernels with fewer elements than this run on the calling thread only: below it the
/// cost of waking threads exceeds the work (see BENCHMARKS.md).
pub const PARALLEL_MIN_ELEMENTS: usize = 1 << 18;
/// Elements per task: large enough to amortise scheduling, small enough to balance.
const TASK_ELEMENTS: usize = 1 << 16;

/// Rows of a ragged flat loop (a symbolic extent): a multiple of the lane count, and a
/// divisor of the task size.
const RAGGED_BLOCK: usize = 1 << 16;

/// A large flat loop becomes rows of `B` (a multiple of the lane count dividing the
/// length), so it can be split across threads. A flat loop whose extent is symbolic
/// becomes rows of `RAGGED_BLOCK` with a shorter last row, whatever its size: whether
/// to split is decided at run time.
fn split_flat_loop(nest: &mut LoopNest, blocks: &mut Vec<(String, Size, usize)>) {
    if !nest.outer.is_empty() || nest.scan.is_some() || nest.matmul.is_some() {
        return;
    }
    let Some(inner) = nest.inner.as_static() else {
        // `#` cannot start a dim name, so this never meets a user's name.
        let name = format!("#blocks{}", blocks.len());
        blocks.push((name.clone(), nest.inner.clone(), RAGGED_BLOCK));
        nest.ragged = Some(nest.inner.clone());
        nest.outer = vec![Size {
            coeff: 1,
            names: vec![name],
        }];
        for op in &mut nest.operands {
            op.outer_strides = vec![op.inner_stride.mul(&Size::lit(RAGGED_BLOCK))];
        }
        nest.inner = Size::lit(RAGGED_BLOCK);
        return;
    };
    if inner < PARALLEL_MIN_ELEMENTS {
        return;
    }
    let Some(block) = (12..=16)
        .rev()
        .map(|b| 1usize << b)
        .find(|b| inner % b == 0)
    else {
        return;
    };
    nest.outer = vec![Size::lit(inner / block)];
    for op in &mut nest.operands {
        op.outer_strides = vec![op.inner_stride.mul(&Size::lit(block))];
    }
    nest.inner = Size::lit(block);
}

/// Partial accumulator rows of a reduction over outer axes (`split_reduced_rows`): at most
/// this many, fixed by the shape alone, so the order of accumulation (and every rounding)
/// is the same whatever the number of threads.
const PARTIAL_ROWS: usize = 8;
/// Elements of all partial rows together at most (64 Ki: 512 KiB of `f64` accumulators,
/// within L2): wider rows are split by columns instead (`split_kept_columns`).
const PARTIAL_ELEMENTS: usize = 1 << 16;

/// A large reduction over outer axes that keeps its inner axis (`sum(x, axis = 0)` on
/// `f32[4096, 1024]`): every row adds into the same accumulator row. Its rows are cut into
/// `P` consecutive blocks, each accumulated into a partial row of its own (a temp of `P`
/// rows, which stage planning splits into tasks like any rows), and a second, small nest
/// then combines the `P` partial rows, in order, into the accumulator. Each task reads whole
/// rows, contiguous in memory. (Cutting the columns instead, `split_kept_columns`, has each
/// thread read part of every row: with 4 KiB rows both cores' prefetchers fetch each other's
/// halves and two threads ran 1.33x one; this split ran 1.9x, BENCHMARKS.md "Two threads,
/// reductions over an outer axis".) Accumulation order is unspecified (docs/language.md), and `P`
/// depends only on the shape, so results do not depend on the number of threads.
/// Returns the combining nest, to run right after `nest`. Arg-max/arg-min keep the column
/// split (their partials would need the index too).
fn split_reduced_rows(
    nest: &mut LoopNest,
    temps: &mut Vec<Temp>,
    temp_of: &HashMap<NodeId, usize>,
) -> Option<LoopNest> {
    let Sink::Reduce {
        kind,
        best: None,
        index: None,
        ..
    } = nest.sink
    else {
        return None;
    };
    kind.combine()?;
    let (acc, columns) = shared_accumulator_row(nest)?;
    let acc_op = &nest.operands[acc];
    let BufferRef::Temp(acc_temp) = acc_op.buffer else {
        return None;
    };
    let first_rows = nest.outer[0].as_static()?;
    let work = nest
        .outer
        .iter()
        .try_fold(columns, |w, e| Some(w * e.as_static()?))?;
    if !acc_op.base.is_zero()
        || !temps[acc_temp].len.is_lit(columns)
        || work < PARALLEL_MIN_ELEMENTS
    {
        return None;
    }
    // `P` divides the outermost extent and leaves every partial row at least 16 rows.
    let partials = [PARTIAL_ROWS, PARTIAL_ROWS / 2, 2].into_iter().find(|&p| {
        first_rows % p == 0 && work / columns / p >= 16 && p * columns <= PARTIAL_ELEMENTS
    })?;
    // The reduction node whose accumulator this is: the combining nest's values have its dtype.
    let node = *temp_of.iter().find(|(_, &t)| t == acc_temp)?.0;
    temps.push(Temp {
        dtype: temps[acc_temp].dtype,
        len: Size::lit(partials * columns),
        init: kind.identity(),
        overwritten: false,
        row_local: None,
        gemm_block: false,
    });
    let partial_temp = temps.len() - 1;

    // The outermost loop of `first_rows` becomes `partials × (first_rows / partials)`.
    let rows_per_partial = first_rows / partials;
    nest.outer[0] = Size::lit(rows_per_partial);
    nest.outer.insert(0, Size::lit(partials));
    for (k, op) in nest.operands.iter_mut().enumerate() {
        if k == acc {
            op.buffer = BufferRef::Temp(partial_temp);
            op.outer_strides.insert(0, Offset::lit(columns as i128));
        } else {
            let stride = op.outer_strides[0].mul(&Size::lit(rows_per_partial));
            op.outer_strides.insert(0, stride);
        }
    }

    Some(LoopNest {
        scan: None,
        matmul: None,
        outer: vec![Size::lit(partials)],
        inner: Size::lit(columns),
        ragged: None,
        operands: vec![
            Operand {
                buffer: BufferRef::Temp(partial_temp),
                base: Offset::zero(),
                outer_strides: vec![Offset::lit(columns as i128)],
                inner_stride: Offset::lit(1),
            },
            Operand {
                buffer: BufferRef::Temp(acc_temp),
                base: Offset::zero(),
                outer_strides: vec![Offset::zero()],
                inner_stride: Offset::lit(1),
            },
        ],
        values: vec![Value {
            node,
            source: ValueSource::Load { operand: 0 },
            level: Level::Inner,
        }],
        sink: Sink::Reduce {
            kind,
            acc: 1,
            value: 0,
            best: None,
            index: None,
            stores: Vec::new(),
            sibling: None,
        },
    })
}

/// A reduction over outer axes whose accumulator is one contiguous row that every outer row
/// adds into (`sum(x, axis = 0)`): its accumulator operand and the (literal) row length.
/// What both ways of splitting such a reduction across threads start from.
fn shared_accumulator_row(nest: &LoopNest) -> Option<(usize, usize)> {
    let Sink::Reduce { acc, .. } = nest.sink else {
        return None;
    };
    let acc_op = &nest.operands[acc];
    let columns = nest.inner.as_static()?;
    let shared = !nest.outer.is_empty()
        && nest.ragged.is_none()
        && acc_op.inner_stride.is_lit(1)
        && acc_op.outer_strides.iter().all(Offset::is_zero);
    shared.then_some((acc, columns))
}

/// A large reduction over outer axes that keeps its inner axis, when its rows cannot be
/// cut into partial rows (`split_reduced_rows`): every row adds into the same accumulator
/// row, so its rows cannot be split across
/// threads. Its inner axis is cut into column blocks and the block index becomes the
/// outermost loop: each block's accumulators are then a row of their own, which stage
/// planning splits into tasks like any rows. The order in which one accumulator sees the
/// rows is unchanged.
fn split_kept_columns(nest: &mut LoopNest) {
    let Some((_, columns)) = shared_accumulator_row(nest) else {
        return;
    };
    let work = nest.outer.iter().fold(Some(columns), |w, e| {
        w.zip(e.as_static()).map(|(w, e)| w * e)
    });
    // A symbolic row count: whether to split is decided at run time (`Tasks::work`).
    if work.is_some_and(|w| w < PARALLEL_MIN_ELEMENTS) {
        return;
    }
    // Blocks of a power of two of at least 64 columns (whole SIMD chunks), at least two.
    let Some(block) = (6..=12)
        .rev()
        .map(|b| 1usize << b)
        .find(|&b| columns % b == 0 && columns / b >= 2)
    else {
        return;
    };
    nest.outer.insert(0, Size::lit(columns / block));
    for op in &mut nest.operands {
        let stride = op.inner_stride.mul(&Size::lit(block));
        op.outer_strides.insert(0, stride);
    }
    nest.inner = Size::lit(block);
}

/// Greedy runs of consecutive nests that can share their outermost loop: each iterates
/// the same outermost extent E, and every temp written in the run is addressed row by
/// row (outermost stride = len / E), so row `i` of a later nest reads only what row `i`
/// of an earlier nest wrote. A run is also split into tasks when it is large and every
/// buffer it writes is addressed row by row; with symbolic sizes "large" is decided at
/// run time.
fn plan_stages(temps: &[Temp], output_lens: &[Size], nests: &[LoopNest]) -> Vec<Stage> {
    let buffer_len = |b: &BufferRef| match b {
        BufferRef::Temp(t) => Some(temps[*t].len.clone()),
        BufferRef::Output(o) => Some(output_lens[*o].clone()),
        _ => None,
    };
    // The elements per row of `buffer` if every operand of `nest` on it is addressed row
    // by row over `rows`. A ragged flat loop writes rows of its literal block.
    let row_len = |nest: &LoopNest, buffer: &BufferRef, rows: &Size| -> Option<Size> {
        let len = buffer_len(buffer)?;
        let row = match &nest.ragged {
            Some(total) if *total == len => nest.inner.clone(),
            Some(_) => return None,
            None => len.checked_div(rows)?,
        };
        // A region of a `pad`/`concat`/`tile` writes from a base: not row by row.
        let row_stride = Offset::size(&row);
        nest.operands
            .iter()
            .filter(|o| o.buffer == *buffer)
            .all(|o| o.base.is_zero() && o.outer_strides.first() == Some(&row_stride))
            .then_some(row)
    };
    let written = |run: &[LoopNest]| -> Vec<BufferRef> {
        let mut out: Vec<BufferRef> = Vec::new();
        for nest in run {
            for o in nest.sink.written() {
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
        // More than one row, or a symbolic count of rows.
        let rows = nests[start]
            .outer
            .first()
            .filter(|e| e.as_static().is_none_or(|n| n > 1))
            .cloned();
        let mut end = start + 1;
        // A run holds at most one product: the nests before it compute its left operand
        // (a prologue: they run through a block of rows, then the GEMM computes that block,
        // then the nests after it run through the block's product rows).
        let mut product_at = nests[start].matmul.is_some().then_some(start);
        if let Some(rows) = &rows {
            while end < nests.len() && nests[end].outer.first() == Some(rows) {
                if nests[end].matmul.is_some() && product_at.is_some() {
                    break;
                }
                let run = &nests[start..=end];
                let temps_written: Vec<BufferRef> = written(run)
                    .into_iter()
                    .filter(|b| matches!(b, BufferRef::Temp(_)))
                    .collect();
                if !run
                    .iter()
                    .all(|n| temps_written.iter().all(|b| row_len(n, b, rows).is_some()))
                {
                    break;
                }
                if nests[end].matmul.is_some() {
                    product_at = Some(end);
                }
                end += 1;
            }
        }
        // A product fuses with its neighbours only when what crosses the GEMM is its left
        // operand (before) and the product (after), each read only inside the run.
        if let Some(at) = product_at {
            if !product_fuses(nests, start, end, at) {
                if at == start {
                    stages.push(Stage {
                        first: start,
                        count: 1,
                        row_loop: None,
                        tasks: None,
                        pipelined: None,
                    });
                    start += 1;
                    continue;
                }
                end = at;
            }
        }
        let run = &nests[start..end];
        let work: Vec<Size> = run
            .iter()
            .map(|n| n.outer.iter().fold(n.inner.clone(), |acc, e| acc.mul(e)))
            .collect();
        let static_work: Option<usize> = work.iter().map(Size::as_static).sum();
        let large = match static_work {
            Some(w) => w >= PARALLEL_MIN_ELEMENTS,
            None => true,
        };
        let tasks = rows.as_ref().filter(|_| large).and_then(|rows| {
            let bufs = written(run);
            let chunked: Option<Vec<(BufferRef, Size)>> = bufs
                .iter()
                .map(|b| {
                    let mut lens = run.iter().map(|n| row_len(n, b, rows));
                    let first = lens.next()??;
                    lens.all(|l| l.as_ref() == Some(&first))
                        .then_some((b.clone(), first))
                })
                .collect();
            let chunked = chunked?;
            // A buffer with rows of 0 elements cannot be cut into chunks of rows (and
            // `zip` would stop at it); such a stage runs on one thread.
            if chunked.iter().any(|(_, row)| row.is_zero()) {
                return None;
            }
            // A product's tasks take whole GEMM blocks (a right operand with batch dims
            // is packed again by every block; one without is packed once per stage).
            let least = if run.iter().any(|n| n.matmul.is_some()) {
                crate::ir::GEMM_BLOCK_ROWS
            } else {
                1
            };
            let rows_per_task = match (static_work, rows.as_static()) {
                (Some(w), Some(r)) => Some((TASK_ELEMENTS / (w / r).max(1)).max(least)),
                _ => None,
            };
            Some(Tasks {
                rows_per_task,
                work: work.clone(),
                chunked,
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
            pipelined: None,
        });
        start = end;
    }
    stages
}

/// The nests computing `sink` over the loop box `dims`: one nest, or one per region where
/// a `pad`/`concat`/`tile` on the way cuts the box into pieces (each region's nest reads
/// every buffer through plain affine maps). `sink` gets the mapping of a node with the
/// box's own axes.
fn build_regions(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    dims: &[Dim],
    root: Option<NodeId>,
    sink: &mut dyn FnMut(&mut NestBuilder, &Mapping) -> Result<Sink, Split>,
) -> Vec<LoopNest> {
    let mut nests = Vec::new();
    // Boxes still to build: (first index, extent) per axis; built in index order.
    let mut pending: Vec<(Vec<usize>, Vec<Size>)> =
        vec![(vec![0; dims.len()], dims.iter().map(Size::of).collect())];
    while let Some((lo, extents)) = pending.pop() {
        let mut b = NestBuilder::new(graph, temp_of, extents.clone(), root);
        let map: Mapping = lo
            .iter()
            .enumerate()
            .map(|(axis, &l)| AxisIndex {
                offset: Offset::lit(l as i128),
                ..AxisIndex::counter(axis)
            })
            .collect();
        match sink(&mut b, &map) {
            Ok(s) => nests.push(b.finish(s)),
            Err(Split { axis, at }) => {
                let whole = extents[axis]
                    .as_static()
                    .expect("only literal extents are cut into pieces");
                let (mut first, mut second) = ((lo.clone(), extents.clone()), (lo, extents));
                first.1[axis] = Size::lit(at);
                second.0[axis] += at;
                second.1[axis] = Size::lit(whole - at);
                pending.push(second);
                pending.push(first);
            }
        }
    }
    nests
}

/// The piece of `pieces` that the index `index` reads over a box whose loop extents are
/// `extents`, or the cut that separates two pieces.
fn piece_for<'p>(
    pieces: &'p [Piece],
    index: &AxisIndex,
    extents: &[Size],
) -> Result<&'p Piece, Split> {
    let first = index
        .offset
        .as_static()
        .expect("pieces sit on literal axes, reached through literal offsets");
    let extent = match index.axis {
        Some(a) => extents[a]
            .as_static()
            .expect("pieces sit on literal axes, reached through literal extents"),
        None => 1,
    };
    let scale = index.scale as i128;
    let last = first + scale * (extent.max(1) as i128 - 1);
    let holds = |p: &Piece, i: i128| (p.lo as i128) <= i && i < p.hi as i128;
    let piece = pieces
        .iter()
        .find(|p| holds(p, first))
        .expect("an in-range index lies in a piece");
    if holds(piece, last) {
        return Ok(piece);
    }
    let axis = index.axis.expect("a fixed index lies in one piece");
    // The first counter whose index leaves `piece`.
    let at = if scale > 0 {
        (piece.hi as i128 - first + scale - 1) / scale
    } else {
        (first - piece.lo as i128) / -scale + 1
    };
    Err(Split {
        axis,
        at: at as usize,
    })
}

/// Nodes that get a temp, in topological order: reductions, and computed values that a
/// reshape reinterprets.
fn materialised_nodes(graph: &TypedGraph) -> Vec<NodeId> {
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
            // A scan reads a row-major temp of its accumulator dtype and writes its own.
            NodeKind::Scan { input, .. } => {
                set[id] = true;
                set[*input] = true;
            }
            // A product reads its operands in place when they are buffers or views of
            // one (a transpose is a stride), else from a temp.
            NodeKind::MatMul { a, b } => {
                set[id] = true;
                for operand in [*a, *b] {
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

fn node_args(kind: &NodeKind) -> Vec<NodeId> {
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
        NodeKind::Diagonal { input, .. } => vec![*input],
        NodeKind::Input { .. }
        | NodeKind::Scalar { .. }
        | NodeKind::Const(_)
        | NodeKind::Count { .. } => Vec::new(),
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

/// Whether `node` is a buffer read through an affine map: a parameter, a temp, a reshape
/// of one, or a view, slice or flip of one (no computation, no pieces).
fn viewable(graph: &TypedGraph, materialised: &[bool], node: NodeId) -> bool {
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
        } if axes.iter().all(|a| !matches!(a, AxisMap::Pieces(_))) => {
            viewable(graph, materialised, inputs[0])
        }
        _ => false,
    }
}

/// The GEMM step of `node = a · b`: each operand read in place through the affine map its
/// node chain gives (`viewable`, or a temp).
fn lower_matmul(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    node: NodeId,
    a: NodeId,
    b: NodeId,
) -> LoopNest {
    let out = &graph.nodes[node].dims;
    let batch_rank = out.len() - 2;
    let matrix = |operand: NodeId| {
        let dims = &graph.nodes[operand].dims;
        let mut builder =
            NestBuilder::new(graph, temp_of, dims.iter().map(Size::of).collect(), None);
        let map: Mapping = (0..dims.len()).map(AxisIndex::counter).collect();
        let value = builder
            .value(operand, map)
            .expect("GEMM operands have no pieces");
        let ValueSource::Load { operand: o } = builder.values[value].source else {
            unreachable!("GEMM operands are buffers or views of one (`viewable`)")
        };
        let (buffer, base, strides) = builder.operands[o].clone();
        // The operand's batch dims align right with the product's; missing ones and ones of
        // size 1 broadcast (stride 0). A size-1 axis's stride is otherwise whatever its
        // view gives: `slice(a, axis = 0, start = 4)` of `[5, 7, 17]` walks 119 elements
        // per index, read past `a` when the axis broadcasts over the other operand's 5
        // (issue 37).
        let lead = batch_rank - (dims.len() - 2);
        let batch_strides = (0..batch_rank)
            .map(|k| {
                if k < lead || dims[k - lead].is_static(1) {
                    Offset::zero()
                } else {
                    strides[k - lead].clone()
                }
            })
            .collect();
        crate::ir::StridedMatrix {
            buffer,
            base,
            batch_strides,
            row_stride: strides[dims.len() - 2].clone(),
            col_stride: strides[dims.len() - 1].clone(),
        }
    };
    let (ma, mb) = (matrix(a), matrix(b));
    let a_dims = &graph.nodes[a].dims;
    let step = MatMulStep {
        output: temp_of[&node],
        batch: out[..batch_rank].iter().map(Size::of).collect(),
        m: Size::of(&out[batch_rank]),
        n: Size::of(&out[batch_rank + 1]),
        k: Size::of(&a_dims[a_dims.len() - 1]),
        a: ma,
        b: mb,
    };
    // The nest's loops say what it writes: the product's rows (batch × m of them), each
    // `n` long, so stage planning can run its consumers row block by row block.
    let rows = step.batch.iter().fold(step.m.clone(), |acc, b| acc.mul(b));
    let plain = |buffer: BufferRef| Operand {
        buffer,
        base: Offset::zero(),
        outer_strides: vec![Offset::zero()],
        inner_stride: Offset::zero(),
    };
    // Row r of the product reads row r of a row-major `a` whose batch dims are the
    // product's: then `a` is addressed row by row, and a nest writing it can run in the
    // same stage, block by block before the GEMM (a prologue, `plan_stages`).
    let mut a_operand = plain(step.a.buffer.clone());
    if row_flat(&step.a, &step.batch, &step.m, &step.k) {
        a_operand.outer_strides = vec![Offset::size(&step.k)];
        a_operand.inner_stride = Offset::lit(1);
    }
    let operands = vec![
        a_operand,
        plain(step.b.buffer.clone()),
        Operand {
            buffer: BufferRef::Temp(step.output),
            base: Offset::zero(),
            outer_strides: vec![Offset::size(&step.n)],
            inner_stride: Offset::lit(1),
        },
    ];
    let inner = step.n.clone();
    LoopNest {
        scan: None,
        matmul: Some(step),
        outer: vec![rows],
        inner,
        ragged: None,
        operands,
        values: Vec::new(),
        // The product's temp is what it writes.
        sink: Sink::Store(vec![(2, usize::MAX)]),
    }
}

/// Whether `a` (`[batch…, m, k]`) is row-major with exactly the product's batch dims, so
/// that the product's flattened row r is `a`'s flattened row r.
fn row_flat(a: &crate::ir::StridedMatrix, batch: &[Size], m: &Size, k: &Size) -> bool {
    if !a.base.is_zero() || !a.col_stride.is_lit(1) || a.row_stride != Offset::size(k) {
        return false;
    }
    let mut stride = m.mul(k);
    for (s, extent) in a.batch_strides.iter().zip(batch).rev() {
        if *s != Offset::size(&stride) && !extent.is_lit(1) {
            return false;
        }
        stride = stride.mul(extent);
    }
    true
}

/// Row-major strides of `dims`.
fn contiguous_strides(dims: &[Dim]) -> Vec<Size> {
    let mut strides = vec![Size::lit(0); dims.len()];
    let mut stride = Size::lit(1);
    for axis in (0..dims.len()).rev() {
        strides[axis] = stride.clone();
        stride = stride.mul(&Size::of(&dims[axis]));
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
) -> Vec<LoopNest> {
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

struct NestBuilder<'g> {
    graph: &'g TypedGraph,
    temp_of: &'g HashMap<NodeId, usize>,
    loop_dims: Vec<Size>,
    /// The node this nest materialises, read through its inputs rather than its temp.
    root: Option<NodeId>,
    /// (buffer, base, stride per loop axis).
    operands: Vec<(BufferRef, Offset, Vec<Offset>)>,
    values: Vec<Value>,
    memo: HashMap<(NodeId, Mapping), usize>,
}

impl<'g> NestBuilder<'g> {
    fn new(
        graph: &'g TypedGraph,
        temp_of: &'g HashMap<NodeId, usize>,
        loop_dims: Vec<Size>,
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
    fn operand(&mut self, buffer: BufferRef, dims: &[Dim], map: &Mapping) -> usize {
        let own = contiguous_strides(dims);
        let mut strides = vec![Offset::zero(); self.loop_dims.len()];
        let mut base = Offset::zero();
        for (k, index) in map.iter().enumerate() {
            // A size-1 axis has index 0 whatever the map says.
            if dims[k].is_static(1) {
                continue;
            }
            base = base.add(&index.offset.mul(&own[k]));
            if let Some(axis) = index.axis {
                strides[axis] = strides[axis].add(&Offset::size(&own[k]).scale(index.scale));
            }
        }
        self.raw_operand(buffer, base, strides)
    }

    fn raw_operand(&mut self, buffer: BufferRef, base: Offset, strides: Vec<Offset>) -> usize {
        if let Some(i) = self
            .operands
            .iter()
            .position(|(b, o, s)| *b == buffer && *o == base && *s == strides)
        {
            return i;
        }
        self.operands.push((buffer, base, strides));
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

    /// The value of `node` at `map`, built once per (node, mapping); `Split` when the
    /// nest's box spans two pieces of a `pad`/`concat`/`tile` on the way.
    fn value(&mut self, node: NodeId, map: Mapping) -> Result<usize, Split> {
        if let Some(&v) = self.memo.get(&(node, map.clone())) {
            return Ok(v);
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
                NodeKind::Count { dims } => ValueSource::Count(Size::product(dims)),
                NodeKind::Op { args, .. } => {
                    let args = args.clone();
                    let ids = args
                        .iter()
                        .map(|&a| self.arg_value(node, a, &map))
                        .collect::<Result<_, _>>()?;
                    ValueSource::Compute { args: ids }
                }
                NodeKind::Select { cond, a, b } => {
                    let (cond, a, b) = (*cond, *a, *b);
                    let ids = [cond, a, b]
                        .iter()
                        .map(|&x| self.arg_value(node, x, &map))
                        .collect::<Result<_, _>>()?;
                    ValueSource::Compute { args: ids }
                }
                NodeKind::Cast { input } => {
                    let input = *input;
                    let id = self.arg_value(node, input, &map)?;
                    ValueSource::Compute { args: vec![id] }
                }
                NodeKind::View { input, map: view } => {
                    // Input axis j is read where the view's axis k = view⁻¹(j) is.
                    let input = *input;
                    let mut inner: Mapping =
                        vec![AxisIndex::zero(); self.graph.nodes[input].dims.len()];
                    for (k, source) in view.iter().enumerate() {
                        if let Some(j) = source {
                            inner[*j] = map[k].clone();
                        }
                    }
                    let v = self.value(input, inner)?;
                    self.memo.insert((node, map), v);
                    return Ok(v);
                }
                NodeKind::Diagonal { input, of } => {
                    let input = *input;
                    let inner: Mapping = of.iter().map(|&k| map[k].clone()).collect();
                    let v = self.value(input, inner)?;
                    self.memo.insert((node, map), v);
                    return Ok(v);
                }
                NodeKind::Reorg { inputs, fill, axes } => {
                    let v = self.reorg_value(inputs, *fill, axes, &map)?;
                    self.memo.insert((node, map), v);
                    return Ok(v);
                }
                NodeKind::Reduce { .. }
                | NodeKind::Scan { .. }
                | NodeKind::MatMul { .. }
                | NodeKind::Input { .. }
                | NodeKind::Reshape { .. } => {
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
        Ok(id)
    }

    /// A `Reorg` node at `map`: each axis's index goes through its `AxisMap`; where an
    /// axis has pieces, the one this nest's box reads (or a cut between two).
    fn reorg_value(
        &mut self,
        inputs: &[NodeId],
        fill: Option<NodeId>,
        axes: &[AxisMap],
        map: &Mapping,
    ) -> Result<usize, Split> {
        let mut input_map: Mapping = Vec::with_capacity(axes.len());
        let mut input = 0;
        let mut fills = false;
        let mut cut = None;
        for (axis_map, index) in axes.iter().zip(map) {
            input_map.push(match axis_map {
                AxisMap::Same => index.clone(),
                AxisMap::Affine { start, step } => index.then(start, *step),
                AxisMap::Pieces(pieces) => match piece_for(pieces, index, &self.loop_dims) {
                    Err(split) => {
                        cut.get_or_insert(split);
                        AxisIndex::zero()
                    }
                    Ok(Piece {
                        source: PieceSource::Fill,
                        ..
                    }) => {
                        fills = true;
                        AxisIndex::zero()
                    }
                    Ok(Piece {
                        source:
                            PieceSource::Input {
                                input: i,
                                start,
                                step,
                            },
                        ..
                    }) => {
                        input = *i;
                        index.then(&Offset::lit(*start as i128), *step)
                    }
                },
            });
        }
        // A box that lies wholly in a fill piece of one axis is fill, however the other
        // axes would cut it.
        if fills {
            let fill = fill.expect("fill pieces come with a fill value");
            return self.value(fill, Vec::new());
        }
        if let Some(split) = cut {
            return Err(split);
        }
        self.value(inputs[input], input_map)
    }

    /// An elementwise argument, right-aligned and broadcast into its user's axes.
    fn arg_value(&mut self, user: NodeId, arg: NodeId, user_map: &Mapping) -> Result<usize, Split> {
        let user_dims = &self.graph.nodes[user].dims;
        let arg_dims = &self.graph.nodes[arg].dims;
        let lead = user_dims.len() - arg_dims.len();
        let map: Mapping = (0..arg_dims.len())
            .map(|j| {
                if arg_dims[j].is_static(1) {
                    AxisIndex::zero()
                } else {
                    user_map[j + lead].clone()
                }
            })
            .collect();
        self.value(arg, map)
    }

    /// Collapses the loop axes and assigns levels.
    fn finish(self, sink: Sink) -> LoopNest {
        // Drop axes of extent 1, then merge neighbours every operand walks contiguously.
        // A nest reading a product keeps the product's rows as its outer loop (never
        // merged into the inner one), so it can run fused with the GEMM, row block by row
        // block (`plan_stages`).
        let reads_product = self.operands.iter().any(|(b, _, _)| {
            matches!(b, BufferRef::Temp(t) if self.temp_of.iter().any(|(n, u)| u == t
                && matches!(self.graph.nodes[*n].kind, NodeKind::MatMul { .. })))
        });
        let last_axis = (0..self.loop_dims.len())
            .rev()
            .find(|&a| !self.loop_dims[a].is_lit(1));
        let mut axes: Vec<(Size, Vec<Offset>)> = Vec::new();
        for (axis, extent) in self.loop_dims.iter().enumerate() {
            if extent.is_lit(1) {
                continue;
            }
            if reads_product && Some(axis) == last_axis {
                let strides: Vec<Offset> =
                    self.operands.iter().map(|o| o.2[axis].clone()).collect();
                axes.push((extent.clone(), strides));
                continue;
            }
            let strides: Vec<Offset> = self.operands.iter().map(|o| o.2[axis].clone()).collect();
            if let Some((prev_extent, prev_strides)) = axes.last_mut() {
                if prev_strides
                    .iter()
                    .zip(&strides)
                    .all(|(p, s)| *p == s.mul(extent))
                {
                    *prev_extent = prev_extent.mul(extent);
                    *prev_strides = strides;
                    continue;
                }
            }
            axes.push((extent.clone(), strides));
        }
        // Stores and accumulators walk the inner loop contiguously (or stay on one
        // element). A region of a `pad`/`concat`/`tile` one element wide along the buffer's
        // last axis would leave a strided inner loop: it gets an inner loop of one element.
        let written = sink.written();
        let strided_write = axes.last().is_some_and(|(_, strides)| {
            written
                .iter()
                .any(|&o| !strides[o].is_zero() && !strides[o].is_lit(1))
        });
        if axes.is_empty() || strided_write {
            axes.push((Size::lit(1), vec![Offset::zero(); self.operands.len()]));
        }
        let (inner, inner_strides) = axes.pop().expect("at least one axis");
        let outer: Vec<Size> = axes.iter().map(|a| a.0.clone()).collect();
        let operands: Vec<Operand> = self
            .operands
            .iter()
            .enumerate()
            .map(|(k, (buffer, base, _))| Operand {
                buffer: buffer.clone(),
                base: base.clone(),
                outer_strides: axes.iter().map(|a| a.1[k].clone()).collect(),
                inner_stride: inner_strides[k].clone(),
            })
            .collect();
        let mut values = self.values;
        for i in 0..values.len() {
            values[i].level = match &values[i].source {
                ValueSource::Load { operand } => {
                    let op = &operands[*operand];
                    if !op.inner_stride.is_zero() {
                        Level::Inner
                    } else if op.outer_strides.iter().any(|s| !s.is_zero()) {
                        Level::Row
                    } else {
                        Level::Global
                    }
                }
                ValueSource::Scalar { .. } | ValueSource::Const(_) | ValueSource::Count(_) => {
                    Level::Global
                }
                ValueSource::Compute { args } => args
                    .iter()
                    .map(|&a| values[a].level)
                    .max()
                    .unwrap_or(Level::Global),
            };
        }
        LoopNest {
            scan: None,
            matmul: None,
            outer,
            inner,
            ragged: None,
            operands,
            values,
            sink,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel of the one graph in `source` (`$crate; fn …`).
    fn kernel(source: &str) -> Kernel {
        let input: crate::ast::GraphInput =
            syn::parse_str(&format!("crate; {source}")).expect("parses");
        let crate::ast::GraphBody::Items(items) = &input.body else {
            panic!("an item")
        };
        let mut errors = crate::check::Errors::default();
        let graph = crate::check::check_graph(&items[0], &mut errors).expect("checks");
        lower_graph(&graph)
    }

    #[test]
    fn products_run_with_their_prologue_and_epilogue_in_one_stage() {
        let k = kernel(
            "fn f(x: f32[600, 32], g: f32[32], b: f32[32], w: f32[32, 48], c: f32[48]) -> f32[600, 48] {
                gelu(layer_norm(x, g, b) @ w + c)
            }",
        );
        let stage = k
            .stages
            .iter()
            .find(|s| {
                k.nests[s.first..s.first + s.count]
                    .iter()
                    .any(|n| n.matmul.is_some())
            })
            .expect("a stage with the product");
        // Layer norm's nests before the product, the epilogue after it, in one row loop.
        assert!(stage.row_loop.is_some() && stage.count >= 3, "{stage:?}");
        let step = k.nests[stage.first..stage.first + stage.count]
            .iter()
            .find_map(|n| n.matmul.as_ref())
            .unwrap();
        assert!(
            k.temps[step.output].gemm_block,
            "the product is a block temp"
        );
        let BufferRef::Temp(a) = step.a.buffer else {
            panic!("the left operand is computed")
        };
        assert!(k.temps[a].gemm_block, "the left operand is a block temp");
    }

    /// The stage holding the row reductions of `k`, and its nests.
    fn row_stage(k: &Kernel) -> &[LoopNest] {
        let stage = k
            .stages
            .iter()
            .find(|s| s.row_loop.is_some() && s.count > 1)
            .expect("a row stage");
        &k.nests[stage.first..stage.first + stage.count]
    }

    #[test]
    fn softmax_sums_the_row_its_exp_pass_stores() {
        for (source, outputs, pipelined) in [
            (
                "fn f(x: f32[64, 1024]) -> f32[64, 1024] { softmax(x, axis = 1) }",
                1,
                true,
            ),
            (
                "fn f(x: f64[B, 300]) -> f64[B, 300] { softmax(x, axis = -1) }",
                1,
                true,
            ),
            // Two outputs: `e` itself stays a temp, and is still summed as it is stored. The
            // scale pass is first to store the outputs' rows: not pipelined.
            (
                "fn f(x: f32[8, 512]) -> (f32[8, 512], f32[8, 512]) {
                    let e = exp(x - max(x, axis = 1, keepdims = true));
                    (e / sum(e, axis = 1, keepdims = true), e * 2.0)
                }",
                2,
                false,
            ),
        ] {
            let k = kernel(source);
            let nests = row_stage(&k);
            // max, exp + store + sum, scale.
            assert_eq!(nests.len(), 3, "{source}");
            let Sink::Reduce {
                kind: ReduceKind::Sum,
                stores,
                ..
            } = &nests[1].sink
            else {
                panic!("the exp pass sums: {:?}", nests[1].sink)
            };
            assert_eq!(stores.len(), 1, "{source}");
            assert_eq!(k.nests.len(), 3, "{source}");
            // The scale pass stores; pipelined, it also reduces the next row's max (and, in
            // f32, min: `pipeline_first_pass`).
            let stage = k.stages.iter().find(|s| s.row_loop.is_some()).unwrap();
            assert_eq!(stage.pipelined.is_some(), pipelined, "{source}");
            let last = match &nests[2].sink {
                Sink::Store(last) => last,
                Sink::Reduce {
                    kind: ReduceKind::MaxNoNan,
                    stores,
                    ..
                } if pipelined => stores,
                other => panic!("the scale pass stores: {other:?}"),
            };
            assert_eq!(last.len(), outputs, "{source}");
        }
    }

    /// Softmax reduces a row minimum (for the division's `in_range` flag) only where the
    /// division uses it: f32 along the last axis, beside the max in one pass.
    #[test]
    fn softmax_reduces_a_min_only_for_f32_rows() {
        let mins = |source: &str| {
            kernel(source)
                .nests
                .iter()
                .filter(|n| match &n.sink {
                    Sink::Reduce { kind, sibling, .. } => {
                        *kind == ReduceKind::MinNoNan
                            || sibling.is_some_and(|s| s.kind == ReduceKind::MinNoNan)
                    }
                    _ => false,
                })
                .count()
        };
        // The max/min pass for a task's first row, and the pipelined scale pass.
        assert_eq!(
            mins("fn f(x: f32[64, 1024]) -> f32[64, 1024] { softmax(x, axis = 1) }"),
            2
        );
        assert_eq!(
            mins("fn f(x: f16[B, 300]) -> f16[B, 300] { softmax(x, axis = -1) }"),
            1
        );
        assert_eq!(
            mins("fn f(x: f64[B, 300]) -> f64[B, 300] { softmax(x, axis = -1) }"),
            0
        );
        assert_eq!(
            mins("fn f(x: f32[64, 1024]) -> f32[64, 1024] { softmax(x, axis = 0) }"),
            0
        );
        assert_eq!(
            mins("fn f(x: f32[8, 64, 32]) -> f32[8, 64, 32] { softmax(x, axis = 1) }"),
            0
        );
    }

    /// Which graphs get a fused store + reduce pass: tests/fused_row_passes.rs runs those that do
    /// (`fused_passes_beyond_softmax`) against references. A pass that stores a plain
    /// elementwise temp is a flat loop of its own, not a row pass, so it is not fused. A
    /// pipelined stage's last pass (`pipeline_first_pass`) stores and reduces too: 2.
    #[test]
    fn which_graphs_fuse_a_store_and_a_reduction() {
        let fused = |source: &str| {
            kernel(source)
                .nests
                .iter()
                .filter(|n| matches!(&n.sink, Sink::Reduce { stores, .. } if !stores.is_empty()))
                .count()
        };
        for (source, want) in [
            // The exp pass, and the scale pass with the next row's max and min.
            ("fn f(x: f32[R, N]) -> f32[R, N] { softmax(x, axis = 1) }", 2),
            ("fn f(x: f32[R, N]) -> (f32[R, N], f32[R], f32[R], f64[R]) { let e = tanh(x - mean(x, axis = 1, keepdims = true)); (e, max(e, axis = 1), min(e, axis = 1), sum(e as f64, axis = 1)) }", 1),
            // Pipelined too: the division pass runs the next row's mean pass.
            ("fn f(x: f32[R, N]) -> f32[R, N] { let e = tanh(x - mean(x, axis = 1, keepdims = true)); e / max(e, axis = 1, keepdims = true) }", 2),
            ("fn f(x: f64[R, N]) -> f64[R, N] { let e = exp(x - max(x, axis = 1, keepdims = true)); e * prod(e, axis = 1, keepdims = true) }", 2),
            ("fn f(x: f32[R, 3, N]) -> f32[R, 3, N] { let e = exp(x - max(x, axis = [1, 2], keepdims = true)); e / sum(e, axis = [1, 2], keepdims = true) }", 2),
            // An f16 `e` rounds on its way through memory: not fused.
            ("fn f(x: f16[R, N]) -> f16[R, N] { let e = exp(x - max(x, axis = 1, keepdims = true)); e / sum(e, axis = 1, keepdims = true) }", 0),
            // Flat store passes.
            ("fn f(x: f32[R, N]) -> f32[R, N] { let e = exp(x); e / sum(e, axis = 1, keepdims = true) }", 0),
            ("fn f(x: f32[R, N]) -> (f32[R, N], f32[R]) { let e = exp(x); (e, sum(e, axis = 1)) }", 0),
        ] {
            assert_eq!(fused(source), want, "{source}");
        }
    }

    #[test]
    fn a_reduction_reading_the_stored_row_elsewhere_is_not_fused() {
        // f16 softmax: `e` stays an f32 temp (nothing rounds it), so it is fused too.
        let k = kernel("fn f(x: f16[64, 1024]) -> f16[64, 1024] { softmax(x, axis = 1) }");
        assert_eq!(row_stage(&k).len(), 3);
        // A reduction that reads the stored row at another index reads it from memory.
        let k = kernel(
            "fn f(x: f32[64, 1024]) -> f32[64, 1024] {
                let e = exp(x);
                e / sum(flip(e, axis = 1), axis = 1, keepdims = true)
            }",
        );
        assert!(k
            .nests
            .iter()
            .all(|n| !matches!(&n.sink, Sink::Reduce { stores, .. } if !stores.is_empty())));
        assert!(k.nests.iter().any(|n| matches!(
            &n.sink,
            Sink::Reduce {
                kind: ReduceKind::Sum,
                ..
            }
        )));
    }

    #[test]
    fn a_product_read_elsewhere_is_computed_whole() {
        let k = kernel(
            "fn f(x: f32[300, 8], w: f32[8, 8]) -> (f32[300, 8], f32[8, 300]) {
                let p = x @ w;
                (relu(p), transpose(p))
            }",
        );
        let step = k.nests.iter().find_map(|n| n.matmul.as_ref()).unwrap();
        assert!(!k.temps[step.output].gemm_block);
        assert!(k.temps[step.output].row_local.is_none());
    }

    #[test]
    fn contiguous_strides_are_row_major() {
        let lits = crate::shape::lits;
        assert_eq!(
            contiguous_strides(&lits(&[2, 3, 4])),
            vec![Size::lit(12), Size::lit(4), Size::lit(1)]
        );
        assert_eq!(contiguous_strides(&[]), Vec::<Size>::new());
        let b = Dim::Named("B".into());
        let s = Dim::Named("S".into());
        let strides = contiguous_strides(&[b.clone(), s.clone(), Dim::Static(4)]);
        assert_eq!(strides[0], Size::of(&s).mul(&Size::lit(4)));
        assert_eq!(strides[0].checked_div(&Size::of(&s)), Some(Size::lit(4)));
        assert_eq!(strides[0].checked_div(&Size::of(&b)), None);
    }
}
