//! Unit tests of lowering decisions (stages, fusion) on small graphs.
use super::nests::contiguous_strides;
use super::*;

/// The kernel of the one graph in `source` (`$crate; fn …`).
fn kernel(source: &str) -> Kernel {
    let input: crate::ast::GraphInput =
        syn::parse_str(&format!("crate; {source}")).expect("parses");
    let crate::ast::GraphBody::Items(items) = &input.body else {
        panic!("an item")
    };
    let mut errors = crate::check::Errors::default();
    let graph = crate::check::check_graph(&items[0], &mut errors).expect("checks");
    lower_graph(&graph)
}

/// The stage of `k` that holds its product.
fn product_stage(k: &Kernel) -> &crate::ir::Stage {
    k.stages
        .iter()
        .find(|s| {
            k.nests[s.first..s.first + s.count]
                .iter()
                .any(|n| n.matmul.is_some())
        })
        .expect("a stage with the product")
}

#[test]
fn products_run_with_their_prologue_and_epilogue_in_one_stage() {
    let k = kernel(
        "fn f(x: f32[600, 32], g: f32[32], b: f32[32], w: f32[32, 48], c: f32[48]) -> f32[600, 48] {
            gelu(layer_norm(x, g, b) @ w + c)
        }",
    );
    let stage = product_stage(&k);
    // Layer norm's nests before the product, the epilogue after it, in one row loop.
    assert!(stage.row_loop.is_some() && stage.count >= 3, "{stage:?}");
    let step = k.nests[stage.first..stage.first + stage.count]
        .iter()
        .find_map(|n| n.matmul.as_ref())
        .unwrap();
    assert!(
        k.temps[step.output].gemm_block,
        "the product is a block temp"
    );
    let BufferRef::Temp(a) = step.a.buffer else {
        panic!("the left operand is computed")
    };
    assert!(k.temps[a].gemm_block, "the left operand is a block temp");
}

/// The stage holding the row reductions of `k`, and its nests.
fn row_stage(k: &Kernel) -> &[LoopNest] {
    let stage = k
        .stages
        .iter()
        .find(|s| s.row_loop.is_some() && s.count > 1)
        .expect("a row stage");
    &k.nests[stage.first..stage.first + stage.count]
}

#[test]
fn softmax_sums_the_row_its_exp_pass_stores() {
    for (source, outputs, pipelined) in [
        (
            "fn f(x: f32[64, 1024]) -> f32[64, 1024] { softmax(x, axis = 1) }",
            1,
            true,
        ),
        (
            "fn f(x: f64[B, 300]) -> f64[B, 300] { softmax(x, axis = -1) }",
            1,
            true,
        ),
        // Two outputs: `e` itself stays a temp, and is still summed as it is stored. The
        // scale pass is first to store the outputs' rows: not pipelined.
        (
            "fn f(x: f32[8, 512]) -> (f32[8, 512], f32[8, 512]) {
                let e = exp(x - max(x, axis = 1, keepdims = true));
                (e / sum(e, axis = 1, keepdims = true), e * 2.0)
            }",
            2,
            false,
        ),
    ] {
        let k = kernel(source);
        let nests = row_stage(&k);
        // max, exp + store + sum, scale.
        assert_eq!(nests.len(), 3, "{source}");
        let Sink::Reduce {
            kind: ReduceKind::Sum,
            stores,
            ..
        } = &nests[1].sink
        else {
            panic!("the exp pass sums: {:?}", nests[1].sink)
        };
        assert_eq!(stores.len(), 1, "{source}");
        assert_eq!(k.nests.len(), 3, "{source}");
        // The scale pass stores; pipelined, it also reduces the next row's max (and, in
        // f32, min: `pipeline_first_pass`).
        let stage = k.stages.iter().find(|s| s.row_loop.is_some()).unwrap();
        assert_eq!(stage.pipelined.is_some(), pipelined, "{source}");
        let last = match &nests[2].sink {
            Sink::Store(last) => last,
            Sink::Reduce {
                kind: ReduceKind::MaxNoNan,
                stores,
                ..
            } if pipelined => stores,
            other => panic!("the scale pass stores: {other:?}"),
        };
        assert_eq!(last.len(), outputs, "{source}");
    }
}

