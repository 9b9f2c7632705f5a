//! The row-stage rewrites of 2026-11-27 (reviewed by a second engineer) (fuse_row_reductions, row slices, div_softmax,
//! exp_nonpos table kernel): store passes whose row a reduction reads back, over symbolic
//! sizes including 0 and 1, special values, f16/bf16, views (flip, pad, concat), and rows
//! above the thread split, against references computed here in f64.
#![allow(deprecated)]

mod common;
use common::*;
use tensorgraph::prelude::*;

graph! {
    // A store pass whose row a sum, a max and a min read back (fused) with two outputs.
    fn exp_sum(x: f32[R, N]) -> (f32[R, N], f32[R], f32[R, N]) {
        let e = exp(x);
        (e, sum(e, axis = 1), e / sum(e, axis = 1, keepdims = true))
    }
    fn aff_minmax(x: f32[R, N], y: f32[N]) -> (f32[R, N], f32[R], f32[R]) {
        let e = x * y + 1.0;
        (e, max(e, axis = 1), min(e * y, axis = 1))
    }
    fn int_sum(x: i32[R, N]) -> (i32[R, N], i64[R]) {
        let e = x * 3 - 1;
        (e, sum(e, axis = 1))
    }
    fn f64_prod(x: f64[R, N]) -> (f64[R, N], f64[R]) {
        let e = x * 0.5 + 1.0;
        (e, prod(e, axis = 1))
    }
    // The reduction reads the stored value through its own cast (materialised).
    fn cast_sum(x: f32[R, N]) -> (f32[R, N], f64[R]) {
        let e = exp(x);
        (e * 2.0, sum(e as f64, axis = 1))
    }
    fn half_exp_sum(x: f16[R, N]) -> (f16[R, N], f16[R]) {
        let e = exp(x);
        (e, sum(e, axis = 1))
    }
    fn softmaxes(x: f32[R, N]) -> (f32[R, N], f32[R, N], f32[R, N]) {
        (softmax(x, axis = 1), softmax(flip(x, axis = 1), axis = 1), softmax(x, axis = 0))
    }
    fn softmax_half(x: f16[R, N]) -> f16[R, N] { softmax(x, axis = 1) }
    fn softmax_bf(x: bf16[R, N]) -> bf16[R, N] { softmax(x, axis = 1) }
    fn softmax_pad(x: f32[5, 13]) -> (f32[5, 16], f32[5, 26]) {
        (softmax(pad(x, [0, 0, 1, 2], value = -1.5), axis = 1),
         softmax(concat([x, flip(x, axis = 1)], axis = 1), axis = 1))
    }
    // Two store outputs of one shape, and the sum of the second.
    fn two_out(x: f32[R, N]) -> (f32[R, N], f32[R, N], f32[R]) {
        let a = x * 2.0;
        let b = exp(x - 1.0);
        (a, b, sum(b, axis = 1))
    }
}

fn rowwise<T: Copy>(x: &[T], n: usize) -> impl Iterator<Item = &[T]> {
    x.chunks(n.max(1))
}

/// Values with a few specials: NaN, ±inf, ±0 at fixed places of some rows.
fn specials(r: usize, n: usize, seed: u64) -> Vec<f32> {
    let mut x: Vec<f32> = f32::random(r * n, seed)
        .iter()
        .map(|v| v.clamp(-50.0, 50.0))
        .collect();
    if n > 0 {
        for row in 0..r {
            let at = |k: usize| row * n + k % n;
            match row % 6 {
                1 => x[at(n / 2)] = f32::NAN,
                2 => x[at(n - 1)] = f32::INFINITY,
                3 => x[at(0)] = f32::NEG_INFINITY,
                4 => {
                    x[at(1)] = -0.0;
                    x[at(2)] = 0.0
                }
                _ => {}
            }
        }
    }
    x
}

fn close(what: &str, got: f64, want: f64, tol: f64) {
    let ok = (got.is_nan() && want.is_nan())
        || got == want
        || (got - want).abs() <= tol * want.abs().max(1e-300)
        // One f32 subnormal step (results below f32::MIN_POSITIVE are absolutely rounded).
        || (got - want).abs() <= 1.5e-45;
    assert!(ok, "{what}: got {got:e}, want {want:e}");
}

/// `close` for each element of a row or column: `got[j]` against `want[j]`.
fn close_row(what: &str, got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (j, (&g, &w)) in got.iter().zip(want).enumerate() {
        close(&format!("{what} {j}"), g as f64, w, tol);
    }
}

fn softmax_ref(row: &[f64]) -> Vec<f64> {
    softmax_ref_rounded(row, |v| v as f32 as f64)
}

/// Softmax with `x - max` rounded as the kernel's dtype rounds it.
fn softmax_ref_rounded(row: &[f64], round: fn(f64) -> f64) -> Vec<f64> {
    let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| {
        if a.is_nan() || v.is_nan() {
            f64::NAN
        } else {
            a.max(v)
        }
    });
    let d: Vec<f64> = row.iter().map(|v| round(v - m)).collect();
    let s: f64 = d.iter().map(|v| v.exp()).sum();
    d.iter().map(|v| v.exp() / s).collect()
}

const SHAPES: [(usize, usize); 12] = [
    (0, 5),
    (3, 0),
    (1, 1),
    (4, 7),
    (3, 16),
    (5, 17),
    (2, 33),
    (7, 64),
    (3, 255),
    (2, 1029),
    (300, 1000),
    (1, 70001),
];

#[test]
fn fused_store_and_sum_rows() {
    for (r, n) in SHAPES {
        let x = specials(r, n, 5 + n as u64);
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let (e, s, q) = exp_sum(&xt).unwrap();
        let (e, s, q) = (e.as_slice(), s.as_slice(), q.as_slice());
        for (i, row) in rowwise(&x, n).enumerate().take(r) {
            let ex: Vec<f64> = row.iter().map(|&v| (v as f64).exp()).collect();
            close_row(
                &format!("exp [{r},{n}] {i}"),
                &e[i * n..(i + 1) * n],
                &ex,
                3e-7,
            );
            let got: f64 = e[i * n..(i + 1) * n].iter().map(|&v| v as f64).sum();
            close(
                &format!("sum [{r},{n}] {i}"),
                s[i] as f64,
                got,
                (n as f64 + 2.0) * 1.2e-7,
            );
            for j in 0..n {
                let want = e[i * n + j] as f64 / s[i] as f64;
                close(
                    &format!("e/sum [{r},{n}] {i},{j}"),
                    q[i * n + j] as f64,
                    want,
                    1.2e-7,
                );
            }
        }
        let two = cast_sum(&xt).unwrap();
        for i in 0..r {
            let want: f64 = x[i * n..(i + 1) * n].iter().map(|&v| v.exp() as f64).sum();
            close(
                &format!("cast_sum [{r},{n}] {i}"),
                two.1.as_slice()[i],
                want,
                (n as f64 + 2.0) * 2.4e-7,
            );
            for j in 0..n {
                let v = x[i * n + j];
                close(
                    &format!("2e [{r},{n}] {i},{j}"),
                    two.0.as_slice()[i * n + j] as f64,
                    2.0 * (v as f64).exp(),
                    3e-7,
                );
            }
        }
        let (a, b, sb) = two_out(&xt).unwrap();
        for i in 0..r {
            let mut acc = 0.0f64;
            for j in 0..n {
                let v = x[i * n + j];
                assert!(
                    a.as_slice()[i * n + j].to_bits() == (v * 2.0).to_bits()
                        || v.is_nan() && a.as_slice()[i * n + j].is_nan()
                );
                let bb = b.as_slice()[i * n + j];
                close(
                    &format!("exp(x-1) [{r},{n}] {i},{j}"),
                    bb as f64,
                    ((v - 1.0) as f64).exp(),
                    3e-7,
                );
                acc += bb as f64;
            }
            close(
                &format!("sum b [{r},{n}] {i}"),
                sb.as_slice()[i] as f64,
                acc,
                (n as f64 + 2.0) * 1.2e-7,
            );
        }
    }
}

