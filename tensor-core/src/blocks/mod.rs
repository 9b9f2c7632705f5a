//! The debug backend (issue 33 item 1; NOTES.md "Debug backend, first slice"): in a build
//! with `debug_assertions`, the graph macro lowers a covered graph to a program of block
//! ops (`Nest`) and calls [`run_nest`], compiled here once, instead of emitting a fused
//! kernel into the user's crate. The user's crate compiles struct literals and one call per
//! nest.
//!
//! A nest is the release kernel's loop nest as data: the outer extents, the inner extent
//! (ragged rows of a flat loop as in the fused kernel), and its values in dependency order.
//! Each value is a register of [`BLOCK`] elements of its compute type; the runner walks the
//! outer indices, cuts each row into blocks of `BLOCK` elements, computes every value over
//! the block chunk by chunk with the same lane function the fused kernel calls on that
//! chunk, then stores.
//!
//! Bit-identity with the fused kernels, by construction:
//! - every chunk is `LANES` wide and starts at a multiple of `LANES` in the row, as the
//!   fused kernel's chunks; a row's last chunk loads `n < LANES` elements and the lanes past
//!   `n` hold the compute type's zero, as `lanes::load` gives the fused kernel;
//! - an op is its lane function (`ops`: `<T as Trait>::method`, the registry's row) on the
//!   chunk, a cast `lanes::cast`, a select `select_lanes`: the same IEEE operations in the
//!   same order, nothing contracted;
//! - loads and stores go through `lanes::load*` and `lanes::store` (the same conversions and
//!   the same single rounding into `f16`/`bf16`).
//!
//! Bounds: every element index is computed with the fused kernel's wrapping arithmetic from
//! the offsets the macro's lowering fixed, and every access is a checked slice index (no
//! `unsafe` here): a wrong program panics, it never reads or writes outside a buffer.

mod ops;

pub use ops::*;

use crate::dtype::{bf16, f16, Element, LaneScalar};
use crate::lanes::{load, load_strided, load_strided_back, store, LANES, V};

/// Elements per block (a multiple of `LANES`, the f32 block kernels' length): a register
/// of `f64` is 2 KiB, so a nest of a dozen values keeps its registers in L1.
pub const BLOCK: usize = 256;
const _: () = assert!(BLOCK.is_multiple_of(16) && BLOCK.is_multiple_of(LANES));

/// One value's block of elements, of one of the 11 compute types.
#[derive(Clone, Debug)]
pub enum Reg {
    Bool([bool; BLOCK]),
    U8([u8; BLOCK]),
    U16([u16; BLOCK]),
    U32([u32; BLOCK]),
    U64([u64; BLOCK]),
    I8([i8; BLOCK]),
    I16([i16; BLOCK]),
    I32([i32; BLOCK]),
    I64([i64; BLOCK]),
    F32([f32; BLOCK]),
    F64([f64; BLOCK]),
}

/// A compute type with its `Reg` variant.
pub trait RegType: LaneScalar {
    /// The register's elements, if it holds this type.
    fn get(reg: &Reg) -> Option<&[Self; BLOCK]>;
    /// The register's elements, first made a register of this type if it holds another
    /// (the first block of a call: `run_nest` starts every register as `Bool`).
    fn get_mut(reg: &mut Reg) -> &mut [Self; BLOCK];
}

macro_rules! reg_types {
    ($($t:ty => $v:ident),*) => {$(
        impl RegType for $t {
            #[inline(always)]
            fn get(reg: &Reg) -> Option<&[$t; BLOCK]> {
                match reg {
                    Reg::$v(a) => Some(a),
                    _ => None,
                }
            }
            #[inline(always)]
            fn get_mut(reg: &mut Reg) -> &mut [$t; BLOCK] {
                if !matches!(reg, Reg::$v(_)) {
                    *reg = Reg::$v([<$t>::default(); BLOCK]);
                }
                match reg {
                    Reg::$v(a) => a,
                    _ => unreachable!("the register was made of this type just above"),
                }
            }
        }
    )*};
}
reg_types!(bool => Bool, u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16,
    i32 => I32, i64 => I64, f32 => F32, f64 => F64);

