//! Whole-kernel dispatch (the `dispatch` feature, issue 36): the same graphs run under each
//! copy of their kernels in one process (`vmath::set_simd_level`: 1 the baseline copy, 2 the
//! AVX2 + FMA copy, 3 the AVX-512 copy, 16 lanes per chunk), on values that reach every
//! special case of the exact operations (NaN, ±inf, ±0, subnormals, lengths that leave SIMD
//! tails). Exact operations must agree bit for bit across the copies and with a scalar
//! reference; the vector-math kernels (softmax's exp, gelu) within their ACCURACY.md bounds
//! of each other (2 ULP each, so 4 apart); float sums, whose order of accumulation is
//! unspecified (docs/language.md) and differs between 8 and 16 lanes, bit for bit between
//! the 8-lane copies and within the reduction bound (`sum_bound`) of an f64 reference in
//! every copy. One test function: the level is per process.
//!
//! Only on builds where the feature compiles two copies (x86-64 without AVX2 in the target).
#![cfg(all(
    feature = "dispatch",
    target_arch = "x86_64",
    not(target_feature = "avx2")
))]

use tensorgraph::prelude::*;

graph! {
    fn w1(a: f32[1027], b: f32[1027]) -> f32[1027] { relu(a + b) * 2.0 }
    fn mix(a: f32[1027], b: f32[1027]) -> f32[1027] { max(a, b) - min(a, b) * (a / b) }
    fn mix64(a: f64[515], b: f64[515]) -> f64[515] { max(a, b) + min(a, b) / (a - b) }
    fn norm(x: f32[37, 133], gamma: f32[133], beta: f32[133]) -> f32[37, 133] {
        let mu = mean(x, axis = -1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = -1, keepdims = true);
        d * rsqrt(var + 1e-5) * gamma + beta
    }
    fn rows(x: f32[37, 133]) -> f32[37] { sum(x, axis = 1, acc = f32) }
    fn rows64(x: f32[37, 133]) -> f32[37] { sum(x, axis = 1) }
    fn soft(x: f32[37, 133]) -> f32[37, 133] { softmax(x, axis = 1) }
    fn act(x: f32[37, 133], bias: f32[133]) -> f32[37, 133] { gelu(x + bias) }
    // Graphs with dim names: their kernel is a function of the bound names, dispatched the
    // same way.
    fn w1_named(a: f32[N], b: f32[N]) -> f32[N] { relu(a + b) * 2.0 }
    fn norm_named(x: f32[R, C], gamma: f32[C], beta: f32[C]) -> f32[R, C] {
        let mu = mean(x, axis = -1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = -1, keepdims = true);
        d * rsqrt(var + 1e-5) * gamma + beta
    }
    fn rows_named(x: f32[R, C]) -> f32[R] { sum(x, axis = 1) }
    // Rows of 256 elements or more: the 8-lane copies run softmax's exp and the row
    // divisions through the block entry points, the AVX-512 copy inline on zmm.
    fn soft_wide(x: f32[7, 1100]) -> f32[7, 1100] { softmax(x, axis = 1) }
    fn share_wide(x: f32[7, 1100]) -> f32[7, 1100] { x / sum(x, axis = 1, keepdims = true) }
}

/// Deterministic values with every special case among them.
fn values32(n: usize, seed: u64) -> Vec<f32> {
    let special = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MIN_POSITIVE / 8.0,
        -f32::MIN_POSITIVE / 3.0,
        f32::MAX,
        1.0,
        -1.0,
    ];
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|i| {
            if i % 7 == 3 {
                special[(i / 7) % special.len()]
            } else {
                ((next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 8.0
            }
        })
        .collect()
}

fn values64(n: usize, seed: u64) -> Vec<f64> {
    values32(n, seed).into_iter().map(f64::from).collect()
}

/// How the copies' outputs of a graph must agree.
#[derive(Clone, Copy, PartialEq)]
enum Agreement {
    /// Exact operations: bit for bit in every copy.
    Exact,
    /// Vector math (2 ULP each): within 4 ULP of each other.
    VectorMath,
    /// Float sums: bit for bit between the 8-lane copies (levels 1 and 2, the same order);
    /// the 16-lane copy within `ORDER_TOLERANCE` of them, and every copy's plain row sums
    /// against an f64 reference within `sum_bound`.
    SumOrder,
}

