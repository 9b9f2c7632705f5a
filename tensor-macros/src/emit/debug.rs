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
//! Covered (`debug_program` returns `Some`): kernels whose nests store or reduce (no
//! arg reduction, scan, product, gather or position), with whole and row-local temps (not
//! a product's blocks), every value a load of an input, output or temp, a constant, a
//! scalar, a count, a cast, a select or a registry op whose lane function has a block op
//! (`lane_fn_covered`), on any dtype. A row stage becomes one `run_stage` call (NOTES.md
//! "Debug backend, second slice"). Every other kernel keeps its fused kernel in debug
//! builds too: a choice made here, at expansion, so a graph is never run by a program it
//! does not fit.
//!
//! `TENSORGRAPH_DEBUG_BACKEND=off` in the macro's environment turns the backend off (every
//! kernel fused, as before issue 33); cargo does not rebuild on a change of it, so use it
//! with a clean target directory (measurements).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::dtype::DType;
use crate::ir::{BufferRef, Level, LoopNest, NodeKind, Operand, Sink, Stage, ValueSource};
use crate::ops::Typing;

use super::context::Emitter;
use super::names::{init_value, offset_expr, size_expr, slice_ident, storage_type, temp_vec};
use super::stages::STACK_ROW_LIMIT;
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
        // Softmax's division (`ops::DIV_SOFTMAX`, `blocks::f32_ops::div_softmax_plain_lanes`)
        // and the function table's rows with their predicates.
        return op.lane_fn == "div_softmax_plain_lanes"
            || matches!(op.typing, Typing::FloatUnary | Typing::FloatPredicate);
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

