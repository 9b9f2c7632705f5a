//! Products inside graphs: the MLP layer `gelu(x @ w + b)` (x f32[512, 768], w f32[768,
//! 3072]) as one graph, where `w` is packed once per call and the bias and gelu run on each
//! 256-row block of the product right after the GEMM computes it, against the same layer as two graphs (the product, then `gelu(h + b)`
//! over the stored product). The same with a cheap epilogue, `relu(x @ w + b)`, shows the
//! fusion itself apart from gelu's cost; the product and each pass alone show what fusion
//! can save at most. One thread (a one-thread rayon pool) and the
//! default pool. `cargo bench --bench matmul_graph` (BENCHMARKS.md, "Products in graphs").
//! The one-thread cases are timed again by this process's CPU time (`cpu/` group, see
//! benches/cpu_time.rs), which leaves out the time spent descheduled on a shared machine.

#[path = "cpu_time.rs"]
mod cpu_time;

use criterion::measurement::Measurement;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::prelude::*;

graph! {
    fn mlp(x: f32[512, 768], w: f32[768, 3072], b: f32[3072]) -> f32[512, 3072] { gelu(x @ w + b) }
    fn product(x: f32[512, 768], w: f32[768, 3072]) -> f32[512, 3072] { x @ w }
    fn bias_gelu(h: f32[512, 3072], b: f32[3072]) -> f32[512, 3072] { gelu(h + b) }
    fn mlp_relu(x: f32[512, 768], w: f32[768, 3072], b: f32[3072]) -> f32[512, 3072] { relu(x @ w + b) }
    fn bias_relu(h: f32[512, 3072], b: f32[3072]) -> f32[512, 3072] { relu(h + b) }
}

fn bench_mlp(c: &mut Criterion) {
    cases(c, "mlp_512x768x3072", &[true, false]);
    let mut cpu = Criterion::default()
        .with_measurement(cpu_time::CpuTime)
        .configure_from_args();
    cases(&mut cpu, "cpu/mlp_512x768x3072", &[true]);
}

/// Every case on a one-thread pool (`true`) and/or the default pool (`false`).
fn cases<M: Measurement>(c: &mut Criterion<M>, group: &str, one_thread: &[bool]) {
    let x =
        Tensor::<f32, Shape![512, 768]>::from_fn(|[i, j]| ((i * 7 + j) % 17) as f32 * 0.05 - 0.4);
    let w = Tensor::<f32, Shape![768, 3072]>::from_fn(|[i, j]| {
        ((i * 3 + j * 5) % 19) as f32 * 0.01 - 0.09
    });
    let b = Tensor::<f32, Shape![3072]>::from_fn(|[j]| (j % 7) as f32 * 0.1 - 0.3);
    let (mut y, mut h) = (Tensor::zeros(), Tensor::zeros());
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.throughput(Throughput::Elements(2 * 512 * 768 * 3072));
    for &single in one_thread {
        let (threads, pool) = if single {
            ("1 thread", Some(&one))
        } else {
            ("all threads", None)
        };
        let run = |f: &mut (dyn FnMut() + Send)| match pool {
            Some(p) => p.install(f),
            None => f(),
        };
        g.bench_function(format!("fused graph, {threads}"), |bench| {
            bench.iter(|| run(&mut || mlp_into(black_box(&x), &w, &b, &mut y)))
        });
        g.bench_function(format!("product then gelu pass, {threads}"), |bench| {
            bench.iter(|| {
                run(&mut || {
                    product_into(black_box(&x), &w, &mut h);
                    bias_gelu_into(&h, &b, &mut y);
                })
            })
        });
        g.bench_function(format!("relu: fused graph, {threads}"), |bench| {
            bench.iter(|| run(&mut || mlp_relu_into(black_box(&x), &w, &b, &mut y)))
        });
        g.bench_function(
            format!("relu: product then relu pass, {threads}"),
            |bench| {
                bench.iter(|| {
                    run(&mut || {
                        product_into(black_box(&x), &w, &mut h);
                        bias_relu_into(&h, &b, &mut y);
                    })
                })
            },
        );
        g.bench_function(format!("product alone, {threads}"), |bench| {
            bench.iter(|| run(&mut || product_into(black_box(&x), &w, &mut h)))
        });
        // The separate passes alone: what fusion can save at most.
        g.bench_function(format!("gelu pass alone, {threads}"), |bench| {
            bench.iter(|| run(&mut || bias_gelu_into(black_box(&h), &b, &mut y)))
        });
        g.bench_function(format!("relu pass alone, {threads}"), |bench| {
            bench.iter(|| run(&mut || bias_relu_into(black_box(&h), &b, &mut y)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_mlp);
criterion_main!(benches);
