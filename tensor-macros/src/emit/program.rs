//! A debug program's calls (emit/debug.rs) in two forms: as data, one
//! `blocks::run_code_v1(b"…", &[ops], &[run-time numbers], &[scalars], &mut __tg_bufs)`
//! call per run of entries (tensor-core's blocks/program.rs decodes the bytes into the
//! same `Nest`/`Stage` values; its module doc gives the format), or, for an entry past the
//! decoder's limits, the `run_nest`/`run_stage`/`run_stage_rows` call with its struct
//! literals as before (NOTES.md "Debug programs as data").
//!
//! emit/debug.rs builds each entry as the values below (`Num`, `ScalarIr`, …): each part
//! keeps the tokens the struct literal writes, so the literal form is unchanged, and the
//! code of the data form, which decodes to the same value: a number with names, a
//! scalar parameter, an `f16`/`bf16` constant and a non-finite float stay today's token
//! expressions, passed in the call's `rt` and `scalars` arrays.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// tensor-core's `blocks::program` limits (a dev-dependency only:
/// debug.rs `tests::limits_are_tensor_cores` keeps them equal).
pub(super) const STAGE_NESTS: usize = 8;
pub(super) const VAL_POOL: usize = 128;
pub(super) const STORE_POOL: usize = 32;
pub(super) const REDUCE_POOL: usize = 16;
pub(super) const RESET_POOL: usize = 32;
pub(super) const NUM_POOL: usize = 512;
const FORMAT: u8 = 1;
/// tensor-core's `blocks::MAX_VALUES` and `blocks::MAX_LOOPS` (emit/debug.rs re-exports
/// them and documents them).
pub(crate) const MAX_VALUES: usize = 32;
pub(crate) const MAX_LOOPS: usize = 16;

/// Whether programs are written as data (`blocks::run_code_v1`), the default;
/// `TENSORGRAPH_DEBUG_DATA=off` in the macro's environment keeps every call's struct
/// literals, as before (measurements; cargo does not track the variable).
fn data_form() -> bool {
    std::env::var("TENSORGRAPH_DEBUG_DATA").map_or(true, |v| v != "off")
}

/// How the data form reads a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum NumCode {
    /// `n` itself.
    Imm(u32),
    /// `0usize.wrapping_sub(n)`.
    Neg(u32),
    /// The number's expression, computed by the caller (`rt`).
    Expr,
}

/// A `usize` of a program: its struct-literal tokens and its code.
#[derive(Clone)]
pub(super) struct Num {
    pub code: NumCode,
    pub tokens: TokenStream,
}

impl Num {
    pub fn expr(tokens: TokenStream) -> Num {
        Num {
            code: NumCode::Expr,
            tokens,
        }
    }
}

/// A `blocks::Scalar`: its tokens (`__tg_b::Scalar::F32(…)`) and, where the macro knows
/// its bits, its code (type byte and bits, or an `Identity` constant).
#[derive(Clone)]
pub(super) struct ScalarIr {
    pub tokens: TokenStream,
    pub code: Option<Vec<u8>>,
}

#[derive(Clone)]
pub(super) struct OperandIr {
    pub buf: u16,
    pub base: Num,
    pub outer: Vec<Num>,
    pub inner: Num,
}

#[derive(Clone)]
pub(super) enum ValIr {
    Load(OperandIr),
    Splat(ScalarIr),
    /// The block op's path and its arguments.
    Op(TokenStream, [u16; 3]),
    Gather {
        data: OperandIr,
        index: u16,
        stride: Num,
        bound: Num,
    },
    Position(OperandIr),
}

#[derive(Clone)]
pub(super) struct ReduceIr {
    /// The `blocks::Combine` variant's name.
    pub combine: String,
    pub acc: OperandIr,
    pub value: u16,
    pub identity: ScalarIr,
    pub accumulators: u8,
}

#[derive(Clone)]
pub(super) struct ArgIr {
    pub max: bool,
    pub value: u16,
    pub best: OperandIr,
    pub acc: OperandIr,
    pub index: OperandIr,
}

#[derive(Clone)]
pub(super) struct NestIr {
    pub outer: Vec<Num>,
    pub inner: Num,
    pub ragged: Option<Num>,
    pub values: Vec<ValIr>,
    pub stores: Vec<(OperandIr, u16)>,
    pub reduces: Vec<ReduceIr>,
    pub arg: Option<ArgIr>,
}

#[derive(Clone)]
pub(super) struct StageIr {
    pub rows: Num,
    pub nests: Vec<NestIr>,
    pub resets: Vec<(u16, ScalarIr)>,
}