#[test]
fn fused_minmax_int_prod() {
    for (r, n) in SHAPES {
        let x = specials(r, n, 17 + n as u64);
        let y: Vec<f32> = f32::random(n, 3)
            .iter()
            .map(|v| v.clamp(-4.0, 4.0))
            .collect();
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let yt = Tensor::<f32, Shape![_]>::from_shape_vec([n], y.clone()).unwrap();
        match aff_minmax(&xt, &yt) {
            Err(_) => assert!(n == 0 && r > 0, "[{r},{n}]: error"),
            Ok((e, mx, mn)) => {
                for i in 0..r {
                    let row: Vec<f32> = (0..n).map(|j| x[i * n + j] * y[j] + 1.0).collect();
                    for j in 0..n {
                        let g = e.as_slice()[i * n + j];
                        let w = x[i * n + j] * y[j] + 1.0;
                        assert!(
                            g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
                            "e [{r},{n}] {i},{j}: {g} {w}"
                        );
                    }
                    let nan = row.iter().any(|v| v.is_nan());
                    let wmx = if nan {
                        f32::NAN
                    } else {
                        row.iter().cloned().fold(f32::NEG_INFINITY, f32::max)
                    };
                    let r2: Vec<f32> = (0..n).map(|j| row[j] * y[j]).collect();
                    let nan2 = r2.iter().any(|v| v.is_nan());
                    let wmn = if nan2 {
                        f32::NAN
                    } else {
                        r2.iter().cloned().fold(f32::INFINITY, f32::min)
                    };
                    let gmx = mx.as_slice()[i];
                    let gmn = mn.as_slice()[i];
                    assert!(
                        gmx.to_bits() == wmx.to_bits()
                            || (gmx.is_nan() && wmx.is_nan())
                            || gmx == wmx,
                        "max [{r},{n}] {i}: {gmx} {wmx}"
                    );
                    assert!(
                        gmn.to_bits() == wmn.to_bits()
                            || (gmn.is_nan() && wmn.is_nan())
                            || gmn == wmn,
                        "min [{r},{n}] {i}: {gmn} {wmn}"
                    );
                }
            }
        }
        let xi: Vec<i32> = i32::random(r * n, 9 + n as u64);
        let xit = Tensor::<i32, Shape![_, _]>::from_shape_vec([r, n], xi.clone()).unwrap();
        let (e, s) = int_sum(&xit).unwrap();
        for i in 0..r {
            let mut acc = 0i64;
            for j in 0..n {
                let w = xi[i * n + j].wrapping_mul(3).wrapping_sub(1);
                assert_eq!(e.as_slice()[i * n + j], w);
                acc += w as i64;
            }
            assert_eq!(s.as_slice()[i], acc, "int sum [{r},{n}] {i}");
        }
        let xd: Vec<f64> = f64::random(r * n, 4)
            .iter()
            .map(|v| v.clamp(-3.0, 3.0))
            .collect();
        let xdt = Tensor::<f64, Shape![_, _]>::from_shape_vec([r, n], xd.clone()).unwrap();
        let (e, p) = f64_prod(&xdt).unwrap();
        for i in 0..r {
            let mut acc = 1.0f64;
            for j in 0..n {
                let w = xd[i * n + j] * 0.5 + 1.0;
                assert_eq!(e.as_slice()[i * n + j].to_bits(), w.to_bits());
                acc *= w;
            }
            close(
                &format!("prod [{r},{n}] {i}"),
                p.as_slice()[i],
                acc,
                (n as f64 + 2.0) * 2.3e-16,
            );
        }
    }
}

#[test]
fn half_store_then_sum() {
    for (r, n) in SHAPES {
        if r * n > 100_000 {
            continue;
        }
        let x: Vec<f16> = f32::random(r * n, 77)
            .iter()
            .map(|v| f16::from_f32(v.clamp(-8.0, 8.0)))
            .collect();
        let xt = Tensor::<f16, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let (e, s) = half_exp_sum(&xt).unwrap();
        for i in 0..r {
            let mut acc = 0.0f64;
            for j in 0..n {
                let w = x[i * n + j].to_f64().exp();
                let g = e.as_slice()[i * n + j];
                close(&format!("f16 exp [{r},{n}] {i},{j}"), g.to_f64(), w, 1e-3);
                acc += g.to_f64();
            }
            let g = s.as_slice()[i].to_f64();
            if acc < 65504.0 {
                close(&format!("f16 sum [{r},{n}] {i}"), g, acc, 1e-3);
            }
        }
        let sm = softmax_half(&xt).unwrap();
        let xb: Vec<bf16> = x.iter().map(|v| bf16::from_f32(v.to_f32())).collect();
        let xbt = Tensor::<bf16, Shape![_, _]>::from_shape_vec([r, n], xb.clone()).unwrap();
        let smb = softmax_bf(&xbt).unwrap();
        for (i, row) in rowwise(&x, n).enumerate().take(r) {
            let rr: Vec<f64> = row.iter().map(|v| v.to_f64()).collect();
            let want = softmax_ref(&rr);
            let rb: Vec<f64> = xb[i * n..(i + 1) * n].iter().map(|v| v.to_f64()).collect();
            let wantb = softmax_ref(&rb);
            for j in 0..n {
                let g = sm.as_slice()[i * n + j].to_f64();
                assert!(
                    (g - want[j]).abs() <= 2e-3 * want[j] + 1e-7,
                    "f16 softmax [{r},{n}] {i},{j}: {g} {} row {rr:?}",
                    want[j]
                );
                let g = smb.as_slice()[i * n + j].to_f64();
                assert!(
                    (g - wantb[j]).abs() <= 1.6e-2 * wantb[j] + 1e-7,
                    "bf16 softmax [{r},{n}] {i},{j}: {g} {}",
                    wantb[j]
                );
            }
        }
    }
}

#[test]
fn softmax_rows_views_and_specials() {
    for (r, n) in SHAPES {
        let x = specials(r, n, 99 + n as u64);
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let (a, b, c) = match softmaxes(&xt) {
            Ok(v) => v,
            Err(e) => {
                assert!(n == 0 || r == 0, "[{r},{n}]: {e}");
                continue;
            }
        };
        for i in 0..r {
            let row: Vec<f64> = x[i * n..(i + 1) * n].iter().map(|&v| v as f64).collect();
            let want = softmax_ref(&row);
            let flipped: Vec<f64> = row.iter().rev().cloned().collect();
            let wantf = softmax_ref(&flipped);
            let got = |t: &[f32]| t[i * n..(i + 1) * n].to_vec();
            close_row(
                &format!("softmax [{r},{n}] {i}"),
                &got(a.as_slice()),
                &want,
                3e-6,
            );
            let what = format!("softmax flip [{r},{n}] {i}");
            close_row(&what, &got(b.as_slice()), &wantf, 3e-6);
        }
        for j in 0..n {
            let col: Vec<f64> = (0..r).map(|i| x[i * n + j] as f64).collect();
            let got: Vec<f32> = (0..r).map(|i| c.as_slice()[i * n + j]).collect();
            let what = format!("softmax axis 0 [{r},{n}] column {j}");
            close_row(&what, &got, &softmax_ref(&col), 3e-6);
        }
    }
    let x = specials(5, 13, 3);
    let xt = Tensor::<f32, Shape![5, 13]>::from_vec(x.clone()).unwrap();
    let (p, c) = softmax_pad(&xt);
    for i in 0..5 {
        let mut row: Vec<f64> = vec![-1.5];
        row.extend(x[i * 13..(i + 1) * 13].iter().map(|&v| v as f64));
        row.extend([-1.5, -1.5]);
        let got = &p.as_slice()[i * 16..(i + 1) * 16];
        close_row(&format!("softmax pad {i}"), got, &softmax_ref(&row), 3e-6);
        let mut row: Vec<f64> = x[i * 13..(i + 1) * 13].iter().map(|&v| v as f64).collect();
        let back: Vec<f64> = row.iter().rev().cloned().collect();
        row.extend(back);
        let got = &c.as_slice()[i * 26..(i + 1) * 26];
        close_row(
            &format!("softmax concat {i}"),
            got,
            &softmax_ref(&row),
            3e-6,
        );
    }
}

