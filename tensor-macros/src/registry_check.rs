//! One table per fact (issue 34, item 1): the op registry (`ops::FUNCTIONS`), tensor-core's
//! function table (`functions`: bounds, lane methods, block kernels; the lists tensor-core
//! generates from it), the graph macro's block functions (`emit::BLOCK_FUNCTIONS`),
//! ACCURACY.md's bounds, docs/language.md, the ULP sweep and the random-graph generator's op
//! lists must agree, so adding a function cannot leave one of them behind. (The interpreter's
//! side: tensorgraph-tests/tests/graphgen.rs `the_interpreter_evaluates_every_table_function`.)
#![cfg(test)]

use std::collections::BTreeSet;

use tensor_core::functions::FLOAT_FUNCTIONS;

use crate::ops::{Typing, FUNCTIONS};

/// The registry's float functions: float-only rows and `pow` (the one arithmetic row whose
/// float kernels are not exact).
fn registry_float_functions() -> BTreeSet<&'static str> {
    FUNCTIONS
        .iter()
        .filter(|op| op.typing == Typing::FloatUnary || op.name == "pow")
        .map(|op| op.name)
        .collect()
}

fn repo_file(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_float_function_has_one_table_row() {
    let registry = registry_float_functions();
    let table: BTreeSet<&str> = FLOAT_FUNCTIONS.iter().map(|f| f.name).collect();
    let missing: Vec<_> = registry.difference(&table).collect();
    assert!(
        missing.is_empty(),
        "float functions of ops.rs without a row in tensor-core's functions.rs: {missing:?}"
    );
    let unknown: Vec<_> = table.difference(&registry).collect();
    assert!(
        unknown.is_empty(),
        "functions.rs rows that are no float function of ops.rs: {unknown:?}"
    );
}

/// The registry's lane trait and method of each float function are the table's (the table
/// generates tensor-core's `FloatLanes` methods; the macro emits calls to the registry's).
#[test]
fn the_registry_calls_the_table_lane_methods() {
    for f in FLOAT_FUNCTIONS {
        let op = FUNCTIONS
            .iter()
            .find(|op| op.name == f.name)
            .unwrap_or_else(|| panic!("`{}` is no row of ops.rs", f.name));
        assert_eq!(
            (op.lane_trait, op.lane_fn),
            (f.lane_trait, f.lane_fn),
            "ops.rs and functions.rs name different lane methods for `{}`",
            f.name
        );
    }
}

/// The graph macro's block functions (emit/blocks.rs) are the table's functions with a
/// dispatched f32-lane kernel, under the names of their block entry points, and softmax's
/// `exp_nonpos` (no function of the language).
#[test]
fn the_block_functions_are_the_table_dispatched_kernels() {
    let emitted: BTreeSet<(&str, &str)> = crate::emit::BLOCK_FUNCTIONS
        .iter()
        .copied()
        .filter(|&(name, _)| name != "exp_nonpos")
        .collect();
    let table: BTreeSet<(&str, &str)> = FLOAT_FUNCTIONS
        .iter()
        .filter_map(|f| f.block_entry.map(|entry| (f.name, entry)))
        .collect();
    assert_eq!(emitted, table);
    assert!(crate::emit::BLOCK_FUNCTIONS.contains(&("exp_nonpos", "exp_nonpos_f32")));
}

/// The ULP sweep (examples/ulp_sweep.rs, whose output ACCURACY.md is) measures every float
/// function with a bound: a row `f!("name", …)` each (pow has its own walk), its bounds read
/// from the table.
#[test]
fn the_ulp_sweep_measures_every_bounded_function() {
    let text = repo_file("examples/ulp_sweep.rs");
    let swept: BTreeSet<&str> = text
        .split("f!(")
        .skip(1)
        .filter_map(|row| row.trim_start().strip_prefix('"'))
        .filter_map(|row| row.split('"').next())
        .collect();
    let missing: Vec<&str> = FLOAT_FUNCTIONS
        .iter()
        .filter(|f| !f.is_exact() && f.name != "pow")
        .map(|f| f.name)
        .filter(|name| !swept.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "bounded functions that examples/ulp_sweep.rs does not sweep: {missing:?}"
    );
    assert!(text.contains("fn sweep_pow("), "the sweep's walk of pow");
    assert!(
        text.contains("ulp_bound(row, f64_lanes)"),
        "the sweep reads its bounds from the function table"
    );
}

/// ACCURACY.md's "Bounds" table: rows `| name[, name…] | f32 | f64 | how |`, the bounds the
/// same numbers as functions.rs (sqrt's "0.5 (exact)" is an exact row).
#[test]
fn accuracy_md_states_the_table_bounds() {
    let text = repo_file("ACCURACY.md");
    let start = text
        .find("## Bounds")
        .expect("ACCURACY.md has a Bounds section");
    let section = &text[start..];
    let end = section[2..].find("\n## ").map_or(section.len(), |e| e + 2);
    let mut stated = std::collections::BTreeMap::new();
    for line in section[..end].lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (names, b32, b64) = (cells[1], cells[2], cells[3]);
        let (Ok(b32), Ok(b64)) = (
            b32.split_whitespace().next().unwrap_or("").parse::<f64>(),
            b64.split_whitespace().next().unwrap_or("").parse::<f64>(),
        ) else {
            continue; // the header and its rule
        };
        for name in names.split(',').map(str::trim) {
            stated.insert(name.to_string(), (b32, b64));
        }
    }
    for f in FLOAT_FUNCTIONS.iter().filter(|f| !f.is_exact()) {
        let got = stated.get(f.name).copied();
        assert_eq!(
            got,
            Some((f.ulp_f32, f.ulp_f64)),
            "ACCURACY.md's bound row for `{}` differs from tensor-core's functions.rs",
            f.name
        );
    }
    // Every bounded row of ACCURACY.md is in the table (sqrt's as an exact row).
    for name in stated.keys() {
        let row = FLOAT_FUNCTIONS.iter().find(|f| f.name == name);
        assert!(
            row.is_some(),
            "ACCURACY.md states a bound for `{name}`, which functions.rs does not list"
        );
        // An exact row of the table is correctly rounded there (0.5 ULP), no more.
        let (b32, b64) = stated[name];
        assert!(
            !row.is_some_and(|f| f.is_exact()) || (b32 <= 0.5 && b64 <= 0.5),
            "ACCURACY.md bounds `{name}` by {b32}/{b64} ULP, which functions.rs calls exact"
        );
    }
}

