//! A checked graph's kernel: call entry's size checks, the temps, then the stages in order.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::context::Emitter;
use super::debug::debug_program;
use super::names::{
    dim_ident, init_value, size_expr, storage_type, temp_vec, try_result, MAX_LANES, MIN_LANES,
};
use super::stages::emit_stage;
use crate::ir::Size;

/// What call entry checks before the kernel runs (`sizes::checked_sizes`) and the graph's
/// `GraphSignature` static its errors name (`signature::signature_ident`); the signature
/// layer computes both, so that this file needs nothing from it.
pub(super) struct EntryChecks {
    pub(super) signature: proc_macro2::Ident,
    pub(super) sizes: Vec<Size>,
}

/// The kernel of a checked graph: temps, then its stages in order. The caller has bound
/// the input slices `__tg_in*`, the output slices `__tg_out_slice*` and, for graphs with
/// names, the `__tg_dim_*` sizes.
/// `debug_assertions`: which build the kernel is for, where `graph!` knows it
/// (`RuntimeFeatures::debug_assertions`).
pub(super) fn emit_kernel(
    cx: &Emitter<'_>,
    entry_checks: &EntryChecks,
    debug_assertions: Option<bool>,
) -> TokenStream {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let mut setup = TokenStream::new();
    // Sizes the kernels allocate or compute from several names are at most 2^53 elements
    // (checked before any write: `checked_sizes`).
    let EntryChecks { signature, sizes } = entry_checks;
    if !sizes.is_empty() {
        let entries = sizes.iter().map(|size| {
            let c = Literal::usize_unsuffixed(size.coeff);
            let names = size.names.iter().map(|n| dim_ident(n));
            quote!((#c, &[#(#names),*]))
        });
        let check = try_result(quote!(#p::check_entry_sizes(&#signature, &[#(#entries),*])));
        setup.extend(quote!(#check;));
    }
    // Rows of ragged flat loops: ceil(total / block), written without overflow.
    for (name, total, block) in &kernel.blocks {
        let id = dim_ident(name);
        let total = size_expr(total);
        let block = Literal::usize_unsuffixed(*block);
        setup.extend(quote! {
            let #id: usize = #total / #block + (#total % #block != 0) as usize;
        });
    }
    // Temps hold compute-type values: reduction accumulators start at the combine's
    // identity. They come from the thread's scratch pool (`ScratchVec`): allocated on the
    // first call on a thread, reused after.
    for (index, temp) in kernel.temps.iter().enumerate() {
        if temp.row_local.is_some() {
            continue;
        }
        let t = storage_type(rt, temp.dtype);
        let v = temp_vec(index);
        let len = size_expr(&temp.len);
        let init = init_value(rt, temp.dtype, temp.init);
        // A product's temp is overwritten whole by its GEMM (`matmul`'s contract): taken
        // as the pool left it, not cleared first (9.4 MB of memset for an MLP's weight
        // gradient).
        let product = kernel
            .nests
            .iter()
            .any(|n| n.matmul.as_ref().is_some_and(|step| step.output == index));
        setup.extend(if product {
            quote!(let mut #v = #p::ScratchVec::<#t>::stale(#len, #init);)
        } else {
            quote!(let mut #v = #p::ScratchVec::<#t>::new(#len, #init);)
        });
    }
    let fused = || -> TokenStream { kernel.stages.iter().map(|s| emit_stage(cx, s)).collect() };
    // Debug builds run a covered kernel as a program of tensor-core's block ops
    // (`debug::debug_program`); the setup above (entry checks) is both branches'. Where
    // `graph!` tells which build this is (`debug_assertions`), only that branch is
    // emitted. Else both, picked by a `macro_rules!` defined under the user's crate's
    // `cfg`, which takes each branch as one token tree: the other branch's tokens are
    // dropped before rustc parses them (a `#[cfg]` on a block is applied after the block
    // is parsed).
    let stages = match debug_assertions {
        // A release build: the fused stages in a block, as `cfg` leaves a covered kernel's
        // in the form with both branches; the debug program is not built at all.
        Some(false) => {
            let stages = fused();
            quote!({ #stages })
        }
        Some(true) => match debug_program(cx) {
            Some(program) => quote!({ #program }),
            None => fused(),
        },
        None => match debug_program(cx) {
            Some(program) => {
                let stages = fused();
                quote! {
                    #[cfg(debug_assertions)]
                    macro_rules! __tg_branch { ($debug:tt $fused:tt) => { $debug }; }
                    #[cfg(not(debug_assertions))]
                    macro_rules! __tg_branch { ($debug:tt $fused:tt) => { $fused }; }
                    __tg_branch! { { #program } { #stages } }
                }
            }
            None => fused(),
        },
    };
    let (min, max) = (
        Literal::usize_unsuffixed(MIN_LANES),
        Literal::usize_unsuffixed(MAX_LANES),
    );
    quote! {
        const _: () = ::core::assert!(#p::LANES == #min || #p::LANES == #max, "tensorgraph's macro and runtime disagree on the lane count");
        #setup
        #stages
    }
}
