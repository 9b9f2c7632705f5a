//! Graphs that update parameters in place: `fn step(mut w: f32[64, 10], g: f32[64, 10], lr:
//! f32) { w = w - lr * g; }`.
//!
//! Rules:
//! - A `mut` parameter is read as its value at the call, and each `w = …;` rebinds the name
//!   (later statements read the new value, as `let` shadowing); the value bound last is
//!   written back into the caller's tensor, whole, after the graph has computed every
//!   update. So `w = flip(w)` or `w = w - mean(w)` mean what they say, whatever the kernels
//!   fuse.
//! - How: the graph is compiled as a hidden graph `__tg_NAME_update` whose outputs are the
//!   final values of the `mut` parameters (every phase as for any graph), and `NAME` is a
//!   wrapper taking each `mut` parameter as `&mut Tensor<T, Shape![…]>` (names are `_`):
//!   it lends the tensor to the hidden graph as an input, has the hidden graph's `_into`
//!   write the new values into buffers from the thread's scratch pool, then copies them
//!   into the tensors. Nothing is allocated after the first call on a thread (the scratch
//!   pool); the price is one copy of each updated parameter, where a kernel writing into
//!   the parameter as it reads it would save it only for updates that read each element at
//!   its own index and nothing else (a later refinement: it needs the aliasing checked).
//! - The other parameters are taken as the hidden graph takes them (every form a graph
//!   accepts), and the wrapper returns `Result<(), ShapeError>` when the hidden graph does
//!   (names, or index parameters), else `()`. A graph with `mut` parameters returns no other
//!   outputs yet.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::ast::{GraphFn, Outputs, Param, ReturnType};
use crate::ir::TypedGraph;

use super::names::storage_type;
use super::signature::{fn_ident, is_symbolic, param_type, shape_type, tensor_type};

