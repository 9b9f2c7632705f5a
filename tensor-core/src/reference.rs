//! The scalar reference semantics of every graph op.
//!
//! These functions *define* what a graph computes: the SIMD kernels must give the same
//! value bit for bit for exact ops, and stay within the stated ULP bound (ACCURACY.md)
//! for transcendentals. They act on compute types (`f16`/`bf16` values arrive as `f32`).
//!
//! Rules that are not IEEE or Rust defaults, stated once here:
//! - integer `+ - * neg abs pow` wrap; `/` and `%` truncate like Rust;
//!   `modulo` floors like Python; a zero divisor gives 0 (never a panic);
//! - shifts by an amount outside `0..BITS` give 0, or -1 for `>>` of a negative value;
//! - float `max`/`min` propagate NaN and order `-0.0 < +0.0`;
//! - `round` is half away from zero, `roundeven` half to even; both are the identity on
//!   integers, as are `floor` and `trunc`;
//! - float `%` is C `fmod` (sign of the dividend); float `modulo` is NumPy's `mod` (sign of
//!   the divisor, `-0.0`/`+0.0` following the divisor's sign).

use crate::dtype::LaneScalar;
use crate::vmath::{erf_scalar_f64, erfc_scalar_f64, erfc_tail_exponents_scalar};

/// Arithmetic: every integer and float compute type.
pub trait Num: LaneScalar {
    /// `a + b` (wrapping on integers).
    fn add(a: Self, b: Self) -> Self;
    /// `a - b` (wrapping on integers).
    fn sub(a: Self, b: Self) -> Self;
    /// `a · b` (wrapping on integers).
    fn mul(a: Self, b: Self) -> Self;
    /// `a / b`: truncating on integers, 0 for a zero integer divisor.
    fn div(a: Self, b: Self) -> Self;
    /// `%`: truncated remainder.
    fn rem(a: Self, b: Self) -> Self;
    /// `mod`: floored remainder (sign of the divisor).
    fn modulo(a: Self, b: Self) -> Self;
    /// `-a` (wrapping on integers).
    fn neg(a: Self) -> Self;
    /// `|a|` (wrapping on integers: `abs(MIN) = MIN`).
    fn abs(a: Self) -> Self;
    /// The larger of `a` and `b`; floats propagate NaN and order `-0.0 < +0.0`.
    fn max(a: Self, b: Self) -> Self;
    /// The smaller of `a` and `b`; floats propagate NaN and order `-0.0 < +0.0`.
    fn min(a: Self, b: Self) -> Self;
    /// `a` to the power `b` (wrapping on integers; a negative integer exponent gives 0 except for bases ±1).
    fn pow(a: Self, b: Self) -> Self;
    /// `max(a, 0)`.
    fn relu(a: Self) -> Self;
    /// Rounds towards -inf (the identity on integers).
    fn floor(a: Self) -> Self;
    /// Rounds half away from zero (the identity on integers).
    fn round(a: Self) -> Self;
    /// Rounds half to even (the identity on integers).
    fn roundeven(a: Self) -> Self;
    /// Rounds towards zero (the identity on integers).
    fn trunc(a: Self) -> Self;
    /// The identity on integers.
    fn ceil(a: Self) -> Self;
    /// `a · a` (wrapping on integers).
    #[inline(always)]
    fn square(a: Self) -> Self {
        Self::mul(a, a)
    }
    /// -1, 0 or 1 (0 or 1 for unsigned); `sign(±0.0) = ±0.0`, NaN stays NaN (ONNX `Sign`).
    fn sign(a: Self) -> Self;
}

/// Comparisons: every compute type, `bool` ordered `false < true`, floats per IEEE
/// (every comparison with NaN is false except `!=`).
pub trait Compare: LaneScalar {
    #[inline(always)]
    /// `a == b`.
    fn eq(a: Self, b: Self) -> bool {
        a == b
    }
    #[inline(always)]
    /// `a != b` (true when either is NaN).
    fn ne(a: Self, b: Self) -> bool {
        a != b
    }
    #[inline(always)]
    /// `a < b`.
    fn lt(a: Self, b: Self) -> bool {
        a < b
    }
    #[inline(always)]
    /// `a <= b`.
    fn le(a: Self, b: Self) -> bool {
        a <= b
    }
    #[inline(always)]
    /// `a > b`.
    fn gt(a: Self, b: Self) -> bool {
        a > b
    }
    #[inline(always)]
    /// `a >= b`.
    fn ge(a: Self, b: Self) -> bool {
        a >= b
    }
}

/// `& | ^ !`: bitwise on integers, logical on `bool`.
pub trait Bitwise: LaneScalar {
    /// `a & b` (logical on `bool`).
    fn and(a: Self, b: Self) -> Self;
    /// `a | b` (logical on `bool`).
    fn or(a: Self, b: Self) -> Self;
    /// `a ^ b` (logical on `bool`).
    fn xor(a: Self, b: Self) -> Self;
    /// `!a` (logical on `bool`).
    fn not(a: Self) -> Self;
}

/// `bitwise_count` on integers: the number of one bits of `|a|` (NumPy), as `u8`.
pub trait BitCount: LaneScalar {
    /// The number of one bits of `|a|`.
    fn bitwise_count(a: Self) -> u8;
}

/// `<< >>` on integers.
pub trait Shift: LaneScalar {
    /// `a << b`; 0 when `b` is outside `0..BITS`.
    fn shl(a: Self, b: Self) -> Self;
    /// `a >> b`; 0 (or -1 for a negative `a`) when `b` is outside `0..BITS`.
    fn shr(a: Self, b: Self) -> Self;
}

