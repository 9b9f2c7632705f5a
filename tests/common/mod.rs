//! Shared test helpers: edge values per dtype, bit-exact and ULP comparison against
//! the scalar reference semantics.
#![allow(dead_code)]

use tensorgraph::{bf16, f16, Element};

/// Edge values in each dtype; `EDGE_COUNT` of them, so graphs can use a static shape.
pub const EDGE_COUNT: usize = 21;

pub trait TestElem: Element {
    fn edge_values() -> Vec<Self>;
    /// Equal bits, or both NaN.
    fn same(a: Self, b: Self) -> bool;
    /// Distance in units in the last place of this dtype (0 for equal; infinite when only
    /// one is NaN). Integers: absolute difference.
    fn ulps(a: Self, b: Self) -> f64;
    /// Deterministic pseudo-random values spread over the dtype's range.
    fn random(n: usize, seed: u64) -> Vec<Self>;
    /// The value 1 (`true` for bool).
    fn one() -> Self;
}

/// The float dtypes: f16, bf16, f32, f64.
pub trait TestFloat: TestElem {
    /// `v` rounded once into this dtype.
    fn from_f64_rounded(v: f64) -> Self;
}

/// One step of the tests' generator on a state the caller keeps (tensor-core's
/// `testing::step`, xorshift64*; the state must not be 0).
pub use tensor_core::testing::step as xorshift;

const INT_EDGES: [i128; 19] = [
    0, 1, -1, 2, -2, 3, -3, 7, -7, 8, 31, 32, 64, 100, -100, 42, 13, 63, 15,
];

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl TestElem for $t {
            fn edge_values() -> Vec<$t> {
                let mut v: Vec<$t> = INT_EDGES.iter().map(|&x| x as $t).collect();
                v.push(<$t>::MIN);
                v.push(<$t>::MAX);
                assert_eq!(v.len(), EDGE_COUNT);
                v
            }
            fn one() -> $t { 1 }
            fn same(a: $t, b: $t) -> bool { a == b }
            fn ulps(a: $t, b: $t) -> f64 { (a as f64 - b as f64).abs() }
            fn random(n: usize, seed: u64) -> Vec<$t> {
                let mut s = seed | 1;
                (0..n).map(|_| xorshift(&mut s) as $t).collect()
            }
        }
    )*};
}
int_elem!(u8, u16, u32, u64, i8, i16, i32, i64);

impl TestElem for bool {
    fn edge_values() -> Vec<bool> {
        (0..EDGE_COUNT).map(|i| i % 2 == 1).collect()
    }
    fn one() -> bool {
        true
    }
    fn same(a: bool, b: bool) -> bool {
        a == b
    }
    fn ulps(a: bool, b: bool) -> f64 {
        if a == b {
            0.0
        } else {
            1.0
        }
    }
    fn random(n: usize, seed: u64) -> Vec<bool> {
        let mut s = seed | 1;
        (0..n).map(|_| xorshift(&mut s) & 1 == 1).collect()
    }
}

/// The float edge list, as f64, given the dtype's smallest subnormal, smallest normal and max.
fn float_edges(min_sub: f64, min_normal: f64, max: f64) -> Vec<f64> {
    vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        min_sub,
        -min_sub,
        min_normal,
        max,
        -max,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -2.5,
        2.5,
        3.7,
        -7.25,
        100.0,
        1e-3,
    ]
}

/// Maps a float's bits to an integer line where adjacent floats differ by 1.
fn ordered(bits: u64, sign_bit: u64) -> i128 {
    if bits & sign_bit != 0 {
        -((bits & !sign_bit) as i128)
    } else {
        bits as i128
    }
}

