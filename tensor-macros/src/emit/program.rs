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
// A few per kernel, built once at expansion: no box for the larger variants.
#[allow(clippy::large_enum_variant)]
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

/// The bits of the float literal `digits` (no sign, no suffix) of `dtype`, as rustc reads
/// `{digits}f32`/`{digits}f64`: both are correctly rounded decimal conversions
/// (`tests::float_immediates_are_rustcs` checks edge cases); `None` for any text but plain
/// digits, a point and an exponent, or a value that is not finite.
pub(super) fn float_code(
    dtype: crate::dtype::DType,
    digits: &str,
    negative: bool,
) -> Option<Vec<u8>> {
    if digits.is_empty()
        || !digits
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    match dtype {
        crate::dtype::DType::F32 => {
            let v = digits.parse::<f32>().ok().filter(|v| v.is_finite())?;
            let v = if negative { -v } else { v };
            let mut code = vec![9];
            code.extend_from_slice(&v.to_bits().to_le_bytes());
            Some(code)
        }
        crate::dtype::DType::F64 => {
            let v = digits.parse::<f64>().ok().filter(|v| v.is_finite())?;
            let v = if negative { -v } else { v };
            let mut code = vec![10];
            code.extend_from_slice(&v.to_bits().to_le_bytes());
            Some(code)
        }
        _ => None,
    }
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
            NumCode::Neg(v) => self.var((u64::from(v) << 2) | 1),
            NumCode::Expr => {
                let k = intern(&mut self.rt, &n.tokens);
                self.var(((k as u64) << 2) | 2);
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
        #[cfg(test)]
        tests::CAPTURED.with(|c| {
            let texts = |t: &[(String, TokenStream)]| t.iter().map(|(s, _)| s.clone()).collect();
            c.borrow_mut().push(tests::Captured {
                entries: run.iter().map(|e| (*e).clone()).collect(),
                bytes: e.bytes.clone(),
                ops: texts(&e.ops),
                rt: texts(&e.rt),
                scalars: texts(&e.scalars),
            })
        });
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

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::str::FromStr;

    use proc_macro2::TokenStream;
    use tensor_core::blocks::program::{decode, Entry as Decoded};
    use tensor_core::blocks::{Nest, OpFn, Operand, Reg, Scalar, Stage, Val};

    use super::*;
    use crate::dtype::DType;

    /// A `run_code_v1` call the expansions of this thread wrote: its entries and its code.
    pub(super) struct Captured {
        pub entries: Vec<Entry>,
        pub bytes: Vec<u8>,
        pub ops: Vec<String>,
        pub rt: Vec<String>,
        pub scalars: Vec<String>,
    }

    thread_local! {
        pub(super) static CAPTURED: RefCell<Vec<Captured>> = const { RefCell::new(Vec::new()) };
    }

    /// Stand-ins for the op table: distinct functions (each its own constant).
    macro_rules! fake_ops {
        ($($n:literal)*) => {
            [$({
                fn op(r: &mut [Reg], o: usize, a: [u16; 3], n: usize) {
                    std::hint::black_box((r.len(), o, a, n, $n));
                }
                op as OpFn
            }),*]
        };
    }
    const RT_BASE: usize = 1 << 40;
    const SCALAR_BASE: u64 = 1 << 50;

    fn fakes() -> Vec<OpFn> {
        fake_ops!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28
            29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56
            57 58 59 60 61 62 63)
        .to_vec()
    }

    /// The programs of graphgen's CI graphs `0..count`, as the macro writes them.
    fn ci_programs(count: u64) -> Vec<Captured> {
        CAPTURED.with(|c| c.borrow_mut().clear());
        for index in 0..count {
            let g = graphgen::gen::generate(graphgen::CI_SEED, index);
            let mut input = TokenStream::from_str("::tensorgraph;").unwrap();
            input.extend(TokenStream::from_str(&graphgen::render::graph(&g)).unwrap());
            crate::expand(input);
        }
        CAPTURED.with(|c| std::mem::take(&mut *c.borrow_mut()))
    }

    /// The value a struct literal's number token stands for, where it is a literal.
    fn literal_value(tokens: &TokenStream) -> Option<usize> {
        let text = tokens.to_string().replace(' ', "");
        if let Some(rest) = text.strip_prefix("usize::wrapping_sub(0usize,") {
            let n: usize = rest.strip_suffix("usize)")?.parse().ok()?;
            return Some(0usize.wrapping_sub(n));
        }
        text.trim_end_matches("usize").parse().ok()
    }

    fn num(n: &Num, c: &Captured) -> usize {
        let v = match n.code {
            NumCode::Imm(v) => v as usize,
            NumCode::Neg(v) => 0usize.wrapping_sub(v as usize),
            NumCode::Expr => {
                let k = c.rt.iter().position(|t| *t == n.tokens.to_string());
                return RT_BASE + k.expect("every expression is in `rt`");
            }
        };
        // The code and the literal's tokens say the same number.
        assert_eq!(literal_value(&n.tokens), Some(v), "{}", n.tokens);
        v
    }

    fn scalar_bits(s: Scalar) -> (u8, Vec<u8>) {
        match s {
            Scalar::Bool(v) => (0, vec![v as u8]),
            Scalar::U8(v) => (1, v.to_le_bytes().to_vec()),
            Scalar::U16(v) => (2, v.to_le_bytes().to_vec()),
            Scalar::U32(v) => (3, v.to_le_bytes().to_vec()),
            Scalar::U64(v) => (4, v.to_le_bytes().to_vec()),
            Scalar::I8(v) => (5, v.to_le_bytes().to_vec()),
            Scalar::I16(v) => (6, v.to_le_bytes().to_vec()),
            Scalar::I32(v) => (7, v.to_le_bytes().to_vec()),
            Scalar::I64(v) => (8, v.to_le_bytes().to_vec()),
            Scalar::F32(v) => (9, v.to_bits().to_le_bytes().to_vec()),
            Scalar::F64(v) => (10, v.to_bits().to_le_bytes().to_vec()),
        }
    }

    fn scalar(ir: &ScalarIr, got: Scalar, c: &Captured) {
        let text = ir.tokens.to_string().replace(' ', "");
        let (t, bits) = scalar_bits(got);
        // The variant the literal names.
        assert!(
            text.starts_with(&format!("__tg_b::Scalar::{}(", SCALAR_TYPES[t as usize]))
                || ir.code.is_none(),
            "{text} decoded as {got:?}"
        );
        match &ir.code {
            None => {
                let k = c.scalars.iter().position(|s| *s == ir.tokens.to_string());
                let want = SCALAR_BASE + k.expect("every expression is in `scalars`") as u64;
                assert!(
                    matches!(got, Scalar::U64(v) if v == want),
                    "{text}: {got:?}"
                );
            }
            Some(code) if code[0] & 0x40 != 0 => {
                assert_eq!(t, code[0] & !0x40, "{text}");
                let kind = ["ZERO", "ONE", "LOWEST", "HIGHEST"][code[1] as usize];
                assert!(text.ends_with(&format!("Identity>::{kind})")), "{text}");
                let want = match (t, code[1]) {
                    (_, 0) => vec![0; bits.len()],
                    (0, 1 | 3) => vec![1],
                    (0, 2) => vec![0],
                    (9, 1) => 1f32.to_bits().to_le_bytes().to_vec(),
                    (9, 2) => f32::NEG_INFINITY.to_bits().to_le_bytes().to_vec(),
                    (9, 3) => f32::INFINITY.to_bits().to_le_bytes().to_vec(),
                    (10, 1) => 1f64.to_bits().to_le_bytes().to_vec(),
                    (10, 2) => f64::NEG_INFINITY.to_bits().to_le_bytes().to_vec(),
                    (10, 3) => f64::INFINITY.to_bits().to_le_bytes().to_vec(),
                    (1..=4, 1) | (5..=8, 1) => {
                        let mut b = vec![0; bits.len()];
                        b[0] = 1;
                        b
                    }
                    (1..=4, 2) => vec![0; bits.len()],
                    (1..=4, 3) => vec![0xff; bits.len()],
                    (5..=8, 2) => {
                        let mut b = vec![0; bits.len()];
                        *b.last_mut().unwrap() = 0x80;
                        b
                    }
                    (5..=8, 3) => {
                        let mut b = vec![0xff; bits.len()];
                        *b.last_mut().unwrap() = 0x7f;
                        b
                    }
                    _ => unreachable!(),
                };
                assert_eq!(bits, want, "{text}");
            }
            Some(code) => {
                assert_eq!((t, bits), (code[0], code[1..].to_vec()), "{text}");
            }
        }
    }

    fn operand(ir: &OperandIr, op: &Operand<'_>, c: &Captured) {
        assert_eq!(op.buf, ir.buf);
        assert_eq!(op.base, num(&ir.base, c));
        let outer: Vec<usize> = ir.outer.iter().map(|n| num(n, c)).collect();
        assert_eq!(op.outer, &outer[..]);
        assert_eq!(op.inner, num(&ir.inner, c));
    }

    fn nest(ir: &NestIr, n: &Nest<'_>, c: &Captured, ops: &[OpFn]) {
        let outer: Vec<usize> = ir.outer.iter().map(|x| num(x, c)).collect();
        assert_eq!(n.outer, &outer[..]);
        assert_eq!(n.inner, num(&ir.inner, c));
        assert_eq!(n.ragged, ir.ragged.as_ref().map(|x| num(x, c)));
        assert_eq!(n.values.len(), ir.values.len());
        for (v, got) in ir.values.iter().zip(n.values) {
            match (v, got) {
                (ValIr::Load(a), Val::Load(b)) | (ValIr::Position(a), Val::Position(b)) => {
                    assert_eq!(matches!(v, ValIr::Load(_)), matches!(got, Val::Load(_)));
                    operand(a, b, c)
                }
                (ValIr::Splat(a), Val::Splat(b)) => scalar(a, *b, c),
                (ValIr::Op(path, args), Val::Op(f, got_args)) => {
                    let k = c.ops.iter().position(|p| *p == path.to_string()).unwrap();
                    assert!(core::ptr::fn_addr_eq(*f, ops[k]), "{path}");
                    assert_eq!(args, got_args);
                }
                (
                    ValIr::Gather {
                        data,
                        index,
                        stride,
                        bound,
                    },
                    Val::Gather {
                        data: d,
                        index: i,
                        stride: s,
                        bound: b,
                    },
                ) => {
                    operand(data, d, c);
                    assert_eq!((index, num(stride, c), num(bound, c)), (i, *s, *b));
                }
                _ => panic!("another value"),
            }
        }
        assert_eq!(n.stores.len(), ir.stores.len());
        for ((a, v), (b, w)) in ir.stores.iter().zip(n.stores) {
            operand(a, b, c);
            assert_eq!(v, w);
        }
        assert_eq!(n.reduces.len(), ir.reduces.len());
        for (a, b) in ir.reduces.iter().zip(n.reduces) {
            assert_eq!(a.combine, format!("{:?}", b.combine));
            operand(&a.acc, &b.acc, c);
            assert_eq!((a.value, a.accumulators), (b.value, b.accumulators));
            scalar(&a.identity, b.identity, c);
        }
        assert_eq!(n.arg.is_some(), ir.arg.is_some());
        if let (Some(a), Some(b)) = (&ir.arg, &n.arg) {
            assert_eq!((a.max, a.value), (b.max, b.value));
            operand(&a.best, &b.best, c);
            operand(&a.acc, &b.acc, c);
            operand(&a.index, &b.index, c);
        }
    }

    fn stage(ir: &StageIr, s: &Stage<'_>, c: &Captured, ops: &[OpFn]) {
        assert_eq!(s.rows, num(&ir.rows, c));
        assert_eq!(s.nests.len(), ir.nests.len());
        for (a, b) in ir.nests.iter().zip(s.nests) {
            nest(a, b, c, ops);
        }
        assert_eq!(s.resets.len(), ir.resets.len());
        for ((k, a), (j, b)) in ir.resets.iter().zip(s.resets) {
            assert_eq!(k, j);
            scalar(a, *b, c);
        }
    }

    /// Decodes `c` with stand-in tables.
    fn decode_with(c: &Captured, code: &[u8], each: impl FnMut(Decoded<'_>, &[OpFn])) {
        let ops = fakes();
        assert!(c.ops.len() <= ops.len(), "more ops than stand-ins");
        let rt: Vec<usize> = (0..c.rt.len()).map(|k| RT_BASE + k).collect();
        let scalars: Vec<Scalar> = (0..c.scalars.len())
            .map(|k| Scalar::U64(SCALAR_BASE + k as u64))
            .collect();
        let mut each = each;
        decode(code, &ops[..c.ops.len()], &rt, &scalars, |e| each(e, &ops));
    }

    /// Every program of the CI batch decodes to the entries it was written from, field by
    /// field (numbers and scalars also against the struct literal's tokens; ops by address).
    #[test]
    fn programs_decode_to_their_entries() {
        let programs = ci_programs(300);
        assert!(programs.len() > 250, "{}", programs.len());
        let (mut entries, mut rows, mut rt, mut scalars) = (0, 0, 0, 0);
        for c in &programs {
            let mut k = 0;
            decode_with(c, &c.bytes, |got, ops| {
                match (&c.entries[k], got) {
                    (Entry::Nest(a), Decoded::Nest(b)) => nest(a, b, c, ops),
                    (Entry::Stage(a), Decoded::Stage(b)) => stage(a, b, c, ops),
                    (Entry::Rows(a, lo, hi), Decoded::Rows(b, l, h)) => {
                        assert_eq!((num(lo, c), num(hi, c)), (l, h));
                        stage(a, b, c, ops);
                        rows += 1;
                    }
                    _ => panic!("another entry"),
                }
                k += 1;
            });
            assert_eq!(k, c.entries.len());
            entries += k;
            rt += c.rt.len();
            scalars += c.scalars.len();
        }
        eprintln!(
            "{} programs, {entries} entries ({rows} of product stages), {rt} run-time numbers, \
             {scalars} scalar expressions",
            programs.len()
        );
        assert!(rows > 0 && rt > 0 && scalars > 0);
    }

    /// Every prefix and every one-byte change of some of the CI batch's programs either
    /// decodes or reaches `bad_program`: no other panic, no hang.
    #[test]
    fn damaged_programs_decode_or_reach_bad_program() {
        let programs = ci_programs(60);
        // The longest programs, and ones with run-time numbers and scalar expressions.
        let mut picks: Vec<&Captured> = programs.iter().collect();
        picks.sort_by_key(|c| std::cmp::Reverse(c.bytes.len()));
        picks.truncate(2);
        picks.extend(programs.iter().filter(|c| !c.rt.is_empty()).take(2));
        picks.extend(programs.iter().filter(|c| !c.scalars.is_empty()).take(2));
        // Quiet for `bad_program`'s panics only (other tests' panics still print).
        let hook = std::sync::Arc::new(std::panic::take_hook());
        let quiet = hook.clone();
        std::panic::set_hook(Box::new(move |info| {
            let msg = info.payload().downcast_ref::<String>();
            if !msg.is_some_and(|m| m.contains("tensorgraph-core cannot read")) {
                quiet(info)
            }
        }));
        let restore = move || {
            let hook = hook.clone();
            std::panic::set_hook(Box::new(move |info| hook(info)));
        };
        let mut outcomes = [0usize; 2];
        for c in picks {
            let mut damaged: Vec<Vec<u8>> =
                (0..c.bytes.len()).map(|n| c.bytes[..n].to_vec()).collect();
            for at in 0..c.bytes.len() {
                for b in 0..=255u8 {
                    if b != c.bytes[at] {
                        let mut code = c.bytes.clone();
                        code[at] = b;
                        damaged.push(code);
                    }
                }
            }
            for code in damaged {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    decode_with(c, &code, |_, _| {})
                }));
                match r {
                    Ok(()) => outcomes[0] += 1,
                    Err(e) => {
                        let msg = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        if !msg.contains("debug program this tensorgraph-core cannot read") {
                            restore();
                            panic!("{code:?}: {msg}");
                        }
                        outcomes[1] += 1;
                    }
                }
            }
        }
        restore();
        eprintln!("decoded {}, bad_program {}", outcomes[0], outcomes[1]);
        assert!(outcomes[0] > 0 && outcomes[1] > 0);
    }

    /// The data form's float immediates are rustc's literals: the macro's parse of the
    /// digits (`debug::float_code`) gives the bits of `{digits}f32`/`{digits}f64`.
    #[test]
    fn float_immediates_are_rustcs() {
        macro_rules! table {
            ($($d:literal => $f:literal, $g:literal;)*) => {
                [$(($d, ($f as f32).to_bits(), ($g as f64).to_bits())),*]
            };
        }
        let table = table! {
            "0.1" => 0.1f32, 0.1f64;
            "0.2" => 0.2f32, 0.2f64;
            "0.30000000000000004" => 0.30000000000000004f32, 0.30000000000000004f64;
            "1e-45" => 1e-45f32, 1e-45f64;
            "7e-46" => 7e-46f32, 7e-46f64;
            "7.1e-46" => 7.1e-46f32, 7.1e-46f64;
            "1.401298464324817e-45" => 1.401298464324817e-45f32, 1.401298464324817e-45f64;
            "16777217.0" => 16777217.0f32, 16777217.0f64;
            "16777217" => 16777217f32, 16777217f64;
            "16777219" => 16777219f32, 16777219f64;
            "3.4028235e38" => 3.4028235e38f32, 3.4028235e38f64;
            "3.40282356e38" => 3.40282356e38f32, 3.40282356e38f64;
            "1.000000059604644775390625" => 1.000000059604644775390625f32, 1.000000059604644775390625f64;
            "1.0000000596046448" => 1.0000000596046448f32, 1.0000000596046448f64;
            "1.000000178813934326171875" => 1.000000178813934326171875f32, 1.000000178813934326171875f64;
            "9007199254740993.0" => 9007199254740993.0f32, 9007199254740993.0f64;
            "1e5" => 1e5f32, 1e5f64;
            "1E5" => 1E5f32, 1E5f64;
            "2.5e-3" => 2.5e-3f32, 2.5e-3f64;
            "1e+3" => 1e+3f32, 1e+3f64;
            "0.0" => 0.0f32, 0.0f64;
            "123456789.123456789" => 123456789.123456789f32, 123456789.123456789f64;
            "0.6931471805599453" => 0.6931471805599453f32, 0.6931471805599453f64;
            "3.14159265358979323846264338327950288" => 3.14159265358979323846264338327950288f32, 3.14159265358979323846264338327950288f64;
        };
        // f64 only (past f32's range: rustc rejects the f32 literal).
        let wide: [(&str, u64); 4] = [
            (
                "2.2250738585072011e-308",
                2.2250738585072011e-308f64.to_bits(),
            ),
            ("4.9e-324", 4.9e-324f64.to_bits()),
            (
                "1.7976931348623157e308",
                1.7976931348623157e308f64.to_bits(),
            ),
            ("9007199254740993", 9007199254740993f64.to_bits()),
        ];
        let code = |t: u8, bits: &[u8]| [&[t][..], bits].concat();
        for (digits, f, g) in table {
            for neg in [false, true] {
                let f = if neg { f ^ (1 << 31) } else { f };
                let g = if neg { g ^ (1 << 63) } else { g };
                let f32_code = float_code(DType::F32, digits, neg);
                assert_eq!(f32_code, Some(code(9, &f.to_le_bytes())), "{digits}f32");
                let f64_code = float_code(DType::F64, digits, neg);
                assert_eq!(f64_code, Some(code(10, &g.to_le_bytes())), "{digits}f64");
            }
        }
        for (digits, g) in wide {
            let f64_code = float_code(DType::F64, digits, false);
            assert_eq!(f64_code, Some(code(10, &g.to_le_bytes())), "{digits}f64");
        }
        // Not plain digits, or not finite: no immediate.
        for text in ["1_000.0", "inf", "NaN", "1e39", ""] {
            assert_eq!(float_code(DType::F32, text, false), None, "{text}");
        }
        assert_eq!(float_code(DType::F16, "0.5", false), None);
    }
}
