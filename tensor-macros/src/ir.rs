//! The typed graph that `check` produces, and the loop IR that `lower` builds from it.

use crate::dim_expr::{Atom, Poly};
use crate::dtype::DType;
use crate::ops::Op;
use crate::shape::Dim;

pub type NodeId = usize;

/// A literal after typing: its value in the dtype it took.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Int(i128),
    /// The value, and the literal's source text when it was written directly, so an
    /// `f32` constant is parsed from text once (no rounding through `f64`).
    Float(f64, Option<String>),
    Bool(bool),
}

#[derive(Clone, Debug)]
pub enum NodeKind {
    /// A tensor parameter (rank 0 included).
    Input {
        param: usize,
    },
    /// A run-time scalar parameter.
    Scalar {
        param: usize,
    },
    Const(ConstValue),
    /// The element count of `dims` (names included) as a value of the node's float dtype:
    /// the divisor of `mean` over a symbolic axis.
    Count {
        dims: Vec<Dim>,
    },
    Op {
        op: &'static Op,
        args: Vec<NodeId>,
    },
    Select {
        cond: NodeId,
        a: NodeId,
        b: NodeId,
    },
    /// `as`, or a promotion inserted by `check`.
    Cast {
        input: NodeId,
    },
    /// Combines `input` over `axes`; the node keeps the reduced axes as 1s (keepdims
    /// form; `keepdims = false` is a `View` on top). Its dtype is the accumulator's (the
    /// index dtype `i64` for arg-max/arg-min).
    Reduce {
        input: NodeId,
        kind: ReduceKind,
        axes: Vec<usize>,
    },
    /// `cumsum`/`cumprod` along `axis` (`kind` is `Sum` or `Prod`), in the node's dtype
    /// (the accumulator's); same dims as `input`.
    Scan {
        input: NodeId,
        kind: ReduceKind,
        axis: usize,
        exclusive: bool,
        reverse: bool,
    },
    /// `top_k` (and `sort`): the values, `k` along `axis` (sorted, best first; ties by the
    /// lower index; NaN above every number), computed by a runtime step into a temp.
    TopK {
        input: NodeId,
        axis: usize,
        largest: bool,
    },
    /// The positions (`i64`) of `top_k`'s values: the `TopK` node `of` fills its temp.
    TopKIndices {
        of: NodeId,
    },
    /// `scatter_elements` (`axis` given) or `scatter_nd` (`axis` `None`): `data` with
    /// `updates` written (or combined by `reduction`) at the positions `indices` (an `i64`
    /// value of a checked index parameter) names; a runtime step.
    Scatter {
        data: NodeId,
        indices: NodeId,
        updates: NodeId,
        axis: Option<usize>,
        reduction: &'static str,
    },
    /// `gather_nd(data, indices, batch_dims)`: a runtime step.
    GatherNd {
        data: NodeId,
        indices: NodeId,
        batch_dims: usize,
    },
    /// `attention(q, k, v, …)` in the compute type (`check/attention.rs`): a runtime step
    /// from temps of `q`, `k`, `v` and the additive `mask` (broadcast to the scores).
    Attention {
        q: NodeId,
        k: NodeId,
        v: NodeId,
        mask: Option<NodeId>,
        causal: bool,
        /// `None`: ONNX's `1 / sqrt(head_dim)`.
        scale: Option<f64>,
        softcap: f64,
    },
    /// A view: output axis `k` is input axis `map[k]`, or a new axis (`None`) that is 1 or
    /// broadcast. Input axes not named have size 1. Transpose, dimshuffle, expand_dims,
    /// squeeze and broadcast_to are all views.
    View {
        input: NodeId,
        map: Vec<Option<usize>>,
    },
    /// The same elements in row-major order under other dims.
    Reshape {
        input: NodeId,
    },
    /// A diagonal view: input axis `j` is read at the index of output axis `of[j]`, so two
    /// input axes sharing an output axis walk their diagonal (`einsum("ii->i", x)`).
    Diagonal {
        input: NodeId,
        of: Vec<usize>,
    },
    /// `matmul(a, b)` / `a @ b` in the node's dtype (the accumulator's), with `a`, `b`
    /// converted to it: `[batch…, M, K] · [batch…, K, N] → [batch…, M, N]`, batch dims
    /// broadcast (1-D operands are made 2-D by views in `check`).
    MatMul {
        a: NodeId,
        b: NodeId,
    },
    /// `conv(x, w)` or `conv(x, w, bias)` on the GEMM engine (check/conv_gemm.rs): `x`
    /// `[N, C, spatial…]`, `w` `[O, C / group, k…]`, `bias` `[O]`, the node `[N, O, out…]`
    /// in their float dtype (f32 or f64). Lowered to a product per batch element and group
    /// whose right operand is the implicit im2col of `x` (lower/products.rs `lower_conv`);
    /// the runtime adds the bias to each finished tile of sums.
    Conv {
        x: NodeId,
        w: NodeId,
        bias: Option<NodeId>,
        window: ConvGeometry,
    },
    /// `max_pool(x)` as one runtime pass (check/pool_kernel.rs; tensor-core pool.rs): `x`
    /// `[N, C, spatial…]` with 1 to 3 literal spatial axes, the node `[N, C, out…]` in its
    /// float dtype (f32 or f64).
    MaxPool {
        x: NodeId,
        window: PoolGeometry,
    },
    /// `resize(x)` as one runtime pass (check/resize_kernel.rs; tensor-core resize.rs): `x`
    /// `[N, C, spatial…]` with 1 to 3 literal spatial axes (`axes`, one per spatial axis,
    /// unchanged ones included), the node `[N, C, out…]` in its float dtype (f32 or f64).
    Resize {
        x: NodeId,
        axes: Vec<ResizeTaps>,
    },
    /// Data reorganisation (`slice`, `flip`, `pad`, `tile`, `concat`): output axis `k`
    /// reads its inputs' axis `k` through `axes[k]`. No buffer of its own: each consumer
    /// reads the inputs through the index map (see `lower`).
    Reorg {
        inputs: Vec<NodeId>,
        /// Rank 0: what `pad` writes outside the input (`Fill` pieces).
        fill: Option<NodeId>,
        axes: Vec<AxisMap>,
    },
    /// The index along axis `axis` of the node's dims, as `i64` (`arange`, the rows and
    /// columns of `tril`/`triu`/`eye`): computed from the loop counters, never stored.
    Position {
        axis: usize,
    },
    /// `gather(data, indices, axis)` (ONNX `Gather`, NumPy `take`): output axes are
    /// `data`'s before `axis`, then `indices`' axes, then `data`'s after it; each element
    /// reads `data` at the position the index there names (negative counts from the end).
    /// `indices` is a parameter whose every element call entry checks
    /// (`TypedGraph::index_checks`), so each read is in range.
    /// With `elements` (`gather_elements`, ONNX `GatherElements`, NumPy
    /// `take_along_axis`) the output has `indices`' dims, and each element reads `data` at
    /// its own index along `axis`, at its own position on the other axes.
    Gather {
        data: NodeId,
        indices: NodeId,
        axis: usize,
        elements: bool,
    },
}