/// The function table's `unary` rows (functions.rs) as trait methods: each row's doc and
/// `fn name(a: Self) -> Self;`.
macro_rules! float_trait_methods {
    (() $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(float_trait_methods!(@row $kind $args $(#[$doc])* $name);)*
    };
    (@row unary $args:tt $(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        fn $name(a: Self) -> Self;
    };
    (@row hand $args:tt $(#[$doc:meta])* $name:ident) => {};
}

/// Float-only functions (`f16`/`bf16` use the `f32` ones): the `unary` rows of the function
/// table (`functions::for_each_float_function!`), and two predicates.
pub trait Float: Num {
    crate::functions::for_each_float_function!(float_trait_methods);
    /// Whether `a` is NaN.
    fn is_nan(a: Self) -> bool;
    /// Whether `a` is +inf or -inf.
    fn is_inf(a: Self) -> bool;
}

/// The `Float` function of the function table named `name` (a `unary` row), or `None`: the
/// reference by name, as the random-graph interpreter looks ops up.
pub fn float_unary<T: Float>(name: &str) -> Option<fn(T) -> T> {
    macro_rules! by_name {
        (() $($(#[$doc:meta])* $f:ident: $lane_trait:ident::$lane:ident, $bound:tt,
           $kind:ident $args:tt;)*) => {
            $(by_name!(@row $kind $f);)*
        };
        (@row unary $f:ident) => {
            if name == stringify!($f) {
                return Some(<T as Float>::$f);
            }
        };
        (@row hand $f:ident) => {};
    }
    crate::functions::for_each_float_function!(by_name);
    None
}

impl Compare for bool {}

impl Bitwise for bool {
    #[inline(always)]
    fn and(a: bool, b: bool) -> bool {
        a & b
    }
    #[inline(always)]
    fn or(a: bool, b: bool) -> bool {
        a | b
    }
    #[inline(always)]
    fn xor(a: bool, b: bool) -> bool {
        a ^ b
    }
    #[inline(always)]
    fn not(a: bool) -> bool {
        !a
    }
}

/// The parts of integer semantics shared by signed and unsigned types.
macro_rules! integer_common {
    ($t:ty) => {
        impl Compare for $t {}

        impl Bitwise for $t {
            #[inline(always)]
            fn and(a: $t, b: $t) -> $t {
                a & b
            }
            #[inline(always)]
            fn or(a: $t, b: $t) -> $t {
                a | b
            }
            #[inline(always)]
            fn xor(a: $t, b: $t) -> $t {
                a ^ b
            }
            #[inline(always)]
            fn not(a: $t) -> $t {
                !a
            }
        }

        impl Shift for $t {
            #[inline(always)]
            fn shl(a: $t, b: $t) -> $t {
                // `b as u32` may wrap for wide or negative amounts, so range-check first.
                #[allow(unused_comparisons)]
                let in_range = b >= 0 && (b as u128) < <$t>::BITS as u128;
                if in_range {
                    a << (b as u32)
                } else {
                    0
                }
            }
            #[inline(always)]
            fn shr(a: $t, b: $t) -> $t {
                #[allow(unused_comparisons)]
                let in_range = b >= 0 && (b as u128) < <$t>::BITS as u128;
                #[allow(unused_comparisons)]
                let negative = a < 0;
                if in_range {
                    a >> (b as u32)
                } else if negative {
                    // Sign fill: what shifting by BITS-1 and beyond converges to.
                    a >> (<$t>::BITS - 1)
                } else {
                    0
                }
            }
        }
    };
}

/// Integer `pow` with wrapping multiplication; a negative exponent truncates `1/aⁿ`
/// toward zero (1 for a = 1, ±1 for a = -1, 0 otherwise, including a = 0).
macro_rules! integer_pow {
    ($t:ty) => {
        #[inline(always)]
        fn pow(a: $t, b: $t) -> $t {
            #[allow(unused_comparisons)]
            if b < 0 {
                #[allow(unused_comparisons)]
                let minus_one = a < 0 && a == (0 as $t).wrapping_sub(1);
                return if a == 1 {
                    1
                } else if minus_one {
                    if b & 1 == 1 {
                        a
                    } else {
                        1
                    }
                } else {
                    0
                };
            }
            let mut exponent = b as u64;
            let mut base = a;
            let mut acc: $t = 1;
            while exponent > 0 {
                if exponent & 1 == 1 {
                    acc = acc.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                exponent >>= 1;
            }
            acc
        }
    };
}

macro_rules! integer_num {
    ($t:ty, abs: $abs:expr, floor_fix: $floor_fix:expr) => {
        impl Num for $t {
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn sub(a: $t, b: $t) -> $t {
                a.wrapping_sub(b)
            }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t {
                a.wrapping_mul(b)
            }
            #[inline(always)]
            fn div(a: $t, b: $t) -> $t {
                if b == 0 {
                    0
                } else {
                    a.wrapping_div(b)
                }
            }
            #[inline(always)]
            fn rem(a: $t, b: $t) -> $t {
                if b == 0 {
                    0
                } else {
                    a.wrapping_rem(b)
                }
            }
            #[inline(always)]
            fn modulo(a: $t, b: $t) -> $t {
                if b == 0 {
                    return 0;
                }
                let r = a.wrapping_rem(b);
                let fix: fn($t, $t) -> $t = $floor_fix;
                fix(r, b)
            }
            #[inline(always)]
            fn neg(a: $t) -> $t {
                a.wrapping_neg()
            }
            #[inline(always)]
            fn abs(a: $t) -> $t {
                let f: fn($t) -> $t = $abs;
                f(a)
            }
            #[inline(always)]
            fn max(a: $t, b: $t) -> $t {
                if a >= b {
                    a
                } else {
                    b
                }
            }
            #[inline(always)]
            fn min(a: $t, b: $t) -> $t {
                if a <= b {
                    a
                } else {
                    b
                }
            }
            integer_pow!($t);
            #[inline(always)]
            fn relu(a: $t) -> $t {
                if a > 0 {
                    a
                } else {
                    0
                }
            }
            #[inline(always)]
            fn floor(a: $t) -> $t {
                a
            }
            #[inline(always)]
            fn round(a: $t) -> $t {
                a
            }
            #[inline(always)]
            fn roundeven(a: $t) -> $t {
                a
            }
            #[inline(always)]
            fn trunc(a: $t) -> $t {
                a
            }
            #[inline(always)]
            fn ceil(a: $t) -> $t {
                a
            }
            #[inline(always)]
            fn sign(a: $t) -> $t {
                #[allow(unused_comparisons)]
                let negative = a < 0;
                if negative {
                    (0 as $t).wrapping_sub(1)
                } else if a > 0 {
                    1
                } else {
                    0
                }
            }
        }
        integer_common!($t);
        impl BitCount for $t {
            /// NumPy's `bitwise_count`: the ones of the absolute value.
            #[inline(always)]
            fn bitwise_count(a: $t) -> u8 {
                #[allow(unused_comparisons)]
                let negative = a < 0;
                let magnitude = if negative {
                    (0 as $t).wrapping_sub(a)
                } else {
                    a
                };
                magnitude.count_ones() as u8
            }
        }
    };
}

macro_rules! signed {
    ($($t:ty),*) => {$(
        integer_num!($t, abs: |a| a.wrapping_abs(),
            floor_fix: |r, b| if r != 0 && ((r < 0) != (b < 0)) { r.wrapping_add(b) } else { r });
    )*};
}
macro_rules! unsigned {
    ($($t:ty),*) => {$(
        integer_num!($t, abs: |a| a, floor_fix: |r, _b| r);
    )*};
}
signed!(i8, i16, i32, i64);
unsigned!(u8, u16, u32, u64);

/// IEEE-754-2019 `maximum`/`minimum`: NaN if either is NaN, and `-0.0 < +0.0`.
macro_rules! float_max_min {
    ($t:ty) => {
        #[inline(always)]
        fn max(a: $t, b: $t) -> $t {
            if a.is_nan() || b.is_nan() {
                <$t>::NAN
            } else if a > b {
                a
            } else if b > a {
                b
            } else if a.is_sign_positive() {
                a
            } else {
                b
            }
        }
        #[inline(always)]
        fn min(a: $t, b: $t) -> $t {
            if a.is_nan() || b.is_nan() {
                <$t>::NAN
            } else if a < b {
                a
            } else if b < a {
                b
            } else if a.is_sign_negative() {
                a
            } else {
                b
            }
        }
    };
}

macro_rules! float_num {
    ($t:ty) => {
        impl Compare for $t {}

        impl Num for $t {
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t {
                a + b
            }
            #[inline(always)]
            fn sub(a: $t, b: $t) -> $t {
                a - b
            }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t {
                a * b
            }
            #[inline(always)]
            fn div(a: $t, b: $t) -> $t {
                a / b
            }
            #[inline(always)]
            fn rem(a: $t, b: $t) -> $t {
                a % b
            }
            /// NumPy's `npy_divmod` remainder.
            #[inline(always)]
            fn modulo(a: $t, b: $t) -> $t {
                let r = a % b;
                if r != 0.0 {
                    if (b < 0.0) != (r < 0.0) {
                        r + b
                    } else {
                        r
                    }
                } else {
                    (0.0 as $t).copysign(b)
                }
            }
            #[inline(always)]
            fn neg(a: $t) -> $t {
                -a
            }
            #[inline(always)]
            fn abs(a: $t) -> $t {
                a.abs()
            }
            float_max_min!($t);
            #[inline(always)]
            fn pow(a: $t, b: $t) -> $t {
                pow_impl(a, b)
            }
            #[inline(always)]
            fn relu(a: $t) -> $t {
                <$t as Num>::max(a, 0.0)
            }
            #[inline(always)]
            fn floor(a: $t) -> $t {
                a.floor()
            }
            #[inline(always)]
            fn round(a: $t) -> $t {
                a.round()
            }
            #[inline(always)]
            fn roundeven(a: $t) -> $t {
                a.round_ties_even()
            }
            #[inline(always)]
            fn trunc(a: $t) -> $t {
                a.trunc()
            }
            #[inline(always)]
            fn ceil(a: $t) -> $t {
                a.ceil()
            }
            #[inline(always)]
            fn sign(a: $t) -> $t {
                if a > 0.0 {
                    1.0
                } else if a < 0.0 {
                    -1.0
                } else {
                    a
                }
            }
        }
    };
}
float_num!(f32);
float_num!(f64);

trait PowImpl {
    fn pow_impl(a: Self, b: Self) -> Self;
}
fn pow_impl<T: PowImpl>(a: T, b: T) -> T {
    T::pow_impl(a, b)
}
impl PowImpl for f32 {
    fn pow_impl(a: f32, b: f32) -> f32 {
        // f64 `pow` is accurate to < 1 f64 ULP, so one rounding to f32 is within 0.5 + 2⁻²⁹ ULP.
        (a as f64).powf(b as f64) as f32
    }
}
impl PowImpl for f64 {
    fn pow_impl(a: f64, b: f64) -> f64 {
        a.powf(b)
    }
}

/// sigmoid in f64, rounded once: e = e^-|x| in double-double (`exp_dd`), 1 + e and the
/// quotient in double-double; below -700 (results near and below the subnormal range)
/// e^x itself, scaled back once by `ldexp_dd`.
fn sigmoid_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < -760.0 {
        return 0.0;
    }
    if x < -700.0 {
        let (h, l, k) = exp_dd(x, 0.0);
        return ldexp_dd(h, l, k);
    }
    let (q0, q1) = sigmoid_dd(x);
    q0 + q1
}

/// sigmoid(x) as a double-double (q0, q1) for x >= -700: e = e^-|x| from `exp_dd` (|x|
/// clamped at 700, where 1 + e is 1 anyway), e/(1 + e) or 1/(1 + e) with the sum and the
/// quotient in double-double.
fn sigmoid_dd(x: f64) -> (f64, f64) {
    sigmoid_dd_arg(x, 0.0)
}

/// sigmoid(vh + vl) as a double-double for a double-double argument (|vl| <= ulp(vh)/2,
/// vh >= -700): as `sigmoid_dd`, with e = e^-|v| taken from `exp_dd(-|vh|, ∓vl)`.
fn sigmoid_dd_arg(vh: f64, vl: f64) -> (f64, f64) {
    let (y, y_lo) = if vh < 0.0 { (vh, vl) } else { (-vh, -vl) };
    // Below -700, 1 + e is 1 far beyond double-double precision.
    let (y, y_lo) = if y < -700.0 { (-700.0, 0.0) } else { (y, y_lo) };
    let (eh, el, k) = exp_dd(y, y_lo);
    let s = pow2i(k); // k >= -1010
    let (eh, el) = (eh * s, el * s);
    let (dh, dl) = two_sum(1.0, eh);
    let dl = dl + el;
    let (nh, nl) = if vh < 0.0 { (eh, el) } else { (1.0, 0.0) };
    let q0 = nh / dh;
    (q0, ((-q0).mul_add(dh, nh) + (nl - q0 * dl)) / dh)
}

/// `x = m·2^e` with |m| in [1, 2), for finite nonzero x (subnormals included).
fn split_exponent(x: f64) -> (f64, i32) {
    let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
        (x * pow2i(64), 64)
    } else {
        (x, 0)
    };
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023 - bias;
    let m = f64::from_bits((x.to_bits() & 0x800f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    (m, e)
}

/// `x · sigmoid(alpha·x)` rounded once (swish; silu at alpha = 1), for any x and alpha.
/// `v = alpha·x` is carried exactly as vh + vl (one FMA): sigmoid's condition number is
/// up to |v|, so rounding v alone would cost hundreds of ULPs near v = -700. x = m·2^e is
/// split so that the product m·sigmoid(v) stays in the normal range whatever x's size, and
/// the exponent comes back once (`ldexp_dd`) into the possibly subnormal result. Below
/// v = -700, `1 + e^v` is 1 far beyond double-double precision: the result is x·e^v, from
/// `exp_dd` (which holds to v = -1800; below it the result is ±0 for any finite x, as
/// |x|·e^-1800 < 2^(1024-2596)). Limits: v = +inf gives x, v = -inf gives ±0 with x's sign
/// (swish(-inf) = -0 at alpha > 0, not -inf·0); a NaN v (NaN x or alpha, 0·inf) gives NaN.
fn swish_f64(x: f64, alpha: f64) -> f64 {
    let v = alpha * x;
    if v.is_nan() {
        return v;
    }
    if x == 0.0 {
        // sigmoid(0) = 1/2 (alpha is finite here): ±0.
        return x;
    }
    if v > 40.0 {
        // 1 - sigmoid(v) < e^-40 < 2^-57: x·sigmoid(v) rounds to x (also v = +inf).
        return x;
    }
    if v < -1800.0 {
        // Also v = -inf.
        return 0.0f64.copysign(x);
    }
    // x is finite and nonzero here (an infinite x made v infinite or NaN).
    let vl = alpha.mul_add(x, -v);
    let (m, e) = split_exponent(x);
    let (hi, lo, k) = if v < -700.0 {
        let (h, l, k) = exp_dd(v, vl);
        let (hi, lo) = mul_dd(m, h, l);
        (hi, lo, k + e)
    } else {
        let (q0, q1) = sigmoid_dd_arg(v, vl);
        let (hi, lo) = mul_dd(m, q0, q1);
        (hi, lo, e)
    };
    if k < -1200 {
        // |hi| < 4: below half the smallest subnormal.
        return 0.0f64.copysign(x);
    }
    ldexp_dd(hi, lo, k)
}

/// `e^x - 1` as a normalised double-double for x <= 0 (not NaN; -0 keeps its sign), to a
/// few 2^-58 relative: for x >= -ln2/2 the Taylor series `x + x²/2 + x³/6 + x⁴·Q(x)` with
/// x, x²/2 and x³/6 in double-double (FMAs) and Q to x^14/17! (`EXP_TAYLOR`; the x⁴ term is
/// < 0.002 of the result, so its rounding is < 2^-62 of it); below, `e^x - 1` from `exp_dd`
/// (|e^x - 1| >= 0.29, so exp_dd's 2^-58 of e^x is < 2^-56 of it), the subtraction exact
/// (`two_sum`); below -700, -1 (e^x < 2^-1009).
fn expm1_dd_neg(x: f64) -> (f64, f64) {
    if x == 0.0 {
        return (x, 0.0);
    }
    if x >= -0.34657359027997264 {
        const SIXTH_LO: f64 = 9.25185853854297e-18; // 1/6 - 0.16666666666666666
        let s2 = x * x;
        let s2_lo = x.mul_add(x, -s2);
        // x³ = c3 + c3_lo and x³/6 in double-double; the rest, x⁴·Q'(x) < 0.0019·|x|,
        // rounded in one double.
        let c3 = x * s2;
        let c3_lo = x.mul_add(s2, -c3) + x * s2_lo;
        let t3 = c3 * EXP_TAYLOR[0];
        let t3_lo = c3.mul_add(EXP_TAYLOR[0], -t3) + (c3 * SIXTH_LO + c3_lo * EXP_TAYLOR[0]);
        let q = EXP_TAYLOR[1..]
            .iter()
            .rev()
            .fold(0.0, |acc, &c| acc * x + c);
        let (h, l) = two_sum(x, 0.5 * s2);
        let (h, l2) = two_sum(h, t3);
        let l = l + l2 + 0.5 * s2_lo + t3_lo + c3 * x * q;
        let hi = h + l;
        return (hi, (h - hi) + l);
    }
    if x < -700.0 {
        return (-1.0, 0.0);
    }
    let (h, l, k) = exp_dd(x, 0.0);
    let s = pow2i(k);
    let (d, de) = two_sum(h * s, -1.0);
    let l = de + l * s;
    let hi = d + l;
    (hi, (d - hi) + l)
}

/// selu for x <= 0: `gamma·alpha·(e^x - 1)` rounded once, with gamma·alpha exact as a
/// double-double (one FMA) and e^x - 1 from `expm1_dd_neg` (a few 2^-57 before the final
/// rounding, so < 0.51 ULP). The composition `gamma·(alpha·expm1(x))` (glibc's expm1
/// and two roundings) was measured 1.51 ULP off at x = -0.3226 (mpmath). Parameters whose
/// product is outside [2^-900, 2^900] (where the FMA remainder could underflow or
/// overflow) take that composition.
fn selu_neg_f64(x: f64, alpha: f64, gamma: f64) -> f64 {
    let ga = gamma * alpha;
    if !(ga.abs() > pow2i(-900) && ga.abs() < pow2i(900)) {
        return gamma * (alpha * x.exp_m1());
    }
    let ga_lo = gamma.mul_add(alpha, -ga);
    let (h, l) = expm1_dd_neg(x);
    // Below 2^-900 (x itself, there), e^x - 1 is scaled by 2^200 so that the product's
    // FMA remainder is not itself rounded at the subnormal grid (that rounding made a
    // tie at x = -3.06e-307); `ldexp_dd` scales back, rounding once.
    let k = if h.abs() < pow2i(-900) { 200 } else { 0 };
    let (h, l) = (h * pow2i(k), l * pow2i(k));
    let p = ga * h;
    let pe = ga.mul_add(h, -p) + (ga * l + ga_lo * h);
    let hi = p + pe;
    ldexp_dd(hi, (p - hi) + pe, -k)
}

/// a·(h + l) as a normalised double-double (one exact product by FMA, the rest rounded
/// once: a few 2^-105 relative).
fn mul_dd(a: f64, h: f64, l: f64) -> (f64, f64) {
    let p = a * h;
    let m = a.mul_add(h, -p) + a * l;
    let hi = p + m;
    (hi, (p - hi) + m)
}

/// 1/n!, n = 3..17 (mpmath, rounded to nearest): the Taylor tail of `exp_dd` and
/// `expm1_dd_neg`.
const EXP_TAYLOR: [f64; 15] = [
    0.16666666666666666,
    0.041666666666666664,
    0.008333333333333333,
    0.001388888888888889,
    0.0001984126984126984,
    2.48015873015873e-05,
    2.7557319223985893e-06,
    2.755731922398589e-07,
    2.505210838544172e-08,
    2.08767569878681e-09,
    1.6059043836821613e-10,
    1.1470745597729725e-11,
    7.647163731819816e-13,
    4.779477332387385e-14,
    2.8114572543455206e-15,
];

/// `e^(y_hi + y_lo) = (hi + lo) · 2^k` for |y_hi| <= 1800, with `hi + lo` (a normalized
/// double-double in [0.7, 1.42]) accurate to ~2^-58 relative: the references' own exp for
/// results near and below the subnormal range, where the result must still be rounded only
/// once (std's `exp` rounds first, and is itself only within 1 ULP).
/// `y = k·ln2 + r` with ln 2 as fdlibm's 32-bit `LN2_HI` (so `y_hi - k·LN2_HI` is exact)
/// plus `LN2_LO` (together ln 2 to 2^-86), r in double-double, |r| <= 0.35;
/// `e^r = 1 + s + s²/2 + s³·Q(s) + r_lo·e^s` (s = r_hi) with the first three terms in
/// double-double and Q the Taylor series to s^14/17! (truncation < 2^-74).
fn exp_dd(y_hi: f64, y_lo: f64) -> (f64, f64, i32) {
    const LN2_HI: f64 = 6.931471803691238e-1; // 0x3fe62e42fee00000
    const LN2_LO: f64 = 1.9082149292705877e-10;
    let k = (y_hi * core::f64::consts::LOG2_E).round();
    let a = y_hi - k * LN2_HI; // exact
    let b = k * LN2_LO;
    let b_lo = k.mul_add(LN2_LO, -b);
    let (s, e) = two_sum(a, -b);
    let r_lo = e + (y_lo - b_lo);
    let s2 = s * s;
    let s2_lo = s.mul_add(s, -s2);
    let q = EXP_TAYLOR.iter().rev().fold(0.0, |acc, &c| acc * s + c);
    let (h, l) = two_sum(1.0, s);
    let (h, l2) = two_sum(h, 0.5 * s2);
    let l = l + l2 + 0.5 * s2_lo + s * s2 * q;
    // r_lo (up to ~2^-43 from y_lo) multiplies e^s itself, not just its first terms.
    let l = l + r_lo * (h + l);
    let hi = h + l;
    (hi, (h - hi) + l, k as i32)
}

/// Error-free sum: `a + b = s + e` exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `2^k` for -1022 <= k <= 1023.
fn pow2i(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `(hi + lo) · 2^k` rounded once (ties aside), for a normalized double-double `hi + lo`
/// (`|lo| <= ulp(hi)/2`) and -2000 < k <= 1000 (k > 0 only for results in the normal
/// range, where the scaling is exact), the result possibly subnormal: `hi · 2^k`
/// rounds (in two steps whose first is exact), the part of `hi + lo` that rounding dropped is
/// exact in f64, and scaling it rounds it to 0 or to one subnormal ULP exactly when it
/// exceeds half of one (from 2^-1021 up the ULP is larger, the scaling exact and `hi` is
/// the result).
fn ldexp_dd(hi: f64, lo: f64, k: i32) -> f64 {
    let k1 = k / 2;
    let k2 = k - k1;
    let r = hi * pow2i(k1) * pow2i(k2);
    if r.abs() >= 2.0 * f64::MIN_POSITIVE {
        // ULP(r) > 2^-1074: the scaling was exact and `hi` is already `hi + lo` rounded.
        return r;
    }
    let rest = (hi - r * pow2i(-k2) * pow2i(-k1)) + lo;
    r + rest * pow2i(k1) * pow2i(k2)
}

/// GELU in f64: `x/2 · erfc(-x/√2)`. For large negative x, erfc magnifies the rounding
/// of `x/√2` (relative error ≈ 2x²·δ), so the argument is carried in double-double
/// (`mul_add` is an exact fused multiply-add on every build) with a first-order
/// correction `erfc(-(u+ε)) ≈ erfc(-u) + ε·(2/√π)·e^{-u²}`.
fn gelu_f64(x: f64) -> f64 {
    const FRAC_1_SQRT_2_LO: f64 = -4.833646656726457e-17;
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x < -39.0 {
        // gelu(-38.6) is already below half the smallest subnormal; this also takes -inf.
        return -0.0;
    }
    if x < -20.0 {
        return gelu_tail_f64(x);
    }
    let hi = x * core::f64::consts::FRAC_1_SQRT_2;
    let lo = x.mul_add(core::f64::consts::FRAC_1_SQRT_2, -hi) + x * FRAC_1_SQRT_2_LO;
    if -hi >= 1.25 {
        return gelu_mid_tail_f64(x, -hi, lo);
    }
    let erfc = erfc_scalar_f64(-hi) + (-(hi * hi)).exp() * core::f64::consts::FRAC_2_SQRT_PI * lo;
    0.5 * x * erfc
}

/// gelu for -20 <= x with v = -x/√2 (rounded; `lo` = x/√2 - (-v)) >= 1.25: fdlibm's
/// erfc(v) = e^(a + b)/v with the exponential from `exp_dd` (a + b summed exactly) instead
/// of two rounded `exp`s, whose errors (with the quotient's and the products') reached
/// 3.6 ULP of gelu (mpmath, x = -15.11); the quotient by v and the product by x/2 in
/// double-double, rounded once. fdlibm states its R/S fit to < 2^-57 here.
fn gelu_mid_tail_f64(x: f64, v: f64, lo: f64) -> f64 {
    let (a, b) = erfc_tail_exponents_scalar(v);
    let (s, e) = two_sum(a, b);
    let (eh, el, k) = exp_dd(s, e);
    // (eh + el)/v in double-double
    let q0 = eh / v;
    let ql = (q0.mul_add(-v, eh) + el) / v;
    // erfc(v - lo) = erfc(v) + (2/√π)·e^(-v²)·lo to first order (lo is ~2^-53 of v); the
    // term is scaled by 2^-k to match (eh, el), which carry 2^k apart
    let corr = (-(v * v) - k as f64 * core::f64::consts::LN_2).exp()
        * core::f64::consts::FRAC_2_SQRT_PI
        * lo;
    let (hi, lo) = mul_dd(0.5 * x, q0, ql + corr);
    ldexp_dd(hi, lo, k)
}

/// gelu for -39 <= x < -20 (results from 1e-88 down to subnormal and zero), without
/// erfc: the asymptotic series `gelu(x) = -φ(x)·(1 - 1/x² + 3/x⁴ - 15/x⁶ + …)`,
/// `φ(x) = e^(-x²/2)/√(2π)`. With 1/x² <= 1/400 the 14 terms used leave < 2^-70 relative.
/// `x² = p + pe` exactly (one FMA), `e^(-x²/2)` from `exp_dd`, 1/√(2π) as a double-double,
/// and the product rounded once into the (possibly subnormal) result.
fn gelu_tail_f64(x: f64) -> f64 {
    const RSQRT_2PI: (f64, f64) = (0.3989422804014327, -2.49232720227773e-17);
    let p = x * x;
    let pe = x.mul_add(x, -p);
    let t = 1.0 / p;
    // Σ_{n=1..14} (-1)^n (2n-1)!! t^n, by Horner ((2n-1)!! <= 27!! < 2^53: exact).
    const DFACT: [f64; 14] = [
        1.0,
        3.0,
        15.0,
        105.0,
        945.0,
        10395.0,
        135135.0,
        2027025.0,
        34459425.0,
        654729075.0,
        13749310575.0,
        316234143225.0,
        7905853580625.0,
        213458046676875.0,
    ];
    let mut series = 0.0;
    for (n, &c) in DFACT.iter().enumerate().rev() {
        let c = if n % 2 == 0 { -c } else { c };
        series = t * (c + series);
    }
    let (eh, el, k) = exp_dd(-0.5 * p, -0.5 * pe);
    // (eh + el) · (C_hi + C_lo) · (1 + series), C = 1/√(2π).
    let h = eh * RSQRT_2PI.0;
    let m = eh.mul_add(RSQRT_2PI.0, -h) + (eh * RSQRT_2PI.1 + el * RSQRT_2PI.0);
    let m = m + h * series;
    let hi = h + m;
    -ldexp_dd(hi, (h - hi) + m, k)
}

/// `x · sigmoid(x)` in double-double, rounded once; at -inf the limit -0.0 (not
/// -inf · 0 = NaN). `e = e^-|x|` from `exp_dd`, `x·e/(1+e)` or `x/(1+e)` with the sum, the
/// quotient and the product in double-double (< 0.52 ULP against mpmath; `x * sigmoid(x)`
/// from std's exp measured 2.6 ULP at x = -3.3). For x < -700, e^x is near or below the
/// subnormal range and `1 + e^x` is 1 far beyond f64 precision: silu(x) = x·e^x, rounded
/// once into the (possibly subnormal) result (rounding `sigmoid(x)` into the subnormal range
/// first and multiplying by x would cost up to |x|/2 ULPs).
fn silu_f64(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 {
        return x * 0.5;
    }
    if x > 40.0 {
        // 1 - e^-40 rounds to 1 in any binade: silu(x) = x (also +inf).
        return x;
    }
    if x.abs() < 1e-300 {
        // silu(x) = x/2 + x²/4 - ...: x/2 with its sign (the double-double path below gave
        // +0 for -5e-324). Where x/2 is an exact subnormal tie, the x²/4 that should break
        // it is far below the subnormal range; ties-to-even, like the kernel: 0.5 ulp.
        return 0.5 * x;
    }
    if x < -760.0 {
        // |silu(-752)| is already below half the smallest subnormal; this also takes -inf.
        return -0.0;
    }
    if x < -700.0 {
        let (h, l, k) = exp_dd(x, 0.0);
        let (hi, lo) = mul_dd(x, h, l);
        return ldexp_dd(hi, lo, k);
    }
    let (q0, q1) = sigmoid_dd(x);
    mul_dd(x, q0, q1).0
}

fn softplus_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

// ---------------------------------------------------------------------------
// asinh acosh atanh erfc cbrt mish gelu_tanh (the wider op table's float unaries)
// ---------------------------------------------------------------------------
// Each is carried in double-double up to one call of glibc's `ln_1p` or `ln` (std's f64
// `ln_1p`/`ln` are glibc's on this target; glibc documents them within 1 ulp on x86_64,
// libm-test-ulps) plus a first-order correction `log1p(h + l) = log1p(h) + l/(1 + h)`, so
// the f64 reference is within about 1 ulp, and an f32 reference (this rounded once) within
// 0.5 + 2^-28 f32 ulp. std's own `asinh`/`acosh`/`atanh`/`cbrt` are not used: Rust
// promises nothing about them (cbrt is used only as a starting point for a Newton step).

const TWO_POW_28: f64 = 268435456.0;
const TWO_POW_M28: f64 = 3.725290298461914e-9;

/// `log1p(h + l)` for `h >= 0` and `|l|` below a few ulps of `h`: glibc's `ln_1p(h)` plus
/// `l/(1 + h)` (the next term, `l²/2`, is below 2^-100 relative).
fn ln_1p_dd(h: f64, l: f64) -> f64 {
    h.ln_1p() + l / (1.0 + h)
}

/// asinh: `|x| < 2^-28`: x (the x³/6 term is below 2^-57 relative). `|x| < 2`:
/// `log1p(a + a²/(1 + √(1 + a²)))` with the argument in double-double (exact a² by FMA, a
/// corrected square root and quotient). `|x| >= 2`: `ln(2a + 1/(√(a² + 1) + a))` with the
/// sum in double-double (the second term left out above 2^28, where it is below 2^-58 of
/// the first), `ln(a) + ln 2` from 2^1022 (2a would overflow).
fn asinh_f64(x: f64) -> f64 {
    let a = x.abs();
    if !(a >= TWO_POW_M28) || a == f64::INFINITY {
        return x; // NaN, ±0, tiny, ±inf
    }
    let r = if a < 2.0 {
        let p = a * a;
        let pe = a.mul_add(a, -p);
        let (w, we) = two_sum(1.0, p);
        let we = we + pe;
        let s = w.sqrt();
        let sl = ((-s).mul_add(s, w) + we) / (2.0 * s);
        let (dh, dl) = two_sum(1.0, s);
        let dl = dl + sl;
        let q0 = p / dh;
        let ql = ((-q0).mul_add(dh, p) + pe - q0 * dl) / dh;
        let (uh, ue) = two_sum(a, q0);
        ln_1p_dd(uh, ue + ql)
    } else if a < 4.49423283715579e307 {
        // 2^1022
        let w = if a < TWO_POW_28 {
            1.0 / (a.mul_add(a, 1.0).sqrt() + a)
        } else {
            0.0
        };
        let (vh, vl) = two_sum(2.0 * a, w);
        vh.ln() + vl / vh
    } else {
        a.ln() + core::f64::consts::LN_2
    };
    r.copysign(x)
}

/// acosh, x >= 1: with t = x - 1 (exact below 2^53), for x < 2
/// `log1p(t + √(t(t + 2)))` with the argument in double-double; for 2 <= x < 2^28
/// `ln(2x - 1/(x + √(x² - 1)))` with the difference in double-double; above, `ln(2x)` (the
/// dropped term is below 2^-58 relative), `ln(x) + ln 2` from 2^1022.
fn acosh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x < 2.0 {
        let t = x - 1.0;
        if t == 0.0 {
            return 0.0;
        }
        let (b, be) = two_sum(t, 2.0);
        let p = t * b;
        let pe = t.mul_add(b, -p) + t * be;
        let r = p.sqrt();
        let rl = ((-r).mul_add(r, p) + pe) / (2.0 * r);
        let (uh, ue) = two_sum(r, t);
        ln_1p_dd(uh, ue + rl)
    } else if x < TWO_POW_28 {
        let w = 1.0 / (x + x.mul_add(x, -1.0).sqrt());
        let (vh, vl) = two_sum(2.0 * x, -w);
        vh.ln() + vl / vh
    } else if x < 4.49423283715579e307 {
        (2.0 * x).ln()
    } else {
        x.ln() + core::f64::consts::LN_2
    }
}

/// atanh: `|x| < 2^-28`: x (x³/3 is below 2^-57 relative); else `½·log1p(2a/(1 - a))`
/// with 1 - a and the quotient in double-double; ±1 give ±inf, |x| > 1 NaN.
fn atanh_f64(x: f64) -> f64 {
    let a = x.abs();
    if !(a >= TWO_POW_M28) {
        return x; // NaN, ±0, tiny
    }
    if a > 1.0 {
        return f64::NAN;
    }
    if a == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    let (dh, dl) = two_sum(1.0, -a);
    let n = 2.0 * a;
    let q0 = n / dh;
    let ql = ((-q0).mul_add(dh, n) - q0 * dl) / dh;
    (0.5 * ln_1p_dd(q0, ql)).copysign(x)
}

/// erfc: below 1.25, fdlibm's `s_erf.c` (< 1 ulp; results above 0.08, and for x <= -1.25
/// `2 - r` with r < 0.08); from 1.25 fdlibm's `e^(a + b)/x` with the exponential in
/// double-double (`exp_dd` on the exact sum a + b: fdlibm's own `exp(a)·exp(b)` rounds
/// twice), the quotient corrected once and the result rounded once into the possibly
/// subnormal range (`ldexp_dd`). fdlibm states its R/S fit of b to < 2^-57.
/// erf without std's libm (issue 18: a reference must not depend on a precision Rust does
/// not promise): fdlibm's `s_erf.c` below 1.25 (polynomials, < 1 ulp), above it
/// `1 - erfc(|x|)` with `erfc_f64`'s double-double exponential. erfc(|x|) < 0.078 there,
/// so its own error (about half an ulp of it) is below 0.04 ulp of the result, which the
/// subtraction rounds once. (fdlibm's tail multiplies two `exp` calls, each as precise as
/// the platform's libm.)
fn erf_f64(x: f64) -> f64 {
    let a = x.abs();
    if !(a >= 1.25) {
        return erf_scalar_f64(x); // NaN too
    }
    (1.0 - erfc_f64(a)).copysign(x)
}

fn erfc_f64(x: f64) -> f64 {
    if !(x >= 1.25) {
        return erfc_scalar_f64(x); // NaN too
    }
    if x >= 28.0 {
        return 0.0; // erfc(27.3) is already below half the smallest subnormal
    }
    let (a, b) = erfc_tail_exponents_scalar(x);
    let (s, e) = two_sum(a, b);
    let (eh, el, k) = exp_dd(s, e);
    let q0 = eh / x;
    let ql = (q0.mul_add(-x, eh) + el) / x;
    let hi = q0 + ql;
    ldexp_dd(hi, (q0 - hi) + ql, k)
}

/// cbrt: std's `cbrt` (glibc, a few ulps at most) as a starting point y, then one Newton
/// step `y - (y³ - a)/(3y²)` whose residual y³ - a is exact up to ~2^-104 a (y² and y·y²
/// as exact FMA products; y³ - a itself is exact by Sterbenz): the step's own error is
/// the square of y's, so the result is rounded once from ~2^-100 relative. Inputs below
/// 2^-900 (above 2^900) are scaled by 2^990 (2^-990), and the result by 2^-330 (2^330),
/// exact, to keep y³ normal and finite.
fn cbrt_f64(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x; // ±0, ±inf, NaN
    }
    let a = x.abs();
    // Exact powers of two from their exponent bits (Rust does not promise `powi` exact).
    let pow2 = |e: i64| f64::from_bits(((1023 + e) as u64) << 52);
    let (a, back) = if a < 1.1830521861667747e-271 {
        // 2^-900
        (a * pow2(990), pow2(-330))
    } else if a > 8.452712498170644e270 {
        // 2^900: y³ could overflow
        (a * pow2(-990), pow2(330))
    } else {
        (a, 1.0)
    };
    let y = a.cbrt();
    let p = y * y;
    let pe = y.mul_add(y, -p);
    let q = y * p;
    let qe = y.mul_add(p, -q);
    let r = (q - a) + (qe + y * pe);
    ((y - r / (3.0 * p)) * back).copysign(x)
}

/// `x·tanh(softplus(x)) = x·n/(n + 2)` with `n = e^x(e^x + 2)`; for x >= 0 in terms of
/// `e = e^-x`: `x·(1 + 2e)/(1 + 2e + 2e²)`. e from `exp_dd`, every sum, product and the
/// quotient in double-double, rounded once. Above 40 the result is x; below -700,
/// `x·e^x` (the other factor differs from 1 by < 2^-1000) rounded once into the
/// subnormal range; below -760 (and -inf), -0.
fn mish_f64(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 || x > 40.0 {
        return x;
    }
    if x < -760.0 {
        return -0.0;
    }
    if x < -700.0 {
        let (h, l, k) = exp_dd(x, 0.0);
        let (hi, lo) = mul_dd(x, h, l);
        return ldexp_dd(hi, lo, k);
    }
    let (eh, el, k) = exp_dd(-x.abs(), 0.0);
    let s = pow2i(k);
    let (eh, el) = (eh * s, el * s);
    let (e2h, e2l) = mul_dd(eh, eh, 2.0 * el); // e² (the el² term is below 2^-100)
    let ((nh, nl), (dh, dl)) = if x < 0.0 {
        // n = 2e + e², d = 2 + n
        let (nh, ne) = two_sum(2.0 * eh, e2h);
        let nl = ne + 2.0 * el + e2l;
        let (dh, de) = two_sum(2.0, nh);
        ((nh, nl), (dh, de + nl))
    } else {
        // n = 1 + 2e, d = n + 2e²
        let (nh, ne) = two_sum(1.0, 2.0 * eh);
        let nl = ne + 2.0 * el;
        let (dh, de) = two_sum(nh, 2.0 * e2h);
        ((nh, nl), (dh, de + nl + 2.0 * e2l))
    };
    let (xh, xl) = mul_dd(x, nh, nl);
    let q0 = xh / dh;
    q0 + ((-q0).mul_add(dh, xh) + (xl - q0 * dl)) / dh
}

/// 0.044715 (the definition's decimal constant) as a double-double: its f64 rounding alone
/// moves the f64 result by up to ~30 ulp near x = -20, where the function's condition
/// number is ~3|v|.
pub(crate) const GELU_TANH_K: (f64, f64) = (0.044715, 2.1960211427085595e-18);
/// 2·√(2/π) as a double-double.
pub(crate) const GELU_TANH_C2: (f64, f64) = (1.5957691216057308, -9.96930880911092e-17);

/// `v = 2√(2/π)(x + 0.044715x³)` as a normalised double-double (~2^-100 relative; both
/// constants double-double), for |x| <= 40.
fn gelu_tanh_arg_dd(x: f64) -> (f64, f64) {
    let p = x * x;
    let pe = x.mul_add(x, -p);
    let kh = GELU_TANH_K.0 * p;
    let kl = GELU_TANH_K.0.mul_add(p, -kh) + (GELU_TANH_K.0 * pe + GELU_TANH_K.1 * p);
    let (sh, se) = two_sum(1.0, kh);
    let (th, tl) = mul_dd(x, sh, se + kl);
    let vh = GELU_TANH_C2.0 * th;
    let vl = GELU_TANH_C2.0.mul_add(th, -vh) + (GELU_TANH_C2.0 * tl + GELU_TANH_C2.1 * th);
    let h = vh + vl;
    (h, (vh - h) + vl)
}

/// gelu_tanh = `x · sigmoid(v)`, `v = 2√(2/π)(x + 0.044715x³)` (since `1 + tanh(v/2) =
/// 2·sigmoid(v)`): v in double-double (`gelu_tanh_arg_dd`), `e = e^-|v|` from `exp_dd` on
/// it, `x/(1 + e)` or `x·e/(1 + e)` in double-double, rounded once. Above x = 10 (v > 87)
/// the result is x; below -23 (v < -860) -0; for v < -700, `x·e^v` rounded once into the
/// subnormal range.
fn gelu_tanh_f64(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 || x > 10.0 {
        return x;
    }
    if x < -23.0 {
        return -0.0;
    }
    let (vh, vl) = gelu_tanh_arg_dd(x);
    if vh < -700.0 {
        let (h, l, k) = exp_dd(vh, vl);
        let (hi, lo) = mul_dd(x, h, l);
        return ldexp_dd(hi, lo, k);
    }
    let (eh, el, k) = if vh < 0.0 {
        exp_dd(vh, vl)
    } else {
        exp_dd(-vh, -vl)
    };
    let s = pow2i(k);
    let (eh, el) = (eh * s, el * s);
    let (dh, de) = two_sum(1.0, eh);
    let dl = de + el;
    let (nh, nl) = if vh < 0.0 {
        mul_dd(x, eh, el)
    } else {
        (x, 0.0)
    };
    let q0 = nh / dh;
    q0 + ((-q0).mul_add(dh, nh) + (nl - q0 * dl)) / dh
}

impl Float for f64 {
    fn sqrt(a: f64) -> f64 {
        a.sqrt()
    }
    fn rsqrt(a: f64) -> f64 {
        1.0 / a.sqrt()
    }
    fn exp(a: f64) -> f64 {
        a.exp()
    }
    fn log(a: f64) -> f64 {
        a.ln()
    }
    fn log1p(a: f64) -> f64 {
        a.ln_1p()
    }
    fn sin(a: f64) -> f64 {
        a.sin()
    }
    fn cos(a: f64) -> f64 {
        a.cos()
    }
    fn tanh(a: f64) -> f64 {
        a.tanh()
    }
    fn erf(a: f64) -> f64 {
        erf_f64(a)
    }
    fn sigmoid(a: f64) -> f64 {
        sigmoid_f64(a)
    }
    fn gelu(a: f64) -> f64 {
        gelu_f64(a)
    }
    fn silu(a: f64) -> f64 {
        silu_f64(a)
    }
    fn is_nan(a: f64) -> bool {
        a.is_nan()
    }
    fn is_inf(a: f64) -> bool {
        a.is_infinite()
    }
    fn exp2(a: f64) -> f64 {
        a.exp2()
    }
    fn log2(a: f64) -> f64 {
        a.log2()
    }
    fn expm1(a: f64) -> f64 {
        a.exp_m1()
    }
    fn tan(a: f64) -> f64 {
        a.tan()
    }
    fn atan(a: f64) -> f64 {
        a.atan()
    }
    fn asin(a: f64) -> f64 {
        a.asin()
    }
    fn acos(a: f64) -> f64 {
        a.acos()
    }
    fn sinh(a: f64) -> f64 {
        a.sinh()
    }
    fn cosh(a: f64) -> f64 {
        a.cosh()
    }
    fn softplus(a: f64) -> f64 {
        softplus_f64(a)
    }
    fn asinh(a: f64) -> f64 {
        asinh_f64(a)
    }
    fn acosh(a: f64) -> f64 {
        acosh_f64(a)
    }
    fn atanh(a: f64) -> f64 {
        atanh_f64(a)
    }
    fn erfc(a: f64) -> f64 {
        erfc_f64(a)
    }
    fn cbrt(a: f64) -> f64 {
        cbrt_f64(a)
    }
    fn mish(a: f64) -> f64 {
        mish_f64(a)
    }
    fn gelu_tanh(a: f64) -> f64 {
        gelu_tanh_f64(a)
    }
}

/// f32 transcendentals are the f64 ones rounded once: within 0.5 ULP plus the f64 error
/// (the function table's `unary(via_f64, …)` rows).
macro_rules! f32_via_f64 {
    (() $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(f32_via_f64!(@row $name $kind $args);)*
    };
    (@row $f:ident unary (via_f64, $($rest:tt)*)) => {
        fn $f(a: f32) -> f32 {
            <f64 as Float>::$f(a as f64) as f32
        }
    };
    (@row $f:ident $kind:ident $args:tt) => {};
}

impl Float for f32 {
    fn sqrt(a: f32) -> f32 {
        a.sqrt()
    }
    fn is_nan(a: f32) -> bool {
        a.is_nan()
    }
    fn is_inf(a: f32) -> bool {
        a.is_infinite()
    }
    crate::functions::for_each_float_function!(f32_via_f64);
}

/// The rows of the wider operator table that act on floats (ONNX semantics; parameters
/// after the tensor, in the order the op table lists them). Exact compositions are computed
/// in the compute dtype in the order written here, which the lane functions follow bit
/// for bit; the `expm1`/`sigmoid` ones are evaluated in f64 and rounded once for `f32`.
pub trait Activation: Float + Compare {
    /// `1 / a`.
    #[inline(always)]
    fn reciprocal(a: Self) -> Self {
        Self::div(Self::one(), a)
    }
    /// `a / (1 + |a|)`.
    #[inline(always)]
    fn softsign(a: Self) -> Self {
        Self::div(a, Self::add(Self::one(), Self::abs(a)))
    }
    /// Neither infinite nor NaN.
    #[inline(always)]
    fn is_finite(a: Self) -> bool {
        !Self::is_nan(a) && !Self::is_inf(a)
    }
    /// `a` where `a ≥ 0` (and NaN), else `alpha · a`.
    #[inline(always)]
    fn leaky_relu(a: Self, alpha: Self) -> Self {
        if <Self as Compare>::lt(a, Self::zero()) {
            Self::mul(alpha, a)
        } else {
            a
        }
    }
    /// `a` where `a > alpha`, else 0 (NaN gives 0, as ONNX's `x > alpha ? x : 0`).
    #[inline(always)]
    fn thresholded_relu(a: Self, alpha: Self) -> Self {
        if <Self as Compare>::gt(a, alpha) {
            a
        } else {
            Self::zero()
        }
    }
    /// `max(0, min(1, alpha · a + beta))`; NaN stays NaN.
    #[inline(always)]
    fn hard_sigmoid(a: Self, alpha: Self, beta: Self) -> Self {
        let t = Self::add(Self::mul(alpha, a), beta);
        Self::max(Self::zero(), Self::min(Self::one(), t))
    }
    /// `a · hard_sigmoid(a, 1/6, 0.5)` (ONNX `HardSwish`, with 1/6 rounded to the dtype).
    #[inline(always)]
    fn hard_swish(a: Self) -> Self {
        Self::mul(a, Self::hard_sigmoid(a, Self::one_sixth(), Self::half()))
    }
    /// `a + bias` where `a < -lambd`, `a - bias` where `a > lambd`, else 0 (NaN gives 0).
    #[inline(always)]
    fn shrink(a: Self, lambd: Self, bias: Self) -> Self {
        if <Self as Compare>::lt(a, Self::neg(lambd)) {
            Self::add(a, bias)
        } else if <Self as Compare>::gt(a, lambd) {
            Self::sub(a, bias)
        } else {
            Self::zero()
        }
    }
    /// `a` where `a > 0`, else `alpha · (e^a - 1)`.
    fn elu(a: Self, alpha: Self) -> Self;
    /// `max(0, a) + min(0, alpha · (e^(a/alpha) - 1))`.
    fn celu(a: Self, alpha: Self) -> Self;
    /// `gamma · a` where `a > 0`, else `gamma · alpha · (e^a - 1)` (f64: rounded once, with
    /// `gamma · alpha` and `e^a - 1` in double-double).
    fn selu(a: Self, alpha: Self, gamma: Self) -> Self;
    /// `a · sigmoid(alpha · a)`, rounded once; where `alpha · a` is infinite, its limit (`a`
    /// at +inf, ±0 with `a`'s sign at -inf: swish(-inf) = -0 for alpha > 0, not -inf · 0).
    fn swish(a: Self, alpha: Self) -> Self;
    /// The constant 0.
    fn zero() -> Self;
    /// The constant 1.
    fn one() -> Self;
    /// The constant 0.5.
    fn half() -> Self;
    /// The constant 1/6 (rounded to the type).
    fn one_sixth() -> Self;
}

impl Activation for f64 {
    fn elu(a: f64, alpha: f64) -> f64 {
        if a > 0.0 {
            a
        } else {
            alpha * a.exp_m1()
        }
    }
    fn celu(a: f64, alpha: f64) -> f64 {
        <f64 as Num>::max(0.0, a) + <f64 as Num>::min(0.0, alpha * (a / alpha).exp_m1())
    }
    fn selu(a: f64, alpha: f64, gamma: f64) -> f64 {
        if a > 0.0 {
            gamma * a
        } else if a.is_nan() || a == 0.0 {
            gamma * (alpha * a)
        } else {
            selu_neg_f64(a, alpha, gamma)
        }
    }
    fn swish(a: f64, alpha: f64) -> f64 {
        swish_f64(a, alpha)
    }
    fn zero() -> f64 {
        0.0
    }
    fn one() -> f64 {
        1.0
    }
    fn half() -> f64 {
        0.5
    }
    fn one_sixth() -> f64 {
        1.0 / 6.0
    }
}

/// The `f32` transcendental activations: the f64 formula (parameters exact in f64),
/// rounded once.
impl Activation for f32 {
    fn elu(a: f32, alpha: f32) -> f32 {
        <f64 as Activation>::elu(a as f64, alpha as f64) as f32
    }
    fn celu(a: f32, alpha: f32) -> f32 {
        <f64 as Activation>::celu(a as f64, alpha as f64) as f32
    }
    fn selu(a: f32, alpha: f32, gamma: f32) -> f32 {
        <f64 as Activation>::selu(a as f64, alpha as f64, gamma as f64) as f32
    }
    fn swish(a: f32, alpha: f32) -> f32 {
        <f64 as Activation>::swish(a as f64, alpha as f64) as f32
    }
    fn zero() -> f32 {
        0.0
    }
    fn one() -> f32 {
        1.0
    }
    fn half() -> f32 {
        0.5
    }
    fn one_sixth() -> f32 {
        1.0 / 6.0
    }
}
