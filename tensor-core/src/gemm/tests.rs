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

use super::isa::{all_f32_kernels, all_f64_kernels};
use super::kernel::Kernel;
use super::threads;
use super::*;
use crate::dtype::{bf16, f16};

/// The tests' generator (`crate::testing::Rng`), values in [-1, 1).
struct Rng(crate::testing::Rng);
impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(crate::testing::Rng::new(seed))
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
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

/// Sizes around the tiles of every kernel (4, 6, 8, 12, 16, 32 and ±1) and primes.
const MN: &[usize] = if cfg!(miri) {
    // A full tile, a partial tile and a tile plus an edge of every kernel (mr 4/6, nr 4/8/16).
    &[1, 6, 17]
} else {
    &[
        1, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 31, 32, 33, 37, 97,
    ]
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
    let mut rng = Rng::new(1);
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
    let mut rng = Rng::new(2);
    let ker = isa::f32_kernel();
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
    let mut rng = Rng::new(3);
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
    let mut rng = Rng::new(4);
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
    let mut rng = Rng::new(5);
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
    let mut rng = Rng::new(6);
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
    let mut rng = Rng::new(7);
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
    // owns its rows, so the results are bit-identical. Above the threads' work threshold
    // (smaller under Miri); the first shape gives two threads short shares (B packed once
    // and shared), the second tall ones (each thread packs B itself).
    let mut rng = Rng::new(8);
    let shapes = if cfg!(miri) {
        [(31, 7, 23), (2 * threads::SHARE_B_BELOW_ROWS + 7, 2, 5)]
    } else {
        [
            (301, 67, 211),
            (2 * threads::SHARE_B_BELOW_ROWS + 19, 67, 131),
        ]
    };
    for (m, k, n) in shapes {
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
        assert_eq!(one, many, "{m}x{k}x{n}");
        // The threaded path did run wherever there is more than one thread.
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 {
            let mr = isa::f32_kernel().mr;
            assert!(threads::thread_count(m, k, n, mr, Options::default()) > 1);
        }
    }
}

