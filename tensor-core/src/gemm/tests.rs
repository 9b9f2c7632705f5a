//! The engine against a naive reference computed in double-double (exact to ~2⁻¹⁰⁶), over
//! shapes around every blocking boundary, strided and transposed operands and every dtype.
//!
//! Error bound. Each element of `C` is a sum of `k` products formed in some order (kernel
//! accumulators, then the `k` blocks added into `C`): with unit roundoff `u`, each term
//! passes through at most one product rounding (none under FMA) and at most `k - 1`
//! additions, so `|ĉ - c| ≤ γ_k · Σ|a||b|` with `γ_k = k·u / (1 - k·u)` (Higham, §3.1).
//! For the sizes tested `k·u < 10⁻³`, so the asserted bound is `K·u·Σ|a||b|` with
//! `K = 1.001·k` (plus nothing: an exact reference). f16/bf16 inputs convert exactly, so the
//! f32 bound holds for them; `acc = f64` uses `u = 2⁻⁵³`; integers must be exact.
//!
//! Under Miri (`cfg(miri)`, see NOTES.md "Undefined-behaviour checks") the shape lists are
//! cut to a few sizes that still cross every tile edge and, with the tiny blocks, every
//! `mc`/`kc`/`nc` edge: every packing and kernel path runs, on fewer shapes.

use super::kernel::{all_f32_kernels, all_f64_kernels, Kernel};
use super::threads;
use super::*;
use crate::dtype::{bf16, f16};

/// A deterministic generator (xorshift64*), values in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.unit() as f32).collect()
    }
    fn f64s(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.unit()).collect()
    }
}

/// `Σ a·b` exactly rounded (double-double: TwoProd by FMA, TwoSum), and `Σ|a||b|`.
fn dot_dd(terms: impl Iterator<Item = (f64, f64)>) -> (f64, f64) {
    let (mut hi, mut lo, mut abs) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in terms {
        let p = x * y;
        let pe = x.mul_add(y, -p);
        let s = hi + p;
        let bp = s - hi;
        let se = (hi - (s - bp)) + (p - bp);
        hi = s;
        lo += se + pe;
        abs += (x * y).abs();
    }
    (hi + lo, abs)
}

/// Checks `c` (leading dim `ldc`) against `A·B` read through `ga`, `gb`, within
/// `1.001·k·u·Σ|a||b|` per element.
fn check_float(
    m: usize,
    k: usize,
    n: usize,
    ga: impl Fn(usize, usize) -> f64,
    gb: impl Fn(usize, usize) -> f64,
    c: impl Fn(usize, usize) -> f64,
    u: f64,
    what: &str,
) {
    for i in 0..m {
        for j in 0..n {
            let (exact, abs) = dot_dd((0..k).map(|p| (ga(i, p), gb(p, j))));
            let got = c(i, j);
            let bound = 1.001 * k as f64 * u * abs;
            assert!(
                (got - exact).abs() <= bound,
                "{what}: m={m} k={k} n={n} at ({i},{j}): got {got}, exact {exact}, bound {bound}"
            );
        }
    }
}

const U32: f64 = 1.0 / (1u64 << 24) as f64;
const U64: f64 = 1.0 / (1u64 << 53) as f64;

/// Sizes around the tiles of every kernel (4, 6, 8, 16 and ±1) and primes.
const MN: &[usize] = if cfg!(miri) {
    // A full tile, a partial tile and a tile plus an edge of every kernel (mr 4/6, nr 4/8/16).
    &[1, 6, 17]
} else {
    &[1, 3, 4, 5, 6, 7, 8, 9, 13, 15, 16, 17, 37, 97]
};
/// With the tiny blocks (`kc = 5`): empty, one block, a block and a part.
const KS: &[usize] = if cfg!(miri) {
    &[0, 1, 7]
} else {
    &[0, 1, 2, 7, 8, 9, 37, 255, 256, 257]
};

/// The kernel with tiny cache blocks, so small shapes cross every `mc`, `kc`, `nc` edge.
fn tiny<P, O>(ker: &Kernel<P, O>) -> Kernel<P, O> {
    Kernel {
        name: ker.name,
        mr: ker.mr,
        nr: ker.nr,
        mc: 2 * ker.mr,
        kc: 5,
        nc: 2 * ker.nr,
        run: ker.run,
    }
}