/// An argument register of type `T`. The graph macro builds each program from its typed
/// graph, which gives every value one dtype, so an op's argument always holds its type.
#[inline(always)]
pub(crate) fn arg<T: RegType>(regs: &[Reg], k: u16) -> &[T; BLOCK] {
    match T::get(&regs[k as usize]) {
        Some(a) => a,
        None => unreachable!("the graph macro types every value of a program once"),
    }
}

/// A buffer a nest reads: a graph input (`In`) or one it writes (an output).
pub enum Buf<'a> {
    In(Slice<'a>),
    Out(SliceMut<'a>),
}

macro_rules! slices {
    (same: $($t:ty => $v:ident),*; converted: $($ct:ty => $cv:ident),*) => {
        /// A read-only buffer of one of the 13 element types.
        pub enum Slice<'a> { $($v(&'a [$t]),)* $($cv(&'a [$ct]),)* }
        /// A writable buffer of one of the 13 element types.
        pub enum SliceMut<'a> { $($v(&'a mut [$t]),)* $($cv(&'a mut [$ct]),)* }

        /// `value`'s register filled from `buf`'s elements at `at`.
        fn load_buf(buf: &Buf<'_>, at: &At, reg: &mut Reg) {
            match buf {
                $(Buf::In(Slice::$v(s)) => load_same::<$t>(s, at, reg),)*
                $(Buf::Out(SliceMut::$v(s)) => load_same::<$t>(s, at, reg),)*
                $(Buf::In(Slice::$cv(s)) => load_block::<$ct>(s, at, reg),)*
                $(Buf::Out(SliceMut::$cv(s)) => load_block::<$ct>(s, at, reg),)*
            }
        }

        /// `reg` stored into `buf` (an output) at `at`.
        fn store_buf(buf: &mut Buf<'_>, at: &At, reg: &Reg) {
            match buf {
                $(Buf::Out(SliceMut::$v(s)) => store_same::<$t>(s, at, reg),)*
                $(Buf::Out(SliceMut::$cv(s)) => store_block::<$ct>(s, at, reg),)*
                Buf::In(_) => unreachable!("the graph macro stores into outputs only"),
            }
        }
    };
}
// `f16`/`bf16` are computed in `f32`: their loads and stores convert chunk by chunk
// through `lanes::load*`/`store` (one rounding on the way out); the other types are their
// own compute type, copied (`load_same`, `store_same`).
slices!(same: bool => Bool, u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8,
    i16 => I16, i32 => I32, i64 => I64, f32 => F32, f64 => F64;
    converted: f16 => F16, bf16 => BF16);

/// A compute-type constant (a literal, a scalar parameter, a count), splatted.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    Bool(bool),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

/// How a nest addresses one buffer, as the fused kernel's operand: the element of row
/// indices `i` and inner index `j` is `base + Σ i_k·outer[k] + j·inner`, in wrapping
/// `usize` arithmetic (a negative stride is its two's complement, as `offset_expr` writes
/// it).
#[derive(Clone, Copy, Debug)]
pub struct Operand<'a> {
    pub buf: u16,
    pub base: usize,
    pub outer: &'a [usize],
    pub inner: usize,
}

/// An op on registers: `out = f(args…)` over the block's first `n` elements, rounded up to
/// whole chunks (unused arguments are 0).
pub type OpFn = fn(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize);

/// One value of a nest.
#[derive(Clone, Copy)]
pub enum Val<'a> {
    /// Elements of a buffer.
    Load(Operand<'a>),
    /// One value for every element.
    Splat(Scalar),
    /// An op of the registry, a cast or a select over earlier values.
    Op(OpFn, [u16; 3]),
}

/// One loop nest of a graph (see the module doc).
pub struct Nest<'a> {
    /// Extents of the outer loops, outermost first.
    pub outer: &'a [usize],
    /// The inner extent; in a ragged flat loop the row length.
    pub inner: usize,
    /// A ragged flat loop's element count: row `i0` is `min(inner, total - i0·inner)` long.
    pub ragged: Option<usize>,
    pub values: &'a [Val<'a>],
    /// (operand, value): each value stored along the inner loop (stride 1).
    pub stores: &'a [(Operand<'a>, u16)],
}