/// An f16 row longer than f16's largest finite value (65504): the row sum must not
/// overflow to inf in the division (each output is 1/n, a normal... subnormal f16).
#[test]
fn half_softmax_of_a_long_row() {
    let n = 70001;
    let x = vec![f16::from_f32(0.0); n];
    let xt = Tensor::<f16, Shape![_, _]>::from_shape_vec([1, n], x).unwrap();
    let sm = softmax_half(&xt).unwrap();
    let want = f16::from_f64(1.0 / n as f64);
    for (j, v) in sm.as_slice().iter().enumerate() {
        assert!(
            (v.to_f64() - want.to_f64()).abs() <= 2.0 * 5.960464477539063e-8,
            "f16 softmax of {n} zeros at {j}: {v} (want {want})"
        );
    }
    let xb = vec![bf16::from_f32(0.0); n];
    let xbt = Tensor::<bf16, Shape![_, _]>::from_shape_vec([1, n], xb).unwrap();
    let smb = softmax_bf(&xbt).unwrap();
    for (j, v) in smb.as_slice().iter().enumerate() {
        let w = 1.0 / n as f64;
        assert!(
            (v.to_f64() - w).abs() <= 1e-2 * w,
            "bf16 softmax of {n} zeros at {j}: {v}"
        );
    }
}

/// `div_softmax_lanes` against the division for a in [+0, 1] and NaN, for a set of row
/// sums b >= 1 (the fast path's edges included), without the row's `in_range` promise and,
/// for the vectors where it holds, with it. A release build walks every a (all
/// 2^30 + 1 bit patterns: 19 s, `cargo test --release --test row_fusion`); the
/// debug build CI runs walks every 509th run of LANES consecutive patterns (every
/// exponent, ~2·10^6 dividends) and, densely, the 2^14 patterns at each end of the fast
/// path's dividend range (+0 and its neighbours, 2^-76 and its neighbours).
#[test]
fn div_softmax_every_dividend() {
    use tensorgraph::lanes::{FloatLanes, LANES, V};
    let bs = [
        1.0f32,
        f32::from_bits(0x3f80_0001),
        1.5,
        3.0,
        7.0,
        10.0,
        1000.1,
        65537.0,
        f32::from_bits(0x4980_0000), // 2^20, the fast path's last b
        f32::from_bits(0x4980_0001),
        2.0e7,
    ];
    let last = 1.0f32.to_bits();
    // (first pattern, last pattern, step between runs of LANES patterns)
    let edge = 0x1980_0000u32; // 2^-76
    let walks: &[(u32, u32, u32)] = if cfg!(debug_assertions) {
        &[
            (0, last, 509),
            (0, 1 << 14, 1),
            (edge - (1 << 13), edge + (1 << 13), 1),
        ]
    } else {
        &[(0, last, 1)]
    };
    for &b in &bs {
        let mut wrong = 0u64;
        let mut checked = 0u64;
        let mut first = None;
        for &(from, to, step) in walks {
            let mut bits = from;
            while bits <= to {
                let a: [f32; LANES] = core::array::from_fn(|i| {
                    let k = bits + i as u32;
                    if k <= last {
                        f32::from_bits(k)
                    } else {
                        f32::NAN
                    }
                });
                // Without the row's promise, and with it where it holds (every a NaN or at
                // least 2^-76: `in_range`).
                let promised = a.iter().all(|&x| x.is_nan() || x.to_bits() >= edge);
                for in_range in [false, true] {
                    if in_range && !promised {
                        continue;
                    }
                    let flag = V([in_range; LANES]);
                    let got = <f32 as FloatLanes>::div_softmax_lanes(V(a), V([b; LANES]), flag).0;
                    for i in 0..LANES {
                        checked += 1;
                        let want = a[i] / b;
                        if !(got[i].to_bits() == want.to_bits()
                            || (got[i].is_nan() && want.is_nan()))
                        {
                            wrong += 1;
                            first.get_or_insert((a[i], got[i], want));
                        }
                    }
                }
                bits += LANES as u32 * step;
            }
        }
        assert_eq!(wrong, 0, "b = {b:e}: {wrong} wrong, first {first:?}");
        // Every walk ran: over 2·10^6 dividends in debug, all 2^30 + 1 in release.
        assert!(checked > 2_000_000, "only {checked} dividends walked");
    }
}

graph! {
    // Reductions over two axes (the accumulator folds once per inner row), over an outer
    // axis (the accumulator runs along the inner loop: not fused), an arg-max, and a
    // cumsum after a store pass, in one graph.
    fn mixed(x: f32[R, 3, N]) -> (f32[R, 3, N], f32[R], f32[3, N], i64[R, 3], f32[R, 3, N]) {
        let e = exp(x * 0.25);
        (e, sum(e, axis = [1, 2]), sum(e, axis = 0), argmax(e, axis = 2), cumsum(e, axis = 2))
    }
}

#[test]
fn mixed_reductions_after_a_store_pass() {
    for (r, n) in [(1, 1), (2, 7), (3, 16), (2, 33), (4, 300), (1, 1029)] {
        let x: Vec<f32> = f32::random(r * 3 * n, 41 + n as u64)
            .iter()
            .map(|v| v.clamp(-20.0, 20.0))
            .collect();
        let xt = Tensor::<f32, Shape![_, 3, _]>::from_shape_vec([r, 3, n], x.clone()).unwrap();
        let (e, s12, s0, am, cs) = mixed(&xt).unwrap();
        let (e, s12, s0, am, cs) = (
            e.as_slice(),
            s12.as_slice(),
            s0.as_slice(),
            am.as_slice(),
            cs.as_slice(),
        );
        let at = |i: usize, a: usize, j: usize| (i * 3 + a) * n + j;
        for i in 0..r {
            let mut tot = 0.0f64;
            for a in 0..3 {
                let mut best = (f32::NEG_INFINITY, 0usize);
                let mut run = 0.0f64;
                for j in 0..n {
                    let g = e[at(i, a, j)];
                    close(
                        &format!("e [{r},{n}] {i},{a},{j}"),
                        g as f64,
                        (x[at(i, a, j)] as f64 * 0.25).exp(),
                        3e-7,
                    );
                    tot += g as f64;
                    run += g as f64;
                    close(
                        &format!("cumsum [{r},{n}] {i},{a},{j}"),
                        cs[at(i, a, j)] as f64,
                        run,
                        (j as f64 + 2.0) * 1.2e-7,
                    );
                    if g > best.0 {
                        best = (g, j);
                    }
                }
                assert_eq!(am[i * 3 + a], best.1 as i64, "argmax [{r},{n}] {i},{a}");
            }
            close(
                &format!("sum[1,2] [{r},{n}] {i}"),
                s12[i] as f64,
                tot,
                (3.0 * n as f64 + 2.0) * 1.2e-7,
            );
        }
        for a in 0..3 {
            for j in 0..n {
                let want: f64 = (0..r).map(|i| e[at(i, a, j)] as f64).sum();
                close(
                    &format!("sum0 [{r},{n}] {a},{j}"),
                    s0[a * n + j] as f64,
                    want,
                    (r as f64 + 2.0) * 1.2e-7,
                );
            }
        }
    }
}

graph! {
    // Graphs whose store pass and the reduction after it are fused (checked in
    // tensor-macros lower.rs `which_graphs_fuse_a_store_and_a_reduction`).
    fn fz_tanh(x: f32[R, N]) -> (f32[R, N], f32[R], f32[R], f64[R]) {
        let e = tanh(x - mean(x, axis = 1, keepdims = true));
        (e, max(e, axis = 1), min(e, axis = 1), sum(e as f64, axis = 1))
    }
    fn fz_tanh_div(x: f32[R, N]) -> f32[R, N] {
        let e = tanh(x - mean(x, axis = 1, keepdims = true));
        e / max(e, axis = 1, keepdims = true)
    }
    fn fz_prod(x: f64[R, N]) -> f64[R, N] {
        let e = exp(x - max(x, axis = 1, keepdims = true));
        e * prod(e, axis = 1, keepdims = true)
    }
    fn fz_3d(x: f32[R, 3, N]) -> f32[R, 3, N] {
        let e = exp(x - max(x, axis = [1, 2], keepdims = true));
        e / sum(e, axis = [1, 2], keepdims = true)
    }
}

