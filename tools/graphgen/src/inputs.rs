//! Inputs: host tensors (every element as its bit pattern, so NaN payloads, −0 and
//! integer extremes pass through unchanged), and random and edge-value inputs for a graph.

use std::collections::HashMap;

use half::{bf16, f16};

use crate::ast::Graph;
use crate::interp::T;
use crate::rng::Rng;
use crate::types::{DType, Dim};
use crate::value::E;

/// A tensor as the generated runners pass it: dtype, extents and each element's bits.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub dtype: DType,
    pub dims: Vec<usize>,
    pub bits: Vec<u64>,
}

/// The 13 element types.
pub trait HostElem: Copy {
    const DTYPE: DType;
    fn to_bits64(self) -> u64;
    fn from_bits64(b: u64) -> Self;
}

macro_rules! host_int {
    ($($t:ty => $d:ident),*) => {$(
        impl HostElem for $t {
            const DTYPE: DType = DType::$d;
            fn to_bits64(self) -> u64 { self as u64 }
            fn from_bits64(b: u64) -> Self { b as $t }
        }
    )*};
}
host_int!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32, i64 => I64);

impl HostElem for bool {
    const DTYPE: DType = DType::Bool;
    fn to_bits64(self) -> u64 {
        self as u64
    }
    fn from_bits64(b: u64) -> Self {
        b != 0
    }
}

macro_rules! host_float {
    ($($t:ty => $d:ident),*) => {$(
        impl HostElem for $t {
            const DTYPE: DType = DType::$d;
            fn to_bits64(self) -> u64 { self.to_bits() as u64 }
            fn from_bits64(b: u64) -> Self { <$t>::from_bits(b as _) }
        }
    )*};
}
host_float!(f16 => F16, bf16 => BF16, f32 => F32, f64 => F64);

impl HostTensor {
    pub fn from_slice<X: HostElem>(dims: &[usize], data: &[X]) -> HostTensor {
        HostTensor {
            dtype: X::DTYPE,
            dims: dims.to_vec(),
            bits: data.iter().map(|x| x.to_bits64()).collect(),
        }
    }

    pub fn to_vec<X: HostElem>(&self) -> Vec<X> {
        assert_eq!(X::DTYPE, self.dtype, "element type");
        self.bits.iter().map(|&b| X::from_bits64(b)).collect()
    }

    /// Element `i` as the interpreter's value.
    pub fn element(&self, i: usize) -> E {
        let b = self.bits[i];
        match self.dtype {
            DType::Bool => E::B(b != 0),
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => E::I(b as i128),
            DType::I8 => E::I(b as i8 as i128),
            DType::I16 => E::I(b as i16 as i128),
            DType::I32 => E::I(b as i32 as i128),
            DType::I64 => E::I(b as i64 as i128),
            DType::F16 => E::F(f16::from_bits(b as u16).to_f64()),
            DType::BF16 => E::F(bf16::from_bits(b as u16).to_f64()),
            DType::F32 => E::F(f32::from_bits(b as u32) as f64),
            DType::F64 => E::F(f64::from_bits(b)),
        }
    }

    /// The same dtype, dims and elements: equal bits, or both NaN (a NaN's payload is not
    /// part of the language's semantics).
    pub fn same_as(&self, other: &HostTensor) -> bool {
        self.dtype == other.dtype
            && self.dims == other.dims
            && self.bits.len() == other.bits.len()
            && (0..self.bits.len()).all(|i| {
                self.bits[i] == other.bits[i]
                    || matches!((self.element(i), other.element(i)), (E::F(a), E::F(b)) if a.is_nan() && b.is_nan())
            })
    }

    pub fn to_interp(&self) -> T {
        T {
            dtype: self.dtype,
            dims: self.dims.clone(),
            data: (0..self.bits.len()).map(|i| self.element(i)).collect(),
        }
    }
}

/// Edge values of a dtype, as bits.
fn edge_bits(d: DType) -> Vec<u64> {
    use DType::*;
    let f32s = |v: &[f32]| v.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>();
    match d {
        Bool => vec![0, 1],
        U8 | U16 | U32 | U64 => {
            let max = if d == U64 {
                u64::MAX
            } else {
                (1u64 << d.bits()) - 1
            };
            vec![0, 1, max, max - 1, max / 2, max / 2 + 1]
        }
        I8 | I16 | I32 | I64 => {
            let bits = d.bits();
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let min = 1u64 << (bits - 1);
            vec![0, 1, mask, min, min - 1, min + 1, mask - 1]
        }
        F32 => f32s(&[
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            0.5,
            88.7,
            -104.0,
        ]),
        F64 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            0.5,
            709.7,
            -745.0,
        ]
        .iter()
        .map(|x| x.to_bits())
        .collect(),
        F16 => [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            65504.0,
            -65504.0,
            6.1e-5,
            6e-8,
            0.5,
            11.0,
        ]
        .iter()
        .map(|&x| f16::from_f32(x).to_bits() as u64)
        .collect(),
        BF16 => [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
            f32::MIN,
            1e-38,
            9e-41,
            0.5,
            88.0,
        ]
        .iter()
        .map(|&x| bf16::from_f32(x).to_bits() as u64)
        .collect(),
    }
}