/// The place of one block: the row's offset of each operand is computed from `row`.
struct At {
    off: usize,
    inner: usize,
    n: usize,
}

impl At {
    fn new(op: &Operand<'_>, row: &[usize], j: usize, n: usize) -> At {
        let mut off = op.base;
        for (i, s) in row.iter().zip(op.outer) {
            off = off.wrapping_add(i.wrapping_mul(*s));
        }
        At {
            off: off.wrapping_add(j.wrapping_mul(op.inner)),
            inner: op.inner,
            n,
        }
    }
}

/// The chunks of a block of `n` elements: chunk starts and lengths (the last may be short).
#[inline(always)]
fn chunks(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n.div_ceil(LANES)).map(move |c| (c * LANES, (n - c * LANES).min(LANES)))
}

/// `reg` := `n` elements of `src` from `at` (stride `at.inner`), each chunk as the fused
/// kernel's `load*` reads it (the lanes past `n` in the last chunk are zero).
fn load_block<E: Element>(src: &[E], at: &At, reg: &mut Reg)
where
    E::Compute: RegType,
{
    let dst = <E::Compute as RegType>::get_mut(reg);
    let s = at.inner;
    for (j, m) in chunks(at.n) {
        let v: V<E::Compute> = if s == 1 {
            load::<E>(src, at.off + j, m)
        } else if (s as isize) >= 0 {
            load_strided::<E>(src, at.off.wrapping_add(j.wrapping_mul(s)), s, m)
        } else {
            let back = s.wrapping_neg();
            load_strided_back::<E>(src, at.off.wrapping_sub(j.wrapping_mul(back)), back, m)
        };
        dst[j..j + LANES].copy_from_slice(&v.0);
    }
}

/// `n` elements of `reg` stored into `dst` from `at` (stride 1), rounded once into `E`.
fn store_block<E: Element>(dst: &mut [E], at: &At, reg: &Reg)
where
    E::Compute: RegType,
{
    let Some(src) = <E::Compute as RegType>::get(reg) else {
        unreachable!("the graph macro types every value of a program once")
    };
    for (j, m) in chunks(at.n) {
        let chunk: [E::Compute; LANES] = src[j..j + LANES].try_into().expect("LANES long");
        store::<E>(dst, at.off + j, m, V(chunk));
    }
}

/// `reg` := `n` elements of `src` from `at` (stride `at.inner`), for a type that is its own
/// compute type: what `load_block` gives (`lanes::load*` convert nothing for these types,
/// and the lanes past `n` are never stored), as one slice copy for a contiguous run or an
/// index loop (no call per element at opt-level 0; see `ops::elementwise!`).
fn load_same<T: RegType + Element<Compute = T>>(src: &[T], at: &At, reg: &mut Reg) {
    let dst = T::get_mut(reg);
    let (n, s) = (at.n, at.inner);
    if s == 1 {
        dst[..n].copy_from_slice(&src[at.off..at.off + n]);
    } else {
        // A stride of 0 (a value fixed for the row) or any other, negative ones as their
        // two's complement: the fused kernel's wrapping offsets, each access checked.
        let mut i = 0;
        let mut off = at.off;
        while i < n {
            dst[i] = src[off];
            off = off.wrapping_add(s);
            i += 1;
        }
    }
}

/// `n` elements of `reg` stored into `dst` from `at` (stride 1), for a type that is its
/// own compute type (`store` rounds nothing for it): one slice copy.
fn store_same<T: RegType + Element<Compute = T>>(dst: &mut [T], at: &At, reg: &Reg) {
    let Some(src) = T::get(reg) else {
        unreachable!("the graph macro types every value of a program once")
    };
    dst[at.off..at.off + at.n].copy_from_slice(&src[..at.n]);
}

