//! SIMD vector math for tensorgraph (f32x8 / f64x8 via the `wide` crate; f32x16 for the
//! f32-lane kernels on AVX-512 builds).
//!
//! Design
//! ------
//! * All f64 kernels are lane-wise translations of the well known Sun
//!   fdlibm / FreeBSD msun / musl algorithms (public domain-style "freely
//!   granted" licence, Copyright (C) 1993/2004 Sun Microsystems).  The
//!   polynomial / rational coefficients are the published fdlibm minimax
//!   coefficients; each block below names the fdlibm file they come from
//!   and the error bound fdlibm states for them.  The code itself is a new,
//!   branch-free SIMD formulation: every branch of the scalar original is
//!   evaluated for all lanes and the right one is chosen with a lane mask
//!   (`select`, the non-deprecated name of wide's `blend`).
//! * The f32 functions widen the 8 lanes to one f64x8 (exact), evaluate there and round
//!   once to f32. An f32 result needs the f64 value only to ~2^-30 relative (then it is
//!   within 0.5 + 2^-6 ulp), so the f32 paths do not run the fdlibm kernels: they use
//!   short polynomials sized for f32 (Taylor, or our own minimax fits: see each table and
//!   `tools/remez_trig.py`, `tools/log_table.py`, `tools/exp_fit.py`), f64's exponent
//!   range (every f32 subnormal is normal there), and divisions or square roots done in
//!   f32 (`vdivps` on a ymm costs a third of `vdivpd` on a zmm) and refined by one Newton
//!   step in f64 (`div_f32_newton`), or on AVX-512 a 14-bit reciprocal estimate refined
//!   the same way (`recip_1_2`). On AVX-512 builds log and log2 reduce by a 16-entry
//!   table instead of a long polynomial (`log_table`). Each kernel states its error
//!   budget. The f64 functions evaluate for all inputs, so every
//!   f32 bound is checked over all 2^32 inputs by `examples/ulp_sweep.rs` (ACCURACY.md).
//!   Exceptions: `sqrt_f32` is the hardware's, `rsqrt_f32` is sqrt(1/x) in f32, and
//!   atan/asin/acos (every build) and tan (FMA builds) evaluate in f32 lanes ("atan, asin,
//!   acos in f32 lanes", "Pure-f32 tan"): for these short functions the two conversions
//!   were most of the cost. So do exp and tanh (every build) and sigmoid, erf and gelu
//!   (FMA builds), the graphs' hot functions: `f32_kernels.rs`, generic over the lane
//!   width (f32x8, f32x16 on AVX-512 builds: `x16`), compiled a second time for AVX2+FMA
//!   on x86-64 builds without AVX2 and chosen once per process (`dispatch.rs`).
//! * Polynomials: `poly_fma` (Horner) or `poly_estrin` (shorter dependency chains for the
//!   latency-bound exp/log family and the f32 atan; the f64-lane sin/cos/tan kernels are
//!   bound by the two AVX-512 ports instead and keep Horner), over f32x8 or f64x8.
//!   `mul_add` is a fused multiply-add on FMA builds and a multiply and an add elsewhere;
//!   the f32 paths' budgets hold either way, and the f64 kernels (fdlibm's correctly
//!   rounded +,-,*,/ with exact products by clearing low mantissa bits) do not use it, so
//!   their results are identical on every build.
//! * Integer work on exponents is done with u64x8 wrapping add/sub, logical
//!   shifts and masks; small integers are converted to/from f64 with the
//!   "1.5*2^52 magic number" trick, which is exact and fully vectorised.
//! * Only sin/cos/tan have a per-lane scalar path, for lanes beyond their Cody–Waite
//!   reduction range (f64 lanes: |x| > 1.6e6; f32 lanes: |x| >= 2^19, through the f64
//!   kernel); those lanes call std's `f64::sin`/`f64::cos` (a Payne–Hanek reduction).
//!
//! The only `unsafe` blocks are AVX-512 intrinsics that wide does not offer, each in a
//! function compiled only when the build enables the feature (see their SAFETY comments):
//! the f32 <-> f64 conversions in `widen` and `narrow`, `vrsqrt14ps`, `vrcp14ps` and
//! `vrcp14pd` (`rsqrt_in_range`, `recip_for_quotient`, `recip_1_2`), the k-register
//! compares and merge-masked arithmetic of `LaneMask`, and `lookup16`'s `vpermt2pd`.
//! They are in `avx512.rs`, but for `rsqrt_in_range` (`sqrt.rs`) and `lookup16`
//! (`exp_log.rs`).
//!
//! Layout: a file per function family, each with its tests beside it (the f32-lane kernels
//! of exp, tanh, sigmoid, erf and gelu in `f32_kernels.rs`, their runtime dispatch in
//! `dispatch.rs`): `exp_log.rs`,
//! `trig.rs`, `hyperbolic.rs` (tanh, sinh, cosh), `inverse_hyperbolic.rs`, `erf_gelu.rs`,
//! `erfc_cbrt.rs`, `pow.rs`, `sigmoid.rs` (sigmoid, silu, softplus, swish's f64 kernel), `mish_gelu_tanh.rs`,
//! `sqrt.rs` (sqrt, rsqrt), `selu.rs` (selu's f64 kernel); the helpers they share in `poly.rs` (lane helpers, polynomial
//! evaluation, double-double arithmetic) and `avx512.rs`. Tests that span families (the
//! original functions' sweeps and special-value tables) are in `tests.rs`, the sweep
//! helpers in `sweep.rs`, the newer functions' helpers in `check.rs`.

