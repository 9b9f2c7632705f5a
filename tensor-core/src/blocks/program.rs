//! Debug programs as data (issue 33 item 3; NOTES.md "Debug programs as data"): the graph
//! macro writes the `run_nest`/`run_stage`/`run_stage_rows` calls of a run of a debug
//! program as one byte string and one call of [`run_code_v1`], which decodes each entry
//! into the same [`Nest`]/[`Stage`] values the macro's struct literals built before and
//! runs them with the unchanged [`run_nest`]/[`run_stage`]/[`run_stage_rows`]. The user's
//! crate type-checks and borrow-checks one byte-string literal and three small arrays
//! instead of a few dozen struct and enum constructors per call.
//!
//! Format 1 (the `v1` of the name: a tensorgraph-core that cannot read a format has no
//! function of its name, so a macro/core pair that disagrees is a compile error at the
//! call). `V` is an unsigned LEB128 varint; `N` a number, a `V` whose low two bits tell
//! how to read `x = V >> 2`: 0 the immediate `x` (≤ `u32::MAX`), 1 its wrapping negation
//! `0usize.wrapping_sub(x)`, 2 `rt[x]` (a number with names, computed by the caller), 3
//! invalid.
//!
//! ```text
//! program  := 0x01 V(entries) entry*
//! entry    := 0x00 nest                          run_nest
//!           | 0x01 N(rows) body                  run_stage
//!           | 0x02 N(lo) N(hi) N(rows) body      run_stage_rows(lo, hi)
//! body     := u8(nests ≤ STAGE_NESTS) nest* V(resets) (V(buf) scalar)*
//! nest     := u8(loops ≤ MAX_LOOPS) N* N(inner) (0x00 | 0x01 N(ragged total))
//!             V(values ≤ MAX_VALUES) val* V(stores) (operand V(value))*
//!             u8(reduces) reduce* (0x00 | 0x01 arg)
//! val      := 0x00 operand                       Load
//!           | 0x01 scalar                        Splat
//!           | 0x02 V(ops index) V V V            Op (fn, args)
//!           | 0x03 operand V(index) N(stride) N(bound)   Gather
//!           | 0x04 operand                       Position
//! operand  := V(buf) N(base) u8(loops ≤ MAX_LOOPS) N* N(inner)
//! reduce   := u8(Combine, in its order) operand(acc) V(value) scalar(identity) u8(accumulators)
//! arg      := u8(max 0|1) V(value) operand(best) operand(acc) operand(index)
//! scalar   := u8(t) bits        t in Scalar's order (Bool 0 … F64 10), little-endian bits
//!                               of the type's width (bool: one byte, 0 or 1)
//!           | u8(0x40 | t) u8(k) the `Identity` constant k (ZERO, ONE, LOWEST, HIGHEST) of t
//!           | 0x80 V(scalars index)
//! ```
//!
//! Every read is checked: a byte past the end, an index past its table, a count past its
//! limit, tag 3, an unknown byte or bytes left over reach `bad_program`, a panic that only
//! a macro and a core of different versions could cause. No `unsafe`, no allocation: each
//! entry is decoded into arrays on the stack (`VAL_POOL` values, …) whose limits the macro
//! mirrors (emit/program.rs; `tests::limits_are_tensor_cores` of the macro keeps them
//! equal) and checks, keeping the struct literals for an entry past them.

use super::{
    run_nest, run_stage, run_stage_rows, ArgReduce, Buf, Combine, Nest, OpFn, Operand, Reduce,
    Scalar, Stage, Val, MAX_LOOPS, MAX_VALUES,
};
use crate::reduce::Identity;

/// The format byte of [`run_code_v1`].
pub const FORMAT: u8 = 1;
/// The most nests of one entry.
pub const STAGE_NESTS: usize = 8;
/// The most values of one entry (all its nests).
pub const VAL_POOL: usize = 128;
/// The most stores of one entry.
pub const STORE_POOL: usize = 32;
/// The most reductions of one entry.
pub const REDUCE_POOL: usize = 16;
/// The most row resets of one entry.
pub const RESET_POOL: usize = 32;
/// The most outer extents and operand strides of one entry.
pub const NUM_POOL: usize = 512;

