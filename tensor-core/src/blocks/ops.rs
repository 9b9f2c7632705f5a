//! The block ops: one non-generic function per (lane function, compute type), named as the
//! graph macro names them: `blocks::<type>_ops::<lane method>` for the registry's rows (the
//! method of ops.rs's `lane_fn`, on the compute type of the op's first argument), and
//! `blocks::casts::from_<storage>::to_<storage>` for casts. Each applies the lane function
//! the fused kernel calls, chunk by chunk (see the module doc of `blocks`). They are
//! compiled here, once; the graph macro's programs only name them.

use super::{arg, chunks, Reg, RegType, BLOCK, GROUP};
use crate::lanes::{ActivationLanes, BitCountLanes, FloatLanes, NumLanes, LANES, V};
use crate::reference::{Bitwise, Compare, Num, Shift};

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

/// `out = f(a, b, c)` chunk by chunk (the activations with two named parameters, which
/// the graph's lowering passes as constant arguments, splatted in both backends).
#[inline(always)]
pub(super) fn ternary<A: RegType, R: RegType>(
    regs: &mut [Reg],
    out: usize,
    args: [u16; 3],
    n: usize,
    f: impl Fn(V<A>, V<A>, V<A>) -> V<R>,
) {
    let (before, dst) = split(regs, out);
    let (a, b, c) = (
        arg::<A>(before, args[0]),
        arg::<A>(before, args[1]),
        arg::<A>(before, args[2]),
    );
    let dst = R::get_mut(dst);
    for (j, _) in chunks(n) {
        dst[j..j + LANES].copy_from_slice(&f(chunk(a, j), chunk(b, j), chunk(c, j)).0);
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

/// Softmax's division `e / sum` (`f32_ops::div_softmax_plain_lanes`, arguments `e`, `sum`,
/// `in_range`) over a whole block whose divisor and flag are fixed for the row (the runner
/// checks: `softmax_division`): `vmath::block::div_softmax_f32`, the block kernel the
/// fused kernel of a default build calls on the same block with the same row sum and flag
/// (emit/blocks.rs `BLOCK_FUNCTIONS`), so the block's bits are the release kernel's (on
/// AVX-512 CPUs Markstein's correction, no `vdivps`: under softmax's contract the
/// division's bits, lanes.rs `div_softmax_m512`). The dividends copied into the result's
/// register first (the kernel works in place). Whether the registers held those types (an
/// op the runner mistook: nothing done, the caller runs the op).
pub(super) fn div_softmax_row_fixed(regs: &mut [Reg], out: usize, args: [u16; 3]) -> bool {
    const { assert!(BLOCK == crate::vmath::BLOCK) };
    let (before, dst) = split(regs, out);
    let (Some(e), Some(sum), Some(in_range)) = (
        f32::get(&before[args[0] as usize]),
        f32::get(&before[args[1] as usize]),
        bool::get(&before[args[2] as usize]),
    ) else {
        return false;
    };
    let (sum, in_range) = (sum[0], in_range[0]);
    let dst = f32::get_mut(dst);
    dst.copy_from_slice(e);
    crate::vmath::block::div_softmax_f32(dst, sum, in_range);
    true
}

/// Whether softmax's division of `args` finds its divisor's register of `f32` and its
/// flag's of `bool` (what `div_softmax_in_place` reads).
pub(super) fn division_args_typed(regs: &[Reg], args: [u16; 3]) -> bool {
    f32::get(&regs[args[1] as usize]).is_some() && bool::get(&regs[args[2] as usize]).is_some()
}

/// `div_softmax_row_fixed` where the result's register already holds the dividends: the
/// runner's writable view of the output block the dividends were loaded from (the runner
/// checks the rest: `division_in_place_values`, `division_args_typed`). The dividends'
/// own register (a view of the same block, or a copy of it) is not read: the block is
/// divided through the result's register only.
pub(super) fn div_softmax_in_place(regs: &mut [Reg], out: usize, args: [u16; 3]) {
    const { assert!(BLOCK == crate::vmath::BLOCK) };
    let (before, dst) = split(regs, out);
    let (Some(sum), Some(in_range)) = (
        f32::get(&before[args[1] as usize]),
        bool::get(&before[args[2] as usize]),
    ) else {
        unreachable!("the runner checked the registers' types (`division_args_typed`)")
    };
    let (sum, in_range) = (sum[0], in_range[0]);
    crate::vmath::block::div_softmax_f32(f32::get_mut(dst), sum, in_range);
}

/// The functions of one trait on one type that run the lane function chunk by chunk:
/// `unary`/`binary` rows, `-> bool` for the predicates.
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
    ($t:ty, $tr:ident, predicate: $($m:ident),*) => {
        lane_fns!($t, $tr, unary -> bool: $($m),*);
    };
    ($t:ty, $tr:ident, unary -> $r:ty: $($m:ident),*) => {$(
        #[doc = concat!("`", stringify!($tr), "::", stringify!($m), "` over a block.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::unary::<$t, $r>(regs, out, args, n, <$t as $tr>::$m)
        }
    )*};
    ($t:ty, $tr:ident, ternary: $($m:ident),*) => {$(
        #[doc = concat!("`", stringify!($tr), "::", stringify!($m), "` over a block.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::ternary::<$t, $t>(regs, out, args, n, <$t as $tr>::$m)
        }
    )*};
}

