//! Dim expressions (docs/language.md, "Dim expressions"): `2 * N`, `N + 1`, `(N + 1) / 2`,
//! `N - 3` in signatures and derived by `slice`; inputs that solve a name, outputs checked
//! against the expression's value, and every call-entry error. References are written out
//! here with plain loops over the sizes.

use tensorgraph::prelude::*;
use tensorgraph::ShapeError;

graph! {
    /// Every other element: `[2 * N]` to `[N]` (the length `(2N + 1) / 2` is `N`).
    fn evens(x: f32[2 * N]) -> f32[N] { slice(x, axis = 0, step = 2) }
    /// A stride-2 downsample of rows: `(N + 1) / 2` rows.
    fn down(x: f32[N, 3]) -> f32[(N + 1) / 2, 3] { slice(x, axis = 0, step = 2) * 2.0 }
    /// Drops three rows: `N - 3`, negative (an `Err`) below 3.
    fn tail3(x: f32[N, 2]) -> f32[N - 3, 2] { slice(x, axis = 0, start = 3) + 1.0 }
    /// Backwards with a step of 3 from the last element.
    fn back3(x: i32[N]) -> i32[(N + 2) / 3] { slice(x, axis = 0, step = -3) }
    /// Inputs declared as the same expression written two ways broadcast (normal forms).
    fn same(a: f32[2 * N, 4], b: f32[N + N, 1]) -> f32[2 * N, 4] { a * b }
    /// `N` solved from `N + 1` (no plain occurrence).
    fn plus_one(a: f32[N + 1], b: f32[N + 1]) -> f32[N + 1] { a - b }
    /// `N + M` checked against `N` and `M` bound by other inputs; a reduction over it.
    fn total(x: f32[N + M], a: f32[N], b: f32[M]) -> f32[] { sum(x, axis = 0) + sum(a) + sum(b) }
    /// `max` over an expression axis: empty is an `Err`.
    fn peak(x: f32[N + M], _a: f32[N], _b: f32[M]) -> f32[] { max(x, axis = 0) }
    /// `mean` over `N + M` divides by the run-time size.
    fn avg(x: f64[N + M, 2], _a: f64[N], _b: f64[M]) -> f64[2] { mean(x, axis = 0) }
    /// Odd positions of an odd-length input: `[2 * N + 1]` to `[N]`.
    fn odds(x: f32[2 * N + 1]) -> f32[N] { slice(x, axis = 0, start = 1, step = 2) }
}

fn seq(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i as f32) * 0.5 - 3.0).collect()
}

#[test]
fn a_stepped_slice_of_an_expression_axis() {
    for n in [0usize, 1, 2, 7, 8, 9, 33, 1000] {
        let x = seq(2 * n);
        let y = evens(&x).unwrap();
        let want: Vec<f32> = (0..n).map(|i| x[2 * i]).collect();
        assert_eq!(y.as_slice(), &want[..], "n = {n}");
        // A length that is odd is no `2 * N`.
        if n > 0 {
            let err = evens(&x[..2 * n - 1]).unwrap_err();
            assert!(matches!(err, ShapeError::ExprSolve { .. }), "{err:?}");
            let text = err.to_string();
            assert!(
                text.contains("2 * N") && text.contains(&format!("{}", 2 * n - 1)),
                "{text}"
            );
        }
    }
}