/// An index tensor call entry checks before any kernel runs: every element of parameter
/// `param` lies in `-bound..bound` (ONNX: a negative index counts from the end).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexCheck {
    pub param: usize,
    pub bound: Dim,
    /// The op that reads the indices, for the error.
    pub op: &'static str,
    /// Whether a negative index counts from the end (ONNX's gathers), or is out of range
    /// (a loss's class labels).
    pub negative: bool,
    /// A value allowed whatever the bound (a loss's `ignore_index`).
    pub skip: Option<i128>,
    /// For index tuples (`gather_nd`, `scatter_nd`): the bound of each component of the
    /// last axis (then `bound` is unused).
    pub tuple_bounds: Vec<Dim>,
}

/// How one output axis of a `Reorg` node indexes its inputs.
#[derive(Clone, Debug, PartialEq)]
pub enum AxisMap {
    /// Index `i` reads index `i` of every input.
    Same,
    /// Index `i` reads `start + step × i` (`slice`, `flip`); `start` may hold names (`B - 1`).
    Affine { start: Offset, step: isize },
    /// Static extents cut into pieces, each read from one input (or the fill) through its
    /// own affine map (`concat`, `pad`, `tile`).
    Pieces(Vec<Piece>),
    /// A symbolic axis cut into pieces whose bounds hold names (`concat` along `N` and `M`,
    /// `pad` or `tile` of a named axis). A nest reads it only over the whole axis (it is
    /// then cut at every piece) or over exactly one piece; any other box (a slice of it)
    /// reads it from a temp (`lower`).
    SymbolicPieces(Vec<SymbolicPiece>),
}

/// Output indices `lo..lo + len` of a symbolic axis: `Fill`, or input `input` at `start +
/// step × i`.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolicPiece {
    pub lo: Offset,
    pub len: Size,
    pub source: SymbolicSource,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SymbolicSource {
    Input {
        input: usize,
        start: Offset,
        step: isize,
    },
    Fill,
}

/// Output indices `lo..hi` of an axis: `Fill`, or input `input` at `start + step × i`.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub lo: usize,
    pub hi: usize,
    pub source: PieceSource,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PieceSource {
    Input {
        input: usize,
        start: isize,
        step: isize,
    },
    Fill,
}

