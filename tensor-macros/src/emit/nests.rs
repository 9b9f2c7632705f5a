//! One loop nest: offsets, the outer loops, the SIMD inner loop with its tail, and the sink
//! (stores, or a reduction into registers or into its accumulator).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{BufferRef, Level, LoopNest, ReduceKind, Sink, TypedGraph};

use super::blocks::{emit_blocked_loop, BlockSink};
use super::context::Emitter;
use super::names::{
    compute_type, init_value, lane_ops, offset_expr, offset_ident, operand_storage, size_expr,
    slice_ident, storage_type, temp_slice, temp_vec, value_ident, MAX_LANES, MIN_LANES,
};
use super::values::{emit_value, gather_row_start};

/// One loop nest. In a row stage (`in_row_group`) its outermost loop is the stage's
/// `__tg_row` loop, already open; `chunked` buffers are then this task's rows only, bound
/// by the stage, and addressed relative to `__tg_row_lo`.
///
/// In order: the temp slices, the values computed once, then per row of the outer loops
/// the offsets, the row's values and the loops over the inner axis (`InnerLoop`: the main
/// loops, the tail, a streaming nest's head and fence; or a row copy instead of them).
pub(super) fn emit_nest(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    in_row_group: bool,
    chunked: &[BufferRef],
    stream: bool,
    alone: bool,
    prefetch: Option<&Prefetch>,
    next_row: Option<(&[usize], &TokenStream)>,
) -> TokenStream {
    let Emitter { rt, .. } = *cx;
    let p = super::names::private(rt);
    let per_copy = lane_ops();
    let lanes = quote!(#per_copy::LANES);
    let prefetch_chunk = prefetch.map(|p| &p.per_chunk);

    let written: Vec<usize> = nest.sink.written();
    let slices = temp_slices(cx, nest, chunked, &written);

    let computations = |level: Level| -> TokenStream {
        nest.values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.level == level)
            .map(|(id, _)| emit_value(cx, nest, id))
            .collect()
    };
    let global = computations(Level::Global);
    let row = computations(Level::Row);
    let inner = computations(Level::Inner);

    let sink = chunk_sink(cx, nest, stream);
    let loop_vars: Vec<_> = (0..nest.outer.len())
        .map(|i| format_ident!("__tg_i{}", i))
        .collect();
    let offsets = operand_offsets(cx, nest, &loop_vars, in_row_group, chunked, next_row);
    let (inner_extent, ragged_extent) = inner_extent(nest, &loop_vars);
    // Copies of the body that a literal extent makes dead for the build's LANES (8 or 16,
    // unknown here) sit under `if const { … }`: rustc drops a block behind a constant
    // condition before LLVM sees it (a debug build too), where a plain `if` left LLVM to
    // inline `exp` & co. into the dead copy before proving it dead (issue 17).
    let static_inner = match &nest.ragged {
        None if !stream => nest.inner.as_static(),
        _ => None,
    };
    let inner_loop = InnerLoop {
        cx,
        nest,
        p,
        lanes,
        inner,
        sink,
        inner_extent,
        static_inner,
        stream,
        prefetch_chunk,
    };
    let chunks = inner_loop.chunks(alone, prefetch.is_none());
    let row_slices = row_slices(nest, next_row, &written);
    let prefetch_decl = prefetch.map(|p| &p.decl);
    let ChunkSink {
        row_init,
        row_finish,
        ..
    } = &inner_loop.sink;
    let body = quote! {
        #(#offsets)*
        #prefetch_decl
        #row_slices
        #ragged_extent
        #row
        #row_init
        #chunks
        #row_finish
    };
    let body = outer_loops(nest, &loop_vars, in_row_group, body);
    quote! {
        #slices
        #global
        #body
    }
}

/// The temp slices a nest reads and writes (`__tg_tK`): the ones it writes mutably, the
/// others shared; not a row stage's chunked buffers, which the stage binds.
fn temp_slices(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    chunked: &[BufferRef],
    written: &[usize],
) -> TokenStream {
    let Emitter { rt, kernel, .. } = *cx;
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
    slices
}

