//! The macro against graphs from the random generator (tools/graphgen, issue 18): every
//! generated graph is well typed by the language's rules, so it must expand without an
//! error; and mutations of them (token edits, wrong dtypes and shapes, bad named
//! parameters, junk) must never make the macro panic, and every error it reports must
//! point into the graph's own tokens.

use crate::expand;
use proc_macro2::TokenStream;
use std::str::FromStr;

/// Graphs per run; `GRAPHGEN_FUZZ_COUNT` raises it for a longer run.
fn count(default: u64) -> u64 {
    std::env::var("GRAPHGEN_FUZZ_COUNT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn expand_text(source: &str) -> String {
    let mut input = TokenStream::from_str("::tensorgraph;").unwrap();
    input.extend(TokenStream::from_str(source).expect("generated source lexes"));
    expand(input).to_string()
}

/// Every generated graph type-checks: the generator and the checker agree on the rules.
#[test]
fn generated_graphs_expand_without_errors() {
    // The test can fail: a graph that does not check is seen as one.
    assert!(expand_text("fn f(x: u32[2]) -> i32[2] { x + 1 }").contains("compile_error"));
    let mut failures = Vec::new();
    for i in 0..count(1500) {
        let g = graphgen::gen::generate(graphgen::CI_SEED, i);
        let source = graphgen::render::graph(&g);
        let text = expand_text(&source);
        if let Some(at) = text.find("compile_error") {
            let end = (at + 400).min(text.len());
            failures.push(format!("graph {i}:\n{source}{}\n", &text[at..end]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} generated graphs failed to check:\n{}",
        failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}
