//! `cumsum`/`cumprod` along inner, middle and outer axes, with `exclusive`/`reverse`,
//! against sequential references computed here (f64 running sums rounded once for float
//! outputs, exact wrapping `i64`/`u64` for integers), fused with producers and consumers,
//! over literal and symbolic dims including empty axes.

mod common;
use common::*;
use tensorgraph::prelude::*;

/// The running combine of `x` (`outer × len × inner`) along the middle axis, in f64.
fn scan_f64(
    x: &[f64],
    outer: usize,
    len: usize,
    inner: usize,
    prod: bool,
    exclusive: bool,
    reverse: bool,
) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for o in 0..outer {
        for j in 0..inner {
            let mut acc = if prod { 1.0 } else { 0.0 };
            let order: Vec<usize> = if reverse {
                (0..len).rev().collect()
            } else {
                (0..len).collect()
            };
            for k in order {
                let at = (o * len + k) * inner + j;
                if exclusive {
                    out[at] = acc;
                    acc = if prod { acc * x[at] } else { acc + x[at] };
                } else {
                    acc = if prod { acc * x[at] } else { acc + x[at] };
                    out[at] = acc;
                }
            }
        }
    }
    out
}

graph! {
    fn cs_f32(x: f32[3, N, 5]) -> (f32[3, N, 5], f32[3, N, 5], f32[3, N, 5], f32[3, N, 5]) {
        (cumsum(x, axis = 1), cumsum(x, axis = -1, exclusive = true), cumsum(x, axis = 0, reverse = true),
         cumsum(x, axis = 1, exclusive = true, reverse = true))
    }
    fn cp_f64(x: f64[N]) -> (f64[N], f64[N]) { (cumprod(x, axis = 0), cumprod(x, axis = 0, reverse = true, exclusive = true)) }
    fn cs_ints(a: i32[N, 4], b: u8[N, 4], c: bool[N, 4]) -> (i64[N, 4], u64[N, 4], i64[N, 4], i32[N, 4]) {
        (cumsum(a, axis = 0), cumsum(b, axis = 1, reverse = true), cumsum(c, axis = 0), cumprod(a, axis = 1, dtype = i32))
    }
    fn cs_fused(x: f32[N]) -> (f32[N], f32[N]) { (cumsum(x * x, axis = 0) * 2.0 + 1.0, cumsum(x, axis = 0, acc = f32)) }
}

fn close(got: &[f32], want: &[f64], what: &str) {
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        // f64 running sums rounded once: the kernel's and the reference's agree exactly
        // unless the f64 sums differ in order, which they do not (both sequential).
        assert!(
            g == w as f32 || (g.is_nan() && w.is_nan()),
            "{what} at {i}: {g} vs {}",
            w as f32
        );
    }
}

#[test]
fn float_scans_every_axis_and_flag() {
    for n in [0usize, 1, 7, 9, 37] {
        let x = f32::random(3 * n * 5, 1);
        let t = Tensor::<f32, Shape![3, _, 5]>::from_shape_vec([3, n, 5], x.clone()).unwrap();
        let (a, b, c, d) = cs_f32(&t).unwrap();
        let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        close(
            a.as_slice(),
            &scan_f64(&xf, 3, n, 5, false, false, false),
            "cumsum axis 1",
        );
        close(
            b.as_slice(),
            &scan_f64(&xf, 3 * n, 5, 1, false, true, false),
            "cumsum axis -1 exclusive",
        );
        close(
            c.as_slice(),
            &scan_f64(&xf, 1, 3, n * 5, false, false, true),
            "cumsum axis 0 reverse",
        );
        close(
            d.as_slice(),
            &scan_f64(&xf, 3, n, 5, false, true, true),
            "cumsum exclusive reverse",
        );
    }
    let x: Vec<f64> = f64::random(23, 2)
        .iter()
        .map(|v| v.clamp(-3.0, 3.0))
        .collect();
    let (p, q) = cp_f64(&x).unwrap();
    assert_eq!(
        p.as_slice(),
        &scan_f64(&x, 1, 23, 1, true, false, false)[..]
    );
    assert_eq!(q.as_slice(), &scan_f64(&x, 1, 23, 1, true, true, true)[..]);
}

