//! f32 GEMM: tensorgraph's engine (`tensor_core::gemm`) against `gemm` 0.18 (AVX-512 and
//! AVX2 kernels chosen at run time), `matrixmultiply` 0.3 (AVX2/FMA kernels) and a naive
//! i-k-j loop, row-major operands, `C = A·B` overwritten. Criterion's "elem/s" are flop/s
//! (2·m·n·k per product). See Cargo.toml for the commands.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tensor_core::gemm::{kernel_name_f32, matmul_f32_with, Block, MatRef, Options};

fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 7 + seed) % 17) as f32 * 0.05 - 0.4)
        .collect()
}

fn no_epilogue(_: Block<'_, f32>) {}

fn tensorgraph(a: &[f32], b: &[f32], c: &mut [f32], n: usize, options: Options) {
    let am = MatRef::row_major(a, n, n).unwrap();
    let bm = MatRef::row_major(b, n, n).unwrap();
    matmul_f32_with(&am, &bm, c, n, options, &no_epilogue).unwrap();
}

fn gemm_crate(a: &[f32], b: &[f32], c: &mut [f32], n: usize, par: gemm::Parallelism) {
    let s = n as isize;
    // SAFETY: three n×n row-major buffers (column stride 1, row stride n), checked below.
    assert!(a.len() >= n * n && b.len() >= n * n && c.len() >= n * n);
    unsafe {
        gemm::gemm(
            n,
            n,
            n,
            c.as_mut_ptr(),
            1,
            s,
            false,
            a.as_ptr(),
            1,
            s,
            b.as_ptr(),
            1,
            s,
            0.0,
            1.0,
            false,
            false,
            false,
            par,
        )
    }
}

fn matrixmultiply_crate(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    let s = n as isize;
    assert!(a.len() >= n * n && b.len() >= n * n && c.len() >= n * n);
    // SAFETY: as above.
    unsafe {
        matrixmultiply::sgemm(
            n,
            n,
            n,
            1.0,
            a.as_ptr(),
            s,
            1,
            b.as_ptr(),
            s,
            1,
            0.0,
            c.as_mut_ptr(),
            s,
            1,
        )
    }
}

/// Plain i-k-j triple loop (LLVM vectorises the j loop).
fn naive(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    c.fill(0.0);
    for i in 0..n {
        for p in 0..n {
            let x = a[i * n + p];
            for (cj, bj) in c[i * n..(i + 1) * n].iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *cj += x * bj;
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    eprintln!("tensorgraph f32 kernel: {}", kernel_name_f32());
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let n = 1024;
    let (a, b) = (data(n * n, 1), data(n * n, 2));
    let mut out = vec![0f32; n * n];
    let mut g = c.benchmark_group("f32_1024");
    g.sample_size(20);
    g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
    g.bench_function("tensorgraph, 1 thread", |bench| {
        bench.iter(|| tensorgraph(&a, &b, black_box(&mut out), n, Options::SINGLE))
    });
    g.bench_function("gemm, 1 thread", |bench| {
        bench.iter(|| gemm_crate(&a, &b, black_box(&mut out), n, gemm::Parallelism::None))
    });
    g.bench_function("matrixmultiply, 1 thread", |bench| {
        bench.iter(|| matrixmultiply_crate(&a, &b, black_box(&mut out), n))
    });
    g.bench_function("tensorgraph, 2 threads", |bench| {
        bench.iter(|| {
            two.install(|| tensorgraph(&a, &b, black_box(&mut out), n, Options::default()))
        })
    });
    g.bench_function("gemm, 2 threads", |bench| {
        bench.iter(|| gemm_crate(&a, &b, black_box(&mut out), n, gemm::Parallelism::Rayon(2)))
    });
    g.finish();

    let mut g = c.benchmark_group("f32_small");
    for n in [8usize, 16, 32, 64, 128] {
        let (a, b) = (data(n * n, 1), data(n * n, 2));
        let mut out = vec![0f32; n * n];
        g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
        g.bench_with_input(BenchmarkId::new("tensorgraph", n), &n, |bench, _| {
            bench.iter(|| tensorgraph(&a, &b, black_box(&mut out), n, Options::SINGLE))
        });
        g.bench_with_input(BenchmarkId::new("naive_ikj", n), &n, |bench, _| {
            bench.iter(|| naive(&a, &b, black_box(&mut out), n))
        });
        g.bench_with_input(BenchmarkId::new("matrixmultiply", n), &n, |bench, _| {
            bench.iter(|| matrixmultiply_crate(&a, &b, black_box(&mut out), n))
        });
        g.bench_with_input(BenchmarkId::new("gemm", n), &n, |bench, _| {
            bench.iter(|| gemm_crate(&a, &b, black_box(&mut out), n, gemm::Parallelism::None))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