/// The outputs of every graph, computed under the current level.
fn run_all(inputs: &Inputs) -> Vec<(&'static str, Vec<f64>, Agreement)> {
    use Agreement::*;
    let Inputs {
        a,
        b,
        a64,
        b64,
        x,
        gamma,
        beta,
        bias,
    } = inputs;
    let f = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    vec![
        ("w1", f(w1(a, b).as_slice()), Exact),
        ("mix", f(mix(a, b).as_slice()), Exact),
        ("mix64", mix64(a64, b64).as_slice().to_vec(), Exact),
        ("norm", f(norm(x, gamma, beta).as_slice()), SumOrder),
        ("rows", f(rows(x).as_slice()), SumOrder),
        ("rows64", f(rows64(x).as_slice()), SumOrder),
        ("soft", f(soft(x).as_slice()), VectorMath),
        ("act", f(act(x, bias).as_slice()), VectorMath),
        ("w1_named", f(w1_named(a, b).unwrap().as_slice()), Exact),
        (
            "norm_named",
            f(norm_named(x, gamma, beta).unwrap().as_slice()),
            SumOrder,
        ),
        ("rows_named", f(rows_named(x).unwrap().as_slice()), SumOrder),
    ]
}

/// How far a normalisation's output may move when its mean and variance are summed in
/// another order: `|a - b| ≤ ORDER_TOLERANCE · (1 + |b|)`. The sums round to f32 (`mean`
/// accumulates in f64), so their values move by an ulp or so of the row's mean (inputs in
/// [-8, 8]: ≤ 1e-6), scaled by `rsqrt(var) · gamma` (≤ 8 here).
const ORDER_TOLERANCE: f64 = 1e-5;

/// How far a float sum of `n` terms with `abs_sum = Σ|x|`, accumulated in a type of unit
/// roundoff `u` in any order and rounded to f32, may be from the f64 reference sum `value`:
/// γ_n·Σ|x| (γ_n = n·u / (1 - n·u), Higham's bound for recursive and pairwise summation
/// alike) for the sum, as much again for the f64 reference's own recursive sum (at most
/// γ_n with f64's `u`, which `u` is not below), and half an f32 ulp for the rounding.
fn sum_bound(n: usize, u: f64, abs_sum: f64, value: f64) -> f64 {
    let nu = n as f64 * u;
    2.0 * nu / (1.0 - nu) * abs_sum + value.abs() * f32::EPSILON as f64 / 2.0
}

struct Inputs {
    a: Tensor<f32, Shape![1027]>,
    b: Tensor<f32, Shape![1027]>,
    a64: Tensor<f64, Shape![515]>,
    b64: Tensor<f64, Shape![515]>,
    x: Tensor<f32, Shape![37, 133]>,
    gamma: Tensor<f32, Shape![133]>,
    beta: Tensor<f32, Shape![133]>,
    bias: Tensor<f32, Shape![133]>,
}

fn tensor<E: tensorgraph::Element, S: tensorgraph::Shape>(v: Vec<E>) -> Tensor<E, S> {
    Tensor::from_vec(v).expect("the length matches the shape")
}

/// |a - b| in units of the last place of f32 at the larger magnitude.
fn ulps32(a: f64, b: f64) -> f64 {
    let m = a.abs().max(b.abs()) as f32;
    let ulp = (f32::from_bits(m.to_bits() + 1) - m).max(f32::from_bits(1)) as f64;
    (a - b).abs() / ulp
}

