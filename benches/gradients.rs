//! Compile-time gradients (issue 32 item 8; BENCHMARKS.md "Gradients (issue 32)"), one
//! thread: the MLP step `gelu(x·w1 + b1)·w2 + b2 → softmax_cross_entropy`, 768 → 3072 →
//! 768, at B = 32 and 256: the forward alone and the derived `value_and_grad` with respect
//! to w1, b1, w2, b2 (`_into`, no allocation per call), and a `layer_norm` and a `softmax`
//! backward (`vjp`) over f32[4096, 768] next to a copy of the bytes they must move.
//!
//! `RUSTFLAGS="-C target-cpu=native" cargo bench --bench gradients` (a target dir of its
//! own); benches/peers/grad_peers.py times `jax.jit(jax.value_and_grad(…))` on the same
//! inputs. `GRAD_BENCH=mlp,rows` picks the groups. Times are this process's CPU time
//! (benches/cpu_time.rs): the machine is shared, and time spent descheduled is not the
//! graph's; at low load it equals the wall time of the one-thread pool.

#[path = "cpu_time.rs"]
mod cpu_time;

use cpu_time::CpuTime;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::prelude::*;

graph! {
    fn mlp(x: f32[B, 768], y: i64[B], w1: f32[768, 3072], b1: f32[3072], w2: f32[3072, 768], b2: f32[768]) -> f32[] {
        softmax_cross_entropy(gelu(x @ w1 + b1) @ w2 + b2, y)
    }
    grad fn mlp_grad = value_and_grad(mlp, wrt = [w1, b1, w2, b2]);

    // The forward's two products at B = 32, alone (the "parts" group).
    fn xw1(x: f32[32, 768], w1: f32[768, 3072]) -> f32[32, 3072] { x @ w1 }
    fn hw2(h: f32[32, 3072], w2: f32[3072, 768]) -> f32[32, 768] { h @ w2 }
    // The backward's three products at B = 32, alone (the "parts" group).
    fn dw1(x: f32[32, 768], d: f32[32, 3072]) -> f32[768, 3072] { matmul(transpose(x, [1, 0]), d) }
    fn dh(d: f32[32, 768], w2: f32[3072, 768]) -> f32[32, 3072] { matmul(d, transpose(w2, [1, 0])) }
    fn dw2(h: f32[32, 3072], d: f32[32, 768]) -> f32[3072, 768] { matmul(transpose(h, [1, 0]), d) }

    fn ln(x: f32[4096, 768], g: f32[768], b: f32[768]) -> f32[4096, 768] { layer_norm(x, g, b) }
    vjp fn ln_vjp = vjp(ln, wrt = [x]);
    fn sm(x: f32[4096, 768]) -> f32[4096, 768] { softmax(x, axis = -1) }
    vjp fn sm_vjp = vjp(sm, wrt = [x]);
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
}

fn wanted(group: &str) -> bool {
    std::env::var("GRAD_BENCH").map_or(true, |v| v.split(',').any(|g| g == group))
}

/// The same formulas as benches/peers/grad_peers.py.
fn fill(n: usize, a: usize, m: usize, scale: f32) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * a) % m) as f32 / m as f32 * scale - scale / 2.0)
        .collect()
}

fn bench_mlp(c: &mut Criterion<CpuTime>) {
    if !wanted("mlp") {
        return;
    }
    let pool = one_thread();
    let w1 = Tensor::<f32, Shape![768, 3072]>::from_vec(fill(768 * 3072, 31, 197, 0.1)).unwrap();
    let b1 = Tensor::<f32, Shape![3072]>::from_vec(fill(3072, 7, 101, 0.1)).unwrap();
    let w2 = Tensor::<f32, Shape![3072, 768]>::from_vec(fill(3072 * 768, 17, 193, 0.05)).unwrap();
    let b2 = Tensor::<f32, Shape![768]>::from_vec(fill(768, 5, 103, 0.1)).unwrap();
    for batch in [32usize, 256] {
        let x = Tensor::<f32, Shape![_, 768]>::from_shape_vec(
            [batch, 768],
            fill(batch * 768, 13, 199, 2.0),
        )
        .unwrap();
        let y: Vec<i64> = (0..batch).map(|i| ((i * 7919) % 768) as i64).collect();
        let mut g = c.benchmark_group(format!("mlp step B={batch}, 768-3072-768"));
        g.sample_size(20);
        g.bench_function("forward (1 thread)", |b| {
            b.iter(|| {
                pool.install(|| mlp(black_box(&x), &y, &w1, &b1, &w2, &b2))
                    .unwrap()
            })
        });
        let mut loss = Tensor::<f32, Shape![]>::zeros();
        let mut dw1 = Tensor::<f32, Shape![768, 3072]>::zeros();
        let mut db1 = Tensor::<f32, Shape![3072]>::zeros();
        let mut dw2 = Tensor::<f32, Shape![3072, 768]>::zeros();
        let mut db2 = Tensor::<f32, Shape![768]>::zeros();
        g.bench_function("value_and_grad (1 thread)", |b| {
            b.iter(|| {
                pool.install(|| {
                    mlp_grad_into(
                        black_box(&x),
                        &y,
                        &w1,
                        &b1,
                        &w2,
                        &b2,
                        &mut loss,
                        &mut dw1,
                        &mut db1,
                        &mut dw2,
                        &mut db2,
                    )
                })
                .unwrap()
            })
        });
        let norm = |t: &[f32]| {
            t.iter()
                .map(|&v| (v as f64) * (v as f64))
                .sum::<f64>()
                .sqrt()
        };
        eprintln!(
            "B={batch}: loss {:.6} |dw1| {:.6e} |db1| {:.6e} |dw2| {:.6e} |db2| {:.6e}",
            loss.item(),
            norm(dw1.as_slice()),
            norm(db1.as_slice()),
            norm(dw2.as_slice()),
            norm(db2.as_slice())
        );
        g.finish();
    }
}

