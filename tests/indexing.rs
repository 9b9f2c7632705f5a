//! `gather` (ONNX `Gather`, NumPy `take`) against a reference written out here: every
//! integer index dtype, negative indices, every axis, fused consumers, and every index out
//! of range an `Err` naming the op, the position and the value (never a panic, never a
//! read out of bounds), at the boundaries and at the extremes of the index dtype.

use tensorgraph::f16;
use tensorgraph::prelude::*;
use tensorgraph::ShapeError;

graph! {
    /// An embedding lookup fused with positions: no intermediate tensor.
    fn embed(table: f32[V, D], ids: i64[S], pos: f32[S, D]) -> f32[S, D] {
        gather(table, ids) + pos
    }
    fn embed_i32(table: f32[V, 8], ids: i32[S]) -> f32[S, 8] { gather(table, ids) * 2.0 }
    fn embed_u8(table: f64[5, 3], ids: u8[2, 2]) -> f64[2, 2, 3] { gather(table, ids) }
    /// Along the last axis: a lane-by-lane gather.
    fn columns(x: f32[R, C], ids: i64[K]) -> f32[R, K] { gather(x, ids, axis = 1) }
    /// Along a middle axis, indices of rank 2.
    fn middle(x: i32[2, 6, 3], ids: i16[2, 2]) -> i32[2, 2, 2, 3] { gather(x, ids, axis = -2) }
    /// A scalar index: the axis goes away.
    fn pick(x: f32[4, 3], i: u64[]) -> f32[3] { gather(x, i) }
    /// Computed data goes through a temp.
    fn computed(x: f32[N, 4], ids: i64[K]) -> f32[K, 4] { gather(exp(x) - 1.0, ids) }
    /// A reduction over gathered rows.
    fn bag(table: f32[V, 16], ids: i64[K]) -> f32[16] { sum(gather(table, ids), axis = 0) }
    /// Literal dims: still a `Result`, since the indices are checked.
    fn literal(table: f32[3, 2], ids: i64[4]) -> f32[4, 2] { gather(table, ids) }
    /// Rows stored unchanged: one row copy each (emit/nests.rs), f16 at a run-time width.
    fn rows_f16(table: f16[V, D], ids: i32[S]) -> f16[S, D] { gather(table, ids) }
}

/// NumPy's `take` along `axis` of a row-major `data` of `dims`, with ONNX's negatives.
fn take<T: Copy>(
    data: &[T],
    dims: &[usize],
    idx: &[i128],
    idx_dims: &[usize],
    axis: usize,
) -> Vec<T> {
    let outer: usize = dims[..axis].iter().product();
    let inner: usize = dims[axis + 1..].iter().product();
    let n = dims[axis] as i128;
    let count: usize = idx_dims.iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        for &i in idx.iter().take(count) {
            let i = if i < 0 { i + n } else { i } as usize;
            for k in 0..inner {
                out.push(data[(o * dims[axis] + i) * inner + k]);
            }
        }
    }
    out
}

fn floats(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 37 % 101) as f32) * 0.25 - 9.0)
        .collect()
}

#[test]
fn embedding_lookup_fused_with_positions() {
    for (v, d, s) in [
        (1usize, 1usize, 1usize),
        (7, 8, 5),
        (50, 33, 17),
        (1000, 768, 64),
        (3, 4, 0),
    ] {
        let table = floats(v * d);
        let ids: Vec<i64> = (0..s as i64)
            .map(|i| (i * 7919) % v as i64 - if i % 3 == 0 { v as i64 } else { 0 })
            .collect();
        let pos = floats(s * d);
        let t = Tensor::<f32, Shape![_, _]>::from_shape_vec([v, d], table.clone()).unwrap();
        let p = Tensor::<f32, Shape![_, _]>::from_shape_vec([s, d], pos.clone()).unwrap();
        let y = embed(&t, &ids, &p).unwrap();
        let idx: Vec<i128> = ids.iter().map(|&i| i as i128).collect();
        let want: Vec<f32> = take(&table, &[v, d], &idx, &[s], 0)
            .iter()
            .zip(&pos)
            .map(|(a, b)| a + b)
            .collect();
        assert_eq!(y.as_slice(), &want[..], "v={v} d={d} s={s}");
    }
}