/// How a reduction combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Sum,
    Prod,
    Max,
    /// The max of the lanes that are not NaN; where the input holds a NaN, some value (a NaN
    /// need not propagate). Softmax's shift only (`check_softmax`): a row holding a NaN
    /// gives NaN outputs whatever its shift is, since its `exp(x - shift)` is NaN there and
    /// so is the row's sum; on a row without NaN it is the row's max, so `x - shift <= 0`
    /// (or NaN, at ±inf). One `maxps` per vector instead of `max`'s compares and blends.
    MaxNoNan,
    /// The min of the lanes that are not NaN, as `MaxNoNan` (some value where the input
    /// holds a NaN): beside softmax's shift, the row's minimum that tells whether every
    /// `exp(x - shift)` of the row is in the division's fast range (`check_softmax`).
    MinNoNan,
    Min,
    Any,
    All,
    ArgMax,
    ArgMin,
}

impl ReduceKind {
    /// The value an accumulator starts from: the combine's identity (for arg-max/arg-min,
    /// the "no index yet" marker).
    pub fn identity(self) -> TempInit {
        match self {
            ReduceKind::Sum | ReduceKind::Any => TempInit::Zero,
            ReduceKind::Prod | ReduceKind::All => TempInit::One,
            ReduceKind::Max | ReduceKind::MaxNoNan => TempInit::Lowest,
            ReduceKind::Min | ReduceKind::MinNoNan => TempInit::Highest,
            ReduceKind::ArgMax | ReduceKind::ArgMin => TempInit::NoIndex,
        }
    }

    /// Accumulators a row reduction into registers keeps (chunk `u` of a group of four into
    /// accumulator `u % n`), so that the combines do not wait on each other's latency: four,
    /// but two for softmax's row min, which only sets the division's flag (compared with
    /// the max, never an output, so its grouping changes nothing): beside the max's four,
    /// four more `f32x8` pairs were all 16 of SSE's registers and the default build spilled
    /// them every chunk (W3 2.23-2.27 -> 2.16-2.19 ms).
    pub fn register_accumulators(self) -> usize {
        if self == ReduceKind::MinNoNan {
            2
        } else {
            4
        }
    }