#[test]
fn fused_passes_beyond_softmax() {
    for (r, n) in SHAPES {
        let x = specials(r, n, 1234 + n as u64);
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let got = fz_tanh(&xt);
        if n == 0 {
            assert!(got.is_err() || r == 0, "[{r},{n}]");
            continue;
        }
        let (e, mx, mn, s) = got.unwrap();
        let q = fz_tanh_div(&xt).unwrap();
        for i in 0..r {
            let row = &e.as_slice()[i * n..(i + 1) * n];
            // The fused reductions see exactly the values stored.
            let nan = row.iter().any(|v| v.is_nan());
            let wmx = if nan {
                f32::NAN
            } else {
                row.iter().cloned().fold(f32::NEG_INFINITY, f32::max)
            };
            let wmn = if nan {
                f32::NAN
            } else {
                row.iter().cloned().fold(f32::INFINITY, f32::min)
            };
            let (gmx, gmn) = (mx.as_slice()[i], mn.as_slice()[i]);
            assert!(
                gmx == wmx || gmx.is_nan() && wmx.is_nan(),
                "max [{r},{n}] {i}: {gmx} {wmx}"
            );
            assert!(
                gmn == wmn || gmn.is_nan() && wmn.is_nan(),
                "min [{r},{n}] {i}: {gmn} {wmn}"
            );
            let ws: f64 = row.iter().map(|&v| v as f64).sum();
            let abs: f64 = row.iter().map(|&v| (v as f64).abs()).sum();
            let gs = s.as_slice()[i];
            assert!(
                gs.is_nan() && ws.is_nan() || (gs - ws).abs() <= 1e-12 * abs + 1e-300,
                "sum [{r},{n}] {i}: {gs} {ws}"
            );
            // e against tanh(x - mean) in f64.
            let xr: Vec<f64> = x[i * n..(i + 1) * n].iter().map(|&v| v as f64).collect();
            let mean = xr.iter().sum::<f64>() / n as f64;
            for j in 0..n {
                let w = (xr[j] - mean).tanh();
                let g = row[j] as f64;
                assert!(
                    g.is_nan() && w.is_nan()
                        || (g - w).abs() <= 1e-6 * (1.0 + xr[j].abs() + mean.abs()),
                    "tanh [{r},{n}] {i},{j}: {g} {w}"
                );
                let gq = q.as_slice()[i * n + j];
                let wq = row[j] / gmx;
                assert!(
                    gq.to_bits() == wq.to_bits() || gq.is_nan() && wq.is_nan(),
                    "e / max [{r},{n}] {i},{j}: {gq} {wq}"
                );
            }
        }
        let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let xdt = Tensor::<f64, Shape![_, _]>::from_shape_vec([r, n], xd.clone()).unwrap();
        let p = fz_prod(&xdt).unwrap();
        for i in 0..r {
            let row = &xd[i * n..(i + 1) * n];
            let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| {
                if a.is_nan() || v.is_nan() {
                    f64::NAN
                } else {
                    a.max(v)
                }
            });
            let e: Vec<f64> = row.iter().map(|v| (v - m).exp()).collect();
            let pr: f64 = e.iter().product();
            for j in 0..n {
                close(
                    &format!("e*prod [{r},{n}] {i},{j}"),
                    p.as_slice()[i * n + j],
                    e[j] * pr,
                    (n as f64 + 4.0) * 2.3e-16 + 1e-15,
                );
            }
        }
    }
    for (r, n) in [(1, 1), (2, 7), (3, 16), (4, 300), (1, 1029)] {
        let x = specials(r * 3, n, 4321 + n as u64);
        let xt = Tensor::<f32, Shape![_, 3, _]>::from_shape_vec([r, 3, n], x.clone()).unwrap();
        let y = fz_3d(&xt).unwrap();
        for i in 0..r {
            let row: Vec<f64> = x[i * 3 * n..(i + 1) * 3 * n]
                .iter()
                .map(|&v| v as f64)
                .collect();
            let want = softmax_ref(&row);
            for k in 0..3 * n {
                close(
                    &format!("3d [{r},{n}] {i},{k}"),
                    y.as_slice()[i * 3 * n + k] as f64,
                    want[k],
                    3e-6,
                );
            }
        }
    }
}

// Softmax row stages whose last (scale) pass prefetches the next row of the first pass's
// inputs (emit.rs `next_row_prefetch`): the prefetched slice `&x[at..at + extent]` of the
// next row over slices with a base offset (rows from 1, columns from 1), rows two apart,
// symbolic rows with a literal row length, two inputs, rank 3, ops after the softmax in
// the same pass, and rows above the thread split (5000 x 64, 600 x 500); and the layouts
// that must not prefetch (rows flipped, transposed, f16 whose scale pass stores the
// output first, a matmul between two softmaxes), for their values.
graph! {
    fn pf_rows_from1(x: f32[9, N]) -> f32[8, N] { softmax(slice(x, axis = 0, start = 1), axis = 1) }
    fn pf_cols_from1(x: f32[B, 65]) -> f32[B, 64] { softmax(slice(x, axis = 1, start = 1), axis = 1) }
    fn pf_every2(x: f32[10, N]) -> f32[5, N] { softmax(slice(x, axis = 0, step = 2), axis = 1) }
    fn pf_flip_rows(x: f32[9, N]) -> f32[9, N] { softmax(flip(x, axis = 0), axis = 1) }
    fn pf_t(x: f32[N, 6]) -> f32[6, N] { softmax(transpose(x), axis = 1) }
    fn pf_then(x: f32[B, 64], y: f32[64]) -> f32[B, 64] { softmax(x, axis = 1) * y + 1.0 }
    fn pf_two(x: f32[B, N], z: f32[B, N]) -> f32[B, N] { softmax(x + z, axis = 1) }
    fn pf_half(x: f16[9, N]) -> f16[8, N] { softmax(slice(x, axis = 0, start = 1), axis = 1) }
    fn pf_mm(x: f32[B, 32], w: f32[32, 32]) -> f32[B, 32] { softmax(softmax(x, axis = 1) @ w, axis = 1) }
    fn pf_3d(x: f32[A, 3, N]) -> f32[A, 3, N] { softmax(x, axis = 2) }
}

/// `got` within `rel` of `want` plus `abs` (or both NaN).
fn close_abs(what: &str, got: f64, want: f64, rel: f64, abs: f64) {
    let ok = (got.is_nan() && want.is_nan()) || (got - want).abs() <= rel * want.abs() + abs;
    assert!(ok, "{what}: got {got:e}, want {want:e}");
}

/// Softmax in f64 of an f64 row (no rounding of `x - max`).
fn pf_softmax_ref(row: &[f64]) -> Vec<f64> {
    let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let d: Vec<f64> = row.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = d.iter().sum();
    d.iter().map(|v| v / s).collect()
}

fn pf_data(n: usize, seed: u64) -> Vec<f32> {
    f32::random(n, seed)
        .iter()
        .map(|v| v.clamp(-8.0, 8.0))
        .collect()
}

fn pf_check_rows(what: &str, got: &[f32], rows: &[Vec<f64>]) {
    let n = rows.first().map_or(0, |r| r.len());
    assert_eq!(got.len(), rows.len() * n, "{what}: length");
    for (i, row) in rows.iter().enumerate() {
        let want = pf_softmax_ref(row);
        for j in 0..n {
            close_abs(
                &format!("{what} {i},{j}"),
                got[i * n + j] as f64,
                want[j],
                3e-6,
                1e-30,
            );
        }
    }
}

fn f64s(x: &[f32]) -> Vec<f64> {
    x.iter().map(|&v| v as f64).collect()
}

#[test]
fn prefetching_softmax_over_views() {
    for n in [0usize, 1, 7, 16, 17, 64, 100, 1029] {
        let x = pf_data(9 * n, 1 + n as u64);
        let xt = Tensor::<f32, Shape![9, _]>::from_shape_vec([9, n], x.clone()).unwrap();
        let rows: Vec<Vec<f64>> = (1..9).map(|i| f64s(&x[i * n..(i + 1) * n])).collect();
        match pf_rows_from1(&xt) {
            Ok(o) => pf_check_rows(&format!("rows from 1, n {n}"), o.as_slice(), &rows),
            Err(e) => assert_eq!(n, 0, "{e}"),
        }
        let rows: Vec<Vec<f64>> = (0..9).rev().map(|i| f64s(&x[i * n..(i + 1) * n])).collect();
        match pf_flip_rows(&xt) {
            Ok(o) => pf_check_rows(&format!("flipped rows, n {n}"), o.as_slice(), &rows),
            Err(e) => assert_eq!(n, 0, "{e}"),
        }
        let x = pf_data(10 * n, 2 + n as u64);
        let xt = Tensor::<f32, Shape![10, _]>::from_shape_vec([10, n], x.clone()).unwrap();
        let rows: Vec<Vec<f64>> = (0..10)
            .step_by(2)
            .map(|i| f64s(&x[i * n..(i + 1) * n]))
            .collect();
        match pf_every2(&xt) {
            Ok(o) => pf_check_rows(&format!("every 2nd row, n {n}"), o.as_slice(), &rows),
            Err(e) => assert_eq!(n, 0, "{e}"),
        }
        let x = pf_data(n * 6, 3 + n as u64);
        let xt = Tensor::<f32, Shape![_, 6]>::from_shape_vec([n, 6], x.clone()).unwrap();
        let rows: Vec<Vec<f64>> = (0..6)
            .map(|i| (0..n).map(|k| x[k * 6 + i] as f64).collect())
            .collect();
        match pf_t(&xt) {
            Ok(o) => pf_check_rows(&format!("transposed, n {n}"), o.as_slice(), &rows),
            Err(e) => assert_eq!(n, 0, "{e}"),
        }
    }
}

