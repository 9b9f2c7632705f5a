//! Random-graph differential testing (issue 18): a batch of graphs from the generator
//! (tools/graphgen), compiled by `graph!` through the build script, each run on random
//! and edge-value inputs and compared with graphgen's interpreter over the scalar
//! reference semantics: exact ops bit for bit, transcendentals within their ACCURACY.md
//! bounds, reductions within K·eps·Σ|x|. NOTES.md has the soak command.

use graphgen::compare::{compare, Stats};
use graphgen::gen::generate;
use graphgen::inputs::make_inputs;
use graphgen::interp::{run, Fail};
use graphgen::render;

mod batch {
    include!(concat!(env!("OUT_DIR"), "/graphgen_batch.rs"));
}

/// Input cases per graph: ordinary values, then edge values and size-0/1 names. Each case's
/// runner calls the graph twice (graphgen's harness), and case 0 runs again after the others.
const CASES: u64 = 4;

#[test]
fn generated_graphs_match_the_interpreter() {
    check_batch("");
}

/// With the opt-in `dispatch` feature (issue 36: each graph kernel compiled as a baseline,
/// an AVX2 + FMA and an AVX-512 copy, chosen per process) the same test runs the batch under
/// each copy in turn (`vmath::set_simd_level`: 1 the baseline copy, 2 the AVX2 + FMA copy, 3
/// the AVX-512 copy, 16 lanes per chunk; the levels this CPU lacks are skipped),
/// each against the interpreter. The level is per process, so this is the only test of
/// the batch in such a build. `cargo test -p tensorgraph-tests --features dispatch --test
/// graphgen` (README.md's commands, .ci/run).
#[cfg(all(
    feature = "dispatch",
    target_arch = "x86_64",
    not(target_feature = "avx2")
))]
fn check_batch(_: &str) {
    for wanted in [1, 2, 3] {
        let level = tensorgraph::vmath::set_simd_level(wanted);
        if level != wanted {
            eprintln!("level {wanted}: not on this CPU, skipped");
            continue;
        }
        check_batch_once(&format!("kernel copy level {level}: "));
    }
}

#[cfg(not(all(
    feature = "dispatch",
    target_arch = "x86_64",
    not(target_feature = "avx2")
)))]
fn check_batch(label: &str) {
    check_batch_once(label);
}

/// Every graph of the batch on every input case, against the interpreter; `label` starts
/// each line it prints.
fn check_batch_once(label: &str) {
    let mut failures = Vec::new();
    let mut stats = Stats::default();
    let mut panics = 0;
    let mut index_errors = 0;
    for &(index, runner) in batch::BATCH {
        let g = generate(batch::SEED, index);
        // Case 0 again last: ordinary values after the edge values' calls left their state
        // (scratch pools, packing buffers) behind (issue 37).
        for case in (0..CASES).chain([0]) {
            let (inputs, sizes) = make_inputs(&g, batch::SEED, index, case);
            let interp_inputs: Vec<_> = inputs.iter().map(|t| t.to_interp()).collect();
            let want = run(&g, &interp_inputs, &sizes);
            // A panic is a failure of this graph (legal graphs never panic), reported with the
            // rest; the batch goes on.
            let got = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                runner(&inputs)
            })) {
                Ok(got) => got,
                Err(payload) => {
                    panics += 1;
                    let message = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.push(format!(
                        "graph {index} (seed {:#x}), input case {case}, sizes {sizes:?}: the call panicked: {message}\n{}",
                        batch::SEED,
                        render::graph(&g),
                    ));
                    break;
                }
            };
            let problems: Vec<String> = match (&want, &got) {
                (Ok(want), Ok(got)) => {
                    let mut p = Vec::new();
                    for (k, (w, o)) in want.iter().zip(got).enumerate() {
                        p.extend(compare(k, o, w, &mut stats));
                    }
                    p
                }
                (Err(Fail::EmptyAxis | Fail::ShortAxis), Err(_)) => vec![],
                // Call entry checks shapes and indices; either may be reported first.
                (Err(Fail::IndexOutOfRange), Err(_)) => {
                    index_errors += 1;
                    vec![]
                }
                (Err(e), Ok(_)) => vec![format!(
                    "the interpreter expects {e:?}, the call returned Ok"
                )],
                (Ok(_), Err(e)) => vec![format!(
                    "the call returned Err({e}), the interpreter expects outputs"
                )],
            };
            if !problems.is_empty() {
                failures.push(format!(
                    "graph {index} (seed {:#x}), input case {case}, sizes {sizes:?}:\n{}{}\ninputs: {:?}\n",
                    batch::SEED,
                    render::graph(&g),
                    problems.join("\n"),
                    inputs
                ));
                break;
            }
        }
    }
    eprintln!(
        "{label}{} graphs x {CASES} input cases: {} elements compared bit for bit, {} within bounds, {} not determined",
        batch::BATCH.len(),
        stats.exact,
        stats.ranged,
        stats.skipped
    );
    eprintln!("{label}{index_errors} calls with an index out of range returned Err as expected");
    eprintln!(
        "{label}{} graphs failed, {panics} of them by a panic",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{label}{} of {} graphs differ from the interpreter:\n{}",
        failures.len(),
        batch::BATCH.len(),
        failures[..failures.len().min(6)].join("\n")
    );
}

