//! Whole-kernel dispatch (the `dispatch` feature, issue 36): the same graphs run under each
//! copy of their kernels in one process (`vmath::set_simd_level`: 1 the baseline copy, 2 the
//! AVX2 + FMA copy, 3 that copy with the AVX-512 vector-math blocks), on values that reach
//! every special case of the exact operations (NaN, ±inf, ±0, subnormals, lengths that leave
//! SIMD tails). Exact operations must agree bit for bit across the copies and with a scalar
//! reference; the vector-math kernels (softmax's exp, gelu) within their ACCURACY.md bounds
//! of each other (2 ULP each, so 4 apart). One test function: the level is per process.
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

/// The outputs of every graph, computed under the current level.
fn run_all(inputs: &Inputs) -> Vec<(&'static str, Vec<f64>, bool)> {
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
        ("w1", f(w1(a, b).as_slice()), true),
        ("mix", f(mix(a, b).as_slice()), true),
        ("mix64", mix64(a64, b64).as_slice().to_vec(), true),
        ("norm", f(norm(x, gamma, beta).as_slice()), true),
        ("rows", f(rows(x).as_slice()), true),
        ("rows64", f(rows64(x).as_slice()), true),
        ("soft", f(soft(x).as_slice()), false),
        ("act", f(act(x, bias).as_slice()), false),
        ("w1_named", f(w1_named(a, b).unwrap().as_slice()), true),
        (
            "norm_named",
            f(norm_named(x, gamma, beta).unwrap().as_slice()),
            true,
        ),
        ("rows_named", f(rows_named(x).unwrap().as_slice()), true),
    ]
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
    let (first, base) = &levels[0];
    assert!(
        levels.len() >= 2,
        "this CPU runs one copy only: nothing compared"
    );
    for (level, outs) in &levels[1..] {
        for ((name, got, exact), (_, want, _)) in outs.iter().zip(base) {
            for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
                let same = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
                if *exact {
                    assert!(
                        same,
                        "{name}: level {level} {g:e}, level {first} {w:e} at {i}"
                    );
                } else {
                    assert!(
                        same || ulps32(g, w) <= 4.0,
                        "{name}: level {level} {g:e}, level {first} {w:e} at {i} ({} ulp)",
                        ulps32(g, w)
                    );
                }
            }
        }
    }
}
