//! Names and small expressions shared by the emitter's files: the generated locals
//! (`__tg_in0`, `__tg_temp3`, `__tg_dim_B`), sizes and offsets as `usize` expressions, the
//! storage and compute types of dtypes, temps' start values.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::context::Emitter;
use crate::dtype::DType;
use crate::ir::{BufferRef, Offset, Size, TempInit};

/// The path a kernel body names its lanes through (`<f32 as __tg_lanes::NumLanes>`,
/// `__tg_lanes::V::<f32>`, `__tg_lanes::LANES`, `__tg_lanes::load`): the runtime's
/// `dispatch_kernel!` binds it in each copy of the kernel, to `__private` in the baseline
/// copy (and in every build without the `dispatch` feature) and to the AVX2 + FMA lane layer
/// in that copy (tensor-core lanes_avx2.rs; NOTES.md "Row sums and whole-kernel dispatch").
///
/// The rule: every item whose type or behaviour depends on the lane count goes through it —
/// the lane traits, the lane type `V`, `LANES`, the chunk loads and stores (`load*`, `store`,
/// `store_streaming`, `stream_head`), `cast`, and the reduction helpers that take or build a
/// `V` (`lane_mask`, `mask_or`, `fold`, `iota*`, `positions`, `arg_*`). A copy with another
/// lane count (AVX-512's 16 on a build whose `LANES` is 8) then needs only a module that
/// supplies these names, and no emitter change. Items that do not depend on it (`Element`,
/// `F32_BLOCK`, `f32_block`, `group_values`, `prefetch_chunk`, the GEMM engine) stay on
/// `__private`; so does the lane-count check of `kernel.rs`, which is about the build.
pub(crate) const LANE_OPS: &str = "__tg_lanes";

/// The prefix of the name a graph function's expansion gives `$crate::__private`
/// (`use $crate::__private as __tg_p_NAME;`, `with_private_alias`): a path into it is then
/// `__tg_p_NAME :: item`, three tokens fewer than `$crate :: __private :: item` (`::` is two
/// tokens), at ~1,700 paths in a 50-graph crate, each sent through the proc-macro bridge,
/// parsed and resolved. The name carries the graph's because a graph's items share the
/// user's module.
pub(crate) const PRIVATE_ALIAS: &str = "__tg_p_";

thread_local! {
    /// The alias of the graph function being emitted (`with_private_alias`), if any.
    static PRIVATE: std::cell::RefCell<Option<proc_macro2::Ident>> =
        const { std::cell::RefCell::new(None) };
}

