//! Runtime steps of the indexing ops that move whole elements or slices by index
//! (docs/language.md, "Indexing"): `scatter_elements`, `scatter_nd` (ONNX, with the
//! reductions `none`, `add`, `mul`, `max`, `min`) and `gather_nd`. Indices come as `i64`,
//! already checked at call entry to lie in range (ONNX: a negative index counts from the
//! end); the functions still never index out of bounds: a position outside its axis is
//! skipped (`scatter`) or reads as the default (`gather_nd`), which checked indices never
//! reach.

use crate::reference::Num;

/// How `scatter_*` combines an update with the element it lands on. With `None`,
/// duplicate indices leave the last update in index order (documented in the language).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduction {
    /// The update replaces the element.
    None,
    /// `element + update`.
    Add,
    /// `element · update`.
    Mul,
    /// `max(element, update)`.
    Max,
    /// `min(element, update)`.
    Min,
}

/// Combines `old` and `new` as `reduction` says.
fn combine<T: Num>(reduction: ScatterReduction, old: T, new: T) -> T {
    match reduction {
        ScatterReduction::None => new,
        ScatterReduction::Add => T::add(old, new),
        ScatterReduction::Mul => T::mul(old, new),
        ScatterReduction::Max => T::max(old, new),
        ScatterReduction::Min => T::min(old, new),
    }
}

/// `i` normalised into `0..len` (a negative index counts from the end), or `None`.
fn position(i: i64, len: usize) -> Option<usize> {
    let len_i = i64::try_from(len).ok()?;
    let at = if i < 0 { i.checked_add(len_i)? } else { i };
    (0..len_i).contains(&at).then_some(at as usize)
}

/// Row-major strides of `dims`.
fn strides(dims: &[usize]) -> Vec<usize> {
    let mut out = vec![1usize; dims.len()];
    for a in (0..dims.len().saturating_sub(1)).rev() {
        out[a] = out[a + 1] * dims[a + 1];
    }
    out
}

/// ONNX `ScatterElements`: `out` is `data`, then each element of `updates` (shaped as
/// `indices`, `idx_dims`) lands at its own position with the axis `axis` replaced by its
/// index. `data` and `out` are `data_dims` row-major.
#[allow(clippy::too_many_arguments)]
pub fn scatter_elements<T: Num>(
    data: &[T],
    indices: &[i64],
    updates: &[T],
    out: &mut [T],
    data_dims: &[usize],
    idx_dims: &[usize],
    axis: usize,
    reduction: ScatterReduction,
) {
    let n = out.len().min(data.len());
    out[..n].copy_from_slice(&data[..n]);
    if axis >= data_dims.len() || idx_dims.len() != data_dims.len() {
        return;
    }
    let (ds, is) = (strides(data_dims), strides(idx_dims));
    for (flat, (&i, &u)) in indices.iter().zip(updates).enumerate() {
        let mut at = 0usize;
        let mut ok = true;
        for a in 0..idx_dims.len() {
            let coordinate = (flat / is[a]) % idx_dims[a].max(1);
            let c = if a == axis {
                position(i, data_dims[a])
            } else {
                Some(coordinate)
            };
            match c {
                Some(c) if c < data_dims[a] => at += c * ds[a],
                _ => ok = false,
            }
        }
        if ok && at < out.len() {
            out[at] = combine(reduction, out[at], u);
        }
    }
}

/// ONNX `ScatterNd`: `out` is `data`, then for each index tuple of `indices` (its last
/// axis, `q` long, indexes `data`'s first `q` axes) the slice `data[tuple]` combines with
/// the matching slice of `updates` (`idx_dims[..-1] ++ data_dims[q..]`).
pub fn scatter_nd<T: Num>(
    data: &[T],
    indices: &[i64],
    updates: &[T],
    out: &mut [T],
    data_dims: &[usize],
    idx_dims: &[usize],
    reduction: ScatterReduction,
) {
    let n = out.len().min(data.len());
    out[..n].copy_from_slice(&data[..n]);
    let Some(&q) = idx_dims.last() else {
        return;
    };
    if q > data_dims.len() {
        return;
    }
    let slice: usize = data_dims[q..].iter().product();
    let ds = strides(data_dims);
    for (t, tuple) in indices.chunks(q.max(1)).enumerate() {
        if q == 0 {
            // An empty tuple selects the whole of `data`.
            for (o, u) in out.iter_mut().zip(&updates[t * slice..]).take(slice) {
                *o = combine(reduction, *o, *u);
            }
            continue;
        }
        let mut at = 0usize;
        let mut ok = true;
        for (a, &i) in tuple.iter().enumerate() {
            match position(i, data_dims[a]) {
                Some(c) => at += c * ds[a],
                None => ok = false,
            }
        }
        let from = t * slice;
        if !ok || at + slice > out.len() || from + slice > updates.len() {
            continue;
        }
        for (o, u) in out[at..at + slice]
            .iter_mut()
            .zip(&updates[from..from + slice])
        {
            *o = combine(reduction, *o, *u);
        }
    }
}

