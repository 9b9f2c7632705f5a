//! The debug branch of a kernel (issue 33 item 1; NOTES.md "Debug backend, first slice"):
//! in a build with `debug_assertions`, a covered graph runs as programs of block ops
//! interpreted by tensor-core's `blocks::run_nest`, compiled there once, instead of its
//! fused kernel, which rustc would compile into the user's crate at opt-level 0. Both
//! branches are emitted under `cfg`; rustc type-checks and compiles only the active one.
//!
//! A program is the lowered kernel itself as data: each loop nest becomes a
//! `blocks::Nest` (its extents, each value a `Val`, each store), so broadcasting, strides,
//! flips and named dims reach it exactly as they reach the fused kernel (the operands'
//! offsets, written with the same `offset_expr`/`size_expr`). Call entry (argument checks,
//! `check_entry_sizes`, `Result` errors, outputs) is the signature layer's and the kernel
//! setup's, shared by both branches.
//!
//! Covered (`debug_program` returns `Some`): kernels without temps whose nests all store
//! (no reduction, scan, product, gather or position), every value a load of an input or
//! output, a constant, a scalar, a count, a cast, a select or a registry op whose lane
//! function has a block op (`lane_fn_covered`), on any dtype. Every other kernel keeps its
//! fused kernel in debug builds too: a choice made here, at expansion, so a graph is never
//! run by a program it does not fit.
//!
//! `TENSORGRAPH_DEBUG_BACKEND=off` in the macro's environment turns the backend off (every
//! kernel fused, as before issue 33); cargo does not rebuild on a change of it, so use it
//! with a clean target directory (measurements).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::dtype::DType;
use crate::ir::{BufferRef, Level, LoopNest, NodeKind, Operand, Sink, ValueSource};
use crate::ops::Typing;

use super::context::Emitter;
use super::names::{offset_expr, size_expr, slice_ident, storage_type};
use super::values::{count_value, emit_const};

/// The `NumLanes`, `CompareLanes`, `BitwiseLanes` and `ShiftLanes` methods tensor-core's
/// `blocks` module has a block op of, for every compute type the trait is implemented for
/// (its `num_fns!`, `common_fns!`, `integer_ops!` and `bool_ops`). `FloatLanes` rows of
/// the function table and its two predicates are covered by their typing (`float_ops!`).
const BLOCK_LANE_FNS: &[(&str, &[&str])] = &[
    (
        "NumLanes",
        &[
            "add_lanes",
            "sub_lanes",
            "mul_lanes",
            "div_lanes",
            "rem_lanes",
            "modulo_lanes",
            "max_lanes",
            "min_lanes",
            "pow_lanes",
            "neg_lanes",
            "abs_lanes",
            "relu_lanes",
            "floor_lanes",
            "round_lanes",
            "roundeven_lanes",
            "trunc_lanes",
            "ceil_lanes",
            "sign_lanes",
            "square_lanes",
        ],
    ),
    (
        "CompareLanes",
        &[
            "eq_lanes", "ne_lanes", "lt_lanes", "le_lanes", "gt_lanes", "ge_lanes",
        ],
    ),
    (
        "BitwiseLanes",
        &["and_lanes", "or_lanes", "xor_lanes", "not_lanes"],
    ),
    ("ShiftLanes", &["shl_lanes", "shr_lanes"]),
];

/// Whether the debug backend is on (see the module doc).
fn enabled() -> bool {
    std::env::var("TENSORGRAPH_DEBUG_BACKEND").map_or(true, |v| v != "off")
}

/// Whether tensor-core has a block op for registry op `op` (without named parameters).
fn lane_fn_covered(op: &crate::ops::Op) -> bool {
    if !op.params.is_empty() {
        return false;
    }
    if op.lane_trait == "FloatLanes" {
        return matches!(op.typing, Typing::FloatUnary | Typing::FloatPredicate);
    }
    BLOCK_LANE_FNS
        .iter()
        .any(|(tr, fns)| *tr == op.lane_trait && fns.contains(&op.lane_fn))
}

/// The `Reg`/`Scalar` variant of a compute type and the `Slice` variant of a storage type.
fn variant(dtype: DType) -> proc_macro2::Ident {
    match dtype {
        DType::BF16 => format_ident!("BF16"),
        d => format_ident!("{}", d.name().to_uppercase().replace("BOOL", "Bool")),
    }
}