    /// The runtime combine: (lane trait, lane method, scalar trait, scalar method), on the
    /// accumulator's compute type (`bool` for any/all). `None` for arg-max/arg-min, which
    /// combine (value, index) pairs.
    pub fn combine(self) -> Option<(&'static str, &'static str, &'static str, &'static str)> {
        Some(match self {
            ReduceKind::Sum => ("NumLanes", "add_lanes", "Num", "add"),
            ReduceKind::Prod => ("NumLanes", "mul_lanes", "Num", "mul"),
            ReduceKind::Max => ("NumLanes", "max_lanes", "Num", "max"),
            ReduceKind::MaxNoNan => ("FloatLanes", "max_no_nan_lanes", "FloatLanes", "max_no_nan"),
            ReduceKind::Min => ("NumLanes", "min_lanes", "Num", "min"),
            ReduceKind::MinNoNan => ("FloatLanes", "min_no_nan_lanes", "FloatLanes", "min_no_nan"),
            ReduceKind::Any => ("BitwiseLanes", "or_lanes", "Bitwise", "or"),
            ReduceKind::All => ("BitwiseLanes", "and_lanes", "Bitwise", "and"),
            ReduceKind::ArgMax | ReduceKind::ArgMin => return None,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    pub dtype: DType,
    pub dims: Vec<Dim>,
}

/// The checked graph: nodes in topological order (arguments before users).
#[derive(Clone, Debug, Default)]
pub struct TypedGraph {
    pub nodes: Vec<Node>,
    pub outputs: Vec<NodeId>,
    /// Symbolic dims (names or expressions) that must be non-zero at call entry, with the
    /// op that needs it: `max`, `min`, `argmax`, `argmin` over a symbolic axis (an empty
    /// axis has no maximum).
    pub nonempty: Vec<(Dim, &'static str)>,
    /// Symbolic dims that must be at least this long at call entry, with the op that needs
    /// it: a `slice` of a symbolic axis with literal bounds (`start = -4` needs 4 elements).
    pub at_least: Vec<(Dim, usize, &'static str)>,
    /// Index parameters call entry checks (`gather`).
    pub index_checks: Vec<IndexCheck>,
}

/// The name under which a size stands for the dim expression `p`: `@` and its text (no
/// dim name starts with `@`; `emit` binds it to a local computed at call entry).
pub fn expression_key(p: &Poly) -> String {
    format!("@{p}")
}

/// A size or stride known at compile time up to run-time names: `coeff × Π names`.
/// Every extent and stride of a loop nest is one: products of a graph's dims are closed
/// under multiplication, and two sizes are equal exactly when their normal forms are.
/// A graph with only literal dims has no names anywhere, so its kernels are what they
/// were before names existed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Size {
    pub coeff: usize,
    /// Sorted; empty when `coeff` is 0.
    pub names: Vec<String>,
}

impl Size {
    pub fn lit(n: usize) -> Size {
        Size {
            coeff: n,
            names: Vec::new(),
        }
    }

    /// A dim as a size. An expression that is a monomial with a positive coefficient
    /// (`2 * N`, `N * M`) keeps its names; any other (`N + M`, `(N + 1) / 2`) is one
    /// opaque factor, its key `expression_key`, computed once at call entry.
    pub fn of(dim: &Dim) -> Size {
        match dim {
            Dim::Static(n) => Size::lit(*n),
            Dim::Named(name) => Size {
                coeff: 1,
                names: vec![name.clone()],
            },
            Dim::Expr(p) => {
                let mut terms = p.terms();
                if let (Some((atoms, c)), None) = (terms.next(), terms.next()) {
                    let names: Option<Vec<String>> = atoms
                        .iter()
                        .map(|a| match a {
                            Atom::Name(n) => Some(n.clone()),
                            _ => None,
                        })
                        .collect();
                    if let (Some(names), Ok(coeff)) = (names, usize::try_from(c)) {
                        return Size { coeff, names };
                    }
                }
                Size {
                    coeff: 1,
                    names: vec![expression_key(p)],
                }
            }
        }
    }

    /// The element count of `dims`.
    pub fn product(dims: &[Dim]) -> Size {
        dims.iter()
            .fold(Size::lit(1), |acc, d| acc.mul(&Size::of(d)))
    }

    pub fn mul(&self, other: &Size) -> Size {
        // Saturating: the checker rejects shapes whose literal dims overflow, so this never
        // saturates for a graph that is emitted; it only keeps the macro from panicking.
        let coeff = self.coeff.saturating_mul(other.coeff);
        if coeff == 0 {
            return Size::lit(0);
        }
        let mut names: Vec<String> = self.names.iter().chain(&other.names).cloned().collect();
        names.sort();
        Size { coeff, names }
    }

    /// `self / other` when it divides exactly as a monomial.
    pub fn checked_div(&self, other: &Size) -> Option<Size> {
        if other.coeff == 0 || self.coeff % other.coeff != 0 {
            return None;
        }
        if self.coeff == 0 {
            return Some(Size::lit(0));
        }
        let mut names = self.names.clone();
        for n in &other.names {
            let at = names.iter().position(|m| m == n)?;
            names.remove(at);
        }
        Some(Size {
            coeff: self.coeff / other.coeff,
            names,
        })
    }

    pub fn as_static(&self) -> Option<usize> {
        self.names.is_empty().then_some(self.coeff)
    }

    pub fn is_zero(&self) -> bool {
        self.coeff == 0
    }

    pub fn is_lit(&self, n: usize) -> bool {
        self.as_static() == Some(n)
    }
}

/// Where in the loop nest a value is computed: once per call, once per row of the
/// outer loops, or once per SIMD chunk of the inner loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Global,
    Row,
    Inner,
}

/// A buffer a loop nest addresses.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BufferRef {
    /// A tensor parameter.
    Input(usize),
    /// A kernel-internal buffer (a reduction's accumulator, a materialised value).
    Temp(usize),
    /// A graph output.
    Output(usize),
    /// No buffer: the running flat index over a reduction's axes (arg-max/arg-min).
    Index,
}

/// How one buffer is addressed in a loop nest: an element offset is `base` plus the sum
/// of each loop counter times its stride (0 where the buffer broadcasts, negative along a
/// flipped axis).
#[derive(Clone, Debug)]
pub struct Operand {
    pub buffer: BufferRef,
    /// Where the nest's first element is: non-zero for a slice, a flip, and the nests of
    /// one region of a `pad`/`concat`/`tile` (see `lower`).
    pub base: Offset,
    pub outer_strides: Vec<Offset>,
    /// 1: contiguous along the inner loop; 0: splatted; other: a strided gather.
    pub inner_stride: Offset,
}

impl LoopNest {
    /// Whether a `gather` reads operand `k` (at positions its index values name, not
    /// through its strides alone).
    pub fn gathered(&self, k: usize) -> bool {
        self.values
            .iter()
            .any(|v| matches!(v.source, ValueSource::Gather { operand, .. } if operand == k))
    }
}

impl Operand {
    /// Whether both address the same elements of the same buffer at every loop index.
    pub fn same_place(&self, other: &Operand) -> bool {
        self.buffer == other.buffer
            && self.base == other.base
            && self.outer_strides == other.outer_strides
            && self.inner_stride == other.inner_stride
    }
}

impl LoopNest {
    /// Whether `self` and `other` are plain loop nests over the same loops (no ragged
    /// rows, scan or product), so that one nest can run both bodies (the fusions of
    /// `lower::fuse_row_reductions`).
    pub fn same_loops(&self, other: &LoopNest) -> bool {
        self.outer == other.outer
            && self.inner == other.inner
            && [self, other]
                .iter()
                .all(|n| n.ragged.is_none() && n.scan.is_none() && n.matmul.is_none())
    }
}

/// A signed element offset or stride: `Σ coeff × Π names`, e.g. `B - 1` (the start of a
/// flipped named axis) or `-768` (a stride walking a row backwards). Terms are kept
/// sorted by their names and merged, so two offsets are equal exactly when their normal
/// forms are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Offset {
    /// (coefficient, sorted names); no zero coefficients.
    pub terms: Vec<(i128, Vec<String>)>,
}

impl Offset {
    pub fn zero() -> Offset {
        Offset::default()
    }

