//! The `graph!` compiler. One module per phase:
//! `ast` (parse) → `check` (types, shapes, errors) → `lower` (loop IR) → `emit` (tokens).
//! `dtype`, `shape` and `ops` hold the rules the checker applies.

mod ast;
mod check;
mod dtype;
mod emit;
mod ir;
mod lower;
mod ops;
mod shape;

use proc_macro2::TokenStream;
use quote::quote;

use ast::{GraphBody, GraphFn, GraphInput};
use check::{check_graph, unused_params, Errors};

/// The implementation behind `tensorgraph::graph!`, which passes its `$crate` first:
/// `graph_impl!($crate; …)`. Use `graph!`, not this.
#[doc(hidden)]
#[proc_macro]
pub fn graph_impl(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand(input.into()).into()
}

/// The implementation behind `tensorgraph::Shape!`: `shape_impl!($crate; 4, 8)` is the
/// shape type of `[4, 8]`. Dims are integer literals.
#[doc(hidden)]
#[proc_macro]
pub fn shape_impl(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand_shape(input.into()).into()
}

fn expand_shape(input: TokenStream) -> TokenStream {
    use syn::parse::Parser;
    let parser = |stream: syn::parse::ParseStream| -> syn::Result<(TokenStream, Vec<usize>, proc_macro2::Span)> {
        let mut runtime = TokenStream::new();
        while !stream.peek(syn::Token![;]) {
            let tt: proc_macro2::TokenTree = stream.parse()?;
            runtime.extend(Some(tt));
        }
        stream.parse::<syn::Token![;]>()?;
        let span = stream.span();
        let dims = syn::punctuated::Punctuated::<syn::LitInt, syn::Token![,]>::parse_terminated(stream)?;
        let dims = dims
            .iter()
            .map(|d| d.base10_parse::<usize>())
            .collect::<syn::Result<Vec<usize>>>()?;
        Ok((runtime, dims, span))
    };
    match parser.parse2(input) {
        Ok((rt, dims, span)) if dims.len() > 6 => {
            let _ = rt;
            syn::Error::new(span, "`Shape!` takes at most 6 dims").to_compile_error()
        }
        Ok((rt, dims, _)) => emit::shape_type(&rt, &dims),
        Err(e) => e.to_compile_error(),
    }
}

/// Parses, checks, lowers and emits. Returns code or `compile_error!`s; never panics on
/// user input.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let parsed: GraphInput = match syn::parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let rt = &parsed.runtime;
    match &parsed.body {
        GraphBody::Items(items) => items.iter().map(|f| expand_fn(rt, f)).collect(),
        GraphBody::Closure(f) => {
            let item = expand_fn(rt, f);
            let name = &f.name;
            quote! {{
                #item
                #name
            }}
        }
    }
}

fn expand_fn(rt: &TokenStream, f: &GraphFn) -> TokenStream {
    let mut errors = Errors::default();
    let graph = check_graph(f, &mut errors);
    let kernel = graph.as_ref().map(lower::lower_graph);
    let code = emit::emit_graph_fn(rt, f, graph.as_ref(), kernel.as_ref());
    let warnings = unused_params(f).into_iter().map(|ident| unused_warning(ident));
    let errors = errors.combined().map(|e| e.to_compile_error());
    quote! {
        #errors
        #(#warnings)*
        #code
    }
}

/// A real, `#[allow]`-able warning: a deprecated marker constant used at the parameter's
/// span. (Stable proc macros cannot emit warnings directly.)
fn unused_warning(ident: &syn::Ident) -> TokenStream {
    let marker = quote::format_ident!("__tg_unused_{}", ident);
    let note = format!("graph parameter `{ident}` is never used");
    quote::quote_spanned! {ident.span()=>
        #[allow(non_upper_case_globals)]
        const _: () = {
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const #marker: () = ();
            #marker
        };
    }
}
