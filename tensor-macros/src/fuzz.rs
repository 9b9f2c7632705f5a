//! The macro against graphs from the random generator (tools/graphgen, issue 18): every
//! generated graph is well typed by the language's rules, so it must expand without an
//! error; and mutations of them (token edits, wrong dtypes and shapes, bad named
//! parameters, junk) must never make the macro panic, and every error it reports must
//! point into the graph's own tokens. The expansions of the valid graphs are also scanned
//! for code that can panic at run time, and for the runtime functions they call (issue 37,
//! item 2; NOTES.md "Panics in kernels").

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
    expand_tokens(source).to_string()
}

/// The expansion for a runtime with the `ndarray` feature, which emits every kernel a
/// graph has (a graph with names also gets its row-pitched kernel, emit/signature.rs
/// `with_ndarray_args`), so the scans below read them all.
fn expand_tokens(source: &str) -> TokenStream {
    let mut input = TokenStream::from_str("::tensorgraph, ndarray;").unwrap();
    input.extend(TokenStream::from_str(source).expect("generated source lexes"));
    expand(input)
}

/// One generated graph of the CI seed, expanded once for the tests that read it
/// (`generated_graphs_expand_without_errors`, `generated_kernels_have_no_panicking_calls`).
struct Expanded {
    index: u64,
    /// The source that did not check, and its expansion from the first `compile_error` on.
    error: Option<String>,
    scan: PanicScan,
}

/// The first `count(600)` graphs of `graphgen::CI_SEED`, expanded and scanned once per test
/// run (the tests that share them wait for the first to finish expanding). A graph that
/// tensorgraph-tests/tests/graphgen.rs calls in the closure form is expanded in that form too (its item and
/// the closure value around it), and both expansions are checked and scanned.
fn ci_expansions() -> &'static [Expanded] {
    static EXPANDED: std::sync::OnceLock<Vec<Expanded>> = std::sync::OnceLock::new();
    EXPANDED.get_or_init(|| {
        (0..count(600))
            .map(|index| {
                let g = graphgen::gen::generate(graphgen::CI_SEED, index);
                let mut sources = vec![graphgen::render::graph(&g)];
                if let graphgen::ast::Form::Closure { typed } = g.form {
                    sources.push(graphgen::render::closure(&g, typed));
                }
                let mut scan = PanicScan::default();
                let mut error = None;
                for source in &sources {
                    let tokens = expand_tokens(source);
                    scan.walk(tokens.clone(), false);
                    let text = tokens.to_string();
                    if let Some(at) = text.find("compile_error") {
                        let end = (at + 400).min(text.len());
                        error.get_or_insert_with(|| format!("{source}\n{}", &text[at..end]));
                    }
                }
                Expanded { index, error, scan }
            })
            .collect()
    })
}

