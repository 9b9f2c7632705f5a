//! SIMD vector math for tensorgraph (f32x8 / f64x8 via the `wide` crate).
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
//!   were most of the cost.
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

// Public vector functions inline into kernels on AVX2/AVX-512 builds (one register per
// f64x8, measured faster: softmax -15%, W2 -8% native); on the SSE2 baseline an f64x8 is
// four registers and inlining the long polynomials into kernels spills (measured W2 +65%,
// softmax +16%), so there they stay calls. See BENCHMARKS.md.
//
// Coefficients are written with every digit their source gives, and split constants (π/2
// hi/lo, ln 2 hi/lo) look like `std::f64::consts` but are not: both lints misfire here.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use wide::{f32x8, f64x8, u64x8};

// The wider op table's float unaries, one file per family (they use the helpers below).
#[cfg(test)]
mod check;
mod erfc_cbrt;
mod inverse_hyperbolic;
mod mish_gelu_tanh;
pub use erfc_cbrt::{cbrt_f32, cbrt_f64, erfc_f32, erfc_f64};
pub use inverse_hyperbolic::{acosh_f32, acosh_f64, asinh_f32, asinh_f64, atanh_f32, atanh_f64};
pub use mish_gelu_tanh::{gelu_tanh_f32, gelu_tanh_f64, mish_f32, mish_f64};

type F = f64x8;
type U = u64x8;

// ---------------------------------------------------------------------------
// small helpers
// ---------------------------------------------------------------------------

#[inline(always)]
fn sp(v: f64) -> F {
    F::splat(v)
}
#[inline(always)]
fn us(v: u64) -> U {
    U::splat(v)
}
#[inline(always)]
fn bits(x: F) -> U {
    x.to_bits()
}
#[inline(always)]
fn from_bits(u: U) -> F {
    F::from_bits(u)
}
/// Lane select: `m` must be a lane mask (all ones / all zeros per lane).
#[inline(always)]
fn sel(m: F, a: F, b: F) -> F {
    m.select(a, b)
}
/// Mask as u64 lanes (all ones / zeros).
#[inline(always)]
fn mask_u(m: F) -> U {
    bits(m)
}

/// 1.5 * 2^52: adding it to |v| < 2^51 rounds v to the nearest integer
/// (ties to even) and leaves that integer in the low mantissa bits.
const MAGIC: f64 = 6755399441055744.0;

/// Round to nearest integer (ties even), valid for |v| < 2^51.
#[inline(always)]
fn rint(v: F) -> F {
    (v + MAGIC) - MAGIC
}
/// Integer-valued float (|v| < 2^51) -> two's complement integer in u64 lanes.
#[inline(always)]
fn f2i(v: F) -> U {
    bits(v + MAGIC) - bits(sp(MAGIC))
}
/// Two's complement integer (|k| < 2^51) in u64 lanes -> f64.
#[inline(always)]
fn i2f(k: U) -> F {
    from_bits(k + bits(sp(MAGIC))) - MAGIC
}
/// 2^k for integer-valued float k in [-1022, 1023].
#[inline(always)]
fn pow2(kf: F) -> F {
    from_bits((f2i(kf) + us(1023)) << 52)
}
/// y * 2^k for integer-valued k in [-2000, 2000] (k split in two halves so
/// that both factors are normal; only the last multiply can round, which is
/// the single rounding into the subnormal range).
#[inline(always)]
fn scale(y: F, kf: F) -> F {
    let k1 = rint(kf * 0.5);
    let k2 = kf - k1;
    y * pow2(k1) * pow2(k2)
}
/// Clear the low 32 bits (fdlibm's SET_LOW_WORD(x, 0)): the result has at
/// most 21 significant bits, so products of two such values are exact.
#[inline(always)]
fn clear_low(v: F) -> F {
    from_bits(bits(v) & us(0xffff_ffff_0000_0000))
}
#[inline(always)]
fn is_nan(x: F) -> F {
    x.simd_ne(x)
}
#[inline(always)]
fn sign_bit(x: F) -> U {
    bits(x) & us(0x8000_0000_0000_0000)
}
/// Copy the sign of `s` onto `|m|`.
#[inline(always)]
fn copysign(m: F, s: F) -> F {
    from_bits((bits(m) & us(0x7fff_ffff_ffff_ffff)) | sign_bit(s))
}

/// Widen 8 f32 lanes to 8 f64 lanes (exact).  Without AVX-512 LLVM lowers the array map to
/// one cvtps2pd per register of the f64x8 (4 on SSE2, 2 on AVX2), which is the layout wide
/// uses there.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
pub(crate) fn widen(x: f32x8) -> F {
    F::new(x.to_array().map(|v| v as f64))
}
/// Widen 8 f32 lanes to 8 f64 lanes (exact): one `vcvtps2pd zmm, ymm`.
///
/// The array map above compiles here to two 256-bit conversions stored to the stack and
/// reloaded as one zmm (LLVM prefers 256-bit vectors on these cores): a failed store
/// forward that made every f32 function wait for the previous call to retire (sin measured
/// 24.7 µs per 4096 values this way, wide's own 5.8 µs).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
pub(crate) fn widen(x: f32x8) -> F {
    use core::arch::x86_64::{__m256, __m512d, _mm512_cvtps_pd};
    let v: __m256 = bytemuck::cast(x);
    // SAFETY: `_mm512_cvtps_pd` only requires the avx512f target feature, and this item is
    // compiled only when avx512f is enabled for the whole build (the `cfg` above), so every
    // CPU this code can run on has it. It reads and writes registers only.
    let w: __m512d = unsafe { _mm512_cvtps_pd(v) };
    bytemuck::cast(w)
}
/// Round 8 f64 lanes to f32 (single correctly rounded conversion per lane,
/// cvtpd2ps; overflow -> inf, subnormal results rounded correctly).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
pub(crate) fn narrow(x: F) -> f32x8 {
    f32x8::new(x.to_array().map(|v| v as f32))
}
/// Round 8 f64 lanes to f32: one `vcvtpd2ps ymm, zmm` (the same rounding as `as f32`:
/// round to nearest even, overflow to inf, correctly rounded subnormals). The array map
/// compiles to it in most kernels, but where a value's two paths merge LLVM has split it
/// into scalar conversions (seen in sin/cos/tan).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
pub(crate) fn narrow(x: F) -> f32x8 {
    use core::arch::x86_64::{__m256, __m512d, _mm512_cvtpd_ps};
    let v: __m512d = bytemuck::cast(x);
    // SAFETY: as in `widen`: `_mm512_cvtpd_ps` needs only avx512f, which the `cfg` above
    // guarantees for the whole build; it reads and writes registers only. It rounds with
    // the MXCSR mode, which Rust code never changes from round-to-nearest-even.
    let n: __m256 = unsafe { _mm512_cvtpd_ps(v) };
    bytemuck::cast(n)
}

/// `fast` where every lane of the mask `ok` is set (the common case: one test and a
/// branch); otherwise the lanes outside `ok` are taken from `rare(x)`, computed out of line
/// so that the rare path weighs nothing on the fast path's registers. Used where a fast
/// kernel is valid on all but a few inputs (huge trig arguments, tan's |x| >= 2^18 on FMA
/// builds, rsqrt's zeros, subnormals and negative x, log's and log2's lanes that are not
/// positive finite on AVX-512 builds); the merge is in f32 lanes, after the fast path's
/// single narrowing. Only `x` crosses the call, in integer registers (`call_rare`):
/// passing `fast` too made the fast path store it to the stack and reload it (rsqrt 1.9 ->
/// 2.3 µs per 4096).
#[inline(always)]
fn fast_or_rare_lanes(x: f32x8, ok: f32x8, fast: f32x8, rare: fn(f32x8) -> f32x8) -> f32x8 {
    if ok.all() {
        fast
    } else {
        let [a, b, c, d]: [u64; 4] = bytemuck::cast(x);
        ok.select(fast, call_rare(a, b, c, d, rare))
    }
}

/// `rare(x)`, out of line, with x's 8 lanes in four integer registers. An f32x8 (or an
/// array) argument is passed by a pointer to a copy, and LLVM then stored every x to the
/// stack before the fast path and read it back from there: a store-forwarding delay at the
/// start of every kernel that uses `fast_or_rare_lanes`.
#[cold]
#[inline(never)]
fn call_rare(a: u64, b: u64, c: u64, d: u64, rare: fn(f32x8) -> f32x8) -> f32x8 {
    rare(bytemuck::cast([a, b, c, d]))
}

// ---------------------------------------------------------------------------
// exp  (fdlibm e_exp.c)
// ---------------------------------------------------------------------------
// x = k*ln2 + r, |r| <= ln2/2, k = rint(x/ln2); ln2 = LN2_HI + LN2_LO where
// LN2_HI has 32 significant bits so k*LN2_HI is exact for |k| < 2^21.
// exp(r) = 1 + r + r*c/(2-c),  c = r - r^2*(P1 + r^2*(P2 + ... + r^2*P5)),
// P1..P5: fdlibm Remez coefficients, |error| < 2^-59 ; fdlibm: < 1 ulp.
const LN2_HI: f64 = 6.93147180369123816490e-01; // 0x3fe62e42fee00000
const LN2_LO: f64 = 1.90821492927058770002e-10; // 0x3dea39ef35793c76
const INVLN2: f64 = 1.44269504088896338700e+00; // 0x3ff71547652b82fe
const EP1: f64 = 1.66666666666666019037e-01;
const EP2: f64 = -2.77777777770155933842e-03;
const EP3: f64 = 6.61375632143793436117e-05;
const EP4: f64 = -1.65339022054652515390e-06;
const EP5: f64 = 4.13813679705723846039e-08;
const EXP_O_THRESHOLD: f64 = 7.09782712893383973096e+02; // exp(x) overflows above
const EXP_U_THRESHOLD: f64 = -7.45133219101941108420e+02; // exp(x) == 0 below

/// exp(x) * 2^s for finite x in [-1000, 710] and integer-valued s (|s| <= 300);
/// the 2^s factor is folded into the final exponent scaling, so results
/// that would be subnormal (or overflow) for s = 0 keep full precision.
#[inline(always)]
fn exp_core(xc: F, s: F) -> F {
    exp_core2(xc, sp(0.0), s)
}

/// exp(a + b) * 2^s where b is a small (|b| < 1) low-order addend: the
/// fdlibm reduction hi = a - k*ln2_hi stays exact and b is folded into the
/// low part lo, so a + b never has to be rounded to one double.
#[inline(always)]
fn exp_core2(a: F, b: F, s: F) -> F {
    let kf = rint((a + b) * INVLN2);
    let hi = a - kf * LN2_HI;
    let lo = kf * LN2_LO - b;
    let r = hi - lo;
    let t = r * r;
    let c = r - t * (sp(EP1) + t * (sp(EP2) + t * (sp(EP3) + t * (sp(EP4) + t * EP5))));
    let y = sp(1.0) - ((lo - (r * c) / (sp(2.0) - c)) - hi);
    scale(y, kf + s)
}

/// e^x for each lane of an f64x8 (fdlibm algorithm, <= 1 ulp in normal range).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn exp_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.simd_gt(sp(710.0)), sp(710.0), x);
    let xc = sel(xc.simd_lt(sp(-746.0)), sp(-746.0), xc);
    let xc = sel(is_nan(xc), sp(0.0), xc);
    let mut res = exp_core(xc, sp(0.0));
    res = sel(x.simd_gt(sp(EXP_O_THRESHOLD)), sp(f64::INFINITY), res);
    res = sel(x.simd_lt(sp(EXP_U_THRESHOLD)), sp(0.0), res);
    sel(is_nan(x), x, res)
}

// ---------------------------------------------------------------------------
// expm1 (fdlibm s_expm1.c, musl variant) -- used by sinh, cosh
// ---------------------------------------------------------------------------
// Same reduction as exp, with a correction term c for the rounding of r.
// expm1(r) via R1(r^2), a degree-5 Remez polynomial (|err| < 2^-61, fdlibm),
// then reconstruction 2^k*(expm1(r)+1)-1 in the branch-specific forms of
// fdlibm, which fdlibm proves < 1 ulp.
const Q1: f64 = -3.33333333333331316428e-02;
const Q2: f64 = 1.58730158725481460165e-03;
const Q3: f64 = -7.93650757867487942473e-05;
const Q4: f64 = 4.00821782732936239552e-06;
const Q5: f64 = -2.01099218183624371326e-07;

/// e^x - 1 (fdlibm s_expm1.c, < 1 ulp).
pub fn expm1_f64(x: F) -> F {
    let xc = sel(x.simd_gt(sp(710.0)), sp(710.0), x);
    let xc = sel(xc.simd_lt(sp(-45.0)), sp(-45.0), xc);
    let xc = sel(is_nan(xc), sp(0.0), xc);
    let kf = rint(xc * INVLN2);
    let hi = xc - kf * LN2_HI;
    let lo = kf * LN2_LO;
    let xr = hi - lo;
    let c = (hi - xr) - lo;
    let hfx = xr * 0.5;
    let hxs = xr * hfx;
    let r1 = sp(1.0) + hxs * (sp(Q1) + hxs * (sp(Q2) + hxs * (sp(Q3) + hxs * (sp(Q4) + hxs * Q5))));
    let t = sp(3.0) - r1 * hfx;
    let e = hxs * ((r1 - t) / (sp(6.0) - xr * t));
    // k == 0
    let res0 = xr - (xr * e - hxs);
    let e2 = xr * (e - c) - c - hxs;
    // k == -1
    let res_m1 = (xr - e2) * 0.5 - 0.5;
    // k == 1
    let res_1 = sel(
        xr.simd_lt(sp(-0.25)),
        (e2 - (xr + 0.5)) * -2.0,
        sp(1.0) + (xr - e2) * 2.0,
    );
    // k <= -2 or k > 56: 2^k*(r - e + 1) - 1, with 2^k = 2^(k-1)*2 (k may be 1024)
    let big = (xr - e2 + 1.0) * pow2(kf - 1.0) * 2.0 - 1.0;
    // 2 <= k <= 56
    let kmid = sel(
        kf.simd_lt(sp(2.0)),
        sp(2.0),
        sel(kf.simd_gt(sp(56.0)), sp(56.0), kf),
    );
    let twopk = pow2(kmid);
    let umk = pow2(-kmid);
    let mid_lo = (xr - e2 + (sp(1.0) - umk)) * twopk; // k < 20
    let mid_hi = (xr - (e2 + umk) + 1.0) * twopk; // k >= 20
    let mut res = sel(kf.simd_lt(sp(20.0)), mid_lo, mid_hi);
    res = sel(kf.simd_lt(sp(2.0)) | kf.simd_gt(sp(56.0)), big, res);
    res = sel(kf.simd_eq(sp(1.0)), res_1, res);
    res = sel(kf.simd_eq(sp(-1.0)), res_m1, res);
    res = sel(kf.simd_eq(sp(0.0)), res0, res);
    res = sel(x.simd_gt(sp(EXP_O_THRESHOLD)), sp(f64::INFINITY), res);
    res = sel(x.simd_lt(sp(-45.0)), sp(-1.0), res);
    // |x| < 2^-54: expm1(x) = x (also keeps -0.0)
    res = sel(x.abs().simd_lt(sp(5.551115123125783e-17)), x, res);
    sel(is_nan(x), x, res)
}

// ---------------------------------------------------------------------------
// log / log1p (fdlibm e_log.c, s_log1p.c in musl's formulation)
// ---------------------------------------------------------------------------
// x = 2^k * (1+f), sqrt(2)/2 < 1+f < sqrt(2).  s = f/(2+f),
// log(1+f) = f - f^2/2 + s*(f^2/2 + R(s^2)), R a Remez polynomial
// (Lg1..Lg7, |err| < 2^-58.45, fdlibm), log(x) = k*ln2_hi + (log(1+f) +
// k*ln2_lo).  fdlibm: < 1 ulp.  For log1p, u = 1+x is decomposed the same
// way and c = (x - (u-1))/u (or (1-(u-x))/u) corrects the rounding of u.
const LG1: f64 = 6.666666666666735130e-01;
const LG2: f64 = 3.999999999940941908e-01;
const LG3: f64 = 2.857142874366239149e-01;
const LG4: f64 = 2.222219843214978396e-01;
const LG5: f64 = 1.818357216161805012e-01;
const LG6: f64 = 1.531383769920937332e-01;
const LG7: f64 = 1.479819860511658591e-01;
/// 0x3ff0000000000000 - 0x3fe6a09e00000000: shifts the binade boundary to
/// sqrt(2)/2 (musl's trick) so that the mantissa lands in [sqrt2/2, sqrt2).
const SQRT2_SHIFT: u64 = 0x3ff0_0000_0000_0000 - 0x3fe6_a09e_0000_0000;

/// log(1+f) + k*ln2 + c for the reduced f, integer-valued dk.
#[inline(always)]
fn log_kernel(f: F, dk: F, c: F) -> F {
    let hfsq = f * f * 0.5;
    let s = f / (sp(2.0) + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (sp(LG2) + w * (sp(LG4) + w * LG6));
    let t2 = z * (sp(LG1) + w * (sp(LG3) + w * (sp(LG5) + w * LG7)));
    let r = t2 + t1;
    s * (hfsq + r) + (dk * LN2_LO + c) - hfsq + f + dk * LN2_HI
}

/// Decompose positive normal x: returns (f, k) with x = 2^k (1+f), 1+f in [sqrt2/2, sqrt2).
#[inline(always)]
fn log_reduce(x: F) -> (F, F) {
    let hx = bits(x) + us(SQRT2_SHIFT);
    let kf = i2f((hx >> 52) - us(0x3ff));
    let m = from_bits((hx & us(0x000f_ffff_ffff_ffff)) + us(0x3fe6_a09e_0000_0000));
    (m - 1.0, kf)
}

/// Natural logarithm (fdlibm algorithm, < 1 ulp; subnormals handled by prescaling).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log_f64(x: f64x8) -> f64x8 {
    let sub = x.simd_lt(sp(f64::MIN_POSITIVE));
    let xs = sel(sub, x * 18014398509481984.0, x); // * 2^54
    let (f, kf) = log_reduce(xs);
    let kf = kf - (sp(54.0) & sub);
    let mut res = log_kernel(f, kf, sp(0.0));
    res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    res = sel(x.simd_lt(sp(0.0)), sp(f64::NAN), res);
    res = sel(x.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), res);
    sel(is_nan(x), x, res)
}

/// log(1+x) (musl/fdlibm log1p algorithm, < 1 ulp).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log1p_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.simd_lt(sp(-0.5)) | is_nan(x), sp(-0.5), x); // keep u > 0
    let u = sp(1.0) + xc;
    let (fr, kf) = log_reduce(u);
    let k0 = kf.simd_eq(sp(0.0));
    let c = sel(kf.simd_ge(sp(2.0)), sp(1.0) - (u - xc), xc - (u - 1.0)) / u;
    let c = sel(k0 | kf.simd_ge(sp(54.0)), sp(0.0), c);
    let f = sel(k0, xc, fr);
    let mut res = log_kernel(f, kf, c);
    // x in [-1, -0.5): 1+x is exact (Sterbenz), so log(1+x) is exactly log(u)
    let lt = x.simd_lt(sp(-0.5));
    if lt.any() {
        res = sel(lt, log_f64(sp(1.0) + x), res);
    }
    res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    res = sel(x.simd_lt(sp(-1.0)), sp(f64::NAN), res);
    res = sel(x.simd_eq(sp(-1.0)), sp(f64::NEG_INFINITY), res);
    // |x| < 2^-53: log1p(x) = x (correctly rounded; keeps -0.0)
    res = sel(x.abs().simd_lt(sp(1.1102230246251565e-16)), x, res);
    sel(is_nan(x), x, res)
}

// ---------------------------------------------------------------------------
// sin / cos  (fdlibm e_rem_pio2.c medium path + k_sin.c + k_cos.c)
// ---------------------------------------------------------------------------
// n = rint(x*2/pi); r = x - n*pi/2 with pi/2 split into three 33-bit pieces
// PIO2_1,PIO2_2,PIO2_3 (+ tails) so each n*PIO2_i is exact for |n| < 2^20,
// giving y0 + y1 = r to ~2^-118 relative (all three fdlibm rounds are always
// applied).  Valid for |x| <= 1.6e6 (n < 2^20); larger finite lanes use std.
// Kernels: sin(r) = r + r^3*(S1 + r^2*S2 ...), |err| < 2^-58 ;
// cos(r) = 1 - r^2/2 + r^4*(C1 + ...), |err| < 2^-58 (fdlibm Remez coeffs).
const INVPIO2: f64 = f64::from_bits(0x3FE45F306DC9C883);
const PIO2_1: f64 = f64::from_bits(0x3FF921FB54400000);
const PIO2_2: f64 = f64::from_bits(0x3DD0B4611A600000);
const PIO2_3: f64 = f64::from_bits(0x3BA3198A2E000000);
const PIO2_3T: f64 = f64::from_bits(0x397B839A252049C1);
const S1: f64 = -1.66666666666666324348e-01;
const S2: f64 = 8.33333333332248946124e-03;
const S3: f64 = -1.98412698298579493134e-04;
const S4: f64 = 2.75573137070700676789e-06;
const S5: f64 = -2.50507602534068634195e-08;
const S6: f64 = 1.58969099521155010221e-10;
const C1: f64 = 4.16666666666666019037e-02;
const C2: f64 = -1.38888888888741095749e-03;
const C3: f64 = 2.48015872894767294178e-05;
const C4: f64 = -2.75573143513906633035e-07;
const C5: f64 = 2.08757232129817482790e-09;
const C6: f64 = -1.13596475577881948265e-11;
const TRIG_SIMD_MAX: f64 = 1.6e6;

/// Knuth's TwoSum for a - b: returns (s, e) with s + e == a - b exactly.
#[inline(always)]
fn two_diff(a: F, b: F) -> (F, F) {
    let s = a - b;
    let bb = s - a;
    let e = (a - (s - bb)) - (b + bb);
    (s, e)
}

#[inline(always)]
fn k_sin(x: F, y: F) -> F {
    let z = x * x;
    let w = z * z;
    let r = sp(S2) + z * (sp(S3) + z * S4) + z * w * (sp(S5) + z * S6);
    let v = z * x;
    x - ((z * (y * 0.5 - v * r) - y) - v * S1)
}

#[inline(always)]
fn k_cos(x: F, y: F) -> F {
    let z = x * x;
    let w = z * z;
    let r = z * (sp(C1) + z * (sp(C2) + z * C3)) + w * w * (sp(C4) + z * (sp(C5) + z * C6));
    let hz = z * 0.5;
    let w = sp(1.0) - hz;
    w + (((sp(1.0) - w) - hz) + (z * r - x * y))
}

