//! The f32-lane kernels of the hot transcendentals: exp, tanh, sigmoid, erf and the exact
//! gelu, evaluated in f32 lanes from end to end (no widening to f64).
//!
//! The f64-lane paths (`exp_f64_for_f32` and friends) round a ~2^-30-accurate f64 value
//! once and are within 0.5 + 2^-6 ULP, but every f32 vector costs two conversions and two
//! f64 vectors of work: W6 `gelu(x + bias)` spent 90% of its time in the f64 gelu (issue
//! 16). These kernels spend the headroom ACCURACY.md's bounds leave (1 ULP for exp, 2 for
//! tanh, sigmoid, erf and gelu) instead: Cody–Waite reductions with split constants,
//! minimax polynomials with f32 coefficients (`tools/f32_fits.py`), FMA where the build has
//! it, and one f32 division where a quotient is needed. Every bound is checked over all
//! 2^32 inputs by `examples/ulp_sweep.rs` on the default and the native build (the
//! figures are in ACCURACY.md).
//!
//! The bodies are generic over [`F32Simd`], implemented for wide's `f32x8` and `f32x16`,
//! so one body serves every lane width; the public `*_f32` functions in the family files
//! instantiate them for `f32x8`.
//!
//! Special values: NaN gives NaN, and the limits are exact (`exp(-inf) = +0`,
//! `exp(+inf) = +inf`, `tanh(±inf) = ±1`, `sigmoid(-inf) = +0`, `erf(±inf) = ±1`,
//! `gelu(-inf) = -0`, `gelu(+inf) = +inf`); ±0 keep their sign where the function is odd.

use super::*;
use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};
use wide::f32x16;

/// What the kernels need of an f32 lane vector: arithmetic (the operators), `mul_add`
/// (fused on FMA builds, a multiply and an add elsewhere), compares that return all-ones /
/// all-zeros lanes, a select on such a mask, and the bit shift that builds 2^k.
pub(crate) trait F32Simd:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
{
    /// Whether `mul_add` rounds once. The kernels whose budgets need exact FMA residuals
    /// (sigmoid, erf, gelu) take the f64-lane paths where it does not.
    const FUSED: bool;
    /// Every lane `v`.
    fn splat(v: f32) -> Self;
    /// self·b + c, with one rounding on FMA builds.
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// |self| (the sign bit cleared).
    fn abs(self) -> Self;
    /// The lanes where self < o (false for NaN).
    fn lt(self, o: Self) -> Self;
    /// The lanes where self >= o (false for NaN).
    fn ge(self, o: Self) -> Self;
    /// The lanes that are NaN.
    fn is_nan(self) -> Self;
    /// `a` where the mask `self` is set, else `b`.
    fn select(self, a: Self, b: Self) -> Self;
    /// `maxps`: o where either is NaN.
    fn max_or_second(self, o: Self) -> Self;
    /// `minps`: o where either is NaN.
    fn min_or_second(self, o: Self) -> Self;
    /// Whether every lane of the mask `self` is set.
    fn all(self) -> bool;
    /// The lanes' bits shifted left by 23 (into the exponent field), as f32.
    fn shl23(self) -> Self;
    /// `f` applied to each group of 8 lanes (out-of-line paths written for f32x8).
    fn map8(self, f: fn(f32x8) -> f32x8) -> Self;
    /// 1/self to about 12 bits (`rcpps`).
    fn recip_approx(self) -> Self;
    /// rint(self), ties to even, for |self| < 2^22: 1.5·2^23 added and taken away, or one
    /// `vrndscaleps` on AVX-512 (the same value).
    #[inline(always)]
    fn round_small(self) -> Self {
        (self + Self::splat(MAGIC_F)) - Self::splat(MAGIC_F)
    }
    /// self·2^k for integer-valued k in [-150, 128] and self in [0.7, 1.42] (an `exp_poly`
    /// result), rounded once (overflow to inf, into the subnormal range correctly): two
    /// products by normal powers of two, the first exact; or one `vscalefps` on AVX-512,
    /// which rounds the exact product once too (the same bits).
    #[inline(always)]
    fn mul_pow2(self, kf: Self) -> Self {
        let k1 = (kf * s(0.5)).round_small();
        self * pow2(k1) * pow2(kf - k1)
    }
    /// As `mul_pow2` for k in [-150, 0] only (`exp_nonpos`): self·2^(k+25) is normal and
    /// exact (k + 25 >= -125 and self >= 0.7), and the product by 2^-25 rounds once; one
    /// `vscalefps` on AVX-512. The same bits as `mul_pow2` over that range.
    #[inline(always)]
    fn mul_pow2_nonpos(self, kf: Self) -> Self {
        self * pow2(kf + s(25.0)) * s(f32::from_bits(0x3300_0000))
    }
    /// e^self for self <= 0, NaN for NaN (`exp_nonpos`; a positive self is outside its
    /// domain: 1 here, e^self up to 88.72 and no meaningful value far above it on the
    /// table kernel): the polynomial kernel, or on 16-lane
    /// AVX-512 builds the table kernel (`exp_nonpos_table32`), which needs a 32-entry
    /// lane permutation.
    #[inline(always)]
    fn exp_nonpos(self) -> Self {
        exp_nonpos_poly(self)
    }
}

