//! The debug backend (issue 33 item 1; NOTES.md "Debug backend, first slice"): in a build
//! with `debug_assertions`, the graph macro lowers a covered graph to a program of block
//! ops (`Nest`) and calls [`run_nest`], compiled here once, instead of emitting a fused
//! kernel into the user's crate. The user's crate compiles one byte string and one
//! [`run_code_v1`] call per run of nests ([`program`] decodes it into the same `Nest` and
//! `Stage` values), or struct literals and one call per nest where a nest is past the
//! decoder's limits.
//!
//! A nest is the release kernel's loop nest as data: the outer extents, the inner extent
//! (ragged rows of a flat loop as in the fused kernel), its values in dependency order, its
//! stores and its reductions ([`Reduce`]: the fused kernel's accumulation order, NOTES.md
//! "Debug backend, second slice"); nests sharing a row loop run as a [`Stage`].
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

/// Elements per group of the element loops (`ops::elementwise!`, the reductions'
/// `Accumulate::whole_chunks`): `each_of_group!` writes out this many.
const GROUP: usize = 8;
const _: () = assert!(BLOCK.is_multiple_of(GROUP) && LANES.is_multiple_of(GROUP));

/// `d[i] = e` with each argument `x` bound to `x[i]`, for `i` in `0..GROUP`, written out.
macro_rules! each_of_group {
    ($d:ident, |$($x:ident),+| $e:expr) => {
        each_of_group!(@at $d, [0 1 2 3 4 5 6 7], |$($x),+| $e)
    };
    (@at $d:ident, [$i:literal $($rest:literal)*], |$($x:ident),+| $e:expr) => {
        $d[$i] = {
            let ($($x,)+) = ($($x[$i],)+);
            $e
        };
        each_of_group!(@at $d, [$($rest)*], |$($x),+| $e);
    };
    (@at $d:ident, [], |$($x:ident),+| $e:expr) => {};
}

mod ops;
pub mod program;

pub use ops::*;
pub use program::run_code_v1;

use crate::dtype::{bf16, f16, Element, LaneScalar};
use crate::lanes::{
    load, load_strided, load_strided_back, store, BitwiseLanes, FloatLanes, NumLanes, LANES, V,
};
use crate::reference::{Bitwise, Num};

/// Dispatches `$f::<T>(args…)` on the accumulator type of `reduce.identity`.
macro_rules! on_accumulator {
    ($reduce:expr, $f:ident($($arg:expr),*)) => {
        match $reduce.identity {
            Scalar::Bool(_) => $f::<bool>($($arg),*),
            Scalar::U8(_) => $f::<u8>($($arg),*),
            Scalar::U16(_) => $f::<u16>($($arg),*),
            Scalar::U32(_) => $f::<u32>($($arg),*),
            Scalar::U64(_) => $f::<u64>($($arg),*),
            Scalar::I8(_) => $f::<i8>($($arg),*),
            Scalar::I16(_) => $f::<i16>($($arg),*),
            Scalar::I32(_) => $f::<i32>($($arg),*),
            Scalar::I64(_) => $f::<i64>($($arg),*),
            Scalar::F32(_) => $f::<f32>($($arg),*),
            Scalar::F64(_) => $f::<f64>($($arg),*),
        }
    };
}

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
    /// A whole block of a buffer read in place, by the runner only (see [`View`]).
    View(View),
}

/// A register that reads `BLOCK` elements of a buffer where they are (a contiguous load
/// of a type that is its own compute type, `load_buf_or_view`) instead of a copy of them:
/// the copies into and out of registers were a quarter of W3's time with tensorgraph-core
/// optimised (NOTES.md "Debug backend, W3 within 3x of release").
///
/// Only the runner makes one (its fields are private), for one block of one nest: the
/// block's values read it after its load, and where the nest writes its buffer (a store,
/// an accumulator) nothing reads it after the block's values (`viewable_values`); the next
/// block's load replaces it before any value reads it again, and the registers never
/// leave the `run_*` call that borrows the buffers. So every read through its pointer
/// happens while the buffer's `BLOCK` elements at that place are alive and unwritten.
///
/// A writable view (`writable`) is the block of an output a value is stored into, made
/// just before the value's op runs, which then writes its result there instead of a
/// register the store would copy out (`in_place_values`: nothing else in the nest reads
/// or writes that buffer); the runner replaces it with a register of its own after the
/// block's stores and reductions (`run_rows`), so no later write reaches it.
#[derive(Clone, Copy, Debug)]
pub struct View {
    ptr: ViewPtr,
    writable: bool,
}

/// A [`View`]'s block, by compute type.
#[derive(Clone, Copy, Debug)]
enum ViewPtr {
    Bool(*mut [bool; BLOCK]),
    U8(*mut [u8; BLOCK]),
    U16(*mut [u16; BLOCK]),
    U32(*mut [u32; BLOCK]),
    U64(*mut [u64; BLOCK]),
    I8(*mut [i8; BLOCK]),
    I16(*mut [i16; BLOCK]),
    I32(*mut [i32; BLOCK]),
    I64(*mut [i64; BLOCK]),
    F32(*mut [f32; BLOCK]),
    F64(*mut [f64; BLOCK]),
}

/// A compute type with its `Reg` variant.
pub trait RegType: LaneScalar {
    /// The register's elements (its own, or the buffer's block a [`View`] reads), if it
    /// holds this type.
    fn get(reg: &Reg) -> Option<&[Self; BLOCK]>;
    /// The register's elements, first made a register of this type if it holds another
    /// (the first block of a call: `run_nest` starts every register as `Bool`) or a
    /// [`View`].
    fn get_mut(reg: &mut Reg) -> &mut [Self; BLOCK];
}

/// A compute type whose block of a buffer a register can read in place ([`View`]).
trait Viewable: RegType {
    /// A register reading `block` in place. Private to this module: the runner keeps
    /// [`View`]'s rule (every read while `block` is alive and unwritten).
    fn view(block: &[Self; BLOCK]) -> Reg;
    /// A register whose op writes `block` in place (a writable [`View`]). Private to this
    /// module, as `view`.
    fn view_mut(block: &mut [Self; BLOCK]) -> Reg;
}