/// Returns (sin x, cos x) for |x| <= TRIG_SIMD_MAX (other lanes garbage).
#[inline(always)]
fn sincos_core(x: F) -> (F, F) {
    let xc = sel(x.abs().simd_le(sp(TRIG_SIMD_MAX)), x, sp(0.0));
    let fnn = rint(xc * INVPIO2);
    let n = f2i(fnn);
    // round 1: exact (PIO2_1 has 33 bits, |n| < 2^20; Sterbenz for the difference)
    let t = xc - fnn * PIO2_1;
    // round 2: r2 + e2 = t - n*PIO2_2 exactly (TwoSum; n*PIO2_2 is exact)
    let (r2, e2) = two_diff(t, fnn * PIO2_2);
    // round 3: PIO2_2T = PIO2_3 + PIO2_3T
    let (r3, e3) = two_diff(r2, fnn * PIO2_3);
    // x - n*pi/2 = r3 + e3 + e2 - n*PIO2_3T  (+ O(n * 2^-150))
    let w = fnn * PIO2_3T - e3 - e2;
    let y0 = r3 - w;
    let y1 = (r3 - y0) - w;
    let s = k_sin(y0, y1);
    let c = k_cos(y0, y1);
    let odd = i2f(n & us(1)).simd_eq(sp(1.0));
    let q2 = i2f(n & us(2)).simd_eq(sp(2.0));
    let q3 = i2f((n + us(1)) & us(2)).simd_eq(sp(2.0));
    // sin: q0 s, q1 c, q2 -s, q3 -c ; cos: q0 c, q1 -s, q2 -c, q3 s
    let sin_mag = sel(odd, c, s);
    let cos_mag = sel(odd, s, c);
    let sinv = sel(q2, -sin_mag, sin_mag);
    let cosv = sel(q3, -cos_mag, cos_mag);
    (sinv, cosv)
}

fn trig_fallback(x: F, res: F, f: fn(f64) -> f64) -> F {
    let big = x.abs().simd_gt(sp(TRIG_SIMD_MAX)) & x.abs().simd_lt(sp(f64::INFINITY));
    if big.none() {
        return res;
    }
    // Rare path: huge finite |x|; std performs an exact (Payne–Hanek) reduction.
    let xa = x.to_array();
    let mut ra = res.to_array();
    let m = big.to_bitmask();
    for i in 0..8 {
        if m & (1 << i) != 0 {
            ra[i] = f(xa[i]);
        }
    }
    F::new(ra)
}

/// sin(x): SIMD for |x| <= 1.6e6, per-lane std fallback beyond.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sin_f64(x: f64x8) -> f64x8 {
    let (s, _) = sincos_core(x);
    let s = sel(x.simd_eq(sp(0.0)), x, s); // sin(+-0) = +-0
    let s = sel(
        x.abs().simd_eq(sp(f64::INFINITY)) | is_nan(x),
        sp(f64::NAN),
        s,
    );
    trig_fallback(x, s, f64::sin)
}

/// cos(x): SIMD for |x| <= 1.6e6, per-lane std fallback beyond.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cos_f64(x: f64x8) -> f64x8 {
    let (_, c) = sincos_core(x);
    let c = sel(
        x.abs().simd_eq(sp(f64::INFINITY)) | is_nan(x),
        sp(f64::NAN),
        c,
    );
    trig_fallback(x, c, f64::cos)
}

// ---------------------------------------------------------------------------
// tanh: fdlibm's formula with e^(-2|x|) in double-double
// ---------------------------------------------------------------------------
// tanh|x| = (1 - u)/(1 + u), u = e^(-2|x|) = 2^k·(1 + p), p = e^r - 1. fdlibm computes
// -t/(t+2) from t = expm1(-2|x|) rounded to one double, whose ~1 ulp error the quotient
// amplifies up to 2x (3 ulp measured). Here p is carried as hi + lo:
// -2|x| = k·ln2 + r with r = rh + rl (fdlibm's split: rh + rl = r to ~2^-80 absolute),
// p = rh + rh^2/2 (exact: two_prod, then one fast two-sum) + [rl·(1 + rh) + rh^3·T(rh)]
// (then renormalised, so the quotient below may treat the low parts as tiny),
// T the Taylor series 1/3! + rh/4! + ... + rh^11/14! (remainder < 2^-61.6 relative for
// |r| <= 0.347; the bracket is < 0.02·|p|, so its roundings are < 2^-57 of p).
// 1 - u = (1 - 2^k) - 2^k·p and 1 + u = 2 - (1 - u) are formed with exact fast two-sums
// (for k = 0, 1 - u = -p: no cancellation), and the double-double quotient is q0 = n·(1/d)
// plus one exact-remainder correction: a few 2^-56 before the final rounding (< 0.6 ulp).
// |x| >= 22: 1; |x| < 2^-28: x. Sign copied. No FMA (same results on every build).

/// Coefficients of T: 1/k! for k = 3..=14.
const TANH_T: [f64; 12] = [
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
    1.0 / 39916800.0,
    1.0 / 479001600.0,
    1.0 / 6227020800.0,
    1.0 / 87178291200.0,
];

/// a + b = s + e exactly, for any a, b (Knuth's TwoSum).
#[inline(always)]
fn two_sum(a: F, b: F) -> (F, F) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// a + b = s + e exactly, for |a| >= |b| or a == 0.
#[inline(always)]
fn fast_two_sum(a: F, b: F) -> (F, F) {
    let s = a + b;
    (s, b - (s - a))
}

/// e^(v + v_lo) = 2^k·(1 + ph + pl) for -800 <= v <= 0 and |v_lo| <= ulp(v) (the
/// reduction above; 2^k is the caller's to apply, possibly scaled): returns (k, ph, pl)
/// with (ph, pl) normalised (|pl| <= ulp(ph)/2), within a few 2^-57 of e^r - 1 relative.
/// Used where e^v must carry more than one double's precision (tanh, silu, gelu).
#[inline(always)]
fn exp_dd_parts(v: F, v_lo: F) -> (F, F, F) {
    let kf = rint(v * INVLN2);
    let hi = v - kf * LN2_HI; // exact
    let lo = kf * LN2_LO - v_lo;
    let rh = hi - lo;
    let rl = (hi - rh) - lo;
    // p = e^(rh + rl) - 1 = ph + pl
    let (sq, sq_e) = two_prod(rh, rh);
    let (p1, e1) = fast_two_sum(rh, sq * 0.5);
    let tail = e1 + sq_e * 0.5 + (rl + rl * rh + rh * sq * horner(rh, &TANH_T));
    let (ph, pl) = fast_two_sum(p1, tail);
    (kf, ph, pl)
}

/// e^(v + v_lo)·2^sc as a double-double (eh, el) for `exp_dd_parts`'s domain and an
/// integer-valued sc (0 or 256 here) that keeps 2^(k + sc) normal: 2^(k + sc)·(1 + ph +
/// pl), with 1 + ph exact by `fast_two_sum` and the scaling exact for eh (el may be
/// subnormal, at most 2^-64 of e).
#[inline(always)]
fn exp_dd_scaled(v: F, v_lo: F, sc: F) -> (F, F) {
    let (kf, ph, pl) = exp_dd_parts(v, v_lo);
    let two_k = pow2(kf + sc);
    let (e1, e1_l) = fast_two_sum(sp(1.0), ph);
    (two_k * e1, two_k * (e1_l + pl))
}

/// (nh + nl)/(dh + dl) rounded once, for normalised double-doubles: q0 = nh·(1/dh) to ~1
/// ulp, then q0 + (n - q0·d)·(1/dh) with nh - q0·dh exact (`two_prod`): a few 2^-56
/// before the final rounding.
#[inline(always)]
fn div_dd(nh: F, nl: F, dh: F, dl: F) -> F {
    let rcp = sp(1.0) / dh;
    let q0 = nh * rcp;
    let (qd, qd_e) = two_prod(q0, dh);
    let rem = ((nh - qd) - qd_e) + (nl - q0 * dl);
    q0 + rem * rcp
}

/// Hyperbolic tangent, < 1 ulp (double-double e^(-2|x|), see above).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tanh_f64(x: f64x8) -> f64x8 {
    let ax = x.abs();
    let a = sel(ax.simd_gt(sp(22.0)), sp(22.0), ax);
    let (kf, ph, pl) = exp_dd_parts(a * -2.0, sp(0.0));
    // n = 1 - 2^k(1 + p) = (1 - 2^k) - 2^k·p; 2^k·p is exact scaling.
    let two_k = pow2(kf);
    let (a1, a1_e) = fast_two_sum(sp(1.0), -two_k);
    let (nh, n_e) = fast_two_sum(a1, -(two_k * ph));
    let nl = n_e + a1_e - two_k * pl;
    // d = 1 + u = 2 - n
    let (dh, d_e) = fast_two_sum(sp(2.0), -nh);
    let dl = d_e - nl;
    let z = div_dd(nh, nl, dh, dl);
    let z = sel(ax.simd_ge(sp(22.0)), sp(1.0), z);
    let mut res = copysign(z, x);
    res = sel(ax.simd_lt(sp(3.725290298461914e-9)), x, res); // 2^-28
    sel(is_nan(x), x, res)
}

// ---------------------------------------------------------------------------
// erf / erfc (fdlibm s_erf.c)
// ---------------------------------------------------------------------------
// |x| < 0.84375:      erf = x + x*P(x^2)/Q(x^2)             (|err| < 2^-57.90)
// 0.84375..1.25:      erf = erx + P1(s)/Q1(s), s = |x|-1     (|err| < 2^-59.06)
// 1.25..1/0.35:       erfc = exp(-x^2 - 0.5625 + R1/S1(1/x^2)) / x (2^-62.57)
// 1/0.35..28:         erfc = exp(-x^2 - 0.5625 + R2/S2(1/x^2)) / x (2^-61.52)
// exp(-x^2) is evaluated as exp(-z^2-0.5625)*exp((z-x)(z+x)+R/S) with z = x
// rounded to 21 bits, so -z^2 is exact.  fdlibm: erf, erfc < 1 ulp.
const ERX: f64 = 8.45062911510467529297e-01;
const EFX8: f64 = 1.02703333676410069053e+00;
const PP: [f64; 5] = [
    1.28379167095512558561e-01,
    -3.25042107247001499370e-01,
    -2.84817495755985104766e-02,
    -5.77027029648944159157e-03,
    -2.37630166566501626084e-05,
];
const QQ: [f64; 6] = [
    1.0,
    3.97917223959155352819e-01,
    6.50222499887672944485e-02,
    5.08130628187576562776e-03,
    1.32494738004321644526e-04,
    -3.96022827877536812320e-06,
];
const PA: [f64; 7] = [
    -2.36211856075265944077e-03,
    4.14856118683748331666e-01,
    -3.72207876035701323847e-01,
    3.18346619901161753674e-01,
    -1.10894694282396677476e-01,
    3.54783043256182359371e-02,
    -2.16637559486879084300e-03,
];
const QA: [f64; 7] = [
    1.0,
    1.06420880400844228286e-01,
    5.40397917702171048937e-01,
    7.18286544141962662868e-02,
    1.26171219808761642112e-01,
    1.36370839120290507362e-02,
    1.19844998467991074170e-02,
];
const RA: [f64; 8] = [
    -9.86494403484714822705e-03,
    -6.93858572707181764372e-01,
    -1.05586262253232909814e+01,
    -6.23753324503260060396e+01,
    -1.62396669462573470355e+02,
    -1.84605092906711035994e+02,
    -8.12874355063065934246e+01,
    -9.81432934416914548592e+00,
];
const SA: [f64; 9] = [
    1.0,
    1.96512716674392571292e+01,
    1.37657754143519042600e+02,
    4.34565877475229228821e+02,
    6.45387271733267880336e+02,
    4.29008140027567833386e+02,
    1.08635005541779435134e+02,
    6.57024977031928170135e+00,
    -6.04244152148580987438e-02,
];
const RB: [f64; 8] = [
    -9.86494292470009928597e-03,
    -7.99283237680523006574e-01,
    -1.77579549177547519889e+01,
    -1.60636384855821916062e+02,
    -6.37566443368389627722e+02,
    -1.02509513161107724954e+03,
    -4.83519191608651397019e+02,
    0.0,
];
const SB: [f64; 9] = [
    1.0,
    3.03380607434824582924e+01,
    3.25792512996573918826e+02,
    1.53672958608443695994e+03,
    3.19985821950859553908e+03,
    2.55305040643316442583e+03,
    4.74528541206955367215e+02,
    -2.24409524465858183362e+01,
    0.0,
];
const ERF_SPLIT: f64 = 2.857142857142857; // 1/0.35 (fdlibm tests 0x4006DB6E high word)

/// Horner evaluation with scalar coefficients c[0] + c[1] z + ...
#[inline(always)]
fn horner(z: F, c: &[f64]) -> F {
    let mut p = sp(c[c.len() - 1]);
    for &ci in c[..c.len() - 1].iter().rev() {
        p = p * z + ci;
    }
    p
}
/// Horner with per-lane choice between two coefficient sets of equal length.
#[inline(always)]
fn horner_sel(z: F, m: F, a: &[f64], b: &[f64]) -> F {
    let n = a.len();
    let mut p = sel(m, sp(a[n - 1]), sp(b[n - 1]));
    for i in (0..n - 1).rev() {
        p = p * z + sel(m, sp(a[i]), sp(b[i]));
    }
    p
}

/// Tail part for |x| >= 1.25 (ax = |x| clamped to [1.25, 28]):
/// returns r * 2^sc with erfc(ax) = r / ax.
#[inline(always)]
fn erfc_tail(ax: F, sc: F) -> F {
    let (a, b) = erfc_tail_exponents(ax);
    exp_core2(a, b, sc)
}

/// For ax in [1.25, 28]: (a, b) with erfc(ax) = e^(a + b)/ax (fdlibm s_erf.c): a = -z² -
/// 0.5625 is exact (z = ax with its low 32 bits cleared, 21 significant bits), b = (z -
/// ax)(z + ax) + R/S(1/ax²) is below 0.22 in magnitude. `erfc_tail_exponents_scalar` is the
/// same for one lane.
#[inline(always)]
fn erfc_tail_exponents(ax: F) -> (F, F) {
    let s = sp(1.0) / (ax * ax);
    let m = ax.simd_lt(sp(ERF_SPLIT));
    let rs = horner_sel(s, m, &RA, &RB) / horner_sel(s, m, &SA, &SB);
    let z = clear_low(ax);
    (-z * z - 0.5625, (z - ax) * (z + ax) + rs)
}

/// Returns (erf(x), erfc(x)) lane-wise (fdlibm s_erf.c).
#[inline(always)]
fn erf_erfc_f64(x: F) -> (F, F) {
    let ax = x.abs();
    let neg = x.simd_lt(sp(0.0));
    // |x| < 0.84375
    let z = x * x;
    let y = horner(z, &PP) / horner(z, &QQ);
    let erf_small = x + x * y;
    let erf_tiny = (x * 8.0 + x * EFX8) * 0.125; // |x| < 2^-28 (avoids subnormal loss)
    let erf_small = sel(ax.simd_lt(sp(3.725290298461914e-9)), erf_tiny, erf_small);
    let erfc_small = sel(
        x.simd_lt(sp(0.25)),
        sp(1.0) - (x + x * y),
        sp(0.5) - (x * y + (x - 0.5)),
    );
    // 0.84375 <= |x| < 1.25
    let s = ax - 1.0;
    let pq = horner(s, &PA) / horner(s, &QA);
    let erf_mid = copysign(sp(ERX) + pq, x);
    let erfc_mid = sel(neg, sp(1.0) + (sp(ERX) + pq), (sp(1.0) - ERX) - pq);
    // 1.25 <= |x| < 28
    let axc = sel(
        ax.simd_lt(sp(1.25)),
        sp(1.25),
        sel(ax.simd_gt(sp(28.0)), sp(28.0), ax),
    );
    let r = erfc_tail(axc, sp(0.0)) / axc; // erfc(|x|)
    let erf_big = copysign(sp(1.0) - r, x);
    let erfc_big = sel(neg, sp(2.0) - r, r);

    let m_small = ax.simd_lt(sp(0.84375));
    let m_mid = ax.simd_lt(sp(1.25));
    let mut erf = sel(m_small, erf_small, sel(m_mid, erf_mid, erf_big));
    erf = sel(ax.simd_ge(sp(6.0)), copysign(sp(1.0), x), erf);
    let mut erfc = sel(m_small, erfc_small, sel(m_mid, erfc_mid, erfc_big));
    erfc = sel(ax.simd_ge(sp(28.0)), sel(neg, sp(2.0), sp(0.0)), erfc);
    let nan = is_nan(x);
    (sel(nan, x, erf), sel(nan, x, erfc))
}

/// Error function (fdlibm algorithm, SIMD).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn erf_f64(x: f64x8) -> f64x8 {
    erf_erfc_f64(x).0
}

/// Complementary error function (fdlibm, SIMD); accurate relative error in the tail. The
/// graph-level `erfc` is `erfc_f64` (vmath/erfc_cbrt.rs: this with a double-double tail);
/// gelu keeps this one.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn erfc_fdlibm_f64(x: f64x8) -> f64x8 {
    erf_erfc_f64(x).1
}

// ---------------------------------------------------------------------------
// sigmoid, gelu (silu and their shared `logistic_dd`: below pow)
// ---------------------------------------------------------------------------

/// sigmoid(x) = 1/(1+exp(-x)) (f64 lanes), < 1 ulp: `logistic_dd` (e^-|x| in
/// double-double, the quotient rounded once; subnormal results for x < -708 keep full
/// accuracy). (e/(1+e) from the one-double exp measured 2.000 against a reference with the
/// same one-double exp.)
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sigmoid_f64(x: f64x8) -> f64x8 {
    logistic_dd::<false>(x)
}

const FRAC_1_SQRT_2_HI: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// 1/sqrt(2) - FRAC_1_SQRT_2_HI (next 53 bits), from 1/sqrt(2) =
/// 0.70710678118654752440084436210484903928...
const FRAC_1_SQRT_2_LO: f64 = -4.833646656726457e-17;
const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// Dekker/Veltkamp exact product without FMA: a*b = p + e exactly.
#[inline(always)]
fn two_prod(a: F, b: F) -> (F, F) {
    let p = a * b;
    let sa = a * 134217729.0; // 2^27 + 1
    let ah = sa - (sa - a);
    let al = a - ah;
    let sb = b * 134217729.0;
    let bh = sb - (sb - b);
    let bl = b - bh;
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, e)
}

/// gelu(x) = 0.5*x*erfc(-x/sqrt(2)) for f64 lanes.  The argument u = x/sqrt(2)
/// is formed in double-double (uh + ul) because erfc's relative condition
/// number grows like 2u^2 in the tail (x = -30 would otherwise lose ~9 bits);
/// the first-order correction erfc(v - ul) = erfc(v) + (2/sqrt(pi)) e^{-v^2} ul
/// is applied.  gelu(-inf) = -0.0, gelu(+inf) = +inf.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn gelu_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.abs().simd_gt(sp(1e300)), sp(0.0), x); // keep the Dekker split finite
    let (uh, ue) = two_prod(xc, sp(FRAC_1_SQRT_2_HI));
    let ul = ue + xc * FRAC_1_SQRT_2_LO;
    let v = -uh;
    let ec = erfc_fdlibm_f64(v);
    let corr = exp_f64(-(uh * uh)) * FRAC_2_SQRT_PI * ul;
    let mut res = (x * 0.5) * (ec + corr);
    // x <= -1.77 (v >= 1.25, fdlibm's erfc(v) = e^(-z² - 0.5625 + R/S)/v branch): there
    // every rounding of erfc and of the products reaches the result (2.6 ulp measured
    // with the one-double erfc above), so the exponential is carried in double-double
    // (`exp_dd_parts` on the exact sum of fdlibm's two exponents), the quotient by v gets
    // one exact-remainder correction, and x/2 times it is rounded once. For v > 20
    // (x < -28.3, results from 1e-176 down to subnormal) all of it is scaled by 2^256
    // (folded into 2^k) and the result scaled back once.
    let tail = v.simd_ge(sp(1.25));
    if tail.any() {
        let vt = sel(v.simd_gt(sp(28.0)), sp(28.0), sel(tail, v, sp(1.25)));
        let deep = vt.simd_gt(sp(20.0));
        let sc = sp(256.0) & deep;
        // |a| >= 2.125 > |b|: their sum is exact as a double-double
        let (a, b) = erfc_tail_exponents(vt);
        let (v0, v0_l) = fast_two_sum(a, b);
        let (eh, el) = exp_dd_scaled(v0, v0_l, sc);
        // erfc(v)·2^sc = (eh + el)/v, plus the first-order term for ul
        let q0 = eh / vt;
        let (qd, qd_l) = two_prod(q0, vt);
        let ql = (((eh - qd) - qd_l) + el) / vt + exp_core(-(vt * vt), sc) * FRAC_2_SQRT_PI * ul;
        let xh = x * 0.5;
        let (gh, gl) = two_prod(xh, q0);
        let g = (gh + (gl + xh * ql)) * sel(deep, sp(8.636168555094445e-78), sp(1.0)); // 2^-256
        res = sel(tail, g, res);
    }
    let res = sel(v.simd_ge(sp(28.0)), sp(-0.0), res);
    // For x > 40, erfc(-x/√2) = 2 - (< 1e-340): gelu(x) = x exactly (this also covers the
    // lanes zeroed above to keep the split finite).
    let res = sel(x.simd_gt(sp(40.0)), x, res);
    // For x < -40 the exact result is below the smallest subnormal: -0.0.
    let res = sel(x.simd_lt(sp(-40.0)), sp(-0.0), res);
    let res = sel(x.simd_eq(sp(f64::NEG_INFINITY)), sp(-0.0), res);
    let res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    sel(is_nan(x), x, res)
}

/// gelu core for the f32 path: f64 argument rounding is negligible at f32
/// precision, so no double-double correction is needed.
#[inline(always)]
fn gelu_f64_for_f32(x: F) -> F {
    let ec = erfc_fdlibm_f64(x * -FRAC_1_SQRT_2_HI);
    let res = (x * 0.5) * ec;
    let res = sel(x.simd_eq(sp(f64::NEG_INFINITY)), sp(-0.0), res);
    let res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    sel(is_nan(x), x, res)
}