/// Softmax reduces a row minimum (for the division's `in_range` flag) only where the
/// division uses it: f32 along the last axis, beside the max in one pass.
#[test]
fn softmax_reduces_a_min_only_for_f32_rows() {
    let mins = |source: &str| {
        kernel(source)
            .nests
            .iter()
            .filter(|n| match &n.sink {
                Sink::Reduce { kind, sibling, .. } => {
                    *kind == ReduceKind::MinNoNan
                        || sibling.is_some_and(|s| s.kind == ReduceKind::MinNoNan)
                }
                _ => false,
            })
            .count()
    };
    // The max/min pass for a task's first row, and the pipelined scale pass.
    assert_eq!(
        mins("fn f(x: f32[64, 1024]) -> f32[64, 1024] { softmax(x, axis = 1) }"),
        2
    );
    assert_eq!(
        mins("fn f(x: f16[B, 300]) -> f16[B, 300] { softmax(x, axis = -1) }"),
        1
    );
    assert_eq!(
        mins("fn f(x: f64[B, 300]) -> f64[B, 300] { softmax(x, axis = -1) }"),
        0
    );
    assert_eq!(
        mins("fn f(x: f32[64, 1024]) -> f32[64, 1024] { softmax(x, axis = 0) }"),
        0
    );
    assert_eq!(
        mins("fn f(x: f32[8, 64, 32]) -> f32[8, 64, 32] { softmax(x, axis = 1) }"),
        0
    );
}

/// Which graphs get a fused store + reduce pass: tests/row_fusion.rs runs those that do
/// (`fused_passes_beyond_softmax`) against references. A pass that stores a plain
/// elementwise temp is a flat loop of its own, not a row pass, so it is not fused. A
/// pipelined stage's last pass (`pipeline_first_pass`) stores and reduces too: 2.
#[test]
fn which_graphs_fuse_a_store_and_a_reduction() {
    let fused = |source: &str| {
        kernel(source)
            .nests
            .iter()
            .filter(|n| matches!(&n.sink, Sink::Reduce { stores, .. } if !stores.is_empty()))
            .count()
    };
    for (source, want) in [
        // The exp pass, and the scale pass with the next row's max and min.
        ("fn f(x: f32[R, N]) -> f32[R, N] { softmax(x, axis = 1) }", 2),
        ("fn f(x: f32[R, N]) -> (f32[R, N], f32[R], f32[R], f64[R]) { let e = tanh(x - mean(x, axis = 1, keepdims = true)); (e, max(e, axis = 1), min(e, axis = 1), sum(e as f64, axis = 1)) }", 1),
        // Pipelined too: the division pass runs the next row's mean pass.
        ("fn f(x: f32[R, N]) -> f32[R, N] { let e = tanh(x - mean(x, axis = 1, keepdims = true)); e / max(e, axis = 1, keepdims = true) }", 2),
        ("fn f(x: f64[R, N]) -> f64[R, N] { let e = exp(x - max(x, axis = 1, keepdims = true)); e * prod(e, axis = 1, keepdims = true) }", 2),
        ("fn f(x: f32[R, 3, N]) -> f32[R, 3, N] { let e = exp(x - max(x, axis = [1, 2], keepdims = true)); e / sum(e, axis = [1, 2], keepdims = true) }", 2),
        // An f16 `e` rounds on its way through memory: not fused.
        ("fn f(x: f16[R, N]) -> f16[R, N] { let e = exp(x - max(x, axis = 1, keepdims = true)); e / sum(e, axis = 1, keepdims = true) }", 0),
        // Flat store passes.
        ("fn f(x: f32[R, N]) -> f32[R, N] { let e = exp(x); e / sum(e, axis = 1, keepdims = true) }", 0),
        ("fn f(x: f32[R, N]) -> (f32[R, N], f32[R]) { let e = exp(x); (e, sum(e, axis = 1)) }", 0),
    ] {
        assert_eq!(fused(source), want, "{source}");
    }
}

#[test]
fn a_reduction_reading_the_stored_row_elsewhere_is_not_fused() {
    // f16 softmax: `e` stays an f32 temp (nothing rounds it), so it is fused too.
    let k = kernel("fn f(x: f16[64, 1024]) -> f16[64, 1024] { softmax(x, axis = 1) }");
    assert_eq!(row_stage(&k).len(), 3);
    // A reduction that reads the stored row at another index reads it from memory.
    let k = kernel(
        "fn f(x: f32[64, 1024]) -> f32[64, 1024] {
            let e = exp(x);
            e / sum(flip(e, axis = 1), axis = 1, keepdims = true)
        }",
    );
    assert!(k
        .nests
        .iter()
        .all(|n| !matches!(&n.sink, Sink::Reduce { stores, .. } if !stores.is_empty())));
    assert!(k.nests.iter().any(|n| matches!(
        &n.sink,
        Sink::Reduce {
            kind: ReduceKind::Sum,
            ..
        }
    )));
}

