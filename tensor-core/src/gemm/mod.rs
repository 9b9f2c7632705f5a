//! The run-time GEMM engine behind `matmul`, `@` and `einsum`: `C = A · B` with cache
//! blocking, packed panels and register-tiled micro-kernels (BLIS's five loops).
//!
//! - Operands are [`PackSource`]s: a strided [`MatRef`] (transposes and slices cost nothing)
//!   of any element type that converts to the packed type (`f16`/`bf16` → `f32`, `i8`/`u8` →
//!   `i32`, …), or an [`FnSource`] closure that computes each element (dequantize, scale): the
//!   *prologue*, applied while packing.
//! - `C` is row-major with a leading dimension `ldc` and is overwritten (`C = A·B`, never
//!   `C += A·B`).
//! - The *epilogue* is called once for every finished block of `C` (at most `MC × NC`
//!   elements, see [`Block`]) while the block is still in cache: bias, activation, residual,
//!   a cast into another buffer.
//! - Kernels are chosen once per process: AVX-512F or AVX2+FMA micro-kernels written with
//!   `core::arch` where the CPU has them, else a portable kernel over `wide` (and plain Rust
//!   for integers); the environment variable [`GEMM_ISA_ENV`] (`TENSORGRAPH_GEMM_ISA`)
//!   caps the choice, for tests of the other kernels.
//! - Some f32 products skip packing (the choice is `matmul_f32_with`'s): at most 4 rows
//!   (few_rows.rs), small ones on AVX-512 (small.rs), and on AVX-512 and one thread those
//!   of at most 64 rows with a large `B`, read in place while it is multiplied
//!   (in_place.rs).
//! - With the `parallel` feature, large products split their rows across rayon's threads.
//!
//! Entry points: [`matmul_f32`] (f32/f16/bf16/closure operands, f32 accumulation),
//! [`matmul_f64`] (f64 operands, or f32 operands with `acc = f64`), [`matmul_i64`] and
//! [`matmul_i32`] (integer operands), and their `_with` forms that take [`Options`] and an
//! epilogue.

#[cfg(target_arch = "x86_64")]
mod avx512;
mod driver;
mod epilogue;
mod few_rows;
mod im2col;
mod in_place;
mod isa;
mod kernel;
mod pack;
mod packed;
mod phases;
mod shifted;
mod small;
mod source;
mod threads;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;

use core::fmt;

pub use epilogue::Block;
pub use im2col::{ConvInput, ConvWeights, ConvWindow, Im2col, SPATIAL};
pub use isa::{kernel_name_f32, kernel_name_f64, GEMM_ISA_ENV};
pub use packed::PackedB;
pub use shifted::try_conv_f32;
pub use source::{Convert, FnSource, MatRef, PackSource};

/// How many threads a product may use.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Parallelism {
    /// Split large products (about 2²² multiply-adds or more) across rayon's pool when the
    /// `parallel` feature is on; small ones run on the calling thread.
    #[default]
    Auto,
    /// Always run on the calling thread.
    Single,
}

/// Options of the `_with` entry points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Threads.
    pub parallelism: Parallelism,
}

impl Options {
    /// One thread, whatever the size.
    pub const SINGLE: Options = Options {
        parallelism: Parallelism::Single,
    };
}

/// Why a product's operands or output do not fit together.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GemmError {
    /// A view's extent reaches outside its buffer (or its index arithmetic overflows).
    ViewOutOfBounds {
        /// The view's rows.
        rows: usize,
        /// The view's columns.
        cols: usize,
        /// The buffer's length.
        len: usize,
    },
    /// `A`'s columns differ from `B`'s rows.
    InnerDimMismatch {
        /// `A`'s shape.
        a: (usize, usize),
        /// `B`'s shape.
        b: (usize, usize),
    },
    /// `ldc` is smaller than `C`'s column count.
    LeadingDim {
        /// The `ldc` given.
        ldc: usize,
        /// `C`'s columns.
        cols: usize,
    },
    /// The output buffer is shorter than `(m - 1) · ldc + n`.
    OutputTooShort {
        /// The elements needed.
        needed: usize,
        /// The buffer's length.
        len: usize,
    },
    /// The buffer given to `pack_b_*` is shorter than `packed_b_len_*` says.
    PackBufferTooShort {
        /// The elements needed.
        needed: usize,
        /// The buffer's length.
        len: usize,
    },
}

