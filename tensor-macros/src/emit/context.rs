//! What every part of the emitter reads: the runtime's path, the graph function, its typed
//! graph and its kernel, passed as one `&Emitter` rather than four parameters threaded
//! through every function.

use proc_macro2::TokenStream;

use crate::ast::GraphFn;
use crate::ir::{Kernel, TypedGraph};

/// The emission context of one graph.
#[derive(Clone, Copy)]
pub(super) struct Emitter<'a> {
    /// The runtime crate's path (the `$crate` of the `graph!` wrapper): every path into it
    /// starts here.
    pub(super) rt: &'a TokenStream,
    pub(super) f: &'a GraphFn,
    pub(super) graph: &'a TypedGraph,
    pub(super) kernel: &'a Kernel,
}