/// One `run_*` call of a program.
#[derive(Clone)]
pub(super) enum Entry {
    Nest(NestIr),
    Stage(StageIr),
    /// `run_stage_rows(stage, lo, hi)`.
    Rows(StageIr, Num, Num),
}

const COMBINES: [&str; 8] = [
    "Sum", "Prod", "Max", "Min", "MaxNoNan", "MinNoNan", "Any", "All",
];

/// `Scalar`'s variants, in its order (the type byte of the format).
const SCALAR_TYPES: [&str; 11] = [
    "Bool", "U8", "U16", "U32", "U64", "I8", "I16", "I32", "I64", "F32", "F64",
];

/// The type byte of `Scalar::<variant>`.
pub(super) fn scalar_type(variant: &str) -> Option<u8> {
    SCALAR_TYPES
        .iter()
        .position(|v| *v == variant)
        .map(|t| t as u8)
}

// ---- the struct literals (the form before data, kept for entries past the limits) ----

fn operand_literal(b: &TokenStream, op: &OperandIr) -> TokenStream {
    let buf = op.buf;
    let base = &op.base.tokens;
    let outer = op.outer.iter().map(|n| &n.tokens);
    let inner = &op.inner.tokens;
    quote!(#b::Operand { buf: #buf, base: #base, outer: &[#(#outer),*], inner: #inner })
}

fn val_literal(b: &TokenStream, v: &ValIr) -> TokenStream {
    match v {
        ValIr::Load(op) => {
            let op = operand_literal(b, op);
            quote!(#b::Val::Load(#op))
        }
        ValIr::Splat(s) => {
            let s = &s.tokens;
            quote!(#b::Val::Splat(#s))
        }
        ValIr::Op(f, args) => {
            let [a0, a1, a2] = args.map(Literal::u16_unsuffixed);
            quote!(#b::Val::Op(#f, [#a0, #a1, #a2]))
        }
        ValIr::Gather {
            data,
            index,
            stride,
            bound,
        } => {
            let data = operand_literal(b, data);
            let index = Literal::u16_unsuffixed(*index);
            let (stride, bound) = (&stride.tokens, &bound.tokens);
            quote!(#b::Val::Gather { data: #data, index: #index, stride: #stride, bound: #bound })
        }
        ValIr::Position(op) => {
            let op = operand_literal(b, op);
            quote!(#b::Val::Position(#op))
        }
    }
}

pub(super) fn nest_literal(b: &TokenStream, nest: &NestIr) -> TokenStream {
    let outer = nest.outer.iter().map(|n| &n.tokens);
    let inner = &nest.inner.tokens;
    let ragged = match &nest.ragged {
        Some(total) => {
            let total = &total.tokens;
            quote!(::core::option::Option::Some(#total))
        }
        None => quote!(::core::option::Option::None),
    };
    let values = nest.values.iter().map(|v| val_literal(b, v));
    let stores = nest.stores.iter().map(|(op, v)| {
        let op = operand_literal(b, op);
        let v = Literal::u16_unsuffixed(*v);
        quote!((#op, #v))
    });
    let reduces = nest.reduces.iter().map(|r| {
        let combine = quote::format_ident!("{}", r.combine);
        let acc = operand_literal(b, &r.acc);
        let value = Literal::u16_unsuffixed(r.value);
        let identity = &r.identity.tokens;
        let accumulators = Literal::u8_unsuffixed(r.accumulators);
        quote!(#b::Reduce {
            combine: #b::Combine::#combine,
            acc: #acc,
            value: #value,
            identity: #identity,
            accumulators: #accumulators,
        })
    });
    let arg = match &nest.arg {
        None => quote!(::core::option::Option::None),
        Some(a) => {
            let (max, value) = (a.max, Literal::u16_unsuffixed(a.value));
            let best = operand_literal(b, &a.best);
            let acc = operand_literal(b, &a.acc);
            let index = operand_literal(b, &a.index);
            quote!(::core::option::Option::Some(#b::ArgReduce {
                max: #max, value: #value, best: #best, acc: #acc, index: #index,
            }))
        }
    };
    quote! {
        #b::Nest {
            outer: &[#(#outer),*],
            inner: #inner,
            ragged: #ragged,
            values: &[#(#values),*],
            stores: &[#(#stores),*],
            reduces: &[#(#reduces),*],
            arg: #arg,
        }
    }
}

fn stage_literal(b: &TokenStream, stage: &StageIr) -> TokenStream {
    let rows = &stage.rows.tokens;
    let nests = stage.nests.iter().map(|n| nest_literal(b, n));
    let resets = stage.resets.iter().map(|(k, s)| {
        let k = Literal::u16_unsuffixed(*k);
        let s = &s.tokens;
        quote!((#k, #s))
    });
    quote!(#b::Stage { rows: #rows, nests: &[#(#nests),*], resets: &[#(#resets),*] })
}

/// The entry's call with its struct literals.
fn literal_call(b: &TokenStream, entry: &Entry) -> TokenStream {
    match entry {
        Entry::Nest(nest) => {
            let nest = nest_literal(b, nest);
            quote!(#b::run_nest(&#nest, &mut __tg_bufs);)
        }
        Entry::Stage(stage) => {
            let stage = stage_literal(b, stage);
            quote!(#b::run_stage(&#stage, &mut __tg_bufs);)
        }
        Entry::Rows(stage, lo, hi) => {
            let stage = stage_literal(b, stage);
            let (lo, hi) = (&lo.tokens, &hi.tokens);
            quote!(#b::run_stage_rows(&#stage, #lo, #hi, &mut __tg_bufs);)
        }
    }
}

// ---- the data form ----

/// Whether the decoder's pools hold `entry` (else it keeps its literal).
fn fits(entry: &Entry) -> bool {
    let (nests, resets): (&[NestIr], usize) = match entry {
        Entry::Nest(n) => (std::slice::from_ref(n), 0),
        Entry::Stage(s) | Entry::Rows(s, ..) => (&s.nests, s.resets.len()),
    };
    let operands = |n: &NestIr| -> Vec<usize> {
        let mut ops: Vec<&OperandIr> = n.stores.iter().map(|(op, _)| op).collect();
        for v in &n.values {
            match v {
                ValIr::Load(op) | ValIr::Position(op) | ValIr::Gather { data: op, .. } => {
                    ops.push(op)
                }
                _ => {}
            }
        }
        ops.extend(n.reduces.iter().map(|r| &r.acc));
        if let Some(a) = &n.arg {
            ops.extend([&a.best, &a.acc, &a.index]);
        }
        ops.iter().map(|op| op.outer.len()).collect()
    };
    let mut nums = 0;
    for n in nests {
        if n.values.len() > MAX_VALUES
            || n.outer.len() > MAX_LOOPS
            || n.reduces
                .iter()
                .any(|r| !COMBINES.contains(&r.combine.as_str()))
        {
            return false;
        }
        nums += n.outer.len();
        for len in operands(n) {
            if len > MAX_LOOPS {
                return false;
            }
            nums += len;
        }
    }
    let sum = |f: fn(&NestIr) -> usize| nests.iter().map(f).sum::<usize>();
    nests.len() <= STAGE_NESTS
        && sum(|n| n.values.len()) <= VAL_POOL
        && sum(|n| n.stores.len()) <= STORE_POOL
        && sum(|n| n.reduces.len()) <= REDUCE_POOL
        && resets <= RESET_POOL
        && nums <= NUM_POOL
}

/// The code of one call of `run_code_v1` and its three arrays, each entry of the arrays
/// once (by its tokens' text).
#[derive(Default)]
pub(super) struct Encoder {
    pub bytes: Vec<u8>,
    pub ops: Vec<(String, TokenStream)>,
    pub rt: Vec<(String, TokenStream)>,
    pub scalars: Vec<(String, TokenStream)>,
}

fn intern(table: &mut Vec<(String, TokenStream)>, tokens: &TokenStream) -> usize {
    let text = tokens.to_string();
    match table.iter().position(|(t, _)| *t == text) {
        Some(k) => k,
        None => {
            table.push((text, tokens.clone()));
            table.len() - 1
        }
    }
}

impl Encoder {
    fn byte(&mut self, b: u8) {
        self.bytes.push(b);
    }

    fn var(&mut self, mut x: u64) {
        loop {
            let b = (x & 0x7f) as u8;
            x >>= 7;
            if x == 0 {
                self.byte(b);
                return;
            }
            self.byte(b | 0x80);
        }
    }

    fn num(&mut self, n: &Num) {
        match n.code {
            NumCode::Imm(v) => self.var(u64::from(v) << 2),
            NumCode::Neg(v) => self.var(u64::from(v) << 2 | 1),
            NumCode::Expr => {
                let k = intern(&mut self.rt, &n.tokens);
                self.var((k as u64) << 2 | 2);
            }
        }
    }

    fn scalar(&mut self, s: &ScalarIr) {
        match &s.code {
            Some(code) => self.bytes.extend_from_slice(code),
            None => {
                let k = intern(&mut self.scalars, &s.tokens);
                self.byte(0x80);
                self.var(k as u64);
            }
        }
    }

    fn operand(&mut self, op: &OperandIr) {
        self.var(u64::from(op.buf));
        self.num(&op.base);
        self.byte(op.outer.len() as u8);
        for n in &op.outer {
            self.num(n);
        }
        self.num(&op.inner);
    }

    fn nest(&mut self, nest: &NestIr) {
        self.byte(nest.outer.len() as u8);
        for n in &nest.outer {
            self.num(n);
        }
        self.num(&nest.inner);
        match &nest.ragged {
            None => self.byte(0),
            Some(total) => {
                self.byte(1);
                self.num(total);
            }
        }
        self.var(nest.values.len() as u64);
        for v in &nest.values {
            match v {
                ValIr::Load(op) => {
                    self.byte(0);
                    self.operand(op);
                }
                ValIr::Splat(s) => {
                    self.byte(1);
                    self.scalar(s);
                }
                ValIr::Op(f, args) => {
                    self.byte(2);
                    let k = intern(&mut self.ops, f);
                    self.var(k as u64);
                    for a in args {
                        self.var(u64::from(*a));
                    }
                }
                ValIr::Gather {
                    data,
                    index,
                    stride,
                    bound,
                } => {
                    self.byte(3);
                    self.operand(data);
                    self.var(u64::from(*index));
                    self.num(stride);
                    self.num(bound);
                }
                ValIr::Position(op) => {
                    self.byte(4);
                    self.operand(op);
                }
            }
        }
        self.var(nest.stores.len() as u64);
        for (op, v) in &nest.stores {
            self.operand(op);
            self.var(u64::from(*v));
        }
        self.var(nest.reduces.len() as u64);
        for r in &nest.reduces {
            let combine = COMBINES.iter().position(|c| *c == r.combine);
            self.byte(combine.expect("`fits` checked the combine") as u8);
            self.operand(&r.acc);
            self.var(u64::from(r.value));
            self.scalar(&r.identity);
            self.byte(r.accumulators);
        }
        match &nest.arg {
            None => self.byte(0),
            Some(a) => {
                self.byte(1);
                self.byte(a.max as u8);
                self.var(u64::from(a.value));
                self.operand(&a.best);
                self.operand(&a.acc);
                self.operand(&a.index);
            }
        }
    }

    fn body(&mut self, stage: &StageIr) {
        self.byte(stage.nests.len() as u8);
        for n in &stage.nests {
            self.nest(n);
        }
        self.var(stage.resets.len() as u64);
        for (k, s) in &stage.resets {
            self.var(u64::from(*k));
            self.scalar(s);
        }
    }

    pub fn entry(&mut self, entry: &Entry) {
        match entry {
            Entry::Nest(n) => {
                self.byte(0);
                self.nest(n);
            }
            Entry::Stage(s) => {
                self.byte(1);
                self.num(&s.rows);
                self.body(s);
            }
            Entry::Rows(s, lo, hi) => {
                self.byte(2);
                self.num(lo);
                self.num(hi);
                self.num(&s.rows);
                self.body(s);
            }
        }
    }

    /// The program of `entries`: the format byte, their count, each entry.
    pub fn program(entries: &[&Entry]) -> Encoder {
        let mut e = Encoder::default();
        e.byte(FORMAT);
        e.var(entries.len() as u64);
        for entry in entries {
            e.entry(entry);
        }
        e
    }
}

/// The calls of `entries`, in order, on `__tg_bufs`: each run of entries that fit the
/// decoder's pools as one `run_code_v1` call, every other entry as its literal call.
pub(super) fn calls(b: &TokenStream, entries: &[Entry]) -> TokenStream {
    if !data_form() {
        return entries.iter().map(|e| literal_call(b, e)).collect();
    }
    let mut out = TokenStream::new();
    let mut run: Vec<&Entry> = Vec::new();
    let flush = |run: &mut Vec<&Entry>, out: &mut TokenStream| {
        if run.is_empty() {
            return;
        }
        let e = Encoder::program(run);
        let code = Literal::byte_string(&e.bytes);
        let ops = e.ops.iter().map(|(_, t)| t);
        let rt = e.rt.iter().map(|(_, t)| t);
        let scalars = e.scalars.iter().map(|(_, t)| t);
        out.extend(quote!(#b::run_code_v1(#code, &[#(#ops),*], &[#(#rt),*], &[#(#scalars),*], &mut __tg_bufs);));
        run.clear();
    };
    for entry in entries {
        if fits(entry) {
            run.push(entry);
        } else {
            flush(&mut run, &mut out);
            out.extend(literal_call(b, entry));
        }
    }
    flush(&mut run, &mut out);
    out
}
