//! Row fusion inside a stage: a row-local temp kept in its output row, a row pass that stores
//! and reduces in one loop, sibling reductions in one pass, and a stage's first pass pipelined
//! into its last.

use crate::dtype::DType;
use crate::ir::{
    BufferRef, Level, LoopNest, Operand, Pipelined, SiblingReduce, Sink, Size, Stage, Temp,
    TypedGraph, Value, ValueSource,
};

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
pub(super) fn rows_in_outputs(
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
pub(super) fn fuse_row_reductions(
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
pub(super) fn pipeline_first_pass(
    temps: &mut Vec<Temp>,
    nests: &mut [LoopNest],
    stages: &mut [Stage],
) {
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
pub(super) fn fuse_sibling_reductions(a: &LoopNest, b: &LoopNest) -> Option<LoopNest> {
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
pub(super) fn append_values(
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
            ValueSource::Position { operand } => ValueSource::Position {
                operand: operand_map[*operand],
            },
            ValueSource::Gather {
                operand,
                index,
                stride,
                bound,
            } => ValueSource::Gather {
                operand: operand_map[*operand],
                index: value_map[*index],
                stride: stride.clone(),
                bound: bound.clone(),
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
pub(super) fn fuse_store_and_reduce(
    graph: &TypedGraph,
    a: &LoopNest,
    b: &LoopNest,
) -> Option<LoopNest> {
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