/// The interpreter evaluates every function of tensor-core's function table (the float rows
/// of the op registry; registry_check.rs checks that the two agree), and within the table's
/// bound: an exact function to one value, the others to a range around the reference's
/// (`value::ulps`). A row added to the table without an interpreter arm, or a bound the
/// interpreter does not read, fails here rather than in a random graph that may not draw it.
#[test]
fn the_interpreter_evaluates_every_table_function() {
    use graphgen::types::DType;
    use graphgen::value::{apply_exact, E};
    for f in tensorgraph::functions::FLOAT_FUNCTIONS {
        // A point inside every domain (acosh's starts at 1), away from the special values.
        let x = if f.name == "acosh" { 1.5 } else { 0.75 };
        let args: Vec<E> = if f.name == "pow" {
            vec![E::F(x), E::F(1.5)]
        } else {
            vec![E::F(x)]
        };
        let params: Vec<f64> = graphgen::gen::ACTIVATIONS
            .iter()
            .find(|a| a.0 == f.name)
            .map_or(vec![], |a| vec![1.0; a.1.len()]);
        for d in [DType::F32, DType::F64] {
            let got = apply_exact(f.name, d, &args, &params);
            match got {
                E::F(v) => assert!(
                    f.is_exact() && !v.is_nan(),
                    "`{}` on {d:?}: the exact value {v:e} for a function with a bound",
                    f.name
                ),
                E::R { lo, hi, nan } => assert!(
                    !f.is_exact() && lo < hi && !nan,
                    "`{}` on {d:?}: the range {lo:e}..={hi:e} (nan: {nan})",
                    f.name
                ),
                other => panic!("`{}` on {d:?}: {other:?}", f.name),
            }
        }
    }
}

/// The interpreter bounds every function of the function table over a range of inputs
/// (value.rs `apply`: its `monotone` and `lipschitz` lists, or a rule of its own), and the
/// range it gives holds the reference's value (`apply_exact`) at points across the input
/// range. A row added to the table without a range rule in graphgen would make every random
/// graph that feeds it a range compare nothing (`ANY_F`); it fails here instead, unless it
/// is one of `UNBOUNDED` (a listed function that gets a rule fails too: take it off).
#[test]
fn the_interpreter_bounds_every_table_function_over_a_range() {
    use graphgen::types::DType;
    use graphgen::value::{apply, apply_exact, E};
    // Left unbounded over ranges (a range in, `ANY_F` out), with why; each is a gap of the
    // oracle (NOTES.md, "Layout of the compiler and runtime"):
    // - `pow`: monotone in neither argument over its domain (the sign of the exponent and
    //   whether the base is below 1 decide).
    // (`thresholded_relu` and `shrink` are bounded where their parameters make them
    // monotone: value.rs `monotone`.)
    const UNBOUNDED: &[&str] = &["pow"];
    let mut failures = Vec::new();
    for f in tensorgraph::functions::FLOAT_FUNCTIONS {
        if UNBOUNDED.contains(&f.name) {
            let x = E::R {
                lo: 0.5,
                hi: 0.75,
                nan: false,
            };
            let args = if f.name == "pow" {
                vec![x, E::F(1.5)]
            } else {
                vec![x]
            };
            if apply(f.name, DType::F32, &args, &[1.0, 1.0]) != graphgen::value::ANY_F {
                failures.push(format!(
                    "`{}` is bounded now: take it off `UNBOUNDED`",
                    f.name
                ));
            }
            continue;
        }
        // Inside every domain (acosh's starts at 1; asin, acos, atanh end at 1).
        let (lo, hi) = if f.name == "acosh" {
            (1.5, 1.75)
        } else {
            (0.5, 0.75)
        };
        let with = |x: E| -> Vec<E> {
            if f.name == "pow" {
                vec![x, E::F(1.5)]
            } else {
                vec![x]
            }
        };
        let params: Vec<f64> = graphgen::gen::ACTIVATIONS
            .iter()
            .find(|a| a.0 == f.name)
            .map_or(vec![], |a| vec![1.0; a.1.len()]);
        for d in [DType::F32, DType::F64] {
            let range = E::R { lo, hi, nan: false };
            let (r_lo, r_hi) = match apply(f.name, d, &with(range), &params) {
                E::R { lo, hi, nan: false } if lo.is_finite() && hi.is_finite() && lo <= hi => {
                    (lo, hi)
                }
                other => {
                    failures.push(format!("`{}` on {d:?}: no bound, {other:?}", f.name));
                    continue;
                }
            };
            for k in 0..=16 {
                let x = lo + (hi - lo) * k as f64 / 16.0;
                let inside = match apply_exact(f.name, d, &with(E::F(x)), &params) {
                    E::F(v) => (r_lo..=r_hi).contains(&v),
                    E::R { lo, hi, .. } => r_lo <= lo && hi <= r_hi,
                    _ => false,
                };
                if !inside {
                    failures.push(format!(
                        "`{}` on {d:?}: the value at {x} is outside the range {r_lo:e}..={r_hi:e}",
                        f.name
                    ));
                    break;
                }
            }
        }
    }
    for name in UNBOUNDED {
        if !tensorgraph::functions::FLOAT_FUNCTIONS
            .iter()
            .any(|f| f.name == *name)
        {
            failures.push(format!(
                "`{name}` of `UNBOUNDED` is not in the function table"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
