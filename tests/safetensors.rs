//! Weights from safetensors files as graph arguments (`--features safetensors`): views of the
//! mapped file, with literal dims (the type inferred from the parameter) and with names,
//! checked against the parameter's type; outputs written back and read again. Values are
//! compared with plain-Rust computations of the same formulas.
#![cfg(feature = "safetensors")]
// `&view` forms are passed on purpose: each is an accepted argument of its own.
#![allow(clippy::needless_borrows_for_generic_args)]

mod common;

use std::path::PathBuf;

use tensorgraph::prelude::*;
use tensorgraph::safetensors::{SafetensorsError, SafetensorsFile, SafetensorsWriter};
use tensorgraph::ShapeError;

graph! {
    /// Literal dims: `w` and `b` can be read with their types inferred.
    fn dense(x: f32[2, 3], w: f32[3, 4], b: f32[4]) -> f32[2, 4] { x @ w + b }
    /// Dim names: a batch `B` and a hidden size `H` from the file.
    fn scale_rows(x: f32[B, H], gamma: f32[H]) -> f32[B, H] { x * gamma }
    fn count_true(m: bool[N]) -> i64[] { sum(m) }
}

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("tg-st-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A deterministic pseudo-random sequence (the tests' shared generator), so the weights are
/// "random" yet the expected values can be recomputed.
fn values(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed.max(1);
    (0..n)
        .map(|_| (common::xorshift(&mut s) % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}

fn dense_reference(x: &[f32], w: &[f32], b: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0f32; 8];
    for i in 0..2 {
        for j in 0..4 {
            let mut acc = 0.0f32;
            for k in 0..3 {
                acc += x[i * 3 + k] * w[k * 4 + j];
            }
            out[i * 4 + j] = acc + b[j];
        }
    }
    out
}

#[test]
fn weights_saved_then_mapped_run_a_graph() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Dir::new("dense");
    let path = dir.0.join("dense.safetensors");
    let w = Tensor::<f32, Shape![3, 4]>::from_vec(values(7, 12))?;
    let b = Tensor::<f32, Shape![4]>::from_vec(values(11, 4))?;
    SafetensorsWriter::new()
        .tensor("w", &w)
        .tensor("b", &b)
        .write(&path)?;

    // SAFETY: this test alone uses the file and does not change it while it is mapped.
    let weights = unsafe { SafetensorsFile::open(&path)? };
    let x = Tensor::<f32, Shape![2, 3]>::from_vec(values(3, 6))?;
    // The dtype and shape of each view come from `dense`'s parameters.
    let y = dense(&x, weights.tensor("w")?, weights.tensor("b")?);
    let expected = dense_reference(x.as_slice(), w.as_slice(), b.as_slice());
    for (got, want) in y.as_slice().iter().zip(&expected) {
        assert!((got - want).abs() <= 1e-6, "{got} vs {want}");
    }
    // By reference too, and `_into`.
    let (wv, bv) = (weights.tensor("w")?, weights.tensor("b")?);
    let mut out = Tensor::<f32, Shape![2, 4]>::zeros();
    dense_into(&x, &wv, &bv, &mut out);
    assert_eq!(out.as_slice(), y.as_slice());
    // A closure with literal dims.
    let shift = graph!(|b: f32[4]| b + 1.0);
    let shifted = shift(&weights.tensor("b")?);
    for (s, b) in shifted.as_slice().iter().zip(b.as_slice()) {
        assert_eq!(*s, b + 1.0);
    }

    // The output goes back to a file, and reads back as the same values.
    let out_path = dir.0.join("y.safetensors");
    SafetensorsWriter::new().tensor("y", &y).write(&out_path)?;
    let back = SafetensorsFile::read(&out_path)?;
    assert_eq!(back.stored_type("y").as_deref(), Some("f32[2, 4]"));
    assert_eq!(
        back.tensor::<f32, Shape![2, 4]>("y")?.as_slice(),
        y.as_slice()
    );
    Ok(())
}

#[test]
fn named_dims_take_explicit_types_or_stored_views() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Dir::new("named");
    let path = dir.0.join("rows.safetensors");
    // Sizes 0, 1 and odd batches, an odd hidden size.
    for batch in [0usize, 1, 7] {
        let x = Tensor::<f32, Shape![_, 5]>::from_vec(values(batch as u64 + 1, batch * 5))?;
        let gamma = Tensor::<f32, Shape![5]>::from_vec(values(99, 5))?;
        let mask: Vec<bool> = (0..batch).map(|i| i % 3 == 0).collect();
        let mask = Tensor::<bool, Shape![_]>::from_vec(mask)?;
        SafetensorsWriter::new()
            .tensor("x", &x)
            .tensor("gamma", &gamma)
            .tensor("mask", &mask)
            .write(&path)?;
        // SAFETY: this test alone uses the file; it is rewritten (renamed over) only after
        // this map is dropped at the end of the iteration.
        let file = unsafe { SafetensorsFile::open(&path)? };
        let expected: Vec<f32> = x
            .as_slice()
            .iter()
            .enumerate()
            .map(|(i, v)| v * gamma.as_slice()[i % 5])
            .collect();
        // Explicit shape types with `_` for the names.
        let y = scale_rows(
            file.tensor::<f32, Shape![_, _]>("x")?,
            file.tensor::<f32, Shape![_]>("gamma")?,
        )?;
        assert_eq!(y.shape(), &[batch, 5]);
        assert_eq!(y.as_slice(), &expected[..]);
        // Stored views: rank and dims checked at call entry.
        let y2 = scale_rows(file.get::<f32>("x")?, &file.get::<f32>("gamma")?)?;
        assert_eq!(y2.as_slice(), &expected[..]);
        let count = count_true(file.get::<bool>("mask")?)?;
        assert_eq!(
            count.item(),
            (0..batch).filter(|i| i % 3 == 0).count() as i64
        );
        // The closure form with names.
        let add = graph!(|x: f32[B, H], g: f32[H]| x + g);
        let z = add(&file.get::<f32>("x")?, &file.get::<f32>("gamma")?)?;
        assert_eq!(z.shape(), &[batch, 5]);
    }
    Ok(())
}