macro_rules! f32_simd_impl {
    ($t:ty, $map8:expr) => {
        f32_simd_impl!($t, $map8, {});
    };
    ($t:ty, $map8:expr, { $($extra:tt)* }) => {
        impl F32Simd for $t {
            const FUSED: bool = cfg!(target_feature = "fma");
            #[inline(always)]
            fn splat(v: f32) -> Self {
                <$t>::splat(v)
            }
            #[inline(always)]
            fn mul_add(self, b: Self, c: Self) -> Self {
                <$t>::mul_add(self, b, c)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn lt(self, o: Self) -> Self {
                self.simd_lt(o)
            }
            #[inline(always)]
            fn ge(self, o: Self) -> Self {
                self.simd_ge(o)
            }
            #[inline(always)]
            fn is_nan(self) -> Self {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn select(self, a: Self, b: Self) -> Self {
                <$t>::select(self, a, b)
            }
            #[inline(always)]
            fn max_or_second(self, o: Self) -> Self {
                self.fast_max(o)
            }
            #[inline(always)]
            fn min_or_second(self, o: Self) -> Self {
                self.fast_min(o)
            }
            #[inline(always)]
            fn all(self) -> bool {
                <$t>::all(self)
            }
            #[inline(always)]
            fn shl23(self) -> Self {
                <$t>::from_bits(self.to_bits() << 23u32)
            }
            #[inline(always)]
            fn map8(self, f: fn(f32x8) -> f32x8) -> Self {
                let m: fn(Self, fn(f32x8) -> f32x8) -> Self = $map8;
                m(self, f)
            }
            #[inline(always)]
            fn recip_approx(self) -> Self {
                self.recip()
            }
            $($extra)*
        }
    };
}
f32_simd_impl!(f32x8, |x, f| f(x));
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
f32_simd_impl!(f32x16, |x, f| {
    let [a, b]: [f32x8; 2] = bytemuck::cast(x);
    bytemuck::cast([f(a), f(b)])
});
// AVX-512 builds: f32x16 is one zmm register; rint and the scaling by 2^k are single
// instructions there (`vrndscaleps`, `vscalefps`), with the same results as the portable
// forms (see the trait's methods).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
f32_simd_impl!(
    f32x16,
    |x, f| {
        let [a, b]: [f32x8; 2] = bytemuck::cast(x);
        bytemuck::cast([f(a), f(b)])
    },
    {
        #[inline(always)]
        fn round_small(self) -> Self {
            use core::arch::x86_64::{
                _mm512_roundscale_ps, _MM_FROUND_NO_EXC, _MM_FROUND_TO_NEAREST_INT,
            };
            // SAFETY: `_mm512_roundscale_ps` needs avx512f, which the `cfg` above guarantees
            // for the whole build. Registers only.
            bytemuck::cast(unsafe {
                _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
                    bytemuck::cast(self),
                )
            })
        }
        #[inline(always)]
        fn mul_pow2(self, kf: Self) -> Self {
            use core::arch::x86_64::_mm512_scalef_ps;
            // SAFETY: as in `round_small`. `vscalefps` computes self·2^floor(kf) rounded once
            // with MXCSR's mode, which Rust code never changes from round-to-nearest-even.
            bytemuck::cast(unsafe { _mm512_scalef_ps(bytemuck::cast(self), bytemuck::cast(kf)) })
        }
        #[inline(always)]
        fn mul_pow2_nonpos(self, kf: Self) -> Self {
            self.mul_pow2(kf)
        }
        #[inline(always)]
        fn exp_nonpos(self) -> Self {
            exp_nonpos_table32(self)
        }
    }
);

#[inline(always)]
fn s<V: F32Simd>(v: f32) -> V {
    V::splat(v)
}

/// Estrin evaluation of c[0] + c[1] t + ...: a shorter dependency chain than Horner
/// (these kernels are latency bound when one call's chain is all the scheduler sees).
#[inline(always)]
fn estrin<V: F32Simd>(t: V, c: &[f32]) -> V {
    assert!(!c.is_empty() && c.len() <= 16);
    let mut lanes = [s::<V>(0.0); 16];
    for (l, &c) in lanes.iter_mut().zip(c) {
        *l = s(c);
    }
    estrin_lanes(t, &lanes[..c.len()])
}

/// `estrin` with coefficients that may differ per lane (gelu's G picks each lane's
/// interval's coefficients).
#[inline(always)]
fn estrin_lanes<V: F32Simd>(t: V, c: &[V]) -> V {
    assert!(!c.is_empty() && c.len() <= 16);
    let mut v = [s::<V>(0.0); 8];
    let mut m = c.len().div_ceil(2);
    for (i, vi) in v.iter_mut().enumerate().take(m) {
        *vi = match c.get(2 * i + 1) {
            Some(&odd) => odd.mul_add(t, c[2 * i]),
            None => c[2 * i],
        };
    }
    let mut p = t * t;
    while m > 1 {
        let half = m.div_ceil(2);
        for i in 0..half {
            v[i] = if 2 * i + 1 < m {
                v[2 * i + 1].mul_add(p, v[2 * i])
            } else {
                v[2 * i]
            };
        }
        m = half;
        p = p * p;
    }
    v[0]
}

/// |m| with the sign of `sign` (m must have a clear sign bit).
#[inline(always)]
fn with_sign_of<V: F32Simd>(m: V, sign: V) -> V {
    m | (sign & s(-0.0))
}

// ---------------------------------------------------------------------------
// exp
// ---------------------------------------------------------------------------
// x = k·ln2 + r, k = rint(x/ln2), |r| <= ln2/2 (+ the rounding of x/ln2). ln 2 is split
// Cody–Waite style: LN2_HI has 15 significant bits, so k·LN2_HI is exact for |k| <= 2^9
// and x - k·LN2_HI is exact (x and k·ln2 are within a factor 2 when k != 0); LN2_LO
// carries the next 24 bits. Without FMA the product k·LN2_LO rounds by 2^-24 of itself
// (<= 2^-37 absolute). e^r = 1 + r + r²·P(r), P of degree 5 with f32 coefficients
// (SLEEF's `expf` coefficients; `tools/f32_fits.py exp`: relative error of the
// polynomial < 2^-29.7 on |r| <= ln2/2 + 2^-12).
// The final 1 + (r + r²P) rounds once (0.5 ULP); the result is scaled by 2^k in two
// steps, 2^k1 · 2^k2 with k1 = rint(k/2): the first product is exact, the second rounds
// once, also into the subnormal range (`F32Simd::mul_pow2`; one `vscalefps` on AVX-512,
// the same rounding).

/// ln 2 high part: 0x3f317200, 15 significant bits.
pub(crate) const LN2_HI_F: f32 = 0.693_145_751_953_125;
/// ln 2 - LN2_HI_F rounded to f32.
pub(crate) const LN2_LO_F: f32 = 1.428_606_765_330_187_045e-6;
pub(crate) const LOG2E_F: f32 = core::f32::consts::LOG2_E;
/// 1.5·2^23: adding it to |v| < 2^22 rounds v to an integer (ties to even), held in the
/// low mantissa bits.
pub(crate) const MAGIC_F: f32 = 12_582_912.0;
/// P of e^r = 1 + r + r²·P(r) on |r| <= ln2/2 + 2^-12.
pub(crate) const EXP_P: [f32; 6] = [
    0.5,
    0.166_666_671_633_720_397_949_219,
    0.041_666_485_369_205_474_853_515_6,
    0.008_333_360_776_305_198_669_433_59,
    0.001_393_043_552_525_341_510_772_71,
    0.000_198_527_617_612_853_646_278_381,
];

/// 2^k for integer-valued k in [-126, 127]: k + 127 in the exponent field. bits(MAGIC + n)
/// is 0x4b400000 + n for 0 <= n < 2^22, and shifting left by 23 drops the 0x4b4 part.
#[inline(always)]
fn pow2<V: F32Simd>(kf: V) -> V {
    (kf + s(MAGIC_F + 127.0)).shl23()
}

/// x = k·ln2 + r + r_lo for |x| <= 151: (r, r_lo, k), r_lo the rounding error of r (exact
/// with FMA; without, up to the rounding of k·LN2_LO, < 2^-36).
#[inline(always)]
fn reduce_ln2<V: F32Simd>(x: V) -> (V, V, V) {
    let kf = (x * s(LOG2E_F)).round_small();
    let r1 = kf.mul_add(s(-LN2_HI_F), x);
    let r = kf.mul_add(s(-LN2_LO_F), r1);
    (r, kf.mul_add(s(-LN2_LO_F), r1 - r), kf)
}

/// e^(r + r_lo) for the reduced r and |r_lo| <= 2^-20, rounded once: (1 + r) as an exact
/// sum s + s_lo, then s + (s_lo + r_lo·(1 + r) + r²·P(r)). The small sum is below 0.07,
/// so its roundings and P's 2^-29.7 stay below 2^-28 of the result: <= 0.5 + 2^-3 ULP
/// before the scaling. (1 + (r + r²P) measured 1.001 ULP: the rounding of r alone is
/// 2^-26 of the result.)
#[inline(always)]
fn exp_poly<V: F32Simd>(r: V, r_lo: V) -> V {
    let (hi, lo) = exp_poly_unrounded(r, r_lo);
    hi + lo
}

/// `exp_poly` before its last rounding: e^(r + r_lo) ~ hi + lo, |lo| < 0.07.
#[inline(always)]
fn exp_poly_unrounded<V: F32Simd>(r: V, r_lo: V) -> (V, V) {
    let sum = s::<V>(1.0) + r;
    let sum_lo = r - (sum - s(1.0));
    let small = (r * r).mul_add(estrin(r, &EXP_P), r_lo.mul_add(r, r_lo));
    (sum, sum_lo + small)
}

/// e^x = e^r·2^k for |x| <= 151: returns (e^r, k), e^r in [0.7, 1.42].
#[inline(always)]
fn exp_reduced<V: F32Simd>(x: V) -> (V, V) {
    let (r, r_lo, kf) = reduce_ln2(x);
    (exp_poly(r, r_lo), kf)
}

/// y·2^k for integer-valued k in [-150, 128]: 2^k1·2^k2 with both factors normal; only the
/// last product rounds (overflow to inf, or once into the subnormal range).
#[inline(always)]
fn scale<V: F32Simd>(y: V, kf: V) -> V {
    y.mul_pow2(kf)
}

/// e^x for every f32 x, <= 1 ULP: x is clamped to [-104, 89] (e^-104 rounds to +0,
/// e^89 overflows), NaN passes through.
#[inline(always)]
pub(crate) fn exp<V: F32Simd>(x: V) -> V {
    let xc = x.max_or_second(s(-104.0)).min_or_second(s(89.0));
    let (e, kf) = exp_reduced(xc);
    x.is_nan().select(x, scale(e, kf))
}

/// e^min(x, 0), NaN for NaN: softmax's `exp(x - max)`, whose argument is <= 0 or NaN
/// (a row's NaN makes its every output NaN, whatever the other lanes give). `exp`'s
/// reduction and polynomial, cheaper by what the known sign allows: one clamp per side,
/// NaN carried through the arithmetic instead of selected (`maxps`/`minps` return their
/// second operand when either is NaN, so the clamps keep x's NaN), a one-product scaling
/// (k <= 0: `mul_pow2_nonpos`), and no r_lo: r's own rounding (<= 2^-26 absolute, so at
/// most 0.25 ULP of a result in [0.7, 1.42]) is left in the budget, with (1 + r) still
/// summed exactly. Error budget: 0.5 (last rounding) + 0.25 (r) + P's 2^-29.7 + the
/// small sum's roundings: walked over all 2^32 inputs (ACCURACY.md), max 0.812 ULP at
/// x = -5.8795333 (bound 1), the same on f32x8 and f32x16; every special value exact.
/// Two FMAs fewer than `exp` per vector (W3 softmax native 1.50 -> 1.40 ms).
#[inline(always)]
pub(crate) fn exp_nonpos<V: F32Simd>(x: V) -> V {
    x.exp_nonpos()
}

/// `exp_nonpos`'s polynomial kernel (every build but the 16-lane AVX-512 one).
#[inline(always)]
fn exp_nonpos_poly<V: F32Simd>(x: V) -> V {
    let xc = s::<V>(0.0).min_or_second(s::<V>(-104.0).max_or_second(x));
    let kf = (xc * s(LOG2E_F)).round_small();
    let r = kf.mul_add(s(-LN2_LO_F), kf.mul_add(s(-LN2_HI_F), xc));
    let sum = s::<V>(1.0) + r;
    let sum_lo = r - (sum - s(1.0));
    let e = sum + (r * r).mul_add(estrin(r, &EXP_P), sum_lo);
    e.mul_pow2_nonpos(kf)
}

/// 2^(j/32), j = 0..31, rounded to f32 (`EXP2_32NDS_HI`), and the rest rounded
/// (`EXP2_32NDS_LO`): the pair is 2^(j/32) to better than 2^-46 (Python `decimal`, 60 digits).
#[cfg(all(
    target_arch = "x86_64",
    any(
        target_feature = "avx512f",
        all(feature = "dispatch", not(target_feature = "avx2"))
    )
))]
const EXP2_32NDS_HI: [f32; 32] = [
    1.0,
    1.0218971967697144,
    1.0442737340927124,
    1.0671404600143433,
    1.0905077457427979,
    1.114386796951294,
    1.1387885808944702,
    1.1637248992919922,
    1.1892070770263672,
    1.215247392654419,
    1.2418577671051025,
    1.2690509557724,
    1.2968395948410034,
    1.3252366781234741,
    1.3542555570602417,
    1.3839099407196045,
    1.4142135381698608,
    1.4451807737350464,
    1.4768261909484863,
    1.5091644525527954,
    1.5422108173370361,
    1.5759809017181396,
    1.610490322113037,
    1.6457555294036865,
    1.6817928552627563,
    1.7186193466186523,
    1.7562521696090698,
    1.7947090864181519,
    1.8340080976486206,
    1.8741676807403564,
    1.9152065515518188,
    1.9571441411972046,
];
#[cfg(all(
    target_arch = "x86_64",
    any(
        target_feature = "avx512f",
        all(feature = "dispatch", not(target_feature = "avx2"))
    )
))]
const EXP2_32NDS_LO: [f32; 32] = [
    0.0,
    -4.811559861650494e-08,
    4.8334701574503924e-08,
    -5.9337519786595294e-08,
    -1.3077539939843064e-08,
    -5.435540018083884e-08,
    5.386222312608879e-08,
    -4.051441493402308e-08,
    3.797635272917432e-08,
    -3.267394887984665e-08,
    4.496838101886169e-08,
    1.419333317542737e-09,
    -4.018999533172973e-08,
    -3.496373324196611e-08,
    -1.0123349269974824e-08,
    -5.875577357983275e-08,
    2.4203234971764687e-08,
    3.324199937537742e-08,
    -4.500898853621038e-08,
    -2.4959373234878512e-08,
    8.070904833346049e-09,
    -5.661025426206834e-08,
    9.836217174097328e-09,
    -5.124972091152813e-08,
    -2.4755326677450284e-08,
    -4.8496175963919086e-08,
    -9.235770370707996e-09,
    -1.141504490931311e-08,
    -1.1239277952768134e-08,
    -4.663005626071026e-08,
    9.845328108326612e-09,
    -1.7021804410433106e-08,
];
/// ln2/32 to 11 bits (k·LN2_32_HI is exact for |k| < 2^13), and the rest rounded; the
/// kernel multiplies k/32 by 32 times them (the same products, exactly).
#[cfg(all(
    target_arch = "x86_64",
    any(
        target_feature = "avx512f",
        all(feature = "dispatch", not(target_feature = "avx2"))
    )
))]
const LN2_32_HI: f32 = 0.021_667_480_468_75;
#[cfg(all(
    target_arch = "x86_64",
    any(
        target_feature = "avx512f",
        all(feature = "dispatch", not(target_feature = "avx2"))
    )
))]
const LN2_32_LO: f32 = -6.631_076_303_165_173e-6;