/// docs/language.md names every function of the registry (in backticks or in its lists).
#[test]
fn the_language_reference_names_every_function() {
    let text = repo_file("docs/language.md");
    let missing: Vec<&str> = FUNCTIONS
        .iter()
        .map(|op| op.name)
        .filter(|name| {
            !text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == *name)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "functions of ops.rs that docs/language.md does not name: {missing:?}"
    );
}

/// The random-graph generator draws every function of the registry (its unary, activation
/// and binary lists), so each is differentially tested against the interpreter.
#[test]
fn the_generator_draws_every_function() {
    let drawn: BTreeSet<&str> = graphgen::gen::UNARY
        .iter()
        .map(|u| u.0)
        .chain(graphgen::gen::ACTIVATIONS.iter().map(|a| a.0))
        .chain(graphgen::gen::BINARY.iter().map(|b| b.0))
        .collect();
    // Drawn through other generator paths: `clip`/`clamp` and `prelu` are composites of
    // their own (gen.rs `composite`), the variadic forms likewise.
    let elsewhere = ["clip", "clamp", "prelu"];
    let missing: Vec<&str> = FUNCTIONS
        .iter()
        .map(|op| op.name)
        .filter(|name| !drawn.contains(name) && !elsewhere.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "functions of ops.rs that tools/graphgen never draws: {missing:?}"
    );
}
