//! Loop nests: `NestBuilder` evaluates a value at a mapping from its axes to the nest's loop
//! axes (operands, values, levels), and `build_regions` cuts a loop box at the pieces of a
//! `pad`/`concat`/`tile`.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::ir::{
    AxisMap, BufferRef, Level, LoopNest, NodeId, NodeKind, Offset, Operand, Piece, PieceSource,
    Sink, Size, SymbolicPiece, SymbolicSource, TypedGraph, Value, ValueSource, MAX_REGIONS,
};
use crate::shape::Dim;

/// How one axis of a node is indexed in a nest: `offset + scale × counter(axis)`, or the
/// fixed index `offset` where `axis` is `None` (a size-1 or broadcast axis, or one end of
/// an edge pad). Views and broadcasting move axes; `slice`/`flip` and the pieces of
/// `pad`/`concat`/`tile` change `scale` and `offset`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct AxisIndex {
    pub(super) axis: Option<usize>,
    pub(super) scale: isize,
    pub(super) offset: Offset,
}

impl AxisIndex {
    pub(super) fn zero() -> AxisIndex {
        AxisIndex {
            axis: None,
            scale: 0,
            offset: Offset::zero(),
        }
    }

    pub(super) fn counter(axis: usize) -> AxisIndex {
        AxisIndex {
            axis: Some(axis),
            scale: 1,
            offset: Offset::zero(),
        }
    }

    /// `start + step × self`.
    pub(super) fn then(&self, start: &Offset, step: isize) -> AxisIndex {
        AxisIndex {
            axis: self.axis.filter(|_| step != 0),
            scale: self.scale * step,
            offset: start.add(&self.offset.scale(step)),
        }
    }
}

/// Node axis → its index in the nest.
pub(super) type Mapping = Vec<AxisIndex>;

/// Why a nest cannot be built over its box as it is.
#[derive(Debug)]
pub(super) enum Split {
    /// The box crosses a boundary between two pieces of a `pad`/`concat`/`tile` axis of
    /// `node`: it is cut at counter `at` of loop axis `axis` and each part is built again.
    Cut {
        node: NodeId,
        axis: usize,
        at: usize,
    },
    /// The box covers a whole symbolic axis of `node` cut into pieces: one box per piece,
    /// (first index of the node's axis, extent) along loop axis `axis`; `delta` is the
    /// node's index minus the loop's along that axis (the box starts at index 0).
    Pieces {
        node: NodeId,
        axis: usize,
        delta: Offset,
        boxes: Vec<(Offset, Size)>,
    },
    /// The box reads part of a symbolic pieces axis (a slice of a `concat` along names):
    /// the node must be materialised into a temp, and the kernel lowered again.
    Materialise(NodeId),
}

/// What a loop box cut at a symbolic node's pieces knows: along loop axis `axis`, reading
/// `node` at loop index + `delta`, it lies inside piece `piece`. Sub-boxes inherit it, so
/// a box cut again by an inner node (a `concat` inside a `tile`, a `pad` inside a
/// `concat`) still finds the outer node's piece, which no longer spans the box exactly.
#[derive(Clone, Debug)]
pub(super) struct InsidePiece {
    node: NodeId,
    axis: usize,
    delta: Offset,
    piece: usize,
}