#[test]
fn integer_scans_widen_and_wrap() {
    let n = 11;
    let a = i32::random(n * 4, 3);
    let b = u8::random(n * 4, 4);
    let c = bool::random(n * 4, 5);
    let (sa, sb, sc, pa) = cs_ints(&a, &b, &c).unwrap();
    for j in 0..4 {
        let mut acc = 0i64;
        let mut count = 0i64;
        for i in 0..n {
            acc = acc.wrapping_add(a[i * 4 + j] as i64);
            count += c[i * 4 + j] as i64;
            assert_eq!(sa[[i, j]], acc);
            assert_eq!(sc[[i, j]], count);
        }
    }
    for i in 0..n {
        let mut acc = 0u64;
        let mut prod = 1i64;
        for j in (0..4).rev() {
            acc += b[i * 4 + j] as u64;
            assert_eq!(sb[[i, j]], acc);
        }
        for j in 0..4 {
            prod = prod.wrapping_mul(a[i * 4 + j] as i64);
            assert_eq!(
                pa[[i, j]],
                prod as i32,
                "cumprod in i64, narrowed by `dtype = i32`"
            );
        }
    }
}

#[test]
fn scans_fuse_with_producers_and_consumers() {
    let x = f32::random(300, 6);
    let (a, b) = cs_fused(&x).unwrap();
    let sq: Vec<f64> = x.iter().map(|&v| (v * v) as f64).collect();
    let s = scan_f64(&sq, 1, 300, 1, false, false, false);
    for i in 0..300 {
        assert_eq!(a[[i]], (s[i] as f32) * 2.0 + 1.0);
    }
    // `acc = f32`: the running sum in f32.
    let mut acc = 0.0f32;
    for i in 0..300 {
        acc += x[i];
        assert_eq!(b[[i]], acc);
    }
}

graph! {
    // 600 rows of 1000: large enough that the rows are scanned on several threads.
    fn cs_large(x: f32[600, 1000]) -> (f32[600, 1000], f32[600, 1000]) {
        (cumsum(x, axis = 1), cumsum(x, axis = 1, reverse = true, exclusive = true))
    }
}

#[test]
fn large_scans_split_rows_across_threads() {
    let x = f32::random(600_000, 9);
    let (a, b) = cs_large(&Tensor::from_vec(x.clone()).unwrap());
    let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    close(
        a.as_slice(),
        &scan_f64(&xf, 600, 1000, 1, false, false, false),
        "cumsum rows",
    );
    close(
        b.as_slice(),
        &scan_f64(&xf, 600, 1000, 1, false, true, true),
        "reverse exclusive rows",
    );
}

graph! {
    fn grid_sum0(x: f64[3, N, 5]) -> (f64[3, N, 5], f64[3, N, 5], f64[3, N, 5], f64[3, N, 5]) {
        (cumsum(x, axis = 0), cumsum(x, axis = 0, exclusive = true), cumsum(x, axis = 0, reverse = true),
         cumsum(x, axis = 0, exclusive = true, reverse = true))
    }
    fn grid_sum1(x: f64[3, N, 5]) -> (f64[3, N, 5], f64[3, N, 5], f64[3, N, 5], f64[3, N, 5]) {
        (cumsum(x, axis = 1), cumsum(x, axis = 1, exclusive = true), cumsum(x, axis = 1, reverse = true),
         cumsum(x, axis = 1, exclusive = true, reverse = true))
    }
    fn grid_sum2(x: f64[3, N, 5]) -> (f64[3, N, 5], f64[3, N, 5], f64[3, N, 5], f64[3, N, 5]) {
        (cumsum(x, axis = 2), cumsum(x, axis = 2, exclusive = true), cumsum(x, axis = 2, reverse = true),
         cumsum(x, axis = 2, exclusive = true, reverse = true))
    }
    fn grid_prod0(x: f64[3, N, 5]) -> (f64[3, N, 5], f64[3, N, 5], f64[3, N, 5], f64[3, N, 5]) {
        (cumprod(x, axis = 0), cumprod(x, axis = 0, exclusive = true), cumprod(x, axis = 0, reverse = true),
         cumprod(x, axis = 0, exclusive = true, reverse = true))
    }
    fn grid_prod1(x: f64[3, N, 5]) -> (f64[3, N, 5], f64[3, N, 5], f64[3, N, 5], f64[3, N, 5]) {
        (cumprod(x, axis = 1), cumprod(x, axis = 1, exclusive = true), cumprod(x, axis = 1, reverse = true),
         cumprod(x, axis = 1, exclusive = true, reverse = true))
    }
    fn grid_prod2(x: f64[3, N, 5]) -> (f64[3, N, 5], f64[3, N, 5], f64[3, N, 5], f64[3, N, 5]) {
        (cumprod(x, axis = -1), cumprod(x, axis = -1, exclusive = true), cumprod(x, axis = -1, reverse = true),
         cumprod(x, axis = -1, exclusive = true, reverse = true))
    }
    fn grid_int(a: i16[3, N, 5]) -> (i64[3, N, 5], i64[3, N, 5], i64[3, N, 5], i64[3, N, 5]) {
        (cumsum(a, axis = 0, exclusive = true, reverse = true), cumsum(a, axis = 2, exclusive = true, reverse = true),
         cumprod(a, axis = 0, exclusive = true), cumprod(a, axis = 2, reverse = true))
    }
}

