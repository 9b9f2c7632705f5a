//! ndarray arrays as graph arguments (`--features ndarray`): standard layout and row-strided
//! views (a column block of a wider array, rows a pitch apart with a unit inner stride) run
//! in place; transposed, broadcast, reversed views and outer axes that do not merge into rows
//! are an `Err` that says `.as_standard_layout()`, never a silent copy; `_into` writes into
//! arrays in place.
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
    // Rows with a row stride and a unit inner stride run in place (`row_strided_*` below).
    assert!(affine(wide.slice(s![.., ..4]), &w).is_ok());
    assert!(affine(x.slice(s![..;2, ..]), &w).is_ok());
    for (what, view) in [
        ("transposed", x.t()),
        ("broadcast", w.broadcast((4, 4)).unwrap()),
        ("reversed rows", x.slice(s![..;-1, ..])),
        ("every other column", wide.slice(s![.., ..;2])),
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
        // Standard layout, or rows a positive pitch apart with a unit inner stride.
        let fits = v.ncols() == 4
            && (v.is_standard_layout() || (v.strides()[1] == 1 && v.strides()[0] >= 4));
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

// Row-strided views (issue 35, item 7): each graph below runs on a column block of a wider
// array and must give what it gives on `.as_standard_layout()` of the same view.
graph! {
    fn ew(x: f32[B, S], y: f32[B, S]) -> f32[B, S] { exp(x * 0.01) * y + x }
    fn ew_lit(x: f32[B, 8], b: f32[8]) -> f32[B, 8] { relu(x - b) * 2.0 }
    fn row_sum(x: f32[B, S]) -> f32[B] { sum(x, axis = 1) }
    fn col_max(x: f32[B, S]) -> f32[S] { max(x, axis = 0) }
    fn total(x: f64[B, S]) -> f64[] { sum(x) }
    fn softmax_rows(x: f32[B, 40]) -> f32[B, 40] { softmax(x, axis = 1) }
    fn mm(a: f32[M, K], b: f32[K, N]) -> f32[M, N] { a @ b }
    fn mm_bias(a: f32[M, 16], w: f32[16, 8], bias: f32[8]) -> f32[M, 8] { relu(a @ w + bias) }
    fn e3(x: f32[A, B, C]) -> f32[A, B, C] { x * 2.0 + 1.0 }
    fn r3(x: f32[A, B, 6]) -> f32[A, B] { max(x, axis = 2) }
}

/// A `rows × cols` block of a `rows × (cols + extra)` array: rows `cols + extra` apart.
fn block(rows: usize, cols: usize, extra: usize, seed: f32) -> Array2<f32> {
    Array2::from_shape_fn((rows, cols + extra), |(i, j)| {
        ((i * 31 + j * 7) % 97) as f32 * 0.37 - 15.0 + seed
    })
}

fn close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let tol = 1e-5 * x.abs().max(y.abs()).max(1.0);
        assert!((x - y).abs() <= tol, "{what}: [{k}] {x} vs {y}");
    }
}

/// Rows 0, 1, 7, 33 and 300 × 1000 (above the thread split of 2^18 elements).
const ROWS: [usize; 5] = [0, 1, 7, 33, 300];