impl fmt::Display for GemmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GemmError::ViewOutOfBounds { rows, cols, len } => write!(
                f,
                "a {rows}×{cols} matrix view reaches outside its buffer of {len} elements"
            ),
            GemmError::InnerDimMismatch { a, b } => write!(
                f,
                "matmul of {}×{} by {}×{}: the contracted dims ({} and {}) differ",
                a.0, a.1, b.0, b.1, a.1, b.0
            ),
            GemmError::LeadingDim { ldc, cols } => {
                write!(
                    f,
                    "the output's leading dimension {ldc} is smaller than its {cols} columns"
                )
            }
            GemmError::OutputTooShort { needed, len } => {
                write!(
                    f,
                    "the output needs {needed} elements, but its buffer has {len}"
                )
            }
            GemmError::PackBufferTooShort { needed, len } => {
                write!(
                    f,
                    "packing B needs a buffer of {needed} elements, but it has {len}"
                )
            }
        }
    }
}

impl std::error::Error for GemmError {}

/// Checks the shapes of `A` (m×k), `B` (k×n) and `C` (m×n, leading dim `ldc`).
fn check_shapes<P, O>(
    a: &impl PackSource<P>,
    b: &impl PackSource<P>,
    c_len: usize,
    ldc: usize,
) -> Result<(), GemmError> {
    check_dims((a.rows(), a.cols()), (b.rows(), b.cols()), c_len, ldc)
}

/// [`check_shapes`] on the dims `(m, k)` of `A` and `(k', n)` of `B`.
fn check_dims(
    (m, k): (usize, usize),
    (kb, n): (usize, usize),
    c_len: usize,
    ldc: usize,
) -> Result<(), GemmError> {
    if kb != k {
        return Err(GemmError::InnerDimMismatch {
            a: (m, k),
            b: (kb, n),
        });
    }
    if ldc < n {
        return Err(GemmError::LeadingDim { ldc, cols: n });
    }
    if m > 0 && n > 0 {
        let needed = (m - 1)
            .checked_mul(ldc)
            .and_then(|x| x.checked_add(n))
            .ok_or(GemmError::OutputTooShort {
                needed: usize::MAX,
                len: c_len,
            })?;
        if c_len < needed {
            return Err(GemmError::OutputTooShort { needed, len: c_len });
        }
    }
    Ok(())
}

