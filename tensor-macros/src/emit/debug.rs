//! The debug branch of a kernel (issue 33 item 1; NOTES.md "Debug backend, first slice"):
//! in a build with `debug_assertions`, a covered graph runs as programs of block ops
//! interpreted by tensor-core's `blocks::run_nest`, compiled there once, instead of its
//! fused kernel, which rustc would compile into the user's crate at opt-level 0. Both
//! branches are emitted under `cfg`; rustc type-checks and compiles only the active one.
//!
//! A program is the lowered kernel itself as data: each loop nest becomes a
//! `blocks::Nest` (its extents, each value a `Val`, each store), so broadcasting, strides,
//! flips and named dims reach it exactly as they reach the fused kernel (the operands'
//! offsets, written with the same `offset_expr`/`size_expr`), written into the user's crate
//! as bytes for `blocks::run_code_v1` (emit/program.rs). Call entry (argument checks,
//! `check_entry_sizes`, `Result` errors, outputs) is the signature layer's and the kernel
//! setup's, shared by both branches.
//!
//! Covered (`debug_program` returns `Some`): kernels whose nests store, reduce (arg-max
//! and arg-min too), read positions or gather, with whole and row-local temps, every value
//! a load of an input, output or temp, a constant, a scalar, a count, a position, a
//! gather, a cast, a select or a registry op whose lane function has a block op
//! (`lane_fn_covered`), on any dtype; a row stage is one `run_stage` call (NOTES.md "Debug
//! backend, second slice"). The runtime steps (scans, `top_k`, scatters, `gather_nd`,
//! attention, `max_pool`, `resize`, a product computed whole) are the fused kernel's own
//! calls, and a product stage the fused kernel's GEMM block loop around `run_stage_rows`
//! calls for its prologue and epilogue (`product_stage`; NOTES.md "Debug backend, third
//! slice"). Every other kernel keeps its fused kernel in debug builds too: a choice made
//! here, at expansion, so a graph is never run by a program it does not fit.
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
use super::gemm::emit_matmul;
use super::names::{init_value, offset_expr, size_expr, slice_ident, storage_type, temp_vec};
use super::program::{
    float_code, scalar_type, ArgIr, Entry, NestIr, Num, NumCode, OperandIr, ReduceIr, ScalarIr,
    StageIr, ValIr,
};
use super::stages::{
    block_temp, emit_scan, pack_shared_rhs, product_block, runtime_task_split, shares_packed_rhs,
    STACK_ROW_LIMIT,
};
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

/// A decline of the backend (`None`: the kernel keeps its fused kernel in debug builds too),
/// with its reason; the macro's own tests tally the reasons over the CI batch
/// (`tests::ci_batch_coverage`), so the next slice knows what to cover.
/// With `TENSORGRAPH_DEBUG_DECLINES` set in the macro's environment, each decline is
/// printed at expansion (to find the graphs of a crate that keep their fused kernels; cargo
/// does not track the variable, so build from a clean target dir).
fn decline<T>(why: &'static str) -> Option<T> {
    #[cfg(test)]
    tests::DECLINES.with(|d| d.borrow_mut().push(why));
    if std::env::var_os("TENSORGRAPH_DEBUG_DECLINES").is_some() {
        eprintln!("tensorgraph debug backend: a fused kernel kept in debug builds: {why}");
    }
    None
}

/// Why a registry op has no block op.
fn op_reason(op: &crate::ops::Op) -> &'static str {
    match op.lane_trait {
        "ActivationLanes" => "an ActivationLanes op",
        "BitCountLanes" => "a BitCountLanes op",
        _ => "a registry op without a block op",
    }
}

/// tensor-core's `blocks::MAX_VALUES` and `blocks::MAX_LOOPS` (a dev-dependency only:
/// `tests::limits_are_tensor_cores` keeps them equal). `MAX_VALUES` bounds the registers
/// a nest keeps on the stack, not what a program may hold (`nest_literal`): a wider nest's
/// registers are a per-thread buffer, which its `_into`'s rustdoc names
/// (signature.rs `alloc_doc`).
/// (Declared in emit/program.rs, whose fit test reads them too.)
pub(super) use super::program::{MAX_LOOPS, MAX_VALUES};

/// A program's name for tensor-core's `blocks` module: `debug_program` binds it (`use
/// …::__private::blocks as __tg_b;`), so each use is one token instead of five.
fn blocks_module() -> TokenStream {
    quote!(__tg_b)
}

/// Whether the debug backend is on (see the module doc).
fn enabled() -> bool {
    std::env::var("TENSORGRAPH_DEBUG_BACKEND").map_or(true, |v| v != "off")
}

/// Whether tensor-core has a block op for registry op `op`. Every `ActivationLanes` row
/// (its named parameters are constant arguments of the node, splatted in both backends)
/// and `bitwise_count` have one (their lane functions chunk by chunk); otherwise only ops
/// without named parameters.
fn lane_fn_covered(op: &crate::ops::Op) -> bool {
    if matches!(op.lane_trait, "ActivationLanes" | "BitCountLanes") {
        return true;
    }
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
    let Emitter { graph, .. } = *cx;
    let b = blocks_module();
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
        NodeKind::Op { op, .. } => return decline(op_reason(op)),
        _ => return decline("a value of another kind"),
    })
}