// Public vector functions inline into kernels on AVX2/AVX-512 builds (one register per
// f64x8, measured faster: softmax -15%, W2 -8% native); on the SSE2 baseline an f64x8 is
// four registers and inlining the long polynomials into kernels spills (measured W2 +65%,
// softmax +16%), so there they stay calls. See BENCHMARKS.md.
//
// Coefficients are written with every digit their source gives, and split constants (π/2
// hi/lo, ln 2 hi/lo) look like `std::f64::consts` but are not: both lints misfire here.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use wide::{f32x8, f64x8, u64x8};

// Defined before the family modules so that they can use it (macro_rules! scope is textual).
/// f32 front ends that are exactly "the f64 kernel, rounded once": `name_f32` widens the
/// lanes, calls `name_f64` and rounds each result to f32.
macro_rules! f32_via_f64 {
    ($($(#[$doc:meta])* $f32:ident => $f64:ident;)*) => {$(
        $(#[$doc])*
        #[cfg_attr(target_feature = "avx2", inline)]
        pub fn $f32(x: f32x8) -> f32x8 {
            narrow($f64(widen(x)))
        }
    )*};
}

// One file per function family; every family sees the others' helpers through the glob
// imports below (`use super::*` in each file), and the public functions are re-exported
// here, so every path stays `vmath::name`.
mod avx512;
#[cfg(test)]
mod check;
mod dispatch;
mod erf_gelu;
mod erfc_cbrt;
mod exp_log;
pub(crate) mod f32_kernels;
mod hyperbolic;
mod inverse_hyperbolic;
mod mish_gelu_tanh;
mod poly;
mod pow;
mod selu;
mod sigmoid;
mod sqrt;
#[cfg(test)]
mod sweep;
#[cfg(test)]
mod tests;
mod trig;

use avx512::*;
use erf_gelu::*;
use exp_log::*;
use hyperbolic::*;
use poly::*;
use sigmoid::*;

#[allow(unused_imports)] // crate-internal path kept from the single-file module
pub(crate) use avx512::{narrow, widen};
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
pub use dispatch::avx2_lanes::{kernel_isa, set_simd_level};
pub(crate) use dispatch::blocks_run_avx2_fma;
#[cfg(all(
    feature = "dispatch",
    target_arch = "x86_64",
    not(target_feature = "avx2")
))]
pub(crate) use dispatch::zmm;
pub use dispatch::{block, f32_kernel_isa, x16, BLOCK};
/// Re-exports the f32x8 and f64x8 kernels of each `unary` row of the function table
/// (functions.rs) from its family file, so that every path stays `vmath::name`.
macro_rules! reexport_kernels {
    (() $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(reexport_kernels!(@row $kind $args);)*
    };
    (@row unary ($r:ident, $family:ident::{$k32:ident, $k64:ident}, $($k16:ident)+)) => {
        pub use $family::{$k32, $k64};
    };
    (@row hand $args:tt) => {};
}
crate::functions::for_each_float_function!(reexport_kernels);
// The kernels that are not a `unary` row of the table: scalar ones, softmax's exp, `pow`,
// the f64 kernels of two activations.
pub use erf_gelu::{erf_scalar_f64, erfc_fdlibm_f64, erfc_scalar_f64, erfc_tail_exponents_scalar};
pub use exp_log::exp_nonpos_f32;
pub use pow::{pow_f32, pow_f64};
pub use selu::selu_f64;
pub use sigmoid::swish_f64;

type F = f64x8;
type U = u64x8;
