//! Kernels above the parallel threshold (2^18 elements): rows are split into tasks (threads
//! with the default `parallel` feature). Results must equal the reference exactly as for
//! small kernels: each task writes its own rows, accumulation order within a row is the
//! same as the single-threaded kernel's. Reductions over an outer axis accumulate partial
//! rows (a fixed number, chosen by the shape), so their float sums are checked against a
//! bound, and against themselves on one and two threads.

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
    /// Reductions over the outer axis. `max` and the sum: rows cut into 8 partial rows of
    /// 256 (tasks), combined in order. `argmax` keeps the column split (3 blocks of 128).
    fn col_reductions(x: f32[2048, 384]) -> (f32[384], i64[384], f64[384]) {
        (max(x, axis = 0), argmax(x, axis = 0), sum(x, axis = 0, dtype = f64))
    }
    /// 2052 rows: 4 partial rows of 513. Integer sums are exact in any order.
    fn col_sums_int(x: i32[2052, 256], y: u8[2052, 256]) -> (i64[256], u64[256], f64[256]) {
        (sum(x, axis = 0), sum(y, axis = 0), mean(x, axis = 0))
    }
    /// Axes 0 and 1 of 3 reduced, the inner one kept: 64 × 32 rows into 8 partial rows.
    fn col_prod_3d(x: f64[64, 32, 128]) -> (f64[128], bool[128]) {
        (prod(x, axis = [0, 1]), any(x > 0.9999, axis = [0, 1]))
    }
}

#[test]
fn outer_axis_reductions_split_across_threads() {
    let x = Tensor::<f32, Shape![2048, 384]>::from_vec(f32::random(2048 * 384, 11)).unwrap();
    let (mx, am, s) = col_reductions(&x);
    for j in 0..384 {
        let col: Vec<f32> = (0..2048).map(|i| x[[i, j]]).collect();
        let m = col.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(mx[[j]].to_bits(), m.to_bits(), "max of column {j}");
        let first = col.iter().position(|&v| v == m).unwrap() as i64;
        assert_eq!(am[[j]], first, "argmax of column {j}");
        // Any order of 2048 f64 additions of f32 values is within (n + 2)·eps·Σ|x| of the
        // exact sum (ACCURACY.md); the f64 sum here is the reference, within the same.
        let e: f64 = col.iter().map(|&v| v as f64).sum();
        let bound =
            2.0 * 2050.0 * f64::EPSILON * col.iter().map(|&v| (v as f64).abs()).sum::<f64>();
        assert!(
            (s[[j]] - e).abs() <= bound,
            "sum of column {j}: {} vs {e}",
            s[[j]]
        );
    }

    let a = Tensor::<i32, Shape![2052, 256]>::from_vec(i32::random(2052 * 256, 12)).unwrap();
    let b = Tensor::<u8, Shape![2052, 256]>::from_vec(u8::random(2052 * 256, 13)).unwrap();
    let (si, su, mean) = col_sums_int(&a, &b);
    for j in 0..256 {
        let e: i64 = (0..2052).map(|i| a[[i, j]] as i64).sum();
        assert_eq!(si[[j]], e, "i32 sum of column {j}");
        let e: u64 = (0..2052).map(|i| b[[i, j]] as u64).sum();
        assert_eq!(su[[j]], e, "u8 sum of column {j}");
        // The i64 sum is exact; the mean is its f64 quotient.
        let e = (0..2052).map(|i| a[[i, j]] as i64).sum::<i64>() as f64 / 2052.0;
        assert_eq!(mean[[j]], e, "mean of column {j}");
    }

    let z: Vec<f64> = f64::random(64 * 32 * 128, 14)
        .into_iter()
        .map(|v| 1.0 + (v % 1.0).abs() * 1e-3)
        .collect();
    let z = Tensor::<f64, Shape![64, 32, 128]>::from_vec(z).unwrap();
    let (p, any) = col_prod_3d(&z);
    for k in 0..128 {
        let col: Vec<f64> = (0..64 * 32).map(|r| z[[r / 32, r % 32, k]]).collect();
        let e: f64 = col.iter().product();
        assert!(
            (p[[k]] - e).abs() <= 2050.0 * f64::EPSILON * e,
            "prod of column {k}"
        );
        assert_eq!(
            any[[k]],
            col.iter().any(|&v| v > 0.9999),
            "any of column {k}"
        );
    }
}

graph! {
    /// A run-time row count: the kept columns are cut into 3 blocks of 128 and the split is
    /// decided at call entry from the work (2048 × 384 here: split; 8 × 384: not).
    fn col_sums_named(x: f32[B, 384]) -> (f64[384], f32[384]) {
        (sum(x, axis = 0, dtype = f64), max(x, axis = 0))
    }
}