/// The nests computing `sink` over the loop box `dims`: one nest, or one per region where
/// a `pad`/`concat`/`tile` on the way cuts the box into pieces (each region's nest reads
/// every buffer through plain affine maps). `sink` gets the mapping of a node with the
/// box's own axes.
///
/// At most `MAX_REGIONS` nests per box: when the cuts would make more, the last node that
/// cut the box (other than `root`, which this box computes) is named as `Err`, and lowering
/// starts again with it in a temp, whose own nest is cut only by its own pieces and what it
/// reads. A single node cuts at most `MAX_REGIONS` regions itself (the checker bounds
/// `tile`, `pad` and `concat`), so every box ends within the bound.
pub(super) fn build_regions(
    graph: &TypedGraph,
    temp_of: &HashMap<NodeId, usize>,
    dims: &[Dim],
    root: Option<NodeId>,
    sink: &mut dyn FnMut(&mut NestBuilder, &Mapping) -> Result<Sink, Split>,
) -> Result<Vec<LoopNest>, NodeId> {
    let mut nests = Vec::new();
    // Boxes still to build: (first index, extent) per axis; built in index order.
    let mut pending: Vec<(Vec<Offset>, Vec<Size>, Vec<InsidePiece>)> = vec![(
        vec![Offset::zero(); dims.len()],
        dims.iter().map(Size::of).collect(),
        Vec::new(),
    )];
    // The nodes whose pieces cut this box, latest last.
    let mut cutters: Vec<NodeId> = Vec::new();
    while let Some((lo, extents, inside)) = pending.pop() {
        if nests.len() + pending.len() + 1 > MAX_REGIONS {
            if let Some(&node) = cutters.iter().rev().find(|&&n| Some(n) != root) {
                return Err(node);
            }
        }
        // A box with a literal extent of 0 computes nothing. (Its indices need not lie in
        // the value's pieces: a flip of an empty axis starts at -1.)
        if extents.iter().any(Size::is_zero) {
            continue;
        }
        let mut b = NestBuilder::new(graph, temp_of, extents.clone(), root);
        b.box_lo = lo.clone();
        b.inside = inside.clone();
        let map: Mapping = lo
            .iter()
            .enumerate()
            .map(|(axis, l)| AxisIndex {
                offset: l.clone(),
                ..AxisIndex::counter(axis)
            })
            .collect();
        match sink(&mut b, &map) {
            Ok(s) => nests.push(b.finish(s)),
            Err(Split::Cut { node, axis, at }) => {
                cutters.retain(|&n| n != node);
                cutters.push(node);
                let whole = extents[axis]
                    .as_static()
                    .expect("only literal extents are cut into pieces");
                let (mut first, mut second) = (
                    (lo.clone(), extents.clone(), inside.clone()),
                    (lo, extents, inside),
                );
                first.1[axis] = Size::lit(at);
                second.0[axis] = second.0[axis].add(&Offset::lit(at as i128));
                second.1[axis] = Size::lit(whole - at);
                pending.push(second);
                pending.push(first);
            }
            Err(Split::Pieces {
                node,
                axis,
                delta,
                boxes,
            }) => {
                cutters.retain(|&n| n != node);
                cutters.push(node);
                for (piece, (first, extent)) in boxes.into_iter().enumerate().rev() {
                    let (mut l, mut e, mut known) = (lo.clone(), extents.clone(), inside.clone());
                    // The node's index `first` is loop index `first - delta`.
                    l[axis] = first.add(&delta.scale(-1));
                    e[axis] = extent;
                    known.push(InsidePiece {
                        node,
                        axis,
                        delta: delta.clone(),
                        piece,
                    });
                    pending.push((l, e, known));
                }
            }
            Err(Split::Materialise(node)) => return Err(node),
        }
    }
    Ok(nests)
}

/// The piece of a symbolic pieces axis of `node` (whole length `whole`) that `index` reads
/// over a box with loop extents `extents`: exactly one piece, or the whole axis (cut at
/// every piece), else the node needs a temp.
pub(super) fn symbolic_piece_for<'p>(
    node: NodeId,
    pieces: &'p [SymbolicPiece],
    whole: &Size,
    index: &AxisIndex,
    builder: &NestBuilder,
) -> Result<&'p SymbolicPiece, Split> {
    let Some(axis) = index.axis.filter(|_| index.scale == 1) else {
        return Err(Split::Materialise(node));
    };
    let extent = &builder.loop_dims[axis];
    if let Some(piece) = pieces
        .iter()
        .find(|p| p.lo == index.offset && p.len == *extent)
    {
        return Ok(piece);
    }
    let delta = index.offset.add(&builder.box_lo[axis].scale(-1));
    if let Some(known) = builder
        .inside
        .iter()
        .find(|k| k.node == node && k.axis == axis && k.delta == delta)
    {
        return Ok(&pieces[known.piece]);
    }
    if index.offset == Offset::zero() && extent == whole {
        let boxes = pieces
            .iter()
            .map(|p| (p.lo.clone(), p.len.clone()))
            .collect();
        return Err(Split::Pieces {
            node,
            axis,
            delta,
            boxes,
        });
    }
    Err(Split::Materialise(node))
}

/// The piece of `pieces` that the index `index` reads over a box whose loop extents are
/// `extents`, or the cut that separates two pieces.
pub(super) fn piece_for<'p>(
    node: NodeId,
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
    Err(Split::Cut {
        node,
        axis,
        at: at as usize,
    })
}