// ---------------------------------------------------------------------------
// pow (fdlibm e_pow.c, 2004 version)
// ---------------------------------------------------------------------------
// log2|x| = t1 + t2 is computed in simulated extra precision: x = 2^n * ax,
// ax in [1,sqrt3) reduced against bp = 1 or 1.5, s = (ax-bp)/(ax+bp) split
// into s_h (21 bits) + s_l, log2(ax) = dp_h + (2/(3 ln2))*(3s + s^3 + ...)
// with the L1..L6 Remez polynomial; y*log2|x| = p_h + p_l with y split into
// 21-bit y1 + y2 so y1*t1 is exact; 2^(p_h+p_l) = 2^n * exp(z), z the
// remainder, with the same P1..P5 exp polynomial as e_exp.c.  fdlibm states
// the result is "nearly rounded" (< 1 ulp in practice).
const DP_H1: f64 = 5.84962487220764160156e-01; // 0x3FE2B80340000000
const DP_L1: f64 = 1.35003920212974897128e-08; // 0x3E4CFDEB43CFD006
const TWO53: f64 = 9007199254740992.0;
const L1: f64 = 5.99999999999994648725e-01;
const L2: f64 = 4.28571428578550184252e-01;
const L3: f64 = 3.33333329818377432918e-01;
const L4: f64 = 2.72728123808534006489e-01;
const L5: f64 = 2.30660745775561754067e-01;
const L6: f64 = 2.06975017800338417784e-01;
const POW_LG2: f64 = 6.93147180559945286227e-01;
const POW_LG2_H: f64 = 6.93147182464599609375e-01;
const POW_LG2_L: f64 = -1.90465429995776804525e-09;
const OVT: f64 = 8.0085662595372944372e-17;
const CP: f64 = 9.61796693925975554329e-01;
const CP_H: f64 = 9.61796700954437255859e-01;
const CP_L: f64 = -7.02846165095275826516e-09;

/// Returns (is_integer(y), is_odd_integer(y)) as lane masks.
#[inline(always)]
fn int_odd(y: F) -> (F, F) {
    let ay = y.abs();
    let finite = ay.simd_lt(sp(f64::INFINITY));
    let big = ay.simd_ge(sp(4503599627370496.0)); // 2^52: always an integer
    let r = (ay + 4503599627370496.0) - 4503599627370496.0;
    let yint = finite & (big | r.simd_eq(ay));
    let h = ay * 0.5;
    let hbig = h.simd_ge(sp(4503599627370496.0));
    let rh = (h + 4503599627370496.0) - 4503599627370496.0;
    let hint = hbig | rh.simd_eq(h);
    (yint, yint & !hint)
}

/// x^y with C99 Annex F special cases (fdlibm algorithm, SIMD).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn pow_f64(x: f64x8, y: f64x8) -> f64x8 {
    let (yint, yodd) = int_odd(y);
    let ax0 = x.abs();
    // ---- log2|x| = t1 + t2 ------------------------------------------------
    let axs = sel(
        ax0.simd_eq(sp(0.0)) | ax0.simd_ge(sp(f64::INFINITY)) | is_nan(ax0),
        sp(1.0),
        ax0,
    );
    let sub = axs.simd_lt(sp(f64::MIN_POSITIVE));
    let ax = sel(sub, axs * TWO53, axs);
    let mut nf = sp(-53.0) & sub;
    let ix = (bits(ax) >> 32) & us(0x7fff_ffff);
    nf += i2f((ix >> 20) - us(0x3ff));
    let j = i2f(ix & us(0x000f_ffff));
    let k0 = j.simd_le(sp(0x3988E as f64)); // |x| < sqrt(3/2)
    let k1 = !k0 & j.simd_lt(sp(0xBB67A as f64)); // |x| < sqrt(3)
    let k2 = !(k0 | k1); // reduce by one more binade
    let ixn = ((ix & us(0x000f_ffff)) | us(0x3ff0_0000)) - (mask_u(k2) & us(0x0010_0000));
    nf += sp(1.0) & k2;
    let ax = from_bits((ixn << 32) | (bits(ax) & us(0xffff_ffff)));
    let bp = sel(k1, sp(1.5), sp(1.0));
    let dp_h = sp(DP_H1) & k1;
    let dp_l = sp(DP_L1) & k1;
    // ss = s_h + s_l = (ax - bp)/(ax + bp)
    let u = ax - bp;
    let v = sp(1.0) / (ax + bp);
    let ss = u * v;
    let s_h = clear_low(ss);
    // t_h = ax + bp rounded to its high word (fdlibm's bit construction)
    let th_hi = ((ixn >> 1) | us(0x2000_0000)) + us(0x0008_0000) + (mask_u(k1) & us(1 << 18));
    let t_h = from_bits(th_hi << 32);
    let t_l = ax - (t_h - bp);
    let s_l = v * ((u - s_h * t_h) - s_h * t_l);
    let s2 = ss * ss;
    let mut r = s2
        * s2
        * (sp(L1) + s2 * (sp(L2) + s2 * (sp(L3) + s2 * (sp(L4) + s2 * (sp(L5) + s2 * L6)))));
    r += s_l * (s_h + ss);
    let s2 = s_h * s_h;
    let t_h = clear_low(sp(3.0) + s2 + r);
    let t_l = r - ((t_h - 3.0) - s2);
    let u = s_h * t_h;
    let v = s_l * t_h + t_l * ss;
    let p_h = clear_low(u + v);
    let p_l = v - (p_h - u);
    let z_h = p_h * CP_H;
    let z_l = p_h * CP_L + p_l * CP + dp_l;
    let t1 = clear_low(((z_h + z_l) + dp_h) + nf);
    let t2 = z_l - (((t1 - nf) - dp_h) - z_h);
    // ---- y * log2|x| = p_h + p_l ------------------------------------------
    let yc = sel(y.abs().simd_lt(sp(f64::INFINITY)), y, sp(0.0)); // NaN/inf handled below
    let y1 = clear_low(yc);
    let p_l = (yc - y1) * t1 + yc * t2;
    let p_h = y1 * t1;
    let z = p_l + p_h;
    let overflow = z.simd_gt(sp(1024.0)) | (z.simd_eq(sp(1024.0)) & (p_l + OVT).simd_gt(z - p_h));
    let underflow = z.simd_lt(sp(-1075.0)) | (z.simd_eq(sp(-1075.0)) & p_l.simd_le(z - p_h));
    // ---- 2^(p_h + p_l) -----------------------------------------------------
    let zc = sel(
        z.simd_gt(sp(1100.0)),
        sp(1100.0),
        sel(z.simd_lt(sp(-1100.0)), sp(-1100.0), z),
    );
    let nn = sel(zc.abs().simd_gt(sp(0.5)), rint(zc), sp(0.0));
    let p_h = p_h - nn; // exact
    let t = clear_low(p_l + p_h);
    let u = t * POW_LG2_H;
    let v = (p_l - (t - p_h)) * POW_LG2 + t * POW_LG2_L;
    let z = u + v;
    let w = v - (z - u);
    let t = z * z;
    let t1 = z - t * (sp(EP1) + t * (sp(EP2) + t * (sp(EP3) + t * (sp(EP4) + t * EP5))));
    let r = (z * t1) / (t1 - 2.0) - (w + z * w);
    let z = sp(1.0) - (r - z);
    let core = scale(z, nn);
    // ---- sign and special cases (later selects take priority) ----------------
    let xneg = i2f(bits(x) >> 63).simd_eq(sp(1.0)); // sign bit set (incl. -0, -inf)
    let neg_res = xneg & yodd;
    let sgn = sel(neg_res, sp(-1.0), sp(1.0));
    let mut res = core * sgn;
    res = sel(overflow, sgn * f64::INFINITY, res);
    res = sel(underflow, sgn * 0.0, res);
    // (x < 0 finite) ** (non-integer finite y) = NaN
    res = sel(x.simd_lt(sp(0.0)) & !yint, sp(f64::NAN), res);
    // x = +-0 or +-inf
    let zz = sel(y.simd_lt(sp(0.0)), sp(1.0) / ax0, ax0);
    let zz = sel(neg_res, -zz, zz);
    res = sel(
        ax0.simd_eq(sp(0.0)) | ax0.simd_eq(sp(f64::INFINITY)),
        zz,
        res,
    );
    // y = +-inf
    let yinf = sel(
        ax0.simd_eq(sp(1.0)),
        sp(1.0),
        sel(
            ax0.simd_gt(sp(1.0)),
            sel(y.simd_gt(sp(0.0)), sp(f64::INFINITY), sp(0.0)),
            sel(y.simd_lt(sp(0.0)), sp(f64::INFINITY), sp(0.0)),
        ),
    );
    res = sel(y.abs().simd_eq(sp(f64::INFINITY)), yinf, res);
    // y = 0.5, x >= +0: correctly rounded sqrt (as fdlibm; excludes -0 whose result is +0)
    let sqrt_ok = y.simd_eq(sp(0.5)) & (x.simd_gt(sp(0.0)) | (x.simd_eq(sp(0.0)) & !xneg));
    res = sel(sqrt_ok, x.sqrt(), res);
    res = sel(is_nan(x) | is_nan(y), x + y, res);
    res = sel(x.simd_eq(sp(1.0)), sp(1.0), res);
    sel(y.simd_eq(sp(0.0)), sp(1.0), res)
}

// ---------------------------------------------------------------------------
// f32 front ends: widen -> f64 kernel -> round once.
// ---------------------------------------------------------------------------

/// Exact GELU 0.5*x*erfc(-x/sqrt 2) (f32 lanes); gelu(-inf) = -0.0.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn gelu_f32(x: f32x8) -> f32x8 {
    narrow(gelu_f64_for_f32(widen(x)))
}
/// x^y (f32 lanes), C99 special cases: 2^(y·log2|x|) in f64, rounded once.
///
/// log2|x| = k + f·G(f) (POW_LOG2_G, relative 2^-38.3); t = y·log2|x| only matters for
/// |t| <= 150 (beyond, the f32 result is 0 or inf), where the absolute error of t is
/// < 150·2^-38.3 + 2^-45 < 2^-31; 2^t = 2^n·(1 + r·Q(r)), n = rint(t), r = t - n exact,
/// Q relative 2^-33.1. Total < 2^-30 relative: <= 0.5 + 2^-6 ulp. Powers of two with
/// integer t are exact. Special cases fall out of the same formula where they can
/// (log2 0 = -inf, log2 inf = inf, t clamped to [-200, 200]); the rest are selects.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn pow_f32(x: f32x8, y: f32x8) -> f32x8 {
    let (xw, yw) = (widen(x), widen(y));
    let ax = xw.abs();
    let (f, kf) = log_reduce(ax); // 0, inf, NaN lanes: garbage, replaced below
    let l = fma(f, poly_estrin(f, &POW_LOG2_G), kf);
    let l = sel(ax.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), l);
    let l = sel(ax.simd_eq(sp(f64::INFINITY)), sp(f64::INFINITY), l);
    // |x| = 1: t = 0 even for y = +-inf (pow(-1, +-inf) = 1)
    let t = sel(l.simd_eq(sp(0.0)), sp(0.0), yw * l);
    let t = sel(t.simd_gt(sp(200.0)), sp(200.0), t);
    let t = sel(t.simd_lt(sp(-200.0)), sp(-200.0), t);
    let n = rint(t);
    let r = t - n;
    let mut res = fma(r, poly_estrin(r, &EXP2_Q), sp(1.0)) * pow2(n);
    let (yint, yodd) = int_odd(yw);
    // negative x (including -0 and -inf) to an odd integer power is negative
    res = from_bits(bits(res) ^ (sign_bit(xw) & mask_u(yodd)));
    // finite x < 0 to a finite non-integer power: NaN
    let yfin = yw.abs().simd_lt(sp(f64::INFINITY));
    res = sel(
        xw.simd_lt(sp(0.0)) & ax.simd_lt(sp(f64::INFINITY)) & yfin & !yint,
        sp(f64::NAN),
        res,
    );
    res = sel(is_nan(xw) | is_nan(yw), xw + yw, res);
    narrow(sel(xw.simd_eq(sp(1.0)) | yw.simd_eq(sp(0.0)), sp(1.0), res))
}

/// x·sigmoid(x) (f64 lanes), < 1 ulp: `logistic_dd` times x, rounded once. Above 40, e
/// is below 2^-57 and the result is x; ±0 keep their sign. (`x · sigmoid(x)` from the
/// one-double exp measured 2.85 ulp against mpmath.)
#[cfg_attr(target_feature = "avx2", inline)]
pub fn silu_f64(x: f64x8) -> f64x8 {
    let res = logistic_dd::<true>(x);
    // x > 40 (and +inf): x; ±0: x; -inf: the limit -0.0 (the clamp gives that); NaN
    // propagates through `logistic_dd`.
    sel(x.simd_gt(sp(40.0)) | x.simd_eq(sp(0.0)), x, res)
}

/// sigmoid(x) (f64) or, with `TIMES_X`, x·sigmoid(x), rounded once: 1/(1 + e) for x >= 0
/// and e/(1 + e) for x < 0, with e = e^-|x| = 2^k·(1 + p) in double-double
/// (`exp_dd_parts`, a few 2^-57), 1 + e and x·e formed exactly (`fast_two_sum`,
/// `two_prod`), and the double-double quotient rounded once after one exact-remainder
/// correction, as in `tanh_f64`.
///
/// Below -700, 1 + e is 1 far beyond f64 precision, and e (subnormal from -708.4, 0 from
/// -745.1, while silu is nonzero down to -751.7) is carried scaled by 2^256 (folded into
/// k): the quotient is rounded once in the normal range and then scaled by 2^-256, exact
/// for normal results and one more rounding into the subnormal range (< 0.5 ulp of it
/// plus 2^-53 relative). x is clamped at -800, where the result is ±0 either way. NaN
/// gives NaN (it passes every clamp and select), +inf 1 (sigmoid) and -inf +0 / -0; silu selects x itself above 40 and at
/// ±0 (here silu(-0) would be +0). For |x| < 2^-1021 silu's x/2 can be an exact tie that
/// the x²/4 term (underflowed) no longer breaks: half an ulp, rounded to even.
#[inline(always)]
fn logistic_dd<const TIMES_X: bool>(x: F) -> F {
    let tail = x.simd_lt(sp(-700.0));
    let xc = sel(x.simd_lt(sp(-800.0)), sp(-800.0), x);
    let a = xc.abs();
    let a = sel(a.simd_gt(sp(700.0)) & !tail, sp(700.0), a);
    let (eh, el) = exp_dd_scaled(-a, sp(0.0), sp(256.0) & tail);
    let (dh, d_l) = fast_two_sum(sp(1.0), eh);
    let (dh, dl) = (sel(tail, sp(1.0), dh), sel(tail, sp(0.0), d_l + el));
    let neg = xc.simd_lt(sp(0.0));
    let (nh, nl) = if TIMES_X {
        let (xe, xe_l) = two_prod(xc, eh);
        (sel(neg, xe, xc), sel(neg, xe_l + xc * el, sp(0.0)))
    } else {
        (sel(neg, eh, sp(1.0)), sel(neg, el, sp(0.0)))
    };
    let q = div_dd(nh, nl, dh, dl);
    sel(tail, q * 8.636168555094445e-78, q) // 2^-256
}

// ---------------------------------------------------------------------------
// exp2, log2, tan, atan, asin, acos, sinh, cosh, softplus (f64 lanes)
// ---------------------------------------------------------------------------

/// ln 2 to 106 bits: LN2_D + LN2_D_LO.
const LN2_D: f64 = std::f64::consts::LN_2;
const LN2_D_LO: f64 = 2.319046813846299558e-17;

/// 2^x: k = rint(x) splits off the exponent exactly; 2^r = e^(r ln2) with r·ln2 formed
/// in double-double (Dekker product), so the fdlibm exp core sees an argument accurate
/// to ~2^-100 and the only errors are exp's (< 1 ulp). Integer x gives 2^x exactly.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn exp2_f64(x: f64x8) -> f64x8 {
    let xc = sel(x.simd_gt(sp(1025.0)), sp(1025.0), x);
    let xc = sel(xc.simd_lt(sp(-1100.0)), sp(-1100.0), xc);
    let xc = sel(is_nan(xc), sp(0.0), xc);
    let kf = rint(xc);
    let r = xc - kf; // exact, |r| <= 0.5
    let (h, e) = two_prod(r, sp(LN2_D));
    let lo = e + r * LN2_D_LO;
    let res = exp_core2(h, lo, kf);
    sel(is_nan(x), x, res)
}

/// fdlibm k_log1p: log(1+f) - f + f²/2 for the reduced f.
#[inline(always)]
fn k_log1p(f: F) -> F {
    let hfsq = f * f * 0.5;
    let s = f / (sp(2.0) + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (sp(LG2) + w * (sp(LG4) + w * LG6));
    let t2 = z * (sp(LG1) + w * (sp(LG3) + w * (sp(LG5) + w * LG7)));
    s * (hfsq + t2 + t1)
}

const IVLN2HI: f64 = 1.44269504072144627571e+00; // 0x3ff7154765200000
const IVLN2LO: f64 = 1.67517131648865118353e-10;

/// log2(x) (fdlibm e_log2.c: log(1+f) split into a 21-bit head and a tail so that the
/// multiplication by 1/ln2 and the addition of k carry extra precision; < 1 ulp).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log2_f64(x: f64x8) -> f64x8 {
    let sub = x.simd_lt(sp(f64::MIN_POSITIVE));
    let xs = sel(sub, x * 18014398509481984.0, x); // * 2^54
    let (f, kf) = log_reduce(xs);
    let kf = kf - (sp(54.0) & sub);
    let hfsq = f * f * 0.5;
    let r = k_log1p(f);
    let hi = clear_low(f - hfsq);
    let lo = ((f - hi) - hfsq) + r;
    let val_hi = hi * IVLN2HI;
    let val_lo = (lo + hi) * IVLN2LO + lo * IVLN2HI;
    let w = kf + val_hi;
    let val_lo = val_lo + ((kf - w) + val_hi);
    let mut res = val_lo + w;
    res = sel(x.simd_eq(sp(f64::INFINITY)), x, res);
    res = sel(x.simd_lt(sp(0.0)), sp(f64::NAN), res);
    res = sel(x.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), res);
    sel(is_nan(x), x, res)
}

/// tan(x) = sin/cos of the shared reduction (each < 1 ulp, one division); lanes beyond
/// the Cody–Waite range use std's exact reduction.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tan_f64(x: f64x8) -> f64x8 {
    let (s, c) = sincos_core(x);
    let t = s / c;
    let t = sel(x.simd_eq(sp(0.0)), x, t);
    let t = sel(
        x.abs().simd_eq(sp(f64::INFINITY)) | is_nan(x),
        sp(f64::NAN),
        t,
    );
    trig_fallback(x, t, f64::tan)
}

// atan (fdlibm s_atan.c): |x| reduced into one of five intervals around 0, 0.5, 1, 1.5
// and inf; atan(x) = atanhi[id] + atanlo[id] + atan(t) with an odd degree-23 Remez
// polynomial (|err| < 2^-56.9 for |t| <= 7/16). fdlibm: < 1 ulp.
const ATANHI: [f64; 4] = [
    4.63647609000806093515e-01,
    7.85398163397448278999e-01,
    9.82793723247329054082e-01,
    1.57079632679489655800e+00,
];
const ATANLO: [f64; 4] = [
    2.26987774529616870924e-17,
    3.06161699786838301793e-17,
    1.39033110312309984516e-17,
    6.12323399573676603587e-17,
];
const AT: [f64; 11] = [
    3.33333333333329318027e-01,
    -1.99999999998764832476e-01,
    1.42857142725034663711e-01,
    -1.11111104054623557880e-01,
    9.09088713343650656196e-02,
    -7.69187620504482999495e-02,
    6.66107313738753120669e-02,
    -5.83357013379057348645e-02,
    4.97687799461593236017e-02,
    -3.65315727442169155270e-02,
    1.62858201153657823623e-02,
];

/// Arctangent (fdlibm algorithm, branch-free).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn atan_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let m0 = a.simd_ge(sp(0.4375));
    let m1 = a.simd_ge(sp(0.6875));
    let m2 = a.simd_ge(sp(1.1875));
    let m3 = a.simd_ge(sp(2.4375));
    let num = sel(
        m3,
        sp(-1.0),
        sel(m2, a - 1.5, sel(m1, a - 1.0, sel(m0, a * 2.0 - 1.0, a))),
    );
    let den = sel(
        m3,
        a,
        sel(
            m2,
            a * 1.5 + 1.0,
            sel(m1, a + 1.0, sel(m0, a + 2.0, sp(1.0))),
        ),
    );
    let t = num / den;
    let hi = sel(
        m3,
        sp(ATANHI[3]),
        sel(
            m2,
            sp(ATANHI[2]),
            sel(m1, sp(ATANHI[1]), sel(m0, sp(ATANHI[0]), sp(0.0))),
        ),
    );
    let lo = sel(
        m3,
        sp(ATANLO[3]),
        sel(
            m2,
            sp(ATANLO[2]),
            sel(m1, sp(ATANLO[1]), sel(m0, sp(ATANLO[0]), sp(0.0))),
        ),
    );
    let z = t * t;
    let w = z * z;
    let s1 = z
        * (sp(AT[0])
            + w * (sp(AT[2]) + w * (sp(AT[4]) + w * (sp(AT[6]) + w * (sp(AT[8]) + w * AT[10])))));
    let s2 = w * (sp(AT[1]) + w * (sp(AT[3]) + w * (sp(AT[5]) + w * (sp(AT[7]) + w * AT[9]))));
    let r = hi - ((t * (s1 + s2) - lo) - t);
    let res = copysign(r, x);
    sel(is_nan(x), x, res)
}

// asin / acos (fdlibm e_asin.c, e_acos.c): R(z) = z·P(z)/Q(z) Remez rational approximation
// of (asin(√z) - √z)/√z (|err| < 2^-58.75); for |x| >= 0.5 the identity
// asin(x) = π/2 - 2 asin(√((1-x)/2)) with √ split into a 21-bit head. fdlibm: < 1 ulp.
const PIO2_HI: f64 = 1.57079632679489655800e+00;
const PIO2_LO: f64 = 6.12323399573676603587e-17;
const PIO4_HI: f64 = 7.85398163397448278999e-01;
const PS: [f64; 6] = [
    1.66666666666666657415e-01,
    -3.25565818622400915405e-01,
    2.01212532134862925881e-01,
    -4.00555345006794114027e-02,
    7.91534994289814532176e-04,
    3.47933107596021167570e-05,
];
const QS: [f64; 5] = [
    1.0,
    -2.40339491173441421878e+00,
    2.02094576023350569471e+00,
    -6.88283971605453293030e-01,
    7.70381505559019352791e-02,
];

#[inline(always)]
fn asin_r(z: F) -> F {
    z * horner(z, &PS) / horner(z, &QS)
}

/// Arcsine (fdlibm algorithm, branch-free); NaN outside [-1, 1].
#[cfg_attr(target_feature = "avx2", inline)]
pub fn asin_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    // |x| < 0.5
    let small = x + x * asin_r(x * x);
    // |x| >= 0.5
    let z = (sp(1.0) - sel(a.simd_gt(sp(1.0)), sp(1.0), a)) * 0.5;
    let s = z.sqrt();
    let r = asin_r(z);
    let near1 = sp(PIO2_HI) - ((s + s * r) * 2.0 - PIO2_LO);
    let f = clear_low(s);
    let c = (z - f * f) / (s + f);
    let p = (s * r) * 2.0 - (sp(PIO2_LO) - c * 2.0);
    let q = sp(PIO4_HI) - f * 2.0;
    let mid = sp(PIO4_HI) - (p - q);
    let big = copysign(sel(a.simd_ge(sp(0.975)), near1, mid), x);
    let mut res = sel(a.simd_lt(sp(0.5)), small, big);
    res = sel(a.simd_gt(sp(1.0)), sp(f64::NAN), res);
    sel(is_nan(x), x, res)
}

