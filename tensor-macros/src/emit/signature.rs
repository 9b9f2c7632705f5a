//! The generated functions' signatures and call entry: parameter and output types, the
//! `f` / `f_into` pair, and (for graphs with dim names) the binding of every name at
//! call entry, which returns `Err` before any kernel runs.
//!
//! Every tensor parameter and `_into` output has its own argument traits (`scale_takes_x`,
//! `scale_into_output`), whose messages name it, its declared type in the DSL and what was
//! passed (`arg_check_traits`: three checks, each a bound of the impl of the one before, the
//! last printing the passed dtype and dims in the DSL). Inputs are taken by value (a tensor
//! passed without `&` then gets the parameter's message, not rustc's "mismatched types"); so
//! are the outputs of a graph with names, while those of a graph with only literal dims are
//! `&mut` their argument type (a `&mut Tensor` variable is then reborrowed at each call, not
//! moved).
//! - A graph with only literal dims called by name reads its arguments through the
//!   runtime's `StaticInput` / `StaticOutput` (`StaticCheck`); it cannot fail. Its kernel is
//!   a nested non-generic function of the slices (`literal_kernel`).
//! - Its closure form takes `&dyn` its argument traits (a closure cannot be generic), read
//!   through `StaticPointee` (the tensor behind the `&`).
//! - A graph with names reads its arguments through `Lend` / `LendMut` (tensors, views,
//!   slices, ndarray arrays): the checks take a name as any dim and a run-time dim under a
//!   literal as that literal; the runtime's `bind_entry` checks the names and run-time dims
//!   at call entry. Its kernel is a non-generic function beside the pair
//!   (`symbolic_kernel`), which both forms call after binding once.
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::context::Emitter;
use super::kernel::{emit_kernel, EntryChecks};
use super::names::{dim_ident, input_slice, output_slice, size_expr, storage_type};
use super::sizes::checked_sizes;
use crate::ast::{GraphFn, Param, ParamType, ReturnType};
use crate::check::type_text;
use crate::dim_expr::{DimOp, Poly};
use crate::dtype::DType;
use crate::ir::{expression_key, Kernel, Size, TypedGraph};
use crate::shape::Dim;

/// What the runtime of one `graph!` call was built with, as tensorgraph-core's
/// `graph_with_arg_forms!` passes it after the runtime path (`$crate, ndarray, dispatch;`).
#[derive(Clone, Copy, Default)]
pub struct RuntimeFeatures {
    /// tensorgraph-core's `ndarray` feature: ndarray arrays are arguments. Only an ndarray
    /// view lends a row pitch (`ArgParts::pitch`) and only an ndarray array has a static rank
    /// of its own (`NdRank`), so without it a graph with names gets neither its row-pitched
    /// kernel (`symbolic_kernels`) nor the checks that name an array of another rank
    /// (`symbolic_fix_traits`): no argument could reach them, and compiling them was 40% of
    /// the LLVM IR of the compile-time bench's set 2 in a debug build (NOTES.md "Build cost
    /// of the signature layer").
    pub ndarray_args: bool,
    /// Whole-kernel dispatch is on (tensorgraph-core's `dispatch` feature on an x86-64 target
    /// without AVX2): each kernel function goes through the runtime's `dispatch_kernel!`,
    /// which compiles it twice. Otherwise the function is emitted as that macro would expand
    /// it (`kernel_item`), so that rustc does not parse each kernel body a second time as
    /// the macro's `block` fragment.
    pub dispatch_copies: bool,
    /// Which branch of a kernel the user's crate compiles, where `graph!` knows it
    /// (`graph!`'s item form: tensorgraph's `graph!` expands to one `graph_impl!` call under
    /// `#[cfg(debug_assertions)]` with the flag `debug` and one under
    /// `#[cfg(not(debug_assertions))]` with `release`; rustc strips the other before
    /// expanding it). `None` (the closure form, an expression, which no `#[cfg]` can take):
    /// both branches, picked by `cfg` in the expansion (emit/kernel.rs).
    pub debug_assertions: Option<bool>,
}

thread_local! {
    /// The features of the runtime of the expansion under way (`with_runtime_features`).
    static RUNTIME_FEATURES: std::cell::Cell<RuntimeFeatures> =
        const { std::cell::Cell::new(RuntimeFeatures { ndarray_args: false, dispatch_copies: false, debug_assertions: None }) };
}

/// Runs `emit` (one `graph!` call's expansion) with its runtime's features.
pub fn with_runtime_features<R>(features: RuntimeFeatures, emit: impl FnOnce() -> R) -> R {
    let before = RUNTIME_FEATURES.with(|cell| cell.replace(features));
    let out = emit();
    RUNTIME_FEATURES.with(|cell| cell.set(before));
    out
}

/// Whether the expansion under way is for a build with debug assertions (`Some(true)`),
/// without (`Some(false)`), or for either (`None`): `RuntimeFeatures::debug_assertions`.
fn debug_assertions() -> Option<bool> {
    RUNTIME_FEATURES.with(|cell| cell.get().debug_assertions)
}

/// Whether the expansion under way is for a runtime that accepts ndarray arrays.
fn ndarray_args() -> bool {
    RUNTIME_FEATURES.with(|cell| cell.get().ndarray_args)
}

