//! Vision ops (issue 31 item 7; BENCHMARKS.md "Vision (issue 31)"), one thread:
//! - C3: `conv` 3×3, 64 → 64 channels, 56×56, pads 1, batch 1, with its bias (the GEMM
//!   engine, implicit im2col);
//! - S2: `conv` 3×3 stride 2, 64 → 128 channels, 56×56 → 28×28, pads 1, batch 1, with its
//!   bias (ResNet's downsampling convolution);
//! - DW: depthwise 3×3 (`group = 32`) on 32 × 112×112, pads 1, with its bias;
//! - MP: `max_pool` 3×3 / 2, pads 1, on 64 × 112×112 (ResNet's stem pool);
//! - RS: `resize` linear ×2 (`half_pixel`) of 64 × 56×56;
//! - CB4: a ResNet layer's conv-bn-relu-residual on a batch of 4: `conv` 3×3 64 → 64,
//!   56×56, pads 1, `batch_norm`, `+ r`, `relu` (the epilogue fused per image or not);
//! - RB: examples/resnet_block's network end to end on a `u8[224, 224, 3]` image (its
//!   `preprocess` and `resnet` graphs: normalisation to NCHW, stem conv 3→16 + bn + relu,
//!   the basic block, global average pool, the classifier), weights from `values`;
//! - the memory bound of MP and RS: a `copy_from_slice` of the input's bytes in the same
//!   run gives the bandwidth (a copy reads and writes each byte once); the bound is (input
//!   bytes + output bytes) at that bandwidth.
//!
//! `CARGO_TARGET_DIR=target/native RUSTFLAGS="-C target-cpu=native" cargo bench --bench
//! vision` (pin it with `taskset -c 1`); benches/peers/vision_peers.py times ONNX Runtime
//! on the same inputs. Every graph runs inside a one-thread rayon pool.
//! `VISION_BENCH=C3,S2,CB4,DW,MP,RS,RB` (any subset) picks the groups. Timed by this process's CPU
//! time (benches/cpu_time.rs: the machine is shared, and time spent descheduled is left
//! out; vision_peers.py's `--cpu` measures ONNX Runtime the same way).

#[path = "cpu_time.rs"]
mod cpu_time;
#[allow(dead_code)]
#[path = "../examples/resnet_block/model.rs"]
mod model;

use cpu_time::CpuTime;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::prelude::*;

graph! {
    fn conv3x3(x: f32[1, 64, 56, 56], w: f32[64, 64, 3, 3], b: f32[64]) -> f32[1, 64, 56, 56] {
        conv(x, w, b, pads = [1, 1, 1, 1])
    }
    fn conv3x3_s2(x: f32[1, 64, 56, 56], w: f32[128, 64, 3, 3], b: f32[128]) -> f32[1, 128, 28, 28] {
        conv(x, w, b, strides = [2, 2], pads = [1, 1, 1, 1])
    }
    fn conv_bn_relu_b4(x: f32[4, 64, 56, 56], w: f32[64, 64, 3, 3], s: f32[64], t: f32[64], m: f32[64], v: f32[64], r: f32[4, 64, 56, 56]) -> f32[4, 64, 56, 56] {
        relu(batch_norm(conv(x, w, pads = [1, 1, 1, 1]), s, t, m, v) + r)
    }
    fn depthwise(x: f32[1, 32, 112, 112], w: f32[32, 1, 3, 3], b: f32[32]) -> f32[1, 32, 112, 112] {
        conv(x, w, b, group = 32, pads = [1, 1, 1, 1])
    }
    fn pool(x: f32[1, 64, 112, 112]) -> f32[1, 64, 56, 56] {
        max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1])
    }
    fn upsample(x: f32[1, 64, 56, 56]) -> f32[1, 64, 112, 112] {
        resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear)
    }
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
}

fn wanted(group: &str) -> bool {
    std::env::var("VISION_BENCH").map_or(true, |v| v.split(',').any(|g| g == group))
}

/// The inputs' formula, shared with benches/peers/vision_peers.py: element `i` of a tensor
/// with seed `s` is `((i · 2654435761 + s · 40503) mod 2001) / 1000 - 1`, times `scale`.
pub fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    (0..n as u64)
        .map(|i| {
            let v = ((i * 2654435761 + seed * 40503) % 2001) as f32 / 1000.0 - 1.0;
            v * scale
        })
        .collect()
}

fn sum(v: &[f32]) -> f64 {
    v.iter().map(|&x| x as f64).sum()
}

