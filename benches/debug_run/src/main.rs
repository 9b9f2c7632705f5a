//! W1 `relu(a + b) * 2.0`, W2 `tanh(x) * exp(-(x * x))` over 2^20 f32 (a dim name `N`),
//! W3 `softmax(x, axis = -1)` and W6 `gelu(x + bias)` over [1024, 1024] f32 (W6 is the
//! peers' graph on a quarter of its rows), W4 an MLP layer `relu(x @ w + b)` (x [B, 512]
//! with B = 64, w [512, 512]), each called through its `_into` form, against the same loops
//! written by hand in scalar Rust in the same build (W6's `erf` is `libm::erff`: std has no
//! stable f32 `erf`; libm is a dependency, compiled with this crate's profile, where std's
//! `expf`/`tanhf` come precompiled): ms of the process's CPU time per call (all threads:
//! `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`, Linux; the kernels' tasks and the GEMM run on
//! the thread pool), the median of 15 calls after one.
//! `cargo run` in a debug build runs the block programs (NOTES.md "Debug backend"); see
//! run.sh for the builds compared.

tensorgraph::graph! {
    fn w1(a: f32[N], b: f32[N]) -> f32[N] { relu(a + b) * 2.0 }
    fn w2(x: f32[N]) -> f32[N] { tanh(x) * exp(-(x * x)) }
    fn w3(x: f32[R, 1024]) -> f32[R, 1024] { softmax(x, axis = -1) }
    fn w6(x: f32[R, 1024], bias: f32[1024]) -> f32[R, 1024] { gelu(x + bias) }
    fn w4(x: f32[B, 512], w: f32[512, 512], b: f32[512]) -> f32[B, 512] { relu(x @ w + b) }
}

/// W4's columns and inner length (`w` is `[W4_K, W4_N]`).
const W4_K: usize = 512;
const W4_N: usize = 512;

/// `relu(x · w + b)` by the textbook loop: each output a dot product of a row of `x` with a
/// column of `w`, then the bias and `relu`.
fn hand_w4(x: &[f32], w: &[f32], b: &[f32], out: &mut [f32]) {
    for r in 0..x.len() / W4_K {
        for c in 0..W4_N {
            let mut acc = 0.0f32;
            for k in 0..W4_K {
                acc += x[r * W4_K + k] * w[k * W4_N + c];
            }
            out[r * W4_N + c] = (acc + b[c]).max(0.0);
        }
    }
}

fn hand_w1(a: &[f32], b: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = (a[i] + b[i]).max(0.0) * 2.0;
    }
}

fn hand_w2(x: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = x[i].tanh() * (-(x[i] * x[i])).exp();
    }
}

fn hand_w3(x: &[f32], out: &mut [f32], cols: usize) {
    for r in 0..x.len() / cols {
        let row = &x[r * cols..(r + 1) * cols];
        let mut max = f32::NEG_INFINITY;
        for i in 0..cols {
            max = max.max(row[i]);
        }
        let mut sum = 0.0;
        for i in 0..cols {
            let e = (row[i] - max).exp();
            out[r * cols + i] = e;
            sum += e;
        }
        for i in 0..cols {
            out[r * cols + i] /= sum;
        }
    }
}

fn hand_w6(x: &[f32], bias: &[f32], out: &mut [f32]) {
    let cols = bias.len();
    for r in 0..x.len() / cols {
        for j in 0..cols {
            let v = x[r * cols + j] + bias[j];
            out[r * cols + j] = 0.5 * v * (1.0 + libm::erff(v * std::f32::consts::FRAC_1_SQRT_2));
        }
    }
}

/// This process's CPU time in ns (`CLOCK_PROCESS_CPUTIME_ID`, as benches/cpu_time.rs: all
/// threads, so W4's GEMM tasks on the pool count; time descheduled by other work on a shared
/// machine is not counted). Not `/proc/thread-self/schedstat`: the kernel updates a running task's figure
/// there only at scheduler ticks (4 ms steps, read while measuring).
fn cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn median_ms(mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..15)
        .map(|_| {
            let start = cpu_ns();
            f();
            (cpu_ns() - start) as f64 / 1e6
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[7]
}

fn main() {
    let n = 1 << 20;
    let a: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 250.0 - 2.0)
        .collect();
    let b: Vec<f32> = (0..n)
        .map(|i| ((i * 104729) % 1000) as f32 / 500.0 - 1.0)
        .collect();
    let mut out = vec![0f32; n];
    let x3 = tensorgraph::Tensor::<f32, tensorgraph::Shape![_, 1024]>::from_shape_vec(
        [n / 1024, 1024],
        a.clone(),
    )
    .unwrap();
    let bias: Vec<f32> = (0..1024).map(|i| (i % 17) as f32 * 0.01 - 0.08).collect();
    let mut out3 = tensorgraph::Tensor::<f32, tensorgraph::Shape![_, 1024]>::from_shape_vec(
        [n / 1024, 1024],
        vec![0f32; n],
    )
    .unwrap();
    // `debug_run w1 hand_w1` runs only those (a profile of one workload).
    let only: Vec<String> = std::env::args().skip(1).collect();
    let want = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let mut figures = Vec::new();
    if want("w1") {
        figures.push(("w1", median_ms(|| w1_into(&a, &b, &mut out[..]).unwrap())));
    }
    if want("hand_w1") {
        figures.push(("hand_w1", median_ms(|| hand_w1(&a, &b, &mut out))));
    }
    if want("w2") {
        figures.push(("w2", median_ms(|| w2_into(&a, &mut out[..]).unwrap())));
    }
    if want("hand_w2") {
        figures.push(("hand_w2", median_ms(|| hand_w2(&a, &mut out))));
    }
    if want("w3") {
        figures.push(("w3", median_ms(|| w3_into(&x3, &mut out3).unwrap())));
    }
    if want("hand_w3") {
        figures.push(("hand_w3", median_ms(|| hand_w3(&a, &mut out, 1024))));
    }
    if want("w6") {
        figures.push(("w6", median_ms(|| w6_into(&x3, &bias, &mut out3).unwrap())));
    }
    if want("hand_w6") {
        figures.push(("hand_w6", median_ms(|| hand_w6(&a, &bias, &mut out))));
    }
    if want("w4") || want("hand_w4") {
        let rows = 64;
        let x4: Vec<f32> = a[..rows * W4_K].to_vec();
        let w: Vec<f32> = b[..W4_K * W4_N].iter().map(|v| v * 0.05).collect();
        let bias: Vec<f32> = a[..W4_N].to_vec();
        let x4t = tensorgraph::Tensor::<f32, tensorgraph::Shape![_, 512]>::from_shape_vec(
            [rows, W4_K],
            x4.clone(),
        )
        .unwrap();
        let wt = tensorgraph::Tensor::<f32, tensorgraph::Shape![512, 512]>::from_shape_vec(
            [W4_K, W4_N],
            w.clone(),
        )
        .unwrap();
        let mut out4 = tensorgraph::Tensor::<f32, tensorgraph::Shape![_, 512]>::from_shape_vec(
            [rows, W4_N],
            vec![0f32; rows * W4_N],
        )
        .unwrap();
        let mut hand_out = vec![0f32; rows * W4_N];
        if want("w4") {
            figures.push((
                "w4",
                median_ms(|| w4_into(&x4t, &wt, &bias, &mut out4).unwrap()),
            ));
        }
        if want("hand_w4") {
            figures.push((
                "hand_w4",
                median_ms(|| hand_w4(&x4, &w, &bias, &mut hand_out)),
            ));
        }
    }
    let line: Vec<String> = figures.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
    println!("{}", line.join("  "));
}