#[test]
fn prefetching_softmax_symbolic_rows_and_threads() {
    // 5000 rows of 64: above the thread split (2^18 elements).
    for b in [0usize, 1, 2, 3, 37, 5000] {
        let x = pf_data(b * 65, 10 + b as u64);
        let xt = Tensor::<f32, Shape![_, 65]>::from_shape_vec([b, 65], x.clone()).unwrap();
        let rows: Vec<Vec<f64>> = (0..b).map(|i| f64s(&x[i * 65 + 1..(i + 1) * 65])).collect();
        match pf_cols_from1(&xt) {
            Ok(o) => pf_check_rows(&format!("cols from 1, b {b}"), o.as_slice(), &rows),
            Err(e) => assert_eq!(b, 0, "{e}"),
        }
        let x = pf_data(b * 64, 11 + b as u64);
        let y: Vec<f32> = (0..64).map(|j| j as f32 * 0.25 - 3.0).collect();
        let xt = Tensor::<f32, Shape![_, 64]>::from_shape_vec([b, 64], x.clone()).unwrap();
        let yt = Tensor::<f32, Shape![64]>::from_vec(y.clone()).unwrap();
        match pf_then(&xt, &yt) {
            Ok(o) => {
                for i in 0..b {
                    let want = pf_softmax_ref(&f64s(&x[i * 64..(i + 1) * 64]));
                    for j in 0..64 {
                        let w = want[j] * y[j] as f64 + 1.0;
                        close_abs(
                            &format!("then, b {b} {i},{j}"),
                            o.as_slice()[i * 64 + j] as f64,
                            w,
                            1e-6,
                            1e-6,
                        );
                    }
                }
            }
            Err(e) => assert_eq!(b, 0, "{e}"),
        }
        let w: Vec<f32> = pf_data(32 * 32, 12).iter().map(|v| v * 0.125).collect();
        let x = pf_data(b * 32, 13 + b as u64);
        let xt = Tensor::<f32, Shape![_, 32]>::from_shape_vec([b, 32], x.clone()).unwrap();
        let wt = Tensor::<f32, Shape![32, 32]>::from_vec(w.clone()).unwrap();
        match pf_mm(&xt, &wt) {
            Ok(o) => {
                let rows: Vec<Vec<f64>> = (0..b)
                    .map(|i| {
                        let s = pf_softmax_ref(&f64s(&x[i * 32..(i + 1) * 32]));
                        (0..32)
                            .map(|j| (0..32).map(|k| s[k] * w[k * 32 + j] as f64).sum())
                            .collect()
                    })
                    .collect();
                pf_check_rows(&format!("matmul, b {b}"), o.as_slice(), &rows);
            }
            Err(e) => assert_eq!(b, 0, "{e}"),
        }
    }
    for (b, n) in [
        (0usize, 3usize),
        (3, 0),
        (1, 1),
        (5, 17),
        (600, 500),
        (2, 4099),
    ] {
        let x = pf_data(b * n, 20 + n as u64);
        let z = pf_data(b * n, 21 + n as u64);
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([b, n], x.clone()).unwrap();
        let zt = Tensor::<f32, Shape![_, _]>::from_shape_vec([b, n], z.clone()).unwrap();
        match pf_two(&xt, &zt) {
            Ok(o) => {
                let rows: Vec<Vec<f64>> = (0..b)
                    .map(|i| {
                        (0..n)
                            .map(|j| (x[i * n + j] + z[i * n + j]) as f64)
                            .collect()
                    })
                    .collect();
                pf_check_rows(&format!("two inputs [{b},{n}]"), o.as_slice(), &rows);
            }
            Err(e) => assert!(b == 0 || n == 0, "{e}"),
        }
        let x = pf_data(b * 3 * n, 22 + n as u64);
        let xt = Tensor::<f32, Shape![_, 3, _]>::from_shape_vec([b, 3, n], x.clone()).unwrap();
        match pf_3d(&xt) {
            Ok(o) => {
                let rows: Vec<Vec<f64>> =
                    (0..b * 3).map(|i| f64s(&x[i * n..(i + 1) * n])).collect();
                pf_check_rows(&format!("3-d [{b},3,{n}]"), o.as_slice(), &rows);
            }
            Err(e) => assert!(b == 0 || n == 0, "{e}"),
        }
    }
}

#[test]
fn prefetching_half_softmax_of_a_slice() {
    for n in [0usize, 1, 15, 16, 33, 300] {
        let x = pf_data(9 * n, 30 + n as u64);
        let xh: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
        let xt = Tensor::<f16, Shape![9, _]>::from_shape_vec([9, n], xh.clone()).unwrap();
        match pf_half(&xt) {
            Ok(o) => {
                for i in 1..9 {
                    let row: Vec<f64> = xh[i * n..(i + 1) * n].iter().map(|v| v.to_f64()).collect();
                    let want = pf_softmax_ref(&row);
                    for j in 0..n {
                        let got = o.as_slice()[(i - 1) * n + j].to_f64();
                        close_abs(&format!("half, n {n} {i},{j}"), got, want[j], 2e-3, 1e-6);
                    }
                }
            }
            Err(e) => assert_eq!(n, 0, "{e}"),
        }
    }
}

graph! {
    // Block calls whose result is stored (on default builds the entry runs in place in the
    // output row, and nothing is copied back) and also summed (the stored row read back),
    // and softmax's division in place, on rows long enough for blocks (256 elements).
    fn stored_calls(x: f32[R, N], b: f32[N]) -> (f32[R, N], f32[R, N], f32[R], f32[R, N]) {
        let t = tanh(x);
        (gelu(x + b), t, sum(t, axis = 1), softmax(x, axis = 1))
    }
}

/// The outputs of block calls against the same lane functions one chunk at a time, bit for
/// bit (the block entries compute the lanes' bits: `vmath::dispatch` tests), the fused sum
/// against f64, and softmax against f64, over rows that are whole blocks, a block and a
/// part, and shorter than a block, with special values.
#[test]
fn block_calls_store_in_place() {
    use tensorgraph::lanes::{FloatLanes, LANES, V};
    let lanes_of = |xs: &[f32], f: fn(V<f32>) -> V<f32>| -> Vec<f32> {
        xs.chunks(LANES)
            .flat_map(|c| {
                let mut a = [0.0f32; LANES];
                a[..c.len()].copy_from_slice(c);
                f(V(a)).0[..c.len()].to_vec()
            })
            .collect()
    };
    for (r, n) in [(3, 1024), (2, 256 + 40), (4, 200), (1, 2048 + 8)] {
        let x = specials(r, n, 7 + n as u64);
        let b: Vec<f32> = f32::random(n, 11)
            .iter()
            .map(|v| v.clamp(-3.0, 3.0))
            .collect();
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let bt = Tensor::<f32, Shape![_]>::from_shape_vec([n], b.clone()).unwrap();
        let (g, t, s, sm) = stored_calls(&xt, &bt).unwrap();
        let shifted: Vec<f32> = x.iter().enumerate().map(|(i, &v)| v + b[i % n]).collect();
        let want_g: Vec<f32> = rowwise(&shifted, n)
            .flat_map(|row| lanes_of(row, <f32 as FloatLanes>::gelu_lanes))
            .collect();
        let want_t: Vec<f32> = rowwise(&x, n)
            .flat_map(|row| lanes_of(row, <f32 as FloatLanes>::tanh_lanes))
            .collect();
        for (what, got, want) in [
            ("gelu", g.as_slice(), &want_g),
            ("tanh", t.as_slice(), &want_t),
        ] {
            for (i, (&gv, &wv)) in got.iter().zip(want.iter()).enumerate() {
                assert!(
                    gv.to_bits() == wv.to_bits() || gv.is_nan() && wv.is_nan(),
                    "{what} [{r},{n}] at {i}: {gv:e}, the lanes {wv:e}"
                );
            }
        }
        for i in 0..r {
            let row_t = &want_t[i * n..(i + 1) * n];
            let want: f64 = row_t.iter().map(|&v| v as f64).sum();
            let scale: f64 = row_t.iter().map(|&v| (v as f64).abs()).sum();
            let got = s.as_slice()[i] as f64;
            assert!(
                got.is_nan() && want.is_nan() || (got - want).abs() <= 1e-5 * scale,
                "sum of tanh [{r},{n}] {i}: {got:e}, want {want:e}"
            );
            let row: Vec<f64> = x[i * n..(i + 1) * n].iter().map(|&v| v as f64).collect();
            let got = &sm.as_slice()[i * n..(i + 1) * n];
            close_row(
                &format!("softmax [{r},{n}] {i}"),
                got,
                &softmax_ref(&row),
                3e-6,
            );
        }
    }
}