/// The element loops of the ops whose lane function is, lane by lane, one scalar
/// expression (NOTES.md "Debug backend, second slice"): `out[i] = expr` for the block's
/// `n` elements (rounded up to a whole group of `GROUP`), written out for the `GROUP`
/// elements of a group (constant indices into a `[T; GROUP]`, whose bounds checks rustc
/// removes even at opt-level 0) inside a `while` loop over the groups. At opt-level 0 (a
/// user's dev profile compiles this crate unoptimised) nothing is inlined but
/// `#[inline(always)]` functions, so an iterator adapter (`zip`), a closure or the lane
/// function costs calls per element or per chunk; this loop costs one bounds check per
/// group and operand, no call. Measured at opt-level 0 on a block of f32 `+`: 0.5 ms per
/// 2^20 elements, against 1.9 ms for an index loop over the elements and 12-15 ms for `zip`.
/// Bit-identity: the expression is the one the lane function computes on each lane (the
/// integers' and `bool`'s lane functions are the reference's scalar functions lane by
/// lane, `lanes.rs`'s defaults; the floats' are the IEEE operations, each `wide` vector
/// instruction computing per lane what the expression computes), checked against the lane
/// functions on edge values by `tests::element_loops_match_the_lane_functions`. Lanes past
/// `n` in the last group compute from whatever the registers hold and are never stored
/// (every expression here is total).
macro_rules! elementwise {
    ($regs:ident, $out:ident, $args:ident, $n:ident, $t:ty => $r:ty, |$($x:ident),+| $e:expr) => {{
        let (before, dst) = split($regs, $out);
        let mut k = 0;
        let ($($x,)+) = ($({
            let (groups, _) = arg::<$t>(before, $args[k]).as_chunks::<GROUP>();
            let _ = stringify!($x);
            k += 1;
            groups
        },)+);
        let _ = k;
        let (dst, _) = <$r as RegType>::get_mut(dst).as_chunks_mut::<GROUP>();
        let groups = $n.div_ceil(GROUP);
        let mut g = 0;
        while g < groups {
            let d = &mut dst[g];
            let ($($x,)+) = ($(&$x[g],)+);
            each_of_group!(d, |$($x),+| $e);
            g += 1;
        }
    }};
}

/// Block ops as element loops (`elementwise!`): `name => |args| expr` on type `$t`, the
/// result of type `$r`.
macro_rules! element_fns {
    ($t:ty => $r:ty: $($m:ident => |$($x:ident),+| $e:expr),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($m), "` over a block, element by element.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            elementwise!(regs, out, args, n, $t => $r, |$($x),+| $e)
        }
    )*};
}

/// `where(c, a, b)` element by element (every type's `select_lanes` takes, lane by lane,
/// `a` where `c` holds and `b` elsewhere).
macro_rules! select_fn {
    ($t:ty) => {
        /// `select_lanes` over a block, element by element.
        pub fn select_lanes(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            let (before, dst) = split(regs, out);
            let (c, _) = arg::<bool>(before, args[0]).as_chunks::<GROUP>();
            let (a, _) = arg::<$t>(before, args[1]).as_chunks::<GROUP>();
            let (b, _) = arg::<$t>(before, args[2]).as_chunks::<GROUP>();
            let (dst, _) = <$t as RegType>::get_mut(dst).as_chunks_mut::<GROUP>();
            let groups = n.div_ceil(GROUP);
            let mut g = 0;
            while g < groups {
                let d = &mut dst[g];
                let (c, a, b) = (&c[g], &a[g], &b[g]);
                each_of_group!(d, |c, a, b| if c { a } else { b });
                g += 1;
            }
        }
    };
}

/// The comparisons (the reference's `Compare`, which every type's `CompareLanes` computes
/// lane by lane: `==`, `!=` true for NaN, ordered `<`…) and select.
macro_rules! common_fns {
    ($t:ty) => {
        element_fns!($t => bool: eq_lanes => |x, y| <$t as Compare>::eq(x, y),
            ne_lanes => |x, y| <$t as Compare>::ne(x, y),
            lt_lanes => |x, y| <$t as Compare>::lt(x, y),
            le_lanes => |x, y| <$t as Compare>::le(x, y),
            gt_lanes => |x, y| <$t as Compare>::gt(x, y),
            ge_lanes => |x, y| <$t as Compare>::ge(x, y));
        select_fn!($t);
    };
}