    pub fn lit(n: i128) -> Offset {
        Offset::from_terms(vec![(n, Vec::new())])
    }

    pub fn size(s: &Size) -> Offset {
        Offset::from_terms(vec![(s.coeff as i128, s.names.clone())])
    }

    fn from_terms(mut terms: Vec<(i128, Vec<String>)>) -> Offset {
        terms.sort_by(|a, b| a.1.cmp(&b.1));
        let mut out: Vec<(i128, Vec<String>)> = Vec::new();
        for (c, names) in terms {
            match out.last_mut() {
                Some((prev, n)) if *n == names => *prev += c,
                _ => out.push((c, names)),
            }
        }
        out.retain(|t| t.0 != 0);
        Offset { terms: out }
    }

    pub fn add(&self, other: &Offset) -> Offset {
        Offset::from_terms(self.terms.iter().chain(&other.terms).cloned().collect())
    }

    pub fn scale(&self, k: isize) -> Offset {
        Offset::from_terms(
            self.terms
                .iter()
                .map(|(c, n)| (c * k as i128, n.clone()))
                .collect(),
        )
    }

    /// `self × size` (a monomial).
    pub fn mul(&self, size: &Size) -> Offset {
        Offset::from_terms(
            self.terms
                .iter()
                .map(|(c, n)| {
                    let mut names: Vec<String> = n.iter().chain(&size.names).cloned().collect();
                    names.sort();
                    (c * size.coeff as i128, names)
                })
                .collect(),
        )
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn as_static(&self) -> Option<i128> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(c, n)] if n.is_empty() => Some(*c),
            _ => None,
        }
    }

    pub fn is_lit(&self, n: i128) -> bool {
        self.as_static() == Some(n)
    }

    /// The offset as a non-negative monomial, when it is one.
    pub fn as_size(&self) -> Option<Size> {
        match self.terms.as_slice() {
            [] => Some(Size::lit(0)),
            [(c, n)] if *c > 0 => Some(Size {
                coeff: usize::try_from(*c).ok()?,
                names: n.clone(),
            }),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub enum ValueSource {
    /// Read from an operand.
    Load {
        operand: usize,
    },
    Scalar {
        param: usize,
    },
    Const(ConstValue),
    /// The run-time element count of some dims (`mean`'s divisor).
    Count(Size),
    /// An elementwise op, select or cast of `node` over these values.
    Compute {
        args: Vec<usize>,
    },
    /// `Position`: the running index `operand` (a `BufferRef::Index` operand) addresses.
    Position {
        operand: usize,
    },
    /// `gather`: `operand` (the data, its gathered axis at stride 0) read `stride` times
    /// the position value `index` names further on; a negative index counts from `bound`.
    Gather {
        operand: usize,
        index: usize,
        stride: Offset,
        bound: Size,
    },
}

/// One SIMD value of a loop nest: `node` evaluated at one index mapping.
#[derive(Clone, Debug)]
pub struct Value {
    pub node: NodeId,
    pub source: ValueSource,
    pub level: Level,
}

/// What a loop nest does with its values.
#[derive(Clone, Debug)]
pub enum Sink {
    /// Store values into contiguous buffers (outputs or temps): (operand, value).
    Store(Vec<(usize, usize)>),
    /// Combine `value` into the accumulator operand `acc`. Arg-max/arg-min also keep the
    /// best value in `best` and read the running index from `index`.
    Reduce {
        kind: ReduceKind,
        acc: usize,
        value: usize,
        best: Option<usize>,
        index: Option<usize>,
        /// Values this nest also stores, as a `Store` sink would: a row pass whose stored
        /// row the reduction then read back, fused into one pass (`lower::
        /// fuse_row_reductions`: softmax's exp pass stores `e` and sums it).
        stores: Vec<(usize, usize)>,
        /// A second reduction of the same loops into registers, independent of the first
        /// (`lower::fuse_row_reductions`: softmax's row max and row min in one pass).
        sibling: Option<SiblingReduce>,
    },
}

/// The second reduction of a `Sink::Reduce` (see `sibling`): `value` combined into the
/// accumulator operand `acc` by `kind`; never an arg reduction, its accumulator in
/// registers (a row reduction).
#[derive(Clone, Copy, Debug)]
pub struct SiblingReduce {
    pub kind: ReduceKind,
    pub acc: usize,
    pub value: usize,
}

impl Sink {
    /// The values the sink stores (outputs or temps), with their operands.
    pub fn stores(&self) -> &[(usize, usize)] {
        match self {
            Sink::Store(stores) | Sink::Reduce { stores, .. } => stores,
        }
    }

    /// The operands the nest writes: stored buffers, accumulators.
    pub fn written(&self) -> Vec<usize> {
        match self {
            Sink::Store(stores) => stores.iter().map(|&(o, _)| o).collect(),
            Sink::Reduce {
                acc,
                best,
                stores,
                sibling,
                ..
            } => std::iter::once(*acc)
                .chain(*best)
                .chain(sibling.map(|s| s.acc))
                .chain(stores.iter().map(|&(o, _)| o))
                .collect(),
        }
    }

    /// The values the sink consumes: stored values, then the reduced values.
    pub fn values(&self) -> Vec<usize> {
        match self {
            Sink::Store(stores) => stores.iter().map(|&(_, v)| v).collect(),
            Sink::Reduce {
                value,
                stores,
                sibling,
                ..
            } => stores
                .iter()
                .map(|&(_, v)| v)
                .chain(std::iter::once(*value))
                .chain(sibling.map(|s| s.value))
                .collect(),
        }
    }
}

/// A scan: a runtime call from one temp into another, not a loop nest of its own. The
/// buffers are `outer × len × inner` row-major, scanned along the middle axis.
#[derive(Clone, Debug)]
pub struct ScanStep {
    pub input: usize,
    pub output: usize,
    pub outer: Size,
    pub len: Size,
    pub inner: Size,
    pub op: AxisStep,
}

/// What a runtime step along an axis computes.
#[derive(Clone, Debug)]
pub enum AxisStep {
    /// `cumsum`/`cumprod` into `output`.
    Scan {
        prod: bool,
        exclusive: bool,
        reverse: bool,
    },
    /// `top_k`: the `k` best values along the axis into `output` (whose axis is `k` long)
    /// and their positions into the `i64` temp `indices`.
    TopK {
        k: Size,
        largest: bool,
        indices: usize,
    },
    /// `scatter_elements`/`scatter_nd` (`axis` `None`) from `input` (the data's temp) with
    /// the `i64` temp `indices` and the updates' temp into `output`; the dims of the data
    /// and of the indices.
    Scatter {
        indices: usize,
        updates: usize,
        data_dims: Vec<Size>,
        idx_dims: Vec<Size>,
        axis: Option<usize>,
        reduction: &'static str,
    },
    /// `gather_nd` from `input` with the `i64` temp `indices` into `output`.
    GatherNd {
        indices: usize,
        data_dims: Vec<Size>,
        idx_dims: Vec<Size>,
        batch_dims: usize,
    },
    /// `attention`: the queries', keys', values' and mask's buffers (row-major: a temp, or a
    /// parameter of the step's dtype read in place), with the mask's strides over the
    /// scores `[B, Hq, Sq, Skv]` (0 where it broadcasts) and the sizes
    /// `[B, Hq, Hkv, Sq, Skv, D, Dv]`. The step's `input` is its output temp (unused).
    Attention {
        q: BufferRef,
        k: BufferRef,
        v: BufferRef,
        mask: Option<(BufferRef, [Size; 4])>,
        sizes: [Size; 7],
        causal: bool,
        scale: Option<f64>,
        softcap: f64,
    },
    /// `max_pool` over `planes` (`N·C`) planes of `x` (a temp, or a parameter of the step's
    /// dtype read in place), rows `row_pitch` apart, into `out`: the node's temp, or the
    /// graph output it is written into directly (lower/windows.rs `pools_into_outputs`).
    /// The step's `input` and `output` are the node's temp.
    MaxPool {
        x: BufferRef,
        out: BufferRef,
        planes: Size,
        row_pitch: Size,
        window: PoolGeometry,
    },
    /// `resize` over `planes` (`N·C`) planes of `x` into `out`, as `MaxPool` (the same
    /// buffers and the same redirection into an output).
    Resize {
        x: BufferRef,
        out: BufferRef,
        planes: Size,
        row_pitch: Size,
        axes: Vec<ResizeTaps>,
    },
}

/// A matrix product: a runtime GEMM call per batch index, from two strided operands into a
/// row-major temp.
#[derive(Clone, Debug)]
pub struct MatMulStep {
    pub a: StridedMatrix,
    pub b: StridedMatrix,
    /// The product's temp, `[batch…, m, n]` row-major.
    pub output: usize,
    /// The graph output the GEMM writes instead of the temp (`lower::products_into_outputs`:
    /// a product computed whole whose only reader copied it unchanged into that output);
    /// the temp is then empty.
    pub into_output: Option<usize>,
    pub batch: Vec<Size>,
    pub m: Size,
    pub n: Size,
    pub k: Size,
    /// Set for a convolution: `b` is read as an implicit im2col, `a` as a weight.
    pub conv: Option<ConvStep>,
}

/// The window of a [`NodeKind::Conv`] per spatial axis: the kernel, strides, dilations and
/// pads are literals (`pads` are the beginning's, the end's are implied by `outs`); the
/// input's lengths `lens` and the output's `outs` are sizes, named or expressions for a
/// symbolic spatial axis (the im2col's window arithmetic runs on their call-time values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    pub group: usize,
    pub kernel: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    pub pads: Vec<usize>,
    pub lens: Vec<Size>,
    pub outs: Vec<Size>,
}

/// The window of a [`NodeKind::MaxPool`] per spatial axis (literal sizes; `pads` are the
/// beginning's, the end's are implied by `outs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolGeometry {
    pub kernel: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    pub pads: Vec<usize>,
    pub lens: Vec<usize>,
    pub outs: Vec<usize>,
}