graph! {
    // Pipelined (`lower::pipeline_first_pass`: the last pass runs the first for the next
    // row) and, through `* r` (a value fixed per row, which keeps the first pass where it
    // is; r = 1 keeps every bit), not pipelined.
    fn pp_mean(x: f32[R, N]) -> f32[R, N] {
        let e = tanh(x - mean(x, axis = 1, keepdims = true));
        e / max(e, axis = 1, keepdims = true)
    }
    fn pp_mean_plain(x: f32[R, N], r: f32[R, 1]) -> f32[R, N] {
        let y = x * r;
        let e = tanh(y - mean(y, axis = 1, keepdims = true));
        e / max(e, axis = 1, keepdims = true)
    }
    fn pp_sum32(x: f32[R, N]) -> f32[R, N] {
        let e = tanh(x - sum(x, axis = 1, keepdims = true, acc = f32) * 0.001);
        e / max(e, axis = 1, keepdims = true)
    }
    fn pp_sum32_plain(x: f32[R, N], r: f32[R, 1]) -> f32[R, N] {
        let y = x * r;
        let e = tanh(y - sum(y, axis = 1, keepdims = true, acc = f32) * 0.001);
        e / max(e, axis = 1, keepdims = true)
    }
    fn pp_softmax(x: f32[R, N]) -> f32[R, N] { softmax(x, axis = 1) }
    fn pp_softmax_plain(x: f32[R, N], r: f32[R, 1]) -> f32[R, N] { softmax(x * r, axis = 1) }
}

/// A pipelined stage computes each row's first-pass reduction in the previous row's last
/// pass (or, for a task's first row, in the first pass itself): every row must get the
/// bits the unpipelined kernel gives, whichever way its reduction ran (rows long enough
/// for the default build's blocks, rows split across threads).
#[test]
fn pipelined_rows_match_the_unpipelined_kernel() {
    for (r, n) in [
        (1usize, 1024usize),
        (5, 1024),
        (3, 256 + 40),
        (4, 4099),
        (300, 1000),
    ] {
        let x: Vec<f32> = f32::random(r * n, 40 + n as u64)
            .iter()
            .map(|v| v.clamp(-8.0, 8.0) + 3.0)
            .collect();
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let ones = Tensor::<f32, Shape![_, 1]>::from_shape_vec([r, 1], vec![1.0; r]).unwrap();
        for (what, got, want) in [
            (
                "mean",
                pp_mean(&xt).unwrap(),
                pp_mean_plain(&xt, &ones).unwrap(),
            ),
            (
                "f32 sum",
                pp_sum32(&xt).unwrap(),
                pp_sum32_plain(&xt, &ones).unwrap(),
            ),
            (
                "softmax",
                pp_softmax(&xt).unwrap(),
                pp_softmax_plain(&xt, &ones).unwrap(),
            ),
        ] {
            for (i, (g, w)) in got.as_slice().iter().zip(want.as_slice()).enumerate() {
                assert!(
                    g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
                    "{what} [{r},{n}] row {} at {}: {g:e}, unpipelined {w:e}",
                    i / n,
                    i % n
                );
            }
        }
    }
}

graph! {
    // Softmax's division with its `in_range` flag (`min - max >= -50`) over rows whose
    // spread sits on either side of -50: pipelined (`pp_softmax`, `sd_masked`, `sd_every2`,
    // `sd_bcast`) and not (`pp_softmax_plain`, `sd_flip`).
    fn sd_masked(x: f32[R, N], m: f32[R, N]) -> f32[R, N] { softmax(x + m, axis = 1) }
    fn sd_every2(x: f32[26, N]) -> f32[13, N] { softmax(slice(x, axis = 0, step = 2), axis = 1) }
    fn sd_flip(x: f32[R, N]) -> f32[R, N] { softmax(flip(x, axis = 0), axis = 1) }
    fn sd_bcast(x: f32[1, N], z: f32[R, N]) -> f32[R, N] { softmax(x + z, axis = 1) }
}

/// Checks a softmax row bit for bit: `got[j]` must be `e[j] / s` rounded once, where
/// `e[j]` is the lanes' `exp_nonpos(row[j] - max)` (the same bits as the default build's
/// block entry, `vmath::dispatch` tests) and `s` some f32 within 1e-5 of the sum of the
/// `e` (the kernel's sum, whose order of accumulation is its own): `s` is recovered from
/// the row's maximum, whose quotient is 1 / s. A row with NaN or +inf, or only -inf, is NaN.
fn check_division_bits(what: &str, row: &[f32], got: &[f32]) {
    use tensorgraph::lanes::{FloatLanes, LANES, V};
    assert_eq!(row.len(), got.len(), "{what}: length");
    if row.iter().any(|v| v.is_nan() || *v == f32::INFINITY)
        || row.iter().all(|v| *v == f32::NEG_INFINITY)
    {
        assert!(got.iter().all(|v| v.is_nan()), "{what}: a NaN row");
        return;
    }
    let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = row
        .chunks(LANES)
        .flat_map(|c| {
            let mut a = [0.0f32; LANES];
            for (a, &x) in a.iter_mut().zip(c) {
                *a = x - m;
            }
            <f32 as FloatLanes>::exp_nonpos_lanes(V(a)).0[..c.len()].to_vec()
        })
        .collect();
    let sum: f64 = e.iter().map(|&v| v as f64).sum();
    let k = e.iter().position(|&v| v == 1.0).expect("the row's max");
    let s0 = (1.0 / got[k] as f64) as f32;
    let mut first_bad = None;
    for d in -8i32..=8 {
        let s = f32::from_bits((s0.to_bits() as i32 + d) as u32);
        if 1.0f32 / s != got[k] || ((s as f64 - sum) / sum).abs() > 1e-5 {
            continue;
        }
        match (0..row.len()).find(|&j| (e[j] / s).to_bits() != got[j].to_bits()) {
            None => return,
            Some(j) => {
                first_bad.get_or_insert((j, s));
            }
        }
    }
    match first_bad {
        Some((j, s)) => panic!(
            "{what} at {j}: x {:e} (max {m:e}, min {:e}), e {:e} / s {s:e} = {:e}, got {:e}",
            row[j],
            row.iter().cloned().fold(f32::INFINITY, f32::min),
            e[j],
            e[j] / s,
            got[j]
        ),
        None => panic!("{what}: no f32 sum near {sum:e} gives 1 / s = {:e}", got[k]),
    }
}

/// Rows of spreads (min - max) on both sides of softmax's `in_range` bound (-50) and far
/// below it (-104: quotients in the subnormals), many values near the row's minimum; row
/// `i` takes spread `i % 13`, rows in range next to rows far out of it (a pipelined
/// stage's current and next row). Some rows hold NaN, +inf, -inf.
fn spread_rows(r: usize, n: usize, seed: u64) -> Vec<f32> {
    const SPREADS: [f32; 13] = [
        -10.0, -104.0, -49.99, -200.0, -50.0, -110.0, -50.000004, -87.5, -51.0, -3.0, -52.0, -70.0,
        -49.999996,
    ];
    let mut rng = tensor_core::testing::Rng::new(seed | 1);
    let mut next = move || rng.unit();
    let mut x = Vec::with_capacity(r * n);
    for i in 0..r {
        let top = (next() * 10.0 - 5.0) as f32;
        let d = SPREADS[i % SPREADS.len()];
        for j in 0..n {
            let u = match j % 5 {
                0 => 0.0,
                1 => 1.0,
                2 => 0.9 + 0.1 * next(),
                _ => next(),
            };
            x.push(top + (d as f64 * u) as f32);
        }
        if n > 3 {
            match i % 17 {
                5 => x[i * n + n / 2] = f32::NAN,
                9 => x[i * n + 2] = f32::INFINITY,
                12 => x[i * n + 3] = f32::NEG_INFINITY,
                _ => {}
            }
        }
    }
    x
}

