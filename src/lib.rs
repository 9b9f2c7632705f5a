//! # tensorgraph
//!
//! Write tensor math as a small expression language inside Rust; get dtype promotion and
//! broadcasting checked while your crate compiles, and fused SIMD loop kernels out.
//!
//! ```
//! use tensorgraph::prelude::*;
//!
//! graph! {
//!     /// `relu(x + bias) * 2`, broadcasting `bias` over the rows.
//!     pub fn bias_relu(x: f32[2, 4], bias: f32[4]) -> f32[2, 4] {
//!         let h = x + bias;
//!         relu(h) * 2.0
//!     }
//! }
//!
//! let x = Tensor::<f32, Shape![2, 4]>::from_vec(vec![-1.0, 0.5, 2.0, -3.0, 1.0, 1.0, 1.0, 1.0]).unwrap();
//! let bias = Tensor::<f32, Shape![4]>::from_vec(vec![0.5, 0.5, -1.0, 4.0]).unwrap();
//! let y = bias_relu(&x, &bias);
//! assert_eq!(y.as_slice(), &[0.0, 2.0, 2.0, 2.0, 3.0, 3.0, 0.0, 10.0]);
//! ```
//!
//! The language, its rules and its diagnostics are documented on [`graph!`]; every op, with
//! its signature, dtypes, formula, precision and an example, in [`op_reference`].
#![warn(missing_docs)]

/// ndarray's arrays as graph arguments and outputs, `TryFrom<Array>` for `Tensor` and
/// `Tensor::into_ndarray` (the `ndarray` feature).
#[cfg(feature = "ndarray")]
pub use tensor_core::ndarray_interop;
/// Weights from safetensors files, memory-mapped and lent to graphs without copies, and graph
/// outputs written back (the `safetensors` feature).
#[cfg(feature = "safetensors")]
pub use tensor_core::safetensors;
pub use tensor_core::{
    args, bind, cast, dtype, error, functions, gemm, hugepages, lanes, reference, shape, tensor,
    ulp, vmath,
};
pub use tensor_core::{
    bf16, f16, DType, Dim, Dyn, Element, Fixed, LengthReason, Rank0, Rank1, Rank2, Rank3, Rank4,
    Rank5, Rank6, Shape, ShapeError, StaticShape, Tensor, TensorMut, TensorRef, TensorView,
    TensorViewMut,
};

/// Compiles a tensor graph: the language reference.
///
/// Item form: `graph! { pub fn f(x: f32[4], b: f32[]) -> f32[4] { x * b } }` defines `f`
/// and `f_into`. Closure form: `graph!(|x: f32[4]| x * 2.0)` is a function value. Every
/// callable of the language, with its signature, dtypes, defaults, formula, precision and an
/// example, is in the [op reference](crate::op_reference).
///
#[doc = include_str!("../docs/language.md")]
#[macro_export]
macro_rules! graph {
    ($($tokens:tt)*) => {
        $crate::__tg_graph_form! { [$($tokens)*] $($tokens)* }
    };
}

