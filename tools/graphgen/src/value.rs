//! One element of an interpreted value, and the per-element semantics: exact values
//! through `tensor_core::reference` (the scalar reference every kernel is held to),
//! conversions written here from Rust's `as` rules (rounding into f16/bf16 once), and for
//! every float element an interval that the kernel's value must lie in.
//!
//! Where the kernel may differ from the reference (a transcendental's stated ULP bound, a
//! reduction's summation order) the element becomes a range `[lo, hi]`; ops on ranges
//! evaluate at the corners (ops monotone in each argument), widen non-monotone ones by
//! their Lipschitz bound, and give up (`Any`: not compared) where a range crosses a
//! discontinuity (a comparison that may go either way, a pole, a cast to an integer).

use crate::types::DType;
use tensor_core::reference::{
    float_unary, Activation, BitCount, Bitwise, Compare, Float, Num, Shift,
};
use DType::*;

/// One element. Float values are in their dtype's compute precision (`f16`/`bf16` as
/// `f32`; rounded to the storage format only where NOTES.md says the kernels round).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum E {
    B(bool),
    I(i128),
    F(f64),
    /// A float the kernel may return anywhere in `lo..=hi` (ordering −0 = +0), or NaN
    /// when `nan`. `lo > hi`: no number, only NaN.
    R {
        lo: f64,
        hi: f64,
        nan: bool,
    },
    /// Not determined (not compared).
    Any,
}

pub const ANY_F: E = E::R {
    lo: f64::NEG_INFINITY,
    hi: f64::INFINITY,
    nan: true,
};

impl E {
    pub fn is_exact(self) -> bool {
        matches!(self, E::B(_) | E::I(_) | E::F(_))
    }

    /// `(lo, hi, nan)` of a float element (exact values as a one-point range).
    pub fn bounds(self) -> Option<(f64, f64, bool)> {
        match self {
            E::F(x) if x.is_nan() => Some((f64::INFINITY, f64::NEG_INFINITY, true)),
            E::F(x) => Some((x, x, false)),
            E::R { lo, hi, nan } => Some((lo, hi, nan)),
            _ => None,
        }
    }

    pub fn range(lo: f64, hi: f64, nan: bool) -> E {
        if lo.is_nan() || hi.is_nan() {
            return ANY_F;
        }
        E::R { lo, hi, nan }
    }
}

