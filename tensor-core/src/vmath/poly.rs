//! Shared lane helpers: splats, bit casts, selects and the "1.5·2^52" integer trick, lanes
//! routed out of line (`fast_or_rare_lanes`), polynomial evaluation (`poly_fma`,
//! `poly_estrin`, `horner`), double-double arithmetic (`two_sum`, `fast_two_sum`,
//! `two_prod`, `two_diff`, `div_dd`) and `div_f32_newton`.

use super::*;

// ---------------------------------------------------------------------------
// small helpers
// ---------------------------------------------------------------------------

#[inline(always)]
pub(super) fn sp(v: f64) -> F {
    F::splat(v)
}
#[inline(always)]
pub(super) fn us(v: u64) -> U {
    U::splat(v)
}
#[inline(always)]
pub(super) fn bits(x: F) -> U {
    x.to_bits()
}
#[inline(always)]
pub(super) fn from_bits(u: U) -> F {
    F::from_bits(u)
}
/// Lane select: `m` must be a lane mask (all ones / all zeros per lane).
#[inline(always)]
pub(super) fn sel(m: F, a: F, b: F) -> F {
    m.select(a, b)
}
/// Mask as u64 lanes (all ones / zeros).
#[inline(always)]
pub(super) fn mask_u(m: F) -> U {
    bits(m)
}

/// 1.5 * 2^52: adding it to |v| < 2^51 rounds v to the nearest integer
/// (ties to even) and leaves that integer in the low mantissa bits.
pub(super) const MAGIC: f64 = 6755399441055744.0;

