//! Random differentiable graphs (issue 32 item 6): a batch from `graphgen::grad` (each graph
//! with a `grad fn` or a `vjp fn` over its float parameters, and an f32 twin), compiled by
//! `graph!` through the build script. Each graph's f64 gradients are checked against central
//! finite differences of the f64 graph run by graphgen's interpreter (no code shared with the
//! macro), JAX `check_grads` style: directional derivatives along a random direction over all
//! the `wrt` parameters and along one per parameter, Richardson-extrapolated from two steps,
//! within a relative tolerance. The f32 twin's value and gradients are compared with the f64
//! ones. NOTES.md ("Compile-time gradients") states the bounds and the soak command.

use std::collections::HashMap;

use graphgen::grad::{generate, GradGraph};
use graphgen::interp::{run, T};
use graphgen::rng::Rng;
use graphgen::types::DType;
use graphgen::value::E;

mod batch {
    include!(concat!(env!("OUT_DIR"), "/graphgen_grad_batch.rs"));
}

/// The two steps of the central differences (the direction's entries are in [-1, 1], the
/// inputs in [-1.5, 1.5]).
const H1: f64 = 1e-3;
const H2: f64 = 5e-4;
/// |Richardson estimate − Σ⟨g, d⟩| ≤ RTOL·(Σ|g·d| + |estimate|) + ATOL·(1 + |L|).
const RTOL: f64 = 1e-5;
const ATOL: f64 = 1e-9;
/// f32 twin: |g32 − g64| ≤ RTOL32·(|g64| + the largest |g64| of every wrt parameter) +
/// ATOL32 (f32's rounding errors in a backward scale with the cotangents it carries, not
/// with the element's own gradient, which can cancel to nearly 0), and the value within
/// RTOL32·|v64| + ATOL32·(1 + |v64|).
const RTOL32: f64 = 2e-3;
const ATOL32: f64 = 1e-5;

