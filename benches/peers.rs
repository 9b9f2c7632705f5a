//! The tensorgraph side of the peers benchmark (issue 16): the same workloads that
//! benches/peers/peers.py times with NumPy, numexpr, JAX and ONNX Runtime, run through the
//! generated `_into` functions inside a rayon pool of `--threads N` threads (default 1;
//! `--threads 1,2` times each workload in a 1-thread pool, then in a 2-thread pool).
//!
//! Not a criterion bench: benches/peers/peers.py builds it (`cargo bench --bench peers
//! --no-run`) and runs the binary pinned to one core, interleaved with the peers, so the
//! ratios come from one run. It can be run by hand:
//!
//! ```sh
//! cargo bench --bench peers -- --threads 1,2 --time 1.0 [W1 W3 ...]
//! ```
//!
//! Output: one line per workload, `name median_ms checksum` (median of per-call times
//! after a warm-up; the checksum is the f64 sum of |output|, compared with the peers').

use std::hint::black_box;
use std::time::{Duration, Instant};
use tensorgraph::prelude::*;

graph! {
    fn w1(a: f32[16777216], b: f32[16777216]) -> f32[16777216] {
        relu(a + b) * 2.0
    }
    fn w2(x: f32[1048576]) -> f32[1048576] {
        tanh(x) * exp(-(x * x))
    }
    fn w3(x: f32[4096, 1024]) -> f32[4096, 1024] {
        softmax(x, axis = 1)
    }
    fn w4(x: f32[4096, 1024], gamma: f32[1024], beta: f32[1024]) -> f32[4096, 1024] {
        let mu = mean(x, axis = -1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = -1, keepdims = true);
        d * rsqrt(var + 1e-5) * gamma + beta
    }
    fn w5(x: f32[4096, 1024]) -> f32[4096] {
        sum(x, axis = 1, acc = f32)
    }
    // W5 with the language's default accumulator for a float sum (f64); the peers run W5.
    fn w5d(x: f32[4096, 1024]) -> f32[4096] {
        sum(x, axis = 1)
    }
    fn w6(x: f32[4096, 1024], bias: f32[1024]) -> f32[4096, 1024] {
        gelu(x + bias)
    }
    // W3, W4, W6 with the rows a name bound at call entry, fed from `Vec`s.
    fn s3(x: f32[B, 1024]) -> f32[B, 1024] {
        softmax(x, axis = 1)
    }
    fn s4(x: f32[B, 1024], gamma: f32[1024], beta: f32[1024]) -> f32[B, 1024] {
        let mu = mean(x, axis = -1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = -1, keepdims = true);
        d * rsqrt(var + 1e-5) * gamma + beta
    }
    fn s6(x: f32[B, 1024], bias: f32[1024]) -> f32[B, 1024] {
        gelu(x + bias)
    }
    fn m1(a: f32[1024, 1024], b: f32[1024, 1024]) -> f32[1024, 1024] {
        a @ b
    }
    fn m2(x: f32[512, 768], w: f32[768, 3072], b: f32[3072]) -> f32[512, 3072] {
        gelu(x @ w + b)
    }
}

// The inputs, the same formulas as peers.py's `inputs()`.
fn x_rows(i: usize, j: usize) -> f32 {
    ((i * 7 + j * 13) % 101) as f32 * 0.05 - 2.5
}
fn gamma(j: usize) -> f32 {
    1.0 + (j % 4) as f32 * 0.25
}
fn beta(j: usize) -> f32 {
    (j % 3) as f32 - 1.0
}
fn bias(j: usize) -> f32 {
    (j % 17) as f32 * 0.01 - 0.08
}
fn mat(i: usize, j: usize, p: usize) -> f32 {
    ((i * 3 + j * 5) % p) as f32 * (1.0 / p as f32) - 0.5
}

fn checksum(v: &[f32]) -> f64 {
    v.iter().map(|&x| (x as f64).abs()).sum()
}