/// A random ordinary value of a dtype, as bits.
fn random_bits(d: DType, rng: &mut Rng) -> u64 {
    use DType::*;
    let small = (rng.below(2001) as f64 - 1000.0) / 250.0;
    match d {
        Bool => rng.below(2) as u64,
        U8 | U16 | U32 | U64 | I8 | I16 | I32 | I64 => {
            let v: i64 = match rng.below(3) {
                0 => rng.range(-20, 20),
                1 => rng.range(-300, 300),
                _ => rng.next() as i64,
            };
            let bits = d.bits();
            if bits == 64 {
                v as u64
            } else {
                (v as u64) & ((1u64 << bits) - 1)
            }
        }
        F32 => {
            if rng.chance(0.1) {
                rng.next() & 0xFFFF_FFFF
            } else if rng.chance(0.3) {
                ((small * 8.0) as f32).to_bits() as u64
            } else {
                (small as f32).to_bits() as u64
            }
        }
        F64 => {
            if rng.chance(0.1) {
                rng.next()
            } else {
                small.to_bits()
            }
        }
        F16 => {
            if rng.chance(0.1) {
                rng.next() & 0xFFFF
            } else {
                f16::from_f64(small).to_bits() as u64
            }
        }
        BF16 => {
            if rng.chance(0.1) {
                rng.next() & 0xFFFF
            } else {
                bf16::from_f64(small).to_bits() as u64
            }
        }
    }
}

/// Inputs of case `case` for graph `g`: the sizes of its dim names and one host tensor
/// per parameter (a bare scalar as rank 0). Case 0 draws ordinary values; later cases mix
/// in edge values (NaN, ±inf, ±0, subnormals, integer extremes) and size-0/1 names.
pub fn make_inputs(
    g: &Graph,
    seed: u64,
    index: u64,
    case: u64,
) -> (Vec<HostTensor>, HashMap<&'static str, usize>) {
    let mut rng = Rng::for_item(seed, index, 100 + case);
    let mut sizes = HashMap::new();
    for &n in &g.names {
        let choices: &[usize] = if case == 0 {
            &[2, 3, 5, 8, 9, 17]
        } else {
            &[0, 1, 1, 2, 3, 7, 9]
        };
        sizes.insert(n, *rng.pick(choices));
    }
    let edge_p = if case == 0 {
        0.0
    } else {
        0.1 + 0.2 * (case % 3) as f64
    };
    let inputs = g
        .params
        .iter()
        .map(|p| {
            let dims: Vec<usize> = p
                .dims
                .iter()
                .flatten()
                .map(|d| match d {
                    Dim::Lit(n) => *n,
                    d => d.eval(&|n| sizes[n] as i64).max(0) as usize,
                })
                .collect();
            let n: usize = dims.iter().product();
            let edges = edge_bits(p.dtype);
            let bits = (0..n)
                .map(|_| {
                    if rng.chance(edge_p) {
                        *rng.pick(&edges)
                    } else {
                        random_bits(p.dtype, &mut rng)
                    }
                })
                .collect();
            HostTensor {
                dtype: p.dtype,
                dims,
                bits,
            }
        })
        .collect::<Vec<HostTensor>>();
    let mut inputs = inputs;
    // Index and label parameters: valid ones (negative from the end where allowed, the
    // ignore_index sometimes), and in edge cases sometimes one out of range (the call
    // must be `Err(IndexOutOfRange)`).
    for ip in &g.indices {
        let n = ip.len.eval(&|k| sizes[k] as i64) as i128;
        let t = &mut inputs[ip.param];
        let (lo, hi) = t.dtype.int_range();
        for b in t.bits.iter_mut() {
            let v: i128 = if let Some(i) = ip
                .ignore
                .filter(|&i| (lo..=hi).contains(&(i as i128)) && rng.chance(0.2))
            {
                i as i128
            } else if n == 0 {
                0
            } else {
                let low = if ip.negative { (-n).max(lo) } else { 0 };
                let high = (n - 1).min(hi);
                low + rng.below((high - low + 1) as usize) as i128
            };
            *b = v as i64 as u64;
        }
        if case % 2 == 1 && !t.bits.is_empty() && rng.chance(0.5) {
            let bad: Vec<i128> = [n, -n - 1, hi, lo, n + 7]
                .into_iter()
                .filter(|v| (lo..=hi).contains(v))
                .filter(|v| {
                    if ip.negative {
                        *v >= n || *v < -n
                    } else {
                        *v >= n || *v < 0
                    }
                })
                .filter(|v| ip.ignore.map_or(true, |i| i as i128 != *v))
                .collect();
            if !bad.is_empty() {
                let k = rng.below(t.bits.len());
                t.bits[k] = *rng.pick(&bad) as i64 as u64;
            }
        }
    }
    (inputs, sizes)
}
