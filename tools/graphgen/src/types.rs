//! The language's dtypes, dims and the promotion and broadcasting rules, written from
//! docs/language.md (not from tensor-macros: the generator is a second,
//! independent statement of the rules, so a checker that drifts from them shows up as a
//! generated graph that fails to compile).

use std::fmt;

/// The 13 dtypes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

use DType::*;

impl DType {
    pub const ALL: [DType; 13] = [
        Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64,
    ];

    pub fn name(self) -> &'static str {
        [
            "bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f16", "bf16", "f32",
            "f64",
        ][self as usize]
    }

    pub fn is_float(self) -> bool {
        matches!(self, F16 | BF16 | F32 | F64)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(self, I8 | I16 | I32 | I64)
    }

    pub fn is_unsigned(self) -> bool {
        matches!(self, U8 | U16 | U32 | U64)
    }

    pub fn bits(self) -> u32 {
        match self {
            Bool => 1,
            U8 | I8 => 8,
            U16 | I16 | F16 | BF16 => 16,
            U32 | I32 | F32 => 32,
            U64 | I64 | F64 => 64,
        }
    }

    /// Integer range (bool is 0..=1).
    pub fn int_range(self) -> (i128, i128) {
        match self {
            Bool => (0, 1),
            U8 => (0, u8::MAX as i128),
            U16 => (0, u16::MAX as i128),
            U32 => (0, u32::MAX as i128),
            U64 => (0, u64::MAX as i128),
            I8 => (i8::MIN as i128, i8::MAX as i128),
            I16 => (i16::MIN as i128, i16::MAX as i128),
            I32 => (i32::MIN as i128, i32::MAX as i128),
            I64 => (i64::MIN as i128, i64::MAX as i128),
            _ => (0, 0),
        }
    }

    /// Significand bits of a float dtype.
    pub fn precision(self) -> u32 {
        match self {
            F16 => 11,
            BF16 => 8,
            F32 => 24,
            F64 => 53,
            _ => 0,
        }
    }

    /// The dtype kernels compute a value of this dtype in (`f16`/`bf16` in `f32`).
    pub fn compute(self) -> DType {
        match self {
            F16 | BF16 => F32,
            d => d,
        }
    }

    /// `sum`'s output dtype (Theano: signed and bool widen to i64, unsigned to u64).
    pub fn sum_out(self) -> DType {
        match self {
            Bool | I8 | I16 | I32 | I64 => I64,
            U8 | U16 | U32 | U64 => U64,
            f => f,
        }
    }

    /// Whether every value of `self` is a value of `to` (bool counts as u8).
    pub fn fits_in(self, to: DType) -> bool {
        let from = if self == Bool { U8 } else { self };
        if from == to || (self == Bool && to != Bool) {
            return true;
        }
        match (from.is_float(), to.is_float()) {
            (false, false) => {
                if from.is_signed() == to.is_signed() {
                    to.bits() >= from.bits()
                } else {
                    from.is_unsigned() && to.bits() > from.bits()
                }
            }
            (false, true) => {
                let need = if from.is_signed() {
                    from.bits() - 1
                } else {
                    from.bits()
                };
                to.precision() >= need
            }
            (true, true) => to.bits() > from.bits() && to.precision() >= from.precision(),
            (true, false) => false,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The promotion table of docs/language.md, verbatim.
const TABLE: &str = "
      bool   u8  u16  u32  u64   i8  i16  i32  i64  f16 bf16  f32  f64
 bool bool   u8  u16  u32  u64   i8  i16  i32  i64  f16 bf16  f32  f64
   u8   u8   u8  u16  u32  u64   --  i16  i32  i64  f16 bf16  f32  f64
  u16  u16  u16  u16  u32  u64   --   --  i32  i64   --   --  f32  f64
  u32  u32  u32  u32  u32  u64   --   --   --  i64   --   --   --  f64
  u64  u64  u64  u64  u64  u64   --   --   --   --   --   --   --   --
   i8   i8   --   --   --   --   i8  i16  i32  i64  f16 bf16  f32  f64
  i16  i16  i16   --   --   --  i16  i16  i32  i64   --   --  f32  f64
  i32  i32  i32  i32   --   --  i32  i32  i32  i64   --   --   --  f64
  i64  i64  i64  i64  i64   --  i64  i64  i64  i64   --   --   --   --
  f16  f16  f16   --   --   --  f16   --   --   --  f16   --  f32  f64
 bf16 bf16 bf16   --   --   -- bf16   --   --   --   -- bf16  f32  f64
  f32  f32  f32  f32   --   --  f32  f32   --   --  f32  f32  f32  f64
  f64  f64  f64  f64  f64   --  f64  f64  f64   --  f64  f64  f64  f64
";

/// The promoted dtype of a binary op's two strong operands, or `None` (a compile error).
pub fn promote(a: DType, b: DType) -> Option<DType> {
    let row = TABLE
        .lines()
        .filter(|l| !l.trim().is_empty())
        .nth(1 + a as usize)?;
    let cell = row.split_whitespace().nth(1 + b as usize)?;
    DType::ALL.into_iter().find(|d| d.name() == cell)
}

/// One dim of a shape: a literal, a name bound at call entry, or an expression over names
/// (docs/language.md "Dim expressions"), kept in a normal form of its own: `Lit` for a
/// constant, `Name` for a bare name, `Expr` otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Lit(usize),
    Name(&'static str),
    Expr(Lin),
}

/// An atom of a linear dim expression: a name or a floor division `lin / d` (`d ≥ 2`) that
/// does not simplify.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    Name(&'static str),
    Div(Box<Lin>, i64),
}

/// `Σ c·atom + k`, terms sorted by atom, no zero coefficients. Two forms are equal only
/// when they are the same value for every size (the converse need not hold: a sum the
/// macro's normal form proves equal and this one does not is only a broadcast the
/// generator does not draw).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lin {
    pub terms: Vec<(Atom, i64)>,
    pub k: i64,
}