fn run_f32(
    ker: &Kernel<f32, f32>,
    a: &MatRef<'_, f32>,
    b: &MatRef<'_, f32>,
    c: &mut [f32],
    ldc: usize,
) {
    check_shapes::<f32, f32>(a, b, c.len(), ldc).unwrap();
    threads::run(ker, a, b, c, ldc, Options::SINGLE, &|_: Block<'_, f32>| {});
}

#[test]
fn f32_every_kernel_and_blocking_over_edge_shapes() {
    let mut rng = Rng(1);
    for base in all_f32_kernels() {
        for ker in [tiny(base), tiny(base).with_blocks(base)] {
            for &m in MN {
                for &n in MN {
                    for &k in KS {
                        if m * n * k > 60_000 && !(m == 97 && n == 97) {
                            continue;
                        }
                        let av = rng.f32s(m * k);
                        let bv = rng.f32s(k * n);
                        let a = MatRef::row_major(&av, m, k).unwrap();
                        let b = MatRef::row_major(&bv, k, n).unwrap();
                        let ldc = n + 3;
                        let mut c = vec![f32::NAN; m * ldc];
                        run_f32(&ker, &a, &b, &mut c, ldc);
                        check_float(
                            m,
                            k,
                            n,
                            |i, p| av[i * k + p] as f64,
                            |p, j| bv[p * n + j] as f64,
                            |i, j| c[i * ldc + j] as f64,
                            U32,
                            ker.name,
                        );
                        // The padding between n and ldc is untouched.
                        for i in 0..m {
                            assert!(c[i * ldc + n..(i + 1) * ldc].iter().all(|x| x.is_nan()));
                        }
                    }
                }
            }
        }
    }
}

impl<P, O> Kernel<P, O> {
    /// This kernel with `other`'s cache blocks.
    fn with_blocks(self, other: &Kernel<P, O>) -> Kernel<P, O> {
        Kernel {
            mc: other.mc,
            kc: other.kc,
            nc: other.nc,
            ..self
        }
    }
}

#[test]
fn f32_default_blocks_around_mc_kc_nc() {
    let mut rng = Rng(2);
    let ker = kernel::f32_kernel();
    let (mc, kc, nc) = (ker.mc, ker.kc, ker.nc);
    let full = [
        (mc - 1, kc + 1, 9),
        (mc + 1, kc - 1, 17),
        (mc + 1, 3, 5),
        (5, 3, nc + 1),
        (7, kc, nc - 1),
        (2 * mc + 5, 2 * kc + 3, 33),
    ];
    // Miri: each default block edge crossed once, the other two dims small.
    let miri = [(mc + 1, 2, 3), (2, kc + 1, 3), (2, 2, nc + 1)];
    for (m, k, n) in if cfg!(miri) { &miri[..] } else { &full[..] }
        .iter()
        .copied()
    {
        let av = rng.f32s(m * k);
        let bv = rng.f32s(k * n);
        let a = MatRef::row_major(&av, m, k).unwrap();
        let b = MatRef::row_major(&bv, k, n).unwrap();
        let mut c = vec![0.0; m * n];
        matmul_f32(&a, &b, &mut c, n).unwrap();
        check_float(
            m,
            k,
            n,
            |i, p| av[i * k + p] as f64,
            |p, j| bv[p * n + j] as f64,
            |i, j| c[i * n + j] as f64,
            U32,
            "default blocks",
        );
    }
}

#[test]
fn f32_transposed_strided_and_negative_strides() {
    let mut rng = Rng(3);
    for ker in all_f32_kernels() {
        for ker in [tiny(ker), tiny(ker).with_blocks(ker)] {
            let shapes = [
                (1, 1, 1),
                (7, 9, 13),
                (13, 37, 17),
                (6, 16, 16),
                (37, 5, 97),
            ];
            for &(m, k, n) in &shapes[..if cfg!(miri) { 2 } else { shapes.len() }] {
                // A stored transposed (k × m, row-major), read as A = Aᵀᵀ.
                let at = rng.f32s(k * m);
                let a = MatRef::row_major(&at, k, m).unwrap().t();
                // B every other element of rows with a gap: row stride 2n + 3, col stride 2.
                let bbuf = rng.f32s(k * (2 * n + 3));
                let b = MatRef::new(&bbuf, k, n, 2 * n as isize + 3, 2, 1).unwrap();
                let mut c = vec![0.0; m * n];
                run_f32(&ker, &a, &b, &mut c, n);
                check_float(
                    m,
                    k,
                    n,
                    |i, p| at[p * m + i] as f64,
                    |p, j| bbuf[1 + p * (2 * n + 3) + 2 * j] as f64,
                    |i, j| c[i * n + j] as f64,
                    U32,
                    "transposed/strided",
                );

                // Both operands reversed (negative strides) and B column-major.
                let av = rng.f32s(m * k);
                let a = MatRef::new(&av, m, k, -(k as isize), -1, m * k - 1).unwrap();
                let bv = rng.f32s(k * n);
                let b = MatRef::new(&bv, k, n, 1, k as isize, 0).unwrap();
                run_f32(&ker, &a, &b, &mut c, n);
                check_float(
                    m,
                    k,
                    n,
                    |i, p| av[m * k - 1 - i * k - p] as f64,
                    |p, j| bv[p + j * k] as f64,
                    |i, j| c[i * n + j] as f64,
                    U32,
                    "negative strides",
                );

                // A broadcast row (row stride 0).
                let row = rng.f32s(k);
                let a = MatRef::new(&row, m, k, 0, 1, 0).unwrap();
                run_f32(&ker, &a, &b, &mut c, n);
                check_float(
                    m,
                    k,
                    n,
                    |_, p| row[p] as f64,
                    |p, j| bv[p + j * k] as f64,
                    |i, j| c[i * n + j] as f64,
                    U32,
                    "broadcast",
                );
            }
        }
    }
}

#[test]
fn f16_bf16_and_closure_prologues() {
    let mut rng = Rng(4);
    let shapes = [(1, 1, 1), (7, 13, 9), (17, 257, 33), (6, 16, 16)];
    for &(m, k, n) in &shapes[..if cfg!(miri) { 2 } else { shapes.len() }] {
        let ah: Vec<f16> = rng.f32s(m * k).into_iter().map(f16::from_f32).collect();
        let bb: Vec<bf16> = rng.f32s(k * n).into_iter().map(bf16::from_f32).collect();
        let a = MatRef::row_major(&ah, m, k).unwrap();
        let b = MatRef::row_major(&bb, k, n).unwrap();
        let mut c = vec![0.0f32; m * n];
        matmul_f32(&a, &b, &mut c, n).unwrap();
        check_float(
            m,
            k,
            n,
            |i, p| ah[i * k + p].to_f64(),
            |p, j| bb[p * n + j].to_f64(),
            |i, j| c[i * n + j] as f64,
            U32,
            "f16·bf16",
        );

        // Dequantize u8 with a per-row scale and zero point while packing.
        let q: Vec<u8> = (0..m * k).map(|_| rng.next_u64() as u8).collect();
        let scale: Vec<f32> = (0..m).map(|i| 0.01 * (i + 1) as f32).collect();
        let deq = |i: usize, p: usize| (q[i * k + p] as f32 - 128.0) * scale[i];
        let a = FnSource::new(m, k, deq);
        let b32: Vec<f32> = bb.iter().map(|x| x.to_f32()).collect();
        let b = MatRef::row_major(&b32, k, n).unwrap();
        matmul_f32(&a, &b, &mut c, n).unwrap();
        check_float(
            m,
            k,
            n,
            |i, p| deq(i, p) as f64,
            |p, j| b32[p * n + j] as f64,
            |i, j| c[i * n + j] as f64,
            U32,
            "dequantize prologue",
        );
    }
}

#[test]
fn f64_every_kernel_and_acc_f64_for_f32() {
    let mut rng = Rng(5);
    for base in all_f64_kernels() {
        for ker in [tiny(base), tiny(base).with_blocks(base)] {
            let (ms, ns, ks): (&[usize], &[usize], &[usize]) = if cfg!(miri) {
                (&[1, 7], &[1, 9], &[0, 7])
            } else {
                (
                    &[1, 3, 5, 6, 7, 9, 13, 37],
                    &[1, 3, 4, 5, 8, 9, 17, 37],
                    &[0, 1, 7, 8, 9, 257],
                )
            };
            for &m in ms {
                for &n in ns {
                    for &k in ks {
                        let av = rng.f64s(m * k);
                        let bv = rng.f64s(k * n);
                        let a = MatRef::row_major(&av, m, k).unwrap();
                        let b = MatRef::row_major(&bv, k, n).unwrap();
                        let mut c = vec![f64::NAN; m * n];
                        check_shapes::<f64, f64>(&a, &b, c.len(), n).unwrap();
                        threads::run(
                            &ker,
                            &a,
                            &b,
                            &mut c,
                            n,
                            Options::SINGLE,
                            &|_: Block<'_, f64>| {},
                        );
                        check_float(
                            m,
                            k,
                            n,
                            |i, p| av[i * k + p],
                            |p, j| bv[p * n + j],
                            |i, j| c[i * n + j],
                            U64,
                            ker.name,
                        );
                    }
                }
            }
        }
    }
    // acc = f64 for f32 operands: f32 data packed as f64.
    let long_k = if cfg!(miri) { 30 } else { 300 };
    for (m, k, n) in [(7, long_k, 9), (13, 1, 17)] {
        let av = rng.f32s(m * k);
        let bv = rng.f32s(k * n);
        let a = MatRef::row_major(&av, m, k).unwrap();
        let b = MatRef::row_major(&bv, k, n).unwrap();
        let mut c = vec![0.0f64; m * n];
        matmul_f64(&a, &b, &mut c, n).unwrap();
        check_float(
            m,
            k,
            n,
            |i, p| av[i * k + p] as f64,
            |p, j| bv[p * n + j] as f64,
            |i, j| c[i * n + j],
            U64,
            "acc = f64",
        );
    }
}

fn int_reference<TA: IntOperand, TB: IntOperand>(
    a: &[TA],
    b: &[TB],
    m: usize,
    k: usize,
    n: usize,
) -> Vec<i64> {
    let mut c = vec![0i64; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0i64;
            for p in 0..k {
                let x: i64 = a[i * k + p].convert();
                let y: i64 = b[p * n + j].convert();
                s = s.wrapping_add(x.wrapping_mul(y));
            }
            c[i * n + j] = s;
        }
    }
    c
}