/// `exp_nonpos` with a 32-entry table, on AVX-512 (one `vpermt2ps` per table half): x =
/// (32m + j)·ln2/32 + r with |r| <= ln2/64, e^x = 2^m · 2^(j/32) · e^r. The table leaves
/// an r 32 times smaller than `exp_nonpos_poly`'s, so e^r - 1 = r + r²(1/2 + r/6)
/// (truncation < 2^-30.7 relative) and no exact 1 + r sum are needed: 15 vector
/// operations per vector (two of them `vpermt2ps`) against the polynomial kernel's 21 and
/// its three register copies, and one multiply-add fewer than the 16-entry table with a
/// degree-4 polynomial it replaced (W3 softmax native 1.39-1.41 -> 1.35-1.38 ms;
/// BENCHMARKS.md "Peers", sixth session).
///
/// Steps and errors (relative to the result, before its last rounding): k = rint(x·32/ln2)
/// in the low mantissa bits of `kb` (x/ln2 + 1.5·2^18, one FMA; |k| <= 4802 since x is
/// clamped below at -104 and is <= 0 in its domain, NaN carried by the clamp as in
/// `exp_nonpos_poly`), whose low 5 bits are j = k mod 32, the `vpermt2ps` index; r = (x -
/// k·HI) - k·LO, the first exact (Cody-Waite: k·HI has at most 24 bits and is within a
/// factor 2 of x when k != 0), the second rounded: < 2^-29; q = e^r - 1 by Horner and one
/// FMA: < 2^-29 with the truncation; s = T_hi·q + T_lo by one FMA: < 2^-29; e = T_hi + s
/// rounds once (0.5 ULP). Then ·2^m by `vscalefps`, exact for normal results and one
/// rounding into the subnormal range. A positive x (outside the domain) gets e^x up to
/// 88.72 and +inf above it up to about 10^9; beyond that k·HI is no longer exact and r
/// no longer small, and the result means nothing (-inf at 10^10 and 2.3·10^38, measured
/// on the native build). Walked over all 2^32 inputs (ACCURACY.md). Compiled for the
/// native AVX-512 build's `f32x16` and for default x86-64 builds, whose AVX-512 copy of a
/// dispatched kernel runs it on vmath's `Avx512` lanes (`vmath::zmm::exp_nonpos`): the
/// same instructions, so the same bits as the native build.
#[cfg(all(
    target_arch = "x86_64",
    any(
        target_feature = "avx512f",
        all(feature = "dispatch", not(target_feature = "avx2"))
    )
))]
#[inline(always)]
pub(super) fn exp_nonpos_table32<V: F32Simd + Permute32>(x: V) -> V {
    // Clamped below only: softmax's argument x - max is never positive (or NaN), and
    // the upper clamp was one of the vector operations of W3's exp pass (4% of W3).
    let xc = s::<V>(-104.0).max_or_second(x);
    // x/ln2 rounded to a multiple of 1/32 (k/32) by adding 1.5·2^18, whose ULP is 1/32:
    // the low 5 mantissa bits of `kb` are k mod 32 (the table index), and `kq` is k/32
    // exactly.
    let kb = xc.mul_add(s(LOG2E_F), s(MAGIC_F / 32.0));
    let kq = kb - s(MAGIC_F / 32.0);
    let r = kq.mul_add(s(-32.0 * LN2_32_LO), kq.mul_add(s(-32.0 * LN2_32_HI), xc));
    let (t_hi, t_lo) = (kb.permute32(&EXP2_32NDS_HI), kb.permute32(&EXP2_32NDS_LO));
    let p = s::<V>(0.166_666_67).mul_add(r, s(0.5));
    let q = (r * r).mul_add(p, r);
    let e = t_hi + t_hi.mul_add(q, t_lo);
    // `vscalefps` scales by 2^floor(k/32) = 2^m.
    e.mul_pow2(kq)
}