#[test]
fn every_index_dtype_and_axis() {
    let table = floats(6 * 8);
    let t = Tensor::<f32, Shape![_, 8]>::from_shape_vec([6, 8], table.clone()).unwrap();
    let ids = [5i32, -6, 0, -1, 2];
    let y = embed_i32(&t, &ids[..]).unwrap();
    let idx: Vec<i128> = ids.iter().map(|&i| i as i128).collect();
    let want: Vec<f32> = take(&table, &[6, 8], &idx, &[5], 0)
        .iter()
        .map(|v| v * 2.0)
        .collect();
    assert_eq!(y.as_slice(), &want[..]);

    let t64: Vec<f64> = (0..15).map(|i| i as f64 * 1.5).collect();
    let ids = Tensor::<u8, Shape![2, 2]>::from_vec(vec![4, 0, 2, 2]).unwrap();
    let y = embed_u8(&Tensor::from_vec(t64.clone()).unwrap(), &ids).unwrap();
    assert_eq!(
        y.as_slice(),
        &take(&t64, &[5, 3], &[4, 0, 2, 2], &[2, 2], 0)[..]
    );

    for (r, c, k) in [
        (1usize, 1usize, 1usize),
        (3, 5, 9),
        (4, 17, 33),
        (2, 100, 7),
    ] {
        let x = floats(r * c);
        let ids: Vec<i64> = (0..k as i64)
            .map(|i| (i * 31) % c as i64 - if i % 2 == 1 { c as i64 } else { 0 })
            .collect();
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([r, c], x.clone()).unwrap();
        let y = columns(&xt, &ids).unwrap();
        let idx: Vec<i128> = ids.iter().map(|&i| i as i128).collect();
        assert_eq!(
            y.as_slice(),
            &take(&x, &[r, c], &idx, &[k], 1)[..],
            "r={r} c={c} k={k}"
        );
    }

    let x: Vec<i32> = (0..36).collect();
    let ids = Tensor::<i16, Shape![2, 2]>::from_vec(vec![-1, 0, 3, -6]).unwrap();
    let y = middle(&Tensor::from_vec(x.clone()).unwrap(), &ids).unwrap();
    assert_eq!(
        y.as_slice(),
        &take(&x, &[2, 6, 3], &[-1, 0, 3, -6], &[2, 2], 1)[..]
    );

    let x = floats(12);
    for i in 0..4u64 {
        let y = pick(
            &Tensor::from_vec(x.clone()).unwrap(),
            &Tensor::from_vec(vec![i]).unwrap(),
        )
        .unwrap();
        assert_eq!(y.as_slice(), &x[i as usize * 3..i as usize * 3 + 3]);
    }
}

#[test]
fn computed_data_and_reductions() {
    let (n, k) = (9usize, 12usize);
    let x = floats(n * 4);
    let ids: Vec<i64> = (0..k as i64).map(|i| (i * 5) % n as i64).collect();
    let xt = Tensor::<f32, Shape![_, 4]>::from_shape_vec([n, 4], x.clone()).unwrap();
    let y = computed(&xt, &ids).unwrap();
    let ex: Vec<f32> = x.iter().map(|v| v.exp() - 1.0).collect();
    let idx: Vec<i128> = ids.iter().map(|&i| i as i128).collect();
    let want = take(&ex, &[n, 4], &idx, &[k], 0);
    for (a, b) in y.as_slice().iter().zip(&want) {
        assert!(
            (a - b).abs() <= 4.0 * f32::EPSILON * b.abs().max(1.0),
            "{a} vs {b}"
        );
    }

    let table = floats(20 * 16);
    let t = Tensor::<f32, Shape![_, 16]>::from_shape_vec([20, 16], table.clone()).unwrap();
    let ids = [3i64, 3, -1, 0, 19, 7];
    let y = bag(&t, &ids[..]).unwrap();
    for c in 0..16 {
        let want: f64 = ids
            .iter()
            .map(|&i| table[((i + 20) % 20) as usize * 16 + c] as f64)
            .sum();
        assert!((y[[c]] as f64 - want).abs() <= 1e-5 * want.abs().max(1.0));
    }
}