/// `graph!`'s form, told apart by the tokens after the bracket; the bracket's copy is what is
/// passed on, so every token keeps its span (a `|` matched here would be this macro's).
/// The closure form is an expression, which no `#[cfg]` can take: both branches of its
/// kernels, picked by `cfg` in the expansion. Items: the proc macro runs once, under the
/// user's crate's `cfg`, for the one branch of each kernel (the debug backend's program or
/// the fused kernel) that the build compiles; rustc strips the other call unexpanded.
/// Not a stable API.
#[doc(hidden)]
#[macro_export]
macro_rules! __tg_graph_form {
    ([$($all:tt)*] $(#$attr:tt)* | $($rest:tt)*) => {
        $crate::__private::graph_with_arg_forms! { $crate; $($all)* }
    };
    ([$($all:tt)*] $(#$attr:tt)* || $($rest:tt)*) => {
        $crate::__private::graph_with_arg_forms! { $crate; $($all)* }
    };
    ([$($all:tt)*] $($rest:tt)*) => {
        #[cfg(debug_assertions)]
        $crate::__private::graph_with_arg_forms! { $crate, debug; $($all)* }
        #[cfg(not(debug_assertions))]
        $crate::__private::graph_with_arg_forms! { $crate, release; $($all)* }
    };
}

/// Writes a shape type: `Shape![]`, `Shape![8]`, `Shape![4, 8]` … up to rank 6.
///
/// A dim is an integer literal (`Shape![4, 8]` is `Rank2<Fixed<4>, Fixed<8>>`), a `const`
/// item or const generic parameter (`Shape![N, 4]`), a braced const expression
/// (`Shape![{ 2 * N }]`), or `_` for a run-time dim (`Shape![_, 768]` is
/// `Rank2<Dyn, Fixed<768>>`).
///
/// ```
/// use tensorgraph::prelude::*;
///
/// const ROWS: usize = 3;
/// fn width<const N: usize>(t: &Tensor<f32, Shape![ROWS, N]>) -> usize {
///     t.as_slice().len() / ROWS
/// }
/// let t = Tensor::<f32, Shape![ROWS, { 2 * 4 }]>::zeros();
/// assert_eq!(width(&t), 8);
/// ```
#[macro_export]
macro_rules! Shape {
    ($($dims:tt)*) => {
        $crate::__private::shape_impl! { $crate; $($dims)* }
    };
}

/// README.md's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The doc examples of `Tensor`, its views and `ShapeError` run as doctests here: they are
/// written with `tensorgraph::` paths, which tensorgraph-core, where those items live, cannot
/// name (tensor-core's tensor.rs, `__user_doc_examples`, says how they are shared).
#[cfg(doctest)]
#[doc = tensor_core::__user_doc_examples!(all)]
pub struct TensorDoctests;

/// The op reference: every callable of the `graph!` language.
///
// docs/ops.md, generated from the op registry by tensor-macros/src/op_reference.rs (a test
// fails when the checked-in file is stale). Its examples run as written in
// tests/op_examples.rs, generated with it, rather than as a doctest each (one test binary,
// not a compile per example).
#[cfg_attr(not(doctest), doc = include_str!("../docs/ops.md"))]
pub mod op_reference {}

/// Doc examples of tensor-core items that are written with `tensorgraph::` paths
/// (tensor-core/src/doc_examples/) run here; those of a feature with it
/// (`cargo test -p tensorgraph --features ndarray,serde,safetensors --doc`).
#[cfg(doctest)]
#[doc = include_str!("../tensor-core/src/doc_examples/hugepages_vec_filled.md")]
#[doc = include_str!("../tensor-core/src/doc_examples/args_checked.md")]
pub struct CoreDoctests;

/// As `CoreDoctests`, for the `ndarray` feature's items.
#[cfg(all(doctest, feature = "ndarray"))]
#[doc = include_str!("../tensor-core/src/doc_examples/ndarray_try_from.md")]
#[doc = include_str!("../tensor-core/src/doc_examples/ndarray_into_ndarray.md")]
pub struct NdarrayDoctests;

/// As `CoreDoctests`, for the `serde` feature's items.
#[cfg(all(doctest, feature = "serde"))]
#[doc = include_str!("../tensor-core/src/doc_examples/serde_tensor.md")]
#[doc = include_str!("../tensor-core/src/doc_examples/serde_view.md")]
pub struct SerdeDoctests;

/// The safetensors module's example, written with `tensorgraph::` paths, runs here.
#[cfg(all(doctest, feature = "safetensors"))]
#[doc = include_str!("../tensor-core/src/safetensors/example.md")]
pub struct SafetensorsDoctests;

/// What `graph!` expansions name. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use tensor_core::__private::*;
    pub use tensor_core::shape::{Rank0, Rank1, Rank2, Rank3, Rank4, Rank5, Rank6};
    pub use tensor_macros::{graph_impl, shape_impl};
}

/// `use tensorgraph::prelude::*;` brings `graph!`, `Tensor`, views, `Shape!` and the
/// half-precision types.
pub mod prelude {
    pub use crate::graph;
    pub use crate::Shape;
    pub use tensor_core::{bf16, f16, Tensor, TensorRef, TensorView, TensorViewMut};
}