impl Lin {
    pub fn constant(k: i64) -> Lin {
        Lin { terms: vec![], k }
    }

    pub fn name(n: &'static str) -> Lin {
        Lin {
            terms: vec![(Atom::Name(n), 1)],
            k: 0,
        }
    }

    fn norm(mut self) -> Lin {
        self.terms.sort();
        let mut out: Vec<(Atom, i64)> = Vec::new();
        for (a, c) in self.terms {
            match out.last_mut() {
                Some((b, d)) if *b == a => *d += c,
                _ => out.push((a, c)),
            }
        }
        out.retain(|t| t.1 != 0);
        Lin {
            terms: out,
            k: self.k,
        }
    }

    pub fn add(&self, o: &Lin) -> Lin {
        let mut terms = self.terms.clone();
        terms.extend(o.terms.iter().cloned());
        Lin {
            terms,
            k: self.k + o.k,
        }
        .norm()
    }

    pub fn scale(&self, c: i64) -> Lin {
        Lin {
            terms: self.terms.iter().map(|(a, d)| (a.clone(), d * c)).collect(),
            k: self.k * c,
        }
        .norm()
    }

    /// `floor(self / d)`, `d ≥ 1`.
    pub fn div(&self, d: i64) -> Lin {
        if d == 1 {
            return self.clone();
        }
        if self.terms.iter().all(|(_, c)| c % d == 0) {
            return Lin {
                terms: self.terms.iter().map(|(a, c)| (a.clone(), c / d)).collect(),
                k: self.k.div_euclid(d),
            };
        }
        Lin {
            terms: vec![(Atom::Div(Box::new(self.clone()), d), 1)],
            k: 0,
        }
    }

    /// The value at these sizes (may be negative).
    pub fn eval(&self, size: &dyn Fn(&str) -> i64) -> i64 {
        self.k
            + self
                .terms
                .iter()
                .map(|(a, c)| {
                    c * match a {
                        Atom::Name(n) => size(n),
                        Atom::Div(l, d) => l.eval(size).div_euclid(*d),
                    }
                })
                .sum::<i64>()
    }

    pub fn names(&self, out: &mut Vec<&'static str>) {
        for (a, _) in &self.terms {
            match a {
                Atom::Name(n) => {
                    if !out.contains(n) {
                        out.push(n)
                    }
                }
                Atom::Div(l, _) => l.names(out),
            }
        }
    }

    /// `c * N + k` with `c ≥ 1`: `(N, c, k)`.
    pub fn affine(&self) -> Option<(&'static str, i64, i64)> {
        match self.terms.as_slice() {
            [(Atom::Name(n), c)] if *c >= 1 => Some((n, *c, self.k)),
            _ => None,
        }
    }