const PI_F64: f64 = 3.14159265358979311600e+00;

/// Arccosine (fdlibm algorithm, branch-free); NaN outside [-1, 1].
#[cfg_attr(target_feature = "avx2", inline)]
pub fn acos_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    // |x| < 0.5
    let small = sp(PIO2_HI) - (x - (sp(PIO2_LO) - x * asin_r(x * x)));
    // |x| >= 0.5: z = (1 - |x|)/2
    let z = (sp(1.0) - sel(a.simd_gt(sp(1.0)), sp(1.0), a)) * 0.5;
    let s = z.sqrt();
    let r = asin_r(z);
    let neg = (sp(PIO2_HI) - (s + (r * s - PIO2_LO))) * 2.0;
    let df = clear_low(s);
    let c = (z - df * df) / (s + df);
    let pos = (df + (r * s + c)) * 2.0;
    let mut res = sel(a.simd_lt(sp(0.5)), small, sel(x.simd_lt(sp(0.0)), neg, pos));
    res = sel(x.simd_eq(sp(-1.0)), sp(PI_F64), res);
    res = sel(x.simd_eq(sp(1.0)), sp(0.0), res);
    res = sel(a.simd_gt(sp(1.0)), sp(f64::NAN), res);
    sel(is_nan(x), x, res)
}

/// sinh (fdlibm e_sinh.c): from expm1 below 22, from e^|x|/2 above (the halving is
/// folded into exp's exponent, so sinh stays finite up to its own overflow threshold).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sinh_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let ac = sel(a.simd_gt(sp(22.0)), sp(22.0), a);
    let t = expm1_f64(ac);
    let below1 = (t * 2.0 - (t * t) / (t + 1.0)) * 0.5;
    let above1 = (t + t / (t + 1.0)) * 0.5;
    let mid = sel(a.simd_lt(sp(1.0)), below1, above1);
    let big = exp_core(
        sel(a.simd_gt(sp(711.0)) | is_nan(a), sp(711.0), a),
        sp(-1.0),
    );
    let mut res = copysign(sel(a.simd_lt(sp(22.0)), mid, big), x);
    res = sel(a.simd_lt(sp(3.725290298461914e-9)), x, res); // 2^-28: sinh x = x
    sel(is_nan(x), x, res)
}

/// cosh (fdlibm e_cosh.c).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cosh_f64(x: f64x8) -> f64x8 {
    let a = x.abs();
    let ac = sel(a.simd_gt(sp(22.0)), sp(22.0), a);
    let t = expm1_f64(ac);
    let w = t + 1.0;
    let small = sp(1.0) + (t * t) / (w + w);
    let e = exp_f64(ac);
    let mid = e * 0.5 + sp(0.5) / e;
    let big = exp_core(
        sel(a.simd_gt(sp(711.0)) | is_nan(a), sp(711.0), a),
        sp(-1.0),
    );
    let res = sel(
        a.simd_lt(sp(0.3465735902799726)),
        small,
        sel(a.simd_lt(sp(22.0)), mid, big),
    );
    sel(is_nan(x), x.abs(), res)
}

/// softplus(x) = log(1 + e^x), evaluated as max(x, 0) + log1p(e^-|x|): e^-|x| <= 1 never
/// overflows, and for x -> -inf the result follows e^x into the subnormal range.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn softplus_f64(x: f64x8) -> f64x8 {
    let e = exp_f64(-x.abs());
    let l = log1p_f64(e);
    let pos = sel(x.simd_gt(sp(0.0)), x, sp(0.0));
    let res = pos + l;
    sel(is_nan(x), x, res)
}

// f32 front ends of the functions above: the f64 kernel, rounded once.

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

f32_via_f64! {
    /// erf(x) (f32 lanes).
    erf_f32 => erf_f64;
    /// log(1 + e^x) (f32 lanes).
    softplus_f32 => softplus_f64;
}

/// sqrt (f32 lanes): the hardware's correctly rounded square root.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sqrt_f32(x: f32x8) -> f32x8 {
    x.sqrt()
}
/// sqrt (f64 lanes): correctly rounded.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sqrt_f64(x: f64x8) -> f64x8 {
    x.sqrt()
}
/// 1/sqrt(x) (f64 lanes): two correctly rounded operations, < 1 ulp.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn rsqrt_f64(x: f64x8) -> f64x8 {
    sp(1.0) / x.sqrt()
}

// ---------------------------------------------------------------------------
// Fast f32 paths: short f64 polynomials
// ---------------------------------------------------------------------------
// An f32 result needs the f64 value to ~2^-30 relative accuracy before the single
// rounding to f32 (then the error is <= 0.5 + 2^-6 f32 ulp). These kernels use Taylor
// polynomials truncated where the remainder is below 2^-36, fused multiply-adds where the
// build has them (`mul_add` is a multiply and an add otherwise: both stay far inside that
// margin), and f64's exponent range, which holds every f32 subnormal as a normal number.

#[inline(always)]
fn fma<V: Lanes>(a: V, b: V, c: V) -> V {
    a.mul_add_lanes(b, c)
}

/// What the polynomial evaluators need of a lane type: a splat of a coefficient and
/// `mul_add` (fused where the build has FMA). f32 tables hold f32 values written as f64
/// literals, so the conversion in `splat_coef` is exact.
trait Lanes: Copy + core::ops::Mul<Output = Self> {
    fn splat_coef(c: f64) -> Self;
    fn mul_add_lanes(self, b: Self, c: Self) -> Self;
}
impl Lanes for f64x8 {
    #[inline(always)]
    fn splat_coef(c: f64) -> Self {
        f64x8::splat(c)
    }
    #[inline(always)]
    fn mul_add_lanes(self, b: Self, c: Self) -> Self {
        self.mul_add(b, c)
    }
}
impl Lanes for f32x8 {
    #[inline(always)]
    fn splat_coef(c: f64) -> Self {
        f32x8::splat(c as f32)
    }
    #[inline(always)]
    fn mul_add_lanes(self, b: Self, c: Self) -> Self {
        self.mul_add(b, c)
    }
}

/// Horner evaluation of c[0] + c[1] z + ... using `fma`.
#[inline(always)]
fn poly_fma<V: Lanes>(z: V, c: &[f64]) -> V {
    let mut p = V::splat_coef(c[c.len() - 1]);
    for &ci in c[..c.len() - 1].iter().rev() {
        p = fma(p, z, V::splat_coef(ci));
    }
    p
}

/// Estrin evaluation of c[0] + c[1] x + ... + c[n-1] x^(n-1): pairs c[2i] + c[2i+1] x, then
/// pairs of those with x^2, then x^4, ...: a chain of ceil(log2 n) fused multiply-adds
/// instead of Horner's n - 1, for n/2 extra multiplies. These kernels are latency bound:
/// the scheduler only holds the waiting operations of two or three calls, so a shorter
/// chain is a faster function (exp: 44 -> 20 cycles of polynomial latency).
#[inline(always)]
fn poly_estrin<V: Lanes>(x: V, c: &[f64]) -> V {
    assert!(!c.is_empty() && c.len() <= 32);
    let mut t = [V::splat_coef(0.0); 16];
    let mut m = c.len().div_ceil(2);
    for (i, ti) in t.iter_mut().enumerate().take(m) {
        *ti = match c.get(2 * i + 1) {
            Some(&odd) => fma(V::splat_coef(odd), x, V::splat_coef(c[2 * i])),
            None => V::splat_coef(c[2 * i]),
        };
    }
    let mut p = x * x;
    while m > 1 {
        let half = m.div_ceil(2);
        for i in 0..half {
            t[i] = if 2 * i + 1 < m {
                fma(t[2 * i + 1], p, t[2 * i])
            } else {
                t[2 * i]
            };
        }
        m = half;
        p = p * p;
    }
    t[0]
}

/// 1/k! for k = 0..=10.
const INV_FACT: [f64; 11] = [
    1.0,
    1.0,
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
];

/// e^r = 1 + r·Q(r) on |r| <= ln2/2 + 2^-20: relative error < 2^-34.3 (`tools/exp_fit.py
/// 7`), so an f32 result is within 0.5 + 2^-10 ulp. (Taylor needs degree 10 for 2^-41;
/// expm1 keeps that, for its cancellation near 0.)
const EXP_Q: [f64; 7] = [
    1.0000000002067497,
    0.500000007744086,
    0.16666665186436985,
    0.041666271541258244,
    0.00833356348505238,
    0.001394597110132719,
    0.0001977101630230691,
];

/// e^r for |r| <= ln2/2 + 2^-20 (f32 results): 1 + r·Q(r), Estrin; e^0 = 1 exactly.
#[inline(always)]
fn exp_poly_small(r: F) -> F {
    fma(r, poly_estrin(r, &EXP_Q), sp(1.0))
}

/// x = k·ln2 + r for f64 x from f32 inputs clamped to |x| <= 260: (k, r), |r| <= ln2/2 +
/// 2^-40. r = x - k·LN2_D takes one rounding with FMA; without, the product's rounding
/// (<= 2^-45 for |k| <= 375) is the only other one, as the subtraction is exact (Sterbenz:
/// x and k·ln2 are within a factor 2 whenever k != 0). LN2_D is ln 2 to 2^-54 relative, so
/// r is off by < 2^-44 absolute in all: far inside the 2^-30 an f32 result needs
/// (fdlibm's second ln 2 word is not needed here).
#[inline(always)]
fn reduce_ln2(x: F) -> (F, F) {
    let kf = rint(x * INVLN2);
    (kf, fma(kf, sp(-LN2_D), x))
}

/// e^x for x already clamped to [-160, 130] (f32 inputs): result is an f64 whose
/// rounding to f32 gives exp's f32 value (including overflow and subnormals).
#[inline(always)]
fn exp_f64_for_f32(x: F) -> F {
    let (kf, r) = reduce_ln2(x);
    exp_poly_small(r) * pow2(kf)
}

/// e^x - 1 for x clamped to [-160, 130] (f32 inputs), relative error < 2^-39:
/// e^r - 1 = r·(1 + r/2 + ... + r^9/10!) (remainder < 2^-40.6 relative for |r| <= 0.347),
/// then 2^k·(e^r - 1) + (2^k - 1), one fused step. k = 0 returns the polynomial itself
/// (no cancellation near 0); for k != 0, |e^x - 1| > 0.29 and both terms are at most
/// 3.5 times larger, so the roundings stay below 2^-50 relative.
#[inline(always)]
fn expm1_f64_for_f32(x: F) -> F {
    let (kf, r) = reduce_ln2(x);
    let p = r * poly_estrin(r, &INV_FACT[1..]);
    let two_k = pow2(kf);
    fma(two_k, p, two_k - 1.0)
}

#[inline(always)]
fn clamp_exp_arg(x: F) -> F {
    let xc = sel(x.simd_gt(sp(130.0)), sp(130.0), x);
    sel(xc.simd_lt(sp(-160.0)), sp(-160.0), xc)
}

/// e^x (f32 lanes), <= 1 ulp on every input (f64 polynomial, rounded once).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn exp_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let res = exp_f64_for_f32(clamp_exp_arg(w));
    narrow(sel(is_nan(w), w, res))
}

/// 2^x (f32 lanes): 2^x = 2^k · e^(r·ln2), k = rint(x), exact split.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn exp2_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let xc = clamp_exp_arg(w);
    let kf = rint(xc);
    let r = (xc - kf) * LN2_D;
    let res = exp_poly_small(r) * pow2(kf);
    narrow(sel(is_nan(w), w, res))
}

/// sigmoid(x) = 1/(1+t) for x >= 0 and t/(1+t) for x < 0, with t = e^-|x| in (0, 1]:
/// the denominator stays in [1, 2] (no overflow, and a reciprocal estimate refined once:
/// `recip_1_2`) and the negative side keeps full relative accuracy down to the
/// subnormals. Returns (t, 1/(1+t)). t is within 2^-34 relative of e^-|x|
/// (`exp_poly_small`; the reduction adds < 2^-44); 1/(1+t) of the computed t is within
/// 2^-28 (`recip_1_2`; the rounding of 1 + t adds 2^-53), and t's error moves it by
/// another 2^-34·t/(1+t). t/(1+t) is within 2^-27.9, and the f32 result within
/// 0.5 + 2^-3.9 ulp. -|x| needs only the lower clamp (NaN passes through it).
#[inline(always)]
fn sigmoid_parts(w: F) -> (F, F) {
    let a = -w.abs();
    let a = sel(a.simd_lt(sp(-160.0)), sp(-160.0), a);
    let t = exp_f64_for_f32(a);
    (t, recip_1_2(sp(1.0) + t))
}

/// 1/d for d in [1, 2], within 2^-28 relative on AVX-512 builds: `vrcp14pd` (2^-14, no
/// divider) and one Newton step e = 1 - d·r0, r0 + r0·e, whose error is the square of
/// r0's. Elsewhere `div_f32_newton` (an f32 division, 2^-45).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
fn recip_1_2(d: F) -> F {
    use core::arch::x86_64::_mm512_rcp14_pd;
    // SAFETY: `_mm512_rcp14_pd` needs avx512f, which the `cfg` above guarantees for the
    // whole build. Registers only.
    let r0: F = bytemuck::cast(unsafe { _mm512_rcp14_pd(bytemuck::cast(d)) });
    fma(r0, fma(-d, r0, sp(1.0)), r0)
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
fn recip_1_2(d: F) -> F {
    div_f32_newton(sp(1.0), d)
}

/// e^x - 1 (f32 lanes), <= 1 ulp on every input (f64 polynomial, rounded once).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn expm1_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let res = expm1_f64_for_f32(clamp_exp_arg(w));
    let res = sel(w.simd_eq(sp(0.0)), w, res); // the fused step turns -0.0 into +0.0
    narrow(sel(is_nan(w), w, res))
}

/// sinh(r) = r·S(r^2), cosh(r) = C(r^2) for |r| <= ln2/2 + 2^-40:
/// Taylor to r^9 / r^10 (remainders < 2^-40 / 2^-47 relative).
const SINH_T: [f64; 5] = [1.0, 1.0 / 6.0, 1.0 / 120.0, 1.0 / 5040.0, 1.0 / 362880.0];
const COSH_T: [f64; 6] = [
    1.0,
    0.5,
    1.0 / 24.0,
    1.0 / 720.0,
    1.0 / 40320.0,
    1.0 / 3628800.0,
];

/// (sinh a, cosh a) for a = |x| of an f32 x (clamped here to 130, where both already
/// overflow f32), relative error < 2^-38,
/// without a division: a = k·ln2 + r and
///   sinh a = sinh(k ln2)·cosh r + cosh(k ln2)·sinh r,
///   cosh a = cosh(k ln2)·cosh r + sinh(k ln2)·sinh r,
/// with sinh(k ln2), cosh(k ln2) = 2^(k-1) ∓ 2^(-k-1). For k = 0 the sinh is sinh(r)
/// itself (exact zero and one factors: no cancellation near 0); for k >= 1 (a > 0.34)
/// the terms exceed sinh a by at most coth(0.34) < 3.5, so the roundings stay < 2^-50.
#[inline(always)]
fn sinh_cosh_for_f32(a: F) -> (F, F) {
    let (kf, r) = reduce_ln2(sel(a.simd_gt(sp(130.0)), sp(130.0), a));
    let z = r * r;
    let sh_r = r * poly_fma(z, &SINH_T);
    let ch_r = poly_fma(z, &COSH_T);
    let hi = pow2(kf - 1.0);
    let lo = pow2(-kf - 1.0);
    let (sh_k, ch_k) = (hi - lo, hi + lo);
    (fma(ch_k, sh_r, sh_k * ch_r), fma(ch_k, ch_r, sh_k * sh_r))
}

/// sinh(x) (f32 lanes), <= 2 ulp on every input; overflows to inf exactly where the f64
/// value rounds past f32::MAX.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sinh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let a = w.abs();
    let (sh, _) = sinh_cosh_for_f32(a);
    narrow(sel(is_nan(w), w, copysign(sh, w)))
}

/// cosh(x) (f32 lanes), <= 2 ulp on every input.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cosh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let a = w.abs();
    let (_, ch) = sinh_cosh_for_f32(a);
    narrow(sel(is_nan(w), a, ch))
}

/// tanh(x) (f32 lanes), <= 2 ulp on every input: t = e^(2|x|) - 1 (relative error
/// < 2^-39), tanh|x| = t/(t+2) in f64. |x| is clamped to 10, where tanh rounds to 1 in
/// f32. (The f64 division measured faster here than an f32 reciprocal or division refined
/// by Newton steps in f64: 10.1 vs 11.5-12 µs per 4096 native; those add two conversions
/// to a latency-bound chain.)
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tanh_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let a = w.abs();
    let a = sel(a.simd_gt(sp(10.0)), sp(10.0), a);
    let t = expm1_f64_for_f32(a + a);
    let q = t / (t + 2.0);
    narrow(sel(is_nan(w), w, copysign(q, w)))
}

/// 1/(1+e^-x) (f32 lanes).
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sigmoid_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (t, q) = sigmoid_parts(w);
    let res = sel(w.simd_lt(sp(0.0)), t * q, q);
    narrow(sel(is_nan(w), w, res))
}

/// x·sigmoid(x) (f32 lanes): the product in f64, rounded once.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn silu_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (t, q) = sigmoid_parts(w);
    let res = w * sel(w.simd_lt(sp(0.0)), t * q, q);
    // Below -200, x·e^x is far below the f32 range (the clamp of exp's argument would
    // otherwise leave a tiny nonzero value); that includes -inf, whose limit is -0.0.
    let res = sel(w.simd_lt(sp(-200.0)), sp(-0.0), res);
    narrow(sel(is_nan(w), w, res))
}

// log(1+f) = f·G(f) for the reduced f in [sqrt2/2 - 1, sqrt2 - 1] (`log_reduce`), with G
// a polynomial: no division (s = f/(2+f) would cost a vdivpd). Coefficients: our own
// Chebyshev fits (mpmath `chebyfit`, fit range padded by 2^-20), max relative error of G,
// coefficients rounded to f64, as stated on each table.

/// ln(1+f)/f, degree 9: relative error < 2^-27.6.
const LOG_G: [f64; 10] = [
    0.9999999993832872,
    -0.4999998849583206,
    0.33333345348007315,
    -0.25001579131077856,
    0.2000093958859448,
    -0.16608368688955777,
    0.1419964642406117,
    -0.13266033951342357,
    0.12806637493916143,
    -0.07451214627269837,
];
/// log2(1+f)/f, degree 9: relative error < 2^-27.6.
const LOG2_G: [f64; 10] = [
    1.442695039999235,
    -0.7213473544744213,
    0.4808985202980935,
    -0.3606965422679902,
    0.28855256357584996,
    -0.23960811144812033,
    0.20485759478369753,
    -0.19138841393866238,
    0.1847607240293548,
    -0.10749830391361499,
];
/// log2(1+f)/f, degree 13, for pow: relative error < 2^-38.3.
const POW_LOG2_G: [f64; 14] = [
    1.4426950408862032,
    -0.7213475203430807,
    0.4808983490728314,
    -0.36067378977240405,
    0.28853876232813946,
    -0.2404466266813987,
    0.2061086952235731,
    -0.18043268783435104,
    0.16018226598618357,
    -0.14252337816900407,
    0.13062882011540214,
    -0.1347893695235308,
    0.13113788642400617,
    -0.06806325195174472,
];
/// (2^r - 1)/r on |r| <= 1/2 (+2^-20), degree 6: 2^r = 1 + r·Q(r) has relative error
/// < 2^-33.1 and is exactly 1 at r = 0.
const EXP2_Q: [f64; 7] = [
    0.6931471805599453,
    0.2402265092229135,
    0.055504108839098176,
    0.009618056677971448,
    0.0013333502385736975,
    0.00015461444919863564,
    1.529732393103067e-05,
];

/// log's special lanes: +inf and NaN are their own log (`!(w < inf)` is both), negative
/// x gives NaN, +-0 gives -inf.
#[inline(always)]
fn log_specials(w: F, res: F) -> F {
    let mut res = sel(w.simd_lt(sp(f64::INFINITY)), res, w);
    res = sel(w.simd_lt(sp(0.0)), sp(f64::NAN), res);
    sel(w.simd_eq(sp(0.0)), sp(f64::NEG_INFINITY), res)
}

/// ln(x) (f32 lanes), <= 1 ulp on every input: `log_f32_table` on AVX-512 builds, for
/// positive finite x (the other lanes out of line, by `log_f32_poly`); `log_f32_poly`
/// elsewhere.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log_f32(x: f32x8) -> f32x8 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    return fast_or_rare_lanes(
        x,
        positive_finite(x),
        log_table::log_f32_table::<false>(x),
        log_f32_poly,
    );
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    log_f32_poly(x)
}

/// log2(x) (f32 lanes): as `log_f32`, in base 2; exact for powers of two.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log2_f32(x: f32x8) -> f32x8 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    return fast_or_rare_lanes(
        x,
        positive_finite(x),
        log_table::log_f32_table::<true>(x),
        log2_f32_poly,
    );
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    log2_f32_poly(x)
}

/// ln(x) for every f32 x: k·ln2 + f·G(f) in f64 lanes (subnormals are normal there).
/// G's 2^-27.6 and the one-bit cancellation when k = -1 leave the f64 value within
/// 2^-26.6 relative, i.e. <= 0.5 + 2^-2.6 ulp after the rounding to f32. Lanes that are
/// not positive finite are reduced too (into garbage, no traps) and replaced by
/// `log_specials`.
#[inline(always)]
fn log_f32_poly(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (f, kf) = log_reduce(w);
    let res = fma(f, poly_estrin(f, &LOG_G), kf * LN2_D);
    narrow(log_specials(w, res))
}

/// log2(x) for every f32 x: k + f·G2(f), exact for powers of two; same budget as
/// `log_f32_poly`.
#[inline(always)]
fn log2_f32_poly(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (f, kf) = log_reduce(w);
    let res = fma(f, poly_estrin(f, &LOG2_G), kf);
    narrow(log_specials(w, res))
}

/// The lanes with 0 < x < inf (subnormals included), as one unsigned compare of the
/// bits: x - 1 wraps around for +0, and negative x, inf and NaN are above.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
fn positive_finite(x: f32x8) -> f32x8 {
    bits_in(x, 1, f32::INFINITY.to_bits() - 1)
}

/// The lanes whose f32 bits b satisfy lo <= b <= hi, as one unsigned compare: b - lo
/// wraps around to a large value below lo.
#[inline(always)]
fn bits_in(x: f32x8, lo: u32, hi: u32) -> f32x8 {
    use wide::u32x8;
    f32x8::from_bits((x.to_bits() - u32x8::splat(lo)).simd_lt(u32x8::splat(hi - lo + 1)))
}