/// A 32-entry lane permutation: each lane is `table[bits & 31]` of its own bits.
#[cfg(all(
    target_arch = "x86_64",
    any(
        target_feature = "avx512f",
        all(feature = "dispatch", not(target_feature = "avx2"))
    )
))]
pub(super) trait Permute32 {
    fn permute32(self, table: &[f32; 32]) -> Self;
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
impl Permute32 for f32x16 {
    #[inline(always)]
    fn permute32(self, table: &[f32; 32]) -> Self {
        use core::arch::x86_64::{_mm512_castps_si512, _mm512_loadu_ps, _mm512_permutex2var_ps};
        // SAFETY: avx512f is enabled for the whole build (the `cfg` above); `table` is 32
        // f32s, valid for the two 64-byte unaligned loads; `vpermt2ps` uses only the low 5
        // bits of each index lane, so every index is inside the table.
        bytemuck::cast(unsafe {
            _mm512_permutex2var_ps(
                _mm512_loadu_ps(table.as_ptr()),
                _mm512_castps_si512(bytemuck::cast(self)),
                _mm512_loadu_ps(table.as_ptr().add(16)),
            )
        })
    }
}

// ---------------------------------------------------------------------------
// tanh
// ---------------------------------------------------------------------------
// |x| < TANH_SMALL: tanh x = x + x·z·Q(z), z = x², Q of degree 4 with f32 coefficients
// (relative error of 1 + zQ(z) against tanh(x)/x < 2^-27.7 on z <= TANH_SMALL²).
// Above: tanh|x| = 1 - 2/(e^(2|x|) + 1) with e^(2|x|) from `exp_reduced` (<= 0.51 ULP),
// one rounding for e + 1 and one for the division: the subtracted term is at most
// 2/(e^1.25 + 1) = 0.445 of a result >= 0.555, so its ~1.5 ULP (of itself) are < 0.7 ULP
// of the result, plus the last rounding. |x| is clamped at 9.5, where tanh rounds to 1.

pub(crate) const TANH_SMALL: f32 = 0.625;
/// Q of tanh x = x + x·z·Q(z) on z <= 0.390625.
pub(crate) const TANH_Q: [f32; 5] = [
    -0.333_332_806_825_637_8,
    0.133_314_147_591_590_88,
    -0.053_737_767_040_729_52,
    0.020_633_498_206_734_657,
    -0.005_699_374_713_003_635,
];

/// tanh(x) for every f32 x, <= 2 ULP.
#[inline(always)]
pub(crate) fn tanh<V: F32Simd>(x: V) -> V {
    let a = x.abs();
    // Vectors whose lanes all take one side compute only that side (the same lanes'
    // results as the select below; inputs near each other, as in most tensors, mostly
    // fall on one side: W2 `tanh(x)*exp(-x*x)` native 0.60 -> 0.54 ms, 2026-11-25).
    // (Helpers, not closures: a closure is not inlined into the `#[target_feature]` block
    // entry points of `dispatch.rs`, and its intrinsics then become calls.)
    let is_large = a.ge(s(TANH_SMALL));
    if is_large.all() {
        return tanh_large(x, a);
    }
    if a.lt(s(TANH_SMALL)).all() {
        return tanh_small(x);
    }
    // NaN fails the compare and takes `small`, which is NaN.
    is_large.select(tanh_large(x, a), tanh_small(x))
}

/// tanh for |x| < TANH_SMALL (and NaN): x + x·z·Q(z).
#[inline(always)]
fn tanh_small<V: F32Simd>(x: V) -> V {
    let z = x * x;
    // x + x·z·Q(z) would turn -0 into +0: the sign of x is ORed back.
    with_sign_of((x * z).mul_add(estrin(z, &TANH_Q), x), x)
}

/// tanh for |x| >= TANH_SMALL (a = |x|): 1 - 2/(e^(2a) + 1) with x's sign.
#[inline(always)]
fn tanh_large<V: F32Simd>(x: V, a: V) -> V {
    let ac = a.min_or_second(s(9.5));
    let (e, kf) = exp_reduced(ac + ac);
    let e2 = scale(e, kf);
    with_sign_of(s::<V>(1.0) - s::<V>(2.0) / (e2 + s(1.0)), x)
}

// ---------------------------------------------------------------------------
// sigmoid
// ---------------------------------------------------------------------------
// t = e^-|x| (`exp`, <= 0.5 + 2^-3 ULP, subnormal below x = -87.3), then 1/(1 + t) for
// x >= 0 and t/(1 + t) for x < 0: 1 + t as an exact sum, the quotient corrected once by
// its exact residual, so t's error (scaled by 1/(1 + t) <= 1) and the last rounding are
// all. (One plain division t/(1 + t) measured 2.33 ULP.)

/// 1/(1 + e^-x) for every f32 x, <= 2 ULP (without FMA: the f64-lane path).
#[inline(always)]
pub(crate) fn sigmoid<V: F32Simd>(x: V) -> V {
    if !V::FUSED {
        return x.map8(sigmoid_f64_lanes);
    }
    let t = exp(-x.abs());
    let num = x.lt(s(0.0)).select(t, s(1.0));
    // d = 1 + t exactly as d + d_lo; q0 = num/d, then one correction by the residual
    // num - q0·(d + d_lo) (exact FMA product), scaled by a 12-bit reciprocal of d
    let d = s::<V>(1.0) + t;
    let d_lo = t - (d - s(1.0));
    let q0 = num / d;
    let residual = (-q0).mul_add(d, num) - q0 * d_lo;
    let q = residual.mul_add(d.recip_approx(), q0);
    x.is_nan().select(x, q)
}

// ---------------------------------------------------------------------------
// erf
// ---------------------------------------------------------------------------
// |x| < 1: erf x = x·S(z), z = x², S of degree 8 with f32 coefficients and S(0) = 2/√π
// carried as hi + lo (its f32 rounding alone would be 2^-24.2 relative near 0); relative
// error of S < 2^-32.9 (`tools/f32_fits.py erf_small`).
// 1 <= |x|: erf|x| = 1 - erfc|x| with erfc x = e^(-x²)·erfcx(x) and erfcx(x) =
// G(√2·x), gelu's G below (relative error < 2^-28.6). There erfc|x| <= 0.16 of a result
// >= 0.84, so the relative errors of G, of √2·x (G moves by at most its argument's
// relative error) and of e^(-x²) (the rounding of x² moves it by up to 15·2^-24 relative
// at x = 3.88, where erfc is 2^-24.6) stay below 0.2 ULP of the result. |x| is clamped at
// 3.88 (√2·x <= 5.5, G's range): erf rounds to 1 - 2^-24 from there up to ERF_ONE, and to
// 1 above.

/// S(z) - ERF_S0_HI of erf x = x·S(x²) on x² <= 1: S(0) = 2/√π = ERF_S0_HI + ERF_S[0].
pub(crate) const ERF_S: [f32; 9] = [
    -5.863_538_342_219_759e-8,
    -0.376_126_378_774_642_94,
    0.112_837_664_783_000_95,
    -0.026_864_049_956_202_507,
    0.005_215_440_876_781_940_5,
    -0.000_836_317_427_456_378_9,
    9.828_344_627_749_175e-5,
    -7.996_580_393_410_113e-7,
    -2.217_528_162_873_35e-6,
];
/// The least f32 whose erf rounds to 1 (erfc(x) < 2^-25 from 3.9192058436…).
pub(crate) const ERF_ONE: f32 = 3.919_205_904_006_958;
/// 2/√π rounded to f32.
pub(crate) const ERF_S0_HI: f32 = 1.128_379_225_730_896;

/// erf(x) for every f32 x, <= 2 ULP (without FMA: the f64-lane path).
#[inline(always)]
pub(crate) fn erf<V: F32Simd>(x: V) -> V {
    if !V::FUSED {
        return x.map8(erf_f64_lanes);
    }
    let a = x.abs();
    let z = x * x;
    // the sign of x ORed back: for x = -0 the sum is +0
    let small = with_sign_of(x.mul_add(s(ERF_S0_HI), x * estrin(z, &ERF_S)), x);
    let ac = a.min_or_second(s(3.88));
    let g = gelu_g(ac * s(core::f32::consts::SQRT_2));
    let (e, kf) = exp_reduced(-(ac * ac));
    let large = a
        .ge(s(ERF_ONE))
        .select(s(1.0), s::<V>(1.0) - (e * pow2(kf)) * g);
    // NaN fails the compare and takes `small`, which is NaN.
    a.ge(s(1.0)).select(with_sign_of(large, x), small)
}

// ---------------------------------------------------------------------------
// gelu (exact, erf form)
// ---------------------------------------------------------------------------
// gelu x = x·Φ(x), Φ the normal CDF. With a = |x| and Φ(-a) = ½·e^(-a²/2)·G(a),
// G(a) = erfcx(a/√2):
//   x < 0:  gelu x = x·Φ(-a)          (relative accuracy down to the tail)
//   x >= 0: gelu x = x - x·Φ(-a)      (Φ(-a) <= 1/2: the result is >= x/2)
// G is two polynomials of degree 11 in a - 1 on [0, 2] and in a - 3.75 on [2, 5.5] (f32
// coefficients fitted one at a time, the constant terms as hi + lo; relative error
// < 2^-28.6), evaluated together with per-lane coefficients. a² is carried exactly as h + l (an FMA, or Dekker's product
// without FMA) and e^(-(h + l)/2) reduced from h/2 with l/2 folded into r, so the
// argument carries no rounding (at a = 5.5 one rounding of a² would be 15 ULP of the
// result). For x >= 5.5, x·Φ(-x) < ULP(x)/2 and gelu x = x. Below -5.5 (results from
// 1e-7 down to the subnormals and -0) a third interval, `gelu_tail`: there x·G(a)/a = -1,
// so gelu x = -½·e^(-a²/2)·H(a) with H = a·G(a) one polynomial on [5.5, 14.375], and the
// product is formed at a normal scale and scaled by 2^k last (one more rounding only
// into the subnormal range). It is computed only for vectors that have such a lane (a
// branch, no call): vectors of ordinary activations pay one compare for it. NaN takes the
// fast path, whose arithmetic carries it (x/2 is NaN, and every select keeps that lane).

/// G(1 + t) on a in [0, 2] (`tools/f32_fits.py gelu_lo`: relative error < 2^-29.1), the
/// constant term G(1) = GELU_G_LO[0] + GELU_G0_LO.0.
pub(crate) const GELU_G_LO: [f32; 12] = [
    0.523_156_583_309_173_6,
    -0.274_727_970_361_709_6,
    0.124_214_306_473_732,
    -0.050_171_304_494_142_53,
    0.018_510_637_804_865_837,
    -0.006_331_786_513_328_552,
    0.002_030_687_872_320_413_6,
    -0.000_615_209_050_010_889_8,
    0.000_174_631_961_272_098_12,
    -4.789_227_386_936_545_4e-5,
    1.515_228_905_191_179_4e-5,
    -3.835_541_519_947_583e-6,
];
/// G(3.75 + t) on a in [2, 5.5] (`tools/f32_fits.py gelu_hi`: relative error < 2^-28.6),
/// the constant term G(3.75) = GELU_G_HI[0] + GELU_G0_LO.1.
pub(crate) const GELU_G_HI: [f32; 12] = [
    0.200_078_412_890_434_27,
    -0.047_590_490_430_593_49,
    0.010_807_045_735_418_797,
    -0.002_354_684_285_819_530_5,
    0.000_494_221_167_173_236_6,
    -0.000_100_268_371_170_386_67,
    1.974_012_957_361_992_4e-5,
    -3.761_837_660_931_633e-6,
    6.780_261_401_218_013e-7,
    -1.252_198_842_394_136_6e-7,
    2.898_506_501_480_792_4e-8,
    -4.739_235_670_569_997e-9,
];
/// The low parts of the two constant terms (G(1), G(3.75) to ~2^-48).
pub(crate) const GELU_G0_LO: (f32, f32) = (4.210_731_593_793_126_6e-10, 6.380_472_143_771_719e-9);

/// G(a) = erfcx(a/√2) = e^(a²/2)·erfc(a/√2) for a in [0, 5.5] as an unrounded sum
/// hi + lo (|lo| <= 2^-23·hi): the two polynomials evaluated together, each lane with its
/// interval's coefficients (one select per coefficient); the last step c0 + t·g' keeps
/// t·g' exact (FMA residual) and c0's low part, and c0 + t·g' is an exact two-sum
/// (|t·g'| < c0). What is left is g''s own rounding, scaled by |t·g'|/G <= 0.8.
/// Without FMA the residual is not exact (erf's budget does not need it).
#[inline(always)]
fn gelu_g_parts<V: F32Simd>(a: V) -> (V, V) {
    let lo = a.lt(s(2.0));
    let t = a - lo.select(s(1.0), s(3.75));
    // g = c1 + c2·t + … + c11·t^10 as p0 + t²·E(t²), with pairs p_i = c_(2i+1) +
    // c_(2i+2)·t and E = p1 + t²·p2 + t⁴·p3 + t⁶·p4 + t⁸·c11 by Estrin in t²: 5 dependent
    // FMAs (a pair, two Estrin levels, the last step) where Horner has 10 (W6 `gelu(x +
    // bias)` is bound by this chain's latency: one vector per loop step). The large
    // partial sum p0 is added last and rounded once, as in Horner (all Estrin: 4 FMAs
    // deep, but gelu's walk rose from 1.29 to 1.75 ULP; this form walks at 1.51).
    let coeff = |i: usize| lo.select(s(GELU_G_LO[i]), s(GELU_G_HI[i]));
    // `pairs[i]` is p_(i+1); the last entry is c11 alone.
    let t2 = t * t;
    let p0 = coeff(2).mul_add(t, coeff(1));
    let mut pairs = [s::<V>(0.0); 5];
    for (i, pi) in pairs.iter_mut().enumerate().take(4) {
        *pi = coeff(2 * i + 4).mul_add(t, coeff(2 * i + 3));
    }
    pairs[4] = coeff(11);
    let g = estrin_lanes(t2, &pairs).mul_add(t2, p0);
    let c0 = lo.select(s(GELU_G_LO[0]), s(GELU_G_HI[0]));
    let c0_lo = lo.select(s(GELU_G0_LO.0), s(GELU_G0_LO.1));
    let w = t * g;
    let w_lo = t.mul_add(g, -w);
    let hi = c0 + w;
    (hi, (w - (hi - c0)) + (w_lo + c0_lo))
}

/// G(a), rounded.
#[inline(always)]
fn gelu_g<V: F32Simd>(a: V) -> V {
    let (hi, lo) = gelu_g_parts(a);
    hi + lo
}

/// a² = h + l exactly (for |a| <= 2^60): with FMA, l = fma(a, a, -h); without, Dekker's
/// split of a into 12-bit halves.
#[inline(always)]
fn square_exact<V: F32Simd>(a: V) -> (V, V) {
    let h = a * a;
    #[cfg(target_feature = "fma")]
    let l = a.mul_add(a, -h);
    #[cfg(not(target_feature = "fma"))]
    let l = {
        let c = a * s(4097.0); // 2^12 + 1
        let ah = c - (c - a);
        let al = a - ah;
        ((ah * ah - h) + (ah * al + ah * al)) + al * al
    };
    (h, l)
}

/// The exact gelu, lanes with x >= -5.5 (others are replaced by the caller).
#[inline(always)]
fn gelu_fast<V: F32Simd>(x: V) -> V {
    let a = x.abs().min_or_second(s(5.5));
    // e^(-a²/2) first, then G: in this order LLVM issues the exp chain first in W6's loop
    // (4.08-4.17 ms native, against 4.52-4.58 with G first once gelu has its tail branch,
    // and 4.03-4.08 for a kernel without a tail; BENCHMARKS.md "Peers", eighth session)
    let (h, l) = square_exact(a);
    // e^(-(h + l)/2) = (e + e_lo)·2^k: h/2 reduced, l/2 (below 2^-20) folded into r's
    // low part, the last sum left unrounded; k >= -22, so one factor 2^k is normal
    let (r, r_lo, kf) = reduce_ln2(h * s(-0.5));
    let (e, e_lo) = exp_poly_unrounded(r, l.mul_add(s(-0.5), r_lo));
    let two_k = pow2(kf);
    let (e, e_lo) = (e * two_k, e_lo * two_k);
    let (g, g_lo) = gelu_g_parts(a);
    // x·Φ(-a) = (x/2)·(e + e_lo)·(g + g_lo): u + u_lo = (x/2)·(e + e_lo) (exact FMA
    // residual), then u·g + (u·g_lo + u_lo·g) with one rounding of the whole. x/2 is exact
    // but for subnormal x (then gelu x rounds to x/2 anyway).
    let hx = x * s(0.5);
    let u = hx * e;
    let u_lo = hx.mul_add(e, -u) + hx * e_lo;
    let xphi = u.mul_add(g, u.mul_add(g_lo, u_lo * g));
    // x >= 0: x - x·Φ(-a) (x·Φ(-a) <= x/2); the sign of x ORed back for ±0 and the x < 0
    // whose x/2 rounds to -0
    let res = with_sign_of(x.lt(s(0.0)).select(xphi, x - xphi), x);
    x.ge(s(5.5)).select(x, res)
}

/// H(10 + t) = (10 + t)·G(10 + t) on a in [5.5, 14.375] (`tools/f32_fits.py gelu_tail`:
/// relative error < 2^-28.0), the constant term H(10) = GELU_H[0] + GELU_H0_LO.
pub(crate) const GELU_H: [f32; 12] = [
    0.790_133_893_489_837_6,
    0.001_506_597_502_157_092,
    -0.000_217_681_968_933_902_68,
    2.771_595_427_475_404e-5,
    -3.275_458_766_438_532_6e-6,
    3.679_345_468_299_289e-7,
    -4.099_153_727_565_863e-8,
    4.460_581_681_797_748e-9,
    -3.542_047_766_202_927e-10,
    2.864_404_199_942_605e-11,
    -7.823_790_226_790_805e-12,
    9.043_527_103_395_899e-13,
];
/// The low part of H(10) (to ~2^-50).
pub(crate) const GELU_H0_LO: f32 = -1.146_211_758_759_401e-8;
/// |x| where the tail's a is clamped: gelu x rounds to -0 below x = -14.356068 (where it
/// is -2^-150), so every x <= -14.375 gives -0 (-inf too).
pub(crate) const GELU_TAIL_END: f32 = 14.375;

/// The exact gelu for lanes with x < -5.5 (others get values the caller discards): with
/// a = min(|x|, 14.375), gelu x = x·Φ(-a) = -½·e^(-a²/2)·H(a), H(a) = a·G(a) (x/a = -1,
/// so neither a product by x nor a division). H by Estrin in t = a - 10 above its
/// constant term, which is added as hi + lo with the sum left unrounded (|t·h'| <= 0.017
/// of H >= 0.77, so h''s rounding is below 2^-29 of H); a² exact and e^(-a²/2) =
/// (e + e_lo)·2^k as in `gelu_fast` but with l/2 summed into r (below), k in [-149, -21];
/// y = -½·(e + e_lo)·(H + H_lo) rounded once (|y| in [0.26, 0.57]: normal), then y·2^k
/// (`mul_pow2`: exact for normal results, one more rounding into the subnormal range, -0
/// below 2^-150; its first factor 2^k1, k1 >= -75, keeps y·2^k1 normal).
///
/// Error budget, normal results (x >= -13.146): the rounding of y (0.5 ULP), H's fit
/// (2^-28.0) and evaluation (< 2^-29), e's reduction and polynomial (< 2^-28, as in
/// `gelu_fast`): < 0.8 ULP. Subnormal results round twice: y's rounding (<= 2^-24 of y)
/// is up to 0.5 ULP of a result just below 2^-126 and halves with each binade below, then
/// the rounding into the subnormal range: < 1.3 ULP there, < 0.5 + 2^-k ULP k binades
/// further down. Measured over every f32 in [-14.5, -5.5): 0.801 ULP at x = -13.146378
/// (ACCURACY.md, "gelu below -5.5 in f32 lanes").
#[inline(always)]
fn gelu_tail<V: F32Simd>(x: V) -> V {
    let a = x.abs().min_or_second(s(GELU_TAIL_END));
    let t = a - s(10.0);
    let w = t * estrin(t, &GELU_H[1..]);
    let c0 = s::<V>(GELU_H[0]);
    let hh = c0 + w;
    let hh_lo = (w - (hh - c0)) + s(GELU_H0_LO);
    let (h, l) = square_exact(a);
    let (r, r_lo, kf) = reduce_ln2(h * s(-0.5));
    // l/2 reaches 2^-18 here (a² up to 207): `exp_poly_unrounded` takes its low part to
    // first order as r_lo·(1 + r), whose missing r_lo·r²/2 would be 2^-22 of e (3.2 ULP
    // measured at x = -11.566); so r + (r_lo + l/2) is summed into a new r (2Sum, exact)
    // whose low part is below 2^-26
    let lo = l.mul_add(s(-0.5), r_lo);
    let r2 = r + lo;
    let rb = r2 - r;
    let r2_lo = (r - (r2 - rb)) + (lo - rb);
    let (e, e_lo) = exp_poly_unrounded(r2, r2_lo);
    let (u, u_lo) = (e * s(-0.5), e_lo * s(-0.5));
    let y = u.mul_add(hh, u.mul_add(hh_lo, u_lo * hh));
    y.mul_pow2(kf)
}

// ---------------------------------------------------------------------------
// The f64-lane paths, for builds without FMA
// ---------------------------------------------------------------------------
// sigmoid, erf and gelu spend their budgets on products whose rounding errors an FMA
// makes exact; with a separate multiply and add they measured over 2 ULP (default build,
// every 257th input: sigmoid 2.33, erf 2.28, gelu 3.51). Where `mul_add` is not fused
// (an x86-64 baseline build on a CPU without AVX2 and FMA, or `TENSORGRAPH_SIMD=baseline`;
// see `dispatch.rs`) they widen to f64 lanes as before, rounded once (<= 0.5 + 2^-3.9 ULP).

/// sigmoid in f64 lanes (`sigmoid_parts`), rounded once.
fn sigmoid_f64_lanes(x: f32x8) -> f32x8 {
    let w = widen(x);
    let (t, q) = sigmoid_parts(w);
    let res = sel(w.simd_lt(sp(0.0)), t * q, q);
    narrow(sel(is_nan(w), w, res))
}

/// fdlibm's erf in f64 lanes, rounded once.
fn erf_f64_lanes(x: f32x8) -> f32x8 {
    narrow(erf_f64(widen(x)))
}

/// The f64 gelu core (`gelu_f64_for_f32`), rounded once.
fn gelu_f64_lanes(x: f32x8) -> f32x8 {
    narrow(gelu_f64_for_f32(widen(x)))
}

/// gelu(x) = x·Φ(x) for every f32 x, <= 2 ULP, in f32 lanes with no call (without FMA:
/// the f64-lane path).
#[inline(always)]
pub(crate) fn gelu<V: F32Simd>(x: V) -> V {
    if !V::FUSED {
        return x.map8(gelu_f64_lanes);
    }
    // NaN fails the compare: a vector with a NaN computes the tail too, and keeps the fast
    // path's NaN in that lane (the select takes the tail only where x < -5.5). `gelu_fast`
    // is written in both arms, not once before the branch: so the common arm is a block
    // of its own (W6 native 4.74-4.79 ms with one `gelu_fast` before the branch: LLVM
    // then kept the constants both arms share in registers and reloaded G's in the loop).
    if x.ge(s(-5.5)).all() {
        gelu_fast(x)
    } else {
        x.lt(s(-5.5)).select(gelu_tail(x), gelu_fast(x))
    }
}

#[cfg(test)]
mod tests {
    use super::super::sweep::*;
    use super::*;

