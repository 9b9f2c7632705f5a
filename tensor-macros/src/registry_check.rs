//! One table per fact (issue 34, item 1): the op registry (`ops::FUNCTIONS`), tensor-core's
//! precision table (`functions`), ACCURACY.md's bounds, docs/language.md and the random-graph
//! generator's op lists must agree, so adding a function cannot leave one of them behind.
#![cfg(test)]

use std::collections::BTreeSet;

use tensor_core::functions::{EXACT_FLOAT_FUNCTIONS, FLOAT_FUNCTIONS};

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
fn every_float_function_has_one_precision_row() {
    let registry = registry_float_functions();
    let bounded: BTreeSet<&str> = FLOAT_FUNCTIONS.iter().map(|f| f.name).collect();
    let exact: BTreeSet<&str> = EXACT_FLOAT_FUNCTIONS.iter().copied().collect();
    let table: BTreeSet<&str> = bounded.union(&exact).copied().collect();
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
    for f in FLOAT_FUNCTIONS {
        let got = stated.get(f.name).copied();
        assert_eq!(
            got,
            Some((f.ulp_f32, f.ulp_f64)),
            "ACCURACY.md's bound row for `{}` differs from tensor-core's functions.rs",
            f.name
        );
    }
    // Every bounded row of ACCURACY.md is in the table (or exact: sqrt).
    for name in stated.keys() {
        assert!(
            FLOAT_FUNCTIONS.iter().any(|f| f.name == name)
                || EXACT_FLOAT_FUNCTIONS.contains(&name.as_str()),
            "ACCURACY.md states a bound for `{name}`, which functions.rs does not list"
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
