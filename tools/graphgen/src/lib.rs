//! Random-graph differential testing of `graph!` (issue 18).
//!
//! - [`gen::generate`]: a random well-typed graph from `(seed, index)`, deterministic;
//!   [`render::graph`] prints it as `graph!` source.
//! - `interp` (feature `interp`): runs a graph over the scalar reference semantics
//!   (`tensor_core::reference`, f64 math), sharing no code with the macro's lowering or
//!   emission, and tracks for every float element the interval the kernels may return
//!   (exact ops bit for bit; transcendentals within their ACCURACY.md bound; reductions
//!   within K·eps·Σ|x|).
//! - `inputs` (feature `interp`): random and edge-value inputs and the bit-level host
//!   tensors the generated harness passes through; `compare`: kernel outputs against the
//!   interpreter's.
//!
//! The harness that compiles a batch is tensorgraph-tests' build script and
//! tensorgraph-tests/tests/graphgen.rs; NOTES.md says how to run a soak.

pub mod ast;
pub mod gen;
pub mod grad;
pub mod harness;
pub mod render;
pub mod rng;
pub mod types;

#[cfg(feature = "interp")]
pub mod compare;
#[cfg(feature = "interp")]
pub mod inputs;
#[cfg(feature = "interp")]
pub mod interp;
#[cfg(feature = "interp")]
pub mod value;

/// The seed of the batch CI runs.
pub const CI_SEED: u64 = 0x7E45_0A61_2026_1125;
