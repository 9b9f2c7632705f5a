//! Run-time inputs never panic (issue 18, item 6): random lengths, dims and argument kinds
//! thrown at generated functions with symbolic dims (elementwise with broadcasting,
//! reductions, reorganisation, matmul, a scan) and at the run-time constructors. Each call
//! must either succeed with the values of a scalar reference computed here, or return an
//! `Err` — and it must return `Err` exactly when the inputs do not fit the signature (the
//! test knows which dims it made disagree). A panic anywhere fails the test with the case.
//!
//! Values are small integers (as floats where the dtype is a float), so every sum, product
//! and matmul below is exact in any order and the comparisons are bit for bit.

mod common;
use common::xorshift;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tensorgraph::prelude::*;
use tensorgraph::{Element, ShapeError};

graph! {
    /// Elementwise over two names, a `[S]` row and a `[B, 1]` column broadcast.
    fn ew(x: f32[B, S], y: f32[S], s: f32[B, 1]) -> f32[B, S] { (x + y) * s - 1.0 }
    /// Reductions along both axes; `max`/`argmax` need a nonempty axis.
    fn red(x: f32[B, S]) -> (f32[B], f32[B], i64[B], f32[S]) {
        (sum(x, axis = 1), max(x, axis = 1), argmax(x, axis = 1), min(x, axis = 0))
    }
    /// Reorganisation: a flip and a transpose, and a slice with literal bounds on a named
    /// axis (the call checks that `S ≥ 3`).
    fn reorg(x: i32[B, S]) -> (i32[S, B], i32[B, 2]) {
        (transpose(flip(x, axis = 0), [1, 0]), slice(x, axis = 1, start = 1, end = 3))
    }
    /// Matmul over three names.
    fn mm(a: f32[M, K], b: f32[K, N]) -> f32[M, N] { a @ b }
    /// A scan along a named axis; the argument may be a flat slice (one name).
    fn scan(x: i32[N, 3]) -> i64[N, 3] { cumsum(x, axis = 0) }
    /// An output of `A·C` elements from inputs with no elements (`Z = 0`).
    fn outer_sum(a: f32[A, Z], c: f32[C, Z]) -> f32[A, C] {
        sum(expand_dims(a, 1) + expand_dims(c, 0), axis = 2)
    }
}

/// `n` rounds natively, a tenth under Miri (which runs this file: NOTES.md,
/// "Undefined-behaviour checks").
fn rounds(n: usize) -> usize {
    if cfg!(miri) {
        n / 10
    } else {
        n
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        xorshift(&mut self.0) % n
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
    /// A dim: mostly 0..=5, sometimes up to 17 (past a lane count and a tile).
    fn dim(&mut self) -> usize {
        if self.chance(5) {
            self.below(18) as usize
        } else {
            self.below(6) as usize
        }
    }
    /// `want`, or with probability 1/`one_in` another dim.
    fn maybe_off(&mut self, want: usize, one_in: u64) -> usize {
        if self.chance(one_in) {
            self.dim()
        } else {
            want
        }
    }
    fn ints(&mut self, n: usize) -> Vec<i32> {
        (0..n).map(|_| self.below(17) as i32 - 8).collect()
    }
    fn floats(&mut self, n: usize) -> Vec<f32> {
        self.ints(n).into_iter().map(|v| v as f32).collect()
    }
}

/// Calls `f`, failing the test with `case` if it panics.
fn no_panic<R>(case: &str, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("panicked on {case}: {msg}");
        }
    }
}

/// A dynamic rank-2 tensor of dims `[r, c]` from `data` (row-major, `r·c` long).
fn tensor2<T: Element>(case: &str, r: usize, c: usize, data: Vec<T>) -> Tensor<T, Shape![_, _]> {
    no_panic(case, || {
        Tensor::<T, Shape![_, _]>::from_shape_vec([r, c], data)
    })
    .expect("the test builds consistent tensors")
}

