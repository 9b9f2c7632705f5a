//! MAX's broadcasting rule, as pure functions: right-align the shapes, prepend 1s to
//! the shorter, a dimension of 1 stretches to the other, all others must be equal.

/// `[4, 8]`, the graph language's notation.
pub fn dims_text(dims: &[usize]) -> String {
    let inner: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", inner.join(", "))
}

/// Why two shapes do not broadcast: `axis` counts in the result (right-aligned).
#[derive(Debug, PartialEq, Eq)]
pub struct BroadcastError {
    pub axis: usize,
    pub lhs_dim: usize,
    pub rhs_dim: usize,
}

pub fn broadcast(lhs: &[usize], rhs: &[usize]) -> Result<Vec<usize>, BroadcastError> {
    let rank = lhs.len().max(rhs.len());
    let mut out = vec![0; rank];
    for axis in 0..rank {
        let l = aligned_dim(lhs, rank, axis);
        let r = aligned_dim(rhs, rank, axis);
        out[axis] = if l == r || r == 1 {
            l
        } else if l == 1 {
            r
        } else {
            return Err(BroadcastError {
                axis,
                lhs_dim: l,
                rhs_dim: r,
            });
        };
    }
    Ok(out)
}

/// The dim of `dims` at `axis` of a `rank`-dim result, with implicit leading 1s.
pub fn aligned_dim(dims: &[usize], rank: usize, axis: usize) -> usize {
    let lead = rank - dims.len();
    if axis < lead {
        1
    } else {
        dims[axis - lead]
    }
}

/// Both shapes right-aligned under each other, with a caret under the clashing axis:
/// ```text
///     [2, 3]
///     [3, 2]
///         ^ axis 1: 3 vs 2
/// ```
pub fn aligned_picture(lhs: &[usize], rhs: &[usize], err: &BroadcastError) -> String {
    let rank = lhs.len().max(rhs.len());
    let width = (0..rank)
        .map(|a| {
            aligned_dim(lhs, rank, a)
                .to_string()
                .len()
                .max(aligned_dim(rhs, rank, a).to_string().len())
        })
        .collect::<Vec<_>>();
    let render = |dims: &[usize]| {
        let lead = rank - dims.len();
        let prefix: usize = (0..lead).map(|a| width[a] + 2).sum();
        let cells: Vec<String> = (lead..rank)
            .map(|a| format!("{:>w$}", dims[a - lead], w = width[a]))
            .collect();
        format!("{}[{}]", " ".repeat(prefix), cells.join(", "))
    };
    let caret_col = 1 + (0..err.axis).map(|a| width[a] + 2).sum::<usize>() + width[err.axis] - 1;
    format!(
        "  {}\n  {}\n  {}^ axis {}: {} vs {}",
        render(lhs),
        render(rhs),
        " ".repeat(caret_col),
        err.axis,
        err.lhs_dim,
        err.rhs_dim
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_rules() {
        assert_eq!(broadcast(&[4, 768], &[768]).unwrap(), vec![4, 768]);
        assert_eq!(broadcast(&[4, 1], &[1, 8]).unwrap(), vec![4, 8]);
        assert_eq!(broadcast(&[], &[2, 3, 4]).unwrap(), vec![2, 3, 4]);
        assert_eq!(broadcast(&[0], &[1]).unwrap(), vec![0]);
        assert_eq!(
            broadcast(&[3], &[4]),
            Err(BroadcastError {
                axis: 0,
                lhs_dim: 3,
                rhs_dim: 4
            })
        );
        assert_eq!(
            broadcast(&[0], &[3]),
            Err(BroadcastError {
                axis: 0,
                lhs_dim: 0,
                rhs_dim: 3
            })
        );
        assert_eq!(
            broadcast(&[2, 3], &[3, 2]),
            Err(BroadcastError {
                axis: 0,
                lhs_dim: 2,
                rhs_dim: 3
            })
        );
    }

    #[test]
    fn picture_aligns_right() {
        let err = broadcast(&[5, 2, 3], &[4, 3]).unwrap_err();
        let pic = aligned_picture(&[5, 2, 3], &[4, 3], &err);
        assert_eq!(pic, "  [5, 2, 3]\n     [4, 3]\n      ^ axis 1: 2 vs 4");
    }
}
