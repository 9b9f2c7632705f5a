//! Dim expressions (docs/language.md, "Dim expressions"): `N + M`, `2 * N`, `(N + 1) / 2`,
//! `max(N, M)`, in signatures and derived by ops (`concat` sums its axes, a stepped `slice`
//! divides, `pad` adds, `tile` multiplies).
//!
//! Two expressions are the same dim exactly when their normal forms are equal: a polynomial
//! with integer coefficients over atoms, where an atom is a name, or a floor division by a
//! positive literal, a `max` or a `min` that does not simplify. The rules that keep the form
//! canonical, each a theorem over integers:
//! - terms with equal monomials merge; zero terms vanish; a monomial's atoms are sorted;
//! - `floor((d·Q + R) / d) = Q + floor(R / d)` for integer-valued `Q`: the coefficients are
//!   split by Euclidean division, and a remainder that is a constant in `[0, d)` vanishes;
//!   a common factor of the remainder's coefficients and `d` cancels; `floor(floor(x / a) / b)
//!   = floor(x / (a·b))`;
//! - `max(a, b)` (`min`) whose operands differ by a constant is the larger (smaller) one;
//!   otherwise its operands are sorted.
//!
//! Names are non-negative integers at run time; the forms here hold for all integers, so no
//! rule depends on that (a sign only matters at call entry, where every expression a graph
//! uses is evaluated and a negative one is an `Err`).

use std::collections::BTreeMap;
use std::fmt;

/// An atom of a normal form: a name, or an operation that does not simplify.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    Name(String),
    /// `floor(p / d)`, `d ≥ 2`, `p` not divisible by `d` as a polynomial.
    FloorDiv(Box<Poly>, u64),
    /// Operands sorted, never differing by a constant.
    Max(Box<Poly>, Box<Poly>),
    Min(Box<Poly>, Box<Poly>),
}

