//! Reductions and softmax next to baselines in one run (see BENCHMARKS.md).
//! `cargo bench --bench reductions`; add `RUSTFLAGS="-C target-cpu=native"` for the host ISA.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::prelude::*;

/// A one-thread pool: the same kernels without the `parallel` split.
fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
}

const ROWS: usize = 4096;
const COLS: usize = 1024;

graph! {
    fn row_sum(x: f32[4096, 1024]) -> f32[4096] { sum(x, axis = 1) }
    fn row_sum_f32(x: f32[4096, 1024]) -> f32[4096] { sum(x, axis = 1, acc = f32) }
    fn row_softmax(x: f32[4096, 1024]) -> f32[4096, 1024] { softmax(x, axis = 1) }
    fn column_sum(x: f32[4096, 1024]) -> f32[1024] { sum(x, axis = 0) }
    fn column_argmax(x: f32[4096, 1024]) -> i64[1024] { argmax(x, axis = 0) }
    fn column_sum_named(x: f32[B, 1024]) -> f32[1024] { sum(x, axis = 0) }
    fn row_argmax(x: f32[4096, 1024]) -> i64[4096] { argmax(x, axis = 1) }
    fn row_max(x: f32[4096, 1024]) -> f32[4096] { max(x, axis = 1) }
}

/// A pool of `n` threads (issue 16 item 4 compares one and two).
fn pool_of(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a thread pool")
}

fn input() -> Tensor<f32, Shape![4096, 1024]> {
    Tensor::from_fn(|[i, j]: [usize; 2]| ((i * 7 + j * 13) % 101) as f32 * 0.05 - 2.5)
}

fn bench_sum(c: &mut Criterion) {
    let x = input();
    let mut out = Tensor::<f32, Shape![4096]>::zeros();
    let mut g = c.benchmark_group("sum(x, axis=1) f32[4096,1024]");
    g.throughput(Throughput::Bytes((ROWS * COLS * 4) as u64));
    g.sample_size(30);
    g.bench_function("graph (f64 acc)", |b| {
        b.iter(|| row_sum_into(black_box(&x), &mut out))
    });
    g.bench_function("graph (acc = f32)", |b| {
        b.iter(|| row_sum_f32_into(black_box(&x), &mut out))
    });
    let pool = one_thread();
    g.bench_function("graph (f64 acc, 1 thread)", |b| {
        b.iter(|| pool.install(|| row_sum_into(black_box(&x), &mut out)))
    });
    g.bench_function("graph (acc = f32, 1 thread)", |b| {
        b.iter(|| pool.install(|| row_sum_f32_into(black_box(&x), &mut out)))
    });
    g.bench_function("max (1 thread)", |b| {
        b.iter(|| pool.install(|| row_max_into(black_box(&x), &mut out)))
    });
    let mut index = Tensor::<i64, Shape![4096]>::zeros();
    g.bench_function("argmax (1 thread)", |b| {
        b.iter(|| pool.install(|| row_argmax_into(black_box(&x), &mut index)))
    });
    g.bench_function("scalar loop (f64 acc)", |b| {
        b.iter(|| {
            for (o, row) in out
                .as_mut_slice()
                .iter_mut()
                .zip(black_box(x.as_slice()).chunks_exact(COLS))
            {
                *o = row.iter().map(|&v| v as f64).sum::<f64>() as f32;
            }
        })
    });
    // The streaming bound: copying the input moves it in and out once; reading it once
    // takes half of that (bytes moved / measured copy bandwidth of the same buffer).
    let mut copy = vec![0.0f32; ROWS * COLS];
    g.bench_function("copy (bound = half of this)", |b| {
        b.iter(|| copy.copy_from_slice(black_box(x.as_slice())))
    });
    g.finish();
}

fn bench_softmax(c: &mut Criterion) {
    let x = input();
    let mut out = Tensor::<f32, Shape![4096, 1024]>::zeros();
    let mut g = c.benchmark_group("softmax(x, axis=1) f32[4096,1024]");
    g.throughput(Throughput::Elements((ROWS * COLS) as u64));
    g.sample_size(10);
    g.bench_function("graph", |b| {
        b.iter(|| row_softmax_into(black_box(&x), &mut out))
    });
    let pool = one_thread();
    g.bench_function("graph (1 thread)", |b| {
        b.iter(|| pool.install(|| row_softmax_into(black_box(&x), &mut out)))
    });
    g.bench_function("naive scalar 3-pass", |b| {
        b.iter(|| {
            for (orow, row) in out
                .as_mut_slice()
                .chunks_exact_mut(COLS)
                .zip(black_box(x.as_slice()).chunks_exact(COLS))
            {
                let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                let mut s = 0.0f32;
                for (o, &v) in orow.iter_mut().zip(row) {
                    *o = (v - m).exp();
                    s += *o;
                }
                for o in orow.iter_mut() {
                    *o /= s;
                }
            }
        })
    });
    g.finish();
}

/// A reduction over the outer axis: every row reaches each of the 1024 accumulators, so the
/// threads split the kept columns into blocks (not the rows). One and two threads in one run.
fn bench_column_sum(c: &mut Criterion) {
    let x = input();
    let mut out = Tensor::<f32, Shape![1024]>::zeros();
    let mut g = c.benchmark_group("sum(x, axis=0) f32[4096,1024]");
    g.throughput(Throughput::Bytes((ROWS * COLS * 4) as u64));
    g.sample_size(30);
    for threads in [1, 2] {
        let pool = pool_of(threads);
        g.bench_function(format!("graph ({threads} threads)"), |b| {
            b.iter(|| pool.install(|| column_sum_into(black_box(&x), &mut out)))
        });
    }
    // The row count a name bound at call entry (from a `Vec`).
    let xs = x.as_slice().to_vec();
    for threads in [1, 2] {
        let pool = pool_of(threads);
        g.bench_function(format!("graph, B rows ({threads} threads)"), |b| {
            b.iter(|| pool.install(|| column_sum_named_into(black_box(&xs[..]), &mut out).unwrap()))
        });
    }
    let mut index = Tensor::<i64, Shape![1024]>::zeros();
    for threads in [1, 2] {
        let pool = pool_of(threads);
        g.bench_function(format!("argmax ({threads} threads)"), |b| {
            b.iter(|| pool.install(|| column_argmax_into(black_box(&x), &mut index)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_sum, bench_softmax, bench_column_sum);
criterion_main!(benches);
