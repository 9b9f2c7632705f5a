//! `top_k`, `sort` and `argsort` against a reference ranking written out here (a stable
//! sort by value, NaN above every number, ties by the lower position), over every axis,
//! both directions, symbolic lengths, ties, NaN and several dtypes.

use tensorgraph::prelude::*;
use tensorgraph::{f16, ShapeError};

graph! {
    fn best3(x: f32[N, 7]) -> (f32[N, 3], i64[N, 3]) { top_k(x, k = 3) }
    fn worst2_axis0(x: i32[5, M]) -> (i32[2, M], i64[2, M]) { top_k(x, k = 2, axis = 0, largest = false) }
    fn sorted_rows(x: f64[R, C]) -> (f64[R, C], i64[R, C], f64[R, C]) {
        (sort(x), argsort(x, descending = true), sort(x, axis = 0) * 2.0)
    }
    fn best_of_named(x: u8[N]) -> (u8[4], i64[4]) {
        let (v, i) = top_k(x, k = 4);
        (v, i)
    }
    fn halfs(x: f16[9]) -> f16[9] { sort(x, descending = true) }
}

/// The positions of `line` in rank order.
fn ranked<T: PartialOrd + Copy>(line: &[T], largest: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..line.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (line[a], line[b]);
        #[allow(clippy::eq_op)]
        let (xn, yn) = (x != x, y != y);
        let asc = match (xn, yn) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => x.partial_cmp(&y).unwrap(),
        };
        (if largest { asc.reverse() } else { asc }).then(a.cmp(&b))
    });
    order
}

fn same_f32(a: f32, b: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

#[test]
fn top_k_of_rows() {
    for n in [0usize, 1, 2, 5, 40] {
        let x: Vec<f32> = (0..n * 7)
            .map(|i| match i % 11 {
                3 => f32::NAN,
                5 | 6 => 1.5, // ties
                v => (v as f32 - 4.0) * ((i / 7) as f32 + 1.0),
            })
            .collect();
        let (v, ix) = best3(&x).unwrap();
        for r in 0..n {
            let line = &x[r * 7..(r + 1) * 7];
            let order = ranked(line, true);
            for j in 0..3 {
                assert_eq!(ix[[r, j]], order[j] as i64, "row {r}: {line:?}");
                assert!(same_f32(v[[r, j]], line[order[j]]));
            }
        }
    }
}

#[test]
fn smallest_along_axis_0_and_sorts() {
    for m in [1usize, 3, 10] {
        let x: Vec<i32> = (0..5 * m as i32).map(|i| (i * 7919) % 13 - 6).collect();
        let xt = Tensor::<i32, Shape![5, _]>::from_shape_vec([5, m], x.clone()).unwrap();
        let (v, ix) = worst2_axis0(&xt).unwrap();
        for c in 0..m {
            let col: Vec<i32> = (0..5).map(|r| x[r * m + c]).collect();
            let order = ranked(&col, false);
            for j in 0..2 {
                assert_eq!(ix[[j, c]], order[j] as i64);
                assert_eq!(v[[j, c]], col[order[j]]);
            }
        }
    }
    for (r, c) in [(1usize, 1usize), (3, 4), (2, 33), (17, 5)] {
        let x: Vec<f64> = (0..r * c).map(|i| ((i * 37) % 23) as f64 - 11.0).collect();
        let xt = Tensor::<f64, Shape![_, _]>::from_shape_vec([r, c], x.clone()).unwrap();
        let (s, a, s0) = sorted_rows(&xt).unwrap();
        for i in 0..r {
            let line = &x[i * c..(i + 1) * c];
            let asc = ranked(line, false);
            let desc = ranked(line, true);
            for j in 0..c {
                assert_eq!(s[[i, j]], line[asc[j]]);
                assert_eq!(a[[i, j]], desc[j] as i64);
            }
        }
        for j in 0..c {
            let col: Vec<f64> = (0..r).map(|i| x[i * c + j]).collect();
            let asc = ranked(&col, false);
            for i in 0..r {
                assert_eq!(s0[[i, j]], col[asc[i]] * 2.0);
            }
        }
    }
}

#[test]
fn named_lengths_and_other_dtypes() {
    let x: Vec<u8> = vec![3, 250, 7, 7, 0, 250, 1];
    let (v, i) = best_of_named(&x).unwrap();
    assert_eq!(v.as_slice(), &[250, 250, 7, 7]);
    assert_eq!(i.as_slice(), &[1, 5, 2, 3]);
    // Fewer than k elements: an `Err` naming `top_k`, not a panic.
    let err = best_of_named(&x[..3]).unwrap_err();
    assert!(
        matches!(
            err,
            ShapeError::TooShort {
                least: 4,
                op: "top_k",
                ..
            }
        ),
        "{err:?}"
    );

    let h: Vec<f16> = [
        0.5f32,
        -1.0,
        f32::NAN,
        2.0,
        -0.0,
        0.0,
        65504.0,
        -65504.0,
        1.0,
    ]
    .iter()
    .map(|&v| f16::from_f32(v))
    .collect();
    let s = halfs(&Tensor::from_vec(h.clone()).unwrap());
    let order = ranked(&h.iter().map(|v| v.to_f32()).collect::<Vec<_>>(), true);
    for (j, &o) in order.iter().enumerate() {
        let (got, want) = (s.as_slice()[j], h[o]);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{j}: {got} vs {want}"
        );
    }
}
