//! Row-strided ndarray views (issue 35, item 7), in one run (see BENCHMARKS.md): the same
//! graph on a `Tensor`, a standard-layout `Array`, a column block of a wider array (run in
//! place through the pitched kernel) and that block's `.as_standard_layout()` copy, next to
//! a hand-written loop as the fixed point that before/after runs are compared against.
//! Every case runs on a one-thread global pool and is timed by this process's CPU time
//! (benches/cpu_time.rs), which leaves out the time spent descheduled on a shared machine.
//! `cargo bench -p tensorgraph-tests --features ndarray --bench row_strided`.

#[path = "cpu_time.rs"]
mod cpu_time;

use criterion::{criterion_group, criterion_main, Criterion};
use ndarray::{s, Array1, Array2};
use std::hint::black_box;
use tensorgraph::prelude::*;

graph! {
    fn affine(x: f32[B, S], g: f32[S], b: f32[S]) -> f32[B, S] { x * g + b }
    fn sm(x: f32[B, 1024]) -> f32[B, 1024] { softmax(x, axis = 1) }
}

/// The loop `affine` computes, by hand, over rows `pitch` apart.
fn affine_loop(x: &[f32], pitch: usize, g: &[f32], b: &[f32], out: &mut [f32]) {
    let cols = g.len();
    for (r, o) in out.chunks_exact_mut(cols).enumerate() {
        let row = &x[r * pitch..r * pitch + cols];
        for (((o, &x), &g), &b) in o.iter_mut().zip(row).zip(g).zip(b) {
            *o = x * g + b;
        }
    }
}

fn bench_all(_: &mut Criterion) {
    let mut c = Criterion::default()
        .with_measurement(cpu_time::CpuTime)
        .configure_from_args();
    // The global pool with one thread: a split stage's tasks run one after another.
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("a one-thread global pool");
    bench(&mut c);
}

fn bench(c: &mut Criterion<cpu_time::CpuTime>) {
    for &(rows, cols) in &[(8usize, 64usize), (4096, 1024)] {
        let wide = Array2::from_shape_fn((rows, cols + 64), |(i, j)| ((i * 7 + j) % 101) as f32);
        let block = wide.slice(s![.., ..cols]);
        let standard = block.to_owned();
        let tensor = Tensor::<f32, Shape![_, _]>::from_shape_vec(
            [rows, cols],
            standard.as_slice().unwrap().to_vec(),
        )
        .unwrap();
        let g = Array1::from_shape_fn(cols, |j| j as f32 * 0.01);
        let b = Array1::from_shape_fn(cols, |j| 1.0 - j as f32 * 0.01);
        let mut out_t = Tensor::<f32, Shape![_, _]>::zeros_with_dims([rows, cols]).unwrap();
        let mut out_a = Array2::<f32>::zeros((rows, cols));
        let mut out_wide = Array2::<f32>::zeros((rows, cols + 64));
        let mut group = c.benchmark_group(format!("row_strided/affine_{rows}x{cols}"));
        group.sample_size(30);
        group.measurement_time(std::time::Duration::from_secs(2));
        group.warm_up_time(std::time::Duration::from_millis(500));
        let mut out = vec![0.0f32; rows * cols];
        let (gs, bs) = (g.as_slice().unwrap(), b.as_slice().unwrap());
        group.bench_function("hand_loop", |bch| {
            bch.iter(|| {
                affine_loop(
                    black_box(standard.as_slice().unwrap()),
                    cols,
                    gs,
                    bs,
                    &mut out,
                )
            })
        });
        group.bench_function("tensor", |bch| {
            bch.iter(|| affine_into(black_box(&tensor), &g, &b, &mut out_t).unwrap())
        });
        group.bench_function("ndarray_standard", |bch| {
            bch.iter(|| affine_into(black_box(&standard), &g, &b, &mut out_a).unwrap())
        });
        if affine(block, &g, &b).is_ok() {
            group.bench_function("ndarray_row_strided", |bch| {
                bch.iter(|| affine_into(black_box(block), &g, &b, &mut out_a).unwrap())
            });
            group.bench_function("ndarray_row_strided_out", |bch| {
                bch.iter(|| {
                    affine_into(black_box(block), &g, &b, out_wide.slice_mut(s![.., ..cols]))
                        .unwrap()
                })
            });
        }
        group.bench_function("as_standard_layout", |bch| {
            bch.iter(|| {
                affine_into(&black_box(block).as_standard_layout(), &g, &b, &mut out_a).unwrap()
            })
        });
        group.finish();
    }
    let rows = 4096;
    let wide = Array2::from_shape_fn((rows, 1088), |(i, j)| ((i * 7 + j) % 101) as f32 * 0.1);
    let block = wide.slice(s![.., ..1024]);
    let standard = block.to_owned();
    let mut out_a = Array2::<f32>::zeros((rows, 1024));
    let mut group = c.benchmark_group("row_strided/softmax_4096x1024");
    group.sample_size(30);
    group.measurement_time(std::time::Duration::from_secs(2));
    group.warm_up_time(std::time::Duration::from_millis(500));
    group.bench_function("ndarray_standard", |bch| {
        bch.iter(|| sm_into(black_box(&standard), &mut out_a).unwrap())
    });
    if sm(block).is_ok() {
        group.bench_function("ndarray_row_strided", |bch| {
            bch.iter(|| sm_into(black_box(block), &mut out_a).unwrap())
        });
    }
    group.bench_function("as_standard_layout", |bch| {
        bch.iter(|| sm_into(&black_box(block).as_standard_layout(), &mut out_a).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench_all);
criterion_main!(benches);