/// The integers: every lane function is the reference's scalar function lane by lane
/// (`integer_lanes!` implements the traits with their defaults), so every op is an
/// element loop of it.
macro_rules! integer_ops {
    ($($module:ident: $t:ty),*) => {$(
        #[doc = concat!("The block ops of `", stringify!($t), "` values.")]
        pub mod $module {
            use super::*;
            common_fns!($t);
            element_fns!($t => $t: add_lanes => |x, y| <$t as Num>::add(x, y),
                sub_lanes => |x, y| <$t as Num>::sub(x, y),
                mul_lanes => |x, y| <$t as Num>::mul(x, y),
                div_lanes => |x, y| <$t as Num>::div(x, y),
                rem_lanes => |x, y| <$t as Num>::rem(x, y),
                modulo_lanes => |x, y| <$t as Num>::modulo(x, y),
                max_lanes => |x, y| <$t as Num>::max(x, y),
                min_lanes => |x, y| <$t as Num>::min(x, y),
                pow_lanes => |x, y| <$t as Num>::pow(x, y),
                neg_lanes => |x| <$t as Num>::neg(x),
                abs_lanes => |x| <$t as Num>::abs(x),
                relu_lanes => |x| <$t as Num>::relu(x),
                floor_lanes => |x| <$t as Num>::floor(x),
                round_lanes => |x| <$t as Num>::round(x),
                roundeven_lanes => |x| <$t as Num>::roundeven(x),
                trunc_lanes => |x| <$t as Num>::trunc(x),
                ceil_lanes => |x| <$t as Num>::ceil(x),
                sign_lanes => |x| <$t as Num>::sign(x),
                square_lanes => |x| <$t as Num>::mul(x, x),
                and_lanes => |x, y| <$t as Bitwise>::and(x, y),
                or_lanes => |x, y| <$t as Bitwise>::or(x, y),
                xor_lanes => |x, y| <$t as Bitwise>::xor(x, y),
                not_lanes => |x| <$t as Bitwise>::not(x),
                shl_lanes => |x, y| <$t as Shift>::shl(x, y),
                shr_lanes => |x, y| <$t as Shift>::shr(x, y));
            // `bitwise_count` (`u8` out): the lane function chunk by chunk (its SWAR or
            // AVX-512 count of the build, exact either way).
            lane_fns!($t, BitCountLanes, unary -> u8: bitwise_count_lanes);
        }
    )*};
}
integer_ops!(u8_ops: u8, u16_ops: u16, u32_ops: u32, u64_ops: u64, i8_ops: i8, i16_ops: i16,
    i32_ops: i32, i64_ops: i64);

// The dispatched f32 kernels at opt-level 0: scalar twins (declared after the macros
// they use) and assembly block kernels for the hottest ones.
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod vmath_asm;
mod vmath_twins;