#[test]
fn row_strided_inputs_run_in_place_elementwise() {
    for &rows in &ROWS {
        for &cols in &[0usize, 1, 7, 33, 1000] {
            if rows * cols > 400_000 || (rows == 300 && cols != 1000) {
                continue;
            }
            let what = format!("{rows}x{cols}");
            let (xa, ya) = (block(rows, cols, 5, 0.0), block(rows, cols, 3, 1.5));
            let (x, y) = (xa.slice(s![.., ..cols]), ya.slice(s![.., 2..cols + 2]));
            if rows > 1 && cols > 0 {
                assert!(!x.is_standard_layout() && !y.is_standard_layout(), "{what}");
            }
            let (xs, ys) = (x.as_standard_layout(), y.as_standard_layout());
            let want = ew(&xs, &ys).unwrap();
            assert_eq!(ew(x, y).unwrap().as_slice(), want.as_slice(), "{what}");
            // One argument strided, the other standard.
            assert_eq!(ew(&xs, y).unwrap().as_slice(), want.as_slice(), "{what}");
            assert_eq!(ew(x, &ys).unwrap().as_slice(), want.as_slice(), "{what}");
            let want = row_sum(&xs).unwrap();
            close(row_sum(x).unwrap().as_slice(), want.as_slice(), &what);
            if rows > 0 {
                let want = col_max(&xs).unwrap();
                assert_eq!(col_max(x).unwrap().as_slice(), want.as_slice(), "{what}");
            }
            let x64 = xa.mapv(f64::from);
            let x64 = x64.slice(s![.., 1..cols + 1]);
            let got = total(x64).unwrap()[[]];
            let want = total(&x64.as_standard_layout()).unwrap()[[]];
            assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{what}");
        }
        // Literal inner dims: a column block of 8 (of 13), and softmax rows of 40 (of 64).
        let what = format!("{rows} rows, literal");
        let xa = block(rows, 8, 5, 0.0);
        let b = Array1::from_shape_fn(8, |j| j as f32 - 3.0);
        let x = xa.slice(s![.., 5..]);
        let want = ew_lit(&x.as_standard_layout(), &b).unwrap();
        assert_eq!(ew_lit(x, &b).unwrap().as_slice(), want.as_slice(), "{what}");
        let rows_big = if rows == 300 { 7000 } else { rows };
        let sa = block(rows_big, 40, 24, 0.5);
        let sx = sa.slice(s![.., ..40]);
        let want = softmax_rows(&sx.as_standard_layout()).unwrap();
        assert_eq!(
            softmax_rows(sx).unwrap().as_slice(),
            want.as_slice(),
            "{what}"
        );
    }
}

#[test]
fn row_strided_inputs_run_in_place_matmul() {
    for &m in &ROWS {
        for &(k, n) in &[(1usize, 1usize), (7, 33), (33, 7), (64, 96)] {
            let what = format!("{m}x{k} @ {k}x{n}");
            let aa = block(m, k, 9, 0.0);
            let ba = block(k, n, 4, -2.0);
            let (a, b) = (aa.slice(s![.., 3..k + 3]), ba.slice(s![.., ..n]));
            let want = mm(&a.as_standard_layout(), &b.as_standard_layout()).unwrap();
            close(mm(a, b).unwrap().as_slice(), want.as_slice(), &what);
            close(
                mm(a, &b.as_standard_layout()).unwrap().as_slice(),
                want.as_slice(),
                &what,
            );
        }
        let m_big = if m == 300 { 20_000 } else { m };
        let aa = block(m_big, 16, 16, 0.0);
        let a = aa.slice(s![.., 16..]);
        let wa = block(16, 8, 8, 1.0);
        let w = wa.slice(s![.., ..8]);
        let bias = Array1::from_shape_fn(8, |j| j as f32);
        let want = mm_bias(&a.as_standard_layout(), &w.as_standard_layout(), &bias).unwrap();
        close(
            mm_bias(a, w, &bias).unwrap().as_slice(),
            want.as_slice(),
            &format!("{m_big} rows, bias"),
        );
    }
}

#[test]
fn row_strided_3d_inputs_sliced_on_the_last_axis() {
    for &a in &[0usize, 1, 7, 33, 300] {
        let b = if a == 300 { 150 } else { 3 };
        let what = format!("{a}x{b}");
        let xa = ndarray::Array3::from_shape_fn((a, b, 10), |(i, j, k)| {
            ((i * 53 + j * 11 + k * 3) % 89) as f32 * 0.5 - 20.0
        });
        let x = xa.slice(s![.., .., 2..8]);
        let xs = x.as_standard_layout();
        assert_eq!(
            e3(x).unwrap().as_slice(),
            e3(&xs).unwrap().as_slice(),
            "{what}"
        );
        assert_eq!(
            r3(x).unwrap().as_slice(),
            r3(&xs).unwrap().as_slice(),
            "{what}"
        );
        // The middle axis sliced too: its rows do not merge with the outer axis's (stride
        // 30 is not 2 × 10), so this stays an `Err`.
        if a > 1 {
            let odd = xa.slice(s![.., ..2, 2..8]);
            if b > 2 {
                let err = r3(odd).unwrap_err();
                assert!(err.to_string().contains(".as_standard_layout()"), "{err}");
            }
        }
        // Every other row of the middle axis of a 1-long outer axis merges (pitch 20).
        if a == 0 {
            continue;
        }
        let one = xa.slice(s![..1, ..;2, ..6]);
        assert_eq!(
            e3(one).unwrap().as_slice(),
            e3(&one.as_standard_layout()).unwrap().as_slice(),
            "{what}"
        );
    }
}