/// The `Buf` of each buffer of a program: inputs read-only, outputs and temps writable (a
/// whole temp is the kernel setup's `ScratchVec`, shared with the fused branch; a row-local
/// one the program's own, declared by `row_local_temps`).
fn buffer_tokens(cx: &Emitter<'_>, bufs: &[BufferRef]) -> Vec<TokenStream> {
    let rt = cx.rt;
    let b = quote!(#rt::__private::blocks);
    bufs.iter()
        .map(|buf| {
            let (dtype, slice) = match buf {
                BufferRef::Input(p) => {
                    let (v, slice) = (variant(cx.f.params[*p].ty.dtype), slice_ident(buf));
                    return quote!(#b::Buf::In(#b::Slice::#v(#slice)));
                }
                BufferRef::Output(o) => {
                    (cx.graph.nodes[cx.graph.outputs[*o]].dtype, slice_ident(buf))
                }
                BufferRef::Temp(t) => (cx.kernel.temps[*t].dtype, temp_vec(*t)),
                BufferRef::Index => unreachable!("`debug_program` admits no index operand"),
            };
            let v = variant(dtype);
            quote!(#b::Buf::Out(#b::SliceMut::#v(&mut #slice[..])))
        })
        .collect()
}

/// The program's row-local temps (`Temp::row_local`): one row each, an array on the stack
/// up to `STACK_ROW_LIMIT` elements as the fused kernel's (so that an `_into` documented as
/// allocating nothing allocates nothing in debug builds either), else the thread's
/// scratch pool; and each temp's reset at every row (all but the ones every row
/// overwrites), as (buffer index, start value).
fn row_local_temps(
    cx: &Emitter<'_>,
    bufs: &[BufferRef],
) -> (TokenStream, Vec<(usize, TokenStream)>) {
    let Emitter { rt, kernel, .. } = *cx;
    let p = quote!(#rt::__private);
    let mut decls = TokenStream::new();
    let mut resets = Vec::new();
    for (k, buf) in bufs.iter().enumerate() {
        let BufferRef::Temp(t) = buf else { continue };
        let temp = &kernel.temps[*t];
        let Some(len) = &temp.row_local else { continue };
        let (v, c) = (temp_vec(*t), storage_type(rt, temp.dtype));
        let init = init_value(rt, temp.dtype, temp.init);
        decls.extend(match len.as_static() {
            Some(n) if n <= STACK_ROW_LIMIT => {
                let n = Literal::usize_unsuffixed(n);
                quote!(let mut #v: [#c; #n] = [#init; #n];)
            }
            _ => {
                let len = size_expr(len);
                quote!(let mut #v = #p::ScratchVec::<#c>::new(#len, #init);)
            }
        });
        if !temp.overwritten {
            resets.push((k, init));
        }
    }
    (decls, resets)
}

/// `blocks::Operand` of `op` at level `level`: a value fixed for the row reads the row's
/// element (no inner stride), one fixed for the call the element at `base` (no strides), as
/// the fused kernel's `emit_load`.
fn operand(cx: &Emitter<'_>, bufs: &[BufferRef], op: &Operand, level: Level) -> TokenStream {
    let rt = cx.rt;
    let b = quote!(#rt::__private::blocks);
    let buf = bufs.iter().position(|x| *x == op.buffer).unwrap_or(0) as u16;
    let base = offset_expr(quote!(0usize), &op.base, None);
    // A row-local temp holds only the current row of its stage: the row term drops out,
    // as in the fused kernel's `operand_offsets`.
    let row_local =
        matches!(op.buffer, BufferRef::Temp(t) if cx.kernel.temps[t].row_local.is_some());
    let outer: Vec<TokenStream> = match level {
        Level::Global => Vec::new(),
        _ => op
            .outer_strides
            .iter()
            .enumerate()
            .map(|(depth, s)| match depth == 0 && row_local {
                true => quote!(0usize),
                false => offset_expr(quote!(0usize), s, None),
            })
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
            if matches!(op.buffer, BufferRef::Index) {
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

/// One nest as a `blocks::Nest` literal, or `None` where the backend does not cover it.
/// `stores_only`: a pipelined stage's last nest (`Stage::pipelined`), run as the pass it
/// was before the first pass of the next row was merged into it: its stores and the
/// values they read (its own, which come first), no reduction.
fn nest_literal(
    cx: &Emitter<'_>,
    bufs: &[BufferRef],
    nest: &LoopNest,
    stores_only: bool,
) -> Option<TokenStream> {
    let Emitter { rt, kernel, .. } = *cx;
    let b = quote!(#rt::__private::blocks);
    if nest.scan.is_some() || nest.matmul.is_some() || nest.outer.len() > 16 {
        return None;
    }
    let mut reduces = Vec::new();
    let stores = match &nest.sink {
        Sink::Store(stores) => stores,
        Sink::Reduce { stores, .. } if stores_only => stores,
        Sink::Reduce {
            kind,
            acc,
            value,
            best: None,
            index: None,
            stores,
            sibling,
        } if nest.ragged.is_none() => {
            let main = (*kind, *acc, *value);
            for (kind, acc, value) in
                std::iter::once(main).chain(sibling.map(|s| (s.kind, s.acc, s.value)))
            {
                kind.combine()?;
                let op = &nest.operands[acc];
                let BufferRef::Temp(t) = op.buffer else {
                    return None;
                };
                let dtype = kernel.temps[t].dtype;
                // A register accumulator (a reduced inner axis) or one per element of a kept
                // inner axis, contiguous.
                if !(op.inner_stride.is_zero() || op.inner_stride.is_lit(1)) {
                    return None;
                }
                let cv = variant(dtype);
                let identity = init_value(rt, dtype, kind.identity());
                let combine = format_ident!("{}", format!("{kind:?}"));
                let accumulators = Literal::u8_unsuffixed(kind.register_accumulators() as u8);
                let op = operand(cx, bufs, op, Level::Inner);
                let value = Literal::u16_unsuffixed(value as u16);
                reduces.push(quote!(#b::Reduce {
                    combine: #b::Combine::#combine,
                    acc: #op,
                    value: #value,
                    identity: #b::Scalar::#cv(#identity),
                    accumulators: #accumulators,
                }));
            }
            stores
        }
        Sink::Reduce { .. } => return None,
    };
    // A pipelined last pass: its own values only (see above).
    let count = if stores_only {
        stores.iter().map(|&(_, v)| v + 1).max().unwrap_or(0)
    } else {
        nest.values.len()
    };
    // Registers on the stack: tensor-core's `blocks::MAX_VALUES`.
    if count > 32 {
        return None;
    }
    let values = (0..count)
        .map(|id| value(cx, bufs, nest, id))
        .collect::<Option<Vec<_>>>()?;
    let mut store_tokens = Vec::new();
    for &(k, v) in stores {
        let op = &nest.operands[k];
        if !matches!(op.buffer, BufferRef::Output(_) | BufferRef::Temp(_))
            || !op.inner_stride.is_lit(1)
        {
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
        #b::Nest {
            outer: &[#(#outer),*],
            inner: #inner,
            ragged: #ragged,
            values: &[#(#values),*],
            stores: &[#(#store_tokens),*],
            reduces: &[#(#reduces),*],
        }
    })
}

/// One stage as a `run_nest` call (a nest alone) or a `run_stage` call (nests sharing
/// their row loop), or `None` where the backend does not cover one of its nests.
fn stage_call(
    cx: &Emitter<'_>,
    bufs: &[BufferRef],
    stage: &Stage,
    resets: &[(usize, TokenStream)],
) -> Option<TokenStream> {
    let Emitter { rt, kernel, .. } = *cx;
    let b = quote!(#rt::__private::blocks);
    let nests = &kernel.nests[stage.first..stage.first + stage.count];
    let last = nests.len() - 1;
    let literals = nests
        .iter()
        .enumerate()
        .map(|(k, nest)| nest_literal(cx, bufs, nest, k == last && stage.pipelined.is_some()))
        .collect::<Option<Vec<_>>>()?;
    let Some(rows) = &stage.row_loop else {
        return Some(quote!(#(#b::run_nest(&#literals, &mut __tg_bufs);)*));
    };
    // The row-local temps this stage's nests use, reset at every row.
    let used: Vec<TokenStream> = resets
        .iter()
        .filter(|(k, _)| {
            nests
                .iter()
                .any(|n| n.operands.iter().any(|op| op.buffer == bufs[*k]))
        })
        .map(|(k, init)| {
            let BufferRef::Temp(t) = bufs[*k] else {
                unreachable!("resets are temps")
            };
            let (k, cv) = (
                Literal::u16_unsuffixed(*k as u16),
                variant(kernel.temps[t].dtype),
            );
            quote!((#k, #b::Scalar::#cv(#init)))
        })
        .collect();
    let rows = size_expr(rows);
    Some(quote! {
        #b::run_stage(
            &#b::Stage { rows: #rows, nests: &[#(#literals),*], resets: &[#(#used),*] },
            &mut __tg_bufs,
        );
    })
}

/// The debug branch of the kernel (see the module doc): the buffers, then one `run_nest`
/// or `run_stage` call per stage in order; `None` where the kernel is not covered.
pub(super) fn debug_program(cx: &Emitter<'_>) -> Option<TokenStream> {
    let Emitter { rt, kernel, .. } = *cx;
    // A kernel without nests (size-0 outputs) has nothing to run in either branch.
    // Temps of a product's blocks belong to GEMM nests, which the backend does not cover;
    // temps hold compute-type values, so `f16`/`bf16` ones do not occur.
    if !enabled()
        || kernel.nests.is_empty()
        || kernel
            .temps
            .iter()
            .any(|t| t.gemm_block || t.dtype != t.dtype.compute())
    {
        return None;
    }
    let bufs = program_buffers(cx);
    if bufs.len() > u16::MAX as usize || bufs.iter().any(|b| matches!(b, BufferRef::Index)) {
        return None;
    }
    let b = quote!(#rt::__private::blocks);
    let (row_temps, resets) = row_local_temps(cx, &bufs);
    let calls = kernel
        .stages
        .iter()
        .map(|stage| stage_call(cx, &bufs, stage, &resets))
        .collect::<Option<Vec<_>>>()?;
    let buf_tokens = buffer_tokens(cx, &bufs);
    let count = bufs.len();
    Some(quote! {
        #row_temps
        let mut __tg_bufs: [#b::Buf<'_>; #count] = [#(#buf_tokens),*];
        #(#calls)*
    })
}