/// The block op of value `id`'s computation (`blocks::<type>_ops::<lane fn>`, a cast or a
/// select), or `None` where it has none.
fn block_op(cx: &Emitter<'_>, nest: &LoopNest, id: usize) -> Option<TokenStream> {
    let Emitter { rt, graph, .. } = *cx;
    let b = quote!(#rt::__private::blocks);
    let node = &graph.nodes[nest.values[id].node];
    let ops_module = |d: DType| format_ident!("{}_ops", d.compute().name());
    Some(match &node.kind {
        NodeKind::Op { op, args } if lane_fn_covered(op) => {
            let m = ops_module(graph.nodes[args[0]].dtype);
            let f = format_ident!("{}", op.lane_fn);
            quote!(#b::#m::#f)
        }
        NodeKind::Select { .. } => {
            let m = ops_module(node.dtype);
            quote!(#b::#m::select_lanes)
        }
        NodeKind::Cast { input } => {
            let from = format_ident!("from_{}", graph.nodes[*input].dtype.name());
            let to = format_ident!("to_{}", node.dtype.name());
            quote!(#b::casts::#from::#to)
        }
        _ => return None,
    })
}

/// The buffers a program reads and writes, in `Buf` order: every input and output the
/// kernel's nests address.
fn program_buffers(cx: &Emitter<'_>) -> Vec<BufferRef> {
    let mut bufs = Vec::new();
    for nest in &cx.kernel.nests {
        for op in &nest.operands {
            if !bufs.contains(&op.buffer) {
                bufs.push(op.buffer.clone());
            }
        }
    }
    bufs
}

/// `blocks::Operand` of `op` at level `level`: a value fixed for the row reads the row's
/// element (no inner stride), one fixed for the call the element at `base` (no strides), as
/// the fused kernel's `emit_load`.
fn operand(cx: &Emitter<'_>, bufs: &[BufferRef], op: &Operand, level: Level) -> TokenStream {
    let rt = cx.rt;
    let b = quote!(#rt::__private::blocks);
    let buf = bufs.iter().position(|x| *x == op.buffer).unwrap_or(0) as u16;
    let base = offset_expr(quote!(0usize), &op.base, None);
    let outer: Vec<TokenStream> = match level {
        Level::Global => Vec::new(),
        _ => op
            .outer_strides
            .iter()
            .map(|s| offset_expr(quote!(0usize), s, None))
            .collect(),
    };
    let inner = match level {
        Level::Inner => offset_expr(quote!(0usize), &op.inner_stride, None),
        _ => quote!(0usize),
    };
    quote!(#b::Operand { buf: #buf, base: #base, outer: &[#(#outer),*], inner: #inner })
}

/// One value of a nest as a `blocks::Val`, or `None` where the backend has no form of it.
fn value(cx: &Emitter<'_>, bufs: &[BufferRef], nest: &LoopNest, id: usize) -> Option<TokenStream> {
    let Emitter { rt, f, graph, .. } = *cx;
    let p = quote!(#rt::__private);
    let b = quote!(#p::blocks);
    let v = &nest.values[id];
    let dtype = graph.nodes[v.node].dtype;
    let cv = variant(dtype.compute());
    Some(match &v.source {
        ValueSource::Load { operand: k } => {
            let op = &nest.operands[*k];
            if matches!(op.buffer, BufferRef::Index | BufferRef::Temp(_)) {
                return None;
            }
            let op = operand(cx, bufs, op, v.level);
            quote!(#b::Val::Load(#op))
        }
        ValueSource::Scalar { param } => {
            let name = &f.params[*param].name;
            let t = storage_type(rt, dtype);
            quote!(#b::Val::Splat(#b::Scalar::#cv(<#t as #p::Element>::to_compute(#name))))
        }
        ValueSource::Const(c) => {
            let c = emit_const(rt, dtype, c);
            quote!(#b::Val::Splat(#b::Scalar::#cv(#c)))
        }
        ValueSource::Count(size) => {
            let c = count_value(rt, dtype, size);
            quote!(#b::Val::Splat(#b::Scalar::#cv(#c)))
        }
        ValueSource::Compute { args } => {
            let f = block_op(cx, nest, id)?;
            if args.len() > 3 {
                return None;
            }
            let mut a = [0u16; 3];
            for (slot, arg) in a.iter_mut().zip(args) {
                *slot = *arg as u16;
            }
            let [a0, a1, a2] = a.map(Literal::u16_unsuffixed);
            quote!(#b::Val::Op(#f, [#a0, #a1, #a2]))
        }
        ValueSource::Position { .. } | ValueSource::Gather { .. } => return None,
    })
}

/// One nest as a `run_nest` call, or `None` where the backend does not cover it.
fn nest_call(cx: &Emitter<'_>, bufs: &[BufferRef], nest: &LoopNest) -> Option<TokenStream> {
    let rt = cx.rt;
    let b = quote!(#rt::__private::blocks);
    let Sink::Store(stores) = &nest.sink else {
        return None;
    };
    // Registers and row indices on the stack: tensor-core's `blocks::MAX_VALUES` and
    // `MAX_LOOPS`.
    if nest.scan.is_some()
        || nest.matmul.is_some()
        || nest.values.len() > 32
        || nest.outer.len() > 16
    {
        return None;
    }
    let values = (0..nest.values.len())
        .map(|id| value(cx, bufs, nest, id))
        .collect::<Option<Vec<_>>>()?;
    let mut store_tokens = Vec::new();
    for &(k, v) in stores {
        let op = &nest.operands[k];
        if !matches!(op.buffer, BufferRef::Output(_)) || !op.inner_stride.is_lit(1) {
            return None;
        }
        let op = operand(cx, bufs, op, Level::Inner);
        let v = Literal::u16_unsuffixed(v as u16);
        store_tokens.push(quote!((#op, #v)));
    }
    let outer = nest.outer.iter().map(size_expr);
    let inner = size_expr(&nest.inner);
    let ragged = match &nest.ragged {
        Some(total) => {
            let total = size_expr(total);
            quote!(::core::option::Option::Some(#total))
        }
        None => quote!(::core::option::Option::None),
    };
    Some(quote! {
        #b::run_nest(
            &#b::Nest {
                outer: &[#(#outer),*],
                inner: #inner,
                ragged: #ragged,
                values: &[#(#values),*],
                stores: &[#(#store_tokens),*],
            },
            &mut __tg_bufs,
        );
    })
}

/// The debug branch of the kernel (see the module doc): the buffers, then one `run_nest`
/// per nest in order; `None` where the kernel is not covered.
pub(super) fn debug_program(cx: &Emitter<'_>) -> Option<TokenStream> {
    let Emitter { rt, kernel, .. } = *cx;
    // A kernel without nests (size-0 outputs) has nothing to run in either branch.
    if !enabled()
        || kernel.nests.is_empty()
        || !kernel.temps.is_empty()
        || kernel.stages.iter().any(|s| s.pipelined.is_some())
    {
        return None;
    }
    let bufs = program_buffers(cx);
    let plain = |b: &BufferRef| matches!(b, BufferRef::Input(_) | BufferRef::Output(_));
    if bufs.len() > u16::MAX as usize || !bufs.iter().all(plain) {
        return None;
    }
    let b = quote!(#rt::__private::blocks);
    let calls = kernel
        .nests
        .iter()
        .map(|nest| nest_call(cx, &bufs, nest))
        .collect::<Option<Vec<_>>>()?;
    let buf_tokens = bufs.iter().map(|buf| {
        let slice = slice_ident(buf);
        let (dtype, output) = match buf {
            BufferRef::Input(p) => (cx.f.params[*p].ty.dtype, false),
            BufferRef::Output(o) => (cx.graph.nodes[cx.graph.outputs[*o]].dtype, true),
            _ => unreachable!("`plain` admits inputs and outputs only"),
        };
        let v = variant(dtype);
        if output {
            quote!(#b::Buf::Out(#b::SliceMut::#v(&mut *#slice)))
        } else {
            quote!(#b::Buf::In(#b::Slice::#v(#slice)))
        }
    });
    let count = bufs.len();
    Some(quote! {
        let mut __tg_bufs: [#b::Buf<'_>; #count] = [#(#buf_tokens),*];
        #(#calls)*
    })
}
