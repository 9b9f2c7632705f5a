//! `x as T` between all 13 dtypes, with Rust `as` semantics: float→int saturates and
//! maps NaN to 0, int→float and float→narrower float round to nearest-even once.
//! Extensions where Rust has no `as`: `x as bool` is `x != 0` (NaN is true, as in NumPy),
//! and every conversion into `f16`/`bf16` rounds exactly once (no double rounding
//! through `f32`), as `half`'s own `from_f64` does.

use crate::dtype::{bf16, f16, Element};

/// `self as D`.
pub trait CastTo<D: Element>: Element {
    /// `self as D`, with the semantics stated at the top of this module.
    fn cast(self) -> D;
}

macro_rules! prim_to_prims {
    ($s:ty; $($d:ty)*) => {$(
        impl CastTo<$d> for $s {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> $d { self as $d }
        }
    )*};
}
macro_rules! prims {
    ($($s:ty)*) => {$(
        prim_to_prims!($s; u8 u16 u32 u64 i8 i16 i32 i64 f32 f64);
        impl CastTo<bool> for $s {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[allow(clippy::float_cmp)]
            fn cast(self) -> bool { self != (0 as $s) }
        }
        impl CastTo<$s> for bool {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> $s { self as u8 as $s }
        }
        impl CastTo<$s> for f16 {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> $s { self.to_f32() as $s }
        }
        impl CastTo<$s> for bf16 {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> $s { self.to_f32() as $s }
        }
    )*};
}
prims!(u8 u16 u32 u64 i8 i16 i32 i64 f32 f64);

impl CastTo<bool> for bool {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn cast(self) -> bool {
        self
    }
}

/// `x` rounded to the nearest f64 *with ties broken to odd* ("round to odd"): an f64 with
/// 53 significant bits that rounds to any format of at most 51 bits exactly as `x` would.
/// Exact (plain `as`) whenever |x| < 2⁵³.
fn i128_to_f64_round_odd(x: i128) -> f64 {
    let magnitude = x.unsigned_abs();
    let significant_bits = 128 - magnitude.leading_zeros();
    let value = if significant_bits <= 53 {
        magnitude as f64
    } else {
        let dropped = significant_bits - 53;
        let kept = magnitude >> dropped;
        let sticky = (magnitude & ((1u128 << dropped) - 1) != 0) as u128;
        // `kept | sticky` has at most 53 bits, so this conversion is exact; scaling by a power
        // of two is exact too. The power is built from its exponent bits (`dropped` ≤ 75):
        // Rust does not promise that `powi` is exact, and Miri models it as inexact.
        let scale = f64::from_bits((1023 + dropped as u64) << 52);
        ((kept | sticky) as f64) * scale
    };
    if x < 0 {
        -value
    } else {
        value
    }
}

/// `x` rounded to f32 with ties broken to odd: exact when representable, otherwise the
/// neighbour toward zero with its last significand bit set. Rounding that to any format of
/// at most 22 significand bits (f16, bf16), with f32's exponent range or a smaller one, gives
/// the correctly rounded result. (`half`'s own `bf16::from_f64` goes through a plain f32 and
/// can round twice.)
fn f64_to_f32_round_odd(x: f64) -> f32 {
    let nearest = x as f32;
    if nearest as f64 == x || x.is_nan() {
        return nearest;
    }
    // Truncate toward zero, then make the last bit odd.
    let toward_zero = if (nearest as f64).abs() > x.abs() {
        f32::from_bits(nearest.to_bits() - 1)
    } else {
        nearest
    };
    f32::from_bits(toward_zero.to_bits() | 1)
}

macro_rules! into_half {
    ($h:ty; floats: $($f:ty)*; ints: $($i:ty)*) => {
        $(impl CastTo<$h> for $f {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> $h { <$h>::from_f32(f64_to_f32_round_odd(self as f64)) }
        })*
        $(impl CastTo<$h> for $i {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> $h { <$h>::from_f32(f64_to_f32_round_odd(i128_to_f64_round_odd(self as i128))) }
        })*
        impl CastTo<$h> for bool {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> $h { if self { <$h>::ONE } else { <$h>::ZERO } }
        }
        impl CastTo<bool> for $h {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn cast(self) -> bool { self.to_f32() != 0.0 }
        }
    };
}
// f32 → half through f64 is exact widening then one rounding.
into_half!(f16; floats: f32 f64; ints: u8 u16 u32 u64 i8 i16 i32 i64);
into_half!(bf16; floats: f32 f64; ints: u8 u16 u32 u64 i8 i16 i32 i64);