/// A program this tensorgraph-core cannot read: a mismatched macro/core pair (the calls
/// the macro writes always decode).
#[cold]
#[inline(never)]
fn bad_program(at: usize) -> ! {
    panic!(
        "tensorgraph: a debug program this tensorgraph-core cannot read (byte {at}); \
         tensorgraph-macros and tensorgraph-core must be the same version"
    )
}

/// An operand whose outer strides are `nums[outer.0..outer.0 + outer.1]`.
#[derive(Clone, Copy)]
struct RawOperand {
    buf: u16,
    base: usize,
    outer: (usize, usize),
    inner: usize,
}

#[derive(Clone, Copy)]
enum RawVal {
    Load(RawOperand),
    Splat(Scalar),
    Op(OpFn, [u16; 3]),
    Gather {
        data: RawOperand,
        index: u16,
        stride: usize,
        bound: usize,
    },
    Position(RawOperand),
}

#[derive(Clone, Copy)]
struct RawReduce {
    combine: Combine,
    acc: RawOperand,
    value: u16,
    identity: Scalar,
    accumulators: u8,
}

#[derive(Clone, Copy)]
struct RawArg {
    max: bool,
    value: u16,
    best: RawOperand,
    acc: RawOperand,
    index: RawOperand,
}

/// A nest whose parts are ranges (start, length) of the entry's pools.
#[derive(Clone, Copy)]
struct RawNest {
    outer: (usize, usize),
    inner: usize,
    ragged: Option<usize>,
    values: (usize, usize),
    stores: (usize, usize),
    reduces: (usize, usize),
    arg: Option<RawArg>,
}

const NO_OPERAND: RawOperand = RawOperand {
    buf: 0,
    base: 0,
    outer: (0, 0),
    inner: 0,
};
const NO_NEST: RawNest = RawNest {
    outer: (0, 0),
    inner: 0,
    ragged: None,
    values: (0, 0),
    stores: (0, 0),
    reduces: (0, 0),
    arg: None,
};
const FILLER: Scalar = Scalar::Bool(false);

/// One decoded entry, handed to the caller of [`decode`].
pub enum Entry<'a> {
    Nest(&'a Nest<'a>),
    Stage(&'a Stage<'a>),
    Rows(&'a Stage<'a>, usize, usize),
}

/// The entry's pools (phase one: numbers and raw parts).
struct Pools {
    nums: [usize; NUM_POOL],
    n_nums: usize,
    vals: [RawVal; VAL_POOL],
    n_vals: usize,
    stores: [(RawOperand, u16); STORE_POOL],
    n_stores: usize,
    reduces: [RawReduce; REDUCE_POOL],
    n_reduces: usize,
    resets: [(u16, Scalar); RESET_POOL],
    n_resets: usize,
    nests: [RawNest; STAGE_NESTS],
    n_nests: usize,
}

struct Reader<'c> {
    code: &'c [u8],
    at: usize,
    ops: &'c [OpFn],
    rt: &'c [usize],
    scalars: &'c [Scalar],
}