/// The buffers a program reads and writes, in `Buf` order: every input and output the
/// kernel's nests address.
fn program_buffers(cx: &Emitter<'_>) -> Vec<BufferRef> {
    let mut bufs = Vec::new();
    for nest in &cx.kernel.nests {
        for op in &nest.operands {
            // The running index is no buffer: its operands only give offsets.
            if !bufs.contains(&op.buffer) && op.buffer != BufferRef::Index {
                bufs.push(op.buffer.clone());
            }
        }
    }
    bufs
}

/// The `Buf` of each buffer of a program: inputs read-only, outputs and temps writable (a
/// whole temp is the kernel setup's `ScratchVec`, shared with the fused branch; a row-local
/// one the program's own, declared by `row_local_temps`). `in_stage`: the temps the call's
/// nests name; every other temp is an empty placeholder, which no nest of the call reads.
/// Two reasons: a product's block temps exist only inside their product stage's block loop
/// (`product_stage`), and a temp a product stage packs as its shared right operand stays
/// borrowed by the packed panels through the stage's block loop, so the calls of its
/// prologue and epilogue must not borrow it mutably (the transformer block's `h @ wv`,
/// packed for `softmax(…) @ (h @ wv)`).
fn buffer_tokens(cx: &Emitter<'_>, bufs: &[BufferRef], in_stage: &[usize]) -> Vec<TokenStream> {
    let b = blocks_module();
    bufs.iter()
        .map(|buf| {
            if let BufferRef::Temp(t) = buf {
                if !in_stage.contains(t) {
                    return quote!(#b::Buf::In(#b::Slice::Bool(&[])));
                }
            }
            let (dtype, slice) = match buf {
                BufferRef::Input(p) => {
                    let (v, slice) = (variant(cx.f.params[*p].ty.dtype), slice_ident(buf));
                    return quote!(#b::Buf::In(#b::Slice::#v(#slice)));
                }
                BufferRef::Output(o) => {
                    (cx.graph.nodes[cx.graph.outputs[*o]].dtype, slice_ident(buf))
                }
                BufferRef::Temp(t) => (cx.kernel.temps[*t].dtype, temp_vec(*t)),
                BufferRef::Index => unreachable!("`program_buffers` leaves the index out"),
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
fn row_local_temps(cx: &Emitter<'_>, bufs: &[BufferRef]) -> (TokenStream, Vec<(usize, ScalarIr)>) {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let mut decls = TokenStream::new();
    let mut resets = Vec::new();
    for (k, buf) in bufs.iter().enumerate() {
        let BufferRef::Temp(t) = buf else { continue };
        let temp = &kernel.temps[*t];
        // A product's block temps are the product stage's (`product_stage`).
        let Some(len) = temp.row_local.as_ref().filter(|_| !temp.gemm_block) else {
            continue;
        };
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
            resets.push((k, init_scalar(rt, temp.dtype, temp.init)));
        }
    }
    (decls, resets)
}

/// `blocks::Operand` of `op` at level `level`: a value fixed for the row reads the row's
/// element (no inner stride), one fixed for the call the element at `base` (no strides), as
/// the fused kernel's `emit_load`.
fn operand(cx: &Emitter<'_>, bufs: &[BufferRef], op: &Operand, level: Level) -> OperandIr {
    let buf = bufs.iter().position(|x| *x == op.buffer).unwrap_or(0) as u16;
    let mut base = offset(&op.base);
    // A row-local temp holds only the current row of its stage: the row term drops out,
    // as in the fused kernel's `operand_offsets`. A product's block temp holds the block's
    // rows from `__tg_blk` on (row `r` at `(r - __tg_blk)·stride`): its base is moved back
    // by `__tg_blk` rows, in the same wrapping arithmetic as every offset, and its row term
    // stays.
    let temp = match op.buffer {
        BufferRef::Temp(t) => Some(&cx.kernel.temps[t]),
        _ => None,
    };
    let block = temp.is_some_and(|t| t.gemm_block);
    let row_local = temp.is_some_and(|t| t.row_local.is_some()) && !block;
    if let (true, Some(s), false) = (block, op.outer_strides.first(), level == Level::Global) {
        let (s, b) = (offset(s).tokens, base.tokens);
        base = Num::expr(quote!((#b).wrapping_sub(__tg_blk.wrapping_mul(#s))));
    }
    let outer: Vec<Num> = match level {
        Level::Global => Vec::new(),
        _ => op
            .outer_strides
            .iter()
            .enumerate()
            .map(|(depth, s)| match depth == 0 && row_local {
                true => zero(),
                false => offset(s),
            })
            .collect(),
    };
    let inner = match level {
        Level::Inner => offset(&op.inner_stride),
        _ => zero(),
    };
    OperandIr {
        buf,
        base,
        outer,
        inner,
    }
}

/// `0usize`.
fn zero() -> Num {
    Num {
        code: NumCode::Imm(0),
        tokens: quote!(0usize),
    }
}

/// A size of a program: `size_expr`'s, read as an immediate where it has no names.
fn size_num(size: &crate::ir::Size) -> Num {
    let tokens = size_expr(size);
    match size.as_static().and_then(|n| u32::try_from(n).ok()) {
        Some(n) => Num {
            code: NumCode::Imm(n),
            tokens,
        },
        None => Num::expr(tokens),
    }
}

/// `blocks::Scalar::<variant>(expr)`, passed as its expression (`scalars`) in the data form.
fn scalar_expr(cv: &proc_macro2::Ident, expr: TokenStream) -> ScalarIr {
    let b = blocks_module();
    ScalarIr {
        tokens: quote!(#b::Scalar::#cv(#expr)),
        code: None,
    }
}

/// The code of a `Scalar` of variant `cv` whose value is `v` converted by `as` (integer
/// types: the two's complement bits, truncated), or `None` for another variant.
fn int_code(cv: &proc_macro2::Ident, v: i128) -> Option<Vec<u8>> {
    let t = scalar_type(&cv.to_string())?;
    let width = match t {
        1 | 5 => 1,
        2 | 6 => 2,
        3 | 7 => 4,
        4 | 8 => 8,
        _ => return None,
    };
    let mut code = vec![t];
    code.extend_from_slice(&(v as u128).to_le_bytes()[..width]);
    Some(code)
}

/// The start value `init` of a temp of (compute type) `dtype` as a `Scalar`: an
/// `Identity` constant, or -1 for `NoIndex`.
fn init_scalar(rt: &TokenStream, dtype: DType, init: crate::ir::TempInit) -> ScalarIr {
    let cv = variant(dtype);
    let mut s = scalar_expr(&cv, init_value(rt, dtype, init));
    let kind = match init {
        crate::ir::TempInit::Zero => 0,
        crate::ir::TempInit::One => 1,
        crate::ir::TempInit::Lowest => 2,
        crate::ir::TempInit::Highest => 3,
        crate::ir::TempInit::NoIndex => {
            s.code = int_code(&cv, -1);
            return s;
        }
    };
    // Temps hold compute types (f16/bf16 ones are declined, `debug_program`).
    s.code = (dtype == dtype.compute())
        .then(|| scalar_type(&cv.to_string()))
        .flatten()
        .map(|t| vec![0x40 | t, kind]);
    s
}

/// An operand's offset or stride: `offset_expr`'s, or its value as a literal where it has
/// no names (the same value modulo 2^bits of any `usize`): a call less per offset in the
/// program's literal, which the user's crate builds at every call in a debug build.
fn offset(offset: &crate::ir::Offset) -> Num {
    let sum = offset.terms.iter().try_fold(0i128, |sum, (c, names)| {
        names.is_empty().then(|| sum.checked_add(*c)).flatten()
    });
    let Some(abs) = sum.and_then(|s| u32::try_from(s.unsigned_abs()).ok()) else {
        return Num::expr(offset_expr(quote!(0usize), offset, None));
    };
    let lit = Literal::usize_suffixed(abs as usize);
    match sum < Some(0) {
        true => Num {
            code: NumCode::Neg(abs),
            tokens: quote!(usize::wrapping_sub(0usize, #lit)),
        },
        false => Num {
            code: NumCode::Imm(abs),
            tokens: quote!(#lit),
        },
    }
}

/// One value of a nest as a `blocks::Val`, or `None` where the backend has no form of it.
fn value(cx: &Emitter<'_>, bufs: &[BufferRef], nest: &LoopNest, id: usize) -> Option<ValIr> {
    let Emitter { rt, f, graph, .. } = *cx;
    let p = super::names::private(rt);
    let v = &nest.values[id];
    let dtype = graph.nodes[v.node].dtype;
    let cv = variant(dtype.compute());
    Some(match &v.source {
        ValueSource::Load { operand: k } => {
            let op = &nest.operands[*k];
            if matches!(op.buffer, BufferRef::Index) {
                return decline("a load of the running index");
            }
            ValIr::Load(operand(cx, bufs, op, v.level))
        }
        ValueSource::Scalar { param } => {
            let name = &f.params[*param].name;
            let t = storage_type(rt, dtype);
            ValIr::Splat(scalar_expr(
                &cv,
                quote!(<#t as #p::Element>::to_compute(#name)),
            ))
        }
        ValueSource::Const(c) => {
            let mut s = scalar_expr(&cv, emit_const(rt, dtype, c));
            s.code = match c {
                crate::ir::ConstValue::Bool(v) if dtype == DType::Bool => Some(vec![0, *v as u8]),
                crate::ir::ConstValue::Int(v) if dtype.is_integer() => int_code(&cv, *v),
                // As `emit_const`: the literal's own digits, or a folded value's `{:?}`.
                crate::ir::ConstValue::Float(v, text) if v.is_finite() => match text {
                    Some(t) => match t.strip_prefix('-') {
                        Some(rest) => float_code(dtype, rest, true),
                        None => float_code(dtype, t, false),
                    },
                    None => float_code(dtype, &format!("{:?}", v.abs()), v.is_sign_negative()),
                },
                _ => None,
            };
            ValIr::Splat(s)
        }
        ValueSource::Count(size) => {
            let mut s = scalar_expr(&cv, count_value(rt, dtype, size));
            // As `count_value`: `n as T` (usize to float rounds to nearest, ties even).
            if let Some(n) = size.as_static().filter(|&n| n <= u32::MAX as usize) {
                s.code = match dtype {
                    DType::F32 => {
                        Some([vec![9], (n as f32).to_bits().to_le_bytes().to_vec()].concat())
                    }
                    DType::F64 => {
                        Some([vec![10], (n as f64).to_bits().to_le_bytes().to_vec()].concat())
                    }
                    d if d.is_integer() => int_code(&cv, n as i128),
                    _ => None,
                };
            }
            ValIr::Splat(s)
        }
        ValueSource::Compute { args } => {
            let f = block_op(cx, nest, id)?;
            if args.len() > 3 {
                return decline("an op of more than 3 arguments");
            }
            // Unused slots repeat the first argument (`blocks::OpFn`): the interpreter's
            // test for a value fixed along the row (`uniform_values`) reads all three.
            let mut a = [args.first().map_or(0, |&a0| a0 as u16); 3];
            for (slot, arg) in a.iter_mut().zip(args) {
                *slot = *arg as u16;
            }
            ValIr::Op(f, a)
        }
        ValueSource::Position { operand: k } => {
            ValIr::Position(operand(cx, bufs, &nest.operands[*k], v.level))
        }
        ValueSource::Gather {
            operand: k,
            index,
            stride,
            bound,
        } => {
            let op = &nest.operands[*k];
            if matches!(op.buffer, BufferRef::Index) {
                return decline("a gather from the running index");
            }
            ValIr::Gather {
                data: operand(cx, bufs, op, v.level),
                index: *index as u16,
                stride: offset(stride),
                bound: size_num(bound),
            }
        }
    })
}

/// One nest as a `blocks::Nest` (emit/program.rs), or `None` where the backend does not
/// cover it.
/// `stores_only`: a pipelined stage's last nest (`Stage::pipelined`), run as the pass it
/// was before the first pass of the next row was merged into it: its stores and the
/// values they read (its own, which come first), no reduction.
fn nest_ir(
    cx: &Emitter<'_>,
    bufs: &[BufferRef],
    nest: &LoopNest,
    stores_only: bool,
) -> Option<NestIr> {
    let Emitter { rt, kernel, .. } = *cx;
    if nest.scan.is_some() || nest.matmul.is_some() || nest.outer.len() > MAX_LOOPS {
        return decline("a scan, a product or more than 16 loops in a nest");
    }
    let mut reduces = Vec::new();
    let mut arg = None;
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
        } => {
            let main = (*kind, *acc, *value);
            for (kind, acc, value) in
                std::iter::once(main).chain(sibling.map(|s| (s.kind, s.acc, s.value)))
            {
                if kind.combine().is_none() {
                    return decline("a reduction kind without a combine");
                }
                let op = &nest.operands[acc];
                let BufferRef::Temp(t) = op.buffer else {
                    return decline("a reduction into a buffer that is no temp");
                };
                let dtype = kernel.temps[t].dtype;
                // A register accumulator (a reduced inner axis) or one per element of a kept
                // inner axis, contiguous.
                if !(op.inner_stride.is_zero() || op.inner_stride.is_lit(1)) {
                    return decline("a reduction accumulator strided along the inner loop");
                }
                reduces.push(ReduceIr {
                    combine: format!("{kind:?}"),
                    acc: operand(cx, bufs, op, Level::Inner),
                    value: value as u16,
                    identity: init_scalar(rt, dtype, kind.identity()),
                    accumulators: kind.register_accumulators() as u8,
                });
            }
            stores
        }
        Sink::Reduce {
            kind,
            acc,
            value,
            best: Some(best),
            index: Some(index),
            stores,
            sibling: None,
        } => {
            arg = Some(arg_ir(cx, bufs, nest, *kind, *acc, *value, *best, *index)?);
            stores
        }
        Sink::Reduce { .. } => return decline("another reduction sink"),
    };
    // A pipelined last pass: its own values only (see above).
    let count = if stores_only {
        stores.iter().map(|&(_, v)| v + 1).max().unwrap_or(0)
    } else {
        nest.values.len()
    };
    // Any number of values: tensor-core keeps `MAX_VALUES` registers on the stack and
    // the registers of a wider nest in a per-thread vector (`with_registers`), the same
    // block ops either way. Declined before programs declared their buffers once per run
    // of stages (`debug_program`): a 3×3 max_pool's derived function (75 nests, 37
    // buffers) grew to 362 kB with them, 205 kB now (derive/mod.rs
    // `pool_backward_expansion_is_bounded`).
    let values = (0..count)
        .map(|id| value(cx, bufs, nest, id))
        .collect::<Option<Vec<_>>>()?;
    let mut store_tokens = Vec::new();
    for &(k, v) in stores {
        let op = &nest.operands[k];
        // Stores are contiguous along the inner loop, as the fused kernel's `store` at
        // `offset + j` (lowering gives them inner stride 1, or 0 along an inner loop of one
        // element: a rank-0 or length-1 result, whose one element is the same either way).
        if !matches!(op.buffer, BufferRef::Output(_) | BufferRef::Temp(_))
            || !(op.inner_stride.is_lit(1) || nest.inner.as_static() == Some(1))
        {
            return decline("a store that is not contiguous along the inner loop");
        }
        store_tokens.push((operand(cx, bufs, op, Level::Inner), v as u16));
    }
    Some(NestIr {
        outer: nest.outer.iter().map(size_num).collect(),
        inner: size_num(&nest.inner),
        ragged: nest.ragged.as_ref().map(size_num),
        values,
        stores: store_tokens,
        reduces,
        arg,
    })
}

/// A nest's arg-max/arg-min reduction as a `blocks::ArgReduce`, or
/// `None` where the backend has no form of it: the value a number, the best value and the
/// index temps contiguous along a kept inner axis or fixed for the row.
#[allow(clippy::too_many_arguments)]
fn arg_ir(
    cx: &Emitter<'_>,
    bufs: &[BufferRef],
    nest: &LoopNest,
    kind: crate::ir::ReduceKind,
    acc: usize,
    value: usize,
    best: usize,
    index: usize,
) -> Option<ArgIr> {
    let dtype = cx.graph.nodes[nest.values[value].node].dtype.compute();
    if dtype == DType::Bool || !dtype.is_integer() && !matches!(dtype, DType::F32 | DType::F64) {
        return decline("an arg reduction of bool or f16/bf16 values");
    }
    let (acc_op, best_op) = (&nest.operands[acc], &nest.operands[best]);
    for op in [acc_op, best_op] {
        if !matches!(op.buffer, BufferRef::Temp(_))
            || !(op.inner_stride.is_zero() || op.inner_stride.is_lit(1))
        {
            return decline("an arg reduction's temps strided along the inner loop");
        }
    }
    Some(ArgIr {
        max: kind == crate::ir::ReduceKind::ArgMax,
        value: value as u16,
        best: operand(cx, bufs, best_op, Level::Inner),
        acc: operand(cx, bufs, acc_op, Level::Inner),
        index: operand(cx, bufs, &nest.operands[index], Level::Inner),
    })
}

/// One stage of a program (`stage_call`).
enum StageCall {
    /// A runtime step or a product stage: its own block, which borrows the buffers it
    /// needs by name (a runtime call) or binds its own `__tg_bufs` (`product_stage`).
    Whole(TokenStream),
    /// Nests run by `run_nest`/`run_stage` on the `__tg_bufs` of the run of plain stages
    /// they belong to (`debug_program`), with the temps they name.
    Plain(Vec<Entry>, Vec<usize>),
}

/// One stage of the program, or `None` where the backend does not cover one of its nests:
/// a runtime step (a scan, `top_k`, `max_pool`, `resize`, attention, …, or a product
/// computed whole) as the fused kernel's own call; a product stage by `product_stage`; a
/// nest alone as a `run_nest` call; nests sharing their row loop as a `run_stage` call.
fn stage_call(
    cx: &Emitter<'_>,
    bufs: &[BufferRef],
    stage: &Stage,
    resets: &[(usize, ScalarIr)],
) -> Option<StageCall> {
    let Emitter { kernel, .. } = *cx;
    let b = blocks_module();
    let nests = &kernel.nests[stage.first..stage.first + stage.count];
    // The runtime steps: the same call as the fused kernel's (emit/stages.rs `emit_stage`),
    // so the same bits and the same code in the user's crate.
    if let Some(scan) = &nests[0].scan {
        let call = emit_scan(cx, scan);
        return Some(StageCall::Whole(quote!(#b::runtime_step(); #call)));
    }
    if let (Some(step), None) = (&nests[0].matmul, &stage.row_loop) {
        let call = emit_matmul(cx, step);
        return Some(StageCall::Whole(quote!(#b::runtime_step(); #call)));
    }
    if nests.iter().any(|n| n.matmul.is_some()) {
        return product_stage(cx, bufs, stage, resets).map(StageCall::Whole);
    }
    let last = nests.len() - 1;
    let irs = nests
        .iter()
        .enumerate()
        .map(|(k, nest)| nest_ir(cx, bufs, nest, k == last && stage.pipelined.is_some()))
        .collect::<Option<Vec<_>>>()?;
    let temps = temps_named(nests);
    let Some(rows) = &stage.row_loop else {
        return Some(StageCall::Plain(
            irs.into_iter().map(Entry::Nest).collect(),
            temps,
        ));
    };
    let stage = stage_ir(bufs, size_num(rows), nests, irs, resets);
    Some(StageCall::Plain(vec![Entry::Stage(stage)], temps))
}

/// The temps `nests` name, each once.
fn temps_named(nests: &[LoopNest]) -> Vec<usize> {
    let mut temps = Vec::new();
    for op in nests.iter().flat_map(|n| &n.operands) {
        if let BufferRef::Temp(t) = op.buffer {
            if !temps.contains(&t) {
                temps.push(t);
            }
        }
    }
    temps
}

/// `let mut __tg_bufs = [Buf…];`: the program's buffers for calls whose nests name the
/// temps `in_stage` (every other temp an empty placeholder, `buffer_tokens`).
fn buffer_decl(cx: &Emitter<'_>, bufs: &[BufferRef], in_stage: &[usize]) -> TokenStream {
    let b = blocks_module();
    let tokens = buffer_tokens(cx, bufs, in_stage);
    let count = bufs.len();
    quote!(let mut __tg_bufs: [#b::Buf<'_>; #count] = [#(#tokens),*];)
}

/// A `blocks::Stage` of `nests` (as `irs`) over `rows` rows, with the row-local temps
/// these nests use reset at every row.
fn stage_ir(
    bufs: &[BufferRef],
    rows: Num,
    nests: &[LoopNest],
    irs: Vec<NestIr>,
    resets: &[(usize, ScalarIr)],
) -> StageIr {
    let used = resets
        .iter()
        .filter(|(k, _)| {
            nests
                .iter()
                .any(|n| n.operands.iter().any(|op| op.buffer == bufs[*k]))
        })
        .map(|(k, init)| (*k as u16, init.clone()))
        .collect();
    StageIr {
        rows,
        nests: irs,
        resets: used,
    }
}

/// A product stage (the fused kernel's GEMM block loop, emit/stages.rs `emit_stage`): its
/// tasks one after another with the fused kernel's rows per task, each task's rows by GEMM
/// blocks from the task's first row; per block, the block temps' resets, the nests before
/// the product (its left operand's prologue) through the block's rows as a
/// `run_stage_rows` call, the fused kernel's own GEMM call for the block
/// (`product_block`, with the right operand packed once for the stage where the fused
/// kernel packs it), then the nests after it (the epilogue) through the block's rows.
/// Bit-identity: a GEMM call's result depends on its rows (the engine picks its kernel and
/// its `k` blocking by the row count), so every call has the fused kernel's rows; the
/// prologue and epilogue are row-wise nests, whose values do not depend on the blocks.
/// Not covered: a pipelined product stage (none is planned today).
fn product_stage(
    cx: &Emitter<'_>,
    bufs: &[BufferRef],
    stage: &Stage,
    resets: &[(usize, ScalarIr)],
) -> Option<TokenStream> {
    let Emitter { kernel, .. } = *cx;
    let b = blocks_module();
    let rows = size_expr(stage.row_loop.as_ref()?);
    if stage.pipelined.is_some() {
        return decline("a pipelined product stage");
    }
    let nests = &kernel.nests[stage.first..stage.first + stage.count];
    let at = nests.iter().position(|n| n.matmul.is_some())?;
    let product = &nests[at];
    let step = product.matmul.as_ref()?;
    if nests
        .iter()
        .filter(|n| n.matmul.is_some() || n.scan.is_some())
        .count()
        > 1
    {
        return decline("a product stage of two products or scans");
    }
    let block_rows = crate::ir::gemm_block_rows(product);
    let packed = shares_packed_rhs(step);
    let prelude = if packed {
        pack_shared_rhs(cx, step, &rows)
    } else {
        TokenStream::new()
    };
    // The block temps of the stage, declared per task as the fused kernel's.
    let mut block_temps: Vec<usize> = Vec::new();
    for op in nests.iter().flat_map(|n| &n.operands) {
        if let BufferRef::Temp(t) = op.buffer {
            if kernel.temps[t].gemm_block && !block_temps.contains(&t) {
                block_temps.push(t);
            }
        }
    }
    let (decls, inits): (Vec<_>, Vec<_>) = block_temps
        .iter()
        .map(|&t| block_temp(cx, t, Some(step), block_rows))
        .unzip();
    // The nests before and after the product through the block's rows.
    let part = |part: &[LoopNest]| -> Option<TokenStream> {
        if part.is_empty() {
            return Some(TokenStream::new());
        }
        let irs = part
            .iter()
            .map(|nest| nest_ir(cx, bufs, nest, false))
            .collect::<Option<Vec<_>>>()?;
        let stage = stage_ir(bufs, Num::expr(quote!(__tg_blk_end)), part, irs, resets);
        let entry = Entry::Rows(
            stage,
            Num::expr(quote!(__tg_blk)),
            Num::expr(quote!(__tg_blk_end)),
        );
        let call = super::program::calls(&b, &[entry]);
        // The part's own buffers: not the product's operands, whose right one may be
        // borrowed by the packed panels (`buffer_tokens`).
        let buf_decl = buffer_decl(cx, bufs, &temps_named(part));
        Some(quote!({
            #buf_decl
            #call
        }))
    };
    let (pre, post) = (part(&nests[..at])?, part(&nests[at + 1..])?);
    let block = product_block(cx, product, packed);
    let per_task = match &stage.tasks {
        None => quote!(let __tg_per_task: usize = #rows;),
        Some(tasks) => match tasks.rows_per_task {
            Some(n) => {
                let n = Literal::usize_unsuffixed(n);
                quote!(let __tg_per_task: usize = #n;)
            }
            None => runtime_task_split(cx, tasks, &rows, Some(block_rows)),
        },
    };
    let r = Literal::usize_unsuffixed(block_rows);
    Some(quote!({
        #b::runtime_step();
        #prelude
        #per_task
        let __tg_all_rows: usize = #rows;
        let mut __tg_row_lo: usize = 0;
        while __tg_row_lo < __tg_all_rows {
            let __tg_row_hi: usize = ::core::cmp::min(__tg_row_lo + __tg_per_task, __tg_all_rows);
            let __tg_stage_rows: usize = __tg_row_hi - __tg_row_lo;
            #(#decls)*
            let mut __tg_blk: usize = __tg_row_lo;
            while __tg_blk < __tg_row_hi {
                let __tg_blk_end: usize = ::core::cmp::min(__tg_blk + #r, __tg_row_hi);
                #(#inits)*
                #pre
                #block
                #post
                __tg_blk = __tg_blk_end;
            }
            __tg_row_lo = __tg_row_hi;
        }
    }))
}

/// The debug branch of the kernel (see the module doc): the row-local temps, then the
/// stages in order; `None` where the kernel is not covered.
///
/// Each run of consecutive plain stages (`StageCall::Plain`) is one block that declares
/// the buffer array `__tg_bufs` once (`buffer_decl`: its outputs and the temps the run's
/// nests name borrowed mutably) and runs every stage of the run on it. A runtime step or
/// a product stage ends the run: it borrows the buffers by name (or binds its own array
/// inside its block loop, `product_stage`), which the array must not hold across it. The
/// array was declared per stage before (NOTES.md "Debug backend, fourth slice": 280 of a
/// 3×3 max_pool backward's 386 kB of program); the stages run the same nests on the same
/// buffers in the same order, so the results are the same bits.
pub(super) fn debug_program(cx: &Emitter<'_>) -> Option<TokenStream> {
    let kernel = cx.kernel;
    // A kernel without nests (size-0 outputs) has nothing to run in either branch.
    // Temps hold compute-type values, so `f16`/`bf16` ones do not occur.
    if !enabled() {
        return None;
    }
    if kernel.nests.is_empty() {
        return decline("a kernel without nests");
    }
    if kernel.temps.iter().any(|t| t.dtype != t.dtype.compute()) {
        return decline("an f16/bf16 temp");
    }
    let bufs = program_buffers(cx);
    if bufs.len() > u16::MAX as usize {
        return decline("more than 65535 buffers");
    }
    let (row_temps, resets) = row_local_temps(cx, &bufs);
    let mut calls = Vec::new();
    let (mut run, mut run_temps) = (Vec::new(), Vec::new());
    let b = blocks_module();
    let end_run = |run: &mut Vec<Entry>, temps: &mut Vec<usize>, calls: &mut Vec<_>| {
        if !run.is_empty() {
            let decl = buffer_decl(cx, &bufs, temps);
            let body = super::program::calls(&b, &std::mem::take(run));
            calls.push(quote!({ #decl #body }));
            temps.clear();
        }
    };
    for stage in &kernel.stages {
        match stage_call(cx, &bufs, stage, &resets)? {
            StageCall::Plain(entries, temps) => {
                run.extend(entries);
                // A set by membership only (`buffer_tokens`): a temp two stages name may
                // stand twice.
                run_temps.extend(temps);
            }
            StageCall::Whole(call) => {
                end_run(&mut run, &mut run_temps, &mut calls);
                calls.push(call);
            }
        }
    }
    end_run(&mut run, &mut run_temps, &mut calls);
    #[cfg(test)]
    tests::COVERED.with(|c| c.set(c.get() + 1));
    // `__tg_b`: the blocks module, named once (5 tokens fewer at every use).
    let p = super::names::private(cx.rt);
    Some(quote! {
        use #p::blocks as __tg_b; // `blocks_module`
        #row_temps
        #(#calls)*
    })
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::collections::BTreeMap;
    use std::str::FromStr;

    use proc_macro2::TokenStream;

    thread_local! {
        /// The reasons of this thread's declines (`decline`), in order.
        pub(super) static DECLINES: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
        /// The kernels this thread's expansions gave a program.
        pub(super) static COVERED: Cell<usize> = const { Cell::new(0) };
    }

    /// Expands graphgen's graphs `0..count` of `seed` for `runtime` (`::tensorgraph;`, or
    /// `::tensorgraph, ndarray;` for the row-pitched kernels too), each graph in the form
    /// tensorgraph-tests' batches call it, and returns, per graph, whether one of its
    /// kernels got a program and the reasons of its declines.
    fn ci_coverage(seed: u64, count: u64, runtime: &str) -> Vec<(bool, Vec<&'static str>)> {
        (0..count)
            .map(|index| {
                let g = graphgen::gen::generate(seed, index);
                let mut sources = vec![graphgen::render::graph(&g)];
                if let graphgen::ast::Form::Closure { typed } = g.form {
                    sources.push(graphgen::render::closure(&g, typed));
                }
                DECLINES.with(|d| d.borrow_mut().clear());
                COVERED.with(|c| c.set(0));
                for source in &sources {
                    let mut input = TokenStream::from_str(runtime).unwrap();
                    input.extend(TokenStream::from_str(source).expect("generated source lexes"));
                    let out = crate::expand(input).to_string();
                    assert!(!out.contains("compile_error"), "graph {index}: {out}");
                }
                (
                    COVERED.with(Cell::get) > 0,
                    DECLINES.with(|d| d.borrow().clone()),
                )
            })
            .collect()
    }

    /// The macro's copies of the runtime's register limits are the runtime's.
    #[test]
    fn limits_are_tensor_cores() {
        assert_eq!(super::MAX_VALUES, tensor_core::blocks::MAX_VALUES);
        assert_eq!(super::MAX_LOOPS, tensor_core::blocks::MAX_LOOPS);
        use super::super::program as m;
        use tensor_core::blocks::program as c;
        assert_eq!(m::STAGE_NESTS, c::STAGE_NESTS);
        assert_eq!(m::VAL_POOL, c::VAL_POOL);
        assert_eq!(m::STORE_POOL, c::STORE_POOL);
        assert_eq!(m::REDUCE_POOL, c::REDUCE_POOL);
        assert_eq!(m::RESET_POOL, c::RESET_POOL);
        assert_eq!(m::NUM_POOL, c::NUM_POOL);
    }

    /// The backend's coverage of the CI batch at expansion (a graph is covered when one of
    /// its kernels gets a program: what tensorgraph-tests' debug_backend.rs counts at run
    /// time, `blocks::nests_run`), with the declines of the graphs it does not cover, most
    /// common first: `cargo test -p tensorgraph-macros --lib ci_batch_coverage --
    /// --nocapture` prints them (`GRAPHGEN_SEED`, `GRAPHGEN_COUNT` and
    /// `DEBUG_COVERAGE_NDARRAY=1` for other batches). Every graph of the CI batch with a
    /// nest to run is covered, nests of more than 32 values too (NOTES.md "Debug programs
    /// that declare their buffers once"); the others have no nest, every output being of
    /// size 0.
    #[test]
    fn ci_batch_coverage() {
        let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
        let seed = var("GRAPHGEN_SEED").unwrap_or(graphgen::CI_SEED);
        let count = var("GRAPHGEN_COUNT").unwrap_or(300);
        let runtime = match var("DEBUG_COVERAGE_NDARRAY") {
            Some(1) => "::tensorgraph, ndarray;",
            _ => "::tensorgraph;",
        };
        let graphs = ci_coverage(seed, count, runtime);
        let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, why) in graphs.iter().filter(|(covered, _)| !covered) {
            let mut why = why.clone();
            why.dedup();
            for w in why {
                *tally.entry(w).or_default() += 1;
            }
        }
        let mut tally: Vec<_> = tally.into_iter().collect();
        tally.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
        let covered = |n: usize| graphs[..n].iter().filter(|(c, _)| *c).count();
        let first = graphs.len().min(120);
        eprintln!(
            "covered: {} of the first {first}, {} of {}; declines of the graphs not covered: {tally:?}",
            covered(first),
            covered(graphs.len()),
            graphs.len()
        );
        // Kernels of covered graphs that fall back (a graph's other kernel, a pitched one).
        let mut partial: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, why) in graphs.iter().filter(|(covered, _)| *covered) {
            for &w in why {
                *partial.entry(w).or_default() += 1;
            }
        }
        eprintln!("declines in covered graphs: {partial:?}");
        let uncovered: Vec<usize> = (0..graphs.len()).filter(|&i| !graphs[i].0).collect();
        eprintln!("not covered: {uncovered:?}");
        if seed == graphgen::CI_SEED {
            assert!(
                tally
                    .iter()
                    .map(|&(why, _)| why)
                    .chain(partial.keys().copied())
                    .all(|why| why == "a kernel without nests"),
                "graphs of the CI batch with nests to run fall back to their fused kernels \
                 in debug builds: {tally:?}"
            );
        }
    }
}