#[test]
fn integers_exact() {
    let mut rng = Rng(6);
    let shapes = [
        (1, 1, 1),
        (7, 9, 13),
        (5, 0, 3),
        (6, 16, 16),
        (17, 600, 33),
        (97, 37, 5),
    ];
    for &(m, k, n) in &shapes[..if cfg!(miri) { 3 } else { shapes.len() }] {
        let a8: Vec<i8> = (0..m * k).map(|_| rng.next_u64() as i8).collect();
        let b8: Vec<i8> = (0..k * n).map(|_| rng.next_u64() as i8).collect();
        let u8a: Vec<u8> = (0..m * k).map(|_| rng.next_u64() as u8).collect();
        let u8b: Vec<u8> = (0..k * n).map(|_| rng.next_u64() as u8).collect();
        let a64: Vec<i64> = (0..m * k).map(|_| rng.next_u64() as i64).collect();
        let b32: Vec<u32> = (0..k * n).map(|_| rng.next_u64() as u32).collect();
        let mut c = vec![0i64; m * n];

        matmul_i64(
            &MatRef::row_major(&a8, m, k).unwrap(),
            &MatRef::row_major(&b8, k, n).unwrap(),
            &mut c,
            n,
        )
        .unwrap();
        assert_eq!(c, int_reference(&a8, &b8, m, k, n), "i8·i8 {m}x{k}x{n}");
        matmul_i64(
            &MatRef::row_major(&u8a, m, k).unwrap(),
            &MatRef::row_major(&u8b, k, n).unwrap(),
            &mut c,
            n,
        )
        .unwrap();
        assert_eq!(c, int_reference(&u8a, &u8b, m, k, n), "u8·u8 {m}x{k}x{n}");
        matmul_i64(
            &MatRef::row_major(&u8a, m, k).unwrap(),
            &MatRef::row_major(&b8, k, n).unwrap(),
            &mut c,
            n,
        )
        .unwrap();
        assert_eq!(c, int_reference(&u8a, &b8, m, k, n), "u8·i8 {m}x{k}x{n}");
        // Wide operands take the i64 kernel (wrapping like the reference).
        matmul_i64(
            &MatRef::row_major(&a64, m, k).unwrap(),
            &MatRef::row_major(&b32, k, n).unwrap(),
            &mut c,
            n,
        )
        .unwrap();
        assert_eq!(c, int_reference(&a64, &b32, m, k, n), "i64·u32 {m}x{k}x{n}");

        // acc = i32: the reference wrapped to i32.
        let mut c32 = vec![0i32; m * n];
        matmul_i32(
            &MatRef::row_major(&a8, m, k).unwrap(),
            &MatRef::row_major(&b8, k, n).unwrap(),
            &mut c32,
            n,
        )
        .unwrap();
        let want: Vec<i32> = int_reference(&a8, &b8, m, k, n)
            .into_iter()
            .map(|x| x as i32)
            .collect();
        assert_eq!(c32, want, "i8·i8 acc i32 {m}x{k}x{n}");
    }
}

