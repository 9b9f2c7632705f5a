//! The `graph!` compiler. One module per phase:
//! `ast` (parse) → `check` (types, shapes, errors) → `lower` (loop IR) → `emit` (tokens).
//! `dtype`, `shape` and `ops` hold the rules the checker applies.
#![warn(missing_docs)]

mod ast;
mod check;
mod derive;
mod dim_expr;
mod dtype;
mod emit;
mod ir;
mod lower;
mod ops;
mod shape;
mod spellings;

#[cfg(test)]
mod fuzz;
mod layout;
mod op_reference;
mod registry_check;

use proc_macro2::TokenStream;
use quote::quote;

use ast::{GraphBody, GraphFn, GraphInput};
use check::{check_graph, unused_params, Errors};

/// The implementation behind `tensorgraph::graph!`, which passes its `$crate` first:
/// `graph_impl!($crate; …)`. Use `graph!`, not this.
#[doc(hidden)]
#[proc_macro]
pub fn graph_impl(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand(input.into()).into()
}

/// The implementation behind `tensorgraph::Shape!`: `shape_impl!($crate; 4, 8)` is the
/// shape type of `[4, 8]`. Dims are integer literals, `const` names, braced const
/// expressions or `_`.
#[doc(hidden)]
#[proc_macro]
pub fn shape_impl(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand_shape(input.into()).into()
}