macro_rules! float_elem {
    ($t:ty, $bits:ty, $from:expr, $min_sub:expr, $min_normal:expr, $max:expr) => {
        impl TestElem for $t {
            fn edge_values() -> Vec<$t> {
                let from: fn(f64) -> $t = $from;
                float_edges($min_sub, $min_normal, $max)
                    .into_iter()
                    .map(from)
                    .collect()
            }
            fn one() -> $t {
                let from: fn(f64) -> $t = $from;
                from(1.0)
            }
            fn same(a: $t, b: $t) -> bool {
                a.to_bits() == b.to_bits() || (a != a && b != b)
            }
            fn ulps(a: $t, b: $t) -> f64 {
                if a != a || b != b {
                    return if a != a && b != b { 0.0 } else { f64::INFINITY };
                }
                let sign = 1u64 << (<$bits>::BITS - 1);
                (ordered(a.to_bits() as u64, sign) - ordered(b.to_bits() as u64, sign))
                    .unsigned_abs() as f64
            }
            fn random(n: usize, seed: u64) -> Vec<$t> {
                let mut s = seed | 1;
                let from: fn(f64) -> $t = $from;
                (0..n)
                    .map(|_| {
                        let r = xorshift(&mut s);
                        let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
                        let magnitude = 10f64.powf(unit * 8.0 - 4.0);
                        from(if r & 1 == 1 { -magnitude } else { magnitude })
                    })
                    .collect()
            }
        }
        impl TestFloat for $t {
            fn from_f64_rounded(v: f64) -> $t {
                let from: fn(f64) -> $t = $from;
                from(v)
            }
        }
    };
}
float_elem!(
    f32,
    u32,
    |x| x as f32,
    1e-45,
    f32::MIN_POSITIVE as f64,
    f32::MAX as f64
);
float_elem!(f64, u64, |x| x, 5e-324, f64::MIN_POSITIVE, f64::MAX);
float_elem!(
    f16,
    u16,
    f16::from_f64,
    5.960464477539063e-8,
    6.103515625e-5,
    65504.0
);
float_elem!(
    bf16,
    u16,
    bf16::from_f64,
    9.183549615799121e-41,
    1.1754943508222875e-38,
    3.3895313892515355e38
);

/// Asserts `got[i] == expected[i]` (bit-exact, NaN == NaN) or within `max_ulps`, with a
/// message naming the op, the dtype and the inputs.
pub fn assert_close<R: TestElem>(
    op: &str,
    got: &[R],
    expected: &[R],
    inputs: impl Fn(usize) -> String,
    max_ulps: f64,
) {
    assert_eq!(got.len(), expected.len(), "{op}: length");
    let mut worst = (0.0f64, usize::MAX);
    for i in 0..got.len() {
        let ok = if max_ulps == 0.0 {
            R::same(got[i], expected[i])
        } else {
            R::ulps(got[i], expected[i]) <= max_ulps
        };
        if !ok {
            panic!(
                "{op} on {} at {i} ({}): kernel gave {:?}, reference {:?} ({} ulps, bound {max_ulps})",
                R::DTYPE,
                inputs(i),
                got[i],
                expected[i],
                R::ulps(got[i], expected[i])
            );
        }
        let u = R::ulps(got[i], expected[i]);
        if u > worst.0 {
            worst = (u, i);
        }
    }
}

/// erf by its series (|x| small) and continued fraction, in f64: accurate to ~1e-15, far
/// below the f32 bounds it is used for.
pub fn erf_f64(x: f64) -> f64 {
    // Series near 0 (no cancellation below |x| = 2.5); the continued fraction of erfc
    // beyond: erfc(x) = e^(-x²)/√π / (x + (1/2)/(x + 1/(x + (3/2)/(x + …)))).
    let a = x.abs();
    if a < 2.5 {
        let (mut sum, mut term, mut n) = (0.0f64, x, 0.0f64);
        loop {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
            if term.abs() < 1e-18 || n > 200.0 {
                break;
            }
        }
        return sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    let mut tail = a;
    for k in (1..=80).rev() {
        tail = a + (k as f64 / 2.0) / tail;
    }
    let erfc = (-a * a).exp() / std::f64::consts::PI.sqrt() / tail;
    x.signum() * (1.0 - erfc)
}