/// Checks that `wide`'s columns `lo..lo + n` hold `want` and every other element is still
/// `fill`: the gaps between the rows of an output view are never written.
fn written_block(wide: &Array2<f32>, lo: usize, n: usize, want: &[f32], fill: f32, what: &str) {
    let got = wide
        .slice(s![.., lo..lo + n])
        .as_standard_layout()
        .to_owned();
    assert_eq!(got.as_slice().unwrap(), want, "{what}");
    for ((_, j), &v) in wide.indexed_iter() {
        if j < lo || j >= lo + n {
            assert_eq!(v, fill, "{what}: column {j} was written");
        }
    }
}

#[test]
fn row_strided_outputs_are_written_in_place() {
    for &rows in &ROWS {
        for &cols in &[0usize, 1, 7, 33, 1000] {
            if rows * cols > 400_000 || (rows == 300 && cols != 1000) {
                continue;
            }
            let what = format!("{rows}x{cols}");
            let (xa, ya) = (block(rows, cols, 5, 0.0), block(rows, cols, 3, 1.5));
            let (x, y) = (xa.slice(s![.., ..cols]), ya.slice(s![.., 2..cols + 2]));
            let want = ew(&x.as_standard_layout(), &y.as_standard_layout()).unwrap();
            // Strided inputs and output, and a standard input with a strided output.
            let mut wide = Array2::from_elem((rows, cols + 6), -7.0f32);
            ew_into(x, y, wide.slice_mut(s![.., 3..cols + 3])).unwrap();
            written_block(&wide, 3, cols, want.as_slice(), -7.0, &what);
            let mut wide = Array2::from_elem((rows, cols + 6), -7.0f32);
            ew_into(
                &x.as_standard_layout(),
                &y.as_standard_layout(),
                wide.slice_mut(s![.., 3..cols + 3]),
            )
            .unwrap();
            written_block(&wide, 3, cols, want.as_slice(), -7.0, &what);
            // An owned array sliced in place, through `&mut`.
            let mut owned = Array2::from_elem((rows, cols + 6), -7.0f32);
            owned.slice_collapse(s![.., ..cols]);
            ew_into(x, y, &mut owned).unwrap();
            assert_eq!(
                owned.as_standard_layout().as_slice().unwrap(),
                want.as_slice(),
                "{what}"
            );
        }
        let what = format!("{rows} rows, literal");
        let xa = block(rows, 8, 5, 0.0);
        let b = Array1::from_shape_fn(8, |j| j as f32 - 3.0);
        let x = xa.slice(s![.., 5..]);
        let want = ew_lit(&x.as_standard_layout(), &b).unwrap();
        let mut wide = Array2::from_elem((rows, 12), 9.0f32);
        ew_lit_into(x, &b, wide.slice_mut(s![.., 4..])).unwrap();
        written_block(&wide, 4, 8, want.as_slice(), 9.0, &what);
        let rows_big = if rows == 300 { 7000 } else { rows };
        let sa = block(rows_big, 40, 24, 0.5);
        let sx = sa.slice(s![.., ..40]);
        let want = softmax_rows(&sx.as_standard_layout()).unwrap();
        let mut wide = Array2::from_elem((rows_big, 64), 9.0f32);
        softmax_rows_into(sx, wide.slice_mut(s![.., 24..])).unwrap();
        written_block(&wide, 24, 40, want.as_slice(), 9.0, &what);
        // In place over its own input's storage is impossible (borrows); into the other
        // columns of the same storage works.
        let mut both = block(rows_big, 40, 40, 0.5);
        let want = softmax_rows(&both.slice(s![.., ..40]).as_standard_layout()).unwrap();
        {
            let (src, dst) = both.multi_slice_mut((s![.., ..40], s![.., 40..]));
            softmax_rows_into(src.view(), dst).unwrap();
        }
        let got = both.slice(s![.., 40..]).as_standard_layout().to_owned();
        assert_eq!(
            got.as_slice().unwrap(),
            want.as_slice(),
            "{what}, same storage"
        );
        // A product with its epilogue, threads above 20 000 rows.
        let m_big = if rows == 300 { 20_000 } else { rows };
        let aa = block(m_big, 16, 16, 0.0);
        let a = aa.slice(s![.., 16..]);
        let wa = block(16, 8, 8, 1.0);
        let w = wa.slice(s![.., ..8]);
        let bias = Array1::from_shape_fn(8, |j| j as f32);
        let want = mm_bias(&a.as_standard_layout(), &w.as_standard_layout(), &bias).unwrap();
        let mut wide = Array2::from_elem((m_big, 11), 9.0f32);
        mm_bias_into(a, w, &bias, wide.slice_mut(s![.., 1..9])).unwrap();
        let got = wide.slice(s![.., 1..9]).as_standard_layout().to_owned();
        close(got.as_slice().unwrap(), want.as_slice(), &what);
        assert!(wide.column(0).iter().all(|&v| v == 9.0));
        assert!(wide.slice(s![.., 9..]).iter().all(|&v| v == 9.0));
        // Matrix products of names into a column block.
        let (k, n) = (7, 33);
        let aa = block(rows, k, 9, 0.0);
        let ba = block(k, n, 4, -2.0);
        let (a, b) = (aa.slice(s![.., 3..k + 3]), ba.slice(s![.., ..n]));
        let want = mm(&a.as_standard_layout(), &b.as_standard_layout()).unwrap();
        let mut wide = Array2::from_elem((rows, n + 2), 9.0f32);
        mm_into(a, b, wide.slice_mut(s![.., 2..])).unwrap();
        let got = wide.slice(s![.., 2..]).as_standard_layout().to_owned();
        close(got.as_slice().unwrap(), want.as_slice(), &what);
    }
}

