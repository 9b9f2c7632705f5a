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
    let mut failures = Vec::new();
    let mut stats = Stats::default();
    for &(index, runner) in batch::BATCH {
        let g = generate(batch::SEED, index);
        // Case 0 again last: ordinary values after the edge values' calls left their state
        // (scratch pools, packing buffers) behind (issue 37).
        for case in (0..CASES).chain([0]) {
            let (inputs, sizes) = make_inputs(&g, batch::SEED, index, case);
            let interp_inputs: Vec<_> = inputs.iter().map(|t| t.to_interp()).collect();
            let want = run(&g, &interp_inputs, &sizes);
            let got = runner(&inputs);
            let problems: Vec<String> = match (&want, &got) {
                (Ok(want), Ok(got)) => {
                    let mut p = Vec::new();
                    for (k, (w, o)) in want.iter().zip(got).enumerate() {
                        p.extend(compare(k, o, w, &mut stats));
                    }
                    p
                }
                (Err(Fail::EmptyAxis | Fail::ShortAxis), Err(_)) => vec![],
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
        "{} graphs x {CASES} input cases: {} elements compared bit for bit, {} within bounds, {} not determined",
        batch::BATCH.len(),
        stats.exact,
        stats.ranged,
        stats.skipped
    );
    assert!(
        failures.is_empty(),
        "{} of {} graphs differ from the interpreter:\n{}",
        failures.len(),
        batch::BATCH.len(),
        failures[..failures.len().min(6)].join("\n")
    );
}