fn unit(rng: &mut Rng) -> f64 {
    (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

/// Values in [-a, a] that f32 holds exactly (the f32 twin runs on the same inputs).
fn values(rng: &mut Rng, n: usize, a: f64) -> Vec<f64> {
    (0..n)
        .map(|_| ((2.0 * unit(rng) - 1.0) * a) as f32 as f64)
        .collect()
}

fn len(d: &[usize]) -> usize {
    d.iter().product()
}

/// The f64 graph's loss in the interpreter: its value (`value_and_grad`) or ⟨ct, output⟩
/// (`vjp`), from the midpoint of each element's range; NaN when one is not determined or
/// its range is wider than finite differences can use.
fn loss(gg: &GradGraph, inputs: &[Vec<f64>], ct: &[Vec<f64>]) -> f64 {
    let ts: Vec<T> = inputs
        .iter()
        .enumerate()
        .map(|(i, v)| T {
            dtype: DType::F64,
            dims: gg.param_dims(i),
            data: v.iter().map(|&x| E::F(x)).collect(),
        })
        .collect();
    let out = match run(&gg.graph, &ts, &HashMap::new()) {
        Ok(out) => out,
        Err(_) => return f64::NAN,
    };
    let mid = |e: &E| match *e {
        E::F(x) => x,
        // Only a tight range: a wide one (a `where` whose condition the interpreter leaves
        // open holds both branches) has a midpoint that is no value of the graph.
        E::R { lo, hi, nan: false }
            if lo <= hi && hi - lo <= 1e-11 * (1.0 + lo.abs().max(hi.abs())) =>
        {
            0.5 * (lo + hi)
        }
        _ => f64::NAN,
    };
    out.iter()
        .zip(ct)
        .map(|(o, c)| o.data.iter().zip(c).map(|(e, c)| mid(e) * c).sum::<f64>())
        .sum()
}

/// What one graph's check found.
#[derive(Default)]
struct Outcome {
    directions: usize,
    /// Directions along which the loss is not smooth at the step sizes (a kink or a jump
    /// of relu/abs/max/where/… within reach): not compared.
    kinks: usize,
    /// Finite differences of the compiled forward (the interpreter's value undetermined).
    compiled: usize,
    undetermined: usize,
    f32_compared: usize,
    /// The largest f32 difference seen, as a fraction of its bound.
    f32_worst: f64,
    /// The largest |estimate − Σ⟨g, d⟩| seen, as a fraction of its bound.
    fd_worst: f64,
    problems: Vec<String>,
}

fn check(gg: &GradGraph, index: u64, runner: batch::Runner, forward: batch::Forward) -> Outcome {
    let mut rng = Rng::for_item(batch::SEED, index, 0x6AD);
    let inputs: Vec<Vec<f64>> = (0..gg.graph.params.len())
        .map(|i| values(&mut rng, len(&gg.param_dims(i)), 1.5))
        .collect();
    let ct: Vec<Vec<f64>> = if gg.vjp {
        (0..gg.outputs())
            .map(|k| values(&mut rng, len(&gg.out_dims(k)), 1.0))
            .collect()
    } else {
        vec![vec![1.0]]
    };
    let (v64, g64, v32, g32) = runner(&inputs, &ct);
    let mut o = Outcome::default();
    // The interpreter's loss, or the compiled forward's where the interpreter leaves the
    // output undetermined (a range across a discontinuity of thresholded_relu, …) at the
    // point or at one of a direction's four steps.
    let interp_l0 = loss(gg, &inputs, &ct);
    let compiled_l0 = forward(&inputs, &ct);
    let mut l0 = interp_l0;
    if !interp_l0.is_finite() {
        o.compiled += 1;
        l0 = compiled_l0;
    }
    if !l0.is_finite() {
        if std::env::var_os("GRADGEN_VERBOSE").is_some() {
            let ts: Vec<T> = inputs
                .iter()
                .enumerate()
                .map(|(i, v)| T {
                    dtype: DType::F64,
                    dims: gg.param_dims(i),
                    data: v.iter().map(|&x| E::F(x)).collect(),
                })
                .collect();
            eprintln!(
                "  graph {index}: the interpreter gives {:?}",
                run(&gg.graph, &ts, &HashMap::new())
            );
        }
        o.undetermined += 1;
        return o;
    }
    for (k, &p) in gg.wrt.iter().enumerate() {
        if g64[k].len() != inputs[p].len() || g32[k].len() != inputs[p].len() {
            o.problems
                .push(format!("gradient {k} has {} elements", g64[k].len()));
            return o;
        }
    }
    // The value: the forward's bit for bit (docs/language.md), the interpreter's within
    // its rounding.
    if !gg.vjp && v64.to_bits() != compiled_l0.to_bits() {
        o.problems.push(format!(
            "the value {v64:e} is not the forward's {compiled_l0:e}"
        ));
    }
    if !gg.vjp && interp_l0.is_finite() && (v64 - interp_l0).abs() > 1e-9 * (1.0 + interp_l0.abs())
    {
        o.problems.push(format!(
            "the value {v64:e} is not the interpreter's {interp_l0:e}"
        ));
    }
    // Directions: over every wrt parameter at once, then along each alone.
    let n = gg.wrt.len();
    let mut masks: Vec<Vec<bool>> = vec![vec![true; n]];
    if n > 1 {
        masks.extend((0..n).map(|k| (0..n).map(|j| j == k).collect()));
    }
    let mut smooth = true;
    for mask in masks {
        o.directions += 1;
        let dir: Vec<Vec<f64>> = gg
            .wrt
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let v = values(&mut rng, inputs[p].len(), 1.0);
                if mask[k] {
                    v
                } else {
                    vec![0.0; v.len()]
                }
            })
            .collect();
        let at = |t: f64, compiled: bool| {
            let mut x = inputs.clone();
            for (k, &p) in gg.wrt.iter().enumerate() {
                for (xi, di) in x[p].iter_mut().zip(&dir[k]) {
                    *xi += t * di;
                }
            }
            if compiled {
                forward(&x, &ct)
            } else {
                loss(gg, &x, &ct)
            }
        };
        let mut l0 = l0;
        let mut compiled = !interp_l0.is_finite();
        let mut steps = [
            at(H1, compiled),
            at(-H1, compiled),
            at(H2, compiled),
            at(-H2, compiled),
        ];
        if !compiled && !steps.iter().all(|x| x.is_finite()) {
            o.compiled += 1;
            compiled = true;
            l0 = compiled_l0;
            steps = [at(H1, true), at(-H1, true), at(H2, true), at(-H2, true)];
        }
        let _ = compiled;
        let [p1, m1, p2, m2] = steps;
        if ![p1, m1, p2, m2].iter().all(|x| x.is_finite()) {
            o.undetermined += 1;
            smooth = false;
            continue;
        }
        let d1 = (p1 - m1) / (2.0 * H1);
        let d2 = (p2 - m2) / (2.0 * H2);
        let s1 = (p1 - 2.0 * l0 + m1) / (H1 * H1);
        let s2 = (p2 - 2.0 * l0 + m2) / (H2 * H2);
        let ad: f64 = (0..n)
            .map(|k| g64[k].iter().zip(&dir[k]).map(|(g, d)| g * d).sum::<f64>())
            .sum();
        let scale: f64 = (0..n)
            .map(|k| {
                g64[k]
                    .iter()
                    .zip(&dir[k])
                    .map(|(g, d)| (g * d).abs())
                    .sum::<f64>()
            })
            .sum();
        // Smooth at this point: the two steps' first derivatives agree to their O(h²) and
        // the second derivatives to theirs (a kink closer than the steps doubles the second
        // difference when the step halves).
        let s_scale = scale + d1.abs() + 1.0;
        if std::env::var_os("GRADGEN_VERBOSE").is_some() {
            eprintln!("  graph {index} direction {mask:?}: ad {ad:e} d1 {d1:e} d2 {d2:e} s1 {s1:e} s2 {s2:e} scale {scale:e}");
        }
        if (d1 - d2).abs() > 1e-4 * s_scale
            || (s1 - s2).abs() > 1e-3 * (s1.abs() + s2.abs()) + 1e-2 * s_scale
        {
            o.kinks += 1;
            smooth = false;
            continue;
        }
        let fd = (4.0 * d2 - d1) / 3.0;
        let bound = RTOL * (scale + fd.abs()) + ATOL * (1.0 + l0.abs());
        o.fd_worst = o.fd_worst.max((fd - ad).abs() / bound);
        if !ad.is_finite() || (fd - ad).abs() > bound {
            o.problems.push(format!(
                "direction over {:?}: the gradients give {ad:e}, finite differences {fd:e} (steps {H1}: {d1:e}, {H2}: {d2:e}; Σ|g·d| = {scale:e})",
                gg.wrt
                    .iter()
                    .zip(&mask)
                    .filter(|x| *x.1)
                    .map(|x| gg.graph.params[*x.0].name.as_str())
                    .collect::<Vec<_>>()
            ));
        }
    }
    // The f32 twin, where the f64 graph is smooth (a kink near the point may sit on the
    // other side of it in f32).
    if smooth && o.problems.is_empty() {
        if !gg.vjp && (v32 - v64).abs() > RTOL32 * v64.abs() + ATOL32 * (1.0 + v64.abs()) {
            o.problems
                .push(format!("f32 value {v32:e}, f64 value {v64:e}"));
        }
        let top = g64.iter().flatten().fold(0.0f64, |m, g| m.max(g.abs()));
        for k in 0..n {
            for (i, (a, b)) in g32[k].iter().zip(&g64[k]).enumerate() {
                o.f32_compared += 1;
                let bound = RTOL32 * (b.abs() + top) + ATOL32;
                o.f32_worst = o.f32_worst.max((a - b).abs() / bound);
                if !((a - b).abs() <= bound) {
                    o.problems.push(format!(
                        "f32 gradient of {}[{i}]: {a:e}, f64: {b:e} (largest {top:e})",
                        gg.graph.params[gg.wrt[k]].name
                    ));
                    break;
                }
            }
        }
    }
    if !o.problems.is_empty() {
        o.problems.push(format!(
            "inputs {inputs:?}\ncotangents {ct:?}\nf64 gradients {g64:?}\nf32 gradients {g32:?}"
        ));
    }
    o
}