#[test]
fn row_strided_3d_outputs_sliced_on_the_last_axis() {
    for &a in &[0usize, 1, 7, 33, 300] {
        let b = if a == 300 { 150 } else { 3 };
        let what = format!("{a}x{b}");
        let xa = ndarray::Array3::from_shape_fn((a, b, 10), |(i, j, k)| {
            ((i * 53 + j * 11 + k * 3) % 89) as f32 * 0.5 - 20.0
        });
        let x = xa.slice(s![.., .., 2..8]);
        let xs = x.as_standard_layout();
        let mut out = ndarray::Array3::from_elem((a, b, 9), 5.0f32);
        e3_into(x, out.slice_mut(s![.., .., 1..7])).unwrap();
        let got = out.slice(s![.., .., 1..7]).as_standard_layout().to_owned();
        assert_eq!(
            got.as_slice().unwrap(),
            e3(&xs).unwrap().as_slice(),
            "{what}"
        );
        assert!(out.slice(s![.., .., ..1]).iter().all(|&v| v == 5.0));
        assert!(out.slice(s![.., .., 7..]).iter().all(|&v| v == 5.0));
        // A 2-D output: a column block of `[a, b + 4]`.
        let mut out = Array2::from_elem((a, b + 4), 5.0f32);
        r3_into(x, out.slice_mut(s![.., 2..b + 2])).unwrap();
        let got = out.slice(s![.., 2..b + 2]).as_standard_layout().to_owned();
        assert_eq!(
            got.as_slice().unwrap(),
            r3(&xs).unwrap().as_slice(),
            "{what}"
        );
        assert!(out.slice(s![.., ..2]).iter().all(|&v| v == 5.0));
        assert!(out.slice(s![.., b + 2..]).iter().all(|&v| v == 5.0));
    }
}

#[test]
fn other_output_layouts_are_still_refused() {
    let x = Array2::from_shape_fn((4, 4), |(i, j)| (i * 4 + j) as f32);
    let w = Array1::from_vec(vec![1.0f32; 4]);
    let mut wide = Array2::<f32>::from_elem((4, 8), -1.0);
    let mut square = Array2::<f32>::from_elem((4, 4), -1.0);
    for (what, result) in [
        (
            "transposed",
            affine_into(&x, &w, square.view_mut().reversed_axes()),
        ),
        (
            "reversed rows",
            affine_into(&x, &w, square.slice_mut(s![..;-1, ..])),
        ),
        (
            "every other column",
            affine_into(&x, &w, wide.slice_mut(s![.., ..;2])),
        ),
    ] {
        let err = result.unwrap_err();
        assert!(err.to_string().contains("standard-layout"), "{what}: {err}");
    }
    assert!(wide.iter().chain(&square).all(|&v| v == -1.0));
    // A 1-D output with a stride: `col_sum`'s output has rank 1, no rows to pitch.
    let xs = Array2::from_shape_fn((3, 5), |(i, j)| (i * 5 + j) as f64);
    let mut strided = Array1::<f64>::from_elem(10, -1.0);
    let err = col_sum_into(&xs, strided.slice_mut(s![..;2])).unwrap_err();
    assert!(err.to_string().contains("standard"), "{err}");
    assert!(strided.iter().all(|&v| v == -1.0));
}