#[test]
fn i8_extremes_over_long_k_stay_exact() {
    // -128·-128 summed 5000 times: 81 920 000 fits i32, but the block-wise i32 sums and the
    // i64 output must agree with the exact value whatever the blocking.
    // Under Miri k = 600 still spans three `kc = 256` blocks.
    let (m, k, n) = (3, if cfg!(miri) { 600 } else { 5000 }, 18);
    let a = vec![-128i8; m * k];
    let b = vec![-128i8; k * n];
    let mut c = vec![0i64; m * n];
    matmul_i64(
        &MatRef::row_major(&a, m, k).unwrap(),
        &MatRef::row_major(&b, k, n).unwrap(),
        &mut c,
        n,
    )
    .unwrap();
    assert!(c.iter().all(|&x| x == 16384 * k as i64));
    let ua = vec![255u8; m * k];
    let ub = vec![255u8; k * n];
    matmul_i64(
        &MatRef::row_major(&ua, m, k).unwrap(),
        &MatRef::row_major(&ub, k, n).unwrap(),
        &mut c,
        n,
    )
    .unwrap();
    assert!(c.iter().all(|&x| x == 65025 * k as i64));
}

#[test]
fn epilogue_sees_every_element_once_with_its_position() {
    let mut rng = Rng(7);
    // The third is above the threads' work threshold (smaller under Miri).
    let (pm, pk, pn) = if cfg!(miri) {
        (30, 7, 20)
    } else {
        (300, 70, 200)
    };
    for (m, k, n, options) in [
        (13, 7, 29, Options::SINGLE),
        (1, 1, 1, Options::SINGLE),
        (pm, pk, pn, Options::default()),
        (9, 0, 5, Options::SINGLE),
    ] {
        let av = rng.f32s(m * k);
        let bv = rng.f32s(k * n);
        let bias = rng.f32s(n);
        let a = MatRef::row_major(&av, m, k).unwrap();
        let b = MatRef::row_major(&bv, k, n).unwrap();
        let mut plain = vec![0.0; m * n];
        matmul_f32(&a, &b, &mut plain, n).unwrap();
        let seen = std::sync::Mutex::new(vec![0u8; m * n]);
        let mut fused = vec![0.0; m * n];
        matmul_f32_with(&a, &b, &mut fused, n, options, &|mut blk: Block<
            '_,
            f32,
        >| {
            let mut s = seen.lock().unwrap();
            blk.for_each_row(|i, j0, row| {
                for (t, x) in row.iter_mut().enumerate() {
                    s[i * n + j0 + t] += 1;
                    *x = (*x + bias[j0 + t]).max(0.0);
                }
            });
        })
        .unwrap();
        assert!(
            seen.into_inner().unwrap().iter().all(|&x| x == 1),
            "{m}x{k}x{n}"
        );
        for i in 0..m {
            for j in 0..n {
                let want = (plain[i * n + j] + bias[j]).max(0.0);
                assert!(
                    (fused[i * n + j] - want).abs() <= 1e-5 * (1.0 + want.abs()),
                    "{m}x{k}x{n} ({i},{j})"
                );
            }
        }
    }
}

