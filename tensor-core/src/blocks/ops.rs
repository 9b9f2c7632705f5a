//! The block ops: one non-generic function per (lane function, compute type), named as the
//! graph macro names them: `blocks::<type>_ops::<lane method>` for the registry's rows (the
//! method of ops.rs's `lane_fn`, on the compute type of the op's first argument), and
//! `blocks::casts::from_<storage>::to_<storage>` for casts. Each applies the lane function
//! the fused kernel calls, chunk by chunk (see the module doc of `blocks`). They are
//! compiled here, once; the graph macro's programs only name them.

use super::{arg, chunks, Reg, RegType, BLOCK};
use crate::lanes::{
    cast, BitwiseLanes, CompareLanes, FloatLanes, NumLanes, SelectLanes, ShiftLanes, LANES, V,
};

/// Chunk `j` of an argument register.
#[inline(always)]
fn chunk<T: RegType>(a: &[T; BLOCK], j: usize) -> V<T> {
    V(a[j..j + LANES].try_into().expect("LANES long"))
}

/// `regs[out]`, and the registers before it (a value's arguments come before it).
#[inline(always)]
fn split(regs: &mut [Reg], out: usize) -> (&[Reg], &mut Reg) {
    let (args, rest) = regs.split_at_mut(out);
    (args, &mut rest[0])
}

/// `out = f(a)` chunk by chunk.
#[inline(always)]
pub(super) fn unary<A: RegType, R: RegType>(
    regs: &mut [Reg],
    out: usize,
    args: [u16; 3],
    n: usize,
    f: impl Fn(V<A>) -> V<R>,
) {
    let (before, dst) = split(regs, out);
    let a = arg::<A>(before, args[0]);
    let dst = R::get_mut(dst);
    for (j, _) in chunks(n) {
        dst[j..j + LANES].copy_from_slice(&f(chunk(a, j)).0);
    }
}

/// `out = f(a, b)` chunk by chunk.
#[inline(always)]
pub(super) fn binary<A: RegType, R: RegType>(
    regs: &mut [Reg],
    out: usize,
    args: [u16; 3],
    n: usize,
    f: impl Fn(V<A>, V<A>) -> V<R>,
) {
    let (before, dst) = split(regs, out);
    let (a, b) = (arg::<A>(before, args[0]), arg::<A>(before, args[1]));
    let dst = R::get_mut(dst);
    for (j, _) in chunks(n) {
        dst[j..j + LANES].copy_from_slice(&f(chunk(a, j), chunk(b, j)).0);
    }
}

/// `out = f(a)` by an f32 block kernel over the whole register (lanes past the block's
/// `n` are computed from whatever the register held and never stored).
fn block_kernel(regs: &mut [Reg], out: usize, args: [u16; 3], f: fn(&mut [f32; BLOCK])) {
    const { assert!(BLOCK == crate::vmath::BLOCK) };
    let (before, dst) = split(regs, out);
    let a = arg::<f32>(before, args[0]);
    let dst = f32::get_mut(dst);
    dst.copy_from_slice(a);
    f(dst);
}

/// `out = select(c, a, b)` chunk by chunk.
#[inline(always)]
fn select<T: RegType + SelectLanes>(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
    let (before, dst) = split(regs, out);
    let c = arg::<bool>(before, args[0]);
    let (a, b) = (arg::<T>(before, args[1]), arg::<T>(before, args[2]));
    let dst = T::get_mut(dst);
    for (j, _) in chunks(n) {
        let v = T::select_lanes(chunk(c, j), chunk(a, j), chunk(b, j));
        dst[j..j + LANES].copy_from_slice(&v.0);
    }
}

/// The functions of one trait on one type: `unary`/`binary` rows, `-> bool` for the
/// comparisons and predicates.
macro_rules! lane_fns {
    ($t:ty, $tr:ident, unary: $($m:ident),*) => {$(
        #[doc = concat!("`", stringify!($tr), "::", stringify!($m), "` over a block.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::unary::<$t, $t>(regs, out, args, n, <$t as $tr>::$m)
        }
    )*};
    ($t:ty, $tr:ident, binary: $($m:ident),*) => {$(
        #[doc = concat!("`", stringify!($tr), "::", stringify!($m), "` over a block.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::binary::<$t, $t>(regs, out, args, n, <$t as $tr>::$m)
        }
    )*};
    ($t:ty, $tr:ident, predicate: $($m:ident),*) => {$(
        #[doc = concat!("`", stringify!($tr), "::", stringify!($m), "` over a block.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::unary::<$t, bool>(regs, out, args, n, <$t as $tr>::$m)
        }
    )*};
    ($t:ty, $tr:ident, compare: $($m:ident),*) => {$(
        #[doc = concat!("`", stringify!($tr), "::", stringify!($m), "` over a block.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::binary::<$t, bool>(regs, out, args, n, <$t as $tr>::$m)
        }
    )*};
}

/// What every compute type has: comparisons and select.
macro_rules! common_fns {
    ($t:ty) => {
        lane_fns!($t, CompareLanes, compare: eq_lanes, ne_lanes, lt_lanes, le_lanes, gt_lanes,
            ge_lanes);
        /// `select_lanes` over a block.
        pub fn select_lanes(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::select::<$t>(regs, out, args, n)
        }
    };
}