/// `C = A · B` in f32 (f32 accumulation), on every thread the size deserves.
///
/// `A` and `B` are any [`PackSource<f32>`]: `MatRef<f32>`, `MatRef<f16>`, `MatRef<bf16>`
/// (converted while packing) or an [`FnSource`]. `C` is row-major, `m × n` with leading
/// dimension `ldc`; elements between `n` and `ldc` in each row are left alone.
///
/// Accuracy: every element is a sum of `k` products in some order, so
/// `|C - A·B| ≤ k · 2⁻²⁴ · Σ|a||b|` (first order; see the tests).
pub fn matmul_f32(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
) -> Result<(), GemmError> {
    matmul_f32_with(a, b, c, ldc, Options::default(), &|_: Block<'_, f32>| {})
}

/// [`matmul_f32`] with options and an epilogue called on every finished block of `C`.
///
/// The epilogue may run on several threads at once (each block exactly once), hence `Fn +
/// Sync`; with [`Parallelism::Single`] the blocks come in order, row blocks inside column
/// blocks.
pub fn matmul_f32_with<E: Fn(Block<'_, f32>) + Sync>(
    a: &impl PackSource<f32>,
    b: &impl PackSource<f32>,
    c: &mut [f32],
    ldc: usize,
    options: Options,
    epilogue: &E,
) -> Result<(), GemmError> {
    check_shapes::<f32, f32>(a, b, c.len(), ldc)?;
    if few_rows::try_f32(a, b, c, ldc, &|blk| epilogue(blk)) {
        return Ok(());
    }
    if small::try_f32(a, b, c, ldc, &|blk| epilogue(blk)) {
        return Ok(());
    }
    let ker = isa::f32_kernel();
    let threads = threads::thread_count(a.rows(), a.cols(), b.cols(), ker.mr, options);
    if in_place::try_f32(a, b, c, ldc, threads, &|blk| epilogue(blk)) {
        return Ok(());
    }
    threads::run(ker, a, b, c, ldc, options, epilogue);
    Ok(())
}

/// `C = A · B` in f64. `A` and `B` are `PackSource<f64>`: `MatRef<f64>`, or `MatRef<f32>`
/// (and f16/bf16) for f32 operands with `acc = f64` (each product and sum exact to f64; the
/// caller rounds `C` to f32, in the epilogue if it likes).
///
/// Accuracy: `|C - A·B| ≤ k · 2⁻⁵³ · Σ|a||b|`.
pub fn matmul_f64(
    a: &impl PackSource<f64>,
    b: &impl PackSource<f64>,
    c: &mut [f64],
    ldc: usize,
) -> Result<(), GemmError> {
    matmul_f64_with(a, b, c, ldc, Options::default(), &|_: Block<'_, f64>| {})
}

/// [`matmul_f64`] with options and an epilogue (see [`matmul_f32_with`]).
pub fn matmul_f64_with<E: Fn(Block<'_, f64>) + Sync>(
    a: &impl PackSource<f64>,
    b: &impl PackSource<f64>,
    c: &mut [f64],
    ldc: usize,
    options: Options,
    epilogue: &E,
) -> Result<(), GemmError> {
    check_shapes::<f64, f64>(a, b, c.len(), ldc)?;
    threads::run(isa::f64_kernel(), a, b, c, ldc, options, epilogue);
    Ok(())
}

/// Elements of a buffer for [`pack_b_f32`] of a `k × n` operand (`None` if the size
/// overflows).
pub fn packed_b_len_f32(k: usize, n: usize) -> Option<usize> {
    packed::buffer_len(isa::f32_kernel(), k, n)
}

/// Packs `B` (`k × n`) once for this process's f32 kernel into `buf` (at least
/// [`packed_b_len_f32`] elements), for any number of [`matmul_f32_packed_with`] calls with
/// different `A`s, from any threads: a layer's weight shared by row blocks and tasks. With
/// [`Parallelism::Auto`] a large `B` is packed on rayon's threads.
pub fn pack_b_f32<'a>(
    b: &impl PackSource<f32>,
    buf: &'a mut [f32],
    options: Options,
) -> Result<PackedB<'a, f32>, GemmError> {
    let parallel = options.parallelism == Parallelism::Auto;
    PackedB::pack(isa::f32_kernel(), b, buf, parallel)
}

/// [`matmul_f32_with`] with a `B` packed by [`pack_b_f32`].
pub fn matmul_f32_packed_with<E: Fn(Block<'_, f32>) + Sync>(
    a: &impl PackSource<f32>,
    b: &PackedB<'_, f32>,
    c: &mut [f32],
    ldc: usize,
    options: Options,
    epilogue: &E,
) -> Result<(), GemmError> {
    check_dims((a.rows(), a.cols()), (b.rows(), b.cols()), c.len(), ldc)?;
    let ker = isa::f32_kernel();
    assert!(b.fits(ker), "a PackedB is packed for this process's kernel");
    threads::run_b(ker, a, b, c, ldc, options, epilogue);
    Ok(())
}

/// Elements of a buffer for [`pack_b_f64`] of a `k × n` operand.
pub fn packed_b_len_f64(k: usize, n: usize) -> Option<usize> {
    packed::buffer_len(isa::f64_kernel(), k, n)
}

/// [`pack_b_f32`] for the f64 kernel (f64 operands, or narrower floats with `acc = f64`).
pub fn pack_b_f64<'a>(
    b: &impl PackSource<f64>,
    buf: &'a mut [f64],
    options: Options,
) -> Result<PackedB<'a, f64>, GemmError> {
    let parallel = options.parallelism == Parallelism::Auto;
    PackedB::pack(isa::f64_kernel(), b, buf, parallel)
}

/// [`matmul_f64_with`] with a `B` packed by [`pack_b_f64`].
pub fn matmul_f64_packed_with<E: Fn(Block<'_, f64>) + Sync>(
    a: &impl PackSource<f64>,
    b: &PackedB<'_, f64>,
    c: &mut [f64],
    ldc: usize,
    options: Options,
    epilogue: &E,
) -> Result<(), GemmError> {
    check_dims((a.rows(), a.cols()), (b.rows(), b.cols()), c.len(), ldc)?;
    let ker = isa::f64_kernel();
    assert!(b.fits(ker), "a PackedB is packed for this process's kernel");
    threads::run_b(ker, a, b, c, ldc, options, epilogue);
    Ok(())
}