    /// Source text, written with `f` for a name (`n_N` in Rust).
    pub fn text_with(&self, f: &dyn Fn(&str) -> String) -> String {
        let mut s = String::new();
        for (i, (a, c)) in self.terms.iter().enumerate() {
            let atom = match a {
                Atom::Name(n) => f(n),
                Atom::Div(l, d) => format!("({}) / {d}", l.text_with(f)),
            };
            let (neg, m) = (*c < 0, c.abs());
            if i == 0 {
                s += if neg { "0 - " } else { "" };
            } else {
                s += if neg { " - " } else { " + " };
            }
            if m == 1 {
                s += &atom;
            } else if matches!(a, Atom::Div(..)) {
                s += &format!("{m} * ({atom})");
            } else {
                s += &format!("{m} * {atom}");
            }
        }
        if s.is_empty() {
            return self.k.to_string();
        }
        if self.k > 0 {
            s += &format!(" + {}", self.k);
        } else if self.k < 0 {
            s += &format!(" - {}", -self.k);
        }
        s
    }
}

impl Dim {
    pub fn is_one(&self) -> bool {
        *self == Dim::Lit(1)
    }

    pub fn is_lit(&self) -> bool {
        matches!(self, Dim::Lit(_))
    }

    pub fn lin(&self) -> Lin {
        match self {
            Dim::Lit(n) => Lin::constant(*n as i64),
            Dim::Name(n) => Lin::name(n),
            Dim::Expr(l) => l.clone(),
        }
    }

    /// The dim of a normal form (`None`: a negative constant).
    pub fn from_lin(l: Lin) -> Option<Dim> {
        if l.terms.is_empty() {
            return (l.k >= 0).then_some(Dim::Lit(l.k as usize));
        }
        if l.k == 0 {
            if let [(Atom::Name(n), 1)] = l.terms.as_slice() {
                return Some(Dim::Name(n));
            }
        }
        Some(Dim::Expr(l))
    }

    pub fn eval(&self, size: &dyn Fn(&str) -> i64) -> i64 {
        self.lin().eval(size)
    }

    pub fn names(&self, out: &mut Vec<&'static str>) {
        self.lin().names(out)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Lit(n) => write!(f, "{n}"),
            Dim::Name(n) => f.write_str(n),
            Dim::Expr(l) => f.write_str(&l.text_with(&|n| n.to_string())),
        }
    }
}

/// Right-aligned broadcasting: a literal 1 stretches, a name matches only itself or a 1.
pub fn broadcast(a: &[Dim], b: &[Dim]) -> Option<Vec<Dim>> {
    let rank = a.len().max(b.len());
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let da = (i + a.len()).checked_sub(rank).map(|k| &a[k]);
        let db = (i + b.len()).checked_sub(rank).map(|k| &b[k]);
        out.push(match (da, db) {
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (Some(x), Some(y)) if x == y => x.clone(),
            (Some(x), Some(y)) if x.is_one() => y.clone(),
            (Some(x), Some(y)) if y.is_one() => x.clone(),
            _ => return None,
        });
    }
    Some(out)
}

/// The type of a value in a graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Ty {
    pub dtype: DType,
    pub dims: Vec<Dim>,
}

impl Ty {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Literal size when every dim is a literal.
    pub fn lit_len(&self) -> Option<usize> {
        self.dims.iter().try_fold(1usize, |p, d| match d {
            Dim::Lit(n) => Some(p * n),
            _ => None,
        })
    }

    /// `f32[2, B]`.
    pub fn text(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        format!("{}[{}]", self.dtype, dims.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table and the rule it states (highest category, widest width, every input
    /// representable, no two 16-bit float formats) agree.
    #[test]
    fn table_is_the_stated_rule() {
        for a in DType::ALL {
            for b in DType::ALL {
                let rule = {
                    let cat = |d: DType| match d {
                        Bool => 0,
                        U8 | U16 | U32 | U64 => 1,
                        I8 | I16 | I32 | I64 => 2,
                        _ => 3,
                    };
                    let c = cat(a).max(cat(b));
                    let w = a.bits().max(b.bits());
                    let cand = DType::ALL
                        .into_iter()
                        .find(|&d| cat(d) == c && d.bits() == w.max(if c == 0 { 1 } else { 8 }))
                        .unwrap();
                    let cand = if w == 16 && c == 3 {
                        if a.is_float() && b.is_float() && a != b {
                            None
                        } else if a.is_float() {
                            Some(a)
                        } else {
                            Some(b)
                        }
                    } else {
                        Some(cand)
                    };
                    cand.filter(|&d| a == b || (a.fits_in(d) && b.fits_in(d)))
                };
                let rule = if a == b { Some(a) } else { rule };
                assert_eq!(promote(a, b), rule, "{a} {b}");
            }
        }
    }
}
