//! `ShapeError`: every way a buffer, a set of dims or a graph call's arguments can fail to fit
//! a shape. The two families:
//! - building a tensor or a view (`Length`, `Solve`, `FixedDim`, `TooLarge`, `TensorRank`,
//!   `ArrayLayout`): the texts name the shape as the tensor type writes it (`[_, 768]`);
//! - a call of a graph with symbolic dims (`DimMismatch` … `Unbound`): the texts name the
//!   graph, the argument, the axis and the sizes, and end with the graph's signature in the
//!   DSL notation, so the message alone says what to fix.

use core::fmt;

/// Why a length cannot give the dims of a shape (see [`ShapeError::Solve`] and
/// [`ShapeError::SliceLength`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthReason {
    /// Every dim is known, and their product `needs` differs from the length.
    Exact {
        /// The element count the known dims need.
        needs: usize,
    },
    /// One dim is unknown, and the length is not a multiple of the product `of` of the others.
    NotMultiple {
        /// The product of the known dims.
        of: usize,
    },
    /// One dim is unknown and the others multiply to 0: a length of 0 fits every size of it
    /// (so it cannot be solved), and any other length fits none.
    ZeroProduct,
    /// Two or more dims are unknown; a length gives at most one.
    SeveralUnknown,
    /// The one unknown name stands on several axes; a length gives only their product.
    RepeatedName,
}