/// One spatial axis of a [`NodeKind::Resize`] (tensor-core `ResizeAxis`): per output, the
/// input positions it reads and their weights, exactly as the expression form reads them
/// (check/vision.rs `resize_taps`, each run's first period's weights for the whole run);
/// `taps == 0` for an axis the resize leaves alone.
#[derive(Clone, Debug, PartialEq)]
pub struct ResizeTaps {
    pub len: usize,
    pub out: usize,
    pub taps: usize,
    /// `index[o·taps + j]`.
    pub index: Vec<usize>,
    /// Laid out as `index`; empty for `nearest` (a selection).
    pub weights: Vec<f64>,
    /// Along the last axis: runs `[first, p, q, count]` of repeating taps (`resize_runs`).
    pub runs: Vec<[usize; 4]>,
}

/// A convolution's product (`MatMulStep::conv`): `a` is the weight of a group (`[O/g,
/// C/g·K]` through the weight's strides below), `b` the input of a batch element and group
/// read as its implicit im2col (`row_stride` the channel stride; its windows per spatial
/// axis through `x_strides`).
#[derive(Clone, Debug)]
pub struct ConvStep {
    pub geometry: ConvGeometry,
    /// The weight's strides along `[C/g, k…]`.
    pub w_col_strides: Vec<Offset>,
    /// The input's strides along its spatial axes.
    pub x_strides: Vec<Offset>,
    /// The bias (`[O]`) as a matrix of one column: row `o` of batch index `(n, g)` at
    /// `base + g·(O/g)·row_stride + o·row_stride` (its batch strides `[0, (O/g)·row_stride]`,
    /// column stride 0), read in place.
    pub bias: Option<StridedMatrix>,
}