/// Every generated graph type-checks: the generator and the checker agree on the rules.
#[test]
fn generated_graphs_expand_without_errors() {
    // The test can fail: a graph that does not check is seen as one.
    assert!(expand_text("fn f(x: u32[2]) -> i32[2] { x + 1 }").contains("compile_error"));
    let failures: Vec<String> = ci_expansions()
        .iter()
        .filter_map(|e| {
            let error = e.error.as_ref()?;
            Some(format!("graph {}:\n{error}\n", e.index))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} generated graphs failed to check:\n{}",
        failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}

/// The panicking constructs an expansion may contain, each with the reason it cannot
/// fire on a legal graph (NOTES.md "Panics in kernels"). Keys are `PanicScan`'s: `const`
/// or `run` (where the construct is evaluated), the construct, and its arguments with the
/// `::tensorgraph::__private::` and `::core::` prefixes dropped.
const PANIC_ALLOWLIST: &[(&str, &str)] = &[
    (
        "const assert!(LANES == 8 || LANES == 16 , \"tensorgraph's macro and runtime disagree on the lane count\")",
        "compile time (a `const` item): a failure is a build error, never a panic; it holds \
         because tensor-core's lanes.rs sets LANES to 16 (AVX-512 builds) or 8, emit/names.rs's \
         MIN_LANES/MAX_LANES",
    ),
    (
        "const assert!(F32_BLOCK % (4 * LANES) == 0)",
        "compile time (a `const` item): vmath's BLOCK is 256, a multiple of 4 * 16 and of \
         4 * 8 (`LANES` is the kernel copy's, `__tg_lanes::LANES`: 8 or 16)",
    ),
];

/// The runtime functions generated kernels call, each audited for panics on what a legal
/// graph passes them after call entry (NOTES.md "Panics in kernels" says where each is
/// proven): an exact name, or a prefix ending in `::` for a trait's or module's functions.
/// A function the scan finds outside this list fails the test until it is audited.
const RUNTIME_AUDITED: &[(&str, &str)] = &[
    (
        ".sqrt",
        "f64::sqrt of attention's head dim (its default scale): never panics",
    ),
    (
        "dispatch_kernel",
        "tensor-core's macro: the kernel function as written, or (the `dispatch` feature) two \
      copies of it and `vmath::kernel_isa()`, an atomic load and `is_x86_feature_detected!` \
      once; no index, unwrap or panic",
    ),
    // Step 1 of a by-name argument's checks (tensor-core args.rs): `SameDtype`'s identity
    // on the argument's own `StaticInput::elements` / `StaticOutput::elements_mut` /
    // `Lend::lend` / `LendMut::lend_mut`, the calls the generated per-argument method made
    // before (branch h48) and which the scan did not list then either.
    (
        "ReadsAs::read_as",
        "args.rs: `SameDtype::slice` of `StaticInput::elements`; no index, unwrap or panic",
    ),
    (
        "WritesAs::write_as",
        "args.rs: `SameDtype::slice_mut` of `StaticOutput::elements_mut`; no index, unwrap or \
         panic",
    ),
    (
        "LendsAs::lend_as",
        "args.rs: `SameDtype::parts` of `Lend::lend`; no index, unwrap or panic",
    ),
    (
        "LendsMutAs::lend_mut_as",
        "args.rs: `SameDtype::parts_mut` of `LendMut::lend_mut`; no index, unwrap or panic",
    ),
    // Call entry: every failure is the graph's `Err`.
    (
        "bind_entry",
        "bind.rs: `get`, `checked_product`; no index, unwrap or panic",
    ),
    ("check_entry_sizes", "bind.rs: `checked_mul` into an `Err`"),
    // The debug backend (issue 33 item 1): tensor-core's blocks/.
    (
        "blocks::run_nest",
        "blocks/mod.rs: safe code; checked slice indices at the offsets lowering fixed (the \
      fused kernel's `load`/`store` offsets, in range for a legal graph), `unreachable!` only \
      where the program's value types disagree, which emit/debug.rs never writes",
    ),
    (
        "blocks::run_stage_rows",
        "blocks/mod.rs: `run_stage` for rows `lo..hi` of a product stage's block (its \
      prologue or epilogue nests; `lo..hi` within the stage's rows, the fused kernel's \
      block); block temps addressed at `(row - block start)·stride` as the fused kernel's, \
      in range for a legal graph; gathers' positions checked at call entry, each access a \
      checked slice index",
    ),
    (
        "blocks::run_code_v1",
        "blocks/program.rs: decodes the macro's byte string (every read checked; a program \
      it cannot read reaches `bad_program`, a panic only a tensorgraph-macros and \
      tensorgraph-core of different versions can cause, and the versioned name makes that \
      pair a compile error) into the `Nest`/`Stage` values the struct literals built, then \
      `run_nest`/`run_stage`/`run_stage_rows` as above",
    ),
    (
        "blocks::runtime_step",
        "blocks/mod.rs: a relaxed atomic increment (a counter for tests), total",
    ),
    (
        "blocks::run_stage",
        "blocks/mod.rs: `run_nest` for each row of a row stage and each of its nests, the \
      row-local temps refilled (`fill_buf`: `unreachable!` only for a start value of \
      another type than its temp, which emit/debug.rs never writes); the reductions' \
      accumulator indices are the fused kernel's operand offsets, in range for a legal graph",
    ),
    (
        "blocks::bool_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::u8_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::u16_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::u32_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::u64_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::i8_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::i16_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::i32_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::i64_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::f32_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::f64_ops",
        "blocks/ops.rs: the lane function over whole chunks of a 256-element register (in range by construction); `unreachable!` as run_nest",
    ),
    (
        "blocks::casts",
        "blocks/ops.rs: `lanes::cast` over whole chunks of a register, as the `_ops` modules",
    ),
    (
        "check_indices",
        "bind.rs: min/max and `position` over the indices, `%`/`/` by non-zero dims, `get`; every failure an `Err`",
    ),
    (
        "check_index_tuples",
        "bind.rs: `get` of each component's bound, `%`/`/` by non-zero dims; an `Err`",
    ),
    (
        "positions",
        "reduce.rs: wrapping `usize` arithmetic on the lane positions, no memory",
    ),
    (
        "top_k",
        "reduce.rs: returns when k, outer or inner is 0; `select_nth_unstable_by(k - 1)` with \
      1 ≤ k ≤ len; reads `outer·len·inner` and writes `outer·k·inner` elements of temps \
      lowering sized so",
    ),
    (
        "attention",
        "attention.rs: returns unless every buffer holds its shape's elements; views built \
      with `MatRef::new` (checked); tiles from the scratch pool sized for the tile",
    ),
    (
        "MaxPool::max_pool",
        "pool.rs: returns unless the window can run (no 0 kernel, stride or dilation; \
      checked products) and `x`, `out` hold their planes; every index is a checked slice \
      range (the row buffer and phases are sized for the farthest tap, `PoolWindow::plan`); \
      the `expect`s convert slices of exactly `LANES`",
    ),
    (
        "Resize::resize",
        "resize.rs: returns unless every axis is consistent (taps 1-4, every index inside its \
      axis, runs inside the axis and equal to the taps they stand for) and `x`, `out` hold \
      their planes (checked products); every index is a checked slice range (cached rows \
      and phases sized for the farthest vector a run writes or reads); the `expect`s \
      convert slices of exactly `LANES`",
    ),
    (
        "scatter_elements",
        "indexing.rs: positions outside their axis or `out` are skipped",
    ),
    (
        "scatter_nd",
        "indexing.rs: tuples outside the data or the updates are skipped",
    ),
    (
        "gather_nd",
        "indexing.rs: tuples outside the data give the default; writes clipped to `out`",
    ),
    (".wrapping_add", "integer method, total"),
    (".wrapping_mul", "integer method, total"),
    (".wrapping_sub", "integer method, total"),
    ("entry_error", "unboxes the error"),
    (
        "graph_output",
        "tensor.rs `alloc_len`: element and byte counts checked into `TooLarge`",
    ),
    (".arg_shape", "args.rs: copies the lent length and dims"),
    (
        ".arg_shape_pitched",
        "args.rs: copies the lent length, dims and row pitch (bind.rs `strided_len` is \
         checked arithmetic after `checked_product`)",
    ),
    (".is_none", "Option method, total (a lent row pitch, call entry's kernel choice)"),
    ("Lend::", "args.rs: lends the buffer and dims"),
    ("LendMut::", "args.rs: lends the buffer and dims"),
    (
        "LendPointee::",
        "args.rs: `Lend` of the value behind a closure's reference",
    ),
    (
        "StaticInput::",
        "args.rs: the buffer; its length is its static shape's (type-checked)",
    ),
    (
        "StaticPointee::",
        "args.rs: `StaticInput` behind a closure's reference",
    ),
    (
        "StaticOutput::",
        "args.rs: the buffer; its length is its static shape's (type-checked)",
    ),
    ("SameDtype::", "args.rs: identity on the slice"),
    ("Tensor::as_mut_slice", "the buffer"),
    (
        "Tensor::zeros",
        "static outputs; panics only where the literal dims' bytes pass \
      isize::MAX (a finding: NOTES.md)",
    ),
    // Lane arithmetic: total functions of registers (wrapping integers, 0 for x / 0 and
    // x % 0, shifts range-checked), no memory.
    ("NumLanes::", "reference.rs semantics, total"),
    ("FloatLanes::", "vmath kernels and reference.rs, total"),
    ("ActivationLanes::", "compositions of the above"),
    ("CompareLanes::", "total"),
    ("BitwiseLanes::", "total"),
    (
        "ShiftLanes::",
        "reference.rs `Shift`: amounts range-checked",
    ),
    ("SelectLanes::", "total"),
    (
        "BitCountLanes::",
        "total; its `expect`s are on `chunks_exact(8)`",
    ),
    ("Num::", "reference.rs, total"),
    ("Bitwise::", "total"),
    ("Compare::", "total"),
    ("Identity::", "constants"),
    ("Element::", "conversions, total"),
    ("V::", "`splat`: no index"),
    (
        "cast",
        "cast.rs: Rust `as` and exact round-to-odd; no index",
    ),
    ("f16::", "half's conversions of literals"),
    ("bf16::", "half's conversions of literals"),
    ("group_values", "`W > 0` is a `const` assert"),
    ("lane_mask", "no index"),
    ("mask_or", "no index"),
    ("fold", "indices below LANES"),
    ("iota", "lane indices of a row: base + LANES fits"),
    ("iota_strided", "lane indices of a row"),
    ("arg_combine", "indices below LANES"),
    ("arg_step", "indices below LANES"),
    ("arg_indices", "indices below LANES"),
    ("arg_fold", "indices below LANES"),
    (
        "f32_block::",
        "`block_mut`: a BLOCK-long range just stored; the kernels are in place",
    ),
    // Memory: slice indexing in bounds by lowering's offsets (NOTES.md).
    (
        "load",
        "a LANES-long range (its `expect` cannot fire); offsets from lowering",
    ),
    ("load_strided", "offsets from lowering"),
    (
        "load_strided_back",
        "a flipped walk starts at its last element",
    ),
    ("store", "as `load`"),
    ("store_streaming", "as `store`, full chunks only"),
    ("stream_head", "arithmetic on the address, wrapping"),
    ("stream_fence", "`sfence`"),
    ("prefetch_chunk", "a hint, never dereferenced"),
    (
        "ScratchVec::",
        "the temps' lengths; panics only where their bytes pass isize::MAX \
      (a finding: NOTES.md)",
    ),
    // Tasks.
    (
        "row_chunks",
        "rows of at least one element, tasks of at least one row",
    ),
    (
        "rows_per_task",
        "at least 1; divides by `rows > 1` and a `max(1)`",
    ),
    ("run_chunked", "slots below TASKS_PER_ROUND"),
    // Scans and products.
    (
        "scan",
        "temps of `outer · len · inner`; a zero row is returned before `chunks`",
    ),
    ("matmul", "matmul.rs: each `expect` proven at its site"),
    ("matmul_packed", "matmul.rs"),
    ("pack_rhs", "matmul.rs"),
    (
        "pack_rhs_len",
        "panics where `k · n` overflows (a finding: NOTES.md)",
    ),
    ("PlainGemm::", "the four above, not generic"),
    (
        "ConvGemm::",
        "conv.rs: `ConvWeights::new`/`Im2col::new` check every element the views can name \
      (their `expect`s fire only on views lowering did not derive from the operands, \
      lower/products.rs `lower_conv`), the `c` block is `m·n` from the call's row, and \
      each chunk's product is `k`-consistent by construction (the comment at its `expect`)",
    ),
    // Iterator and slice methods of std on the chunk iterators and temps.
    (".enumerate", "std"),
    (".zip", "std"),
    (".fill", "std: `[T]::fill`"),
    (
        ".copy_from_slice",
        "std: a gathered row copied whole (emit/nests.rs row copy): both ranges are the \
         elements the chunk loop's loads and stores address, equal in length",
    ),
];

/// Whether `item` (a `PanicScan::runtime` name) is a function that `RUNTIME_AUDITED` must
/// list: not a type, trait, constant or associated type (`V`, `f16`, `LANES`,
/// `Checked::Out`).
fn is_runtime_call(item: &str) -> bool {
    let last = item.rsplit("::").next().unwrap_or(item);
    let callable = last.starts_with(|c: char| c.is_ascii_lowercase()) || item.starts_with('.');
    callable && !matches!(item, "f16" | "bf16") && !item.starts_with("DeclDim::")
}

fn audited(item: &str) -> bool {
    RUNTIME_AUDITED
        .iter()
        .any(|(name, _)| *name == item || name.ends_with("::") && item.starts_with(name))
}

/// Identifiers that panic when called (`x.unwrap()`, `Option::expect`; `unwrap_unchecked`
/// is undefined behaviour instead), and macros that panic when run (`debug_assert*` in
/// debug builds only: its keys name it, and it needs an entry like the others).
const PANIC_IDENTS: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_unchecked",
    "expect_err",
    "unwrap_err",
];
const PANIC_MACROS: &[&str] = &[
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
];