#[test]
fn indices_out_of_range_are_errors() {
    let t = Tensor::<f32, Shape![3, 2]>::from_vec(floats(6)).unwrap();
    let ok = literal(&t, &Tensor::from_vec(vec![0, 2, -3, -1]).unwrap()).unwrap();
    assert_eq!(
        ok.as_slice(),
        &take(&floats(6), &[3, 2], &[0, 2, -3, -1], &[4], 0)[..]
    );
    for bad in [3i64, -4, i64::MAX, i64::MIN, 1 << 40] {
        let ids = Tensor::from_vec(vec![0, 1, bad, 2]).unwrap();
        let err = literal(&t, &ids).unwrap_err();
        match &err {
            ShapeError::IndexOutOfRange {
                op: "gather",
                arg: "ids",
                position,
                value,
                len: 3,
                ..
            } => {
                assert_eq!(position, "[2]");
                assert_eq!(*value, bad as i128);
            }
            other => panic!("{other:?}"),
        }
        let text = err.to_string();
        assert!(
            text.contains("`gather` reads index") && text.contains("valid: -3..3"),
            "{text}"
        );
    }
    // Every index dtype at its extremes; an empty axis has no valid index at all.
    let t6 = Tensor::<f32, Shape![_, 8]>::from_shape_vec([6, 8], floats(48)).unwrap();
    for bad in [i32::MAX, i32::MIN, 6, -7] {
        assert!(matches!(
            embed_i32(&t6, &[1, bad][..]),
            Err(ShapeError::IndexOutOfRange { .. })
        ));
    }
    let empty = Tensor::<f32, Shape![_, 8]>::from_shape_vec([0, 8], vec![]).unwrap();
    assert!(matches!(
        embed_i32(&empty, &[0][..]),
        Err(ShapeError::IndexOutOfRange { len: 0, .. })
    ));
    assert_eq!(embed_i32(&empty, &[][..]).unwrap().shape(), &[0, 8]);
    let t5 = Tensor::<f64, Shape![5, 3]>::from_vec(vec![0.0; 15]).unwrap();
    let ids = Tensor::<u8, Shape![2, 2]>::from_vec(vec![0, 1, 255, 5]).unwrap();
    let err = embed_u8(&t5, &ids).unwrap_err();
    assert!(
        matches!(&err, ShapeError::IndexOutOfRange { value: 255, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("[1, 0]"), "{err}");
    // Into an output: nothing written on an error.
    let mut out = Tensor::<f32, Shape![4, 2]>::full(7.0);
    assert!(literal_into(&t, &Tensor::from_vec(vec![0, 0, 0, 9]).unwrap(), &mut out).is_err());
    assert!(out.as_slice().iter().all(|&v| v == 7.0));
}

graph! {
    /// Row passes over gathered rows (a softmax per row), and a block function (exp).
    fn soft(table: f32[V, D], ids: i64[S]) -> (f32[S, D], f32[S, D]) {
        (softmax(gather(table, ids), axis = -1), exp(gather(table, ids)))
    }
}

#[test]
fn gathered_rows_through_row_passes_and_threads() {
    // 600 x 768 = 460,800 elements: above the thread split.
    for (v, d, s) in [(10usize, 5usize, 3usize), (300, 768, 600), (7, 1000, 2)] {
        let table: Vec<f32> = (0..v * d)
            .map(|i| ((i * 13 % 97) as f32) * 0.05 - 2.0)
            .collect();
        let ids: Vec<i64> = (0..s as i64).map(|i| (i * 17 + 3) % v as i64).collect();
        let t = Tensor::<f32, Shape![_, _]>::from_shape_vec([v, d], table.clone()).unwrap();
        let (sm, ex) = soft(&t, &ids).unwrap();
        for (r, &i) in ids.iter().enumerate() {
            let row = &table[i as usize * d..(i as usize + 1) * d];
            let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
            let z: f64 = row.iter().map(|&x| (x as f64 - m).exp()).sum();
            for c in 0..d {
                let want = ((row[c] as f64 - m).exp() / z) as f32;
                let got = sm.as_slice()[r * d + c];
                assert!(
                    (got - want).abs() <= 4e-6 * want.abs().max(1e-30) + 1e-9,
                    "softmax {r},{c}: {got} vs {want}"
                );
                let e = ex.as_slice()[r * d + c];
                let want_e = (row[c] as f64).exp() as f32;
                assert!(
                    (e - want_e).abs() <= 2.0 * f32::EPSILON * want_e.abs(),
                    "exp {r},{c}: {e} vs {want_e}"
                );
            }
        }
    }
}

graph! {
    fn along_rows(x: i32[3, 3], ids: i64[2, 3]) -> i32[2, 3] { gather_elements(x, ids) }
    fn along_cols(x: f32[N, C], ids: i32[N, K]) -> f32[N, K] { gather_elements(x, ids, axis = 1) * 1.0 }
}

#[test]
fn gather_elements_as_onnx() {
    // ONNX's GatherElements examples.
    let x = Tensor::<i32, Shape![3, 3]>::from_vec((1..=9).collect()).unwrap();
    let ids = Tensor::<i64, Shape![2, 3]>::from_vec(vec![1, 2, 0, 2, 0, 0]).unwrap();
    assert_eq!(
        along_rows(&x, &ids).unwrap().as_slice(),
        &[4, 8, 3, 7, 2, 3]
    );
    let ids = Tensor::<i64, Shape![2, 3]>::from_vec(vec![-1, -2, 0, -3, 0, 0]).unwrap();
    assert_eq!(
        along_rows(&x, &ids).unwrap().as_slice(),
        &[7, 5, 3, 1, 2, 3]
    );
    let bad = Tensor::<i64, Shape![2, 3]>::from_vec(vec![0, 0, 0, 0, 3, 0]).unwrap();
    let err = along_rows(&x, &bad).unwrap_err();
    assert!(
        matches!(
            &err,
            ShapeError::IndexOutOfRange {
                op: "gather_elements",
                value: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("[1, 1]"), "{err}");
    for (n, c, k) in [
        (1usize, 1usize, 1usize),
        (2, 2, 2),
        (5, 9, 3),
        (4, 40, 19),
        (300, 64, 33),
    ] {
        let x = floats(n * c);
        let ids: Vec<i32> = (0..(n * k) as i32)
            .map(|i| (i * 7) % c as i32 - if i % 4 == 0 { c as i32 } else { 0 })
            .collect();
        let xt = Tensor::<f32, Shape![_, _]>::from_shape_vec([n, c], x.clone()).unwrap();
        let it = Tensor::<i32, Shape![_, _]>::from_shape_vec([n, k], ids.clone()).unwrap();
        let y = along_cols(&xt, &it).unwrap();
        for r in 0..n {
            for j in 0..k {
                let i = ids[r * k + j];
                let i = if i < 0 { i + c as i32 } else { i } as usize;
                assert_eq!(y[[r, j]], x[r * c + i], "n={n} c={c} k={k} at {r},{j}");
            }
        }
    }
}

graph! {
    fn scatter_cols(x: f32[N, 5], ids: i64[N, 2], up: f32[N, 2]) -> (f32[N, 5], f32[N, 5]) {
        (scatter_elements(x, ids, up, axis = 1), scatter_elements(x, ids, up, axis = 1, reduction = add))
    }
    fn scatter_rows(x: i32[4, 4, 4], ids: i64[2, 1], up: i32[2, 4, 4]) -> (i32[4, 4, 4], i32[4, 4, 4]) {
        (scatter_nd(x, ids, up), scatter_nd(x, ids, up, reduction = max))
    }
    fn pick_nd(x: f64[2, 2, 3], ids: u8[2, 1]) -> f64[2, 3] { gather_nd(x, ids, batch_dims = 1) }
    fn pick_points(x: i64[3, 4], ids: i32[5, 2]) -> i64[5] { gather_nd(x, ids) }
}

#[test]
fn scatters_and_gather_nd_as_onnx() {
    for n in [1usize, 3, 8] {
        let x: Vec<f32> = (0..n * 5).map(|i| i as f32).collect();
        let ids: Vec<i64> = (0..n * 2)
            .map(|i| [(i % 5) as i64, -1, 2, 2][i % 4])
            .collect();
        let up: Vec<f32> = (0..n * 2).map(|i| 100.0 + i as f32).collect();
        let t =
            |v: Vec<f32>, c: usize| Tensor::<f32, Shape![_, _]>::from_shape_vec([n, c], v).unwrap();
        let it = Tensor::<i64, Shape![_, _]>::from_shape_vec([n, 2], ids.clone()).unwrap();
        let (plain, added) = scatter_cols(&t(x.clone(), 5), &it, &t(up.clone(), 2)).unwrap();
        let mut want_plain = x.clone();
        let mut want_add = x.clone();
        for r in 0..n {
            for j in 0..2 {
                let i = ids[r * 2 + j];
                let c = if i < 0 { i + 5 } else { i } as usize;
                // Duplicates: the last update in index order wins.
                want_plain[r * 5 + c] = up[r * 2 + j];
                want_add[r * 5 + c] += up[r * 2 + j];
            }
        }
        assert_eq!(plain.as_slice(), &want_plain[..], "n={n}");
        assert_eq!(added.as_slice(), &want_add[..], "n={n}");
        let bad = Tensor::<i64, Shape![_, _]>::from_shape_vec([n, 2], vec![5; n * 2]).unwrap();
        assert!(matches!(
            scatter_cols(&t(x.clone(), 5), &bad, &t(up.clone(), 2)),
            Err(ShapeError::IndexOutOfRange { .. })
        ));
    }
    // ONNX ScatterND's example.
    let x: Vec<i32> = (0..64)
        .map(|i| [1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1][i % 16])
        .collect();
    let up: Vec<i32> = (0..32).map(|i| if i < 16 { 5 } else { 6 }).collect();
    let (a, b) = scatter_rows(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(vec![0, 2]).unwrap(),
        &Tensor::from_vec(up.clone()).unwrap(),
    )
    .unwrap();
    assert_eq!(&a.as_slice()[..16], &[5; 16]);
    assert_eq!(&a.as_slice()[16..32], &x[16..32]);
    assert_eq!(&a.as_slice()[32..48], &[6; 16]);
    let want_max: Vec<i32> = (0..16).map(|i| x[32 + i].max(6)).collect();
    assert_eq!(&b.as_slice()[32..48], &want_max[..]);
    assert!(scatter_rows(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(vec![0, -5]).unwrap(),
        &Tensor::from_vec(up).unwrap()
    )
    .is_err());
    // GatherND with batch_dims = 1 (ONNX's example 5 shape), and point tuples.
    let x: Vec<f64> = (0..12).map(|i| i as f64).collect();
    let y = pick_nd(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(vec![1, 0]).unwrap(),
    )
    .unwrap();
    assert_eq!(y.as_slice(), &[3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let x: Vec<i64> = (0..12).collect();
    let ids = Tensor::<i32, Shape![5, 2]>::from_vec(vec![0, 0, 2, 3, -1, -1, 1, 2, -3, 0]).unwrap();
    let y = pick_points(&Tensor::from_vec(x.clone()).unwrap(), &ids).unwrap();
    assert_eq!(y.as_slice(), &[0, 11, 11, 6, 0]);
    let bad = Tensor::<i32, Shape![5, 2]>::from_vec(vec![0, 0, 2, 4, 0, 0, 0, 0, 0, 0]).unwrap();
    let err = pick_points(&Tensor::from_vec(x).unwrap(), &bad).unwrap_err();
    assert!(
        matches!(
            &err,
            ShapeError::IndexOutOfRange {
                value: 4,
                len: 4,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("[1, 1]"), "{err}");
}

graph! {
    /// Found by the random-graph generator: a flip over an elementwise gather walked its
    /// data backwards with an overflowing (debug) address sum.
    fn flipped(x: f32[2, 4], i: i64[2, 4]) -> f32[2, 4] { flip(gather_elements(x, i, axis = 0), axis = 1) }
    /// Found by the generator: a flip of an empty axis over pieces (the macro panicked).
    fn empty_flip(x: f32[2, 3]) -> f32[0, 3] { flip(tile(pad(x, [1, 0, 0, 0]), [0, 1]), axis = 0) }
}

#[test]
fn flips_over_gathers_and_empty_pieces() {
    let x: Vec<f32> = (0..8).map(|v| v as f32).collect();
    let ids: Vec<i64> = vec![1, 0, -1, 0, 0, 1, 1, -2];
    let y = flipped(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(ids.clone()).unwrap(),
    )
    .unwrap();
    for r in 0..2 {
        for c in 0..4 {
            // flip along axis 1: output column c reads column 3 - c.
            let cc = 3 - c;
            let i = ids[r * 4 + cc];
            let row = if i < 0 { i + 2 } else { i } as usize;
            assert_eq!(y[[r, c]], x[row * 4 + cc], "at {r},{c}");
        }
    }
    assert_eq!(
        empty_flip(&Tensor::from_vec(vec![0.0; 6]).unwrap()).shape(),
        &[0, 3]
    );
}

#[test]
fn rows_stored_unchanged_are_copied_bit_for_bit() {
    for (v, d) in [(7usize, 1usize), (7, 16), (5, 37), (3, 0)] {
        // NaN payloads and signed zeros too: a row copy moves bits.
        let table: Vec<f16> = (0..v * d)
            .map(|i| match i % 5 {
                0 => f16::from_bits(0x7e01 + i as u16),
                1 => f16::from_bits(0x8000),
                _ => f16::from_f64(i as f64 * 0.25 - 3.0),
            })
            .collect();
        let ids: Vec<i32> = vec![0, -1, 2, -(v as i32), 1, 1];
        let t = Tensor::<f16, Shape![_, _]>::from_shape_vec([v, d], table.clone()).unwrap();
        let i = Tensor::<i32, Shape![_]>::from_shape_vec([ids.len()], ids.clone()).unwrap();
        let y = rows_f16(&t, &i).unwrap();
        let idx: Vec<i128> = ids.iter().map(|&x| x as i128).collect();
        let want = take(&table, &[v, d], &idx, &[ids.len()], 0);
        let bits = |x: &[f16]| x.iter().map(|h| h.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(y.as_slice()), bits(&want), "v={v} d={d}");
    }
}