/// How a GEMM operand is read: element `(batch…, row, col)` is at `base + Σ batch ×
/// batch_strides + row × row_stride + col × col_stride` (0 strides where it broadcasts).
#[derive(Clone, Debug)]
pub struct StridedMatrix {
    pub buffer: BufferRef,
    pub base: Offset,
    pub batch_strides: Vec<Offset>,
    pub row_stride: Offset,
    pub col_stride: Offset,
}

/// One fused loop nest.
#[derive(Clone, Debug)]
pub struct LoopNest {
    /// Set for a scan step: the nest's loops and values are empty; its operands name the
    /// two temps, so stage planning sees who reads and writes them.
    pub scan: Option<ScanStep>,
    /// Set for a matrix product (as `scan`: no loops of its own).
    pub matmul: Option<MatMulStep>,
    /// Extents of the collapsed outer loops, outermost first.
    pub outer: Vec<Size>,
    /// Extent of the inner, SIMD loop.
    pub inner: Size,
    /// A flat loop over `total` elements with a symbolic extent, cut into rows of `inner`
    /// (a literal) so that it can be split across threads: `outer` is then
    /// `[ceil(total / inner)]` (the name `Kernel::blocks` gives it) and the last row is
    /// shorter.
    pub ragged: Option<Size>,
    pub operands: Vec<Operand>,
    /// In dependency order.
    pub values: Vec<Value>,
    pub sink: Sink,
}

/// The value a temp starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TempInit {
    Zero,
    One,
    Lowest,
    Highest,
    /// -1: an arg-max slot that has seen nothing yet.
    NoIndex,
}

/// A kernel-internal buffer, holding compute-type values.
#[derive(Clone, Debug)]
pub struct Temp {
    pub dtype: DType,
    pub len: Size,
    pub init: TempInit,
    /// Every element is stored (by the nests that materialise the temp) before any nest
    /// reads it, on every row: its start value is never read. True for computed values
    /// (softmax's `exp(x - max)`); false for accumulators, scans and products.
    pub overwritten: bool,
    /// Written and read only inside one row stage: the temp holds one row (this many
    /// elements), lives on the stack (or in a buffer reused row after row) and starts from
    /// `init` at every row.
    pub row_local: Option<Size>,
    /// A product's row-local temp (see `Stage`): it holds a block of `GEMM_BLOCK_ROWS` rows,
    /// which the GEMM fills before the stage's other nests run row by row.
    pub gemm_block: bool,
}