graph! {
    /// Only the output has rows: `f` allocates it contiguous, `_into` may take a column block.
    fn outer(a: f32[M], b: f32[N]) -> f32[M, N] { expand_dims(a, 1) * b }
}

#[test]
fn row_strided_output_of_a_graph_with_only_rank_1_inputs() {
    let a = Array1::from_shape_fn(5, |i| i as f32);
    let b = Array1::from_shape_fn(3, |j| j as f32 + 1.0);
    let want = outer(&a, &b).unwrap();
    let mut wide = Array2::from_elem((5, 7), -1.0f32);
    outer_into(&a, &b, wide.slice_mut(s![.., 2..5])).unwrap();
    written_block(&wide, 2, 3, want.as_slice(), -1.0, "outer");
}

graph! {
    fn conv_rows(x: f32[N, 2, 5, 6], w: f32[3, 2, 3, 3], b: f32[3]) -> f32[N, 3, 5, 6] {
        relu(conv(x, w, b, pads = [1, 1, 1, 1]))
    }
}

/// A row-strided input to `conv` on the GEMM engine (the last axis a column block of a
/// wider array: the pitched kernel's symbolic strides reach the implicit im2col) against
/// the convolution written out in f64.
#[test]
fn row_strided_inputs_to_conv_run_in_place() {
    use ndarray::Array4;
    let n = 2;
    let xa = Array4::from_shape_fn((n, 2, 5, 9), |(a, c, h, w)| {
        ((a * 131 + c * 31 + h * 7 + w * 3) % 53) as f32 * 0.1 - 2.5
    });
    let x = xa.slice(s![.., .., .., 2..8]);
    assert!(!x.is_standard_layout());
    let w: Vec<f32> = (0..54)
        .map(|i| ((i * 17) % 23) as f32 * 0.05 - 0.5)
        .collect();
    let b = [0.25f32, -0.5, 0.0];
    let y = conv_rows(x, &w[..], &b[..]).unwrap();
    let mut want = Vec::new();
    for a in 0..n {
        for o in 0..3 {
            for i in 0..5 {
                for j in 0..6 {
                    let mut acc = b[o] as f64;
                    for c in 0..2 {
                        for (u, v) in (0..3).flat_map(|u| (0..3).map(move |v| (u, v))) {
                            let (r, q) = (i as isize + u as isize - 1, j as isize + v as isize - 1);
                            if (0..5).contains(&r) && (0..6).contains(&q) {
                                acc += x[[a, c, r as usize, q as usize]] as f64
                                    * w[((o * 2 + c) * 3 + u) * 3 + v] as f64;
                            }
                        }
                    }
                    want.push(acc.max(0.0) as f32);
                }
            }
        }
    }
    close(y.as_slice(), &want, "pitched conv");
}

graph! {
    fn pool_rows(x: f32[N, 2, 5, 6]) -> f32[N, 2, 3, 3] {
        max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1])
    }
}

/// A row-strided input to `max_pool`'s runtime pass (which reads whole row-major planes:
/// lowering does not take the pitched kernel for it) against ONNX's definition in f64.
#[test]
fn row_strided_inputs_to_max_pool() {
    use ndarray::Array4;
    let n = 2;
    let xa = Array4::from_shape_fn((n, 2, 5, 9), |(a, c, h, w)| {
        ((a * 131 + c * 31 + h * 7 + w * 3) % 53) as f32 * 0.1 - 2.5
    });
    let x = xa.slice(s![.., .., .., 2..8]);
    assert!(!x.is_standard_layout());
    let y = pool_rows(x).unwrap();
    let mut want = Vec::new();
    for a in 0..n {
        for c in 0..2 {
            for i in 0..3 {
                for j in 0..3 {
                    let mut m = f64::NEG_INFINITY;
                    for (u, v) in (0..3).flat_map(|u| (0..3).map(move |v| (u, v))) {
                        let (r, q) = (2 * i as isize + u - 1, 2 * j as isize + v - 1);
                        if (0..5).contains(&r) && (0..6).contains(&q) {
                            m = m.max(x[[a, c, r as usize, q as usize]] as f64);
                        }
                    }
                    want.push(m as f32);
                }
            }
        }
    }
    close(y.as_slice(), &want, "pitched max_pool");
}
