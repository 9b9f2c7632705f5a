//! Micro-kernels, their contract and blocking constants (`blocks`); which one a process
//! uses is isa.rs's choice.
//!
//! A micro-kernel computes one `MR × NR` tile: the sum over `kc` of the outer products of a
//! packed `A` column (`MR` values) and a packed `B` row (`NR` values), then writes the
//! `mr × nr` corner of it (`mr ≤ MR`, `nr ≤ NR`: edge tiles) into `C` — overwriting on the
//! first `k` block, adding on the others.

/// A micro-kernel: `(kc, a_panel, b_panel, c_tile, ldc, mr, nr, first)`.
///
/// Contract (each kernel asserts it, so a violation panics and never reads out of bounds):
/// `a.len() ≥ kc·MR`, `b.len() ≥ kc·NR`, `1 ≤ mr ≤ MR`, `1 ≤ nr ≤ NR`,
/// `c.len() ≥ (mr - 1)·ldc + nr`.
pub(super) type MicroFn<P, O> = fn(usize, &[P], &[P], &mut [O], usize, usize, usize, bool);

/// A micro-kernel with the tile it computes and the cache blocks it wants.
pub(super) struct Kernel<P, O> {
    /// For benches and reports (`"avx2-fma 6x16"`).
    pub name: &'static str,
    /// Tile rows (the packed `A` panel's height).
    pub mr: usize,
    /// Tile columns (the packed `B` panel's width).
    pub nr: usize,
    /// Rows of `A` packed at once (a multiple of `mr`): the `A` block stays in L2.
    pub mc: usize,
    /// The `k` block: an `A` and a `B` micro-panel together stay in L1.
    pub kc: usize,
    /// Columns of `B` packed at once (a multiple of `nr`): the `B` block stays in L3.
    pub nc: usize,
    /// The tile function.
    pub run: MicroFn<P, O>,
}

/// Multiply-accumulate of the packed type: `acc + a·b`, rounded twice for floats (the
/// portable kernels have no FMA), wrapping for integers.
pub(super) trait Ring: Copy + Default {
    fn mul_acc(acc: Self, a: Self, b: Self) -> Self;
}
impl Ring for f32 {
    #[inline(always)]
    fn mul_acc(acc: f32, a: f32, b: f32) -> f32 {
        acc + a * b
    }
}
impl Ring for f64 {
    #[inline(always)]
    fn mul_acc(acc: f64, a: f64, b: f64) -> f64 {
        acc + a * b
    }
}
impl Ring for i32 {
    #[inline(always)]
    fn mul_acc(acc: i32, a: i32, b: i32) -> i32 {
        acc.wrapping_add(a.wrapping_mul(b))
    }
}
impl Ring for i64 {
    #[inline(always)]
    fn mul_acc(acc: i64, a: i64, b: i64) -> i64 {
        acc.wrapping_add(a.wrapping_mul(b))
    }
}

/// How a tile's sums of type `P` land in `C`'s type.
pub(super) trait Store<P>: Copy {
    fn from_acc(p: P) -> Self;
    fn add_acc(self, p: P) -> Self;
}
/// `Store` for an accumulator `$p` landing in `$o`: converted with `as`; `$sum` adds the
/// converted `$p` to `$c` (wrapping for integers).
macro_rules! store {
    ($($p:ty => $o:ty: |$c:ident, $q:ident| $sum:expr;)*) => {$(
        impl Store<$p> for $o {
            #[inline(always)]
            fn from_acc(p: $p) -> $o {
                p as $o
            }
            #[inline(always)]
            fn add_acc(self, p: $p) -> $o {
                let ($c, $q) = (self, p as $o);
                $sum
            }
        }
    )*};
}
store! {
    f32 => f32: |c, p| c + p;
    f64 => f64: |c, p| c + p;
    i32 => i32: |c, p| c.wrapping_add(p);
    i32 => i64: |c, p| c.wrapping_add(p);
    i64 => i64: |c, p| c.wrapping_add(p);
}

/// Checks the [`MicroFn`] contract.
#[inline(always)]
pub(super) fn check_tile<P, O>(
    kc: usize,
    a: &[P],
    b: &[P],
    c: &[O],
    ldc: usize,
    (mr, nr): (usize, usize),
    (tile_m, tile_n): (usize, usize),
) {
    // Checked arithmetic: a wrapped product would pass the comparison in release builds
    // and let the AVX2 kernels' raw pointers leave the slices.
    let fits = |len: usize, need: Option<usize>| need.is_some_and(|need| len >= need);
    assert!(
        fits(a.len(), kc.checked_mul(tile_m))
            && fits(b.len(), kc.checked_mul(tile_n))
            && (1..=tile_m).contains(&mr)
            && (1..=tile_n).contains(&nr)
            && fits(
                c.len(),
                (mr - 1).checked_mul(ldc).and_then(|r| r.checked_add(nr))
            ),
        "gemm micro-kernel called outside its contract"
    );
}

/// Writes the `mr × nr` corner of a tile of sums into `C`.
#[inline(always)]
pub(super) fn store_tile<P: Copy, O: Store<P>, const MR: usize, const NR: usize>(
    acc: &[[P; NR]; MR],
    c: &mut [O],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    for (i, acc_row) in acc.iter().enumerate().take(mr) {
        let row = &mut c[i * ldc..i * ldc + nr];
        if first {
            for (o, &p) in row.iter_mut().zip(acc_row) {
                *o = O::from_acc(p);
            }
        } else {
            for (o, &p) in row.iter_mut().zip(acc_row) {
                *o = o.add_acc(p);
            }
        }
    }
}