/// What one expansion holds that can panic, and what it calls in the runtime.
#[derive(Default)]
struct PanicScan {
    /// One key per panicking construct (`PANIC_ALLOWLIST`'s keys).
    constructs: Vec<String>,
    /// The `__private` items named (`store`, `V::splat`, `CompareLanes::gt_lanes`,
    /// `Tensor::zeros`, types too) and `.method(` calls (`.arg_shape`).
    runtime: std::collections::BTreeSet<String>,
}

impl PanicScan {
    fn of(tokens: TokenStream) -> PanicScan {
        let mut scan = PanicScan::default();
        scan.walk(tokens, false);
        scan
    }

    fn walk(&mut self, tokens: TokenStream, in_const: bool) {
        let t: Vec<TokenTree> = tokens.into_iter().collect();
        // The statement `t[k]` is in starts at `start` (after the last `;` or brace group).
        let mut start = 0;
        let mut is_const = in_const || starts_const(&t, start);
        for (k, tt) in t.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => {
                    self.walk(g.stream(), is_const);
                    if g.delimiter() == proc_macro2::Delimiter::Brace {
                        start = k + 1;
                        is_const = in_const || starts_const(&t, start);
                    }
                }
                TokenTree::Punct(p) if p.as_char() == ';' => {
                    start = k + 1;
                    is_const = in_const || starts_const(&t, start);
                }
                TokenTree::Ident(i) => {
                    let name = i.to_string();
                    let bang = is_punct(t.get(k + 1), '!');
                    let when = if is_const { "const" } else { "run" };
                    if bang && PANIC_MACROS.contains(&name.as_str()) {
                        let args = match t.get(k + 2) {
                            Some(TokenTree::Group(g)) => g.stream().to_string(),
                            _ => String::new(),
                        };
                        self.constructs
                            .push(format!("{when} {name}!({})", unprefixed(&args)));
                    } else if PANIC_IDENTS.contains(&name.as_str()) {
                        // The statement it is in, for the key.
                        let to = t[k..]
                            .iter()
                            .position(|tt| is_punct(Some(tt), ';'))
                            .map_or(t.len(), |e| k + e);
                        let statement: TokenStream = t[start..to].iter().cloned().collect();
                        self.constructs.push(format!(
                            "{when} {name} in `{}`",
                            unprefixed(&statement.to_string())
                        ));
                    } else if name == "__private"
                        || name == crate::emit::LANE_OPS
                        || name.starts_with(crate::emit::PRIVATE_ALIAS)
                    {
                        // `use …::__private::blocks as __tg_b;` names a module, not an item.
                        if let Some(item) = private_item(&t, k).filter(|i| i != "blocks") {
                            self.runtime.insert(item);
                        }
                    } else if name == "__tg_b" {
                        // A debug program's name for `__private::blocks` (emit/debug.rs), read
                        // as `__private::blocks::item` is: its first two segments.
                        if let Some(item) = private_item(&t, k) {
                            let first = item.split("::").next().unwrap_or_default();
                            self.runtime.insert(format!("blocks::{first}"));
                        }
                    } else if k > 0
                        && is_punct(Some(&t[k - 1]), '.')
                        && matches!(t.get(k + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                    {
                        self.runtime.insert(format!(".{name}"));
                    }
                }
                _ => {}
            }
        }
    }
}