/// `soft_wide` and `share_wide` under the current level against their f64 values. Softmax:
/// each output within 7e-5 of its value, relatively: x - max rounds (|x - max| <= 16, so
/// 2^-20 of the exponent), exp_nonpos 1 ULP, the row's f32 sum of 1100 terms γ_1100 =
/// 6.6e-5 in the worst order, the division and the output's rounding half an ULP each.
/// The row division: the f32 sum accumulates in f64 and rounds once, then the division
/// rounds once, so within 3 half-ULPs (2^-24 each) of the f64 quotient.
fn wide_rows_match_f64(level: u8) {
    const R: usize = 7;
    const C: usize = 1100;
    let x: Vec<f32> = values32(R * C, 11)
        .into_iter()
        .map(|v| {
            if v.is_finite() {
                v.clamp(-8.0, 8.0)
            } else {
                0.5
            }
        })
        .collect();
    let positive: Vec<f32> = x.iter().map(|v| v.abs() + 0.125).collect();
    let soft = soft_wide(&tensor(x.clone()));
    let share = share_wide(&tensor(positive.clone()));
    for r in 0..R {
        let row = &x[r * C..(r + 1) * C];
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
        let sum: f64 = e.iter().sum();
        let prow = &positive[r * C..(r + 1) * C];
        let psum: f64 = prow.iter().map(|&v| v as f64).sum();
        for j in 0..C {
            let (got, want) = (soft.as_slice()[r * C + j] as f64, e[j] / sum);
            assert!(
                (got - want).abs() <= 7e-5 * want,
                "soft_wide at level {level}, [{r}, {j}]: {got:e}, f64 {want:e}"
            );
            let (got, want) = (share.as_slice()[r * C + j] as f64, prow[j] as f64 / psum);
            assert!(
                (got - want).abs() <= 3.0 * (-24f64).exp2() * want,
                "share_wide at level {level}, [{r}, {j}]: {got:e}, f64 {want:e}"
            );
        }
    }
}

#[test]
fn every_copy_computes_the_same_values() {
    // Finite inputs for the normalisation, softmax and gelu rows (their special values are
    // tested elsewhere against the reference; here the copies are compared).
    let finite = |v: Vec<f32>| {
        v.into_iter()
            .map(|x| {
                if x.is_finite() {
                    x.clamp(-8.0, 8.0)
                } else {
                    0.5
                }
            })
            .collect::<Vec<_>>()
    };
    let inputs = Inputs {
        a: tensor(values32(1027, 1)),
        b: tensor(values32(1027, 2)),
        a64: tensor(values64(515, 3)),
        b64: tensor(values64(515, 4)),
        x: tensor(finite(values32(37 * 133, 5))),
        gamma: tensor(finite(values32(133, 6))),
        beta: tensor(finite(values32(133, 7))),
        bias: tensor(finite(values32(133, 8))),
    };
    // The scalar reference of the exact elementwise graph.
    let reference: Vec<f32> = inputs
        .a
        .as_slice()
        .iter()
        .zip(inputs.b.as_slice())
        .map(|(&a, &b)| {
            let s = a + b;
            let r = if s.is_nan() {
                s
            } else if s > 0.0 {
                s
            } else {
                0.0
            };
            r * 2.0
        })
        .collect();
    let mut levels = Vec::new();
    for wanted in [1u8, 2, 3] {
        let level = tensorgraph::vmath::set_simd_level(wanted);
        if level != wanted {
            continue; // the CPU lacks the features
        }
        let outs = run_all(&inputs);
        wide_rows_match_f64(level);
        for (name, out, _) in outs.iter().filter(|o| o.0 == "w1" || o.0 == "w1_named") {
            for (i, (&got, &want)) in out.iter().zip(&reference).enumerate() {
                assert!(
                    (got as f32).to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{name} at level {level}, element {i}: {got:e}, reference {want:e}"
                );
            }
        }
        levels.push((level, outs));
    }
    tensorgraph::vmath::set_simd_level(3);
    every_copy_matches_the_scalar_reference_on_exact_ops();
    let (first, base) = &levels[0];
    assert!(
        levels.len() >= 2,
        "this CPU runs one copy only: nothing compared"
    );
    for (level, outs) in &levels[1..] {
        for ((name, got, agreement), (_, want, _)) in outs.iter().zip(base) {
            for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
                let same = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
                match agreement {
                    Agreement::Exact => assert!(
                        same,
                        "{name}: level {level} {g:e}, level {first} {w:e} at {i}"
                    ),
                    Agreement::SumOrder if *level < 3 => assert!(
                        same,
                        "{name}: level {level} {g:e}, level {first} {w:e} at {i} (8 lanes each)"
                    ),
                    Agreement::SumOrder => assert!(
                        same || (g - w).abs() <= ORDER_TOLERANCE * (1.0 + w.abs()),
                        "{name}: level {level} {g:e}, level {first} {w:e} at {i}"
                    ),
                    Agreement::VectorMath => assert!(
                        same || ulps32(g, w) <= 4.0,
                        "{name}: level {level} {g:e}, level {first} {w:e} at {i} ({} ulp)",
                        ulps32(g, w)
                    ),
                }
            }
        }
    }
    // The row sums of every copy against the f64 sum of their row.
    let x = inputs.x.as_slice();
    for (level, outs) in &levels {
        for (name, got, _) in outs.iter().filter(|o| o.0.starts_with("rows")) {
            // `rows` accumulates in f32, `rows64` and `rows_named` in f64 (the default).
            let u = if *name == "rows" {
                f32::EPSILON as f64 / 2.0
            } else {
                f64::EPSILON / 2.0
            };
            for (r, &g) in got.iter().enumerate() {
                let row = &x[r * 133..(r + 1) * 133];
                let exact: f64 = row.iter().map(|&v| v as f64).sum();
                let abs_sum: f64 = row.iter().map(|&v| (v as f64).abs()).sum();
                let bound = sum_bound(133, u, abs_sum, exact);
                assert!(
                    (g - exact).abs() <= bound,
                    "{name} at level {level}, row {r}: {g:e}, f64 sum {exact:e}, bound {bound:e}"
                );
            }
        }
    }
}