/// A kernel function: through the runtime's `dispatch_kernel!` when it makes several copies
/// (`RuntimeFeatures::dispatch_copies`), else as that macro's one-copy form writes it: the
/// function with its lane operations (`__tg_lanes`) bound to `__private`.
fn kernel_item(rt: &TokenStream, function: TokenStream) -> TokenStream {
    if RUNTIME_FEATURES.with(|cell| cell.get().dispatch_copies) {
        return quote!(#rt::__private::dispatch_kernel! { #function });
    }
    // `function` is `#[attrs] fn name(params) -> ret { body }`, which becomes `fn name(params)
    // -> ret { use …; { body } }`, as `dispatch_kernel!` writes it.
    let mut tokens: Vec<proc_macro2::TokenTree> = function.into_iter().collect();
    let Some(proc_macro2::TokenTree::Group(body)) = tokens.pop() else {
        unreachable!("a kernel function ends with its body");
    };
    let with_lanes = proc_macro2::Group::new(
        proc_macro2::Delimiter::Brace,
        quote! {
            #[allow(unused_imports)] // a body without lane operations (a product alone)
            use #rt::__private as __tg_lanes;
            #body
        },
    );
    tokens.push(proc_macro2::TokenTree::Group(with_lanes));
    tokens.into_iter().collect()
}

/// The literal dim `n`: `Fixed<n>`.
fn fixed_dim(rt: &TokenStream, n: usize) -> TokenStream {
    let lit = Literal::usize_unsuffixed(n);
    quote!(#rt::__private::Fixed<#lit>)
}

/// `Rank2<Fixed<4>, Fixed<8>>` for `[4, 8]`; a name is `name_dim` (`Dyn` in a tensor type,
/// `Sym` in a parameter's pattern).
fn rank_type(rt: &TokenStream, dims: &[Dim], name_dim: &TokenStream) -> TokenStream {
    if dims.is_empty() {
        return quote!(#rt::__private::Rank0);
    }
    let rank = format_ident!("Rank{}", dims.len());
    let dims = dims.iter().map(|d| match d {
        Dim::Static(n) => fixed_dim(rt, *n),
        Dim::Named(_) | Dim::Expr(_) => name_dim.clone(),
    });
    quote!(#rt::__private::#rank<#(#dims),*>)
}

/// The shape type of a tensor: literal dims are `Fixed<N>`, names run-time `Dyn`.
pub(super) fn shape_type(rt: &TokenStream, dims: &[Dim]) -> TokenStream {
    rank_type(rt, dims, &quote!(#rt::__private::Dyn))
}

/// The pattern a parameter's argument is checked against: names are `Sym`.
fn pattern_type(rt: &TokenStream, dims: &[Dim]) -> TokenStream {
    rank_type(rt, dims, &quote!(#rt::__private::Sym))
}

pub(super) fn tensor_type(rt: &TokenStream, dtype: DType, dims: &[Dim]) -> TokenStream {
    let t = storage_type(rt, dtype);
    let s = shape_type(rt, dims);
    quote!(#rt::__private::Tensor<#t, #s>)
}

/// Whether the graph has dim names. (Output names that no input has are errors, but the
/// signature is still emitted, so outputs count too.)
pub fn is_symbolic(f: &GraphFn) -> bool {
    let outputs: Vec<&ParamType> = match &f.ret {
        Some(ReturnType::Single(t)) => vec![t],
        Some(ReturnType::Tuple(l)) => l.iter().collect(),
        None => Vec::new(),
    };
    f.params
        .iter()
        .map(|p| &p.ty)
        .chain(outputs)
        .filter_map(|t| t.dims.as_ref())
        .flatten()
        .any(Dim::is_symbolic)
}

/// A parameter whose name an earlier one already has (reported by `check`). It is
/// renamed in the emitted signature, so rustc adds no follow-on errors.
fn is_duplicate(f: &GraphFn, index: usize) -> bool {
    f.params[..index]
        .iter()
        .any(|p| p.name == f.params[index].name)
}

fn param_ident(f: &GraphFn, index: usize) -> proc_macro2::Ident {
    let param = &f.params[index];
    if is_duplicate(f, index) {
        format_ident!("__tg_duplicate{}", index, span = param.name.span())
    } else {
        param.name.clone()
    }
}

/// Whether the parameter takes part in kernels as a tensor.
fn is_tensor(f: &GraphFn, index: usize) -> bool {
    let p = &f.params[index];
    !p.recovered && !is_duplicate(f, index) && p.ty.dims.is_some()
}

/// Whether `f` is the closure form (`graph!(|x: f32[4]| …)`).
fn is_closure(f: &GraphFn) -> bool {
    f.name == "__tg_graph"
}

/// The Rust name of the generated function: the graph's own, or `graph_closure` for the
/// closure form (rustc names it in notes such as "required by a bound in `graph_closure`").
pub fn fn_ident(f: &GraphFn) -> proc_macro2::Ident {
    if is_closure(f) {
        format_ident!("graph_closure")
    } else {
        f.name.clone()
    }
}

/// How messages name the function a parameter belongs to.
fn fn_description(f: &GraphFn) -> String {
    if is_closure(f) {
        "this graph closure".to_string()
    } else {
        format!("`{}`", f.name)
    }
}

/// The argument trait of tensor parameter `param`: `scale_takes_x`. rustc prints its name
/// in the "the trait … is not implemented for …" line it adds to every such error, so the
/// name reads as what it checks.
fn input_trait_ident(f: &GraphFn, param: &Param) -> proc_macro2::Ident {
    format_ident!("{}_takes_{}", fn_ident(f), param.name)
}

/// The argument trait of output `k` of `f_into`: `scale_into_output` (or
/// `scale_into_output_1` when the graph has several outputs).
fn output_trait_ident(f: &GraphFn, k: usize, count: usize) -> proc_macro2::Ident {
    if count == 1 {
        format_ident!("{}_into_output", fn_ident(f))
    } else {
        format_ident!("{}_into_output_{}", fn_ident(f), k)
    }
}

/// The argument traits of a tensor parameter or `_into` output of a graph with only literal
/// dims, called by name (not the closure form). An argument is checked in three steps, each a
/// trait bound of the impl of the step before; rustc reports the innermost bound that fails,
/// with that trait's message:
/// 1. `scale_takes_x`, the parameter's type (`x: impl scale_takes_x`), has one blanket impl
///    over the runtime's `StaticInput` (`StaticOutput` for an output), which tensor-core
///    implements for the forms an argument may take (`&Tensor`, `&TensorView`,
///    `&TensorViewMut`, `TensorView`; for an output the `Tensor` or `TensorViewMut` behind its
///    `&mut`) whatever their dtype and shape. Anything else (a tensor without `&`, a `Vec`)
///    fails here and the message prints its Rust type (`{Self}`); for a missing `&` rustc
///    adds "consider borrowing here".
/// 2. `scale_x_shape<E, S, A>` takes the argument's dtype, its shape type and that shape in
///    Rust's array notation (tensor-core's `Notation`: `[f32; 32]`, `[[f32; 8]]` for
///    `Rank2<Dyn, Fixed<8>>`), which only the message prints. Its one impl is for the
///    declared rank over literal dims (`Rank2<Fixed<D0>, Fixed<D1>>`, `[[E; D1]; D0]`);
///    another rank, or a run-time dim (`Dyn`), fails here: ``you passed a tensor shaped like
///    `[f32; 32]` ``. `S` stays a parameter of its own: the impl fixes an open shape type
///    through it (a projection such as `A` cannot be inverted), and rustc's notes print both.
///    (The DSL's `f32[32]` needs a trait per parameter and rank, a message's format being
///    fixed per trait: that doubled the instructions of `cargo check` of the compile-time
///    bench's set 1, NOTES.md.)
/// 3. `scale_x_dims<E, D0, D1>`, implemented once, for the declared dtype and dims: an
///    argument of the right rank and another dtype or dims fails here, and the message
///    prints it in the graph's notation (``you passed `f64[4, 8]` ``, `{E}[{D0}, {D1}]`).
/// Inference: for an argument whose dtype and dims are still open (`scale(&Tensor::zeros(),
/// 2.0)`), step 1 has one impl for its form and steps 2 and 3 one impl each, so step 3 fixes
/// `f32, 4, 8`. Step 3's `Self` is `()`, not the dtype: rustc selects no impl for an
/// inference variable, and when the innermost bound has the same `Self` as the root it
/// reports the root's message. The elements pass through steps 2 and 3 (`declared`, the
/// identity on the declared dtype): no cast, no `unsafe`, no generic parameters on the
/// function beyond its `impl`s. One error per wrong argument.
struct StaticCheck {
    /// The argument's trait (`scale_takes_x`): the parameter is `impl` it (`&mut impl` for
    /// an output).
    form_trait: proc_macro2::Ident,
    /// The traits and their impls.
    traits: TokenStream,
}

/// How one argument is named in a [`StaticCheck`].
struct StaticNames {
    /// The form trait (`scale_takes_x`), and the prefix of the others (`scale_x`:
    /// `scale_x_shape`, `scale_x_dims`, `scale_x_rank1` …).
    form_trait: proc_macro2::Ident,
    prefix: String,
    /// "parameter `x` of `scale` takes", "the output of `scale_into` is".
    owner: String,
    label: String,
    note: String,
    /// Where rustc's notes on the impls point: the declared type.
    span: proc_macro2::Span,
}

/// The [`StaticCheck`] of a statically shaped argument: an input, or an output if `output`.
fn static_check(
    rt: &TokenStream,
    vis: &syn::Visibility,
    names: StaticNames,
    dtype: DType,
    dims: &[Dim],
    output: bool,
) -> StaticCheck {
    let form_trait = names.form_trait.clone();
    let traits = arg_check_traits(rt, vis, names, dtype, dims, output, Lending::Static);
    StaticCheck { form_trait, traits }
}

/// How step 1 of an argument's checks reads it (tensor-core's trait).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lending {
    /// A graph with only literal dims called by name: `StaticInput` (`&Tensor`, `&TensorView`,
    /// `&TensorViewMut`, `TensorView`), or for an output `StaticOutput` (behind the `&mut`).
    Static,
    /// The closure form of such a graph: `StaticPointee` (`Tensor`, `TensorView`,
    /// `TensorViewMut`), the types behind the `&dyn` the closure takes.
    Pointee,
    /// A graph with names: `Lend` / `LendMut` (tensors, views, slices, ndarray arrays).
    Lend,
    /// The closure form of such a graph: `LendPointee`, the values behind the `&` each of
    /// its tensor parameters takes (`param_type`).
    LendPointee,
}

/// The three traits of an argument and their impls ([`StaticCheck`] for graphs with only
/// literal dims, [`symbolic_check`] for graphs with names; `lending` chooses). Each check
/// is a subtrait of tensor-core's `SameDtype<E, declared>`, so that the one impl of step 3
/// proves the argument's dtype is the declared one and the read of step 1 hands the
/// elements on through `SameDtype`'s identity (by name, tensor-core's `ReadsAs` & co., the
/// form trait's supertrait, [`CoreRead`]; in the closure forms the form trait's own method);
/// steps 2 and 3 have no methods.
/// Step 1 is `step1_read`, step 2 `step2_shape`, step 3 `step3_dims`.
fn arg_check_traits(
    rt: &TokenStream,
    vis: &syn::Visibility,
    names: StaticNames,
    dtype: DType,
    dims: &[Dim],
    output: bool,
    lending: Lending,
) -> TokenStream {
    let symbolic = matches!(lending, Lending::Lend | Lending::LendPointee);
    let p = super::names::private(rt);
    let declared = type_text(dtype, dims);
    let StaticNames {
        form_trait,
        prefix,
        owner,
        label,
        note,
        span,
    } = names;
    let t = storage_type(rt, dtype);
    // Spanned at the declared type: rustc's notes on the impls point there.
    let ident = |name: String| proc_macro2::Ident::new(&name, span);
    let shape_trait = ident(format!("{prefix}_shape"));
    let dims_trait = ident(format!("{prefix}_dims"));
    let form_trait_s = ident(form_trait.to_string());
    // An output is `&mut` its argument type: `Self` is the tensor behind the `&mut` (graphs
    // with names take outputs by value: `Self` is the argument); the closure form takes
    // `&dyn`: `Self` is the tensor behind the `&`.
    let reference = match (lending, output) {
        (Lending::Static, true) => "&mut ",
        (Lending::Pointee | Lending::LendPointee, _) => "&",
        _ => "",
    };
    let form_message = format!("{owner} `{declared}`; you passed `{reference}{{Self}}`");
    // Step 2 prints the argument's shape in Rust's array notation (`{A}`, tensor-core's
    // `Notation`): one format for every rank (`[f32; 32]`, `[[f32; 8]]`).
    let shape_message = format!("{owner} `{declared}`; you passed a tensor shaped like `{{A}}`");
    let (d, literals, dims_message) = step3_dims(dims, &owner, &declared);
    let (generics, shape, notation_param, notation_arg) = step2_shape(&p, dims, symbolic);
    let Step1 {
        method,
        form,
        form_read,
        core,
        checked,
        checked_bound,
    } = step1_read(rt, dims, &t, lending, output, span);
    // By name, the read is tensor-core's (`core`): the form trait is its subtrait, and the
    // blanket impl's bounds (step 2, a subtrait of `SameDtype`) prove its bounds.
    let (supertrait, method, form_read) = match core {
        Some(core) => (quote!(: #core), TokenStream::new(), TokenStream::new()),
        None => (TokenStream::new(), quote!(#method;), form_read),
    };
    let notation = quote!(X::Notation);
    // The values behind a closure's `&` include slices.
    let maybe_unsized = (lending == Lending::LendPointee).then(|| quote!(+ ?::core::marker::Sized));
    let extra = if symbolic {
        symbolic_fix_traits(
            &p,
            vis,
            &owner,
            &label,
            &declared,
            dtype,
            dims,
            output,
            &shape_trait,
            &t,
            span,
        )
    } else {
        TokenStream::new()
    };
    let impls = quote_spanned! {span=>
        #extra
        impl<X: #form #maybe_unsized> #form_trait_s for X
        where
            #checked_bound
            (): #shape_trait<X::Elem, #checked, #notation>,
        {
            #form_read
        }
        impl<E, #notation_param #(#generics),*> #shape_trait<E, #shape, #notation_arg> for ()
        where
            (): #dims_trait<E, #(#d),*>,
        {}
        impl #dims_trait<#t, #(#literals),*> for () {}
    };
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[diagnostic::on_unimplemented(message = #form_message, label = #label, note = #note)]
        #vis trait #form_trait #supertrait {
            #method
        }
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[diagnostic::on_unimplemented(message = #shape_message, label = #label, note = #note)]
        #vis trait #shape_trait<E, S, A: ?Sized>: #p::SameDtype<E, #t> {}
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[diagnostic::on_unimplemented(message = #dims_message, label = #label, note = #note)]
        #vis trait #dims_trait<E, #(const #d: usize),*>: #p::SameDtype<E, #t> {}
        #impls
    }
}

/// Step 3 of an argument's checks: its const parameters (`D0` … by axis, the literal
/// dims), the declared literals, and the message that prints the passed dims.
fn step3_dims(
    dims: &[Dim],
    owner: &str,
    declared: &str,
) -> (Vec<proc_macro2::Ident>, Vec<Literal>, String) {
    // The literal dims are step 3's const parameters (`D0` … by axis); a name prints as `_`.
    let d: Vec<proc_macro2::Ident> = dims
        .iter()
        .enumerate()
        .filter(|(_, dim)| !dim.is_symbolic())
        .map(|(axis, _)| format_ident!("D{}", axis))
        .collect();
    let literals: Vec<Literal> = dims
        .iter()
        .filter_map(|dim| match dim {
            Dim::Static(n) => Some(Literal::usize_unsuffixed(*n)),
            Dim::Named(_) | Dim::Expr(_) => None,
        })
        .collect();
    let passed: Vec<String> = dims
        .iter()
        .enumerate()
        .map(|(axis, dim)| match dim {
            Dim::Static(_) => format!("{{D{axis}}}"),
            Dim::Named(_) | Dim::Expr(_) => "_".to_string(),
        })
        .collect();
    let dims_message = format!(
        "{owner} `{declared}`; you passed `{{E}}[{}]`",
        passed.join(", ")
    );
    (d, literals, dims_message)
}

/// Step 2 of an argument's checks: the generics and shape type of its impl at the declared
/// rank, and the notation slot (a parameter and the impl's argument).
fn step2_shape(
    p: &TokenStream,
    dims: &[Dim],
    symbolic: bool,
) -> (Vec<TokenStream>, TokenStream, TokenStream, TokenStream) {
    // Step 2's impl at the declared rank: a literal dim is `Fixed<D>` (for a graph with names
    // also a `Dyn`, which tensor-core's `UnderLiteral` maps to the literal: checked at call
    // entry), a name any dim.
    let mut generics = Vec::new();
    let mut axes = Vec::new();
    for (axis, dim) in dims.iter().enumerate() {
        let a = format_ident!("A{}", axis);
        let dk = format_ident!("D{}", axis);
        match dim {
            Dim::Named(_) | Dim::Expr(_) => {
                generics.push(quote!(#a: #p::Dim));
                axes.push(quote!(#a));
            }
            Dim::Static(n) if symbolic => {
                let n = Literal::usize_unsuffixed(*n);
                generics.push(quote!(#a: #p::UnderLiteral<#n, Out = #p::Fixed<#dk>>));
                generics.push(quote!(const #dk: usize));
                axes.push(quote!(#a));
            }
            Dim::Static(_) => {
                generics.push(quote!(const #dk: usize));
                axes.push(quote!(#p::Fixed<#dk>));
            }
        }
    }
    let shape = if dims.is_empty() {
        quote!(#p::Rank0)
    } else {
        let rank = format_ident!("Rank{}", dims.len());
        quote!(#p::#rank<#(#axes),*>)
    };
    // Step 2's notation slot: with only literal dims it is the declared shape's own
    // (`[[E; D1]; D0]`), so that rustc's "but trait … is implemented" line shows the declared
    // notation; a graph with names takes any (a flat slice passes as `[f32]`).
    let (notation_param, notation_arg) = if symbolic {
        (quote!(A: ?Sized,), quote!(A))
    } else {
        let array = dims
            .iter()
            .enumerate()
            .rev()
            .fold(quote!(E), |inner, (axis, _)| {
                let dk = format_ident!("D{}", axis);
                quote!([#inner; #dk])
            });
        (TokenStream::new(), array)
    };
    (generics, shape, notation_param, notation_arg)
}

/// Step 1 of an argument's checks: how it is read.
struct Step1 {
    /// The form trait's method (`fn elements(&self) -> &[f32]`, …), the runtime trait
    /// (`form`) whose method it calls, and the method with its body (`form_read`).
    method: TokenStream,
    form: TokenStream,
    form_read: TokenStream,
    /// For an argument passed by name (`Lending::Static`, `Lending::Lend`), tensor-core's
    /// generic read (`ReadsAs<f32>`, …, [`CoreRead`]): the form trait is its subtrait and
    /// has no method, so no read is written or compiled per argument.
    core: Option<TokenStream>,
    /// The shape type step 2 checks, and the bound that makes it (a graph with names).
    checked: TokenStream,
    checked_bound: TokenStream,
}

fn step1_read(
    rt: &TokenStream,
    dims: &[Dim],
    t: &TokenStream,
    lending: Lending,
    output: bool,
    span: proc_macro2::Span,
) -> Step1 {
    let symbolic = matches!(lending, Lending::Lend | Lending::LendPointee);
    let p = super::names::private(rt);
    // What step 1 reads (`StaticInput`: slices; `Lend`: parts with dims) and the shape type
    // step 2 checks: the argument's own, or for a flat slice or an `IxDyn` array the declared
    // shape with names as run-time dims (tensor-core's `Checked`).
    let (runtime_trait, checked, checked_bound) = if symbolic {
        let pattern = pattern_type(rt, dims);
        let flat = if dims.iter().filter(|d| d.is_symbolic()).count() <= 1 {
            quote!(#p::SliceOk)
        } else {
            quote!(#p::NoSlice)
        };
        let runtime = match (lending, output) {
            (_, true) => quote!(LendMut),
            (Lending::LendPointee, false) => quote!(LendPointee),
            _ => quote!(Lend),
        };
        (
            runtime,
            quote!(<X::Shape as #p::Checked<#pattern, #flat>>::Out),
            quote!(X::Shape: #p::Checked<#pattern, #flat>,),
        )
    } else {
        let runtime = match (lending, output) {
            (_, true) => quote!(StaticOutput),
            (Lending::Pointee, false) => quote!(StaticPointee),
            _ => quote!(StaticInput),
        };
        (runtime, quote!(X::Shape), TokenStream::new())
    };
    // Paths in full: a `use` per argument (of the runtime trait, `Fixed`, …) cost 3% of
    // `cargo check` instructions on the compile-time bench's set 1 (NOTES.md).
    // Located at the declared type like the rest of the impls (rustc's notes on the
    // bound point there), resolved where the path was written (`$crate`).
    let form = located_at(quote!(#p::#runtime_trait), span);
    let (method, read, same) = match (symbolic, output) {
        (false, false) => (
            quote!(fn elements(&self) -> &[#t]),
            quote!(#form::elements(self)),
            quote!(slice),
        ),
        (false, true) => (
            quote!(fn elements_mut(&mut self) -> &mut [#t]),
            quote!(#form::elements_mut(self)),
            quote!(slice_mut),
        ),
        (true, false) => (
            quote!(fn lend(&self) -> #p::ArgParts<'_, #t>),
            quote!(#form::lend(self)),
            quote!(parts),
        ),
        (true, true) => (
            quote!(fn lend_mut(&mut self) -> #p::ArgPartsMut<'_, #t>),
            quote!(#form::lend_mut(self)),
            quote!(parts_mut),
        ),
    };
    // The method in `quote!`: its `self` and body must have the same hygiene.
    let form_read = quote! {
        #method {
            <() as #p::SameDtype<X::Elem, #t>>::#same(#read)
        }
    };
    let core = match lending {
        Lending::Static | Lending::Lend => {
            let core = CoreRead::of(symbolic, output).trait_ident();
            Some(quote!(#p::#core<#t>))
        }
        // The closure forms keep the method: their parameters are `&dyn` (literal dims) or
        // `&(impl … + ?Sized)` over `LendPointee`, which tensor-core's reads do not cover.
        Lending::Pointee | Lending::LendPointee => None,
    };
    Step1 {
        method,
        form,
        form_read,
        core,
        checked,
        checked_bound,
    }
}

/// Tensor-core's generic read of an argument passed by name, which its form trait has as
/// supertrait (`step1_read`): `ReadsAs` (`StaticInput`), `WritesAs` (`StaticOutput`),
/// `LendsAs` (`Lend`), `LendsMutAs` (`LendMut`). One generic impl each in tensor-core instead
/// of a method per argument: NOTES.md, "Where the non-program build cost is".
#[derive(Clone, Copy)]
enum CoreRead {
    Reads,
    Writes,
    Lends,
    LendsMut,
}

impl CoreRead {
    fn of(symbolic: bool, output: bool) -> CoreRead {
        match (symbolic, output) {
            (false, false) => CoreRead::Reads,
            (false, true) => CoreRead::Writes,
            (true, false) => CoreRead::Lends,
            (true, true) => CoreRead::LendsMut,
        }
    }

    fn trait_ident(self) -> proc_macro2::Ident {
        let name = match self {
            CoreRead::Reads => "ReadsAs",
            CoreRead::Writes => "WritesAs",
            CoreRead::Lends => "LendsAs",
            CoreRead::LendsMut => "LendsMutAs",
        };
        proc_macro2::Ident::new(name, proc_macro2::Span::call_site())
    }

    /// `__tg_p_NAME::ReadsAs::<f32>::read_as(arg)`: `arg` is `&x` (`&mut out` for `LendsMut`, an
    /// output `&mut impl …` itself for `Writes`).
    fn call(self, rt: &TokenStream, dtype: DType, arg: TokenStream) -> TokenStream {
        let p = super::names::private(rt);
        let t = storage_type(rt, dtype);
        let tr = self.trait_ident();
        let method = match self {
            CoreRead::Reads => quote!(read_as),
            CoreRead::Writes => quote!(write_as),
            CoreRead::Lends => quote!(lend_as),
            CoreRead::LendsMut => quote!(lend_mut_as),
        };
        quote!(#p::#tr::<#t>::#method(#arg))
    }
}

/// The run-time dims of `dims` as a caller names them in Rust: `[m, k]` for `[M, K]`, a
/// literal as itself, `(b, 768)` with `tuple`.
fn dims_in_rust(dims: &[Dim], tuple: bool) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string().to_lowercase()).collect();
    match (tuple, parts.len()) {
        (true, 1) => format!("({},)", parts[0]),
        (true, _) => format!("({})", parts.join(", ")),
        (false, _) => format!("[{}]", parts.join(", ")),
    }
}

/// The checks of a graph with names that say how to fix two argument forms, each a trait of
/// its own reached from a second impl of step 2 (`scale_x_shape`) keyed on the shape type
/// that tensor-core's `Checked` leaves for them:
/// - a flat slice (`Flat`) for a parameter with two or more names (`NoSlice`):
///   `{prefix}_flat<E, A>`, whose message says that a slice has no dims for them and whose
///   note gives the constructor that adds them;
/// - an ndarray array of another rank than declared (`NdRank<R>`, only for a runtime with
///   the `ndarray` feature, `with_ndarray_args`): `{prefix}_ndrank<E, R>`, whose message
///   prints the passed rank (a const parameter prints as its value) and whose note gives the
///   reshape.
///
/// Each trait has one `#[diagnostic::do_not_recommend]` impl bounded by `NoImpl` (which no
/// type implements): without an impl rustc adds "this trait has no implementations, consider
/// adding one".
#[allow(clippy::too_many_arguments)]
fn symbolic_fix_traits(
    p: &TokenStream,
    vis: &syn::Visibility,
    owner: &str,
    label: &str,
    declared: &str,
    dtype: DType,
    dims: &[Dim],
    output: bool,
    shape_trait: &proc_macro2::Ident,
    t: &TokenStream,
    span: proc_macro2::Span,
) -> TokenStream {
    let ident = |name: String| proc_macro2::Ident::new(&name, span);
    let prefix = shape_trait
        .to_string()
        .strip_suffix("_shape")
        .expect("a shape trait")
        .to_string();
    let names: Vec<String> = dims
        .iter()
        .filter(|d| d.is_symbolic())
        .map(|d| format!("`{d}`"))
        .collect();
    let shape = format!("{}, {}", dtype.name(), shape_macro_text(dims));
    let mut out = TokenStream::new();
    if names.len() >= 2 {
        let flat_trait = ident(format!("{prefix}_flat"));
        let (last, rest) = names.split_last().expect("two names");
        let names_text = format!("{} and {last}", rest.join(", "));
        let rust_dims = dims_in_rust(dims, false);
        let message = format!(
            "{owner} `{declared}`; you passed a flat `{{A}}`, which has no dims for {names_text}"
        );
        let flat_label = format!("a flat slice: give it its dims `{rust_dims}`");
        let note = if output {
            format!(
                "a slice's length gives the dims of at most one name; pass it with its dims: \
                 `TensorViewMut::<{shape}>::with_dims({rust_dims}, &mut v)?` writes into it \
                 in place (or `&mut Tensor::<{shape}>::from_shape_vec({rust_dims}, v)?` for \
                 a `Vec` you give up)"
            )
        } else {
            format!(
                "a slice's length gives the dims of at most one name; pass it with its dims: \
                 `&Tensor::<{shape}>::from_shape_vec({rust_dims}, v)?` takes the `Vec`, \
                 `&TensorView::<{shape}>::with_dims({rust_dims}, &v)?` views it (no copy)"
            )
        };
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #[diagnostic::on_unimplemented(message = #message, label = #flat_label, note = #note)]
            #vis trait #flat_trait<E, A: ?Sized>: #p::SameDtype<E, #t> {}
        });
        // Located at the declared type, as the other impls: rustc's note on this one points
        // there.
        out.extend(quote_spanned! {span=>
            #[diagnostic::do_not_recommend]
            impl<E: #p::NoImpl, A: ?Sized> #flat_trait<E, A> for ()
            where
                (): #p::SameDtype<E, #t>,
            {}
            impl<E, A: ?Sized> #shape_trait<E, #p::Flat, A> for ()
            where
                (): #flat_trait<E, A>,
            {}
        });
    }
    // An ndarray array of another rank: only a runtime that accepts arrays can be passed one
    // (`with_ndarray_args`).
    if !ndarray_args() {
        return out;
    }
    let nd_trait = ident(format!("{prefix}_ndrank"));
    let rank = dims.len();
    let message =
        format!("{owner} `{declared}` (rank {rank}); you passed an ndarray array of rank {{R}}");
    let (view, index) = if output {
        ("view_mut", "index_axis_mut")
    } else {
        ("view", "index_axis")
    };
    let note = format!(
        "reshape it to rank {rank}: `a.{view}().into_shape_with_order({})` (a `Result`: the \
         element count must match and `a` be in standard layout), or drop an axis by \
         indexing it (`a.{index}(Axis(0), i)`) or add one (`a.{view}().insert_axis(Axis(0))`)",
        dims_in_rust(dims, true)
    );
    let nd_impls = quote_spanned! {span=>
        #[diagnostic::do_not_recommend]
        impl<E: #p::NoImpl, const R: usize> #nd_trait<E, R> for ()
        where
            (): #p::SameDtype<E, #t>,
        {}
        impl<E, A: ?Sized, const R: usize> #shape_trait<E, #p::NdRank<R>, A> for ()
        where
            (): #nd_trait<E, R>,
        {}
    };
    out.extend(quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        #vis trait #nd_trait<E, const R: usize>: #p::SameDtype<E, #t> {}
        #nd_impls
    });
    out
}

/// `tokens` with every span moved to `span`'s location, each keeping its own resolution
/// (hygiene): a path through `$crate` still resolves as written.
fn located_at(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut moved =
                    proc_macro2::Group::new(group.delimiter(), located_at(group.stream(), span));
                moved.set_span(group.span().located_at(span));
                return proc_macro2::TokenTree::Group(moved);
            }
            token.set_span(token.span().located_at(span));
            token
        })
        .collect()
}

/// How tensor parameter `index` is named in its argument traits and their messages; the
/// note lists the forms it takes (`symbolic`: a graph with names).
fn input_names(f: &GraphFn, index: usize, symbolic: bool) -> StaticNames {
    let param = &f.params[index];
    let dims = param.ty.dims.as_ref().expect("a tensor parameter");
    let dtype = param.ty.dtype;
    let declared = type_text(dtype, dims);
    let name = param.name.to_string();
    let name = name.trim_start_matches("r#");
    let shape = format!("{}, {}", dtype.name(), shape_macro_text(dims));
    let note = if symbolic && is_closure(f) {
        // The closure form takes every tensor by reference (`param_type`).
        format!(
            "`{declared}` is passed by reference, as `&Tensor<{shape}>` or `&TensorView<{shape}>` \
             (a literal dim may also be `_` in the argument's type){}",
            slice_note(dtype, dims, "&")
        )
    } else if symbolic {
        format!(
            "`{declared}` is passed as `&Tensor<{shape}>`, `&TensorView<{shape}>` or a \
             `TensorView` (a literal dim may also be `_` in the argument's type){}",
            slice_note(dtype, dims, "&")
        )
    } else {
        format!(
            "`{declared}` is passed by reference, as `&Tensor<{shape}>` or `&TensorView<{shape}>`"
        )
    };
    StaticNames {
        form_trait: input_trait_ident(f, param),
        prefix: format!("{}_{}", fn_ident(f), name),
        owner: format!("parameter `{}` of {} takes", name, fn_description(f)),
        label: format!("expected `{declared}`"),
        note,
        span: param.ty.span,
    }
}

/// How `_into` output `k` is named in its argument traits and their messages.
fn output_names(
    f: &GraphFn,
    outputs: &[(DType, Vec<Dim>)],
    k: usize,
    symbolic: bool,
) -> StaticNames {
    let (dtype, dims) = (outputs[k].0, &outputs[k].1);
    let declared = type_text(dtype, dims);
    let into = format!("`{}_into`", fn_ident(f));
    let owner = if outputs.len() == 1 {
        format!("the output of {into} is")
    } else {
        format!("output {k} of {into} is")
    };
    let shape = format!("{}, {}", dtype.name(), shape_macro_text(dims));
    let form_trait = output_trait_ident(f, k, outputs.len());
    let span = match &f.ret {
        Some(ReturnType::Single(t)) => t.span,
        Some(ReturnType::Tuple(list)) => list.get(k).map_or(f.name.span(), |t| t.span),
        None => f.name.span(),
    };
    let note = if symbolic {
        format!(
            "`{declared}` is written into `&mut Tensor<{shape}>`, `&mut TensorViewMut<{shape}>` \
             or a `TensorViewMut` (a literal dim may also be `_` in the argument's type){}",
            slice_note(dtype, dims, "&mut ")
        )
    } else {
        format!(
            "`{declared}` is written into `&mut Tensor<{shape}>` or `&mut TensorViewMut<{shape}>`"
        )
    };
    StaticNames {
        prefix: form_trait.to_string(),
        form_trait,
        owner,
        label: format!("expected a writable `{declared}`"),
        note,
        span,
    }
}

/// The [`StaticCheck`] of tensor parameter `index` of a graph with only literal dims.
fn static_input_check(rt: &TokenStream, f: &GraphFn, index: usize) -> StaticCheck {
    let ty = &f.params[index].ty;
    let dims = ty.dims.as_ref().expect("a tensor parameter");
    static_check(
        rt,
        &f.vis,
        input_names(f, index, false),
        ty.dtype,
        dims,
        false,
    )
}

/// The [`StaticCheck`] of `_into` output `k` of a graph with only literal dims.
fn static_output_check(
    rt: &TokenStream,
    f: &GraphFn,
    outputs: &[(DType, Vec<Dim>)],
    k: usize,
) -> StaticCheck {
    let names = output_names(f, outputs, k, false);
    static_check(rt, &f.vis, names, outputs[k].0, &outputs[k].1, true)
}

/// The argument traits of a tensor parameter or `_into` output of a graph with dim names,
/// in the three steps of a [`StaticCheck`], over the runtime's `Lend` (`LendMut` for an
/// output), which every form the parameter may take implements (tensors and views, flat
/// slices, ndarray arrays) whatever its dtype and shape:
/// 1. `rows_takes_x`, one blanket impl over `Lend`: a value that lends nothing (a tensor
///    without `&`) fails here, printing its Rust type.
/// 2. `rows_x_shape<E, S, A>` (`A`, the argument's `Notation`, only printed), one impl for
///    the declared rank, where a name takes any dim and a literal dim a `Fixed<M>` (`M` goes
///    to step 3) or a run-time `Dyn` (checked at call entry; tensor-core's `UnderLiteral` maps
///    it to the literal). `S` is the argument's shape type, or for a flat slice (where the
///    declared type has at most one name) and an ndarray `IxDyn` array the declared shape
///    with names as `Dyn` (tensor-core's `Checked`). Another rank, or a slice where two names need dims, fails here
///    (``you passed a tensor shaped like `[f32]` ``).
/// 3. `rows_x_dims<E, D1>` (a const per literal dim), implemented once for the declared
///    dtype and literals: a wrong dtype or literal prints as ``you passed `f32[_, 512]` ``
///    (`_` for a name: any size). A run-time dim under a literal, and an argument without
///    dims (a slice, an `IxDyn` array), print the declared literal: they are checked at call
///    entry.
/// Six items per argument (an impl per choice of `Fixed` or `Dyn` under each literal, and
/// one per slice and `IxDyn` form, cost a third more `cargo check` time on the compile-time
/// bench's set 2). The parts pass through steps 2 and 3 unchanged (`declared`, the identity
/// on the declared dtype); call entry (`bind_dims`) then checks names and run-time dims.
fn symbolic_check(
    rt: &TokenStream,
    vis: &syn::Visibility,
    names: StaticNames,
    dtype: DType,
    dims: &[Dim],
    output: bool,
) -> TokenStream {
    arg_check_traits(rt, vis, names, dtype, dims, output, Lending::Lend)
}

/// `Shape![4, 8]`-style text of declared dims (names are run-time dims, `_`).
fn shape_macro_text(dims: &[Dim]) -> String {
    let dims: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Named(_) | Dim::Expr(_) => "_".to_string(),
        })
        .collect();
    format!("Shape![{}]", dims.join(", "))
}

/// The end of a symbolic argument's note: which flat slices it takes.
fn slice_note(dtype: DType, dims: &[Dim], reference: &str) -> String {
    if dims.iter().filter(|d| d.is_symbolic()).count() <= 1 {
        let t = dtype.name();
        format!(", or as `{reference}[{t}]` / `{reference}Vec<{t}>` of a fitting length")
    } else {
        String::new()
    }
}

/// The argument traits of a graph's tensor parameters and `_into` outputs, for a graph with
/// names ([`symbolic_check`]) and for the closure form of one without (its inputs through
/// `StaticPointee`, its outputs as [`StaticCheck`]'s).
fn emit_arg_traits(
    rt: &TokenStream,
    f: &GraphFn,
    outputs: Option<&[(DType, Vec<Dim>)]>,
    symbolic: bool,
) -> TokenStream {
    let inputs = (0..f.params.len()).filter(|&i| is_tensor(f, i)).map(|i| {
        let ty = &f.params[i].ty;
        let dims = ty.dims.as_ref().expect("a tensor parameter");
        let lending = match (symbolic, is_closure(f)) {
            (true, true) => Lending::LendPointee,
            (true, false) => Lending::Lend,
            (false, _) => Lending::Pointee,
        };
        let names = input_names(f, i, symbolic);
        arg_check_traits(rt, &f.vis, names, ty.dtype, dims, false, lending)
    });
    let outputs = outputs.into_iter().flat_map(|outputs| {
        (0..outputs.len()).map(move |k| {
            if symbolic {
                let names = output_names(f, outputs, k, true);
                symbolic_check(rt, &f.vis, names, outputs[k].0, &outputs[k].1, true)
            } else {
                static_output_check(rt, f, outputs, k).traits
            }
        })
    });
    inputs.chain(outputs).collect()
}

/// A parameter as the generated signature takes it. A parameter that failed to parse
/// takes anything, so calls elsewhere in the crate raise no follow-on errors. A tensor
/// parameter is `impl` its argument trait, taken by value (so a tensor passed without `&`
/// gets the parameter's message, not rustc's "expected `&_`"); in the closure form of a
/// graph with only literal dims it is `&(impl … + ?Sized)`, as the closure passes `&dyn`.
pub(super) fn param_type(
    rt: &TokenStream,
    f: &GraphFn,
    index: usize,
    symbolic: bool,
) -> TokenStream {
    let param = &f.params[index];
    if param.recovered || is_duplicate(f, index) {
        return quote_spanned!(param.ty.span=> impl ::core::marker::Sized);
    }
    let ty = &param.ty;
    let mut tr = input_trait_ident(f, param);
    if is_closure(f) {
        // rustc's "required by a bound in `graph_closure`" points at the bound: the
        // parameter's declared type, not the macro's call site (the whole `graph!(…)`).
        tr.set_span(ty.span);
    }
    match &ty.dims {
        None => storage_type(rt, ty.dtype),
        Some(_) if is_closure(f) && !symbolic => {
            quote_spanned!(ty.span=> &(impl #tr + ?::core::marker::Sized))
        }
        // The closure form of a graph with names is a generic function item whose type
        // parameters its first call fixes: `&(impl …)` leaves each call's borrow its own
        // lifetime, where `impl …` of the whole argument type (`&'v [f32]`) would make every
        // later call lend as long as the closure lives (issue 37: a buffer made and dropped
        // in a loop was E0597). Its trait reads the value behind the `&` (`LendPointee`).
        Some(_) if is_closure(f) => quote_spanned!(ty.span=> &(impl #tr + ?::core::marker::Sized)),
        Some(_) => quote_spanned!(ty.span=> impl #tr),
    }
}

/// The value of the closure form. For a graph with only literal dims it is a closure whose
/// tensor parameters are `&dyn` their argument traits: a wrong argument is then a failed
/// coercion at the call, which rustc reports on the argument with the trait's message.
/// (The function item itself would be reported where it is named, inside `graph!(…)`.)
/// A graph with names takes arguments by value through generic traits, which no closure
/// can, so its value is the function item; so is a graph whose parameters did not parse.
pub fn closure_value(rt: &TokenStream, f: &GraphFn) -> TokenStream {
    let name = fn_ident(f);
    let plain = (0..f.params.len()).all(|i| !f.params[i].recovered && !is_duplicate(f, i));
    if is_symbolic(f) || !plain {
        // Spanned at the closure's `|` (see `ast::parse_closure`).
        let mut name = name;
        name.set_span(f.name.span());
        return quote!(#name);
    }
    // Each closure parameter carries the span of the graph's parameter, so rustc's "closure
    // parameter defined here" points at `a: f32[4, 1]`, not at the whole `graph!(…)`.
    let params = f.params.iter().map(|param| {
        let (ident, span) = (&param.name, param.ty.span);
        match &param.ty.dims {
            None => {
                let t = storage_type(rt, param.ty.dtype);
                quote_spanned!(span=> #ident: #t)
            }
            Some(_) => {
                let mut tr = input_trait_ident(f, param);
                tr.set_span(span);
                quote_spanned!(span=> #ident: &dyn #tr)
            }
        }
    });
    let names = f.params.iter().map(|p| &p.name);
    quote!(|#(#params),*| #name(#(#names),*))
}

/// Declared output types, or the inferred ones in the closure form.
fn output_types(f: &GraphFn, graph: Option<&TypedGraph>) -> Option<Vec<(DType, Vec<Dim>)>> {
    if let Some(ret) = &f.ret {
        let list: Vec<&ParamType> = match ret {
            ReturnType::Single(t) => vec![t],
            ReturnType::Tuple(l) => l.iter().collect(),
        };
        return Some(
            list.iter()
                .map(|t| (t.dtype, t.dims.clone().unwrap_or_default()))
                .collect(),
        );
    }
    let graph = graph?;
    Some(
        graph
            .outputs
            .iter()
            .map(|&n| (graph.nodes[n].dtype, graph.nodes[n].dims.clone()))
            .collect(),
    )
}

/// The element count of every tensor parameter and output of a checked graph, which call
/// entry has checked to fit in `usize` before a kernel runs (`checked_sizes`).
pub(super) fn arg_sizes(f: &GraphFn, graph: &TypedGraph) -> Vec<Size> {
    let inputs = (0..f.params.len())
        .filter(|&i| is_tensor(f, i))
        .filter_map(|i| f.params[i].ty.dims.as_deref().map(Size::product));
    let outputs = output_types(f, Some(graph)).unwrap_or_default();
    inputs
        .chain(outputs.iter().map(|(_, dims)| Size::product(dims)))
        .collect()
}

/// The `_into` output parameters, as rustdoc shows them: `out` (or `out0`, `out1`, …), with
/// a `_` added while a tensor or scalar parameter has that name.
fn output_idents(f: &GraphFn, count: usize) -> Vec<proc_macro2::Ident> {
    let taken: Vec<String> = f.params.iter().map(|p| p.name.to_string()).collect();
    (0..count)
        .map(|k| {
            let mut name = if count == 1 {
                "out".to_string()
            } else {
                format!("out{k}")
            };
            while taken.contains(&name) {
                name.push('_');
            }
            format_ident!("{}", name)
        })
        .collect()
}

/// The names of a graph in binding order (argument order, then axis order; the names of
/// an expression in sorted order).
fn dim_names(f: &GraphFn) -> Vec<String> {
    let mut names = Vec::new();
    for p in &f.params {
        for d in p.ty.dims.iter().flatten() {
            for n in d.names() {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    names
}

/// The dim expressions call entry computes, after the names (`GraphSignature::exprs`):
/// each expression dim of the graph whose size is not a product of names
/// (`ir::expression_key`), and each an op needs to be at least some size (`nonempty`,
/// `at_least`), in order of first appearance.
fn graph_exprs(f: &GraphFn, graph: &TypedGraph, outputs: &[(DType, Vec<Dim>)]) -> Vec<Poly> {
    let mut out: Vec<Poly> = Vec::new();
    let declared = f.params.iter().filter_map(|p| p.ty.dims.as_ref()).flatten();
    let made = graph.nodes.iter().flat_map(|n| &n.dims);
    for d in declared
        .chain(outputs.iter().flat_map(|(_, dims)| dims))
        .chain(made)
    {
        if let Dim::Expr(p) = d {
            let opaque = Size::of(d).names.iter().any(|n| n.starts_with('@'));
            if opaque && !out.contains(p) {
                out.push(p.clone());
            }
        }
    }
    let required = graph.nonempty.iter().map(|(d, _)| d);
    for d in required.chain(graph.at_least.iter().map(|(d, _, _)| d)) {
        if let Dim::Expr(p) = d {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
    }
    out
}

/// The locals call entry binds, in `bind_entry`'s order: the names, then the expressions.
fn dim_locals(names: &[String], exprs: &[Poly]) -> Vec<proc_macro2::Ident> {
    let keys = exprs.iter().map(expression_key);
    names
        .iter()
        .cloned()
        .chain(keys)
        .map(|k| dim_ident(&k))
        .collect()
}

/// `DimExpr { text, code, names, solvable }` of `poly` over the graph's `names`.
fn dim_expr_tokens(p: &TokenStream, poly: &Poly, names: &[String]) -> TokenStream {
    let text = poly.to_string();
    let code = poly.program(names).into_iter().map(|op| match op {
        DimOp::Lit(v) => {
            let magnitude = Literal::u128_unsuffixed(v.unsigned_abs());
            if v < 0 {
                quote!(#p::DimOp::Lit(-#magnitude))
            } else {
                quote!(#p::DimOp::Lit(#magnitude))
            }
        }
        DimOp::Sym(k) => {
            let k = Literal::usize_unsuffixed(k);
            quote!(#p::DimOp::Sym(#k))
        }
        DimOp::Add => quote!(#p::DimOp::Add),
        DimOp::Mul => quote!(#p::DimOp::Mul),
        DimOp::FloorDiv(d) => {
            let d = Literal::u64_unsuffixed(d);
            quote!(#p::DimOp::FloorDiv(#d))
        }
        DimOp::Max => quote!(#p::DimOp::Max),
        DimOp::Min => quote!(#p::DimOp::Min),
    });
    let index =
        |n: &String| Literal::usize_unsuffixed(names.iter().position(|m| m == n).unwrap_or(0));
    let reads = poly.names();
    let solvable = reads
        .iter()
        .filter(|n| poly.affine_coefficient(n).is_some())
        .map(index);
    let reads = reads.iter().map(index);
    quote!(#p::DimExpr { text: #text, code: &[#(#code),*], names: &[#(#reads),*], solvable: &[#(#solvable),*] })
}

/// `ln(x: f32[B, 768], g: f32[768]) -> f32[B, 768]`, as the graph is written.
fn signature_text(f: &GraphFn, outputs: &[(DType, Vec<Dim>)]) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match &p.ty.dims {
            Some(d) => format!("{}: {}", p.name, type_text(p.ty.dtype, d)),
            None => format!("{}: {}", p.name, p.ty.dtype.name()),
        })
        .collect();
    let outs: Vec<String> = outputs
        .iter()
        .map(|(d, dims)| type_text(*d, dims))
        .collect();
    let ret = if outs.len() == 1 {
        outs[0].clone()
    } else {
        format!("({})", outs.join(", "))
    };
    if f.name == "__tg_graph" {
        format!("|{}| -> {ret}", params.join(", "))
    } else {
        format!("{}({}) -> {ret}", f.name, params.join(", "))
    }
}

/// What the kernel checks at call entry: the sizes `checked_sizes` lists (none for a graph
/// with only literal dims), reported against the graph's signature static.
fn entry_checks(f: &GraphFn, graph: &TypedGraph, kernel: &Kernel) -> EntryChecks {
    EntryChecks {
        signature: signature_ident(f),
        sizes: checked_sizes(kernel, &arg_sizes(f, graph)),
    }
}

/// The `GraphSignature` static of a graph with names: `__TG_SIGNATURE_ln`, beside the
/// graph's functions.
pub fn signature_ident(f: &GraphFn) -> proc_macro2::Ident {
    format_ident!("__TG_SIGNATURE_{}", fn_ident(f))
}

/// The `cfg` attributes of the graph, which the hidden items beside its functions (the
/// signature static, the kernel function) take too: a graph compiled out leaves nothing.
fn cfg_attrs(f: &GraphFn) -> Vec<&syn::Attribute> {
    f.attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect()
}

/// The `GraphSignature` static the runtime's `bind_entry` reads: every tensor parameter,
/// then every `_into` output, with its declared dims. One static beside the graph's
/// functions serves both forms: the allocating form binds from the inputs alone (`bind`
/// walks the arguments it is given, and every name stands in an input, which comes first),
/// so its errors are those of an inputs-only signature.
fn signature_static(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    outputs: &[(DType, Vec<Dim>)],
    exprs: &[Poly],
) -> TokenStream {
    let p = super::names::private(rt);
    let names = dim_names(f);
    let decl = |dims: &[Dim]| -> Vec<TokenStream> {
        dims.iter()
            .map(|d| match d {
                Dim::Static(n) => {
                    let n = Literal::usize_unsuffixed(*n);
                    quote!(#p::DeclDim::Static(#n))
                }
                Dim::Named(n) => {
                    let k = names.iter().position(|m| m == n).unwrap_or(0);
                    let k = Literal::usize_unsuffixed(k);
                    quote!(#p::DeclDim::Sym(#k))
                }
                Dim::Expr(poly) => {
                    let e = dim_expr_tokens(&p, poly, &names);
                    quote!(#p::DeclDim::Expr(&#e))
                }
            })
            .collect()
    };
    let mut params = Vec::new();
    for (i, param) in f.params.iter().enumerate() {
        if !is_tensor(f, i) {
            continue;
        }
        let dims = param.ty.dims.as_ref().expect("a tensor parameter");
        let name = param.name.to_string();
        let ty = type_text(param.ty.dtype, dims);
        let d = decl(dims);
        params.push(quote!(#p::ParamSig { name: #name, ty: #ty, dims: &[#(#d),*] }));
    }
    for (k, (dtype, dims)) in outputs.iter().enumerate() {
        let name = if outputs.len() == 1 {
            "the output".to_string()
        } else {
            format!("output {k}")
        };
        let ty = type_text(*dtype, dims);
        let d = decl(dims);
        params.push(quote!(#p::ParamSig { name: #name, ty: #ty, dims: &[#(#d),*] }));
    }
    // A required size indexes call entry's sizes: the names, then the expressions.
    let size_index = |d: &Dim| match d {
        Dim::Expr(poly) => names.len() + exprs.iter().position(|e| e == poly).unwrap_or(0),
        _ => names.iter().position(|m| *m == d.to_string()).unwrap_or(0),
    };
    let nonempty = graph.nonempty.iter().map(|(n, op)| (n, 1, *op));
    let at_least = nonempty
        .chain(graph.at_least.iter().map(|(n, least, op)| (n, *least, *op)))
        .map(|(n, least, op)| {
            let k = Literal::usize_unsuffixed(size_index(n));
            let least = Literal::usize_unsuffixed(least);
            quote!((#k, #least, #op))
        });
    let graph_name = if f.name == "__tg_graph" {
        "closure".to_string()
    } else {
        f.name.to_string()
    };
    let text = signature_text(f, outputs);
    let ident = signature_ident(f);
    let cfgs = cfg_attrs(f);
    let expr_sigs = exprs.iter().map(|e| dim_expr_tokens(&p, e, &names));
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #ident: #p::GraphSignature = #p::GraphSignature {
            name: #graph_name,
            text: #text,
            syms: &[#(#names),*],
            params: &[#(#params),*],
            at_least: &[#(#at_least),*],
            exprs: &[#(#expr_sigs),*],
        };
    }
}

/// `expr?` in call entry's labeled block `'__tg_entry` (`emit_graph_fn`): an `Err`, a
/// boxed `EntryError`, breaks out of the block to the function's one error exit.
fn try_entry(expr: TokenStream) -> TokenStream {
    quote! {
        match #expr {
            ::core::result::Result::Ok(__tg_ok) => __tg_ok,
            ::core::result::Result::Err(__tg_err) => break '__tg_entry __tg_err,
        }
    }
}

/// The index parameters' checks (`gather`): after binding, before any kernel reads
/// through them, each an `Err` that breaks out of call entry.
fn emit_index_checks(rt: &TokenStream, f: &GraphFn, graph: &TypedGraph) -> TokenStream {
    let p = super::names::private(rt);
    let sig = signature_ident(f);
    graph
        .index_checks
        .iter()
        .map(|check| {
            let slice = input_slice(check.param);
            let param = &f.params[check.param];
            let arg = param.name.to_string();
            let dims = param
                .ty
                .dims
                .iter()
                .flatten()
                .map(|d| size_expr(&Size::of(d)));
            let len = size_expr(&Size::of(&check.bound));
            let (op, negative) = (check.op, check.negative);
            let skip = match check.skip {
                Some(v) => {
                    let magnitude = Literal::u128_unsuffixed(v.unsigned_abs());
                    let sign = if v < 0 { quote!(-) } else { quote!() };
                    quote!(::core::option::Option::Some(#sign #magnitude))
                }
                None => quote!(::core::option::Option::None),
            };
            let call = if check.tuple_bounds.is_empty() {
                try_entry(quote!(#p::check_indices(&#sig, #op, #arg, #slice, &[#(#dims),*], #len, #negative, #skip)))
            } else {
                let bounds = check.tuple_bounds.iter().map(|d| size_expr(&Size::of(d)));
                try_entry(quote!(#p::check_index_tuples(&#sig, #op, #arg, #slice, &[#(#dims),*], &[#(#bounds),*])))
            };
            quote!(#call;)
        })
        .collect()
}

/// Reads every tensor input's parts: the `let __tg_partsI = …` statements, the `ArgShape`
/// of each for `bind_entry`, and the input slices the kernel reads.
fn input_reads(
    rt: &TokenStream,
    f: &GraphFn,
    pitched: &[bool],
) -> (TokenStream, Vec<TokenStream>, TokenStream) {
    let mut reads = TokenStream::new();
    let mut shapes = Vec::new();
    let mut slices = TokenStream::new();
    for (i, param) in f.params.iter().enumerate() {
        if !is_tensor(f, i) {
            continue;
        }
        let tr = input_trait_ident(f, param);
        let name = &param.name;
        let parts = format_ident!("__tg_parts{}", i);
        let slice = input_slice(i);
        let t = storage_type(rt, param.ty.dtype);
        // The closure form's parameter is `&` the value its trait reads (`param_type`).
        let read = if is_closure(f) {
            quote!(#tr::lend(#name))
        } else {
            CoreRead::Lends.call(rt, param.ty.dtype, quote!(&#name))
        };
        reads.extend(quote!(let #parts = #read;));
        // A parameter the pitched kernel reads through a row pitch binds a row-strided
        // ndarray view; every other one refuses it (`ArgParts::arg_shape`).
        if pitched.get(i) == Some(&true) {
            shapes.push(quote!(#parts.arg_shape_pitched()));
        } else {
            shapes.push(quote!(#parts.arg_shape()));
        }
        slices.extend(quote!(let #slice: &[#t] = #parts.data;));
    }
    (reads, shapes, slices)
}

/// Reads every tensor argument (and output) and binds the dim names: `let [__tg_dim_B,
/// …] = match bind_entry(…) { … }` (an error breaks out of call entry's labeled block,
/// `try_entry`), then the slices the kernel reads and writes.
#[allow(clippy::too_many_arguments)]
fn emit_binding(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    outputs: &[(DType, Vec<Dim>)],
    out_names: &[proc_macro2::Ident],
    dim_idents: &[proc_macro2::Ident],
    pitched: &[bool],
    out_pitched: &[bool],
) -> TokenStream {
    let p = super::names::private(rt);
    let n = Literal::usize_unsuffixed(dim_idents.len());
    let (mut reads, mut shapes, mut slices) = input_reads(rt, f, pitched);
    for (k, ((dtype, _), out)) in outputs.iter().zip(out_names).enumerate() {
        let parts = format_ident!("__tg_out_parts{}", k);
        let slice = output_slice(k);
        let t = storage_type(rt, *dtype);
        let read = CoreRead::LendsMut.call(rt, *dtype, quote!(&mut #out));
        reads.extend(quote!(let #parts = #read;));
        if out_pitched.get(k) == Some(&true) {
            shapes.push(quote!(#parts.arg_shape_pitched()));
        } else {
            shapes.push(quote!(#parts.arg_shape()));
        }
        slices.extend(quote!(let #slice: &mut [#t] = #parts.data;));
    }
    let sig = signature_ident(f);
    let bind = try_entry(quote!(#p::bind_entry::<#n>(&#sig, &[#(#shapes),*])));
    let index_checks = emit_index_checks(rt, f, graph);
    quote! {
        #reads
        let [#(#dim_idents),*]: [usize; #n] = #bind;
        #slices
        #index_checks
    }
}

/// The kernel of a graph with only literal dims as a nested function of its slices and
/// scalars, called once: `fn kernel(__tg_in0: &[f32], s: f32, __tg_out_slice0: &mut [f32])`.
/// The `_into` function around it is generic over its arguments' types; the kernel is not,
/// so rustc type-checks it once with no where-clauses in scope (every lane operation's trait
/// lookup otherwise searches the function's bounds) and compiles it once, however many
/// argument types the function is called with.
fn literal_kernel(
    rt: &TokenStream,
    f: &GraphFn,
    outputs: &[(DType, Vec<Dim>)],
    body: TokenStream,
) -> TokenStream {
    let (params, args) = kernel_params(rt, f, outputs);
    // `kernel_item`: the function as written, or with the `dispatch` feature a baseline and
    // an AVX2 + FMA copy chosen at run time (tensor-core lib.rs `dispatch_kernel!`; issue 36).
    let item = kernel_item(
        rt,
        quote! {
            #[allow(clippy::too_many_arguments, unused_variables, unused_mut)]
            fn __tg_kernel(#(#params),*) {
                #body
            }
        },
    );
    quote! {
        #item
        __tg_kernel(#(#args),*)
    }
}

/// The parameters of a kernel function (the input slices `__tg_in*` and the scalars in
/// parameter order, then the output slices `__tg_out_slice*`) and the arguments that pass
/// them from the caller's locals of the same names.
fn kernel_params(
    rt: &TokenStream,
    f: &GraphFn,
    outputs: &[(DType, Vec<Dim>)],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (index, param) in f.params.iter().enumerate() {
        let t = storage_type(rt, param.ty.dtype);
        if is_tensor(f, index) {
            let slice = input_slice(index);
            params.push(quote!(#slice: &[#t]));
            args.push(quote!(#slice));
        } else {
            let name = param_ident(f, index);
            params.push(quote!(#name: #t));
            args.push(quote!(#name));
        }
    }
    for (index, (dtype, _)) in outputs.iter().enumerate() {
        let t = storage_type(rt, *dtype);
        let slice = output_slice(index);
        params.push(quote!(#slice: &mut [#t]));
        args.push(quote!(#slice));
    }
    (params, args)
}

/// The kernel of a graph with names: a function beside the graph's pair, not generic, of
/// the bound names (`__tg_dim_*`), the slices and the scalars, which both forms call after
/// binding (the allocating form once, from its inputs, with the outputs it allocated).
/// rustc type-checks and compiles it once, whatever argument types the pair is called
/// with; it returns `Result<(), EntryError>` only when it checks sizes at entry (`fallible`:
/// `checked_sizes` is not empty, `check_entry_sizes`), and `()` otherwise.
/// Returns the function and its call (inside call entry's labeled block).
fn symbolic_kernel(
    rt: &TokenStream,
    f: &GraphFn,
    outputs: &[(DType, Vec<Dim>)],
    fallible: bool,
    body: TokenStream,
    dims: &[proc_macro2::Ident],
    pitches: Option<&[proc_macro2::Ident]>,
) -> (TokenStream, TokenStream) {
    let p = super::names::private(rt);
    let (params, args) = kernel_params(rt, f, outputs);
    // The pitched kernel takes the row pitches after the names (`pitched_kernel`).
    let (ident, dims) = match pitches {
        None => (format_ident!("__tg_{}_kernel", fn_ident(f)), dims.to_vec()),
        Some(pitches) => (
            format_ident!("__tg_{}_kernel_pitched", fn_ident(f)),
            dims.iter().chain(pitches).cloned().collect(),
        ),
    };
    let cfgs = cfg_attrs(f);
    let (ret, end, call) = if fallible {
        (
            quote!(-> ::core::result::Result<(), #p::EntryError>),
            quote!(::core::result::Result::Ok(())),
            try_entry(quote!(#ident(#(#dims,)* #(#args),*))),
        )
    } else {
        (quote!(), quote!(), quote!(#ident(#(#dims,)* #(#args),*)))
    };
    // `kernel_item`, as `literal_kernel`'s: with the `dispatch` feature, a baseline and an
    // AVX2 + FMA copy of the body (issue 36).
    let item = kernel_item(
        rt,
        quote! {
            #(#cfgs)*
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, unused_variables, unused_mut, non_snake_case, unreachable_code)]
            fn #ident(#(#dims: usize,)* #(#params),*) #ret {
                #body
                #end
            }
        },
    );
    (item, quote!(#call;))
}

/// The tensor parameters a pitched kernel may read through a run-time row pitch: rank 2 or
/// more, and not an index parameter (whose call-entry check reads it as one buffer).
fn pitchable_params(f: &GraphFn, graph: &TypedGraph) -> Vec<bool> {
    (0..f.params.len())
        .map(|i| {
            is_tensor(f, i)
                && f.params[i].ty.dims.as_ref().is_some_and(|d| d.len() >= 2)
                && !graph.index_checks.iter().any(|c| c.param == i)
        })
        .collect()
}

/// Call entry's choice of kernel when a pitched one exists: each pitched parameter's row
/// pitch (`__tg_pitchI`: its argument's, or its row length when contiguous), then the
/// contiguous kernel when no argument has a pitch, else the pitched one. One test per
/// pitched parameter, once per call: the contiguous kernel stays as it was.
/// The outputs' pitches are tested only for `_into` (`into`): `f` allocates its outputs
/// contiguous, so their pitch is their row length.
fn choose_kernel(
    f: &GraphFn,
    pitched: &[bool],
    outputs: &[(DType, Vec<Dim>)],
    pitched_outputs: &[bool],
    into: bool,
    contiguous: &TokenStream,
    pitched_call: &TokenStream,
) -> TokenStream {
    let mut pitches = TokenStream::new();
    let mut tests = Vec::new();
    let mut pitch_of =
        |parts: proc_macro2::Ident, pitch: proc_macro2::Ident, last: &Dim, test: bool| {
            let row = size_expr(&Size::of(last));
            if test {
                pitches.extend(quote! {
                    let #pitch: usize = match #parts.pitch {
                        ::core::option::Option::Some(pitch) => pitch,
                        ::core::option::Option::None => #row,
                    };
                });
                tests.push(quote!(#parts.pitch.is_none()));
            } else {
                pitches.extend(quote!(let #pitch: usize = #row;));
            }
        };
    for (i, _) in pitched.iter().enumerate().filter(|(_, p)| **p) {
        let last = f.params[i]
            .ty
            .dims
            .as_ref()
            .and_then(|d| d.last())
            .expect("a pitched parameter has rank 2 or more");
        pitch_of(
            format_ident!("__tg_parts{}", i),
            dim_ident(&crate::lower::pitch_name(i)),
            last,
            true,
        );
    }
    for (k, _) in pitched_outputs.iter().enumerate().filter(|(_, p)| **p) {
        let last = outputs[k]
            .1
            .last()
            .expect("a pitched output has rank 2 or more");
        pitch_of(
            format_ident!("__tg_out_parts{}", k),
            dim_ident(&crate::lower::output_pitch_name(k)),
            last,
            into,
        );
    }
    // `f` of a graph whose only pitchable buffers are outputs: they are its own, contiguous.
    if tests.is_empty() {
        return contiguous.clone();
    }
    quote! {
        if #(#tests)&&* {
            #contiguous
        } else {
            #pitches
            #pitched_call
        }
    }
}

/// The function pair `name` / `name_into` (with `kernel`), or, when checking failed,
/// their signatures with an unreachable body so the rest of the crate still type-checks.
/// `warnings` are statements placed first in the body of `name`, where the lint level of
/// the graph's attributes applies to them.
///
/// The parameters' argument traits come first, then one of the module's two forms: a graph
/// with only literal dims (`literal_pair`) or a graph with names (`symbolic_pair`).
pub fn emit_graph_fn(
    rt: &TokenStream,
    f: &GraphFn,
    graph: Option<&TypedGraph>,
    kernel: Option<&Kernel>,
    warnings: &TokenStream,
) -> TokenStream {
    let symbolic = is_symbolic(f);
    let param_names: Vec<_> = (0..f.params.len()).map(|i| param_ident(f, i)).collect();
    let outputs = output_types(f, graph);
    // A graph with only literal dims called by name: each tensor argument through its
    // `StaticCheck` traits.
    let static_named = !symbolic && !is_closure(f);
    let input_checks: Vec<Option<StaticCheck>> = (0..f.params.len())
        .map(|i| (static_named && is_tensor(f, i)).then(|| static_input_check(rt, f, i)))
        .collect();
    let param_types: Vec<_> = (0..f.params.len())
        .map(|i| match &input_checks[i] {
            Some(check) => {
                let tr = &check.form_trait;
                let span = f.params[i].ty.span;
                quote_spanned!(span=> impl #tr)
            }
            None => param_type(rt, f, i, symbolic),
        })
        .collect();
    let arg_traits = if static_named {
        let outputs = outputs.iter().flat_map(|outputs| {
            (0..outputs.len()).map(move |k| static_output_check(rt, f, outputs, k).traits)
        });
        let inputs = input_checks.iter().flatten().map(|c| c.traits.clone());
        inputs.chain(outputs).collect()
    } else {
        emit_arg_traits(rt, f, outputs.as_deref(), symbolic)
    };
    let Some(outputs) = outputs else {
        // Errors and no declared output type: nothing to name the output by.
        let (attrs, vis, name) = (&f.attrs, &f.vis, fn_ident(f));
        return quote! {
            #arg_traits
            #(#attrs)*
            #[allow(unused_variables, unreachable_code, clippy::too_many_arguments)]
            #vis fn #name(#(#param_names: #param_types),*) -> ! {
                #warnings
                ::core::panic!()
            }
        };
    };
    let pair = Pair::new(rt, f, graph.zip(kernel), outputs, param_names, param_types);
    let docs = PairDocs::new(f, &pair.outputs, symbolic, pair.reads_indices, kernel);
    let functions = if symbolic {
        symbolic_pair(&pair, &docs, warnings)
    } else {
        literal_pair(&pair, &docs, warnings, static_named)
    };
    quote! {
        #arg_traits
        #functions
    }
}

/// What both forms of a graph's function pair share once its outputs are known: the
/// names, the parameters and the returned value.
struct Pair<'a> {
    rt: &'a TokenStream,
    f: &'a GraphFn,
    /// The checked graph and its kernel; `None` when checking failed (the bodies panic).
    checked: Option<(&'a TypedGraph, &'a Kernel)>,
    /// `name` and `name_into`.
    name: proc_macro2::Ident,
    into_name: proc_macro2::Ident,
    param_names: Vec<proc_macro2::Ident>,
    param_types: Vec<TokenStream>,
    /// Each output's dtype and dims.
    outputs: Vec<(DType, Vec<Dim>)>,
    out_names: Vec<proc_macro2::Ident>,
    out_tensor_types: Vec<TokenStream>,
    /// `f`'s return type (the tensor, or a tuple of them) and the value it returns.
    ret_type: TokenStream,
    ret_value: TokenStream,
    /// The graph reads indices (`ops::INDEX_OPS`): it checks them at call entry, so with
    /// only literal dims too it returns `Result`.
    reads_indices: bool,
}

impl<'a> Pair<'a> {
    fn new(
        rt: &'a TokenStream,
        f: &'a GraphFn,
        checked: Option<(&'a TypedGraph, &'a Kernel)>,
        outputs: Vec<(DType, Vec<Dim>)>,
        param_names: Vec<proc_macro2::Ident>,
        param_types: Vec<TokenStream>,
    ) -> Self {
        let name = fn_ident(f);
        let into_name = format_ident!("{}_into", name);
        let out_names = output_idents(f, outputs.len());
        let out_tensor_types: Vec<_> = outputs
            .iter()
            .map(|(d, dims)| tensor_type(rt, *d, dims))
            .collect();
        let (ret_type, ret_value) = if outputs.len() == 1 {
            let o = &out_names[0];
            (out_tensor_types[0].clone(), quote!(#o))
        } else {
            (quote!((#(#out_tensor_types),*)), quote!((#(#out_names),*)))
        };
        Pair {
            rt,
            f,
            checked,
            name,
            into_name,
            param_names,
            param_types,
            outputs,
            out_names,
            out_tensor_types,
            ret_type,
            ret_value,
            reads_indices: f.calls(crate::ops::INDEX_OPS),
        }
    }
}

/// What differs between the two forms' functions (`Pair::functions`).
struct PairFunctions {
    /// The lints `f` allows, its return (`-> …`) and its body after the warnings.
    f_allow: TokenStream,
    f_ret: TokenStream,
    f_body: TokenStream,
    /// `_into`'s first doc line, its output parameters, its return (`-> …`, or nothing)
    /// and its body.
    into_doc: String,
    into_outputs: Vec<TokenStream>,
    into_ret: TokenStream,
    into_body: TokenStream,
}

impl Pair<'_> {
    /// `f` and `_into`, the same in both forms but for `functions`. `f` carries the
    /// graph's attributes and doc comment; the rustdoc of both shows the signature in the
    /// DSL, `f`'s says when it fails, `_into`'s what it allocates.
    fn functions(
        &self,
        docs: &PairDocs,
        warnings: &TokenStream,
        functions: PairFunctions,
    ) -> TokenStream {
        let Pair {
            f,
            name,
            into_name,
            param_names,
            param_types,
            ..
        } = self;
        let PairFunctions {
            f_allow,
            f_ret,
            f_body,
            into_doc,
            into_outputs,
            into_ret,
            into_body,
        } = functions;
        let (attrs, vis) = (&f.attrs, &f.vis);
        let (sig_doc, fail_doc) = (&docs.signature, docs.fail);
        quote! {
            #(#attrs)*
            #[doc = ""]
            #[doc = #sig_doc]
            #[doc = ""]
            #[doc = #fail_doc]
            #[allow(#f_allow)]
            #vis fn #name(#(#param_names: #param_types),*) #f_ret {
                #warnings
                #f_body
            }

            #[doc = #into_doc]
            #[doc = ""]
            #[doc = #sig_doc]
            #[allow(clippy::too_many_arguments, unused_variables, unused_mut, unreachable_code)]
            #vis fn #into_name(#(#param_names: #param_types,)* #(#into_outputs),*) #into_ret {
                #into_body
            }
        }
    }
}

/// The rustdoc of both functions, after the graph's own doc comment.
struct PairDocs {
    /// The graph's signature in the DSL notation: the Rust signature names argument traits
    /// and `Fixed`.
    signature: String,
    /// When the function can fail, and how.
    fail: &'static str,
    /// What `_into` allocates: "; allocates nothing" or the list (`alloc_doc`).
    alloc: String,
}

impl PairDocs {
    fn new(
        f: &GraphFn,
        outputs: &[(DType, Vec<Dim>)],
        symbolic: bool,
        reads_indices: bool,
        kernel: Option<&Kernel>,
    ) -> Self {
        let fail = if reads_indices && !symbolic {
            " Every dim is checked while compiling; an index out of range is an `Err` \
             (`ShapeError::IndexOutOfRange`), returned before anything is written."
        } else if symbolic {
            " Dim names are bound from the arguments when the function is called; arguments \
             that disagree on a name, slices whose length does not fit and outputs of the \
             wrong size are an `Err` (`ShapeError`), returned before anything is written."
        } else {
            " Every dim is checked while compiling: the function cannot fail."
        };
        PairDocs {
            signature: format!(" Graph signature: `{}`", signature_text(f, outputs)),
            fail,
            alloc: alloc_doc(kernel),
        }
    }
}

/// The end of `_into`'s first doc sentence: what it allocates, each measured with a
/// counting allocator (NOTES.md, "Diagnostics"): temps off the stack come from the scratch
/// pool; a product packs its operands into tensor-core's per-thread GEMM workspace
/// (gemm/pack.rs); a stage split into tasks, a scan (reduce.rs `scan`) and a product's
/// packing (gemm/packed.rs) may run on rayon's pool, which rayon builds (and allocates)
/// when it is first used.
fn alloc_doc(kernel: Option<&Kernel>) -> String {
    let allocates = kernel.is_some_and(|k| {
        k.temps.iter().any(|t| {
            t.row_local.is_none()
                || t.row_local
                    .as_ref()
                    .and_then(|r| r.as_static())
                    .is_none_or(|n| n > super::stages::STACK_ROW_LIMIT)
        })
    });
    let products = kernel.is_some_and(|k| k.nests.iter().any(|n| n.matmul.is_some()));
    let threads = kernel.is_some_and(|k| {
        k.stages.iter().any(|s| s.tasks.is_some())
            || k.nests
                .iter()
                .any(|n| n.scan.is_some() || n.matmul.is_some())
    });
    // A debug build's program keeps the registers of a nest of more values than tensor-core
    // holds on the stack in a per-thread buffer (emit/debug.rs `MAX_VALUES`).
    let wide = kernel.is_some_and(|k| {
        k.nests
            .iter()
            .any(|n| n.values.len() > super::debug::MAX_VALUES)
    });
    let mut alloc_parts = Vec::new();
    if allocates {
        alloc_parts.push(
            "its temporaries (reduction accumulators, scans, blocks of a product) come from a \
             per-thread scratch pool, allocated on the first call on a thread and reused after",
        );
    }
    if products {
        alloc_parts.push(
            "a matrix product packs its operands into a per-thread workspace, allocated on a \
             thread's first product and grown when a larger one needs more",
        );
    }
    if wide {
        alloc_parts.push(
            "in a debug build, a loop of more than 32 fused values may keep its registers in a \
             per-thread buffer, allocated on the first call on a thread and reused after",
        );
    }
    if threads {
        alloc_parts.push(
            "with the `parallel` feature (on by default) a large call runs on rayon's global \
             thread pool, which rayon allocates when it is first used",
        );
    }
    if alloc_parts.is_empty() {
        "; allocates nothing".to_string()
    } else {
        format!(
            "; {}. A repeated call with arguments of the same sizes, on the same thread, \
             makes no allocation",
            alloc_parts.join("; ")
        )
    }
}

/// The pair of a graph with only literal dims: it cannot fail (unless it reads indices,
/// `Pair::reads_indices`). Its tensor arguments and outputs are read through their argument
/// traits (in the closure form the parameters are `&impl` them, as the closure passes
/// `&dyn`), whose one impl that can hold is for the declared dtype and literal dims: the
/// slices have exactly the static length. `f` allocates its outputs and calls `_into`.
fn literal_pair(
    pair: &Pair,
    docs: &PairDocs,
    warnings: &TokenStream,
    static_named: bool,
) -> TokenStream {
    let Pair {
        rt,
        f,
        name,
        into_name,
        param_names,
        out_names,
        out_tensor_types,
        ret_type,
        ret_value,
        ..
    } = pair;
    let p = super::names::private(rt);
    let out_traits: Vec<_> = (0..out_names.len())
        .map(|k| output_trait_ident(f, k, out_names.len()))
        .collect();
    let into_body = match pair.checked {
        Some((graph, kernel)) => literal_into_body(pair, graph, kernel, static_named),
        None => quote!(::core::panic!()),
    };
    let into_doc = format!(
        " Writes the outputs of [`{name}`] into caller-provided tensors{}.",
        docs.alloc
    );
    // A graph that reads indices checks them before the kernel: both functions then
    // return `Result`.
    let (f_ret, f_call, f_value, into_ret) = if pair.reads_indices {
        (
            quote!(-> ::core::result::Result<#ret_type, #p::ShapeError>),
            quote!(?;),
            quote!(::core::result::Result::Ok(#ret_value)),
            quote!(-> ::core::result::Result<(), #p::ShapeError>),
        )
    } else {
        (
            quote!(-> #ret_type),
            quote!(;),
            quote!(#ret_value),
            TokenStream::new(),
        )
    };
    pair.functions(
        docs,
        warnings,
        PairFunctions {
            f_allow: quote!(clippy::too_many_arguments),
            f_ret,
            f_body: quote! {
                #(let mut #out_names = <#out_tensor_types>::zeros();)*
                #into_name(#(#param_names,)* #(&mut #out_names),*) #f_call
                #f_value
            },
            into_doc,
            into_outputs: out_names
                .iter()
                .zip(&out_traits)
                .map(|(out, tr)| quote!(#out: &mut impl #tr))
                .collect(),
            into_ret,
            into_body,
        },
    )
}

/// The body of a literal-dim graph's `_into`: the slices of its arguments and outputs,
/// then the kernel (`literal_kernel`); a graph that reads indices checks them first, in
/// call entry's labeled block (`symbolic_pair`), and returns `Result`.
fn literal_into_body(
    pair: &Pair,
    graph: &TypedGraph,
    kernel: &Kernel,
    static_named: bool,
) -> TokenStream {
    let Pair {
        rt,
        f,
        outputs,
        out_names,
        ..
    } = pair;
    let p = super::names::private(rt);
    let mut setup = TokenStream::new();
    for (index, param) in f.params.iter().enumerate() {
        if !is_tensor(f, index) {
            continue;
        }
        let name = &param.name;
        let t = storage_type(rt, param.ty.dtype);
        let slice = input_slice(index);
        // Called by name the argument is `impl` its trait, in the closure form
        // `&(impl … + ?Sized)`.
        let tr = input_trait_ident(f, param);
        let read = if static_named {
            CoreRead::Reads.call(rt, param.ty.dtype, quote!(&#name))
        } else {
            quote!(#tr::elements(#name))
        };
        setup.extend(quote!(let #slice: &[#t] = #read;));
    }
    for (index, out) in out_names.iter().enumerate() {
        let t = storage_type(rt, outputs[index].0);
        let slice = output_slice(index);
        let read = CoreRead::Writes.call(rt, outputs[index].0, quote!(#out));
        setup.extend(quote!(let #slice: &mut [#t] = #read;));
    }
    let body = literal_kernel(
        rt,
        f,
        outputs,
        emit_kernel(
            &Emitter {
                rt,
                f,
                graph,
                kernel,
            },
            &entry_checks(f, graph, kernel),
            debug_assertions(),
        ),
    );
    if !pair.reads_indices {
        return quote!(#setup #body);
    }
    let checks = emit_index_checks(rt, f, graph);
    let exprs = graph_exprs(f, graph, outputs);
    let signature = signature_static(rt, f, graph, outputs, &exprs);
    quote! {
        #signature
        #setup
        let __tg_failed: #p::EntryError = '__tg_entry: {
            #checks
            #body;
            return ::core::result::Result::Ok(());
        };
        ::core::result::Result::Err(#p::entry_error(__tg_failed))
    }
}

/// The pair of a graph with names: both bind the names at call entry and return `Result`.
/// Call entry (binding, allocating, the kernel's size checks) runs in a labeled block whose
/// failing steps break out with a boxed `EntryError` (`try_entry`): the function has one
/// error exit, which unboxes it.
fn symbolic_pair(pair: &Pair, docs: &PairDocs, warnings: &TokenStream) -> TokenStream {
    let Pair {
        rt,
        f,
        name,
        out_names,
        ret_type,
        ..
    } = pair;
    let p = super::names::private(rt);
    let exit = quote! {
        ::core::result::Result::Err(#p::entry_error(__tg_failed))
    };
    let (items, f_body, into_body) = match pair.checked {
        Some((graph, kernel)) => symbolic_bodies(pair, graph, kernel, &exit),
        None => (
            TokenStream::new(),
            quote!(::core::panic!()),
            quote!(::core::panic!()),
        ),
    };
    let into_doc = format!(
        " Writes the outputs of [`{name}`] into caller-provided tensors, slices or arrays{}.\n\n\
         Checks every argument's dims at entry and returns `Err` before writing anything.",
        docs.alloc
    );
    let functions = pair.functions(
        docs,
        warnings,
        PairFunctions {
            f_allow: quote!(
                clippy::too_many_arguments,
                unused_variables,
                unreachable_code
            ),
            f_ret: quote!(-> ::core::result::Result<#ret_type, #p::ShapeError>),
            f_body,
            into_doc,
            into_outputs: out_names
                .iter()
                .enumerate()
                .map(|(k, out)| {
                    let tr = output_trait_ident(f, k, out_names.len());
                    quote!(mut #out: impl #tr)
                })
                .collect(),
            into_ret: quote!(-> ::core::result::Result<(), #p::ShapeError>),
            into_body,
        },
    );
    quote! {
        #items

        #functions
    }
}

/// The kernels a graph with names calls, and how call entry picks one.
struct Kernels {
    /// The kernel functions (`symbolic_kernel`): the contiguous one, and the pitched one
    /// when the graph has one.
    items: TokenStream,
    /// The call in `f` and in `_into` (`choose_kernel` when there is a pitched kernel).
    call: TokenStream,
    into_call: TokenStream,
    /// Which parameters and outputs the pitched kernel reads through a row pitch (all
    /// `false` without one).
    pitched: Vec<bool>,
    out_pitched: Vec<bool>,
}

/// The items beside a graph with names (its signature constant and kernels) and the bodies
/// of `f` and `_into`: `f` binds the names from its inputs to size its outputs, then runs
/// the kernel on them, one binding per call; `_into` binds from its inputs and outputs
/// (`emit_binding`). `exit` is the one error exit after call entry's labeled block.
fn symbolic_bodies(
    pair: &Pair,
    graph: &TypedGraph,
    kernel: &Kernel,
    exit: &TokenStream,
) -> (TokenStream, TokenStream, TokenStream) {
    let Pair {
        rt,
        f,
        outputs,
        out_names,
        out_tensor_types,
        ret_value,
        ..
    } = pair;
    let p = super::names::private(rt);
    let exprs = graph_exprs(f, graph, outputs);
    let signature = signature_static(rt, f, graph, outputs, &exprs);
    let dim_idents = dim_locals(&dim_names(f), &exprs);
    let kernels = symbolic_kernels(pair, graph, kernel, &dim_idents);
    let Kernels {
        items: kernel_fn,
        call: kernel_call,
        into_call,
        pitched,
        out_pitched,
    } = &kernels;
    let n = Literal::usize_unsuffixed(dim_idents.len());
    let (reads, shapes, slices) = input_reads(rt, f, pitched);
    let allocs = outputs.iter().zip(out_names).map(|((dtype, dims), out)| {
        let t = storage_type(rt, *dtype);
        let s = shape_type(rt, dims);
        let extents = dims.iter().map(|d| match d {
            Dim::Static(n) => {
                let n = Literal::usize_unsuffixed(*n);
                quote!(#n)
            }
            Dim::Named(_) | Dim::Expr(_) => size_expr(&Size::of(d)),
        });
        let zeros = try_entry(quote!(#p::graph_output::<#t, #s>([#(#extents),*])));
        quote!(let mut #out = #zeros;)
    });
    let sig = signature_ident(f);
    let bind = try_entry(quote!(#p::bind_entry::<#n>(&#sig, &[#(#shapes),*])));
    let index_checks = emit_index_checks(rt, f, graph);
    let out_slices = outputs
        .iter()
        .zip(out_names)
        .zip(out_tensor_types)
        .enumerate()
        .map(|(k, (((dtype, _), out), ty))| {
            let slice = output_slice(k);
            let t = storage_type(rt, *dtype);
            quote!(let #slice: &mut [#t] = <#ty>::as_mut_slice(&mut #out);)
        });
    let f_body = quote! {
        let __tg_failed: #p::EntryError = '__tg_entry: {
            #reads
            let [#(#dim_idents),*]: [usize; #n] = #bind;
            #(#allocs)*
            #slices
            #index_checks
            #(#out_slices)*
            #kernel_call
            return ::core::result::Result::Ok(#ret_value);
        };
        #exit
    };
    let binding = emit_binding(
        rt,
        f,
        graph,
        outputs,
        out_names,
        &dim_idents,
        pitched,
        out_pitched,
    );
    let into_body = quote! {
        let __tg_failed: #p::EntryError = '__tg_entry: {
            #binding
            #into_call
            return ::core::result::Result::Ok(());
        };
        #exit
    };
    (quote!(#signature #kernel_fn), f_body, into_body)
}

/// The kernels of a graph with names. Row-strided ndarray views run in place through a
/// second kernel that reads the pitchable parameters through run-time row pitches
/// (NOTES.md, "Row-strided ndarray views"); call entry picks it only when an argument has
/// a pitch.
fn symbolic_kernels(
    pair: &Pair,
    graph: &TypedGraph,
    kernel: &Kernel,
    dim_idents: &[proc_macro2::Ident],
) -> Kernels {
    let Pair { rt, f, outputs, .. } = pair;
    // One kernel's function and call; the kernel returns `Result` exactly when it checks
    // sizes at entry.
    let kernel_fn = |kernel: &Kernel, pitches: Option<&[proc_macro2::Ident]>| {
        let checks = entry_checks(f, graph, kernel);
        let emitter = Emitter {
            rt,
            f,
            graph,
            kernel,
        };
        let body = emit_kernel(&emitter, &checks, debug_assertions());
        let fallible = !checks.sizes.is_empty();
        symbolic_kernel(rt, f, outputs, fallible, body, dim_idents, pitches)
    };
    let (contiguous_fn, contiguous_call) = kernel_fn(kernel, None);
    let pitchable = pitchable_params(f, graph);
    // Outputs of rank 2 or more with a name: one of only literal dims could take the
    // streaming stores of a large literal nest (`streams_outputs`), which assume
    // contiguous rows.
    let out_pitchable: Vec<bool> = outputs
        .iter()
        .map(|(_, d)| d.len() >= 2 && d.iter().any(|d| !matches!(d, Dim::Static(_))))
        .collect();
    // Only ndarray views lend a row pitch: without them the pitched kernel is not emitted,
    // and call entry reads every argument as contiguous (`arg_shape`, whose error a pitch
    // would get, cannot happen then).
    let pitched_kernel = ndarray_args()
        .then(|| crate::lower::lower_graph_pitched(graph, &pitchable, &out_pitchable))
        .flatten();
    let Some(pitched_kernel) = pitched_kernel else {
        return Kernels {
            items: contiguous_fn,
            call: contiguous_call.clone(),
            into_call: contiguous_call,
            pitched: vec![false; f.params.len()],
            out_pitched: vec![false; outputs.len()],
        };
    };
    let pitch_idents: Vec<_> = (0..f.params.len())
        .filter(|&i| pitchable[i])
        .map(|i| dim_ident(&crate::lower::pitch_name(i)))
        .chain(
            (0..outputs.len())
                .filter(|&k| out_pitchable[k])
                .map(|k| dim_ident(&crate::lower::output_pitch_name(k))),
        )
        .collect();
    let (pitched_fn, pitched_call) = kernel_fn(&pitched_kernel, Some(&pitch_idents));
    let choose = |into: bool| {
        choose_kernel(
            f,
            &pitchable,
            outputs,
            &out_pitchable,
            into,
            &contiguous_call,
            &pitched_call,
        )
    };
    Kernels {
        items: quote!(#contiguous_fn #pitched_fn),
        call: choose(false),
        into_call: choose(true),
        pitched: pitchable,
        out_pitched: out_pitchable,
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use proc_macro2::TokenStream;

    /// The generated functions' doc attributes, as rustdoc shows them (issue 19, item 2).
    fn docs(graph: &str) -> Vec<String> {
        let mut input = TokenStream::from_str("::tensorgraph;").unwrap();
        input.extend(TokenStream::from_str(graph).unwrap());
        let expanded = crate::expand(input);
        let file: syn::File = syn::parse2(expanded).expect("the expansion parses as items");
        let mut docs = Vec::new();
        for item in file.items {
            if let syn::Item::Fn(f) = item {
                let text: Vec<String> = f
                    .attrs
                    .iter()
                    .filter(|a| a.path().is_ident("doc"))
                    .map(|a| match &a.meta {
                        syn::Meta::NameValue(nv) => match &nv.value {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(s),
                                ..
                            }) => s.value(),
                            _ => String::new(),
                        },
                        _ => String::new(),
                    })
                    .collect();
                docs.push(format!("{}:{}", f.sig.ident, text.join("\n")));
            }
        }
        docs
    }

    /// The expansion of `graph` for a runtime with the features `flags` (`", ndarray"` …).
    fn expansion(flags: &str, graph: &str) -> String {
        let mut input = TokenStream::from_str(&format!("::tensorgraph{flags};")).unwrap();
        input.extend(TokenStream::from_str(graph).unwrap());
        crate::expand(input).to_string()
    }

    /// What only ndarray arguments reach is emitted only for a runtime that accepts them,
    /// and kernels go through `dispatch_kernel!` only when it makes several copies.
    #[test]
    fn runtime_features_choose_what_is_emitted() {
        let graph = "fn rows(x: f32[B, 8], y: f32[8]) -> f32[B, 8] { x * y }";
        let plain = expansion("", graph);
        let arrays = expansion(", ndarray", graph);
        let both = expansion(", ndarray, dispatch", graph);
        // The row-pitched kernel and the wrong-rank check of `x`.
        for text in [&arrays, &both] {
            assert!(text.contains("__tg_rows_kernel_pitched"), "{text}");
            assert!(text.contains("rows_x_ndrank"), "{text}");
        }
        assert!(!plain.contains("__tg_rows_kernel_pitched"), "{plain}");
        assert!(!plain.contains("ndrank"), "{plain}");
        assert!(!plain.contains("arg_shape_pitched"), "{plain}");
        // One kernel either way: `dispatch_kernel!` only with `dispatch`, otherwise the
        // function with its lane operations bound to `__private`.
        assert!(both.contains("dispatch_kernel !"), "{both}");
        for text in [&plain, &arrays] {
            assert!(!text.contains("dispatch_kernel"), "{text}");
            assert!(
                text.contains("use :: tensorgraph :: __private as __tg_lanes"),
                "{text}"
            );
            assert!(text.contains("fn __tg_rows_kernel"), "{text}");
        }
        // The contiguous kernel is the same token for token, with or without `ndarray`.
        let kernel = |text: &str| {
            let at = text.find("fn __tg_rows_kernel (").expect("the kernel");
            text[at..at + 2000.min(text.len() - at)].to_string()
        };
        assert_eq!(kernel(&plain), kernel(&arrays));
        // An unknown flag is an error, not a panic.
        assert!(expansion(", simd", graph)
            .contains("expected `ndarray`, `dispatch`, `debug` or `release`"));
    }

    /// With `debug` or `release` (tensorgraph's `graph!`, under the user's `cfg`) a covered
    /// kernel gets only that build's branch; without either, both, picked by `cfg`.
    #[test]
    fn the_build_flag_chooses_the_branch() {
        let graph = "fn scale(x: f32[4, 8]) -> f32[4, 8] { x * 2.0 }";
        let (both, debug, release) = (
            expansion("", graph),
            expansion(", debug", graph),
            expansion(", release", graph),
        );
        let (program, fused) = ("__tg_b :: run_code_v1", "__tg_lanes :: load");
        assert!(both.contains(program) && both.contains(fused), "{both}");
        assert!(both.contains("macro_rules ! __tg_branch"), "{both}");
        assert!(debug.contains(program) && !debug.contains(fused), "{debug}");
        assert!(
            !release.contains(program) && release.contains(fused),
            "{release}"
        );
        for text in [&debug, &release] {
            assert!(!text.contains("__tg_branch"), "{text}");
        }
    }

    #[test]
    fn rustdoc_shows_the_dsl_signature_and_the_graph_doc() {
        let docs = docs(
            "/// Scales every element.\n\
             pub fn scale(x: f32[4, 8], s: f32) -> f32[4, 8] { x * s }",
        );
        assert_eq!(docs.len(), 2, "{docs:?}");
        assert!(
            docs[0].starts_with("scale: Scales every element."),
            "{docs:?}"
        );
        assert!(
            docs[0].contains(" Graph signature: `scale(x: f32[4, 8], s: f32) -> f32[4, 8]`"),
            "{docs:?}"
        );
        assert!(
            docs[0].contains("Every dim is checked while compiling: the function cannot fail."),
            "{docs:?}"
        );
        // No reduction, no temporaries: `_into` allocates nothing, and says so.
        assert!(docs[1].starts_with("scale_into:"), "{docs:?}");
        assert!(
            docs[1].contains("into caller-provided tensors; allocates nothing."),
            "{docs:?}"
        );
        assert!(
            docs[1].contains(" Graph signature: `scale(x: f32[4, 8], s: f32) -> f32[4, 8]`"),
            "{docs:?}"
        );
    }

    #[test]
    fn into_docs_say_when_temporaries_come_from_the_scratch_pool() {
        // A row of 4096 is over the stack limit for row-local temporaries: the softmax's
        // row max and sum come from the scratch pool, and the doc must not claim otherwise.
        let docs = docs("fn sm(x: f32[B, 4096]) -> f32[B, 4096] { softmax(x, axis = 1) }");
        let into = docs
            .iter()
            .find(|d| d.starts_with("sm_into:"))
            .expect("sm_into");
        assert!(!into.contains("allocates nothing"), "{into}");
        assert!(
            into.contains("from a per-thread scratch pool, allocated on the first call"),
            "{into}"
        );
        assert!(
            into.contains(" Graph signature: `sm(x: f32[B, 4096]) -> f32[B, 4096]`"),
            "{into}"
        );
        let f = docs.iter().find(|d| d.starts_with("sm:")).expect("sm");
        assert!(f.contains("are an `Err` (`ShapeError`)"), "{f}");
    }

    #[test]
    fn into_docs_say_when_products_and_threads_allocate() {
        // A product packs its operands into tensor-core's per-thread workspace, allocated on
        // the first call (4 allocations for 64 x 64, counted), and may pack on rayon's pool.
        let d = docs("fn mm(a: f32[64, 64], b: f32[64, 64]) -> f32[64, 64] { a @ b }");
        let into = d
            .iter()
            .find(|d| d.starts_with("mm_into:"))
            .expect("mm_into");
        assert!(!into.contains("allocates nothing"), "{into}");
        assert!(
            into.contains("packs its operands into a per-thread workspace"),
            "{into}"
        );
        assert!(into.contains("rayon's global thread pool"), "{into}");
        assert!(
            into.contains("on the same thread, makes no allocation."),
            "{into}"
        );
        // A stage split into tasks (2^20 elements): rayon's pool is built on its first use
        // (30 allocations counted on the first call of a process).
        let d = docs("fn big(x: f32[1024, 1024]) -> f32[1024, 1024] { exp(x) * 2.0 }");
        let into = d
            .iter()
            .find(|d| d.starts_with("big_into:"))
            .expect("big_into");
        assert!(!into.contains("allocates nothing"), "{into}");
        assert!(into.contains("rayon's global thread pool"), "{into}");
        assert!(!into.contains("scratch pool"), "{into}");
        assert!(!into.contains("workspace"), "{into}");
        // Row-local temps of a short row live on the stack: layer norm of 768-wide rows
        // allocates nothing at all (counted: tests/alloc_free.rs).
        let d = docs(
            "fn ln(x: f32[8, 768]) -> f32[8, 768] { \
                 let d = x - mean(x, axis = 1, keepdims = true); \
                 d * rsqrt(mean(d * d, axis = 1, keepdims = true) + 1e-5) }",
        );
        let into = d
            .iter()
            .find(|d| d.starts_with("ln_into:"))
            .expect("ln_into");
        assert!(
            into.contains("into caller-provided tensors; allocates nothing."),
            "{into}"
        );
    }
}