/// `text` without the `::tensorgraph::__private::` and `__tg_p_NAME::` (its alias), `__tg_lanes::` (the kernel copy's lane
/// items, emit/names.rs `LANE_OPS`) and `::core::` prefixes.
fn unprefixed(text: &str) -> String {
    // A graph's alias of `__private` (`__tg_p_NAME :: `, emit/names.rs `PRIVATE_ALIAS`).
    let mut text = text.to_string();
    while let Some(at) = text.find(crate::emit::PRIVATE_ALIAS) {
        let end = text[at..].find(" :: ").map_or(text.len(), |e| at + e + 4);
        text.replace_range(at..end, "");
    }
    text.replace(":: tensorgraph :: __private :: ", "")
        .replace(&format!("{} :: ", crate::emit::LANE_OPS), "")
        .replace(":: core :: ", "")
}

fn is_punct(tt: Option<&TokenTree>, c: char) -> bool {
    matches!(tt, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Whether the statement (or item) that starts at `t[start]` is a `const` or `static`
/// item, or an inline `const` block, after its attributes: its tokens are evaluated at
/// compile time. Not a `const fn`, whose body runs at run time too.
fn starts_const(t: &[TokenTree], start: usize) -> bool {
    let mut s = start;
    // Attributes: `#` and a bracket group.
    while is_punct(t.get(s), '#') && matches!(t.get(s + 1), Some(TokenTree::Group(_))) {
        s += 2;
    }
    matches!(t.get(s), Some(TokenTree::Ident(i)) if i == "const" || i == "static")
        && !matches!(t.get(s + 1), Some(TokenTree::Ident(i)) if i == "fn" || i == "unsafe" || i == "extern")
}

/// The item a path names from `__private` at `t[k]`: `store`, `V::splat` (over a
/// turbofish), `CompareLanes::gt_lanes` (from `<T as __private::CompareLanes>::gt_lanes`),
/// `Tensor::zeros` (from `<__private::Tensor<…>>::zeros`), or a type's name alone.
fn private_item(t: &[TokenTree], k: usize) -> Option<String> {
    let path_sep = |at: usize| is_punct(t.get(at), ':') && is_punct(t.get(at + 1), ':');
    if !path_sep(k + 1) {
        return None;
    }
    let Some(TokenTree::Ident(item)) = t.get(k + 3) else {
        return None;
    };
    let mut at = k + 4;
    // A turbofish (`:: < u32 >`) or generic arguments (`< u32 >`), balanced.
    let skip_generics = |mut at: usize| {
        if path_sep(at) && is_punct(t.get(at + 2), '<') {
            at += 2;
        }
        if is_punct(t.get(at), '<') {
            let mut depth = 0;
            while let Some(tt) = t.get(at) {
                match tt {
                    TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
                    TokenTree::Punct(p) if p.as_char() == '>' => {
                        depth -= 1;
                        if depth == 0 {
                            return at + 1;
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        at
    };
    at = skip_generics(at);
    // The end of a qualified path, `<T as Trait>` or `<Type>`.
    if is_punct(t.get(at), '>') {
        at += 1;
    }
    match (path_sep(at), t.get(at + 2)) {
        (true, Some(TokenTree::Ident(method))) => Some(format!("{item}::{method}")),
        _ => Some(item.to_string()),
    }
}

/// No kernel path can panic on a legal graph (issue 37, item 2; NOTES.md "Panics in
/// kernels"): the CI seed's expansions hold no panicking call or macro but the allowlisted
/// ones, each with the check that keeps it from firing. Also lists the runtime items the
/// kernels call (`--nocapture`), the set NOTES.md's audit of tensor-core covers.
#[test]
fn generated_kernels_have_no_panicking_calls() {
    // The scan sees what it looks for.
    let probe = PanicScan::of(
        TokenStream::from_str(
            "fn f() { const _: () = ::core::assert!(true); x.unwrap(); \
             let a = { const { assert!(true) } }; debug_assert!(y); \
             ::tensorgraph::__private::V::<u32>::splat(0); \
             <u32 as ::tensorgraph::__private::CompareLanes>::gt_lanes(a, b); \
             __tg_p_f::prefetch_chunk(a); }",
        )
        .unwrap(),
    );
    assert_eq!(
        probe.constructs,
        [
            "const assert!(true)",
            "run unwrap in `x . unwrap ()`",
            "const assert!(true)",
            "run debug_assert!(y)",
        ]
    );
    assert!(probe.runtime.contains("V::splat") && probe.runtime.contains("CompareLanes::gt_lanes"));
    // A graph's alias of `__private` (emit/names.rs `PRIVATE_ALIAS`) is read as `__private`.
    assert!(probe.runtime.contains("prefetch_chunk"));

    let mut unlisted: std::collections::BTreeMap<&str, (usize, u64)> = Default::default();
    let mut seen: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut runtime = std::collections::BTreeSet::new();
    for e in ci_expansions() {
        for c in &e.scan.constructs {
            match PANIC_ALLOWLIST.iter().find(|(key, _)| key == c) {
                Some((key, _)) => *seen.entry(key).or_default() += 1,
                None => unlisted.entry(c).or_insert((0, e.index)).0 += 1,
            }
        }
        runtime.extend(e.scan.runtime.iter().map(String::as_str));
    }
    println!("allowlisted constructs: {seen:#?}");
    println!(
        "runtime items the kernels name ({}): {runtime:#?}",
        runtime.len()
    );
    let unaudited: Vec<&str> = runtime
        .iter()
        .copied()
        .filter(|item| is_runtime_call(item) && !audited(item))
        .collect();
    let unlisted: Vec<String> = unlisted
        .iter()
        .map(|(c, (n, first))| format!("  {c}\n    ({n} times, first in graph {first})"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "panicking constructs in generated code that PANIC_ALLOWLIST does not list (prove \
         each cannot fire on a legal graph and add it with the reason, or make it the \
         graph's `Err`):\n{}",
        unlisted.join("\n")
    );
    assert!(
        unaudited.is_empty(),
        "runtime functions the kernels call that RUNTIME_AUDITED does not list (audit each \
         for panics on what a legal graph passes it, NOTES.md \"Panics in kernels\"): \
         {unaudited:?}"
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
        7 => einsum_mistake(g, rng),
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
        3 | 4 => named_arg_mistake(g, rng, n_lets),
        5 => function_name_mistake(g, rng, n_lets),
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

/// `mistake`'s einsum edit: a letter of the subscripts dropped, doubled, swapped for another
/// or a non-letter, `->` or `...` removed or repeated.
fn einsum_mistake(g: &mut Graph, rng: &mut Rng) {
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
                    2 if at < chars.len() => out[at] = ['z', 'Q', '1', ' ', '-', '.'][rng.below(6)],
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

/// `mistake`'s edit of a named argument of some call: one added (a known or unknown name,
/// any kind of value), renamed, given another value, or repeated.
fn named_arg_mistake(g: &mut Graph, rng: &mut Rng, n_lets: usize) {
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
                call.named[k].0 = ["axes", "keepdim", "dtypes", "alpah", "exclusive"][rng.below(5)]
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

/// `mistake`'s edit of a function name: another function's, or a misspelling.
fn function_name_mistake(g: &mut Graph, rng: &mut Rng, n_lets: usize) {
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

/// Mistakes in generated graphs (semantic, then token-level edits and junk on top) never
/// make the macro panic, and every error it reports points into the graph.
#[test]
fn mutated_generated_graphs_report_errors_inside_the_graph() {
    let mut rng = Rng::new(0x5EED_6A7E_F00D_1234);
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

/// Writes the expansions of the CI seed's graphs (item form, and the closure form where the
/// batch calls it) to the file named by `TG_DUMP_EXPANSIONS`; does nothing without it. A
/// change to the compiler that should not change generated code (moving code between files,
/// issue 34) dumps before and after and compares: `TG_DUMP_EXPANSIONS=/tmp/before.txt cargo
/// test -p tensorgraph-macros --lib dump_expansions`.
#[test]
fn dump_expansions() {
    let Ok(path) = std::env::var("TG_DUMP_EXPANSIONS") else {
        return;
    };
    let mut out = String::new();
    for index in 0..count(600) {
        let g = graphgen::gen::generate(graphgen::CI_SEED, index);
        out.push_str(&expand_text(&graphgen::render::graph(&g)));
        out.push('\n');
        if let graphgen::ast::Form::Closure { typed } = g.form {
            out.push_str(&expand_text(&graphgen::render::closure(&g, typed)));
            out.push('\n');
        }
    }
    std::fs::write(&path, out).expect("the dump file is writable");
}