    // The kernels on wide's own types, bypassing the dispatch in `dispatch.rs`: on a
    // default build `f32x8` here is the SSE2 baseline (no FMA: sigmoid, erf and gelu take
    // their f64 paths), on AVX-512 builds `f32x16` is one zmm register. Each against the
    // same references and bounds as the public functions' sweeps in `tests.rs`.
    macro_rules! widths {
        ($($k:ident: $n8:ident, $n16:ident;)*) => {$(
            fn $n8(x: f32x8) -> f32x8 {
                $k(x)
            }
            fn $n16(x: f32x8) -> f32x8 {
                let a = x.to_array();
                let o = $k(f32x16::from(core::array::from_fn(|i| a[i % 8]))).to_array();
                f32x8::from(core::array::from_fn::<f32, 8, _>(|i| o[i]))
            }
        )*};
    }
    widths! {
        exp: exp8, exp16;
        tanh: tanh8, tanh16;
        sigmoid: sigmoid8, sigmoid16;
        erf: erf8, erf16;
        gelu: gelu8, gelu16;
    }

    #[test]
    fn kernels_on_8_and_16_lanes_within_bounds() {
        // interval edges of each kernel, with 200 bit neighbours each
        let edges = [
            0.0f32,
            -104.0,
            89.0,
            88.72284,
            -87.33655,
            -103.97,
            0.625,
            -0.625,
            9.5,
            1.0,
            -1.0,
            3.88,
            3.919_205_9,
            2.0,
            -2.0,
            1.414_213_5,
            5.5,
            -5.5,
            -5.6,
            4.0,
            -8.0,
        ];
        let xs = f32_inputs(STRIDE, &edges, 200);
        for (name, f, r, bound) in [
            (
                "exp 8",
                exp8 as fn(f32x8) -> f32x8,
                f64::exp as fn(f64) -> f64,
                1.0,
            ),
            ("exp 16", exp16, f64::exp, 1.0),
            ("tanh 8", tanh8, f64::tanh, 2.0),
            ("tanh 16", tanh16, f64::tanh, 2.0),
            ("sigmoid 8", sigmoid8, sigmoid_ref, 2.0),
            ("sigmoid 16", sigmoid16, sigmoid_ref, 2.0),
            ("erf 8", erf8, erf_scalar_f64, 2.0),
            ("erf 16", erf16, erf_scalar_f64, 2.0),
            ("gelu 8", gelu8, gelu_ref, 2.0),
            ("gelu 16", gelu16, gelu_ref, 2.0),
        ] {
            run_f32(name, f, r, &xs, bound);
        }
    }