// The float methods the AVX2 + FMA copy writes with `core::arch` (tensor-core lanes_avx2.rs),
// one graph each, against Rust's scalar operations under every copy.
graph! {
    fn floor32(a: f32[1027]) -> f32[1027] { floor(a) }
    fn ceil32(a: f32[1027]) -> f32[1027] { ceil(a) }
    fn trunc32(a: f32[1027]) -> f32[1027] { trunc(a) }
    fn round32(a: f32[1027]) -> f32[1027] { round(a) }
    fn roundeven32(a: f32[1027]) -> f32[1027] { roundeven(a) }
    fn sign32(a: f32[1027]) -> f32[1027] { sign(a) }
    fn abs32(a: f32[1027]) -> f32[1027] { abs(a) }
    fn neg32(a: f32[1027]) -> f32[1027] { -a }
    fn sqrt32(a: f32[1027]) -> f32[1027] { sqrt(a) }
    fn square32(a: f32[1027]) -> f32[1027] { square(a) }
    fn lt32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(a < b, a, b) }
    fn le32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(a <= b, a, b) }
    fn gt32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(a > b, a, b) }
    fn ge32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(a >= b, a, b) }
    fn eq32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(a == b, a, b) }
    fn ne32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(a != b, a, b) }
    fn nan32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(is_nan(a), b, a) }
    fn inf32(a: f32[1027], b: f32[1027]) -> f32[1027] { where(is_inf(a), b, a) }
    fn max32(a: f32[1027], b: f32[1027]) -> f32[1027] { max(a, b) }
    fn min32(a: f32[1027], b: f32[1027]) -> f32[1027] { min(a, b) }
    fn maxrow32(x: f32[37, 133]) -> f32[37] { max(x, axis = 1) }
    fn minrow32(x: f32[37, 133]) -> f32[37] { min(x, axis = 1) }
    fn floor64(a: f64[515]) -> f64[515] { floor(a) }
    fn round64(a: f64[515]) -> f64[515] { round(a) }
    fn sign64(a: f64[515]) -> f64[515] { sign(a) }
    fn neg64(a: f64[515]) -> f64[515] { -abs(a) }
    fn sqrt64(a: f64[515]) -> f64[515] { sqrt(a) }
    fn lt64(a: f64[515], b: f64[515]) -> f64[515] { where(a < b, a, b) }
    fn ne64(a: f64[515], b: f64[515]) -> f64[515] { where(a != b, a, b) }
    fn inf64(a: f64[515], b: f64[515]) -> f64[515] { where(is_inf(a), b, a) }
}

