//! Micro-kernels and their blocking constants, and the choice among them (once per
//! process, by the CPU's features).
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
static PORTABLE_I32_I32: Kernel<i32, i32> = Kernel {
    name: "portable 4x8",
    mr: 4,
    nr: 8,
    mc: 128,
    kc: 256,
    nc: 2048,
    run: generic_tile::<i32, i32, 4, 8>,
};
static PORTABLE_I64_I64: Kernel<i64, i64> = Kernel {
    name: "portable 4x4",
    mr: 4,
    nr: 4,
    mc: 96,
    kc: 256,
    nc: 1024,
    run: generic_tile::<i64, i64, 4, 4>,
};

/// The instruction sets the float kernels can use, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Isa {
    /// The portable kernels over `wide`.
    Portable,
    /// AVX2 + FMA (`x86.rs`).
    Avx2,
    /// AVX-512F (`avx512.rs`).
    Avx512,
}

/// The environment variable that caps the instruction set of this process's GEMM kernels:
/// `portable`, `avx2` or `avx512` (read once, at the first product). The kernels used are
/// the best the CPU runs up to that level, so a test run with `TENSORGRAPH_GEMM_ISA=avx2`
/// or `=portable` exercises the other kernels (float and integer, packed and small-product
/// paths) through the whole library, graphs included, on a CPU that would pick AVX-512.
/// It never raises the level above what the CPU runs; a value that is none of the three is
/// ignored. [`kernel_name_f32`] tells which kernel a process uses.
pub const GEMM_ISA_ENV: &str = "TENSORGRAPH_GEMM_ISA";

/// The level [`GEMM_ISA_ENV`] asks for, if it is set to one of its values.
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
fn requested_isa() -> Option<Isa> {
    match std::env::var(GEMM_ISA_ENV).ok()?.trim() {
        "portable" => Some(Isa::Portable),
        "avx2" => Some(Isa::Avx2),
        "avx512" => Some(Isa::Avx512),
        _ => None,
    }
}

/// The best instruction set this CPU runs, capped by [`GEMM_ISA_ENV`]. Under Miri: AVX2
/// only when the build enables both features (`-C target-feature=+avx2,+fma`), so a plain
/// `cargo miri test` runs the portable kernels and the Miri run with those flags checks
/// the raw-pointer code of `x86.rs` (NOTES.md, "Undefined-behaviour checks"); never
/// AVX-512.
pub(super) fn cpu_isa() -> Isa {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        static ISA: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *ISA.get_or_init(|| {
            let detected = if super::x86::has_avx2_fma() && super::avx512::has_avx512f() {
                Isa::Avx512
            } else if super::x86::has_avx2_fma() {
                Isa::Avx2
            } else {
                Isa::Portable
            };
            requested_isa().map_or(detected, |cap| cap.min(detected))
        })
    }
    #[cfg(all(target_arch = "x86_64", miri))]
    {
        if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Isa::Portable
    }
}

/// Whether this process uses the AVX2 integer kernels.
fn use_avx2() -> bool {
    cpu_isa() >= Isa::Avx2
}

/// The f32 kernel for `isa` (which the CPU must run; the kernels assert it).
pub(super) fn f32_kernel_for(isa: Isa) -> &'static Kernel<f32, f32> {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => &super::avx512::AVX512_F32,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => &super::x86::AVX2_F32,
        _ => &PORTABLE_F32,
    }
}

/// The f64 kernel for `isa`.
pub(super) fn f64_kernel_for(isa: Isa) -> &'static Kernel<f64, f64> {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => &super::avx512::AVX512_F64,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => &super::x86::AVX2_F64,
        _ => &PORTABLE_F64,
    }
}

/// The f32 kernel of this process.
pub(super) fn f32_kernel() -> &'static Kernel<f32, f32> {
    f32_kernel_for(cpu_isa())
}

/// The f64 kernel of this process.
pub(super) fn f64_kernel() -> &'static Kernel<f64, f64> {
    f64_kernel_for(cpu_isa())
}

/// The `i32`-accumulating kernel (wrapping `acc = i32`).
pub(super) fn i32_kernel() -> &'static Kernel<i32, i32> {
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        return &super::x86::AVX2_I32_I32;
    }
    &PORTABLE_I32_I32
}

/// The `i64` kernel for wide integer operands.
pub(super) fn i64_kernel() -> &'static Kernel<i64, i64> {
    &PORTABLE_I64_I64
}

/// The kernel for narrow integers: products summed in `i32` over `k` blocks of at most
/// `kc_safe` (where no sum can overflow), each block added into the `i64` output.
pub(super) fn i32_to_i64_kernel(kc_safe: usize) -> Kernel<i32, i64> {
    #[cfg(target_arch = "x86_64")]
    let base = if use_avx2() {
        super::x86::avx2_i32_i64()
    } else {
        Kernel {
            name: "portable 4x8",
            mr: 4,
            nr: 8,
            mc: 128,
            kc: 256,
            nc: 2048,
            run: generic_tile::<i32, i64, 4, 8>,
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let base = Kernel {
        name: "portable 4x8",
        mr: 4,
        nr: 8,
        mc: 128,
        kc: 256,
        nc: 2048,
        run: generic_tile::<i32, i64, 4, 8>,
    };
    Kernel {
        kc: base.kc.min(kc_safe),
        ..base
    }
}

/// The name of the f32 kernel this process uses (`"avx2-fma 6x16"` or `"portable wide 4x8"`).
pub fn kernel_name_f32() -> &'static str {
    f32_kernel().name
}

/// The name of the f64 kernel this process uses.
pub fn kernel_name_f64() -> &'static str {
    f64_kernel().name
}

/// The instruction sets this CPU runs, worst first (tests run every kernel of each).
#[cfg(test)]
pub(super) fn runnable_isas() -> Vec<Isa> {
    [Isa::Portable, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|&isa| isa <= cpu_isa())
        .collect()
}

/// Every f32 kernel this CPU can run (tests run them all).
#[cfg(test)]
pub(super) fn all_f32_kernels() -> Vec<&'static Kernel<f32, f32>> {
    runnable_isas().into_iter().map(f32_kernel_for).collect()
}

/// Every f64 kernel this CPU can run.
#[cfg(test)]
pub(super) fn all_f64_kernels() -> Vec<&'static Kernel<f64, f64>> {
    runnable_isas().into_iter().map(f64_kernel_for).collect()
}