/// A polynomial in normal form: monomial (sorted atoms; empty for the constant) →
/// non-zero coefficient.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Poly {
    terms: BTreeMap<Vec<Atom>, i128>,
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Poly {
    pub fn constant(c: i128) -> Poly {
        let mut p = Poly::default();
        p.add_term(Vec::new(), c);
        p
    }

    pub fn name(name: &str) -> Poly {
        Poly::atom(Atom::Name(name.to_string()))
    }

    fn atom(atom: Atom) -> Poly {
        let mut p = Poly::default();
        p.add_term(vec![atom], 1);
        p
    }

    fn add_term(&mut self, monomial: Vec<Atom>, c: i128) {
        if c == 0 {
            return;
        }
        let entry = self.terms.entry(monomial).or_insert(0);
        *entry = entry.saturating_add(c);
        if *entry == 0 {
            self.terms.retain(|_, c| *c != 0);
        }
    }

    /// The terms: (sorted atoms, coefficient), the constant (no atoms) first.
    pub fn terms(&self) -> impl Iterator<Item = (&[Atom], i128)> {
        self.terms.iter().map(|(m, c)| (m.as_slice(), *c))
    }

    pub fn as_constant(&self) -> Option<i128> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    /// The name, when the polynomial is exactly one name.
    pub fn as_name(&self) -> Option<&str> {
        match self.terms.iter().next() {
            Some((m, 1)) if self.terms.len() == 1 && m.len() == 1 => match &m[0] {
                Atom::Name(n) => Some(n),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn add(&self, other: &Poly) -> Poly {
        let mut out = self.clone();
        for (m, c) in &other.terms {
            out.add_term(m.clone(), *c);
        }
        out
    }

    pub fn scale(&self, k: i128) -> Poly {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            out.add_term(m.clone(), c.saturating_mul(k));
        }
        out
    }

    pub fn sub(&self, other: &Poly) -> Poly {
        self.add(&other.scale(-1))
    }

    pub fn mul(&self, other: &Poly) -> Poly {
        let mut out = Poly::default();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let mut m: Vec<Atom> = ma.iter().chain(mb).cloned().collect();
                m.sort();
                out.add_term(m, ca.saturating_mul(*cb));
            }
        }
        out
    }

    /// `floor(self / d)` for a positive `d`.
    pub fn floor_div(&self, d: u64) -> Poly {
        assert!(d > 0, "floor division by a positive literal");
        let d = d as i128;
        let mut quotient = Poly::default();
        let mut remainder = Poly::default();
        for (m, c) in &self.terms {
            quotient.add_term(m.clone(), c.div_euclid(d));
            remainder.add_term(m.clone(), c.rem_euclid(d));
        }
        // A constant remainder is in [0, d): its floor division is 0.
        if remainder.as_constant().is_some() {
            return quotient;
        }
        // floor(floor(x / a) / d) = floor(x / (a·d)).
        if let Some((Atom::FloorDiv(inner, a), 1)) = remainder.single_atom() {
            let nested = inner.floor_div(a.saturating_mul(d as u64));
            return quotient.add(&nested);
        }
        // The remainder's coefficients are in (0, d), so `d / g ≥ 2`.
        let g = remainder.terms.values().fold(d, |g, c| gcd(g, *c));
        let (remainder, d) = (remainder.exact_div(g), d / g);
        quotient.add(&Poly::atom(Atom::FloorDiv(Box::new(remainder), d as u64)))
    }

    /// Divides every coefficient by `g`, which divides them all.
    fn exact_div(&self, g: i128) -> Poly {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            out.add_term(m.clone(), c / g);
        }
        out
    }

    fn single_atom(&self) -> Option<(&Atom, i128)> {
        match self.terms.iter().next() {
            Some((m, c)) if self.terms.len() == 1 && m.len() == 1 => Some((&m[0], *c)),
            _ => None,
        }
    }

    pub fn maximum(&self, other: &Poly) -> Poly {
        self.extremum(other, true)
    }

    pub fn minimum(&self, other: &Poly) -> Poly {
        self.extremum(other, false)
    }

    fn extremum(&self, other: &Poly, max: bool) -> Poly {
        if let Some(diff) = self.sub(other).as_constant() {
            return if (diff >= 0) == max { self } else { other }.clone();
        }
        let (a, b) = if self <= other {
            (self, other)
        } else {
            (other, self)
        };
        let (a, b) = (Box::new(a.clone()), Box::new(b.clone()));
        Poly::atom(if max {
            Atom::Max(a, b)
        } else {
            Atom::Min(a, b)
        })
    }

    /// Every name the expression reads, sorted, each once.
    pub fn names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out.sort();
        out.dedup();
        out
    }

    fn collect_names(&self, out: &mut Vec<String>) {
        for atom in self.terms.keys().flatten() {
            match atom {
                Atom::Name(n) => out.push(n.clone()),
                Atom::FloorDiv(p, _) => p.collect_names(out),
                Atom::Max(a, b) | Atom::Min(a, b) => {
                    a.collect_names(out);
                    b.collect_names(out);
                }
            }
        }
    }

    /// `c` when the expression is `c·name + rest` with `rest` free of `name` and `c ≠ 0`:
    /// the form from which call entry solves `name` given the size.
    pub fn affine_coefficient(&self, name: &str) -> Option<i128> {
        let mut coefficient = None;
        for (m, c) in &self.terms {
            let mentions = m.iter().any(|a| {
                let mut names = Vec::new();
                Poly::atom(a.clone()).collect_names(&mut names);
                names.iter().any(|n| n == name)
            });
            if !mentions {
                continue;
            }
            match m.as_slice() {
                [Atom::Name(n)] if n == name => coefficient = Some(*c),
                _ => return None,
            }
        }
        coefficient
    }

    /// The value for the sizes `size` gives each name (`None` past `i128`).
    #[cfg(test)]
    pub fn eval(&self, size: &dyn Fn(&str) -> i128) -> Option<i128> {
        let mut total: i128 = 0;
        for (m, c) in &self.terms {
            let mut term = *c;
            for atom in m {
                let v = match atom {
                    Atom::Name(n) => size(n),
                    Atom::FloorDiv(p, d) => p.eval(size)?.div_euclid(*d as i128),
                    Atom::Max(a, b) => a.eval(size)?.max(b.eval(size)?),
                    Atom::Min(a, b) => a.eval(size)?.min(b.eval(size)?),
                };
                term = term.checked_mul(v)?;
            }
            total = total.checked_add(term)?;
        }
        Some(total)
    }

    /// The expression as a postfix program over the names' indices in `names` (the
    /// runtime's `DimOp`s, evaluated at call entry): each term's atoms multiplied by its
    /// coefficient, the terms summed.
    pub fn program(&self, names: &[String]) -> Vec<DimOp> {
        let mut code = Vec::new();
        self.push_program(names, &mut code);
        code
    }

    fn push_program(&self, names: &[String], code: &mut Vec<DimOp>) {
        if self.terms.is_empty() {
            code.push(DimOp::Lit(0));
        }
        for (k, (m, c)) in self.terms.iter().enumerate() {
            code.push(DimOp::Lit(*c));
            for atom in m {
                match atom {
                    Atom::Name(n) => {
                        let index = names.iter().position(|x| x == n).unwrap_or(0);
                        code.push(DimOp::Sym(index));
                    }
                    Atom::FloorDiv(p, d) => {
                        p.push_program(names, code);
                        code.push(DimOp::FloorDiv(*d));
                    }
                    Atom::Max(a, b) | Atom::Min(a, b) => {
                        a.push_program(names, code);
                        b.push_program(names, code);
                        code.push(if matches!(atom, Atom::Max(..)) {
                            DimOp::Max
                        } else {
                            DimOp::Min
                        });
                    }
                }
                code.push(DimOp::Mul);
            }
            if k > 0 {
                code.push(DimOp::Add);
            }
        }
    }
}