/// The language's `sign`: -1, +1, or `x` itself for ±0 and NaN.
fn sign_ref(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// The language's `max`/`min` of two values: NaN if either is; equal values (±0) combine
/// by bits (`max(+0, -0) = +0`, `min(+0, -0) = -0`).
fn max_ref(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        x + y
    } else if x > y {
        x
    } else if y > x {
        y
    } else {
        f32::from_bits(x.to_bits() & y.to_bits())
    }
}

fn min_ref(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        x + y
    } else if x < y {
        x
    } else if y < x {
        y
    } else {
        f32::from_bits(x.to_bits() | y.to_bits())
    }
}

/// Each value of `got` is `want`'s bit for bit (any NaN for a NaN).
fn assert_bits(name: &str, level: u8, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{name}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{name} at level {level}, element {i}: {g:e}, reference {w:e}"
        );
    }
}

/// Under every copy, the graphs above against Rust's scalar operations, bit for bit (called
/// by the one test function).
fn every_copy_matches_the_scalar_reference_on_exact_ops() {
    let a32 = values32(1027, 11);
    // The same special values at the same places as `a32`, one later in the list (NaN
    // against inf, +0 against -0, …), random values elsewhere.
    let b32: Vec<f32> = {
        let b = values32(1027 + 7, 12);
        b[7..].to_vec()
    };
    let a64 = values64(515, 13);
    let b64: Vec<f64> = values64(515 + 7, 14)[7..].to_vec();
    let x = values32(37 * 133, 15);
    let (ta, tb): (Tensor<f32, Shape![1027]>, Tensor<f32, Shape![1027]>) =
        (tensor(a32.clone()), tensor(b32.clone()));
    let (ta64, tb64): (Tensor<f64, Shape![515]>, Tensor<f64, Shape![515]>) =
        (tensor(a64.clone()), tensor(b64.clone()));
    let tx: Tensor<f32, Shape![37, 133]> = tensor(x.clone());
    let f = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let unary32 = |op: fn(f32) -> f32| f(&a32.iter().map(|&x| op(x)).collect::<Vec<_>>());
    let binary32 = |op: fn(f32, f32) -> f32| {
        f(&a32
            .iter()
            .zip(&b32)
            .map(|(&x, &y)| op(x, y))
            .collect::<Vec<_>>())
    };
    let unary64 = |op: fn(f64) -> f64| a64.iter().map(|&x| op(x)).collect::<Vec<_>>();
    let binary64 = |op: fn(f64, f64) -> f64| {
        a64.iter()
            .zip(&b64)
            .map(|(&x, &y)| op(x, y))
            .collect::<Vec<_>>()
    };
    let rows = |op: fn(f32, f32) -> f32| {
        f(&x.chunks(133)
            .map(|row| row[1..].iter().fold(row[0], |acc, &v| op(acc, v)))
            .collect::<Vec<_>>())
    };
    let cases: Vec<(&str, Vec<f64>, Box<dyn Fn() -> Vec<f64>>)> = vec![
        (
            "floor32",
            unary32(f32::floor),
            Box::new(|| f(floor32(&ta).as_slice())),
        ),
        (
            "ceil32",
            unary32(f32::ceil),
            Box::new(|| f(ceil32(&ta).as_slice())),
        ),
        (
            "trunc32",
            unary32(f32::trunc),
            Box::new(|| f(trunc32(&ta).as_slice())),
        ),
        (
            "round32",
            unary32(f32::round),
            Box::new(|| f(round32(&ta).as_slice())),
        ),
        (
            "roundeven32",
            unary32(f32::round_ties_even),
            Box::new(|| f(roundeven32(&ta).as_slice())),
        ),
        (
            "sign32",
            unary32(|x| sign_ref(x as f64) as f32),
            Box::new(|| f(sign32(&ta).as_slice())),
        ),
        (
            "abs32",
            unary32(f32::abs),
            Box::new(|| f(abs32(&ta).as_slice())),
        ),
        (
            "neg32",
            unary32(|x| -x),
            Box::new(|| f(neg32(&ta).as_slice())),
        ),
        (
            "sqrt32",
            unary32(f32::sqrt),
            Box::new(|| f(sqrt32(&ta).as_slice())),
        ),
        (
            "square32",
            unary32(|x| x * x),
            Box::new(|| f(square32(&ta).as_slice())),
        ),
        (
            "lt32",
            binary32(|x, y| if x < y { x } else { y }),
            Box::new(|| f(lt32(&ta, &tb).as_slice())),
        ),
        (
            "le32",
            binary32(|x, y| if x <= y { x } else { y }),
            Box::new(|| f(le32(&ta, &tb).as_slice())),
        ),
        (
            "gt32",
            binary32(|x, y| if x > y { x } else { y }),
            Box::new(|| f(gt32(&ta, &tb).as_slice())),
        ),
        (
            "ge32",
            binary32(|x, y| if x >= y { x } else { y }),
            Box::new(|| f(ge32(&ta, &tb).as_slice())),
        ),
        (
            "eq32",
            binary32(|x, y| if x == y { x } else { y }),
            Box::new(|| f(eq32(&ta, &tb).as_slice())),
        ),
        (
            "ne32",
            binary32(|x, y| if x != y { x } else { y }),
            Box::new(|| f(ne32(&ta, &tb).as_slice())),
        ),
        (
            "nan32",
            binary32(|x, y| if x.is_nan() { y } else { x }),
            Box::new(|| f(nan32(&ta, &tb).as_slice())),
        ),
        (
            "inf32",
            binary32(|x, y| if x.is_infinite() { y } else { x }),
            Box::new(|| f(inf32(&ta, &tb).as_slice())),
        ),
        (
            "max32",
            binary32(max_ref),
            Box::new(|| f(max32(&ta, &tb).as_slice())),
        ),
        (
            "min32",
            binary32(min_ref),
            Box::new(|| f(min32(&ta, &tb).as_slice())),
        ),
        (
            "maxrow32",
            rows(max_ref),
            Box::new(|| f(maxrow32(&tx).as_slice())),
        ),
        (
            "minrow32",
            rows(min_ref),
            Box::new(|| f(minrow32(&tx).as_slice())),
        ),
        (
            "floor64",
            unary64(f64::floor),
            Box::new(|| floor64(&ta64).as_slice().to_vec()),
        ),
        (
            "round64",
            unary64(f64::round),
            Box::new(|| round64(&ta64).as_slice().to_vec()),
        ),
        (
            "sign64",
            unary64(sign_ref),
            Box::new(|| sign64(&ta64).as_slice().to_vec()),
        ),
        (
            "neg64",
            unary64(|x| -x.abs()),
            Box::new(|| neg64(&ta64).as_slice().to_vec()),
        ),
        (
            "sqrt64",
            unary64(f64::sqrt),
            Box::new(|| sqrt64(&ta64).as_slice().to_vec()),
        ),
        (
            "lt64",
            binary64(|x, y| if x < y { x } else { y }),
            Box::new(|| lt64(&ta64, &tb64).as_slice().to_vec()),
        ),
        (
            "ne64",
            binary64(|x, y| if x != y { x } else { y }),
            Box::new(|| ne64(&ta64, &tb64).as_slice().to_vec()),
        ),
        (
            "inf64",
            binary64(|x, y| if x.is_infinite() { y } else { x }),
            Box::new(|| inf64(&ta64, &tb64).as_slice().to_vec()),
        ),
    ];
    let mut ran = 0;
    for wanted in [1u8, 2, 3] {
        let level = tensorgraph::vmath::set_simd_level(wanted);
        if level != wanted {
            continue; // the CPU lacks the features
        }
        ran += 1;
        for (name, want, run) in &cases {
            assert_bits(name, level, &run(), want);
        }
    }
    tensorgraph::vmath::set_simd_level(3);
    assert!(ran >= 2, "this CPU runs one copy only: nothing compared");
}