/// A buffer, dims or graph arguments that do not fit a shape.
///
/// Every variant's `Display` is a complete sentence for the user; the fields carry the same
/// facts for code that matches on them. `Debug` writes the same sentence (not the variant
/// and its fields), so an error that `main` returns through `?`, or that `unwrap()` or
/// `expect` panics with, reads as `Display` does:
#[cfg_attr(
    not(doctest),
    doc = crate::__user_doc_examples!(shape_error_debug)
)]
#[non_exhaustive]
#[derive(Clone, PartialEq, Eq)]
pub enum ShapeError {
    /// A buffer's length differs from the element count of fully known dims:
    /// ``a tensor of shape [4, 8] needs 32 elements, but 31 were given``.
    Length {
        /// The element count the dims need.
        expected: usize,
        /// The element count given.
        found: usize,
        /// The dims, as text: `[4, 8]`.
        dims: String,
    },
    /// A buffer's length cannot give the run-time dims of a shape type (`from_vec`,
    /// `TensorView::new`): ``10 elements do not fill [_, 768]: 10 is not a multiple of 768``.
    Solve {
        /// The element count given.
        len: usize,
        /// The shape type, as text with `_` for run-time dims: `[_, 768]`.
        dims: String,
        /// Why the length does not give the dims.
        reason: LengthReason,
    },
    /// Given dims differ from a literal dim of the shape type (`from_shape_vec`,
    /// `with_dims`, `zeros_with_dims`, `TryFrom<Array>`).
    FixedDim {
        /// The given dims, as text.
        dims: String,
        /// The shape type, as text with `_` for run-time dims.
        shape: String,
        /// The axis whose dim differs.
        axis: usize,
        /// The shape type's literal dim there.
        expected: usize,
        /// The given dim there.
        found: usize,
    },
    /// Dims whose element count (or its size in bytes) does not fit in memory's address range.
    TooLarge {
        /// The dims, as text (`_` where a run-time dim could not be solved).
        dims: String,
    },
    /// Dims of another rank than the shape type's (an `ndarray::ArrayD` of the wrong rank).
    TensorRank {
        /// The shape type, as text.
        shape: String,
        /// The shape type's rank.
        expected: usize,
        /// The rank given.
        found: usize,
    },
    /// An `ndarray` array that is not in standard (row-major, contiguous) layout cannot become
    /// a tensor without a copy.
    ArrayLayout,
    /// A graph call: one dim name has two sizes.
    ///
    /// ```text
    /// graph `ln`: dim `B` is 5 in `g` (axis 0) but 4 in `x` (axis 0); signature ln(x: f32[B, 768], g: f32[B])
    /// ```
    DimMismatch {
        /// The graph fn's name.
        graph: &'static str,
        /// The dim name.
        dim: &'static str,
        /// Its size in `arg`.
        size: usize,
        /// The argument where it differs.
        arg: &'static str,
        /// The axis of `arg`.
        axis: usize,
        /// The size the name was bound to.
        bound_size: usize,
        /// The argument that bound it (its first occurrence).
        bound_arg: &'static str,
        /// The axis of `bound_arg`.
        bound_axis: usize,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: a literal dim of a run-time-shaped argument differs.
    ///
    /// ```text
    /// graph `ln`: `g` has 5 at axis 0 but its type f32[768] says 768; signature …
    /// ```
    StaticDim {
        /// The graph fn's name.
        graph: &'static str,
        /// The argument.
        arg: &'static str,
        /// The parameter's declared type in the DSL notation: `f32[768]`.
        ty: &'static str,
        /// The axis.
        axis: usize,
        /// The declared literal.
        expected: usize,
        /// The argument's dim there.
        found: usize,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: an argument's rank differs from its parameter's.
    Rank {
        /// The graph fn's name.
        graph: &'static str,
        /// The argument.
        arg: &'static str,
        /// The parameter's declared type in the DSL notation.
        ty: &'static str,
        /// The declared rank.
        expected: usize,
        /// The argument's rank.
        found: usize,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: a flat slice (or `Vec`) whose length does not give the parameter's dims.
    ///
    /// ```text
    /// graph `f`: `x` is a slice of 10 elements, which does not fill f32[B, 768] (10 is not a multiple of 768); signature …
    /// ```
    SliceLength {
        /// The graph fn's name.
        graph: &'static str,
        /// The argument.
        arg: &'static str,
        /// The slice's length.
        len: usize,
        /// The parameter's declared type in the DSL notation: `f32[B, 768]`.
        ty: &'static str,
        /// Why the length does not give the dims.
        reason: LengthReason,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: an argument whose memory layout the kernels cannot read in place (an
    /// `ndarray` view that is transposed, broadcast or strided).
    Layout {
        /// The graph fn's name.
        graph: &'static str,
        /// The argument.
        arg: &'static str,
        /// What is wrong and how to fix it, e.g. "… pass `.as_standard_layout()` …".
        reason: &'static str,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: `max`, `min`, `argmax` or `argmin` over a symbolic axis that is 0 in this
    /// call.
    ///
    /// ```text
    /// graph `f`: `max` over dim `B`, which is 0 in this call: an empty axis has no max; signature …
    /// ```
    EmptyAxis {
        /// The graph fn's name.
        graph: &'static str,
        /// The dim name.
        dim: &'static str,
        /// The reduction.
        op: &'static str,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: a named axis shorter than a `slice` with literal bounds needs (the
    /// slice's length would otherwise depend on the axis).
    ///
    /// ```text
    /// graph `f`: `slice` needs dim `B` to be at least 4, but it is 3 in this call; signature …
    /// ```
    TooShort {
        /// The graph fn's name.
        graph: &'static str,
        /// The dim name.
        dim: &'static str,
        /// Its size in this call.
        size: usize,
        /// The least size the op needs.
        least: usize,
        /// The op.
        op: &'static str,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: an argument's dims multiply past `usize::MAX`, or (`arg` is "an
    /// intermediate value") a value the kernels allocate or count would have more than
    /// `MAX_ELEMENTS` (2^53) elements.
    Overflow {
        /// The graph fn's name.
        graph: &'static str,
        /// The argument.
        arg: &'static str,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: a dim name that no argument gave a size. Graphs the macro accepts give
    /// every name in some input, so this means generated code and runtime disagree.
    Unbound {
        /// The graph fn's name.
        graph: &'static str,
        /// The dim name.
        dim: &'static str,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: an argument's size on an axis declared as a dim expression differs
    /// from the expression's value.
    ///
    /// ```text
    /// graph `append`: dim `M + N` is 7 (M = 3, N = 4), but `out` has 6 at axis 0; signature …
    /// ```
    ExprMismatch {
        /// The graph fn's name.
        graph: &'static str,
        /// The expression.
        dim: &'static str,
        /// Its value in this call (`None` past `i128`).
        value: Option<i128>,
        /// The sizes of the names it reads: `"M = 3, N = 4"`.
        sizes: String,
        /// The argument.
        arg: &'static str,
        /// The axis of `arg`.
        axis: usize,
        /// The argument's size there.
        size: usize,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: an argument's size on an axis declared as `c·N + k` gives no whole
    /// `N ≥ 0` (`7` for `2 * N`).
    ExprSolve {
        /// The graph fn's name.
        graph: &'static str,
        /// The expression.
        dim: &'static str,
        /// The name it was to solve.
        name: &'static str,
        /// The sizes of the names it reads.
        sizes: String,
        /// The argument.
        arg: &'static str,
        /// The axis of `arg`.
        axis: usize,
        /// The argument's size there.
        size: usize,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: an index tensor holds a position outside the axis it indexes (ONNX:
    /// valid indices are `-len..len`, a negative one counting from the end).
    ///
    /// ```text
    /// graph `embed`: `gather` reads index 7 at [1, 2] of `ids`, outside an axis of 5 (valid: -5..5); signature …
    /// ```
    IndexOutOfRange {
        /// The graph fn's name.
        graph: &'static str,
        /// The op that reads the indices.
        op: &'static str,
        /// The index parameter.
        arg: &'static str,
        /// Where in `arg` the first bad index is: `[1, 2]`.
        position: String,
        /// The index.
        value: i128,
        /// The length of the indexed axis.
        len: usize,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
    /// A graph call: a dim expression of the graph (declared, or made by an op: `N - 4`
    /// from `slice(x, start = 4)`) is negative for the sizes of this call.
    NegativeDim {
        /// The graph fn's name.
        graph: &'static str,
        /// The expression.
        dim: &'static str,
        /// Its value.
        value: i128,
        /// The sizes of the names it reads.
        sizes: String,
        /// The graph's signature in the DSL notation.
        signature: &'static str,
    },
}

impl fmt::Display for ShapeError {
    /// Longer than issue 34's ~150 lines as a table is: one arm per variant, each its
    /// message, nothing shared but `write!`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::Length {
                expected,
                found,
                dims,
            } => write!(
                f,
                "a tensor of shape {dims} needs {expected} elements, but {found} were given"
            ),
            ShapeError::Solve { len, dims, reason } => match reason {
                LengthReason::Exact { needs } => write!(
                    f,
                    "a tensor of shape {dims} needs {needs} elements, but {len} were given"
                ),
                LengthReason::NotMultiple { of } => write!(
                    f,
                    "{len} elements do not fill {dims}: {len} is not a multiple of {of}"
                ),
                LengthReason::ZeroProduct if *len == 0 => write!(
                    f,
                    "0 elements do not fix the run-time dim of {dims}: its other dims multiply \
                     to 0, so every size fits; give the dims with `from_shape_vec`"
                ),
                LengthReason::ZeroProduct => write!(
                    f,
                    "{len} elements do not fill {dims}: its other dims multiply to 0, so only \
                     0 elements fit"
                ),
                LengthReason::SeveralUnknown | LengthReason::RepeatedName => write!(
                    f,
                    "{len} elements cannot give the dims of {dims}: a length fixes at most one \
                     run-time dim; give the dims with `from_shape_vec`"
                ),
            },
            ShapeError::FixedDim {
                dims,
                shape,
                axis,
                expected,
                found,
            } => write!(
                f,
                "dims {dims} do not fit shape {shape}: axis {axis} is {expected} in the type, \
                 but {found} was given"
            ),
            ShapeError::TooLarge { dims } => write!(
                f,
                "a tensor of shape {dims} has more elements than memory can address"
            ),
            ShapeError::TensorRank {
                shape,
                expected,
                found,
            } => write!(
                f,
                "dims of rank {found} do not fit shape {shape}, which has rank {expected}"
            ),
            ShapeError::ArrayLayout => f.write_str(
                "the array is not in standard (row-major, contiguous) layout, so it cannot \
                 become a tensor without a copy: convert it with \
                 `.as_standard_layout().into_owned()` first",
            ),
            ShapeError::DimMismatch {
                graph,
                dim,
                size,
                arg,
                axis,
                bound_size,
                bound_arg,
                bound_axis,
                signature,
            } => write!(
                f,
                "graph `{graph}`: dim `{dim}` is {size} in `{arg}` (axis {axis}) but \
                 {bound_size} in `{bound_arg}` (axis {bound_axis}); signature {signature}"
            ),
            ShapeError::StaticDim {
                graph,
                arg,
                ty,
                axis,
                expected,
                found,
                signature,
            } => write!(
                f,
                "graph `{graph}`: `{arg}` has {found} at axis {axis} but its type {ty} says \
                 {expected}; signature {signature}"
            ),
            ShapeError::Rank {
                graph,
                arg,
                ty,
                expected,
                found,
                signature,
            } => write!(
                f,
                "graph `{graph}`: `{arg}` has rank {found} but its type {ty} has rank \
                 {expected}; signature {signature}"
            ),
            ShapeError::SliceLength {
                graph,
                arg,
                len,
                ty,
                reason,
                signature,
            } => {
                write!(f, "graph `{graph}`: `{arg}` is a slice of {len} elements, ")?;
                match reason {
                    LengthReason::Exact { needs } => write!(
                        f,
                        "which does not fill {ty} (its dims need exactly {needs})"
                    )?,
                    LengthReason::NotMultiple { of } => write!(
                        f,
                        "which does not fill {ty} ({len} is not a multiple of {of})"
                    )?,
                    LengthReason::ZeroProduct if *len == 0 => write!(
                        f,
                        "which cannot give the dims of {ty} (its other dims multiply to 0, so \
                         every size fits; pass a tensor, which carries its dims)"
                    )?,
                    LengthReason::ZeroProduct => write!(
                        f,
                        "which does not fill {ty} (its other dims multiply to 0, so only an \
                         empty slice fits)"
                    )?,
                    LengthReason::SeveralUnknown => write!(
                        f,
                        "which cannot give the dims of {ty} (a slice gives at most one name \
                         that no earlier argument bound; pass a tensor, which carries its dims)"
                    )?,
                    LengthReason::RepeatedName => write!(
                        f,
                        "which cannot give the dims of {ty} (its unbound name stands on \
                         several axes and a length gives only their product; pass a tensor, \
                         which carries its dims)"
                    )?,
                }
                write!(f, "; signature {signature}")
            }
            ShapeError::Layout {
                graph,
                arg,
                reason,
                signature,
            } => write!(
                f,
                "graph `{graph}`: `{arg}` {reason}; signature {signature}"
            ),
            ShapeError::EmptyAxis {
                graph,
                dim,
                op,
                signature,
            } => write!(
                f,
                "graph `{graph}`: `{op}` over dim `{dim}`, which is 0 in this call: an empty \
                 axis has no {op}; signature {signature}"
            ),
            ShapeError::TooShort {
                graph,
                dim,
                size,
                least,
                op,
                signature,
            } => write!(
                f,
                "graph `{graph}`: `{op}` needs dim `{dim}` to be at least {least}, but it is \
                 {size} in this call; signature {signature}"
            ),
            ShapeError::Overflow {
                graph,
                arg,
                signature,
            } if *arg == "an intermediate value" => write!(
                f,
                "graph `{graph}`: an intermediate value would have more than 2^53 elements \
                 (the dims of the arguments, empty ones included, multiply past what memory \
                 can hold); signature {signature}"
            ),
            ShapeError::Overflow {
                graph,
                arg,
                signature,
            } => write!(
                f,
                "graph `{graph}`: the dims of `{arg}` multiply past the largest usize; \
                 signature {signature}"
            ),
            ShapeError::Unbound {
                graph,
                dim,
                signature,
            } => write!(
                f,
                "graph `{graph}`: no argument gives dim `{dim}` a size (generated code and \
                 runtime disagree: please report it); signature {signature}"
            ),
            ShapeError::ExprMismatch {
                graph,
                dim,
                value,
                sizes,
                arg,
                axis,
                size,
                signature,
            } => {
                let value = match value {
                    Some(v) => v.to_string(),
                    None => "past any size".to_string(),
                };
                write!(
                    f,
                    "graph `{graph}`: dim `{dim}` is {value} ({sizes}), but `{arg}` has {size} \
                     at axis {axis}; signature {signature}"
                )
            }
            ShapeError::ExprSolve {
                graph,
                dim,
                name,
                sizes,
                arg,
                axis,
                size,
                signature,
            } => write!(
                f,
                "graph `{graph}`: `{arg}` has {size} at axis {axis}, which its dim `{dim}` \
                 cannot be for any size of `{name}` ({sizes}); signature {signature}"
            ),
            ShapeError::IndexOutOfRange {
                graph,
                op,
                arg,
                position,
                value,
                len,
                signature,
            } => {
                let valid = if op.ends_with("loss") || op.ends_with("entropy") {
                    format!("0..{len}")
                } else {
                    format!("-{len}..{len}")
                };
                write!(
                    f,
                    "graph `{graph}`: `{op}` reads index {value} at {position} of `{arg}`, \
                     outside an axis of {len} (valid: {valid}); signature {signature}"
                )
            }
            ShapeError::NegativeDim {
                graph,
                dim,
                value,
                sizes,
                signature,
            } => write!(
                f,
                "graph `{graph}`: dim `{dim}` would be {value} ({sizes}), and a dim cannot be \
                 negative; signature {signature}"
            ),
        }
    }
}

impl fmt::Debug for ShapeError {
    /// The `Display` sentence: `fn main() -> Result<(), ShapeError>` prints
    /// ``Error: graph `layer`: `x` is a slice of 10 elements, …`` rather than the
    /// variant's fields (match on the variant for those).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ShapeError {}
