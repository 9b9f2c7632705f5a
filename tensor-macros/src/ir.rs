//! The typed graph that `check` produces, and the loop IR that `lower` builds from it.

use crate::dtype::DType;
use crate::ops::Op;

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
}

/// How a reduction combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Sum,
    Prod,
    Max,
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
            ReduceKind::Max => TempInit::Lowest,
            ReduceKind::Min => TempInit::Highest,
            ReduceKind::ArgMax | ReduceKind::ArgMin => TempInit::NoIndex,
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
            ReduceKind::Min => ("NumLanes", "min_lanes", "Num", "min"),
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
    pub dims: Vec<usize>,
}

/// The checked graph: nodes in topological order (arguments before users).
#[derive(Clone, Debug, Default)]
pub struct TypedGraph {
    pub nodes: Vec<Node>,
    pub outputs: Vec<NodeId>,
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

/// How one buffer is addressed in a loop nest: an element offset is the sum of each
/// loop counter times its stride (0 where the buffer broadcasts).
#[derive(Clone, Debug)]
pub struct Operand {
    pub buffer: BufferRef,
    pub outer_strides: Vec<usize>,
    /// 1: contiguous along the inner loop; 0: splatted; other: a strided gather.
    pub inner_stride: usize,
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
    /// An elementwise op, select or cast of `node` over these values.
    Compute {
        args: Vec<usize>,
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
    },
}

/// One fused loop nest.
#[derive(Clone, Debug)]
pub struct LoopNest {
    /// Extents of the collapsed outer loops, outermost first.
    pub outer: Vec<usize>,
    /// Extent of the inner, SIMD loop.
    pub inner: usize,
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
    pub len: usize,
    pub init: TempInit,
    /// Written and read only inside one row stage: the temp holds one row (this many
    /// elements), lives on the stack (or in a buffer reused row after row) and starts from
    /// `init` at every row.
    pub row_local: Option<usize>,
}

/// The whole lowered graph: stages run in order, each one loop nest.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub temps: Vec<Temp>,
    pub nests: Vec<LoopNest>,
    /// How the nests run, in order; every nest belongs to exactly one stage.
    pub stages: Vec<Stage>,
}

/// A run of consecutive nests.
#[derive(Clone, Debug)]
pub struct Stage {
    pub first: usize,
    pub count: usize,
    /// The nests share their outermost loop (extent `rows`): they run one after another
    /// inside it, so a row's temps are produced and consumed while in cache (softmax and
    /// layer norm read each row from memory once). Always true for `count > 1`.
    pub row_loop: Option<usize>,
    /// Rows split into tasks of `rows_per_task` rows (threads with the `parallel`
    /// feature): every buffer the stage writes, with its elements per row, is handed to
    /// the tasks as disjoint chunks.
    pub tasks: Option<Tasks>,
}

#[derive(Clone, Debug)]
pub struct Tasks {
    pub rows_per_task: usize,
    pub chunked: Vec<(BufferRef, usize)>,
}
