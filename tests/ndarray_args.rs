//! ndarray arrays as graph arguments (`--features ndarray`): standard layout runs in
//! place; transposed, broadcast and row-strided views are an `Err` that says
//! `.as_standard_layout()`, never a silent copy; `_into` writes into arrays in place.
#![cfg(feature = "ndarray")]

use ndarray::{s, Array1, Array2, ArrayD, IxDyn};
use tensorgraph::prelude::*;
use tensorgraph::ShapeError;

graph! {
    fn affine(x: f32[B, 4], w: f32[4]) -> f32[B, 4] { x * w + 1.0 }
    fn col_sum(x: f64[B, S]) -> f64[S] { sum(x, axis = 0) }
}

fn expected(x: &Array2<f32>, w: &[f32]) -> Vec<f32> {
    x.rows()
        .into_iter()
        .flat_map(|r| {
            r.iter()
                .zip(w)
                .map(|(a, b)| a * b + 1.0)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn standard_layout_arrays_and_views_run_in_place() {
    let x = Array2::from_shape_fn((5, 4), |(i, j)| (i * 4 + j) as f32 - 7.5);
    let w = Array1::from_vec(vec![0.5f32, -1.0, 2.0, 0.0]);
    let e = expected(&x, w.as_slice().unwrap());
    assert_eq!(affine(&x, &w).unwrap().as_slice(), &e[..]);
    assert_eq!(affine(x.view(), w.view()).unwrap().as_slice(), &e[..]);
    // A slice of whole rows is still standard layout.
    let rows = x.slice(s![1..3, ..]);
    assert_eq!(affine(rows, &w).unwrap().as_slice(), &e[4..12]);
    // Dynamic-rank arrays are checked at call entry.
    let xd: ArrayD<f32> = x.clone().into_dyn();
    assert_eq!(affine(&xd, &w).unwrap().as_slice(), &e[..]);
    let bad = ArrayD::<f32>::zeros(IxDyn(&[2, 2, 2]));
    assert!(matches!(affine(&bad, &w), Err(ShapeError::Rank { .. })));
}

#[test]
fn other_layouts_are_errors_with_the_fix() {
    let x = Array2::from_shape_fn((4, 4), |(i, j)| (i * 4 + j) as f32);
    let w = Array1::from_vec(vec![1.0f32; 4]);
    let wide = Array2::from_shape_fn((4, 8), |(i, j)| (i * 8 + j) as f32);
    for (what, view) in [
        ("transposed", x.t()),
        // Rows with a row stride and a unit inner stride: docs/language.md lets these run in
        // place; the kernels do not take a row stride yet (NOTES.md), so this is an `Err`.
        ("row-strided", wide.slice(s![.., ..4])),
        ("broadcast", w.broadcast((4, 4)).unwrap()),
        ("every other row", x.slice(s![..;2, ..])),
    ] {
        let err = affine(view, &w).unwrap_err();
        assert!(
            err.to_string().contains(".as_standard_layout()"),
            "{what}: {err}"
        );
    }
}

#[test]
fn outputs_are_written_into_arrays_in_place() {
    let x = Array2::from_shape_fn((3, 5), |(i, j)| (i as f64) * 10.0 + j as f64);
    let mut out = Array1::<f64>::zeros(5);
    col_sum_into(&x, &mut out).unwrap();
    assert_eq!(out.to_vec(), vec![30.0, 33.0, 36.0, 39.0, 42.0]);
    let mut big = Array2::<f64>::zeros((2, 5));
    col_sum_into(&x, big.row_mut(1)).unwrap();
    assert_eq!(big.row(1).to_vec(), vec![30.0, 33.0, 36.0, 39.0, 42.0]);
    // A wrong output length is an `Err` and writes nothing.
    let mut short = Array1::<f64>::from_elem(4, -1.0);
    assert!(col_sum_into(&x, &mut short).is_err());
    assert!(short.iter().all(|&v| v == -1.0));
    // Tensor <-> Array without copying.
    let t = Tensor::<f64, Shape![_, _]>::try_from(x.clone()).unwrap();
    assert_eq!(t.shape(), &[3, 5]);
    let back = t.into_ndarray();
    assert_eq!(back, x);
}

/// Random shapes, slices (steps, reversed axes), transposes and broadcasts as arguments of
/// a generated function: Ok with the right values exactly for a standard-layout array
/// with 4 columns, otherwise an `Err`, never a panic (issue 18, item 6).
#[test]
fn random_layouts_are_ok_and_correct_or_err() {
    use ndarray::{Axis, Slice};
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let mut rng = tensor_core::testing::Rng::new(0x5eed_0007);
    let mut next = |n: u64| rng.below(n);
    let w = Array1::from_vec(vec![0.5f32, -1.0, 2.0, 0.25]);
    let (mut ok, mut err) = (0, 0);
    for iter in 0..400 {
        // Half the arrays have the declared 4 columns, before any slicing.
        let (r, c) = (
            next(7) as usize,
            if next(2) == 0 { 4 } else { next(10) as usize },
        );
        let x = Array2::from_shape_fn((r, c), |(i, j)| (i * 16 + j) as f32 - 20.0);
        let mut v = x.view();
        let mut what = format!("#{iter} {r}x{c}");
        for axis in 0..2 {
            if next(3) == 0 {
                let len = v.len_of(Axis(axis)) as isize;
                let start = if len > 0 {
                    next(len as u64) as isize
                } else {
                    0
                };
                let step = [1, 1, 2, -1, 3][next(5) as usize];
                v.slice_axis_inplace(Axis(axis), Slice::new(start, None, step));
                what += &format!(", axis {axis} {start}..;{step}");
            }
        }
        if next(4) == 0 {
            v = v.reversed_axes();
            what += ", transposed";
        }
        let got = catch_unwind(AssertUnwindSafe(|| affine(v, &w)))
            .unwrap_or_else(|_| panic!("panicked on {what}"));
        let fits = v.ncols() == 4 && v.is_standard_layout();
        match got {
            Ok(t) => {
                assert!(
                    fits,
                    "{what}: Ok for {:?} strides {:?}",
                    v.shape(),
                    v.strides()
                );
                let want: Vec<f32> = v
                    .rows()
                    .into_iter()
                    .flat_map(|row| {
                        row.iter()
                            .zip(&w)
                            .map(|(a, b)| a * b + 1.0)
                            .collect::<Vec<_>>()
                    })
                    .collect();
                assert_eq!(t.as_slice(), &want[..], "{what}");
                ok += 1;
            }
            Err(e) => {
                assert!(!fits, "{what}: Err for a standard layout: {e}");
                err += 1;
            }
        }
        // A broadcast argument (stride 0) is refused, never read as if it were contiguous.
        if v.nrows() > 1 {
            let b = w.broadcast((v.nrows(), 4)).unwrap();
            let got = catch_unwind(AssertUnwindSafe(|| affine(b, &w)))
                .unwrap_or_else(|_| panic!("panicked on a broadcast, {what}"));
            assert!(got.is_err(), "{what}: a broadcast was accepted");
        }
    }
    assert!(ok > 30 && err > 30, "too few of each: {ok} Ok, {err} Err");
}

/// Issue 37: the closure form with names takes `&Array` (and `&ArrayView`) whose buffers are
/// made and dropped at every turn of a loop; each call borrows for itself.
#[test]
fn closure_with_names_takes_arrays_made_in_a_loop() {
    let g = graph!(|x: f32[R, 3], b: f32[3]| -> f32[R, 3] { x * 2.0 + b });
    let b = Array1::from(vec![1.0f32, 2.0, 3.0]);
    for rows in 0..4usize {
        let x = Array2::from_shape_fn((rows, 3), |(r, c)| (r * 3 + c) as f32);
        let y = g(&x, &b).unwrap();
        assert_eq!(y.shape(), &[rows, 3]);
        for r in 0..rows {
            for c in 0..3 {
                assert_eq!(y[[r, c]], (r * 3 + c) as f32 * 2.0 + (c + 1) as f32);
            }
        }
    }
}
