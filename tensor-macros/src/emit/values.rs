//! One SIMD value of a nest: a load, a constant, a scalar, a count, or an op of the registry
//! over other values.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::dtype::DType;
use crate::ir::{ConstValue, Level, LoopNest, NodeKind, Offset, Size, ValueSource};

use super::context::Emitter;
use super::names::{
    compute_type, lane_ops, offset_expr, offset_ident, operand_storage, size_expr, slice_ident,
    storage_type, value_ident,
};

/// A gather value whose whole inner run is one contiguous row of its data (the index fixed
/// for the row, the data contiguous along the inner loop): the data's slice and the row's
/// first element, the start `load` would read at `__tg_j = 0`
/// (`emit_value`'s per-chunk case). `None` for any other value.
pub(super) fn gather_row_start(nest: &LoopNest, id: usize) -> Option<(TokenStream, TokenStream)> {
    let ValueSource::Gather {
        operand,
        index,
        stride,
        bound,
    } = &nest.values[id].source
    else {
        return None;
    };
    let op = &nest.operands[*operand];
    if nest.values[id].level != Level::Inner
        || nest.values[*index].level == Level::Inner
        || !op.inner_stride.is_lit(1)
    {
        return None;
    }
    let slice = slice_ident(&op.buffer);
    let idx = value_ident(*index);
    let stride = offset_expr(quote!(0usize), stride, None);
    let bound = size_expr(bound);
    let off = offset_ident(*operand);
    // As `emit_value`: call entry checked every index in `-bound..bound`.
    let start = quote!({
        let __tg_i = #idx.0[0] as i64;
        let __tg_at = (if __tg_i < 0 { __tg_i + (#bound) as i64 } else { __tg_i }) as usize;
        #off + __tg_at * #stride
    });
    Some((quote!(#slice), start))
}

pub(super) fn emit_const(rt: &TokenStream, dtype: DType, value: &ConstValue) -> TokenStream {
    let p = super::names::private(rt);
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
        (ConstValue::Float(v, _), d) if !v.is_finite() => {
            let t = storage_type(rt, d);
            let special = if v.is_nan() {
                quote!(::core::f64::NAN)
            } else if *v > 0.0 {
                quote!(::core::f64::INFINITY)
            } else {
                quote!(::core::f64::NEG_INFINITY)
            };
            match d {
                DType::F32 => quote!((#special as f32)),
                DType::F64 => quote!(#special),
                _ => quote!(<#t as #p::Element>::to_compute(<#t>::from_f64(#special))),
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

pub(super) fn emit_value(cx: &Emitter<'_>, nest: &LoopNest, id: usize) -> TokenStream {
    let Emitter { rt, f, graph, .. } = *cx;
    let p = super::names::private(rt);
    let per_copy = lane_ops();
    let value = &nest.values[id];
    let node = &graph.nodes[value.node];
    let out = value_ident(id);
    let c = compute_type(rt, node.dtype);
    let tokens = match &value.source {
        ValueSource::Load { operand } => emit_load(cx, nest, id, *operand),
        ValueSource::Position { operand } => {
            let op = &nest.operands[*operand];
            match value.level {
                Level::Inner => {
                    let off = offset_ident(*operand);
                    // A literal step: the node axis's scale (1, or negative through a flip).
                    let step = offset_expr(quote!(0usize), &op.inner_stride, None);
                    quote!(#per_copy::positions(#off, __tg_j, #step))
                }
                Level::Row => {
                    let off = offset_ident(*operand);
                    quote!(#per_copy::V::splat(#off as i64))
                }
                Level::Global => {
                    let at = offset_expr(quote!(0usize), &op.base, None);
                    quote!(#per_copy::V::splat(#at as i64))
                }
            }
        }
        ValueSource::Gather {
            operand,
            index,
            stride,
            bound,
        } => emit_gather(cx, nest, id, *operand, *index, stride, bound),
        ValueSource::Scalar { param } => {
            let name = &f.params[*param].name;
            let t = storage_type(rt, node.dtype);
            quote!(#per_copy::V::<#c>::splat(<#t as #p::Element>::to_compute(#name)))
        }
        ValueSource::Const(v) => {
            let v = emit_const(rt, node.dtype, v);
            quote!(#per_copy::V::<#c>::splat(#v))
        }
        ValueSource::Count(size) => {
            let count = count_value(rt, node.dtype, size);
            quote!(#per_copy::V::<#c>::splat(#count))
        }
        ValueSource::Compute { args } => emit_compute(cx, nest, id, args),
    };
    quote!(let #out: #per_copy::V<#c> = #tokens;)
}

/// The compute-type value of a count of elements (`ValueSource::Count`) of dtype `dtype`.
pub(super) fn count_value(rt: &TokenStream, dtype: DType, size: &Size) -> TokenStream {
    let p = super::names::private(rt);
    // usize → float rounds once, as the literal count of a static axis does.
    let n = size_expr(size);
    match dtype {
        DType::F32 => quote!(#n as f32),
        DType::F64 => quote!(#n as f64),
        // An integer count (`one_hot`'s depth): exact, counts are at most 2^53.
        d if d.is_integer() => {
            let t = storage_type(rt, d);
            quote!(<#t as #p::Element>::to_compute(#n as #t))
        }
        d => {
            let t = storage_type(rt, d);
            quote!(<#t as #p::Element>::to_compute(<#t>::from_f64(#n as f64)))
        }
    }
}

/// A value loaded from operand `operand`: a chunk (contiguous, strided, backwards, or of a
/// stride whose sign is known at run time), or a splat of the row's or the call's element.
fn emit_load(cx: &Emitter<'_>, nest: &LoopNest, id: usize, operand: usize) -> TokenStream {
    let rt = cx.rt;
    let p = super::names::private(rt);
    let per_copy = lane_ops();
    let value = &nest.values[id];
    let op = &nest.operands[operand];
    let t = operand_storage(cx, &op.buffer);
    let slice = slice_ident(&op.buffer);
    let off = offset_ident(operand);
    match (value.level, &op.inner_stride) {
        (Level::Inner, s) if s.is_lit(1) => {
            quote!(#per_copy::load::<#t>(#slice, #off + __tg_j, __tg_n))
        }
        (Level::Inner, s) => match s.as_size() {
            Some(s) => {
                let s = size_expr(&s);
                quote!(#per_copy::load_strided::<#t>(#slice, #off + __tg_j * #s, #s, __tg_n))
            }
            // A flipped axis walks backwards.
            None => match s.scale(-1).as_size() {
                Some(back) => {
                    let s = size_expr(&back);
                    quote!(#per_copy::load_strided_back::<#t>(#slice, #off - __tg_j * #s, #s, __tg_n))
                }
                // Several terms: a diagonal of named axes (`einsum("ii->i")` on
                // `[S, S]` walks `S + 1`), maybe flipped (`-S - 1`) or of mixed
                // signs (`1 - S`): the sign is the run time's (issue 18's generator
                // found the panic this was).
                None => {
                    let stride = offset_expr(quote!(0usize), s, None);
                    quote!({
                        let __tg_s: usize = #stride;
                        if (__tg_s as isize) >= 0 {
                            #per_copy::load_strided::<#t>(#slice, #off + __tg_j * __tg_s, __tg_s, __tg_n)
                        } else {
                            let __tg_b = __tg_s.wrapping_neg();
                            #per_copy::load_strided_back::<#t>(#slice, #off - __tg_j * __tg_b, __tg_b, __tg_n)
                        }
                    })
                }
            },
        },
        // Per row: the offset of this row; per call: every stride is 0.
        (Level::Row, _) => {
            quote!(#per_copy::V::splat(<#t as #p::Element>::to_compute(#slice[#off])))
        }
        (Level::Global, _) => {
            let at = offset_expr(quote!(0usize), &op.base, None);
            quote!(#per_copy::V::splat(<#t as #p::Element>::to_compute(#slice[#at])))
        }
    }
}

/// A value gathered from operand `operand` at the positions value `index` holds along an
/// axis of `stride` and length `bound`: a splat per call or row, one contiguous run per
/// chunk, or lane by lane.
fn emit_gather(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    id: usize,
    operand: usize,
    index: usize,
    stride: &Offset,
    bound: &Size,
) -> TokenStream {
    let Emitter { rt, graph, .. } = *cx;
    let p = super::names::private(rt);
    let per_copy = lane_ops();
    let value = &nest.values[id];
    let c = compute_type(rt, graph.nodes[value.node].dtype);
    let op = &nest.operands[operand];
    let t = operand_storage(cx, &op.buffer);
    let slice = slice_ident(&op.buffer);
    let idx = value_ident(index);
    let stride = offset_expr(quote!(0usize), stride, None);
    let bound = size_expr(bound);
    // Lane `l`'s position along the gathered axis: call entry checked every index
    // in `-bound..bound`, and a negative one counts from the end (ONNX).
    let position = |lane: TokenStream| {
        quote!({
            let __tg_i = #idx.0[#lane] as i64;
            (if __tg_i < 0 { __tg_i + (#bound) as i64 } else { __tg_i }) as usize
        })
    };
    let element = |at: TokenStream| quote!(<#t as #p::Element>::to_compute(#slice[#at]));
    let index_level = nest.values[index].level;
    match value.level {
        Level::Global => {
            let base = offset_expr(quote!(0usize), &op.base, None);
            let at = position(quote!(0));
            let e = element(quote!(#base.wrapping_add(#at.wrapping_mul(#stride))));
            quote!(#per_copy::V::splat(#e))
        }
        Level::Row => {
            let off = offset_ident(operand);
            let at = position(quote!(0));
            let e = element(quote!(#off.wrapping_add(#at.wrapping_mul(#stride))));
            quote!(#per_copy::V::splat(#e))
        }
        Level::Inner if index_level != Level::Inner && op.inner_stride.is_lit(1) => {
            // One position for the whole chunk: a contiguous run of the data.
            let off = offset_ident(operand);
            let at = position(quote!(0));
            quote!(#per_copy::load::<#t>(#slice, #off + #at * #stride + __tg_j, __tg_n))
        }
        Level::Inner => {
            // Lane by lane: each lane's own position (or the chunk's), plus the
            // data's walk along the inner loop.
            let off = offset_ident(operand);
            let inner = offset_expr(quote!(0usize), &op.inner_stride, None);
            let lane = if index_level == Level::Inner {
                quote!(__tg_l)
            } else {
                quote!(0)
            };
            let at = position(lane);
            // Wrapping: a flipped walk's stride is a negative offset as a `usize`;
            // the sum is the in-range address (lowering builds only those).
            let e = element(quote!(#off
                .wrapping_add((__tg_j + __tg_l).wrapping_mul(#inner))
                .wrapping_add(#at.wrapping_mul(#stride))));
            quote!({
                let mut __tg_v = #per_copy::V::<#c>::splat(::core::default::Default::default());
                for __tg_l in 0..__tg_n {
                    __tg_v.0[__tg_l] = #e;
                }
                __tg_v
            })
        }
    }
}

/// A value an elementwise node computes from its argument values `args`: the op's lane
/// function, a select or a cast.
fn emit_compute(cx: &Emitter<'_>, nest: &LoopNest, id: usize, args: &[usize]) -> TokenStream {
    let Emitter { rt, graph, .. } = *cx;
    let per_copy = lane_ops();
    let value = &nest.values[id];
    let node = &graph.nodes[value.node];
    let c = compute_type(rt, node.dtype);
    let arg_idents: Vec<_> = args.iter().map(|&a| value_ident(a)).collect();
    match &node.kind {
        NodeKind::Op {
            op,
            args: arg_nodes,
        } => {
            let ic = compute_type(rt, graph.nodes[arg_nodes[0]].dtype);
            // A float division by a value fixed for the row (or the call) inside
            // the inner loop: `div_invariant_lanes`, whose reciprocal LLVM hoists
            // out of the loop (bit-identical to `div_lanes`; softmax's `e / sum`).
            // Ops with such a form name it in the registry (`Op::invariant_divisor`:
            // softmax's `e / sum` has a cheaper one, `ops::DIV_SOFTMAX`).
            let invariant_form = op.invariant_divisor.filter(|_| {
                value.level == Level::Inner
                    && nest.values[args[1]].level != Level::Inner
                    && graph.nodes[arg_nodes[0]].dtype.compute().is_float()
            });
            let (tr, method) = if let Some(method) = invariant_form {
                (format_ident!("FloatLanes"), format_ident!("{}", method))
            } else {
                (
                    format_ident!("{}", op.lane_trait),
                    format_ident!("{}", op.lane_fn),
                )
            };
            let lanes = lane_ops();
            quote!(<#ic as #lanes::#tr>::#method(#(#arg_idents),*))
        }
        NodeKind::Select { .. } => {
            let lanes = lane_ops();
            quote!(<#c as #lanes::SelectLanes>::select_lanes(#(#arg_idents),*))
        }
        NodeKind::Cast { input } => {
            let from = storage_type(rt, graph.nodes[*input].dtype);
            let to = storage_type(rt, node.dtype);
            let v = &arg_idents[0];
            quote!(#per_copy::cast::<#from, #to>(#v))
        }
        _ => unreachable!("only elementwise nodes compute"),
    }
}
