//! Symbolic leading dims against literal dims, in one run (see BENCHMARKS.md): the same
//! graph with `B` (or `N`) bound at call entry must run within 5% of the literal one.
//! `cargo bench --bench symbolic`; add `RUSTFLAGS="-C target-cpu=native"` for the host ISA.
//!
//! This machine's memory bandwidth drifts by 10-20% over a criterion run, more than the
//! 5% being measured, and criterion times one function after the other. So
//! `TG_INTERLEAVED=1 cargo bench --bench symbolic` instead calls the literal and the
//! symbolic kernel of each pair alternately, 40 times each, with 1 and with 2 threads,
//! and prints the medians and their ratio.

use criterion::{criterion_group, Criterion, Throughput};
use std::hint::black_box;
use tensorgraph::prelude::*;

/// A one-thread pool: the same kernels without the `parallel` split.
fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
}

const N: usize = 16_777_216;
const ROWS: usize = 4096;
const COLS: usize = 1024;

graph! {
    fn w1_lit(a: f32[16777216], b: f32[16777216]) -> f32[16777216] { relu(a + b) * 2.0 }
    fn w1_sym(a: f32[N], b: f32[N]) -> f32[N] { relu(a + b) * 2.0 }
    fn w3_lit(x: f32[4096, 1024], gamma: f32[1024], beta: f32[1024]) -> f32[4096, 1024] { x * gamma + beta }
    fn w3_sym(x: f32[B, 1024], gamma: f32[1024], beta: f32[1024]) -> f32[B, 1024] { x * gamma + beta }
    fn softmax_lit(x: f32[4096, 1024]) -> f32[4096, 1024] { softmax(x, axis = 1) }
    fn softmax_sym(x: f32[B, 1024]) -> f32[B, 1024] { softmax(x, axis = 1) }
    fn ln_lit(x: f32[4096, 1024], g: f32[1024], b: f32[1024]) -> f32[4096, 1024] {
        let mu = mean(x, axis = 1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = 1, keepdims = true);
        d * rsqrt(var + 1e-5) * g + b
    }
    fn ln_sym(x: f32[B, 1024], g: f32[1024], b: f32[1024]) -> f32[B, 1024] {
        let mu = mean(x, axis = 1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = 1, keepdims = true);
        d * rsqrt(var + 1e-5) * g + b
    }
}

fn data(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 1000) as f32 * 0.004 - 2.0
        })
        .collect()
}

fn bench_w1(c: &mut Criterion) {
    let a = data(N, 1);
    let b = data(N, 2);
    let al = Tensor::<f32, Shape![16777216]>::from_slice(&a).unwrap();
    let bl = Tensor::<f32, Shape![16777216]>::from_slice(&b).unwrap();
    let mut out_l = Tensor::<f32, Shape![16777216]>::zeros();
    let mut out_s = vec![0.0f32; N];
    let pool = one_thread();
    let mut g = c.benchmark_group("W1 relu(a+b)*2 f32[16M]: literal vs symbolic");
    g.throughput(Throughput::Bytes((N * 12) as u64));
    g.sample_size(20);
    g.bench_function("literal", |x| {
        x.iter(|| w1_lit_into(black_box(&al), &bl, &mut out_l))
    });
    g.bench_function("symbolic", |x| {
        x.iter(|| w1_sym_into(black_box(&a[..]), &b[..], &mut out_s[..]).unwrap())
    });
    g.bench_function("literal (1 thread)", |x| {
        x.iter(|| pool.install(|| w1_lit_into(black_box(&al), &bl, &mut out_l)))
    });
    g.bench_function("symbolic (1 thread)", |x| {
        x.iter(|| pool.install(|| w1_sym_into(black_box(&a[..]), &b[..], &mut out_s[..]).unwrap()))
    });
    g.finish();
}