#[test]
fn softmax_division_bits_across_in_range() {
    let sizes: &[(usize, usize)] = &[
        (0, 300),
        (1, 1),
        (2, 7),
        (3, 16),
        (13, 300),
        (26, 256),
        (5, 1024 + 40),
        (2, 2048 + 8),
        (300, 1000),
    ];
    for &(r, n) in sizes {
        let x = spread_rows(r, n, 50 + (r * n) as u64);
        let row = |i: usize| &x[i * n..(i + 1) * n];
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let ones = Tensor::<f32, Shape![_, 1]>::from_shape_vec([r, 1], vec![1.0; r]).unwrap();
        let check = |what: &str, got: &[f32], rows: &dyn Fn(usize) -> Vec<f32>, count: usize| {
            assert_eq!(got.len(), count * n, "{what} [{r},{n}]");
            for i in 0..count {
                check_division_bits(
                    &format!("{what} [{r},{n}] row {i}"),
                    &rows(i),
                    &got[i * n..(i + 1) * n],
                );
            }
        };
        let same = |i: usize| row(i).to_vec();
        match (pp_softmax(&xt), pp_softmax_plain(&xt, &ones)) {
            (Ok(a), Ok(b)) => {
                check("pipelined", a.as_slice(), &same, r);
                check("unpipelined", b.as_slice(), &same, r);
            }
            (a, b) => assert!(r == 0 && a.is_err() && b.is_err(), "[{r},{n}]"),
        }
        // A causal mask: row i keeps its first (i * n / r) + 1 elements, the rest -inf.
        let mask: Vec<f32> = (0..r * n)
            .map(|k| {
                if k % n <= (k / n) * n / r.max(1) {
                    0.0
                } else {
                    f32::NEG_INFINITY
                }
            })
            .collect();
        let mt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], mask.clone()).unwrap();
        if let Ok(o) = sd_masked(&xt, &mt) {
            let rows = |i: usize| -> Vec<f32> {
                row(i)
                    .iter()
                    .zip(&mask[i * n..])
                    .map(|(a, b)| a + b)
                    .collect()
            };
            check("masked", o.as_slice(), &rows, r);
        }
        if r == 26 {
            let xt = Tensor::<f32, Shape![26, _]>::from_shape_vec([r, n], x.clone()).unwrap();
            let o = sd_every2(&xt).unwrap();
            check("every 2nd row", o.as_slice(), &|i| row(2 * i).to_vec(), 13);
        }
        if let Ok(o) = sd_flip(&xt) {
            check(
                "flipped rows",
                o.as_slice(),
                &|i| row(r - 1 - i).to_vec(),
                r,
            );
        }
        if r > 0 {
            let top =
                Tensor::<f32, Shape![1, _]>::from_shape_vec([1, n], row(r / 2).to_vec()).unwrap();
            let z: Vec<f32> = (0..r * n).map(|k| ((k / n) % 3) as f32 * -20.0).collect();
            let zt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], z.clone()).unwrap();
            if let Ok(o) = sd_bcast(&top, &zt) {
                let rows = |i: usize| -> Vec<f32> {
                    row(r / 2)
                        .iter()
                        .zip(&z[i * n..])
                        .map(|(a, b)| a + b)
                        .collect()
                };
                check("broadcast row", o.as_slice(), &rows, r);
            }
        }
    }
}

graph! {
    // Softmax next to other row work: the stage's first pass gets more reductions (the
    // outputs' max, min, argmax), two softmaxes share a stage, a consumer after it, a
    // scalar parameter in the pipelined pass, other dtypes and axes, logsoftmax (no min).
    fn pv_stats(x: f32[R, N]) -> (f32[R, N], f32[R], f32[R], i64[R]) {
        (softmax(x, axis = 1), max(x, axis = 1), min(x, axis = 1), argmax(x, axis = 1))
    }
    fn pv_two(x: f32[R, N]) -> (f32[R, N], f32[R, N]) {
        (softmax(x, axis = 1), softmax(x * 2.0, axis = 1))
    }
    fn pv_after(x: f32[R, N]) -> (f32[R, N], f32[R]) {
        let s = softmax(x, axis = 1);
        (relu(s - 0.001), sum(s, axis = 1))
    }
    fn pv_scalar(x: f32[R, N], t: f32) -> f32[R, N] { softmax(x * t, axis = 1) }
    fn pv_f64(x: f64[R, N]) -> f64[R, N] { softmax(x, axis = 1) }
    fn pv_bf(x: bf16[R, N]) -> bf16[R, N] { softmax(x, axis = 1) }
    fn pv_axis0(x: f32[R, N]) -> f32[R, N] { softmax(x, axis = 0) }
    fn pv_mid(x: f32[R, 5, N]) -> f32[R, 5, N] { softmax(x, axis = 1) }
    fn pv_log(x: f32[R, N]) -> f32[R, N] { logsoftmax(x, axis = 1) }
    fn pv_step(x: f32[R, 64]) -> f32[R, 32] { softmax(slice(x, axis = 1, step = 2), axis = 1) }
}