#[test]
fn elementwise_with_broadcasting() {
    let mut rng = Rng(0x5eed_0001);
    let (mut ok, mut err) = (0, 0);
    for iter in 0..rounds(400) {
        let (b, s) = (rng.dim(), rng.dim());
        let (xb, xs) = (b, s);
        let ys = rng.maybe_off(s, 6);
        let (sb, sc) = (rng.maybe_off(b, 6), if rng.chance(8) { 2 } else { 1 });
        let case = format!("ew #{iter}: x [{xb}, {xs}], y [{ys}], s [{sb}, {sc}]");
        let (x, y, sv) = (rng.floats(xb * xs), rng.floats(ys), rng.floats(sb * sc));
        let fits = ys == xs && sb == xb && sc == 1;
        let xt = tensor2(&case, xb, xs, x.clone());
        let st = tensor2(&case, sb, sc, sv.clone());
        // `y` as a slice (one name: accepted), `x` and `s` as tensors or views.
        let got = no_panic(&case, || {
            if iter % 2 == 0 {
                ew(&xt, &y[..], &st)
            } else {
                ew(xt.view(), &y, st.view())
            }
        });
        match got {
            Ok(t) => {
                assert!(fits, "{case}: Ok for inputs that do not fit");
                assert_eq!(t.shape(), &[b, s], "{case}");
                let want: Vec<f32> = (0..b * s)
                    .map(|k| (x[k] + y[k % s]) * sv[k / s] - 1.0)
                    .collect();
                assert_eq!(t.as_slice(), &want[..], "{case}");
                ok += 1;
            }
            Err(e) => {
                assert!(!fits, "{case}: Err for inputs that fit: {e}");
                err += 1;
            }
        }
        // `_into` with an output whose length may be wrong: an `Err` writes nothing.
        if fits {
            let (ob, os) = (rng.maybe_off(b, 3), rng.maybe_off(s, 3));
            let mut buf = vec![-7.0f32; ob * os];
            let mut out = TensorViewMut::<f32, Shape![_, _]>::with_dims([ob, os], &mut buf)
                .expect("consistent");
            let r = no_panic(&case, || ew_into(&xt, &y[..], &st, &mut out));
            assert_eq!(r.is_ok(), (ob, os) == (b, s), "{case}: output [{ob}, {os}]");
            if r.is_err() {
                assert!(buf.iter().all(|&v| v == -7.0), "{case}: an Err wrote");
            }
        }
    }
    assert!(
        ok > rounds(50) && err > rounds(50),
        "too few of each: {ok} Ok, {err} Err"
    );
}

#[test]
fn reductions_and_empty_axes() {
    let mut rng = Rng(0x5eed_0002);
    let (mut ok, mut err) = (0, 0);
    for iter in 0..rounds(400) {
        let (b, s) = (rng.dim(), rng.dim());
        let case = format!("red #{iter}: x [{b}, {s}]");
        let x = rng.floats(b * s);
        // A flat slice is refused at compile time (two names): tensors only.
        let xt = tensor2(&case, b, s, x.clone());
        let got = no_panic(&case, || red(&xt));
        // `max`/`argmax` over S and `min` over B: an empty named axis is an `Err` (even when
        // the other axis is empty too: docs/language.md, "Dim names and call entry").
        let fits = s > 0 && b > 0;
        match got {
            Ok((sums, maxs, args, mins)) => {
                assert!(fits, "{case}: Ok with an empty reduced axis");
                for i in 0..b {
                    let row = &x[i * s..(i + 1) * s];
                    assert_eq!(sums[[i]], row.iter().sum::<f32>(), "{case} sum row {i}");
                    let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    assert_eq!(maxs[[i]], m, "{case} max row {i}");
                    // NumPy: the first index of the maximum.
                    let first = row.iter().position(|&v| v == m).unwrap() as i64;
                    assert_eq!(args[[i]], first, "{case} argmax row {i}");
                }
                for j in 0..s {
                    let m = (0..b).map(|i| x[i * s + j]).fold(f32::INFINITY, f32::min);
                    assert_eq!(mins[[j]], m, "{case} min col {j}");
                }
                ok += 1;
            }
            Err(e) => {
                assert!(!fits, "{case}: Err for inputs that fit: {e}");
                assert!(matches!(e, ShapeError::EmptyAxis { .. }), "{case}: {e}");
                err += 1;
            }
        }
    }
    assert!(
        ok > rounds(50) && err > rounds(20),
        "too few of each: {ok} Ok, {err} Err"
    );
}