macro_rules! reg_types {
    ($($t:ty => $v:ident),*) => {$(
        impl RegType for $t {
            #[inline(always)]
            fn get(reg: &Reg) -> Option<&[$t; BLOCK]> {
                match reg {
                    Reg::$v(a) => Some(a),
                    // SAFETY: the runner made this view from a `&[$t; BLOCK]` of a buffer
                    // and reads it only while that block is alive and unwritten ([`View`]'s
                    // rule, kept by `run_block` and `viewable_values`): the pointer is
                    // non-null, aligned, and points to `BLOCK` initialised elements that
                    // nothing mutates while this shared reference lives.
                    Reg::View(View { ptr: ViewPtr::$v(p), .. }) => Some(unsafe { &**p }),
                    _ => None,
                }
            }
            #[inline(always)]
            fn get_mut(reg: &mut Reg) -> &mut [$t; BLOCK] {
                if let Reg::View(View { ptr: ViewPtr::$v(p), writable: true }) = *reg {
                    // SAFETY: the runner made this view from a `&mut [$t; BLOCK]` of an
                    // output just before the op of its value (the only caller while it
                    // lives), and nothing else reads or writes that block until the runner
                    // replaces the view after the block ([`View`]'s rule): the pointer is
                    // valid, aligned, and this is the only reference to the block.
                    return unsafe { &mut *p };
                }
                if !matches!(reg, Reg::$v(_)) {
                    *reg = Reg::$v([<$t>::default(); BLOCK]);
                }
                match reg {
                    Reg::$v(a) => a,
                    _ => unreachable!("the register was made of this type just above"),
                }
            }
        }
        impl Viewable for $t {
            #[inline(always)]
            fn view(block: &[$t; BLOCK]) -> Reg {
                // Never written through: `writable` is false.
                let ptr = ViewPtr::$v((block as *const [$t; BLOCK]).cast_mut());
                Reg::View(View { ptr, writable: false })
            }
            #[inline(always)]
            fn view_mut(block: &mut [$t; BLOCK]) -> Reg {
                Reg::View(View { ptr: ViewPtr::$v(block), writable: true })
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

        /// `value`'s register filled from `buf`'s elements at `at`; with `view`, a whole
        /// block of a type that is its own compute type, read contiguously, becomes a
        /// [`View`] of the buffer instead (`view_or_load`; the caller keeps its rule).
        fn load_buf(buf: &Buf<'_>, at: &At, reg: &mut Reg, view: bool) {
            match buf {
                $(Buf::In(Slice::$v(s)) => view_or_load::<$t>(s, at, reg, view),)*
                $(Buf::Out(SliceMut::$v(s)) => view_or_load::<$t>(s, at, reg, view),)*
                $(Buf::In(Slice::$cv(s)) => load_block::<$ct>(s, at, reg),)*
                $(Buf::Out(SliceMut::$cv(s)) => load_block::<$ct>(s, at, reg),)*
            }
        }

        /// `reg` := a writable [`View`] of `buf`'s block at `at` where it is a whole
        /// contiguous block of a type that is its own compute type (`view_mut_or_not`);
        /// whether it is.
        fn view_store_buf(buf: &mut Buf<'_>, at: &At, reg: &mut Reg) -> bool {
            match buf {
                $(Buf::Out(SliceMut::$v(s)) => view_mut_or_not::<$t>(s, at, reg),)*
                _ => false,
            }
        }

        /// `reg`'s first `offs.len()` elements read from `buf` at `offs` (a gather's
        /// addresses), each converted to its compute type.
        fn gather_buf(buf: &Buf<'_>, offs: &[usize], reg: &mut Reg) {
            match buf {
                $(Buf::In(Slice::$v(s)) => gather_of::<$t>(s, offs, reg),)*
                $(Buf::Out(SliceMut::$v(s)) => gather_of::<$t>(s, offs, reg),)*
                $(Buf::In(Slice::$cv(s)) => gather_of::<$ct>(s, offs, reg),)*
                $(Buf::Out(SliceMut::$cv(s)) => gather_of::<$ct>(s, offs, reg),)*
            }
        }

        /// Elements `off..off + n` of `buf` prefetched into the cache where they are
        /// inside it (`prefetch`); nothing otherwise.
        fn prefetch_buf(buf: &Buf<'_>, off: usize, n: usize) {
            match buf {
                $(Buf::In(Slice::$v(s)) => prefetch(s.get(off..off.wrapping_add(n))),)*
                $(Buf::Out(SliceMut::$v(s)) => prefetch(s.get(off..off.wrapping_add(n))),)*
                $(Buf::In(Slice::$cv(s)) => prefetch(s.get(off..off.wrapping_add(n))),)*
                $(Buf::Out(SliceMut::$cv(s)) => prefetch(s.get(off..off.wrapping_add(n))),)*
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

/// The cache lines of `elements` (if any) prefetched (`prefetcht0`, one per 64 bytes) on
/// x86-64 outside Miri; nothing elsewhere. A hint to the cache: no value changes.
#[inline(always)]
fn prefetch<T>(elements: Option<&[T]>) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if let Some(s) = elements {
        let bytes = core::mem::size_of_val(s);
        if bytes > 0 {
            let start = s.as_ptr() as usize & !63;
            let end = s.as_ptr() as usize + bytes;
            // SAFETY: `prefetcht0` reads and writes no memory the program sees and never
            // faults (the addresses are those of `s`'s lines anyway: from the line of its
            // first byte while below its end); the loop writes only its counter (declared)
            // and the flags (not preserved: declared by omission); no stack, no memory
            // written (`readonly`).
            unsafe {
                core::arch::asm!(
                    ".p2align 5", // the loop at a 32-byte boundary (see `by_avx`)
                    "2:",
                    "prefetcht0 byte ptr [{p}]",
                    "add {p}, 64",
                    "cmp {p}, {end}",
                    "jb 2b",
                    p = inout(reg) start => _,
                    end = in(reg) end,
                    options(nostack, readonly),
                );
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = elements;
}

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
/// whole chunks (unused arguments repeat the first, or are 0 for an op without arguments:
/// `uniform_values` reads all three).
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
    /// `gather`: the data operand (its gathered axis at stride 0) read `stride` elements
    /// further per position the integer value `index` names, a negative position counting
    /// from `bound` (call entry checked every position in `-bound..bound`), as the fused
    /// kernel's `emit_gather`.
    Gather {
        data: Operand<'a>,
        index: u16,
        stride: usize,
        bound: usize,
    },
    /// The running index an operand addresses (an `i64` value: `arange`, the rows and
    /// columns of `tril`/`eye`, …): element `j` of the row is the operand's offset at `j`,
    /// as `reduce::positions` gives the fused kernel.
    Position(Operand<'a>),
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
    /// The nest's reductions (none, one, or a reduction and its sibling), each chunk
    /// accumulated after the chunk's stores, as the fused kernel's sink.
    pub reduces: &'a [Reduce<'a>],
    /// The nest's arg reduction, if it has one (then no `reduces`).
    pub arg: Option<ArgReduce<'a>>,
}

/// How a reduction combines (the graph macro's `ReduceKind::combine`): each kind is a lane
/// function of the accumulator's type (`NumLanes::add_lanes`, …, `FloatLanes::
/// max_no_nan_lanes`, `BitwiseLanes::or_lanes`) and the scalar function of the last fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    Sum,
    Prod,
    Max,
    Min,
    MaxNoNan,
    MinNoNan,
    Any,
    All,
}

/// A reduction of a nest: `value` combined into the accumulator `acc` (a temp of the
/// accumulator's compute type). With `acc.inner == 0` the row's chunks accumulate in
/// registers as the fused kernel's (`accumulators` of them, chunk `u` of each group of
/// four into register `u % accumulators`, every other chunk and the masked tail into
/// register 0), folded into the row's slot at the row's end; otherwise each chunk loads,
/// combines and stores its accumulators along the inner loop.
#[derive(Clone, Copy, Debug)]
pub struct Reduce<'a> {
    pub combine: Combine,
    pub acc: Operand<'a>,
    pub value: u16,
    /// The combine's identity (the tail's padding lanes and the registers' start).
    pub identity: Scalar,
    /// 4, or 2 for softmax's row minimum (`ReduceKind::register_accumulators`).
    pub accumulators: u8,
}

/// An arg-max/arg-min reduction of a nest (`argmax`/`argmin`): `value` compared with the
/// best value so far in `best` (a temp of the value's compute type) whose index is in `acc`
/// (an `i64` temp, -1 while empty), each element's index being the running index operand
/// `index` addresses (its offset, as the fused kernel's `arg_step`/`arg_combine` read it).
/// Element by element in row order by `reduce::arg_better` (larger (smaller) wins, the
/// first NaN wins, ties keep the smaller index): a strict order on (value, index) pairs,
/// so the winner is the fused kernel's, whose lanes each see their elements in order and
/// are folded by the same rule (`reduce::arg_fold`); `best` and `acc` along a kept inner
/// axis are per element, as `arg_combine`'s loaded slots.
#[derive(Clone, Copy, Debug)]
pub struct ArgReduce<'a> {
    pub max: bool,
    pub value: u16,
    pub best: Operand<'a>,
    pub acc: Operand<'a>,
    pub index: Operand<'a>,
}

/// A row stage (the fused kernel's nests sharing their outermost loop): for each of the
/// `rows` rows, the row-local temps `resets` are filled with their start values, then
/// every nest runs that row.
pub struct Stage<'a> {
    pub rows: usize,
    pub nests: &'a [Nest<'a>],
    /// (buffer, start value) of each row-local temp that starts from its init at every row.
    pub resets: &'a [(u16, Scalar)],
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
    } else if s == 0 && n > 0 {
        // A value fixed for the row (the row's max, sum, …): one element read, written
        // group by group (`[T; GROUP]` copies: no call, no per-element check at
        // opt-level 0); lanes past `n` in the last group are never stored.
        fill_groups(dst, src[at.off], n);
    } else {
        // Any other stride, negative ones as their two's complement: the fused kernel's
        // wrapping offsets, each access checked.
        let mut i = 0;
        let mut off = at.off;
        while i < n {
            dst[i] = src[off];
            off = off.wrapping_add(s);
            i += 1;
        }
    }
}

/// `reg` := with `view`, a [`View`] of `src`'s `BLOCK` elements from `at` where the block
/// is whole and contiguous (`at.n == BLOCK`, stride 1, inside `src`: the checked slice),
/// else `load_same`'s copy. The same elements either way.
#[inline(always)]
fn view_or_load<T: Viewable + Element<Compute = T>>(src: &[T], at: &At, reg: &mut Reg, view: bool) {
    if view && at.n == BLOCK && at.inner == 1 {
        if let Some(block) = src.get(at.off..at.off.wrapping_add(BLOCK)) {
            if let Ok(block) = <&[T; BLOCK]>::try_from(block) {
                *reg = T::view(block);
                return;
            }
        }
    }
    load_same(src, at, reg)
}

/// `reg` := a writable [`View`] of `dst`'s `BLOCK` elements from `at` where the block is
/// whole and contiguous (`at.n == BLOCK`, stride 1, inside `dst`: the checked slice);
/// whether it was. An op writing `BLOCK` elements there writes what `store_same` would
/// copy from its register.
#[inline(always)]
fn view_mut_or_not<T: Viewable>(dst: &mut [T], at: &At, reg: &mut Reg) -> bool {
    if at.n == BLOCK && at.inner == 1 {
        if let Some(block) = dst.get_mut(at.off..at.off.wrapping_add(BLOCK)) {
            if let Ok(block) = <&mut [T; BLOCK]>::try_from(block) {
                *reg = T::view_mut(block);
                return true;
            }
        }
    }
    false
}

/// `dst[..n]` (rounded up to whole groups) := `x`, group by group (`[T; GROUP]` copies:
/// no call and no per-element check at opt-level 0, where `fill` is a loop of calls).
#[inline(always)]
fn fill_groups<T: Copy>(dst: &mut [T], x: T, n: usize) {
    let group = [x; GROUP];
    let (groups, _) = dst.as_chunks_mut::<GROUP>();
    let end = n.div_ceil(GROUP);
    let mut g = 0;
    while g < end {
        groups[g] = group;
        g += 1;
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
                $(Scalar::$v(x) => fill_groups(<$t as RegType>::get_mut(reg), x, BLOCK),)*
            }
        };
    }
    fill!(Bool: bool, U8: u8, U16: u16, U32: u32, U64: u64, I8: i8, I16: i16, I32: i32,
        I64: i64, F32: f32, F64: f64);
}

/// Nest calls made by [`run_nest`] and [`run_stage`] (a stage's nests once per call, not
/// per row), and runtime steps ([`runtime_step`]), in this process (a relaxed count: tensorgraph-tests' debug_backend.rs reads it to know
/// which graphs the backend ran).
static NESTS_RUN: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// How many nests and runtime steps programs have run in this process.
pub fn nests_run() -> usize {
    NESTS_RUN.load(core::sync::atomic::Ordering::Relaxed)
}

/// Counts a step of a program that is a call into the runtime rather than a nest (a
/// product computed whole, a scan, `max_pool`, `resize`, …: the fused kernel's own call,
/// emitted unchanged into the program), so that [`nests_run`] sees every graph the
/// backend ran.
pub fn runtime_step() {
    NESTS_RUN.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
}

/// Runs one nest over `bufs` (indexed by the operands' `buf`).
pub fn run_nest(nest: &Nest<'_>, bufs: &mut [Buf<'_>]) {
    NESTS_RUN.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    let flags = Flags::of(nest);
    with_registers(nest.values.len(), nest.outer.len(), |regs, accs, row| {
        run_rows(nest, &flags, bufs, regs, accs, row, 0)
    });
}

/// What the runner reads of a nest's values (`uniform_values`, `viewable_values`,
/// `in_place_values`), worked out once per call rather than once per row.
#[derive(Clone, Copy)]
struct Flags {
    uniform: [bool; MAX_VALUES],
    viewable: [bool; MAX_VALUES],
    in_place: [u16; MAX_VALUES],
    /// Softmax's divisions that may divide their store's block in place
    /// (`division_in_place_values`).
    division_in_place: [u16; MAX_VALUES],
    /// The stage's row-indexed operands whose next row this nest prefetches, block by
    /// block (`next_row_operands`; none outside a stage's last nest).
    next_row: [NextRow; NEXT_ROW_MAX],
    next_rows: usize,
}

impl Flags {
    fn of(nest: &Nest<'_>) -> Flags {
        let uniform = uniform_values(nest);
        Flags {
            uniform,
            viewable: viewable_values(nest),
            in_place: in_place_values(nest, &uniform),
            division_in_place: division_in_place_values(nest),
            next_row: [NextRow::default(); NEXT_ROW_MAX],
            next_rows: 0,
        }
    }
}

/// The most operands a stage prefetches for its next row.
const NEXT_ROW_MAX: usize = 8;

/// A contiguous operand of a stage's nests, as its next row's blocks are addressed: block
/// `j` of row `r + 1` starts at element `base + (r + 1)·row_stride + j` (the row's other
/// outer indices at 0).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct NextRow {
    buf: u16,
    base: usize,
    row_stride: usize,
}

/// The operands whose next row a stage's last nest prefetches while it runs a row (the
/// fused kernel prefetches the next row's input the same way, `prefetch_chunk`): every
/// load along the row at stride 1 of the stage's nests that moves with the row index
/// (`outer[0] != 0`; a row-local temp does not), each buffer place once, at most
/// `NEXT_ROW_MAX`. Without it the stage's first pass over a row (softmax's max and min)
/// read its input from memory, a stall per block (NOTES.md "Debug backend, W3 clearly
/// under 3x"; the stores' rows were tried too: no better). A prefetch is a hint: it
/// changes no value.
fn next_row_operands(stage: &Stage<'_>) -> ([NextRow; NEXT_ROW_MAX], usize) {
    let mut out = [NextRow::default(); NEXT_ROW_MAX];
    let mut count = 0;
    let mut add = |op: &Operand<'_>| {
        let Some(&row_stride) = op.outer.first() else {
            return;
        };
        let p = NextRow {
            buf: op.buf,
            base: op.base,
            row_stride,
        };
        if op.inner == 1 && row_stride != 0 && count < NEXT_ROW_MAX && !out[..count].contains(&p) {
            out[count] = p;
            count += 1;
        }
    };
    for nest in stage.nests {
        for value in nest.values {
            if let Val::Load(op) = value {
                add(op);
            }
        }
    }
    (out, count)
}

/// The stage's nests whose [`Flags`] a call keeps on the stack (the later ones' are
/// worked out again at every row).
const STAGE_FLAGS: usize = 8;

/// Runs a row stage (see [`Stage`]) over `bufs`.
pub fn run_stage(stage: &Stage<'_>, bufs: &mut [Buf<'_>]) {
    run_stage_rows(stage, 0, stage.rows, bufs);
}