fn bench_conv(c: &mut Criterion<CpuTime>) {
    let pool = one_thread();
    if wanted("C3") {
        let x = Tensor::from_vec(values(64 * 56 * 56, 1, 1.0)).unwrap();
        let w = Tensor::from_vec(values(64 * 64 * 9, 2, 0.05)).unwrap();
        let b = Tensor::from_vec(values(64, 3, 1.0)).unwrap();
        let mut out = Tensor::<f32, Shape![1, 64, 56, 56]>::zeros();
        let mut g = c.benchmark_group("C3 conv 3x3 64->64 56x56 + bias");
        g.throughput(Throughput::Elements(2 * 64 * 64 * 9 * 56 * 56));
        g.bench_function("graph (1 thread)", |bch| {
            bch.iter(|| pool.install(|| conv3x3_into(black_box(&x), &w, &b, &mut out)))
        });
        g.finish();
        eprintln!("C3: sum {:.6e}", sum(out.as_slice()));
    }
    if wanted("S2") {
        let x = Tensor::from_vec(values(64 * 56 * 56, 1, 1.0)).unwrap();
        let w = Tensor::from_vec(values(128 * 64 * 9, 2, 0.05)).unwrap();
        let b = Tensor::from_vec(values(128, 3, 1.0)).unwrap();
        let mut out = Tensor::<f32, Shape![1, 128, 28, 28]>::zeros();
        let mut g = c.benchmark_group("S2 conv 3x3 stride 2 64->128 56x56->28x28 + bias");
        g.throughput(Throughput::Elements(2 * 128 * 64 * 9 * 28 * 28));
        g.bench_function("graph (1 thread)", |bch| {
            bch.iter(|| pool.install(|| conv3x3_s2_into(black_box(&x), &w, &b, &mut out)))
        });
        g.finish();
        eprintln!("S2: sum {:.6e}", sum(out.as_slice()));
    }
    if wanted("CB4") {
        let x = Tensor::from_vec(values(4 * 64 * 56 * 56, 1, 1.0)).unwrap();
        let w = Tensor::from_vec(values(64 * 64 * 9, 2, 0.05)).unwrap();
        let ch = |seed: u64, scale: f32| Tensor::from_vec(values(64, seed, scale)).unwrap();
        let (s, t, m) = (ch(3, 1.0), ch(4, 1.0), ch(5, 1.0));
        let v =
            Tensor::from_vec(values(64, 6, 0.5).iter().map(|v| v.abs() + 0.5).collect()).unwrap();
        let r = Tensor::from_vec(values(4 * 64 * 56 * 56, 7, 1.0)).unwrap();
        let mut out = Tensor::<f32, Shape![4, 64, 56, 56]>::zeros();
        let mut g = c.benchmark_group("CB4 conv-bn-relu-residual batch 4, 3x3 64->64 56x56");
        g.throughput(Throughput::Elements(4 * 2 * 64 * 64 * 9 * 56 * 56));
        g.bench_function("graph (1 thread)", |bch| {
            bch.iter(|| {
                pool.install(|| {
                    conv_bn_relu_b4_into(black_box(&x), &w, &s, &t, &m, &v, &r, &mut out)
                })
            })
        });
        g.finish();
        eprintln!("CB4: sum {:.6e}", sum(out.as_slice()));
    }
    if wanted("DW") {
        let x = Tensor::from_vec(values(32 * 112 * 112, 1, 1.0)).unwrap();
        let w = Tensor::from_vec(values(32 * 9, 2, 0.3)).unwrap();
        let b = Tensor::from_vec(values(32, 3, 1.0)).unwrap();
        let mut out = Tensor::<f32, Shape![1, 32, 112, 112]>::zeros();
        let mut g = c.benchmark_group("DW depthwise 3x3 32x112x112 + bias");
        g.throughput(Throughput::Elements(2 * 32 * 9 * 112 * 112));
        g.bench_function("graph (1 thread)", |bch| {
            bch.iter(|| pool.install(|| depthwise_into(black_box(&x), &w, &b, &mut out)))
        });
        g.finish();
        eprintln!("DW: sum {:.6e}", sum(out.as_slice()));
    }
}

/// A copy of `bytes / 4` floats: the machine's bandwidth in the same run.
fn copy_bound(g: &mut criterion::BenchmarkGroup<'_, CpuTime>, n: usize) {
    let src = values(n, 9, 1.0);
    let mut dst = vec![0.0f32; n];
    g.bench_function("copy of the input (bandwidth)", |bch| {
        bch.iter(|| dst.copy_from_slice(black_box(&src)))
    });
}