impl CastTo<f16> for f16 {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn cast(self) -> f16 {
        self
    }
}
impl CastTo<bf16> for bf16 {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn cast(self) -> bf16 {
        self
    }
}
impl CastTo<bf16> for f16 {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn cast(self) -> bf16 {
        bf16::from_f32(self.to_f32())
    }
}
impl CastTo<f16> for bf16 {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn cast(self) -> f16 {
        f16::from_f32(self.to_f32())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2^e from its exponent bits (normal range): exact, unlike `powi`, which Rust does
    /// not promise to be.
    fn pow2(e: i32) -> f64 {
        f64::from_bits(((1023 + e) as u64) << 52)
    }

    fn pow2_f32(e: i32) -> f32 {
        f32::from_bits(((127 + e) as u32) << 23)
    }

    #[test]
    fn round_odd_avoids_double_rounding() {
        // 2^60 + 2^52 + 1 is just above the bf16 midpoint between 2^60 and 2^60 + 2^53;
        // rounding through a plain f64 lands exactly on the midpoint and ties to even (down).
        let x: u64 = (1 << 60) + (1 << 52) + 1;
        let up = bf16::from_f64(((1u64 << 60) + (1u64 << 53)) as f64);
        assert_eq!(CastTo::<bf16>::cast(x), up);
        assert_eq!(CastTo::<bf16>::cast(-(x as i64)), -up);
        assert_eq!(
            CastTo::<bf16>::cast(u64::MAX),
            bf16::from_f64(18446744073709551615.0)
        );
        assert_eq!(CastTo::<f16>::cast(70000u32), f16::INFINITY);
        assert_eq!(CastTo::<f16>::cast(2049u32), f16::from_f32(2048.0));
        assert_eq!(CastTo::<f16>::cast(2051u32), f16::from_f32(2052.0));
        // f64 just above a bf16 midpoint, but within half an f32 ulp of it.
        // Exact powers of two, written as literals (Rust does not promise `powi` is exact).
        let above = 1.0 + 0.00390625 + 9.313225746154785e-10;
        assert_eq!(CastTo::<bf16>::cast(above), bf16::from_f32(1.0 + 0.0078125));
        assert_eq!(
            CastTo::<bf16>::cast(-above),
            bf16::from_f32(-(1.0 + 0.0078125))
        );
        assert_eq!(CastTo::<bf16>::cast(1.0 + 0.00390625), bf16::from_f32(1.0));
        let above16 = 1.0 + pow2(-11) + pow2(-40);
        assert_eq!(
            CastTo::<f16>::cast(above16),
            f16::from_f32(1.0 + pow2_f32(-10))
        );
        assert_eq!(CastTo::<f16>::cast(1e300f64), f16::INFINITY);
        assert_eq!(CastTo::<bf16>::cast(-1e300f64), bf16::NEG_INFINITY);
        assert!(CastTo::<bf16>::cast(f64::NAN).is_nan());
        assert_eq!(CastTo::<f16>::cast(1e-300f64).to_bits(), 0);
        assert_eq!(CastTo::<f16>::cast(-1e-300f64).to_bits(), 0x8000);
        // The smallest f16 subnormal is 2^-24; just above half of it rounds up to it.
        assert_eq!(CastTo::<f16>::cast(pow2(-25) * (1.0 + 1e-12)).to_bits(), 1);
        assert_eq!(CastTo::<f16>::cast(pow2(-25)).to_bits(), 0);
    }

    #[test]
    fn rust_as_semantics() {
        assert_eq!(CastTo::<u8>::cast(300.7f32), 255);
        assert_eq!(CastTo::<i8>::cast(-300.7f32), -128);
        assert_eq!(CastTo::<i32>::cast(f32::NAN), 0);
        assert_eq!(CastTo::<u8>::cast(f16::NEG_INFINITY), 0);
        assert_eq!(CastTo::<u8>::cast(-1i32), 255);
        assert!(CastTo::<bool>::cast(f32::NAN));
        assert!(!CastTo::<bool>::cast(-0.0f64));
        assert_eq!(CastTo::<i64>::cast(true), 1);
    }
}