/// The float ops whose block loop is SSE2 assembly on x86-64: each `name => "ins" |x, y|
/// expr` (a packed IEEE operation, `ins` + `ps`/`pd`, the first argument as its first
/// operand) or `relu_lanes => relu |x| expr` is a function running the assembly loop
/// (`sse::name`) on x86-64 outside Miri, else the element loop of `expr`. Why: at
/// opt-level 0 (a user's dev profile) the element loop still costs ~5 stack moves per
/// element, and an optimised build (the README's override) does not vectorise it either
/// (`divss` per element, read in the profile of W3 at opt-level 3); the assembly is one
/// packed instruction per 16 bytes at every opt-level (W1 at opt-level 0 8.5 -> 3.4 ms,
/// with the override 1.7 -> 1.2 ms: NOTES.md "Debug backend, reductions at opt-level 0").
/// Bit-identity with the element loop (and so with the lane function): `addps`… compute
/// each lane's IEEE operation, as the scalar expression; relu: see its arm.
/// `tests::element_loops_match_the_lane_functions` runs both against the lane functions.
macro_rules! sse_or_element_fns {
    ($t:ty, $p:literal: $($m:ident => $ins:tt |$($x:ident),+| $e:expr),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($m), "` over a block (`sse::", stringify!($m),
                "` on x86-64, else element by element).")]
            pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
                #[cfg(all(target_arch = "x86_64", not(miri)))]
                avx::$m(regs, out, args, n);
                #[cfg(not(all(target_arch = "x86_64", not(miri))))]
                elementwise!(regs, out, args, n, $t => $t, |$($x),+| $e)
            }
        )*
        /// The SSE2 block loops (x86-64's baseline instruction set).
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        pub mod sse {
            use super::*;
            $(sse_or_element_fns!(@sse $t, $p, $m, $ins);)*
        }
        /// The AVX block loops where the CPU has AVX (`blocks::avx()`), else the SSE2 ones.
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        pub mod avx {
            use super::*;
            $(sse_or_element_fns!(@avx $t, $p, $m, $ins);)*
        }
    };
    (@avx $t:ty, $p:literal, $m:ident, relu) => {
        #[doc = concat!("`", stringify!($m), "` over a block: the SSE2 loop (no AVX form).")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::sse::$m(regs, out, args, n)
        }
    };
    (@avx $t:ty, $p:literal, $m:ident, $ins:literal) => {
        #[doc = concat!("`", stringify!($m), "` over a block by AVX (`v", $ins, $p, "` on ymm ",
            "registers, 32 bytes a turn) where the CPU has it, else `sse::", stringify!($m), "`.")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            if !crate::blocks::avx() {
                return super::sse::$m(regs, out, args, n);
            }
            let (a, b, d, bytes) = sse_block::<$t>(regs, out, args, n);
            // SAFETY: `avx()` found AVX on the CPU; `sse_block`'s pointers and byte count
            // (`bytes` a multiple of `GROUP` elements: 32 or 64 bytes), as `by_avx` needs.
            unsafe { by_avx(a, b, d, bytes) }
            /// The AVX loop of this op: `d[o..o + 32] = a[o..o + 32] ∘ b[o..o + 32]` (bytes)
            /// for each offset `o < bytes` in steps of 32, the packed IEEE operation of each
            /// lane as the SSE2 loop's (`a` the first source).
            ///
            /// # Safety
            /// The CPU has AVX; `a` and `b` are valid for reads and `d` for writes of `bytes`
            /// bytes, a multiple of 32; `d` overlaps neither `a` nor `b` unless equal to it
            /// (each turn reads its 32 bytes before writing them).
            #[target_feature(enable = "avx")]
            unsafe fn by_avx(a: *const $t, b: *const $t, d: *mut $t, bytes: usize) {
                // SAFETY: this function's contract: 32 bytes read at `a + o` and `b + o` and
                // written at `d + o` for `o = 0, 32, …` below `bytes` (none for 0); the two
                // counters and (`clobber_abi`) every vector register declared clobbered, for
                // ymm0 and the `vzeroupper`; no stack.
                unsafe {
                    core::arch::asm!(
                        "test r8, r8",
                        "jz 3f",
                        // The loop at a 32-byte boundary (its 25 bytes in one window of
                        // the decoded-instruction cache, whatever the function's placement).
                        ".p2align 5",
                        "2:",
                        "vmovups ymm0, ymmword ptr [rsi + rcx]",
                        concat!("v", $ins, $p, " ymm0, ymm0, ymmword ptr [rdx + rcx]"),
                        "vmovups ymmword ptr [rdi + rcx], ymm0",
                        "add rcx, 32",
                        "cmp rcx, r8",
                        "jb 2b",
                        "vzeroupper",
                        "3:",
                        in("rsi") a,
                        in("rdx") b,
                        in("rdi") d,
                        inout("rcx") 0usize => _,
                        in("r8") bytes,
                        clobber_abi("C"),
                        options(nostack),
                    );
                }
            }
        }
    };
    (@sse $t:ty, $p:literal, $m:ident, relu) => {
        #[doc = concat!("`", stringify!($m), "` over a block by SSE2: `max(x, +0)`, and ",
            "`x + 0` where `x` is NaN (`relu_lane`).")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            let (a, _, d, bytes) = sse_block::<$t>(regs, out, args, n);
            if bytes > 0 {
                // SAFETY: as `sse_block`'s (reads `a`, writes `d`, 16 bytes at each
                // offset `o < bytes`).
                unsafe {
                    core::arch::asm!(
                        "xorps {z}, {z}",
                        ".p2align 5", // the loop at a 32-byte boundary (see `by_avx`)
                        "2:",
                        "movups {x}, xmmword ptr [{a} + {o}]",
                        "movaps {m}, {x}",
                        concat!("cmpunord", $p, " {m}, {x}"), // m = x is NaN (all ones)
                        "movaps {s}, {x}",
                        concat!("add", $p, " {s}, {z}"),      // s = x + 0
                        concat!("max", $p, " {x}, {z}"),      // x = x > +0 ? x : +0
                        "andps {s}, {m}",                       // NaN lanes: x + 0
                        "andnps {m}, {x}",                      // others: max(x, +0)
                        "orps {m}, {s}",
                        "movups xmmword ptr [{d} + {o}], {m}",
                        "add {o}, 16",
                        "cmp {o}, {end}",
                        "jb 2b",
                        a = in(reg) a,
                        d = in(reg) d,
                        o = inout(reg) 0usize => _,
                        end = in(reg) bytes,
                        x = out(xmm_reg) _,
                        m = out(xmm_reg) _,
                        s = out(xmm_reg) _,
                        z = out(xmm_reg) _,
                        options(nostack),
                    );
                }
            }
        }
    };
    (@sse $t:ty, $p:literal, $m:ident, $ins:literal) => {
        #[doc = concat!("`", stringify!($m), "` over a block by SSE2 (`", $ins, $p, "`).")]
        pub fn $m(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            let (a, b, d, bytes) = sse_block::<$t>(regs, out, args, n);
            if bytes > 0 {
                // SAFETY: as `sse_block`'s (reads `a` and `b`, writes `d`, 16 bytes at
                // each offset `o < bytes`).
                unsafe {
                    core::arch::asm!(
                        ".p2align 5", // the loop at a 32-byte boundary (see `by_avx`)
                        "2:",
                        "movups {x}, xmmword ptr [{a} + {o}]",
                        "movups {y}, xmmword ptr [{b} + {o}]",
                        concat!($ins, $p, " {x}, {y}"),         // x = a ∘ b
                        "movups xmmword ptr [{d} + {o}], {x}",
                        "add {o}, 16",
                        "cmp {o}, {end}",
                        "jb 2b",
                        a = in(reg) a,
                        b = in(reg) b,
                        d = in(reg) d,
                        o = inout(reg) 0usize => _,
                        end = in(reg) bytes,
                        x = out(xmm_reg) _,
                        y = out(xmm_reg) _,
                        options(nostack),
                    );
                }
            }
        }
    };
}

/// The pointers of an SSE2 block loop (`sse_or_element_fns!`): arguments 0 and 1, the
/// result register `out` (made a register of `T`), and the loop's byte count: the block's
/// first `n` elements rounded up to whole groups (`elementwise!`'s element count).
///
/// What the loops' SAFETY rests on: the three pointers address registers of `BLOCK`
/// elements of `T`, the result's borrowed mutably apart from the arguments (`split` takes
/// it after them), valid until the caller's next use of `regs`; `bytes` is 0 or a
/// multiple of 16 (`GROUP` elements of 4 or 8 bytes) at most `BLOCK` elements' bytes
/// (`n` clamped to `BLOCK`). A loop reading and writing 16 bytes at offsets 0, 16, …
/// below `bytes` stays inside the registers; SSE2 is part of x86-64.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
fn sse_block<T: RegType>(
    regs: &mut [Reg],
    out: usize,
    args: [u16; 3],
    n: usize,
) -> (*const T, *const T, *mut T, usize) {
    const { assert!((GROUP * core::mem::size_of::<T>()).is_multiple_of(16)) };
    let (before, dst) = split(regs, out);
    let (a, b) = (arg::<T>(before, args[0]), arg::<T>(before, args[1]));
    let d = T::get_mut(dst);
    let bytes = n.min(BLOCK).div_ceil(GROUP) * GROUP * core::mem::size_of::<T>();
    (a.as_ptr(), b.as_ptr(), d.as_mut_ptr(), bytes)
}