// ---------------------------------------------------------------------------
// log and log2 on AVX-512 builds: a 16-entry table and a degree-5 polynomial
// ---------------------------------------------------------------------------
// The reduction of `log_f32_poly` leaves f in [-0.29, 0.41] and needs a degree-9
// polynomial (10 coefficients); with a table lookup (`vpermt2pd`, one uop per table of
// 16 f64), the reduced argument is within 0.0297 of 0 and four coefficients reach 2^-31.
// Tables and coefficients: `tools/log_table.py 4` (the reduction is explained there).
// ln x = k·ln2 + LNC[i] + log1p(r), r = z·INVC[i] - 1, x = 2^k·z, z in [0.699, 1.398).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod log_table {
    use super::*;

    /// Bits of f64 0.69921875 (f32 0x3f330000): z = x / 2^k lies in [OFF, 2·OFF).
    const LOG_OFF: u64 = 0x3fe6_6000_0000_0000;
    /// 1/c for the midpoint c of each of the 16 subintervals of z, rounded to f64; exactly 1
    /// for the one that holds 1 (i = 9).
    const LOG_INVC: [f64; 16] = [
        1.3989071038251366,
        1.3403141361256545,
        1.2864321608040201,
        1.2367149758454106,
        1.1906976744186046,
        1.147982062780269,
        1.1082251082251082,
        1.0711297071129706,
        1.0364372469635628,
        1.0,
        0.9481481481481482,
        0.8951048951048951,
        0.847682119205298,
        0.8050314465408805,
        0.7664670658682635,
        0.7314285714285714,
    ];
    /// -ln(LOG_INVC[i]) rounded to f64 (0 for i = 9).
    const LOG_LNC: [f64; 16] = [
        -0.33569129163814154,
        -0.2929040164329327,
        -0.2518726197550701,
        -0.21245865121419336,
        -0.17453941635189965,
        -0.1380056730194437,
        -0.10275973395776894,
        -0.06871389254805173,
        -0.03578910785158529,
        0.0,
        0.05324451451881224,
        0.11081436634029011,
        0.16524957289530717,
        0.2168739383006143,
        0.2659635484971379,
        0.3127557100038969,
    ];
    /// -log2(LOG_INVC[i]) rounded to f64 (0 for i = 9).
    const LOG_LOG2C: [f64; 16] = [
        -0.4843001617159575,
        -0.4225711719642514,
        -0.3633753794563512,
        -0.3065130425006747,
        -0.2518071504105397,
        -0.19910010007969525,
        -0.14825095858394247,
        -0.09913319201925132,
        -0.05163276841532236,
        0.0,
        0.07681559705083084,
        0.1598713367783894,
        0.2384047393250789,
        0.3128829552843553,
        0.38370429247405213,
        0.4512111118323288,
    ];
    /// log1p(r) = r + r²·P(r) on |r| <= 0.0297: relative error < 2^-31.0.
    const LOG_TAB_P: [f64; 4] = [
        -0.4999999357059919,
        0.3333332846923619,
        -0.25021968536677713,
        0.20017847952840223,
    ];
    /// The same divided by ln 2 (log2(1 + r) = r/ln2 + r²·P2(r)).
    const LOG2_TAB_P: [f64; 4] = [
        -0.7213474276878351,
        0.48089827678889957,
        -0.36099069921144605,
        0.2887964997083188,
    ];

    /// table[idx & 15] in each lane: one `vpermt2pd` (bits 0-2 pick the entry of a register,
    /// bit 3 the register; higher bits of idx are ignored).
    #[inline(always)]
    fn lookup16(table: &[f64; 16], idx: U) -> F {
        use core::arch::x86_64::_mm512_permutex2var_pd;
        let lo: F = F::new(table[..8].try_into().unwrap());
        let hi: F = F::new(table[8..].try_into().unwrap());
        // SAFETY: `_mm512_permutex2var_pd` needs avx512f, which the `cfg` above guarantees for
        // the whole build. It reads the two registers only: any index bits select one of
        // their 16 lanes, nothing outside them.
        bytemuck::cast(unsafe {
            _mm512_permutex2var_pd(bytemuck::cast(lo), bytemuck::cast(idx), bytemuck::cast(hi))
        })
    }

    /// ln x (or log2 x with `BASE2`) for positive finite f32 x; other lanes give garbage
    /// (no traps). In f64 lanes: x = 2^k·z with z in [OFF, 2·OFF) from the bits (f32
    /// subnormals are normal f64, so no rescaling), i = the top 4 bits of z's mantissa
    /// counted from OFF, r = z·INVC[i] - 1 in one FMA (relative error 2^-53), then
    /// (k·ln2 + LNC[i] + r) + r²·P(r). Error: P's 2^-31 relative to log1p(r), which is at
    /// most 1.3 times the result (2^-30.7); for i = 9 (INVC = 1, LNC = 0) and k = 0 nothing
    /// else rounds before the sum, so x near 1 keeps full relative accuracy; elsewhere
    /// |ln x| >= 0.0197 and the terms are at most 2.3 times the result (k = 0, i = 10,
    /// x = 1.0234375), so their f64 roundings stay below 2^-50 relative. Total < 2^-30.5
    /// before the rounding to f32 (a simulation over 250k inputs: 2^-31.07): <= 0.5 +
    /// 2^-6.5 ulp.
    #[inline(always)]
    pub(super) fn log_f32_table<const BASE2: bool>(x: f32x8) -> f32x8 {
        use wide::i64x8;
        let ix = bits(widen(x));
        let tmp = ix - us(LOG_OFF);
        // k = the exponent of x relative to OFF, as a signed integer (arithmetic shift)
        let k: i64x8 = bytemuck::cast::<U, i64x8>(tmp) >> 52;
        let kf = i2f(bytemuck::cast(k));
        let z = from_bits(ix - (tmp & us(0xfff0_0000_0000_0000)));
        let idx = tmp >> 48;
        let invc = lookup16(&LOG_INVC, idx);
        let r = fma(z, invc, sp(-1.0));
        let r2 = r * r;
        if BASE2 {
            let head = kf + lookup16(&LOG_LOG2C, idx);
            narrow(fma(
                r2,
                poly_estrin(r, &LOG2_TAB_P),
                fma(r, sp(INVLN2), head),
            ))
        } else {
            let head = fma(kf, sp(LN2_D), lookup16(&LOG_LNC, idx));
            narrow(fma(r2, poly_estrin(r, &LOG_TAB_P), head + r))
        }
    }
}

/// ln(1+x) (f32 lanes): u = 1 + x in f64 is decomposed as for log. When k = 0 the reduced
/// argument is x itself (exact, even where u rounded: |x| < 2^-29); when k != 0,
/// |x| > 0.29 and u is exact below 2^28, above which its 2^-53 rounding moves the log by
/// 2^-53 absolute against a result > 19. Same budget as `log_f32`, no correction term.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn log1p_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let u = sp(1.0) + w;
    let (fr, kf) = log_reduce(u);
    let f = sel(kf.simd_eq(sp(0.0)), w, fr);
    let res = fma(f, poly_estrin(f, &LOG_G), kf * LN2_D);
    // 0 keeps its sign; otherwise u = 1 + x's special lanes are those of log (+inf, NaN
    // are their own log1p; -1 gives -inf; below -1 NaN)
    narrow(sel(w.simd_eq(sp(0.0)), w, log_specials(u, res)))
}

/// 1/sqrt(x) (f32 lanes), <= 1 ulp: sqrt(1/x) in f32, two correctly rounded operations.
/// q = 1/x carries a relative error e <= 2^-24, which the square root halves: sqrt(q) is
/// within t·2^-25 <= ulp(t)/2 of t = 1/sqrt(x), and its rounding adds at most ulp/2.
/// (wide's `1/sqrt(x)` rounds sqrt(x) first, whose error the division does not halve:
/// 1.49 ulp, measured.) It is one division and one square root like wide's, with no
/// longer dependency chain; the 0.5-ulp variants (an FMA correction of 1/sqrt, or f64)
/// measured 1.4x slower.
///
/// Valid while 1/x is a normal f32, 2^-125 <= x <= 2^125; zeros (rsqrt(-0) = -inf),
/// subnormals, larger x, infinities, NaN and negative x (NaN) take the f64 path out of
/// line.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn rsqrt_f32(x: f32x8) -> f32x8 {
    // 2^-125 <= x <= 2^125 as one unsigned compare of the bits: below 2^-125 (zeros,
    // subnormals) the difference wraps around, and negative x (sign bit set) are above.
    let in_range = bits_in(x, 0x0100_0000, 0x7e00_0000); // bits of 2^-125 and 2^125
                                                         // out of range: 1/sqrt in f64 (relative error < 2^-52), rounded once
    let in_f64 = |x| narrow(sp(1.0) / widen(x).sqrt());
    fast_or_rare_lanes(x, in_range, rsqrt_in_range(x), in_f64)
}

/// 1/sqrt(x) for 2^-125 <= x <= 2^125 on AVX-512VL builds, <= 0.6 ulp, without the divider
/// (`vdivps` and `vsqrtps` share it: wide's `1/sqrt` and `sqrt(1/x)` are both bound by it,
/// 11 cycles per 8 lanes). y0 = `vrsqrt14ps`(x) = (1 + e0)/sqrt(x) with |e0| <= 2^-14;
/// d = 1 - x·y0² = -2e0 - e0² is computed almost exactly (p = x·y0 rounded, its error
/// x·y0 - p exact by FMA, then d = (1 - p·y0) - (x·y0 - p)·y0, two FMAs whose roundings
/// are below 2^-36); y = y0 + (y0/2)·d = (1 - 1.5·e0² - ...)/sqrt(x) in one rounding:
/// within 2^-27.4 relative before it, so <= 0.5 + 0.1 ulp.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn rsqrt_in_range(x: f32x8) -> f32x8 {
    use core::arch::x86_64::{__m256, _mm256_rsqrt14_ps};
    let xv: __m256 = bytemuck::cast(x);
    // SAFETY: `_mm256_rsqrt14_ps` needs avx512f and avx512vl; this item is compiled only
    // when avx512vl (which implies avx512f) is enabled for the whole build (the `cfg`
    // above), so every CPU this code runs on has it. It reads and writes registers only.
    let y0: f32x8 = bytemuck::cast(unsafe { _mm256_rsqrt14_ps(xv) });
    let p = x * y0;
    let p_err = x.mul_sub(y0, p);
    let d = p_err.mul_neg_add(y0, p.mul_neg_add(y0, f32x8::ONE));
    (y0 * 0.5).mul_add(d, y0)
}
/// 1/sqrt(x) for 2^-125 <= x <= 2^125 elsewhere: sqrt(1/x), <= 1 ulp (see `rsqrt_f32`).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
fn rsqrt_in_range(x: f32x8) -> f32x8 {
    (f32x8::ONE / x).sqrt()
}

// Trigonometric f32 kernels. The polynomials are minimax fits of the relative error made
// for these kernels (Remez exchange in mpmath, `tensor-core/tools/remez_trig.py`). The
// f64-lane sin/cos/tan fits (coefficients rounded to f64) stay below 2^-29.6 relative, so
// with the f64 rounding errors the value before the final rounding to f32 is within 2^-29
// relative: <= 0.5 + 2^-5 f32 ulp. Horner, not Estrin, there: on AVX-512 they are bound
// by the two ports that execute 512-bit operations (Estrin's extra multiplies measured
// slower), not by latency. The f32-lane kernels (tan on FMA builds; atan, asin, acos
// below) use f32 coefficients and state their own budgets.

/// sin(r)/r = 1 + z·(S1 + ... + S5·z^4), z = r², |r| <= π/2 (+2^-20): |rel err| < 2^-34.4.
const SINPI_P: [f64; 6] = [
    1.0,
    -0.16666666639024222,
    0.008333331426084178,
    -0.00019840890740131545,
    2.7525885130219867e-06,
    -2.388969269961668e-08,
];
/// sin(r)/r = 1 + z·(S1 + ... + S4·z^3) on |r| <= π/4 (+2^-20): |rel err| < 2^-36.7.
const SIN4_P: [f64; 5] = [
    1.0,
    -0.16666666644249772,
    0.008333329332187988,
    -0.00019839262448288628,
    2.717357208193048e-06,
];
/// cos(r) = 1 + z·(C0 + ... + C3·z^3) on |r| <= π/4 (+2^-20): |rel err| < 2^-33.0.
const COS4_P: [f64; 5] = [
    1.0,
    -0.4999999975382335,
    0.04166662272589835,
    -0.0013886684067928189,
    2.4379952204100374e-05,
];
const INVPI: f64 = std::f64::consts::FRAC_1_PI;

/// f32 inputs with |x| < 2^19: the multiple m of π/2 is below 2^19, so m·PIO2_1 (33 bits)
/// is exact and so is x - m·PIO2_1 wherever it cancels (x >= 0.78: both are multiples of
/// 2^-32 below 2); the second term leaves an absolute error below 2^-67, against
/// |x - m·π/2| > 2^-32 for every such f32 that is not 0 (m = 0 is exact).
const TRIG_F32_FAST_MAX: f32 = 524288.0;
const PIO2_1T: f64 = f64::from_bits(0x3DD0B4611A626331);

/// r = x - m·π/2 for an integer-valued m, |m| < 2^20 (see TRIG_F32_FAST_MAX).
#[inline(always)]
fn reduce_pio2(w: F, m: F) -> F {
    fma(m, sp(-PIO2_1T), fma(m, sp(-PIO2_1), w))
}

/// rint(v) as (value, bits of v + MAGIC): the low bit of the integer is bit 0 of the latter.
#[inline(always)]
fn rint_bits(v: F) -> (F, U) {
    let t = v + MAGIC;
    (t - MAGIC, bits(t))
}

/// sin(r) for |r| <= π/2, written r·(1 + z·P) so that sin(±0) = ±0.
#[inline(always)]
fn sin_pi(r: F) -> F {
    r * poly_fma(r * r, &SINPI_P)
}

/// Finish a sin/cos/tan lane set computed in f64 lanes: lanes with |x| >= 2^19,
/// infinities and NaNs (rare) take `exact`, the f64 function, out of line; it reduces huge
/// arguments exactly (Payne–Hanek). The fast path narrows in registers: merging the paths
/// in f64 lanes went through the stack (a failed store forward per call) and let LLVM split
/// the narrowing into pieces.
#[inline(always)]
fn trig_f32_finish(x: f32x8, res: F, exact: fn(f32x8) -> f32x8) -> f32x8 {
    let fast = x.abs().simd_lt(f32x8::splat(TRIG_F32_FAST_MAX));
    fast_or_rare_lanes(x, fast, narrow(res), exact)
}

/// sin(x) (f32 lanes): x = k·π + r, |r| <= π/2, sin x = (-1)^k sin r with one polynomial.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn sin_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (k, kb) = rint_bits(w * INVPI);
    let s = sin_pi(reduce_pio2(w, k + k));
    trig_f32_finish(x, from_bits(bits(s) ^ (kb << 63)), |x| {
        narrow(sin_f64(widen(x)))
    })
}

/// cos(x) (f32 lanes): x = (k - 1/2)·π + r, |r| <= π/2, cos x = (-1)^k sin r.
#[cfg_attr(target_feature = "avx2", inline)]
pub fn cos_f32(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (k, kb) = rint_bits(fma(w, sp(INVPI), sp(0.5)));
    let s = sin_pi(reduce_pio2(w, fma(k, sp(2.0), sp(-1.0))));
    trig_f32_finish(x, from_bits(bits(s) ^ (kb << 63)), |x| {
        narrow(cos_f64(widen(x)))
    })
}

/// tan(x) with f64 lanes: x = n·π/2 + r, |r| <= π/4; tan x = sin r / cos r (n even) or
/// -cos r / sin r (n odd), the quotient by `div_f32_newton`. This is `tan_f32` on builds
/// without FMA; FMA builds use it for the lanes the f32 kernel below leaves out.
#[inline(always)]
fn tan_f32_in_f64(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (n, nb) = rint_bits(w * INVPIO2);
    let r = reduce_pio2(w, n);
    let z = r * r;
    let s = r * poly_fma(z, &SIN4_P); // as r·(1 + z·P): tan(±0) = ±0
    let c = poly_fma(z, &COS4_P);
    let odd = from_bits((nb & us(1)).simd_eq(us(1)));
    let q = div_f32_newton(sel(odd, -c, s), sel(odd, s, c));
    trig_f32_finish(x, q, |x| narrow(tan_f64(widen(x))))
}

/// tan(x) (f32 lanes): x = n·π/2 + r, |r| <= π/4; tan x = sin r / cos r (n even) or
/// -cos r / sin r (n odd), evaluated in f64 lanes (`tan_f32_in_f64`).
#[cfg(not(target_feature = "fma"))]
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tan_f32(x: f32x8) -> f32x8 {
    tan_f32_in_f64(x)
}

// Pure-f32 tan for FMA builds. The f64 kernel above is latency bound on its four f32 <-> f64
// conversions (7 cycles each on a zmm) and its division's narrow/widen; this one stays in
// f32 lanes. tan r is the quotient of a rational minimax fit r·P(z)/Q(z), z = r², whose
// numerator and denominator are carried as unevaluated sums hi + lo of two f32 (the
// reduced argument too), so that the quotient is correctly rounded but for the errors
// listed on `tan_f32`. It needs single-rounding fused multiply-adds (exact products): FMA
// builds only.

/// |x| below this takes the f32 kernel; above it (and infinities, NaN) the lanes are
/// recomputed by `tan_f32_in_f64`. For f32 x below 2^18: n < 2^17.4, so `TAN_MAGIC` rounds
/// x·(2/π) to an integer, and |r| <= π/4 + (π/2)·2^18·|TAN_2_PI - 2/π| = 0.79597.
#[cfg(target_feature = "fma")]
const TAN_F32_MAX: f32 = 262144.0;
/// 1.5·2^23: fma(x, c, TAN_MAGIC) is TAN_MAGIC + rint(x·c) for |x·c| < 2^22, and its last
/// bit is the parity of the integer.
#[cfg(target_feature = "fma")]
const TAN_MAGIC: f32 = 12582912.0;
/// 2/π rounded to f32 (relative error -2^-24.6).
#[cfg(target_feature = "fma")]
const TAN_2_PI: f32 = f32::from_bits(0x3F22_F983);
/// π/2 = P1 + P2 + P3 + 1.06e-23: P1 is π/2 rounded down to f32 (so P2 > 0, which keeps
/// the sign of a zero through `r1 - n·P2`), P2 and P3 the next f32 pieces.
#[cfg(target_feature = "fma")]
const TAN_P1: f32 = f32::from_bits(0x3FC9_0FDA);
#[cfg(target_feature = "fma")]
const TAN_P2: f32 = f32::from_bits(0x33A2_2169);
#[cfg(target_feature = "fma")]
const TAN_P3: f32 = f32::from_bits(0xA6F7_2CED);
/// tan(r)/r = P(z)/Q(z) with P = 1 + P1·z + P2·z², Q = 1 + Q1·z + Q2·z², z = r²,
/// |r| <= 0.79597 (+2^-20): |rel err| < 2^-30.6 with these f32 coefficients [P1, P2, Q1, Q2]
/// (`remez_trig.py tanrat`; the Padé approximant of the same degrees errs by 2^-25.9).
#[cfg(target_feature = "fma")]
const TAN_RAT: [f32; 4] = [
    f32::from_bits(0xBDE4_1291),
    f32::from_bits(0x3A8C_F087),
    f32::from_bits(0xBEE3_AF4F),
    f32::from_bits(0x3C82_DC63),
];

/// tan(x) (f32 lanes, FMA builds): x = n·π/2 + r, tan x = N/D (n even) or -D/N (n odd)
/// with N = r·P(z), D = Q(z) (`TAN_RAT`), all in f32 lanes for |x| < 2^18 (`TAN_F32_MAX`).
///
/// * Reduction: n = rint(x·TAN_2_PI) (one rounding, by `TAN_MAGIC`). r1 = x - n·P1 is
///   exact (one FMA: x and n·P1 are multiples of 2^-24, or of 2^-23 above 1, and |r1| < 1,
///   or < 2). rh = r1 - ph with ph = n·P2 rounded: r1 is a multiple of ulp(ph) (|ph| < 2^-5),
///   so Fast2Sum gives r1 - rh exactly and rl = (r1 - rh) - n·P2 - n·P3 (two FMAs) holds
///   what rh leaves of x - n·(P1 + P2 + P3). The two roundings in rl and the tail of π/2
///   after P3 (1.06e-23) leave |rh + rl - r| < 2^-47·|rh| + n·2^-70.4, which is below
///   2^-29.2·|r| for every f32 |x| < 2^18: |r| is at least 2^-27.83 (x = 252.89821), and at
///   least 2^-21.05, 2^-25.88, 2^-24.88, 2^-23.88 in the binades 2^14 .. 2^17 where n is
///   large (smallest |x - n·π/2| over every f32 of each binade, found exhaustively). The
///   measured maximum over all those x is 2^-33.8. |rl| <= ulp(rh)/2 but where r is tiny:
///   there rl can reach 20% of rh, never half.
/// * N = nh + nl: nh = rq + w·p rounded, w = rh·z, z = rh², p = P1 + P2·z, with
///   rq = x - n·(P1 + P2 + P3) in three roundings (rh alone can be 20% off r where r is
///   tiny, and the quotient's first value needs nh within 2^-14 of N). nl = (rh - nh) +
///   (w·p + rl) is the rest: rh - nh is exact (Sterbenz), w·p + rl rounds by 2^-27.8 of N.
///   The sign of a zero: nh = rq + w·p is +0 for x = -0 (a sum of -0 and +0), so the
///   numerator takes the sign of rh, which is that of N for every x (a no-op but at -0).
/// * D = dh + dl: dh = 1 + z·q rounded with q = Q1 + Q2·z, dl = z·q + (1 - dh) its exact
///   residual (rounded once; 1 - dh is exact). q's rounding errs by 2^-26.2 of D.
/// * Left out: z's rounding moves N/D by 2^-25.8 at most (z enters N and D in the same
///   direction, and log(P/Q) grows as z/3); D is evaluated at rh, not at rh + rl, and N
///   takes rl with coefficient 1 instead of dN/dr: together rl·(1 + tan² - 1/D) <= 2^-24.95
///   of tan r (|rl| <= 2^-24·|r|, worst at |r| = 0.796).
/// * Quotient U/V (U, V = N, D or -D, N): with v0 = 1/vh to 2^-14 (`recip_for_quotient`),
///   q0 = uh·v0, residual e = q0·(vh + vl) - (uh + ul) (q0·vh - uh is exact), q = q0 - e·v0
///   rounded once. q0 and v0 are each within about 2^-14 of U/V and 1/V, so the correction
///   errs by 2^-28.
///
/// The value before the last rounding is within about 2^-23.7 relative of tan x (1.23 ulp
/// at most, 0.5 more for the rounding); measured over every f32 input: 1.26 ulp (see
/// ACCURACY.md for the walk). |x| >= 2^18, ±inf and NaN lanes go out of line to
/// `tan_f32_in_f64` (NaN for ±inf and NaN; exact reduction above 2^19).
#[cfg(target_feature = "fma")]
#[cfg_attr(target_feature = "avx2", inline)]
pub fn tan_f32(x: f32x8) -> f32x8 {
    use wide::u32x8;
    let v = f32x8::splat;
    let sign = u32x8::splat(0x8000_0000);
    let t = x.mul_add(v(TAN_2_PI), v(TAN_MAGIC));
    let n = t - v(TAN_MAGIC);
    let r1 = n.mul_neg_add(v(TAN_P1), x);
    let rh = r1 - n * v(TAN_P2);
    let rl = n.mul_neg_add(v(TAN_P3), n.mul_neg_add(v(TAN_P2), r1 - rh));
    let rq = n.mul_neg_add(v(TAN_P3), n.mul_neg_add(v(TAN_P2), r1)); // r to 2^-23
    let z = rh * rh;
    let w = rh * z;
    let p = z.mul_add(v(TAN_RAT[1]), v(TAN_RAT[0]));
    let nh = w.mul_add(p, rq);
    let nl = (rh - nh) + w.mul_add(p, rl);
    let q = z.mul_add(v(TAN_RAT[3]), v(TAN_RAT[2]));
    let dh = z.mul_add(q, v(1.0));
    let dl = z.mul_add(q, v(1.0) - dh);
    let odd = f32x8::from_bits((t.to_bits() & u32x8::splat(1)).simd_eq(u32x8::splat(1)));
    let nh_signed = f32x8::from_bits(nh.to_bits() | (rh.to_bits() & sign));
    let uh = odd.select(-dh, nh_signed);
    let ul = odd.select(-dl, nl);
    let vh = odd.select(nh, dh);
    let vl = odd.select(nl, dl);
    let v0 = recip_for_quotient(vh);
    let q0 = uh * v0;
    let e = q0.mul_sub(vh, uh) + q0.mul_sub(vl, ul);
    let ok = x.abs().simd_lt(v(TAN_F32_MAX));
    fast_or_rare_lanes(x, ok, e.mul_neg_add(v0, q0), tan_f32_in_f64)
}