/// Runs rows `lo..hi` of a row stage over `bufs`: the rows of one GEMM block of a product
/// stage, whose prologue nests run through the block's rows before the block's GEMM and
/// whose epilogue nests after it (the graph macro emits the block loop and the GEMM call,
/// the fused kernel's own; emit/debug.rs `product_stage`).
pub fn run_stage_rows(stage: &Stage<'_>, lo: usize, hi: usize, bufs: &mut [Buf<'_>]) {
    // Counted once per call (a locked add per row and nest was ~1% of a softmax).
    if lo < hi {
        NESTS_RUN.fetch_add(stage.nests.len(), core::sync::atomic::Ordering::Relaxed);
    }
    let values = stage
        .nests
        .iter()
        .map(|n| n.values.len())
        .max()
        .unwrap_or(0);
    let loops = stage.nests.iter().map(|n| n.outer.len()).max().unwrap_or(0);
    let mut kept = [None; STAGE_FLAGS];
    for (k, nest) in kept.iter_mut().zip(stage.nests) {
        *k = Some(Flags::of(nest));
    }
    // The last nest prefetches the next row's inputs (`next_row_operands`), in a stage of
    // several nests (a single nest's rows stream: the CPU's own prefetcher follows them).
    if let (2.., Some(Some(flags))) = (
        stage.nests.len(),
        kept.get_mut(stage.nests.len().saturating_sub(1)),
    ) {
        (flags.next_row, flags.next_rows) = next_row_operands(stage);
    }
    with_registers(values, loops, |regs, accs, row| {
        for r in lo..hi {
            for &(buf, init) in stage.resets {
                fill_buf(&mut bufs[buf as usize], init);
            }
            for (i, nest) in stage.nests.iter().enumerate() {
                let row = &mut row[..nest.outer.len()];
                row.fill(0);
                row[0] = r;
                let regs = &mut regs[..nest.values.len()];
                match kept.get(i) {
                    Some(Some(flags)) => run_rows(nest, flags, bufs, regs, accs, row, 1),
                    _ => run_rows(nest, &Flags::of(nest), bufs, regs, accs, row, 1),
                }
            }
        }
    });
}

/// `f(registers, accumulators, row index)`: `values` registers, the two registers of a
/// nest's register reductions (shared by a stage's nests: each row of a reduction starts
/// them afresh, `start_row_of`, so they are made once per call rather than once per row
/// and nest) and a row index of `loops` axes. Up to `MAX_VALUES` registers live on the
/// stack (an `_into` documented as allocating nothing allocates nothing, even on its first
/// call: tests/alloc_free.rs). A nest of more values (a pooling's derived function) takes
/// its registers from the thread's `WIDE_REGISTERS`, allocated on the thread's first such
/// call (and when a wider nest comes) and kept, as the kernels' temps are
/// (`scratch::ScratchVec`): its `_into` too allocates only on its first call. The graph
/// macro emits no nest of more than `MAX_LOOPS` loops (emit/debug.rs); one that had them
/// would index its row on the heap.
fn with_registers(
    values: usize,
    loops: usize,
    f: impl FnOnce(&mut [Reg], &mut [Reg; 2], &mut [usize]),
) {
    let fresh = || Reg::Bool([false; BLOCK]);
    let mut accs = [fresh(), fresh()];
    let mut row = [0usize; MAX_LOOPS];
    let mut row_heap = Vec::new();
    let row: &mut [usize] = match loops <= MAX_LOOPS {
        true => &mut row[..loops],
        false => {
            row_heap.resize(loops, 0);
            &mut row_heap
        }
    };
    if values <= MAX_VALUES {
        let mut regs: [Reg; MAX_VALUES] = core::array::from_fn(|_| fresh());
        f(&mut regs[..values], &mut accs, row);
        return;
    }
    // The thread's wide registers, taken out of the cell for the call (nothing else
    // borrows the cell: `f` runs no nest of its own) and put back after; while the
    // thread's locals are destroyed, a fresh vector.
    let mut regs = WIDE_REGISTERS
        .try_with(|cell| core::mem::take(&mut *cell.borrow_mut()))
        .unwrap_or_default();
    // Every register starts as at the stack's (`fresh`); no reallocation within the
    // capacity of an earlier call.
    regs.clear();
    regs.resize_with(values, fresh);
    f(&mut regs, &mut accs, row);
    let _ = WIDE_REGISTERS.try_with(|cell| *cell.borrow_mut() = regs);
}

std::thread_local! {
    /// The registers of this thread's nests of more than `MAX_VALUES` values
    /// (`with_registers`).
    static WIDE_REGISTERS: core::cell::RefCell<Vec<Reg>> =
        const { core::cell::RefCell::new(Vec::new()) };
}

/// The most values a nest's registers hold on the stack (66 KB of registers).
pub const MAX_VALUES: usize = 32;
/// The most outer loops a nest's row index holds on the stack.
pub const MAX_LOOPS: usize = 16;

