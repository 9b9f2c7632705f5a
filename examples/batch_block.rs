//! A batch whose size is known only at run time: rows read from a CSV file into one
//! `Vec<f32>`, run through a layer norm + gelu block with no copy, from the `Vec` and
//! (with `--features ndarray`) from an `ndarray` array.
//!
//! `cargo run --release --example batch_block`
//! `cargo run --release --example batch_block --features ndarray`

use tensorgraph::prelude::*;

graph! {
    /// Layer norm over the 16 features of each row, then gelu. `B`, the batch size, is
    /// bound when the function is called; every other dim is checked while compiling.
    pub fn norm_gelu(x: f32[B, 16], gamma: f32[16], beta: f32[16]) -> f32[B, 16] {
        let mu = mean(x, axis = 1, keepdims = true);
        let d = x - mu;
        let var = mean(d * d, axis = 1, keepdims = true);
        gelu(d * rsqrt(var + 1e-5) * gamma + beta)
    }
}

/// Every number of every non-comment line, row after row.
fn read_rows(text: &str) -> Vec<f32> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .flat_map(|l| l.split(','))
        .map(|v| v.trim().parse::<f32>().expect("a number"))
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rows = read_rows(include_str!("data/rows.csv"));
    let gamma = Tensor::<f32, Shape![16]>::full(1.0);
    let beta = Tensor::<f32, Shape![16]>::zeros();

    // A `Vec<f32>` of B·16 values goes in as it is: `B` is solved from its length.
    let y = norm_gelu(&rows, &gamma, &beta)?;
    println!("{} rows in, output shape {:?}", rows.len() / 16, y.shape());
    println!("first row: {:?}", &y.as_slice()[..16]);

    // The same block over the first 5 rows only: a sub-slice, still no copy.
    let head = norm_gelu(&rows[..5 * 16], &gamma, &beta)?;
    assert_eq!(head.as_slice(), &y.as_slice()[..5 * 16]);

    // A length that is not a whole number of rows is an `Err`, not a panic.
    let err = norm_gelu(&rows[..20], &gamma, &beta).unwrap_err();
    println!("a ragged slice: {err}");

    // An empty batch is fine.
    assert_eq!(norm_gelu(&rows[..0], &gamma, &beta)?.shape(), &[0, 16]);

    #[cfg(feature = "ndarray")]
    {
        let array = ndarray::Array2::from_shape_vec((rows.len() / 16, 16), rows.clone())?;
        let from_array = norm_gelu(&array, &gamma, &beta)?;
        assert_eq!(from_array.as_slice(), y.as_slice());
        // Writing into an ndarray output in place.
        let mut out = ndarray::Array2::<f32>::zeros((rows.len() / 16, 16));
        norm_gelu_into(&array, &gamma, &beta, &mut out)?;
        println!("ndarray in and out: row 0 = {:?}", out.row(0));
        // A transposed view is refused with a hint, never silently copied.
        let err = norm_gelu(array.t(), &gamma, &beta).unwrap_err();
        println!("a transposed view: {err}");
    }
    Ok(())
}