/// Every combination: cumsum and cumprod × the outer, middle and inner axis × `exclusive`
/// × `reverse`, f64 (sequential f64 running combines, so bit for bit with the reference),
/// over run-time lengths 0, 1, 7, 9, 37 of the middle axis; and i16 (widened to i64,
/// wrapping) on the outer and inner axes with both flags.
#[test]
fn scans_every_axis_times_every_flag() {
    for n in [0usize, 1, 7, 9, 37] {
        let x: Vec<f64> = f64::random(3 * n * 5, 3)
            .iter()
            .map(|v| v.clamp(-2.0, 2.0))
            .collect();
        let t = Tensor::<f64, Shape![3, _, 5]>::from_shape_vec([3, n, 5], x.clone()).unwrap();
        // (outer, len, inner) of the scanned axis in the 3 × n × 5 layout.
        let dims = [(1, 3, n * 5), (3, n, 5), (3 * n, 5, 1)];
        let results = [
            (false, 0, grid_sum0(&t).unwrap()),
            (false, 1, grid_sum1(&t).unwrap()),
            (false, 2, grid_sum2(&t).unwrap()),
            (true, 0, grid_prod0(&t).unwrap()),
            (true, 1, grid_prod1(&t).unwrap()),
            (true, 2, grid_prod2(&t).unwrap()),
        ];
        for (prod, axis, (a, b, c, d)) in &results {
            let (o, l, i) = dims[*axis];
            for (got, exclusive, reverse) in [
                (a, false, false),
                (b, true, false),
                (c, false, true),
                (d, true, true),
            ] {
                let want = scan_f64(&x, o, l, i, *prod, exclusive, reverse);
                assert_eq!(
                    got.as_slice(),
                    &want[..],
                    "{} axis {axis} exclusive {exclusive} reverse {reverse}, n = {n}",
                    if *prod { "cumprod" } else { "cumsum" }
                );
            }
        }
        let xi: Vec<i16> = i16::random(3 * n * 5, 4);
        let ti = Tensor::<i16, Shape![3, _, 5]>::from_shape_vec([3, n, 5], xi.clone()).unwrap();
        let (a, b, c, d) = grid_int(&ti).unwrap();
        let scan_i = |(o, l, i): (usize, usize, usize),
                      prod: bool,
                      exclusive: bool,
                      reverse: bool|
         -> Vec<i64> {
            let mut out = vec![0i64; xi.len()];
            for oo in 0..o {
                for j in 0..i {
                    let mut acc: i64 = if prod { 1 } else { 0 };
                    let ks: Vec<usize> = if reverse {
                        (0..l).rev().collect()
                    } else {
                        (0..l).collect()
                    };
                    for k in ks {
                        let at = (oo * l + k) * i + j;
                        let v = xi[at] as i64;
                        if exclusive {
                            out[at] = acc;
                        }
                        acc = if prod {
                            acc.wrapping_mul(v)
                        } else {
                            acc.wrapping_add(v)
                        };
                        if !exclusive {
                            out[at] = acc;
                        }
                    }
                }
            }
            out
        };
        assert_eq!(
            a.as_slice(),
            &scan_i(dims[0], false, true, true)[..],
            "i16 cumsum axis 0, n = {n}"
        );
        assert_eq!(
            b.as_slice(),
            &scan_i(dims[2], false, true, true)[..],
            "i16 cumsum axis 2, n = {n}"
        );
        assert_eq!(
            c.as_slice(),
            &scan_i(dims[0], true, true, false)[..],
            "i16 cumprod axis 0, n = {n}"
        );
        assert_eq!(
            d.as_slice(),
            &scan_i(dims[2], true, false, true)[..],
            "i16 cumprod axis 2, n = {n}"
        );
    }
}