#[test]
fn a_product_read_elsewhere_is_computed_whole() {
    let k = kernel(
        "fn f(x: f32[300, 8], w: f32[8, 8]) -> (f32[300, 8], f32[8, 300]) {
            let p = x @ w;
            (relu(p), transpose(p))
        }",
    );
    let step = k.nests.iter().find_map(|n| n.matmul.as_ref()).unwrap();
    assert!(!k.temps[step.output].gemm_block);
    assert!(k.temps[step.output].row_local.is_none());
}

#[test]
fn contiguous_strides_are_row_major() {
    let lits = crate::shape::lits;
    assert_eq!(
        contiguous_strides(&lits(&[2, 3, 4])),
        vec![Size::lit(12), Size::lit(4), Size::lit(1)]
    );
    assert_eq!(contiguous_strides(&[]), Vec::<Size>::new());
    let b = Dim::Named("B".into());
    let s = Dim::Named("S".into());
    let strides = contiguous_strides(&[b.clone(), s.clone(), Dim::Static(4)]);
    assert_eq!(strides[0], Size::of(&s).mul(&Size::lit(4)));
    assert_eq!(strides[0].checked_div(&Size::of(&s)), Some(Size::lit(4)));
    assert_eq!(strides[0].checked_div(&Size::of(&b)), None);
}

#[test]
fn attention_reads_unchanged_parameters_in_place() {
    // q and v and the mask are parameters of the step's dtype: read in place; k is computed
    // into a temp.
    let k = kernel(
        "fn f(q: f32[1, 2, 6, 8], k: f32[1, 2, 9, 8], v: f32[1, 2, 9, 8], m: f32[6, 9]) -> f32[1, 2, 6, 8] {
            attention(q, k * 2.0, v, attn_mask = m)
        }",
    );
    let step = k
        .nests
        .iter()
        .find_map(|n| n.scan.as_ref())
        .expect("the attention step");
    let AxisStep::Attention {
        q, k: kb, v, mask, ..
    } = &step.op
    else {
        panic!("an attention step")
    };
    assert_eq!(*q, BufferRef::Input(0));
    assert!(matches!(kb, BufferRef::Temp(_)), "{kb:?}");
    assert_eq!(*v, BufferRef::Input(2));
    assert_eq!(
        mask.as_ref().map(|m| m.0.clone()),
        Some(BufferRef::Input(3))
    );
    // A parameter of another dtype is converted into a temp (a bool mask becomes 0/-inf).
    let k = kernel(
        "fn f(q: f32[1, 1, 4, 8], k: f32[1, 1, 4, 8], v: f32[1, 1, 4, 8], m: bool[4, 4]) -> f32[1, 1, 4, 8] {
            attention(q, k, v, attn_mask = m)
        }",
    );
    let step = k.nests.iter().find_map(|n| n.scan.as_ref()).unwrap();
    let AxisStep::Attention { mask, .. } = &step.op else {
        panic!("an attention step")
    };
    assert!(matches!(mask, Some((BufferRef::Temp(_), _))), "{mask:?}");
}

#[test]
fn a_gathered_row_stored_unchanged_is_one_row_copy() {
    let expand = |source: &str| {
        let mut input: proc_macro2::TokenStream = "::tensorgraph;".parse().unwrap();
        input.extend(source.parse::<proc_macro2::TokenStream>().unwrap());
        crate::expand(input).to_string()
    };
    // Stored unchanged: one `copy_from_slice` per row, no chunk loop.
    let plain = "fn e(t: f32[10, 32], ids: i64[4]) -> f32[4, 32] { gather(t, ids) }";
    assert!(expand(plain).contains("copy_from_slice"));
    // Consumed (`+ pos`, a cast): the fused chunk loop, still with no temp.
    for source in [
        "fn e(t: f32[10, 32], ids: i64[4], pos: f32[4, 32]) -> f32[4, 32] { gather(t, ids) + pos }",
        "fn e(t: f32[10, 32], ids: i64[4]) -> f64[4, 32] { gather(t, ids) as f64 }",
    ] {
        assert!(!expand(source).contains("copy_from_slice"), "{source}");
        let k = kernel(source);
        assert!(k.temps.is_empty(), "{source}: {:?}", k.temps);
        assert_eq!(k.nests.len(), 1, "{source}");
    }
}