fn bench_memory_bound(c: &mut Criterion<CpuTime>) {
    let pool = one_thread();
    if wanted("MP") {
        let x = Tensor::from_vec(values(64 * 112 * 112, 1, 1.0)).unwrap();
        let mut out = Tensor::<f32, Shape![1, 64, 56, 56]>::zeros();
        let mut g = c.benchmark_group("MP max_pool 3x3/2 64x112x112");
        g.throughput(Throughput::Bytes(4 * (64 * 112 * 112 + 64 * 56 * 56)));
        g.bench_function("graph (1 thread)", |bch| {
            bch.iter(|| pool.install(|| pool_into(black_box(&x), &mut out)))
        });
        copy_bound(&mut g, 64 * 112 * 112);
        g.finish();
        eprintln!("MP: sum {:.6e}", sum(out.as_slice()));
    }
    if wanted("RS") {
        let x = Tensor::from_vec(values(64 * 56 * 56, 1, 1.0)).unwrap();
        let mut out = Tensor::<f32, Shape![1, 64, 112, 112]>::zeros();
        let mut g = c.benchmark_group("RS resize linear x2 64x56x56");
        g.throughput(Throughput::Bytes(4 * (64 * 56 * 56 + 64 * 112 * 112)));
        g.bench_function("graph (1 thread)", |bch| {
            bch.iter(|| pool.install(|| upsample_into(black_box(&x), &mut out)))
        });
        copy_bound(&mut g, 64 * 112 * 112);
        g.finish();
        eprintln!("RS: sum {:.6e}", sum(out.as_slice()));
    }
}

/// `u8` pixels: byte `i` is `(i · 2654435761 + seed · 40503) mod 256` (vision_peers.py's
/// `pixels`).
fn pixels(n: usize, seed: u64) -> Vec<u8> {
    (0..n as u64)
        .map(|i| ((i * 2654435761 + seed * 40503) % 256) as u8)
        .collect()
}

/// examples/resnet_block's weights from `values`, in vision_peers.py's `resnet_block`
/// order of seeds: per conv `k` its weight, then scale (+1), bias, mean, variance (+1).
fn resnet_weights() -> Result<model::Weights, tensorgraph::ShapeError> {
    let plus = |v: Vec<f32>, p: f32| v.into_iter().map(|x| x + p).collect::<Vec<_>>();
    let norm = |seed: u64| -> Result<model::Norm, tensorgraph::ShapeError> {
        Ok(model::Norm {
            scale: Tensor::from_vec(plus(values(16, seed, 0.1), 1.0))?,
            bias: Tensor::from_vec(values(16, seed + 1, 0.1))?,
            mean: Tensor::from_vec(values(16, seed + 2, 0.1))?,
            var: Tensor::from_vec(plus(values(16, seed + 3, 0.2), 1.0))?,
        })
    };
    Ok(model::Weights {
        w0: Tensor::from_vec(values(16 * 3 * 9, 2, 0.3))?,
        n0: norm(3)?,
        w1: Tensor::from_vec(values(16 * 16 * 9, 7, 0.1))?,
        n1: norm(8)?,
        w2: Tensor::from_vec(values(16 * 16 * 9, 12, 0.1))?,
        n2: norm(13)?,
        wc: Tensor::from_vec(values(16 * 10, 17, 0.3))?,
        bc: Tensor::from_vec(values(10, 18, 0.1))?,
    })
}

fn bench_resnet_block(c: &mut Criterion<CpuTime>) {
    if !wanted("RB") {
        return;
    }
    let pool = one_thread();
    let weights = resnet_weights().unwrap();
    let img =
        Tensor::<u8, Shape![_, _, 3]>::from_shape_vec([224, 224, 3], pixels(224 * 224 * 3, 1))
            .unwrap();
    let (mean, std) = model::imagenet_stats().unwrap();
    let run = || -> Vec<f32> {
        let x = model::preprocess(black_box(&img), &mean, &std).unwrap();
        weights.logits(&x).unwrap()
    };
    let mut g = c.benchmark_group("RB resnet block 224x224 (preprocess + stem + block + head)");
    // The three convolutions' multiply-adds, twice (the rest is memory-bound).
    g.throughput(Throughput::Elements(2 * 224 * 224 * 16 * 9 * (3 + 16 + 16)));
    g.bench_function("graph (1 thread)", |bch| bch.iter(|| pool.install(run)));
    g.finish();
    eprintln!("RB: sum {:.6e}", sum(&pool.install(run)));
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_conv, bench_memory_bound, bench_resnet_block
}
criterion_main!(benches);