/// One step of a dim expression's postfix program (tensor-core's `DimOp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimOp {
    Lit(i128),
    Sym(usize),
    Add,
    Mul,
    FloorDiv(u64),
    Max,
    Min,
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Name(n) => f.write_str(n),
            Atom::FloorDiv(p, d) if p.single_atom().is_some_and(|(_, c)| c == 1) => {
                write!(f, "{p} / {d}")
            }
            Atom::FloorDiv(p, d) => write!(f, "({p}) / {d}"),
            Atom::Max(a, b) => write!(f, "max({a}, {b})"),
            Atom::Min(a, b) => write!(f, "min({a}, {b})"),
        }
    }
}

/// `2 * N + M - 1`: the terms of higher degree first, the constant last.
impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut terms: Vec<(&Vec<Atom>, i128)> = self.terms.iter().map(|(m, c)| (m, *c)).collect();
        terms.sort_by_key(|(m, _)| (m.is_empty(), std::cmp::Reverse(m.len())));
        if terms.is_empty() {
            return f.write_str("0");
        }
        for (k, (m, c)) in terms.into_iter().enumerate() {
            let magnitude = c.unsigned_abs();
            match (k, c < 0) {
                (0, true) => f.write_str("-")?,
                (0, false) => {}
                (_, true) => f.write_str(" - ")?,
                (_, false) => f.write_str(" + ")?,
            }
            let atoms: Vec<String> = m.iter().map(|a| a.to_string()).collect();
            match (atoms.is_empty(), magnitude) {
                (true, _) => write!(f, "{magnitude}")?,
                (false, 1) => f.write_str(&atoms.join(" * "))?,
                (false, _) => write!(f, "{magnitude} * {}", atoms.join(" * "))?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(name: &str) -> Poly {
        Poly::name(name)
    }
    fn c(v: i128) -> Poly {
        Poly::constant(v)
    }

    /// Every normal form equals its expression's value, brute-forced over small sizes
    /// (the independent reference: integer arithmetic on the unsimplified expression).
    fn agrees(form: &Poly, direct: &dyn Fn(i128, i128) -> i128) {
        for a in 0..12 {
            for b in 0..12 {
                let size = |name: &str| if name == "N" { a } else { b };
                assert_eq!(
                    form.eval(&size),
                    Some(direct(a, b)),
                    "{form} at N={a} M={b}"
                );
            }
        }
    }

    #[test]
    fn equal_expressions_have_equal_forms() {
        assert_eq!(n("N").add(&n("M")), n("M").add(&n("N")));
        assert_eq!(n("N").add(&n("N")), n("N").scale(2));
        assert_eq!(n("N").add(&c(1)).sub(&c(1)), n("N"));
        assert_eq!(n("N").sub(&n("N")), c(0));
        assert_eq!(n("N").scale(2).add(&c(1)).floor_div(2), n("N"));
        assert_eq!(
            n("N").scale(4).add(&c(6)).floor_div(2),
            n("N").scale(2).add(&c(3))
        );
        assert_eq!(n("N").floor_div(2).floor_div(3), n("N").floor_div(6));
        assert_eq!(n("N").scale(2).floor_div(4), n("N").floor_div(2));
        assert_eq!(n("N").add(&c(3)).maximum(&n("N")), n("N").add(&c(3)));
        assert_eq!(n("N").minimum(&n("N").add(&c(3))), n("N"));
        assert_eq!(n("N").maximum(&n("M")), n("M").maximum(&n("N")));
        assert_ne!(n("N").maximum(&n("M")), n("N").minimum(&n("M")));
        assert_ne!(n("N").add(&c(1)).floor_div(2), n("N").floor_div(2));
        assert_eq!(
            n("N").add(&n("M")).mul(&c(2)),
            n("N").scale(2).add(&n("M").scale(2))
        );
    }

    #[test]
    fn forms_keep_their_values() {
        let cases: Vec<(Poly, Box<dyn Fn(i128, i128) -> i128>)> = vec![
            (n("N").add(&c(1)).floor_div(2), Box::new(|a, _| (a + 1) / 2)),
            (
                n("N").scale(3).add(&n("M")).add(&c(5)).floor_div(3),
                Box::new(|a, b| (3 * a + b + 5) / 3),
            ),
            (
                n("N").sub(&c(7)).floor_div(2),
                Box::new(|a, _| (a - 7).div_euclid(2)),
            ),
            (
                n("N").add(&c(2)).floor_div(2).floor_div(2),
                Box::new(|a, _| ((a + 2) / 2) / 2),
            ),
            (
                n("N")
                    .scale(6)
                    .add(&n("M").scale(4))
                    .add(&c(1))
                    .floor_div(4),
                Box::new(|a, b| (6 * a + 4 * b + 1) / 4),
            ),
            (
                n("N").maximum(&n("M")).add(&n("N").minimum(&n("M"))),
                Box::new(|a, b| a + b),
            ),
            (n("N").mul(&n("M")).sub(&n("N")), Box::new(|a, b| a * b - a)),
        ];
        for (form, direct) in &cases {
            agrees(form, direct);
        }
    }

    #[test]
    fn shows_the_language_notation() {
        assert_eq!(n("N").add(&n("M")).to_string(), "M + N");
        assert_eq!(n("N").scale(2).to_string(), "2 * N");
        assert_eq!(n("N").sub(&c(4)).to_string(), "N - 4");
        assert_eq!(n("N").add(&c(1)).floor_div(2).to_string(), "(N + 1) / 2");
        assert_eq!(n("N").floor_div(2).to_string(), "N / 2");
        assert_eq!(n("N").maximum(&n("M")).to_string(), "max(M, N)");
        assert_eq!(c(0).to_string(), "0");
    }

    #[test]
    fn affine_forms_solve() {
        assert_eq!(n("N").scale(2).add(&c(3)).affine_coefficient("N"), Some(2));
        assert_eq!(n("N").add(&n("M")).affine_coefficient("M"), Some(1));
        assert_eq!(n("N").mul(&n("M")).affine_coefficient("N"), None);
        assert_eq!(n("N").add(&c(1)).floor_div(2).affine_coefficient("N"), None);
        assert_eq!(
            n("N").add(&n("M").floor_div(2)).affine_coefficient("N"),
            Some(1)
        );
        assert_eq!(c(3).affine_coefficient("N"), None);
    }
}