/// The graph of `source` for `lower_graph_pitched`.
fn checked(source: &str) -> TypedGraph {
    let input: crate::ast::GraphInput =
        syn::parse_str(&format!("crate; {source}")).expect("parses");
    let crate::ast::GraphBody::Items(items) = &input.body else {
        panic!("an item")
    };
    let mut errors = crate::check::Errors::default();
    crate::check::check_graph(&items[0], &mut errors).expect("checks")
}

/// Row-strided ndarray views (issue 35, item 7): the pitched kernel addresses pitched
/// parameters and outputs by their pitch names, rows by the pitch; the contiguous kernel is
/// unchanged.
#[test]
fn pitched_kernels_address_rows_by_their_pitch() {
    let g = checked("fn f(x: f32[B, S], b: f32[S]) -> f32[B, S] { exp(x) + b }");
    let plain = lower_graph(&g);
    let pitched = lower_graph_pitched(&g, &[true, false], &[true]).expect("pitched");
    let has = |k: &Kernel, name: &str| {
        k.nests.iter().any(|n| {
            n.operands.iter().any(|o| {
                o.outer_strides.iter().any(|s| {
                    s.terms
                        .iter()
                        .any(|(_, names)| names.iter().any(|x| x == name))
                })
            })
        })
    };
    assert!(!has(&plain, "#pitch0") && !has(&plain, "#opitch0"));
    assert!(has(&pitched, "#pitch0") && has(&pitched, "#opitch0"));
    // Row tasks cut the pitched output into whole pitches.
    let tasks = pitched.stages[0].tasks.as_ref().expect("split at run time");
    assert_eq!(tasks.chunked.len(), 1);
    assert_eq!(tasks.chunked[0].1.names, vec!["#opitch0".to_string()]);
    // Without the broadcast the contiguous kernel collapses `B × S` into one flat loop; the
    // pitched one keeps its rows.
    let g = checked("fn f(x: f32[B, S]) -> f32[B, S] { exp(x) }");
    assert!(lower_graph(&g).nests[0].ragged.is_some());
    let pitched = lower_graph_pitched(&g, &[true], &[true]).expect("pitched");
    assert!(pitched.nests[0].ragged.is_none());
    assert_eq!(pitched.nests[0].outer.len(), 1);
    // Nothing pitched (rank-1 parameter and output): no second kernel.
    let g = checked("fn f(x: f32[N]) -> f32[N] { x * 2.0 }");
    assert!(lower_graph_pitched(&g, &[true], &[true]).is_none());
    // A reshape reads the buffer as other dims: no pitched kernel.
    let g = checked("fn f(x: f32[B, 4]) -> f32[B, 2, 2] { reshape(x, [B, 2, 2]) }");
    assert!(lower_graph_pitched(&g, &[true], &[false]).is_none());
}

/// Regression (issue 30, soak of seed 35, graphs 724 and 964): a `tile` or reflect `pad`
/// next to a `concat` along a named axis made lowering ask for the same node twice.
#[test]
fn tile_and_pad_beside_a_symbolic_concat_lower() {
    kernel(
        "fn a4(p0: u32[2, 3], p1: u32[M, 3]) -> u32[2 * M + 4, 3] {
            let v0 = concat([p0, p1], axis = 0);
            tile(v0, [2, 1])
        }",
    );
    kernel(
        "fn b3(p0: bool[B, 9], p3: bool[B + 2, 2], p4: bool[B + 2, B]) -> bool[B + 2, B + 15] {
            let v3 = pad(p0, [1, 1, 1, 3], mode = reflect);
            concat([v3, p3, p4], axis = 1)
        }",
    );
}

/// Regression (seed 43, graph 1987): a large stage whose only writes are row-local temps
/// (the nest that read the norm has 0 elements) planned tasks with no buffer to cut into
/// chunks, and the emitter wrote `run_chunked(.enumerate(), …)`.
#[test]
fn a_stage_with_only_row_local_writes_runs_on_one_thread() {
    let src = "crate; fn f(p0: f32[8, 8, 3, B]) -> u16[8, 8, 3, 0] {
        slice(l2_normalize(p0, axis = -1) as u16, axis = 3, end = 0)
    }";
    let out = crate::expand(src.parse().unwrap()).to_string();
    if let Err(e) = syn::parse_file(&out) {
        panic!("the expansion is not Rust: {e}");
    }
}