/// The portable kernel in plain Rust (LLVM vectorises the `NR` loop for the build's
/// target features): integers everywhere, and the body of the AVX2 integer kernels.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn generic_tile<P: Ring, O: Store<P>, const MR: usize, const NR: usize>(
    kc: usize,
    a: &[P],
    b: &[P],
    c: &mut [O],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    check_tile(kc, a, b, c, ldc, (mr, nr), (MR, NR));
    let mut acc = [[P::default(); NR]; MR];
    for (ap, bp) in a.chunks_exact(MR).zip(b.chunks_exact(NR)).take(kc) {
        for (acc_row, &ai) in acc.iter_mut().zip(ap) {
            for (x, &bj) in acc_row.iter_mut().zip(bp) {
                *x = P::mul_acc(*x, ai, bj);
            }
        }
    }
    store_tile(&acc, c, ldc, mr, nr, first);
}

/// The portable f32 kernel over `wide`: a 4×8 tile in four `f32x8` (eight SSE registers on
/// a baseline build, leaving room for `B`'s row and the broadcast).
#[allow(clippy::too_many_arguments)]
fn wide_f32_4x8(
    kc: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    use wide::f32x8;
    check_tile(kc, a, b, c, ldc, (mr, nr), (4, 8));
    let mut acc = [f32x8::ZERO; 4];
    for (ap, bp) in a.chunks_exact(4).zip(b.chunks_exact(8)).take(kc) {
        let bv = f32x8::new(bp.try_into().expect("chunks_exact(8)"));
        for (x, &ai) in acc.iter_mut().zip(ap) {
            *x += f32x8::splat(ai) * bv;
        }
    }
    let tile: [[f32; 8]; 4] = acc.map(|v| v.to_array());
    store_tile(&tile, c, ldc, mr, nr, first);
}

/// The portable f64 kernel over `wide`: a 4×4 tile in four `f64x4`.
#[allow(clippy::too_many_arguments)]
fn wide_f64_4x4(
    kc: usize,
    a: &[f64],
    b: &[f64],
    c: &mut [f64],
    ldc: usize,
    mr: usize,
    nr: usize,
    first: bool,
) {
    use wide::f64x4;
    check_tile(kc, a, b, c, ldc, (mr, nr), (4, 4));
    let mut acc = [f64x4::ZERO; 4];
    for (ap, bp) in a.chunks_exact(4).zip(b.chunks_exact(4)).take(kc) {
        let bv = f64x4::new(bp.try_into().expect("chunks_exact(4)"));
        for (x, &ai) in acc.iter_mut().zip(ap) {
            *x += f64x4::splat(ai) * bv;
        }
    }
    let tile: [[f64; 4]; 4] = acc.map(|v| v.to_array());
    store_tile(&tile, c, ldc, mr, nr, first);
}

pub(super) static PORTABLE_F32: Kernel<f32, f32> = Kernel {
    name: "portable wide 4x8",
    mr: 4,
    nr: 8,
    mc: 128,
    kc: 256,
    nc: 2048,
    run: wide_f32_4x8,
};
pub(super) static PORTABLE_F64: Kernel<f64, f64> = Kernel {
    name: "portable wide 4x4",
    mr: 4,
    nr: 4,
    mc: 96,
    kc: 256,
    nc: 1024,
    run: wide_f64_4x4,
};
pub(super) static PORTABLE_I32_I32: Kernel<i32, i32> = Kernel {
    name: "portable 4x8",
    mr: 4,
    nr: 8,
    mc: 128,
    kc: 256,
    nc: 2048,
    run: generic_tile::<i32, i32, 4, 8>,
};
pub(super) static PORTABLE_I64_I64: Kernel<i64, i64> = Kernel {
    name: "portable 4x4",
    mr: 4,
    nr: 4,
    mc: 96,
    kc: 256,
    nc: 1024,
    run: generic_tile::<i64, i64, 4, 4>,
};

/// The `k` block and the column block of a `k × n` product with `ker` (`1 ≤ kc ≤ ker.kc`,
/// `nc` a multiple of `nr`). `k` is cut into as few blocks as `ker.kc` allows, all of
/// the same size but the last (`k = 768` with `kc = 512`: 384 + 384, not 512 + 256), so
/// that no short block pays a full pass over `C` for little work.
pub(super) fn blocks<P, O>(ker: &Kernel<P, O>, k: usize, n: usize) -> (usize, usize) {
    let kc = even_split(k, ker.kc, 1);
    let nc = ker.nc.min(n.next_multiple_of(ker.nr)).max(ker.nr);
    (kc, nc)
}

/// The block size that cuts `len` into as few blocks of at most `max` as possible, of
/// equal sizes rounded up to a multiple of `unit` (`max` is one), the last block taking
/// what is left: at least `unit`, at most `max`.
pub(super) fn even_split(len: usize, max: usize, unit: usize) -> usize {
    let max = max.max(unit);
    let count = len.div_ceil(max).max(1);
    len.div_ceil(count).next_multiple_of(unit).clamp(unit, max)
}