/// Rows of a product computed per GEMM call when its consumers are fused with it (the
/// size of the block temps, and the unit of a product stage's tasks). A right operand
/// without batch dims is packed once per stage and shared by every block and task; one with
/// batch dims is packed again by each call (K × N copies against 2·rows·K·N flops).
/// Measured on `relu(x @ w + b)`, 512×768×3072, one thread, CPU time (BENCHMARKS.md): 256-row
/// blocks 13.4 ms, 96-row blocks (the product block in L2) 14.5 ms: each block streams all
/// of the packed `B` once, and fewer rows reuse each `B` panel less.
pub const GEMM_BLOCK_ROWS: usize = 256;

/// The stage rows of one GEMM block of `product`'s stage (its block temps' rows, the least
/// rows of a task): `GEMM_BLOCK_ROWS` product rows, or one stage row when each stage row
/// holds several product rows — a convolution with a batch, whose stage rows are images
/// (outer loops `[N, O]`, lower/products.rs `lower_conv`): one image's `O × positions`
/// output is the block its epilogue runs on while it is in L2 (NOTES.md "Every
/// convolution fused with its epilogue").
pub fn gemm_block_rows(product: &LoopNest) -> usize {
    if product.outer.len() > 1 {
        1
    } else {
        GEMM_BLOCK_ROWS
    }
}

/// The most loop nests that the pieces of `pad`/`concat`/`tile` cut one loop box into
/// (issue 33). Every region is a nest of its own, and they all sit one after another in the
/// kernel's one function, where LLVM's ScalarEvolution reasons about each loop's trip
/// count through the conditions of the loops before it, recursively: the cost grows much
/// faster than the nest count. Measured on a release build (rustc 1.95, LLVM 22): a rank-4
/// reflect `pad` (81 nests) built in 1.5 s, rank 5 (243) in 202 s, rank 6 (729) had not
/// finished after 10 minutes, and `tile(a, [7, 6, 4, 2])` (336 nests) overflowed rustc's stack inside
/// `ScalarEvolution::getBackedgeTakenInfo`. Past this bound, lowering puts a node that cut
/// the box in a temp (`lower::nests::build_regions`), and the checker splits a single node
/// that would cut more (`pad` per axis, `concat` into groups, `tile` as a broadcast), so a
/// graph's nest count grows with its source, never with the product of its pieces. 32
/// keeps a 3-axis reflect `pad` (27 nests) fused; of the CI seed's first 600 graphs only
/// graph 558 (a reflect `pad` of four axes, 36 nests) lowers differently.
pub const MAX_REGIONS: usize = 32;

/// The whole lowered graph: stages run in order, each one loop nest.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub temps: Vec<Temp>,
    pub nests: Vec<LoopNest>,
    /// How the nests run, in order; every nest belongs to exactly one stage.
    pub stages: Vec<Stage>,
    /// Derived run-time sizes, computed at call entry: (name, total, block) is
    /// `ceil(total / block)`, the row count of a ragged flat loop.
    pub blocks: Vec<(String, Size, usize)>,
}

/// A run of consecutive nests.
#[derive(Clone, Debug)]
pub struct Stage {
    pub first: usize,
    pub count: usize,
    /// The nests share their outermost loop (extent `rows`): they run one after another
    /// inside it, so a row's temps are produced and consumed while in cache (softmax and
    /// layer norm read each row from memory once). Always true for `count > 1`.
    pub row_loop: Option<Size>,
    /// Rows split into tasks of `rows_per_task` rows (threads with the `parallel`
    /// feature): every buffer the stage writes, with its elements per row, is handed to
    /// the tasks as disjoint chunks.
    pub tasks: Option<Tasks>,
    /// The first nest's row reduction also runs, for the next row, inside the last nest
    /// (`lower::pipeline_first_pass`): the row loop runs the first nest only for a task's
    /// first row.
    pub pipelined: Option<Pipelined>,
}

/// How a row stage's first pass runs inside its last (see `Stage::pipelined`).
#[derive(Clone, Debug)]
pub struct Pipelined {
    /// Each accumulator temp of the first nest, and the temp the last nest accumulates the
    /// next row's value into, which becomes the first one's value at the next row.
    pub carries: Vec<(usize, usize)>,
    /// The last nest's operands that read the next row: their outermost index is the
    /// row after `__tg_row` (the row itself at the stage's last row).
    pub next_row: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Tasks {
    /// Rows per task, when every size is static; `None`: computed at run time from the
    /// stage's work (`work`), which also decides at run time whether to split at all.
    pub rows_per_task: Option<usize>,
    /// Elements the stage iterates, as terms of a sum (for the run-time decision).
    pub work: Vec<Size>,
    /// Each written buffer with its elements per row.
    pub chunked: Vec<(BufferRef, Size)>,
}
