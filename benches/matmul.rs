//! The GEMM engine (`tensor_core::gemm`): f32 1024³ on one and two threads, small square
//! sizes against a naive loop, and the MLP layer `gelu(x @ w + b)` fused through the
//! epilogue against the product followed by a separate pass (see BENCHMARKS.md).
//! `cargo bench --bench matmul`; add `RUSTFLAGS="-C target-cpu=native"` for the host ISA.
//! Criterion's "elem/s" here are flop/s (2·m·n·k per product).
//!
//! Peers (matrixmultiply, gemm, NumPy) are not dependencies of this repository; they were
//! timed in the same session from a scratch crate with the same cases (BENCHMARKS.md).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::gemm::{matmul_f32, matmul_f32_with, Block, MatRef, Options};
use tensorgraph::vmath::gelu_f32;
use wide::f32x8;

fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 7 + seed) % 17) as f32 * 0.05 - 0.4)
        .collect()
}

/// `row = gelu(row + bias)` in `f32x8` lanes (exact erf-based gelu of `tensor_core::vmath`).
fn bias_gelu(row: &mut [f32], bias: &[f32]) {
    let mut rows = row.chunks_exact_mut(8);
    let mut biases = bias.chunks_exact(8);
    for (r, b) in (&mut rows).zip(&mut biases) {
        let v = f32x8::new(r.try_into().unwrap()) + f32x8::new(b.try_into().unwrap());
        r.copy_from_slice(&gelu_f32(v).to_array());
    }
    let (r, b) = (rows.into_remainder(), biases.remainder());
    if !r.is_empty() {
        let mut t = [0f32; 8];
        for (x, (y, z)) in t.iter_mut().zip(r.iter().zip(b)) {
            *x = y + z;
        }
        let g = gelu_f32(f32x8::new(t)).to_array();
        r.copy_from_slice(&g[..r.len()]);
    }
}

/// Plain i-k-j triple loop (LLVM vectorises the j loop).
fn naive(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    c.fill(0.0);
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for (cj, bj) in c[i * n..(i + 1) * n].iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *cj += x * bj;
            }
        }
    }
}

fn no_epilogue(_: Block<'_, f32>) {}

fn bench_1024(c: &mut Criterion) {
    let n = 1024;
    let (a, b) = (data(n * n, 1), data(n * n, 2));
    let (am, bm) = (
        MatRef::row_major(&a, n, n).unwrap(),
        MatRef::row_major(&b, n, n).unwrap(),
    );
    let mut out = vec![0f32; n * n];
    let mut g = c.benchmark_group("matmul_f32_1024");
    g.sample_size(10);
    g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
    g.bench_function("tensorgraph_1_thread", |bench| {
        bench.iter(|| {
            matmul_f32_with(
                &am,
                &bm,
                black_box(&mut out),
                n,
                Options::SINGLE,
                &no_epilogue,
            )
            .unwrap()
        })
    });
    g.bench_function("tensorgraph_all_threads", |bench| {
        bench.iter(|| matmul_f32(&am, &bm, black_box(&mut out), n).unwrap())
    });
    g.finish();
}

fn bench_small(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul_f32_small");
    for n in [8usize, 16, 32, 64, 128] {
        let (a, b) = (data(n * n, 1), data(n * n, 2));
        let (am, bm) = (
            MatRef::row_major(&a, n, n).unwrap(),
            MatRef::row_major(&b, n, n).unwrap(),
        );
        let mut out = vec![0f32; n * n];
        g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
        g.bench_with_input(BenchmarkId::new("tensorgraph", n), &n, |bench, _| {
            bench.iter(|| {
                matmul_f32_with(
                    &am,
                    &bm,
                    black_box(&mut out),
                    n,
                    Options::SINGLE,
                    &no_epilogue,
                )
                .unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("naive_ikj", n), &n, |bench, _| {
            bench.iter(|| naive(&a, &b, black_box(&mut out), n, n, n))
        });
    }
    g.finish();
}

fn bench_gelu_mlp(c: &mut Criterion) {
    let (m, k, n) = (512, 768, 3072);
    let (x, w, bias) = (data(m * k, 3), data(k * n, 4), data(n, 5));
    let (xm, wm) = (
        MatRef::row_major(&x, m, k).unwrap(),
        MatRef::row_major(&w, k, n).unwrap(),
    );
    let mut out = vec![0f32; m * n];
    let fused = |blk: Block<'_, f32>| {
        let mut blk = blk;
        blk.for_each_row(|_, j0, row| {
            let len = row.len();
            bias_gelu(row, &bias[j0..j0 + len])
        })
    };
    let mut g = c.benchmark_group("gelu_x_w_plus_b_512x768x3072");
    g.sample_size(10);
    g.throughput(Throughput::Elements(2 * (m * n * k) as u64));
    for (label, options) in [
        ("1_thread", Options::SINGLE),
        ("all_threads", Options::default()),
    ] {
        g.bench_function(format!("fused_epilogue_{label}"), |bench| {
            bench.iter(|| {
                matmul_f32_with(&xm, &wm, black_box(&mut out), n, options, &fused).unwrap()
            })
        });
        g.bench_function(format!("matmul_then_pass_{label}"), |bench| {
            bench.iter(|| {
                matmul_f32_with(&xm, &wm, black_box(&mut out), n, options, &no_epilogue).unwrap();
                if options == Options::SINGLE {
                    out.chunks_exact_mut(n)
                        .for_each(|row| bias_gelu(row, &bias));
                } else {
                    use rayon::prelude::*;
                    out.par_chunks_mut(n).for_each(|row| bias_gelu(row, &bias));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_1024, bench_small, bench_gelu_mlp);
criterion_main!(benches);
