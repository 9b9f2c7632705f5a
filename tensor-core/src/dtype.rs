//! The 13 element types of tensorgraph and how each one lives inside a kernel.
//!
//! Every dtype has a *compute type*: the scalar type its values have in SIMD lanes.
//! It is the dtype itself, except `f16` and `bf16`, which compute in `f32` lanes and
//! are rounded to their own format only where a value leaves the dtype (a store, an
//! `as` cast, or an implicit promotion). That is docs/language.md's "round once on store".

use core::fmt;

/// Lanes per SIMD value: 16 on AVX-512 builds (sixteen `f32` fill one zmm register; f64
/// lanes are two `f64x8`), 8 elsewhere (eight `f32` fill one AVX register, two SSE
/// registers on a default x86-64 build). The f32 transcendentals run twice as fast per
/// element on 16 lanes on an AVX-512 machine (measured: exp 0.47 -> 0.23 ns, gelu 1.13 ->
/// 0.58 ns per element; see BENCHMARKS.md "Peers").
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
pub const LANES: usize = 16;
/// Lanes per SIMD value: 16 on AVX-512 builds, 8 elsewhere (eight `f32` fill one AVX
/// register, two SSE registers on a default x86-64 build).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
pub const LANES: usize = 8;

pub use half::{bf16, f16};

/// A dtype tag, used for messages and `Debug` output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `bool`
    Bool,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `f16` (IEEE half)
    F16,
    /// `bf16` (brain float)
    BF16,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl DType {
    /// The name used in the graph language (`f32`, `bf16`, ...).
    pub const fn name(self) -> &'static str {
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
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A scalar type that SIMD lanes hold: `bool`, the eight integers, `f32`, `f64`.
pub trait LaneScalar:
    Copy + Default + PartialEq + PartialOrd + fmt::Debug + Send + Sync + 'static + sealed::Sealed
{
}

/// One of the 13 tensor element types.
pub trait Element:
    Copy + Default + PartialEq + fmt::Debug + Send + Sync + 'static + sealed::Sealed
{
    /// The dtype tag of this element type.
    const DTYPE: DType;
    /// The type of this dtype's values inside a kernel.
    type Compute: LaneScalar;
    /// Exact: every value of the dtype is a value of its compute type.
    fn to_compute(self) -> Self::Compute;
    /// Rounds once (to nearest, ties to even) for `f16`/`bf16`; the identity otherwise.
    fn from_compute(value: Self::Compute) -> Self;
    /// A whole chunk of `LANES` elements converted to the compute type:
    /// [`to_compute`](Element::to_compute) on each. `f16` on builds without F16C overrides
    /// it with one out-of-line call (see `f16_chunk_to_f32`).
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn chunk_to_compute(chunk: &[Self; LANES]) -> [Self::Compute; LANES] {
        let mut lanes = [Self::Compute::default(); LANES];
        for i in 0..LANES {
            lanes[i] = chunk[i].to_compute();
        }
        lanes
    }
    /// A whole chunk rounded into the dtype: [`from_compute`](Element::from_compute) on
    /// each lane (`f16` without F16C: one out-of-line call, `f32_chunk_to_f16`).
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn chunk_from_compute(values: &[Self::Compute; LANES], out: &mut [Self; LANES]) {
        for i in 0..LANES {
            out[i] = Self::from_compute(values[i]);
        }
    }
}

/// `f16` chunks to `f32` on builds without F16C, compiled once here: half's slice
/// conversion, which checks for F16C at run time and uses `vcvtph2ps` where the CPU has it,
/// else its software path (the same two paths as `f16::to_f32`, so the same values). Inline
/// per lane, `to_f32` put that check and both paths into the kernel eight or sixteen times
/// per load, and each graph's kernels compiled them again (issue 17: the `f16`/`bf16`
/// graphs were the largest functions of the compile-time benchmark's set 1).
#[cfg(not(target_feature = "f16c"))]
#[inline(never)]
pub fn f16_chunk_to_f32(chunk: &[f16; LANES]) -> [f32; LANES] {
    use half::slice::HalfFloatSliceExt;
    let mut out = [0.0f32; LANES];
    chunk.convert_to_f32_slice(&mut out);
    out
}

/// `f32` chunks rounded to `f16` on builds without F16C, compiled once here (see
/// [`f16_chunk_to_f32`]; half's `vcvtps2ph` rounds to nearest, ties to even, as `from_f32`).
#[cfg(not(target_feature = "f16c"))]
#[inline(never)]
pub fn f32_chunk_to_f16(values: &[f32; LANES], out: &mut [f16; LANES]) {
    use half::slice::HalfFloatSliceExt;
    out.convert_from_f32_slice(values);
}

macro_rules! plain_element {
    ($($t:ty => $tag:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl LaneScalar for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$tag;
            type Compute = $t;
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn to_compute(self) -> $t { self }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn from_compute(value: $t) -> $t { value }
        }
    )*};
}
plain_element!(bool => Bool, u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16,
    i32 => I32, i64 => I64, f32 => F32, f64 => F64);

macro_rules! half_element {
    ($($t:ty => $tag:ident $(($to:ident, $from:ident))?),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$tag;
            type Compute = f32;
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn to_compute(self) -> f32 { self.to_f32() }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn from_compute(value: f32) -> $t { <$t>::from_f32(value) }
            $(
                #[cfg(not(target_feature = "f16c"))]
                #[inline(always)]
                fn chunk_to_compute(chunk: &[$t; LANES]) -> [f32; LANES] {
                    $to(chunk)
                }
                #[cfg(not(target_feature = "f16c"))]
                #[inline(always)]
                fn chunk_from_compute(values: &[f32; LANES], out: &mut [$t; LANES]) {
                    $from(values, out)
                }
            )?
        }
    )*};
}
half_element!(f16 => F16 (f16_chunk_to_f32, f32_chunk_to_f16), bf16 => BF16);