thread_local! {
    /// While a kernel with row pitches is lowered (`lower::lower_graph_pitched`): per
    /// parameter, the dims of those read through a run-time row pitch, and whether some
    /// nest read one of them in another way (then the kernel is not used).
    static PITCHES: RefCell<Option<PitchContext>> = const { RefCell::new(None) };
}

/// See `PITCHES`.
pub(super) struct PitchContext {
    /// Per parameter.
    pub(super) dims: Vec<Option<Vec<Dim>>>,
    /// Per output.
    pub(super) out_dims: Vec<Option<Vec<Dim>>>,
    pub(super) unsupported: bool,
}

/// The length of output `index` (of `dims`) as the kernel addresses it: the product of its
/// dims, or for an output written through a row pitch, its rows times the pitch (so that
/// stage planning cuts it into row chunks of whole pitches; the buffer itself ends at the
/// last row's last element, and `chunks_mut` makes the last chunk that much shorter).
pub(super) fn output_len(index: usize, dims: &[Dim]) -> Size {
    let pitched = PITCHES.with(|p| {
        p.borrow()
            .as_ref()
            .is_some_and(|c| matches!(c.out_dims.get(index), Some(Some(_))))
    });
    match dims.split_last() {
        Some((_, outer)) if pitched => Size::product(outer).mul(&Size {
            coeff: 1,
            names: vec![output_pitch_name(index)],
        }),
        _ => Size::product(dims),
    }
}

/// The name of output `index`'s row pitch in a pitched kernel (`#opitch0`, the local
/// `__tg_opitch0`).
pub fn output_pitch_name(index: usize) -> String {
    format!("#opitch{index}")
}

/// Runs `f` with `context` as the row pitches of the parameters, and returns it back.
pub(super) fn with_pitches<R>(context: PitchContext, f: impl FnOnce() -> R) -> (R, PitchContext) {
    PITCHES.with(|p| *p.borrow_mut() = Some(context));
    let r = f();
    let context = PITCHES.with(|p| p.borrow_mut().take()).expect("set above");
    (r, context)
}

/// The name of parameter `param`'s row pitch in a pitched kernel: an internal size
/// (`#pitch0`, the local `__tg_pitch0`), bound at call entry.
pub fn pitch_name(param: usize) -> String {
    format!("#pitch{param}")
}

/// The elements between consecutive rows (the axis before the last, over every outer
/// axis) of `buffer` read as `dims` (rank 2 or more): the last dim for a row-major buffer,
/// the row pitch of a parameter read through one (`PITCHES`), for a runtime step that
/// walks rows.
pub(super) fn row_pitch(buffer: &BufferRef, dims: &[Dim]) -> Size {
    buffer_strides(buffer, dims)[dims.len() - 2].clone()
}

/// The strides of a buffer read as `dims`: row-major, except for a parameter read through a
/// row pitch (`PITCHES`), whose axis before the last steps by its pitch and whose outer
/// axes merge into rows of that pitch (`strides[k] = dims[k + 1] · strides[k + 1]`).
fn buffer_strides(buffer: &BufferRef, dims: &[Dim]) -> Vec<Size> {
    let mut own = contiguous_strides(dims);
    PITCHES.with(|p| {
        let mut p = p.borrow_mut();
        let Some(context) = p.as_mut() else {
            return;
        };
        let (declared, name) = match buffer {
            BufferRef::Input(param) => (context.dims.get(*param), pitch_name(*param)),
            BufferRef::Output(index) => (context.out_dims.get(*index), output_pitch_name(*index)),
            _ => return,
        };
        let Some(Some(declared)) = declared else {
            return;
        };
        if declared.as_slice() != dims {
            // Read as other dims (a reshape reinterprets the buffer): not through rows.
            context.unsupported = true;
            return;
        }
        let rank = dims.len();
        let mut stride = Size {
            coeff: 1,
            names: vec![name],
        };
        for axis in (0..rank - 1).rev() {
            own[axis] = stride.clone();
            stride = stride.mul(&Size::of(&dims[axis]));
        }
    });
    own
}

/// Row-major strides of `dims`.
pub(super) fn contiguous_strides(dims: &[Dim]) -> Vec<Size> {
    let mut strides = vec![Size::lit(0); dims.len()];
    let mut stride = Size::lit(1);
    for axis in (0..dims.len()).rev() {
        strides[axis] = stride.clone();
        stride = stride.mul(&Size::of(&dims[axis]));
    }
    strides
}