/// What every number type has: `NumLanes`.
macro_rules! num_fns {
    ($t:ty) => {
        common_fns!($t);
        lane_fns!($t, NumLanes, binary: add_lanes, sub_lanes, mul_lanes, div_lanes, rem_lanes,
            modulo_lanes, max_lanes, min_lanes, pow_lanes);
        lane_fns!($t, NumLanes, unary: neg_lanes, abs_lanes, relu_lanes, floor_lanes,
            round_lanes, roundeven_lanes, trunc_lanes, ceil_lanes, sign_lanes, square_lanes);
    };
}

/// The integers: numbers with bitwise ops and shifts.
macro_rules! integer_ops {
    ($($module:ident: $t:ty),*) => {$(
        #[doc = concat!("The block ops of `", stringify!($t), "` values.")]
        pub mod $module {
            use super::*;
            num_fns!($t);
            lane_fns!($t, BitwiseLanes, binary: and_lanes, or_lanes, xor_lanes);
            lane_fns!($t, BitwiseLanes, unary: not_lanes);
            lane_fns!($t, ShiftLanes, binary: shl_lanes, shr_lanes);
        }
    )*};
}
integer_ops!(u8_ops: u8, u16_ops: u16, u32_ops: u32, u64_ops: u64, i8_ops: i8, i16_ops: i16,
    i32_ops: i32, i64_ops: i64);

/// The float functions of the function table (functions.rs), as block ops.
macro_rules! float_table_fns {
    (($t:ident) $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(float_table_fns!(@row $t $lane_trait $lane $kind $args);)*
    };
    // The dispatched f32 kernels: the f32 block kernel on the whole register, one CPU
    // dispatch per block (the fused kernels of default x86-64 builds call the same block
    // kernels, emit/blocks.rs; every path of it gives the per-vector lane function's bits,
    // vmath/dispatch.rs).
    (@row f32 FloatLanes $lane:ident unary
     ($r:ident, $family:ident::{$k32:ident, $k64:ident}, kernel $k16:ident)) => {
        #[doc = concat!("`FloatLanes::", stringify!($lane), "` over a block: `vmath::block::",
            stringify!($k32), "`.")]
        pub fn $lane(regs: &mut [Reg], out: usize, args: [u16; 3], _n: usize) {
            super::block_kernel(regs, out, args, crate::vmath::block::$k32)
        }
    };
    (@row $t:ident FloatLanes $lane:ident unary $args:tt) => {
        lane_fns!($t, FloatLanes, unary: $lane);
    };
    (@row $t:ident $tr:ident $lane:ident $kind:ident $args:tt) => {};
}

/// The floats: numbers with the function table's functions and the predicates.
macro_rules! float_ops {
    ($($module:ident: $t:ident),*) => {$(
        #[doc = concat!("The block ops of `", stringify!($t), "` values.")]
        pub mod $module {
            use super::*;
            num_fns!($t);
            crate::functions::for_each_float_function!(float_table_fns, $t);
            lane_fns!($t, FloatLanes, predicate: is_nan_lanes, is_inf_lanes);
        }
    )*};
}
float_ops!(f32_ops: f32, f64_ops: f64);

/// The block ops of `bool` values.
pub mod bool_ops {
    use super::*;
    common_fns!(bool);
    lane_fns!(bool, BitwiseLanes, binary: and_lanes, or_lanes, xor_lanes);
    lane_fns!(bool, BitwiseLanes, unary: not_lanes);
}

/// Casts between the 13 storage types, `casts::from_S::to_D`: `lanes::cast::<S, D>` (the
/// source rounded into its own dtype first, then `CastTo`).
pub mod casts {
    use super::*;
    use crate::dtype::{bf16, f16, Element};

    macro_rules! casts_to {
        ($s:ty; $($fn:ident: $d:ty),*) => {$(
            #[doc = concat!("`", stringify!($s), " as ", stringify!($d), "` over a block.")]
            pub fn $fn(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
                crate::blocks::ops::unary::<<$s as Element>::Compute, <$d as Element>::Compute>(
                    regs, out, args, n, cast::<$s, $d>,
                )
            }
        )*};
    }
    macro_rules! casts_from {
        ($($module:ident: $s:ty),*) => {$(
            #[doc = concat!("Casts from `", stringify!($s), "`.")]
            pub mod $module {
                use super::*;
                casts_to!($s; to_bool: bool, to_u8: u8, to_u16: u16, to_u32: u32, to_u64: u64,
                    to_i8: i8, to_i16: i16, to_i32: i32, to_i64: i64, to_f16: f16,
                    to_bf16: bf16, to_f32: f32, to_f64: f64);
            }
        )*};
    }
    casts_from!(from_bool: bool, from_u8: u8, from_u16: u16, from_u32: u32, from_u64: u64,
        from_i8: i8, from_i16: i16, from_i32: i32, from_i64: i64, from_f16: f16,
        from_bf16: bf16, from_f32: f32, from_f64: f64);
}