#[test]
fn outer_axis_reductions_of_named_rows() {
    for rows in [2048usize, 8, 1] {
        let x = f32::random(rows * 384, 16);
        let (s, m) = col_sums_named(&x[..]).unwrap();
        for j in 0..384 {
            // Each column's accumulator sees the rows in order: the sequential f64 sum.
            let e: f64 = (0..rows).map(|i| x[i * 384 + j] as f64).sum();
            assert_eq!(s[[j]], e, "{rows} rows: sum of column {j}");
            let e = (0..rows)
                .map(|i| x[i * 384 + j])
                .fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(
                m[[j]].to_bits(),
                e.to_bits(),
                "{rows} rows: max of column {j}"
            );
        }
    }
}

/// The partial rows depend on the shape only: one thread and two give the same bits.
#[test]
fn outer_axis_sums_do_not_depend_on_the_thread_count() {
    let x = Tensor::<f32, Shape![2048, 384]>::from_vec(f32::random(2048 * 384, 15)).unwrap();
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (m1, a1, s1) = pool(1).install(|| col_reductions(&x));
    let (m2, a2, s2) = pool(2).install(|| col_reductions(&x));
    assert_eq!(m1.as_slice(), m2.as_slice());
    assert_eq!(a1.as_slice(), a2.as_slice());
    let bits = |t: &[f64]| t.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(s1.as_slice()), bits(s2.as_slice()));
}

graph! {
    /// 32 MiB + 8 MiB of outputs: stored with streaming stores (`emit::STREAM_MIN_BYTES`),
    /// an odd length, so every row has a head and a tail of ordinary stores.
    fn beyond_cache(a: f32[8388613], b: f32[8388613]) -> (f32[8388613], bool[8388613]) {
        (relu(a + b) * 2.0, a > b)
    }
    /// 32 MiB in rows of 4096 (whole chunks: without a head, no tail), split into tasks.
    fn beyond_cache_rows(a: f32[2048, 4096], b: f32[4096]) -> f32[2048, 4096] {
        a * b - 1.0
    }
}

/// Streaming stores write what ordinary stores write, whatever the outputs' alignment
/// (views shifted by 0..16 elements into their buffers).
#[test]
fn outputs_beyond_the_cache_stream() {
    const N: usize = 8388613;
    let a = f32::random(N, 21);
    let b = f32::random(N, 22);
    let mut y_buf = vec![0.0f32; N + 16];
    let mut gt_buf = vec![false; N + 16];
    for shift in [0usize, 1, 3, 8, 15] {
        y_buf.iter_mut().for_each(|v| *v = f32::NAN);
        let mut y =
            TensorViewMut::<f32, Shape![8388613]>::new(&mut y_buf[shift..shift + N]).unwrap();
        let mut gt =
            TensorViewMut::<bool, Shape![8388613]>::new(&mut gt_buf[16 - shift..16 - shift + N])
                .unwrap();
        let av = TensorView::<f32, Shape![8388613]>::new(&a).unwrap();
        let bv = TensorView::<f32, Shape![8388613]>::new(&b).unwrap();
        beyond_cache_into(&av, &bv, &mut y, &mut gt);
        for i in 0..N {
            let want = (a[i] + b[i]).max(0.0) * 2.0;
            assert_eq!(
                y_buf[shift + i].to_bits(),
                want.to_bits(),
                "shift {shift}, at {i}"
            );
            assert_eq!(gt_buf[16 - shift + i], a[i] > b[i], "shift {shift}, at {i}");
        }
        // Nothing written outside the view.
        assert!(y_buf[..shift]
            .iter()
            .chain(&y_buf[shift + N..])
            .all(|v| v.is_nan()));
    }

    // Rows of whole chunks: each row's head shifts its chunks and leaves a tail.
    const R: usize = 2048 * 4096;
    let a = f32::random(R, 23);
    let b = f32::random(4096, 24);
    let mut y_buf = vec![0.0f32; R + 16];
    let av = TensorView::<f32, Shape![2048, 4096]>::new(&a).unwrap();
    let bv = TensorView::<f32, Shape![4096]>::new(&b).unwrap();
    for shift in [0usize, 5, 12] {
        y_buf.iter_mut().for_each(|v| *v = f32::NAN);
        let mut y =
            TensorViewMut::<f32, Shape![2048, 4096]>::new(&mut y_buf[shift..shift + R]).unwrap();
        beyond_cache_rows_into(&av, &bv, &mut y);
        for i in 0..R {
            let want = a[i] * b[i % 4096] - 1.0;
            assert_eq!(
                y_buf[shift + i].to_bits(),
                want.to_bits(),
                "shift {shift}, at {i}"
            );
        }
        assert!(y_buf[..shift]
            .iter()
            .chain(&y_buf[shift + R..])
            .all(|v| v.is_nan()));
    }
}
