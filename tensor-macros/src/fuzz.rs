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
    for i in 0..count(600) {
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

use crate::tests::{mutate, Rng};
use graphgen::ast::{Arg, BinOp, Call, Expr, Graph, Lit};
use graphgen::types::{DType, Dim};
use proc_macro2::TokenTree;

const PREFIX: &str = "::tensorgraph; ";

/// Expands `body` (lexed from one string, so spans are byte offsets into it) and checks
/// that it does not panic and that every `compile_error!` points into `body`. Returns the
/// number of errors, or a description of the failure.
fn errors_point_into_the_graph(body: &str) -> Result<usize, String> {
    let full = format!("{PREFIX}{body}");
    let Ok(input) = TokenStream::from_str(&full) else {
        return Ok(0);
    };
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| expand(input)))
        .map_err(|_| format!("the macro panicked on:\n{body}"))?;
    // (span, message) of every `compile_error! { "message" }`.
    let mut spans = Vec::new();
    fn walk(ts: TokenStream, spans: &mut Vec<(std::ops::Range<usize>, String)>) {
        let tokens: Vec<TokenTree> = ts.into_iter().collect();
        for (k, tt) in tokens.iter().enumerate() {
            match tt {
                TokenTree::Ident(i) if i == "compile_error" => {
                    let message = match tokens.get(k + 2) {
                        Some(TokenTree::Group(g)) => g.stream().to_string(),
                        _ => String::new(),
                    };
                    spans.push((i.span().byte_range(), message));
                }
                TokenTree::Group(g) => walk(g.stream(), spans),
                _ => {}
            }
        }
    }
    walk(out, &mut spans);
    for (r, message) in &spans {
        // An input that ends early has no token to point at: syn reports it at the call
        // site, which in a real expansion is the whole `graph!` invocation.
        let call_site = r.start == 0 && r.end == 0;
        let ended_early = message.contains("end of input")
            || message.contains("end of the input")
            || message.contains("to close the graph closure");
        if call_site && ended_early {
            continue;
        }
        if r.start < PREFIX.len() || r.end > full.len() {
            let shown = if r.start == 0 && r.end == 0 {
                "the call site (no span in the graph)".to_string()
            } else {
                format!("bytes {r:?} of `{full}`")
            };
            return Err(format!(
                "the error {message} points at {shown}, outside the graph:\n{body}"
            ));
        }
    }
    Ok(spans.len())
}

/// The `n`-th call in `e` (pre-order), counting down `n`.
fn nth_call<'a>(e: &'a mut Expr, n: &mut usize) -> Option<&'a mut Call> {
    match e {
        Expr::Call(c) => {
            if *n == 0 {
                return Some(c);
            }
            *n -= 1;
            for a in &mut c.args {
                if let Arg::E(e) = a {
                    if let Some(c) = nth_call(e, n) {
                        return Some(c);
                    }
                }
            }
            None
        }
        Expr::Bin(_, a, b) => nth_call(a, n).or_else(move || nth_call(b, n)),
        Expr::Neg(a) | Expr::Not(a) | Expr::Cast(a, _) => nth_call(a, n),
        _ => None,
    }
}

fn nth_bin<'a>(e: &'a mut Expr, n: &mut usize) -> Option<&'a mut BinOp> {
    match e {
        Expr::Bin(op, a, b) => {
            if *n == 0 {
                return Some(op);
            }
            *n -= 1;
            nth_bin(a, n).or_else(move || nth_bin(b, n))
        }
        Expr::Neg(a) | Expr::Not(a) | Expr::Cast(a, _) => nth_bin(a, n),
        Expr::Call(c) => c.args.iter_mut().find_map(|a| match a {
            Arg::E(e) => nth_bin(e, n),
            _ => None,
        }),
        _ => None,
    }
}