/// ONNX `GatherND` with `batch_dims = b`: `indices` is `[batch…, …, q]`; for each of its
/// tuples, the slice `data[batch…][tuple]` (the `data_dims[b + q..]` after the batch and
/// tuple axes) goes to `out` in order.
pub fn gather_nd<T: Copy + Default>(
    data: &[T],
    indices: &[i64],
    out: &mut [T],
    data_dims: &[usize],
    idx_dims: &[usize],
    batch_dims: usize,
) {
    let Some(&q) = idx_dims.last() else {
        return;
    };
    if batch_dims + q > data_dims.len() || batch_dims >= idx_dims.len() {
        return;
    }
    let batch: usize = data_dims[..batch_dims].iter().product();
    let per_batch_data: usize = data_dims[batch_dims..].iter().product();
    let tuples_per_batch: usize = idx_dims[batch_dims..idx_dims.len() - 1].iter().product();
    let slice: usize = data_dims[batch_dims + q..].iter().product();
    let ds = strides(&data_dims[batch_dims..]);
    let mut written = 0usize;
    for b in 0..batch {
        for t in 0..tuples_per_batch {
            let tuple_at = (b * tuples_per_batch + t) * q;
            let mut at = b * per_batch_data;
            let mut ok = tuple_at + q <= indices.len();
            for a in 0..q {
                match indices
                    .get(tuple_at + a)
                    .and_then(|&i| position(i, data_dims[batch_dims + a]))
                {
                    Some(c) => at += c * ds[a],
                    None => ok = false,
                }
            }
            let len = out.len();
            let dst = &mut out[written.min(len)..(written + slice).min(len)];
            if ok && at + slice <= data.len() {
                dst.copy_from_slice(&data[at..at + dst.len()]);
            } else {
                dst.fill(T::default());
            }
            written += slice;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onnx_examples() {
        // ScatterElements, axis 1, the ONNX example.
        let mut out = [0.0f32; 5];
        scatter_elements(
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            &[1, 3],
            &[1.1, 2.1],
            &mut out,
            &[1, 5],
            &[1, 2],
            1,
            ScatterReduction::None,
        );
        assert_eq!(out, [1.0, 1.1, 3.0, 2.1, 5.0]);
        // Duplicates with `add`, and a negative index.
        scatter_elements(
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            &[1, -4],
            &[1.1, 2.1],
            &mut out,
            &[1, 5],
            &[1, 2],
            1,
            ScatterReduction::Add,
        );
        assert!((out[1] - 5.2).abs() < 1e-6);
        // ScatterND, the ONNX example: 4 x 4 x 4 data, two 4 x 4 slices.
        let data: Vec<i32> = (0..64)
            .map(|i| [1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1][i % 16])
            .collect();
        let updates: Vec<i32> = (0..32)
            .map(|i| (i / 16 + 5) * (i % 4 == 0) as i32 + (i / 16 + 5) * (i % 4 != 0) as i32)
            .collect();
        let mut out = vec![0i32; 64];
        scatter_nd(
            &data,
            &[0, 2],
            &updates,
            &mut out,
            &[4, 4, 4],
            &[2, 1],
            ScatterReduction::None,
        );
        assert_eq!(&out[..16], &[5; 16]);
        assert_eq!(&out[16..32], &data[16..32]);
        assert_eq!(&out[32..48], &[6; 16]);
        // GatherND with batch_dims 1: data [2, 2, 2], indices [2, 1] → [2, 2].
        let mut got = [0i32; 4];
        gather_nd(
            &[0, 1, 2, 3, 4, 5, 6, 7],
            &[1, 0],
            &mut got,
            &[2, 2, 2],
            &[2, 1],
            1,
        );
        assert_eq!(got, [2, 3, 4, 5]);
        // batch_dims 0, tuples of 2 into [2, 2]: scalars.
        let mut got = [0i32; 2];
        gather_nd(&[0, 1, 2, 3], &[0, 0, 1, 1], &mut got, &[2, 2], &[2, 2], 0);
        assert_eq!(got, [0, 3]);
    }
}
