//! Vector math throughput: tensorgraph's f32x8 functions next to wide's own and scalar std,
//! over a 4096-element f32 buffer (cache-resident). Results: ACCURACY.md, "Throughput".
//!
//! `cargo bench --bench vmath` (default build) and
//! `RUSTFLAGS="-C target-cpu=native" cargo bench --bench vmath` (host ISA); with
//! `VMATH_RATIO=1`, ours and wide's interleaved instead of criterion (see `ratio`).

use criterion::{criterion_group, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use tensorgraph::vmath as vm;
use wide::f32x8;

const N: usize = 4096;

type V32 = fn(f32x8) -> f32x8;

fn map_vec(f: V32, xs: &[f32], out: &mut [f32]) {
    map_inlined(f, xs, out) // through the pointer: one call per 8 lanes
}

fn map_scalar(f: fn(f32) -> f32, xs: &[f32], out: &mut [f32]) {
    for (o, &x) in out.iter_mut().zip(xs) {
        *o = f(x);
    }
}

/// Inputs spread over the interval where the function is not saturated.
fn inputs(lo: f32, hi: f32) -> Vec<f32> {
    let mut s = 0x9e37_79b9u32;
    (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            lo + (hi - lo) * (s >> 8) as f32 / (1u32 << 24) as f32
        })
        .collect()
}

fn sigmoid_scalar(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}
fn sigmoid_wide(x: f32x8) -> f32x8 {
    f32x8::splat(1.0) / (f32x8::splat(1.0) + (-x).exp())
}
fn softplus_scalar(x: f32) -> f32 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}
fn rsqrt_scalar(x: f32) -> f32 {
    1.0 / x.sqrt()
}
fn rsqrt_wide(x: f32x8) -> f32x8 {
    f32x8::splat(1.0) / x.sqrt()
}
fn erf_scalar(x: f32) -> f32 {
    vm::erf_scalar_f64(x as f64) as f32
}
fn pow_ours(x: f32x8) -> f32x8 {
    vm::pow_f32(x, f32x8::splat(1.7))
}
fn pow_wide(x: f32x8) -> f32x8 {
    x.powf_simd(f32x8::splat(1.7))
}
fn pow_scalar(x: f32) -> f32 {
    x.powf(1.7)
}

/// A whole 4096-element pass with the function inlined into the loop (see `ratio`).
type Pass = fn(&[f32], &mut [f32]);

struct Case {
    name: &'static str,
    ours: V32,
    /// wide's function, through a pointer and inlined into its loop (`map_inlined`).
    wide: Option<(V32, Pass)>,
    scalar: fn(f32) -> f32,
    range: (f32, f32),
    /// `ours` inlined into its loop.
    ours_inlined: Pass,
}

/// `map_vec` with the function known at compile time: each instance is one loop with the
/// function inlined, as in a `graph!` kernel, where its constants can stay in registers
/// across iterations and the out-of-order core overlaps iterations without a call between
/// them.
#[inline(always)]
fn map_inlined(f: impl Fn(f32x8) -> f32x8, xs: &[f32], out: &mut [f32]) {
    for (o, x) in out.chunks_exact_mut(8).zip(xs.chunks_exact(8)) {
        let x = f32x8::from(<[f32; 8]>::try_from(x).unwrap());
        o.copy_from_slice(&f(x).to_array());
    }
}