/// 1/d to within 2^-14 relative, for a d whose reciprocal is a normal f32: `vrcp14ps`
/// (4 cycles, no divider) with AVX-512VL, an exact division otherwise (`vrcpps` errs by
/// 2^-11.4, too coarse for `tan_f32`'s one correction).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn recip_for_quotient(d: f32x8) -> f32x8 {
    use core::arch::x86_64::{__m256, _mm256_rcp14_ps};
    let dv: __m256 = bytemuck::cast(d);
    // SAFETY: `_mm256_rcp14_ps` needs avx512f and avx512vl; this item is compiled only when
    // avx512vl (which implies avx512f) is enabled for the whole build (the `cfg` above), so
    // every CPU this code runs on has it. It reads and writes registers only.
    let r: __m256 = unsafe { _mm256_rcp14_ps(dv) };
    bytemuck::cast(r)
}
#[cfg(all(
    target_feature = "fma",
    not(all(target_arch = "x86_64", target_feature = "avx512vl"))
))]
#[inline(always)]
fn recip_for_quotient(d: f32x8) -> f32x8 {
    f32x8::ONE / d
}

/// num/den to ~2^-45 relative without an f64 division (`vdivpd zmm` costs three `vdivps
/// ymm`): r0 = 1/den in f32 (|den| must round to a normal f32 with a normal reciprocal, or
/// be +-1.0 exactly), q0 = num·r0, and one Newton correction q0 - (den·q0 - num)·r0, whose
/// error is the square of r0's (2^-23); written so that num = ±0 gives ±0. Without FMA,
/// den·q0 rounds by 2^-53 relative to num, which the correction does not amplify.
#[inline(always)]
fn div_f32_newton(num: F, den: F) -> F {
    let r0 = widen(f32x8::splat(1.0) / narrow(den));
    let q0 = num * r0;
    fma(-fma(den, q0, -num), r0, q0)
}

// ---------------------------------------------------------------------------
// atan, asin, acos in f32 lanes
// ---------------------------------------------------------------------------
// These three evaluate in f32, unlike the kernels above. They are short and latency
// bound (a caller's loop overlaps only ~3 calls); in f64 lanes the two f32 <-> f64
// conversions (7 cycles and 2 uops each on AVX-512) and the f64 polynomials cost 1.2-2.1x
// wide's time, in f32 they take about its time (ACCURACY.md). What keeps them within
// 2 ulp in f32 without extra-precision arithmetic: polynomials with f32 coefficients over
// the whole reduced interval (no inexact reduction quotient), constants split as hi + lo,
// and additions arranged so that the only rounding before the last is exact or costs at
// most half an ulp (see each function). They use no exact FMA residual, so FMA and
// non-FMA builds agree within a few hundredths of an ulp (ACCURACY.md walks both).

// Lane masks for the f32 kernels below. wide's `simd_gt` + `select` compile on AVX-512
// builds to a vector compare, a `vpmovd2m` that moves its result into a k register, and
// a blend: two uops on a short kernel's critical path. Here a compare writes the k
// register itself and a select is merged into the arithmetic that produces the selected
// value (merge masking: lanes outside the mask keep `src`). Other builds use wide's
// all-ones / all-zeros lanes and `select`, with the same values in every lane.

/// Which lanes a `lanes_gt` compare selected: a k register on AVX-512VL builds.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
type LaneMask = core::arch::x86_64::__mmask8;
/// Which lanes a `lanes_gt` compare selected: all-ones lanes, as wide's compares give.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
type LaneMask = f32x8;

/// The lanes where a > b (false where either is NaN).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn lanes_gt(a: f32x8, b: f32x8) -> LaneMask {
    use core::arch::x86_64::{_mm256_cmp_ps_mask, _CMP_GT_OQ};
    // SAFETY: needs avx512f and avx512vl, which the `cfg` above guarantees for the whole
    // build (vl implies f). Registers only.
    unsafe { _mm256_cmp_ps_mask::<_CMP_GT_OQ>(bytemuck::cast(a), bytemuck::cast(b)) }
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
fn lanes_gt(a: f32x8, b: f32x8) -> LaneMask {
    a.simd_gt(b)
}

/// The lanes where a >= b (false where either is NaN).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn lanes_ge(a: f32x8, b: f32x8) -> LaneMask {
    use core::arch::x86_64::{_mm256_cmp_ps_mask, _CMP_GE_OQ};
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    unsafe { _mm256_cmp_ps_mask::<_CMP_GE_OQ>(bytemuck::cast(a), bytemuck::cast(b)) }
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
fn lanes_ge(a: f32x8, b: f32x8) -> LaneMask {
    a.simd_ge(b)
}

/// `a` in the lanes of `k`, `b` in the others.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn select_where(k: LaneMask, a: f32x8, b: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_blend_ps;
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_blend_ps(k, bytemuck::cast(b), bytemuck::cast(a)) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
fn select_where(k: LaneMask, a: f32x8, b: f32x8) -> f32x8 {
    k.select(a, b)
}

/// sqrt(a) in the lanes of `k`, `src` in the others.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn sqrt_where(k: LaneMask, src: f32x8, a: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_sqrt_ps;
    let (src, a) = (bytemuck::cast(src), bytemuck::cast(a));
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_sqrt_ps(src, k, a) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
fn sqrt_where(k: LaneMask, src: f32x8, a: f32x8) -> f32x8 {
    k.select(a.sqrt(), src)
}

/// num/den in the lanes of `k`, `src` in the others (the division still runs on every
/// lane: its cost does not depend on the mask).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn div_where(k: LaneMask, src: f32x8, num: f32x8, den: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_div_ps;
    let (src, num, den) = (
        bytemuck::cast(src),
        bytemuck::cast(num),
        bytemuck::cast(den),
    );
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_div_ps(src, k, num, den) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
fn div_where(k: LaneMask, src: f32x8, num: f32x8, den: f32x8) -> f32x8 {
    k.select(num / den, src)
}

/// a + b in the lanes of `k`, `src` in the others.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512vl"))]
#[inline(always)]
fn add_where(k: LaneMask, src: f32x8, a: f32x8, b: f32x8) -> f32x8 {
    use core::arch::x86_64::_mm256_mask_add_ps;
    let (src, a, b) = (bytemuck::cast(src), bytemuck::cast(a), bytemuck::cast(b));
    // SAFETY: as in `lanes_gt` (avx512f + avx512vl for the whole build); registers only.
    bytemuck::cast(unsafe { _mm256_mask_add_ps(src, k, a, b) })
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vl")))]
#[inline(always)]
fn add_where(k: LaneMask, src: f32x8, a: f32x8, b: f32x8) -> f32x8 {
    k.select(a + b, src)
}

/// π/2 as f32 hi + lo (hi = RN(π/2), lo = RN(π/2 - hi), |hi + lo - π/2| < 2^-49).
const PIO2_F32_HI: f32 = f32::from_bits(0x3fc9_0fdb);
const PIO2_F32_LO: f32 = f32::from_bits(0xb33b_bd2e);

/// atan(t) = t + t·z·P(z), z = t², on |t| <= 1; f32 coefficients (fixed one at a time,
/// the rest refitted: `tools/remez_trig.py atan1 8 f32`): |rel err| < 2^-25.7.
const ATAN1_P: [f64; 8] = [
    -0.33333152532577515,
    0.19993767142295837,
    -0.14211001992225647,
    0.10665769129991531,
    -0.07551678270101547,
    0.043205536901950836,
    -0.01636429876089096,
    0.0029199037235230207,
];

/// atan(x) (f32 lanes): for a = |x| <= 1, t = a and atan a = t + t·z·P; above, t = r =
/// RN(1/a) and atan a = π/2 - atan r = (hi - r) + (lo - r·z·P); the sign of x is put on
/// last (an OR: atan is odd, and this keeps atan(-0) = -0). hi - r is exact where r > 0.571
/// (multiples of 2^-24 below 1) and is at least 1 elsewhere, as is the result: it rounds
/// by half a result ulp at most. Budget in result ulps, worst just above |x| = 1: 0.5
/// final rounding + 0.25 for r's rounding (half an ulp of r, weighted by atan'(1) = 1/2) +
/// ~0.4 for z, t·z and P + ~0.15 for the rounding of lo - r·z·P (about 0.19 there) + 0.2
/// for the fit: ~1.5, measured 1.47 (FMA) and 1.49. (Evaluating in signed values
/// instead, to avoid the final OR, needs three sign operations and measured 5% slower.)
/// The two selects are merge-masked on AVX-512 (see `LaneMask`): with wide's compare and
/// blends this was 1.00-1.04x wide's time inlined, 0.89-0.93x with them.
#[inline]
pub fn atan_f32(x: f32x8) -> f32x8 {
    let one = f32x8::ONE;
    let a = x.abs();
    let big = lanes_gt(a, one);
    let t = div_where(big, a, one, a); // 1/a above 1
    let z = t * t;
    let tz = t * z;
    let p = poly_estrin(z, &ATAN1_P);
    let small = tz.mul_add(p, t);
    let h = f32x8::splat(PIO2_F32_HI) - t;
    let low = (-tz).mul_add(p, f32x8::splat(PIO2_F32_LO));
    add_where(big, small, h, low) | (x & f32x8::splat(-0.0))
}

/// asin(s) = s + s·z·P(z), z = s², on |s| <= 1/2; f32 coefficients (fixed one at a time,
/// the rest refitted: `tools/remez_trig.py asin 5 f32`): |rel err| < 2^-27.4.
const ASIN_P_F32: [f64; 5] = [
    0.16666731238365173,
    0.07495956867933273,
    0.04540149122476578,
    0.024475686252117157,
    0.04171570762991905,
];

/// For f32 x: (s, z, s·z, P(z), big) with big = |x| >= 1/2, z = x² and s = |x|
/// below 1/2, else z = (1 - |x|)/2 (exact; negative above 1, so s is NaN there) and s = √z
/// rounded: this 2^-24 relative error of s reaches asin/acos as at most 0.6 ulp (at |x| =
/// 1/2; it shrinks with s), which the error budgets below include.
#[inline(always)]
fn asin_reduce_f32(a: f32x8) -> (f32x8, f32x8, f32x8, f32x8, LaneMask) {
    let half = f32x8::splat(0.5);
    let big = lanes_ge(a, half);
    let z = select_where(big, a.mul_add(-half, half), a * a);
    let s = sqrt_where(big, a, z);
    let sz = s * z;
    (s, z, sz, poly_fma(z, &ASIN_P_F32), big)
}

/// π/2 split for asin as hi + lo with lo ≈ 0.008 (|hi + lo - π/2| < 2^-33): see `asin_f32`.
const ASIN_PIO2_HI: f32 = f32::from_bits(0x3fc8_09b6); // 1.5627964
const ASIN_PIO2_LO: f32 = f32::from_bits(0x3c03_1251); // 0.0079999724

/// asin(x) (f32 lanes): s + s·z·P below |x| = 1/2; above, π/2 - 2·asin s =
/// h + (lo - 2s·z·P) with h = hi - 2s. hi is π/2 - 0.008, not RN(π/2), so that h can
/// only round where the result is not below it: h is exact (a multiple of 2^-24 below 1)
/// for 2s >= hi - 1 = 0.5628, and for smaller s it is at least 1 while lo - 2s·z·P >=
/// 0.00029 > 0 (2s³·P <= 0.0077), so its rounding is at most half an ulp of the result.
/// (With hi = RN(π/2), h >= 1 > result happened for |x| in [0.837, 0.842]: 2.03 ulp.)
/// Budget: 0.5 final rounding + 0.6 root at |x| = 1/2 (0.3 where h rounds, + 0.5 for h)
/// + ~0.2 for z, s·z, P and the fit.
#[inline]
pub fn asin_f32(x: f32x8) -> f32x8 {
    let (s, _, sz, p, big) = asin_reduce_f32(x.abs());
    let small = sz.mul_add(p, s);
    let h = s.mul_add(f32x8::splat(-2.0), f32x8::splat(ASIN_PIO2_HI));
    let low = (sz * -2.0).mul_add(p, f32x8::splat(ASIN_PIO2_LO));
    add_where(big, small, h, low) | (x & f32x8::splat(-0.0))
}

/// π as f32 hi + lo (hi = RN(π), lo = RN(π - hi), |hi + lo - π| < 2^-48).
const PI_F32_HI: f32 = f32::from_bits(0x4049_0fdb);
const PI_F32_LO: f32 = f32::from_bits(0xb3bb_bd2e);

/// acos(x) (f32 lanes): acos x = K + m·asin(u) = (K_hi + m·u) + (K_lo +
/// m·u·z·P) with (K, m, u) = (π/2, -1, x) below |x| = 1/2, (0, 2, s) above for x > 0 and
/// (π, 2, -s) for x < 0. K_hi + m·u rounds (by 0.5 ulp at most) only where the result is
/// far from 0 (it is exact for K = 0), the root's error is 0.6 ulp of a result near 2s
/// at most, and with the final rounding every case stays below 1.7 ulp.
#[inline]
pub fn acos_f32(x: f32x8) -> f32x8 {
    let (s, z, _, p, big) = asin_reduce_f32(x.abs());
    let sign = x & f32x8::splat(-0.0);
    let neg = f32x8::ZERO.simd_gt(x);
    let u = select_where(big, s ^ sign, x);
    let m = select_where(big, f32x8::splat(2.0), f32x8::splat(-1.0));
    let k_hi = select_where(
        big,
        neg & f32x8::splat(PI_F32_HI),
        f32x8::splat(PIO2_F32_HI),
    );
    let k_lo = select_where(
        big,
        neg & f32x8::splat(PI_F32_LO),
        f32x8::splat(PIO2_F32_LO),
    );
    let mu = m * u;
    (mu * z).mul_add(p, k_lo) + (k_hi + mu)
}

// ---------------------------------------------------------------------------
// Scalar reference erf / erfc (fdlibm s_erf.c, same coefficients as above)
// ---------------------------------------------------------------------------

fn poly(z: f64, c: &[f64]) -> f64 {
    let mut p = c[c.len() - 1];
    for &ci in c[..c.len() - 1].iter().rev() {
        p = p * z + ci;
    }
    p
}

/// erfc(|x|) * |x| for 1.25 <= |x| < 28 (fdlibm tail), i.e. r with erfc = r/|x|.
fn erfc_tail_scalar(ax: f64) -> f64 {
    let (a, b) = erfc_tail_exponents_scalar(ax);
    a.exp() * b.exp()
}

/// For 1.25 <= ax < 28: (a, b) with erfc(ax) = e^(a + b)/ax (fdlibm s_erf.c), a = -z² -
/// 0.5625 exact (z = ax with its low 32 bits cleared), b = (z - ax)(z + ax) + R/S (|b| < 1).
/// For references that evaluate the exponential more precisely than `exp` (reference.rs).
pub fn erfc_tail_exponents_scalar(ax: f64) -> (f64, f64) {
    let s = 1.0 / (ax * ax);
    let (r, ss) = if ax < ERF_SPLIT {
        (poly(s, &RA), poly(s, &SA))
    } else {
        (poly(s, &RB[..7]), poly(s, &SB[..8]))
    };
    let z = f64::from_bits(ax.to_bits() & 0xffff_ffff_0000_0000);
    (-z * z - 0.5625, (z - ax) * (z + ax) + r / ss)
}

/// Scalar error function, fdlibm s_erf.c algorithm (< 1 ulp).
pub fn erf_scalar_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    if ax < 0.84375 {
        if ax < 3.725290298461914e-9 {
            return 0.125 * (8.0 * x + EFX8 * x);
        }
        let z = x * x;
        let y = poly(z, &PP) / poly(z, &QQ);
        return x + x * y;
    }
    if ax < 1.25 {
        let s = ax - 1.0;
        let pq = poly(s, &PA) / poly(s, &QA);
        return if x >= 0.0 { ERX + pq } else { -ERX - pq };
    }
    if ax >= 6.0 {
        return if x > 0.0 { 1.0 } else { -1.0 };
    }
    let r = erfc_tail_scalar(ax) / ax;
    if x >= 0.0 {
        1.0 - r
    } else {
        r - 1.0
    }
}