    /// gelu's lanes below -5.5 take the tail (`gelu_tail`) in the same vector; a vector
    /// mixing them with fast lanes and NaN keeps each lane's own result (8 and 16 lanes,
    /// and the public entry point, dispatched on default builds).
    #[test]
    fn gelu_mixed_fast_and_tail_lanes() {
        let xs = [
            -30.0f32,
            0.5,
            -5.6,
            -5.5,
            2.0,
            f32::NAN,
            -1e-3,
            -7.25,
            -13.146,
            -13.2,
            -14.307,
            -14.356,
            -14.375,
            f32::NEG_INFINITY,
            -f32::MAX,
            -5.500_001,
        ];
        for (name, f) in [
            ("gelu 8", gelu8 as fn(f32x8) -> f32x8),
            ("gelu 16", gelu16),
            ("gelu_f32", super::super::gelu_f32),
        ] {
            for ch in xs.chunks(8) {
                let out = f(f32x8::from(ch)).to_array();
                for (x, y) in ch.iter().zip(out) {
                    let want = gelu_ref(*x as f64);
                    assert!(
                        same32(y, want as f32) || err_f32(y, want) <= 2.0,
                        "{name}({x}) = {y:e}, want {want:e}"
                    );
                }
            }
            for x in [f32::NEG_INFINITY, -f32::MAX, -1e4, -14.375, -14.4] {
                let y = f(f32x8::splat(x)).to_array()[0];
                assert_eq!(y.to_bits(), (-0.0f32).to_bits(), "{name}({x}) = {y:e}");
            }
            assert!(f(f32x8::splat(f32::NAN)).to_array()[0].is_nan());
        }
    }