/// The hidden graph and the wrapper of an in-place graph `f` (one with `mut` parameters,
/// parsed without syntax errors).
pub fn expand_in_place(
    rt: &TokenStream,
    f: &GraphFn,
    expand: impl Fn(&GraphFn) -> (TokenStream, Option<TypedGraph>),
) -> TokenStream {
    let p = super::names::private(rt);
    let mut errors = TokenStream::new();
    if let Some(ReturnType::Single(_)) | None = &f.ret {
        errors.extend(no_outputs_error(f));
    } else if let Some(ReturnType::Tuple(list)) = &f.ret {
        if !list.is_empty() {
            errors.extend(no_outputs_error(f));
        }
    }
    let updated: Vec<&Param> = f.params.iter().filter(|p| p.mutable).collect();
    let hidden = hidden_graph(f, &updated);
    let (hidden_code, checked) = expand(&hidden);

    // Whether the hidden graph's functions return `Result`: names, or index parameters
    // (checked at call entry).
    let symbolic = is_symbolic(&hidden);
    let reads_indices = checked.is_some_and(|g| !g.index_checks.is_empty());
    let fallible = symbolic || reads_indices;

    let into = format_ident!("{}_into", fn_ident(&hidden));
    let params = f.params.iter().enumerate().map(|(i, q)| {
        let name = &q.name;
        if q.mutable {
            let t = tensor_type(rt, q.ty.dtype, q.ty.dims.as_deref().unwrap_or(&[]));
            quote!(#name: &mut #t)
        } else {
            let ty = param_type(rt, &hidden, i, symbolic);
            quote!(#name: #ty)
        }
    });
    let args = f.params.iter().map(|q| {
        let name = &q.name;
        if q.mutable {
            quote!(&*#name)
        } else {
            quote!(#name)
        }
    });
    let scratch: Vec<_> = (0..updated.len())
        .map(|k| format_ident!("__tg_new{}", k))
        .collect();
    let views: Vec<_> = (0..updated.len())
        .map(|k| format_ident!("__tg_view{}", k))
        .collect();
    let take = updated.iter().zip(&scratch).map(|(q, s)| {
        let name = &q.name;
        let t = storage_type(rt, q.ty.dtype);
        quote!(let mut #s = #p::ScratchVec::<#t>::stale(#name.as_slice().len(), ::core::default::Default::default());)
    });
    let lend = updated.iter().zip(&scratch).zip(&views).map(|((q, s), v)| {
        let name = &q.name;
        let t = storage_type(rt, q.ty.dtype);
        let sh = shape_type(rt, q.ty.dims.as_deref().unwrap_or(&[]));
        // The scratch buffer has the tensor's length, so the view always fits its dims.
        quote! {
            let mut #v = match #p::TensorViewMut::<#t, #sh>::with_dims(#name.dims(), &mut #s[..]) {
                ::core::result::Result::Ok(view) => view,
                ::core::result::Result::Err(_) => ::core::unreachable!("a scratch buffer of the parameter's length"),
            };
        }
    });
    let copy_back = updated.iter().zip(&scratch).map(|(q, s)| {
        let name = &q.name;
        quote!(#name.as_mut_slice().copy_from_slice(&#s[..]);)
    });
    let call = quote!(#into(#(#args,)* #(&mut #views),*));
    let (ret_ty, call, ok) = if fallible {
        (
            quote!(-> ::core::result::Result<(), #rt::ShapeError>),
            quote!(#call?;),
            quote!(::core::result::Result::Ok(())),
        )
    } else {
        (quote!(), quote!(#call;), quote!())
    };
    let attrs = &f.attrs;
    let vis = &f.vis;
    let name = &f.name;
    let updated_text: Vec<String> = updated.iter().map(|q| format!("`{}`", q.name)).collect();
    let doc = format!(
        " Updates {} in place (each `mut` parameter is taken as `&mut Tensor`); allocates nothing after its first call on a thread.",
        updated_text.join(", ")
    );
    quote! {
        #errors
        #hidden_code
        #(#attrs)*
        #[doc = ""]
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        #vis fn #name(#(#params),*) #ret_ty {
            #(#take)*
            {
                #(#lend)*
                #call
            }
            #(#copy_back)*
            #ok
        }
    }
}

/// The hidden graph of in-place graph `f`: its parameters read-only, its `let`s, and as
/// outputs the final values of the `updated` (`mut`) parameters; named
/// `__tg_NAME_update`, with `f`'s `cfg` attributes and `#[doc(hidden)]`.
fn hidden_graph(f: &GraphFn, updated: &[&Param]) -> GraphFn {
    let hidden_name = format_ident!("__tg_{}_update", f.name);
    let vis: syn::Visibility =
        syn::parse2(f.vis.to_token_stream()).expect("a visibility re-parses");
    let cfg_attrs: Vec<syn::Attribute> = f
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .map(|a| syn::parse_quote!(#a))
        .collect();
    let mut hidden_attrs = cfg_attrs;
    hidden_attrs.push(syn::parse_quote!(#[doc(hidden)]));
    let types: Vec<_> = updated.iter().map(|p| p.ty.clone()).collect();
    let names: Vec<crate::ast::Expr> = updated
        .iter()
        .map(|p| crate::ast::Expr::Var(p.name.clone()))
        .collect();
    let (ret, outputs) = if types.len() == 1 {
        (
            ReturnType::Single(types[0].clone()),
            Outputs::Single(names[0].clone()),
        )
    } else {
        (
            ReturnType::Tuple(types),
            Outputs::Tuple(names, f.name.span()),
        )
    };
    GraphFn {
        attrs: hidden_attrs,
        allowed_warnings: f.allowed_warnings.clone(),
        attr_errors: f.attr_errors.clone(),
        vis,
        name: hidden_name,
        params: f.params.iter().map(Param::read_only).collect(),
        ret: Some(ret),
        lets: f.lets.clone(),
        outputs,
        syntax_errors: Vec::new(),
    }
}

fn no_outputs_error(f: &GraphFn) -> TokenStream {
    let span = match &f.ret {
        Some(ReturnType::Single(t)) => t.span,
        Some(ReturnType::Tuple(list)) => list.first().map_or(f.name.span(), |t| t.span),
        None => f.name.span(),
    };
    syn::Error::new(
        span,
        format!(
            "`{}` updates `mut` parameters in place and returns nothing else yet: drop `-> …` and the output expression\nhelp: compute other outputs (a loss, a norm) in a graph of their own",
            f.name
        ),
    )
    .to_compile_error()
}