/// Scalar complementary error function, fdlibm s_erf.c algorithm (< 1 ulp,
/// relative accuracy in the tail up to the underflow at x ~ 27.2).
pub fn erfc_scalar_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    if ax < 0.84375 {
        if ax < 1.3877787807814457e-17 {
            return 1.0 - x;
        }
        let z = x * x;
        let y = poly(z, &PP) / poly(z, &QQ);
        return if x < 0.25 {
            1.0 - (x + x * y)
        } else {
            0.5 - (x * y + (x - 0.5))
        };
    }
    if ax < 1.25 {
        let s = ax - 1.0;
        let pq = poly(s, &PA) / poly(s, &QA);
        return if x >= 0.0 {
            (1.0 - ERX) - pq
        } else {
            1.0 + (ERX + pq)
        };
    }
    if ax < 28.0 {
        if x < -6.0 {
            return 2.0;
        }
        let r = erfc_tail_scalar(ax) / ax;
        return if x > 0.0 { r } else { 2.0 - r };
    }
    if x > 0.0 {
        0.0
    } else {
        2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ulp::{err_f32, err_f64};

    // ------------------------------------------------------------------ stats
    struct Stats {
        name: String,
        max: f64,
        at: (f64, f64),
        n: u64,
        cr: u64,
    }
    impl Stats {
        fn new(name: &str) -> Self {
            Stats {
                name: name.to_string(),
                max: 0.0,
                at: (0.0, 0.0),
                n: 0,
                cr: 0,
            }
        }
        fn add(&mut self, x: f64, y: f64, err: f64, cr: bool) {
            self.n += 1;
            if cr {
                self.cr += 1;
            }
            if err > self.max || err.is_nan() {
                self.max = err;
                self.at = (x, y);
            }
        }
        fn report(&self, bound: f64) {
            println!(
                "| {:<12} | {:>8.3} | {:>24} | {:>10.6} | {:>9} | {}",
                self.name,
                self.max,
                if self.at.1 == 0.0 {
                    format!("{:e}", self.at.0)
                } else {
                    format!("{:e},{:e}", self.at.0, self.at.1)
                },
                self.cr as f64 / self.n.max(1) as f64,
                self.n,
                if self.max <= bound { "ok" } else { "FAIL" }
            );
            assert!(
                self.max <= bound,
                "{}: max ulp {} at {:?} exceeds {}",
                self.name,
                self.max,
                self.at,
                bound
            );
        }
    }

    // ------------------------------------------------------------------ inputs
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545F4914F6CDD1D)
        }
        fn unif(&mut self, a: f64, b: f64) -> f64 {
            a + (b - a) * ((self.next() >> 11) as f64 * 2f64.powi(-53))
        }
        /// |x| log-uniform in [2^emin, 2^emax), random sign if `signed`.
        fn logu(&mut self, emin: i32, emax: i32, signed: bool) -> f64 {
            let r = self.next();
            let e = emin + (r % ((emax - emin) as u64)) as i32;
            let m = 1.0 + (self.next() >> 12) as f64 * 2f64.powi(-52);
            let v = m * 2f64.powi(e);
            if signed && (r >> 40) & 1 == 1 {
                -v
            } else {
                v
            }
        }
    }

    /// Every `stride`-th f32 bit pattern (finite only), plus `extra` points and
    /// +-`nb` bit neighbours of each extra point.
    fn f32_inputs(stride: u64, extra: &[f32], nb: i64) -> Vec<f32> {
        let mut v = Vec::new();
        let mut b: u64 = 0;
        while b < (1u64 << 32) {
            let x = f32::from_bits(b as u32);
            if x.is_finite() {
                v.push(x);
            }
            b += stride;
        }
        for &e in extra {
            for d in -nb..=nb {
                let bb = (e.to_bits() as i64 + d) as u32;
                let x = f32::from_bits(bb);
                if x.is_finite() {
                    v.push(x);
                }
            }
        }
        v
    }

    fn run_f32(name: &str, f: fn(f32x8) -> f32x8, r: fn(f64) -> f64, xs: &[f32], bound: f64) {
        let mut st = Stats::new(name);
        for ch in xs.chunks(8) {
            let mut a = [0f32; 8];
            a[..ch.len()].copy_from_slice(ch);
            let out = f(f32x8::from(a)).to_array();
            for i in 0..ch.len() {
                let rf = r(a[i] as f64);
                let e = err_f32(out[i], rf);
                st.add(
                    a[i] as f64,
                    0.0,
                    e,
                    out[i] == rf as f32 || (out[i].is_nan() && rf.is_nan()),
                );
            }
        }
        st.report(bound);
    }

    fn run_f64(name: &str, f: fn(F) -> F, r: fn(f64) -> f64, xs: &[f64], bound: f64) {
        let mut st = Stats::new(name);
        for ch in xs.chunks(8) {
            let mut a = [0f64; 8];
            a[..ch.len()].copy_from_slice(ch);
            let out = f(F::from(a)).to_array();
            for i in 0..ch.len() {
                let rf = r(a[i]);
                let e = err_f64(out[i], rf);
                st.add(
                    a[i],
                    0.0,
                    e,
                    out[i] == rf || (out[i].is_nan() && rf.is_nan()),
                );
            }
        }
        st.report(bound);
    }

    // ------------------------------------------------------------------ references
    /// The scalar references of `reference.rs` (double-double e^x, rounded once).
    fn sigmoid_ref(x: f64) -> f64 {
        <f64 as crate::reference::Float>::sigmoid(x)
    }
    fn gelu_ref(x: f64) -> f64 {
        <f64 as crate::reference::Float>::gelu(x)
    }

    // ------------------------------------------------------------------ f32 sweeps
    // The release-mode sweep (`cargo test --release -p tensorgraph-core`) visits every 1021st f32;
    // the default test profile thins it so `cargo test` stays fast.
    const STRIDE: u64 = if cfg!(debug_assertions) { 16381 } else { 1021 };

    fn pio2_multiples() -> Vec<f32> {
        let mut v = vec![];
        for k in 1..200 {
            v.push((k as f64 * std::f64::consts::FRAC_PI_2) as f32);
            v.push(-(k as f64 * std::f64::consts::FRAC_PI_2) as f32);
        }
        v.extend_from_slice(&[1e6, 1.6e6, 1.7e6, 1e10, 1e30, f32::MAX, 25735.0, 102_943.0]);
        v
    }

    #[test]
    fn f32_sweep_exp_log() {
        println!("| function     | max ulp  | at                       | frac CR    | n         |");
        let xs = f32_inputs(
            STRIDE,
            &[
                0.0, -0.0, 1.0, -1.0, 88.72284, -87.33655, -103.97, -88.0, 1e-7, 0.5,
            ],
            2000,
        );
        run_f32("exp_f32", exp_f32, f64::exp, &xs, 1.0);
        let xs = f32_inputs(
            STRIDE,
            &[
                1.0,
                0.5,
                2.0,
                f32::MIN_POSITIVE,
                1e-45,
                f32::MAX,
                0.70710677,
                1.4142135,
            ],
            2000,
        );
        run_f32("log_f32", log_f32, f64::ln, &xs, 1.0);
        let xs = f32_inputs(
            STRIDE,
            &[0.0, -0.0, -0.5, -1.0, -0.29289, 0.41421, 1e-8, -1e-8, 1.0],
            2000,
        );
        run_f32("log1p_f32", log1p_f32, f64::ln_1p, &xs, 1.0);
    }

    #[test]
    fn f32_sweep_trig() {
        let ex = pio2_multiples();
        let xs = f32_inputs(STRIDE, &ex, 64);
        run_f32("sin_f32", sin_f32, f64::sin, &xs, 2.0);
        run_f32("cos_f32", cos_f32, f64::cos, &xs, 2.0);
    }

    #[test]
    fn f32_sweep_tanh_erf_sigmoid_gelu() {
        let ex = [
            0.0f32, 1.0, -1.0, 0.55, 22.0, 9.0, -9.0, 0.84375, 1.25, 2.857, 6.0, -6.0, 4.0, 3.0,
        ];
        let xs = f32_inputs(STRIDE, &ex, 2000);
        run_f32("tanh_f32", tanh_f32, f64::tanh, &xs, 2.0);
        run_f32("erf_f32", erf_f32, erf_scalar_f64, &xs, 2.0);
        let ex2 = [0.0f32, -88.0, -103.0, 88.0, 16.0, -16.0, 1.0, -1.0, -36.0];
        let xs2 = f32_inputs(STRIDE, &ex2, 2000);
        run_f32("sigmoid_f32", sigmoid_f32, sigmoid_ref, &xs2, 2.0);
        let ex3 = [
            0.0f32, -1.0, -5.0, -10.0, -13.0, -14.0, -1.2, 1.0, 5.0, -1.7, -0.75,
        ];
        let xs3 = f32_inputs(STRIDE, &ex3, 2000);
        run_f32("gelu_f32", gelu_f32, gelu_ref, &xs3, 2.0);
    }

    #[test]
    fn f32_pow() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut st = Stats::new("pow_f32");
        let n = if cfg!(debug_assertions) {
            200_000
        } else {
            3_000_000
        };
        let mut xs = Vec::with_capacity(n);
        let mut ys = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = match i % 4 {
                0 => {
                    // positive x, y scaled so that |y log2 x| <= 160 (covers overflow/subnormal)
                    let x = f32::from_bits((rng.next() as u32) & 0x7f7f_ffff);
                    let l = (x as f64).log2().abs().max(1e-3);
                    (x, (rng.unif(-160.0, 160.0) / l) as f32)
                }
                1 => {
                    // negative x, integer y
                    let x = -(rng.logu(-20, 20, false) as f32);
                    let l = (x as f64).abs().log2().abs().max(1e-3);
                    let y = (rng.unif(-150.0, 150.0) / l).round() as f32;
                    (x, y)
                }
                2 => {
                    // x near 1, large y
                    let x = 1.0 + rng.unif(-1e-3, 1e-3) as f32;
                    (x, rng.unif(-1e5, 1e5) as f32)
                }
                _ => (
                    f32::from_bits(rng.next() as u32),
                    f32::from_bits(rng.next() as u32),
                ),
            };
            xs.push(x);
            ys.push(y);
        }
        for c in 0..n / 8 {
            let mut a = [0f32; 8];
            let mut b = [0f32; 8];
            a.copy_from_slice(&xs[c * 8..c * 8 + 8]);
            b.copy_from_slice(&ys[c * 8..c * 8 + 8]);
            let out = pow_f32(f32x8::from(a), f32x8::from(b)).to_array();
            for i in 0..8 {
                let r = (a[i] as f64).powf(b[i] as f64);
                st.add(
                    a[i] as f64,
                    b[i] as f64,
                    err_f32(out[i], r),
                    out[i] == r as f32 || (out[i].is_nan() && r.is_nan()),
                );
            }
        }
        st.report(2.0);
    }

    // ------------------------------------------------------------------ f64 random
    const N64: usize = if cfg!(debug_assertions) {
        1 << 16
    } else {
        1 << 20
    };

    fn make_inputs(seed: u64, f: impl Fn(&mut Rng, usize) -> f64) -> Vec<f64> {
        let mut rng = Rng(seed);
        (0..N64).map(|i| f(&mut rng, i)).collect()
    }

    #[test]
    fn f64_random() {
        let xs = make_inputs(1, |r, i| match i % 3 {
            0 => r.unif(-745.2, 709.8),
            1 => r.logu(-60, 3, true),
            _ => r.unif(-1.0, 1.0),
        });
        run_f64("exp_f64", exp_f64, f64::exp, &xs, 2.0);
        let xs = make_inputs(2, |r, i| match i % 3 {
            0 => f64::from_bits(r.next() & 0x7fef_ffff_ffff_ffff),
            1 => r.unif(0.5, 2.0),
            _ => f64::from_bits(r.next() & 0x000f_ffff_ffff_ffff),
        });
        run_f64("log_f64", log_f64, f64::ln, &xs, 2.0);
        let xs = make_inputs(3, |r, i| match i % 3 {
            0 => f64::from_bits(r.next() & 0x7fef_ffff_ffff_ffff),
            1 => r.unif(-1.0, 1.0),
            _ => r.logu(-70, 0, true),
        });
        run_f64("log1p_f64", log1p_f64, f64::ln_1p, &xs, 2.0);
        let xs = make_inputs(4, |r, i| match i % 4 {
            0 => r.unif(-1e6, 1e6),
            1 => r.logu(-30, 4, true),
            2 => {
                let k = (r.next() % 600_000) as f64;
                k * std::f64::consts::FRAC_PI_2 + r.unif(-1e-6, 1e-6)
            }
            _ => r.logu(20, 1000, true),
        });
        run_f64("sin_f64", sin_f64, f64::sin, &xs, 2.0);
        run_f64("cos_f64", cos_f64, f64::cos, &xs, 2.0);
        let xs = make_inputs(5, |r, i| match i % 2 {
            0 => r.unif(-25.0, 25.0),
            _ => r.logu(-60, 2, true),
        });
        run_f64("tanh_f64", tanh_f64, f64::tanh, &xs, 2.0);
        let xs = make_inputs(6, |r, i| match i % 2 {
            0 => r.unif(-7.0, 7.0),
            _ => r.logu(-60, 3, true),
        });
        run_f64("erf_f64", erf_f64, erf_scalar_f64, &xs, 4.0);
        let xs = make_inputs(7, |r, _| r.unif(-1.0, 30.0));
        run_f64("erfc_f64", erfc_fdlibm_f64, erfc_scalar_f64, &xs, 4.0);
        let xs = make_inputs(8, |r, i| match i % 2 {
            0 => r.unif(-750.0, 40.0),
            _ => r.logu(-40, 5, true),
        });
        run_f64("sigmoid_f64", sigmoid_f64, sigmoid_ref, &xs, 2.0);
        let xs = make_inputs(9, |r, i| match i % 2 {
            0 => r.unif(-28.0, 10.0),
            _ => r.logu(-40, 4, true),
        });
        // Against reference.rs's gelu (double-double exp below x = -1.77, within ~0.5
        // ulp of mpmath down to the subnormal range), held to the 2-ulp bound.
        run_f64("gelu_f64", gelu_f64, gelu_ref, &xs, 2.0);
        let xs = make_inputs(10, |r, i| match i % 2 {
            0 => r.unif(-760.0, 40.0),
            _ => r.logu(-40, 3, true),
        });
        let silu_dd: fn(f64) -> f64 = <f64 as crate::reference::Float>::silu;
        run_f64("silu_f64", silu_f64, silu_dd, &xs, 2.0);
    }

    #[test]
    fn f64_pow_random() {
        let mut rng = Rng(99);
        let mut st = Stats::new("pow_f64");
        for c in 0..(N64 / 8) {
            let mut a = [0f64; 8];
            let mut b = [0f64; 8];
            for i in 0..8 {
                let (x, y) = match (c * 8 + i) % 4 {
                    0 => {
                        let x = f64::from_bits(rng.next() & 0x7fef_ffff_ffff_ffff);
                        let l = x.log2().abs().max(1e-6);
                        (x, rng.unif(-1100.0, 1100.0) / l)
                    }
                    1 => {
                        let x = -rng.logu(-30, 30, false);
                        let l = x.abs().log2().abs().max(1e-3);
                        (x, (rng.unif(-1000.0, 1000.0) / l).round())
                    }
                    2 => (1.0 + rng.unif(-1e-6, 1e-6), rng.unif(-1e8, 1e8)),
                    _ => (rng.logu(-5, 5, false), rng.unif(-30.0, 30.0)),
                };
                a[i] = x;
                b[i] = y;
            }
            let out = pow_f64(F::from(a), F::from(b)).to_array();
            for i in 0..8 {
                let r = a[i].powf(b[i]);
                st.add(a[i], b[i], err_f64(out[i], r), out[i] == r);
            }
        }
        st.report(4.0);
    }

    // ------------------------------------------------------------------ erf cross-check
    #[test]
    fn erf_scalar_known_values() {
        // (x, erf(x), erfc(x)) computed with mpmath at 200 bits.
        let t: [(f64, f64, f64); 22] = [
            (1e-300, 1.1283791670955126022e-300, 1.0),
            (1e-20, 1.128379167095512512e-20, 0.99999999999999999999),
            (1e-08, 1.1283791670955125599e-8, 0.99999998871620832904),
            (0.1, 0.1124629160182848984, 0.8875370839817151016),
            (0.3, 0.32862675945912741619, 0.67137324054087258381),
            (0.5, 0.52049987781304653768, 0.47950012218695346232),
            (0.8, 0.74210096470766051259, 0.25789903529233948741),
            (0.84375, 0.76722566123234163346, 0.23277433876765836654),
            (0.9, 0.79690821242283213966, 0.20309178757716786034),
            (1.0, 0.84270079294971486934, 0.15729920705028513066),
            (1.2, 0.91031397822963536837, 0.089686021770364631634),
            (1.25, 0.92290012825645823014, 0.077099871743541769863),
            (1.5, 0.96610514647531072707, 0.033894853524689272933),
            (2.0, 0.99532226501895273416, 0.0046777349810472658379),
            (2.5, 0.99959304798255504106, 0.00040695201744495893956),
            (2.857, 0.99994664173991315363, 0.000053358260086846371124),
            (3.0, 0.99997790950300141456, 0.000022090496998585441373),
            (4.0, 0.99999998458274209972, 1.5417257900280018852e-8),
            (5.0, 0.99999999999846254021, 1.5374597944280348502e-12),
            (6.0, 0.99999999999999997848, 2.1519736712498913117e-17),
            (-0.7, -0.67780119383741844228, 1.6778011938374184423),
            (-2.2, -0.99813715370201811014, 1.9981371537020181101),
        ];
        let tail: [(f64, f64); 9] = [
            (7.0, 4.1838256077794143986e-23),
            (10.0, 2.088487583762544757e-45),
            (15.0, 7.2129941724512066666e-100),
            (20.0, 5.3958656116079009289e-176),
            (25.0, 8.300172571196522752e-274),
            (26.5, 2.2109076642637342759e-307),
            (27.0, 5.237048923789255685e-319),
            (-1.5, 1.9661051464753107271),
            (-6.0, 1.9999999999999999785),
        ];
        let mut worst: f64 = 0.0;
        for &(x, e, c) in &t {
            let a = err_f64(erf_scalar_f64(x), e);
            let b = err_f64(erfc_scalar_f64(x), c);
            worst = worst.max(a).max(b);
            assert!(
                a <= 1.0 && b <= 1.0,
                "x={x}: erf err {a} ulp, erfc err {b} ulp"
            );
            let v = erf_f64(F::splat(x)).to_array()[0];
            assert!(err_f64(v, e) <= 2.0, "vector erf({x}) = {v}");
        }
        for &(x, c) in &tail {
            let b = err_f64(erfc_scalar_f64(x), c);
            worst = worst.max(b);
            assert!(b <= 1.5, "x={x}: erfc err {b} ulp");
            let v = erfc_fdlibm_f64(F::splat(x)).to_array()[0];
            assert!(err_f64(v, c) <= 4.0, "vector erfc({x}) = {v}");
        }
        println!("erf/erfc scalar vs mpmath: worst {worst:.3} ulp");
    }

    #[test]
    fn gelu_f64_tail_known_values() {
        // (x, gelu(x)) from mpmath at 300 bits, rounded to nearest f64.
        let t: &[(f64, f64)] = &[
            (-31.43262730723152, -1.1397593638266054e-215),
            (-29.59900124359972, -2.2778653107720556e-191),
            (-34.89990541422245, -1.301598093245243e-265),
            (-28.767824638675954, -7.798187815810977e-181),
            (-33.6803492456509, -1.8884137037956953e-247),
            (-31.876302519273406, -9.066979744600827e-222),
            (-28.614788602611892, -6.293467199464132e-179),
            (-33.37881877180786, -4.6439821495919984e-243),
            (-28.39745397948504, -3.086708585769085e-176),
            (-32.59664424682129, -7.457766918244873e-232),
            (-28.74046748989096, -1.7124677293868918e-180),
            (-28.96155794144497, -2.9067208794948674e-183),
            (-32.49990340491065, -1.7381610220008288e-230),
            (-36.7646325215236, -1.247620461376559e-294),
            (-29.312300788186242, -1.0595291557603559e-187),
            (-30.366333024834354, -2.3221487239892502e-201),
            (-34.65079215749925, -7.529481066873477e-262),
            (-38.04571479004426, -1.92797292e-315),
            (-34.117291255345485, -6.972936972697181e-254),
            (-32.20481303129827, -2.4335215977652987e-226),
            (-38.348304119284954, -1.843e-320),
            (-28.493776414548215, -1.993212840332502e-177),
            (-37.099765665916, -5.2569862702152055e-300),
            (-31.06985843511577, -9.558504291882792e-211),
            (-29.52910388358884, -1.7987599130255236e-190),
            (-29.248597723630706, -6.841957808656867e-187),
            (-31.269907335480504, -1.872199222809757e-213),
            (-36.650939406672336, -8.101676038031723e-293),
            (-29.91569962719374, -1.839508158412757e-195),
            (-34.16496173482214, -1.3695949307082018e-254),
            (-34.77248277061755, -1.1022312857461386e-263),
            (-31.947413952892752, -9.373913521497748e-223),
            (-33.80609133652131, -2.7127714768485497e-249),
            (-28.665563134717225, -1.470091891864106e-179),
            (-28.631772401642067, -3.870491644873175e-179),
            (-30.18316235588486, -5.946218081870425e-199),
            (-35.21223971572693, -2.287178085346465e-270),
            (-32.53247844009567, -6.026693906468658e-231),
            (-31.32996000599399, -2.857817383836626e-214),
            (-34.20695575318097, -3.2592477990065273e-255),
            (-32.80375438953022, -8.537601825888857e-235),
            (-31.177530166755034, -3.349735537482129e-212),
            (-36.42042250413841, -3.683315045124316e-289),
            (-35.409340997533455, -2.1712020117712943e-273),
            (-30.58742301365482, -2.751458478268021e-204),
            (-34.08889132874191, -1.836708810630994e-253),
            (-33.567082940401384, -8.512879321300235e-246),
            (-37.27645745307834, -7.363137576458979e-303),
            (-35.73212006805571, -2.2405768393021464e-278),
            (-31.052140307835977, -1.657296617022377e-210),
            (-38.38985338342137, -3.745e-321),
            (-29.2514972495026, -6.285609919176577e-187),
            (-32.43210191092341, -1.5706383317548392e-229),
            (-36.025693853391644, -5.968913686837055e-283),
            (-29.61103606740135, -1.5951192150253906e-191),
            (-33.18300886504354, -3.1409930145222636e-240),
            (-28.41559692470284, -1.8436160337122997e-176),
            (-35.08308807926459, -2.1415309697784894e-268),
            (-36.10445118185582, -3.486033735586596e-284),
            (-34.07407496694027, -3.043286813010676e-253),
            (-38.5, -5.4e-323),
            (-38.6, -0.0),
            (-37.65634703562775, -4.84969195638741e-309),
            (-30.0, -1.472014178144456e-196),
            (-35.0, -3.937187472653422e-267),
            (-20.0, -5.507248237212468e-88),
            (-10.0, -7.619853024160526e-23),
            (-5.0, -1.4332578593959695e-06),
            (-3.0, -0.0040496940948902835),
            (-1.0, -0.15865525393145705),
        ];
        let mut worst: f64 = 0.0;
        for &(x, g) in t {
            let v = gelu_f64(F::splat(x)).to_array()[0];
            let e = err_f64(v, g);
            worst = worst.max(e);
            assert!(e <= 2.0, "gelu_f64({x}) = {v:e}, want {g:e} ({e} ulp)");
            let r = gelu_ref(x);
            assert!(
                err_f64(r, g) <= 1.0,
                "reference gelu({x}) = {r:e}, want {g:e}"
            );
        }
        println!("gelu_f64 vs mpmath (x in [-38.6,-1]): worst {worst:.3} ulp");
    }

    // ------------------------------------------------------------------ special values
    fn s32(f: fn(f32x8) -> f32x8, x: f32) -> f32 {
        f(f32x8::splat(x)).to_array()[0]
    }
    fn s64(f: fn(F) -> F, x: f64) -> f64 {
        f(F::splat(x)).to_array()[0]
    }
    fn same32(a: f32, b: f32) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }
    fn same64(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }

    #[test]
    fn special_values() {
        let inf = f32::INFINITY;
        let nan = f32::NAN;
        let c32: &[(&str, fn(f32x8) -> f32x8, f32, f32)] = &[
            ("exp", exp_f32, nan, nan),
            ("exp", exp_f32, -inf, 0.0),
            ("exp", exp_f32, inf, inf),
            ("exp", exp_f32, 0.0, 1.0),
            ("exp", exp_f32, -0.0, 1.0),
            ("exp", exp_f32, 88.7229, inf),
            ("exp", exp_f32, 89.0, inf),
            ("exp", exp_f32, -104.0, 0.0),
            ("log", log_f32, 0.0, -inf),
            ("log", log_f32, -0.0, -inf),
            ("log", log_f32, -1.0, nan),
            ("log", log_f32, -inf, nan),
            ("log", log_f32, inf, inf),
            ("log", log_f32, 1.0, 0.0),
            ("log", log_f32, nan, nan),
            ("log1p", log1p_f32, -1.0, -inf),
            ("log1p", log1p_f32, -2.0, nan),
            ("log1p", log1p_f32, -0.0, -0.0),
            ("log1p", log1p_f32, 0.0, 0.0),
            ("log1p", log1p_f32, inf, inf),
            ("log1p", log1p_f32, -inf, nan),
            ("log1p", log1p_f32, nan, nan),
            ("sin", sin_f32, 0.0, 0.0),
            ("sin", sin_f32, -0.0, -0.0),
            ("sin", sin_f32, inf, nan),
            ("sin", sin_f32, -inf, nan),
            ("sin", sin_f32, nan, nan),
            ("cos", cos_f32, 0.0, 1.0),
            ("cos", cos_f32, -0.0, 1.0),
            ("cos", cos_f32, inf, nan),
            ("cos", cos_f32, -inf, nan),
            ("cos", cos_f32, nan, nan),
            ("tanh", tanh_f32, inf, 1.0),
            ("tanh", tanh_f32, -inf, -1.0),
            ("tanh", tanh_f32, -0.0, -0.0),
            ("tanh", tanh_f32, 0.0, 0.0),
            ("tanh", tanh_f32, nan, nan),
            ("erf", erf_f32, inf, 1.0),
            ("erf", erf_f32, -inf, -1.0),
            ("erf", erf_f32, -0.0, -0.0),
            ("erf", erf_f32, 0.0, 0.0),
            ("erf", erf_f32, nan, nan),
            ("sigmoid", sigmoid_f32, -inf, 0.0),
            ("sigmoid", sigmoid_f32, inf, 1.0),
            ("sigmoid", sigmoid_f32, 0.0, 0.5),
            ("sigmoid", sigmoid_f32, nan, nan),
            ("gelu", gelu_f32, -inf, -0.0),
            ("gelu", gelu_f32, inf, inf),
            ("gelu", gelu_f32, 0.0, 0.0),
            ("gelu", gelu_f32, -0.0, -0.0),
            ("gelu", gelu_f32, -100.0, -0.0),
            ("gelu", gelu_f32, nan, nan),
        ];
        for &(n, f, x, want) in c32 {
            let got = s32(f, x);
            assert!(same32(got, want), "{n}_f32({x}) = {got}, want {want}");
            // f64 versions agree on these specials
            let f64fn: fn(F) -> F = match n {
                "exp" => exp_f64,
                "log" => log_f64,
                "log1p" => log1p_f64,
                "sin" => sin_f64,
                "cos" => cos_f64,
                "tanh" => tanh_f64,
                "erf" => erf_f64,
                "sigmoid" => sigmoid_f64,
                _ => gelu_f64,
            };
            if !(n == "exp" && x.is_finite() && x.abs() > 80.0) && x != -100.0 {
                let g = s64(f64fn, x as f64);
                assert!(same64(g, want as f64), "{n}_f64({x}) = {g}, want {want}");
            }
        }
        // exp thresholds (f32)
        // ln(f32::MAX) = 88.7228390587...: the f32 nearest 88.72284 is
        // 88.72283935546875 > ln(MAX) and its exp rounds to inf; the f32 just
        // below, 88.72283172607422, is the largest with a finite exp.
        assert!(s32(exp_f32, 88.72283).is_finite());
        assert_eq!(s32(exp_f32, 88.72283), ((88.72283f32) as f64).exp() as f32);
        assert_eq!(s32(exp_f32, 88.72284), inf);
        assert_eq!(s32(exp_f32, 88.7229), inf);
        // subnormal results of exp are accurate, not flushed
        for &x in &[-100.0f32, -103.0, -103.9, -95.5] {
            let g = s32(exp_f32, x);
            assert!(
                g > 0.0 && err_f32(g, (x as f64).exp()) <= 0.5 + 1e-9,
                "exp({x}) = {g}"
            );
        }
        for &x in &[-709.0f64, -720.0, -740.0, -745.0] {
            let g = s64(exp_f64, x);
            assert!(g > 0.0 && err_f64(g, x.exp()) <= 1.0, "exp({x}) = {g}");
        }
        assert_eq!(s64(exp_f64, 709.78), 709.78f64.exp());
        assert_eq!(s64(exp_f64, 709.8), f64::INFINITY);
        assert_eq!(s64(exp_f64, -745.2), 0.0);
        // log of subnormals
        for &x in &[1e-45f32, 1e-40, 5.877e-39, f32::MIN_POSITIVE] {
            let g = s32(log_f32, x);
            assert!(err_f32(g, (x as f64).ln()) <= 0.5 + 1e-9, "log({x}) = {g}");
        }
        for &x in &[5e-324f64, 1e-310, 2.2e-308] {
            let g = s64(log_f64, x);
            assert!(err_f64(g, x.ln()) <= 1.0, "log({x}) = {g}");
        }
        assert!(same64(s64(log1p_f64, -0.0), -0.0));
        assert!(same64(s64(sin_f64, -0.0), -0.0));
        assert!(same64(s64(tanh_f64, -0.0), -0.0));
        assert!(same64(s64(erf_f64, -0.0), -0.0));
        assert!(same64(s64(gelu_f64, -1000.0), -0.0));
        assert!(same64(s64(sigmoid_f64, -800.0), 0.0));
        assert!(s64(sigmoid_f64, -740.0) > 0.0);
        assert!(same64(s64(sigmoid_f64, 0.0), 0.5) && same64(s64(sigmoid_f64, -0.0), 0.5));
        assert!(same64(s64(sigmoid_f64, f64::INFINITY), 1.0));
        assert!(same64(s64(sigmoid_f64, f64::NEG_INFINITY), 0.0));
        assert!(s64(sigmoid_f64, f64::NAN).is_nan());
        assert!(same64(s64(silu_f64, -0.0), -0.0) && same64(s64(silu_f64, 0.0), 0.0));
        assert!(same64(s64(silu_f64, f64::INFINITY), f64::INFINITY));
        assert!(same64(s64(silu_f64, f64::NEG_INFINITY), -0.0));
        assert!(same64(s64(silu_f64, -800.0), -0.0));
        assert!(s64(silu_f64, -745.5) < 0.0); // subnormal, not flushed
        assert!(s64(silu_f64, f64::NAN).is_nan());

        // pow (C99 Annex F)
        let p = |x: f64, y: f64| pow_f64(F::splat(x), F::splat(y)).to_array()[0];
        let pf = |x: f32, y: f32| pow_f32(f32x8::splat(x), f32x8::splat(y)).to_array()[0];
        let dn = f64::NAN;
        let di = f64::INFINITY;
        let cases: &[(f64, f64, f64)] = &[
            (dn, 0.0, 1.0),
            (dn, -0.0, 1.0),
            (1.0, dn, 1.0),
            (1.0, di, 1.0),
            (-1.0, di, 1.0),
            (-1.0, -di, 1.0),
            (dn, 1.0, dn),
            (2.0, dn, dn),
            (-2.0, 3.0, -8.0),
            (-2.0, 2.0, 4.0),
            (-2.0, -3.0, -0.125),
            (-2.0, 0.5, dn),
            (-8.0, 1.0 / 3.0, dn),
            (0.0, -1.0, di),
            (-0.0, -1.0, -di),
            (-0.0, -2.0, di),
            (0.0, -0.5, di),
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (-0.0, 2.0, 0.0),
            (-0.0, 0.5, 0.0),
            (0.5, di, 0.0),
            (0.5, -di, di),
            (2.0, di, di),
            (2.0, -di, 0.0),
            (-0.5, di, 0.0),
            (-2.0, -di, 0.0),
            (di, 0.5, di),
            (di, -0.5, 0.0),
            (-di, 3.0, -di),
            (-di, 2.0, di),
            (-di, -3.0, -0.0),
            (-di, -2.0, 0.0),
            (-di, 0.5, di),
            (10.0, 400.0, di),
            (-10.0, 401.0, -di),
            (10.0, -400.0, 0.0),
            (-10.0, -401.0, -0.0),
            (2.0, -1074.0, 5e-324),
            (2.0, 1023.0, 8.98846567431158e307),
            (2.0, 1024.0, di),
            (2.0, 0.5, std::f64::consts::SQRT_2),
            (3.0, 2.0, 9.0),
            (10.0, 22.0, 1e22),
        ];
        for &(x, y, want) in cases {
            let got = p(x, y);
            assert!(same64(got, want), "pow_f64({x}, {y}) = {got}, want {want}");
            if (x as f32 as f64 == x || x.is_nan())
                && (y as f32 as f64 == y || y.is_nan())
                && want.abs() < 1e38
                || want.is_infinite()
                || want.is_nan()
            {
                let got32 = pf(x as f32, y as f32);
                let w32 = if x.abs() == 10.0 && y.abs() > 300.0 {
                    want as f32
                } else {
                    want as f32
                };
                assert!(
                    same32(got32, w32),
                    "pow_f32({x}, {y}) = {got32}, want {w32}"
                );
            }
        }
    }

    // ------------------------------------------------------------------ issue 5 functions
    fn softplus_ref(x: f64) -> f64 {
        if x.is_nan() {
            return x;
        }
        x.max(0.0) + (-x.abs()).exp().ln_1p()
    }

    /// rsqrt_f32 takes the f64 path out of line for any vector with a lane outside
    /// [2^-125, 2^125]: vectors that mix such lanes (zeros, subnormals, huge, inf, NaN,
    /// negative) with ordinary ones, in every position, keep each lane's own result.
    #[test]
    fn rsqrt_f32_mixed_lanes() {
        let odd = [
            0.0f32,
            -0.0,
            1e-45,
            1e-40,
            f32::from_bits(0x00ff_ffff), // just below 2^-125
            f32::from_bits(0x7e00_0001), // just above 2^125
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            -1e-40,
            -4.0,
        ];
        let xs = mixed_lanes(&odd);
        run_f32("rsqrt_f32 mixed", rsqrt_f32, |x| 1.0 / x.sqrt(), &xs, 1.0);
    }

    /// Each of `odd` in each lane position, the other seven lanes ordinary positive
    /// values: for kernels whose fast path hands some lanes to an out-of-line path.
    fn mixed_lanes(odd: &[f32]) -> Vec<f32> {
        let mut xs = vec![];
        for (k, &o) in odd.iter().enumerate() {
            for pos in 0..8 {
                xs.extend((0..8).map(|i| {
                    if i == pos {
                        o
                    } else {
                        0.75 + (k * 8 + i) as f32
                    }
                }));
            }
        }
        xs
    }

    /// log and log2 take lanes that are not positive finite out of line on AVX-512
    /// builds (`log_f32_table`); subnormals and 1 stay on the fast path.
    #[test]
    fn log_f32_mixed_lanes() {
        let odd = [
            0.0f32,
            -0.0,
            1e-45,
            1e-40,
            f32::MIN_POSITIVE,
            1.0,
            f32::MAX,
            f32::INFINITY,
            -f32::INFINITY,
            f32::NAN,
            -1e-40,
            -4.0,
        ];
        let xs = mixed_lanes(&odd);
        run_f32("log_f32 mixed", log_f32, f64::ln, &xs, 1.0);
        run_f32("log2_f32 mixed", log2_f32, f64::log2, &xs, 1.0);
    }

    /// Every f32 in the intervals where the walks found the f32-lane trig kernels' largest
    /// errors (ACCURACY.md), both signs, held to bounds just above those maxima (not to
    /// the 2-ulp contract), so that a change of split or polynomial that costs accuracy
    /// fails here: atan just above 1 (max 1.49 at 1.061), asin near 1/2 and where π/2 - 2s
    /// would cross 1 with a plain π/2 split (max 1.27), acos near |x| = 1/2 (1.17), tan at
    /// its worst input and at the f32 nearest a multiple of π/2 below 2^18 (1.26 at
    /// 49.483566 with the f32 kernel on FMA builds; 0.501 elsewhere).
    #[test]
    fn trig_worst_intervals() {
        fn every_f32(lo: f32, hi: f32) -> Vec<f32> {
            let v: Vec<f32> = (lo.to_bits()..=hi.to_bits()).map(f32::from_bits).collect();
            v.iter().copied().chain(v.iter().map(|x| -x)).collect()
        }
        let tan_bound = if cfg!(target_feature = "fma") {
            1.27
        } else {
            0.51
        };
        let cases: [(&str, fn(f32x8) -> f32x8, fn(f64) -> f64, f32, f32, f64); 6] = [
            ("atan_f32 near 1", atan_f32, f64::atan, 0.995, 1.07, 1.5),
            ("asin_f32 near 1/2", asin_f32, f64::asin, 0.499, 0.55, 1.3),
            ("asin_f32 crossing 1", asin_f32, f64::asin, 0.83, 0.88, 1.3),
            ("acos_f32 near 1/2", acos_f32, f64::acos, 0.499, 0.545, 1.2),
            (
                "tan_f32 near 49.48",
                tan_f32,
                f64::tan,
                49.48,
                49.49,
                tan_bound,
            ),
            (
                "tan_f32 near 252.9",
                tan_f32,
                f64::tan,
                252.89,
                252.91,
                tan_bound,
            ),
        ];
        for (name, f, reference, lo, hi, bound) in cases {
            run_f32(name, f, reference, &every_f32(lo, hi), bound);
        }
    }

    #[test]
    fn f32_sweep_more() {
        let ex = [
            0.0f32, 1.0, -1.0, 0.5, -0.5, 88.7, -103.0, 127.9, -149.5, 1e-7, -1e-7, 0.34657, 22.0,
            0.975, 0.4375, 2.4375,
        ];
        let xs = f32_inputs(STRIDE, &ex, 2000);
        run_f32("exp2_f32", exp2_f32, f64::exp2, &xs, 1.0);
        run_f32("expm1_f32", expm1_f32, f64::exp_m1, &xs, 1.0);
        run_f32("log2_f32", log2_f32, f64::log2, &xs, 1.0);
        run_f32("rsqrt_f32", rsqrt_f32, |x| 1.0 / x.sqrt(), &xs, 1.0);
        run_f32("sqrt_f32", sqrt_f32, f64::sqrt, &xs, 0.5);
        run_f32("atan_f32", atan_f32, f64::atan, &xs, 2.0);
        run_f32("asin_f32", asin_f32, f64::asin, &xs, 2.0);
        run_f32("acos_f32", acos_f32, f64::acos, &xs, 2.0);
        run_f32("sinh_f32", sinh_f32, f64::sinh, &xs, 2.0);
        run_f32("cosh_f32", cosh_f32, f64::cosh, &xs, 2.0);
        run_f32("softplus_f32", softplus_f32, softplus_ref, &xs, 2.0);
        run_f32(
            "silu_f32",
            silu_f32,
            <f64 as crate::reference::Float>::silu,
            &xs,
            2.0,
        );
        let xs = f32_inputs(STRIDE, &pio2_multiples(), 64);
        run_f32("tan_f32", tan_f32, f64::tan, &xs, 2.0);
    }

    #[test]
    fn f64_random_more() {
        let xs = make_inputs(11, |r, i| match i % 3 {
            0 => r.unif(-1075.0, 1024.0),
            1 => r.logu(-60, 3, true),
            _ => r.unif(-1.0, 1.0),
        });
        run_f64("exp2_f64", exp2_f64, f64::exp2, &xs, 1.0);
        let xs = make_inputs(12, |r, i| match i % 3 {
            0 => r.unif(-40.0, 709.0),
            1 => r.logu(-60, 3, true),
            _ => r.unif(-1.0, 1.0),
        });
        run_f64("expm1_f64", expm1_f64, f64::exp_m1, &xs, 1.0);
        let xs = make_inputs(13, |r, i| match i % 3 {
            0 => f64::from_bits(r.next() & 0x7fef_ffff_ffff_ffff),
            1 => r.unif(0.5, 2.0),
            _ => f64::from_bits(r.next() & 0x000f_ffff_ffff_ffff),
        });
        run_f64("log2_f64", log2_f64, f64::log2, &xs, 1.0);
        let xs = make_inputs(14, |r, i| match i % 4 {
            0 => r.unif(-1e6, 1e6),
            1 => r.logu(-30, 4, true),
            2 => {
                let k = (r.next() % 600_000) as f64;
                k * std::f64::consts::FRAC_PI_2 + r.unif(-1e-6, 1e-6)
            }
            _ => r.logu(20, 1000, true),
        });
        run_f64("tan_f64", tan_f64, f64::tan, &xs, 2.0);
        let xs = make_inputs(15, |r, i| match i % 3 {
            0 => r.unif(-4.0, 4.0),
            1 => r.logu(-60, 70, true),
            _ => r.unif(-1.0, 1.0),
        });
        run_f64("atan_f64", atan_f64, f64::atan, &xs, 2.0);
        let xs = make_inputs(16, |r, i| match i % 2 {
            0 => r.unif(-1.0, 1.0),
            _ => r.logu(-60, 0, true),
        });
        run_f64("asin_f64", asin_f64, f64::asin, &xs, 2.0);
        run_f64("acos_f64", acos_f64, f64::acos, &xs, 2.0);
        let xs = make_inputs(17, |r, i| match i % 3 {
            0 => r.unif(-711.0, 711.0),
            1 => r.logu(-60, 5, true),
            _ => r.unif(-2.0, 2.0),
        });
        run_f64("sinh_f64", sinh_f64, f64::sinh, &xs, 2.0);
        run_f64("cosh_f64", cosh_f64, f64::cosh, &xs, 2.0);
        let xs = make_inputs(18, |r, i| match i % 2 {
            0 => r.unif(-750.0, 40.0),
            _ => r.logu(-40, 5, true),
        });
        run_f64("softplus_f64", softplus_f64, softplus_ref, &xs, 2.0);
    }

    #[test]
    fn special_values_more() {
        let inf = f32::INFINITY;
        let nan = f32::NAN;
        let pio2 = std::f32::consts::FRAC_PI_2;
        let pi = std::f32::consts::PI;
        // C99 Annex F.
        let c32: &[(&str, fn(f32x8) -> f32x8, fn(F) -> F, f32, f32)] = &[
            ("exp2", exp2_f32, exp2_f64, 0.0, 1.0),
            ("exp2", exp2_f32, exp2_f64, -0.0, 1.0),
            ("exp2", exp2_f32, exp2_f64, -inf, 0.0),
            ("exp2", exp2_f32, exp2_f64, inf, inf),
            ("exp2", exp2_f32, exp2_f64, nan, nan),
            ("exp2", exp2_f32, exp2_f64, 10.0, 1024.0),
            ("exp2", exp2_f32, exp2_f64, -149.0, 1e-45),
            ("expm1", expm1_f32, expm1_f64, 0.0, 0.0),
            ("expm1", expm1_f32, expm1_f64, -0.0, -0.0),
            ("expm1", expm1_f32, expm1_f64, -inf, -1.0),
            ("expm1", expm1_f32, expm1_f64, inf, inf),
            ("expm1", expm1_f32, expm1_f64, nan, nan),
            ("log2", log2_f32, log2_f64, 1.0, 0.0),
            ("log2", log2_f32, log2_f64, 0.0, -inf),
            ("log2", log2_f32, log2_f64, -0.0, -inf),
            ("log2", log2_f32, log2_f64, -1.0, nan),
            ("log2", log2_f32, log2_f64, inf, inf),
            ("log2", log2_f32, log2_f64, -inf, nan),
            ("log2", log2_f32, log2_f64, 1024.0, 10.0),
            ("log2", log2_f32, log2_f64, 1e-45, -149.0),
            ("log2", log2_f32, log2_f64, nan, nan),
            ("tan", tan_f32, tan_f64, 0.0, 0.0),
            ("tan", tan_f32, tan_f64, -0.0, -0.0),
            ("tan", tan_f32, tan_f64, inf, nan),
            ("tan", tan_f32, tan_f64, -inf, nan),
            ("tan", tan_f32, tan_f64, nan, nan),
            ("atan", atan_f32, atan_f64, 0.0, 0.0),
            ("atan", atan_f32, atan_f64, -0.0, -0.0),
            ("atan", atan_f32, atan_f64, inf, pio2),
            ("atan", atan_f32, atan_f64, -inf, -pio2),
            ("atan", atan_f32, atan_f64, nan, nan),
            ("asin", asin_f32, asin_f64, 0.0, 0.0),
            ("asin", asin_f32, asin_f64, -0.0, -0.0),
            ("asin", asin_f32, asin_f64, 1.0, pio2),
            ("asin", asin_f32, asin_f64, -1.0, -pio2),
            ("asin", asin_f32, asin_f64, 1.5, nan),
            ("asin", asin_f32, asin_f64, -inf, nan),
            ("asin", asin_f32, asin_f64, nan, nan),
            ("acos", acos_f32, acos_f64, 1.0, 0.0),
            ("acos", acos_f32, acos_f64, -1.0, pi),
            ("acos", acos_f32, acos_f64, 0.0, pio2),
            ("acos", acos_f32, acos_f64, 1.5, nan),
            ("acos", acos_f32, acos_f64, inf, nan),
            ("acos", acos_f32, acos_f64, nan, nan),
            ("sinh", sinh_f32, sinh_f64, 0.0, 0.0),
            ("sinh", sinh_f32, sinh_f64, -0.0, -0.0),
            ("sinh", sinh_f32, sinh_f64, inf, inf),
            ("sinh", sinh_f32, sinh_f64, -inf, -inf),
            ("sinh", sinh_f32, sinh_f64, nan, nan),
            ("cosh", cosh_f32, cosh_f64, 0.0, 1.0),
            ("cosh", cosh_f32, cosh_f64, -0.0, 1.0),
            ("cosh", cosh_f32, cosh_f64, inf, inf),
            ("cosh", cosh_f32, cosh_f64, -inf, inf),
            ("cosh", cosh_f32, cosh_f64, nan, nan),
            ("softplus", softplus_f32, softplus_f64, -inf, 0.0),
            ("softplus", softplus_f32, softplus_f64, inf, inf),
            ("softplus", softplus_f32, softplus_f64, nan, nan),
            ("softplus", softplus_f32, softplus_f64, 100.0, 100.0),
            ("rsqrt", rsqrt_f32, rsqrt_f64, 0.0, inf),
            ("rsqrt", rsqrt_f32, rsqrt_f64, -0.0, -inf),
            ("rsqrt", rsqrt_f32, rsqrt_f64, inf, 0.0),
            ("rsqrt", rsqrt_f32, rsqrt_f64, -1.0, nan),
            ("rsqrt", rsqrt_f32, rsqrt_f64, 4.0, 0.5),
            ("sqrt", sqrt_f32, sqrt_f64, -0.0, -0.0),
            ("sqrt", sqrt_f32, sqrt_f64, -1.0, nan),
            ("sqrt", sqrt_f32, sqrt_f64, inf, inf),
        ];
        for &(n, f, g, x, want) in c32 {
            let got = s32(f, x);
            assert!(same32(got, want), "{n}_f32({x}) = {got}, want {want}");
            let want64 = match (n, want) {
                ("atan", w) if w.abs() == pio2 => std::f64::consts::FRAC_PI_2.copysign(w as f64),
                ("asin", w) if w.abs() == pio2 => std::f64::consts::FRAC_PI_2.copysign(w as f64),
                ("acos", w) if w == pio2 => std::f64::consts::FRAC_PI_2,
                ("acos", w) if w == pi => std::f64::consts::PI,
                ("exp2", w) if x == -149.0 => (w as f64).max(2f64.powi(-149)),
                _ => want as f64,
            };
            let got64 = s64(g, x as f64);
            assert!(
                same64(got64, want64),
                "{n}_f64({x}) = {got64}, want {want64}"
            );
        }
        // Overflow thresholds and subnormal results.
        assert_eq!(s32(exp2_f32, 128.0), inf);
        assert_eq!(s32(exp2_f32, 127.99), (127.99f32 as f64).exp2() as f32);
        assert_eq!(s64(exp2_f64, 1024.0), f64::INFINITY);
        assert_eq!(s64(exp2_f64, -1074.0), 5e-324);
        assert_eq!(s64(exp2_f64, -1075.5), 0.0);
        assert_eq!(s32(sinh_f32, 89.5), inf);
        assert_eq!(s32(cosh_f32, -89.5), inf);
        assert!(err_f64(s64(sinh_f64, 710.0), 710f64.sinh()) <= 2.0);
        assert_eq!(s64(sinh_f64, 711.0), f64::INFINITY);
        assert_eq!(s64(cosh_f64, -711.0), f64::INFINITY);
        let sp = s32(softplus_f32, -100.0);
        assert!(
            sp > 0.0 && err_f32(sp, softplus_ref(-100.0)) <= 0.5 + 1e-9,
            "softplus(-100) = {sp}"
        );
        // Every finite f32 huge argument reduces correctly.
        for &x in &[f32::MAX, -f32::MAX, 1e30, 3.0e38, 524288.0, 524287.9] {
            for (f, r) in [
                (sin_f32 as fn(f32x8) -> f32x8, f64::sin as fn(f64) -> f64),
                (cos_f32, f64::cos),
                (tan_f32, f64::tan),
            ] {
                let g = s32(f, x);
                assert!(err_f32(g, r(x as f64)) <= 0.5 + 1e-6, "trig({x}) = {g}");
            }
        }
    }
}