fn cases() -> Vec<Case> {
    macro_rules! wide {
        (None) => {
            None
        };
        (Some($w:expr)) => {
            Some(($w as V32, |xs: &[f32], out: &mut [f32]| {
                map_inlined($w, xs, out)
            }))
        };
    }
    macro_rules! c {
        ($n:literal, $ours:expr, $wk:ident $(($w:expr))?, $scalar:expr, $lo:expr, $hi:expr) => {
            Case {
                name: $n,
                ours: $ours,
                wide: wide!($wk $(($w))?),
                scalar: $scalar,
                range: ($lo, $hi),
                ours_inlined: |xs, out| map_inlined($ours, xs, out),
            }
        };
    }
    vec![
        c!(
            "exp",
            vm::exp_f32,
            Some(|x: f32x8| x.exp()),
            f32::exp,
            -80.0,
            80.0
        ),
        c!(
            "exp2",
            vm::exp2_f32,
            Some(|x: f32x8| x.exp2()),
            f32::exp2,
            -120.0,
            120.0
        ),
        c!(
            "expm1",
            vm::expm1_f32,
            Some(|x: f32x8| x.exp_m1()),
            f32::exp_m1,
            -10.0,
            10.0
        ),
        c!(
            "log",
            vm::log_f32,
            Some(|x: f32x8| x.ln()),
            f32::ln,
            1e-6,
            1e6
        ),
        c!(
            "log2",
            vm::log2_f32,
            Some(|x: f32x8| x.log2()),
            f32::log2,
            1e-6,
            1e6
        ),
        c!(
            "log1p",
            vm::log1p_f32,
            Some(|x: f32x8| x.ln_1p()),
            f32::ln_1p,
            -0.9,
            100.0
        ),
        c!(
            "sqrt",
            vm::sqrt_f32,
            Some(|x: f32x8| x.sqrt()),
            f32::sqrt,
            0.0,
            1e6
        ),
        c!(
            "rsqrt",
            vm::rsqrt_f32,
            Some(rsqrt_wide),
            rsqrt_scalar,
            1e-6,
            1e6
        ),
        c!(
            "sin",
            vm::sin_f32,
            Some(|x: f32x8| x.sin()),
            f32::sin,
            -100.0,
            100.0
        ),
        c!(
            "cos",
            vm::cos_f32,
            Some(|x: f32x8| x.cos()),
            f32::cos,
            -100.0,
            100.0
        ),
        c!(
            "tan",
            vm::tan_f32,
            Some(|x: f32x8| x.tan()),
            f32::tan,
            -100.0,
            100.0
        ),
        c!(
            "atan",
            vm::atan_f32,
            Some(|x: f32x8| x.atan()),
            f32::atan,
            -10.0,
            10.0
        ),
        c!(
            "asin",
            vm::asin_f32,
            Some(|x: f32x8| x.asin()),
            f32::asin,
            -1.0,
            1.0
        ),
        c!(
            "acos",
            vm::acos_f32,
            Some(|x: f32x8| x.acos()),
            f32::acos,
            -1.0,
            1.0
        ),
        c!(
            "sinh",
            vm::sinh_f32,
            Some(|x: f32x8| x.sinh()),
            f32::sinh,
            -80.0,
            80.0
        ),
        c!(
            "cosh",
            vm::cosh_f32,
            Some(|x: f32x8| x.cosh()),
            f32::cosh,
            -80.0,
            80.0
        ),
        c!(
            "tanh",
            vm::tanh_f32,
            Some(|x: f32x8| x.tanh()),
            f32::tanh,
            -10.0,
            10.0
        ),
        c!("erf", vm::erf_f32, None, erf_scalar, -5.0, 5.0),
        c!(
            "sigmoid",
            vm::sigmoid_f32,
            Some(sigmoid_wide),
            sigmoid_scalar,
            -20.0,
            20.0
        ),
        c!(
            "softplus",
            vm::softplus_f32,
            None,
            softplus_scalar,
            -20.0,
            20.0
        ),
        c!(
            "pow(x, 1.7)",
            pow_ours,
            Some(pow_wide),
            pow_scalar,
            1e-3,
            1e3
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let only = std::env::var("VMATH_ONLY").ok();
    let mut out = vec![0f32; N];
    for case in cases() {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|n| n == case.name))
        {
            continue;
        }
        let xs = inputs(case.range.0, case.range.1);
        let mut g = c.benchmark_group(case.name);
        g.throughput(Throughput::Elements(N as u64));
        g.warm_up_time(Duration::from_millis(300));
        g.measurement_time(Duration::from_millis(1000));
        g.sample_size(20);
        g.bench_function("tensorgraph", |b| {
            b.iter(|| map_vec(case.ours, black_box(&xs), &mut out))
        });
        if let Some((w, _)) = case.wide {
            g.bench_function("wide", |b| b.iter(|| map_vec(w, black_box(&xs), &mut out)));
        }
        g.bench_function("std scalar", |b| {
            b.iter(|| map_scalar(case.scalar, black_box(&xs), &mut out))
        });
        g.finish();
    }
}

/// `VMATH_RATIO=1 cargo bench --bench vmath`: ours against wide's function, interleaved.
/// On a shared machine criterion's medians for two functions, measured seconds apart,
/// move 10-20% between runs: the ratio of two such medians is mostly noise. Here each
/// round times 10 passes of ours, then 10 of wide's, over the same buffer, and each side
/// keeps its fastest round of `VMATH_ROUNDS` (default 300): a slow phase of the machine
/// hits both sides of a round, and the minimum is the undisturbed time.
///
/// Two ways of calling, both timed: through a function pointer, one call per 8 lanes (as
/// the criterion benches do: the function's latency counts, since a call's inputs and
/// constants come through memory and only ~3 calls overlap), and inlined into the loop
/// (`map_inlined`, as `graph!` kernels call them: instruction count and ports count more).
fn ratio() {
    let only = std::env::var("VMATH_ONLY").ok();
    let rounds: usize = std::env::var("VMATH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(300);
    let mut out = vec![0f32; N];
    fn time(pass: &dyn Fn(&mut [f32]), out: &mut [f32]) -> f64 {
        let t = std::time::Instant::now();
        for _ in 0..10 {
            pass(black_box(&mut *out));
        }
        t.elapsed().as_secs_f64() / 10.0
    }
    println!(
        "| function | tensorgraph | wide | ours/wide | tensorgraph inlined | wide inlined | ours/wide inlined |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for case in cases() {
        let Some((wide, wide_inlined)) = case.wide else {
            continue;
        };
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|n| n == case.name))
        {
            continue;
        }
        let xs = inputs(case.range.0, case.range.1);
        let xs = &xs[..];
        let mut best = [f64::MAX; 4];
        for _ in 0..rounds {
            let passes: [&dyn Fn(&mut [f32]); 4] = [
                &|o| map_vec(black_box(case.ours), black_box(xs), o),
                &|o| map_vec(black_box(wide), black_box(xs), o),
                &|o| black_box(case.ours_inlined)(black_box(xs), o),
                &|o| black_box(wide_inlined)(black_box(xs), o),
            ];
            for (b, pass) in best.iter_mut().zip(passes) {
                *b = b.min(time(pass, &mut out));
            }
        }
        println!(
            "| {} | {:.2} µs | {:.2} µs | {:.2}× | {:.2} µs | {:.2} µs | {:.2}× |",
            case.name,
            best[0] * 1e6,
            best[1] * 1e6,
            best[0] / best[1],
            best[2] * 1e6,
            best[3] * 1e6,
            best[2] / best[3]
        );
    }
}

criterion_group!(benches, bench);

fn main() {
    if std::env::var("VMATH_RATIO").is_ok_and(|v| v != "0") {
        ratio();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