pub(super) struct NestBuilder<'g> {
    pub(super) graph: &'g TypedGraph,
    pub(super) temp_of: &'g HashMap<NodeId, usize>,
    pub(super) loop_dims: Vec<Size>,
    /// The node this nest materialises, read through its inputs rather than its temp.
    pub(super) root: Option<NodeId>,
    /// (buffer, base, stride per loop axis).
    pub(super) operands: Vec<(BufferRef, Offset, Vec<Offset>)>,
    pub(super) values: Vec<Value>,
    pub(super) memo: HashMap<(NodeId, Mapping), usize>,
    /// The first index of each loop axis (the box's place in the whole loop) and the
    /// symbolic pieces it is known to lie in (`build_regions`).
    pub(super) box_lo: Vec<Offset>,
    pub(super) inside: Vec<InsidePiece>,
}

impl<'g> NestBuilder<'g> {
    pub(super) fn new(
        graph: &'g TypedGraph,
        temp_of: &'g HashMap<NodeId, usize>,
        loop_dims: Vec<Size>,
        root: Option<NodeId>,
    ) -> Self {
        NestBuilder {
            graph,
            temp_of,
            root,
            operands: Vec::new(),
            values: Vec::new(),
            memo: HashMap::new(),
            box_lo: vec![Offset::zero(); loop_dims.len()],
            inside: Vec::new(),
            loop_dims,
        }
    }