/// Every row of `nest` whose first `fixed` indices are `row`'s, block by block (the other
/// indices start at zeros).
fn run_rows(
    nest: &Nest<'_>,
    flags: &Flags,
    bufs: &mut [Buf<'_>],
    regs: &mut [Reg],
    accs: &mut [Reg; 2],
    row: &mut [usize],
    fixed: usize,
) {
    if nest.outer.contains(&0) || (nest.inner == 0 && nest.reduces.is_empty() && nest.arg.is_none())
    {
        return;
    }
    // The constants' registers, whole, once: a fill per block cost as much as an op at
    // opt-level 0.
    for (k, value) in nest.values.iter().enumerate() {
        if let Val::Splat(x) = value {
            splat(&mut regs[k], *x);
        }
    }
    // The register accumulators of the reductions (at most two: a reduction and its
    // sibling) are `accs`, `LANES` lanes each at `u · LANES`.
    loop {
        let len = match nest.ragged {
            Some(total) => nest.inner.min(total - row[0] * nest.inner),
            None => nest.inner,
        };
        for (reduce, acc) in nest.reduces.iter().zip(accs.iter_mut()) {
            if reduce.acc.inner == 0 {
                on_accumulator!(reduce, start_row_of(reduce, acc));
            }
        }
        let mut j = 0;
        while j < len {
            let n = (len - j).min(BLOCK);
            let written = run_block(nest, bufs, regs, flags, row, j, n);
            // The same block of the stage's next row, on its way into the cache while
            // this row's work runs (a stage's nests share `row[0]`, the row).
            for p in &flags.next_row[..flags.next_rows] {
                let off = p
                    .base
                    .wrapping_add(row[0].wrapping_add(1).wrapping_mul(p.row_stride))
                    .wrapping_add(j);
                prefetch_buf(&bufs[p.buf as usize], off, n);
            }
            if let Some(arg) = &nest.arg {
                arg_block(arg, bufs, &regs[arg.value as usize], row, j, n);
            }
            for (reduce, acc) in nest.reduces.iter().zip(accs.iter_mut()) {
                let (at, buf) = (
                    At::new(&reduce.acc, row, j, n),
                    &mut bufs[reduce.acc.buf as usize],
                );
                let value = &regs[reduce.value as usize];
                on_accumulator!(
                    reduce,
                    reduce_block_of(reduce, buf, &at, acc, value, j, len)
                );
            }
            // The block's writable views end here ([`View`]'s rule): their registers
            // become registers of their own, so no later write reaches the output.
            let mut w = written;
            while w != 0 {
                regs[w.trailing_zeros() as usize] = Reg::Bool([false; BLOCK]);
                w &= w - 1;
            }
            j += n;
        }
        // A row reduction folds into its slot at the row's end (also for an empty row, as
        // the fused kernel's).
        for (reduce, acc) in nest.reduces.iter().zip(accs.iter()) {
            if reduce.acc.inner == 0 {
                let (at, buf) = (
                    At::new(&reduce.acc, row, 0, 1),
                    &mut bufs[reduce.acc.buf as usize],
                );
                on_accumulator!(reduce, finish_row_of(reduce, buf, &at, acc));
            }
        }
        // The next row index, last axis fastest; done after the last row.
        let mut axis = row.len();
        loop {
            if axis == fixed {
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

/// Which of a nest's first `MAX_VALUES` values hold one value for every element of a
/// row: a load at inner stride 0 (a value fixed for the row), a constant, and an op whose
/// arguments all are (`Val::Op`'s unused arguments repeat a used one, so they change
/// nothing; an argument not before the op counts as not uniform).
fn uniform_values(nest: &Nest<'_>) -> [bool; MAX_VALUES] {
    let mut uniform = [false; MAX_VALUES];
    for (k, value) in nest.values.iter().enumerate().take(MAX_VALUES) {
        uniform[k] = match value {
            Val::Load(op) => op.inner == 0,
            Val::Splat(_) => true,
            Val::Op(_, args) => args
                .iter()
                .all(|&a| (a as usize) < k && uniform[a as usize]),
            Val::Gather { .. } | Val::Position(_) => false,
        };
    }
    uniform
}

/// Which of a nest's first `MAX_VALUES` values may be loaded as a [`View`]: loads along
/// the row at stride 1, either of a buffer the nest does not write (no store, accumulator
/// or arg slot in it) or read only by the block's values (no store, reduction or arg
/// reduction reads it: those run after the block's stores, which may write the buffer).
/// So a view is read only before anything writes its buffer ([`View`]'s rule).
fn viewable_values(nest: &Nest<'_>) -> [bool; MAX_VALUES] {
    let written = |buf: u16| {
        nest.stores.iter().any(|(op, _)| op.buf == buf)
            || nest.reduces.iter().any(|r| r.acc.buf == buf)
            || nest
                .arg
                .is_some_and(|a| a.best.buf == buf || a.acc.buf == buf)
    };
    let read_late = |k: usize| {
        nest.stores.iter().any(|&(_, v)| v as usize == k)
            || nest.reduces.iter().any(|r| r.value as usize == k)
            || nest.arg.is_some_and(|a| a.value as usize == k)
    };
    let mut viewable = [false; MAX_VALUES];
    for (k, value) in nest.values.iter().enumerate().take(MAX_VALUES) {
        viewable[k] = match value {
            Val::Load(op) => op.inner == 1 && (!written(op.buf) || !read_late(k)),
            _ => false,
        };
    }
    viewable
}

/// No store of a value is made in place (`in_place_values`).
const NOT_IN_PLACE: u16 = u16::MAX;

/// For each of a nest's first `MAX_VALUES` values, the store (its index in `nest.stores`)
/// whose block the value's op may write in place (a writable [`View`]), or `NOT_IN_PLACE`:
/// an op's value that is not fixed for the row (`uniform`: those are computed once a row
/// and broadcast), stored along the row at stride 1 into a buffer that is the target of
/// that one store only, that no value of the nest reads (a load or a gather) and that no
/// reduction or arg reduction writes. So while the value's op writes the block and the
/// block's later readers (other stores, reductions) read it, nothing else touches it.
fn in_place_values(nest: &Nest<'_>, uniform: &[bool; MAX_VALUES]) -> [u16; MAX_VALUES] {
    let touched_otherwise = |buf: u16, store: usize| {
        nest.stores
            .iter()
            .enumerate()
            .any(|(i, (op, _))| i != store && op.buf == buf)
            || nest.values.iter().any(|v| match v {
                Val::Load(op) => op.buf == buf,
                Val::Gather { data, .. } => data.buf == buf,
                _ => false,
            })
            || nest.reduces.iter().any(|r| r.acc.buf == buf)
            || nest
                .arg
                .is_some_and(|a| a.best.buf == buf || a.acc.buf == buf)
    };
    let mut in_place = [NOT_IN_PLACE; MAX_VALUES];
    for (i, (op, v)) in nest.stores.iter().enumerate() {
        let k = *v as usize;
        if k < MAX_VALUES
            && matches!(nest.values.get(k), Some(Val::Op(..)))
            && !uniform[k]
            && op.inner == 1
            && in_place[k] == NOT_IN_PLACE
            && !touched_otherwise(op.buf, i)
        {
            in_place[k] = i as u16;
        }
    }
    in_place
}

/// Whether the op `f` of `args` (of a value below `MAX_VALUES`) is softmax's division
/// (`ops::DIV_SOFTMAX`: `f32_ops::div_softmax_plain_lanes`, or `div_softmax_lanes`, of
/// `e`, the row's sum and the `in_range` flag) with its divisor and flag fixed for the row
/// (`uniform`), where an optimised build of this crate runs it by the block kernel
/// (`ops::div_softmax_row_fixed`; at opt-level 0, `cfg(tensorgraph_opt0)`, the block
/// kernel's intrinsics would be calls: the AVX loop stays). A function whose code is the
/// same as these (LLVM may merge `div_lanes` with them) passes the address test, but a
/// binary op repeats its first argument as its third (`OpFn`), so it is not taken; the
/// block op checks the registers' types too.
fn softmax_division(f: OpFn, args: &[u16; 3], uniform: &[bool; MAX_VALUES]) -> bool {
    !cfg!(tensorgraph_opt0)
        && (core::ptr::fn_addr_eq(f, f32_ops::div_softmax_plain_lanes as OpFn)
            || core::ptr::fn_addr_eq(f, f32_ops::div_softmax_lanes as OpFn))
        && args[2] != args[0]
        && args[1] != args[0]
        && uniform[args[1] as usize]
        && uniform[args[2] as usize]
}

/// For each of a nest's first `MAX_VALUES` values, the store (its index in `nest.stores`)
/// whose block a softmax division (`softmax_division`'s op and argument shape) may divide
/// in place, or `NOT_IN_PLACE`: a division whose dividends are a load along the row at
/// stride 1 of exactly the block the division is stored into (the same buffer and
/// offsets: softmax's normalisation pass loads `e` from the output and stores `e / sum`
/// back), where nothing else in the nest touches that buffer (no other store, load or
/// gather of it, no accumulator or arg slot in it) and nothing but the division reads the
/// dividends' value (no other op, gather, store, reduction or arg reduction). So the
/// block holds the dividends when the division runs, and after it, only the quotients'
/// readers read it, through the division's writable [`View`].
fn division_in_place_values(nest: &Nest<'_>) -> [u16; MAX_VALUES] {
    let mut out = [NOT_IN_PLACE; MAX_VALUES];
    let divisions = [
        f32_ops::div_softmax_plain_lanes as OpFn,
        f32_ops::div_softmax_lanes as OpFn,
    ];
    for (i, (store, v)) in nest.stores.iter().enumerate() {
        let k = *v as usize;
        let Some(Val::Op(f, args)) = nest.values.get(k) else {
            continue;
        };
        let a = args[0] as usize;
        let Some(Val::Load(load)) = nest.values.get(a) else {
            continue;
        };
        let same_block = load.buf == store.buf
            && load.base == store.base
            && load.outer == store.outer
            && load.inner == 1
            && store.inner == 1;
        let buf = store.buf;
        let touched_otherwise = nest
            .stores
            .iter()
            .enumerate()
            .any(|(s, (op, _))| s != i && op.buf == buf)
            || nest
                .values
                .iter()
                .enumerate()
                .any(|(w, value)| match value {
                    Val::Load(op) => w != a && op.buf == buf,
                    Val::Gather { data, .. } => data.buf == buf,
                    _ => false,
                })
            || nest.reduces.iter().any(|r| r.acc.buf == buf)
            || nest
                .arg
                .is_some_and(|r| r.best.buf == buf || r.acc.buf == buf);
        let dividends_read_otherwise = nest.values.iter().enumerate().any(|(w, value)| {
            w != k
                && match value {
                    Val::Op(_, args) => args.contains(&(a as u16)),
                    Val::Gather { index, .. } => *index as usize == a,
                    _ => false,
                }
        }) || nest.stores.iter().any(|&(_, v)| v as usize == a)
            || nest.reduces.iter().any(|r| r.value as usize == a)
            || nest.arg.is_some_and(|r| r.value as usize == a);
        if k < MAX_VALUES
            && out[k] == NOT_IN_PLACE
            && divisions.iter().any(|d| core::ptr::fn_addr_eq(*f, *d))
            && args[2] != args[0]
            && args[1] != args[0]
            && same_block
            && !touched_otherwise
            && !dividends_read_otherwise
        {
            out[k] = i as u16;
        }
    }
    out
}

/// `reg`'s element 0 copied into its first `n` elements (rounded up to whole groups).
fn broadcast_first(reg: &mut Reg, n: usize) {
    macro_rules! each {
        ($($v:ident),*) => {
            match reg {
                $(Reg::$v(a) => {
                    let x = a[0];
                    fill_groups(a, x, n);
                })*
                // An op's result is its own register (`get_mut`), never a view.
                Reg::View(_) => {}
            }
        };
    }
    each!(Bool, U8, U16, U32, U64, I8, I16, I32, I64, F32, F64);
}

/// The values of one block, then its stores. A uniform value's op (`uniform_values`)
/// computes its first chunk only and copies that chunk's first element into the rest of
/// the block: every op is a function of its lanes (a lane function, an element loop or a
/// block kernel, lane by lane), so every lane of arguments equal in every lane computes
/// that element's bits.
fn run_block(
    nest: &Nest<'_>,
    bufs: &mut [Buf<'_>],
    regs: &mut [Reg],
    flags: &Flags,
    row: &[usize],
    j: usize,
    n: usize,
) -> u32 {
    let Flags {
        uniform,
        viewable,
        in_place,
        division_in_place,
        ..
    } = flags;
    // The values whose op wrote its store's block in place (bit `k`): their stores are
    // done.
    let mut written = 0u32;
    for (k, value) in nest.values.iter().enumerate() {
        // A value fixed for the row (`uniform_values`) was computed by the row's first
        // block, over all of that block's elements (`BLOCK` of them where the row has a
        // later block), and its register is written by nothing else: the later blocks of
        // the row read it as it is, as the fused kernel computes a row-level value once
        // per row, outside its inner loop.
        if j > 0 && k < MAX_VALUES && uniform[k] {
            continue;
        }
        match value {
            Val::Load(op) => load_buf(
                &bufs[op.buf as usize],
                &At::new(op, row, j, n),
                &mut regs[k],
                k < MAX_VALUES && viewable[k],
            ),
            // Filled once per nest (`run_rows`): no op writes another value's register.
            Val::Splat(_) => {}
            Val::Position(op) => positions_block(&At::new(op, row, j, n), &mut regs[k]),
            Val::Gather {
                data,
                index,
                stride,
                bound,
            } => {
                let at = At::new(data, row, j, n);
                let mut offs = [0usize; BLOCK];
                gather_offsets(&at, &regs[*index as usize], *stride, *bound, &mut offs[..n]);
                gather_buf(&bufs[data.buf as usize], &offs[..n], &mut regs[k]);
            }
            Val::Op(f, args)
                if n == BLOCK
                    && k < MAX_VALUES
                    && division_in_place[k] != NOT_IN_PLACE
                    && softmax_division(*f, args, uniform) =>
            {
                // The dividends' block is the block the quotients are stored into, and
                // nothing else reads either (`division_in_place_values`): divided where
                // it is, through a writable view the later readers of the value read (the
                // dividends' register, a view of the same block or a copy, is not read
                // again).
                let op = &nest.stores[division_in_place[k] as usize].0;
                let at = At::new(op, row, j, n);
                if division_args_typed(regs, *args)
                    && view_store_buf(&mut bufs[op.buf as usize], &at, &mut regs[k])
                {
                    div_softmax_in_place(regs, k, *args);
                    written |= 1 << k;
                } else {
                    f(regs, k, *args, n)
                }
            }
            Val::Op(f, args)
                if n == BLOCK
                    && k < MAX_VALUES
                    && !uniform[k]
                    && softmax_division(*f, args, uniform)
                    && div_softmax_row_fixed(regs, k, *args) => {}
            Val::Op(f, args) if n > LANES && k < MAX_VALUES && uniform[k] => {
                f(regs, k, *args, LANES);
                broadcast_first(&mut regs[k], n);
            }
            Val::Op(f, args) if k < MAX_VALUES && in_place[k] != NOT_IN_PLACE => {
                let op = &nest.stores[in_place[k] as usize].0;
                let at = At::new(op, row, j, n);
                if view_store_buf(&mut bufs[op.buf as usize], &at, &mut regs[k]) {
                    written |= 1 << k;
                }
                f(regs, k, *args, n)
            }
            Val::Op(f, args) => f(regs, k, *args, n),
        }
    }
    for (i, (op, v)) in nest.stores.iter().enumerate() {
        let k = *v as usize;
        if k < MAX_VALUES
            && written & (1 << k) != 0
            && (in_place[k] as usize == i || division_in_place[k] as usize == i)
        {
            continue;
        }
        store_buf(
            &mut bufs[op.buf as usize],
            &At::new(op, row, j, n),
            &regs[*v as usize],
        );
    }
    written
}

/// `reg` := the running index at `at` for the block's elements, rounded up to whole
/// chunks: lane `e` holds `at.off + e·at.inner` (wrapping, as `reduce::positions`, whose
/// lanes past the row's end are computed the same way), as `i64`.
fn positions_block(at: &At, reg: &mut Reg) {
    let dst = <i64 as RegType>::get_mut(reg);
    let whole = at.n.div_ceil(LANES) * LANES;
    let (mut off, mut e) = (at.off, 0);
    while e < whole {
        dst[e] = off as i64;
        off = off.wrapping_add(at.inner);
        e += 1;
    }
}

/// The addresses of a gather's block: element `e` at `at.off + e·at.inner + p_e·stride`
/// (wrapping, as the fused kernel's), `p_e` the index value's element `e` as `i64` plus
/// `bound` when negative (a value fixed for the row or the call holds its position in
/// every element).
fn gather_offsets(at: &At, index: &Reg, stride: usize, bound: usize, offs: &mut [usize]) {
    // The index register may be its own or a view of a loaded index block (`get`).
    macro_rules! on_index {
        ($($t:ty),*) => {
            $(if let Some(a) = <$t as RegType>::get(index) {
                for (e, off) in offs.iter_mut().enumerate() {
                    let i = a[e] as i64;
                    let p = (if i < 0 { i + bound as i64 } else { i }) as usize;
                    *off = at
                        .off
                        .wrapping_add(e.wrapping_mul(at.inner))
                        .wrapping_add(p.wrapping_mul(stride));
                }
                return;
            })*
            unreachable!("the graph macro gathers by integer positions")
        };
    }
    on_index!(u8, u16, u32, u64, i8, i16, i32, i64);
}

/// `reg`'s elements `e < offs.len()` := `src[offs[e]]` in the compute type.
fn gather_of<E: Element>(src: &[E], offs: &[usize], reg: &mut Reg)
where
    E::Compute: RegType,
{
    let dst = <E::Compute as RegType>::get_mut(reg);
    for (d, &o) in dst.iter_mut().zip(offs) {
        *d = E::to_compute(src[o]);
    }
}

/// One block of an arg reduction (see [`ArgReduce`]), on the value's compute type.
fn arg_block(
    arg: &ArgReduce<'_>,
    bufs: &mut [Buf<'_>],
    value: &Reg,
    row: &[usize],
    j: usize,
    n: usize,
) {
    // The value's register may be its own or a view of a loaded block (`get`).
    macro_rules! on_value {
        ($($t:ty),*) => {
            $(if <$t as RegType>::get(value).is_some() {
                return match arg.max {
                    true => arg_block_of::<$t, true>(arg, bufs, value, row, j, n),
                    false => arg_block_of::<$t, false>(arg, bufs, value, row, j, n),
                };
            })*
            unreachable!("the graph macro arg-reduces numbers only")
        };
    }
    on_value!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);
}

/// [`arg_block`] on value type `T`, for arg-max (`MAX`) or arg-min.
fn arg_block_of<T: Accumulate + Num + crate::reference::Compare, const MAX: bool>(
    arg: &ArgReduce<'_>,
    bufs: &mut [Buf<'_>],
    value: &Reg,
    row: &[usize],
    j: usize,
    n: usize,
) {
    let Some(v) = T::get(value) else {
        unreachable!("the graph macro types every value of a program once")
    };
    for (e, &x) in v[..n].iter().enumerate() {
        let i = At::new(&arg.index, row, j + e, 1).off as i64;
        let best_at = At::new(&arg.best, row, j + e, 1).off;
        let acc_at = At::new(&arg.acc, row, j + e, 1).off;
        let best = T::slice(&mut bufs[arg.best.buf as usize])[best_at];
        let best_i = i64::slice(&mut bufs[arg.acc.buf as usize])[acc_at];
        if crate::reduce::arg_better::<T, MAX>(x, i, best, best_i) {
            T::slice(&mut bufs[arg.best.buf as usize])[best_at] = x;
            i64::slice(&mut bufs[arg.acc.buf as usize])[acc_at] = i;
        }
    }
}

/// An accumulator type: its `Buf` slice and the lane and scalar functions of each
/// [`Combine`] it has (the graph macro emits only those).
trait Accumulate: RegType + Element<Compute = Self> {
    fn slice<'b>(buf: &'b mut Buf<'_>) -> &'b mut [Self];
    fn lanes(c: Combine) -> fn(V<Self>, V<Self>) -> V<Self>;
    fn scalar(c: Combine) -> fn(Self, Self) -> Self;
    fn of(x: Scalar) -> Self;
    /// `acc := lanes(c)(acc, x)` on one chunk (`LANES` elements each).
    fn combine_chunk(c: Combine, acc: &mut [Self], x: &[Self]) {
        combine_chunk_by_lanes(c, acc, x)
    }
    /// The register reduction of a block's first `run.chunks` chunks, all whole (see
    /// [`ChunkRun`]); `false` (nothing done) where this type has no element loop for `c`
    /// (the caller then runs the chunks one by one).
    fn whole_chunks(_c: Combine, _regs: &mut [Self], _v: &[Self; BLOCK], _run: ChunkRun) -> bool {
        false
    }
}

/// The whole chunks of a block for [`Accumulate::whole_chunks`]: chunk `i < chunks` of the
/// block (chunk `k0 + i` of the row) is combined into register `(k0 + i) % 4 % nacc` while
/// `k0 + i < grouped`, else into register 0, as `reduce_block_of`'s chunk loop; `sse`
/// picks the SSE2 loop (x86-64 outside Miri, `SSE`), `avx` the AVX loop over whole groups
/// of four chunks where the run has only those (`avx()`; the tests run all three).
#[derive(Clone, Copy, Debug)]
struct ChunkRun {
    k0: usize,
    chunks: usize,
    grouped: usize,
    nacc: usize,
    sse: bool,
    avx: bool,
}

/// Whether register reductions of floats run by SSE2 (`chunk_by_sse!`).
const SSE: bool = cfg!(all(target_arch = "x86_64", not(miri)));

/// Whether register reductions of floats may run by AVX (`avx_groups_*`): x86-64 outside
/// Miri, on a CPU with AVX (std's detection, cached after the first call).
#[inline(always)]
pub(crate) fn avx() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    return std::arch::is_x86_feature_detected!("avx");
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    false
}

/// One AVX loop of a register reduction over whole groups of four chunks
/// (`avx_groups_ps`/`_pd`): the `R` accumulator registers `$a` (ymm0…) loaded from the
/// first `32·R` bytes at rdi (`$r`), then per turn each 32 bytes at rsi + `$o` combined
/// into its register (the register as the instruction's first source, the chunk as its
/// second, as `chunk_by_sse!`), rsi advanced by `32·R` until rcx (`$left` bytes) is done,
/// the registers stored back.
#[cfg(all(target_arch = "x86_64", not(miri)))]
macro_rules! avx_loop {
    ($ins:expr, $r:ident, $x:ident, $left:ident, $step:literal, [$($a:ident @ $o:literal),+]) => {
        core::arch::asm!(
            $(concat!("vmovups ", stringify!($a), ", ymmword ptr [rdi + ", stringify!($o), "]"),)+
            ".p2align 5", // the loop at a 32-byte boundary (see `by_avx`)
            "2:",
            $(concat!($ins, " ", stringify!($a), ", ", stringify!($a), ", ymmword ptr [rsi + ",
                stringify!($o), "]"),)+
            concat!("add rsi, ", stringify!($step)),
            concat!("sub rcx, ", stringify!($step)),
            "jnz 2b",
            $(concat!("vmovups ymmword ptr [rdi + ", stringify!($o), "], ", stringify!($a)),)+
            "vzeroupper",
            in("rdi") $r,
            inout("rsi") $x => _,
            inout("rcx") $left => _,
            // Every vector register (the ymm ones written, and all upper halves for the
            // `vzeroupper`) is caller-saved in the C ABI.
            clobber_abi("C"),
            options(nostack),
        )
    };
}

/// The AVX register reductions of one float type (`$p`: `ps`, `pd`).
#[cfg(all(target_arch = "x86_64", not(miri)))]
macro_rules! avx_groups {
    ($name:ident, $p:literal) => {
        /// A register reduction over whole groups of four chunks by AVX: the block's
        /// 32-byte pieces in order, piece `i` into accumulator ymm `i % r`, where the
        /// accumulators are the first `r` 32-byte pieces of the registers at `rp`
        /// (`r = nacc · LANES · size / 32`: piece `i` of a group lies in chunk `i /
        /// (LANES · size / 32)`, whose register `chunk % nacc` holds it at the same place,
        /// so this is `chunk_by_sse!` chunk by chunk, in the same order per lane). `r` is 2,
        /// 4 or 8 (else nothing is done and `false` returned).
        ///
        /// # Safety
        /// The CPU has AVX; `rp` is valid for reads and writes of `32·r` bytes and `xp`
        /// for reads of `bytes` bytes, a positive multiple of `32·r`; nothing else
        /// accesses them during the call.
        #[target_feature(enable = "avx")]
        unsafe fn $name(c: Combine, r: usize, rp: *mut u8, xp: *const u8, bytes: usize) -> bool {
            macro_rules! by {
                        ($ins:literal) => {{
                            // SAFETY: this function's contract: the `32·r` bytes of accumulators
                            // at `rp` and `bytes` bytes at `xp`, `bytes` a positive multiple of
                            // the turn (`32·r`), so the loop ends at 0 inside `xp`'s bytes; AVX on
                            // the CPU; the two counters and (`clobber_abi`) every vector register
                            // declared clobbered; no stack.
                            unsafe {
                                match r {
                                    2 => avx_loop!(concat!("v", $ins, $p), rp, xp, bytes, 64,
                                        [ymm0 @ 0, ymm1 @ 32]),
                                    4 => avx_loop!(concat!("v", $ins, $p), rp, xp, bytes, 128,
                                        [ymm0 @ 0, ymm1 @ 32, ymm2 @ 64, ymm3 @ 96]),
                                    8 => avx_loop!(concat!("v", $ins, $p), rp, xp, bytes, 256,
                                        [ymm0 @ 0, ymm1 @ 32, ymm2 @ 64, ymm3 @ 96, ymm4 @ 128,
                                         ymm5 @ 160, ymm6 @ 192, ymm7 @ 224]),
                                    _ => return false,
                                }
                            }
                        }};
                    }
            match c {
                Combine::Sum => by!("add"),
                Combine::Prod => by!("mul"),
                Combine::MaxNoNan => by!("max"),
                Combine::MinNoNan => by!("min"),
                _ => return false,
            }
            true
        }
    };
}
#[cfg(all(target_arch = "x86_64", not(miri)))]
avx_groups!(avx_groups_ps, "ps");
#[cfg(all(target_arch = "x86_64", not(miri)))]
avx_groups!(avx_groups_pd, "pd");

/// `acc := lanes(c)(acc, x)` on one chunk by the lane function.
fn combine_chunk_by_lanes<T: Accumulate>(c: Combine, acc: &mut [T], x: &[T]) {
    let a = V(acc.try_into().expect("LANES long"));
    let b = V(x.try_into().expect("LANES long"));
    acc.copy_from_slice(&T::lanes(c)(a, b).0);
}

/// One chunk of a register reduction by SSE2 (x86-64's baseline): register `slot` of
/// `rp` (`LANES` lanes of `$t` each) := `$ins(register, chunk i of xp)`, 16 bytes at a
/// time, the register as the instruction's first operand and the chunk as its second.
/// `addps`/`addpd`, `mulps`/`mulpd` are the IEEE operations `acc + x`, `acc * x` of each
/// lane; `maxps`/`maxpd` (`minps`/`minpd`) give the first operand where it is strictly
/// greater (smaller) and the second otherwise (a NaN in either, equal values, ±0):
/// `if acc > x { acc } else { x }`, the written-out combine's expression, lane by lane.
#[cfg(all(target_arch = "x86_64", not(miri)))]
macro_rules! chunk_by_sse {
    ($ins:expr, $t:ty, $rp:ident, $slot:ident, $xp:ident, $i:ident) => {{
        const BYTES: usize = LANES * core::mem::size_of::<$t>();
        const _: () = assert!(BYTES % 16 == 0);
        // SAFETY: `rp` is `regs.as_mut_ptr()` with `regs.len() >= 4 * LANES` (asserted),
        // `slot < 4`, so bytes `slot·BYTES .. (slot + 1)·BYTES` are inside `regs`; `xp`
        // is `v.as_ptr()` (a block, `BLOCK` elements) and `i < chunks <= BLOCK / LANES`
        // (asserted), so bytes `i·BYTES .. (i + 1)·BYTES` are inside `v`. The loop reads
        // and writes exactly those `BYTES` bytes of each, 16 at a time with unaligned
        // moves (`movups`), `BYTES` a positive multiple of 16; `regs` is borrowed mutably
        // and `v` shared for the whole call, so nothing else accesses them. SSE2 is part
        // of x86-64. It writes two xmm registers and the three counters, declared, and
        // touches no stack or flags the compiler relies on.
        unsafe {
            core::arch::asm!(
                ".p2align 5", // the loop at a 32-byte boundary (see `by_avx`)
                "2:",
                "movups {a}, xmmword ptr [{r} + {ro}]",
                "movups {b}, xmmword ptr [{x} + {xo}]",
                concat!($ins, " {a}, {b}"),
                "movups xmmword ptr [{r} + {ro}], {a}",
                "add {ro}, 16",
                "add {xo}, 16",
                "sub {left}, 16",
                "jnz 2b",
                r = in(reg) $rp,
                x = in(reg) $xp,
                ro = inout(reg) $slot * BYTES => _,
                xo = inout(reg) $i * BYTES => _,
                left = inout(reg) BYTES => _,
                a = out(xmm_reg) _,
                b = out(xmm_reg) _,
                options(nostack),
            );
        }
    }};
}

/// The floats' `combine_chunk` for the kinds whose lane function is one expression per
/// lane, written out (an index loop: no call per chunk at opt-level 0; see
/// `ops::elementwise!`): `+` and `*` (the IEEE operations of `wide`'s vectors), and softmax's
/// `max_no_nan`/`min_no_nan` (`maxps`/`minps`: `a` where `a > b` (`a < b`), else `b`,
/// which is also what they give for NaN and for ±0); `max`/`min` by their lane functions.
/// Checked against the lane functions by `tests::float_chunk_combines_match_the_lanes`.
macro_rules! float_combine_chunk {
    ($t:ty, $p:literal, $avx:ident) => {
        fn combine_chunk(c: Combine, acc: &mut [Self], x: &[Self]) {
            macro_rules! each {
                (|$a:ident, $b:ident| $e:expr) => {{
                    let mut l = 0;
                    while l < LANES {
                        let ($a, $b) = (acc[l], x[l]);
                        acc[l] = $e;
                        l += 1;
                    }
                }};
            }
            match c {
                Combine::Sum => each!(|a, b| a + b),
                Combine::Prod => each!(|a, b| a * b),
                Combine::MaxNoNan => each!(|a, b| if a > b { a } else { b }),
                Combine::MinNoNan => each!(|a, b| if a < b { a } else { b }),
                _ => combine_chunk_by_lanes(c, acc, x),
            }
        }
        /// The same four kinds over a block's whole chunks: on x86-64 each chunk by SSE2
        /// packed instructions (`chunk_by_sse!`), elsewhere (and under Miri) each chunk's
        /// `GROUP`-lane parts written out (`each_of_group!`; no call and no bounds check
        /// per lane at opt-level 0, where `combine_chunk` cost a call and a checked index
        /// per lane; its compare-and-branch per lane still mispredicts on the maxima).
        /// Lanes are independent and every register still takes its chunks in row order,
        /// so the accumulators' bits are `combine_chunk`'s.
        fn whole_chunks(c: Combine, regs: &mut [Self], v: &[Self; BLOCK], run: ChunkRun) -> bool {
            // `k % 4 % nacc` for each `k % 4` (`k & 3`): one division per block, not per
            // chunk. Every slot is below 4 (`x % nacc <= x`).
            let nacc = run.nacc;
            let slots = [0, 1 % nacc, 2 % nacc, 3 % nacc];
            // The bounds the assembly relies on (its SAFETY comment): 4 registers of
            // `LANES` lanes, at most a block of chunks.
            assert!(regs.len() >= 4 * LANES && run.chunks <= BLOCK / LANES);
            // A run of whole groups of four chunks inside the row's grouped chunks (every
            // block of a row of at least `4·LANES·4` elements but the tail's): by AVX, the
            // accumulators held in ymm registers for the whole block.
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            if run.avx
                && (nacc == 2 || nacc == 4)
                && run.k0 % 4 == 0
                && run.chunks % 4 == 0
                && run.chunks > 0
                && run.k0 + run.chunks <= run.grouped
            {
                const SLOT: usize = LANES * core::mem::size_of::<$t>();
                let bytes = run.chunks * SLOT;
                // SAFETY: `run.avx` only where `avx()` found AVX (the tests pass it as
                // `avx()`); `regs` holds `4·LANES` elements (asserted), so the `32·r =
                // nacc·SLOT <= 4·SLOT` bytes of accumulators are inside it, and `v`
                // holds `BLOCK` elements with `chunks <= BLOCK / LANES` (asserted), so
                // `bytes` are inside it, a positive multiple of `4·SLOT`, which `32·r`
                // divides (`r = nacc·SLOT/32`, `nacc` 2 or 4); both borrowed for the call.
                let done = unsafe {
                    $avx(
                        c,
                        nacc * SLOT / 32,
                        regs.as_mut_ptr().cast(),
                        v.as_ptr().cast(),
                        bytes,
                    )
                };
                if done {
                    return true;
                }
            }
            macro_rules! each_chunk {
                ($ins:literal, |$a:ident, $b:ident| $e:expr) => {{
                    #[cfg(all(target_arch = "x86_64", not(miri)))]
                    if run.sse {
                        let (rp, xp) = (regs.as_mut_ptr(), v.as_ptr());
                        let mut i = 0;
                        while i < run.chunks {
                            let k = run.k0 + i;
                            let slot = if k < run.grouped { slots[k & 3] } else { 0 };
                            chunk_by_sse!(concat!($ins, $p), $t, rp, slot, xp, i);
                            i += 1;
                        }
                        return true;
                    }
                    const PER: usize = LANES / GROUP;
                    let (x, r) = (v.as_chunks::<GROUP>().0, regs.as_chunks_mut::<GROUP>().0);
                    let mut i = 0;
                    while i < run.chunks {
                        let k = run.k0 + i;
                        let slot = if k < run.grouped { slots[k & 3] } else { 0 };
                        let mut h = 0;
                        while h < PER {
                            // `$a[l] = { let ($a, $b) = ($a[l], $b[l]); $e }` per lane.
                            let $a = &mut r[slot * PER + h];
                            let $b = &x[i * PER + h];
                            each_of_group!($a, |$a, $b| $e);
                            h += 1;
                        }
                        i += 1;
                    }
                }};
            }
            match c {
                Combine::Sum => each_chunk!("add", |a, b| a + b),
                Combine::Prod => each_chunk!("mul", |a, b| a * b),
                Combine::MaxNoNan => each_chunk!("max", |a, b| if a > b { a } else { b }),
                Combine::MinNoNan => each_chunk!("min", |a, b| if a < b { a } else { b }),
                _ => return false,
            }
            true
        }
    };
}

macro_rules! accumulate {
    ($($t:ident => $v:ident: [$($c:ident => $tr:ident::$lane:ident, $str:ident::$sc:ident);*]
        { $($extra:tt)* })*) => {$(
        impl Accumulate for $t {
            fn slice<'b>(buf: &'b mut Buf<'_>) -> &'b mut [$t] {
                match buf {
                    Buf::Out(SliceMut::$v(s)) => s,
                    _ => unreachable!("the graph macro accumulates into temps of their type"),
                }
            }
            fn lanes(c: Combine) -> fn(V<$t>, V<$t>) -> V<$t> {
                match c {
                    $(Combine::$c => <$t as $tr>::$lane,)*
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("the graph macro combines each type by its own kinds"),
                }
            }
            fn scalar(c: Combine) -> fn($t, $t) -> $t {
                match c {
                    $(Combine::$c => <$t as $str>::$sc,)*
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("the graph macro combines each type by its own kinds"),
                }
            }
            fn of(x: Scalar) -> $t {
                match x {
                    Scalar::$v(x) => x,
                    _ => unreachable!("the graph macro types every identity once"),
                }
            }
            $($extra)*
        }
    )*};
}
macro_rules! accumulate_numbers {
    ($($t:ident => $v:ident),*) => {
        accumulate!($($t => $v: [Sum => NumLanes::add_lanes, Num::add;
            Prod => NumLanes::mul_lanes, Num::mul; Max => NumLanes::max_lanes, Num::max;
            Min => NumLanes::min_lanes, Num::min] {})*);
    };
}
accumulate_numbers!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16,
    i32 => I32, i64 => I64);
macro_rules! accumulate_floats {
    ($($t:ident => $v:ident: $p:literal $avx:ident),*) => {
        accumulate!($($t => $v: [Sum => NumLanes::add_lanes, Num::add;
            Prod => NumLanes::mul_lanes, Num::mul; Max => NumLanes::max_lanes, Num::max;
            Min => NumLanes::min_lanes, Num::min;
            MaxNoNan => FloatLanes::max_no_nan_lanes, FloatLanes::max_no_nan;
            MinNoNan => FloatLanes::min_no_nan_lanes, FloatLanes::min_no_nan]
            { float_combine_chunk!{$t, $p, $avx} })*);
    };
}
accumulate_floats!(f32 => F32: "ps" avx_groups_ps, f64 => F64: "pd" avx_groups_pd);
accumulate!(bool => Bool: [Any => BitwiseLanes::or_lanes, Bitwise::or;
    All => BitwiseLanes::and_lanes, Bitwise::and] {});

/// Accumulates the block of `value` (elements `j..j + n` of a row of `len`) into the
/// reduction's registers `acc` or, along the inner loop, into its accumulator buffer at
/// `at` (`on_accumulator!` picks `T`).
fn reduce_block_of<T: Accumulate>(
    reduce: &Reduce<'_>,
    buf: &mut Buf<'_>,
    at: &At,
    acc: &mut Reg,
    value: &Reg,
    j: usize,
    len: usize,
) {
    let lane = T::lanes(reduce.combine);
    let identity = T::of(reduce.identity);
    let Some(v) = T::get(value) else {
        unreachable!("the graph macro types every value of a program once")
    };
    if reduce.acc.inner != 0 {
        // Accumulators along the inner loop (stride 1): each chunk's `n` lanes loaded,
        // combined, stored, as the fused kernel's `load`/`store` of the accumulator.
        let dst = T::slice(buf);
        for (c, m) in chunks(at.n) {
            let a = load::<T>(&*dst, at.off + c, m);
            let x = V(v[c..c + LANES].try_into().expect("LANES long"));
            store::<T>(dst, at.off + c, m, lane(a, x));
        }
        return;
    }
    // Register accumulators: the fused kernel's unrolled loop takes the row's chunks in
    // groups of four (`__tg_u`, the chunk's place in its group; its default-build block
    // loop too, its blocks starting at whole groups), chunk `u` into register `u %
    // accumulators`; the chunks after the last whole group go to register 0, and so does
    // the last, partial chunk with its lanes past the row's end set to the identity.
    let regs = T::get_mut(acc);
    let grouped = len / (4 * LANES) * 4;
    let nacc = reduce.accumulators as usize;
    let whole = at.n / LANES;
    let run = ChunkRun {
        k0: j / LANES,
        chunks: whole,
        grouped,
        nacc,
        sse: SSE,
        avx: avx(),
    };
    let done = match T::whole_chunks(reduce.combine, &mut regs[..4 * LANES], v, run) {
        true => whole * LANES,
        false => 0,
    };
    for (c, m) in chunks(at.n - done).map(|(c, m)| (c + done, m)) {
        let mut x = V::<T>(v[c..c + LANES].try_into().expect("LANES long"));
        let k = (j + c) / LANES;
        let slot = if m < LANES {
            for lane in &mut x.0[m..] {
                *lane = identity;
            }
            0
        } else if k < grouped {
            k % 4 % nacc
        } else {
            0
        };
        T::combine_chunk(
            reduce.combine,
            &mut regs[slot * LANES..(slot + 1) * LANES],
            &x.0,
        );
    }
}

/// The row's start of a register reduction: its accumulators set to the identity.
fn start_row_of<T: Accumulate>(reduce: &Reduce<'_>, acc: &mut Reg) {
    fill_groups(T::get_mut(acc), T::of(reduce.identity), 4 * LANES);
}

/// The row's end of a register reduction: the registers combined pairwise (`(0 ∘ 1) ∘ (2
/// ∘ 3)`, or `0 ∘ 1` for two), their lanes folded (`reduce::fold`), the result combined
/// into the row's slot at `at`, as the fused kernel's row finish (`on_accumulator!` picks
/// `T`).
fn finish_row_of<T: Accumulate>(reduce: &Reduce<'_>, buf: &mut Buf<'_>, at: &At, acc: &Reg) {
    let (lane, scalar) = (T::lanes(reduce.combine), T::scalar(reduce.combine));
    let Some(regs) = T::get(acc) else {
        unreachable!("the accumulators are filled with the identity at the row's start")
    };
    let reg = |u: usize| {
        V::<T>(
            regs[u * LANES..(u + 1) * LANES]
                .try_into()
                .expect("LANES long"),
        )
    };
    let pair = lane(reg(0), reg(1));
    let all = if reduce.accumulators == 2 {
        pair
    } else {
        lane(pair, lane(reg(2), reg(3)))
    };
    let slot = &mut T::slice(buf)[at.off];
    *slot = scalar(*slot, crate::reduce::fold(all, scalar));
}

/// Every element of `buf` (a row-local temp) set to `value`.
fn fill_buf(buf: &mut Buf<'_>, value: Scalar) {
    macro_rules! fill {
        ($($v:ident),*) => {
            match (buf, value) {
                $((Buf::Out(SliceMut::$v(s)), Scalar::$v(x)) => s.fill(x),)*
                _ => unreachable!("the graph macro resets temps of their type"),
            }
        };
    }
    fill!(Bool, U8, U16, U32, U64, I8, I16, I32, I64, F32, F64);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row-fixed values (`uniform_values`): an op is computed once a block only where
    /// every argument is fixed for the row, a select of a fixed condition and value and a
    /// varying one (its third argument) is not; a fixed chain stored over blocks longer
    /// than a chunk (and a partial last block) holds its value in every element. Against
    /// the scalar reference: `m - 0.25` and `if m > 0.5 { m } else { x[j] }`.
    #[test]
    fn uniform_values_follow_every_argument() {
        let len = 600;
        let x: Vec<f32> = (0..len).map(|j| j as f32 * 0.5 - 7.0).collect();
        let m = [0.3f32];
        let (mut fixed, mut picked) = (vec![0f32; len], vec![0f32; len]);
        let along = |buf| Operand {
            buf,
            base: 0,
            outer: &[],
            inner: 1,
        };
        let values = [
            Val::Load(along(0)),
            Val::Load(Operand {
                buf: 1,
                base: 0,
                outer: &[],
                inner: 0,
            }),
            Val::Splat(Scalar::F32(0.5)),
            Val::Op(f32_ops::gt_lanes, [1, 2, 1]),
            Val::Op(f32_ops::select_lanes, [3, 1, 0]),
            Val::Splat(Scalar::F32(0.25)),
            Val::Op(f32_ops::sub_lanes, [1, 5, 1]),
        ];
        assert_eq!(
            uniform_values(&Nest {
                outer: &[],
                inner: len,
                ragged: None,
                values: &values,
                stores: &[],
                reduces: &[],
                arg: None,
            })[..7],
            [false, true, true, true, false, true, true]
        );
        let stores = [(along(2), 6), (along(3), 4)];
        let nest = Nest {
            outer: &[],
            inner: len,
            ragged: None,
            values: &values,
            stores: &stores,
            reduces: &[],
            arg: None,
        };
        let mut bufs = [
            Buf::In(Slice::F32(&x)),
            Buf::In(Slice::F32(&m)),
            Buf::Out(SliceMut::F32(&mut fixed)),
            Buf::Out(SliceMut::F32(&mut picked)),
        ];
        run_nest(&nest, &mut bufs);
        for j in 0..len {
            assert_eq!(fixed[j].to_bits(), (m[0] - 0.25).to_bits(), "fixed {j}");
            let want = if m[0] > 0.5 { m[0] } else { x[j] };
            assert_eq!(picked[j].to_bits(), want.to_bits(), "picked {j}");
        }
    }

    /// Loads read in place (read-only [`View`]s), ops writing their store's block in place
    /// (writable views), row-fixed values computed once a row, in a stage whose nests
    /// share their registers, over rows of every partial-chunk length up to 33 and lengths
    /// around one, two and three blocks, three rows each, against the scalar reference:
    /// `e = x - m` (x with NaN of both signs, ±inf, ±0, subnormals, extremes), `f = w -
    /// m` and its row maximum `mx` (a unique largest `w`, so any order gives it), then `e
    /// / mx` into `e` (a load of the buffer the nest stores into: read in place, stored by
    /// copy), and a nest storing `y + y` into `y` before storing `y` into `z` (the load
    /// of `y` is read after the nest writes `y`: copied, not viewed).
    #[test]
    fn views_and_in_place_stores_match_the_reference() {
        let edges = [
            f32::NAN,
            f32::from_bits(0xffc0_0001),
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1e-45,
            -1e-45,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            1.5,
            -2.5,
        ];
        let rows = 3;
        let lens = (0..=33).chain([255, 256, 257, 300, 511, 512, 513, 777]);
        for len in lens {
            let total = rows * len;
            let x: Vec<f32> = (0..total)
                .map(|i| match i % 3 {
                    0 => edges[(i / 3) % edges.len()],
                    _ => i as f32 * 0.25 - 30.0,
                })
                .collect();
            // Row r's largest `w` is 1e6 + r at column (5·r) % len, the others below 100.
            let w: Vec<f32> = (0..total)
                .map(|i| match (i / len.max(1), i % len.max(1)) {
                    (r, c) if c == (5 * r) % len.max(1) => 1e6 + r as f32,
                    _ => (i % 97) as f32 - 40.0,
                })
                .collect();
            let m: Vec<f32> = (0..rows).map(|r| 0.5 + r as f32).collect();
            let y0: Vec<f32> = (0..total).map(|i| x[(i * 7) % total.max(1)]).collect();
            let (mut e, mut f) = (vec![0f32; total], vec![0f32; total]);
            let mut mx = vec![f32::NEG_INFINITY; rows];
            let (mut y, mut z) = (y0.clone(), vec![0f32; total]);
            let row_stride = [len];
            let along = |buf| Operand {
                buf,
                base: 0,
                outer: &row_stride,
                inner: 1,
            };
            let per_row = |buf| Operand {
                buf,
                base: 0,
                outer: &[1],
                inner: 0,
            };
            // Buffers: 0 x, 1 w, 2 m, 3 e, 4 f, 5 mx, 6 y, 7 z.
            let values_a = [
                Val::Load(along(0)),
                Val::Load(per_row(2)),
                Val::Op(f32_ops::sub_lanes, [0, 1, 0]),
                Val::Load(along(1)),
                Val::Op(f32_ops::sub_lanes, [3, 1, 3]),
            ];
            let stores_a = [(along(3), 2), (along(4), 4)];
            let reduces_a = [Reduce {
                combine: Combine::MaxNoNan,
                acc: per_row(5),
                value: 4,
                identity: Scalar::F32(f32::NEG_INFINITY),
                accumulators: 4,
            }];
            let values_b = [
                Val::Load(along(3)),
                Val::Load(per_row(5)),
                Val::Op(f32_ops::div_lanes, [0, 1, 0]),
            ];
            let stores_b = [(along(3), 2)];
            let outer = [rows];
            let nests = [
                Nest {
                    outer: &outer,
                    inner: len,
                    ragged: None,
                    values: &values_a,
                    stores: &stores_a,
                    reduces: &reduces_a,
                    arg: None,
                },
                Nest {
                    outer: &outer,
                    inner: len,
                    ragged: None,
                    values: &values_b,
                    stores: &stores_b,
                    reduces: &[],
                    arg: None,
                },
            ];
            let values_c = [Val::Load(along(6)), Val::Op(f32_ops::add_lanes, [0, 0, 0])];
            let stores_c = [(along(6), 1), (along(7), 0)];
            let nest_c = Nest {
                outer: &outer,
                inner: len,
                ragged: None,
                values: &values_c,
                stores: &stores_c,
                reduces: &[],
                arg: None,
            };
            // What the flags say of these nests.
            let uniform_a = uniform_values(&nests[0]);
            assert_eq!(
                viewable_values(&nests[0])[..5],
                [true, false, false, true, false]
            );
            assert_eq!(
                in_place_values(&nests[0], &uniform_a)[..5],
                [NOT_IN_PLACE, NOT_IN_PLACE, 0, NOT_IN_PLACE, 1]
            );
            assert_eq!(viewable_values(&nests[1])[..3], [true, false, false]);
            assert_eq!(
                in_place_values(&nests[1], &uniform_values(&nests[1]))[2],
                NOT_IN_PLACE
            );
            assert_eq!(viewable_values(&nest_c)[..2], [false, false]);
            let mut bufs = [
                Buf::In(Slice::F32(&x)),
                Buf::In(Slice::F32(&w)),
                Buf::In(Slice::F32(&m)),
                Buf::Out(SliceMut::F32(&mut e)),
                Buf::Out(SliceMut::F32(&mut f)),
                Buf::Out(SliceMut::F32(&mut mx)),
                Buf::Out(SliceMut::F32(&mut y)),
                Buf::Out(SliceMut::F32(&mut z)),
            ];
            run_stage(
                &Stage {
                    rows,
                    nests: &nests,
                    resets: &[],
                },
                &mut bufs,
            );
            run_nest(&nest_c, &mut bufs);
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            for r in 0..rows {
                let row_max = if len == 0 {
                    f32::NEG_INFINITY
                } else {
                    (1e6 + r as f32) - m[r]
                };
                assert_eq!(mx[r].to_bits(), row_max.to_bits(), "len {len} row {r} mx");
                for c in 0..len {
                    let i = r * len + c;
                    let want_f = w[i] - m[r];
                    assert_eq!(f[i].to_bits(), want_f.to_bits(), "len {len} f[{i}]");
                    let want_e = (x[i] - m[r]) / mx[r];
                    assert!(same(e[i], want_e), "len {len} e[{i}]: {} {}", e[i], want_e);
                    assert!(same(y[i], y0[i] + y0[i]), "len {len} y[{i}]");
                    assert!(same(z[i], y0[i]), "len {len} z[{i}]: {} {}", z[i], y0[i]);
                }
            }
        }
    }

    /// Softmax's program as the graph macro emits it (W3: one stage of three nests per
    /// row: the row's max and min of `x`; `e = exp_nonpos(x - max)` stored into the output
    /// and summed; the output divided by the sum with the flag `min - max >= -50` and
    /// stored back), run three ways: as emitted (the division by the release block kernel
    /// in place in the output, `division_in_place_values`), with the quotients stored into
    /// another buffer (the block kernel on a copy, `div_softmax_row_fixed`), and with the
    /// division through a function the runner does not recognise (its AVX `vdivps` loop),
    /// each against the scalar reference `e / sum` of the first two nests' `e` and sum,
    /// bit for bit. Rows of every length up to 33 and around one to four blocks; rows of
    /// ordinary values (the flag true), of a wide spread (`e` below 2^-76 and subnormal:
    /// the flag false), and with NaN of both signs, ±inf, ±0, subnormals and extremes.
    /// Also the flags and the next-row prefetch's operands of these nests.
    #[test]
    #[allow(clippy::needless_range_loop)] // rows and columns index three buffers each
    fn softmax_divisions_match_the_reference() {
        fn opaque_division(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            f32_ops::div_softmax_plain_lanes(regs, out, args, n)
        }
        let edges = [
            f32::NAN,
            f32::from_bits(0xffc0_0001),
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1e-45,
            -1e-45,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
        ];
        // Under Miri a partial row, a whole block and a block and a few. Miri may give a
        // function a new address at each use, so there the runner recognises the division
        // (`fn_addr_eq`) in some runs only (the seed decides; where it does not, the old
        // path runs, and the flags' check below allows that).
        let lens: Vec<usize> = match cfg!(miri) {
            true => vec![0, 3, 256, 259],
            false => (0..=33)
                .chain([
                    63, 64, 65, 255, 256, 257, 300, 511, 512, 513, 768, 1024, 1025,
                ])
                .collect(),
        };
        for len in lens {
            // Row kinds: 0 ordinary (spread under 50), 1 wide (down to -104 below the
            // max: `e` down to ~1e-45 and 0), 2 an edge value every seventh element, 3
            // ordinary again (the prefetched row after a wide one).
            let rows = 4;
            let total = rows * len;
            let x: Vec<f32> = (0..total)
                .map(|i| {
                    let (r, c) = (i / len.max(1), i % len.max(1));
                    match r {
                        0 | 3 => ((c * 37) % 101) as f32 * 0.43 - 20.0 + r as f32,
                        1 => 3.0 - ((c * 53) % 211) as f32 * 0.5,
                        _ if c % 7 == 3 => edges[(c / 7) % edges.len()],
                        _ => (c % 13) as f32 * 0.7 - 4.0,
                    }
                })
                .collect();
            let outer = [rows];
            let row_stride = [len];
            let along = |buf| Operand {
                buf,
                base: 0,
                outer: &row_stride,
                inner: 1,
            };
            let per_row = |buf| Operand {
                buf,
                base: 0,
                outer: &[0],
                inner: 0,
            };
            // Buffers: 0 x, 1 max, 2 min, 3 out, 4 sum, 5 quotients elsewhere.
            let values_1 = [Val::Load(along(0))];
            let reduces_1 = [
                Reduce {
                    combine: Combine::MaxNoNan,
                    acc: per_row(1),
                    value: 0,
                    identity: Scalar::F32(f32::MIN),
                    accumulators: 4,
                },
                Reduce {
                    combine: Combine::MinNoNan,
                    acc: per_row(2),
                    value: 0,
                    identity: Scalar::F32(f32::MAX),
                    accumulators: 2,
                },
            ];
            let values_2 = [
                Val::Load(along(0)),
                Val::Load(per_row(1)),
                Val::Op(f32_ops::sub_lanes, [0, 1, 0]),
                Val::Op(f32_ops::exp_nonpos_lanes, [2, 2, 2]),
            ];
            let stores_2 = [(along(3), 3)];
            let reduces_2 = [Reduce {
                combine: Combine::Sum,
                acc: per_row(4),
                value: 3,
                identity: Scalar::F32(0.0),
                accumulators: 4,
            }];
            let values_3 = |division: OpFn| {
                [
                    Val::Load(along(3)),
                    Val::Load(per_row(4)),
                    Val::Load(per_row(2)),
                    Val::Load(per_row(1)),
                    Val::Op(f32_ops::sub_lanes, [2, 3, 2]),
                    Val::Splat(Scalar::F32(-50.0)),
                    Val::Op(f32_ops::ge_lanes, [4, 5, 4]),
                    Val::Op(division, [0, 1, 6]),
                ]
            };
            let resets = [
                (1, Scalar::F32(f32::MIN)),
                (2, Scalar::F32(f32::MAX)),
                (4, Scalar::F32(0.0)),
            ];
            // (division, the quotients' buffer): in place, on a copy, by `vdivps`.
            let ways: [(OpFn, u16); 3] = [
                (f32_ops::div_softmax_plain_lanes, 3),
                (f32_ops::div_softmax_plain_lanes, 5),
                (opaque_division, 3),
            ];
            let mut results = Vec::new();
            let (mut e_ref, mut sum_ref) = (vec![0f32; total], vec![0f32; rows]);
            for (w, &(division, to)) in ways.iter().enumerate() {
                let values_3 = values_3(division);
                let stores_3 = [(along(to), 7)];
                let nests = [
                    Nest {
                        outer: &outer,
                        inner: len,
                        ragged: None,
                        values: &values_1,
                        stores: &[],
                        reduces: &reduces_1,
                        arg: None,
                    },
                    Nest {
                        outer: &outer,
                        inner: len,
                        ragged: None,
                        values: &values_2,
                        stores: &stores_2,
                        reduces: &reduces_2,
                        arg: None,
                    },
                    Nest {
                        outer: &outer,
                        inner: len,
                        ragged: None,
                        values: &values_3,
                        stores: &stores_3,
                        reduces: &[],
                        arg: None,
                    },
                ];
                let stage = Stage {
                    rows,
                    nests: &nests,
                    resets: &resets,
                };
                // The flags: in place only where the quotients go back into `out`.
                let in_place = division_in_place_values(&nests[2]);
                let want = if w == 0 { 0 } else { NOT_IN_PLACE };
                // (Under Miri the address test may fail: then the old path.)
                let missed = cfg!(miri) && in_place[7] == NOT_IN_PLACE;
                assert!(in_place[7] == want || missed, "way {w}: {}", in_place[7]);
                assert!(in_place[..7].iter().all(|&s| s == NOT_IN_PLACE));
                assert!(division_in_place_values(&nests[1])
                    .iter()
                    .all(|&s| s == NOT_IN_PLACE));
                let (ops, count) = next_row_operands(&stage);
                assert_eq!(
                    ops[..count],
                    [
                        NextRow {
                            buf: 0,
                            base: 0,
                            row_stride: len
                        },
                        NextRow {
                            buf: 3,
                            base: 0,
                            row_stride: len
                        }
                    ][..if len == 0 { 0 } else { 2 }],
                    "len {len}"
                );
                let (mut max, mut min, mut sum) = ([0f32; 1], [0f32; 1], [0f32; 1]);
                let (mut out, mut other) = (vec![0f32; total], vec![0f32; total]);
                // The reference's `e` and sum: the first two nests alone, row by row.
                if w == 0 {
                    for r in 0..rows {
                        let mut bufs = [
                            Buf::In(Slice::F32(&x)),
                            Buf::Out(SliceMut::F32(&mut max)),
                            Buf::Out(SliceMut::F32(&mut min)),
                            Buf::Out(SliceMut::F32(&mut e_ref)),
                            Buf::Out(SliceMut::F32(&mut sum)),
                            Buf::Out(SliceMut::F32(&mut other)),
                        ];
                        run_stage_rows(
                            &Stage {
                                rows,
                                nests: &nests[..2],
                                resets: &resets,
                            },
                            r,
                            r + 1,
                            &mut bufs,
                        );
                        sum_ref[r] = sum[0];
                    }
                }
                let mut bufs = [
                    Buf::In(Slice::F32(&x)),
                    Buf::Out(SliceMut::F32(&mut max)),
                    Buf::Out(SliceMut::F32(&mut min)),
                    Buf::Out(SliceMut::F32(&mut out)),
                    Buf::Out(SliceMut::F32(&mut sum)),
                    Buf::Out(SliceMut::F32(&mut other)),
                ];
                run_stage(&stage, &mut bufs);
                let q = if to == 3 { out } else { other };
                for r in 0..rows {
                    for c in 0..len {
                        let i = r * len + c;
                        let want = e_ref[i] / sum_ref[r];
                        // Miri picks a NaN's sign and payload at random: NaN-ness there.
                        if cfg!(miri) && want.is_nan() && q[i].is_nan() {
                            continue;
                        }
                        assert_eq!(
                            q[i].to_bits(),
                            want.to_bits(),
                            "way {w} len {len} row {r} col {c}: {} / {} = {} (want {want})",
                            e_ref[i],
                            sum_ref[r],
                            q[i]
                        );
                    }
                }
                results.push(q);
            }
            // Row 1's smallest `e` are subnormal or 0 (its flag false, the block kernel's
            // tested path); row 0's are not.
            if len > 300 {
                assert!(e_ref[len..2 * len].iter().any(|&e| e > 0.0 && e < 2e-38));
                assert!(e_ref[len..2 * len].contains(&0.0));
            }
            assert_eq!(results.len(), 3);
        }
    }

    /// `whole_chunks` (its SSE2 loop and its element loop) gives the bits of the lane
    /// functions run chunk by chunk into the registers `reduce_block_of` names (chunk `k`
    /// into `k % 4 % nacc` inside the row's groups, else 0), on blocks mixing edge values
    /// (NaN of both signs, ±inf, ±0, subnormals, extremes) with ordinary ones, for every
    /// float kind it takes, both register counts, and block starts and group ends on both
    /// sides of each other. Two NaN lanes meeting in a sum or product: NaN-ness only (the
    /// payload is the compiler's choice, `ops::tests`).
    #[test]
    fn whole_chunks_match_the_lane_functions() {
        macro_rules! check {
            ($t:ident, $edges:expr) => {
                let edges: [$t; 12] = $edges;
                let v: [$t; BLOCK] = core::array::from_fn(|e| match e % 5 {
                    0 | 3 => edges[(e * 7) % 12],
                    _ => (e as $t) * 0.37 - 40.0,
                });
                let start: [$t; 4 * LANES] = core::array::from_fn(|l| edges[(l * 5 + 1) % 12]);
                let mut runs = 0;
                for c in [
                    Combine::Sum,
                    Combine::Prod,
                    Combine::MaxNoNan,
                    Combine::MinNoNan,
                ] {
                    for nacc in [2, 4] {
                        // Whole groups inside the grouped chunks (the AVX loop's runs:
                        // the first three), then runs it leaves to the SSE2 loop.
                        for (k0, chunks, grouped) in [
                            (0, BLOCK / LANES, 64),
                            (8, 8, 16),
                            (4, 12, 20),
                            (0, 16, 12),
                            (16, 7, 20),
                            (3, 9, 8),
                            (5, 11, 0),
                        ] {
                            let mut want = start.to_vec();
                            for i in 0..chunks {
                                let k = k0 + i;
                                let slot = if k < grouped { k % 4 % nacc } else { 0 };
                                combine_chunk_by_lanes::<$t>(
                                    c,
                                    &mut want[slot * LANES..(slot + 1) * LANES],
                                    &v[i * LANES..(i + 1) * LANES],
                                );
                            }
                            for (sse, avx) in [(false, false), (SSE, false), (SSE, avx())] {
                                let mut got = start.to_vec();
                                let run = ChunkRun {
                                    k0,
                                    chunks,
                                    grouped,
                                    nacc,
                                    sse,
                                    avx,
                                };
                                assert!(<$t as Accumulate>::whole_chunks(c, &mut got, &v, run));
                                for l in 0..4 * LANES {
                                    let nans = c == Combine::Sum || c == Combine::Prod;
                                    if nans && got[l].is_nan() && want[l].is_nan() {
                                        continue;
                                    }
                                    assert_eq!(
                                        got[l].to_bits(),
                                        want[l].to_bits(),
                                        "{c:?} nacc {nacc} run {run:?} lane {l}: {} {}",
                                        got[l],
                                        want[l]
                                    );
                                }
                                runs += 1;
                            }
                        }
                    }
                }
                assert_eq!(runs, 4 * 2 * 7 * 3);
                // The kinds without an element loop are left to the caller.
                let run = ChunkRun {
                    k0: 0,
                    chunks: 1,
                    grouped: 0,
                    nacc: 4,
                    sse: SSE,
                    avx: avx(),
                };
                assert!(!<$t as Accumulate>::whole_chunks(
                    Combine::Max,
                    &mut start.to_vec(),
                    &v,
                    run
                ));
            };
        }
        check!(
            f32,
            [
                f32::NAN,
                f32::from_bits(0xffc0_0001),
                f32::INFINITY,
                f32::NEG_INFINITY,
                0.0,
                -0.0,
                1.5,
                -2.5,
                1e-45,
                f32::MAX,
                f32::MIN,
                3.25
            ]
        );
        check!(
            f64,
            [
                f64::NAN,
                f64::from_bits(0xfff8_0000_0000_0001),
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                1.5,
                -2.5,
                5e-324,
                f64::MAX,
                f64::MIN,
                3.25
            ]
        );
    }

    /// The written-out chunk combines of the floats give the lane functions' bits on every
    /// pair of edge values (two NaNs: NaN, either payload; see `ops::tests`).
    #[test]
    fn float_chunk_combines_match_the_lanes() {
        macro_rules! check {
            ($t:ident, $edges:expr) => {
                let edges: [$t; 8] = $edges;
                for c in [
                    Combine::Sum,
                    Combine::Prod,
                    Combine::Max,
                    Combine::Min,
                    Combine::MaxNoNan,
                    Combine::MinNoNan,
                ] {
                    for i in 0..8 {
                        let acc: Vec<$t> = (0..LANES).map(|l| edges[(l + i) % 8]).collect();
                        let x: Vec<$t> = (0..LANES).map(|l| edges[(l * 3 + i / 2) % 8]).collect();
                        let mut got = acc.clone();
                        <$t as Accumulate>::combine_chunk(c, &mut got, &x);
                        let mut want = acc.clone();
                        combine_chunk_by_lanes::<$t>(c, &mut want, &x);
                        for l in 0..LANES {
                            if acc[l].is_nan() && x[l].is_nan() && got[l].is_nan() {
                                continue;
                            }
                            assert_eq!(
                                got[l].to_bits(),
                                want[l].to_bits(),
                                "{c:?} {} {}",
                                acc[l],
                                x[l]
                            );
                        }
                    }
                }
            };
        }
        check!(
            f32,
            [
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                0.0,
                -0.0,
                1.5,
                -2.5,
                1e-45
            ]
        );
        check!(
            f64,
            [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                1.5,
                -2.5,
                5e-324
            ]
        );
    }
}