    /// The tail's subnormal results against its error budget (`gelu_tail`): < 0.5 + 2^-k
    /// ULP k binades below 2^-126 (the rounding into the subnormal range plus y's, which
    /// halves with each binade), so the last subnormals are the nearest ones; and the two
    /// f32 around x = -14.3560681 where gelu x = -2^-150 (|gelu x| / 2^-150 is 0.9999910
    /// at -14.356069, 1.0000047 at -14.356068: mpmath, 200 bits): -0 and -2^-149.
    #[test]
    fn gelu_tail_subnormal_results_within_budget() {
        let step = if cfg!(miri) {
            65537
        } else if cfg!(debug_assertions) {
            7
        } else {
            1
        };
        let (from, to) = ((-13.146f32).to_bits(), (-14.375f32).to_bits());
        let (below, above) = (-14.356_069f32, -14.356_068f32);
        assert_eq!(below.to_bits(), above.to_bits() + 1);
        let mut xs: Vec<f32> = (from..=to).step_by(step).map(f32::from_bits).collect();
        xs.extend([below, above]);
        for (name, f) in [
            ("gelu 8", gelu8 as fn(f32x8) -> f32x8),
            ("gelu 16", gelu16),
            ("gelu_f32", super::super::gelu_f32),
        ] {
            let (b, a) = (
                f(f32x8::splat(below)).to_array()[0],
                f(f32x8::splat(above)).to_array()[0],
            );
            assert_eq!(b.to_bits(), (-0.0f32).to_bits(), "{name}({below}) = {b:e}");
            assert_eq!(a.to_bits(), 0x8000_0001, "{name}({above}) = {a:e}");
            for ch in xs.chunks(8) {
                let out = f(f32x8::from(core::array::from_fn(|i| ch[i % ch.len()]))).to_array();
                for (&x, y) in ch.iter().zip(out) {
                    let want = gelu_ref(x as f64);
                    if want.abs() >= f32::MIN_POSITIVE as f64 {
                        continue;
                    }
                    let k = (f32::MIN_POSITIVE as f64 / want.abs()).log2().floor();
                    let err = err_f32(y, want);
                    assert!(
                        err <= 0.5 + 2f64.powf(-k),
                        "{name}({x}) = {y:e}, want {want:e}: {err} ULP, {k} binades below 2^-126"
                    );
                }
            }
        }
    }

