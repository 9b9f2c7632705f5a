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
    Input { param: usize },
    /// A run-time scalar parameter.
    Scalar { param: usize },
    Const(ConstValue),
    Op { op: &'static Op, args: Vec<NodeId> },
    Select { cond: NodeId, a: NodeId, b: NodeId },
    /// `as`, or a promotion inserted by `check`.
    Cast { input: NodeId },
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

/// Where in the loop nest a node is computed: once per call, once per row of the
/// outer loops, or once per SIMD chunk of the inner loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Global,
    Row,
    Inner,
}

/// A buffer the loop nest walks: an input tensor or an output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Buffer {
    Input(usize),
    Output(usize),
}

/// How one buffer is addressed in a loop nest.
#[derive(Clone, Debug)]
pub struct Operand {
    pub buffer: Buffer,
    /// Element stride per outer loop (0 where the buffer broadcasts).
    pub outer_strides: Vec<usize>,
    /// 1 if the buffer runs along the inner loop, 0 if it is splatted.
    pub inner_stride: usize,
}

/// One fused loop nest: the outputs of one shape, computed in a single pass.
#[derive(Clone, Debug)]
pub struct LoopNest {
    /// Extents of the collapsed outer loops, outermost first.
    pub outer: Vec<usize>,
    /// Extent of the inner, SIMD loop.
    pub inner: usize,
    pub operands: Vec<Operand>,
    /// Nodes to compute, in order, each at its level.
    pub schedule: Vec<(NodeId, Level)>,
    /// (output index, node) pairs stored by this nest.
    pub stores: Vec<(usize, NodeId)>,
}

/// The whole lowered graph.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub nests: Vec<LoopNest>,
}
