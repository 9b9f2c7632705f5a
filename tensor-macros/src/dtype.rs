//! dtypes and MAX's promotion rule, as pure functions.
//!
//! Rule (MAX Graph; docs/language.md, "Promotion"): category `bool < uint < int < float`; the candidate is
//! (max category, max bit width). Promotion fails if an input may hold a value the
//! candidate cannot represent, or if the candidate would have an input's width in
//! another format (`f16` with `bf16`). Otherwise both inputs cast to the candidate.

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Uint,
    Int,
    Float,
}

impl DType {
    pub const ALL: [DType; 13] = [
        DType::Bool,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    pub const ALL_NAMES: &'static str =
        "`bool`, `u8`, `u16`, `u32`, `u64`, `i8`, `i16`, `i32`, `i64`, `f16`, `bf16`, `f32`, `f64`";

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Category::Uint,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => Category::Int,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Float,
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            DType::Bool => 1,
            DType::U8 | DType::I8 => 8,
            DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 16,
            DType::U32 | DType::I32 | DType::F32 => 32,
            DType::U64 | DType::I64 | DType::F64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        self.category() == Category::Float
    }

    pub fn is_integer(self) -> bool {
        matches!(self.category(), Category::Uint | Category::Int)
    }

    /// Significand bits of a float, including the implicit one.
    pub fn float_precision(self) -> Option<u32> {
        match self {
            DType::F16 => Some(11),
            DType::BF16 => Some(8),
            DType::F32 => Some(24),
            DType::F64 => Some(53),
            _ => None,
        }
    }

    /// The largest finite value of a float dtype.
    pub fn float_max(self) -> Option<f64> {
        match self {
            DType::F16 => Some(65504.0),
            DType::BF16 => Some(3.3895313892515355e38),
            DType::F32 => Some(f32::MAX as f64),
            DType::F64 => Some(f64::MAX),
            _ => None,
        }
    }

    /// Integer range as `(min, max)`; `bool` is `(0, 1)`.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::Bool => (0, 1),
            DType::U8 => (0, u8::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            _ => return None,
        })
    }

    /// The type kernels compute this dtype in (`f16`/`bf16` in `f32` lanes).
    pub fn compute(self) -> DType {
        match self {
            DType::F16 | DType::BF16 => DType::F32,
            other => other,
        }
    }

    /// Whether every value of `self` is exactly a value of `to`.
    pub fn fits_in(self, to: DType) -> bool {
        if self == to {
            return true;
        }
        match (self.category(), to.category()) {
            (Category::Bool, _) => true,
            (Category::Uint, Category::Uint) | (Category::Int, Category::Int) => {
                to.bits() >= self.bits()
            }
            (Category::Uint, Category::Int) => to.bits() > self.bits(),
            // An integer of n value bits needs n significand bits.
            (Category::Uint, Category::Float) => to.float_precision().unwrap() >= self.bits(),
            (Category::Int, Category::Float) => to.float_precision().unwrap() >= self.bits() - 1,
            (Category::Float, Category::Float) => {
                to.bits() > self.bits()
                    && to.float_precision().unwrap() >= self.float_precision().unwrap()
            }
            _ => false,
        }
    }
}

/// Why two dtypes do not promote.
#[derive(Debug, PartialEq, Eq)]
pub enum PromotionError {
    /// `input` may hold values the candidate cannot represent.
    Unrepresentable { input: DType, candidate: DType },
    /// Two 16-bit floats of different formats.
    FormatClash,
}

/// MAX's promotion of two strong dtypes.
pub fn promote(a: DType, b: DType) -> Result<DType, PromotionError> {
    if a == b {
        return Ok(a);
    }
    let category = a.category().max(b.category());
    let bits = a.bits().max(b.bits());
    let candidate = match category {
        Category::Bool => DType::Bool,
        Category::Uint => match bits {
            8 => DType::U8,
            16 => DType::U16,
            32 => DType::U32,
            _ => DType::U64,
        },
        Category::Int => match bits {
            8 => DType::I8,
            16 => DType::I16,
            32 => DType::I32,
            _ => DType::I64,
        },
        Category::Float => match bits {
            32 => DType::F32,
            64 => DType::F64,
            _ => {
                // A 16-bit candidate takes the format of the 16-bit float input(s).
                let floats: Vec<DType> = [a, b].into_iter().filter(|d| d.is_float()).collect();
                if floats.len() == 2 && floats[0] != floats[1] {
                    return Err(PromotionError::FormatClash);
                }
                floats[0]
            }
        },
    };
    for input in [a, b] {
        if !input.fits_in(candidate) {
            return Err(PromotionError::Unrepresentable { input, candidate });
        }
    }
    Ok(candidate)
}

/// A dtype both inputs fit in, for the "cast one side" hint of a refused promotion.
pub fn promotion_hint(a: DType, b: DType) -> Option<DType> {
    let ladder = [
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];
    ladder.into_iter().find(|&c| a.fits_in(c) && b.fits_in(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The promotion table of docs/language.md, verbatim: row dtype, then the result against each column.
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
  f64  f64  f64  f64  f64   --  f64  f64  f64   --  f64  f64  f64  f64";

    #[test]
    fn promotion_matches_the_design_table() {
        let mut lines = TABLE.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<DType> = lines
            .next()
            .unwrap()
            .split_whitespace()
            .map(|n| DType::from_name(n).unwrap())
            .collect();
        let mut rows = 0;
        for line in lines {
            let mut cells = line.split_whitespace();
            let row = DType::from_name(cells.next().unwrap()).unwrap();
            for (&col, cell) in header.iter().zip(cells) {
                let expected = if cell == "--" {
                    None
                } else {
                    Some(DType::from_name(cell).unwrap())
                };
                assert_eq!(promote(row, col).ok(), expected, "{row:?} with {col:?}");
                assert_eq!(
                    promote(col, row).ok(),
                    expected,
                    "symmetry {col:?} with {row:?}"
                );
            }
            rows += 1;
        }
        assert_eq!(rows, 13);
    }

    #[test]
    fn hints_fit_both_sides() {
        assert_eq!(promotion_hint(DType::U32, DType::I32), Some(DType::I64));
        assert_eq!(promotion_hint(DType::I32, DType::F32), Some(DType::F64));
        assert_eq!(promotion_hint(DType::F16, DType::BF16), Some(DType::F32));
        assert_eq!(promotion_hint(DType::U64, DType::I64), None);
    }
}