#[test]
fn downsample_and_tail() {
    for n in [0usize, 1, 2, 3, 4, 5, 8, 17, 100] {
        let x = seq(n * 3);
        let y = down(&x).unwrap();
        let rows = n.div_ceil(2);
        assert_eq!(y.shape(), &[rows, 3]);
        let want: Vec<f32> = (0..rows)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| x[2 * r * 3 + c] * 2.0)
            .collect();
        assert_eq!(y.as_slice(), &want[..], "n = {n}");

        let x = seq(n * 2);
        match tail3(&x) {
            Ok(y) => {
                assert!(n >= 3);
                let want: Vec<f32> = x[6..].iter().map(|v| v + 1.0).collect();
                assert_eq!(y.shape(), &[n - 3, 2]);
                assert_eq!(y.as_slice(), &want[..]);
            }
            Err(err) => {
                assert!(n < 3, "n = {n}: {err}");
                let text = err.to_string();
                // Either the op's requirement or the negative expression names the sizes.
                assert!(
                    text.contains("N - 3") || text.contains("at least 3"),
                    "{text}"
                );
            }
        }

        let x: Vec<i32> = (0..n as i32).collect();
        let y = back3(&x).unwrap();
        let want: Vec<i32> = (0..n).rev().step_by(3).map(|i| i as i32).collect();
        assert_eq!(y.as_slice(), &want[..], "n = {n}");
    }
}

#[test]
fn equal_normal_forms_broadcast_and_solve() {
    let n = 5;
    let a = Tensor::<f32, Shape![_, 4]>::from_shape_vec([2 * n, 4], seq(8 * n)).unwrap();
    let b = Tensor::<f32, Shape![_, 1]>::from_shape_vec([2 * n, 1], seq(2 * n)).unwrap();
    let y = same(&a, &b).unwrap();
    for r in 0..2 * n {
        for c in 0..4 {
            assert_eq!(y[[r, c]], a[[r, c]] * b[[r, 0]]);
        }
    }
    // A row count that is no `2 * N` is refused with the expression and the size.
    let odd = Tensor::<f32, Shape![_, 4]>::from_shape_vec([3, 4], seq(12)).unwrap();
    let odd_b = Tensor::<f32, Shape![_, 1]>::from_shape_vec([3, 1], seq(3)).unwrap();
    assert!(matches!(
        same(&odd, &odd_b).unwrap_err(),
        ShapeError::ExprSolve { .. }
    ));
    // Both solve `N`; the second disagrees with the first.
    let b6 = Tensor::<f32, Shape![_, 1]>::from_shape_vec([12, 1], seq(12)).unwrap();
    let err = same(&a, &b6).unwrap_err();
    assert!(
        matches!(err, ShapeError::ExprMismatch { size: 12, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("N = 5"), "{err}");

    for len in [1usize, 2, 9] {
        let x = seq(len);
        let z = plus_one(&x, &x).unwrap();
        assert_eq!(z.as_slice(), &vec![0.0; len][..]);
    }
    // `N + 1` cannot be 0.
    let err = plus_one(&[][..], &[][..]).unwrap_err();
    assert!(
        matches!(err, ShapeError::ExprSolve { size: 0, .. }),
        "{err:?}"
    );
    assert!(plus_one(&seq(3), &seq(4)).is_err());
}

#[test]
fn sums_of_names_checked_and_reduced() {
    for (n, m) in [(0usize, 0usize), (0, 3), (4, 0), (5, 7), (100, 33)] {
        let a = seq(n);
        let b = seq(m);
        let x: Vec<f32> = (0..n + m).map(|i| (i as f32).sin()).collect();
        let got = total(&x, &a, &b).unwrap();
        let want = x.iter().map(|&v| v as f64).sum::<f64>() as f32
            + a.iter().map(|&v| v as f64).sum::<f64>() as f32
            + b.iter().map(|&v| v as f64).sum::<f64>() as f32;
        assert!(
            (got.item() - want).abs() <= 1e-5 * want.abs().max(1.0),
            "{n} {m}"
        );
        // One element too many: the expression's value and both names in the error.
        let long: Vec<f32> = (0..n + m + 1).map(|i| i as f32).collect();
        let err = total(&long, &a, &b).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ShapeError::ExprMismatch { .. }), "{err:?}");
        assert!(
            text.contains("M + N")
                && text.contains(&format!("M = {m}"))
                && text.contains(&format!("N = {n}")),
            "{text}"
        );

        match peak(&x, &a, &b) {
            Ok(p) => {
                assert!(n + m > 0);
                assert_eq!(
                    p.item(),
                    x.iter().copied().fold(f32::NEG_INFINITY, f32::max)
                );
            }
            Err(err) => {
                assert_eq!(n + m, 0);
                assert!(matches!(err, ShapeError::EmptyAxis { .. }), "{err:?}");
                assert!(err.to_string().contains("M + N"), "{err}");
            }
        }

        let xs: Vec<f64> = (0..2 * (n + m)).map(|i| i as f64).collect();
        let a64: Vec<f64> = vec![0.0; n];
        let b64: Vec<f64> = vec![0.0; m];
        let got = avg(&xs, &a64, &b64).unwrap();
        for c in 0..2 {
            let col: Vec<f64> = (0..n + m).map(|r| xs[2 * r + c]).collect();
            let want = col.iter().sum::<f64>() / (n + m) as f64;
            if n + m == 0 {
                assert!(got[[c]].is_nan());
            } else {
                assert_eq!(got[[c]], want);
            }
        }
    }
}