/// Issue 33: the pieces of `pad`/`concat`/`tile` cut a box into at most `MAX_REGIONS` nests
/// (`build_regions`, the checker's splits); before, these graphs were 729, 243, 72 and 40
/// nests, one after another in the kernel's function (LLVM took minutes or overflowed).
#[test]
fn region_counts_are_bounded() {
    for (source, before) in [
        (
            "fn f(a: f32[3, 3, 3, 3, 3, 3]) -> f32[5, 5, 5, 5, 5, 5] { pad(a, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], mode = reflect) }",
            729,
        ),
        (
            "fn f(a: f32[3, 3, 3, 3, 3]) -> f32[5, 5, 5, 5, 5] { pad(a, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], mode = edge) * 2.0 }",
            243,
        ),
        (
            "fn f(a: f32[2, 3, 4, 5, 3]) -> f32[4, 6, 8, 7, 5] { pad(tile(a, [2, 2, 2, 1, 1]), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], mode = reflect) }",
            72,
        ),
        (
            "fn f(a: f32[2, 3], b: f32[1, 3]) -> f32[60, 3] { concat([a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b], axis = 0) }",
            40,
        ),
    ] {
        let k = kernel(source);
        // A box is at most MAX_REGIONS nests; these graphs have a few boxes each. (The
        // concat's 40 parts stay 40 nests and one more: groups bound the box, not the
        // function.)
        assert!(
            k.nests.len() <= 3 * crate::ir::MAX_REGIONS && !k.temps.is_empty(),
            "{} nests (was {before}): {source}",
            k.nests.len()
        );
    }
    // Under the bound nothing changes: a reflect pad of three axes is 27 fused nests.
    let k = kernel(
        "fn f(a: f32[3, 3, 3]) -> f32[5, 5, 5] { pad(a, [1, 1, 1, 1, 1, 1], mode = reflect) }",
    );
    assert_eq!(k.nests.len(), 27);
    assert!(k.temps.is_empty());
}

/// A product computed whole that is an output and read by nothing else is written into
/// the output by its GEMM (`products_into_outputs`), computed whole: `dw = xᵀ·g` and a
/// plain `x @ w`. One read by another op, one whose output converts (f16), and one into a
/// row-pitched output keep their temp and its copy.
#[test]
fn a_product_that_is_only_an_output_is_written_in_place() {
    let into = |k: &Kernel| {
        k.nests
            .iter()
            .find_map(|n| n.matmul.as_ref())
            .unwrap()
            .into_output
    };
    let k = kernel(
        "fn f(x: f32[32, 768], g: f32[32, 3072]) -> f32[768, 3072] { matmul(transpose(x, [1, 0]), g) }",
    );
    assert_eq!(into(&k), Some(0));
    assert_eq!(k.nests.len(), 1, "the copy into the output is gone");
    let step = k.nests[0].matmul.as_ref().unwrap();
    assert!(k.temps[step.output].len.is_lit(0));
    // The second output: the product is read by nothing else.
    let k = kernel(
        "fn f(x: f32[32, 768], g: f32[32, 3072]) -> (f32[32, 768], f32[768, 3072]) {
            (relu(x), matmul(transpose(x, [1, 0]), g))
        }",
    );
    assert_eq!(into(&k), Some(1));
    // Read by another op too: written once into its temp.
    let k = kernel(
        "fn f(x: f32[32, 768], g: f32[32, 3072]) -> (f32[768, 3072], f32[3072, 768]) {
            let p = matmul(transpose(x, [1, 0]), g);
            (p, transpose(p, [1, 0]))
        }",
    );
    assert_eq!(into(&k), None);
    // An f16 product is computed in f32 and converted on the way out.
    let k = kernel(
        "fn f(x: f16[32, 768], g: f16[32, 3072]) -> f16[768, 3072] { matmul(transpose(x, [1, 0]), g) }",
    );
    assert_eq!(into(&k), None);
    // A row-pitched output's rows are `#opitch0` apart, the product's are not.
    let g = checked(
        "fn f(x: f32[32, B], g: f32[32, S]) -> f32[B, S] { matmul(transpose(x, [1, 0]), g) }",
    );
    assert_eq!(into(&lower_graph(&g)), Some(0));
    let pitched = lower_graph_pitched(&g, &[false, false], &[true]).expect("pitched");
    assert_eq!(into(&pitched), None);
    // A slice of the product, addressed as the product where its axis has extent 1
    // (graphgen's CI seed, graph 176): the product is larger than the output.
    let k = kernel(
        "fn f(a: f32[2, 4, 5], b: f32[5, 3]) -> f32[1, 4, 3] { slice(a @ b, axis = 0, step = 3) }",
    );
    assert_eq!(into(&k), None);
    // Planned as a row stage of the product and its copy: now the product alone.
    let k = kernel("fn f(x: f32[40, 8], w: f32[8, 24]) -> f32[40, 24] { x @ w }");
    assert_eq!(into(&k), Some(0));
    assert_eq!(k.stages.len(), 1);
    assert!(k.stages[0].row_loop.is_none() && k.stages[0].count == 1);
}

