//! Loop IR → Rust tokens. Never reports user errors: everything it sees has been checked.
//! Every path into the runtime goes through `runtime` (the `$crate` of the `graph!`
//! wrapper), so expansions compile whatever the user named the dependency. Generated
//! locals are `__tg_`-prefixed.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::ast::{GraphFn, Param, ParamType, ReturnType};
use crate::dtype::DType;
use crate::ir::{Buffer, ConstValue, Kernel, Level, LoopNest, NodeId, NodeKind, TypedGraph};

/// The storage type of a dtype, e.g. `f32` or `$crate::__private::f16`.
pub fn storage_type(rt: &TokenStream, dtype: DType) -> TokenStream {
    match dtype {
        DType::F16 => quote!(#rt::__private::f16),
        DType::BF16 => quote!(#rt::__private::bf16),
        other => {
            let ident = format_ident!("{}", other.name());
            quote!(#ident)
        }
    }
}

fn compute_type(rt: &TokenStream, dtype: DType) -> TokenStream {
    storage_type(rt, dtype.compute())
}

/// The typenum unsigned integer `n`, spelled out in binary (`UInt<UInt<UTerm, B1>, B0>`
/// is 2): typenum's `U<N>` alias only covers a fixed set of values, dims can be anything.
pub fn typenum_type(rt: &TokenStream, n: usize) -> TokenStream {
    if n == 0 {
        return quote!(#rt::__private::UTerm);
    }
    let high = typenum_type(rt, n >> 1);
    let bit = if n & 1 == 1 { quote!(#rt::__private::B1) } else { quote!(#rt::__private::B0) };
    quote!(#rt::__private::UInt<#high, #bit>)
}

/// `Rank2<U4, U8>` for `[4, 8]`.
pub fn shape_type(rt: &TokenStream, dims: &[usize]) -> TokenStream {
    if dims.is_empty() {
        return quote!(#rt::__private::Rank0);
    }
    let rank = format_ident!("Rank{}", dims.len());
    let dims = dims.iter().map(|&d| typenum_type(rt, d));
    quote!(#rt::__private::#rank<#(#dims),*>)
}

fn tensor_type(rt: &TokenStream, dtype: DType, dims: &[usize]) -> TokenStream {
    let t = storage_type(rt, dtype);
    let s = shape_type(rt, dims);
    quote!(#rt::__private::Tensor<#t, #s>)
}

/// The hidden per-parameter trait a tensor parameter is bounded by: `__tg_f_x`.
fn param_trait_ident(f: &GraphFn, param: &Param) -> proc_macro2::Ident {
    format_ident!("__tg_{}_{}", f.name, param.name)
}

/// A parameter whose name an earlier one already has (reported by `check`). It is
/// renamed in the emitted signature, so rustc adds no follow-on errors.
fn is_duplicate(f: &GraphFn, index: usize) -> bool {
    f.params[..index].iter().any(|p| p.name == f.params[index].name)
}

fn param_ident(f: &GraphFn, index: usize) -> proc_macro2::Ident {
    let param = &f.params[index];
    if is_duplicate(f, index) {
        format_ident!("__tg_duplicate{}", index, span = param.name.span())
    } else {
        param.name.clone()
    }
}

/// How messages name the function a parameter belongs to.
fn fn_description(f: &GraphFn) -> String {
    if f.ret.is_none() && f.name == "__tg_graph" {
        "this graph closure".to_string()
    } else {
        format!("`{}`", f.name)
    }
}

/// One hidden trait per tensor parameter, implemented by everything that is a
/// `TensorRef` of the declared dtype and shape. The parameter is `&impl` that trait, so a
/// caller passing another dtype or shape reads the parameter's name and its declared type
/// in the graph's notation (`f32[4, 8]`), never the typenum spelling of the shape. The
/// traits sit beside the function, so they resolve in the item and the closure form alike.
fn emit_param_traits(rt: &TokenStream, f: &GraphFn) -> TokenStream {
    let vis = &f.vis;
    f.params
        .iter()
        .enumerate()
        .filter(|(i, p)| !p.recovered && !is_duplicate(f, *i))
        .map(|(_, p)| p)
        .filter_map(|param| {
            let dims = param.ty.dims.as_ref()?;
            let ident = param_trait_ident(f, param);
            let t = storage_type(rt, param.ty.dtype);
            let s = shape_type(rt, dims);
            let declared = crate::check::type_text(param.ty.dtype, dims);
            let message = format!("parameter `{}` of {} takes a tensor `{declared}`", param.name, fn_description(f));
            let label = format!("expected a tensor `{declared}` here");
            let note = format!(
                "`{declared}` is passed as `&Tensor<{}, Shape![{}]>` or a `TensorView` of that dtype and shape",
                param.ty.dtype.name(),
                dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
            );
            Some(quote! {
                #[doc(hidden)]
                #[allow(non_camel_case_types)]
                #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
                #vis trait #ident {
                    fn __tg_slice(&self) -> &[#t];
                }
                #[diagnostic::do_not_recommend]
                impl<__TgX: ?::core::marker::Sized + #rt::__private::TensorRef<#t, #s>> #ident for __TgX {
                    #[inline(always)]
                    fn __tg_slice(&self) -> &[#t] {
                        <__TgX as #rt::__private::TensorRef<#t, #s>>::as_slice(self)
                    }
                }
            })
        })
        .collect()
}

/// A parameter as the generated signature takes it. A parameter that failed to parse
/// takes anything, so calls elsewhere in the crate raise no follow-on errors.
fn param_type(rt: &TokenStream, f: &GraphFn, index: usize) -> TokenStream {
    let param = &f.params[index];
    if param.recovered || is_duplicate(f, index) {
        return quote_spanned!(param.ty.span=> impl ::core::marker::Sized);
    }
    let ty = &param.ty;
    let t = storage_type(rt, ty.dtype);
    match &ty.dims {
        None => t,
        Some(_) => {
            let ident = param_trait_ident(f, param);
            quote_spanned!(ty.span=> &impl #ident)
        }
    }
}

/// Declared output types, or the inferred ones in the closure form.
fn output_types(f: &GraphFn, graph: Option<&TypedGraph>) -> Option<Vec<(DType, Vec<usize>)>> {
    if let Some(ret) = &f.ret {
        let list: Vec<&ParamType> = match ret {
            ReturnType::Single(t) => vec![t],
            ReturnType::Tuple(l) => l.iter().collect(),
        };
        return Some(list.iter().map(|t| (t.dtype, t.dims.clone().unwrap_or_default())).collect());
    }
    let graph = graph?;
    Some(graph.outputs.iter().map(|&n| (graph.nodes[n].dtype, graph.nodes[n].dims.clone())).collect())
}

/// The function pair `name` / `name_into` (with `kernel`), or, when checking failed,
/// their signatures with an unreachable body so the rest of the crate still type-checks.
/// `warnings` are statements placed first in the body of `name`, where the lint level of
/// the graph's attributes applies to them.
pub fn emit_graph_fn(
    rt: &TokenStream,
    f: &GraphFn,
    graph: Option<&TypedGraph>,
    kernel: Option<&Kernel>,
    warnings: &TokenStream,
) -> TokenStream {
    let attrs = &f.attrs;
    let vis = &f.vis;
    let name = &f.name;
    let into_name = format_ident!("{}_into", f.name);
    let param_names: Vec<_> = (0..f.params.len()).map(|i| param_ident(f, i)).collect();
    let param_types: Vec<_> = (0..f.params.len()).map(|i| param_type(rt, f, i)).collect();
    let param_traits = emit_param_traits(rt, f);

    let outputs = match output_types(f, graph) {
        Some(o) => o,
        None => {
            // Errors and no declared output type: nothing to name the output by.
            return quote! {
                #param_traits
                #(#attrs)*
                #[allow(unused_variables, unreachable_code, clippy::too_many_arguments)]
                #vis fn #name(#(#param_names: #param_types),*) -> ! {
                    #warnings
                    ::core::panic!()
                }
            };
        }
    };
    let out_names: Vec<_> = (0..outputs.len()).map(|i| format_ident!("__tg_out{}", i)).collect();
    let out_tensor_types: Vec<_> = outputs.iter().map(|(d, dims)| tensor_type(rt, *d, dims)).collect();
    let out_mut_types: Vec<_> = outputs
        .iter()
        .map(|(d, dims)| {
            let t = storage_type(rt, *d);
            let s = shape_type(rt, dims);
            quote!(&mut impl #rt::__private::TensorMut<#t, #s>)
        })
        .collect();
    let ret_type = if outputs.len() == 1 {
        out_tensor_types[0].clone()
    } else {
        quote!((#(#out_tensor_types),*))
    };
    let ret_value = if outputs.len() == 1 {
        let o = &out_names[0];
        quote!(#o)
    } else {
        quote!((#(#out_names),*))
    };

    let into_body = match (graph, kernel) {
        (Some(graph), Some(kernel)) => emit_kernel(rt, f, graph, kernel, &out_names),
        _ => quote!(::core::panic!()),
    };
    let into_doc = format!(" Writes the outputs of [`{name}`] into caller-provided tensors; allocates nothing.");
    quote! {
        #param_traits

        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #name(#(#param_names: #param_types),*) -> #ret_type {
            #warnings
            #(let mut #out_names = <#out_tensor_types>::zeros();)*
            #into_name(#(#param_names,)* #(&mut #out_names),*);
            #ret_value
        }

        #[doc = #into_doc]
        #[allow(clippy::too_many_arguments, unused_variables, unused_mut, unreachable_code)]
        #vis fn #into_name(#(#param_names: #param_types,)* #(#out_names: #out_mut_types),*) {
            #into_body
        }
    }
}

fn node_ident(id: NodeId) -> proc_macro2::Ident {
    format_ident!("__tg_n{}", id)
}

fn buffer_ident(buffer: &Buffer) -> proc_macro2::Ident {
    match buffer {
        Buffer::Input(p) => format_ident!("__tg_in{}", p),
        Buffer::Output(o) => format_ident!("__tg_slice{}", o),
    }
}

fn offset_ident(k: usize) -> proc_macro2::Ident {
    format_ident!("__tg_off{}", k)
}

fn emit_kernel(rt: &TokenStream, f: &GraphFn, graph: &TypedGraph, kernel: &Kernel, out_names: &[proc_macro2::Ident]) -> TokenStream {
    let p = quote!(#rt::__private);
    // Slices of every tensor parameter and output, checked to the static length by the
    // `TensorRef`/`TensorMut` contract.
    let mut setup = TokenStream::new();
    for (index, param) in f.params.iter().enumerate() {
        if param.ty.dims.is_some() {
            let name = &param.name;
            let t = storage_type(rt, param.ty.dtype);
            let tr = param_trait_ident(f, param);
            let slice = buffer_ident(&Buffer::Input(index));
            setup.extend(quote! {
                let #slice: &[#t] = <_ as #tr>::__tg_slice(#name);
            });
        }
    }
    for (index, out) in out_names.iter().enumerate() {
        let node = &graph.nodes[graph.outputs[index]];
        let t = storage_type(rt, node.dtype);
        let s = shape_type(rt, &node.dims);
        let slice = buffer_ident(&Buffer::Output(index));
        setup.extend(quote! {
            let #slice: &mut [#t] = <_ as #p::TensorMut<#t, #s>>::as_mut_slice(#out);
        });
    }
    let nests = kernel.nests.iter().map(|nest| emit_nest(rt, f, graph, nest));
    quote! {
        #setup
        #({ #nests })*
    }
}

fn emit_nest(rt: &TokenStream, f: &GraphFn, graph: &TypedGraph, nest: &LoopNest) -> TokenStream {
    let p = quote!(#rt::__private);
    let computations = |level: Level| -> TokenStream {
        nest.schedule
            .iter()
            .filter(|(_, l)| *l == level)
            .map(|&(id, _)| emit_node(rt, f, graph, nest, id, level))
            .collect()
    };
    let global = computations(Level::Global);
    let row = computations(Level::Row);
    let inner = computations(Level::Inner);

    let stores = nest.stores.iter().map(|&(index, node)| {
        let k = nest.operands.iter().position(|o| o.buffer == Buffer::Output(index)).expect("output operand");
        let slice = buffer_ident(&Buffer::Output(index));
        let off = offset_ident(k);
        let t = storage_type(rt, graph.nodes[node].dtype);
        let v = node_ident(node);
        quote!(#p::store::<#t>(#slice, #off + __tg_j, __tg_n, #v);)
    }).collect::<Vec<TokenStream>>();

    let loop_vars: Vec<_> = (0..nest.outer.len()).map(|i| format_ident!("__tg_i{}", i)).collect();
    let offsets = nest.operands.iter().enumerate().map(|(k, op)| {
        let off = offset_ident(k);
        let terms = op
            .outer_strides
            .iter()
            .zip(&loop_vars)
            .filter(|(&s, _)| s != 0)
            .map(|(&s, i)| {
                let s = Literal::usize_unsuffixed(s);
                quote!(#i * #s)
            });
        quote!(let #off: usize = 0 #(+ #terms)*;)
    });
    let inner_extent = Literal::usize_unsuffixed(nest.inner);
    let mut body = quote! {
        #(#offsets)*
        #row
        // The chunk body appears twice: in the main loop `__tg_n` is the constant LANES,
        // so loads and stores compile to plain vector moves; the tail runs it once with
        // the remainder. (A closure called from two sites is not reliably inlined.)
        let mut __tg_j: usize = 0;
        while __tg_j + #p::LANES <= #inner_extent {
            let __tg_n: usize = #p::LANES;
            #inner
            #(#stores)*
            __tg_j += #p::LANES;
        }
        if __tg_j < #inner_extent {
            let __tg_n: usize = #inner_extent - __tg_j;
            #inner
            #(#stores)*
        }
    };
    for (var, &extent) in loop_vars.iter().zip(&nest.outer).rev() {
        let extent = Literal::usize_unsuffixed(extent);
        body = quote! {
            for #var in 0..#extent {
                #body
            }
        };
    }
    quote! {
        #global
        #body
    }
}

fn emit_const(rt: &TokenStream, dtype: DType, value: &ConstValue) -> TokenStream {
    let p = quote!(#rt::__private);
    match (value, dtype) {
        (ConstValue::Bool(b), _) => quote!(#b),
        (ConstValue::Int(v), d) => {
            let t = storage_type(rt, d);
            let lit = Literal::i128_unsuffixed(v.unsigned_abs() as i128);
            if *v < 0 {
                quote!((-(#lit as i128) as #t))
            } else {
                quote!((#lit as #t))
            }
        }
        (ConstValue::Float(v, text), d) => {
            // Parse the literal's own digits into the dtype once; folded values only exist
            // as f64 and round once from there.
            let (negative, digits) = match text {
                Some(t) => match t.strip_prefix('-') {
                    Some(rest) => (true, rest.to_string()),
                    None => (false, t.clone()),
                },
                None => (v.is_sign_negative(), format!("{:?}", v.abs())),
            };
            let sign = if negative { quote!(-) } else { quote!() };
            match d {
                DType::F32 => {
                    let lit: TokenStream = format!("{digits}f32").parse().expect("float literal");
                    quote!((#sign #lit))
                }
                DType::F64 => {
                    let lit: TokenStream = format!("{digits}f64").parse().expect("float literal");
                    quote!((#sign #lit))
                }
                DType::F16 | DType::BF16 => {
                    let t = storage_type(rt, d);
                    let lit: TokenStream = format!("{digits}f64").parse().expect("float literal");
                    quote!(<#t as #p::Element>::to_compute(<#t>::from_f64(#sign #lit)))
                }
                _ => unreachable!("float constants have a float dtype"),
            }
        }
    }
}

fn emit_node(rt: &TokenStream, f: &GraphFn, graph: &TypedGraph, nest: &LoopNest, id: NodeId, level: Level) -> TokenStream {
    let p = quote!(#rt::__private);
    let node = &graph.nodes[id];
    let out = node_ident(id);
    let c = compute_type(rt, node.dtype);
    let value = match &node.kind {
        NodeKind::Input { param } => {
            let k = nest.operands.iter().position(|o| o.buffer == Buffer::Input(*param)).expect("input operand");
            let slice = buffer_ident(&Buffer::Input(*param));
            let t = storage_type(rt, node.dtype);
            let off = offset_ident(k);
            match level {
                Level::Inner => quote!(#p::load::<#t>(#slice, #off + __tg_j, __tg_n)),
                Level::Row => quote!(#p::V::<#c>::splat(<#t as #p::Element>::to_compute(#slice[#off]))),
                Level::Global => quote!(#p::V::<#c>::splat(<#t as #p::Element>::to_compute(#slice[0]))),
            }
        }
        NodeKind::Scalar { param } => {
            let name = &f.params[*param].name;
            let t = storage_type(rt, node.dtype);
            quote!(#p::V::<#c>::splat(<#t as #p::Element>::to_compute(#name)))
        }
        NodeKind::Const(value) => {
            let v = emit_const(rt, node.dtype, value);
            quote!(#p::V::<#c>::splat(#v))
        }
        NodeKind::Op { op, args } => {
            let input_dtype = graph.nodes[args[0]].dtype;
            let ic = compute_type(rt, input_dtype);
            let tr = format_ident!("{}", op.lane_trait);
            let method = format_ident!("{}", op.lane_fn);
            let args = args.iter().map(|&a| node_ident(a));
            quote!(<#ic as #p::#tr>::#method(#(#args),*))
        }
        NodeKind::Select { cond, a, b } => {
            let (cond, a, b) = (node_ident(*cond), node_ident(*a), node_ident(*b));
            quote!(<#c as #p::SelectLanes>::select_lanes(#cond, #a, #b))
        }
        NodeKind::Cast { input } => {
            let from = storage_type(rt, graph.nodes[*input].dtype);
            let to = storage_type(rt, node.dtype);
            let v = node_ident(*input);
            quote!(#p::cast::<#from, #to>(#v))
        }
    };
    let _ = Span::call_site();
    quote!(let #out: #p::V<#c> = #value;)
}