#[test]
fn threads_match_one_thread_exactly() {
    // Every element is computed by the same kernel calls in the same order whichever thread
    // owns its rows, so the results are bit-identical.
    let mut rng = Rng(8);
    // Above the threads' work threshold (smaller under Miri).
    let (m, k, n) = if cfg!(miri) {
        (31, 7, 23)
    } else {
        (301, 67, 211)
    };
    let av = rng.f32s(m * k);
    let bv = rng.f32s(k * n);
    let a = MatRef::row_major(&av, m, k).unwrap();
    let b = MatRef::row_major(&bv, k, n).unwrap();
    let mut one = vec![0.0; m * n];
    let mut many = vec![0.0; m * n];
    matmul_f32_with(&a, &b, &mut one, n, Options::SINGLE, &|_: Block<
        '_,
        f32,
    >| {})
    .unwrap();
    matmul_f32(&a, &b, &mut many, n).unwrap();
    assert_eq!(one, many);
    // The threaded path did run wherever there is more than one thread.
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 {
        let mr = kernel::f32_kernel().mr;
        assert!(threads::thread_count(m, k, n, mr, Options::default()) > 1);
    }
}

#[test]
fn shape_errors_are_reported() {
    let d = vec![0.0f32; 12];
    let a = MatRef::row_major(&d, 3, 4).unwrap();
    let b = MatRef::row_major(&d, 3, 4).unwrap();
    let mut c = vec![0.0; 12];
    assert_eq!(
        matmul_f32(&a, &b, &mut c, 4),
        Err(GemmError::InnerDimMismatch {
            a: (3, 4),
            b: (3, 4)
        })
    );
    let b = MatRef::row_major(&d, 4, 3).unwrap();
    assert_eq!(
        matmul_f32(&a, &b, &mut c, 2),
        Err(GemmError::LeadingDim { ldc: 2, cols: 3 })
    );
    assert_eq!(
        matmul_f32(&a, &b, &mut c[..7], 3),
        Err(GemmError::OutputTooShort { needed: 9, len: 7 })
    );
    assert!(matmul_f32(&a, &b, &mut c[..9], 3).is_ok());
    assert!(MatRef::row_major(&d, 4, 4).is_err());
    assert!(MatRef::new(&d, 2, 2, -1, 1, 0).is_err());
    assert!(MatRef::new(&d, 2, 2, 1, 11, 0).is_err());
    assert!(MatRef::new(&d, 2, 2, 1, 10, 0).is_ok());
    assert!(MatRef::new(&d, 0, 5, 1000, 1000, 1000).is_ok());
    assert!(MatRef::new(&d, usize::MAX, 2, isize::MAX, 1, 0).is_err());
    // Empty products.
    let e = MatRef::row_major(&d, 0, 4).unwrap();
    assert!(matmul_f32(&e, &b, &mut [], 3).is_ok());
    let msg = GemmError::InnerDimMismatch {
        a: (3, 4),
        b: (3, 4),
    }
    .to_string();
    assert!(msg.contains("3×4 by 3×4"), "{msg}");
}

