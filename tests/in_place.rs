//! Graphs that update `mut` parameters in place (tensor-macros/src/emit/in_place.rs): the
//! updated values against the same formulas computed here, statement order (a later
//! statement reads the new value), updates that read other elements (`flip`, a mean), a
//! graph with names and one with index parameters (an `Err` leaves the tensors as they
//! were), and no allocation after the first call.

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations;
use tensorgraph::prelude::*;
graph! {
    /// Plain SGD.
    fn sgd(mut w: f32[4, 3], g: f32[4, 3], lr: f32) {
        w = w - lr * g;
    }

    /// Adam over a run-time length: `m` and `v` are updated first and `w` reads their new
    /// values.
    fn adam(mut w: f32[N], mut m: f32[N], mut v: f32[N], g: f32[N], lr: f32, c1: f32, c2: f32) {
        m = 0.9 * m + 0.1 * g;
        v = 0.999 * v + 0.001 * (g * g);
        w = w - lr * (m / c1) / (sqrt(v / c2) + 1e-8);
    }

    /// Updates that read other elements than their own.
    fn reorder(mut a: f64[5], mut b: f64[2, 3]) {
        a = flip(a, axis = 0);
        b = b - mean(b, axis = 1, keepdims = true) + a[0:3];
    }

    /// An embedding update through index parameters.
    fn embed_step(mut table: f32[V, 2], ids: i64[S], g: f32[S, 2], lr: f32) {
        table = scatter_nd(table, expand_dims(ids, 1), g * -lr, reduction = add);
    }
}

#[test]
fn sgd_updates_in_place() {
    let w0: Vec<f32> = (0..12).map(|i| i as f32 * 0.5).collect();
    let g: Vec<f32> = (0..12).map(|i| (i as f32 - 6.0) * 0.25).collect();
    let mut w = Tensor::<f32, Shape![4, 3]>::from_vec(w0.clone()).unwrap();
    let gt = Tensor::<f32, Shape![4, 3]>::from_vec(g.clone()).unwrap();
    sgd(&mut w, &gt, 0.1);
    for i in 0..12 {
        assert_eq!(w.as_slice()[i], w0[i] - 0.1 * g[i]);
    }
}

#[test]
fn adam_reads_the_updated_moments() -> Result<(), tensorgraph::ShapeError> {
    let n = 37;
    let g: Vec<f32> = (0..n).map(|i| ((i * 7) % 11) as f32 * 0.1 - 0.5).collect();
    let mut w =
        Tensor::<f32, Shape![_]>::from_shape_vec([n], (0..n).map(|i| i as f32 * 0.01).collect())?;
    let mut m = Tensor::<f32, Shape![_]>::from_shape_vec([n], vec![0.05; n])?;
    let mut v = Tensor::<f32, Shape![_]>::from_shape_vec([n], vec![0.01; n])?;
    let (w0, m0, v0) = (
        w.as_slice().to_vec(),
        m.as_slice().to_vec(),
        v.as_slice().to_vec(),
    );
    adam(&mut w, &mut m, &mut v, &g, 0.01, 0.1, 0.001)?;
    for i in 0..n {
        let m1 = 0.9f32 * m0[i] + 0.1 * g[i];
        let v1 = 0.999f32 * v0[i] + 0.001 * (g[i] * g[i]);
        let w1 = w0[i] - 0.01 * (m1 / 0.1) / ((v1 / 0.001).sqrt() + 1e-8);
        assert_eq!(
            (m.as_slice()[i], v.as_slice()[i], w.as_slice()[i]),
            (m1, v1, w1),
            "element {i}"
        );
    }
    // A gradient of another length is an `Err`, and nothing is written.
    let before = w.as_slice().to_vec();
    assert!(adam(&mut w, &mut m, &mut v, &g[..n - 1], 0.01, 0.1, 0.001).is_err());
    assert_eq!(w.as_slice(), &before[..]);
    Ok(())
}

#[test]
fn updates_that_read_other_elements() {
    let mut a = Tensor::<f64, Shape![5]>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
    let mut b = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1.0, 2.0, 6.0, -1.0, 0.0, 4.0]).unwrap();
    reorder(&mut a, &mut b);
    assert_eq!(a.as_slice(), &[5.0, 4.0, 3.0, 2.0, 1.0]);
    // Row means 3 and 1; then + the new a[0:3] = [5, 4, 3].
    assert_eq!(
        b.as_slice(),
        &[
            1.0 - 3.0 + 5.0,
            2.0 - 3.0 + 4.0,
            6.0 - 3.0 + 3.0,
            -1.0 - 1.0 + 5.0,
            0.0 - 1.0 + 4.0,
            4.0 - 1.0 + 3.0
        ]
    );
}

#[test]
fn index_updates_check_their_indices_first() -> Result<(), tensorgraph::ShapeError> {
    let mut table = Tensor::<f32, Shape![_, 2]>::from_shape_vec([3, 2], vec![1.0; 6])?;
    let g =
        Tensor::<f32, Shape![_, 2]>::from_shape_vec([3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    embed_step(&mut table, &[2i64, 0, 2][..], &g, 0.5)?;
    assert_eq!(
        table.as_slice(),
        &[
            1.0 - 1.5,
            1.0 - 2.0,
            1.0,
            1.0,
            1.0 - 0.5 - 2.5,
            1.0 - 1.0 - 3.0
        ]
    );
    let before = table.as_slice().to_vec();
    assert!(embed_step(&mut table, &[0i64, 3, 1][..], &g, 0.5).is_err());
    assert_eq!(table.as_slice(), &before[..]);
    Ok(())
}

#[test]
fn a_step_allocates_only_on_its_first_call() -> Result<(), tensorgraph::ShapeError> {
    let n = 4096;
    let g = vec![0.5f32; n];
    let mut w = Tensor::<f32, Shape![_]>::from_shape_vec([n], vec![1.0; n])?;
    let mut m = Tensor::<f32, Shape![_]>::from_shape_vec([n], vec![0.0; n])?;
    let mut v = Tensor::<f32, Shape![_]>::from_shape_vec([n], vec![0.0; n])?;
    adam(&mut w, &mut m, &mut v, &g, 0.01, 0.1, 0.001)?;
    let before = allocations();
    for _ in 0..5 {
        adam(&mut w, &mut m, &mut v, &g, 0.01, 0.1, 0.001)?;
    }
    assert_eq!(allocations() - before, 0, "an in-place step allocated");
    let mut w2 = Tensor::<f32, Shape![4, 3]>::zeros();
    let g2 = Tensor::<f32, Shape![4, 3]>::zeros();
    sgd(&mut w2, &g2, 0.1);
    let before = allocations();
    sgd(&mut w2, &g2, 0.1);
    assert_eq!(allocations() - before, 0, "sgd allocated");
    Ok(())
}