/// The inner loop's extent, and in a ragged flat loop the statement that binds it: the
/// rows are `inner` long but the last, which ends at the total.
fn inner_extent(nest: &LoopNest, loop_vars: &[proc_macro2::Ident]) -> (TokenStream, TokenStream) {
    match &nest.ragged {
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
    }
}

/// The outer loops around a row's `body`, innermost last; in a row stage the outermost
/// is the stage's open `__tg_row` loop.
fn outer_loops(
    nest: &LoopNest,
    loop_vars: &[proc_macro2::Ident],
    in_row_group: bool,
    mut body: TokenStream,
) -> TokenStream {
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
    body
}

/// What each chunk of a nest does with its values (`chunk_sink`), and around the row.
struct ChunkSink {
    /// Before the row's chunks and after them (a reduction's registers); empty for a store
    /// nest.
    row_init: TokenStream,
    row_finish: TokenStream,
    /// Per chunk, in the main loops (`masked = false`) and in the tail.
    main: TokenStream,
    tail: TokenStream,
    /// The unrolled loop's width and its chunk's code, when the nest has one.
    unrolled: Option<(usize, TokenStream)>,
    /// What a reduction does per chunk after its stores, as the default build's block loop
    /// takes it (`BlockSink::after`, `grouped`); nothing for a store nest.
    reduce_after: (TokenStream, bool),
}

