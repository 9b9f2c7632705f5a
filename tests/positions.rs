//! Positions computed in the kernel (`arange`, `eye`, `tril`, `triu`) against references
//! written out here: literal and symbolic sizes, offsets `k` on both sides of the
//! diagonal, batches of matrices, flips, and fused consumers.

use tensorgraph::prelude::*;

graph! {
    fn count(x: f32[N]) -> (i64[N], f32[N]) { (arange(N), arange(N, dtype = f32) * 0.5 + x) }
    fn backwards(x: i32[N]) -> i32[N] { flip(arange(N, dtype = i32), axis = 0) + x }
    fn range_expr(_a: f32[N], _b: f32[M]) -> u32[N + M + 1] { arange(N + M + 1, dtype = u32) }
    fn ident3() -> f32[3, 3] { eye(3) }
    fn eyes(x: f64[N, M]) -> (f64[N, M], i32[N, M], bool[N, M]) {
        (eye(N, M, k = 1, dtype = f64) + x, eye(N, M, k = -2, dtype = i32), eye(N, M, dtype = bool))
    }
    fn lower(x: f32[B, N, M]) -> (f32[B, N, M], f32[B, N, M], f32[B, N, M]) {
        (tril(x), tril(x, k = -1), triu(x, k = 2))
    }
    /// A causal mask over scores, as attention applies it.
    fn causal(s: f32[S, S]) -> f32[S, S] {
        where(tril(s + 1.0 - s) > 0.0, s, -inf)
    }
}

#[test]
fn arange_counts_in_every_dtype() {
    for n in [0usize, 1, 7, 8, 9, 33, 1000, 300_000] {
        let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let (a, b) = count(&x).unwrap();
        assert_eq!(a.as_slice(), &(0..n as i64).collect::<Vec<_>>()[..]);
        let want: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 + x[i]).collect();
        assert_eq!(b.as_slice(), &want[..], "n = {n}");
        let xi: Vec<i32> = (0..n as i32).map(|i| i * 3).collect();
        let y = backwards(&xi).unwrap();
        let want: Vec<i32> = (0..n).map(|i| (n - 1 - i) as i32 + xi[i]).collect();
        assert_eq!(y.as_slice(), &want[..], "n = {n}");
    }
    let r = range_expr(&[0.0f32; 2][..], &[0.0f32; 3][..]).unwrap();
    assert_eq!(r.as_slice(), &[0, 1, 2, 3, 4, 5]);
}

#[test]
fn eye_and_triangles() {
    assert_eq!(
        ident3().as_slice(),
        &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    );
    for (n, m) in [(0usize, 0usize), (1, 1), (3, 5), (5, 3), (17, 17), (4, 40)] {
        let x: Vec<f64> = (0..n * m).map(|i| i as f64 * 0.125).collect();
        let xt = Tensor::<f64, Shape![_, _]>::from_shape_vec([n, m], x.clone()).unwrap();
        let (a, b, c) = eyes(&xt).unwrap();
        for r in 0..n {
            for col in 0..m {
                let d = col as i64 - r as i64;
                assert_eq!(a[[r, col]], x[r * m + col] + if d == 1 { 1.0 } else { 0.0 });
                assert_eq!(b[[r, col]], (d == -2) as i32);
                assert_eq!(c[[r, col]], d == 0);
            }
        }
        for batch in [1usize, 3] {
            let len = batch * n * m;
            let x: Vec<f32> = (0..len).map(|i| i as f32 + 1.0).collect();
            let xt =
                Tensor::<f32, Shape![_, _, _]>::from_shape_vec([batch, n, m], x.clone()).unwrap();
            let (lo, lo1, up2) = lower(&xt).unwrap();
            for bi in 0..batch {
                for r in 0..n {
                    for col in 0..m {
                        let at = (bi * n + r) * m + col;
                        let d = col as i64 - r as i64;
                        let keep = |ok: bool| if ok { x[at] } else { 0.0 };
                        assert_eq!(
                            lo.as_slice()[at],
                            keep(d <= 0),
                            "tril {n}x{m} at {bi},{r},{col}"
                        );
                        assert_eq!(lo1.as_slice()[at], keep(d <= -1));
                        assert_eq!(up2.as_slice()[at], keep(d >= 2));
                    }
                }
            }
        }
    }
}

#[test]
fn a_causal_mask_without_a_buffer() {
    for s in [1usize, 4, 9, 100] {
        let x: Vec<f32> = (0..s * s).map(|i| (i % 13) as f32 - 6.0).collect();
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([s, s], x.clone()).unwrap();
        let y = causal(&xt).unwrap();
        for r in 0..s {
            for c in 0..s {
                let want = if c <= r {
                    x[r * s + c]
                } else {
                    f32::NEG_INFINITY
                };
                assert_eq!(y.as_slice()[r * s + c], want, "s={s} at {r},{c}");
            }
        }
    }
}

graph! {
    fn hot(ids: i64[N]) -> f32[N, 5] { one_hot(ids, depth = 5) }
    fn hot_first(ids: u8[2, 3]) -> i32[4, 2, 3] { one_hot(ids, depth = 4, axis = 0, on = 7, off = -1, dtype = i32) }
    fn hot_named(ids: i32[N], _c: f32[C]) -> bool[N, C] { one_hot(ids, depth = C, dtype = bool) }
}

#[test]
fn one_hot_rows() {
    let ids = [0i64, 4, -1, -5, 5, -6, 2, i64::MAX, i64::MIN];
    let y = hot(&ids[..]).unwrap();
    for (r, &i) in ids.iter().enumerate() {
        let at = if (-5..0).contains(&i) { i + 5 } else { i };
        for c in 0..5 {
            assert_eq!(
                y[[r, c]],
                (at == c as i64) as i32 as f32,
                "index {i} at {c}"
            );
        }
    }
    let ids = Tensor::<u8, Shape![2, 3]>::from_vec(vec![0, 3, 4, 255, 1, 2]).unwrap();
    let y = hot_first(&ids);
    for d in 0..4 {
        for a in 0..2 {
            for b in 0..3 {
                let i = ids[[a, b]] as usize;
                assert_eq!(y[[d, a, b]], if i == d { 7 } else { -1 });
            }
        }
    }
    for c in [0usize, 1, 3, 40] {
        let ids: Vec<i32> = (-3..4).collect();
        let y = hot_named(&ids[..], &vec![0.0f32; c][..]).unwrap();
        assert_eq!(y.shape(), &[7, c]);
        for (r, &i) in ids.iter().enumerate() {
            let at = if i < 0 { i + c as i32 } else { i };
            for k in 0..c {
                assert_eq!(y[[r, k]], at == k as i32, "c={c} index {i} at {k}");
            }
        }
    }
}

graph! {
    fn hot_u64(ids: u64[N]) -> i32[N, 4] { one_hot(ids, depth = 4, dtype = i32) }
}

/// A `u64` index does not count from the end (found by the random-graph soak, seed 35,
/// graph 1780): one above `i64::MAX` is out of range, a row of `off`, not the class it
/// would be as a negative `i64` (`u64::MAX` is `-1`, class 3 of 4).
#[test]
fn one_hot_u64_beyond_i64() {
    let ids = [0u64, 3, 4, u64::MAX, u64::MAX - 3, 1 << 63];
    let y = hot_u64(&ids[..]).unwrap();
    for (r, &i) in ids.iter().enumerate() {
        for c in 0..4u64 {
            assert_eq!(y[[r, c as usize]], (i == c) as i32, "index {i} at {c}");
        }
    }
}