/// The `pv_*` graphs against softmax in f64 (rows as the test lays them out).
#[test]
fn softmax_beside_other_row_work() {
    let sizes: &[(usize, usize)] = &[
        (0, 4),
        (1, 1),
        (2, 9),
        (3, 64),
        (7, 300),
        (2, 1029),
        (300, 1000),
    ];
    for &(r, n) in sizes {
        let x = pf_data(r * n, 60 + (r * n) as u64);
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let row = |i: usize| f64s(&x[i * n..(i + 1) * n]);
        let rows: Vec<Vec<f64>> = (0..r).map(row).collect();
        let what = |s: &str| format!("{s} [{r},{n}]");
        let Ok((s, mx, mn, am)) = pv_stats(&xt) else {
            assert!(r == 0 || n == 0);
            continue;
        };
        pf_check_rows(&what("stats softmax"), s.as_slice(), &rows);
        for i in 0..r {
            let rw = &x[i * n..(i + 1) * n];
            let wmx = rw.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            let wmn = rw.iter().cloned().fold(f32::INFINITY, f32::min);
            assert_eq!(mx.as_slice()[i], wmx, "{}", what("max"));
            assert_eq!(mn.as_slice()[i], wmn, "{}", what("min"));
            let wam = rw.iter().position(|&v| v == wmx).unwrap() as i64;
            assert_eq!(am.as_slice()[i], wam, "{}", what("argmax"));
        }
        let (a, b) = pv_two(&xt).unwrap();
        pf_check_rows(&what("two, first"), a.as_slice(), &rows);
        let doubled: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| r.iter().map(|v| v * 2.0).collect())
            .collect();
        pf_check_rows(&what("two, second"), b.as_slice(), &doubled);
        let (a, sums) = pv_after(&xt).unwrap();
        for (i, rw) in rows.iter().enumerate() {
            let want = pf_softmax_ref(rw);
            for j in 0..n {
                close_abs(
                    &what("after"),
                    a.as_slice()[i * n + j] as f64,
                    (want[j] - 0.001).max(0.0),
                    3e-6,
                    1e-9,
                );
            }
            close_abs(
                &what("after sum"),
                sums.as_slice()[i] as f64,
                1.0,
                1e-5,
                0.0,
            );
        }
        let o = pv_scalar(&xt, 0.5).unwrap();
        let halved: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| r.iter().map(|v| v * 0.5).collect())
            .collect();
        pf_check_rows(&what("scalar"), o.as_slice(), &halved);
        let x64: Vec<f64> = x.iter().map(|&v| v as f64 * 1.25).collect();
        let xt64 = Tensor::<f64, Shape![_, _]>::from_shape_vec([r, n], x64.clone()).unwrap();
        let o = pv_f64(&xt64).unwrap();
        for i in 0..r {
            let want = pf_softmax_ref(&x64[i * n..(i + 1) * n]);
            for j in 0..n {
                close_abs(
                    &what("f64"),
                    o.as_slice()[i * n + j],
                    want[j],
                    1e-14,
                    1e-300,
                );
            }
        }
        let xb: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
        let xtb = Tensor::<bf16, Shape![_, _]>::from_shape_vec([r, n], xb.clone()).unwrap();
        let o = pv_bf(&xtb).unwrap();
        for i in 0..r {
            let rw: Vec<f64> = xb[i * n..(i + 1) * n].iter().map(|v| v.to_f64()).collect();
            let want = pf_softmax_ref(&rw);
            for j in 0..n {
                close_abs(
                    &what("bf16"),
                    o.as_slice()[i * n + j].to_f64(),
                    want[j],
                    8e-3,
                    1e-30,
                );
            }
        }
        let o = pv_axis0(&xt).unwrap();
        for j in 0..n {
            let col: Vec<f64> = (0..r).map(|i| x[i * n + j] as f64).collect();
            let want = pf_softmax_ref(&col);
            for i in 0..r {
                close_abs(
                    &what("axis 0"),
                    o.as_slice()[i * n + j] as f64,
                    want[i],
                    3e-6,
                    1e-30,
                );
            }
        }
        let o = pv_log(&xt).unwrap();
        for (i, rw) in rows.iter().enumerate() {
            let want = pf_softmax_ref(rw);
            for j in 0..n {
                close_abs(
                    &what("log"),
                    o.as_slice()[i * n + j] as f64,
                    want[j].ln(),
                    1e-5,
                    1e-5,
                );
            }
        }
        // [r, 5, n / 5 + 1]: softmax along the middle axis.
        let m = n / 5 + 1;
        let x3 = pf_data(r * 5 * m, 61 + n as u64);
        let xt3 = Tensor::<f32, Shape![_, 5, _]>::from_shape_vec([r, 5, m], x3.clone()).unwrap();
        let o = pv_mid(&xt3).unwrap();
        for i in 0..r {
            for k in 0..m {
                let col: Vec<f64> = (0..5).map(|a| x3[(i * 5 + a) * m + k] as f64).collect();
                let want = pf_softmax_ref(&col);
                for a in 0..5 {
                    close_abs(
                        &what("middle axis"),
                        o.as_slice()[(i * 5 + a) * m + k] as f64,
                        want[a],
                        3e-6,
                        1e-30,
                    );
                }
            }
        }
        let x64c = pf_data(r * 64, 62 + r as u64);
        let xt64c = Tensor::<f32, Shape![_, 64]>::from_shape_vec([r, 64], x64c.clone()).unwrap();
        let o = pv_step(&xt64c).unwrap();
        let rows: Vec<Vec<f64>> = (0..r)
            .map(|i| (0..32).map(|j| x64c[i * 64 + 2 * j] as f64).collect())
            .collect();
        pf_check_rows(&what("inner step 2"), o.as_slice(), &rows);
    }
}

graph! {
    // Arg reductions of a block call's value (default builds: the block loop's chunks go
    // to the four (best, index) pairs as the unrolled loop's do).
    fn ab_arg(x: f32[R, N]) -> (i64[R], i64[R]) {
        let t = tanh(x);
        (argmax(t, axis = 1), argmin(t, axis = 1))
    }
}

/// `ab_arg` against the first maximal / minimal index of the lanes' tanh (the first NaN
/// where there is one), over rows of blocks whose extremes (tanh saturates at ±1) tie in
/// chunks of every accumulator.
#[test]
fn arg_reductions_of_block_calls() {
    use tensorgraph::lanes::{FloatLanes, LANES, V};
    for (r, n) in [(1usize, 256usize), (6, 1024 + 24), (3, 2048 + 5), (2, 40)] {
        let mut x = pf_data(r * n, 70 + n as u64);
        for i in 0..r {
            let row = &mut x[i * n..(i + 1) * n];
            // Ties of +1 and -1 in chunks 3, 5, 6 and 9 (accumulators 3, 1, 2, 1) and late.
            for (k, &at) in [
                3 * LANES + 1,
                5 * LANES,
                6 * LANES + 7,
                9 * LANES + 2,
                n - 1,
            ]
            .iter()
            .enumerate()
            {
                if at < n && (k + i) % 2 == 0 {
                    row[at] = 20.0;
                } else if at < n {
                    row[at] = -20.0;
                }
            }
            if i % 3 == 2 && n > 300 {
                row[300] = f32::NAN;
                row[n - 2] = f32::NAN;
            }
        }
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let (amax, amin) = ab_arg(&xt).unwrap();
        for i in 0..r {
            let t: Vec<f32> = x[i * n..(i + 1) * n]
                .chunks(LANES)
                .flat_map(|c| {
                    let mut a = [0.0f32; LANES];
                    a[..c.len()].copy_from_slice(c);
                    <f32 as FloatLanes>::tanh_lanes(V(a)).0[..c.len()].to_vec()
                })
                .collect();
            let first = |better: fn(f32, f32) -> bool| -> i64 {
                if let Some(k) = t.iter().position(|v| v.is_nan()) {
                    return k as i64;
                }
                let mut best = 0;
                for k in 1..n {
                    if better(t[k], t[best]) {
                        best = k;
                    }
                }
                best as i64
            };
            assert_eq!(
                amax.as_slice()[i],
                first(|a, b| a > b),
                "argmax [{r},{n}] row {i}"
            );
            assert_eq!(
                amin.as_slice()[i],
                first(|a, b| a < b),
                "argmin [{r},{n}] row {i}"
            );
        }
    }
}

graph! {
    // The max, min and argmax outputs next to softmax over rows with NaN and ±inf, and
    // softmax with logsoftmax of the same input (one shared max).
    fn pv_stats_nan(x: f32[R, N]) -> (f32[R, N], f32[R], f32[R], i64[R], f32[R, N]) {
        (softmax(x, axis = 1), max(x, axis = 1), min(x, axis = 1), argmax(x, axis = 1),
         logsoftmax(x, axis = 1))
    }
}

/// `pv_stats_nan` against f64 softmax and NumPy's max, min and argmax (NaN wins, the first
/// NaN for argmax), over `specials` rows.
#[test]
fn softmax_beside_nan_reductions() {
    for (r, n) in [(1usize, 1usize), (6, 7), (12, 300), (7, 1029), (300, 1000)] {
        let x = specials(r, n, 80 + n as u64);
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, n], x.clone()).unwrap();
        let (s, mx, mn, am, ls) = pv_stats_nan(&xt).unwrap();
        for i in 0..r {
            let row = &x[i * n..(i + 1) * n];
            let what = format!("[{r},{n}] row {i}");
            let nan = row.iter().position(|v| v.is_nan());
            let (wmx, wmn) = match nan {
                Some(_) => (f32::NAN, f32::NAN),
                None => (
                    row.iter().cloned().fold(f32::NEG_INFINITY, f32::max),
                    row.iter().cloned().fold(f32::INFINITY, f32::min),
                ),
            };
            let (gmx, gmn) = (mx.as_slice()[i], mn.as_slice()[i]);
            assert!(
                gmx == wmx || gmx.is_nan() && wmx.is_nan(),
                "max {what}: {gmx} {wmx}"
            );
            assert!(
                gmn == wmn || gmn.is_nan() && wmn.is_nan(),
                "min {what}: {gmn} {wmn}"
            );
            let wam = nan.unwrap_or_else(|| row.iter().position(|&v| v == wmx).unwrap());
            assert_eq!(am.as_slice()[i], wam as i64, "argmax {what}");
            let rw = f64s(row);
            let want = softmax_ref(&rw);
            close_row(
                &format!("softmax {what}"),
                &s.as_slice()[i * n..(i + 1) * n],
                &want,
                3e-6,
            );
            let m = rw.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let d = |v: f64| (v - m) as f32 as f64;
            let lse = rw.iter().map(|&v| d(v).exp()).sum::<f64>().ln();
            for j in 0..n {
                let got = ls.as_slice()[i * n + j] as f64;
                // logsoftmax: (x - max) - log(sum), NaN where softmax is NaN.
                let w = if want[j].is_nan() {
                    f64::NAN
                } else {
                    d(rw[j]) - lse
                };
                if got != w {
                    close_abs(&format!("logsoftmax {what} {j}"), got, w, 1e-5, 1e-5);
                }
            }
        }
    }
}