#[test]
fn small_products_read_in_place_match_the_reference() {
    // The unpacked path (small::try_f32, AVX-512 CPUs) over its tile sizes ±1 and primes,
    // with row-major, transposed and flipped A, and B with contiguous columns (a B whose
    // columns are strided takes the packed path: checked too). Both paths must agree with
    // the exact reference within the bound.
    let mut rng = Rng::new(15);
    // Under Miri (no AVX-512: the packed path) tile edges and one prime each.
    let (ms, ns, ks): (&[usize], &[usize], &[usize]) = if cfg!(miri) {
        (&[1, 13], &[1, 17, 33], &[1, 13])
    } else {
        (
            &[1, 11, 12, 13, 25, 64, 127, 128],
            &[1, 15, 16, 17, 31, 33, 100],
            &[1, 13, 64],
        )
    };
    for &m in ms {
        for &n in ns {
            for &k in ks {
                if m * n * k > super::small::SMALL_WORK {
                    continue;
                }
                let (av, bv) = (rng.f32s(m * k), rng.f32s(k * n));
                let a_rows = MatRef::row_major(&av, m, k).unwrap();
                let a_cols = MatRef::row_major(&av, k, m).unwrap().t();
                let a_flip = MatRef::new(&av, m, k, -(k as isize), 1, (m - 1) * k).unwrap();
                let b = MatRef::row_major(&bv, k, n).unwrap();
                let b_cols = MatRef::row_major(&bv, n, k).unwrap().t();
                let ldc = n + 2;
                // Every layout at k = 13; row-major only at the other k (test time).
                let layouts = [
                    ("rows", a_rows, (k as isize, 1isize, 0usize)),
                    ("cols", a_cols, (1, m as isize, 0)),
                    ("flip", a_flip, (-(k as isize), 1, (m - 1) * k)),
                ];
                for &(what, a, ga) in &layouts[..if k == 13 { 3 } else { 1 }] {
                    for (bwhat, bm, gb) in [("b", b, (n, 1)), ("bt", b_cols, (1, k))] {
                        let mut c = vec![f32::NAN; m * ldc];
                        matmul_f32_with(
                            &a,
                            &bm,
                            &mut c,
                            ldc,
                            Options::SINGLE,
                            &|_: Block<'_, f32>| {},
                        )
                        .unwrap();
                        let at = |i: usize, p: usize| {
                            av[(ga.2 as isize + i as isize * ga.0 + p as isize * ga.1) as usize]
                                as f64
                        };
                        check_float(
                            m,
                            k,
                            n,
                            at,
                            |p, j| bv[p * gb.0 + j * gb.1] as f64,
                            |i, j| c[i * ldc + j] as f64,
                            U32,
                            &format!("small {what} {bwhat}"),
                        );
                        for i in 0..m {
                            assert!(c[i * ldc + n..(i + 1) * ldc].iter().all(|x| x.is_nan()));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn packed_b_matches_the_reference_for_every_kernel_and_blocking() {
    // B packed once, then products with several As (different row counts, as a graph's
    // row blocks are), through every kernel with tiny and real blocks.
    let mut rng = Rng::new(11);
    for base in all_f32_kernels() {
        for ker in [tiny(base), tiny(base).with_blocks(base)] {
            // Under Miri (NOTES.md): k across the tiny blocks' kc = 5 and n across their
            // nc = 2·nr; the real blocks then run one block.
            let kn: &[(usize, usize)] = if cfg!(miri) {
                &[(1, 1), (7, 33), (11, 17), (0, 5)]
            } else {
                &[(1, 1), (7, 33), (37, 31), (257, 65), (0, 5)]
            };
            for &(k, n) in kn {
                let bv = rng.f32s(k * n);
                let b = MatRef::row_major(&bv, k, n).unwrap();
                let mut buf = vec![f32::NAN; packed::buffer_len(&ker, k, n).unwrap()];
                let packed = PackedB::pack(&ker, &b, &mut buf, true).unwrap();
                assert!(packed.fits(&ker));
                let ms: &[usize] = if cfg!(miri) {
                    &[1, 13]
                } else {
                    &[1, 11, 12, 13, 40]
                };
                for &m in ms {
                    let av = rng.f32s(m * k);
                    let a = MatRef::row_major(&av, m, k).unwrap();
                    let mut c = vec![f32::NAN; m * n];
                    threads::run_b(
                        &ker,
                        &a,
                        &packed,
                        &mut c,
                        n,
                        Options::SINGLE,
                        &|_: Block<'_, f32>| {},
                    );
                    check_float(
                        m,
                        k,
                        n,
                        |i, p| av[i * k + p] as f64,
                        |p, j| bv[p * n + j] as f64,
                        |i, j| c[i * n + j] as f64,
                        U32,
                        ker.name,
                    );
                }
            }
        }
    }
    for base in all_f64_kernels() {
        for ker in [tiny(base), tiny(base).with_blocks(base)] {
            let (m, k, n) = if cfg!(miri) {
                (13, 11, 17)
            } else {
                (19, 261, 35)
            };
            let (av, bv) = (rng.f64s(m * k), rng.f64s(k * n));
            let a = MatRef::row_major(&av, m, k).unwrap();
            let b = MatRef::row_major(&bv, k, n).unwrap();
            let mut buf = vec![f64::NAN; packed::buffer_len(&ker, k, n).unwrap()];
            let packed = PackedB::pack(&ker, &b, &mut buf, false).unwrap();
            let mut c = vec![f64::NAN; m * n];
            threads::run_b(
                &ker,
                &a,
                &packed,
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

#[test]
fn packed_b_public_entry_points_threads_and_errors() {
    // The process's kernels through the public API: a transposed B packed on rayon's
    // threads, a product split across threads, bit-identical to packing per call.
    let mut rng = Rng::new(12);
    // Under Miri: still above its thread thresholds (MIN_PARALLEL_WORK, MIN_PARALLEL_PACK);
    // m ≤ k + 1 for the wrong-width A below to fit in `av`.
    let (m, k, n) = if cfg!(miri) {
        (20, 24, 33)
    } else {
        (301, 300, 211)
    };
    let (av, bv) = (rng.f32s(m * k), rng.f32s(n * k));
    let a = MatRef::row_major(&av, m, k).unwrap();
    let bt = MatRef::row_major(&bv, n, k).unwrap().t();
    let mut buf = vec![0.0f32; packed_b_len_f32(k, n).unwrap()];
    let packed = pack_b_f32(&bt, &mut buf, Options::default()).unwrap();
    let mut want = vec![0.0; m * n];
    matmul_f32(&a, &bt, &mut want, n).unwrap();
    let mut got = vec![0.0; m * n];
    matmul_f32_packed_with(&a, &packed, &mut got, n, Options::default(), &|_: Block<
        '_,
        f32,
    >| {})
    .unwrap();
    assert_eq!(got, want);
    let (ad, bd) = (rng.f64s(m * k), rng.f64s(k * n));
    let a64 = MatRef::row_major(&ad, m, k).unwrap();
    let b64 = MatRef::row_major(&bd, k, n).unwrap();
    let mut buf64 = vec![0.0f64; packed_b_len_f64(k, n).unwrap()];
    let packed64 = pack_b_f64(&b64, &mut buf64, Options::SINGLE).unwrap();
    let (mut want64, mut got64) = (vec![0.0; m * n], vec![0.0; m * n]);
    matmul_f64(&a64, &b64, &mut want64, n).unwrap();
    matmul_f64_packed_with(
        &a64,
        &packed64,
        &mut got64,
        n,
        Options::default(),
        &|_: Block<'_, f64>| {},
    )
    .unwrap();
    assert_eq!(got64, want64);
    // A short buffer, an A of the wrong width.
    let mut short = vec![0.0f32; packed_b_len_f32(k, n).unwrap() - 1];
    assert!(matches!(
        pack_b_f32(&bt, &mut short, Options::SINGLE),
        Err(GemmError::PackBufferTooShort { .. })
    ));
    let a_wide = MatRef::row_major(&av, m - 1, k + 1).unwrap();
    assert_eq!(
        matmul_f32_packed_with(
            &a_wide,
            &packed,
            &mut got,
            n,
            Options::SINGLE,
            &|_: Block<'_, f32>| {}
        ),
        Err(GemmError::InnerDimMismatch {
            a: (m - 1, k + 1),
            b: (k, n)
        })
    );
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

/// The tuning sweep behind the AVX-512 tile and blocks (not a check: prints GFLOP/s of
/// 1024³ on one thread for every candidate). Run in release mode:
/// `cargo test --release -p tensorgraph-core --lib gemm::tests::tune_avx512 -- --ignored --nocapture`.
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore]
fn tune_avx512() {
    if isa::cpu_isa() < isa::Isa::Avx512 {
        return;
    }
    let n = 1024;
    let mut rng = Rng::new(9);
    let (av, bv) = (rng.f32s(n * n), rng.f32s(n * n));
    let a = MatRef::row_major(&av, n, n).unwrap();
    let b = MatRef::row_major(&bv, n, n).unwrap();
    let mut c = vec![0f32; n * n];
    // TUNE="12x32,6x64" limits the tiles, KC="192,256" and MC="144,240" the blocks. Every
    // configuration is timed once per round, best of the rounds: a loaded machine's slow
    // phases then hit every configuration alike.
    let list = |var: &str, default: &[usize]| -> Vec<usize> {
        std::env::var(var)
            .ok()
            .map(|v| v.split(',').map(|x| x.parse().unwrap()).collect())
            .unwrap_or_else(|| default.to_vec())
    };
    let tiles = std::env::var("TUNE").unwrap_or_default();
    let mut configs = Vec::new();
    for (mr, nr, run) in super::avx512::f32_candidates() {
        if !tiles.is_empty() && !tiles.split(',').any(|s| s == format!("{mr}x{nr}")) {
            continue;
        }
        for kc in list("KC", &[128, 192, 256, 384, 512]) {
            for mc in list("MC", &[48, 96, 144, 192, 240, 384]) {
                let mc = mc.next_multiple_of(mr);
                configs.push((
                    Kernel {
                        name: "tune",
                        mr,
                        nr,
                        mc,
                        kc,
                        nc: 4096,
                        run,
                    },
                    f64::MAX,
                ));
            }
        }
    }
    for _round in 0..list("ROUNDS", &[5])[0] {
        for (ker, best) in configs.iter_mut() {
            let t = std::time::Instant::now();
            threads::run(&*ker, &a, &b, &mut c, n, Options::SINGLE, &|_: Block<
                '_,
                f32,
            >| {});
            *best = best.min(t.elapsed().as_secs_f64());
        }
    }
    for (ker, best) in &configs {
        println!(
            "{}x{} kc={} mc={}: {:.2} ms {:.1} GFLOP/s",
            ker.mr,
            ker.nr,
            ker.kc,
            ker.mc,
            best * 1e3,
            2.0 * (n * n * n) as f64 / best / 1e9
        );
    }
}

/// The micro-kernels alone on L1-resident panels (GFLOP/s per tile), next to the FMA peak
/// measured by independent FMAs. Release mode:
/// `cargo test --release -p tensorgraph-core --lib gemm::tests::tune_kernel_alone -- --ignored --nocapture`.
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore]
fn tune_kernel_alone() {
    if isa::cpu_isa() < isa::Isa::Avx512 {
        return;
    }
    let kc = 128;
    let mut rng = Rng::new(10);
    let (av, bv) = (rng.f32s(16 * kc), rng.f32s(64 * kc));
    let mut c = vec![0f32; 16 * 64];
    for _round in 0..3 {
        for (mr, nr, run) in super::avx512::f32_candidates() {
            let reps = 20_000;
            let t = std::time::Instant::now();
            for _ in 0..reps {
                run(kc, &av, &bv, &mut c, 64, mr, nr, false);
            }
            let s = t.elapsed().as_secs_f64();
            println!(
                "{mr}x{nr}: {:.1} GFLOP/s",
                2.0 * (mr * nr * kc * reps) as f64 / s / 1e9
            );
        }
    }
}

/// Small square products through each kernel (ns per product, best of many), next to a
/// naive i-k-j loop. Release mode:
/// `cargo test --release -p tensorgraph-core --lib gemm::tests::tune_small -- --ignored --nocapture`.
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore]
fn tune_small() {
    let mut kernels: Vec<Kernel<f32, f32>> = all_f32_kernels()
        .into_iter()
        .map(|k| tiny(k).with_blocks(k))
        .collect();
    if isa::cpu_isa() >= isa::Isa::Avx512 {
        for (mr, nr, run) in super::avx512::f32_candidates() {
            kernels.push(Kernel {
                name: "candidate",
                mr,
                nr,
                mc: 144,
                kc: 192,
                nc: 4096,
                run,
            });
        }
    }
    // Squares, then oblong shapes of the unpacked path's largest work (m, k, n).
    let squares = [8usize, 16, 32, 64, 96, 128].map(|n| (n, n, n));
    let oblong = [
        (128, 1024, 16),
        (16, 1024, 128),
        (128, 16, 1024),
        (8, 512, 512),
        (64, 512, 64),
    ];
    // Few rows times a transformer's weight (decode steps, small batches): `TUNE_WIDE=1`.
    let wide: Vec<(usize, usize, usize)> = if std::env::var("TUNE_WIDE").is_ok() {
        [1usize, 2, 4, 8, 16, 32]
            .iter()
            .map(|&m| (m, 768, 3072))
            .collect()
    } else {
        Vec::new()
    };
    for (m, k, n) in squares.into_iter().chain(oblong).chain(wide) {
        let mut rng = Rng::new(13);
        let (av, bv) = (rng.f32s(m * k), rng.f32s(k * n));
        let a = MatRef::row_major(&av, m, k).unwrap();
        let b = MatRef::row_major(&bv, k, n).unwrap();
        let mut c = vec![0f32; m * n];
        let reps = (200_000 * 64 * 64 / (m * k * n)).max(1);
        let time = |f: &mut dyn FnMut()| {
            let mut best = f64::MAX;
            for _ in 0..20 {
                let t = std::time::Instant::now();
                for _ in 0..reps {
                    f();
                }
                best = best.min(t.elapsed().as_secs_f64() / reps as f64);
            }
            best * 1e9
        };
        let naive = time(&mut || {
            c.fill(0.0);
            for i in 0..m {
                for p in 0..k {
                    let x = av[i * k + p];
                    for (cj, bj) in c[i * n..(i + 1) * n]
                        .iter_mut()
                        .zip(&bv[p * n..(p + 1) * n])
                    {
                        *cj += x * bj;
                    }
                }
            }
            std::hint::black_box(&mut c);
        });
        print!("{m}x{k}x{n}: naive {naive:.0} ns");
        if isa::cpu_isa() >= isa::Isa::Avx512 {
            let t = time(&mut || {
                assert!(super::small::direct_f32(&a, &b, &mut c, n, &|_| {}));
                std::hint::black_box(&mut c);
            });
            print!(", unpacked {t:.0}");
        }
        if m <= 32 {
            let t = time(&mut || {
                assert!(super::few_rows::stream_f32(&a, &b, &mut c, n, &|_| {}));
                std::hint::black_box(&mut c);
            });
            print!(", streamed {t:.0}");
        }
        for ker in &kernels {
            let t = time(&mut || {
                threads::run(
                    ker,
                    &a,
                    &b,
                    &mut c,
                    n,
                    Options::SINGLE,
                    &|_: Block<'_, f32>| {},
                );
                std::hint::black_box(&mut c);
            });
            print!(", {} {}x{} {t:.0}", ker.name, ker.mr, ker.nr);
        }
        println!();
    }
}

/// A profile target: `SMALL_N` (default 32) square products through the process's f32
/// kernel, many times. `perf record` it in release mode.
#[test]
#[ignore]
fn profile_small() {
    let n: usize = std::env::var("SMALL_N")
        .map(|v| v.parse().unwrap())
        .unwrap_or(32);
    let mut rng = Rng::new(14);
    let (av, bv) = (rng.f32s(n * n), rng.f32s(n * n));
    let a = MatRef::row_major(&av, n, n).unwrap();
    let b = MatRef::row_major(&bv, n, n).unwrap();
    let mut c = vec![0f32; n * n];
    for _ in 0..(20_000_000_000 / (n * n * n)) {
        matmul_f32_with(&a, &b, &mut c, n, Options::SINGLE, &|_: Block<'_, f32>| {}).unwrap();
        std::hint::black_box(&mut c);
    }
}

/// Where a two-thread f32 product (1024³ unless `N`, or `M`, `K`, `N`, say otherwise) spends its wall time: packing `B` once on the pool,
/// the product on a `B` packed beforehand, and the whole product, each on a 1- and a
/// 2-thread rayon pool (best of `ROUNDS`, default 20). Release mode:
/// `cargo test --release -p tensorgraph-core --lib gemm::tests::tune_threads -- --ignored --nocapture`.
#[cfg(feature = "parallel")]
#[test]
#[ignore]
fn tune_threads() {
    // N=… sets a square size; M, K, N together an oblong one.
    let var = |name: &str, default: usize| -> usize {
        std::env::var(name)
            .map(|v| v.parse().unwrap())
            .unwrap_or(default)
    };
    let n = var("N", 1024);
    let (m, k) = (var("M", n), var("K", n));
    let rounds = var("ROUNDS", 20);
    let mut rng = Rng::new(15);
    let (av, bv) = (rng.f32s(m * k), rng.f32s(k * n));
    let a = MatRef::row_major(&av, m, k).unwrap();
    let b = MatRef::row_major(&bv, k, n).unwrap();
    let mut c = vec![0f32; m * n];
    let mut buf = vec![0f32; packed_b_len_f32(k, n).unwrap()];
    let flops = 2.0 * (m * k * n) as f64;
    let best = |f: &mut dyn FnMut()| {
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let t = std::time::Instant::now();
            f();
            best = best.min(t.elapsed().as_secs_f64());
        }
        best * 1e3
    };
    let none = &|_: Block<'_, f32>| {};
    let mut whole = [0.0; 2];
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let pack = best(&mut || {
                pack_b_f32(&b, &mut buf, Options::default()).unwrap();
            });
            let packed = pack_b_f32(&b, &mut buf, Options::default()).unwrap();
            let product = best(&mut || {
                matmul_f32_packed_with(&a, &packed, &mut c, n, Options::default(), none).unwrap()
            });
            let all =
                best(&mut || matmul_f32_with(&a, &b, &mut c, n, Options::default(), none).unwrap());
            whole[threads - 1] = all;
            println!(
                "{threads} thread(s): pack B {pack:.3} ms, product on packed B {product:.3} ms, \
                 whole {all:.3} ms = {:.1} GFLOP/s",
                flops / all / 1e6
            );
        });
    }
    println!("speedup of the whole product: {:.2}", whole[0] / whole[1]);
}

#[test]
fn few_row_products_match_the_reference() {
    // The streamed path (few_rows.rs) for 1 and 2 rows, over widths around its column
    // chunk, with a row-major and a transposed A and a C wider than the product (ldc > n);
    // each epilogue block is visited once and the blocks tile C.
    let mut rng = Rng::new(16);
    for m in 1..=super::few_rows::FEW_ROWS {
        for &k in &[1usize, 7, 64] {
            for &n in &[1usize, 31, 1023, 1024, 1025, 2100] {
                let (av, bv) = (rng.f32s(m * k), rng.f32s(k * n));
                let a_rows = MatRef::row_major(&av, m, k).unwrap();
                let a_cols = MatRef::row_major(&av, k, m).unwrap().t();
                let b = MatRef::row_major(&bv, k, n).unwrap();
                for (what, a, transposed) in [("rows", a_rows, false), ("cols", a_cols, true)] {
                    let ldc = n + 3;
                    let mut c = vec![f32::NAN; m * ldc];
                    let covered = std::sync::Mutex::new(vec![0u8; m * n]);
                    matmul_f32_with(
                        &a,
                        &b,
                        &mut c,
                        ldc,
                        Options::SINGLE,
                        &|blk: Block<'_, f32>| {
                            let mut cov = covered.lock().unwrap();
                            for i in blk.row0()..blk.row0() + blk.rows() {
                                for j in blk.col0()..blk.col0() + blk.cols() {
                                    cov[i * n + j] += 1;
                                }
                            }
                        },
                    )
                    .unwrap();
                    assert!(
                        covered.lock().unwrap().iter().all(|&x| x == 1),
                        "{what} {m}x{k}x{n}: blocks"
                    );
                    for i in 0..m {
                        for j in 0..n {
                            let at = |p: usize| if transposed { av[p * m + i] } else { av[i * k + p] } as f64;
                            let exact: f64 = (0..k).map(|p| at(p) * bv[p * n + j] as f64).sum();
                            let mag: f64 =
                                (0..k).map(|p| (at(p) * bv[p * n + j] as f64).abs()).sum();
                            let got = c[i * ldc + j] as f64;
                            assert!(
                                (got - exact).abs() <= k as f64 * 2f64.powi(-24) * mag + 1e-30,
                                "{what} {m}x{k}x{n} ({i}, {j}): {got} vs {exact}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Products of few rows with a `B` larger than `driver::FEW_ROWS_B_BLOCK` packed: the
/// shorter `k` block (row-major `B`) and the narrower column block (column-major `B`),
/// with edges in every block, against the exact sum.
#[test]
fn few_rows_with_a_large_b_in_both_layouts() {
    let mut rng = Rng::new(22);
    let shapes: &[(usize, usize, usize)] = if cfg!(miri) {
        &[(5, 300, 900)]
    } else {
        &[(5, 300, 1100), (13, 601, 900), (48, 300, 1000)]
    };
    for &(m, k, n) in shapes {
        let (av, bv) = (rng.f32s(m * k), rng.f32s(k * n));
        let a = MatRef::row_major(&av, m, k).unwrap();
        let b_rows = MatRef::row_major(&bv, k, n).unwrap();
        let b_cols = MatRef::row_major(&bv, n, k).unwrap().t();
        for (what, b, gb) in [("rows", b_rows, (n, 1)), ("cols", b_cols, (1, k))] {
            // Through the entry point (on AVX-512 the in-place path) and through the
            // packed engine (its few-rows blocks).
            for entry in ["matmul_f32_with", "packed"] {
                let mut c = vec![f32::NAN; m * n];
                if entry == "packed" {
                    let ker = isa::f32_kernel();
                    threads::run(ker, &a, &b, &mut c, n, Options::SINGLE, &|_| {});
                } else {
                    matmul_f32_with(&a, &b, &mut c, n, Options::SINGLE, &|_: Block<'_, f32>| {})
                        .unwrap();
                }
                check_float(
                    m,
                    k,
                    n,
                    |i, p| av[i * k + p] as f64,
                    |p, j| bv[p * gb.0 + j * gb.1] as f64,
                    |i, j| c[i * n + j] as f64,
                    U32,
                    &format!("few rows, large {what} B, {m}x{k}x{n}, {entry}"),
                );
            }
        }
    }
}

/// The in-place products of few rows (in_place.rs) against the exact sum: odd `m`, `k`,
/// `n` around the tiles (8×48 for a row-major `B`, 12/8/6 × 16·NV for `B = Wᵀ`), blocks of
/// `k` of 16 rows and whole, `A` row-major, transposed and offset with a padded row
/// stride, `B` row-major, padded, and transposed, `C` with a padded `ldc` (the padding
/// must stay untouched); the epilogue must see every element of `C` once, final.
#[test]
fn in_place_products_against_the_exact_sum() {
    // A named operand view and where its element (row, col) is in its buffer.
    type View<'a> = (
        &'static str,
        MatRef<'a, f32>,
        Box<dyn Fn(usize, usize) -> usize>,
    );
    if isa::cpu_isa() < isa::Isa::Avx512 {
        return;
    }
    let mut rng = Rng::new(24);
    let shapes: &[(usize, usize, usize)] = &[
        (1, 1, 1),
        (5, 37, 100),
        (8, 16, 48),
        (13, 300, 97),
        (16, 17, 49),
        (17, 40, 15),
        (32, 257, 161),
        (33, 64, 200),
        (48, 31, 96),
        (49, 20, 33),
        (64, 70, 130),
    ];
    for &(m, k, n) in shapes {
        let (av, bv) = (rng.f32s((m + 1) * (k + 3)), rng.f32s((k + 2) * (n + 5)));
        // A: (i, p) at a_at(i, p) in `av`, three ways.
        let a_views: [View<'_>; 3] = [
            (
                "A rows",
                MatRef::row_major(&av, m, k).unwrap(),
                Box::new(move |i, p| i * k + p),
            ),
            (
                "A cols",
                MatRef::row_major(&av, k, m).unwrap().t(),
                Box::new(move |i, p| p * m + i),
            ),
            (
                "A padded",
                MatRef::new(&av, m, k, (k + 3) as isize, 1, 2).unwrap(),
                Box::new(move |i, p| 2 + i * (k + 3) + p),
            ),
        ];
        let b_views: [View<'_>; 3] = [
            (
                "B rows",
                MatRef::row_major(&bv, k, n).unwrap(),
                Box::new(move |p, j| p * n + j),
            ),
            (
                "B padded",
                MatRef::new(&bv, k, n, (n + 5) as isize, 1, 3).unwrap(),
                Box::new(move |p, j| 3 + p * (n + 5) + j),
            ),
            (
                "B = W^T",
                MatRef::new(&bv, n, k, (k + 2) as isize, 1, 1).unwrap().t(),
                Box::new(move |p, j| 1 + j * (k + 2) + p),
            ),
        ];
        for (an, a, ga) in &a_views {
            for (bn, b, gb) in &b_views {
                for block_bytes in [1, super::in_place::ROW_BLOCK_BYTES] {
                    let ldc = n + 2;
                    let mut c = vec![f32::NAN; m * ldc];
                    let seen = std::cell::RefCell::new(vec![(0u32, 0f32); m * n]);
                    let ran = super::in_place::run_f32_blocked(
                        a,
                        b,
                        &mut c,
                        ldc,
                        block_bytes,
                        &|blk: Block<'_, f32>| {
                            let mut seen = seen.borrow_mut();
                            for r in 0..blk.rows() {
                                for (t, &x) in blk.row(r).iter().enumerate() {
                                    let cell = &mut seen[(blk.row0() + r) * n + blk.col0() + t];
                                    *cell = (cell.0 + 1, x);
                                }
                            }
                        },
                    );
                    assert!(ran, "{an} {bn}: the in-place path ran");
                    let what = format!("in place, {an}, {bn}, block {block_bytes}");
                    check_float(
                        m,
                        k,
                        n,
                        |i, p| av[ga(i, p)] as f64,
                        |p, j| bv[gb(p, j)] as f64,
                        |i, j| c[i * ldc + j] as f64,
                        U32,
                        &what,
                    );
                    for i in 0..m {
                        assert!(c[i * ldc + n..(i * ldc + ldc).min(c.len())]
                            .iter()
                            .all(|x| x.is_nan()));
                        for j in 0..n {
                            let (count, x) = seen.borrow()[i * n + j];
                            assert!(
                                count == 1 && x.to_bits() == c[i * ldc + j].to_bits(),
                                "{what}: the epilogue saw ({i}, {j}) {count} times"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// This thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`): on a shared machine the
/// time spent descheduled is not counted (cache traffic of others still is).
#[cfg(target_os = "linux")]
fn thread_cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec of the C layout (x86-64 Linux: two 64-bit
    // fields); the clock id is Linux's constant.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// The five products of the MLP step at B = 32 (issue 32 item 8), each with its operands
/// in six copies so every call reads them from memory, through the process's f32 kernel
/// with blocks from `KC`/`NC`/`MC` lists (default: the kernel's own), timed by the thread's
/// CPU time. Release mode, Linux:
/// `cargo test --release -p tensorgraph-core --lib gemm::tests::tune_mlp -- --ignored --nocapture`.
#[cfg(target_os = "linux")]
#[test]
#[ignore]
fn tune_mlp() {
    let base = isa::f32_kernel();
    let list = |var: &str, default: usize| -> Vec<usize> {
        std::env::var(var)
            .ok()
            .map(|v| v.split(',').map(|x| x.parse().unwrap()).collect())
            .unwrap_or_else(|| vec![default])
    };
    let (b, d, h) = (32usize, 768usize, 3072usize);
    let copies = 6;
    let mut rng = Rng::new(21);
    let x: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(b * d)).collect();
    let hh: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(b * h)).collect();
    let w1: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(d * h)).collect();
    let w2: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(h * d)).collect();
    let g: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(b * d)).collect();
    let dd: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(b * h)).collect();
    let mut c = vec![0f32; d * h];
    type Case<'a> = (
        &'static str,
        Box<dyn Fn(usize) -> (MatRef<'a, f32>, MatRef<'a, f32>) + 'a>,
    );
    let cases: Vec<Case> = vec![
        (
            "x.w1 32x768x3072",
            Box::new(|i| {
                (
                    MatRef::row_major(&x[i], b, d).unwrap(),
                    MatRef::row_major(&w1[i], d, h).unwrap(),
                )
            }),
        ),
        (
            "h.w2 32x3072x768",
            Box::new(|i| {
                (
                    MatRef::row_major(&hh[i], b, h).unwrap(),
                    MatRef::row_major(&w2[i], h, d).unwrap(),
                )
            }),
        ),
        (
            "g.w2T 32x768x3072",
            Box::new(|i| {
                (
                    MatRef::row_major(&g[i], b, d).unwrap(),
                    MatRef::row_major(&w2[i], h, d).unwrap().t(),
                )
            }),
        ),
        (
            "hT.g 3072x32x768",
            Box::new(|i| {
                (
                    MatRef::row_major(&hh[i], b, h).unwrap().t(),
                    MatRef::row_major(&g[i], b, d).unwrap(),
                )
            }),
        ),
        (
            "xT.d 768x32x3072",
            Box::new(|i| {
                (
                    MatRef::row_major(&x[i], b, d).unwrap().t(),
                    MatRef::row_major(&dd[i], b, h).unwrap(),
                )
            }),
        ),
    ];
    for (name, operands) in &cases {
        for kc in list("KC", base.kc) {
            for nc in list("NC", base.nc) {
                for mc in list("MC", base.mc) {
                    let ker = Kernel {
                        name: "tune",
                        mr: base.mr,
                        nr: base.nr,
                        mc: mc.next_multiple_of(base.mr),
                        kc,
                        nc,
                        run: base.run,
                    };
                    let mut best = f64::MAX;
                    for _round in 0..5 {
                        let t = thread_cpu_seconds();
                        for i in 0..copies {
                            let (a, bm) = operands(i);
                            let ldc = bm.ncols();
                            threads::run(
                                &ker,
                                &a,
                                &bm,
                                &mut c[..a.nrows() * ldc],
                                ldc,
                                Options::SINGLE,
                                &|_: Block<'_, f32>| {},
                            );
                            std::hint::black_box(&mut c);
                        }
                        best = best.min((thread_cpu_seconds() - t) / copies as f64);
                    }
                    println!("{name} kc {kc} nc {nc} mc {mc}: {:.3} ms", best * 1e3);
                }
            }
        }
    }
}

/// The in-place products of few rows (in_place.rs) against the packed engine on the MLP's
/// shapes, `m` from `TUNE_M` (default 16,32,48,64,96): `B` row-major `m×768×3072`,
/// `m×3072×768`, and `B = Wᵀ` (`m×768×3072`); each operand in six copies, so every call
/// reads its `B` from memory (L3); thread CPU time, best of five rounds, the two variants
/// alternated inside each round.
#[test]
#[ignore]
fn tune_in_place() {
    let ms: Vec<usize> = std::env::var("TUNE_M")
        .ok()
        .map(|v| v.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![16, 32, 48, 64, 96]);
    let copies: usize = std::env::var("TUNE_COPIES").map_or(6, |v| v.parse().unwrap());
    let mut rng = Rng::new(23);
    let big: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(768 * 3072)).collect();
    let shapes: Vec<(&str, usize, usize, bool)> = match std::env::var("TUNE_KN") {
        Ok(v) => {
            let kn: Vec<usize> = v.split(',').map(|x| x.parse().unwrap()).collect();
            vec![("rows", kn[0], kn[1], false), ("W^T ", kn[0], kn[1], true)]
        }
        Err(_) => vec![
            ("rows", 768, 3072, false),
            ("rows", 3072, 768, false),
            ("W^T ", 768, 3072, true),
        ],
    };
    let small: Vec<Vec<f32>> = (0..copies).map(|_| rng.f32s(128 * 3072)).collect();
    let blocks: Vec<usize> = std::env::var("TUNE_BLOCK")
        .ok()
        .map(|v| {
            v.split(',')
                .map(|x| x.parse::<usize>().unwrap() << 10)
                .collect()
        })
        .unwrap_or_else(|| vec![super::in_place::ROW_BLOCK_BYTES]);
    let ker = isa::f32_kernel();
    for &m in &ms {
        for &block in &blocks {
            for &(name, k, n, transposed) in &shapes {
                let operands = |i: usize| {
                    let a = MatRef::row_major(&small[i][..m * k], m, k).unwrap();
                    let b = if transposed {
                        MatRef::row_major(&big[i], n, k).unwrap().t()
                    } else {
                        MatRef::row_major(&big[i], k, n).unwrap()
                    };
                    (a, b)
                };
                let mut c = vec![0f32; m * n];
                let (mut packed, mut in_place) = (f64::MAX, f64::MAX);
                for _round in 0..5 {
                    let t = thread_cpu_seconds();
                    for i in 0..copies {
                        let (a, b) = operands(i);
                        threads::run(ker, &a, &b, &mut c, n, Options::SINGLE, &|_| {});
                        std::hint::black_box(&mut c);
                    }
                    packed = packed.min((thread_cpu_seconds() - t) / copies as f64);
                    let t = thread_cpu_seconds();
                    for i in 0..copies {
                        let (a, b) = operands(i);
                        let blocked = super::in_place::run_f32_blocked;
                        assert!(blocked(&a, &b, &mut c, n, block, &|_| {}));
                        std::hint::black_box(&mut c);
                    }
                    in_place = in_place.min((thread_cpu_seconds() - t) / copies as f64);
                }
                println!(
                    "{name} {m}x{k}x{n} block {} KiB: packed {:.3} ms, in place {:.3} ms",
                    block >> 10,
                    packed * 1e3,
                    in_place * 1e3
                );
            }
        }
    }
}