/// Round to nearest integer (ties even), valid for |v| < 2^51.
#[inline(always)]
pub(super) fn rint(v: F) -> F {
    (v + MAGIC) - MAGIC
}
/// Integer-valued float (|v| < 2^51) -> two's complement integer in u64 lanes.
#[inline(always)]
pub(super) fn f2i(v: F) -> U {
    bits(v + MAGIC) - bits(sp(MAGIC))
}
/// Two's complement integer (|k| < 2^51) in u64 lanes -> f64.
#[inline(always)]
pub(super) fn i2f(k: U) -> F {
    from_bits(k + bits(sp(MAGIC))) - MAGIC
}
/// 2^k for integer-valued float k in [-1022, 1023].
#[inline(always)]
pub(super) fn pow2(kf: F) -> F {
    from_bits((f2i(kf) + us(1023)) << 52)
}
/// y * 2^k for integer-valued k in [-2000, 2000] (k split in two halves so
/// that both factors are normal; only the last multiply can round, which is
/// the single rounding into the subnormal range).
#[inline(always)]
pub(super) fn scale(y: F, kf: F) -> F {
    let k1 = rint(kf * 0.5);
    let k2 = kf - k1;
    y * pow2(k1) * pow2(k2)
}
/// x = m·2^e with |m| in [1, 2) and e an integer-valued float, for finite nonzero x
/// (subnormals are scaled by 2^64 first). Other lanes (±0, ±inf, NaN) give a finite m and
/// an e the caller must mask out.
#[inline(always)]
pub(super) fn split_exponent(x: F) -> (F, F) {
    let tiny = x.abs().simd_lt(sp(f64::MIN_POSITIVE));
    let xs = sel(tiny, x * 18446744073709551616.0, x); // 2^64
    let e_field = (bits(xs) >> 52) & us(0x7ff);
    let e = i2f(e_field) - sel(tiny, sp(1023.0 + 64.0), sp(1023.0));
    let m = from_bits((bits(xs) & us(0x800f_ffff_ffff_ffff)) | us(0x3ff0_0000_0000_0000));
    (m, e)
}
/// Clear the low 32 bits (fdlibm's SET_LOW_WORD(x, 0)): the result has at
/// most 21 significant bits, so products of two such values are exact.
#[inline(always)]
pub(super) fn clear_low(v: F) -> F {
    from_bits(bits(v) & us(0xffff_ffff_0000_0000))
}
#[inline(always)]
pub(super) fn is_nan(x: F) -> F {
    x.simd_ne(x)
}
#[inline(always)]
pub(super) fn sign_bit(x: F) -> U {
    bits(x) & us(0x8000_0000_0000_0000)
}
/// Copy the sign of `s` onto `|m|`.
#[inline(always)]
pub(super) fn copysign(m: F, s: F) -> F {
    from_bits((bits(m) & us(0x7fff_ffff_ffff_ffff)) | sign_bit(s))
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
pub(super) fn fast_or_rare_lanes(
    x: f32x8,
    ok: f32x8,
    fast: f32x8,
    rare: fn(f32x8) -> f32x8,
) -> f32x8 {
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
pub(super) fn call_rare(a: u64, b: u64, c: u64, d: u64, rare: fn(f32x8) -> f32x8) -> f32x8 {
    rare(bytemuck::cast([a, b, c, d]))
}

/// Knuth's TwoSum for a - b: returns (s, e) with s + e == a - b exactly.
#[inline(always)]
pub(super) fn two_diff(a: F, b: F) -> (F, F) {
    let s = a - b;
    let bb = s - a;
    let e = (a - (s - bb)) - (b + bb);
    (s, e)
}

/// a + b = s + e exactly, for any a, b (Knuth's TwoSum).
#[inline(always)]
pub(super) fn two_sum(a: F, b: F) -> (F, F) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// a + b = s + e exactly, for |a| >= |b| or a == 0.
#[inline(always)]
pub(super) fn fast_two_sum(a: F, b: F) -> (F, F) {
    let s = a + b;
    (s, b - (s - a))
}

/// (nh + nl)/(dh + dl) rounded once, for normalised double-doubles: q0 = nh·(1/dh) to ~1
/// ulp, then q0 + (n - q0·d)·(1/dh) with nh - q0·dh exact (`two_prod`): a few 2^-56
/// before the final rounding.
#[inline(always)]
pub(super) fn div_dd(nh: F, nl: F, dh: F, dl: F) -> F {
    let rcp = sp(1.0) / dh;
    let q0 = nh * rcp;
    let (qd, qd_e) = two_prod(q0, dh);
    let rem = ((nh - qd) - qd_e) + (nl - q0 * dl);
    q0 + rem * rcp
}

/// Horner evaluation with scalar coefficients c[0] + c[1] z + ...
#[inline(always)]
pub(super) fn horner(z: F, c: &[f64]) -> F {
    let mut p = sp(c[c.len() - 1]);
    for &ci in c[..c.len() - 1].iter().rev() {
        p = p * z + ci;
    }
    p
}
/// Horner with per-lane choice between two coefficient sets of equal length.
#[inline(always)]
pub(super) fn horner_sel(z: F, m: F, a: &[f64], b: &[f64]) -> F {
    let n = a.len();
    let mut p = sel(m, sp(a[n - 1]), sp(b[n - 1]));
    for i in (0..n - 1).rev() {
        p = p * z + sel(m, sp(a[i]), sp(b[i]));
    }
    p
}

/// Dekker/Veltkamp exact product without FMA: a*b = p + e exactly.
#[inline(always)]
pub(super) fn two_prod(a: F, b: F) -> (F, F) {
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

// ---------------------------------------------------------------------------
// Polynomial evaluation: the fast f32 paths' short f64 polynomials
// ---------------------------------------------------------------------------
// An f32 result needs the f64 value to ~2^-30 relative accuracy before the single
// rounding to f32 (then the error is <= 0.5 + 2^-6 f32 ulp). These kernels use Taylor
// polynomials truncated where the remainder is below 2^-36, fused multiply-adds where the
// build has them (`mul_add` is a multiply and an add otherwise: both stay far inside that
// margin), and f64's exponent range, which holds every f32 subnormal as a normal number.

#[inline(always)]
pub(super) fn fma<V: Lanes>(a: V, b: V, c: V) -> V {
    a.mul_add_lanes(b, c)
}

/// What the polynomial evaluators need of a lane type: a splat of a coefficient and
/// `mul_add` (fused where the build has FMA). f32 tables hold f32 values written as f64
/// literals, so the conversion in `splat_coef` is exact.
pub(super) trait Lanes: Copy + core::ops::Mul<Output = Self> {
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
pub(super) fn poly_fma<V: Lanes>(z: V, c: &[f64]) -> V {
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
pub(super) fn poly_estrin<V: Lanes>(x: V, c: &[f64]) -> V {
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

/// The lanes whose f32 bits b satisfy lo <= b <= hi, as one unsigned compare: b - lo
/// wraps around to a large value below lo.
#[inline(always)]
pub(super) fn bits_in(x: f32x8, lo: u32, hi: u32) -> f32x8 {
    use wide::u32x8;
    f32x8::from_bits((x.to_bits() - u32x8::splat(lo)).simd_lt(u32x8::splat(hi - lo + 1)))
}

/// num/den to ~2^-45 relative without an f64 division (`vdivpd zmm` costs three `vdivps
/// ymm`): r0 = 1/den in f32 (|den| must round to a normal f32 with a normal reciprocal, or
/// be +-1.0 exactly), q0 = num·r0, and one Newton correction q0 - (den·q0 - num)·r0, whose
/// error is the square of r0's (2^-23); written so that num = ±0 gives ±0. Without FMA,
/// den·q0 rounds by 2^-53 relative to num, which the correction does not amplify.
#[inline(always)]
pub(super) fn div_f32_newton(num: F, den: F) -> F {
    let r0 = widen(f32x8::splat(1.0) / narrow(den));
    let q0 = num * r0;
    fma(-fma(den, q0, -num), r0, q0)
}