#[test]
fn reorganisation_and_checked_slices() {
    let mut rng = Rng(0x5eed_0003);
    let (mut ok, mut err) = (0, 0);
    for iter in 0..rounds(400) {
        let (b, s) = (rng.dim(), rng.dim());
        let case = format!("reorg #{iter}: x [{b}, {s}]");
        let x = rng.ints(b * s);
        let xt = tensor2(&case, b, s, x.clone());
        let got = no_panic(&case, || reorg(&xt));
        let fits = s >= 3;
        match got {
            Ok((t, sl)) => {
                assert!(fits, "{case}: Ok for an axis shorter than the slice");
                assert_eq!(t.shape(), &[s, b], "{case}");
                for j in 0..s {
                    for i in 0..b {
                        assert_eq!(t[[j, i]], x[(b - 1 - i) * s + j], "{case} at {j},{i}");
                    }
                }
                for i in 0..b {
                    assert_eq!(sl[[i, 0]], x[i * s + 1], "{case}");
                    assert_eq!(sl[[i, 1]], x[i * s + 2], "{case}");
                }
                ok += 1;
            }
            Err(e) => {
                assert!(!fits, "{case}: Err for inputs that fit: {e}");
                err += 1;
            }
        }
    }
    assert!(
        ok > rounds(50) && err > rounds(50),
        "too few of each: {ok} Ok, {err} Err"
    );
}

#[test]
fn matmul_with_named_dims() {
    let mut rng = Rng(0x5eed_0004);
    let (mut ok, mut err) = (0, 0);
    for iter in 0..rounds(300) {
        let (m, k, n) = (rng.dim(), rng.dim(), rng.dim());
        let kb = rng.maybe_off(k, 4);
        let case = format!("mm #{iter}: a [{m}, {k}], b [{kb}, {n}]");
        let (a, bv) = (rng.floats(m * k), rng.floats(kb * n));
        let at = tensor2(&case, m, k, a.clone());
        let bt = tensor2(&case, kb, n, bv.clone());
        let got = no_panic(&case, || mm(&at, bt.view()));
        let fits = kb == k;
        match got {
            Ok(c) => {
                assert!(fits, "{case}: Ok for mismatched inner dims");
                assert_eq!(c.shape(), &[m, n], "{case}");
                for i in 0..m {
                    for j in 0..n {
                        let want: f32 = (0..k).map(|p| a[i * k + p] * bv[p * n + j]).sum();
                        assert_eq!(c[[i, j]], want, "{case} at {i},{j}");
                    }
                }
                ok += 1;
            }
            Err(e) => {
                assert!(!fits, "{case}: Err for inputs that fit: {e}");
                assert!(matches!(e, ShapeError::DimMismatch { .. }), "{case}: {e}");
                err += 1;
            }
        }
    }
    assert!(
        ok > rounds(50) && err > rounds(20),
        "too few of each: {ok} Ok, {err} Err"
    );
}

#[test]
fn scans_over_flat_slices_of_any_length() {
    let mut rng = Rng(0x5eed_0005);
    let (mut ok, mut err) = (0, 0);
    for iter in 0..rounds(300) {
        // Any length: a multiple of 3 solves N, anything else is an `Err`.
        let len = rng.below(40) as usize;
        let case = format!("scan #{iter}: a slice of {len}");
        let x = rng.ints(len);
        let got = no_panic(&case, || scan(&x[..]));
        match got {
            Ok(t) => {
                assert_eq!(len % 3, 0, "{case}: Ok for a length that is not 3·N");
                let n = len / 3;
                assert_eq!(t.shape(), &[n, 3], "{case}");
                let mut acc = [0i64; 3];
                for i in 0..n {
                    for (j, a) in acc.iter_mut().enumerate() {
                        *a += x[i * 3 + j] as i64;
                        assert_eq!(t[[i, j]], *a, "{case} at {i},{j}");
                    }
                }
                ok += 1;
            }
            Err(e) => {
                assert_ne!(len % 3, 0, "{case}: Err for a length 3·N: {e}");
                err += 1;
            }
        }
    }
    assert!(
        ok > rounds(50) && err > rounds(50),
        "too few of each: {ok} Ok, {err} Err"
    );
}