/// A convolution is one product (no einsum per kernel position) whose right operand is the
/// implicit im2col of the input read in place, and its scale, activation and residual
/// run in the GEMM's stage, block of rows by block (the product a block temp), for a batch
/// of one; its bias is the product's own operand. (Batches of several: the next test.)
#[test]
fn a_convolution_is_one_product_with_its_epilogue_in_its_stage() {
    let k = kernel(
        "fn f(x: f32[1, 8, 10, 9], w: f32[16, 8, 3, 3], b: f32[16], s: f32[16, 1, 1], r: f32[1, 16, 10, 9]) -> f32[1, 16, 10, 9] {
            relu(conv(x, w, b, pads = [1, 1, 1, 1]) * s + r)
        }",
    );
    let products: Vec<&crate::ir::MatMulStep> =
        k.nests.iter().filter_map(|n| n.matmul.as_ref()).collect();
    assert_eq!(products.len(), 1, "one product");
    let step = products[0];
    let conv = step.conv.as_ref().expect("a convolution's product");
    assert_eq!(conv.geometry.outs, [Size::lit(10), Size::lit(9)]);
    assert_eq!(conv.geometry.pads, [1, 1]);
    assert!(
        matches!(step.b.buffer, BufferRef::Input(0)),
        "x read in place"
    );
    assert!(
        matches!(step.a.buffer, BufferRef::Input(1)),
        "w read in place"
    );
    let stage = product_stage(&k);
    assert!(stage.row_loop.is_some() && stage.count >= 2, "{stage:?}");
    assert!(
        k.temps[step.output].gemm_block,
        "the product is a block temp"
    );
    assert!(
        matches!(
            conv.bias.as_ref().map(|b| &b.buffer),
            Some(BufferRef::Input(2))
        ),
        "the bias read in place by the product"
    );
    // Named spatial lengths (a batch of one): the same product, its row the call's `H·W`
    // output positions, with its epilogue in its stage.
    let k = kernel(
        "fn f(x: f32[1, 8, H, W], w: f32[16, 8, 3, 3], s: f32[16, 1, 1], r: f32[1, 16, H, W]) -> f32[1, 16, H, W] {
            relu(conv(x, w, pads = [1, 1, 1, 1]) * s + r)
        }",
    );
    let step = k
        .nests
        .iter()
        .find_map(|n| n.matmul.as_ref())
        .expect("a product");
    let conv = step.conv.as_ref().expect("a convolution's product");
    let (h, w) = (
        Size::of(&Dim::Named("H".into())),
        Size::of(&Dim::Named("W".into())),
    );
    assert_eq!(conv.geometry.lens, [h.clone(), w.clone()]);
    assert_eq!(conv.geometry.outs, [h.clone(), w.clone()]);
    assert_eq!(step.n, h.mul(&w));
    let stage = product_stage(&k);
    assert!(stage.row_loop.is_some() && stage.count >= 2, "{stage:?}");
    // Grouped convolutions are products too (of computed operands as well, and with a
    // channel multiplier); depthwise and f16 keep the einsum form.
    for (source, gemm) in [
        ("fn f(x: f32[2, 6, 7, 7], w: f32[12, 1, 3, 3]) -> f32[2, 12, 5, 5] { conv(x, w, group = 6) }", true),
        ("fn f(x: f32[2, 6, 7, 7], w: f32[6, 1, 3, 3]) -> f32[2, 6, 5, 5] { conv(x, w, group = 6) }", false),
        ("fn f(x: f64[1, 4, 9], w: f64[4, 2, 3]) -> f64[1, 4, 7] { conv(x * 2.0, w * 0.5, group = 2) }", true),
        ("fn f(x: f16[1, 2, 5, 5], w: f16[2, 2, 3, 3]) -> f16[1, 2, 3, 3] { conv(x, w) }", false),
        ("fn f(x: f32[N, 4, H, W], w: f32[8, 4, 3, 3]) -> f32[N, 8, (H + 1) / 2, W - 2] { conv(x, w, strides = [2, 1], pads = [1, 0, 1, 0]) }", true),
        ("fn f(x: f64[1, 2, L], w: f64[2, 2, 3]) -> f64[1, 2, (L + 2) / 3] { conv(x, w, strides = [3], pads = [2, 0]) }", true),
    ] {
        let k = kernel(source);
        let convs = k
            .nests
            .iter()
            .filter(|n| n.matmul.as_ref().is_some_and(|s| s.conv.is_some()))
            .count();
        assert_eq!(convs, usize::from(gemm), "{source}");
    }
}