#[test]
fn mismatches_are_errors_naming_the_tensor() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Dir::new("errors");
    let path = dir.0.join("w.safetensors");
    let w = Tensor::<f64, Shape![3, 4]>::zeros();
    let g = Tensor::<f32, Shape![2, 5]>::zeros();
    SafetensorsWriter::new()
        .tensor("w", &w)
        .tensor("g", &g)
        .write(&path)?;
    let file = SafetensorsFile::read(&path)?;
    let x = Tensor::<f32, Shape![2, 3]>::zeros();
    let b = Tensor::<f32, Shape![4]>::zeros();

    // Wrong dtype, read with the parameter's (inferred) type.
    let err = file.tensor("w").map(|w| dense(&x, w, &b)).unwrap_err();
    let path_text = path.display().to_string();
    assert_eq!(
        err.to_string(),
        format!("tensor `w` of {path_text} is stored as `f64[3, 4]`, but is read as `f32[3, 4]`")
    );
    // Wrong shape.
    let err = file.tensor("g").map(|g| dense(&x, g, &b)).unwrap_err();
    assert!(matches!(
        &err,
        SafetensorsError::Mismatch { tensor, declared, stored, .. }
            if tensor == "g" && declared == "f32[3, 4]" && stored == "f32[2, 5]"
    ));
    // Missing name.
    let err = file.tensor::<f32, Shape![3, 4]>("weight").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("no tensor `weight` in {path_text}; it has `w`, `g`")
    );
    // A stored view of the wrong rank is refused at call entry, naming the parameter.
    let rows = Tensor::<f32, Shape![_, 5]>::zeros_with_dims([2, 5])?;
    let err = scale_rows(&rows, file.get::<f32>("g")?).unwrap_err();
    assert!(
        matches!(
            err,
            ShapeError::Rank {
                arg: "gamma",
                expected: 1,
                found: 2,
                ..
            }
        ),
        "{err}"
    );
    // And one whose dim disagrees with another argument's.
    let err = scale_rows(file.get::<f32>("g")?, &Tensor::<f32, Shape![4]>::zeros()).unwrap_err();
    assert!(
        matches!(err, ShapeError::DimMismatch { dim: "H", .. }),
        "{err}"
    );
    Ok(())
}
