//! Matrix products: the GEMM calls of a product's block of rows or of all of them, and the
//! operands' views and storage types.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::BufferRef;

use super::context::Emitter;
use super::names::{
    offset_expr, operand_storage, output_slice, size_expr, storage_type, stride_expr, temp_vec,
    whole_buffer,
};

/// A GEMM operand: its slice, and its `MatrixAt` at the batch index `counters` (and, for
/// a block of rows, starting at row `first_row`).
pub(super) fn gemm_operand(
    rt: &TokenStream,
    m: &crate::ir::StridedMatrix,
    counters: &[proc_macro2::Ident],
    first_row: Option<&TokenStream>,
) -> (TokenStream, TokenStream) {
    let p = super::names::private(rt);
    let slice = whole_buffer(&m.buffer, "a GEMM operand");
    let mut offset = offset_expr(quote!(0usize), &m.base, None);
    for (s, i) in m.batch_strides.iter().zip(counters) {
        offset = offset_expr(offset, s, Some(&quote!(#i)));
    }
    if let Some(row) = first_row {
        offset = offset_expr(offset, &m.row_stride, Some(row));
    }
    let (rs, cs) = (stride_expr(&m.row_stride), stride_expr(&m.col_stride));
    (
        slice,
        quote!(#p::MatrixAt { offset: #offset, row_stride: #rs, col_stride: #cs }),
    )
}

/// The GEMM of a fused product for rows `__tg_blk..__tg_blk_end` of its flattened
/// `batch × m` rows, into the block temp (row `r` at `(r - __tg_blk) × n`). A block may
/// span batch indices: one call per run of rows within one. `parallel`: the engine may
/// split the rows across threads (a product computed whole; a block inside a stage's task
/// runs on the task's thread). `packed`: the right operand is `__tg_packed`, packed
/// once by the stage.
pub(super) fn emit_gemm_block(
    cx: &Emitter<'_>,
    step: &crate::ir::MatMulStep,
    parallel: bool,
    packed: bool,
) -> TokenStream {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let c = storage_type(rt, kernel.temps[step.output].dtype);
    let (n, k) = (size_expr(&step.n), size_expr(&step.k));
    // The batch counters from the flat batch index, innermost dim last.
    let counters: Vec<proc_macro2::Ident> = (0..step.batch.len())
        .map(|i| format_ident!("__tg_b{}", i))
        .collect();
    let mut decompose = TokenStream::new();
    let mut rest = quote!(__tg_batch);
    for (i, extent) in counters.iter().zip(&step.batch).rev() {
        let e = size_expr(extent);
        decompose.extend(quote!(let #i: usize = #rest % #e;));
        rest = quote!((#rest / #e));
    }
    // A left operand computed in this stage is a block temp: the block's rows from 0.
    let a_block = matches!(step.a.buffer, BufferRef::Temp(t) if kernel.temps[t].gemm_block);
    let (a, a_at) = if a_block {
        let (slice, _) = gemm_operand(rt, &step.a, &[], None);
        let row = size_expr(&step.k);
        (
            slice,
            quote!(#p::MatrixAt { offset: (__tg_r - __tg_blk) * #row, row_stride: #row as isize, col_stride: 1 }),
        )
    } else {
        gemm_operand(rt, &step.a, &counters, Some(&quote!(__tg_i)))
    };
    let (b, b_at) = gemm_operand(rt, &step.b, &counters, None);
    if let Some(conv) = &step.conv {
        // The bias of the run's channels: its row `__tg_i` of batch index `(n, g)`.
        let bias = conv.bias.as_ref().map(|bias| {
            let (slice, at) = gemm_operand(rt, bias, &counters, Some(&quote!(__tg_i)));
            quote! {{
                let __tg_bat: #p::MatrixAt = #at;
                ::core::option::Option::Some((#slice, #p::ConvBiasAt { offset: __tg_bat.offset, stride: __tg_bat.row_stride }))
            }}
        });
        let bias = bias.unwrap_or_else(|| quote!(::core::option::Option::None));
        let call = conv_call(cx, step, conv, (&a, &a_at), (&b, &b_at), &bias, parallel);
        return block_loop(step, &decompose, call);
    }
    let ta = operand_storage(cx, &step.a.buffer);
    let tb = operand_storage(cx, &step.b.buffer);
    let out = product_out(step);
    let plain = plain_gemm(&ta, &tb, &c);
    let call = match (packed, plain) {
        (true, true) => {
            // `__tg_packed` is `None` for a stage of one block (`pack_shared_rhs`).
            quote! {
                match &__tg_packed {
                    ::core::option::Option::Some(__tg_pk) => <#c as #p::PlainGemm>::plain_matmul_packed(#a, #a_at, __tg_pk, &mut #out[..], (__tg_r - __tg_blk) * #n, __tg_count, #n, #k, #parallel),
                    ::core::option::Option::None => <#c as #p::PlainGemm>::plain_matmul(#a, #a_at, #b, #b_at, &mut #out[..], (__tg_r - __tg_blk) * #n, __tg_count, #n, #k, #parallel),
                }
            }
        }
        (true, false) => {
            quote!(#p::matmul_packed::<#ta, #tb, #c>(#a, #a_at, &__tg_packed, &mut #out[..], (__tg_r - __tg_blk) * #n, __tg_count, #n, #k, #parallel);)
        }
        (false, true) => {
            quote!(<#c as #p::PlainGemm>::plain_matmul(#a, #a_at, #b, #b_at, &mut #out[..], (__tg_r - __tg_blk) * #n, __tg_count, #n, #k, #parallel);)
        }
        (false, false) => {
            quote!(#p::matmul::<#ta, #tb, #c>(#a, #a_at, #b, #b_at, &mut #out[..], (__tg_r - __tg_blk) * #n, __tg_count, #n, #k, #parallel);)
        }
    };
    block_loop(step, &decompose, call)
}

/// The loop over a block's runs of rows within one batch index, each `call`ed once.
fn block_loop(
    step: &crate::ir::MatMulStep,
    decompose: &TokenStream,
    call: TokenStream,
) -> TokenStream {
    let m = size_expr(&step.m);
    quote! {
        let mut __tg_r: usize = __tg_blk;
        while __tg_r < __tg_blk_end {
            let __tg_batch: usize = __tg_r / #m;
            let __tg_i: usize = __tg_r % #m;
            let __tg_count: usize = ::core::cmp::min(#m - __tg_i, __tg_blk_end - __tg_r);
            #decompose
            #call
            __tg_r += __tg_count;
        }
    }
}

/// The buffer a product writes: its temp, or the output it is written into directly
/// (`into_output`: the same dtype and layout, checked by lowering's
/// `products_into_outputs`).
fn product_out(step: &crate::ir::MatMulStep) -> proc_macro2::Ident {
    match step.into_output {
        Some(o) => output_slice(o),
        None => temp_vec(step.output),
    }
}

/// A convolution's GEMM for one run of rows (output channels of a batch element and
/// group): the weight at the run's first row and the input of its batch index and group,
/// read as an implicit im2col (tensor-core conv.rs), and `bias` (an `Option` of the bias's
/// slice and place). Spatial axes are led by 1s to three.
fn conv_call(
    cx: &Emitter<'_>,
    step: &crate::ir::MatMulStep,
    conv: &crate::ir::ConvStep,
    (a, a_at): (&TokenStream, &TokenStream),
    (b, b_at): (&TokenStream, &TokenStream),
    bias: &TokenStream,
    parallel: bool,
) -> TokenStream {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let c = storage_type(rt, kernel.temps[step.output].dtype);
    let (n, k) = (size_expr(&step.n), size_expr(&step.k));
    let geo = &conv.geometry;
    let lead = 3 - geo.kernel.len();
    let three = |v: &[usize], fill: usize| -> Vec<TokenStream> {
        let mut out = vec![fill; lead];
        out.extend(v);
        out.into_iter()
            .map(|n| {
                let n = proc_macro2::Literal::usize_unsuffixed(n);
                quote!(#n)
            })
            .collect()
    };
    let strides3 = |v: &[crate::ir::Offset]| -> Vec<TokenStream> {
        let mut out = vec![quote!(0isize); lead];
        out.extend(v.iter().map(stride_expr));
        out
    };
    let (kernel3, strides, dilations) = (
        three(&geo.kernel, 1),
        three(&geo.strides, 1),
        three(&geo.dilations, 1),
    );
    // The lengths are sizes (a symbolic spatial axis's are the call's values).
    let sizes3 = |v: &[crate::ir::Size]| -> Vec<TokenStream> {
        let mut out = vec![quote!(1usize); lead];
        out.extend(v.iter().map(size_expr));
        out
    };
    let (pads, outs, lens) = (three(&geo.pads, 0), sizes3(&geo.outs), sizes3(&geo.lens));
    let x_strides = strides3(&conv.x_strides);
    let w_strides = strides3(&conv.w_col_strides[1..]);
    let w_chan = stride_expr(&conv.w_col_strides[0]);
    let cg = proc_macro2::Literal::usize_unsuffixed(
        step.k.as_static().expect("literal k") / geo.kernel.iter().product::<usize>(),
    );
    let out = product_out(step);
    quote! {{
        let __tg_wat: #p::MatrixAt = #a_at;
        let __tg_xat: #p::MatrixAt = #b_at;
        <#c as #p::ConvGemm>::conv_gemm(
            #a,
            #p::ConvWeightAt {
                offset: __tg_wat.offset,
                row_stride: __tg_wat.row_stride,
                col_dims: [#cg, #(#kernel3),*],
                col_strides: [#w_chan, #(#w_strides),*],
            },
            #b,
            #p::ConvInputAt {
                offset: __tg_xat.offset,
                chan_stride: __tg_xat.row_stride,
                lens: [#(#lens),*],
                strides: [#(#x_strides),*],
            },
            #p::ConvWindow {
                kernel: [#(#kernel3),*],
                strides: [#(#strides),*],
                dilations: [#(#dilations),*],
                pads: [#(#pads),*],
                out: [#(#outs),*],
            },
            #bias,
            &mut #out[..],
            (__tg_r - __tg_blk) * #n,
            (__tg_count, #n, #k),
            #parallel,
        );
    }}
}

/// Whether a product's operands have its accumulator's type (`f32 · f32 -> f32` and the
/// like: the operands of every product lowering emits today), so that it can call the
/// runtime's non-generic `PlainGemm` entry points, compiled once in tensor-core, instead of
/// instantiating the GEMM engine in the user's crate for each element type (issue 17).
pub(super) fn plain_gemm(ta: &TokenStream, tb: &TokenStream, c: &TokenStream) -> bool {
    let c = c.to_string();
    ta.to_string() == c && tb.to_string() == c
}

/// A product computed whole, before its readers: the GEMM of every row (one call per batch
/// index), on as many threads as the engine likes.
pub(super) fn emit_matmul(cx: &Emitter<'_>, step: &crate::ir::MatMulStep) -> TokenStream {
    let rows = size_expr(&step.batch.iter().fold(step.m.clone(), |acc, b| acc.mul(b)));
    let all_rows = emit_gemm_block(cx, step, true, false);
    quote!({
        let __tg_blk: usize = 0;
        let __tg_blk_end: usize = #rows;
        #all_rows
    })
}