#[test]
fn generated_gradients_match_finite_differences() {
    let mut failures = Vec::new();
    let (mut directions, mut kinks, mut undetermined, mut f32_compared) = (0, 0, 0, 0);
    let mut compiled = 0;
    let (mut fd_worst, mut f32_worst) = (0.0f64, 0.0f64);
    for &(index, runner, forward) in batch::BATCH {
        let gg = generate(batch::SEED, index);
        let o = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check(&gg, index, runner, forward)
        })) {
            Ok(o) => o,
            Err(_) => Outcome {
                problems: vec!["the call panicked".into()],
                ..Outcome::default()
            },
        };
        if std::env::var_os("GRADGEN_VERBOSE").is_some() {
            eprintln!(
                "graph {index}: {} directions, {} not smooth, {} by the compiled forward, {} not determined, {} f32 elements",
                o.directions, o.kinks, o.compiled, o.undetermined, o.f32_compared
            );
        }
        directions += o.directions;
        kinks += o.kinks;
        compiled += o.compiled;
        fd_worst = fd_worst.max(o.fd_worst);
        f32_worst = f32_worst.max(o.f32_worst);
        undetermined += o.undetermined;
        f32_compared += o.f32_compared;
        if !o.problems.is_empty() {
            failures.push(format!(
                "graph {index} (seed {:#x}):\n{}{}\n",
                batch::SEED,
                gg.source(),
                o.problems.join("\n")
            ));
        }
    }
    eprintln!(
        "{} graphs: {directions} directional derivatives ({compiled} times by the compiled forward), {kinks} not smooth at the steps, {undetermined} not determined; {f32_compared} f32 gradient elements compared",
        batch::BATCH.len()
    );
    eprintln!(
        "largest differences as fractions of their bounds: finite differences {fd_worst:.2e}, f32 {f32_worst:.2e}"
    );
    assert!(
        failures.is_empty(),
        "{} of {} graphs' gradients disagree:\n{}",
        failures.len(),
        batch::BATCH.len(),
        failures[..failures.len().min(6)].join("\n")
    );
}
