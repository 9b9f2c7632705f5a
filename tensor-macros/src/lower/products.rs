//! A matrix product as a GEMM step: its operands read in place through their views.

use std::collections::HashMap;

use crate::ir::{
    BufferRef, ConvGeometry, ConvStep, LoopNest, MatMulStep, NodeId, Offset, Operand, Sink, Size,
    TypedGraph, ValueSource,
};

use super::nests::{AxisIndex, Mapping, NestBuilder};

/// The GEMM step of `node = a · b`: each operand read in place through the affine map its
/// node chain gives (`viewable`, or a temp).
pub(super) fn lower_matmul(
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
        let (buffer, base, strides) = operand_view(graph, temp_of, operand);
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
        into_output: None,
        batch: out[..batch_rank].iter().map(Size::of).collect(),
        m: Size::of(&out[batch_rank]),
        n: Size::of(&out[batch_rank + 1]),
        k: Size::of(&a_dims[a_dims.len() - 1]),
        a: ma,
        b: mb,
        conv: None,
    };
    product_nest(step)
}

/// A GEMM operand's buffer, base and stride per axis: the affine map its node chain gives
/// (`viewable`, or a temp).
fn operand_view(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    operand: NodeId,
) -> (BufferRef, Offset, Vec<Offset>) {
    let dims = &graph.nodes[operand].dims;
    let mut builder = NestBuilder::new(graph, temp_of, dims.iter().map(Size::of).collect(), None);
    let map: Mapping = (0..dims.len()).map(AxisIndex::counter).collect();
    let value = builder
        .value(operand, map)
        .expect("GEMM operands have no pieces");
    let ValueSource::Load { operand: o } = builder.values[value].source else {
        unreachable!("GEMM operands are buffers or views of one (`viewable`)")
    };
    builder.operands[o].clone()
}

/// The GEMM step of a convolution `node = conv(x, w)` (`[N, O, out…]`): per batch element
/// and group, `out (O/g × P) = w_g (O/g × C/g·K) · im2col(x_{n,g}) (C/g·K × P)`, so the
/// product's batch is `[N, g]`, its rows the group's output channels and its row the
/// output positions: the temp is `[N, O, P]` row-major, the node's own layout. Both
/// operands are read in place through their views (the runtime's sources take any
/// strides: tensor-core gemm/im2col.rs).
pub(super) fn lower_conv(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    node: NodeId,
    (x, w, bias): (NodeId, NodeId, Option<NodeId>),
    geometry: &ConvGeometry,
) -> LoopNest {
    let out = &graph.nodes[node].dims;
    let x_dims = &graph.nodes[x].dims;
    let g = geometry.group;
    let (o, c) = (
        out[1].as_static().expect("literal output channels"),
        x_dims[1].as_static().expect("literal channels"),
    );
    let (cg, og) = (c / g, o / g);
    let taps: usize = geometry.kernel.iter().product();
    let positions = geometry.outs.iter().fold(Size::lit(1), |p, s| p.mul(s));
    let (wb, w_base, ws) = operand_view(graph, temp_of, w);
    let (xb, x_base, xs) = operand_view(graph, temp_of, x);
    // A batch of one broadcasts with stride 0 (as `lower_matmul`: a sliced size-1 axis
    // keeps its view's stride, which must not walk).
    let n_stride = if x_dims[0].is_static(1) {
        Offset::zero()
    } else {
        xs[0].clone()
    };
    let bias = bias.map(|b| {
        let (buffer, base, bs) = operand_view(graph, temp_of, b);
        crate::ir::StridedMatrix {
            buffer,
            base,
            batch_strides: vec![Offset::zero(), bs[0].mul(&Size::lit(og))],
            row_stride: bs[0].clone(),
            col_stride: Offset::zero(),
        }
    });
    let step = MatMulStep {
        output: temp_of[&node],
        batch: vec![Size::of(&out[0]), Size::lit(g)],
        m: Size::lit(og),
        n: positions,
        k: Size::lit(cg * taps),
        a: crate::ir::StridedMatrix {
            buffer: wb,
            base: w_base,
            batch_strides: vec![Offset::zero(), ws[0].mul(&Size::lit(og))],
            row_stride: ws[0].clone(),
            col_stride: ws[1].clone(),
        },
        b: crate::ir::StridedMatrix {
            buffer: xb,
            base: x_base,
            batch_strides: vec![n_stride, xs[1].mul(&Size::lit(cg))],
            row_stride: xs[1].clone(),
            col_stride: Offset::lit(1),
        },
        into_output: None,
        conv: Some(ConvStep {
            geometry: geometry.clone(),
            w_col_strides: ws[1..].to_vec(),
            x_strides: xs[2..].to_vec(),
            bias,
        }),
    };
    let row = step.n.clone();
    let mut nest = product_nest(step);
    // With a batch (other than a literal 1) the product's loops are `[N, O]`: its stage
    // rows are images, as for every nest reading its temp (`NestBuilder::finish` keeps
    // their batch and channel axes apart, which a per-channel operand does anyway), so a
    // batch's epilogue runs fused, image by image (`ir::gemm_block_rows`).
    if !out[0].is_static(1) {
        nest.outer = vec![Size::of(&out[0]), Size::lit(o)];
        for op in &mut nest.operands {
            op.outer_strides = if op.buffer == BufferRef::Temp(temp_of[&node]) {
                vec![Offset::size(&row.mul(&Size::lit(o))), Offset::size(&row)]
            } else {
                vec![Offset::zero(); 2]
            };
        }
    }
    nest
}