#[test]
fn odd_lengths_solve_from_a_flat_slice() {
    for n in [0usize, 1, 4, 20] {
        let x = seq(2 * n + 1);
        let y = odds(&x).unwrap();
        let want: Vec<f32> = (0..n).map(|i| x[2 * i + 1]).collect();
        assert_eq!(y.as_slice(), &want[..]);
    }
    let err = odds(&seq(6)).unwrap_err();
    assert!(
        matches!(err, ShapeError::ExprSolve { size: 6, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("2 * N + 1"), "{err}");
}

#[test]
fn into_outputs_are_checked_against_the_expression() {
    let x = seq(10 * 3);
    let mut out = Tensor::<f32, Shape![_, 3]>::from_shape_vec([5, 3], vec![0.0; 15]).unwrap();
    down_into(&x, &mut out).unwrap();
    let want = down(&x).unwrap();
    assert_eq!(out.as_slice(), want.as_slice());
    let mut wrong = Tensor::<f32, Shape![_, 3]>::from_shape_vec([4, 3], vec![0.0; 12]).unwrap();
    let err = down_into(&x, &mut wrong).unwrap_err();
    assert!(
        matches!(err, ShapeError::ExprMismatch { size: 4, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("(N + 1) / 2") && text.contains("is 5"),
        "{text}"
    );
}

graph! {
    /// A KV-cache append: `N + M` rows.
    fn append(cache: f32[N, 4], new: f32[M, 4]) -> f32[N + M, 4] { concat([cache, new], axis = 0) }
    /// Three parts, fused with a consumer, along the last axis.
    fn join3(a: f32[2, N], b: f32[2, M], c: f32[2, 3]) -> f32[2, N + M + 3] {
        concat([a, b, c], axis = 1) * 2.0 + 1.0
    }
    /// A concat read in part (a slice of it) goes through a temp.
    fn cut(a: f32[N], b: f32[M]) -> f32[N + M - 1] { slice(concat([a, b], axis = 0), axis = 0, start = 1) }
    /// A reduction over a concat along names.
    fn both_sum(a: f64[N], b: f64[M]) -> f64[] { sum(concat([a, b], axis = 0)) }
}

#[test]
fn concat_along_names() {
    for (n, m) in [
        (0usize, 0usize),
        (0, 2),
        (3, 0),
        (1, 1),
        (5, 7),
        (9, 33),
        (200, 1000),
    ] {
        let cache = seq(n * 4);
        let new: Vec<f32> = (0..m * 4).map(|i| 100.0 + i as f32).collect();
        let y = append(&cache, &new).unwrap();
        assert_eq!(y.shape(), &[n + m, 4]);
        let want: Vec<f32> = cache.iter().chain(&new).copied().collect();
        assert_eq!(y.as_slice(), &want[..], "n={n} m={m}");

        let a = seq(2 * n);
        let b: Vec<f32> = (0..2 * m).map(|i| -(i as f32)).collect();
        let c = [7.0f32, 8.0, 9.0, 10.0, 11.0, 12.0];
        let z = join3(&a, &b, &c).unwrap();
        let w = n + m + 3;
        assert_eq!(z.shape(), &[2, w]);
        for r in 0..2 {
            let row: Vec<f32> = a[r * n..(r + 1) * n]
                .iter()
                .chain(&b[r * m..(r + 1) * m])
                .chain(&c[r * 3..(r + 1) * 3])
                .map(|v| v * 2.0 + 1.0)
                .collect();
            assert_eq!(
                &z.as_slice()[r * w..(r + 1) * w],
                &row[..],
                "n={n} m={m} row {r}"
            );
        }

        let a = seq(n);
        let b: Vec<f32> = (0..m).map(|i| i as f32 * 3.0).collect();
        match cut(&a, &b) {
            Ok(y) => {
                let all: Vec<f32> = a.iter().chain(&b).copied().collect();
                assert_eq!(y.as_slice(), &all[1..], "n={n} m={m}");
            }
            Err(err) => {
                assert_eq!(n + m, 0, "{err}");
                assert!(err.to_string().contains("M + N - 1"), "{err}");
            }
        }

        let a64: Vec<f64> = (0..n).map(|i| i as f64 * 0.25).collect();
        let b64: Vec<f64> = (0..m).map(|i| 1.0 / (i as f64 + 1.0)).collect();
        let s = both_sum(&a64, &b64).unwrap().item();
        let want: f64 = a64.iter().chain(&b64).sum();
        assert!(
            (s - want).abs() <= 1e-12 * want.abs().max(1.0),
            "n={n} m={m}: {s} vs {want}"
        );
    }
    // The output of `append_into` must have `N + M` rows.
    let mut out = Tensor::<f32, Shape![_, 4]>::from_shape_vec([4, 4], vec![0.0; 16]).unwrap();
    let err = append_into(&seq(8), &seq(4), &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            ShapeError::ExprMismatch {
                size: 4,
                value: Some(3),
                ..
            }
        ),
        "{err:?}"
    );
}

graph! {
    fn pad_c(x: f32[N, 2]) -> f32[N + 3, 2] { pad(x, [1, 2, 0, 0], value = -1.0) }
    fn pad_e(x: i32[N]) -> i32[N + 4] { pad(x, [3, 1], mode = edge) }
    fn pad_r(x: i32[N]) -> i32[N + 4] { pad(x, [2, 2], mode = reflect) }
    fn tile2(x: f32[N, 3]) -> f32[2 * N, 3] { tile(x, [2, 1]) + 0.5 }
    /// 3 x 4 = 12 regions: built by broadcasting and a reshape.
    fn tile12(x: u8[N, M]) -> u8[3 * N, 4 * M] { tile(x, [3, 4]) }
}

/// NumPy's `pad` of a vector, written out: constant, edge, reflect.
fn pad_ref(x: &[i32], before: usize, after: usize, mode: &str, fill: i32) -> Vec<i32> {
    let n = x.len() as isize;
    (-(before as isize)..n + after as isize)
        .map(|i| {
            if (0..n).contains(&i) {
                return x[i as usize];
            }
            match mode {
                "edge" => x[i.clamp(0, n - 1) as usize],
                "reflect" => x[if i < 0 { -i } else { 2 * (n - 1) - i } as usize],
                _ => fill,
            }
        })
        .collect()
}

#[test]
fn pad_and_tile_of_names() {
    for n in [0usize, 1, 2, 3, 5, 9, 40] {
        let x = seq(2 * n);
        let y = pad_c(&x).unwrap();
        for c in 0..2 {
            let col: Vec<i32> = (0..n).map(|r| (x[2 * r + c] * 2.0) as i32).collect();
            let want = pad_ref(&col, 1, 2, "constant", -2);
            let got: Vec<i32> = (0..n + 3).map(|r| (y[[r, c]] * 2.0) as i32).collect();
            assert_eq!(got, want, "n={n} col {c}");
        }
        let xi: Vec<i32> = (0..n as i32).map(|i| i * 7 - 3).collect();
        match pad_e(&xi) {
            Ok(y) => assert_eq!(y.as_slice(), &pad_ref(&xi, 3, 1, "edge", 0)[..], "n={n}"),
            Err(err) => {
                assert_eq!(n, 0);
                assert!(
                    matches!(
                        err,
                        ShapeError::TooShort {
                            least: 1,
                            op: "pad",
                            ..
                        }
                    ),
                    "{err:?}"
                );
            }
        }
        match pad_r(&xi) {
            Ok(y) => assert_eq!(y.as_slice(), &pad_ref(&xi, 2, 2, "reflect", 0)[..], "n={n}"),
            Err(err) => {
                assert!(n < 3, "{err}");
                assert!(
                    matches!(err, ShapeError::TooShort { least: 3, .. }),
                    "{err:?}"
                );
            }
        }
        let x = seq(3 * n);
        let y = tile2(&x).unwrap();
        let want: Vec<f32> = x.iter().chain(&x).map(|v| v + 0.5).collect();
        assert_eq!(y.as_slice(), &want[..], "n={n}");
        for m in [0usize, 1, 3] {
            let x: Vec<u8> = (0..n * m).map(|i| i as u8).collect();
            let t = Tensor::<u8, Shape![_, _]>::from_shape_vec([n, m], x.clone()).unwrap();
            let y = tile12(&t).unwrap();
            assert_eq!(y.shape(), &[3 * n, 4 * m]);
            for r in 0..3 * n {
                for c in 0..4 * m {
                    assert_eq!(y[[r, c]], x[(r % n) * m + c % m], "n={n} m={m} at {r},{c}");
                }
            }
        }
    }
}

graph! {
    /// A `tile` of a `concat` along a name (soak seed 35, graph 724).
    fn tile_of_concat(p0: u32[2, 3], p1: u32[M, 3]) -> u32[2 * M + 4, 3] {
        let v0 = concat([p0, p1], axis = 0);
        tile(v0, [2, 1])
    }
    /// A reflect `pad` of a named axis inside a `concat` along another (graph 964).
    fn pad_in_concat(p0: i32[B, 9], p3: i32[B + 2, 2], p4: i32[B + 2, B]) -> i32[B + 2, B + 15] {
        let v3 = pad(p0, [1, 1, 1, 3], mode = reflect);
        concat([v3, p3, p4], axis = 1)
    }
    /// A clamped end hidden by the step's rounding: `(B - 3) / 3` is 0 at `B = 3`, but the
    /// end `-5` lies before the axis there (graph 1982).
    fn stepped_to_end(p0: f32[2, B]) -> f32[2, (B - 3) / 3] {
        slice(p0, axis = 1, start = 0, end = -5, step = 3)
    }
}

/// NumPy's reflect index of `i` in `0..n` padded by `before` (n > before).
fn reflect(i: isize, n: isize) -> usize {
    let j = if i < 0 {
        -i
    } else if i >= n {
        2 * (n - 1) - i
    } else {
        i
    };
    j as usize
}

#[test]
fn pieces_inside_pieces() {
    for m in [0usize, 1, 2, 5, 17] {
        let p0: Vec<u32> = (0..6).collect();
        let p1: Vec<u32> = (0..3 * m as u32).map(|i| 100 + i).collect();
        let y = tile_of_concat(&p0, &p1).unwrap();
        assert_eq!(y.shape(), &[2 * m + 4, 3]);
        let once: Vec<u32> = p0.iter().chain(&p1).copied().collect();
        let want: Vec<u32> = once.iter().chain(&once).copied().collect();
        assert_eq!(y.as_slice(), &want[..], "m = {m}");
    }
    for b in [2usize, 3, 4, 9] {
        let (rows, w) = (b + 2, b + 15);
        let p0: Vec<i32> = (0..(b * 9) as i32).collect();
        let p3: Vec<i32> = (0..(rows * 2) as i32).map(|i| -1 - i).collect();
        let p4: Vec<i32> = (0..(rows * b) as i32).map(|i| 1000 + i).collect();
        let p4 = TensorView::<i32, Shape![_, _]>::with_dims([rows, b], &p4).unwrap();
        let y = pad_in_concat(&p0, &p3, &p4).unwrap();
        assert_eq!(y.shape(), &[rows, w]);
        for r in 0..rows {
            let mut row: Vec<i32> = (0..13)
                .map(|c| {
                    let (i, j) = (reflect(r as isize - 1, b as isize), reflect(c - 1, 9));
                    p0[i * 9 + j]
                })
                .collect();
            row.extend_from_slice(&p3[r * 2..r * 2 + 2]);
            row.extend_from_slice(&p4.as_slice()[r * b..(r + 1) * b]);
            assert_eq!(
                &y.as_slice()[r * w..(r + 1) * w],
                &row[..],
                "b = {b} row {r}"
            );
        }
    }
    // A reflect pad of 1 needs 2 rows.
    let p4 = TensorView::<i32, Shape![_, _]>::with_dims([3, 1], &[0i32; 3]).unwrap();
    let err = pad_in_concat(&[0i32; 9][..], &[0i32; 6][..], &p4).unwrap_err();
    assert!(matches!(err, ShapeError::TooShort { .. }), "{err:?}");
}

#[test]
fn a_clamped_bound_is_an_err_whatever_the_length() {
    for b in [0usize, 1, 2, 3, 4] {
        let err = stepped_to_end(&vec![0.0f32; 2 * b][..]).unwrap_err();
        // Below 3 the length's expression is negative, which call entry finds first.
        assert!(
            match err {
                ShapeError::TooShort { size, least, .. } => size == b && least == 5 && b >= 3,
                ShapeError::NegativeDim { .. } => b < 3,
                _ => false,
            },
            "b = {b}: {err:?}"
        );
    }
    for b in [5usize, 6, 8, 9, 12] {
        let x: Vec<f32> = (0..2 * b).map(|i| i as f32).collect();
        let y = stepped_to_end(&x).unwrap();
        // NumPy: x[:, 0:b-5:3].
        let cols: Vec<usize> = (0..b - 5).step_by(3).collect();
        assert_eq!(y.shape(), &[2, cols.len()], "b = {b}");
        let want: Vec<f32> = (0..2)
            .flat_map(|r| cols.iter().map(move |&c| (r * b + c) as f32))
            .collect();
        assert_eq!(y.as_slice(), &want[..], "b = {b}");
    }
}

graph! {
    /// Dim expressions in `broadcast_to` and `reshape` targets.
    fn targets(x: f32[N], y: f32[N + 1]) -> f32[N + 1, N] {
        broadcast_to(x, [N + 1, N]) + reshape(y, [N + 1, 1]) * 10.0
    }
    fn column(x: f32[2 * N]) -> f32[2 * N, 1] { reshape(x, [N + N, 1]) }
}

#[test]
fn expressions_in_shape_targets() {
    for n in [0usize, 1, 4] {
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..=n).map(|i| i as f32).collect();
        let z = targets(&x, &y).unwrap();
        assert_eq!(z.shape(), &[n + 1, n]);
        let want: Vec<f32> = (0..=n)
            .flat_map(|r| (0..n).map(move |c| c as f32 + 10.0 * r as f32))
            .collect();
        assert_eq!(z.as_slice(), &want[..]);
        let w: Vec<f32> = (0..2 * n).map(|i| i as f32).collect();
        let h = column(&w).unwrap();
        assert_eq!((h.shape(), h.as_slice()), (&[2 * n, 1][..], &w[..]));
    }
}