/// The float functions of the function table (functions.rs), as block ops.
macro_rules! float_table_fns {
    (($t:ident) $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(float_table_fns!(@row $t $lane_trait $lane $kind $args);)*
    };
    // The dispatched f32 kernels (ops/vmath_twins.rs chooses): where this crate is built
    // at opt-level 0 and the process's block kernels fuse, assembly block kernels or
    // scalar twins (the block kernel's bits, fast at opt-level 0); else the f32 block
    // kernel on the whole register, one CPU dispatch per block (the fused kernels of
    // default x86-64 builds call the same block kernels, emit/blocks.rs; every path of it
    // gives the per-vector lane function's bits, vmath/dispatch.rs).
    (@row f32 FloatLanes $lane:ident unary
     ($r:ident, $family:ident::{$k32:ident, $k64:ident}, kernel $k16:ident)) => {
        #[doc = concat!("`FloatLanes::", stringify!($lane), "` over a block: `vmath::block::",
            stringify!($k32), "`.")]
        pub fn $lane(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::vmath_twins::$k32(regs, out, args, n)
        }
    };
    (@row $t:ident FloatLanes $lane:ident unary $args:tt) => {
        lane_fns!($t, FloatLanes, unary: $lane);
    };
    (@row $t:ident $tr:ident $lane:ident $kind:ident $args:tt) => {};
}

/// Softmax's `exp(x - max)` (`ops::EXP_NONPOS`): on f32 the dispatched block kernel, as
/// the fused kernels of default builds call it (emit/blocks.rs `BLOCK_FUNCTIONS`); on f64
/// the lane function.
macro_rules! exp_nonpos {
    (f32) => {
        /// `FloatLanes::exp_nonpos_lanes` over a block: `vmath::block::exp_nonpos_f32`.
        pub fn exp_nonpos_lanes(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
            super::vmath_twins::exp_nonpos_f32(regs, out, args, n)
        }
    };
    (f64) => {
        lane_fns!(f64, FloatLanes, unary: exp_nonpos_lanes);
    };
}

/// The floats: `+ - * /`, negation, `abs`, `max`/`min` (and `relu`, `max` with 0),
/// `square`, the comparisons, select and the predicates as element loops of the scalar
/// expression each lane of the lane function computes (`float_lanes!` in lanes.rs: `wide`'s
/// `+ - * /` are the IEEE operations, its negation and `abs` flip or clear the sign bit,
/// `max_lanes`/`min_lanes` are written out below); the rest (rounding, `pow`, `%`, the
/// function table) run their lane functions chunk by chunk.
macro_rules! float_ops {
    ($($module:ident: $t:ident $p:literal),*) => {$(
        #[doc = concat!("The block ops of `", stringify!($t), "` values.")]
        pub mod $module {
            use super::*;
            common_fns!($t);
            // The IEEE operations and relu: SSE2 block loops on x86-64 (`sse`), element
            // loops elsewhere.
            sse_or_element_fns!($t, $p: add_lanes => "add" |x, y| x + y,
                sub_lanes => "sub" |x, y| x - y,
                mul_lanes => "mul" |x, y| x * y,
                div_lanes => "div" |x, y| x / y,
                // Softmax's `e / sum` (`ops::DIV_SOFTMAX`): within its contract (every
                // `e` in [0, 1] or NaN, the sum at least 1 or NaN, which softmax's graph
                // gives) the fused kernel's `div_softmax_lanes` and block division give the
                // quotient's bits (lanes.rs, `div_softmax_m512`); the `in_range` flag
                // (the third argument) only skips a test there.
                div_softmax_lanes => "div" |x, y| x / y,
                div_softmax_plain_lanes => "div" |x, y| x / y,
                relu_lanes => relu |x| relu_lane(x));
            element_fns!($t => $t: max_lanes => |x, y| max_lane(x, y),
                min_lanes => |x, y| min_lane(x, y),
                neg_lanes => |x| -x,
                abs_lanes => |x| x.abs(),
                square_lanes => |x| x * x);
            element_fns!($t => bool: is_nan_lanes => |x| x != x,
                is_inf_lanes => |x| x == <$t>::INFINITY || x == <$t>::NEG_INFINITY);
            lane_fns!($t, NumLanes, binary: rem_lanes, modulo_lanes, pow_lanes);
            lane_fns!($t, NumLanes, unary: floor_lanes, round_lanes, roundeven_lanes,
                trunc_lanes, ceil_lanes, sign_lanes);
            crate::functions::for_each_float_function!(float_table_fns, $t);
            // The wider op table's activations (`ActivationLanes`): their lane functions
            // chunk by chunk, the named parameters (`alpha`, …) arriving as the
            // constant arguments the fused kernel splats (NOTES.md "Debug backend, fourth
            // slice").
            lane_fns!($t, ActivationLanes, unary: reciprocal_lanes, softsign_lanes,
                hard_swish_lanes);
            lane_fns!($t, ActivationLanes, predicate: is_finite_lanes);
            lane_fns!($t, ActivationLanes, binary: leaky_relu_lanes, thresholded_relu_lanes,
                elu_lanes, celu_lanes, swish_lanes);
            lane_fns!($t, ActivationLanes, ternary: hard_sigmoid_lanes, shrink_lanes,
                selu_lanes);
            exp_nonpos!($t);

            /// One lane of `max_lanes`: the sum (a NaN) where either is NaN, else the
            /// larger, equal values (±0) combined by their bits (`+0 & -0 = +0`). Written
            /// with `x != x` rather than `is_nan`, a call at opt-level 0.
            #[inline(always)]
            fn max_lane(x: $t, y: $t) -> $t {
                #[allow(clippy::eq_op)]
                if x != x || y != y {
                    x + y
                } else if x > y {
                    x
                } else if y > x {
                    y
                } else {
                    <$t>::from_bits(x.to_bits() & y.to_bits())
                }
            }

            /// `max_lane(x, 0.0)` with its branches in the order a row of ordinary values
            /// takes them: `x` where it is above 0, `x + 0` (its NaN) where it is NaN,
            /// else +0 (`max_lane` of a negative or ±0 and +0: `+0 & ±0 = +0`).
            #[inline(always)]
            #[cfg_attr(
                all(target_arch = "x86_64", not(miri)),
                allow(dead_code) // `sse::relu_lanes` there
            )]
            fn relu_lane(x: $t) -> $t {
                #[allow(clippy::eq_op)]
                if x > 0.0 {
                    x
                } else if x != x {
                    x + 0.0
                } else {
                    0.0
                }
            }

            /// One lane of `min_lanes`: as `max_lane`, with `min(+0, -0) = +0 | -0 = -0`.
            #[inline(always)]
            fn min_lane(x: $t, y: $t) -> $t {
                #[allow(clippy::eq_op)]
                if x != x || y != y {
                    x + y
                } else if x < y {
                    x
                } else if y < x {
                    y
                } else {
                    <$t>::from_bits(x.to_bits() | y.to_bits())
                }
            }
        }
    )*};
}
float_ops!(f32_ops: f32 "ps", f64_ops: f64 "pd");