fn bench_rows(c: &mut Criterion) {
    let x = data(ROWS * COLS, 3);
    let xl = Tensor::<f32, Shape![4096, 1024]>::from_slice(&x).unwrap();
    let gamma = Tensor::<f32, Shape![1024]>::from_vec(data(COLS, 4)).unwrap();
    let beta = Tensor::<f32, Shape![1024]>::from_vec(data(COLS, 5)).unwrap();
    let mut out_l = Tensor::<f32, Shape![4096, 1024]>::zeros();
    let mut out_s = vec![0.0f32; ROWS * COLS];
    let pool = one_thread();
    macro_rules! pair {
        ($name:literal, $lit:ident, $sym:ident, ($($arg:ident),*), $elements:expr) => {{
            let mut g = c.benchmark_group(concat!($name, " f32[4096,1024]: literal vs symbolic"));
            g.throughput(Throughput::Elements($elements as u64));
            g.sample_size(20);
            g.bench_function("literal", |b| b.iter(|| $lit(black_box(&xl), $(&$arg,)* &mut out_l)));
            g.bench_function("symbolic", |b| {
                b.iter(|| $sym(black_box(&x[..]), $(&$arg,)* &mut out_s[..]).unwrap())
            });
            g.bench_function("literal (1 thread)", |b| {
                b.iter(|| pool.install(|| $lit(black_box(&xl), $(&$arg,)* &mut out_l)))
            });
            g.bench_function("symbolic (1 thread)", |b| {
                b.iter(|| pool.install(|| $sym(black_box(&x[..]), $(&$arg,)* &mut out_s[..]).unwrap()))
            });
            g.finish();
        }};
    }
    pair!(
        "W3 x*gamma+beta",
        w3_lit_into,
        w3_sym_into,
        (gamma, beta),
        ROWS * COLS
    );
    pair!(
        "softmax(x, axis=1)",
        softmax_lit_into,
        softmax_sym_into,
        (),
        ROWS * COLS
    );
    pair!(
        "layer norm",
        ln_lit_into,
        ln_sym_into,
        (gamma, beta),
        ROWS * COLS
    );
}

/// Median seconds of `f`, calls alternating with `g`'s: (f, g).
fn interleaved_medians(mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let (mut tf, mut tg) = (Vec::new(), Vec::new());
    for _ in 0..40 {
        let s = std::time::Instant::now();
        f();
        tf.push(s.elapsed().as_secs_f64());
        let s = std::time::Instant::now();
        g();
        tg.push(s.elapsed().as_secs_f64());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    (median(&mut tf), median(&mut tg))
}

/// Both kernels of a pair read and write the same buffers (a literal-dim tensor's slice
/// goes to the symbolic kernel), so page placement cannot favour either.
fn interleaved() {
    let al = Tensor::<f32, Shape![16777216]>::from_vec(data(N, 1)).unwrap();
    let bl = Tensor::<f32, Shape![16777216]>::from_vec(data(N, 2)).unwrap();
    let mut w1_out = Tensor::<f32, Shape![16777216]>::zeros();
    let xl = Tensor::<f32, Shape![4096, 1024]>::from_vec(data(ROWS * COLS, 3)).unwrap();
    let gamma = Tensor::<f32, Shape![1024]>::from_vec(data(COLS, 4)).unwrap();
    let beta = Tensor::<f32, Shape![1024]>::from_vec(data(COLS, 5)).unwrap();
    let mut out = Tensor::<f32, Shape![4096, 1024]>::zeros();
    println!("| workload | threads | literal ms | symbolic ms | symbolic / literal |");
    println!("|---|---:|---:|---:|---:|");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let row = |name: &str, (l, s): (f64, f64)| {
            println!(
                "| {name} | {threads} | {:.3} | {:.3} | {:.3} |",
                l * 1e3,
                s * 1e3,
                s / l
            )
        };
        pool.install(|| {
            let w1 = std::cell::RefCell::new(&mut w1_out);
            row(
                "W1 relu(a+b)*2 f32[16M]",
                interleaved_medians(
                    || w1_lit_into(&al, &bl, *w1.borrow_mut()),
                    || {
                        w1_sym_into(al.as_slice(), bl.as_slice(), w1.borrow_mut().as_mut_slice())
                            .unwrap()
                    },
                ),
            );
            let o = std::cell::RefCell::new(&mut out);
            row(
                "W3 x*gamma+beta [4096,1024]",
                interleaved_medians(
                    || w3_lit_into(&xl, &gamma, &beta, *o.borrow_mut()),
                    || {
                        w3_sym_into(xl.as_slice(), &gamma, &beta, o.borrow_mut().as_mut_slice())
                            .unwrap()
                    },
                ),
            );
            row(
                "softmax [4096,1024]",
                interleaved_medians(
                    || softmax_lit_into(&xl, *o.borrow_mut()),
                    || softmax_sym_into(xl.as_slice(), o.borrow_mut().as_mut_slice()).unwrap(),
                ),
            );
            row(
                "layer norm [4096,1024]",
                interleaved_medians(
                    || ln_lit_into(&xl, &gamma, &beta, *o.borrow_mut()),
                    || {
                        ln_sym_into(xl.as_slice(), &gamma, &beta, o.borrow_mut().as_mut_slice())
                            .unwrap()
                    },
                ),
            );
        });
    }
}

criterion_group!(benches, bench_w1, bench_rows);

fn main() {
    if std::env::var_os("TG_INTERLEAVED").is_some() {
        interleaved();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