/// A convolution with a batch of several (literal 2 or 3, or named) runs its epilogue in the
/// GEMM's stage too, image by image: the product's loops and its readers' are `[N, O]`
/// (stage rows are images, one image per block: `ir::gemm_block_rows`), whether or not a
/// per-channel operand (the batch norm's) keeps the reader's batch and channel loops apart.
/// A conv with its bias and nothing after it writes the output directly.
#[test]
fn a_convolution_with_a_batch_fuses_its_epilogue_image_by_image() {
    for (n, per_channel) in [("2", true), ("3", false), ("N", true), ("N", false)] {
        let epilogue = if per_channel {
            "batch_norm(conv(x, w, b, pads = [1, 1, 1, 1]), s, t, m, v)"
        } else {
            "conv(x, w, b, pads = [1, 1, 1, 1])"
        };
        let source = format!(
            "fn f(x: f32[{n}, 8, 10, 9], w: f32[16, 8, 3, 3], b: f32[16], s: f32[16], t: f32[16], m: f32[16], v: f32[16], r: f32[{n}, 16, 10, 9]) -> f32[{n}, 16, 10, 9] {{
                relu({epilogue} + r)
            }}"
        );
        let k = kernel(&source);
        let at = k
            .nests
            .iter()
            .position(|n| n.matmul.is_some())
            .expect("a product");
        let step = k.nests[at].matmul.as_ref().expect("a product");
        assert!(step.conv.is_some(), "{source}");
        let batch = match n {
            "N" => Size::of(&Dim::Named("N".into())),
            lit => Size::lit(lit.parse().expect("a literal")),
        };
        assert_eq!(
            k.nests[at].outer,
            [batch.clone(), Size::lit(16)],
            "{source}"
        );
        assert_eq!(crate::ir::gemm_block_rows(&k.nests[at]), 1);
        let stage = product_stage(&k);
        assert_eq!(stage.row_loop.as_ref(), Some(&batch), "{source}: {stage:?}");
        assert!(stage.count >= 2, "{source}: {stage:?}");
        assert!(
            k.temps[step.output].gemm_block,
            "{source}: the product is a block temp"
        );
        // Every reader of the product runs in its stage, image by image.
        let readers = k.nests.iter().enumerate().filter(|(_, nest)| {
            nest.matmul.is_none()
                && nest
                    .operands
                    .iter()
                    .any(|o| o.buffer == BufferRef::Temp(step.output))
        });
        for (i, reader) in readers {
            assert!(
                (stage.first..stage.first + stage.count).contains(&i),
                "{source}: reader {i} outside the product's stage"
            );
            assert_eq!(reader.outer.first(), Some(&batch), "{source}");
        }
    }
    // Bias alone: the product writes the output (no temp, no epilogue pass).
    let k = kernel(
        "fn f(x: f32[4, 8, 10, 9], w: f32[16, 8, 3, 3], b: f32[16]) -> f32[4, 16, 10, 9] {
            conv(x, w, b, pads = [1, 1, 1, 1])
        }",
    );
    assert_eq!(k.nests.len(), 1, "{:?}", k.nests);
    let step = k.nests[0].matmul.as_ref().expect("the product");
    assert_eq!(step.into_output, Some(0));
}

