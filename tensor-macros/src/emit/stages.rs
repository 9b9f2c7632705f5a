//! A stage: one nest with its own loops, nests sharing a row loop (row-local temps, a
//! pipelined first pass, the next row's prefetch), or a GEMM block loop with its prologue
//! and epilogue; split into tasks; and scans.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{AxisStep, BufferRef, LoopNest, Offset, Operand, Size};

use super::context::Emitter;
use super::gemm::{emit_gemm_block, emit_matmul, gemm_operand, plain_gemm};
use super::names::{
    init_value, offset_expr, operand_storage, output_slice, size_expr, slice_ident, storage_type,
    temp_vec, whole_buffer, MIN_LANES,
};
use super::nests::{emit_nest, streams_outputs, Prefetch};
use super::values::emit_const;

/// A stage: one nest with its own loops, or nests sharing an outermost row loop, which
/// may be split into tasks. Tasks get disjoint row chunks of every buffer the stage
/// writes (`row_chunks`, core's `chunks_mut`), bound to the same slice names the nests use,
/// and run on the thread pool by `run_chunked` (compiled once in the runtime, not per
/// stage: see `tensor_core::parallel`).
pub(super) fn emit_stage(cx: &Emitter<'_>, stage: &crate::ir::Stage) -> TokenStream {
    let Emitter { graph, kernel, .. } = *cx;
    let nests = &kernel.nests[stage.first..stage.first + stage.count];
    if let Some(scan) = &nests[0].scan {
        return emit_scan(cx, scan);
    }
    if let (Some(step), None) = (&nests[0].matmul, &stage.row_loop) {
        return emit_matmul(cx, step);
    }
    let Some(rows) = &stage.row_loop else {
        let stream = streams_outputs(graph, &nests[0]);
        let body = emit_nest(cx, &nests[0], false, &[], stream, true, None, None);
        return quote!({ #body });
    };
    let rows_lit = size_expr(rows);
    // A stage with a product runs by blocks of rows (`ir::GEMM_BLOCK_ROWS`): the nests
    // before it (its left operand's prologue) through the block's rows, then the GEMM for
    // the block, then the nests after it through the block's rows.
    let product_at = nests.iter().position(|n| n.matmul.is_some());
    let gemm = product_at.and_then(|at| nests[at].matmul.as_ref());
    let block_rows = product_at.map_or(crate::ir::GEMM_BLOCK_ROWS, |at| {
        crate::ir::gemm_block_rows(&nests[at])
    });
    let pipelined = stage.pipelined.as_ref();
    let bodies = nest_bodies(cx, stage, nests, &rows_lit, product_at);
    let temps = row_local_temps(cx, nests, pipelined, gemm, block_rows);
    // A right operand that is the same for every row (no batch dims of its own) is packed
    // once for the stage, before its tasks, and shared by every block and task.
    // Never a convolution's: its packed right operand would be a whole im2col buffer.
    let packed = gemm.is_some_and(shares_packed_rhs);
    let prelude = match gemm {
        Some(step) if packed => pack_shared_rhs(cx, step, &rows_lit),
        _ => TokenStream::new(),
    };
    let block = product_at.map(|at| product_block(cx, &nests[at], packed));
    let row_loop = RowLoop {
        cx,
        pipelined,
        bodies,
        each_row: temps.each_row,
        block_init: temps.block_init,
        block,
        block_rows,
    };
    let before_rows = temps.before_rows;
    let Some(tasks) = &stage.tasks else {
        let rows = row_loop.rows(quote!(0), rows_lit.clone());
        return quote! {{
            #prelude
            let __tg_stage_rows: usize = #rows_lit;
            #before_rows
            #rows
        }};
    };
    emit_tasks(
        cx,
        tasks,
        &rows_lit,
        gemm.is_some(),
        &prelude,
        &before_rows,
        &row_loop,
    )
}

/// Whether a product stage packs its right operand once for the stage (`pack_shared_rhs`):
/// one that is the same for every row (no batch dims of its own), never a convolution's
/// (its packed right operand would be a whole im2col buffer).
pub(super) fn shares_packed_rhs(step: &crate::ir::MatMulStep) -> bool {
    step.conv.is_none() && step.b.batch_strides.iter().all(Offset::is_zero)
}

/// A product stage's GEMM for the block of stage rows `__tg_blk..__tg_blk_end`
/// (`emit_gemm_block`) of `product`, its product nest. Stage rows that hold several product
/// rows each (a convolution's images: its loops `[N, O]`): the block's product rows are
/// the stage rows' times `O`. The debug backend's program calls the same block
/// (debug.rs `product_stage`).
pub(super) fn product_block(cx: &Emitter<'_>, product: &LoopNest, packed: bool) -> TokenStream {
    let step = product.matmul.as_ref().expect("a product nest");
    let block = emit_gemm_block(cx, step, false, packed);
    match product.outer.get(1..).filter(|inner| !inner.is_empty()) {
        Some(inner) => {
            let per_row = size_expr(&inner.iter().fold(Size::lit(1), |p, e| p.mul(e)));
            quote! {{
                let __tg_blk: usize = __tg_blk * #per_row;
                let __tg_blk_end: usize = __tg_blk_end * #per_row;
                #block
            }}
        }
        None => block,
    }
}

/// The code of a row stage's nests for one row.
struct NestBodies {
    /// A pipelined stage's first nest, run only for a task's first row (`RowLoop::rows`'s
    /// prologue); the stage's last nest runs it for the next row.
    first_only: Option<TokenStream>,
    /// The nests before a product (its left operand's prologue), run through a block's
    /// rows before its GEMM.
    pre: Vec<TokenStream>,
    /// The other nests (after the product, in a stage with one), run at every row.
    bodies: Vec<TokenStream>,
}

/// Each nest of a row stage emitted for one row (`emit_nest`), grouped as `NestBodies`.
fn nest_bodies(
    cx: &Emitter<'_>,
    stage: &crate::ir::Stage,
    nests: &[LoopNest],
    rows_lit: &TokenStream,
    product_at: Option<usize>,
) -> NestBodies {
    let chunked: Vec<BufferRef> = stage
        .tasks
        .iter()
        .flat_map(|t| t.chunked.iter().map(|c| c.0.clone()))
        .collect();
    // Only a stage of one nest streams its stores: in a stage of several passes a later
    // pass reads the row back (softmax's scale pass), which must find it in the cache.
    let stream = nests.len() == 1 && streams_outputs(cx.graph, &nests[0]);
    // Software prefetch: only the last nest (`next_row_prefetch`), or in a pipelined stage,
    // whose last nest reads the next row itself, the pass before each input row's first
    // reader (`pipelined_prefetches`).
    let pipelined = stage.pipelined.as_ref();
    let last = nests.len() - 1;
    let prefetches: Vec<Option<Prefetch>> = match pipelined {
        None => {
            let mut each: Vec<Option<Prefetch>> = nests.iter().map(|_| None).collect();
            each[last] = next_row_prefetch(cx, nests, rows_lit);
            each
        }
        Some(p) => pipelined_prefetches(cx, nests, &p.next_row, rows_lit),
    };
    let body_of = |(at, nest): (usize, &LoopNest)| {
        emit_nest(
            cx,
            nest,
            true,
            &chunked,
            stream,
            nests.len() == 1,
            prefetches[at].as_ref(),
            pipelined
                .filter(|_| at == last)
                .map(|p| (p.next_row.as_slice(), rows_lit)),
        )
    };
    // A pipelined stage runs its first nest only for a task's first row (`prologue`), and
    // from each row's last nest for the next.
    let first_only = pipelined.map(|_| body_of((0, &nests[0])));
    let nests_p = nests.iter().enumerate().skip(pipelined.is_some() as usize);
    let (pre, bodies) = match product_at {
        Some(at) => (
            nests_p.clone().take(at).map(body_of).collect(),
            nests_p.skip(at + 1).map(body_of).collect(),
        ),
        None => (Vec::new(), nests_p.map(body_of).collect()),
    };
    NestBodies {
        first_only,
        pre,
        bodies,
    }
}

/// The declarations of a row stage's row-local temps, by where they run.
struct RowTemps {
    /// Once per task, before its rows.
    before_rows: TokenStream,
    /// At the start of every row.
    each_row: TokenStream,
    /// Before a block's prologue: the block temps that start from their init.
    block_init: TokenStream,
}

/// Row-local temps: one row each, starting from their init at every row, except where a
/// rule below says otherwise (a pipelined stage's carries, a product's blocks, temps
/// stored whole before they are read).
fn row_local_temps(
    cx: &Emitter<'_>,
    nests: &[LoopNest],
    pipelined: Option<&crate::ir::Pipelined>,
    gemm: Option<&crate::ir::MatMulStep>,
    block_rows: usize,
) -> RowTemps {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let mut local_temps: Vec<usize> = Vec::new();
    for nest in nests {
        for op in &nest.operands {
            if let BufferRef::Temp(t) = op.buffer {
                if kernel.temps[t].row_local.is_some() && !local_temps.contains(&t) {
                    local_temps.push(t);
                }
            }
        }
    }
    let mut before_rows = TokenStream::new();
    let mut each_row = TokenStream::new();
    let mut block_init = TokenStream::new();
    for &t in &local_temps {
        let temp = &kernel.temps[t];
        let len = temp.row_local.as_ref().expect("row-local");
        let (v, c, init) = (
            temp_vec(t),
            storage_type(rt, temp.dtype),
            init_value(rt, temp.dtype, temp.init),
        );
        let len_lit = size_expr(len);
        // A pipelined stage's accumulators take the value their carry holds, and the carry
        // starts again (`Stage::pipelined`); the carries live through the rows.
        let carry_of = pipelined.and_then(|p| p.carries.iter().find(|c| c.0 == t));
        if let Some(&(_, carry)) = carry_of {
            let cv = temp_vec(carry);
            each_row.extend(quote! {
                let mut #v: [#c; #len_lit] = #cv;
                #cv = [#init; #len_lit];
            });
            continue;
        }
        if pipelined.is_some_and(|p| p.carries.iter().any(|c| c.1 == t)) {
            before_rows.extend(quote!(let mut #v: [#c; #len_lit] = [#init; #len_lit];));
            continue;
        }
        if temp.gemm_block {
            let (decl, init) = block_temp(cx, t, gemm, block_rows);
            before_rows.extend(decl);
            block_init.extend(init);
        } else if len.as_static().is_some_and(|n| n <= STACK_ROW_LIMIT) {
            // A temp whose every element is stored before it is read (`overwritten`) is
            // initialised once per task, not per row: the per-row fill was a memset of the
            // whole row (W3 softmax's 4 KiB `exp(x - max)` row: 9% of its time).
            let decl = quote!(let mut #v: [#c; #len_lit] = [#init; #len_lit];);
            if temp.overwritten {
                before_rows.extend(decl);
            } else {
                each_row.extend(decl);
            }
        } else {
            before_rows.extend(quote!(let mut #v = #p::ScratchVec::<#c>::new(#len_lit, #init);));
            if !temp.overwritten {
                each_row.extend(quote!(#v.fill(#init);));
            }
        }
    }
    RowTemps {
        before_rows,
        each_row,
        block_init,
    }
}

/// The declaration of a product stage's block temp `t` (`Temp::gemm_block`; before the
/// task's rows) and its reset before each block's prologue (empty where none is needed).
/// Shared with the debug backend's program (debug.rs `product_stage`).
pub(super) fn block_temp(
    cx: &Emitter<'_>,
    t: usize,
    gemm: Option<&crate::ir::MatMulStep>,
    block_rows: usize,
) -> (TokenStream, TokenStream) {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let temp = &kernel.temps[t];
    let len = size_expr(temp.row_local.as_ref().expect("row-local"));
    let (v, c) = (temp_vec(t), storage_type(rt, temp.dtype));
    let init = init_value(rt, temp.dtype, temp.init);
    // A block of rows from the thread's scratch pool, holding whatever its last user left.
    // The product is overwritten by the GEMM and a computed left operand (`overwritten`) by
    // its prologue; an accumulator the prologue reduces into (the left operand `max(x,
    // axis = 1)`) starts from its init at every block, as a row-local accumulator does at
    // every row (issue 37: it read the last call's block).
    // A block holds at most `block_rows` rows (`ir::gemm_block_rows`) and at most the
    // task's rows (`__tg_stage_rows`, bound before these declarations): a 16-row product
    // reserved 256 rows (51 MB for a 224² convolution's block).
    let rows = Literal::usize_unsuffixed(block_rows);
    let decl = quote!(
        let mut #v = #p::ScratchVec::<#c>::stale(
            ::core::cmp::min(#rows, __tg_stage_rows) * #len,
            #init,
        );
    );
    let product = gemm.is_some_and(|step| step.output == t);
    let reset = if !temp.overwritten && !product {
        quote!(#v[..(__tg_blk_end - __tg_blk) * #len].fill(#init);)
    } else {
        TokenStream::new()
    };
    (decl, reset)
}

/// A product stage's right operand packed once, before the stage's tasks, into
/// `__tg_packed` (when it has no batch dims of its own: the same for every row). For
/// element types with `PlainGemm` entry points, only when the stage has more rows than
/// one GEMM block (`ir::GEMM_BLOCK_ROWS`): `__tg_packed` is then an `Option`, `None` for
/// a single block, whose GEMM packs `B` block by block itself, in L2-sized blocks for few
/// rows (tensor-core gemm/driver.rs `few_rows_blocks`): packed whole, a 768 × 3072 weight
/// was written to memory and read back for 32 rows of use.
pub(super) fn pack_shared_rhs(
    cx: &Emitter<'_>,
    step: &crate::ir::MatMulStep,
    rows: &TokenStream,
) -> TokenStream {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let c = storage_type(rt, kernel.temps[step.output].dtype);
    let (n, k) = (size_expr(&step.n), size_expr(&step.k));
    let (b, b_at) = gemm_operand(rt, &step.b, &[], None);
    let ta = operand_storage(cx, &step.a.buffer);
    let tb = operand_storage(cx, &step.b.buffer);
    let plain = plain_gemm(&ta, &tb, &c);
    let (len, pack) = if plain {
        (
            quote!(<#c as #p::PlainGemm>::plain_pack_rhs_len(#k, #n)),
            quote!(<#c as #p::PlainGemm>::plain_pack_rhs(#b, #b_at, #k, #n, &mut __tg_pack_buf[..], true)),
        )
    } else {
        (
            quote!(#p::pack_rhs_len::<#ta, #tb, #c>(#k, #n)),
            quote!(#p::pack_rhs::<#ta, #tb, #c>(#b, #b_at, #k, #n, &mut __tg_pack_buf[..], true)),
        )
    };
    let elem = quote!(<#c as #p::GemmInto<#ta, #tb>>::PackElem);
    if !plain {
        return quote! {
            let mut __tg_pack_buf = #p::ScratchVec::<#elem>::stale(#len, ::core::default::Default::default());
            let __tg_packed = #pack;
        };
    }
    let block_rows = Literal::usize_unsuffixed(crate::ir::GEMM_BLOCK_ROWS);
    quote! {
        let __tg_pack_whole: bool = #rows > #block_rows;
        let mut __tg_pack_buf = #p::ScratchVec::<#elem>::stale(
            if __tg_pack_whole { #len } else { 0 },
            ::core::default::Default::default(),
        );
        let __tg_packed = if __tg_pack_whole {
            ::core::option::Option::Some(#pack)
        } else {
            ::core::option::Option::None
        };
    }
}

/// A row stage's loop over a range of rows, with what every row and block runs.
struct RowLoop<'a> {
    cx: &'a Emitter<'a>,
    pipelined: Option<&'a crate::ir::Pipelined>,
    bodies: NestBodies,
    /// `RowTemps::each_row`, `RowTemps::block_init`.
    each_row: TokenStream,
    block_init: TokenStream,
    /// A product stage's GEMM for the block `__tg_blk..__tg_blk_end` (`emit_gemm_block`).
    block: Option<TokenStream>,
    /// Stage rows per block (`ir::gemm_block_rows`).
    block_rows: usize,
}

impl RowLoop<'_> {
    /// The rows `lo..hi`: row by row, or by blocks of `block_rows` rows around a product;
    /// a pipelined stage first runs its first nest for row `lo`.
    fn rows(&self, lo: TokenStream, hi: TokenStream) -> TokenStream {
        let (each_row, bodies) = (&self.each_row, &self.bodies.bodies);
        let per_row = quote! {
            #each_row
            #({ #bodies })*
        };
        let Some(block) = &self.block else {
            let prologue = self.pipelined.map(|p| self.first_row(p, &lo, &hi));
            return quote! {
                #prologue
                for __tg_row in #lo..#hi {
                    #per_row
                }
            };
        };
        let r = Literal::usize_unsuffixed(self.block_rows);
        let (block_init, pre) = (&self.block_init, &self.bodies.pre);
        let prologue = (!pre.is_empty()).then(|| {
            quote! {
                #block_init
                for __tg_row in __tg_blk..__tg_blk_end {
                    #each_row
                    #({ #pre })*
                }
            }
        });
        quote! {
            let __tg_rows_hi: usize = #hi;
            let mut __tg_blk: usize = #lo;
            while __tg_blk < __tg_rows_hi {
                let __tg_blk_end: usize = ::core::cmp::min(__tg_blk + #r, __tg_rows_hi);
                #prologue
                #block
                for __tg_row in __tg_blk..__tg_blk_end {
                    #per_row
                }
                __tg_blk = __tg_blk_end;
            }
        }
    }

    /// A pipelined stage's first nest, for the first row: its accumulators start from
    /// their init and end in the carries the first row's accumulators read.
    fn first_row(
        &self,
        pipelined: &crate::ir::Pipelined,
        lo: &TokenStream,
        hi: &TokenStream,
    ) -> TokenStream {
        let Emitter { rt, kernel, .. } = *self.cx;
        let decls = pipelined.carries.iter().map(|&(t, carry)| {
            let temp = &kernel.temps[t];
            let (v, cv) = (temp_vec(t), temp_vec(carry));
            let c = storage_type(rt, temp.dtype);
            let init = init_value(rt, temp.dtype, temp.init);
            let len = size_expr(temp.row_local.as_ref().expect("row-local"));
            (
                quote!(let mut #v: [#c; #len] = [#init; #len];),
                quote!(#cv = #v;),
            )
        });
        let (decls, hand_over): (Vec<_>, Vec<_>) = decls.unzip();
        let first_only = &self.bodies.first_only;
        quote! {
            if #lo < #hi {
                let __tg_row: usize = #lo;
                #(#decls)*
                { #first_only }
                #(#hand_over)*
            }
        }
    }
}

/// A row stage split into tasks of whole rows, each over its chunks of the written
/// buffers (`task_chunks`). With literal sizes every task has `rows_per_task` rows; with
/// sizes known at run time, how many rows a task takes and whether to split at all are
/// decided at call time from the stage's work.
fn emit_tasks(
    cx: &Emitter<'_>,
    tasks: &crate::ir::Tasks,
    rows_lit: &TokenStream,
    product: bool,
    prelude: &TokenStream,
    before_rows: &TokenStream,
    row_loop: &RowLoop<'_>,
) -> TokenStream {
    let rt = cx.rt;
    let p = super::names::private(rt);
    let per_task = match tasks.rows_per_task {
        Some(n) => {
            let n = Literal::usize_unsuffixed(n);
            quote!(#n)
        }
        None => quote!(__tg_per_task),
    };
    let TaskChunks {
        iter,
        pattern,
        pattern_type,
        whole,
    } = task_chunks(cx, tasks, &per_task);
    let rows = row_loop.rows(quote!(__tg_row_lo), quote!(__tg_row_hi));
    if tasks.rows_per_task.is_some() {
        return quote! {{
            #prelude
            #p::run_chunked(#iter.enumerate(), &|(__tg_task, #pattern): (usize, #pattern_type)| {
                let __tg_row_lo: usize = __tg_task * #per_task;
                let __tg_row_hi: usize = ::core::cmp::min(__tg_row_lo + #per_task, #rows_lit);
                let __tg_stage_rows: usize = __tg_row_hi - __tg_row_lo;
                #before_rows
                #rows
            });
        }};
    }
    // Sizes known at run time: the task body is one closure, run over the whole buffers on
    // this thread when the stage is small (the pool is never touched) or over disjoint
    // chunks of rows on rayon's pool when it is large.
    let split = runtime_task_split(cx, tasks, rows_lit, product.then_some(row_loop.block_rows));
    quote! {{
        #prelude
        #split
        let __tg_task_body = |(__tg_task, #pattern): (usize, #pattern_type)| {
            let __tg_row_lo: usize = __tg_task * __tg_per_task;
            let __tg_row_hi: usize = ::core::cmp::min(__tg_row_lo + __tg_per_task, __tg_rows);
            let __tg_stage_rows: usize = __tg_row_hi - __tg_row_lo;
            #before_rows
            #rows
        };
        if __tg_split {
            #p::run_chunked(#iter.enumerate(), &__tg_task_body);
        } else {
            __tg_task_body((0, #whole));
        }
    }}
}

/// For tasks whose rows are decided at run time (`Tasks::rows_per_task` `None`), binds
/// `__tg_rows` (the stage's rows), `__tg_split` (whether to split at all) and
/// `__tg_per_task` (rows per task). `product_block_rows`: a product stage's tasks take
/// whole GEMM blocks (see `plan_stages`). The debug backend's program walks a product
/// stage's tasks one after another with the same rows (debug.rs `product_stage`): a GEMM
/// call's rows decide its kernel, so its bits.
pub(super) fn runtime_task_split(
    cx: &Emitter<'_>,
    tasks: &crate::ir::Tasks,
    rows_lit: &TokenStream,
    product_block_rows: Option<usize>,
) -> TokenStream {
    let rt = cx.rt;
    let p = super::names::private(rt);
    let work = tasks.work.iter().map(size_expr);
    // Rows of a symbolic length may be empty at run time: then no split (see `plan_stages`
    // for the literal case).
    let nonempty_rows = tasks
        .chunked
        .iter()
        .filter(|(_, row)| row.as_static().is_none())
        .map(|(_, row)| {
            let r = size_expr(row);
            quote!(#r != 0)
        });
    let min = Literal::usize_unsuffixed(crate::lower::PARALLEL_MIN_ELEMENTS);
    let least_rows = Literal::usize_unsuffixed(product_block_rows.unwrap_or(1));
    quote! {
        let __tg_rows: usize = #rows_lit;
        let __tg_work: usize = 0 #(+ #work)*;
        let __tg_split_rows: usize = ::core::cmp::max(#p::rows_per_task(__tg_rows, __tg_work, #min), #least_rows);
        let __tg_split: bool = __tg_split_rows < __tg_rows #(&& #nonempty_rows)*;
        // Not split: one task over every row.
        let __tg_per_task: usize = if __tg_split { __tg_split_rows } else { __tg_rows };
    }
}

/// How tasks receive the buffers a stage writes: `iter` zips each buffer's `row_chunks` of
/// `per_task` rows, `pattern` (of type `pattern_type`) binds a task's chunks to the slice
/// names the nests use, and `whole` is the same tuple of the whole buffers (one task).
struct TaskChunks {
    iter: TokenStream,
    pattern: TokenStream,
    pattern_type: TokenStream,
    whole: TokenStream,
}

fn task_chunks(cx: &Emitter<'_>, tasks: &crate::ir::Tasks, per_task: &TokenStream) -> TaskChunks {
    let rt = cx.rt;
    let p = super::names::private(rt);
    let mut iter = TokenStream::new();
    let mut pattern = TokenStream::new();
    let mut pattern_type = TokenStream::new();
    let mut whole = TokenStream::new();
    for (k, (buffer, row_len)) in tasks.chunked.iter().enumerate() {
        let len = match (tasks.rows_per_task, row_len.as_static()) {
            (Some(n), Some(r)) => {
                let l = Literal::usize_unsuffixed(n * r);
                quote!(#l)
            }
            _ => {
                let r = size_expr(row_len);
                quote!(#per_task * #r)
            }
        };
        let t = operand_storage(cx, buffer);
        let source = match buffer {
            BufferRef::Temp(t) => {
                let v = temp_vec(*t);
                quote!(&mut #v[..])
            }
            other => {
                let s = slice_ident(other);
                quote!(&mut *#s)
            }
        };
        let name = slice_ident(buffer);
        if k == 0 {
            iter = quote!(#p::row_chunks(#source, #len));
            pattern = quote!(#name);
            pattern_type = quote!(&mut [#t]);
            whole = source;
        } else {
            iter = quote!(#iter.zip(#p::row_chunks(#source, #len)));
            pattern = quote!((#pattern, #name));
            pattern_type = quote!((#pattern_type, &mut [#t]));
            whole = quote!((#whole, #source));
        }
    }
    TaskChunks {
        iter,
        pattern,
        pattern_type,
        whole,
    }
}

/// The buffer a plane pass (`max_pool`, `resize`) writes: its temp, or the graph output it
/// was redirected to (lower/windows.rs `pools_into_outputs`).
fn pass_output(out: &BufferRef, what: &str) -> TokenStream {
    match out {
        BufferRef::Output(o) => {
            let o = output_slice(*o);
            quote!(#o)
        }
        BufferRef::Temp(t) => {
            let t = temp_vec(*t);
            quote!(#t)
        }
        _ => unreachable!("{what} writes its temp or an output"),
    }
}

/// A step along an axis: the runtime's scan (or `top_k`) from one temp into the other(s).
pub(super) fn emit_scan(cx: &Emitter<'_>, scan: &crate::ir::ScanStep) -> TokenStream {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let (src, dst) = (temp_vec(scan.input), temp_vec(scan.output));
    let c = storage_type(rt, kernel.temps[scan.output].dtype);
    let (outer, len, inner) = (
        size_expr(&scan.outer),
        size_expr(&scan.len),
        size_expr(&scan.inner),
    );
    let shape = quote!(#p::ScanShape { outer: #outer, len: #len, inner: #inner });
    match &scan.op {
        AxisStep::Scan {
            prod,
            exclusive,
            reverse,
        } => quote! {{
            #p::scan::<#c>(&#src[..], &mut #dst[..], #shape, #prod, #exclusive, #reverse);
        }},
        AxisStep::Attention {
            q,
            k,
            v,
            mask,
            sizes,
            causal,
            scale,
            softcap,
        } => {
            // A parameter is its own slice; a temp is read whole.
            let read = |b: &BufferRef| whole_buffer(b, "attention");
            let (q, k, v) = (read(q), read(k), read(v));
            let [b, hq, hkv, sq, skv, d, dv] = sizes.each_ref().map(size_expr);
            let mask = match mask {
                Some((m, strides)) => {
                    let m = read(m);
                    let strides = strides.each_ref().map(size_expr);
                    quote!(#p::AttentionMask::Add(#m, [#(#strides),*]))
                }
                None => quote!(#p::AttentionMask::<#c>::None),
            };
            let scale = match scale {
                Some(s) => quote!(#s),
                None => quote!(1.0 / (#d as f64).sqrt()),
            };
            quote! {{
                #p::attention::<#c>(
                    #q, #k, #v, #mask, &mut #dst[..],
                    #p::AttentionShape { batch: #b, q_heads: #hq, kv_heads: #hkv, q_len: #sq, kv_len: #skv, head_dim: #d, v_dim: #dv },
                    #p::AttentionOptions { scale: #scale, softcap: #softcap, causal: #causal },
                );
            }}
        }
        AxisStep::MaxPool {
            x,
            out,
            planes,
            row_pitch,
            window,
        } => {
            let x = whole_buffer(x, "max_pool");
            let out = pass_output(out, "max_pool");
            let (planes, row_pitch) = (size_expr(planes), size_expr(row_pitch));
            // Spatial axes led by length-1 axes to three (tensor-core pool.rs).
            let three = |v: &[usize], fill: usize| -> TokenStream {
                let lead = 3 - v.len();
                let all = std::iter::repeat_n(fill, lead)
                    .chain(v.iter().copied())
                    .map(proc_macro2::Literal::usize_unsuffixed);
                quote!([#(#all),*])
            };
            let (lens, outs) = (three(&window.lens, 1), three(&window.outs, 1));
            let (kernel, strides) = (three(&window.kernel, 1), three(&window.strides, 1));
            let (dilations, pads) = (three(&window.dilations, 1), three(&window.pads, 0));
            quote! {{
                <#c as #p::MaxPool>::max_pool(
                    #x, &mut #out[..], #planes,
                    #p::PoolWindow { lens: #lens, outs: #outs, kernel: #kernel, strides: #strides, dilations: #dilations, pads: #pads, row_pitch: #row_pitch },
                );
            }}
        }
        AxisStep::Resize {
            x,
            out,
            planes,
            row_pitch,
            axes,
        } => {
            let x = whole_buffer(x, "resize");
            let out = pass_output(out, "resize");
            let (planes, row_pitch) = (size_expr(planes), size_expr(row_pitch));
            let dtype = kernel.temps[scan.output].dtype;
            // Spatial axes led by unchanged length-1 axes to three (tensor-core resize.rs);
            // the taps as static arrays, each weight the literal the expression form's
            // constant is (`emit_const`: the same digits, rounded once into the dtype), so
            // both forms multiply by the same value.
            let axis = |a: &crate::ir::ResizeTaps| -> TokenStream {
                let (len, out, taps) = (a.len, a.out, a.taps);
                let index = a.index.iter().map(|&i| Literal::usize_unsuffixed(i));
                let weights = a.weights.iter().map(|&w| {
                    let digits = format!("{:?}", w.abs());
                    let text = if w < 0.0 {
                        format!("-{digits}")
                    } else {
                        digits
                    };
                    emit_const(rt, dtype, &crate::ir::ConstValue::Float(w, Some(text)))
                });
                let runs = a.runs.iter().map(|r| {
                    let r = r.map(Literal::usize_unsuffixed);
                    quote!([#(#r),*])
                });
                quote!(#p::ResizeAxis::<#c> {
                    len: #len, out: #out, taps: #taps,
                    index: &[#(#index),*], weights: &[#(#weights),*], runs: &[#(#runs),*],
                })
            };
            let lead = (0..3 - axes.len()).map(|_| quote!(#p::ResizeAxis::<#c>::unchanged(1)));
            let axes = axes.iter().map(axis);
            quote! {{
                <#c as #p::Resize>::resize(
                    #x, &mut #out[..], #planes, #row_pitch, &[#(#lead,)* #(#axes),*],
                );
            }}
        }
        AxisStep::Scatter {
            indices,
            updates,
            data_dims,
            idx_dims,
            axis,
            reduction,
        } => {
            let (ix, up) = (temp_vec(*indices), temp_vec(*updates));
            let dd = data_dims.iter().map(size_expr);
            let id = idx_dims.iter().map(size_expr);
            let r = format_ident!(
                "{}",
                match *reduction {
                    "add" => "Add",
                    "mul" => "Mul",
                    "max" => "Max",
                    "min" => "Min",
                    _ => "None",
                }
            );
            let reduction = quote!(#p::ScatterReduction::#r);
            match axis {
                Some(a) => quote! {{
                    #p::scatter_elements::<#c>(&#src[..], &#ix[..], &#up[..], &mut #dst[..], &[#(#dd),*], &[#(#id),*], #a, #reduction);
                }},
                None => quote! {{
                    #p::scatter_nd::<#c>(&#src[..], &#ix[..], &#up[..], &mut #dst[..], &[#(#dd),*], &[#(#id),*], #reduction);
                }},
            }
        }
        AxisStep::GatherNd {
            indices,
            data_dims,
            idx_dims,
            batch_dims,
        } => {
            let ix = temp_vec(*indices);
            let dd = data_dims.iter().map(size_expr);
            let id = idx_dims.iter().map(size_expr);
            quote! {{
                #p::gather_nd::<#c>(&#src[..], &#ix[..], &mut #dst[..], &[#(#dd),*], &[#(#id),*], #batch_dims);
            }}
        }
        AxisStep::TopK {
            k,
            largest,
            indices,
        } => {
            let (k, positions) = (size_expr(k), temp_vec(*indices));
            quote! {{
                #p::top_k::<#c>(&#src[..], &mut #dst[..], &mut #positions[..], #shape, #k, #largest);
            }}
        }
    }
}

/// Row-local temps above this many elements (or of a symbolic length) live in a heap
/// buffer reused row after row; smaller ones are arrays on the stack.
pub(super) const STACK_ROW_LIMIT: usize = 2048;

/// In a row stage of several passes, the last pass (None: no pass) prefetches, chunk by chunk, the same
/// chunk of the next row of every input that the first pass reads along its rows
/// (softmax's `x`, which its max pass reads; layer norm's `x`). The first pass of the next
/// row then reads from the cache, and the prefetches are spread over a pass that computes,
/// one per chunk (a 64-byte line for 16 f32 lanes), instead of queueing behind that pass's
/// own demand loads. Measured on native builds (BENCHMARKS.md "Peers", 2026-11-27, sixth
/// session). Before it, rows were left to the hardware prefetchers, whose order LLVM may
/// scramble: the max pass's fully unrolled loop read lines 2, 3, 6, 7, … of a row before
/// lines 0, 1, 4, 5, …. An earlier version prefetched each next row at once at the start
/// of a row: that cost W3 17% and W4 20% (its burst of 64 prefetches queued ahead of the
/// row's own loads), and was removed.
///
/// Only where the row is plain: one outer loop (the row), inner stride 1, a row stride
/// that is a size, and the same inner extent in the first and last passes, so that chunk
/// `__tg_j` of the last pass is chunk `__tg_j` of the next row. The last row prefetches
/// itself (already in cache) rather than past the input. Not for a literal row shorter than
/// a chunk of either lane count: the last pass then has no main loop to prefetch from, and
/// the slices would be bound (and bounds-checked) per row for nothing.
pub(super) fn next_row_prefetch(
    cx: &Emitter<'_>,
    nests: &[LoopNest],
    rows: &TokenStream,
) -> Option<Prefetch> {
    // The pass that prefetches: the last, when its stores all go to temps or to output
    // rows an earlier pass of the row already stored (so in cache), as softmax's scale
    // pass. Not when the last pass is first to store an output row, as layer norm's: W4
    // ran 13-25% slower with the prefetches in its output pass or in its variance pass
    // (the output pass's stores wait on reads-for-ownership from memory).
    let in_memory_stores = |at: usize| {
        let nest = &nests[at];
        nest.sink.written().into_iter().any(|k| {
            let buffer = &nest.operands[k].buffer;
            !matches!(buffer, BufferRef::Temp(_))
                && !nests[..at].iter().any(|n| {
                    n.sink
                        .written()
                        .iter()
                        .any(|&w| n.operands[w].buffer == *buffer)
                })
        })
    };
    let at = nests.len() - 1;
    if at == 0 || in_memory_stores(at) {
        return None;
    }
    let (first, last) = (&nests[0], &nests[at]);
    let plain = |n: &LoopNest| {
        n.outer.len() == 1 && n.ragged.is_none() && n.scan.is_none() && n.matmul.is_none()
    };
    let short = first.inner.as_static().is_some_and(|n| n < MIN_LANES);
    if !plain(first) || !plain(last) || first.inner != last.inner || short {
        return None;
    }
    let mut seen: Vec<&BufferRef> = Vec::new();
    let rows_of: Vec<(&Operand, bool)> = first
        .operands
        .iter()
        .filter(|op| {
            let new = prefetchable_row(op) && !seen.contains(&&op.buffer);
            if new {
                seen.push(&op.buffer);
            }
            new
        })
        .map(|op| (op, true))
        .collect();
    row_prefetch(cx, &rows_of, &first.inner, rows)
}

/// An input read along a plain row (inner stride 1, a row stride that is a size), which
/// `row_prefetch` can prefetch chunk by chunk.
fn prefetchable_row(op: &Operand) -> bool {
    let [stride] = op.outer_strides.as_slice() else {
        return false;
    };
    matches!(op.buffer, BufferRef::Input(_))
        && op.inner_stride.is_lit(1)
        && !stride.is_zero()
        && stride.as_size().is_some()
}

/// The prefetches of `rows_of`, each `(operand, next)`: the operand's row at `__tg_row`, or
/// with `next` at the row after it (the row itself at the stage's last row), one line per
/// chunk `__tg_j` of a pass over `inner` elements. None for no rows.
fn row_prefetch(
    cx: &Emitter<'_>,
    rows_of: &[(&Operand, bool)],
    inner: &crate::ir::Size,
    rows: &TokenStream,
) -> Option<Prefetch> {
    let Emitter { rt, .. } = *cx;
    let p = super::names::private(rt);
    let (mut decl, mut per_chunk) = (TokenStream::new(), TokenStream::new());
    for (k, &(op, next)) in rows_of.iter().enumerate() {
        let t = operand_storage(cx, &op.buffer);
        let slice = slice_ident(&op.buffer);
        let at = format_ident!("__tg_pf{}", k);
        let row = if next {
            quote!(__tg_pf_row)
        } else {
            quote!(__tg_row)
        };
        let start = offset_expr(
            offset_expr(quote!(0usize), &op.base, None),
            &op.outer_strides[0],
            Some(&row),
        );
        let extent = size_expr(inner);
        decl.extend(quote! {
            let #at: &[#t] = {
                let __tg_at: usize = #start;
                &#slice[__tg_at..__tg_at + #extent]
            };
        });
        per_chunk.extend(quote!(#p::prefetch_chunk::<#t>(#at, __tg_j);));
    }
    if decl.is_empty() {
        return None;
    }
    let decl = quote! {
        let __tg_pf_row: usize = if __tg_row + 1 < #rows { __tg_row + 1 } else { __tg_row };
        #decl
    };
    Some(Prefetch { decl, per_chunk })
}

/// In a pipelined stage (`Stage::pipelined`: the last pass also reads the next row of the
/// first pass's inputs), each input row that a pass of the row reads first (not read by an
/// earlier pass of the row at the same row) is prefetched by the pass before it, chunk by
/// chunk, at the row that pass will read: softmax's backward (passes exp, `Σ g·y`, output
/// with the next row's max) prefetches `g` in its exp pass and the next row of `x` in its
/// `Σ g·y` pass. Measured on the softmax vjp over f32[4096, 768] (NOTES.md "Softmax
/// backward prefetch"). The first nest runs only for a task's first row, so the rows the
/// second pass reads first are not prefetched (the last pass of the row before read them).
/// Only where the two passes are plain loops over the same inner extent (chunk `__tg_j` of
/// one is chunk `__tg_j` of the other's row), not for a literal row shorter than a chunk.
fn pipelined_prefetches(
    cx: &Emitter<'_>,
    nests: &[LoopNest],
    next_row: &[usize],
    rows: &TokenStream,
) -> Vec<Option<Prefetch>> {
    let mut each: Vec<Option<Prefetch>> = nests.iter().map(|_| None).collect();
    let last = nests.len() - 1;
    let plain = |n: &LoopNest| {
        n.outer.len() == 1 && n.ragged.is_none() && n.scan.is_none() && n.matmul.is_none()
    };
    let short = |n: &LoopNest| n.inner.as_static().is_some_and(|n| n < MIN_LANES);
    // The rows read so far in the row: (buffer, next row?).
    let mut read: Vec<(&BufferRef, bool)> = Vec::new();
    for at in 1..nests.len() {
        let nest = &nests[at];
        let mut firsts: Vec<(&Operand, bool)> = Vec::new();
        for (k, op) in nest.operands.iter().enumerate() {
            if nest.outer.len() != 1 || !prefetchable_row(op) {
                continue;
            }
            let next = at == last && next_row.contains(&k);
            if read.contains(&(&op.buffer, next)) {
                continue;
            }
            read.push((&op.buffer, next));
            firsts.push((op, next));
        }
        let before = &nests[at - 1];
        if at >= 2 && plain(before) && plain(nest) && before.inner == nest.inner && !short(nest) {
            each[at - 1] = row_prefetch(cx, &firsts, &before.inner, rows);
        }
    }
    each
}