impl Reader<'_> {
    fn bad(&self) -> ! {
        bad_program(self.at)
    }

    fn byte(&mut self) -> u8 {
        match self.code.get(self.at) {
            Some(&b) => {
                self.at += 1;
                b
            }
            None => self.bad(),
        }
    }

    fn var(&mut self) -> u64 {
        let mut x = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte();
            let bits = u64::from(b & 0x7f);
            // At most 64 bits: the tenth byte holds bit 63 only.
            if shift == 63 && bits > 1 {
                self.bad();
            }
            x |= bits << shift;
            if b & 0x80 == 0 {
                return x;
            }
            shift += 7;
            if shift > 63 {
                self.bad();
            }
        }
    }

    /// A varint below `limit`.
    fn below(&mut self, limit: usize) -> usize {
        match usize::try_from(self.var()) {
            Ok(v) if v < limit => v,
            _ => self.bad(),
        }
    }

    fn u16v(&mut self) -> u16 {
        self.below(1 << 16) as u16
    }

    /// A number (`N`, see the module doc).
    fn num(&mut self) -> usize {
        let x = self.var();
        let v = x >> 2;
        match x & 3 {
            0 | 1 if v > u64::from(u32::MAX) => self.bad(),
            0 => v as usize,
            1 => 0usize.wrapping_sub(v as usize),
            2 => match usize::try_from(v).ok().and_then(|k| self.rt.get(k)) {
                Some(&n) => n,
                None => self.bad(),
            },
            _ => self.bad(),
        }
    }

    fn bits<const W: usize>(&mut self) -> [u8; W] {
        let mut b = [0u8; W];
        for x in &mut b {
            *x = self.byte();
        }
        b
    }

    fn scalar(&mut self) -> Scalar {
        let t = self.byte();
        if t == 0x80 {
            let k = self.below(self.scalars.len());
            return match self.scalars.get(k) {
                Some(&s) => s,
                None => self.bad(),
            };
        }
        if t & 0x40 != 0 {
            let k = self.byte();
            macro_rules! identity {
                ($($i:literal => $v:ident($t:ty)),*) => {
                    match (t & !0x40, k) {
                        $(($i, 0) => Scalar::$v(<$t as Identity>::ZERO),
                          ($i, 1) => Scalar::$v(<$t as Identity>::ONE),
                          ($i, 2) => Scalar::$v(<$t as Identity>::LOWEST),
                          ($i, 3) => Scalar::$v(<$t as Identity>::HIGHEST),)*
                        _ => self.bad(),
                    }
                };
            }
            return identity!(0 => Bool(bool), 1 => U8(u8), 2 => U16(u16), 3 => U32(u32),
                4 => U64(u64), 5 => I8(i8), 6 => I16(i16), 7 => I32(i32), 8 => I64(i64),
                9 => F32(f32), 10 => F64(f64));
        }
        match t {
            0 => match self.byte() {
                0 => Scalar::Bool(false),
                1 => Scalar::Bool(true),
                _ => self.bad(),
            },
            1 => Scalar::U8(u8::from_le_bytes(self.bits())),
            2 => Scalar::U16(u16::from_le_bytes(self.bits())),
            3 => Scalar::U32(u32::from_le_bytes(self.bits())),
            4 => Scalar::U64(u64::from_le_bytes(self.bits())),
            5 => Scalar::I8(i8::from_le_bytes(self.bits())),
            6 => Scalar::I16(i16::from_le_bytes(self.bits())),
            7 => Scalar::I32(i32::from_le_bytes(self.bits())),
            8 => Scalar::I64(i64::from_le_bytes(self.bits())),
            9 => Scalar::F32(f32::from_le_bytes(self.bits())),
            10 => Scalar::F64(f64::from_le_bytes(self.bits())),
            _ => self.bad(),
        }
    }

    /// `count` numbers into the pool; their range.
    fn nums(&mut self, p: &mut Pools, count: usize) -> (usize, usize) {
        let start = p.n_nums;
        for _ in 0..count {
            let n = self.num();
            match p.nums.get_mut(p.n_nums) {
                Some(slot) => *slot = n,
                None => self.bad(),
            }
            p.n_nums += 1;
        }
        (start, count)
    }

    fn loops(&mut self) -> usize {
        let n = usize::from(self.byte());
        if n > MAX_LOOPS {
            self.bad();
        }
        n
    }

    fn operand(&mut self, p: &mut Pools) -> RawOperand {
        let buf = self.u16v();
        let base = self.num();
        let loops = self.loops();
        let outer = self.nums(p, loops);
        let inner = self.num();
        RawOperand {
            buf,
            base,
            outer,
            inner,
        }
    }

    fn val(&mut self, p: &mut Pools) -> RawVal {
        match self.byte() {
            0 => RawVal::Load(self.operand(p)),
            1 => RawVal::Splat(self.scalar()),
            2 => {
                let k = self.below(self.ops.len());
                let f = match self.ops.get(k) {
                    Some(&f) => f,
                    None => self.bad(),
                };
                RawVal::Op(f, [self.u16v(), self.u16v(), self.u16v()])
            }
            3 => {
                let data = self.operand(p);
                let index = self.u16v();
                let stride = self.num();
                let bound = self.num();
                RawVal::Gather {
                    data,
                    index,
                    stride,
                    bound,
                }
            }
            4 => RawVal::Position(self.operand(p)),
            _ => self.bad(),
        }
    }

    /// A nest into `p.nests[p.n_nests]`.
    fn nest(&mut self, p: &mut Pools) {
        let loops = self.loops();
        let outer = self.nums(p, loops);
        let inner = self.num();
        let ragged = match self.byte() {
            0 => None,
            1 => Some(self.num()),
            _ => self.bad(),
        };
        let count = self.below(MAX_VALUES + 1);
        let values = (p.n_vals, count);
        for _ in 0..count {
            let v = self.val(p);
            match p.vals.get_mut(p.n_vals) {
                Some(slot) => *slot = v,
                None => self.bad(),
            }
            p.n_vals += 1;
        }
        let count = self.below(STORE_POOL + 1);
        let stores = (p.n_stores, count);
        for _ in 0..count {
            let op = self.operand(p);
            let v = self.u16v();
            match p.stores.get_mut(p.n_stores) {
                Some(slot) => *slot = (op, v),
                None => self.bad(),
            }
            p.n_stores += 1;
        }
        let count = self.below(REDUCE_POOL + 1);
        let reduces = (p.n_reduces, count);
        for _ in 0..count {
            let combine = match self.byte() {
                0 => Combine::Sum,
                1 => Combine::Prod,
                2 => Combine::Max,
                3 => Combine::Min,
                4 => Combine::MaxNoNan,
                5 => Combine::MinNoNan,
                6 => Combine::Any,
                7 => Combine::All,
                _ => self.bad(),
            };
            let acc = self.operand(p);
            let value = self.u16v();
            let identity = self.scalar();
            let accumulators = self.byte();
            match p.reduces.get_mut(p.n_reduces) {
                Some(slot) => {
                    *slot = RawReduce {
                        combine,
                        acc,
                        value,
                        identity,
                        accumulators,
                    }
                }
                None => self.bad(),
            }
            p.n_reduces += 1;
        }
        let arg = match self.byte() {
            0 => None,
            1 => {
                let max = match self.byte() {
                    0 => false,
                    1 => true,
                    _ => self.bad(),
                };
                let value = self.u16v();
                let best = self.operand(p);
                let acc = self.operand(p);
                let index = self.operand(p);
                Some(RawArg {
                    max,
                    value,
                    best,
                    acc,
                    index,
                })
            }
            _ => self.bad(),
        };
        match p.nests.get_mut(p.n_nests) {
            Some(slot) => {
                *slot = RawNest {
                    outer,
                    inner,
                    ragged,
                    values,
                    stores,
                    reduces,
                    arg,
                }
            }
            None => self.bad(),
        }
        p.n_nests += 1;
    }

    /// A stage's nests and resets.
    fn body(&mut self, p: &mut Pools) {
        let count = usize::from(self.byte());
        if count > STAGE_NESTS {
            self.bad();
        }
        for _ in 0..count {
            self.nest(p);
        }
        let count = self.below(RESET_POOL + 1);
        for _ in 0..count {
            let buf = self.u16v();
            let init = self.scalar();
            match p.resets.get_mut(p.n_resets) {
                Some(slot) => *slot = (buf, init),
                None => self.bad(),
            }
            p.n_resets += 1;
        }
    }
}