    /// The operand reading `buffer` (row-major `dims`) through `map`, shared when equal.
    pub(super) fn operand(&mut self, buffer: BufferRef, dims: &[Dim], map: &Mapping) -> usize {
        let own = buffer_strides(&buffer, dims);
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

    pub(super) fn raw_operand(
        &mut self,
        buffer: BufferRef,
        base: Offset,
        strides: Vec<Offset>,
    ) -> usize {
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
    pub(super) fn leaf_buffer(&self, node: NodeId) -> Option<BufferRef> {
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
    pub(super) fn value(&mut self, node: NodeId, map: Mapping) -> Result<usize, Split> {
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
                NodeKind::Position { axis } => {
                    // The index along `axis` is an affine walk of the loop counters: the
                    // address an index operand would have.
                    let index = &map[*axis];
                    let mut strides = vec![Offset::zero(); self.loop_dims.len()];
                    if let Some(a) = index.axis {
                        strides[a] = Offset::lit(index.scale as i128);
                    }
                    let operand = self.raw_operand(BufferRef::Index, index.offset.clone(), strides);
                    ValueSource::Position { operand }
                }
                NodeKind::Gather {
                    data,
                    indices,
                    axis,
                    elements,
                } => {
                    let (data, indices, axis, elements) = (*data, *indices, *axis, *elements);
                    // The data's gathered axis at stride 0: the index adds its position.
                    let data_dims = self.graph.nodes[data].dims.clone();
                    let (index, data_map) = if elements {
                        let index = self.value(indices, map.clone())?;
                        let mut data_map = map.clone();
                        data_map[axis] = AxisIndex::zero();
                        (index, data_map)
                    } else {
                        let q = self.graph.nodes[indices].dims.len();
                        let index = self.value(indices, map[axis..axis + q].to_vec())?;
                        let mut data_map: Mapping = map[..axis].to_vec();
                        data_map.push(AxisIndex::zero());
                        data_map.extend(map[axis + q..].iter().cloned());
                        (index, data_map)
                    };
                    let buffer = self
                        .leaf_buffer(data)
                        .expect("gather's data is a buffer (materialise.rs)");
                    let operand = self.operand(buffer, &data_dims, &data_map);
                    ValueSource::Gather {
                        operand,
                        index,
                        stride: Offset::size(&contiguous_strides(&data_dims)[axis]),
                        bound: Size::of(&data_dims[axis]),
                    }
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
                    let v = self.reorg_value(node, inputs, *fill, axes, &map)?;
                    self.memo.insert((node, map), v);
                    return Ok(v);
                }
                NodeKind::Reduce { .. }
                | NodeKind::Scan { .. }
                | NodeKind::TopK { .. }
                | NodeKind::TopKIndices { .. }
                | NodeKind::Attention { .. }
                | NodeKind::Scatter { .. }
                | NodeKind::GatherNd { .. }
                | NodeKind::MatMul { .. }
                | NodeKind::Conv { .. }
                | NodeKind::MaxPool { .. }
                | NodeKind::Resize { .. }
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
    pub(super) fn reorg_value(
        &mut self,
        node: NodeId,
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
                AxisMap::Pieces(pieces) => match piece_for(node, pieces, index, &self.loop_dims) {
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
                AxisMap::SymbolicPieces(pieces) => {
                    let whole = Size::of(&self.graph.nodes[node].dims[input_map.len()]);
                    match symbolic_piece_for(node, pieces, &whole, index, self) {
                        Err(split) => {
                            cut.get_or_insert(split);
                            AxisIndex::zero()
                        }
                        Ok(SymbolicPiece {
                            source: SymbolicSource::Fill,
                            ..
                        }) => {
                            fills = true;
                            AxisIndex::zero()
                        }
                        Ok(SymbolicPiece {
                            source:
                                SymbolicSource::Input {
                                    input: i,
                                    start,
                                    step,
                                },
                            ..
                        }) => {
                            input = *i;
                            index.then(start, *step)
                        }
                    }
                }
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
    pub(super) fn arg_value(
        &mut self,
        user: NodeId,
        arg: NodeId,
        user_map: &Mapping,
    ) -> Result<usize, Split> {
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

    /// For a nest reading a convolution's temp: the loop axis from which the trailing
    /// extents multiply to the product's row (its output positions), if there is one.
    fn conv_row_axis(&self) -> Option<usize> {
        let row = self.operands.iter().find_map(|(b, _, _)| {
            let BufferRef::Temp(t) = b else { return None };
            self.temp_of.iter().find_map(|(n, u)| {
                let node = &self.graph.nodes[*n];
                (u == t && matches!(node.kind, NodeKind::Conv { .. }))
                    .then(|| Size::product(&node.dims[2..]))
            })
        })?;
        let mut extent = Size::lit(1);
        for axis in (0..self.loop_dims.len()).rev() {
            extent = extent.mul(&self.loop_dims[axis]);
            if extent == row {
                return (axis..self.loop_dims.len()).find(|&a| !self.loop_dims[a].is_lit(1));
            }
        }
        None
    }

    /// Collapses the loop axes and assigns levels.
    pub(super) fn finish(self, sink: Sink) -> LoopNest {
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
        // The axis a product's row starts at: the last one for a matmul's `n`; for a
        // convolution's `[N, O, out…]` the first output axis, its row being every output
        // position (the trailing axes merge among themselves, never into the channels).
        let conv_row = self.conv_row_axis();
        let row_axis = match conv_row {
            Some(axis) => Some(axis),
            None if reads_product => last_axis,
            None => None,
        };
        // A convolution's reader also keeps its channels apart from the batch before them
        // (its outer loops `[N, O]`, as the product's: lower/products.rs `lower_conv`), so
        // that its rows are images whatever its operands (a per-channel one keeps them
        // apart anyway). With a batch of one the batch axis is dropped below.
        let channel_axis =
            conv_row.and_then(|row| (0..row).rev().find(|&a| !self.loop_dims[a].is_lit(1)));
        let mut axes: Vec<(Size, Vec<Offset>)> = Vec::new();
        for (axis, extent) in self.loop_dims.iter().enumerate() {
            if extent.is_lit(1) {
                continue;
            }
            if Some(axis) == row_axis {
                let strides: Vec<Offset> =
                    self.operands.iter().map(|o| o.2[axis].clone()).collect();
                axes.push((extent.clone(), strides));
                continue;
            }
            let strides: Vec<Offset> = self.operands.iter().map(|o| o.2[axis].clone()).collect();
            if let Some((prev_extent, prev_strides)) =
                axes.last_mut().filter(|_| Some(axis) != channel_axis)
            {
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
                ValueSource::Position { operand } => {
                    let op = &operands[*operand];
                    if !op.inner_stride.is_zero() {
                        Level::Inner
                    } else if op.outer_strides.iter().any(|s| !s.is_zero()) {
                        Level::Row
                    } else {
                        Level::Global
                    }
                }
                ValueSource::Gather { operand, index, .. } => {
                    let op = &operands[*operand];
                    let walk = if !op.inner_stride.is_zero() {
                        Level::Inner
                    } else if op.outer_strides.iter().any(|s| !s.is_zero()) {
                        Level::Row
                    } else {
                        Level::Global
                    };
                    walk.max(values[*index].level)
                }
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