/// `Shape![4, N, { 2 * N }, _]` is `Rank4<Fixed<4>, Fixed<{ N }>, Fixed<{ 2 * N }>, Dyn>`.
///
/// A dim that is none of these, or a 7th dim, becomes `Fixed<{ compile_error!(…); 0 }>`
/// with the error on its tokens: the type keeps its rank and the error is the only one
/// reported (a `compile_error!` in place of the whole type would be `()` to rustc, and
/// every use of the type a follow-on error).
fn expand_shape(input: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group, Span, TokenTree};
    let mut tokens = input.into_iter();
    let rt: TokenStream = tokens
        .by_ref()
        .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
        .collect();
    let p = quote!(#rt::__private);
    // Split the dims at top-level commas (groups are single token trees).
    let mut dims: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for tt in tokens {
        match &tt {
            TokenTree::Punct(c) if c.as_char() == ',' => dims.push(Vec::new()),
            _ => dims.last_mut().expect("never empty").push(tt),
        }
    }
    if dims.last().is_some_and(Vec::is_empty) {
        dims.pop(); // `Shape![]`, or a trailing comma
    }
    let error = |span: Span, message: &str| {
        let error = quote::quote_spanned!(span=> ::core::compile_error!(#message));
        quote!(#p::Fixed<{ #error; 0 }>)
    };
    let dim_types: Vec<TokenStream> = dims
        .iter()
        .take(6)
        .map(|dim| {
            let span = dim.first().map_or_else(Span::call_site, TokenTree::span);
            // A `macro_rules!` fragment (`Shape![$n]`) arrives wrapped in an invisible group.
            // An `$n:expr` fragment is a whole expression: it may be a const expression.
            let mut dim = dim.clone();
            let mut fragment = false;
            while let [TokenTree::Group(g)] = dim.as_slice() {
                if g.delimiter() != Delimiter::None {
                    break;
                }
                fragment = true;
                dim = g.stream().into_iter().collect();
            }
            match dim.as_slice() {
                [TokenTree::Ident(i)] if i == "_" => quote!(#p::Dyn),
                [TokenTree::Literal(l)] => match syn::parse2::<syn::LitInt>(quote!(#l))
                    .and_then(|lit| lit.base10_parse::<usize>())
                {
                    Ok(n) => {
                        let n = proc_macro2::Literal::usize_unsuffixed(n);
                        quote!(#p::Fixed<#n>)
                    }
                    Err(_) => error(span, "a `Shape!` dim is a `usize` integer literal"),
                },
                [TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => {
                    quote!(#p::Fixed<#g>)
                }
                _ => {
                    let tokens: TokenStream = dim.iter().cloned().collect();
                    if fragment || syn::parse2::<syn::Path>(tokens.clone()).is_ok() {
                        let block = Group::new(Delimiter::Brace, tokens);
                        quote!(#p::Fixed<#block>)
                    } else {
                        error(
                            span,
                            "`Shape!` takes integer literals, `const` names, braced const \
                             expressions (`{ 2 * N }`), or `_` for a run-time dim",
                        )
                    }
                }
            }
        })
        .collect();
    if dim_types.is_empty() {
        return quote!(#p::Rank0);
    }
    let rank = quote::format_ident!("Rank{}", dim_types.len());
    let mut dim_types = dim_types;
    if dims.len() > 6 {
        // The 7th dim's error stands in for the 6th, so the type is still a rank-6 shape.
        let span = dims[6]
            .first()
            .map_or_else(Span::call_site, TokenTree::span);
        dim_types[5] = error(span, "`Shape!` takes at most 6 dims");
    }
    quote!(#p::#rank<#(#dim_types),*>)
}

/// Parses, checks, lowers and emits. Returns code or `compile_error!`s; never panics on
/// user input. Every error of every graph is reported; each function whose signature
/// parsed is still emitted, so the rest of the crate raises no follow-on errors.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let mut parsed: GraphInput = match syn::parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let rt = &parsed.runtime;
    let item_errors = parsed.errors.iter().map(|e| e.to_compile_error());
    let code: TokenStream = emit::with_runtime_features(parsed.features, || match &parsed.body {
        GraphBody::Items(items) => {
            let mut code: TokenStream = items.iter().map(|f| expand_fn(rt, f)).collect();
            // `grad fn`/`vjp fn` items: graph functions written by `derive` from the
            // graph they name, then compiled like the others.
            for d in std::mem::take(&mut parsed.derived) {
                let Some(forward) = items.iter().find(|f| f.name == d.graph) else {
                    let names: Vec<String> =
                        items.iter().map(|f| format!("`{}`", f.name)).collect();
                    let message = format!(
                        "no graph function `{}` in this `graph!` block to differentiate; it holds {}",
                        d.graph,
                        names.join(", ")
                    );
                    code.extend(syn::Error::new(d.graph.span(), message).to_compile_error());
                    continue;
                };
                if !forward.syntax_errors.is_empty() {
                    continue; // reported with the graph itself
                }
                match derive::derive(forward, d) {
                    Ok(derived) => code.extend(expand_fn(rt, &derived)),
                    Err(e) => code.extend(e.to_compile_error()),
                }
            }
            code
        }
        GraphBody::Closure(f) => {
            let item = expand_fn(rt, f);
            let value = emit::closure_value(rt, f);
            quote! {{
                #item
                #value
            }}
        }
    });
    quote! {
        #(#item_errors)*
        #code
    }
}

fn expand_fn(rt: &TokenStream, f: &GraphFn) -> TokenStream {
    // `mut` parameters: a hidden graph of the updates and a wrapper (emit/in_place.rs).
    if f.params.iter().any(|p| p.mutable) && f.syntax_errors.is_empty() {
        return emit::expand_in_place(rt, f, |hidden| expand_checked(rt, hidden));
    }
    expand_checked(rt, f).0
}

/// `expand_fn` of a graph without `mut` parameters, with its checked graph (`None` when it
/// has errors).
fn expand_checked(rt: &TokenStream, f: &GraphFn) -> (TokenStream, Option<ir::TypedGraph>) {
    let mut errors = Errors::default();
    for e in &f.syntax_errors {
        errors.push_error(e.clone());
    }
    for e in &f.attr_errors {
        errors.push_error(e.clone());
    }
    // `#[allow(tensorgraph::KIND)]` on the graph (ast.rs `graph_allows`).
    let silenced = |marker: &str| {
        f.allowed_warnings
            .iter()
            .any(|kind| marker.starts_with(kind.as_str()))
    };
    // A body that did not parse is not checked: its errors would be follow-ons.
    let graph = if f.syntax_errors.is_empty() {
        check_graph(f, &mut errors)
    } else {
        None
    };
    let kernel = graph.as_ref().map(lower::lower_graph);
    let mut warnings = TokenStream::new();
    // An erroneous graph's warnings are mostly follow-ons (a misspelt parameter is
    // "unused"), so they wait until the errors are fixed.
    if errors.is_empty() {
        if !silenced("unused_parameter") {
            for ident in unused_params(f) {
                warnings.extend(unused_warning(f, ident));
            }
        }
        for w in errors.take_warnings() {
            if !silenced(&w.marker) {
                warnings.extend(warning(w.span, &w.marker, &w.message));
            }
        }
    }
    // The function's paths into `__private` go through one alias (emit/names.rs
    // `PRIVATE_ALIAS`), bound beside its items.
    let (alias, code) = emit::with_private_alias(rt, &f.name, || {
        emit::emit_graph_fn(rt, f, graph.as_ref(), kernel.as_ref(), &warnings)
    });
    let errors = errors.combined().map(|e| e.to_compile_error());
    let code = quote! {
        #errors
        #alias
        #code
    };
    (code, graph)
}

fn unused_warning(f: &GraphFn, ident: &syn::Ident) -> TokenStream {
    let owner = if f.name == "__tg_graph" {
        "this graph closure".to_string()
    } else {
        format!("`{}`", f.name)
    };
    let message = format!(
        "parameter `{ident}` of {owner} is never used\n\
         help: remove it, or name it `_{ident}` if it is intentionally unused"
    );
    warning(ident.span(), &format!("unused_parameter_{ident}"), &message)
}

/// A real, `#[allow]`-able warning: a deprecated marker constant read at `span`, placed in
/// the generated function's body so `#[allow(deprecated)]` on the graph silences it.
/// (Stable proc macros cannot emit warnings directly.)
fn warning(span: proc_macro2::Span, marker: &str, message: &str) -> TokenStream {
    let marker = quote::format_ident!("{}", marker, span = span);
    quote::quote_spanned! {span=>
        {
            #[deprecated(note = #message)]
            #[allow(non_upper_case_globals)]
            const #marker: () = ();
            let _ = #marker;
        }
    }
}

#[cfg(test)]
mod tests {
    //! The macro never panics, whatever tokens it is given: valid graphs mutated token by
    //! token (deleted, duplicated, swapped, replaced, regrouped) with a fixed-seed PRNG,
    //! and random token soup. Each expansion must be syntactically valid Rust: code, or
    //! `compile_error!`s beside the emitted signatures.

    use super::expand;
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    use std::str::FromStr;

    const SEEDS: &[&str] = &[
        "fn f(x: f32[4, 8], b: f32[8]) -> f32[4, 8] { let h = x + b; relu(h) * 2.0 }",
        "pub fn g(a: u8[3], s: u8) -> (u8[3], bool[3]) { (a << 1 | s, a == 0) }",
        "|a: f32[4, 1], b: f32[1, 8]| relu(a + b) * 2.0",
        "|x: i32[2, 3]| -> f64[2, 3] { let y = x as f64; where(x > 0, sqrt(y), -y) }",
        "/// doc\n fn h(x: f16[], y: bf16[2]) -> f32[2] { (x as f32) + (y as f32) % 3 }",
        "fn k(x: f64[5]) -> bool[5] { is_nan(x) && !is_inf(x) || x >= 1e300 }",
        "fn m(x: i64[2, 2], y: i64[2]) -> i64[2, 2] { max(x, y) - min(y, 3) / -x ^ 7 >> 2 }",
        "|c: bool[4], x: u16[4]| where(c, x, 65535)",
        "fn s(x: f32[3]) -> f32[3] { sum(x, axis = [0], keepdims = true) + mod(x, 2.5) }",
        "fn l(x: f32[4], w: f32[4, 2]) -> f32[] { mean(tanh(x @ w)) } grad fn g = value_and_grad(l, wrt = [w]);",
        "fn u(mut w: f32[N], mut m: f32[N], g: f32[N], lr: f32) { m = 0.9 * m + g; w = w - lr * stop_gradient(m); }",
        "fn v(x: f64[2, 3]) -> f64[2, 3] { softmax(x, axis = 1) } vjp fn vv = vjp(v, wrt = [x]);",
    ];

    const VOCAB: &[&str] = &[
        "f32",
        "f16",
        "bf16",
        "u8",
        "i32",
        "u64",
        "bool",
        "x",
        "y",
        "b",
        "fn",
        "let",
        "as",
        "where",
        "mod",
        "pub",
        "relu",
        "sum",
        "mut",
        "grad",
        "vjp",
        "value_and_grad",
        "wrt",
        "axis",
        "+",
        "-",
        "*",
        "/",
        "%",
        "<<",
        ">>",
        "==",
        "!=",
        "<",
        ">=",
        "&",
        "|",
        "^",
        "!",
        "&&",
        "||",
        "->",
        ":",
        ";",
        ",",
        "=",
        "#",
        "'x'",
        "0",
        "1",
        "300",
        "16777217",
        "340282366920938463463374607431768211455",
        "2.5",
        "1e40",
        "0.0",
        "true",
        "4u8",
        "1.5f32",
        "\"s\"",
        "()",
        "[]",
        "{}",
        "[4, 8]",
        "(x)",
        "$",
        "_",
        "_x",
    ];

    /// The tests' generator (tensor-core's `testing::Rng`), with indices for the fuzzers.
    pub(crate) struct Rng(tensor_core::testing::Rng);

    impl Rng {
        pub(crate) fn new(seed: u64) -> Rng {
            Rng(tensor_core::testing::Rng::new(seed))
        }

        pub(crate) fn next(&mut self) -> u64 {
            self.0.next_u64()
        }

        pub(crate) fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    fn vocab(rng: &mut Rng) -> Vec<TokenTree> {
        TokenStream::from_str(VOCAB[rng.below(VOCAB.len())])
            .expect("vocab lexes")
            .into_iter()
            .collect()
    }

    pub(crate) fn mutate(stream: TokenStream, rng: &mut Rng) -> TokenStream {
        let mut tokens: Vec<TokenTree> = stream.into_iter().collect();
        let i = rng.below(tokens.len() + 1);
        match rng.below(8) {
            0 if i < tokens.len() => {
                tokens.remove(i);
            }
            1 => {
                let new = vocab(rng);
                tokens.splice(i..i, new);
            }
            2 if i < tokens.len() => {
                let new = vocab(rng);
                tokens.splice(i..=i, new);
            }
            3 if i < tokens.len() => {
                let t = tokens[i].clone();
                tokens.insert(i, t);
            }
            4 if tokens.len() >= 2 => {
                let j = rng.below(tokens.len());
                let last = tokens.len() - 1;
                tokens.swap(i.min(last), j);
            }
            5 if i < tokens.len() => {
                let delimiter = [
                    Delimiter::Parenthesis,
                    Delimiter::Bracket,
                    Delimiter::Brace,
                    Delimiter::None,
                ][rng.below(4)];
                if let TokenTree::Group(g) = &tokens[i] {
                    tokens[i] = TokenTree::Group(Group::new(delimiter, g.stream()));
                }
            }
            6 if i < tokens.len() => {
                // Truncate: a graph cut off anywhere.
                tokens.truncate(i);
            }
            _ => {
                // Mutate inside a group, if there is one.
                let groups: Vec<usize> = (0..tokens.len())
                    .filter(|&k| matches!(tokens[k], TokenTree::Group(_)))
                    .collect();
                if !groups.is_empty() {
                    let k = groups[rng.below(groups.len())];
                    if let TokenTree::Group(g) = &tokens[k] {
                        let inner = mutate(g.stream(), rng);
                        tokens[k] = TokenTree::Group(Group::new(g.delimiter(), inner));
                    }
                }
            }
        }
        tokens.into_iter().collect()
    }

    fn assert_expands(body: TokenStream) {
        let mut input = TokenStream::from_str("::tensorgraph;").unwrap();
        input.extend(body.clone());
        let out = expand(input);
        let text = out.to_string();
        assert!(!text.is_empty(), "empty expansion for `{body}`");
        let valid =
            syn::parse2::<syn::File>(out.clone()).is_ok() || syn::parse2::<syn::Expr>(out).is_ok();
        assert!(valid, "expansion of `{body}` is not valid Rust:\n{text}");
    }

    #[test]
    fn seeds_expand_without_errors() {
        for (i, seed) in SEEDS.iter().enumerate() {
            let mut input = TokenStream::from_str("::tensorgraph;").unwrap();
            input.extend(TokenStream::from_str(seed).unwrap());
            let text = expand(input).to_string();
            assert!(!text.contains("compile_error"), "seed {i} failed: {text}");
        }
    }

    #[test]
    fn mutated_graphs_never_panic() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for round in 0..6000 {
            let seed = SEEDS[round % SEEDS.len()];
            let mut stream = TokenStream::from_str(seed).unwrap();
            for _ in 0..1 + rng.below(6) {
                stream = mutate(stream, &mut rng);
            }
            assert_expands(stream);
        }
    }

    #[test]
    fn random_token_soup_never_panics() {
        let mut rng = Rng::new(0xD1B5_4A32_D192_ED03);
        for _ in 0..3000 {
            let mut stream = TokenStream::new();
            for _ in 0..rng.below(24) {
                let tokens = vocab(&mut rng);
                if rng.below(6) == 0 {
                    let delimiter = [Delimiter::Parenthesis, Delimiter::Bracket, Delimiter::Brace]
                        [rng.below(3)];
                    let inner: TokenStream = tokens.into_iter().collect();
                    stream.extend(Some(TokenTree::Group(Group::new(delimiter, inner))));
                } else {
                    stream.extend(tokens);
                }
            }
            assert_expands(stream);
        }
    }

    #[test]
    fn empty_and_degenerate_inputs() {
        for text in [
            "",
            "fn",
            "|",
            "||",
            "|x| x",
            "fn f",
            "fn f()",
            "fn f() -> f32[]",
            "fn f() -> f32[] {}",
            "fn f() -> f32[] { 1 }",
        ] {
            assert_expands(TokenStream::from_str(text).unwrap());
        }
        // Without the runtime prefix at all.
        let _ = expand(TokenStream::new());
        let _ = expand(TokenStream::from_str("fn f(x: f32[4]) -> f32[4] { x }").unwrap());
    }
}

/// Softmax's `e / sum` takes the registry's invariant-divisor form where the sum is fixed
/// for the row (`div_softmax_lanes`) and the op's own division where it varies along the
/// inner loop (`softmax(x, axis = 0)`); a plain `/` by a row value, `div_invariant_lanes`.
#[cfg(test)]
#[test]
fn divisions_take_their_invariant_form_only_with_an_invariant_divisor() {
    use std::str::FromStr;
    let text = |src: &str| expand(TokenStream::from_str(src).unwrap()).to_string();
    let rows = text("crate; fn f(x: f32[8, 64]) -> f32[8, 64] { softmax(x, axis = 1) }");
    assert!(rows.contains("div_softmax_lanes") && !rows.contains("div_lanes ("));
    let cols = text("crate; fn f(x: f32[8, 64]) -> f32[8, 64] { softmax(x, axis = 0) }");
    assert!(!cols.contains("div_softmax_lanes") && cols.contains("div_softmax_plain_lanes"));
    let plain =
        text("crate; fn f(x: f32[8, 64]) -> f32[8, 64] { x / sum(x, axis = 1, keepdims = true) }");
    assert!(plain.contains("div_invariant_lanes") && !plain.contains("div_softmax_lanes"));
}

/// Which row stages read the next row in their last pass: softmax's scale pass, the last of
/// three, whose stores go to the output row its exp pass stored, runs the max pass for the
/// next row (lower/row_fusion.rs `pipeline_first_pass`: `x` at row `__tg_i0 + 1`, which its
/// exp pass prefetches, emit/stages.rs `pipelined_prefetches`); where the max pass cannot move there (a value fixed per row, `x * r`), it
/// prefetches the next row of `x` instead (emit/stages.rs `next_row_prefetch`: one slice, one
/// prefetch per chunk of its main loop); layer norm's output pass is first to store the
/// output row, so neither; a lone pass, neither.
#[cfg(test)]
#[test]
fn only_a_last_pass_over_rows_in_cache_reads_the_next_row() {
    use std::str::FromStr;
    let text = |src: &str| expand(TokenStream::from_str(src).unwrap()).to_string();
    let count = |text: &str, what: &str| text.matches(what).count();
    let softmax = text("crate; fn f(x: f32[8, 64]) -> f32[8, 64] { softmax(x, axis = 1) }");
    assert_eq!(count(&softmax, "if __tg_i0 + 1 < 8"), 1);
    assert_eq!(count(&softmax, "let __tg_pf0 :"), 1);
    assert!(softmax.contains("if __tg_row + 1 < 8"));
    assert!(!softmax.contains("__tg_pf1"));
    let scaled =
        text("crate; fn f(x: f32[8, 64], r: f32[8, 1]) -> f32[8, 64] { softmax(x * r, axis = 1) }");
    assert!(!scaled.contains("if __tg_i0 + 1 <"));
    assert_eq!(count(&scaled, "let __tg_pf0 :"), 1);
    assert_eq!(count(&scaled, "prefetch_chunk"), 1);
    assert!(!scaled.contains("__tg_pf1"));
    let norm = text(
        "crate; fn f(x: f32[8, 64]) -> f32[8, 64] { let d = x - mean(x, axis = 1, keepdims = true); \
         d * rsqrt(mean(d * d, axis = 1, keepdims = true) + 1e-5) }",
    );
    assert!(!norm.contains("prefetch_chunk"));
    let lone = text("crate; fn f(x: f32[8, 64]) -> f32[8] { sum(x, axis = 1) }");
    assert!(!lone.contains("prefetch_chunk"));
    // Two inputs the max pass reads: two slices. Rows from 1 of a symbolic row length: the
    // slice starts at the base offset. (tests/row_fusion.rs `prefetching_softmax_*`
    // runs these against a reference.)
    let two = text(
        "crate; fn f(x: f32[B, N], z: f32[B, N], r: f32[B, 1]) -> f32[B, N] { softmax((x + z) * r, axis = 1) }",
    );
    assert_eq!(count(&two, "let __tg_pf0 :"), 1);
    assert_eq!(count(&two, "let __tg_pf1 :"), 1);
    let from1 = text(
        "crate; fn f(x: f32[9, N], r: f32[8, 1]) -> f32[8, N] { softmax(slice(x, axis = 0, start = 1) * r, axis = 1) }",
    );
    assert_eq!(count(&from1, "let __tg_pf0 :"), 1);
    assert!(from1.contains("if __tg_row + 1 < 8"));
    // Pipelined, both inputs at the next row; from row 1, clamped at the stage's last row.
    let two =
        text("crate; fn f(x: f32[B, N], z: f32[B, N]) -> f32[B, N] { softmax(x + z, axis = 1) }");
    assert_eq!(count(&two, "if __tg_i0 + 1 < (1usize * __tg_dim_B)"), 2);
    let from1 = text(
        "crate; fn f(x: f32[9, N]) -> f32[8, N] { softmax(slice(x, axis = 0, start = 1), axis = 1) }",
    );
    assert_eq!(count(&from1, "if __tg_i0 + 1 < 8"), 1);
    // Rows walked backwards (a negative row stride), a transposed input (inner stride not
    // 1), f16 (its scale pass is first to store the f16 output row), rows of 5: nothing.
    for src in [
        "crate; fn f(x: f32[9, N]) -> f32[9, N] { softmax(flip(x, axis = 0), axis = 1) }",
        "crate; fn f(x: f32[N, 6]) -> f32[6, N] { softmax(transpose(x), axis = 1) }",
        "crate; fn f(x: f16[9, N]) -> f16[9, N] { softmax(x, axis = 1) }",
        // Rows shorter than a chunk: no main loop to prefetch from.
        "crate; fn f(x: f32[B, 5]) -> f32[B, 5] { softmax(x, axis = 1) }",
    ] {
        assert!(!text(src).contains("prefetch_chunk"), "{src}");
    }
}

#[cfg(test)]
mod expansion_timing {
    //! `TG_GRAPHS=path/to/graphs_only/src/lib.rs cargo test -p tensorgraph-macros --lib
    //! expansion_timing -- --ignored --nocapture`: expands every `graph! { … }` of a file
    //! (gen.py's crates) REPS times and prints the time per graph, for profiling the
    //! macro outside rustc (proc_macro2's fallback tokens, not the compiler bridge).

    use proc_macro2::{TokenStream, TokenTree};
    use std::str::FromStr;

    /// `flag`: "" (both branches, as the closure form), ", debug" or ", release" (what
    /// `graph!`'s item form passes in a debug or release build).
    fn graphs(src: &str, flag: &str) -> Vec<TokenStream> {
        let tokens: Vec<TokenTree> = TokenStream::from_str(src)
            .expect("lexes")
            .into_iter()
            .collect();
        let mut out = Vec::new();
        for w in tokens.windows(3) {
            if let [TokenTree::Ident(i), TokenTree::Punct(p), TokenTree::Group(g)] = w {
                if i == "graph" && p.as_char() == '!' {
                    let mut input =
                        TokenStream::from_str(&format!("::tensorgraph{flag};")).unwrap();
                    input.extend(g.stream());
                    out.push(input);
                }
            }
        }
        out
    }

    /// Ignored: a measuring aid, not a check. It times the macro on a generated crate's
    /// graphs (`TG_GRAPHS=path/to/lib.rs REPS=20 cargo test --release -p
    /// tensorgraph-macros --lib expansion_timing -- --ignored --nocapture`, crates from
    /// benches/compile_time/gen.py), and no time it prints can be asserted on a shared
    /// machine. Run without `TG_GRAPHS` it fails, saying so.
    #[test]
    #[ignore]
    fn expansion_timing() {
        let path = std::env::var("TG_GRAPHS")
            .expect("TG_GRAPHS=<a gen.py crate's lib.rs>: the graphs to expand");
        let reps: usize = std::env::var("REPS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(20);
        // FLAG=debug or FLAG=release: the branch a build of that kind expands.
        let flag = std::env::var("FLAG").map_or(String::new(), |f| format!(", {f}"));
        let graphs = graphs(&std::fs::read_to_string(path).unwrap(), &flag);
        let t = std::time::Instant::now();
        let mut tokens = 0;
        for _ in 0..reps {
            for g in &graphs {
                let out = super::expand(g.clone());
                tokens += out.into_iter().count();
            }
        }
        let per = t.elapsed().as_secs_f64() * 1e3 / (reps * graphs.len()) as f64;
        println!(
            "{} graphs, {per:.3} ms per graph, {} top-level tokens per graph",
            graphs.len(),
            tokens / (reps * graphs.len())
        );
    }
}