/// The max-pool steps of `k`: (what each reads, what it writes).
fn max_pool_steps(k: &Kernel) -> Vec<(BufferRef, BufferRef)> {
    k.nests
        .iter()
        .filter_map(|n| match &n.scan.as_ref()?.op {
            AxisStep::MaxPool { x, out, .. } => Some((x.clone(), out.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_max_pool_is_one_runtime_step_written_into_its_output() {
    // A parameter read in place, the output written directly: the step is the kernel.
    let k = kernel(
        "fn f(x: f32[1, 64, 112, 112]) -> f32[1, 64, 56, 56] {
            max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1])
        }",
    );
    assert_eq!(
        max_pool_steps(&k),
        [(BufferRef::Input(0), BufferRef::Output(0))]
    );
    assert_eq!(k.nests.len(), 1, "no copy of the pool into the output");
    // A computed input comes from its temp; a pool a consumer reads keeps its temp.
    let k = kernel(
        "fn f(x: f64[2, 3, 9]) -> f64[2, 3, 4] {
            max_pool(x * 2.0, kernel_shape = [3], strides = [2]) + 1.0
        }",
    );
    let steps = max_pool_steps(&k);
    assert!(
        matches!(steps.as_slice(), [(BufferRef::Temp(_), BufferRef::Temp(_))]),
        "{steps:?}"
    );
    // f16 and named spatial axes keep the expression form.
    for source in [
        "fn f(x: f16[1, 2, 5, 5]) -> f16[1, 2, 3, 3] { max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]) }",
        "fn f(x: f32[1, 2, H, W]) -> f32[1, 2, (H + 1) / 2, (W + 1) / 2] { max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]) }",
    ] {
        assert!(max_pool_steps(&kernel(source)).is_empty(), "{source}");
    }
}

/// The resize steps of `k`: (what each reads, what it writes, its spatial axes).
fn resize_steps(k: &Kernel) -> Vec<(BufferRef, BufferRef, Vec<crate::ir::ResizeTaps>)> {
    k.nests
        .iter()
        .filter_map(|n| match &n.scan.as_ref()?.op {
            AxisStep::Resize { x, out, axes, .. } => Some((x.clone(), out.clone(), axes.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_resize_is_one_runtime_step_written_into_its_output() {
    // The benchmark's ×2: a parameter read in place, the output written directly, the
    // taps as the expression form reads them.
    let k = kernel(
        "fn f(x: f32[1, 64, 56, 56]) -> f32[1, 64, 112, 112] {
            resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear)
        }",
    );
    let steps = resize_steps(&k);
    let [(x, out, axes)] = steps.as_slice() else {
        panic!("{steps:?}");
    };
    assert_eq!((x, out), (&BufferRef::Input(0), &BufferRef::Output(0)));
    assert_eq!(k.nests.len(), 1, "no copy of the resize into the output");
    let w = &axes[1];
    assert_eq!((w.len, w.out, w.taps), (56, 112, 2));
    // half_pixel ×2: output 0 reads 0 and 0 (x = -0.25, clamped), output 1 reads 0 and 1
    // at 0.75/0.25, output 2 reads 0 and 1 at 0.25/0.75; the last reads 55 twice.
    assert_eq!(&w.index[..6], [0, 0, 0, 1, 0, 1]);
    assert_eq!(&w.weights[2..6], [0.75, 0.25, 0.25, 0.75]);
    assert_eq!(&w.index[220..], [54, 55, 55, 55]);
    assert_eq!(w.runs, [[1, 2, 1, 55]]);
    assert!(axes[0].runs.is_empty(), "runs along the last axis only");
    // N and C named, one axis resized (the other unchanged); a computed input from its
    // temp, a consumer keeping the step's temp.
    let k = kernel(
        "fn f(x: f64[N, C, 3, 5]) -> f64[N, C, 3, 9] {
            resize(x * 2.0, sizes = [9], axes = [3], mode = cubic) + 1.0
        }",
    );
    let steps = resize_steps(&k);
    let [(BufferRef::Temp(_), BufferRef::Temp(_), axes)] = steps.as_slice() else {
        panic!("{steps:?}");
    };
    assert_eq!((axes[0].taps, axes[1].taps), (0, 4));
    // f16, integers, a resized N or C, rank 2 and named spatial axes keep the expression
    // form.
    for source in [
        "fn f(x: f16[1, 2, 5, 5]) -> f16[1, 2, 10, 10] { resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear) }",
        "fn f(x: i32[1, 2, 5, 5]) -> i32[1, 2, 10, 10] { resize(x, scales = [1.0, 1.0, 2.0, 2.0]) }",
        "fn f(x: f32[1, 2, 5, 5]) -> f32[1, 4, 10, 10] { resize(x, scales = [1.0, 2.0, 2.0, 2.0]) }",
        "fn f(x: f32[5, 5]) -> f32[10, 10] { resize(x, scales = [2.0, 2.0], mode = linear) }",
        "fn f(x: f32[1, 2, H, 5]) -> f32[1, 2, H, 10] { resize(x, sizes = [10], axes = [3], mode = linear) }",
    ] {
        assert!(resize_steps(&kernel(source)).is_empty(), "{source}");
    }
}