/// Each store of `stores` (operand, value) at chunk `__tg_j`; `streaming`: full chunks of
/// a streaming nest (`streams_outputs`), which bypass the cache.
fn emit_stores(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    stores: &[(usize, usize)],
    streaming: bool,
) -> TokenStream {
    let per_copy = lane_ops();
    stores
        .iter()
        .map(|&(k, v)| {
            let op = &nest.operands[k];
            let slice = slice_ident(&op.buffer);
            let off = offset_ident(k);
            let t = operand_storage(cx, &op.buffer);
            let v = value_ident(v);
            if streaming {
                quote!(#per_copy::store_streaming::<#t>(#slice, #off + __tg_j, #v);)
            } else {
                quote!(#per_copy::store::<#t>(#slice, #off + __tg_j, __tg_n, #v);)
            }
        })
        .collect()
}

/// What each chunk does with its values: a store nest's stores, or a reduction's
/// accumulation (`emit_reduce_sink`, with a sibling reduction's and a fused pass's
/// stores).
fn chunk_sink(cx: &Emitter<'_>, nest: &LoopNest, stream: bool) -> ChunkSink {
    match &nest.sink {
        Sink::Store(stores) => {
            let body = emit_stores(cx, nest, stores, false);
            // A symbolic extent hides the trip count that lets LLVM unroll a literal
            // one, so the store loop is unrolled by two here (measured: W1 with `N`
            // ran 4-6% behind the literal kernel on one thread without it).
            let unrolled = (nest.inner.as_static().is_none() || nest.ragged.is_some())
                .then(|| (2, body.clone()));
            let main = emit_stores(cx, nest, stores, stream);
            ChunkSink {
                row_init: TokenStream::new(),
                row_finish: TokenStream::new(),
                main,
                tail: body,
                unrolled,
                reduce_after: (TokenStream::new(), false),
            }
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
            let (mut init, mut main, mut tail, mut finish, mut unrolled) =
                emit_reduce_sink(cx, nest, *kind, *acc, *value, *best, *index, "");
            // A second reduction in the same pass (`lower::fuse_sibling_reductions`), on
            // accumulators of its own; both unroll by four.
            if let Some(sibling) = sibling {
                let (init2, main2, tail2, finish2, unrolled2) = emit_reduce_sink(
                    cx,
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
            let reduce_after = match &unrolled {
                Some((4, body)) => (body.clone(), true),
                _ => (main.clone(), false),
            };
            // A fused store pass (`lower::fuse_row_reductions`): each chunk stores, then
            // accumulates.
            let store = emit_stores(cx, nest, stores, false);
            ChunkSink {
                row_init: init,
                row_finish: finish,
                main: quote!(#store #main),
                tail: quote!(#store #tail),
                unrolled: unrolled.map(|(width, body)| (width, quote!(#store #body))),
                reduce_after,
            }
        }
    }
}

/// What the loops over a nest's inner axis share (`emit_nest`): each chunk computes
/// `inner` and runs the sink at `__tg_j`, `__tg_n` elements (LANES in the main loops).
struct InnerLoop<'a> {
    cx: &'a Emitter<'a>,
    nest: &'a LoopNest,
    /// `#rt::__private`, and the lane count of the kernel copy (`__tg_lanes::LANES`).
    p: TokenStream,
    lanes: TokenStream,
    /// The values computed per chunk.
    inner: TokenStream,
    sink: ChunkSink,
    /// The row's length (`__tg_inner` in a ragged flat loop).
    inner_extent: TokenStream,
    /// The literal inner extent of a nest neither ragged nor streaming, whose dead copies
    /// sit under `if const { … }`.
    static_inner: Option<usize>,
    /// The nest streams its stores (`streams_outputs`).
    stream: bool,
    /// Per chunk of the main loops: the software prefetch (`Prefetch::per_chunk`).
    prefetch_chunk: Option<&'a TokenStream>,
}

impl InnerLoop<'_> {
    /// A row's chunks: the main loops over whole chunks, the tail, and a streaming nest's
    /// head and fence; or a row copy instead of them (`row_copy`).
    fn chunks(&self, alone: bool, no_prefetch: bool) -> TokenStream {
        if let Some(copy) = self.row_copy(no_prefetch) {
            return copy;
        }
        // Loops whose extent is known to be a whole number of chunks (or less than one) get no
        // dead copy of the body: the tail is emitted only when it can run, for either lane
        // count (n % 16 == 0 implies n % 8 == 0; n < 8 is less than one chunk of either).
        // A streaming nest's head (`stream_head`, up to LANES - 1 elements) shifts its chunks,
        // so it always has a tail.
        let (has_main, has_tail) = match (&self.nest.ragged, self.nest.inner.as_static()) {
            (None, Some(n)) => (n >= MIN_LANES, self.stream || n % MAX_LANES != 0),
            _ => (true, true),
        };
        let main_loops = if has_main {
            self.main_loops(alone)
        } else {
            TokenStream::new()
        };
        let tail = if has_tail {
            self.tail()
        } else {
            TokenStream::new()
        };
        let (stream_head, stream_fence) = self.stream_head_and_fence();
        // The chunk body appears twice: in the main loop `__tg_n` is the constant LANES,
        // so loads and stores compile to plain vector moves; the tail runs it once with
        // the remainder. (A closure called from two sites is not reliably inlined.)
        quote! {
            let mut __tg_j: usize = 0;
            #stream_head
            #main_loops
            #tail
            #stream_fence
        }
    }

    /// The main loops, each over whole chunks from `__tg_j`: the default build's block
    /// loop (`emit_blocked_loop`), the loop unrolled by `width` chunks, then one chunk at a
    /// time.
    fn main_loops(&self, alone: bool) -> TokenStream {
        let Self {
            cx,
            nest,
            lanes,
            inner,
            inner_extent,
            static_inner,
            stream,
            prefetch_chunk,
            ..
        } = self;
        let unrolled = &self.sink.unrolled;
        let chunk_sink_main = &self.sink.main;
        let unrolled_loop = self.unrolled_loop(alone);
        let unrolled_loop = match (static_inner, unrolled) {
            // Shorter than `width` chunks of either lane count: the loop never runs.
            (Some(n), Some((width, _))) if *n < width * MIN_LANES => TokenStream::new(),
            (Some(n), Some((width, _))) if *n < width * MAX_LANES && !unrolled_loop.is_empty() => {
                let (n, width) = (
                    Literal::usize_unsuffixed(*n),
                    Literal::usize_unsuffixed(*width),
                );
                quote!(if const { #n >= #width * #lanes } { #unrolled_loop })
            }
            _ => unrolled_loop,
        };
        // Not for a streaming nest (its stores are not plain stores).
        let block_sink = (!stream).then(|| BlockSink {
            stores: nest.sink.stores(),
            after: self.sink.reduce_after.0.clone(),
            grouped: self.sink.reduce_after.1,
        });
        let blocked_loop = emit_blocked_loop(
            cx,
            nest,
            inner_extent,
            chunk_sink_main,
            block_sink,
            *prefetch_chunk,
        );
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
        let single = match (static_inner, unrolled) {
            (Some(n), Some((width, _))) => {
                let left = |l: usize| (n / l) % width != 0;
                match (left(MIN_LANES), left(MAX_LANES)) {
                    (false, false) => TokenStream::new(),
                    (true, true) => single,
                    _ => {
                        let (n, width) = (
                            Literal::usize_unsuffixed(*n),
                            Literal::usize_unsuffixed(*width),
                        );
                        quote!(if const { (#n / #lanes) % #width != 0 } { #single })
                    }
                }
            }
            _ => single,
        };
        let main_loops = quote! {
            #blocked_loop
            #unrolled_loop
            #single
        };
        // Every step of the loops above is a multiple of LANES; n < 16 may have no whole
        // chunk.
        match static_inner {
            Some(n) if *n < MAX_LANES => {
                let n = Literal::usize_unsuffixed(*n);
                quote!(if const { #n >= #lanes } { #main_loops })
            }
            _ => main_loops,
        }
    }

    /// The loop unrolled by `width` chunks, in one of three forms by the kind of nest.
    /// Reductions into registers run four independent accumulators first, so the adds do
    /// not wait on each other's latency.
    /// A store loop's chunk body is emitted once, inside a loop of constant trip count
    /// `width` over the copies (`__tg_u`), not written out `width` times: LLVM inlines and
    /// simplifies the one copy and only then unrolls it fully (a debug build keeps the
    /// loop). Written out, the 4 copies of every reduction's body cost set 1 of the
    /// compile-time benchmark 19% of its release build (issue 17), but reductions stay
    /// written out (below); the order of accumulation is the same either way.
    fn unrolled_loop(&self, alone: bool) -> TokenStream {
        let Self {
            nest,
            p,
            lanes,
            inner,
            inner_extent,
            prefetch_chunk,
            ..
        } = self;
        match &self.sink.unrolled {
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
        }
    }

    /// The last, partial chunk: the chunk body once with the remainder.
    fn tail(&self) -> TokenStream {
        let Self {
            lanes,
            inner,
            inner_extent,
            ..
        } = self;
        let chunk_sink_tail = &self.sink.tail;
        let tail = quote! {
            if __tg_j < #inner_extent {
                let __tg_n: usize = #inner_extent - __tg_j;
                #inner
                #chunk_sink_tail
            }
        };
        // Every step of the main loops is a multiple of LANES, so a literal extent that is a
        // multiple of LANES leaves no tail.
        match self.static_inner {
            Some(n) if n % MIN_LANES == 0 => {
                let n = Literal::usize_unsuffixed(n);
                quote!(if const { #n % #lanes != 0 } { #tail })
            }
            _ => tail,
        }
    }

    /// A streaming nest stores a first, partial chunk the ordinary way, up to where the
    /// first output's chunks are aligned for streaming stores, and fences its streaming
    /// stores before the row ends (tensor-core stream.rs). Empty for other nests.
    fn stream_head_and_fence(&self) -> (TokenStream, TokenStream) {
        let per_copy = lane_ops();
        let Self {
            cx,
            nest,
            p,
            inner,
            inner_extent,
            ..
        } = self;
        let chunk_sink_tail = &self.sink.tail;
        match &nest.sink {
            Sink::Store(stores) if self.stream => {
                let (k, _) = stores[0];
                let op = &nest.operands[k];
                let (slice, off) = (slice_ident(&op.buffer), offset_ident(k));
                let t = operand_storage(cx, &op.buffer);
                (
                    quote! {
                        let __tg_head: usize = ::core::cmp::min(#per_copy::stream_head::<#t>(#slice, #off), #inner_extent);
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
        }
    }

    /// A row copy: a nest that stores a gathered row unchanged (`gather(table, ids)` as an
    /// output; the index fixed for the row, the data contiguous, the same storage dtype, no
    /// other per-chunk value) copies each row with one `copy_from_slice`: the same elements
    /// the chunk loop would move, through libc's `memcpy` (glibc copies a 3 KiB row with
    /// `rep movsb`, whose whole-line writes beat the chunk loop's plain vector stores: 91-92%
    /// of the copy bound against 72-80%, BENCHMARKS.md "Gather row copies and attention in
    /// place"). The slices and offsets are the ones the chunk loop's loads and stores use (a
    /// `chunked` output's too), so the copy touches exactly their elements. Not for a nest
    /// that prefetches (`no_prefetch` false).
    fn row_copy(&self, no_prefetch: bool) -> Option<TokenStream> {
        let Self {
            cx,
            nest,
            inner_extent,
            ..
        } = self;
        match &nest.sink {
            Sink::Store(stores) if stores.len() == 1 && !self.stream && no_prefetch => {
                let (k, v) = stores[0];
                let out = &nest.operands[k];
                let inner_values = nest
                    .values
                    .iter()
                    .filter(|x| x.level == Level::Inner)
                    .count();
                match gather_row_start(nest, v) {
                    Some((src_slice, start))
                        if inner_values == 1
                            && nest.values.iter().all(|x| match &x.source {
                                crate::ir::ValueSource::Gather { operand, .. } => {
                                    operand_storage(cx, &nest.operands[*operand].buffer).to_string()
                                        == operand_storage(cx, &out.buffer).to_string()
                                }
                                _ => true,
                            }) =>
                    {
                        let dst_slice = slice_ident(&out.buffer);
                        let dst = offset_ident(k);
                        Some(quote! {
                            if #inner_extent > 0 {
                                let __tg_src: usize = #start;
                                #dst_slice[#dst..#dst + #inner_extent]
                                    .copy_from_slice(&#src_slice[__tg_src..__tg_src + #inner_extent]);
                            }
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The element offset of each operand at the current loop indices, `let __tg_offK = …;`:
/// its base plus each outer counter times its stride. In a row stage a row-local temp drops
/// the row term (it holds one row), a GEMM block counts rows from `__tg_blk`, a task's
/// chunked buffer from `__tg_row_lo`, and an operand that a pipelined stage reads at the
/// next row uses that row (the row itself at the stage's last).
fn operand_offsets(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    loop_vars: &[proc_macro2::Ident],
    in_row_group: bool,
    chunked: &[BufferRef],
    next_row: Option<(&[usize], &TokenStream)>,
) -> Vec<TokenStream> {
    let kernel = cx.kernel;
    nest.operands
        .iter()
        .enumerate()
        .map(|(k, op)| {
            let off = offset_ident(k);
            let relative = chunked.contains(&op.buffer);
            // A row-local temp holds only the current row: the row term drops out.
            let row_local = in_row_group
                && matches!(op.buffer, BufferRef::Temp(t) if kernel.temps[t].row_local.is_some());
            // A product's block holds the rows from `__tg_blk` on.
            let block =
                row_local && matches!(op.buffer, BufferRef::Temp(t) if kernel.temps[t].gemm_block);
            let mut sum = offset_expr(quote!(0usize), &op.base, None);
            for (depth, (s, i)) in op.outer_strides.iter().zip(loop_vars).enumerate() {
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
        })
        .collect()
}

/// Each buffer that this nest reads or writes only along the inner loop, contiguously
/// and at one place (every operand on it with inner stride 1 and the same offsets, none
/// read by a `gather`), is
/// re-sliced to the row once per row: one bounds check per row instead of one per load
/// and store, since `__tg_j + LANES <= n` then proves every chunk inside the row (W3's
/// scale pass spent 6 of its 18 instructions per vector on them). The row slice shadows
/// the buffer's slice and its operands' offsets become 0, so the chunk code is
/// unchanged; it covers exactly the elements the row's loop visits.
fn row_slices(
    nest: &LoopNest,
    next_row: Option<(&[usize], &TokenStream)>,
    written: &[usize],
) -> TokenStream {
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
            // A gathered operand reads rows its index values name, not this row.
            let one_place = same.iter().all(|&m| {
                let o = &nest.operands[m];
                !nest.gathered(m)
                    && o.inner_stride.is_lit(1)
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
    row_slices
}

/// Nests storing at least this many bytes of outputs use streaming stores: twice this
/// machine's 32 MiB last-level cache is what a following kernel could not find in cache
/// anyway. W1 (`relu(a + b) * 2`, 64 MiB out) 5.94 -> see BENCHMARKS.md "Streaming stores".
pub(super) const STREAM_MIN_BYTES: usize = 1 << 25;

/// Whether `nest` stores its outputs with streaming stores: it only stores, to outputs,
/// contiguously along its inner loop, and writes at least `STREAM_MIN_BYTES` (all extents
/// literal; a graph with names keeps ordinary stores).
pub(super) fn streams_outputs(graph: &TypedGraph, nest: &LoopNest) -> bool {
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

/// A reduction's sink as `ChunkSink` takes it: before the row, per chunk in the main loops
/// and in the tail, after the row, and the unrolled loop's width and chunk.
type ReduceSink = (
    TokenStream,
    TokenStream,
    TokenStream,
    TokenStream,
    Option<(usize, TokenStream)>,
);

/// Accumulation into a reduction's temp. Where the accumulator runs along the inner loop
/// (a kept inner axis) each chunk loads, combines and stores it; where the inner axis is
/// reduced, lanes accumulate in registers across the row and fold into the slot once.
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_reduce_sink(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    kind: ReduceKind,
    acc: usize,
    value: usize,
    best: Option<usize>,
    index: Option<usize>,
    suffix: &str,
) -> ReduceSink {
    let Emitter { rt, kernel, .. } = *cx;
    let p = super::names::private(rt);
    let per_copy = lane_ops();
    // A sibling reduction's accumulators get names of their own (`suffix`).
    let (acc_regs, all, row_slot) = (
        format_ident!("__tg_acc{}", suffix),
        format_ident!("__tg_all{}", suffix),
        format_ident!("__tg_slot{}", suffix),
    );
    let acc_op = &nest.operands[acc];
    let acc_slice = slice_ident(&acc_op.buffer);
    let acc_off = offset_ident(acc);
    let v = value_ident(value);

    if let (Some(best), Some(index)) = (best, index) {
        return arg_reduce_sink(cx, nest, kind, acc, value, best, index);
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
    let lanes = lane_ops();
    let lane_combine = quote!(<#c as #lanes::#lane_trait>::#lane_fn);
    let scalar_combine = quote!(<#c as #p::#scalar_trait>::#scalar_fn);
    let identity = init_value(rt, kernel.temps[acc_temp].dtype, kind.identity());
    if acc_op.inner_stride.is_zero() {
        // Four accumulators (two for softmax's row min: `ReduceKind::register_accumulators`),
        // `__tg_acc[u % n]` taking chunk `u` of each group of four (the unrolled loop's
        // `__tg_u`); chunks after the last whole group and the tail go to `__tg_acc[0]`.
        let two = kind.register_accumulators() == 2;
        let nacc = Literal::usize_unsuffixed(kind.register_accumulators());
        // The row's slot is borrowed before its chunks, so that its bounds check comes
        // before the loads. Checked after them (`acc[off] = …` at the row's end), it made
        // LLVM emit the fully unrolled row of a lone reduction one accumulator at a time
        // (the 16 adds of `__tg_acc[0]`, then the 16 of `__tg_acc[1]`, …; read in the
        // assembly of W5 `sum(x, axis = 1, acc = f32)`, native build) instead of the four
        // chains interleaved: the same adds in the same order per accumulator (the same
        // bits), but loads that stride through the row 4 chunks apart and chains the
        // scheduler must overlap by itself (BENCHMARKS.md, "W5 and the row sum", issue 36).
        let init = quote! {
            let #row_slot: &mut #c = &mut #acc_slice[#acc_off];
            let mut #acc_regs = [#per_copy::V::<#c>::splat(#identity); #nacc];
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
            #acc_regs[0] = #lane_combine(#acc_regs[0], #per_copy::mask_or(#per_copy::lane_mask(__tg_n), #v, #identity));
        };
        let pair = quote!(#lane_combine(#acc_regs[0], #acc_regs[1]));
        let lanes = if two {
            pair
        } else {
            quote!(#lane_combine(#pair, #lane_combine(#acc_regs[2], #acc_regs[3])))
        };
        let finish = quote! {
            let #all = #lanes;
            *#row_slot = #scalar_combine(*#row_slot, #per_copy::fold(#all, #scalar_combine));
        };
        return (init, main, tail, finish, Some((4, unrolled)));
    }
    let step = quote! {
        let __tg_a = #per_copy::load::<#c>(#acc_slice, #acc_off + __tg_j, __tg_n);
        #per_copy::store::<#c>(#acc_slice, #acc_off + __tg_j, __tg_n, #lane_combine(__tg_a, #v));
    };
    (
        TokenStream::new(),
        step.clone(),
        step,
        TokenStream::new(),
        None,
    )
}

/// `argmax`/`argmin`'s sink: the best value so far (in `best`'s temp) and its index (in
/// the accumulator `acc`, the node's temp), from the element indices of operand `index`.
/// Along a reduced inner axis the pairs live in registers through the row; along a kept
/// one each chunk loads, combines and stores both.
fn arg_reduce_sink(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    kind: ReduceKind,
    acc: usize,
    value: usize,
    best: usize,
    index: usize,
) -> ReduceSink {
    let Emitter { rt, graph, .. } = *cx;
    let p = super::names::private(rt);
    let per_copy = lane_ops();
    let acc_op = &nest.operands[acc];
    let acc_slice = slice_ident(&acc_op.buffer);
    let acc_off = offset_ident(acc);
    let v = value_ident(value);
    let value_c = compute_type(rt, graph.nodes[nest.values[value].node].dtype);
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
            let mut __tg_best = [#per_copy::V::<#value_c>::splat(<#value_c as #p::Identity>::LOWEST); 4];
            let mut __tg_best_base = [#per_copy::V::<i64>::splat(-1); 4];
        };
        let step_call = |u: TokenStream| {
            quote! {
                #per_copy::arg_step::<#value_c, #is_max>(&mut __tg_best[#u], &mut __tg_best_base[#u], #v, #base, #per_copy::lane_mask(__tg_n));
            }
        };
        let unrolled = step_call(quote!(__tg_u));
        let main = step_call(quote!(0));
        let finish = quote! {
            for __tg_u in 0..4 {
                #per_copy::arg_fold::<#value_c, #is_max>(__tg_best[__tg_u], #per_copy::arg_indices(__tg_best_base[__tg_u], #step), &mut #best_slice[#best_off], &mut #acc_slice[#acc_off]);
            }
        };
        return (init, main.clone(), main, finish, Some((4, unrolled)));
    }
    // The accumulator in memory, one slot per column: the lanes' indices as a vector.
    let index_stride = &nest.operands[index].inner_stride;
    let idx = if index_stride.is_zero() {
        quote!(#per_copy::V::<i64>::splat(#idx_off as i64))
    } else if index_stride.is_lit(1) {
        quote!(#per_copy::iota(#idx_off + __tg_j))
    } else {
        let stride = offset_expr(quote!(0usize), index_stride, None);
        quote!(#per_copy::iota_strided(#idx_off + __tg_j * #stride, #stride))
    };
    let step = quote! {
        let mut __tg_best = #per_copy::load::<#value_c>(#best_slice, #best_off + __tg_j, __tg_n);
        let mut __tg_best_i = #per_copy::load::<i64>(#acc_slice, #acc_off + __tg_j, __tg_n);
        #per_copy::arg_combine::<#value_c, #is_max>(&mut __tg_best, &mut __tg_best_i, #v, #idx, #per_copy::lane_mask(__tg_n));
        #per_copy::store::<#value_c>(#best_slice, #best_off + __tg_j, __tg_n, __tg_best);
        #per_copy::store::<i64>(#acc_slice, #acc_off + __tg_j, __tg_n, __tg_best_i);
    };
    (
        TokenStream::new(),
        step.clone(),
        step,
        TokenStream::new(),
        None,
    )
}

/// Software prefetch for a nest: `decl` binds, once per row, the slices that `per_chunk`
/// prefetches from at `__tg_j` in each chunk of the nest's main loops.
pub(super) struct Prefetch {
    pub(super) decl: TokenStream,
    pub(super) per_chunk: TokenStream,
}
