//! f32 GEMM: tensorgraph's engine (`tensor_core::gemm`) against `gemm` 0.18 (AVX-512 and
//! AVX2 kernels chosen at run time), `matrixmultiply` 0.3 (AVX2/FMA kernels) and a naive
//! i-k-j loop, row-major operands, `C = A·B` overwritten. Criterion's "elem/s" are flop/s
//! (2·m·n·k per product). See Cargo.toml for the commands.
//!
//! One-thread groups are timed twice: wall time (criterion's default) and this process's
//! CPU time (`cpu/` groups, see benches/cpu_time.rs), which leaves out the time the
//! benchmark spends descheduled on a machine shared with other work. The FMA peak of the
//! core is measured the same way by `peak` below: independent 512-bit and 256-bit FMAs.

#[path = "../../cpu_time.rs"]
mod cpu_time;

use cpu_time::{process_cpu_time, CpuTime};
use criterion::measurement::Measurement;
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

/// `trips × 100` independent 512-bit FMAs on registers (24 accumulators).
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
unsafe fn zmm_fmas(trips: u64) {
    use std::arch::asm;
    for _ in 0..trips {
        // SAFETY: register-only FMAs; AVX-512F is the caller's promise.
        unsafe {
            asm!(
                ".rept 4",
                "vfmadd231ps zmm0, zmm30, zmm31", "vfmadd231ps zmm1, zmm30, zmm31",
                "vfmadd231ps zmm2, zmm30, zmm31", "vfmadd231ps zmm3, zmm30, zmm31",
                "vfmadd231ps zmm4, zmm30, zmm31", "vfmadd231ps zmm5, zmm30, zmm31",
                "vfmadd231ps zmm6, zmm30, zmm31", "vfmadd231ps zmm7, zmm30, zmm31",
                "vfmadd231ps zmm8, zmm30, zmm31", "vfmadd231ps zmm9, zmm30, zmm31",
                "vfmadd231ps zmm10, zmm30, zmm31", "vfmadd231ps zmm11, zmm30, zmm31",
                "vfmadd231ps zmm12, zmm30, zmm31", "vfmadd231ps zmm13, zmm30, zmm31",
                "vfmadd231ps zmm14, zmm30, zmm31", "vfmadd231ps zmm15, zmm30, zmm31",
                "vfmadd231ps zmm16, zmm30, zmm31", "vfmadd231ps zmm17, zmm30, zmm31",
                "vfmadd231ps zmm18, zmm30, zmm31", "vfmadd231ps zmm19, zmm30, zmm31",
                "vfmadd231ps zmm20, zmm30, zmm31", "vfmadd231ps zmm21, zmm30, zmm31",
                "vfmadd231ps zmm22, zmm30, zmm31", "vfmadd231ps zmm23, zmm30, zmm31",
                "vfmadd231ps zmm24, zmm30, zmm31",
                ".endr",
                out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
                out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _,
                out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _,
                out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
                out("zmm24") _, out("zmm30") _, out("zmm31") _,
                options(nomem, nostack)
            );
        }
    }
}

/// Whether the second core is there for this process: the same independent FMAs on one
/// thread, then on two at once (the same work each), in wall time, best of 20. Returns
/// (one-thread GFLOP/s, two-thread GFLOP/s). A machine whose other core is busy (or a
/// scheduler that holds this process to one core's share) shows a ratio near 1, and no
/// product can then run faster on two threads.
#[cfg(target_arch = "x86_64")]
fn peak_two_threads() -> (f64, f64) {
    const TRIPS: u64 = 200_000;
    if !std::is_x86_feature_detected!("avx512f") {
        return (0.0, 0.0);
    }
    // SAFETY (both closures): the CPU has AVX-512F (checked above).
    let one = || unsafe { zmm_fmas(TRIPS) };
    let (mut t1, mut t2) = (f64::MAX, f64::MAX);
    for _ in 0..20 {
        let t = std::time::Instant::now();
        one();
        t1 = t1.min(t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        std::thread::scope(|s| {
            s.spawn(one);
            one();
        });
        t2 = t2.min(t.elapsed().as_secs_f64());
    }
    let flops = (TRIPS * 100 * 32) as f64;
    (flops / t1 / 1e9, 2.0 * flops / t2 / 1e9)
}

/// Peak f32 flop/s of one core by independent FMAs (24 accumulators, no memory), in CPU
/// time: (512-bit, 256-bit) GFLOP/s, and the clock in GHz by a chain of dependent 1-cycle
/// integer adds. Best of many short samples.
#[cfg(target_arch = "x86_64")]
fn peak() -> (f64, f64, f64) {
    use std::arch::asm;
    const TRIPS: u64 = 20_000;
    fn best(f: &mut dyn FnMut()) -> f64 {
        let mut best = f64::MAX;
        for _ in 0..300 {
            let t = process_cpu_time();
            f();
            best = best.min((process_cpu_time() - t).as_secs_f64());
        }
        best
    }
    let zmm = if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F (checked above).
        let t = best(&mut || unsafe { zmm_fmas(TRIPS) });
        (TRIPS * 100 * 32) as f64 / t / 1e9
    } else {
        0.0
    };
    let ymm = if std::is_x86_feature_detected!("fma") {
        let t = best(&mut || {
            for _ in 0..TRIPS {
                // SAFETY: register-only FMAs on a CPU with FMA (checked above).
                unsafe {
                    asm!(
                        ".rept 10",
                        "vfmadd231ps ymm0, ymm14, ymm15", "vfmadd231ps ymm1, ymm14, ymm15",
                        "vfmadd231ps ymm2, ymm14, ymm15", "vfmadd231ps ymm3, ymm14, ymm15",
                        "vfmadd231ps ymm4, ymm14, ymm15", "vfmadd231ps ymm5, ymm14, ymm15",
                        "vfmadd231ps ymm6, ymm14, ymm15", "vfmadd231ps ymm7, ymm14, ymm15",
                        "vfmadd231ps ymm8, ymm14, ymm15", "vfmadd231ps ymm9, ymm14, ymm15",
                        ".endr",
                        out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                        out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
                        out("ymm8") _, out("ymm9") _, out("ymm14") _, out("ymm15") _,
                        options(nomem, nostack)
                    );
                }
            }
        });
        (TRIPS * 100 * 16) as f64 / t / 1e9
    } else {
        0.0
    };
    let t = best(&mut || {
        let mut x = 0u64;
        for _ in 0..TRIPS {
            // SAFETY: register-only integer adds.
            unsafe {
                asm!(".rept 100", "add {x}, {one}", ".endr", x = inout(reg) x, one = in(reg) 1u64,
                    options(nomem, nostack));
            }
        }
        black_box(x);
    });
    (zmm, ymm, (TRIPS * 100) as f64 / t / 1e9)
}

