//! Kernels above the parallel threshold (2^18 elements): rows are split into tasks (threads
//! with the default `parallel` feature). Results must equal the reference exactly as for
//! small kernels: each task writes its own rows, accumulation order within a row is the
//! same as the single-threaded kernel's.

mod common;
use common::*;
use tensorgraph::prelude::*;

graph! {
    /// Flat: one loop of 2^20, split into rows of 2^16.
    fn flat(a: f32[1048576], b: f32[1048576]) -> (f32[1048576], bool[1048576]) {
        (relu(a + b) * 2.0, a > b)
    }
    fn rows(x: f32[1024, 512], g: f32[512], c: f32[1024, 1]) -> f32[1024, 512] {
        x * g + c
    }
    fn row_sums(x: f32[1024, 512]) -> (f32[1024], f32[512]) {
        (sum(x, axis = 1), sum(x, axis = 0))
    }
    fn row_softmax(x: f32[512, 1024]) -> f32[512, 1024] {
        softmax(x, axis = 1)
    }
    fn odd_rows(x: i32[1031, 509], y: i32[509]) -> i32[1031, 509] {
        x * y - 3
    }
}

#[test]
fn flat_kernels_split_into_rows() {
    let a = Tensor::<f32, Shape![1048576]>::from_vec(f32::random(1 << 20, 1)).unwrap();
    let b = Tensor::<f32, Shape![1048576]>::from_vec(f32::random(1 << 20, 2)).unwrap();
    let (y, gt) = flat(&a, &b);
    for i in 0..(1 << 20) {
        let (x, z) = (a.as_slice()[i], b.as_slice()[i]);
        assert_eq!(
            y.as_slice()[i].to_bits(),
            ((x + z).max(0.0) * 2.0).to_bits(),
            "at {i}"
        );
        assert_eq!(gt.as_slice()[i], x > z);
    }
}

#[test]
fn broadcast_rows_split_into_tasks() {
    let x = Tensor::<f32, Shape![1024, 512]>::from_vec(f32::random(1 << 19, 3)).unwrap();
    let g = Tensor::<f32, Shape![512]>::from_vec(f32::random(512, 4)).unwrap();
    let c = Tensor::<f32, Shape![1024, 1]>::from_vec(f32::random(1024, 5)).unwrap();
    let y = rows(&x, &g, &c);
    for i in 0..1024 {
        for j in 0..512 {
            assert_eq!(
                y[[i, j]].to_bits(),
                (x[[i, j]] * g[[j]] + c[[i, 0]]).to_bits(),
                "{i},{j}"
            );
        }
    }
    let p = Tensor::<i32, Shape![1031, 509]>::from_vec(i32::random(1031 * 509, 6)).unwrap();
    let q = Tensor::<i32, Shape![509]>::from_vec(i32::random(509, 7)).unwrap();
    let r = odd_rows(&p, &q);
    for i in 0..1031 {
        for j in 0..509 {
            assert_eq!(r[[i, j]], p[[i, j]].wrapping_mul(q[[j]]).wrapping_sub(3));
        }
    }
}

#[test]
fn reductions_and_softmax_split_into_tasks() {
    let x = Tensor::<f32, Shape![1024, 512]>::from_vec(f32::random(1 << 19, 8)).unwrap();
    let (rs, cs) = row_sums(&x);
    for i in 0..1024 {
        let e: f64 = (0..512).map(|j| x[[i, j]] as f64).sum();
        assert!(
            (rs[[i]] as f64 - e).abs() <= 1e-6 * e.abs().max(1.0),
            "row {i}"
        );
    }
    for j in 0..512 {
        let e: f64 = (0..1024).map(|i| x[[i, j]] as f64).sum();
        assert!(
            (cs[[j]] as f64 - e).abs() <= 1e-6 * e.abs().max(1.0),
            "col {j}"
        );
    }
    let z = Tensor::<f32, Shape![512, 1024]>::from_vec(
        f32::random(1 << 19, 9)
            .iter()
            .map(|v| v.clamp(-50.0, 50.0))
            .collect(),
    )
    .unwrap();
    let sm = row_softmax(&z);
    for i in (0..512).step_by(7) {
        let row: Vec<f64> = (0..1024).map(|j| z[[i, j]] as f64).collect();
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for j in 0..1024 {
            let e = (row[j] - m).exp() / s;
            // f32 rounds `x - max` to within half an ulp of |x - max|, which exp turns into
            // a relative error of that size: the tolerance grows with the distance to the max.
            let tolerance = (4.0 + (row[j] - m).abs()) * f32::EPSILON as f64;
            assert!(
                (sm[[i, j]] as f64 - e).abs() <= tolerance * e + 1e-38,
                "softmax {i},{j}: {} vs {e}",
                sm[[i, j]]
            );
        }
    }
}

graph! {
    /// Reductions over the outer axis: the kept columns are cut into blocks of 128, one
    /// task each (384 = 3 blocks).
    fn col_reductions(x: f32[2048, 384]) -> (f32[384], i64[384], f64[384]) {
        (max(x, axis = 0), argmax(x, axis = 0), sum(x, axis = 0, dtype = f64))
    }
}

#[test]
fn outer_axis_reductions_split_their_columns() {
    let x = Tensor::<f32, Shape![2048, 384]>::from_vec(f32::random(2048 * 384, 11)).unwrap();
    let (mx, am, s) = col_reductions(&x);
    for j in 0..384 {
        let col: Vec<f32> = (0..2048).map(|i| x[[i, j]]).collect();
        let m = col.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(mx[[j]].to_bits(), m.to_bits(), "max of column {j}");
        let first = col.iter().position(|&v| v == m).unwrap() as i64;
        assert_eq!(am[[j]], first, "argmax of column {j}");
        // The f64 accumulator sees the rows in order: the same sum as this loop.
        let e: f64 = col.iter().map(|&v| v as f64).sum();
        assert_eq!(s[[j]], e, "sum of column {j}");
    }
}