/// A semantic mistake in a valid graph: a wrong dtype or shape of a parameter or
/// output, a bad named argument (unknown name, wrong kind of value, axis out of range),
/// a wrong function name or operator.
fn mistake(g: &mut Graph, rng: &mut Rng) {
    let pick_dtype = |rng: &mut Rng| DType::ALL[rng.below(13)];
    let n_lets = g.lets.len().max(1);
    match rng.below(8) {
        7 => {
            // An einsum's subscripts edited: a letter dropped, doubled, swapped for another
            // or a non-letter, `->` or `...` removed or repeated.
            for (_, e) in &mut g.lets {
                let mut n = 0;
                while let Some(c) = nth_call(e, &mut { n }) {
                    n += 1;
                    if c.f != "einsum" {
                        continue;
                    }
                    if let Some(Arg::Str(sub)) = c.args.first_mut() {
                        let chars: Vec<char> = sub.chars().collect();
                        let at = rng.below(chars.len() + 1);
                        let mut out = chars.clone();
                        match rng.below(6) {
                            0 if at < chars.len() => {
                                out.remove(at);
                            }
                            1 if at < chars.len() => out.insert(at, chars[at]),
                            2 if at < chars.len() => {
                                out[at] = ['z', 'Q', '1', ' ', '-', '.'][rng.below(6)]
                            }
                            3 => {
                                *sub = sub.replacen("->", "", 1);
                                return;
                            }
                            4 => {
                                *sub = sub.replacen("...", "", 1);
                                return;
                            }
                            _ => {
                                *sub = format!("{sub}{}", ["->", "...", ",", "->i"][rng.below(4)]);
                                return;
                            }
                        }
                        *sub = out.into_iter().collect();
                        return;
                    }
                }
            }
        }
        0 => {
            let i = rng.below(g.params.len());
            g.params[i].dtype = pick_dtype(rng);
        }
        1 => {
            let i = rng.below(g.params.len());
            let p = &mut g.params[i];
            match &mut p.dims {
                Some(dims) if !dims.is_empty() && rng.below(3) > 0 => {
                    let k = rng.below(dims.len());
                    dims[k] = match rng.below(4) {
                        0 => Dim::Lit(rng.below(40)),
                        1 => Dim::Name(["B", "S", "Q"][rng.below(3)]),
                        2 => Dim::Lit(1),
                        _ => Dim::Lit(0),
                    };
                    if rng.below(4) == 0 {
                        dims.remove(0);
                    }
                }
                Some(_) => p.dims = None,
                None => p.dims = Some(vec![Dim::Lit(1 + rng.below(5))]),
            }
        }
        2 => {
            let i = rng.below(g.out_types.len());
            if rng.below(2) == 0 {
                g.out_types[i].dtype = pick_dtype(rng);
            } else {
                g.out_types[i].dims.push(Dim::Lit(1 + rng.below(4)));
            }
        }
        3 | 4 => {
            // A named argument of some call.
            let li = rng.below(n_lets);
            let Some((_, e)) = g.lets.get_mut(li) else {
                return;
            };
            let mut n = rng.below(4);
            let Some(call) = nth_call(e, &mut n) else {
                return;
            };
            if call.named.is_empty() || rng.below(4) == 0 {
                let names = [
                    "axis", "keepdims", "dtype", "acc", "alpha", "bogus", "start", "mode",
                ];
                let values = [
                    Arg::Int(7),
                    Arg::Int(-9),
                    Arg::Bool(true),
                    Arg::DType(DType::Bool),
                    Arg::Word("reflect"),
                    Arg::Ints(vec![0, 0]),
                    Arg::E(Expr::Lit(Lit::Float(1e300))),
                    Arg::Str("x".into()),
                ];
                call.named.push((
                    names[rng.below(names.len())],
                    values[rng.below(values.len())].clone(),
                ));
            } else {
                let k = rng.below(call.named.len());
                match rng.below(3) {
                    0 => {
                        call.named[k].0 =
                            ["axes", "keepdim", "dtypes", "alpah", "exclusive"][rng.below(5)]
                    }
                    1 => {
                        call.named[k].1 = [
                            Arg::Int(99),
                            Arg::Ints(vec![0, 0]),
                            Arg::Bool(false),
                            Arg::DType(DType::F16),
                            Arg::E(Expr::Lit(Lit::Int(-1))),
                            Arg::Word("wrap"),
                        ][rng.below(6)]
                        .clone()
                    }
                    _ => {
                        let dup = call.named[k].clone();
                        call.named.push(dup);
                    }
                }
            }
        }
        5 => {
            let li = rng.below(n_lets);
            let Some((_, e)) = g.lets.get_mut(li) else {
                return;
            };
            let mut n = 0;
            if let Some(call) = nth_call(e, &mut n) {
                const NAMES: &[&str] = &[
                    "sum",
                    "relu",
                    "softmax",
                    "exp",
                    "matmul",
                    "cumsum",
                    "slice",
                    "pad",
                    "where",
                    "argmax",
                    "transpose",
                    "reshape",
                    "clip",
                    "concat",
                    "einsum",
                    "layer_norm",
                    "is_nan",
                    "shift_left",
                    "reul",
                    "summ",
                    "max",
                    "mean_of",
                ];
                call.f = NAMES[rng.below(NAMES.len())];
            }
        }
        _ => {
            let li = rng.below(n_lets);
            let Some((_, e)) = g.lets.get_mut(li) else {
                return;
            };
            let mut n = 0;
            if let Some(op) = nth_bin(e, &mut n) {
                use BinOp::*;
                let ops = [
                    Add, Sub, Mul, Div, Rem, Eq, Lt, BitAnd, BitXor, Shl, Shr, And, Or, MatMul,
                ];
                *op = ops[rng.below(ops.len())];
            }
        }
    }
}

/// Mistakes in generated graphs (semantic, then token-level edits and junk on top) never
/// make the macro panic, and every error it reports points into the graph.
#[test]
fn mutated_generated_graphs_report_errors_inside_the_graph() {
    let mut rng = Rng(0x5EED_6A7E_F00D_1234);
    let mut failures = Vec::new();
    let mut errors = 0;
    let rounds = count(600);
    for i in 0..rounds {
        let mut g = graphgen::gen::generate(graphgen::CI_SEED ^ 0xF022, i);
        for _ in 0..1 + rng.below(2) {
            mistake(&mut g, &mut rng);
        }
        let source = graphgen::render::graph(&g);
        // Half the time, token edits as well (deletions, swaps, junk, truncation).
        let source = if rng.below(2) == 0 {
            let mut stream = TokenStream::from_str(&source).unwrap();
            for _ in 0..1 + rng.below(3) {
                stream = mutate(stream, &mut rng);
            }
            stream.to_string()
        } else {
            source
        };
        match errors_point_into_the_graph(&source) {
            Ok(n) => errors += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {rounds} mutated graphs failed:\n{}",
        failures.len(),
        failures[..failures.len().min(6)].join("\n\n")
    );
    // Most mutations are mistakes the macro reports: the test sees errors.
    assert!(
        errors as u64 > rounds / 2,
        "{errors} errors in {rounds} graphs"
    );
}