/// The block ops of `bool` values.
pub mod bool_ops {
    use super::*;
    common_fns!(bool);
    element_fns!(bool => bool: and_lanes => |x, y| <bool as Bitwise>::and(x, y),
        or_lanes => |x, y| <bool as Bitwise>::or(x, y),
        xor_lanes => |x, y| <bool as Bitwise>::xor(x, y),
        not_lanes => |x| <bool as Bitwise>::not(x));
}

/// Casts between the 13 storage types, `casts::from_S::to_D`: element loops of what
/// `lanes::cast::<S, D>` computes on each lane (the source rounded into its own dtype
/// first, then `CastTo`).
pub mod casts {
    use super::*;
    use crate::cast::CastTo;
    use crate::dtype::{bf16, f16, Element};

    macro_rules! casts_to {
        ($s:ty; $($fn:ident: $d:ty),*) => {$(
            #[doc = concat!("`", stringify!($s), " as ", stringify!($d), "` over a block.")]
            pub fn $fn(regs: &mut [Reg], out: usize, args: [u16; 3], n: usize) {
                elementwise!(regs, out, args, n, <$s as Element>::Compute
                    => <$d as Element>::Compute,
                    |x| <$s as CastTo<$d>>::cast(<$s>::from_compute(x)).to_compute())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::OpFn;
    use crate::lanes::{BitwiseLanes, CompareLanes, SelectLanes, ShiftLanes};

    /// Every pair of `edges` (256 of 16 values): register 0 holds `a`, 1 holds `b`, 2 a
    /// condition.
    fn pairs<T: RegType>(edges: [T; 16], wrap: fn([T; BLOCK]) -> Reg) -> Vec<Reg> {
        let a = core::array::from_fn(|i| edges[i % 16]);
        let b = core::array::from_fn(|i| edges[i / 16]);
        let c = core::array::from_fn(|i| (i * 7) % 3 == 0);
        vec![wrap(a), wrap(b), Reg::Bool(c), Reg::Bool([false; BLOCK])]
    }

    /// `fast` (an element loop) on `args` into register 3, against the lane function
    /// chunk by chunk (`lane(a, b, c)`: the chunks of registers 0, 1, 2), compared
    /// through `bits` on the block's 256 elements.
    fn agree<T: RegType + PartialEq, R: RegType + PartialEq>(
        regs: &[Reg],
        fast: OpFn,
        args: [u16; 3],
        lane: impl Fn(V<T>, V<T>, V<bool>) -> V<R>,
        bits: impl Fn(R) -> u64,
        name: &str,
    ) {
        let mut regs = regs.to_vec();
        fast(&mut regs, 3, args, BLOCK);
        let got = arg::<R>(&regs, 3);
        let (a, b, c) = (
            arg::<T>(&regs, 0),
            arg::<T>(&regs, 1),
            arg::<bool>(&regs, 2),
        );
        for j in (0..BLOCK).step_by(LANES) {
            let want = lane(chunk(a, j), chunk(b, j), chunk(c, j));
            for l in 0..LANES {
                // Two NaN operands: which payload the result carries is the compiler's
                // choice (LLVM commutes the vector add at opt-level 1; Rust leaves it
                // unspecified), so only its NaN-ness is compared.
                #[allow(clippy::eq_op)]
                let two_nans = a[j + l] != a[j + l] && b[j + l] != b[j + l] && args[1] == 1;
                if two_nans && bits(got[j + l]) != bits(want.0[l]) {
                    assert!(got[j + l] != got[j + l], "{name} lane {}", j + l);
                    continue;
                }
                assert_eq!(bits(got[j + l]), bits(want.0[l]), "{name} lane {}", j + l);
            }
        }
    }

    macro_rules! case {
        ($t:ident, $m:ident, $w:ident, $edges:expr, $bits:expr,
         $($tr:ident $kind:ident: $($f:ident),*;)*) => {{
            let regs = pairs::<$t>($edges, Reg::$w);
            let bits = $bits;
            let b = |x: bool| x as u64;
            $($(case!(@$kind regs, $t, $m, $tr, $f, bits, b);)*)*
            agree::<$t, $t>(&regs, $m::select_lanes, [2, 0, 1],
                |a, b, c| <$t as SelectLanes>::select_lanes(c, a, b), bits, "select");
        }};
        (@bin $regs:ident, $t:ident, $m:ident, $tr:ident, $f:ident, $bits:ident, $b:ident) => {
            agree::<$t, $t>(&$regs, $m::$f, [0, 1, 0], |a, b, _| <$t as $tr>::$f(a, b),
                $bits, stringify!($f))
        };
        (@un $regs:ident, $t:ident, $m:ident, $tr:ident, $f:ident, $bits:ident, $b:ident) => {
            agree::<$t, $t>(&$regs, $m::$f, [0, 1, 0], |a, _, _| <$t as $tr>::$f(a), $bits,
                stringify!($f))
        };
        (@cmp $regs:ident, $t:ident, $m:ident, $tr:ident, $f:ident, $bits:ident, $b:ident) => {
            agree::<$t, bool>(&$regs, $m::$f, [0, 1, 0], |a, b, _| <$t as $tr>::$f(a, b), $b,
                stringify!($f))
        };
        (@pred $regs:ident, $t:ident, $m:ident, $tr:ident, $f:ident, $bits:ident, $b:ident) => {
            agree::<$t, bool>(&$regs, $m::$f, [0, 1, 0], |a, _, _| <$t as $tr>::$f(a), $b,
                stringify!($f))
        };
    }

    /// The element loops give the lane functions' bits on every pair of edge values
    /// (NaN of both signs, ±inf, ±0, subnormals, extremes; integer extremes, shift counts
    /// past the width, division by zero and by -1).
    #[test]
    fn element_loops_match_the_lane_functions() {
        macro_rules! float {
            ($t:ident, $m:ident, $w:ident, $edges:expr) => {
                case!($t, $m, $w, $edges, |x: $t| x.to_bits() as u64,
                    NumLanes bin: add_lanes, sub_lanes, mul_lanes, div_lanes, max_lanes,
                        min_lanes;
                    NumLanes un: neg_lanes, abs_lanes, relu_lanes, square_lanes;
                    CompareLanes cmp: eq_lanes, ne_lanes, lt_lanes, le_lanes, gt_lanes,
                        ge_lanes;
                    FloatLanes pred: is_nan_lanes, is_inf_lanes;);
                // The SSE2 and AVX block loops (`sse_or_element_fns!`), which the ops above
                // are on x86-64 (so their element loops run here only elsewhere): checked
                // by name, with a short block.
                #[cfg(all(target_arch = "x86_64", not(miri)))]
                {
                    let regs = pairs::<$t>($edges, Reg::$w);
                    let bits = |x: $t| x.to_bits() as u64;
                    // And the AVX loops (`avx::*`; on a CPU without AVX the SSE2 ones
                    // again).
                    let sse: [(OpFn, fn(V<$t>, V<$t>) -> V<$t>, &str); 13] = [
                        ($m::avx::add_lanes, <$t as NumLanes>::add_lanes, "avx add"),
                        ($m::avx::sub_lanes, <$t as NumLanes>::sub_lanes, "avx sub"),
                        ($m::avx::mul_lanes, <$t as NumLanes>::mul_lanes, "avx mul"),
                        ($m::avx::div_lanes, <$t as NumLanes>::div_lanes, "avx div"),
                        ($m::avx::div_softmax_lanes, <$t as NumLanes>::div_lanes, "avx div_softmax"),
                        ($m::avx::div_softmax_plain_lanes, <$t as NumLanes>::div_lanes,
                            "avx div_softmax_plain"),
                        ($m::sse::add_lanes, <$t as NumLanes>::add_lanes, "sse add"),
                        ($m::sse::sub_lanes, <$t as NumLanes>::sub_lanes, "sse sub"),
                        ($m::sse::mul_lanes, <$t as NumLanes>::mul_lanes, "sse mul"),
                        ($m::sse::div_lanes, <$t as NumLanes>::div_lanes, "sse div"),
                        ($m::sse::div_softmax_lanes, <$t as NumLanes>::div_lanes, "sse div_softmax"),
                        ($m::sse::div_softmax_plain_lanes, <$t as NumLanes>::div_lanes,
                            "sse div_softmax_plain"),
                        ($m::sse::relu_lanes, |a, _| <$t as NumLanes>::relu_lanes(a), "sse relu"),
                    ];
                    for (fast, lane, name) in sse {
                        agree::<$t, $t>(&regs, fast, [0, 1, 0], |a, b, _| lane(a, b), bits, name);
                        // A short block: the elements past the rounded-up group keep the
                        // register's earlier values.
                        let mut short = regs.to_vec();
                        short[3] = Reg::$w([7.0; BLOCK]);
                        fast(&mut short, 3, [0, 1, 0], 5);
                        let got = arg::<$t>(&short, 3);
                        assert!(got[GROUP..].iter().all(|&x| x == 7.0), "{name}");
                    }
                }
            };
        }
        float!(
            f32,
            f32_ops,
            F32,
            [
                f32::NAN,
                f32::from_bits(0xffc0_0000),
                f32::INFINITY,
                f32::NEG_INFINITY,
                0.0,
                -0.0,
                1.0,
                -1.0,
                1.5,
                -2.5,
                f32::MIN_POSITIVE,
                1e-45,
                f32::MAX,
                f32::MIN,
                3.0,
                0.1
            ]
        );
        float!(
            f64,
            f64_ops,
            F64,
            [
                f64::NAN,
                -f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                1.0,
                -1.0,
                1.5,
                -2.5,
                f64::MIN_POSITIVE,
                5e-324,
                f64::MAX,
                f64::MIN,
                3.0,
                0.1
            ]
        );
        macro_rules! int {
            ($t:ident, $m:ident, $w:ident, $edges:expr) => {
                case!($t, $m, $w, $edges, |x: $t| x as u64,
                    NumLanes bin: add_lanes, sub_lanes, mul_lanes, div_lanes, rem_lanes,
                        modulo_lanes, max_lanes, min_lanes, pow_lanes;
                    NumLanes un: neg_lanes, abs_lanes, relu_lanes, floor_lanes, round_lanes,
                        roundeven_lanes, trunc_lanes, ceil_lanes, sign_lanes, square_lanes;
                    BitwiseLanes bin: and_lanes, or_lanes, xor_lanes;
                    BitwiseLanes un: not_lanes;
                    ShiftLanes bin: shl_lanes, shr_lanes;
                    CompareLanes cmp: eq_lanes, ne_lanes, lt_lanes, le_lanes, gt_lanes,
                        ge_lanes;)
            };
        }
        int!(
            i32,
            i32_ops,
            I32,
            [
                i32::MIN,
                i32::MAX,
                0,
                1,
                -1,
                2,
                -2,
                7,
                31,
                32,
                33,
                -33,
                100,
                -100,
                65536,
                i32::MIN + 1
            ]
        );
        int!(
            u8,
            u8_ops,
            U8,
            [0, 1, 2, 3, 7, 8, 9, 127, 128, 129, 200, 254, 255, 16, 31, 64]
        );
        int!(
            i64,
            i64_ops,
            I64,
            [
                i64::MIN,
                i64::MAX,
                0,
                1,
                -1,
                2,
                -2,
                7,
                63,
                64,
                65,
                -65,
                100,
                -100,
                1 << 40,
                i64::MIN + 1
            ]
        );
        case!(bool, bool_ops, Bool, [true, false, true, true, false, false, true, false, true,
            false, false, true, true, true, false, false], |x: bool| x as u64,
            BitwiseLanes bin: and_lanes, or_lanes, xor_lanes;
            BitwiseLanes un: not_lanes;
            CompareLanes cmp: eq_lanes, ne_lanes, lt_lanes, le_lanes, gt_lanes, ge_lanes;);
    }

    /// The debug backend's softmax division (`div_softmax_row_fixed`; the in-place form
    /// makes the same `vmath::block::div_softmax_f32` call on the output block) against
    /// `a / b` bit for bit (NaN as NaN) for every one of the 2^30 + 1 dividends of [+0, 1]
    /// and a NaN, with the sums of tests/row_fusion.rs's `div_softmax_every_dividend`,
    /// flag false for every dividend and true for the dividends softmax's contract allows
    /// with it (at least e^-50). ACCURACY.md "Softmax's exp by table on AVX-512, its
    /// division". Slow in a debug build, so ignored:
    /// `cargo test --release -p tensorgraph-core --lib -- --ignored
    /// debug_softmax_division_every_dividend` (and with `-C target-cpu=native`).
    #[test]
    #[ignore]
    fn debug_softmax_division_every_dividend() {
        let sums = [
            1.0f32,
            f32::from_bits(0x3f80_0001),
            1.5,
            3.0,
            7.0,
            10.0,
            1000.1,
            65537.0,
            f32::from_bits(0x4980_0000),
            f32::from_bits(0x4980_0001),
            2.0e7,
        ];
        let last = 1.0f32.to_bits();
        let floor = (-50.0f64).exp() as f32;
        let mut checked = 0u64;
        for &sum in &sums {
            for flag in [false, true] {
                let mut next = if flag { floor.to_bits() } else { 0 };
                let mut done = false;
                while !done {
                    let e: [f32; BLOCK] = core::array::from_fn(|i| {
                        let bits = next + i as u32;
                        if bits > last {
                            f32::NAN
                        } else {
                            f32::from_bits(bits)
                        }
                    });
                    next += BLOCK as u32;
                    done = next > last;
                    let mut regs = vec![
                        Reg::F32(e),
                        Reg::F32([sum; BLOCK]),
                        Reg::Bool([flag; BLOCK]),
                        Reg::F32([0.0; BLOCK]),
                    ];
                    assert!(div_softmax_row_fixed(&mut regs, 3, [0, 1, 2]));
                    let Reg::F32(q) = &regs[3] else {
                        panic!("the quotient's register changed type")
                    };
                    for (a, got) in e.iter().zip(q) {
                        let want = a / sum;
                        assert!(
                            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                            "{a:e} / {sum:e} (flag {flag}): {got:e}, want {want:e}"
                        );
                    }
                    checked += BLOCK as u64;
                }
            }
        }
        assert!(checked > 11 * (1 << 30), "{checked}");
    }
}