/// Median per-call milliseconds: warm-up calls for ~`time / 5`, then calls for ~`time`
/// (at least 5). With `PEERS_CPU=1` in the environment (peers.py `--cpu`): the process's
/// CPU time over the timed calls divided by their number (`cpu_ns`).
fn time(secs: f64, mut f: impl FnMut()) -> f64 {
    let warm = Instant::now();
    f();
    while warm.elapsed().as_secs_f64() < secs / 5.0 {
        f();
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    let cpu_start = cpu_ns();
    while samples.len() < 5 || start.elapsed() < Duration::from_secs_f64(secs) {
        let t = Instant::now();
        f();
        samples.push(t.elapsed().as_secs_f64() * 1e3);
    }
    if std::env::var("PEERS_CPU").is_ok_and(|v| v == "1") {
        return (cpu_ns() - cpu_start) as f64 / 1e6 / samples.len() as f64;
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

/// CPU time of this process so far in ns: the sum of every thread's run time in
/// `/proc/self/task/*/schedstat` (Linux; the rayon pool's threads live for the whole run).
fn cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| {
            let stat = std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum()
}

/// Times `f` in each pool in turn (one after the other, same inputs); the first pool's line
/// is `NAME ms checksum`, the others' `NAME@Nt ms checksum`.
fn run(
    name: &str,
    pools: &[(usize, rayon::ThreadPool)],
    secs: f64,
    out: &dyn Fn() -> f64,
    mut f: impl FnMut() + Send,
) {
    for (k, (n, pool)) in pools.iter().enumerate() {
        let ms = pool.install(|| time(secs, &mut f));
        let tag = if k == 0 {
            name.to_string()
        } else {
            format!("{name}@{n}t")
        };
        println!("{tag} {ms:.4} {:.6e}", out());
    }
}

fn main() {
    let mut threads = vec![1usize];
    let mut secs = 1.0f64;
    let mut only: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            // `--threads 1,2`: each workload in a 1-thread pool, then a 2-thread pool.
            "--threads" => {
                threads = args
                    .next()
                    .expect("--threads N[,M…]")
                    .split(',')
                    .map(|t| t.parse().unwrap())
                    .collect()
            }
            "--time" => secs = args.next().expect("--time SECS").parse().unwrap(),
            "--bench" => {} // cargo bench passes it
            s if s.starts_with('-') => {}
            s => only.push(s.to_uppercase()),
        }
    }
    let want = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let pools: Vec<(usize, rayon::ThreadPool)> = threads
        .iter()
        .map(|&n| {
            (
                n,
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .expect("a rayon pool"),
            )
        })
        .collect();
    let pools = &pools[..];
    use std::sync::Mutex; // the output, written inside the pool, summed outside
    if want("W1") {
        let a = Tensor::<f32, Shape![16777216]>::from_fn(|[i]| (i % 1000) as f32 - 500.0);
        let b = Tensor::<f32, Shape![16777216]>::from_fn(|[i]| (i % 7) as f32);
        let o = Mutex::new(Tensor::<f32, Shape![16777216]>::zeros());
        run(
            "W1",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || w1_into(black_box(&a), black_box(&b), &mut *o.lock().unwrap()),
        );
    }
    if want("W2") {
        let x = Tensor::<f32, Shape![1048576]>::from_fn(|[i]| ((i % 2001) as f32 - 1000.0) * 0.003);
        let o = Mutex::new(Tensor::<f32, Shape![1048576]>::zeros());
        run(
            "W2",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || w2_into(black_box(&x), &mut *o.lock().unwrap()),
        );
    }
    let x = Tensor::<f32, Shape![4096, 1024]>::from_fn(|[i, j]| x_rows(i, j));
    if want("W3") {
        let o = Mutex::new(Tensor::<f32, Shape![4096, 1024]>::zeros());
        run(
            "W3",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || w3_into(black_box(&x), &mut *o.lock().unwrap()),
        );
    }
    if want("W4") {
        let g = Tensor::<f32, Shape![1024]>::from_fn(|[j]| gamma(j));
        let b = Tensor::<f32, Shape![1024]>::from_fn(|[j]| beta(j));
        let o = Mutex::new(Tensor::<f32, Shape![4096, 1024]>::zeros());
        run(
            "W4",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || w4_into(black_box(&x), &g, &b, &mut *o.lock().unwrap()),
        );
    }
    if want("W5") {
        let o = Mutex::new(Tensor::<f32, Shape![4096]>::zeros());
        run(
            "W5",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || w5_into(black_box(&x), &mut *o.lock().unwrap()),
        );
    }
    if want("W5D") {
        let o = Mutex::new(Tensor::<f32, Shape![4096]>::zeros());
        run(
            "W5D",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || w5d_into(black_box(&x), &mut *o.lock().unwrap()),
        );
    }
    if want("W6") {
        let b = Tensor::<f32, Shape![1024]>::from_fn(|[j]| bias(j));
        let o = Mutex::new(Tensor::<f32, Shape![4096, 1024]>::zeros());
        run(
            "W6",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || w6_into(black_box(&x), &b, &mut *o.lock().unwrap()),
        );
    }
    // The `Vec`s of the S workloads are allocated on huge pages (`hugepages::vec_filled`),
    // as NumPy allocates the peers' arrays and as `Tensor`s are: a plain `vec![…]` gets
    // 4 KiB pages on a system whose transparent huge pages are `madvise`, which cost S3
    // 15-20% (BENCHMARKS.md "Peers", sixth session).
    let mut xs: Vec<f32> = tensorgraph::hugepages::vec_filled(4096 * 1024, 0.0);
    xs.copy_from_slice(x.as_slice());
    let gs: Vec<f32> = (0..1024).map(gamma).collect();
    let bs: Vec<f32> = (0..1024).map(beta).collect();
    let biases: Vec<f32> = (0..1024).map(bias).collect();
    let symbolic: [(&str, &(dyn Fn(&mut [f32]) + Sync)); 3] = [
        ("S3", &|o| {
            s3_into(black_box(&xs[..]), o).expect("sizes agree")
        }),
        ("S4", &|o| {
            s4_into(black_box(&xs[..]), &gs[..], &bs[..], o).expect("sizes agree")
        }),
        ("S6", &|o| {
            s6_into(black_box(&xs[..]), &biases[..], o).expect("sizes agree")
        }),
    ];
    for (name, f) in symbolic {
        if want(name) {
            let o = Mutex::new(tensorgraph::hugepages::vec_filled(4096 * 1024, 0.0f32));
            run(name, pools, secs, &|| checksum(&o.lock().unwrap()), || {
                f(&mut o.lock().unwrap())
            });
        }
    }
    if want("M1") {
        let a = Tensor::<f32, Shape![1024, 1024]>::from_fn(|[i, j]| mat(i, j, 17));
        let b = Tensor::<f32, Shape![1024, 1024]>::from_fn(|[i, j]| mat(i, j, 13));
        let o = Mutex::new(Tensor::<f32, Shape![1024, 1024]>::zeros());
        run(
            "M1",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || m1_into(black_box(&a), &b, &mut *o.lock().unwrap()),
        );
    }
    if want("M2") {
        let x = Tensor::<f32, Shape![512, 768]>::from_fn(|[i, j]| mat(i, j, 17));
        let w = Tensor::<f32, Shape![768, 3072]>::from_fn(|[i, j]| mat(i, j, 13) * 0.1);
        let b = Tensor::<f32, Shape![3072]>::from_fn(|[j]| bias(j));
        let o = Mutex::new(Tensor::<f32, Shape![512, 3072]>::zeros());
        run(
            "M2",
            pools,
            secs,
            &|| checksum(o.lock().unwrap().as_slice()),
            || m2_into(black_box(&x), &w, &b, &mut *o.lock().unwrap()),
        );
    }
}
