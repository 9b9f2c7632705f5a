//! Loop IR → Rust tokens. Never reports user errors: everything it sees has been checked.
//! `signature` emits the functions around the kernels (types, argument traits, call
//! entry); `kernel` a kernel's entry checks and temps, then its stages (`stages`, with the
//! GEMM calls of `gemm`), each nest (`nests`, the f32 block loops of `blocks`), each value
//! (`values`); `names` the generated locals and small expressions all of them share,
//! `sizes` what call entry checks; `debug` the debug builds' branch of a kernel (a program of
//! tensor-core's block ops); `context` the `Emitter` (runtime path, graph function,
//! typed graph, kernel) the kernel's files take as one parameter. Imports run one way:
//! signature → kernel → stages → nests → blocks → values → names → context. Sizes with names become expressions
//! over the `__tg_dim_*` locals bound at call entry; literal sizes stay literals, so a
//! graph without names expands exactly as before names existed.
//! Every path into the runtime goes through `runtime` (the `$crate` of the `graph!`
//! wrapper), so expansions compile whatever the user named the dependency. Generated
//! locals are `__tg_`-prefixed.

mod blocks;
mod context;
mod debug;
mod gemm;
mod in_place;
mod kernel;
mod names;
mod nests;
mod program;
mod signature;
mod sizes;
mod stages;
mod values;

#[cfg(test)]
pub(crate) use blocks::BLOCK_FUNCTIONS;
pub use in_place::expand_in_place;
pub(crate) use names::with_private_alias;
#[cfg(test)]
pub(crate) use names::LANE_OPS;
#[cfg(test)]
pub(crate) use names::PRIVATE_ALIAS;
pub use signature::{closure_value, emit_graph_fn, with_runtime_features, RuntimeFeatures};
