//! Generated kernels next to their baselines, measured in one run (see BENCHMARKS.md).
//! `cargo bench --bench elementwise`; add `RUSTFLAGS="-C target-cpu=native"` for the host ISA.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::prelude::*;
use wide::f32x8;

const N1: usize = 1 << 24;
const N2: usize = 1 << 20;

graph! {
    /// W1: three memory streams.
    fn w1(a: f32[16777216], b: f32[16777216]) -> f32[16777216] {
        relu(a + b) * 2.0
    }
    /// W2: compute-bound, cache-resident.
    fn w2(x: f32[1048576]) -> f32[1048576] {
        tanh(x) * exp(-(x * x))
    }
    /// W3: broadcast rows.
    fn w3(x: f32[4096, 1024], gamma: f32[1024], beta: f32[1024]) -> f32[4096, 1024] {
        x * gamma + beta
    }
    /// W4: mixed dtypes.
    fn w4(a: u8[16777216], s: f32, b: f32[16777216]) -> f32[16777216] {
        (a as f32) * s + b
    }
}

fn w1_scalar(a: &[f32], b: &[f32], out: &mut [f32]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = (x + y).max(0.0) * 2.0;
    }
}

fn w1_wide(a: &[f32], b: &[f32], out: &mut [f32]) {
    let zero = f32x8::splat(0.0);
    let two = f32x8::splat(2.0);
    for ((o, x), y) in out.chunks_exact_mut(8).zip(a.chunks_exact(8)).zip(b.chunks_exact(8)) {
        let x = f32x8::from(<[f32; 8]>::try_from(x).unwrap());
        let y = f32x8::from(<[f32; 8]>::try_from(y).unwrap());
        o.copy_from_slice(&((x + y).max(zero) * two).to_array());
    }
}

fn copy_bound(src: &[f32], dst: &mut [f32]) {
    dst.copy_from_slice(src);
}

fn bench_w1(c: &mut Criterion) {
    let a = Tensor::<f32, Shape![16777216]>::from_fn(|[i]| (i % 1000) as f32 - 500.0);
    let b = Tensor::<f32, Shape![16777216]>::from_fn(|[i]| (i % 7) as f32);
    let mut out = Tensor::<f32, Shape![16777216]>::zeros();
    let mut g = c.benchmark_group("W1 relu(a+b)*2 f32[16M]");
    g.throughput(Throughput::Bytes((N1 * 4 * 3) as u64));
    g.sample_size(20);
    g.bench_function("graph", |bch| bch.iter(|| w1_into(black_box(&a), black_box(&b), &mut out)));
    g.bench_function("scalar loop", |bch| bch.iter(|| w1_scalar(black_box(a.as_slice()), black_box(b.as_slice()), out.as_mut_slice())));
    g.bench_function("wide loop", |bch| bch.iter(|| w1_wide(black_box(a.as_slice()), black_box(b.as_slice()), out.as_mut_slice())));
    g.bench_function("copy (2 streams)", |bch| bch.iter(|| copy_bound(black_box(a.as_slice()), out.as_mut_slice())));
    g.finish();
}

fn bench_w2(c: &mut Criterion) {
    let x = Tensor::<f32, Shape![1048576]>::from_fn(|[i]| (i as f32 / N2 as f32) * 8.0 - 4.0);
    let mut out = Tensor::<f32, Shape![1048576]>::zeros();
    let mut g = c.benchmark_group("W2 tanh(x)*exp(-x*x) f32[1M]");
    g.throughput(Throughput::Elements(N2 as u64));
    g.sample_size(20);
    g.bench_function("graph", |bch| bch.iter(|| w2_into(black_box(&x), &mut out)));
    g.bench_function("scalar loop", |bch| {
        bch.iter(|| {
            for (o, &v) in out.as_mut_slice().iter_mut().zip(black_box(x.as_slice())) {
                *o = v.tanh() * (-(v * v)).exp();
            }
        })
    });
    g.finish();
}

fn bench_w3(c: &mut Criterion) {
    let x = Tensor::<f32, Shape![4096, 1024]>::from_fn(|[i, j]| (i + j) as f32 * 1e-3);
    let gamma = Tensor::<f32, Shape![1024]>::from_fn(|[j]| 1.0 + j as f32 * 1e-3);
    let beta = Tensor::<f32, Shape![1024]>::from_fn(|[j]| j as f32 * 1e-2);
    let mut out = Tensor::<f32, Shape![4096, 1024]>::zeros();
    let mut g = c.benchmark_group("W3 x*gamma+beta f32[4096,1024]");
    g.throughput(Throughput::Bytes((4096 * 1024 * 4 * 2) as u64));
    g.sample_size(20);
    g.bench_function("graph", |bch| bch.iter(|| w3_into(black_box(&x), &gamma, &beta, &mut out)));
    g.bench_function("scalar loop", |bch| {
        bch.iter(|| {
            for (orow, xrow) in out.as_mut_slice().chunks_exact_mut(1024).zip(black_box(x.as_slice()).chunks_exact(1024)) {
                for j in 0..1024 {
                    orow[j] = xrow[j] * gamma.as_slice()[j] + beta.as_slice()[j];
                }
            }
        })
    });
    g.bench_function("copy (2 streams)", |bch| bch.iter(|| copy_bound(black_box(x.as_slice()), out.as_mut_slice())));
    g.finish();
}

fn bench_w4(c: &mut Criterion) {
    let a = Tensor::<u8, Shape![16777216]>::from_fn(|[i]| i as u8);
    let b = Tensor::<f32, Shape![16777216]>::from_fn(|[i]| (i % 5) as f32);
    let mut out = Tensor::<f32, Shape![16777216]>::zeros();
    let mut g = c.benchmark_group("W4 (a as f32)*s+b u8/f32[16M]");
    g.throughput(Throughput::Bytes((N1 * 9) as u64));
    g.sample_size(20);
    g.bench_function("graph", |bch| bch.iter(|| w4_into(black_box(&a), 0.5, black_box(&b), &mut out)));
    g.bench_function("scalar loop", |bch| {
        bch.iter(|| {
            for ((o, &x), &y) in out.as_mut_slice().iter_mut().zip(black_box(a.as_slice())).zip(b.as_slice()) {
                *o = x as f32 * 0.5 + y;
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_w1, bench_w2, bench_w3, bench_w4);
criterion_main!(benches);