/// A register filled with `value`.
fn splat(reg: &mut Reg, value: Scalar) {
    macro_rules! fill {
        ($($v:ident: $t:ty),*) => {
            match value {
                $(Scalar::$v(x) => <$t as RegType>::get_mut(reg).fill(x),)*
            }
        };
    }
    fill!(Bool: bool, U8: u8, U16: u16, U32: u32, U64: u64, I8: i8, I16: i16, I32: i32,
        I64: i64, F32: f32, F64: f64);
}

/// Nests run by [`run_nest`] in this process (a relaxed count: tensorgraph-tests'
/// debug_backend.rs reads it to know which graphs the backend ran).
static NESTS_RUN: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// How many nests [`run_nest`] has run in this process.
pub fn nests_run() -> usize {
    NESTS_RUN.load(core::sync::atomic::Ordering::Relaxed)
}

/// Runs one nest over `bufs` (indexed by the operands' `buf`).
pub fn run_nest(nest: &Nest<'_>, bufs: &mut [Buf<'_>]) {
    NESTS_RUN.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    if nest.outer.contains(&0) || nest.inner == 0 {
        return;
    }
    // The registers and the row index live on the stack (an `_into` documented as
    // allocating nothing allocates nothing, even on its first call: tests/alloc_free.rs);
    // the graph macro emits no nest with more values or loops than they hold
    // (emit/debug.rs), and one that had them would run on the heap.
    let fresh = || Reg::Bool([false; BLOCK]);
    if nest.values.len() <= MAX_VALUES && nest.outer.len() <= MAX_LOOPS {
        let mut regs: [Reg; MAX_VALUES] = core::array::from_fn(|_| fresh());
        let mut row = [0usize; MAX_LOOPS];
        let (regs, row) = (&mut regs[..nest.values.len()], &mut row[..nest.outer.len()]);
        run_rows(nest, bufs, regs, row);
    } else {
        let mut regs: Vec<Reg> = (0..nest.values.len()).map(|_| fresh()).collect();
        run_rows(nest, bufs, &mut regs, &mut vec![0; nest.outer.len()]);
    }
}

/// The most values a nest's registers hold on the stack (66 KB of registers).
pub const MAX_VALUES: usize = 32;
/// The most outer loops a nest's row index holds on the stack.
pub const MAX_LOOPS: usize = 16;

/// Every row of `nest`, block by block; `row` starts at zeros.
fn run_rows(nest: &Nest<'_>, bufs: &mut [Buf<'_>], regs: &mut [Reg], row: &mut [usize]) {
    // The constants' registers, whole, once: a fill per block cost as much as an op at
    // opt-level 0.
    for (k, value) in nest.values.iter().enumerate() {
        if let Val::Splat(x) = value {
            splat(&mut regs[k], *x);
        }
    }
    loop {
        let len = match nest.ragged {
            Some(total) => nest.inner.min(total - row[0] * nest.inner),
            None => nest.inner,
        };
        let mut j = 0;
        while j < len {
            let n = (len - j).min(BLOCK);
            run_block(nest, bufs, regs, row, j, n);
            j += n;
        }
        // The next row index, last axis fastest; done after the last row.
        let mut axis = row.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            row[axis] += 1;
            if row[axis] < nest.outer[axis] {
                break;
            }
            row[axis] = 0;
        }
    }
}

/// The values of one block, then its stores.
fn run_block(
    nest: &Nest<'_>,
    bufs: &mut [Buf<'_>],
    regs: &mut [Reg],
    row: &[usize],
    j: usize,
    n: usize,
) {
    for (k, value) in nest.values.iter().enumerate() {
        match value {
            Val::Load(op) => load_buf(
                &bufs[op.buf as usize],
                &At::new(op, row, j, n),
                &mut regs[k],
            ),
            // Filled once per nest (`run_rows`): no op writes another value's register.
            Val::Splat(_) => {}
            Val::Op(f, args) => f(regs, k, *args, n),
        }
    }
    for (op, v) in nest.stores {
        store_buf(
            &mut bufs[op.buf as usize],
            &At::new(op, row, j, n),
            &regs[*v as usize],
        );
    }
}
