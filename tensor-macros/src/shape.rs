//! Dims and MAX's broadcasting rule, as pure functions: right-align the shapes, prepend
//! 1s to the shorter, a dimension of 1 stretches to the other, all others must be equal.
//!
//! A dim is a literal size, a name (`B`), whose size is bound at call entry, or an
//! expression over names (`N + M`, `dim_expr`). A symbolic dim (a name or an expression)
//! matches only the same dim (equal normal forms) or a literal 1: it never broadcasts at
//! run time, even when its size is 1 then (MAX, JAX and PyTensor refuse run-time
//! broadcasting, which would make the result's shape depend on the data).

use std::fmt;

use crate::dim_expr::Poly;

/// One dim of a type: a literal size, a name bound at call entry, or an expression over
/// names. The three are kept canonical (`Dim::from_poly`): an expression is never a
/// constant or a bare name, so two dims are the same size exactly when they are equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    Static(usize),
    Named(String),
    Expr(Poly),
}

impl Dim {
    /// The literal size, if the dim is one.
    pub fn as_static(&self) -> Option<usize> {
        match self {
            Dim::Static(n) => Some(*n),
            Dim::Named(_) | Dim::Expr(_) => None,
        }
    }

    pub fn is_static(&self, n: usize) -> bool {
        *self == Dim::Static(n)
    }

    /// A name or an expression: a size known only at call entry.
    pub fn is_symbolic(&self) -> bool {
        !matches!(self, Dim::Static(_))
    }

    /// The dim as a polynomial over its names.
    pub fn poly(&self) -> Poly {
        match self {
            Dim::Static(n) => Poly::constant(*n as i128),
            Dim::Named(name) => Poly::name(name),
            Dim::Expr(p) => p.clone(),
        }
    }

    /// The canonical dim of `p`; `Err` with the value when it is a negative constant.
    pub fn from_poly(p: Poly) -> Result<Dim, i128> {
        if let Some(c) = p.as_constant() {
            return usize::try_from(c).map(Dim::Static).map_err(|_| c);
        }
        if let Some(name) = p.as_name() {
            return Ok(Dim::Named(name.to_string()));
        }
        Ok(Dim::Expr(p))
    }

    /// The names the dim reads, sorted.
    pub fn names(&self) -> Vec<String> {
        self.poly().names()
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Named(name) => f.write_str(name),
            Dim::Expr(p) => write!(f, "{p}"),
        }
    }
}

impl From<usize> for Dim {
    fn from(n: usize) -> Dim {
        Dim::Static(n)
    }
}

/// `Dim::Static` of each literal.
#[cfg(test)]
pub fn lits(dims: &[usize]) -> Vec<Dim> {
    dims.iter().map(|&d| Dim::Static(d)).collect()
}

/// The product of literal dims, `None` if any dim is a name.
pub fn static_len(dims: &[Dim]) -> Option<usize> {
    dims.iter().map(Dim::as_static).product()
}

/// `[4, 8]`, `[B, 768]`: the graph language's notation.
pub fn dims_text(dims: &[Dim]) -> String {
    let inner: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", inner.join(", "))
}

/// Why two shapes do not broadcast: `axis` counts in the result (right-aligned).
#[derive(Debug, PartialEq, Eq)]
pub struct BroadcastError {
    pub axis: usize,
    pub lhs_dim: Dim,
    pub rhs_dim: Dim,
}

impl BroadcastError {
    /// The extra rule to state when a name took part in the clash.
    pub fn note(&self) -> &'static str {
        let expr = |d: &Dim| matches!(d, Dim::Expr(_));
        if expr(&self.lhs_dim) || expr(&self.rhs_dim) {
            "note: aligned from the right, each pair of dims must be equal or one of them 1; symbolic dims match only the same name, an equal expression (compared in normal form) or a static 1"
        } else if self.lhs_dim.is_symbolic() || self.rhs_dim.is_symbolic() {
            "note: aligned from the right, each pair of dims must be equal or one of them 1; symbolic dims match only the same name or a static 1"
        } else {
            "note: aligned from the right, each pair of dims must be equal or one of them 1"
        }
    }
}

pub fn broadcast(lhs: &[Dim], rhs: &[Dim]) -> Result<Vec<Dim>, BroadcastError> {
    let rank = lhs.len().max(rhs.len());
    let mut out = Vec::with_capacity(rank);
    for axis in 0..rank {
        let l = aligned_dim(lhs, rank, axis);
        let r = aligned_dim(rhs, rank, axis);
        out.push(if l == r || r.is_static(1) {
            l.clone()
        } else if l.is_static(1) {
            r.clone()
        } else {
            return Err(BroadcastError {
                axis,
                lhs_dim: l.clone(),
                rhs_dim: r.clone(),
            });
        });
    }
    Ok(out)
}