fn bench(c: &mut Criterion) {
    eprintln!("tensorgraph f32 kernel: {}", kernel_name_f32());
    #[cfg(target_arch = "x86_64")]
    {
        let (zmm, ymm, ghz) = peak();
        eprintln!(
            "peak by independent FMAs (CPU time): 512-bit {zmm:.1} GFLOP/s, 256-bit {ymm:.1} GFLOP/s; \
             clock by dependent adds {ghz:.2} GHz (512-bit FMAs per cycle {:.2})",
            zmm / 32.0 / ghz
        );
        let (one, two) = peak_two_threads();
        eprintln!(
            "independent 512-bit FMAs in wall time: one thread {one:.1} GFLOP/s, two threads \
             {two:.1} GFLOP/s ({:.2}x)",
            two / one
        );
    }
    one_thread(c, "wall/");
    let mut cpu = Criterion::default()
        .with_measurement(CpuTime)
        .configure_from_args();
    one_thread(&mut cpu, "cpu/");
    two_threads(c);
}

/// The one-thread groups, with either measurement.
fn one_thread<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    let n = 1024;
    let (a, b) = (data(n * n, 1), data(n * n, 2));
    let mut out = vec![0f32; n * n];
    let mut g = c.benchmark_group(format!("{prefix}f32_1024_1_thread"));
    g.sample_size(20);
    g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
    g.bench_function("tensorgraph", |bench| {
        bench.iter(|| tensorgraph(&a, &b, black_box(&mut out), n, Options::SINGLE))
    });
    g.bench_function("gemm", |bench| {
        bench.iter(|| gemm_crate(&a, &b, black_box(&mut out), n, gemm::Parallelism::None))
    });
    g.bench_function("matrixmultiply", |bench| {
        bench.iter(|| matrixmultiply_crate(&a, &b, black_box(&mut out), n))
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{prefix}f32_small"));
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

/// Pins the calling thread to CPU `cpu` (Linux); returns whether it could.
fn pin_to_cpu(cpu: usize) -> bool {
    // SAFETY: a zeroed `cpu_set_t` is a valid empty set; CPU_SET writes inside it for
    // `cpu < CPU_SETSIZE` (checked); sched_setaffinity reads `size_of::<cpu_set_t>()` bytes
    // of it and changes only this thread's affinity (pid 0).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu >= libc::CPU_SETSIZE as usize {
            return false;
        }
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// One and two threads in wall time, back to back (the speedup is their ratio). The
/// "pinned" pool has its two workers pinned to CPUs 0 and 1, to tell the scheduler's
/// placement of the workers apart from the engine's split (at load 11 on the shared
/// machine they measured the same; BENCHMARKS.md, "GEMM speed targets").
fn two_threads(c: &mut Criterion) {
    let pools = [
        (
            "1 thread pool",
            rayon::ThreadPoolBuilder::new().num_threads(1),
        ),
        (
            "2 thread pool",
            rayon::ThreadPoolBuilder::new().num_threads(2),
        ),
        (
            "2 thread pool, pinned",
            rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .start_handler(|i| {
                    pin_to_cpu(i);
                }),
        ),
    ]
    .map(|(name, builder)| (name, builder.build().unwrap()));
    let n = 1024;
    let (a, b) = (data(n * n, 1), data(n * n, 2));
    let mut out = vec![0f32; n * n];
    let mut g = c.benchmark_group("wall/f32_1024_threads");
    g.sample_size(20);
    g.throughput(Throughput::Elements(2 * (n * n * n) as u64));
    for (name, pool) in &pools {
        g.bench_function(format!("tensorgraph, {name}"), |bench| {
            bench.iter(|| {
                pool.install(|| tensorgraph(&a, &b, black_box(&mut out), n, Options::default()))
            })
        });
        let threads = pool.current_num_threads();
        g.bench_function(format!("gemm, {name}"), |bench| {
            let par = if threads == 1 {
                gemm::Parallelism::None
            } else {
                gemm::Parallelism::Rayon(threads)
            };
            bench.iter(|| pool.install(|| gemm_crate(&a, &b, black_box(&mut out), n, par)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
