//! Whole-model ops (issue 30 item 10; BENCHMARKS.md "Whole models (issue 30)"), one thread:
//! an embedding `gather` of 4096 ids from a [50257, 768] f32 table next to a plain copy of
//! the same bytes (the bandwidth bound), causal `attention` B=1, H=12, S=1024 and 2048,
//! D=64, and `softmax_cross_entropy` (mean) over [4096, 50257] scores.
//!
//! `RUSTFLAGS="-C target-cpu=native" cargo bench --bench models` (a target dir of its own);
//! benches/peers/models_peers.py times JAX and ONNX Runtime on the same inputs.
//! Every graph runs inside a one-thread rayon pool (`gather` and the loss would otherwise
//! split their rows across the pool; `attention` runs on the calling thread anyway).
//! `MODELS_BENCH=gather,attention,xent` (any subset) picks the groups.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::prelude::*;

const VOCAB: usize = 50257;
const WIDTH: usize = 768;
const IDS: usize = 4096;
const HEADS: usize = 12;
const HEAD_DIM: usize = 64;

graph! {
    fn embed(table: f32[50257, 768], ids: i64[4096]) -> f32[4096, 768] { gather(table, ids) }
    fn causal(q: f32[1, 12, S, 64], k: f32[1, 12, S, 64], v: f32[1, 12, S, 64]) -> f32[1, 12, S, 64] {
        attention(q, k, v, is_causal = true)
    }
    fn xent(x: f32[N, 50257], labels: i64[N]) -> f32[] { softmax_cross_entropy(x, labels) }
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
}

fn wanted(group: &str) -> bool {
    std::env::var("MODELS_BENCH").map_or(true, |v| v.split(',').any(|g| g == group))
}

/// The same formulas as benches/peers/models_peers.py: ids `(i · 7919 + 13) mod 50257`,
/// table `((r · 31 + c · 17) mod 199) / 199 - 0.5`.
fn embed_inputs() -> (Tensor<f32, Shape![50257, 768]>, Tensor<i64, Shape![4096]>) {
    let table =
        Tensor::from_fn(|[r, c]: [usize; 2]| ((r * 31 + c * 17) % 199) as f32 / 199.0 - 0.5);
    let ids = Tensor::from_fn(|[i]: [usize; 1]| ((i * 7919 + 13) % VOCAB) as i64);
    (table, ids)
}

fn bench_gather(c: &mut Criterion) {
    if !wanted("gather") {
        return;
    }
    let (table, ids) = embed_inputs();
    let mut out = Tensor::<f32, Shape![4096, 768]>::zeros();
    let bytes = IDS * WIDTH * 4;
    let mut g = c.benchmark_group("gather 4096 ids from f32[50257,768]");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(50);
    let pool = one_thread();
    g.bench_function("graph (1 thread)", |b| {
        b.iter(|| {
            pool.install(|| embed_into(black_box(&table), black_box(&ids), &mut out))
                .expect("ids in range")
        })
    });
    eprintln!(
        "gather: sum {:.6e}",
        out.as_slice().iter().map(|&x| x as f64).sum::<f64>()
    );
    // The bound: the same bytes read and written by one contiguous copy (a source the size of
    // the gathered rows, not in cache between samples any more than the table's rows are).
    let src = table.as_slice()[..IDS * WIDTH].to_vec();
    let mut dst = vec![0.0f32; IDS * WIDTH];
    g.bench_function("copy of the same bytes (bound)", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&src)))
    });
    // The same row copies written by hand (the gather's own ceiling without the graph).
    g.bench_function("row copies by hand", |b| {
        b.iter(|| {
            let t = black_box(table.as_slice());
            for (row, &id) in dst.chunks_exact_mut(WIDTH).zip(black_box(ids.as_slice())) {
                let r = id as usize * WIDTH;
                row.copy_from_slice(&t[r..r + WIDTH]);
            }
        })
    });
    g.finish();
}

/// `((n · 2654435761) mod 2001) / 1000 - 1` with a different offset per tensor (the peers'
/// formula).
fn attention_input(s: usize, seed: usize) -> Tensor<f32, Shape![1, 12, _, 64]> {
    let n = HEADS * s * HEAD_DIM;
    let data = (0..n)
        .map(|i| {
            ((i.wrapping_mul(2_654_435_761).wrapping_add(seed * 40_503)) % 2001) as f32 / 1000.0
                - 1.0
        })
        .collect();
    Tensor::from_shape_vec([1, HEADS, s, HEAD_DIM], data).expect("shape")
}