const ONE: Dim = Dim::Static(1);

/// The dim of `dims` at `axis` of a `rank`-dim result, with implicit leading 1s.
pub fn aligned_dim(dims: &[Dim], rank: usize, axis: usize) -> &Dim {
    let lead = rank - dims.len();
    if axis < lead {
        &ONE
    } else {
        &dims[axis - lead]
    }
}

/// Both shapes right-aligned under each other, with a caret under the clashing axis:
/// ```text
///     [2, 3]
///     [3, 2]
///         ^ axis 1: 3 vs 2
/// ```
pub fn aligned_picture(lhs: &[Dim], rhs: &[Dim], err: &BroadcastError) -> String {
    let rank = lhs.len().max(rhs.len());
    let width = (0..rank)
        .map(|a| {
            aligned_dim(lhs, rank, a)
                .to_string()
                .len()
                .max(aligned_dim(rhs, rank, a).to_string().len())
        })
        .collect::<Vec<_>>();
    let render = |dims: &[Dim]| {
        let lead = rank - dims.len();
        let prefix: usize = (0..lead).map(|a| width[a] + 2).sum();
        let cells: Vec<String> = (lead..rank)
            .map(|a| format!("{:>w$}", dims[a - lead].to_string(), w = width[a]))
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

    fn b(l: &[usize], r: &[usize]) -> Result<Vec<Dim>, BroadcastError> {
        broadcast(&lits(l), &lits(r))
    }

    fn named(n: &str) -> Dim {
        Dim::Named(n.to_string())
    }

    #[test]
    fn broadcasting_rules() {
        assert_eq!(b(&[4, 768], &[768]).unwrap(), lits(&[4, 768]));
        assert_eq!(b(&[4, 1], &[1, 8]).unwrap(), lits(&[4, 8]));
        assert_eq!(b(&[], &[2, 3, 4]).unwrap(), lits(&[2, 3, 4]));
        assert_eq!(b(&[0], &[1]).unwrap(), lits(&[0]));
        assert_eq!(
            b(&[3], &[4]),
            Err(BroadcastError {
                axis: 0,
                lhs_dim: Dim::Static(3),
                rhs_dim: Dim::Static(4)
            })
        );
        assert!(b(&[0], &[3]).is_err());
        assert_eq!(b(&[2, 3], &[3, 2]).unwrap_err().axis, 0);
    }

    /// The rule of docs/language.md, "Broadcasting": `B,B → B`; `B,1 → B`; `1,B → B`; `B` with another literal or
    /// another name is an error.
    #[test]
    fn symbolic_broadcasting_rules() {
        let bv = vec![named("B"), Dim::Static(768)];
        assert_eq!(broadcast(&bv, &bv).unwrap(), bv);
        assert_eq!(broadcast(&bv, &lits(&[768])).unwrap(), bv);
        assert_eq!(broadcast(&bv, &lits(&[1, 768])).unwrap(), bv);
        assert_eq!(broadcast(&lits(&[1, 1]), &bv).unwrap(), bv);
        assert_eq!(broadcast(&[named("B")], &[]).unwrap(), vec![named("B")]);
        let e = broadcast(&[named("B")], &[named("S")]).unwrap_err();
        assert_eq!((e.lhs_dim, e.rhs_dim), (named("B"), named("S")));
        let e = broadcast(&bv, &lits(&[4, 768])).unwrap_err();
        assert_eq!((e.axis, e.rhs_dim.clone()), (0, Dim::Static(4)));
        assert!(e
            .note()
            .contains("symbolic dims match only the same name or a static 1"));
    }

    #[test]
    fn picture_aligns_right() {
        let err = b(&[5, 2, 3], &[4, 3]).unwrap_err();
        let pic = aligned_picture(&lits(&[5, 2, 3]), &lits(&[4, 3]), &err);
        assert_eq!(pic, "  [5, 2, 3]\n     [4, 3]\n      ^ axis 1: 2 vs 4");
        let l = vec![named("B"), Dim::Static(768)];
        let r = vec![named("Seq"), Dim::Static(768)];
        let err = broadcast(&l, &r).unwrap_err();
        assert_eq!(
            aligned_picture(&l, &r, &err),
            "  [  B, 768]\n  [Seq, 768]\n     ^ axis 0: B vs Seq"
        );
    }
}