/// The nest of a product step: its loops say what it writes, the product's rows (batch ×
/// m of them), each `n` long, so stage planning can run its consumers row block by row
/// block.
fn product_nest(step: MatMulStep) -> LoopNest {
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
    if step.conv.is_none() && row_flat(&step.a, &step.batch, &step.m, &step.k) {
        a_operand.outer_strides = vec![Offset::size(&step.k)];
        a_operand.inner_stride = Offset::lit(1);
    }
    let mut operands = vec![
        a_operand,
        plain(step.b.buffer.clone()),
        Operand {
            buffer: BufferRef::Temp(step.output),
            base: Offset::zero(),
            outer_strides: vec![Offset::size(&step.n)],
            inner_stride: Offset::lit(1),
        },
    ];
    // A convolution's bias is read too (after the output, which stays operand 2).
    let bias = step.conv.as_ref().and_then(|c| c.bias.as_ref());
    operands.extend(bias.map(|b| plain(b.buffer.clone())));
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
pub(super) fn row_flat(a: &crate::ir::StridedMatrix, batch: &[Size], m: &Size, k: &Size) -> bool {
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

/// A product whose temp is read by one nest only, which copies it unchanged into a graph
/// output (the output nest of `grad fn`'s weight gradients, `dw = xᵀ·g`), in a stage of
/// its own or as the product's only epilogue: the GEMM writes the output itself, computed
/// whole (with the engine's own threads), the copy is dropped and the temp left empty.
/// Saves a read and a write of the product and the clearing of its temp (an MLP's
/// 768 × 3072 weight gradient: 9.4 MB each). The copy is unchanged when it loads the temp
/// and stores the loaded value, with no conversion (the output's dtype is the temp's),
/// into one output written by no other nest and as long as the temp, both through the
/// same addressing: the element at each index goes to the same index, so the output is the
/// temp (a slice of the product can be addressed like it where its axes have extent 1:
/// the lengths tell them apart). A row-pitched
/// output (`lower_graph_pitched`) is addressed otherwise and keeps its copy. Runs after
/// stage planning; the stages after a removed nest are re-numbered.
pub(super) fn products_into_outputs(
    graph: &TypedGraph,
    temps: &mut [crate::ir::Temp],
    nests: &mut Vec<LoopNest>,
    stages: &mut Vec<crate::ir::Stage>,
) {
    let mut s = 0;
    while s < stages.len() {
        let Some((copy, o)) = direct_product_output(graph, temps, nests, stages, s) else {
            s += 1;
            continue;
        };
        let product = stages[s].first;
        let step = nests[product].matmul.as_mut().expect("a product");
        let t = step.output;
        step.into_output = Some(o);
        nests[product].operands[2] = Operand {
            buffer: BufferRef::Output(o),
            ..nests[product].operands[2].clone()
        };
        temps[t].len = Size::lit(0);
        temps[t].row_local = None;
        temps[t].gemm_block = false;
        // The product alone, computed whole; the copy's stage (if its own) goes.
        stages[s] = crate::ir::Stage {
            first: product,
            count: 1,
            row_loop: None,
            tasks: None,
            pipelined: None,
        };
        stages.retain(|st| !(st.first == copy && st.count == 1));
        nests.remove(copy);
        for stage in stages.iter_mut().filter(|st| st.first > copy) {
            stage.first -= 1;
        }
        s += 1;
    }
}

/// For the stage `s` starting with a product: the nest that copies the product into an
/// output (see [`products_into_outputs`]) and that output, when the product can write the
/// output instead.
fn direct_product_output(
    graph: &TypedGraph,
    temps: &[crate::ir::Temp],
    nests: &[LoopNest],
    stages: &[crate::ir::Stage],
    s: usize,
) -> Option<(usize, usize)> {
    let stage = &stages[s];
    let product = stage.first;
    let step = nests[product].matmul.as_ref()?;
    let (copy, o) = super::sole_copy_into_output(graph, temps, nests, product, step.output)?;
    // The product alone and the copy in a stage of its own, or the two as one row stage.
    let alone = |first: usize| stages.iter().any(|st| st.first == first && st.count == 1);
    let placed = if stage.count == 1 {
        stage.row_loop.is_none() && alone(copy)
    } else {
        stage.count == 2 && copy == product + 1 && stage.pipelined.is_none()
    };
    (placed && step.into_output.is_none()).then_some((copy, o))
}