fn bench_rows(c: &mut Criterion<CpuTime>) {
    if !wanted("rows") {
        return;
    }
    let pool = one_thread();
    let x = Tensor::<f32, Shape![4096, 768]>::from_vec(fill(4096 * 768, 13, 199, 4.0)).unwrap();
    let ct = Tensor::<f32, Shape![4096, 768]>::from_vec(fill(4096 * 768, 29, 211, 2.0)).unwrap();
    let gamma = Tensor::<f32, Shape![768]>::from_vec(fill(768, 7, 101, 1.0)).unwrap();
    let beta = Tensor::<f32, Shape![768]>::from_vec(fill(768, 5, 103, 1.0)).unwrap();
    let mut out = Tensor::<f32, Shape![4096, 768]>::zeros();
    let mut g = c.benchmark_group("row backward f32[4096,768]");
    // The bound: x and the cotangent read once, dx written once.
    g.throughput(Throughput::Bytes((3 * 4096 * 768 * 4) as u64));
    g.sample_size(30);
    g.bench_function("layer_norm vjp (1 thread)", |b| {
        b.iter(|| pool.install(|| ln_vjp_into(black_box(&x), &gamma, &beta, &ct, &mut out)))
    });
    g.bench_function("softmax vjp (1 thread)", |b| {
        b.iter(|| pool.install(|| sm_vjp_into(black_box(&x), &ct, &mut out)))
    });
    // The same traffic as read 2 arrays, write 1: a copy of 1.5 arrays.
    let src: Vec<f32> = [x.as_slice(), &ct.as_slice()[..2048 * 768]].concat();
    let mut dst = vec![0.0f32; src.len()];
    g.bench_function("copy of 1.5 arrays (bound: the same bytes moved)", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&src)))
    });
    g.finish();
}

fn bench_parts(c: &mut Criterion<CpuTime>) {
    if !wanted("parts") {
        return;
    }
    let pool = one_thread();
    let x = Tensor::<f32, Shape![32, 768]>::from_vec(fill(32 * 768, 13, 199, 2.0)).unwrap();
    let d3 = Tensor::<f32, Shape![32, 3072]>::from_vec(fill(32 * 3072, 11, 197, 0.01)).unwrap();
    let d7 = Tensor::<f32, Shape![32, 768]>::from_vec(fill(32 * 768, 19, 191, 0.01)).unwrap();
    let w1 = Tensor::<f32, Shape![768, 3072]>::from_vec(fill(768 * 3072, 31, 197, 0.1)).unwrap();
    let w2 = Tensor::<f32, Shape![3072, 768]>::from_vec(fill(3072 * 768, 17, 193, 0.05)).unwrap();
    let mut h1 = Tensor::<f32, Shape![32, 3072]>::zeros();
    let mut h2 = Tensor::<f32, Shape![32, 768]>::zeros();
    let mut g = c.benchmark_group("forward products B=32");
    g.sample_size(30);
    g.bench_function("x w1 (32x768 . 768x3072)", |b| {
        b.iter(|| pool.install(|| xw1_into(black_box(&x), &w1, &mut h1)))
    });
    g.bench_function("h w2 (32x3072 . 3072x768)", |b| {
        b.iter(|| pool.install(|| hw2_into(black_box(&d3), &w2, &mut h2)))
    });
    g.finish();
    let mut o1 = Tensor::<f32, Shape![768, 3072]>::zeros();
    let mut o2 = Tensor::<f32, Shape![32, 3072]>::zeros();
    let mut o3 = Tensor::<f32, Shape![3072, 768]>::zeros();
    let mut g = c.benchmark_group("backward products B=32");
    g.sample_size(30);
    g.bench_function("dw1 = x^T d (768x32 . 32x3072)", |b| {
        b.iter(|| pool.install(|| dw1_into(black_box(&x), &d3, &mut o1)))
    });
    g.bench_function("dh = d w2^T (32x768 . 768x3072)", |b| {
        b.iter(|| pool.install(|| dh_into(black_box(&d7), &w2, &mut o2)))
    });
    g.bench_function("dw2 = h^T d (3072x32 . 32x768)", |b| {
        b.iter(|| pool.install(|| dw2_into(black_box(&d3), &d7, &mut o3)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_mlp, bench_rows, bench_parts
}
criterion_main!(benches);