fn bench_attention(c: &mut Criterion) {
    if !wanted("attention") {
        return;
    }
    let mut g = c.benchmark_group("attention causal B=1 H=12 D=64 f32");
    g.sample_size(10);
    let pool = one_thread();
    for s in [1024usize, 2048] {
        let (q, k, v) = (
            attention_input(s, 1),
            attention_input(s, 2),
            attention_input(s, 3),
        );
        let mut out = Tensor::<f32, Shape![1, 12, _, 64]>::zeros_with_dims([1, HEADS, s, HEAD_DIM])
            .expect("shape");
        g.bench_function(format!("graph S={s} (1 thread)"), |b| {
            b.iter(|| {
                pool.install(|| causal_into(black_box(&q), black_box(&k), black_box(&v), &mut out))
                    .expect("sizes agree")
            })
        });
        // The peers script prints the same sums (a check that the outputs agree).
        eprintln!(
            "attention S={s}: sum {:.6e}",
            out.as_slice().iter().map(|&x| x as f64).sum::<f64>()
        );
        // The runtime call the graph's step makes, on the same buffers (the graph's
        // overhead is the difference: copies into temps, if any, and call entry).
        g.bench_function(format!("bare call S={s}"), |b| {
            use tensorgraph::__private::{
                attention, AttentionMask, AttentionOptions, AttentionShape,
            };
            b.iter(|| {
                attention::<f32>(
                    black_box(q.as_slice()),
                    black_box(k.as_slice()),
                    black_box(v.as_slice()),
                    AttentionMask::None,
                    out.as_mut_slice(),
                    AttentionShape {
                        batch: 1,
                        q_heads: HEADS,
                        kv_heads: HEADS,
                        q_len: s,
                        kv_len: s,
                        head_dim: HEAD_DIM,
                        v_dim: HEAD_DIM,
                    },
                    AttentionOptions {
                        scale: 1.0 / (HEAD_DIM as f64).sqrt(),
                        softcap: 0.0,
                        causal: true,
                    },
                )
            })
        });
        eprintln!(
            "attention S={s} (bare call): sum {:.6e}",
            out.as_slice().iter().map(|&x| x as f64).sum::<f64>()
        );
    }
    g.finish();
}

fn bench_xent(c: &mut Criterion) {
    if !wanted("xent") {
        return;
    }
    let rows = IDS;
    // Scores `((r · 7 + c · 13) mod 101) · 0.05 - 2.5`, labels `(r · 7919) mod 50257`.
    let x = Tensor::<f32, Shape![_, 50257]>::from_shape_vec(
        [rows, VOCAB],
        (0..rows * VOCAB)
            .map(|n| (((n / VOCAB) * 7 + (n % VOCAB) * 13) % 101) as f32 * 0.05 - 2.5)
            .collect(),
    )
    .expect("shape");
    let labels = Tensor::<i64, Shape![_]>::from_shape_vec(
        [rows],
        (0..rows).map(|r| ((r * 7919) % VOCAB) as i64).collect(),
    )
    .expect("shape");
    let mut g = c.benchmark_group("softmax_cross_entropy mean f32[4096,50257]");
    g.throughput(Throughput::Bytes((rows * VOCAB * 4) as u64));
    g.sample_size(10);
    let pool = one_thread();
    g.bench_function("graph (1 thread)", |b| {
        b.iter(|| {
            pool.install(|| xent(black_box(&x), black_box(&labels)))
                .expect("labels in range")
        })
    });
    eprintln!(
        "softmax_cross_entropy: {:.7e}",
        xent(&x, &labels).expect("labels in range").as_slice()[0]
    );
    // Reading the scores once: half a copy of them (the streaming bound).
    let mut dst = vec![0.0f32; rows * VOCAB];
    g.bench_function("copy (bound = half of this)", |b| {
        b.iter(|| dst.copy_from_slice(black_box(x.as_slice())))
    });
    g.finish();
}

criterion_group!(benches, bench_gather, bench_attention, bench_xent);
criterion_main!(benches);