#[test]
fn micro_kernel_contract_check_does_not_wrap() {
    // (mr - 1)·ldc + nr = 2·(2⁶³) + 1 wraps to 1 in usize: a one-element `C` must still be
    // refused with the contract's message (it was accepted in release builds, where the
    // AVX2 kernels would then write rows 2⁶³ elements apart).
    let (a, b, c) = ([0f32; 6], [0f32; 16], [0f32; 1]);
    let refused = std::panic::catch_unwind(|| {
        kernel::check_tile(1, &a, &b, &c, 1 << 63, (3, 1), (6, 16));
    })
    .expect_err("a wrapped extent passed the check");
    let msg = refused.downcast_ref::<&str>().copied().unwrap_or("");
    assert_eq!(msg, "gemm micro-kernel called outside its contract");
    // Each length check on its own, at the boundary.
    kernel::check_tile(1, &a, &b, &c, 0, (1, 1), (6, 16));
    for (a_len, b_len, c_len, ldc, mr, nr) in [
        (5, 16, 1, 0, 1, 1),
        (6, 15, 1, 0, 1, 1),
        (6, 16, 3, 3, 2, 1),
    ] {
        let (a, b, c) = (vec![0f32; a_len], vec![0f32; b_len], vec![0f32; c_len]);
        assert!(std::panic::catch_unwind(|| {
            kernel::check_tile(1, &a, &b, &c, ldc, (mr, nr), (6, 16));
        })
        .is_err());
    }
}