/// 2^k for a normal exponent, from its bits (Rust does not promise `powi` exact; issue 18).
fn pow2(k: i32) -> f64 {
    assert!((-1022..=1023).contains(&k), "2^{k} is not a normal f64");
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x` rounded once to the nearest value (ties to even) of a binary format with
/// `precision` significand bits, smallest normal exponent `emin` and largest finite value
/// `max` (above it: infinity). Written here because `half` 2.7's `from_f64` drops the low
/// 32 bits of the f64 first and can round the wrong way (`bf16::from_f64(127.25003…)` is
/// 127, not 127.5).
fn round_format(x: f64, precision: i32, emin: i32, max: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = x.abs();
    let biased = ((a.to_bits() >> 52) & 0x7FF) as i32;
    let exponent = (biased - 1023).max(emin);
    // The spacing of the format at `a`: a power of two, so the quotient is exact.
    let spacing = pow2(exponent - (precision - 1));
    let v = (a / spacing).round_ties_even() * spacing;
    let v = if v > max { f64::INFINITY } else { v };
    v.copysign(x)
}

/// Rounds a compute value of a float dtype to its storage format.
pub fn round_store(d: DType, x: f64) -> f64 {
    match d {
        F16 => round_format(x, 11, -14, 65504.0),
        BF16 => round_format(x, 8, -126, 3.3895313892515355e38),
        F32 => x as f32 as f64,
        _ => x,
    }
}

/// A float range rounded to storage (rounding is monotone).
pub fn round_store_e(d: DType, e: E) -> E {
    match e {
        E::F(x) => E::F(round_store(d, x)),
        E::R { lo, hi, nan } if lo <= hi => E::R {
            lo: round_store(d, lo),
            hi: round_store(d, hi),
            nan,
        },
        e => e,
    }
}

/// `i` rounded to the nearest float of `precision` significand bits, ties to even, once.
fn round_int(i: i128, precision: u32) -> f64 {
    let m = i.unsigned_abs();
    let bits = 128 - m.leading_zeros();
    let v = if bits <= precision {
        m as f64
    } else {
        let shift = bits - precision;
        let mut q = m >> shift;
        let rem = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q += 1;
        }
        // q ≤ 2^precision and the scale is a power of two: exact in f64.
        q as f64 * pow2(shift as i32)
    };
    if i < 0 {
        -v
    } else {
        v
    }
}

/// `x as to` for an exact element of dtype `from` (Rust `as`; `as bool` is `!= 0` with NaN
/// true; into `f16`/`bf16` one rounding), as a compute value of `to`.
pub fn cast_exact(from: DType, x: E, to: DType) -> E {
    match x {
        E::B(b) => match to {
            Bool => E::B(b),
            d if d.is_float() => E::F(b as u8 as f64),
            _ => E::I(b as i128),
        },
        E::I(i) => match to {
            Bool => E::B(i != 0),
            U8 => E::I(i as u8 as i128),
            U16 => E::I(i as u16 as i128),
            U32 => E::I(i as u32 as i128),
            U64 => E::I(i as u64 as i128),
            I8 => E::I(i as i8 as i128),
            I16 => E::I(i as i16 as i128),
            I32 => E::I(i as i32 as i128),
            I64 => E::I(i as i64 as i128),
            F16 => {
                let v = round_int(i, 11);
                E::F(if v.abs() > 65504.0 {
                    v.signum() * f64::INFINITY
                } else {
                    v
                })
            }
            BF16 => E::F(round_int(i, 8)),
            F32 => E::F(round_int(i, 24)),
            F64 => E::F(round_int(i, 53)),
        },
        E::F(v) => {
            let v = round_store(from, v);
            match to {
                Bool => E::B(v != 0.0),
                U8 => E::I(v as u8 as i128),
                U16 => E::I(v as u16 as i128),
                U32 => E::I(v as u32 as i128),
                U64 => E::I(v as u64 as i128),
                I8 => E::I(v as i8 as i128),
                I16 => E::I(v as i16 as i128),
                I32 => E::I(v as i32 as i128),
                I64 => E::I(v as i64 as i128),
                d => E::F(round_store(d, v)),
            }
        }
        e => e,
    }
}

/// `x as to` for any element.
pub fn cast(from: DType, x: E, to: DType) -> E {
    // No conversion between equal dtypes: a computed f16 stays unrounded (NOTES.md).
    if from == to {
        return x;
    }
    match x {
        E::Any => E::Any,
        E::R { lo, hi, nan } => {
            if lo > hi {
                // Only NaN.
                return cast_exact(from, E::F(f64::NAN), to);
            }
            // The value leaves `from` rounded to its storage format.
            let (lo, hi) = (round_store(from, lo), round_store(from, hi));
            if to == Bool {
                let zero_in = lo <= 0.0 && hi >= 0.0;
                return if zero_in { E::Any } else { E::B(true) };
            }
            let a = cast_exact(from, E::F(lo), to);
            let b = cast_exact(from, E::F(hi), to);
            if to.is_float() {
                let (E::F(a), E::F(b)) = (a, b) else {
                    unreachable!()
                };
                E::range(a, b, nan)
            } else if a == b && !nan {
                a
            } else {
                E::Any
            }
        }
        e => cast_exact(from, e, to),
    }
}

/// The spacing of the compute dtype `c` (F32 or F64) at `x`.
pub fn ulp(c: DType, x: f64) -> f64 {
    let a = x.abs();
    if c == F64 {
        if a == f64::INFINITY {
            return f64::INFINITY;
        }
        let b = f64::from_bits(a.to_bits() + 1);
        if b.is_infinite() {
            a - f64::from_bits(a.to_bits() - 1)
        } else {
            b - a
        }
    } else {
        let a = a as f32;
        if a == f32::INFINITY {
            return f64::INFINITY;
        }
        let b = f32::from_bits(a.to_bits() + 1);
        if b.is_infinite() {
            (a - f32::from_bits(a.to_bits() - 1)) as f64
        } else {
            (b - a) as f64
        }
    }
}

/// The largest finite value of compute dtype `c`.
pub fn max_of(c: DType) -> f64 {
    if c == F64 {
        f64::MAX
    } else {
        f32::MAX as f64
    }
}

/// A reference value `r` of a function whose kernels stay within `k` ULPs (the ACCURACY.md
/// bound plus the reference's own error): the range of values the kernel may return.
pub fn widen(c: DType, r: f64, k: f64) -> E {
    if r.is_nan() {
        return E::F(f64::NAN);
    }
    if k == 0.0 {
        return E::F(r);
    }
    let max = max_of(c);
    if r.is_infinite() {
        return if r > 0.0 {
            E::R {
                lo: max,
                hi: r,
                nan: false,
            }
        } else {
            E::R {
                lo: r,
                hi: -max,
                nan: false,
            }
        };
    }
    let u = k * ulp(c, r);
    let (mut lo, mut hi) = (r - u, r + u);
    if hi > max {
        hi = f64::INFINITY;
    }
    if lo < -max {
        lo = f64::NEG_INFINITY;
    }
    E::R { lo, hi, nan: false }
}

/// The ULPs a kernel may differ from the reference by, per function and compute dtype
/// (ACCURACY.md's bound, plus 1 for f32 (the reference rounds an f64 value once) or 2 for
/// f64 (glibc-based references are themselves up to ~2 ULP off)); 0 for exact ops.
pub fn ulps(f: &str, c: DType) -> f64 {
    // The bound from the one table (tensor-core's `functions`: ACCURACY.md's numbers), plus
    // the reference's own error: 1 ULP in f32 (it rounds an f64 value), 2 in f64 (glibc's
    // functions), and for selu in f64 one more (measured 3 against its glibc-composed
    // reference, ACCURACY.md). Exact functions and names without a row: 0.
    let bound = tensor_core::functions::ulp_bound(f, c == F64).unwrap_or(0.0);
    if bound == 0.0 {
        return 0.0;
    }
    if c == F64 {
        bound + 2.0 + if f == "selu" { 1.0 } else { 0.0 }
    } else {
        bound + 1.0
    }
}

/// Integer dtypes: run `$body` with `$t` the Rust type of `$d`.
macro_rules! with_int {
    ($d:expr, $t:ident, $body:expr) => {
        match $d {
            U8 => {
                type $t = u8;
                $body
            }
            U16 => {
                type $t = u16;
                $body
            }
            U32 => {
                type $t = u32;
                $body
            }
            U64 => {
                type $t = u64;
                $body
            }
            I8 => {
                type $t = i8;
                $body
            }
            I16 => {
                type $t = i16;
                $body
            }
            I32 => {
                type $t = i32;
                $body
            }
            I64 => {
                type $t = i64;
                $body
            }
            _ => unreachable!("an integer dtype"),
        }
    };
}

macro_rules! with_float {
    ($c:expr, $t:ident, $body:expr) => {
        if $c == F64 {
            type $t = f64;
            $body
        } else {
            type $t = f32;
            $body
        }
    };
}

/// An exact op on exact operands of promoted dtype `d` (`params`: named float
/// parameters, exact). Transcendentals come back as ranges.
pub fn apply_exact(f: &str, d: DType, args: &[E], params: &[f64]) -> E {
    if d == Bool {
        let b = |i: usize| match args[i] {
            E::B(b) => b,
            _ => unreachable!(),
        };
        return match f {
            "equal" => E::B(<bool as Compare>::eq(b(0), b(1))),
            "not_equal" => E::B(<bool as Compare>::ne(b(0), b(1))),
            "less" => E::B(<bool as Compare>::lt(b(0), b(1))),
            "less_equal" => E::B(<bool as Compare>::le(b(0), b(1))),
            "greater" => E::B(<bool as Compare>::gt(b(0), b(1))),
            "greater_equal" => E::B(<bool as Compare>::ge(b(0), b(1))),
            "bitwise_and" | "logical_and" => E::B(<bool as Bitwise>::and(b(0), b(1))),
            "bitwise_or" | "logical_or" => E::B(<bool as Bitwise>::or(b(0), b(1))),
            "bitwise_xor" | "logical_xor" => E::B(<bool as Bitwise>::xor(b(0), b(1))),
            "bitwise_not" | "logical_not" => E::B(<bool as Bitwise>::not(b(0))),
            _ => panic!("`{f}` on bool"),
        };
    }
    if d.is_int() {
        let i = |k: usize| match args[k] {
            E::I(v) => v,
            E::B(b) => b as i128,
            e => panic!("integer operand expected, got {e:?}"),
        };
        return with_int!(d, T, {
            let x = i(0) as T;
            let y = if args.len() > 1 { i(1) as T } else { 0 as T };
            let int = |v: T| E::I(v as i128);
            match f {
                "add" => int(<T as Num>::add(x, y)),
                "sub" => int(<T as Num>::sub(x, y)),
                "mul" => int(<T as Num>::mul(x, y)),
                "div" => int(<T as Num>::div(x, y)),
                "rem" => int(<T as Num>::rem(x, y)),
                "mod" => int(<T as Num>::modulo(x, y)),
                "pow" => int(<T as Num>::pow(x, y)),
                "max" => int(<T as Num>::max(x, y)),
                "min" => int(<T as Num>::min(x, y)),
                "neg" => int(<T as Num>::neg(x)),
                "abs" => int(<T as Num>::abs(x)),
                "relu" => int(<T as Num>::relu(x)),
                "floor" => int(<T as Num>::floor(x)),
                "round" => int(<T as Num>::round(x)),
                "roundeven" => int(<T as Num>::roundeven(x)),
                "trunc" => int(<T as Num>::trunc(x)),
                "ceil" => int(<T as Num>::ceil(x)),
                "square" => int(<T as Num>::square(x)),
                "sign" => int(<T as Num>::sign(x)),
                "equal" => E::B(<T as Compare>::eq(x, y)),
                "not_equal" => E::B(<T as Compare>::ne(x, y)),
                "less" => E::B(<T as Compare>::lt(x, y)),
                "less_equal" => E::B(<T as Compare>::le(x, y)),
                "greater" => E::B(<T as Compare>::gt(x, y)),
                "greater_equal" => E::B(<T as Compare>::ge(x, y)),
                "bitwise_and" => int(<T as Bitwise>::and(x, y)),
                "bitwise_or" => int(<T as Bitwise>::or(x, y)),
                "bitwise_xor" => int(<T as Bitwise>::xor(x, y)),
                "bitwise_not" => int(<T as Bitwise>::not(x)),
                "shift_left" => int(<T as Shift>::shl(x, y)),
                "shift_right" => int(<T as Shift>::shr(x, y)),
                "bitwise_count" => E::I(<T as BitCount>::bitwise_count(x) as i128),
                _ => panic!("`{f}` on {d}"),
            }
        });
    }
    let c = d.compute();
    let v = |k: usize| match args[k] {
        E::F(v) => v,
        e => panic!("float operand expected, got {e:?}"),
    };
    // Special values (±0, ±inf) of transcendentals are exact (ACCURACY.md).
    let special = args.len() == 1 && (v(0) == 0.0 || v(0).is_infinite());
    let k = if special { 0.0 } else { ulps(f, c) };
    with_float!(c, T, {
        let x = v(0) as T;
        let y = if args.len() > 1 { v(1) as T } else { 0.0 };
        let p = |i: usize| params[i] as T;
        let fl = |r: T| E::F(r as f64);
        let tr = |r: T| widen(c, r as f64, k);
        match f {
            "add" => fl(<T as Num>::add(x, y)),
            "sub" => fl(<T as Num>::sub(x, y)),
            "mul" => fl(<T as Num>::mul(x, y)),
            "div" => fl(<T as Num>::div(x, y)),
            "rem" => fl(<T as Num>::rem(x, y)),
            "mod" => fl(<T as Num>::modulo(x, y)),
            "pow" => {
                let r = <T as Num>::pow(x, y);
                // C99 Annex F special cases are exact.
                if x == 1.0 || y == 0.0 || r.is_nan() || r.is_infinite() || r == 0.0 {
                    fl(r)
                } else {
                    tr(r)
                }
            }
            "max" => fl(<T as Num>::max(x, y)),
            "min" => fl(<T as Num>::min(x, y)),
            "neg" => fl(<T as Num>::neg(x)),
            "abs" => fl(<T as Num>::abs(x)),
            "relu" => fl(<T as Num>::relu(x)),
            "floor" => fl(<T as Num>::floor(x)),
            "round" => fl(<T as Num>::round(x)),
            "roundeven" => fl(<T as Num>::roundeven(x)),
            "trunc" => fl(<T as Num>::trunc(x)),
            "ceil" => fl(<T as Num>::ceil(x)),
            "square" => fl(<T as Num>::square(x)),
            "sign" => fl(<T as Num>::sign(x)),
            "equal" => E::B(<T as Compare>::eq(x, y)),
            "not_equal" => E::B(<T as Compare>::ne(x, y)),
            "less" => E::B(<T as Compare>::lt(x, y)),
            "less_equal" => E::B(<T as Compare>::le(x, y)),
            "greater" => E::B(<T as Compare>::gt(x, y)),
            "greater_equal" => E::B(<T as Compare>::ge(x, y)),
            "is_nan" => E::B(<T as Float>::is_nan(x)),
            "is_inf" => E::B(<T as Float>::is_inf(x)),
            "is_finite" => E::B(<T as Activation>::is_finite(x)),
            "reciprocal" => fl(<T as Activation>::reciprocal(x)),
            "softsign" => fl(<T as Activation>::softsign(x)),
            "hard_swish" => fl(<T as Activation>::hard_swish(x)),
            "leaky_relu" => fl(<T as Activation>::leaky_relu(x, p(0))),
            "thresholded_relu" => fl(<T as Activation>::thresholded_relu(x, p(0))),
            "hard_sigmoid" => fl(<T as Activation>::hard_sigmoid(x, p(0), p(1))),
            "shrink" => fl(<T as Activation>::shrink(x, p(0), p(1))),
            "elu" => tr(<T as Activation>::elu(x, p(0))),
            "celu" => tr(<T as Activation>::celu(x, p(0))),
            "selu" => tr(<T as Activation>::selu(x, p(0), p(1))),
            "swish" => tr(<T as Activation>::swish(x, p(0))),
            // The function table's `reference::Float` rows (tensor-core functions.rs), within
            // their bound (`ulps`: 0 for the exact ones, sqrt, which `widen` keeps exact).
            _ => match float_unary::<T>(f) {
                Some(g) => tr(g(x)),
                None => panic!("`{f}` on {d}"),
            },
        }
    })
}

/// Whether a float function is monotone (in each argument) over its whole domain.
fn monotone(f: &str, params: &[f64]) -> bool {
    match f {
        "add" | "sub" | "max" | "min" | "floor" | "round" | "roundeven" | "trunc" | "ceil"
        | "sign" | "relu" | "neg" | "exp" | "exp2" | "expm1" | "log" | "log2" | "log1p"
        | "sqrt" | "tanh" | "erf" | "erfc" | "sigmoid" | "softplus" | "atan" | "asin" | "acos"
        | "sinh" | "asinh" | "acosh" | "atanh" | "cbrt" | "softsign" | "equal" | "not_equal"
        | "less" | "less_equal" | "greater" | "greater_equal" | "mul" => true,
        // Only with finite parameters: an infinite `alpha` times the 0 of `e^0 - 1` is NaN
        // at x = 0 exactly, inside a range whose corners are finite or infinite (seed 37,
        // graph 8502: `selu(log(p3 as f32), alpha = inf)` at log(1) = 0).
        "leaky_relu" | "elu" => params[0] >= 0.0 && params[0].is_finite(),
        "selu" => params[0] >= 0.0 && params[1] >= 0.0 && params[..2].iter().all(|p| p.is_finite()),
        "celu" => params[0] > 0.0 && params[0].is_finite(),
        "hard_sigmoid" => params[0] >= 0.0 && params[..2].iter().all(|p| p.is_finite()),
        // Steps, non-decreasing under these parameters: `thresholded_relu` jumps from 0 up
        // to `alpha` at `alpha` (down for a negative one); `shrink` (`lambd`, `bias`) is
        // `x + bias` below `-lambd`, 0 between, `x - bias` above `lambd`: the pieces meet
        // in order when `0 <= lambd` and `bias <= lambd`.
        "thresholded_relu" => params[0] >= 0.0,
        "shrink" => {
            params[0] >= 0.0 && params[1] <= params[0] && params[..2].iter().all(|p| p.is_finite())
        }
        _ => false,
    }
}

/// Lipschitz bounds of the smooth non-monotone functions (|f'| ≤ L).
fn lipschitz(f: &str, params: &[f64]) -> Option<f64> {
    Some(match f {
        "sin" | "cos" => 1.0,
        "gelu" | "gelu_tanh" => 1.2,
        "silu" | "mish" => 1.2,
        "swish" => 1.2 * params[0].abs().max(1.0),
        "hard_swish" => 1.5,
        _ => return None,
    })
}

/// Op `f` on elements of promoted dtype `d`: exact operands go to the reference; ranges
/// are evaluated at their corners.
pub fn apply(f: &str, d: DType, args: &[E], params: &[f64]) -> E {
    if args.iter().any(|a| *a == E::Any) {
        return E::Any;
    }
    if args.iter().all(|a| a.is_exact()) {
        return apply_exact(f, d, args, params);
    }
    // Some operand is a range (a float dtype).
    let bounds: Vec<(f64, f64, bool)> = args.iter().map(|a| a.bounds().unwrap()).collect();
    let any_nan = bounds.iter().any(|b| b.2);
    if bounds.iter().any(|b| b.0 > b.1) {
        // A NaN-only operand among ranges: NaN propagates for float results.
        return E::Any;
    }
    match f {
        "is_nan" => {
            return if any_nan { E::Any } else { E::B(false) };
        }
        "is_inf" | "is_finite" => {
            let (lo, hi, nan) = bounds[0];
            if nan || lo.is_infinite() || hi.is_infinite() {
                return E::Any;
            }
            return E::B(f == "is_finite");
        }
        _ => {}
    }
    // Equality is no monotone step: overlapping ranges may or may not be equal.
    if matches!(f, "equal" | "not_equal") {
        let (a, b) = (bounds[0], bounds[1]);
        if any_nan || (a.0 <= b.1 && b.0 <= a.1) {
            return E::Any;
        }
        return E::B(f == "not_equal");
    }
    // Corners.
    let n = args.len();
    let mut outs = Vec::with_capacity(1 << n);
    for mask in 0..(1usize << n) {
        let point: Vec<E> = (0..n)
            .map(|i| {
                let (lo, hi, _) = bounds[i];
                E::F(if mask >> i & 1 == 1 { hi } else { lo })
            })
            .collect();
        outs.push(apply_exact(f, d, &point, params));
    }
    // Boolean results (comparisons): definite only if every corner agrees and no NaN.
    if let E::B(first) = outs[0] {
        if !any_nan && outs.iter().all(|o| *o == E::B(first)) {
            return E::B(first);
        }
        return E::Any;
    }
    // Float results.
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let mut nan = any_nan;
    let mut nan_corners = 0;
    for o in &outs {
        match o.bounds() {
            Some((l, h, nn)) => {
                if l <= h {
                    lo = lo.min(l);
                    hi = hi.max(h);
                }
                if nn || l > h {
                    nan = true;
                }
                if l > h {
                    nan_corners += 1;
                }
            }
            None => return E::Any,
        }
    }
    // Every corner NaN but an interior that need not be (softsign(±inf) is NaN, of any
    // finite value not), or only some corners NaN (a domain edge inside the range).
    if nan_corners > 0 && (nan_corners < outs.len() || bounds.iter().any(|b| b.0 < b.1)) {
        // Part of the range is outside the domain: anything between.
        return ANY_F;
    }
    let (x_lo, x_hi, _) = bounds[0];
    let ok = if monotone(f, params) {
        true
    } else {
        match f {
            "div" => {
                let (bl, bh, _) = bounds[1];
                !(bl <= 0.0 && bh >= 0.0)
            }
            "reciprocal" | "rsqrt" => !(x_lo <= 0.0 && x_hi >= 0.0),
            "abs" | "square" => {
                if x_lo < 0.0 && x_hi > 0.0 {
                    lo = lo.min(0.0);
                }
                true
            }
            "cosh" => {
                if x_lo < 0.0 && x_hi > 0.0 {
                    lo = lo.min(1.0);
                }
                true
            }
            "tan" => x_hi - x_lo < 1.0 && x_lo.tan() <= x_hi.tan(),
            _ => match lipschitz(f, params) {
                Some(l) => {
                    let w = l * (x_hi - x_lo);
                    if w.is_finite() {
                        lo -= w;
                        hi += w;
                        true
                    } else {
                        false
                    }
                }
                None => false,
            },
        }
    };
    if !ok {
        return ANY_F;
    }
    // A zero inside one range times an infinity of the other (or ∞/∞) is NaN, which no
    // corner shows.
    let has_zero = |b: (f64, f64, bool)| b.0 <= 0.0 && b.1 >= 0.0;
    let has_inf = |b: (f64, f64, bool)| b.0.is_infinite() || b.1.is_infinite();
    if n == 2 {
        let (a, b) = (bounds[0], bounds[1]);
        if (f == "mul" && ((has_zero(a) && has_inf(b)) || (has_inf(a) && has_zero(b))))
            || (f == "div" && has_inf(a) && has_inf(b))
        {
            nan = true;
        }
    }
    // Computed from x twice (x/(1 + |x|), x·relu6(x + 3)/6) with several roundings: not
    // monotone at the ulp level, so an input between the corners may give a value an ulp
    // or two outside their hull (seed 9's graph 247: softsign of a logsoftmax range).
    if matches!(f, "softsign" | "hard_swish") && lo <= hi {
        let c = d.compute();
        lo -= 2.0 * ulp(c, lo);
        hi += 2.0 * ulp(c, hi);
    }
    E::range(lo, hi, nan)
}
