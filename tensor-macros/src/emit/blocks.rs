//! Default x86-64 builds: an f32 nest whose values include a dispatched vector-math
//! function runs in blocks, each function over the block at once through its AVX2/AVX-512
//! kernel (`BLOCK_FUNCTIONS`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::dtype::DType;
use crate::ir::{BufferRef, Level, LoopNest, NodeKind, TypedGraph, Value, ValueSource};

use super::context::Emitter;
use super::names::{lane_ops, offset_ident, operand_storage, slice_ident, value_ident};
use super::values::emit_value;

/// The f32 functions that have block entry points in the runtime (`__private::f32_block`),
/// with those entry points' names (tensor-core's function table: registry_check.rs).
pub(crate) const BLOCK_FUNCTIONS: &[(&str, &str)] = &[
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
pub(super) const BLOCK_DIVISIONS: &[(&str, &str)] = &[
    ("div_invariant_lanes", "div_invariant_f32"),
    ("div_softmax_lanes", "div_softmax_f32"),
];

/// The sink of a nest as the default build's block loop takes it (`emit_blocked_loop`):
/// the stores (operand, value), and what each chunk does after them (a reduction's
/// accumulate; empty for a store nest).
pub(super) struct BlockSink<'a> {
    pub(super) stores: &'a [(usize, usize)],
    pub(super) after: TokenStream,
    /// `after` accumulates into four registers by `__tg_u`: the last phase runs its chunks
    /// in groups of four, `__tg_u` the chunk's place in its group (the unrolled loop's).
    pub(super) grouped: bool,
}

/// The values a computed value reads (a gather its index; none for loads, constants,
/// counts).
pub(super) fn value_args(v: &Value) -> &[usize] {
    match &v.source {
        ValueSource::Compute { args } => args,
        ValueSource::Gather { index, .. } => std::slice::from_ref(index),
        _ => &[],
    }
}