    /// Every f32 in [-14.5, -5.5) (all 12.1 million in release builds, every 61st in
    /// debug ones, every 65537th under Miri) through the tail on 8 and 16 lanes and the
    /// public entry point, against the double-double reference (`reference.rs`), within
    /// gelu's bound of 2 ULP; and every 4099th f32 below -14.5 (every 2^24th under Miri)
    /// gives -0.
    #[test]
    fn gelu_tail_every_input() {
        let step = if cfg!(miri) {
            65537
        } else if cfg!(debug_assertions) {
            61
        } else {
            1
        };
        let below = if cfg!(miri) { 1 << 24 } else { 4099 };
        let (from, to) = ((-5.5f32).to_bits() + 1, (-14.5f32).to_bits());
        let xs: Vec<f32> = (from..=to).step_by(step).map(f32::from_bits).collect();
        for (name, f) in [
            ("gelu tail 8", gelu8 as fn(f32x8) -> f32x8),
            ("gelu tail 16", gelu16),
            ("gelu_f32 tail", super::super::gelu_f32),
        ] {
            run_f32(name, f, gelu_ref, &xs, 2.0);
            for b in (to..=(f32::NEG_INFINITY).to_bits()).step_by(below) {
                let x = f32::from_bits(b);
                let y = f(f32x8::splat(x)).to_array()[0];
                assert_eq!(y.to_bits(), (-0.0f32).to_bits(), "{name}({x:e}) = {y:e}");
            }
        }
    }
}