/// `pool[range]`, or `bad_program` (phase one only writes ranges inside the pools).
fn part<T>(pool: &[T], (start, len): (usize, usize), at: usize) -> &[T] {
    match start.checked_add(len).and_then(|end| pool.get(start..end)) {
        Some(s) => s,
        None => bad_program(at),
    }
}

fn operand<'a>(nums: &'a [usize], op: &RawOperand, at: usize) -> Operand<'a> {
    Operand {
        buf: op.buf,
        base: op.base,
        outer: part(nums, op.outer, at),
        inner: op.inner,
    }
}

/// Decodes `code` entry by entry, each handed to `each` (see the module doc for the
/// format); `bad_program` on anything else.
pub fn decode(
    code: &[u8],
    ops: &[OpFn],
    rt: &[usize],
    scalars: &[Scalar],
    mut each: impl FnMut(Entry<'_>),
) {
    let mut r = Reader {
        code,
        at: 0,
        ops,
        rt,
        scalars,
    };
    if r.byte() != FORMAT {
        r.bad();
    }
    let entries = r.var();
    for _ in 0..entries {
        let mut p = Pools {
            nums: [0; NUM_POOL],
            n_nums: 0,
            vals: [RawVal::Splat(FILLER); VAL_POOL],
            n_vals: 0,
            stores: [(NO_OPERAND, 0); STORE_POOL],
            n_stores: 0,
            reduces: [RawReduce {
                combine: Combine::Sum,
                acc: NO_OPERAND,
                value: 0,
                identity: FILLER,
                accumulators: 0,
            }; REDUCE_POOL],
            n_reduces: 0,
            resets: [(0, FILLER); RESET_POOL],
            n_resets: 0,
            nests: [NO_NEST; STAGE_NESTS],
            n_nests: 0,
        };
        let kind = r.byte();
        let (mut lo, mut hi, mut rows) = (0, 0, 0);
        match kind {
            0 => r.nest(&mut p),
            1 => {
                rows = r.num();
                r.body(&mut p);
            }
            2 => {
                lo = r.num();
                hi = r.num();
                rows = r.num();
                r.body(&mut p);
            }
            _ => r.bad(),
        }
        // Phase two: the runner's structs, borrowing the pools.
        let at = r.at;
        let nums = &p.nums[..];
        let vals: [Val<'_>; VAL_POOL] = core::array::from_fn(|i| match p.vals[i] {
            RawVal::Load(op) => Val::Load(operand(nums, &op, at)),
            RawVal::Splat(s) => Val::Splat(s),
            RawVal::Op(f, a) => Val::Op(f, a),
            RawVal::Gather {
                data,
                index,
                stride,
                bound,
            } => Val::Gather {
                data: operand(nums, &data, at),
                index,
                stride,
                bound,
            },
            RawVal::Position(op) => Val::Position(operand(nums, &op, at)),
        });
        let stores: [(Operand<'_>, u16); STORE_POOL] =
            core::array::from_fn(|i| (operand(nums, &p.stores[i].0, at), p.stores[i].1));
        let reduces: [Reduce<'_>; REDUCE_POOL] = core::array::from_fn(|i| {
            let r = &p.reduces[i];
            Reduce {
                combine: r.combine,
                acc: operand(nums, &r.acc, at),
                value: r.value,
                identity: r.identity,
                accumulators: r.accumulators,
            }
        });
        let nests: [Nest<'_>; STAGE_NESTS] = core::array::from_fn(|k| {
            let n = &p.nests[k];
            Nest {
                outer: part(nums, n.outer, at),
                inner: n.inner,
                ragged: n.ragged,
                values: part(&vals, n.values, at),
                stores: part(&stores, n.stores, at),
                reduces: part(&reduces, n.reduces, at),
                arg: n.arg.map(|a| ArgReduce {
                    max: a.max,
                    value: a.value,
                    best: operand(nums, &a.best, at),
                    acc: operand(nums, &a.acc, at),
                    index: operand(nums, &a.index, at),
                }),
            }
        });
        match kind {
            0 => each(Entry::Nest(&nests[0])),
            _ => {
                let stage = Stage {
                    rows,
                    nests: part(&nests, (0, p.n_nests), at),
                    resets: part(&p.resets, (0, p.n_resets), at),
                };
                match kind {
                    1 => each(Entry::Stage(&stage)),
                    _ => each(Entry::Rows(&stage, lo, hi)),
                }
            }
        }
    }
    if r.at != code.len() {
        r.bad();
    }
}

/// Runs a debug program written as data by the graph macro (see the module doc): each
/// entry as the `run_nest`/`run_stage`/`run_stage_rows` call it stands for, in order, on
/// `bufs`.
#[doc(hidden)]
pub fn run_code_v1(
    code: &[u8],
    ops: &[OpFn],
    rt: &[usize],
    scalars: &[Scalar],
    bufs: &mut [Buf<'_>],
) {
    decode(code, ops, rt, scalars, |entry| match entry {
        Entry::Nest(nest) => run_nest(nest, bufs),
        Entry::Stage(stage) => run_stage(stage, bufs),
        Entry::Rows(stage, lo, hi) => run_stage_rows(stage, lo, hi, bufs),
    });
}