/// The path of the runtime's `__private` module from the code being emitted: the graph's
/// alias inside `with_private_alias`, else `rt::__private`.
pub(crate) fn private(rt: &TokenStream) -> TokenStream {
    PRIVATE.with(|alias| match &*alias.borrow() {
        Some(alias) => quote!(#alias),
        None => quote!(#rt::__private),
    })
}

/// Runs `emit` (one graph function's expansion) with `private` naming `__private` through
/// the alias `__tg_p_NAME`, and returns the `use` that binds it with what `emit` returned.
/// The `use` goes beside the function's items, in the same module or block, so every path
/// in them (bodies, signatures, impls; the expansion has no `mod` of its own) sees it.
pub(crate) fn with_private_alias<R>(
    rt: &TokenStream,
    graph: &proc_macro2::Ident,
    emit: impl FnOnce() -> R,
) -> (TokenStream, R) {
    let alias = format_ident!("{}{}", PRIVATE_ALIAS, graph);
    let before = PRIVATE.with(|cell| cell.replace(Some(alias.clone())));
    let out = emit();
    PRIVATE.with(|cell| *cell.borrow_mut() = before);
    // `unused_imports`: a graph with errors, or whose code names nothing in `__private`.
    let binding = quote! {
        #[allow(unused_imports)]
        use #rt::__private as #alias;
    };
    (binding, out)
}

/// `LANE_OPS` as a path.
pub(super) fn lane_ops() -> TokenStream {
    let path = format_ident!("{}", LANE_OPS);
    quote!(#path)
}

/// A size as an expression: a literal, or the product of its coefficient and the bound
/// `__tg_dim_*` locals.
pub(super) fn size_expr(size: &Size) -> TokenStream {
    if let Some(n) = size.as_static() {
        let n = Literal::usize_unsuffixed(n);
        return quote!(#n);
    }
    let names = size.names.iter().map(|n| dim_ident(n));
    if size.coeff == 1 {
        quote!((1usize #(* #names)*))
    } else {
        let c = Literal::usize_unsuffixed(size.coeff);
        quote!((#c #(* #names)*))
    }
}

/// `start + Σ factor × term` for the terms of `offset`, in `usize` arithmetic that wraps:
/// the terms of a flipped axis are negative, the whole is an in-bounds index (lowering
/// builds only such offsets; the slice indexing that uses it checks the bound).
pub(super) fn offset_expr(
    start: TokenStream,
    offset: &Offset,
    factor: Option<&TokenStream>,
) -> TokenStream {
    let mut out = start;
    for (c, names) in &offset.terms {
        let term = size_expr(&Size {
            coeff: c.unsigned_abs() as usize,
            names: names.clone(),
        });
        let term = match factor {
            Some(f) => quote!(usize::wrapping_mul(#f, #term)),
            None => term,
        };
        out = if *c > 0 {
            quote!(usize::wrapping_add(#out, #term))
        } else {
            quote!(usize::wrapping_sub(#out, #term))
        };
    }
    out
}

/// The storage type of a dtype, e.g. `f32` or `$crate::__private::f16`.
pub(super) fn storage_type(rt: &TokenStream, dtype: DType) -> TokenStream {
    match dtype {
        DType::F16 => quote!(#rt::__private::f16),
        DType::BF16 => quote!(#rt::__private::bf16),
        other => {
            let ident = format_ident!("{}", other.name());
            quote!(#ident)
        }
    }
}

/// `expr?` for a `Result<_, ShapeError>` in a function that returns one, written as a
/// `match`: `?` makes the user's crate compile `Try::branch` for every value type and
/// `FromResidual` for every return type (one per output tensor type and per wrapper: 51 +
/// 57 functions in set 2's debug build; issue 17), the `match` nothing.
pub(super) fn try_result(expr: TokenStream) -> TokenStream {
    quote! {
        match #expr {
            ::core::result::Result::Ok(__tg_ok) => __tg_ok,
            ::core::result::Result::Err(__tg_err) => return ::core::result::Result::Err(__tg_err),
        }
    }
}

pub(super) fn compute_type(rt: &TokenStream, dtype: DType) -> TokenStream {
    storage_type(rt, dtype.compute())
}

/// The runtime's lane counts (`tensor_core::lanes::LANES`: 16 on AVX-512 builds, 8
/// elsewhere). The macro runs on the host and cannot know which one the kernel's build
/// has, so loops whose trip count is literal drop a dead main loop or tail only where
/// that holds for both (`emit_nest`); every kernel asserts at compile time that the
/// runtime's count is one of them.
pub(super) const MIN_LANES: usize = 8;

pub(super) const MAX_LANES: usize = 16;

pub(super) fn value_ident(id: usize) -> proc_macro2::Ident {
    format_ident!("__tg_v{}", id)
}

pub(super) fn input_slice(param: usize) -> proc_macro2::Ident {
    format_ident!("__tg_in{}", param)
}

pub(super) fn output_slice(index: usize) -> proc_macro2::Ident {
    format_ident!("__tg_out_slice{}", index)
}

pub(super) fn temp_vec(index: usize) -> proc_macro2::Ident {
    format_ident!("__tg_temp{}", index)
}

pub(super) fn temp_slice(index: usize) -> proc_macro2::Ident {
    format_ident!("__tg_temp_slice{}", index)
}

pub(super) fn offset_ident(k: usize) -> proc_macro2::Ident {
    format_ident!("__tg_off{}", k)
}

/// The slice variable a buffer is read and written through inside nests.
pub(super) fn slice_ident(buffer: &BufferRef) -> proc_macro2::Ident {
    match buffer {
        BufferRef::Input(i) => input_slice(*i),
        BufferRef::Output(o) => output_slice(*o),
        BufferRef::Temp(t) => temp_slice(*t),
        BufferRef::Index => unreachable!("the index operand is no buffer"),
    }
}

/// A parameter or a temp read whole, as a slice expression: what a runtime call (a GEMM
/// operand, attention, max_pool) reads. `what` names the caller in the message of the
/// `unreachable!` the lowering rules out (outputs and the index operand are never read so).
pub(super) fn whole_buffer(buffer: &BufferRef, what: &str) -> TokenStream {
    match buffer {
        BufferRef::Input(i) => {
            let s = input_slice(*i);
            quote!(#s)
        }
        BufferRef::Temp(t) => {
            let v = temp_vec(*t);
            quote!(&#v[..])
        }
        _ => unreachable!("{what} reads a parameter or a temp"),
    }
}

/// A signed stride as an `isize` expression.
pub(super) fn stride_expr(stride: &Offset) -> TokenStream {
    let mut out = quote!(0isize);
    for (c, names) in &stride.terms {
        let term = size_expr(&Size {
            coeff: c.unsigned_abs() as usize,
            names: names.clone(),
        });
        out = if *c > 0 {
            quote!(#out + (#term as isize))
        } else {
            quote!(#out - (#term as isize))
        };
    }
    out
}

/// The start value `init` of a temp of `dtype`.
pub(super) fn init_value(rt: &TokenStream, dtype: DType, init: TempInit) -> TokenStream {
    let p = private(rt);
    let t = storage_type(rt, dtype);
    match init {
        TempInit::Zero => quote!(<#t as #p::Identity>::ZERO),
        TempInit::One => quote!(<#t as #p::Identity>::ONE),
        TempInit::Lowest => quote!(<#t as #p::Identity>::LOWEST),
        TempInit::Highest => quote!(<#t as #p::Identity>::HIGHEST),
        TempInit::NoIndex => quote!(-1i64),
    }
}

/// The element type an operand's buffer stores.
pub(super) fn operand_storage(cx: &Emitter<'_>, buffer: &BufferRef) -> TokenStream {
    let Emitter {
        rt,
        graph,
        f,
        kernel,
    } = *cx;
    match buffer {
        BufferRef::Input(p) => storage_type(rt, f.params[*p].ty.dtype),
        BufferRef::Output(o) => storage_type(rt, graph.nodes[graph.outputs[*o]].dtype),
        BufferRef::Temp(t) => storage_type(rt, kernel.temps[*t].dtype),
        BufferRef::Index => quote!(i64),
    }
}

/// The local a dim name is bound to at call entry (`__tg_dim_B`); for a dim expression
/// (`@N + M`), the local call entry computes it into (`__tg_dx_` and a hash of its text);
/// for the kernel's own derived sizes (`#blocks0`), computed before the stages
/// (`__tg_blocks0`).
pub(super) fn dim_ident(name: &str) -> proc_macro2::Ident {
    if let Some(expression) = name.strip_prefix('@') {
        return format_ident!("__tg_dx_{:016x}", fnv1a(expression));
    }
    match name.strip_prefix('#') {
        Some(internal) => format_ident!("__tg_{}", internal),
        None => format_ident!("__tg_dim_{}", name),
    }
}

/// FNV-1a over the text: a local's name for a dim expression (`ir::expression_key`) that
/// is the same in every expansion (std's hasher is seeded per process).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