/// An integer operand: its values as `i64`, and the largest magnitude it can hold (which
/// decides whether products may be summed in `i32` lanes).
pub trait IntOperand: Copy + Sync + Convert<i64> + Convert<i32> {
    /// The largest `|x|` of the type, saturated to `u64`.
    const MAX_ABS: u64;
}

macro_rules! int_operand {
    ($($t:ty),*) => {$(
        impl IntOperand for $t {
            const MAX_ABS: u64 = {
                let lo = (<$t>::MIN as i128).unsigned_abs();
                let hi = <$t>::MAX as u128;
                let m = if lo > hi { lo } else { hi };
                if m > u64::MAX as u128 { u64::MAX } else { m as u64 }
            };
        }
    )*};
}
int_operand!(i8, u8, i16, u16, i32, u32, i64, u64);

/// `C = A · B` for integer operands, accumulated exactly in `i64` (wrapping only when the
/// true sum leaves `i64`; for `u64` results the bits are the same as a wrapping `u64` sum).
///
/// `i8`/`u8` (and `i16`/`u16` for short `k` blocks) operands are packed into `i32` and
/// summed in `i32` lanes over `k` blocks short enough never to overflow, then added into the
/// `i64` output; wider operands go through an `i64` kernel.
pub fn matmul_i64<TA: IntOperand, TB: IntOperand>(
    a: &MatRef<'_, TA>,
    b: &MatRef<'_, TB>,
    c: &mut [i64],
    ldc: usize,
) -> Result<(), GemmError> {
    matmul_i64_with(a, b, c, ldc, Options::default(), &|_: Block<'_, i64>| {})
}

/// [`matmul_i64`] with options and an epilogue (see [`matmul_f32_with`]).
pub fn matmul_i64_with<TA: IntOperand, TB: IntOperand, E: Fn(Block<'_, i64>) + Sync>(
    a: &MatRef<'_, TA>,
    b: &MatRef<'_, TB>,
    c: &mut [i64],
    ldc: usize,
    options: Options,
    epilogue: &E,
) -> Result<(), GemmError> {
    // A k block of `kc` products each below MAX_ABS_A · MAX_ABS_B sums in i32 when the
    // product of the three stays below 2³¹.
    let product = (TA::MAX_ABS as u128) * (TB::MAX_ABS as u128);
    let kc_safe = (i32::MAX as u128) / product.max(1);
    if kc_safe >= 64 {
        let ker = isa::i32_to_i64_kernel(kc_safe.min(1 << 20) as usize);
        check_shapes::<i32, i64>(a, b, c.len(), ldc)?;
        threads::run(&ker, a, b, c, ldc, options, epilogue);
    } else {
        check_shapes::<i64, i64>(a, b, c.len(), ldc)?;
        threads::run(isa::i64_kernel(), a, b, c, ldc, options, epilogue);
    }
    Ok(())
}

/// `C = A · B` for integer operands accumulated in `i32` with wrapping (the `acc = i32`
/// option: exact while every partial sum fits `i32`, e.g. `i8`·`i8` with `k ≤ 2¹⁷`).
pub fn matmul_i32<TA: IntOperand, TB: IntOperand>(
    a: &MatRef<'_, TA>,
    b: &MatRef<'_, TB>,
    c: &mut [i32],
    ldc: usize,
) -> Result<(), GemmError> {
    matmul_i32_with(a, b, c, ldc, Options::default(), &|_: Block<'_, i32>| {})
}

/// [`matmul_i32`] with options and an epilogue (see [`matmul_f32_with`]).
pub fn matmul_i32_with<TA: IntOperand, TB: IntOperand, E: Fn(Block<'_, i32>) + Sync>(
    a: &MatRef<'_, TA>,
    b: &MatRef<'_, TB>,
    c: &mut [i32],
    ldc: usize,
    options: Options,
    epilogue: &E,
) -> Result<(), GemmError> {
    check_shapes::<i32, i32>(a, b, c.len(), ldc)?;
    threads::run(isa::i32_kernel(), a, b, c, ldc, options, epilogue);
    Ok(())
}