#[test]
fn constructors_refuse_what_does_not_fit() {
    let mut rng = Rng(0x5eed_0006);
    for iter in 0..rounds(500) {
        let (r, c) = (rng.dim(), rng.dim());
        let len = rng.maybe_off(r * c, 2);
        let case = format!("constructors #{iter}: dims [{r}, {c}], {len} elements");
        let data: Vec<i32> = rng.ints(len);
        let fits = len == r * c;
        no_panic(&case, || {
            // Run-time dims given.
            let t = Tensor::<i32, Shape![_, _]>::from_shape_vec([r, c], data.clone());
            assert_eq!(t.is_ok(), fits, "{case}: from_shape_vec");
            if let Ok(t) = t {
                assert_eq!(
                    (t.shape(), t.as_slice()),
                    (&[r, c][..], &data[..]),
                    "{case}"
                );
            }
            let v = TensorView::<i32, Shape![_, _]>::with_dims([r, c], &data);
            assert_eq!(v.is_ok(), fits, "{case}: view with_dims");
            let mut buf = data.clone();
            let vm = TensorViewMut::<i32, Shape![_, _]>::with_dims([r, c], &mut buf);
            assert_eq!(vm.is_ok(), fits, "{case}: view_mut with_dims");
            // One run-time dim solved from the length, the other literal (4).
            let t = Tensor::<i32, Shape![_, 4]>::from_vec(data.clone());
            assert_eq!(t.is_ok(), len % 4 == 0, "{case}: from_vec [_, 4]");
            if let Ok(t) = t {
                assert_eq!(t.shape(), &[len / 4, 4], "{case}");
            }
            let v = TensorView::<i32, Shape![_, 4]>::new(&data);
            assert_eq!(v.is_ok(), len % 4 == 0, "{case}: view new [_, 4]");
            // Fully literal dims.
            let t = Tensor::<i32, Shape![3, 4]>::from_vec(data.clone());
            assert_eq!(t.is_ok(), len == 12, "{case}: from_vec [3, 4]");
            // Literal dims given at run time that differ from the type's.
            let t = Tensor::<i32, Shape![3, _]>::from_shape_vec([r, c], data.clone());
            assert_eq!(t.is_ok(), fits && r == 3, "{case}: from_shape_vec [3, _]");
            // Two run-time dims cannot be solved from a length alone.
            assert!(
                Tensor::<i32, Shape![_, _]>::from_vec(data.clone()).is_err(),
                "{case}: from_vec [_, _]"
            );
        });
    }
    // Dims whose product overflows, with an empty buffer.
    for dims in [
        [usize::MAX, 2],
        [1 << 40, 1 << 40],
        [usize::MAX, 0],
        [0, usize::MAX],
    ] {
        let case = format!("dims {dims:?}");
        let t = no_panic(&case, || {
            Tensor::<u8, Shape![_, _]>::from_shape_vec(dims, vec![])
        });
        // [MAX, 0] has no elements but a dim above isize::MAX (NOTES.md: refused).
        assert!(t.is_err(), "{case}: accepted");
        assert!(
            no_panic(&case, || Tensor::<u8, Shape![_, _]>::zeros_with_dims(dims)).is_err(),
            "{case}: zeros_with_dims"
        );
    }
}

#[test]
fn outputs_over_isize_bytes_are_errors() {
    // `A·C` elements of 4 bytes: 2^62 elements overflow isize in bytes, 2^64 in elements.
    for (a, c) in [
        (1usize << 31, 1usize << 31),
        (1 << 32, 1 << 32),
        (1 << 62, 4),
    ] {
        let case = format!("outer_sum A = {a}, C = {c}");
        let at = tensor2::<f32>(&case, a, 0, vec![]);
        let ct = tensor2::<f32>(&case, c, 0, vec![]);
        let got = no_panic(&case, || outer_sum(&at, &ct));
        assert!(got.is_err(), "{case}: accepted");
    }
    // Small ones run: the sum over an empty axis is 0.
    let at = tensor2::<f32>("small", 3, 0, vec![]);
    let ct = tensor2::<f32>("small", 2, 0, vec![]);
    let t = outer_sum(&at, &ct).unwrap();
    assert_eq!((t.shape(), t.as_slice()), (&[3, 2][..], &[0.0f32; 6][..]));
}
