//! Loop IR → Rust tokens. Never reports user errors: everything it sees has been checked.
//! `signature` emits the functions around the kernels (types, call entry); this file the
//! kernels: temps, stages, loop nests and values. Sizes with names become expressions
//! over the `__tg_dim_*` locals bound at call entry; literal sizes stay literals, so a
//! graph without names expands exactly as before names existed.
//! Every path into the runtime goes through `runtime` (the `$crate` of the `graph!`
//! wrapper), so expansions compile whatever the user named the dependency. Generated
//! locals are `__tg_`-prefixed.

mod signature;

pub use signature::{closure_value, emit_graph_fn};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ast::GraphFn;
use crate::dtype::DType;
use crate::ir::{
    BufferRef, ConstValue, Kernel, Level, LoopNest, NodeKind, Offset, ReduceKind, Sink, Size,
    TempInit, TypedGraph, Value, ValueSource,
};
use signature::{dim_ident, signature_ident};

/// A size as an expression: a literal, or the product of its coefficient and the bound
/// `__tg_dim_*` locals.
fn size_expr(size: &Size) -> TokenStream {
    if let Some(n) = size.as_static() {
        let n = Literal::usize_unsuffixed(n);
        return quote!(#n);
    }
    let names = size.names.iter().map(|n| dim_ident(n));
    if size.coeff == 1 {
        quote!((1usize #(* #names)*))
    } else {
        let c = Literal::usize_unsuffixed(size.coeff);
        quote!((#c #(* #names)*))
    }
}

/// `start + Σ factor × term` for the terms of `offset`, in `usize` arithmetic that wraps:
/// the terms of a flipped axis are negative, the whole is an in-bounds index (lowering
/// builds only such offsets; the slice indexing that uses it checks the bound).
fn offset_expr(start: TokenStream, offset: &Offset, factor: Option<&TokenStream>) -> TokenStream {
    let mut out = start;
    for (c, names) in &offset.terms {
        let term = size_expr(&Size {
            coeff: c.unsigned_abs() as usize,
            names: names.clone(),
        });
        let term = match factor {
            Some(f) => quote!(usize::wrapping_mul(#f, #term)),
            None => term,
        };
        out = if *c > 0 {
            quote!(usize::wrapping_add(#out, #term))
        } else {
            quote!(usize::wrapping_sub(#out, #term))
        };
    }
    out
}

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

/// `expr?` for a `Result<_, ShapeError>` in a function that returns one, written as a
/// `match`: `?` makes the user's crate compile `Try::branch` for every value type and
/// `FromResidual` for every return type (one per output tensor type and per wrapper: 51 +
/// 57 functions in set 2's debug build; issue 17), the `match` nothing.
pub(crate) fn try_result(expr: TokenStream) -> TokenStream {
    quote! {
        match #expr {
            ::core::result::Result::Ok(__tg_ok) => __tg_ok,
            ::core::result::Result::Err(__tg_err) => return ::core::result::Result::Err(__tg_err),
        }
    }
}

fn compute_type(rt: &TokenStream, dtype: DType) -> TokenStream {
    storage_type(rt, dtype.compute())
}

/// The runtime's lane counts (`tensor_core::lanes::LANES`: 16 on AVX-512 builds, 8
/// elsewhere). The macro runs on the host and cannot know which one the kernel's build
/// has, so loops whose trip count is literal drop a dead main loop or tail only where
/// that holds for both (`emit_nest`); every kernel asserts at compile time that the
/// runtime's count is one of them.
const MIN_LANES: usize = 8;
const MAX_LANES: usize = 16;

fn value_ident(id: usize) -> proc_macro2::Ident {
    format_ident!("__tg_v{}", id)
}

fn input_slice(param: usize) -> proc_macro2::Ident {
    format_ident!("__tg_in{}", param)
}

fn output_slice(index: usize) -> proc_macro2::Ident {
    format_ident!("__tg_out_slice{}", index)
}

fn temp_vec(index: usize) -> proc_macro2::Ident {
    format_ident!("__tg_temp{}", index)
}

fn temp_slice(index: usize) -> proc_macro2::Ident {
    format_ident!("__tg_temp_slice{}", index)
}

fn offset_ident(k: usize) -> proc_macro2::Ident {
    format_ident!("__tg_off{}", k)
}

/// The sizes call entry checks before a kernel runs (`check_entry_sizes`: at most
/// `MAX_ELEMENTS`, 2^53, with no overflow on the way), each once. Empty for a graph with
/// only literal dims, whose kernel then cannot fail (the checker holds every literal value
/// to that bound).
/// - What the kernel allocates: every temp with a name in its length (whole, or a GEMM
///   block of `GEMM_BLOCK_ROWS` of its rows) and every right operand packed once per stage
///   (`k · n`). A name bound from an empty argument (`[2^62, 0]`) may be any `usize`, so
///   even one name can ask for more bytes than an allocation may hold, which panicked in
///   `ScratchVec` (issue 37, item 2); 2^53 elements of at most 8 bytes, padded by the
///   packing to at most 64 columns, stay far inside `isize::MAX` bytes.
/// - What it multiplies from several names (`coeff · A · C`: a nest's element count):
///   names from different arguments can multiply past `usize`. A size that the element
///   count of an argument or output (`args`) bounds so that its product cannot overflow
///   (`bounded_by`) is left out: call entry has checked that every argument's dims
///   multiply within `usize` where none of them is 0 (`bind_entry`), and the allocating form
///   has allocated its outputs (`graph_output`, whose element count fits) before the kernel
///   runs, so such a size's check could never fail.
pub(crate) fn checked_sizes(kernel: &Kernel, args: &[Size]) -> Vec<Size> {
    let mut sizes: Vec<Size> = Vec::new();
    let add = |size: Size, sizes: &mut Vec<Size>| {
        let internal = size.names.iter().any(|n| n.starts_with('#'));
        if size.as_static().is_none() && !internal && !sizes.contains(&size) {
            sizes.push(size);
        }
    };
    for temp in &kernel.temps {
        add(temp.len.clone(), &mut sizes);
        if let (true, Some(row)) = (temp.gemm_block, &temp.row_local) {
            add(row.mul(&Size::lit(crate::ir::GEMM_BLOCK_ROWS)), &mut sizes);
        }
    }
    for step in kernel.nests.iter().filter_map(|n| n.matmul.as_ref()) {
        add(step.k.mul(&step.n), &mut sizes);
    }
    let totals = kernel.nests.iter().map(|n| match &n.ragged {
        Some(total) => total.clone(),
        None => n.outer.iter().fold(n.inner.clone(), |acc, e| acc.mul(e)),
    });
    for size in totals {
        if (size.names.len() > 1 || size.coeff > 1)
            && !args.iter().any(|arg| bounded_by(&size, arg))
        {
            add(size, &mut sizes);
        }
    }
    sizes
}

/// Whether the kernel's product for `size`, `c · n1 · … · nk` left to right (`size_expr`),
/// cannot overflow given that `arg`'s dims were checked: `c · N ≤ c' · N · L` when
/// `0 < c ≤ c'`, the names `N` of `size` are among those of `arg` and each leftover name in
/// `L` is one of `N` (if a name of `N` is 0, `size` is 0; otherwise every name of `L` is at
/// least 1). `24 · B` is bounded by `24 · B` and `48 · B · B`, not by `24 · B · C` (`C` may
/// be 0 while `B` is huge).
///
/// Call entry's check of an argument (`checked_product`) is 0 as soon as one dim is 0,
/// whatever the others multiply to (a static shape `[0, 2^40, 2^40]`, whose `LEN` is 0), so
/// the product is known to fit only at its end: a partial product before its last factor
/// must be a single factor. That leaves `c · A` (if `A` is not 0, no dim of `arg` is, and
/// its product fits) and `A · B` with `c = 1` (`A` fits; `A · B` is 0 or fits); `2 · A · Z`
/// and `A · B · Z` stay checked (`2 · A` or `A · B` can overflow while `Z` is 0).
fn bounded_by(size: &Size, arg: &Size) -> bool {
    if arg.coeff == 0 || size.coeff > arg.coeff {
        return false;
    }
    if size.names.len() + usize::from(size.coeff > 1) > 2 {
        return false;
    }
    let mut left = arg.names.clone();
    for n in &size.names {
        match left.iter().position(|m| m == n) {
            Some(at) => {
                left.remove(at);
            }
            None => return false,
        }
    }
    left.iter().all(|n| size.names.contains(n))
}

/// The kernel of a checked graph: temps, then its stages in order. The caller has bound
/// the input slices `__tg_in*`, the output slices `__tg_out_slice*` and, for graphs with
/// names, the `__tg_dim_*` sizes.
fn emit_kernel(rt: &TokenStream, f: &GraphFn, graph: &TypedGraph, kernel: &Kernel) -> TokenStream {
    let p = quote!(#rt::__private);
    let mut setup = TokenStream::new();
    // Sizes the kernels allocate or compute from several names are at most 2^53 elements
    // (checked before any write: `checked_sizes`).
    let sizes = checked_sizes(kernel, &signature::arg_sizes(f, graph));
    if !sizes.is_empty() {
        let entries = sizes.iter().map(|size| {
            let c = Literal::usize_unsuffixed(size.coeff);
            let names = size.names.iter().map(|n| dim_ident(n));
            quote!((#c, &[#(#names),*]))
        });
        let sig = signature_ident(f);
        let check = try_result(quote!(#p::check_entry_sizes(&#sig, &[#(#entries),*])));
        setup.extend(quote!(#check;));
    }
    // Rows of ragged flat loops: ceil(total / block), written without overflow.
    for (name, total, block) in &kernel.blocks {
        let id = dim_ident(name);
        let total = size_expr(total);
        let block = Literal::usize_unsuffixed(*block);
        setup.extend(quote! {
            let #id: usize = #total / #block + (#total % #block != 0) as usize;
        });
    }
    // Temps hold compute-type values: reduction accumulators start at the combine's
    // identity. They come from the thread's scratch pool (`ScratchVec`): allocated on the
    // first call on a thread, reused after.
    for (index, temp) in kernel.temps.iter().enumerate() {
        if temp.row_local.is_some() {
            continue;
        }
        let t = storage_type(rt, temp.dtype);
        let v = temp_vec(index);
        let len = size_expr(&temp.len);
        let init = init_value(rt, temp.dtype, temp.init);
        setup.extend(quote! {
            let mut #v = #p::ScratchVec::<#t>::new(#len, #init);
        });
    }
    let stages: TokenStream = kernel
        .stages
        .iter()
        .map(|stage| emit_stage(rt, f, graph, kernel, stage))
        .collect();
    let (min, max) = (
        Literal::usize_unsuffixed(MIN_LANES),
        Literal::usize_unsuffixed(MAX_LANES),
    );
    quote! {
        const _: () = ::core::assert!(#p::LANES == #min || #p::LANES == #max, "tensorgraph's macro and runtime disagree on the lane count");
        #setup
        #stages
    }
}

/// The slice variable a buffer is read and written through inside nests.
fn slice_ident(buffer: &BufferRef) -> proc_macro2::Ident {
    match buffer {
        BufferRef::Input(i) => input_slice(*i),
        BufferRef::Output(o) => output_slice(*o),
        BufferRef::Temp(t) => temp_slice(*t),
        BufferRef::Index => unreachable!("the index operand is no buffer"),
    }
}

/// A stage: one nest with its own loops, or nests sharing an outermost row loop, which
/// may be split into tasks. Tasks get disjoint row chunks of every buffer the stage
/// writes (`row_chunks`, core's `chunks_mut`), bound to the same slice names the nests use,
/// and run on the thread pool by `run_chunked` (compiled once in the runtime, not per
/// stage: see `tensor_core::parallel`).
fn emit_stage(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    kernel: &Kernel,
    stage: &crate::ir::Stage,
) -> TokenStream {
    let p = quote!(#rt::__private);
    let nests = &kernel.nests[stage.first..stage.first + stage.count];
    if let Some(scan) = &nests[0].scan {
        return emit_scan(rt, kernel, scan);
    }
    if let (Some(step), None) = (&nests[0].matmul, &stage.row_loop) {
        return emit_matmul(rt, f, graph, kernel, step);
    }
    let Some(rows) = &stage.row_loop else {
        let stream = streams_outputs(graph, &nests[0]);
        let body = emit_nest(
            rt,
            f,
            graph,
            kernel,
            &nests[0],
            false,
            &[],
            stream,
            true,
            None,
            None,
        );
        return quote!({ #body });
    };
    let rows_lit = size_expr(rows);
    let chunked: Vec<BufferRef> = stage
        .tasks
        .iter()
        .flat_map(|t| t.chunked.iter().map(|c| c.0.clone()))
        .collect();
    // A stage with a product runs by blocks of rows (`ir::GEMM_BLOCK_ROWS`): the nests
    // before it (its left operand's prologue) through the block's rows, then the GEMM for
    // the block, then the nests after it through the block's rows.
    let product_at = nests.iter().position(|n| n.matmul.is_some());
    let gemm = product_at.and_then(|at| nests[at].matmul.as_ref());
    // Only a stage of one nest streams its stores: in a stage of several passes a later
    // pass reads the row back (softmax's scale pass), which must find it in the cache.
    let stream = nests.len() == 1 && streams_outputs(graph, &nests[0]);
    // Only the last nest prefetches (`next_row_prefetch`), unless it reads the next row
    // itself (a pipelined stage).
    let pipelined = stage.pipelined.as_ref();
    let prefetch = match pipelined {
        None => next_row_prefetch(rt, f, graph, kernel, nests, &rows_lit),
        Some(_) => None,
    };
    let last = nests.len() - 1;
    let body_of = |(at, nest): (usize, &LoopNest)| {
        emit_nest(
            rt,
            f,
            graph,
            kernel,
            nest,
            true,
            &chunked,
            stream,
            nests.len() == 1,
            prefetch.as_ref().filter(|_| at == last),
            pipelined
                .filter(|_| at == last)
                .map(|p| (p.next_row.as_slice(), &rows_lit)),
        )
    };
    // A pipelined stage runs its first nest only for a task's first row (`prologue`), and
    // from each row's last nest for the next.
    let first_only = pipelined.map(|_| body_of((0, &nests[0])));
    let nests_p = nests.iter().enumerate().skip(pipelined.is_some() as usize);
    let (pre, bodies): (Vec<TokenStream>, Vec<TokenStream>) = match product_at {
        Some(at) => (
            nests_p.clone().take(at).map(body_of).collect(),
            nests_p.skip(at + 1).map(body_of).collect(),
        ),
        None => (Vec::new(), nests_p.map(body_of).collect()),
    };
    // Row-local temps: one row each, starting from their init at every row.
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
    // Run before a block's prologue: the block temps that start from their init.
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
            // A block of rows from the thread's scratch pool, holding whatever its last
            // user left. The product is overwritten by the GEMM and a computed left operand
            // (`overwritten`) by its prologue; an accumulator the prologue reduces into (the
            // left operand `max(x, axis = 1)`) starts from its init at every block, as a
            // row-local accumulator does at every row (issue 37: it read the last call's
            // block).
            let rows = Literal::usize_unsuffixed(crate::ir::GEMM_BLOCK_ROWS);
            before_rows
                .extend(quote!(let mut #v = #p::ScratchVec::<#c>::stale(#rows * #len_lit, #init);));
            let product = gemm.is_some_and(|step| step.output == t);
            if !temp.overwritten && !product {
                block_init.extend(quote!(#v[..(__tg_blk_end - __tg_blk) * #len_lit].fill(#init);));
            }
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
    // A right operand that is the same for every row (no batch dims of its own) is packed
    // once for the stage, before its tasks, and shared by every block and task.
    let packed = gemm.is_some_and(|step| step.b.batch_strides.iter().all(Offset::is_zero));
    let mut prelude = TokenStream::new();
    if let Some(step) = gemm {
        let c = storage_type(rt, kernel.temps[step.output].dtype);
        let (n, k) = (size_expr(&step.n), size_expr(&step.k));
        if packed {
            let (b, b_at) = gemm_operand(rt, &step.b, &[], None);
            let ta = operand_storage(rt, graph, f, kernel, &step.a.buffer);
            let tb = operand_storage(rt, graph, f, kernel, &step.b.buffer);
            let (len, pack) = if plain_gemm(&ta, &tb, &c) {
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
            prelude.extend(quote! {
                let mut __tg_pack_buf = #p::ScratchVec::<<#c as #p::GemmInto<#ta, #tb>>::PackElem>::stale(
                    #len,
                    ::core::default::Default::default(),
                );
                let __tg_packed = #pack;
            });
        }
    }
    let block = gemm.map(|step| emit_gemm_block(rt, f, graph, kernel, step, false, packed));
    let rows_of = |lo: TokenStream, hi: TokenStream| -> TokenStream {
        let per_row = quote! {
            #each_row
            #({ #bodies })*
        };
        // A pipelined stage's first nest, for the first row: its accumulators start from
        // their init and end in the carries the first row's accumulators read.
        let prologue = pipelined.map(|p| {
            let decls = p.carries.iter().map(|&(t, carry)| {
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
            quote! {
                if #lo < #hi {
                    let __tg_row: usize = #lo;
                    #(#decls)*
                    { #first_only }
                    #(#hand_over)*
                }
            }
        });
        match &block {
            None => quote! {
                #prologue
                for __tg_row in #lo..#hi {
                    #per_row
                }
            },
            Some(block) => {
                let r = Literal::usize_unsuffixed(crate::ir::GEMM_BLOCK_ROWS);
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
        }
    };
    let Some(tasks) = &stage.tasks else {
        let rows = rows_of(quote!(0), rows_lit.clone());
        return quote! {{
            #prelude
            #before_rows
            #rows
        }};
    };
    let per_task = match tasks.rows_per_task {
        Some(n) => {
            let n = Literal::usize_unsuffixed(n);
            quote!(#n)
        }
        None => quote!(__tg_per_task),
    };
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
        let t = operand_storage(rt, graph, f, kernel, buffer);
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
    let dynamic_rows = rows_of(quote!(__tg_row_lo), quote!(__tg_row_hi));
    let static_rows = dynamic_rows.clone();
    if tasks.rows_per_task.is_none() {
        // Sizes known at run time: the task body is one closure, run over the whole
        // buffers on this thread when the stage is small (the pool is never touched) or
        // over disjoint chunks of rows on rayon's pool when it is large.
        let work = tasks.work.iter().map(size_expr);
        // Rows of a symbolic length may be empty at run time: then no split (see
        // `plan_stages` for the literal case).
        let nonempty_rows = tasks
            .chunked
            .iter()
            .filter(|(_, row)| row.as_static().is_none())
            .map(|(_, row)| {
                let r = size_expr(row);
                quote!(#r != 0)
            });
        let min = Literal::usize_unsuffixed(crate::lower::PARALLEL_MIN_ELEMENTS);
        // A product's tasks take whole GEMM blocks (see `plan_stages`).
        let least_rows = Literal::usize_unsuffixed(if gemm.is_some() {
            crate::ir::GEMM_BLOCK_ROWS
        } else {
            1
        });
        return quote! {{
            #prelude
            let __tg_rows: usize = #rows_lit;
            let __tg_work: usize = 0 #(+ #work)*;
            let __tg_split_rows: usize = ::core::cmp::max(#p::rows_per_task(__tg_rows, __tg_work, #min), #least_rows);
            let __tg_split: bool = __tg_split_rows < __tg_rows #(&& #nonempty_rows)*;
            // Not split: one task over every row.
            let __tg_per_task: usize = if __tg_split { __tg_split_rows } else { __tg_rows };
            let __tg_task_body = |(__tg_task, #pattern): (usize, #pattern_type)| {
                let __tg_row_lo: usize = __tg_task * __tg_per_task;
                let __tg_row_hi: usize = ::core::cmp::min(__tg_row_lo + __tg_per_task, __tg_rows);
                #before_rows
                #dynamic_rows
            };
            if __tg_split {
                #p::run_chunked(#iter.enumerate(), &__tg_task_body);
            } else {
                __tg_task_body((0, #whole));
            }
        }};
    }
    quote! {{
        #prelude
        #p::run_chunked(#iter.enumerate(), &|(__tg_task, #pattern): (usize, #pattern_type)| {
            let __tg_row_lo: usize = __tg_task * #per_task;
            let __tg_row_hi: usize = ::core::cmp::min(__tg_row_lo + #per_task, #rows_lit);
            #before_rows
            #static_rows
        });
    }}
}

/// A scan step: the runtime's scan from one temp into the other.
fn emit_scan(rt: &TokenStream, kernel: &Kernel, scan: &crate::ir::ScanStep) -> TokenStream {
    let p = quote!(#rt::__private);
    let (src, dst) = (temp_vec(scan.input), temp_vec(scan.output));
    let c = storage_type(rt, kernel.temps[scan.output].dtype);
    let (outer, len, inner) = (
        size_expr(&scan.outer),
        size_expr(&scan.len),
        size_expr(&scan.inner),
    );
    let (prod, exclusive, reverse) = (scan.prod, scan.exclusive, scan.reverse);
    quote! {{
        #p::scan::<#c>(&#src[..], &mut #dst[..], #p::ScanShape { outer: #outer, len: #len, inner: #inner }, #prod, #exclusive, #reverse);
    }}
}

/// A signed stride as an `isize` expression.
fn stride_expr(stride: &Offset) -> TokenStream {
    let mut out = quote!(0isize);
    for (c, names) in &stride.terms {
        let term = size_expr(&Size {
            coeff: c.unsigned_abs() as usize,
            names: names.clone(),
        });
        out = if *c > 0 {
            quote!(#out + (#term as isize))
        } else {
            quote!(#out - (#term as isize))
        };
    }
    out
}

/// A GEMM operand: its slice, and its `MatrixAt` at the batch index `counters` (and, for
/// a block of rows, starting at row `first_row`).
fn gemm_operand(
    rt: &TokenStream,
    m: &crate::ir::StridedMatrix,
    counters: &[proc_macro2::Ident],
    first_row: Option<&TokenStream>,
) -> (TokenStream, TokenStream) {
    let p = quote!(#rt::__private);
    let slice = match &m.buffer {
        BufferRef::Input(i) => {
            let s = input_slice(*i);
            quote!(#s)
        }
        BufferRef::Temp(t) => {
            let v = temp_vec(*t);
            quote!(&#v[..])
        }
        _ => unreachable!("GEMM operands are inputs or temps"),
    };
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
fn emit_gemm_block(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    kernel: &Kernel,
    step: &crate::ir::MatMulStep,
    parallel: bool,
    packed: bool,
) -> TokenStream {
    let p = quote!(#rt::__private);
    let c = storage_type(rt, kernel.temps[step.output].dtype);
    let (m, n, k) = (size_expr(&step.m), size_expr(&step.n), size_expr(&step.k));
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
    let ta = operand_storage(rt, graph, f, kernel, &step.a.buffer);
    let tb = operand_storage(rt, graph, f, kernel, &step.b.buffer);
    let out = temp_vec(step.output);
    let plain = plain_gemm(&ta, &tb, &c);
    let call = match (packed, plain) {
        (true, true) => {
            quote!(<#c as #p::PlainGemm>::plain_matmul_packed(#a, #a_at, &__tg_packed, &mut #out[..], (__tg_r - __tg_blk) * #n, __tg_count, #n, #k, #parallel);)
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

/// Whether a product's operands have its accumulator's type (`f32 · f32 -> f32` and the
/// like: the operands of every product lowering emits today), so that it can call the
/// runtime's non-generic `PlainGemm` entry points, compiled once in tensor-core, instead of
/// instantiating the GEMM engine in the user's crate for each element type (issue 17).
fn plain_gemm(ta: &TokenStream, tb: &TokenStream, c: &TokenStream) -> bool {
    let c = c.to_string();
    ta.to_string() == c && tb.to_string() == c
}

/// A product computed whole, before its readers: the GEMM of every row (one call per batch
/// index), on as many threads as the engine likes.
fn emit_matmul(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    kernel: &Kernel,
    step: &crate::ir::MatMulStep,
) -> TokenStream {
    let rows = size_expr(&step.batch.iter().fold(step.m.clone(), |acc, b| acc.mul(b)));
    let all_rows = emit_gemm_block(rt, f, graph, kernel, step, true, false);
    quote!({
        let __tg_blk: usize = 0;
        let __tg_blk_end: usize = #rows;
        #all_rows
    })
}

/// The start value `init` of a temp of `dtype`.
fn init_value(rt: &TokenStream, dtype: DType, init: TempInit) -> TokenStream {
    let p = quote!(#rt::__private);
    let t = storage_type(rt, dtype);
    match init {
        TempInit::Zero => quote!(<#t as #p::Identity>::ZERO),
        TempInit::One => quote!(<#t as #p::Identity>::ONE),
        TempInit::Lowest => quote!(<#t as #p::Identity>::LOWEST),
        TempInit::Highest => quote!(<#t as #p::Identity>::HIGHEST),
        TempInit::NoIndex => quote!(-1i64),
    }
}

/// Row-local temps above this many elements (or of a symbolic length) live in a heap
/// buffer reused row after row; smaller ones are arrays on the stack.
const STACK_ROW_LIMIT: usize = 2048;

/// The element type an operand's buffer stores.
fn operand_storage(
    rt: &TokenStream,
    graph: &TypedGraph,
    f: &GraphFn,
    kernel: &Kernel,
    buffer: &BufferRef,
) -> TokenStream {
    match buffer {
        BufferRef::Input(p) => storage_type(rt, f.params[*p].ty.dtype),
        BufferRef::Output(o) => storage_type(rt, graph.nodes[graph.outputs[*o]].dtype),
        BufferRef::Temp(t) => storage_type(rt, kernel.temps[*t].dtype),
        BufferRef::Index => quote!(i64),
    }
}

/// Software prefetch for a nest: `decl` binds, once per row, the slices that `per_chunk`
/// prefetches from at `__tg_j` in each chunk of the nest's main loops.
struct Prefetch {
    decl: TokenStream,
    per_chunk: TokenStream,
}

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
fn next_row_prefetch(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    kernel: &Kernel,
    nests: &[LoopNest],
    rows: &TokenStream,
) -> Option<Prefetch> {
    let p = quote!(#rt::__private);
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
    let (mut decl, mut per_chunk) = (TokenStream::new(), TokenStream::new());
    let mut seen: Vec<&BufferRef> = Vec::new();
    for op in &first.operands {
        let BufferRef::Input(_) = op.buffer else {
            continue;
        };
        let stride = &op.outer_strides[0];
        if seen.contains(&&op.buffer)
            || !op.inner_stride.is_lit(1)
            || stride.is_zero()
            || stride.as_size().is_none()
        {
            continue;
        }
        seen.push(&op.buffer);
        let t = operand_storage(rt, graph, f, kernel, &op.buffer);
        let slice = slice_ident(&op.buffer);
        let at = format_ident!("__tg_pf{}", seen.len() - 1);
        let start = offset_expr(
            offset_expr(quote!(0usize), &op.base, None),
            stride,
            Some(&quote!(__tg_pf_row)),
        );
        let extent = size_expr(&first.inner);
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

/// One loop nest. In a row stage (`in_row_group`) its outermost loop is the stage's
/// `__tg_row` loop, already open; `chunked` buffers are then this task's rows only, bound
/// by the stage, and addressed relative to `__tg_row_lo`.
fn emit_nest(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    kernel: &Kernel,
    nest: &LoopNest,
    in_row_group: bool,
    chunked: &[BufferRef],
    stream: bool,
    alone: bool,
    prefetch: Option<&Prefetch>,
    next_row: Option<(&[usize], &TokenStream)>,
) -> TokenStream {
    let p = quote!(#rt::__private);
    let lanes = quote!(#p::LANES);
    let prefetch_chunk = prefetch.map(|p| &p.per_chunk);

    // Temp slices: the one this nest writes mutably, the others shared.
    let written: Vec<usize> = nest.sink.written();
    let mut slices = TokenStream::new();
    let mut seen_temps = Vec::new();
    for (k, op) in nest.operands.iter().enumerate() {
        if chunked.contains(&op.buffer) {
            continue;
        }
        if let BufferRef::Temp(t) = op.buffer {
            if seen_temps.contains(&t) {
                continue;
            }
            seen_temps.push(t);
            let (v, s) = (temp_vec(t), temp_slice(t));
            let c = storage_type(rt, kernel.temps[t].dtype);
            if written.contains(&k) {
                slices.extend(quote!(let #s: &mut [#c] = &mut #v[..];));
            } else {
                slices.extend(quote!(let #s: &[#c] = &#v[..];));
            }
        }
    }

    let computations = |level: Level| -> TokenStream {
        nest.values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.level == level)
            .map(|(id, _)| emit_value(rt, f, graph, kernel, nest, id))
            .collect()
    };
    let global = computations(Level::Global);
    let row = computations(Level::Row);
    let inner = computations(Level::Inner);

    // What each chunk does with its values, for the main loop (`masked = false`) and the tail.
    // Each store; `streaming`: full chunks of a streaming nest (`streams_outputs`), which
    // bypass the cache.
    let stores_of = |stores: &[(usize, usize)], streaming: bool| -> TokenStream {
        stores
            .iter()
            .map(|&(k, v)| {
                let op = &nest.operands[k];
                let slice = slice_ident(&op.buffer);
                let off = offset_ident(k);
                let t = operand_storage(rt, graph, f, kernel, &op.buffer);
                let v = value_ident(v);
                if streaming {
                    quote!(#p::store_streaming::<#t>(#slice, #off + __tg_j, #v);)
                } else {
                    quote!(#p::store::<#t>(#slice, #off + __tg_j, __tg_n, #v);)
                }
            })
            .collect()
    };
    // What a reduction does per chunk after its stores, as the default build's block loop
    // takes it (`BlockSink::after`, `grouped`); nothing for a store nest.
    let mut reduce_after = (TokenStream::new(), false);
    let (row_init, chunk_sink_main, chunk_sink_tail, row_finish, unrolled) = match &nest.sink {
        Sink::Store(stores) => {
            let body = stores_of(stores, false);
            // A symbolic extent hides the trip count that lets LLVM unroll a literal
            // one, so the store loop is unrolled by two here (measured: W1 with `N`
            // ran 4-6% behind the literal kernel on one thread without it).
            let unrolled = (nest.inner.as_static().is_none() || nest.ragged.is_some())
                .then(|| (2, body.clone()));
            let main = stores_of(stores, stream);
            (TokenStream::new(), main, body, TokenStream::new(), unrolled)
        }
        Sink::Reduce {
            kind,
            acc,
            value,
            best,
            index,
            stores,
            sibling,
        } => {
            let (mut init, mut main, mut tail, mut finish, mut unrolled) = emit_reduce_sink(
                rt, graph, kernel, nest, *kind, *acc, *value, *best, *index, "",
            );
            // A second reduction in the same pass (`lower::fuse_sibling_reductions`), on
            // accumulators of its own; both unroll by four.
            if let Some(sibling) = sibling {
                let (init2, main2, tail2, finish2, unrolled2) = emit_reduce_sink(
                    rt,
                    graph,
                    kernel,
                    nest,
                    sibling.kind,
                    sibling.acc,
                    sibling.value,
                    None,
                    None,
                    "_sibling",
                );
                init.extend(init2);
                main.extend(main2);
                tail.extend(tail2);
                finish.extend(finish2);
                unrolled = match (unrolled, unrolled2) {
                    (Some((4, body)), Some((4, body2))) => Some((4, quote!(#body #body2))),
                    _ => unreachable!("row reductions into registers unroll by four"),
                };
            }
            // The default build's block loop accumulates as the unrolled loop does, in
            // groups of four chunks (`__tg_u`; blocks start at whole groups), so that a
            // reduction's bits do not depend on whether its nest has block calls (a
            // pipelined stage's first pass runs alone for a task's first row and inside
            // the last pass for the others: `Stage::pipelined`).
            reduce_after = match &unrolled {
                Some((4, body)) => (body.clone(), true),
                _ => (main.clone(), false),
            };
            // A fused store pass (`lower::fuse_row_reductions`): each chunk stores, then
            // accumulates.
            let store = stores_of(stores, false);
            (
                init,
                quote!(#store #main),
                quote!(#store #tail),
                finish,
                unrolled.map(|(width, body)| (width, quote!(#store #body))),
            )
        }
    };

    let loop_vars: Vec<_> = (0..nest.outer.len())
        .map(|i| format_ident!("__tg_i{}", i))
        .collect();
    let offsets = nest.operands.iter().enumerate().map(|(k, op)| {
        let off = offset_ident(k);
        let relative = chunked.contains(&op.buffer);
        // A row-local temp holds only the current row: the row term drops out.
        let row_local = in_row_group
            && matches!(op.buffer, BufferRef::Temp(t) if kernel.temps[t].row_local.is_some());
        // A product's block holds the rows from `__tg_blk` on.
        let block =
            row_local && matches!(op.buffer, BufferRef::Temp(t) if kernel.temps[t].gemm_block);
        let mut sum = offset_expr(quote!(0usize), &op.base, None);
        for (depth, (s, i)) in op.outer_strides.iter().zip(&loop_vars).enumerate() {
            if s.is_zero() || (row_local && !block && depth == 0) {
                continue;
            }
            let next = next_row.filter(|(operands, _)| depth == 0 && operands.contains(&k));
            let counter = if let Some((_, rows)) = next {
                // The next row of a pipelined stage (`Stage::pipelined`), the row itself
                // at the stage's last row.
                quote!((if #i + 1 < #rows { #i + 1 } else { #i }))
            } else if depth == 0 && block {
                quote!((#i - __tg_blk))
            } else if depth == 0 && relative {
                quote!((#i - __tg_row_lo))
            } else {
                quote!(#i)
            };
            sum = offset_expr(sum, s, Some(&counter));
        }
        quote!(let #off: usize = #sum;)
    });
    // A ragged flat loop's rows are `inner` long but the last, which ends at the total.
    let (inner_extent, ragged_extent) = match &nest.ragged {
        Some(total) => {
            let block = size_expr(&nest.inner);
            let total = size_expr(total);
            let i0 = &loop_vars[0];
            (
                quote!(__tg_inner),
                quote!(let __tg_inner: usize = ::core::cmp::min(#block, #total - #i0 * #block);),
            )
        }
        None => (size_expr(&nest.inner), TokenStream::new()),
    };
    // Loops whose extent is known to be a whole number of chunks (or less than one) get no
    // dead copy of the body: the tail is emitted only when it can run, for either lane
    // count (n % 16 == 0 implies n % 8 == 0; n < 8 is less than one chunk of either).
    // A streaming nest's head (`stream_head`, up to LANES - 1 elements) shifts its chunks,
    // so it always has a tail.
    let (has_main, has_tail) = match (&nest.ragged, nest.inner.as_static()) {
        (None, Some(n)) => (n >= MIN_LANES, stream || n % MAX_LANES != 0),
        _ => (true, true),
    };
    // Reductions into registers run four independent accumulators first, so the adds do
    // not wait on each other's latency.
    // A store loop's chunk body is emitted once, inside a loop of constant trip count
    // `width` over the copies (`__tg_u`), not written out `width` times: LLVM inlines and
    // simplifies the one copy and only then unrolls it fully (a debug build keeps the
    // loop). Written out, the 4 copies of every reduction's body cost set 1 of the
    // compile-time benchmark 19% of its release build (issue 17), but reductions stay
    // written out (below); the order of accumulation is the same either way.
    let unrolled_loop = match &unrolled {
        // The body of a reduction alone in its stage is written out once per accumulator.
        // Measured on native builds, six alternating runs of the peers binary (18:41 UTC,
        // load 2): as a `for __tg_u` loop over one copy, W5 `sum(x, axis = 1, acc = f32)`
        // (a lone reduction) took 0.176-0.196 ms against 0.162-0.188 written out, while W4
        // (layer norm: two reductions in a row stage with the output pass) took 1.22-1.27
        // ms against 1.30-1.36. So lone reductions are written out, the others loop.
        Some((width, sink)) if alone && matches!(nest.sink, Sink::Reduce { .. }) => {
            let copies: Vec<Literal> = (0..*width).map(Literal::usize_unsuffixed).collect();
            let width = Literal::usize_unsuffixed(*width);
            quote! {
                while __tg_j + #width * #lanes <= #inner_extent {
                    #({
                        let __tg_u: usize = #copies;
                        let __tg_j: usize = __tg_j + __tg_u * #lanes;
                        let __tg_n: usize = #lanes;
                        #inner
                        #sink
                        #prefetch_chunk
                    })*
                    __tg_j += #width * #lanes;
                }
            }
        }
        // A pass that stores and reduces (`lower::fuse_row_reductions`, a pipelined
        // stage's last pass: softmax's exp and scale passes) computes its group's chunks
        // first, then stores them (`group_values`: every load of the group before its
        // first store, so a store does not stall a later load of the group that matches it
        // in the low 12 address bits). The values cross as a tuple of the chunk values the
        // sink reads. Measured (native S3, softmax from `Vec`s, the output 16, 64 or 128
        // bytes past the input modulo 4 KiB): 1.34-1.38, 1.59-1.65, 1.40-1.42 ms before,
        // 1.28-1.30 after, 1.22-1.25 where the offsets agree (1.25-1.29 before). Not for
        // plain store passes: their literal-extent loops have no unrolled group (LLVM
        // unrolls them), and grouping them by four measured mixed (S4's output pass
        // 1.61 -> 1.47 ms at 64 bytes, 1.39 -> 1.42 at 0; S6 `gelu` 4.48 -> 4.54 at 0);
        // for the width-2 loops of run-time extents it cost set 2 of the compile-time
        // benchmark 1% more release instructions for no measured case.
        Some((width, sink))
            if matches!(nest.sink, Sink::Reduce { .. }) && !nest.sink.stores().is_empty() =>
        {
            let mut values: Vec<usize> = nest.sink.values();
            values.retain(|&v| nest.values[v].level == Level::Inner);
            values.sort_unstable();
            values.dedup();
            let values = values.into_iter().map(value_ident);
            let values = quote!((#(#values,)*));
            let width = Literal::usize_unsuffixed(*width);
            quote! {
                while __tg_j + #width * #lanes <= #inner_extent {
                    let __tg_group: [_; #width] = #p::group_values(|__tg_u| {
                        let __tg_j: usize = __tg_j + __tg_u * #lanes;
                        let __tg_n: usize = #lanes;
                        #inner
                        #values
                    });
                    for __tg_u in 0..#width {
                        let __tg_j: usize = __tg_j + __tg_u * #lanes;
                        let __tg_n: usize = #lanes;
                        let #values = __tg_group[__tg_u];
                        #sink
                        #prefetch_chunk
                    }
                    __tg_j += #width * #lanes;
                }
            }
        }
        Some((width, sink)) => {
            let width = Literal::usize_unsuffixed(*width);
            quote! {
                while __tg_j + #width * #lanes <= #inner_extent {
                    for __tg_u in 0..#width {
                        let __tg_j: usize = __tg_j + __tg_u * #lanes;
                        let __tg_n: usize = #lanes;
                        #inner
                        #sink
                        #prefetch_chunk
                    }
                    __tg_j += #width * #lanes;
                }
            }
        }
        None => TokenStream::new(),
    };
    // Copies of the body that a literal extent makes dead for the build's LANES (8 or 16,
    // unknown here) sit under `if const { … }`: rustc drops a block behind a constant
    // condition before LLVM sees it (a debug build too), where a plain `if` left LLVM to
    // inline `exp` & co. into the dead copy before proving it dead (issue 17).
    let static_inner = match &nest.ragged {
        None if !stream => nest.inner.as_static(),
        _ => None,
    };
    let unrolled_loop = match (static_inner, &unrolled) {
        // Shorter than `width` chunks of either lane count: the loop never runs.
        (Some(n), Some((width, _))) if n < width * MIN_LANES => TokenStream::new(),
        (Some(n), Some((width, _))) if n < width * MAX_LANES && !unrolled_loop.is_empty() => {
            let (n, width) = (
                Literal::usize_unsuffixed(n),
                Literal::usize_unsuffixed(*width),
            );
            quote!(if const { #n >= #width * #lanes } { #unrolled_loop })
        }
        _ => unrolled_loop,
    };
    let blocked_loop = if has_main {
        // Not for a streaming nest (its stores are not plain stores).
        let block_sink = (!stream).then(|| BlockSink {
            stores: nest.sink.stores(),
            after: reduce_after.0.clone(),
            grouped: reduce_after.1,
        });
        emit_blocked_loop(
            rt,
            f,
            graph,
            kernel,
            nest,
            &inner_extent,
            &chunk_sink_main,
            block_sink,
            prefetch_chunk,
        )
    } else {
        TokenStream::new()
    };
    let main_loops = if has_main {
        let single = quote! {
            while __tg_j + #lanes <= #inner_extent {
                let __tg_n: usize = #lanes;
                #inner
                #chunk_sink_main
                #prefetch_chunk
                __tg_j += #lanes;
            }
        };
        // Behind an unrolled loop of `width` chunks a literal extent leaves
        // `(n / LANES) % width` whole chunks (the blocked loop's F32_BLOCK is a multiple of
        // every `width * LANES`): when that is 0 for a lane count, the single-chunk loop
        // never runs (a layer norm's reductions over rows of 128 or 1024).
        let single = match (static_inner, &unrolled) {
            (Some(n), Some((width, _))) => {
                let left = |l: usize| (n / l) % width != 0;
                match (left(MIN_LANES), left(MAX_LANES)) {
                    (false, false) => TokenStream::new(),
                    (true, true) => single,
                    _ => {
                        let (n, width) = (
                            Literal::usize_unsuffixed(n),
                            Literal::usize_unsuffixed(*width),
                        );
                        quote!(if const { (#n / #lanes) % #width != 0 } { #single })
                    }
                }
            }
            _ => single,
        };
        quote! {
            #blocked_loop
            #unrolled_loop
            #single
        }
    } else {
        TokenStream::new()
    };
    let tail = if has_tail {
        quote! {
            if __tg_j < #inner_extent {
                let __tg_n: usize = #inner_extent - __tg_j;
                #inner
                #chunk_sink_tail
            }
        }
    } else {
        TokenStream::new()
    };
    // Every step of the loops above is a multiple of LANES, so a literal extent that is a
    // multiple of LANES leaves no tail; n < 16 may have no whole chunk.
    let main_loops = match static_inner {
        Some(n) if has_main && n < MAX_LANES => {
            let n = Literal::usize_unsuffixed(n);
            quote!(if const { #n >= #lanes } { #main_loops })
        }
        _ => main_loops,
    };
    let tail = match static_inner {
        Some(n) if has_tail && n % MIN_LANES == 0 => {
            let n = Literal::usize_unsuffixed(n);
            quote!(if const { #n % #lanes != 0 } { #tail })
        }
        _ => tail,
    };
    // A streaming nest stores a first, partial chunk the ordinary way, up to where the
    // first output's chunks are aligned for streaming stores, and fences its streaming
    // stores before the row ends (tensor-core stream.rs).
    let (stream_head, stream_fence) = match &nest.sink {
        Sink::Store(stores) if stream => {
            let (k, _) = stores[0];
            let op = &nest.operands[k];
            let (slice, off) = (slice_ident(&op.buffer), offset_ident(k));
            let t = operand_storage(rt, graph, f, kernel, &op.buffer);
            (
                quote! {
                    let __tg_head: usize = ::core::cmp::min(#p::stream_head::<#t>(#slice, #off), #inner_extent);
                    if __tg_head > 0 {
                        let __tg_n: usize = __tg_head;
                        #inner
                        #chunk_sink_tail
                        __tg_j = __tg_head;
                    }
                },
                quote!(#p::stream_fence();),
            )
        }
        _ => (TokenStream::new(), TokenStream::new()),
    };
    // Each buffer that this nest reads or writes only along the inner loop, contiguously
    // and at one place (every operand on it with inner stride 1 and the same offsets), is
    // re-sliced to the row once per row: one bounds check per row instead of one per load
    // and store, since `__tg_j + LANES <= n` then proves every chunk inside the row (W3's
    // scale pass spent 6 of its 18 instructions per vector on them). The row slice shadows
    // the buffer's slice and its operands' offsets become 0, so the chunk code is
    // unchanged; it covers exactly the elements the row's loop visits.
    let mut row_slices = TokenStream::new();
    if nest.ragged.is_none() {
        let extent = size_expr(&nest.inner);
        let mut done: Vec<&BufferRef> = Vec::new();
        for (k, op) in nest.operands.iter().enumerate() {
            if done.contains(&&op.buffer) || op.buffer == BufferRef::Index {
                continue;
            }
            done.push(&op.buffer);
            let same: Vec<usize> = (0..nest.operands.len())
                .filter(|&m| nest.operands[m].buffer == op.buffer)
                .collect();
            // An operand at the next row (a pipelined stage) is another place than the same
            // operand at this row.
            let at_next_row = |m: usize| next_row.is_some_and(|(ops, _)| ops.contains(&m));
            let one_place = same.iter().all(|&m| {
                let o = &nest.operands[m];
                o.inner_stride.is_lit(1)
                    && o.base == op.base
                    && o.outer_strides == op.outer_strides
                    && at_next_row(m) == at_next_row(k)
            });
            if !one_place {
                continue;
            }
            let slice = slice_ident(&op.buffer);
            let off = offset_ident(k);
            let written = same.iter().any(|m| written.contains(m));
            row_slices.extend(if written {
                quote!(let #slice = &mut #slice[#off..#off + #extent];)
            } else {
                quote!(let #slice = &#slice[#off..#off + #extent];)
            });
            for m in same {
                let off = offset_ident(m);
                row_slices.extend(quote!(let #off: usize = 0;));
            }
        }
    }
    let prefetch_decl = prefetch.map(|p| &p.decl);
    let mut body = quote! {
        #(#offsets)*
        #prefetch_decl
        #row_slices
        #ragged_extent
        #row
        #row_init
        // The chunk body appears twice: in the main loop `__tg_n` is the constant LANES,
        // so loads and stores compile to plain vector moves; the tail runs it once with
        // the remainder. (A closure called from two sites is not reliably inlined.)
        let mut __tg_j: usize = 0;
        #stream_head
        #main_loops
        #tail
        #stream_fence
        #row_finish
    };
    for (depth, (var, extent)) in loop_vars.iter().zip(&nest.outer).enumerate().rev() {
        let extent = size_expr(extent);
        body = if depth == 0 && in_row_group {
            quote! {
                let #var: usize = __tg_row;
                #body
            }
        } else {
            quote! {
                for #var in 0..#extent {
                    #body
                }
            }
        };
    }
    quote! {
        #slices
        #global
        #body
    }
}

/// Nests storing at least this many bytes of outputs use streaming stores: twice this
/// machine's 32 MiB last-level cache is what a following kernel could not find in cache
/// anyway. W1 (`relu(a + b) * 2`, 64 MiB out) 5.94 -> see BENCHMARKS.md "Streaming stores".
const STREAM_MIN_BYTES: usize = 1 << 25;

/// Whether `nest` stores its outputs with streaming stores: it only stores, to outputs,
/// contiguously along its inner loop, and writes at least `STREAM_MIN_BYTES` (all extents
/// literal; a graph with names keeps ordinary stores).
fn streams_outputs(graph: &TypedGraph, nest: &LoopNest) -> bool {
    let Sink::Store(stores) = &nest.sink else {
        return false;
    };
    let elements = nest.outer.iter().fold(nest.inner.as_static(), |n, e| {
        n.zip(e.as_static()).map(|(n, e)| n * e)
    });
    let (Some(elements), false) = (elements, stores.is_empty() || nest.ragged.is_some()) else {
        return false;
    };
    let mut bytes = 0;
    for &(k, _) in stores {
        let op = &nest.operands[k];
        let BufferRef::Output(o) = op.buffer else {
            return false;
        };
        if !op.inner_stride.is_lit(1) {
            return false;
        }
        bytes += elements * (graph.nodes[graph.outputs[o]].dtype.bits() as usize).div_ceil(8);
    }
    bytes >= STREAM_MIN_BYTES
}

/// The f32 functions that have block entry points in the runtime (`__private::f32_block`),
/// with those entry points' names.
const BLOCK_FUNCTIONS: &[(&str, &str)] = &[
    ("exp", "exp_f32"),
    ("tanh", "tanh_f32"),
    ("sigmoid", "sigmoid_f32"),
    ("erf", "erf_f32"),
    ("gelu", "gelu_f32"),
    ("exp_nonpos", "exp_nonpos_f32"),
];

/// The block entry point of a float division by a value fixed for the row or the call
/// (`Op::invariant_divisor`), by the lane method it would call: `f32_block::NAME(&mut
/// block, divisor)`. Default builds have no FMA at compile time, so their lanes divide with
/// SSE `divps` (W3 softmax: a third of its time); the block runs Markstein's form on
/// AVX-512 CPUs (`lanes::div_softmax_m512`), `vdivps` on AVX2, the same bits.
const BLOCK_DIVISIONS: &[(&str, &str)] = &[
    ("div_invariant_lanes", "div_invariant_f32"),
    ("div_softmax_lanes", "div_softmax_f32"),
];

/// The sink of a nest as the default build's block loop takes it (`emit_blocked_loop`):
/// the stores (operand, value), and what each chunk does after them (a reduction's
/// accumulate; empty for a store nest).
struct BlockSink<'a> {
    stores: &'a [(usize, usize)],
    after: TokenStream,
    /// `after` accumulates into four registers by `__tg_u`: the last phase runs its chunks
    /// in groups of four, `__tg_u` the chunk's place in its group (the unrolled loop's).
    grouped: bool,
}

/// The values a computed value reads (none for loads, constants, counts).
fn value_args(v: &Value) -> &[usize] {
    match &v.source {
        ValueSource::Compute { args } => args,
        _ => &[],
    }
}

/// The runtime's block entry point (`f32_block::NAME`) that computes inner value `v` of
/// f32 lanes, if any: a unary function of `BLOCK_FUNCTIONS`, or a division by a value
/// fixed for the row or the call (`BLOCK_DIVISIONS`; the same test as `emit_value`'s
/// choice of the invariant form).
fn block_entry(graph: &TypedGraph, values: &[Value], v: &Value) -> Option<&'static str> {
    let (ValueSource::Compute { args }, NodeKind::Op { op, .. }) =
        (&v.source, &graph.nodes[v.node].kind)
    else {
        return None;
    };
    let f32_lanes = graph.nodes[values[args[0]].node].dtype.compute() == DType::F32;
    if v.level != Level::Inner || !f32_lanes {
        return None;
    }
    match args.len() {
        1 => BLOCK_FUNCTIONS
            .iter()
            .find(|(name, _)| *name == op.name)
            .map(|&(_, entry)| entry),
        2 | 3 if values[args[1]].level != Level::Inner => op
            .invariant_divisor
            .and_then(|method| BLOCK_DIVISIONS.iter().find(|(m, _)| *m == method))
            .map(|&(_, entry)| entry),
        _ => None,
    }
}

/// On default x86-64 builds (no AVX2 at compile time) the f32 exp, tanh, sigmoid, erf,
/// gelu and exp_nonpos dispatch at run time to AVX2 + FMA code, and a call per vector of 8
/// lanes costs ~5 ns of crossing (BENCHMARKS.md "Peers"). A nest whose inner loop calls
/// them (or stores a row division, `BLOCK_DIVISIONS`) gets a loop over blocks of
/// `F32_BLOCK` elements in front of its chunk loops there: phase k runs the block's chunks
/// computing the arguments of the calls that depend on k earlier calls into a buffer per
/// call (or the block of the buffer the call's result is stored to, `stored_at`), then
/// each buffer goes through the runtime's block entry point once (16 lanes per zmm on
/// AVX-512 machines, 8 on AVX2, the same bits either way); the last phase runs the chunks
/// again with the calls' results loaded from their buffers, and sinks them (a reduction's
/// chunk c into accumulator c % 4, as the unrolled chunk loop's groups). Values a phase
/// needs are recomputed in it (loads from L1, arithmetic), never kept across phases. The
/// chunk loops after it take what is left (< F32_BLOCK). Other builds compile the chunk
/// loops alone (`cfg`), so their kernels are unchanged.
fn emit_blocked_loop(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    kernel: &Kernel,
    nest: &LoopNest,
    inner_extent: &TokenStream,
    sink: &TokenStream,
    block_sink: Option<BlockSink>,
    prefetch_chunk: Option<&TokenStream>,
) -> TokenStream {
    let p = quote!(#rt::__private);
    let lanes = quote!(#p::LANES);
    if nest.inner.as_static().is_some_and(|n| n < 256) {
        return TokenStream::new();
    }
    let values = &nest.values;
    let args_of = |id: usize| value_args(&values[id]);
    let candidate: Vec<Option<&str>> = values
        .iter()
        .map(|v| block_entry(graph, values, v))
        .collect();
    // A call whose result the sink stores, once, to a contiguous f32 buffer: the block of
    // that buffer is the call's buffer. Its argument is stored there, the entry runs in
    // place, later phases read the result from there, and the last phase does not store
    // it again (W6 `gelu(x + bias)` on the default build: no copy of each block from a
    // buffer into the output). The nest may read that buffer only as the call's own
    // argument at the same place, read by nothing else (`in place`: softmax's scale pass,
    // `e / sum` over the row of `e` the exp pass stored; then the argument is already
    // there and nothing is copied at all).
    let stored_at: Vec<Option<(usize, bool)>> = (0..values.len())
        .map(|id| {
            let stores = block_sink.as_ref()?.stores;
            candidate[id]?;
            let [(k, _)] = stores.iter().filter(|&&(_, v)| v == id).copied().collect::<Vec<_>>()[..]
            else {
                return None;
            };
            let op = &nest.operands[k];
            let f32_storage = match &op.buffer {
                BufferRef::Output(o) => graph.nodes[graph.outputs[*o]].dtype == DType::F32,
                BufferRef::Temp(t) => kernel.temps[*t].dtype == DType::F32,
                _ => false,
            };
            let arg = args_of(id)[0];
            let used_once = values
                .iter()
                .enumerate()
                .all(|(w, v)| w == id || !value_args(v).contains(&arg))
                && !nest.sink.values().contains(&arg);
            let in_place = used_once
                && matches!(values[arg].source, ValueSource::Load { operand }
                    if nest.operands[operand].same_place(op));
            let other_reads = values.iter().enumerate().any(|(w, v)| {
                !(in_place && w == arg)
                    && matches!(v.source, ValueSource::Load { operand } if nest.operands[operand].buffer == op.buffer)
            });
            (op.inner_stride.is_lit(1) && f32_storage && !other_reads).then_some((k, in_place))
        })
        .collect();
    // The block entry of each inner value that calls one: a unary function, or a division
    // whose quotient is stored (above; elsewhere divisions stay in the lanes: through a
    // buffer, the SSE copies cost what the block saved).
    let entry: Vec<Option<&str>> = (0..values.len())
        .map(|id| candidate[id].filter(|_| args_of(id).len() == 1 || stored_at[id].is_some()))
        .collect();
    if entry.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    // Where the phases write and read call `id`'s block (a slice expression, for a store
    // and for a load, and the chunk's index): a buffer, or the output's slots.
    let place = |id: usize| -> (TokenStream, TokenStream, TokenStream) {
        match stored_at[id] {
            Some((k, _)) => {
                let (slice, off) = (slice_ident(&nest.operands[k].buffer), offset_ident(k));
                (quote!(#slice), quote!(#slice), quote!(#off + __tg_j))
            }
            None => {
                let b = format_ident!("__tg_blk{}", id);
                (
                    quote!(&mut #b[..]),
                    quote!(&#b[..]),
                    quote!(__tg_c * #lanes),
                )
            }
        }
    };
    // depth: how many block calls the value depends on, itself included (args come first).
    let mut depth = vec![0usize; values.len()];
    for id in 0..values.len() {
        let below = args_of(id).iter().map(|&a| depth[a]).max().unwrap_or(0);
        depth[id] = below + entry[id].is_some() as usize;
    }
    let phases = depth.iter().copied().max().unwrap_or(0);
    let buf = |id: usize| format_ident!("__tg_blk{}", id);
    // The inner values phase k computes for `roots`, in order: the closure over args,
    // stopping at block calls of depth <= k (loaded from their buffers).
    let emit_phase = |k: usize, roots: &[usize]| -> TokenStream {
        let mut needed = vec![false; values.len()];
        for &r in roots {
            needed[r] = true;
        }
        for id in (0..values.len()).rev() {
            if needed[id] && values[id].level == Level::Inner && entry[id].is_none() {
                for &a in args_of(id) {
                    needed[a] = true;
                }
            }
        }
        let mut out = TokenStream::new();
        for id in 0..values.len() {
            if !needed[id] || values[id].level != Level::Inner {
                continue;
            }
            if entry[id].is_some() {
                debug_assert!(depth[id] <= k, "a call is loaded only after its phase");
                let v = value_ident(id);
                let (_, at, i) = place(id);
                out.extend(quote! {
                    let #v: #p::V<f32> = #p::load::<f32>(#at, #i, #lanes);
                });
            } else {
                out.extend(emit_value(rt, f, graph, kernel, nest, id));
            }
        }
        out
    };
    let chunks = |body: TokenStream| {
        quote! {
            for __tg_c in 0..#p::F32_BLOCK / #lanes {
                let __tg_j: usize = __tg_j + __tg_c * #lanes;
                let __tg_n: usize = #lanes;
                #body
            }
        }
    };
    let mut blocks = TokenStream::new();
    let mut buffers = TokenStream::new();
    for k in 0..phases {
        let calls: Vec<usize> = (0..values.len())
            .filter(|&id| entry[id].is_some() && depth[id] == k + 1)
            .collect();
        let arg_roots: Vec<usize> = calls.iter().map(|&c| args_of(c)[0]).collect();
        let mut body = emit_phase(k, &arg_roots);
        for &c in &calls {
            let a = value_ident(args_of(c)[0]);
            let (at, _, i) = place(c);
            match stored_at[c] {
                // In place: the argument is there already.
                Some((_, true)) => {}
                Some((_, false)) => body.extend(quote!(#p::store::<f32>(#at, #i, #lanes, #a);)),
                None => {
                    body.extend(quote!(#p::store::<f32>(#at, #i, #lanes, #a);));
                    let b = buf(c);
                    buffers.extend(quote!(let mut #b = [0.0f32; #p::F32_BLOCK];));
                }
            }
        }
        if calls
            .iter()
            .any(|&c| !matches!(stored_at[c], Some((_, true))))
        {
            blocks.extend(chunks(body));
        }
        for &c in &calls {
            let e = format_ident!("{}", entry[c].expect("a block call"));
            // A division's divisor (and softmax's `in_range` flag) are row or call values,
            // splats: their lane 0.
            let extra = args_of(c)[1..].iter().map(|&d| {
                let d = value_ident(d);
                quote!(, #d.0[0])
            });
            let block = match stored_at[c] {
                Some((k, _)) => {
                    let (slice, off) = (slice_ident(&nest.operands[k].buffer), offset_ident(k));
                    quote!(#p::f32_block::block_mut(#slice, #off + __tg_j))
                }
                None => {
                    let b = buf(c);
                    quote!(&mut #b)
                }
            };
            blocks.extend(quote!(#p::f32_block::#e(#block #(#extra)*);));
        }
    }
    // The last phase computes what the sink consumes but the stored calls' own stores
    // (`Sink::values`: the stored values, then the reduced ones).
    let sink_roots: Vec<usize> = match &block_sink {
        Some(b) => b
            .stores
            .iter()
            .filter(|&&(k, v)| !stored_at[v].is_some_and(|(at, _)| at == k))
            .map(|&(_, v)| v)
            .chain(nest.sink.values().into_iter().skip(b.stores.len()))
            .collect(),
        None => nest.sink.values(),
    };
    let mut last = emit_phase(phases, &sink_roots);
    match &block_sink {
        Some(block_sink) => {
            for &(k, v) in block_sink.stores {
                if stored_at[v].is_some_and(|(at, _)| at == k) {
                    continue;
                }
                let op = &nest.operands[k];
                let (slice, off) = (slice_ident(&op.buffer), offset_ident(k));
                let t = operand_storage(rt, graph, f, kernel, &op.buffer);
                let v = value_ident(v);
                last.extend(quote!(#p::store::<#t>(#slice, #off + __tg_j, __tg_n, #v);));
            }
            last.extend(block_sink.after.clone());
        }
        None => last.extend(sink.clone()),
    }
    if block_sink.as_ref().is_some_and(|b| b.grouped) {
        blocks.extend(quote! {
            for __tg_g in 0..#p::F32_BLOCK / (4 * #lanes) {
                for __tg_u in 0..4 {
                    let __tg_c: usize = __tg_g * 4 + __tg_u;
                    let __tg_j: usize = __tg_j + __tg_c * #lanes;
                    let __tg_n: usize = #lanes;
                    #last
                }
            }
        });
    } else {
        blocks.extend(chunks(last));
    }
    // The next row's prefetches (`next_row_prefetch`), one per chunk of the block as in
    // the chunk loops.
    if let Some(per_chunk) = prefetch_chunk {
        blocks.extend(quote! {
            for __tg_c in 0..#p::F32_BLOCK / #lanes {
                let __tg_j: usize = __tg_j + __tg_c * #lanes;
                #per_chunk
            }
        });
    }
    quote! {
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        {
            #buffers
            // Blocks are whole groups of four chunks (the reductions' accumulators).
            const _: () = ::core::assert!(#p::F32_BLOCK % (4 * #lanes) == 0);
            while __tg_j + #p::F32_BLOCK <= #inner_extent {
                #blocks
                __tg_j += #p::F32_BLOCK;
            }
        }
    }
}

/// Accumulation into a reduction's temp. Where the accumulator runs along the inner loop
/// (a kept inner axis) each chunk loads, combines and stores it; where the inner axis is
/// reduced, lanes accumulate in registers across the row and fold into the slot once.
#[allow(clippy::too_many_arguments)]
fn emit_reduce_sink(
    rt: &TokenStream,
    graph: &TypedGraph,
    kernel: &Kernel,
    nest: &LoopNest,
    kind: ReduceKind,
    acc: usize,
    value: usize,
    best: Option<usize>,
    index: Option<usize>,
    suffix: &str,
) -> (
    TokenStream,
    TokenStream,
    TokenStream,
    TokenStream,
    Option<(usize, TokenStream)>,
) {
    let p = quote!(#rt::__private);
    // A sibling reduction's accumulators get names of their own (`suffix`).
    let (acc_regs, all) = (
        format_ident!("__tg_acc{}", suffix),
        format_ident!("__tg_all{}", suffix),
    );
    let acc_op = &nest.operands[acc];
    let acc_slice = slice_ident(&acc_op.buffer);
    let acc_off = offset_ident(acc);
    let v = value_ident(value);
    let value_c = compute_type(rt, graph.nodes[nest.values[value].node].dtype);

    if let (Some(best), Some(index)) = (best, index) {
        let is_max = kind == ReduceKind::ArgMax;
        let best_op = &nest.operands[best];
        let best_slice = slice_ident(&best_op.buffer);
        let best_off = offset_ident(best);
        let idx_off = offset_ident(index);
        if acc_op.inner_stride.is_zero() {
            // One (best, chunk base) pair in registers through the row (`arg_step`: each
            // lane sees its elements in order), turned into indices at the row's end.
            // The running index walks the inner loop at its operand's stride: 1 along a
            // row, more where the inner loop is an outer axis of the reduced ones (a region
            // of a `concat` one column wide leaves its rows as the inner loop, each
            // `columns` indices apart; issue 37: `argmax(concat([a, a, b], axis = 1))`
            // returned the row number).
            let index_stride = &nest.operands[index].inner_stride;
            let (base, step) = if index_stride.is_zero() {
                (quote!(#idx_off), quote!(0usize))
            } else if index_stride.is_lit(1) {
                (quote!(#idx_off + __tg_j), quote!(1usize))
            } else {
                let stride = offset_expr(quote!(0usize), index_stride, None);
                (quote!(#idx_off + __tg_j * #stride), stride)
            };
            // Four pairs, as the sums' four accumulators, so that chunks do not wait on
            // each other's compare-and-select chain; each pair still sees its chunks in
            // order, and `arg_fold` applies the full rules across pairs.
            // Pair `u` takes chunk `u` of each group of four (the unrolled loop's
            // `__tg_u`); chunks after the last whole group and the tail go to pair 0.
            let init = quote! {
                let mut __tg_best = [#p::V::<#value_c>::splat(<#value_c as #p::Identity>::LOWEST); 4];
                let mut __tg_best_base = [#p::V::<i64>::splat(-1); 4];
            };
            let step_call = |u: TokenStream| {
                quote! {
                    #p::arg_step::<#value_c, #is_max>(&mut __tg_best[#u], &mut __tg_best_base[#u], #v, #base, #p::lane_mask(__tg_n));
                }
            };
            let unrolled = step_call(quote!(__tg_u));
            let main = step_call(quote!(0));
            let finish = quote! {
                for __tg_u in 0..4 {
                    #p::arg_fold::<#value_c, #is_max>(__tg_best[__tg_u], #p::arg_indices(__tg_best_base[__tg_u], #step), &mut #best_slice[#best_off], &mut #acc_slice[#acc_off]);
                }
            };
            return (init, main.clone(), main, finish, Some((4, unrolled)));
        }
        // The accumulator in memory, one slot per column: the lanes' indices as a vector.
        let index_stride = &nest.operands[index].inner_stride;
        let idx = if index_stride.is_zero() {
            quote!(#p::V::<i64>::splat(#idx_off as i64))
        } else if index_stride.is_lit(1) {
            quote!(#p::iota(#idx_off + __tg_j))
        } else {
            let stride = offset_expr(quote!(0usize), index_stride, None);
            quote!(#p::iota_strided(#idx_off + __tg_j * #stride, #stride))
        };
        let step = quote! {
            let mut __tg_best = #p::load::<#value_c>(#best_slice, #best_off + __tg_j, __tg_n);
            let mut __tg_best_i = #p::load::<i64>(#acc_slice, #acc_off + __tg_j, __tg_n);
            #p::arg_combine::<#value_c, #is_max>(&mut __tg_best, &mut __tg_best_i, #v, #idx, #p::lane_mask(__tg_n));
            #p::store::<#value_c>(#best_slice, #best_off + __tg_j, __tg_n, __tg_best);
            #p::store::<i64>(#acc_slice, #acc_off + __tg_j, __tg_n, __tg_best_i);
        };
        return (
            TokenStream::new(),
            step.clone(),
            step,
            TokenStream::new(),
            None,
        );
    }

    let acc_temp = match acc_op.buffer {
        BufferRef::Temp(t) => t,
        _ => unreachable!("accumulators are temps"),
    };
    let c = storage_type(rt, kernel.temps[acc_temp].dtype);
    let (lane_trait, lane_fn, scalar_trait, scalar_fn) =
        kind.combine().expect("arg reductions are handled above");
    let (lane_trait, lane_fn, scalar_trait, scalar_fn) = (
        format_ident!("{}", lane_trait),
        format_ident!("{}", lane_fn),
        format_ident!("{}", scalar_trait),
        format_ident!("{}", scalar_fn),
    );
    let lane_combine = quote!(<#c as #p::#lane_trait>::#lane_fn);
    let scalar_combine = quote!(<#c as #p::#scalar_trait>::#scalar_fn);
    let identity = init_value(rt, kernel.temps[acc_temp].dtype, kind.identity());
    if acc_op.inner_stride.is_zero() {
        // Four accumulators (two for softmax's row min: `ReduceKind::register_accumulators`),
        // `__tg_acc[u % n]` taking chunk `u` of each group of four (the unrolled loop's
        // `__tg_u`); chunks after the last whole group and the tail go to `__tg_acc[0]`.
        let two = kind.register_accumulators() == 2;
        let nacc = Literal::usize_unsuffixed(kind.register_accumulators());
        let init = quote! {
            let mut #acc_regs = [#p::V::<#c>::splat(#identity); #nacc];
        };
        let main = quote! {
            #acc_regs[0] = #lane_combine(#acc_regs[0], #v);
        };
        let slot = if two {
            quote!(__tg_u % 2)
        } else {
            quote!(__tg_u)
        };
        let unrolled = quote! {
            #acc_regs[#slot] = #lane_combine(#acc_regs[#slot], #v);
        };
        // Tail lanes past `__tg_n` hold padding and must not reach the accumulator.
        let tail = quote! {
            #acc_regs[0] = #lane_combine(#acc_regs[0], #p::mask_or(#p::lane_mask(__tg_n), #v, #identity));
        };
        let pair = quote!(#lane_combine(#acc_regs[0], #acc_regs[1]));
        let lanes = if two {
            pair
        } else {
            quote!(#lane_combine(#pair, #lane_combine(#acc_regs[2], #acc_regs[3])))
        };
        let finish = quote! {
            let #all = #lanes;
            #acc_slice[#acc_off] = #scalar_combine(#acc_slice[#acc_off], #p::fold(#all, #scalar_combine));
        };
        return (init, main, tail, finish, Some((4, unrolled)));
    }
    let step = quote! {
        let __tg_a = #p::load::<#c>(#acc_slice, #acc_off + __tg_j, __tg_n);
        #p::store::<#c>(#acc_slice, #acc_off + __tg_j, __tg_n, #lane_combine(__tg_a, #v));
    };
    (
        TokenStream::new(),
        step.clone(),
        step,
        TokenStream::new(),
        None,
    )
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

fn emit_value(
    rt: &TokenStream,
    f: &GraphFn,
    graph: &TypedGraph,
    kernel: &Kernel,
    nest: &LoopNest,
    id: usize,
) -> TokenStream {
    let p = quote!(#rt::__private);
    let value = &nest.values[id];
    let node = &graph.nodes[value.node];
    let out = value_ident(id);
    let c = compute_type(rt, node.dtype);
    let tokens = match &value.source {
        ValueSource::Load { operand } => {
            let op = &nest.operands[*operand];
            let t = operand_storage(rt, graph, f, kernel, &op.buffer);
            let slice = slice_ident(&op.buffer);
            let off = offset_ident(*operand);
            match (value.level, &op.inner_stride) {
                (Level::Inner, s) if s.is_lit(1) => {
                    quote!(#p::load::<#t>(#slice, #off + __tg_j, __tg_n))
                }
                (Level::Inner, s) => match s.as_size() {
                    Some(s) => {
                        let s = size_expr(&s);
                        quote!(#p::load_strided::<#t>(#slice, #off + __tg_j * #s, #s, __tg_n))
                    }
                    // A flipped axis walks backwards.
                    None => match s.scale(-1).as_size() {
                        Some(back) => {
                            let s = size_expr(&back);
                            quote!(#p::load_strided_back::<#t>(#slice, #off - __tg_j * #s, #s, __tg_n))
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
                                    #p::load_strided::<#t>(#slice, #off + __tg_j * __tg_s, __tg_s, __tg_n)
                                } else {
                                    let __tg_b = __tg_s.wrapping_neg();
                                    #p::load_strided_back::<#t>(#slice, #off - __tg_j * __tg_b, __tg_b, __tg_n)
                                }
                            })
                        }
                    },
                },
                // Per row: the offset of this row; per call: every stride is 0.
                (Level::Row, _) => {
                    quote!(#p::V::splat(<#t as #p::Element>::to_compute(#slice[#off])))
                }
                (Level::Global, _) => {
                    let at = offset_expr(quote!(0usize), &op.base, None);
                    quote!(#p::V::splat(<#t as #p::Element>::to_compute(#slice[#at])))
                }
            }
        }
        ValueSource::Scalar { param } => {
            let name = &f.params[*param].name;
            let t = storage_type(rt, node.dtype);
            quote!(#p::V::<#c>::splat(<#t as #p::Element>::to_compute(#name)))
        }
        ValueSource::Const(v) => {
            let v = emit_const(rt, node.dtype, v);
            quote!(#p::V::<#c>::splat(#v))
        }
        ValueSource::Count(size) => {
            // usize → float rounds once, as the literal count of a static axis does.
            let n = size_expr(size);
            let count = match node.dtype {
                DType::F32 => quote!(#n as f32),
                DType::F64 => quote!(#n as f64),
                d => {
                    let t = storage_type(rt, d);
                    quote!(<#t as #p::Element>::to_compute(<#t>::from_f64(#n as f64)))
                }
            };
            quote!(#p::V::<#c>::splat(#count))
        }
        ValueSource::Compute { args } => {
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
                    quote!(<#ic as #p::#tr>::#method(#(#arg_idents),*))
                }
                NodeKind::Select { .. } => {
                    quote!(<#c as #p::SelectLanes>::select_lanes(#(#arg_idents),*))
                }
                NodeKind::Cast { input } => {
                    let from = storage_type(rt, graph.nodes[*input].dtype);
                    let to = storage_type(rt, node.dtype);
                    let v = &arg_idents[0];
                    quote!(#p::cast::<#from, #to>(#v))
                }
                _ => unreachable!("only elementwise nodes compute"),
            }
        }
    };
    quote!(let #out: #p::V<#c> = #tokens;)
}

#[cfg(test)]
mod size_check_tests {
    use super::bounded_by;
    use crate::ir::Size;

    fn size(coeff: usize, names: &[&str]) -> Size {
        let mut names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        names.sort();
        Size { coeff, names }
    }

    #[test]
    fn a_size_is_bounded_only_where_no_value_of_the_names_can_exceed_the_argument() {
        assert!(bounded_by(&size(24, &["B"]), &size(24, &["B"])));
        assert!(bounded_by(&size(24, &["B"]), &size(48, &["B"])));
        assert!(bounded_by(&size(1, &["B", "C"]), &size(3, &["B", "C"])));
        // Three factors: `2 · B` or `A · B` may overflow while the last name is 0 (the
        // argument's check says nothing of its other dims then).
        assert!(!bounded_by(&size(2, &["B", "C"]), &size(3, &["B", "C"])));
        assert!(!bounded_by(
            &size(1, &["A", "B", "Z"]),
            &size(1, &["A", "B", "Z"])
        ));
        assert!(!bounded_by(&size(2, &["A", "Z"]), &size(2, &["A", "Z"])));
        // A leftover name that `size` has too: 0 makes both 0, else it is at least 1.
        assert!(bounded_by(&size(24, &["B"]), &size(24, &["B", "B"])));
        assert!(!bounded_by(&size(48, &["B"]), &size(24, &["B"])));
        // `C` may be 0 while `B` is huge.
        assert!(!bounded_by(&size(24, &["B"]), &size(24, &["B", "C"])));
        assert!(!bounded_by(&size(1, &["A", "C"]), &size(1, &["A", "Z"])));
        assert!(!bounded_by(&size(1, &["A", "B"]), &size(8, &["A"])));
        assert!(!bounded_by(&size(2, &["B"]), &size(0, &[])));
    }
}