/// The runtime's block entry point (`f32_block::NAME`) that computes inner value `v` of
/// f32 lanes, if any: a unary function of `BLOCK_FUNCTIONS`, or a division by a value
/// fixed for the row or the call (`BLOCK_DIVISIONS`; the same test as `emit_value`'s
/// choice of the invariant form).
pub(super) fn block_entry(graph: &TypedGraph, values: &[Value], v: &Value) -> Option<&'static str> {
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
pub(super) fn emit_blocked_loop(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    inner_extent: &TokenStream,
    sink: &TokenStream,
    block_sink: Option<BlockSink>,
    prefetch_chunk: Option<&TokenStream>,
) -> TokenStream {
    let Emitter { rt, graph, .. } = *cx;
    let p = super::names::private(rt);
    let per_copy = lane_ops();
    let lanes = quote!(#per_copy::LANES);
    if nest.inner.as_static().is_some_and(|n| n < 256) {
        return TokenStream::new();
    }
    let values = &nest.values;
    let args_of = |id: usize| value_args(&values[id]);
    let candidate: Vec<Option<&str>> = values
        .iter()
        .map(|v| block_entry(graph, values, v))
        .collect();
    let stored_at = stored_places(cx, nest, &candidate, block_sink.as_ref());
    // The block entry of each inner value that calls one: a unary function, or a division
    // whose quotient is stored (`stored_places`; elsewhere divisions stay in the lanes:
    // through a buffer, the SSE copies cost what the block saved).
    let entry: Vec<Option<&str>> = (0..values.len())
        .map(|id| candidate[id].filter(|_| args_of(id).len() == 1 || stored_at[id].is_some()))
        .collect();
    if entry.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    // depth: how many block calls the value depends on, itself included (args come first).
    let mut depth = vec![0usize; values.len()];
    for id in 0..values.len() {
        let below = args_of(id).iter().map(|&a| depth[a]).max().unwrap_or(0);
        depth[id] = below + entry[id].is_some() as usize;
    }
    let phases = depth.iter().copied().max().unwrap_or(0);
    let blocked = Phases {
        cx,
        nest,
        p: p.clone(),
        lanes: lanes.clone(),
        entry,
        depth,
        stored_at,
    };
    let (buffers, mut blocks) = blocked.call_phases(phases);
    blocks.extend(blocked.last_phase(phases, sink, block_sink.as_ref()));
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
    // Whether the kernel copy calls the blocks: any of the nest's entry points on in its
    // `vmath_blocks` (a constant per copy; the AVX-512 copy computes softmax's and the
    // divisions' inline, tensor-core lanes_avx512.rs). Otherwise the chunk loops below
    // take the whole row.
    let mut names: Vec<&str> = blocked.entry.iter().flatten().copied().collect();
    names.sort_unstable();
    names.dedup();
    let wanted = names.iter().map(|name| {
        // Capitals: a constant, which the panic scan (fuzz.rs) does not take for a call.
        let name = format_ident!("{}", name.to_uppercase());
        quote!(#per_copy::vmath_blocks::#name)
    });
    quote! {
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        {
            if #(#wanted)||* {
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
}

/// For each value, the buffer its block call's result goes to when it is stored there
/// (operand `k`), and whether the call runs in place. A call whose result the sink stores,
/// once, to a contiguous f32 buffer: the block of that buffer is the call's buffer. Its
/// argument is stored there, the entry runs in place, later phases read the result from
/// there, and the last phase does not store it again (W6 `gelu(x + bias)` on the default
/// build: no copy of each block from a buffer into the output). The nest may read that
/// buffer only as the call's own argument at the same place, read by nothing else (`in
/// place`: softmax's scale pass, `e / sum` over the row of `e` the exp pass stored; then
/// the argument is already there and nothing is copied at all).
fn stored_places(
    cx: &Emitter<'_>,
    nest: &LoopNest,
    candidate: &[Option<&str>],
    block_sink: Option<&BlockSink>,
) -> Vec<Option<(usize, bool)>> {
    let Emitter { graph, kernel, .. } = *cx;
    let values = &nest.values;
    let args_of = |id: usize| value_args(&values[id]);
    (0..values.len())
        .map(|id| {
            let stores = block_sink?.stores;
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
        .collect()
}

/// The phases of a nest's blocked loop (`emit_blocked_loop`): what each value's block call
/// is, how deep it sits and where its block lives.
struct Phases<'a> {
    cx: &'a Emitter<'a>,
    nest: &'a LoopNest,
    /// `#rt::__private`, and the lane count of the kernel copy (`__tg_lanes::LANES`).
    p: TokenStream,
    lanes: TokenStream,
    /// Each value's block entry point, if it calls one.
    entry: Vec<Option<&'a str>>,
    /// How many block calls each value depends on, itself included.
    depth: Vec<usize>,
    /// `stored_places`.
    stored_at: Vec<Option<(usize, bool)>>,
}

impl Phases<'_> {
    fn args_of(&self, id: usize) -> &[usize] {
        value_args(&self.nest.values[id])
    }

    /// Where the phases write and read call `id`'s block (a slice expression, for a store
    /// and for a load, and the chunk's index): a buffer, or the output's slots.
    fn place(&self, id: usize) -> (TokenStream, TokenStream, TokenStream) {
        let lanes = &self.lanes;
        match self.stored_at[id] {
            Some((k, _)) => {
                let (slice, off) = (slice_ident(&self.nest.operands[k].buffer), offset_ident(k));
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
    }

    /// The inner values phase k computes for `roots`, in order: the closure over args,
    /// stopping at block calls of depth <= k (loaded from their buffers).
    fn emit_phase(&self, k: usize, roots: &[usize]) -> TokenStream {
        let per_copy = lane_ops();
        let Self {
            cx,
            nest,
            lanes,
            entry,
            depth,
            ..
        } = self;
        let values = &nest.values;
        let mut needed = vec![false; values.len()];
        for &r in roots {
            needed[r] = true;
        }
        for id in (0..values.len()).rev() {
            if needed[id] && values[id].level == Level::Inner && entry[id].is_none() {
                for &a in self.args_of(id) {
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
                let (_, at, i) = self.place(id);
                out.extend(quote! {
                    let #v: #per_copy::V<f32> = #per_copy::load::<f32>(#at, #i, #lanes);
                });
            } else {
                out.extend(emit_value(cx, nest, id));
            }
        }
        out
    }

    /// `body` for each chunk of a block.
    fn chunks(&self, body: TokenStream) -> TokenStream {
        let Self { p, lanes, .. } = self;
        quote! {
            for __tg_c in 0..#p::F32_BLOCK / #lanes {
                let __tg_j: usize = __tg_j + __tg_c * #lanes;
                let __tg_n: usize = #lanes;
                #body
            }
        }
    }

    /// The phases before the last: phase k computes the arguments of the calls of depth
    /// k + 1 and stores them to their blocks, then runs each call once on its block.
    /// Returns the block buffers the calls need (declared once, before the loop) and the
    /// phases.
    fn call_phases(&self, phases: usize) -> (TokenStream, TokenStream) {
        let per_copy = lane_ops();
        let Self {
            nest,
            p,
            lanes,
            entry,
            depth,
            stored_at,
            ..
        } = self;
        let values = &nest.values;
        let buf = |id: usize| format_ident!("__tg_blk{}", id);
        let mut blocks = TokenStream::new();
        let mut buffers = TokenStream::new();
        for k in 0..phases {
            let calls: Vec<usize> = (0..values.len())
                .filter(|&id| entry[id].is_some() && depth[id] == k + 1)
                .collect();
            let arg_roots: Vec<usize> = calls.iter().map(|&c| self.args_of(c)[0]).collect();
            let mut body = self.emit_phase(k, &arg_roots);
            for &c in &calls {
                let a = value_ident(self.args_of(c)[0]);
                let (at, _, i) = self.place(c);
                match stored_at[c] {
                    // In place: the argument is there already.
                    Some((_, true)) => {}
                    Some((_, false)) => {
                        body.extend(quote!(#per_copy::store::<f32>(#at, #i, #lanes, #a);))
                    }
                    None => {
                        body.extend(quote!(#per_copy::store::<f32>(#at, #i, #lanes, #a);));
                        let b = buf(c);
                        buffers.extend(quote!(let mut #b = [0.0f32; #p::F32_BLOCK];));
                    }
                }
            }
            if calls
                .iter()
                .any(|&c| !matches!(stored_at[c], Some((_, true))))
            {
                blocks.extend(self.chunks(body));
            }
            for &c in &calls {
                let e = format_ident!("{}", entry[c].expect("a block call"));
                // A division's divisor (and softmax's `in_range` flag) are row or call
                // values, splats: their lane 0.
                let extra = self.args_of(c)[1..].iter().map(|&d| {
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
        (buffers, blocks)
    }

    /// The last phase: computes what the sink consumes but the stored calls' own stores
    /// (`Sink::values`: the stored values, then the reduced ones), and sinks each chunk,
    /// in groups of four for a reduction (`BlockSink::grouped`).
    fn last_phase(
        &self,
        phases: usize,
        sink: &TokenStream,
        block_sink: Option<&BlockSink>,
    ) -> TokenStream {
        let per_copy = lane_ops();
        let Self {
            cx,
            nest,
            p,
            lanes,
            stored_at,
            ..
        } = self;
        let sink_roots: Vec<usize> = match block_sink {
            Some(b) => b
                .stores
                .iter()
                .filter(|&&(k, v)| !stored_at[v].is_some_and(|(at, _)| at == k))
                .map(|&(_, v)| v)
                .chain(nest.sink.values().into_iter().skip(b.stores.len()))
                .collect(),
            None => nest.sink.values(),
        };
        let mut last = self.emit_phase(phases, &sink_roots);
        match block_sink {
            Some(block_sink) => {
                for &(k, v) in block_sink.stores {
                    if stored_at[v].is_some_and(|(at, _)| at == k) {
                        continue;
                    }
                    let op = &nest.operands[k];
                    let (slice, off) = (slice_ident(&op.buffer), offset_ident(k));
                    let t = operand_storage(cx, &op.buffer);
                    let v = value_ident(v);
                    last.extend(quote!(#per_copy::store::<#t>(#slice, #off + __tg_j, __tg_n, #v);));
                }
                last.extend(block_sink.after.clone());
            }
            None => last.extend(sink.clone()),
        }
        if block_sink.is_some_and(|b| b.grouped) {
            quote! {
                for __tg_g in 0..#p::F32_BLOCK / (4 * #lanes) {
                    for __tg_u in 0..4 {
                        let __tg_c: usize = __tg_g * 4 + __tg_u;
                        let __tg_j: usize = __tg_j + __tg_c * #lanes;
                        let __tg_n: usize = #lanes;
                        #last
                    }
                }
            }
        } else {
            self.chunks(last)
        }
    }
}
