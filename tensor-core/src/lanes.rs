//! SIMD lanes: `V<T>` holds `LANES` values of a compute type, and every op of the
//! reference semantics has a lane version here.
//!
//! Each `*Lanes` trait's default method applies the scalar reference lane by lane
//! (LLVM vectorises most of those maps); the float types override the hot ops with
//! explicit `wide` vectors. An override must give bit-identical results to the scalar
//! reference; tests/elementwise.rs and tests/tails.rs check every op through the kernels against it.
//!
//! These are the lane operations of every kernel, except in the AVX2 + FMA and AVX-512 copies
//! that the `dispatch` feature adds on builds without AVX2 (issue 36): the first names its
//! lane traits through lanes_avx2.rs, whose float methods are `core::arch` `__m256` code with
//! the same bits as the `wide` ones here, and whose other methods call these; the second
//! names its lanes (16 of them, its own `V` and `LANES`) through lanes_avx512.rs, which runs
//! the AVX2 layer on each 8-lane half or `__m512` code with the same bits.
//!
//! Inlining (issue 17): every lane function carries
//! `#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]` and
//! `#[cfg_attr(not(debug_assertions), inline(always))]`: always inlined in release builds,
//! a hint in dev builds at opt-level 1 or more, and nothing at opt-level 0 (`build.rs`),
//! where a hint would only make every graph crate compile its own copy of the function.

use crate::cast::CastTo;
/// Lanes per SIMD value (defined beside the element types, whose chunks it sizes).
pub use crate::dtype::LANES;
use crate::dtype::{Element, LaneScalar};
use crate::reference::{Activation, Bitwise, Compare, Float, Num, Shift};

/// `LANES` values of a compute type, the unit every kernel works in.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct V<T>(pub [T; LANES]);

impl<T: LaneScalar> V<T> {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// Every lane `value`.
    pub fn splat(value: T) -> Self {
        V([value; LANES])
    }

    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `f` applied to each lane.
    ///
    /// A plain index loop rather than `<[T; N]>::map` / `array::from_fn`: those expand to
    /// `try_from_fn` guards and drain iterators in every instantiation, and LLVM then
    /// spends a user's build time removing them again in every kernel (issue 17). `U` is a
    /// lane scalar (`Copy + Default`), so the buffer needs no `MaybeUninit`.
    pub fn map<U: LaneScalar>(self, f: impl Fn(T) -> U) -> V<U> {
        let mut out = [U::default(); LANES];
        for i in 0..LANES {
            out[i] = f(self.0[i]);
        }
        V(out)
    }

    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `f` applied to each pair of lanes of `self` and `other`.
    pub fn zip<U, R>(self, other: V<U>, f: impl Fn(T, U) -> R) -> V<R>
    where
        U: Copy,
        R: LaneScalar,
    {
        let mut out = [R::default(); LANES];
        for i in 0..LANES {
            out[i] = f(self.0[i], other.0[i]);
        }
        V(out)
    }
}

/// Asks the CPU to bring the 64-byte line holding `src[at]` into the cache (`prefetcht0` on
/// x86-64, nothing elsewhere). A hint only: the address is computed with wrapping
/// arithmetic and never dereferenced, so any `at` is allowed and nothing faults. Generated
/// code calls it once per chunk in the last pass of a row stage, for the same chunk of an
/// input's next row (emit/stages.rs `next_row_prefetch`), so the first pass of the next row finds
/// it in the cache while the prefetches are spread over a pass that is busy computing.
/// (Nothing under Miri either, which need not know the intrinsic.)
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn prefetch_chunk<E>(src: &[E], at: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let line = src.as_ptr().wrapping_add(at).cast::<i8>();
        // SAFETY: `prefetcht0` (SSE, in every x86-64 CPU) only hints the cache: it reads no
        // value and never faults, whatever the address; `line` is not dereferenced.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = (src, at);
}

/// The values of the `W` chunks of an unrolled group, chunk `u` from `value_of(u)`, all
/// computed before the caller stores any of them. The unrolled loops of passes that store
/// and reduce call it (emit/nests.rs, `emit_nest`: softmax's exp and scale passes): every load
/// of a group then precedes the group's stores, so a store never sits in front of a later
/// load of the group at an address equal to it in the low 12 bits ("4K aliasing", which
/// makes the load wait on the store: softmax over a `Vec` whose output lies 64 bytes past
/// the input modulo 4 KiB ran 28% slower, chunk by chunk).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn group_values<T: Copy, const W: usize>(mut value_of: impl FnMut(usize) -> T) -> [T; W] {
    const { assert!(W > 0) };
    let mut values = [value_of(0); W];
    for (u, value) in values.iter_mut().enumerate().skip(1) {
        *value = value_of(u);
    }
    values
}

/// Reads `n ≤ LANES` elements of `src` from `offset`, converted to the compute type.
/// Lanes past `n` hold the compute type's zero; every op is total, so they compute
/// harmlessly and are never stored.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn load<E: Element>(src: &[E], offset: usize, n: usize) -> V<E::Compute> {
    // The `expect`s of `load*`/`store` cannot fire: the range is `LANES` long. The slice
    // index is the check; generated code keeps it in bounds (its offsets walk the
    // operand's view inside a buffer whose length call entry or lowering fixed, and
    // `n` is the rest of the row: NOTES.md "Panics in kernels").
    if n == LANES {
        let chunk: &[E; LANES] = src[offset..offset + LANES]
            .try_into()
            .expect("a full chunk is LANES long");
        V(E::chunk_to_compute(chunk))
    } else {
        // Index loops, not `zip`/`enumerate` adapters, in the partial paths of `load*` and
        // `store`: they are inlined at every load and store of every kernel, and each
        // adapter is more IR that LLVM inlines and removes again (issue 17). `i < run.len()
        // ≤ LANES` lets LLVM drop the bounds checks, as it did for `zip`.
        let mut lanes = [E::Compute::default(); LANES];
        let run = &src[offset..offset + n];
        for i in 0..run.len().min(LANES) {
            lanes[i] = run[i].to_compute();
        }
        V(lanes)
    }
}

/// Reads `n ≤ LANES` elements of `src` spaced `stride` apart, starting at `offset` (a
/// transposed or otherwise strided view along the inner loop).
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn load_strided<E: Element>(
    src: &[E],
    offset: usize,
    stride: usize,
    n: usize,
) -> V<E::Compute> {
    let mut lanes = [E::Compute::default(); LANES];
    for i in 0..n.min(LANES) {
        lanes[i] = src[offset + i * stride].to_compute();
    }
    V(lanes)
}

/// Lane `i < n` is `src[offset - i * stride]`: a flipped axis (`flip`, a negative `slice`
/// step), walked backwards from `offset`. The rest are the default value. Panics (never
/// reads out of bounds) if an index leaves `src`; lowering builds only in-bounds walks.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn load_strided_back<E: Element>(
    src: &[E],
    offset: usize,
    stride: usize,
    n: usize,
) -> V<E::Compute> {
    let mut lanes = [E::Compute::default(); LANES];
    if stride == 1 && n == LANES {
        // A whole chunk of a flipped inner axis: one contiguous load, lanes reversed.
        // `offset ≥ (n - 1)·stride`: lowering starts a flipped walk at its last element.
        let run: &[E; LANES] = src[offset + 1 - LANES..=offset]
            .try_into()
            .expect("a full chunk is LANES long");
        for i in 0..LANES {
            lanes[i] = run[LANES - 1 - i].to_compute();
        }
        return V(lanes);
    }
    for i in 0..n.min(LANES) {
        lanes[i] = src[offset - i * stride].to_compute();
    }
    V(lanes)
}

/// Writes the first `n ≤ LANES` lanes of `value` to `dst[offset..offset + n]`, rounding
/// once into the storage dtype.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn store<E: Element>(dst: &mut [E], offset: usize, n: usize, value: V<E::Compute>) {
    if n == LANES {
        let dst: &mut [E; LANES] = (&mut dst[offset..offset + LANES])
            .try_into()
            .expect("a full chunk is LANES long");
        E::chunk_from_compute(&value.0, dst);
    } else {
        let run = &mut dst[offset..offset + n];
        for i in 0..run.len().min(LANES) {
            run[i] = E::from_compute(value.0[i]);
        }
    }
}

/// `x as D` on lanes: the source value is first rounded into its own dtype (an `f16`
/// intermediate becomes a real `f16`), then converted with `CastTo`.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn cast<S: CastTo<D>, D: Element>(value: V<S::Compute>) -> V<D::Compute> {
    // At opt-level 0 an index loop rather than `value.map(|x| …)`: one generic function per
    // dtype pair where `map` and its closure made three (see `default_binary!`). Optimised
    // builds keep `map`: with the loop LLVM inlined the f16 -> f32 conversion into every
    // kernel that casts f16 (set 1's k5, k21, k37 grew by 7-28%) where it calls one copy,
    // and the release build's instructions rose 0.2% (BENCHMARKS.md "Compile time", sixth
    // session).
    #[cfg(tensorgraph_opt0)]
    {
        let mut out = [D::Compute::default(); LANES];
        for i in 0..LANES {
            out[i] = S::from_compute(value.0[i]).cast().to_compute();
        }
        V(out)
    }
    #[cfg(not(tensorgraph_opt0))]
    value.map(|x| S::from_compute(x).cast().to_compute())
}

/// `where(cond, a, b)`.
pub trait SelectLanes: LaneScalar {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// Each lane from `a` where `cond` is true, else from `b`.
    fn select_lanes(cond: V<bool>, a: V<Self>, b: V<Self>) -> V<Self> {
        let mut out = b;
        for i in 0..LANES {
            if cond.0[i] {
                out.0[i] = a.0[i];
            }
        }
        out
    }
}

// The default methods below are index loops over the scalar reference, not `V::zip`/`V::map`
// with the scalar function as the closure: one generic function per method and type where
// that made three (the method, its `zip`/`map` instance and the closure's `Fn::call`), which
// every graph crate's build compiled (debug) or inlined away again (release; issue 17).
macro_rules! default_binary {
    ($trait:ident: $($lane:ident => $scalar:ident),*) => {$(
        #[doc = concat!("`", stringify!($trait), "::", stringify!($scalar), "` on each lane.")]
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $lane(a: V<Self>, b: V<Self>) -> V<Self> {
            let mut out = a;
            for i in 0..LANES {
                out.0[i] = <Self as $trait>::$scalar(a.0[i], b.0[i]);
            }
            out
        }
    )*};
}
macro_rules! default_unary {
    ($trait:ident: $($lane:ident => $scalar:ident),*) => {$(
        #[doc = concat!("`", stringify!($trait), "::", stringify!($scalar), "` on each lane.")]
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $lane(a: V<Self>) -> V<Self> {
            let mut out = a;
            for i in 0..LANES {
                out.0[i] = <Self as $trait>::$scalar(a.0[i]);
            }
            out
        }
    )*};
}
macro_rules! default_compare {
    ($($lane:ident => $scalar:ident),*) => {$(
        #[doc = concat!("`Compare::", stringify!($scalar), "` on each lane.")]
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $lane(a: V<Self>, b: V<Self>) -> V<bool> {
            let mut out = [false; LANES];
            for i in 0..LANES {
                out[i] = <Self as Compare>::$scalar(a.0[i], b.0[i]);
            }
            V(out)
        }
    )*};
}

/// Arithmetic lane by lane (see [`Num`]); vector implementations replace the scalar
/// default where they exist.
pub trait NumLanes: Num {
    default_binary!(Num: add_lanes => add, sub_lanes => sub, mul_lanes => mul, div_lanes => div,
        rem_lanes => rem, modulo_lanes => modulo, max_lanes => max, min_lanes => min,
        pow_lanes => pow);
    default_unary!(Num: neg_lanes => neg, abs_lanes => abs, relu_lanes => relu,
        floor_lanes => floor, round_lanes => round, roundeven_lanes => roundeven,
        trunc_lanes => trunc, ceil_lanes => ceil, sign_lanes => sign);
    /// `a · a`, as `mul_lanes` computes it.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn square_lanes(a: V<Self>) -> V<Self> {
        Self::mul_lanes(a, a)
    }
}

/// `bitwise_count` on integer lanes: the ones of `|a|`, as `u8`.
pub trait BitCountLanes: crate::reference::BitCount {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// The number of one bits of `|a|` on each lane, as `u8`.
    fn bitwise_count_lanes(a: V<Self>) -> V<u8> {
        let mut out = [0u8; LANES];
        for i in 0..LANES {
            out[i] = <Self as crate::reference::BitCount>::bitwise_count(a.0[i]);
        }
        V(out)
    }
}

/// The float rows of the wider op table, composed of the lane functions above in the
/// order `reference::Activation` states, so exact compositions match it bit for bit.
/// `f32` evaluates the `expm1`/`sigmoid` ones in f64 lanes and rounds once.
pub trait ActivationLanes: Activation + FloatLanes + CompareLanes + SelectLanes {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `1 / a` on each lane.
    fn reciprocal_lanes(a: V<Self>) -> V<Self> {
        Self::div_lanes(V::splat(<Self as Activation>::one()), a)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `a / (1 + |a|)` on each lane.
    fn softsign_lanes(a: V<Self>) -> V<Self> {
        let one = V::splat(<Self as Activation>::one());
        Self::div_lanes(a, Self::add_lanes(one, Self::abs_lanes(a)))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// Whether each lane is neither NaN nor infinite.
    fn is_finite_lanes(a: V<Self>) -> V<bool> {
        let nan = Self::is_nan_lanes(a);
        let inf = Self::is_inf_lanes(a);
        let mut out = [false; LANES];
        for i in 0..LANES {
            out[i] = !nan.0[i] && !inf.0[i];
        }
        V(out)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `a` where `a >= 0`, else `alpha · a`.
    fn leaky_relu_lanes(a: V<Self>, alpha: V<Self>) -> V<Self> {
        let negative = Self::lt_lanes(a, V::splat(<Self as Activation>::zero()));
        Self::select_lanes(negative, Self::mul_lanes(alpha, a), a)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `a` where `a > alpha`, else 0.
    fn thresholded_relu_lanes(a: V<Self>, alpha: V<Self>) -> V<Self> {
        let above = Self::gt_lanes(a, alpha);
        Self::select_lanes(above, a, V::splat(<Self as Activation>::zero()))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `max(0, min(1, alpha · a + beta))`.
    fn hard_sigmoid_lanes(a: V<Self>, alpha: V<Self>, beta: V<Self>) -> V<Self> {
        let t = Self::add_lanes(Self::mul_lanes(alpha, a), beta);
        let one = V::splat(<Self as Activation>::one());
        Self::max_lanes(
            V::splat(<Self as Activation>::zero()),
            Self::min_lanes(one, t),
        )
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `a · hard_sigmoid(a, 1/6, 1/2)`.
    fn hard_swish_lanes(a: V<Self>) -> V<Self> {
        let alpha = V::splat(<Self as Activation>::one_sixth());
        let beta = V::splat(<Self as Activation>::half());
        Self::mul_lanes(a, Self::hard_sigmoid_lanes(a, alpha, beta))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `a + bias` below `-lambd`, `a - bias` above `lambd`, else 0.
    fn shrink_lanes(a: V<Self>, lambd: V<Self>, bias: V<Self>) -> V<Self> {
        let below = Self::lt_lanes(a, Self::neg_lanes(lambd));
        let above = Self::gt_lanes(a, lambd);
        let zero = V::splat(<Self as Activation>::zero());
        let inner = Self::select_lanes(above, Self::sub_lanes(a, bias), zero);
        Self::select_lanes(below, Self::add_lanes(a, bias), inner)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `a` where `a > 0`, else `alpha · (e^a - 1)`.
    fn elu_lanes(a: V<Self>, alpha: V<Self>) -> V<Self> {
        let positive = Self::gt_lanes(a, V::splat(<Self as Activation>::zero()));
        Self::select_lanes(positive, a, Self::mul_lanes(alpha, Self::expm1_lanes(a)))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `max(0, a) + min(0, alpha · (e^(a/alpha) - 1))`.
    fn celu_lanes(a: V<Self>, alpha: V<Self>) -> V<Self> {
        let zero = V::splat(<Self as Activation>::zero());
        let e = Self::mul_lanes(alpha, Self::expm1_lanes(Self::div_lanes(a, alpha)));
        Self::add_lanes(Self::max_lanes(zero, a), Self::min_lanes(zero, e))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `gamma · a` where `a > 0`, else `gamma · alpha · (e^a - 1)`.
    fn selu_lanes(a: V<Self>, alpha: V<Self>, gamma: V<Self>) -> V<Self> {
        let positive = Self::gt_lanes(a, V::splat(<Self as Activation>::zero()));
        let negative = Self::mul_lanes(gamma, Self::mul_lanes(alpha, Self::expm1_lanes(a)));
        Self::select_lanes(positive, Self::mul_lanes(gamma, a), negative)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// `a · sigmoid(alpha · a)`.
    fn swish_lanes(a: V<Self>, alpha: V<Self>) -> V<Self> {
        Self::mul_lanes(a, Self::sigmoid_lanes(Self::mul_lanes(alpha, a)))
    }
}

/// f64: selu and swish through their double-double kernels (`vmath::selu_f64`,
/// `vmath::swish_f64`), rounded once; the other activations keep the composed defaults.
impl ActivationLanes for f64 {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn selu_lanes(a: V<f64>, alpha: V<f64>, gamma: V<f64>) -> V<f64> {
        by_f64x8(|c| crate::vmath::selu_f64(c(&a), c(&alpha), c(&gamma)))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn swish_lanes(a: V<f64>, alpha: V<f64>) -> V<f64> {
        by_f64x8(|c| crate::vmath::swish_f64(c(&a), c(&alpha)))
    }
}

/// An `f64x8` kernel over all `LANES` f64 lanes (8 or 16), eight at a time: `kernel`
/// receives a function that cuts the current eight lanes out of an operand.
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn by_f64x8(kernel: impl Fn(&dyn Fn(&V<f64>) -> wide::f64x8) -> wide::f64x8) -> V<f64> {
    let mut out = [0.0f64; LANES];
    for (c, chunk) in out.chunks_exact_mut(8).enumerate() {
        let cut = |v: &V<f64>| {
            // `c < LANES / 8`: eight lanes in range, the `expect` cannot fire.
            let lanes: [f64; 8] = v.0[c * 8..c * 8 + 8].try_into().expect("eight lanes");
            wide::f64x8::from(lanes)
        };
        chunk.copy_from_slice(&kernel(&cut).to_array());
    }
    V(out)
}

/// `f32` through f64 lanes for the transcendental activations: one rounding at the end
/// (selu and swish: of the f64 kernels above).
impl ActivationLanes for f32 {
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn elu_lanes(a: V<f32>, alpha: V<f32>) -> V<f32> {
        cast::<f64, f32>(<f64 as ActivationLanes>::elu_lanes(
            cast::<f32, f64>(a),
            cast::<f32, f64>(alpha),
        ))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn celu_lanes(a: V<f32>, alpha: V<f32>) -> V<f32> {
        cast::<f64, f32>(<f64 as ActivationLanes>::celu_lanes(
            cast::<f32, f64>(a),
            cast::<f32, f64>(alpha),
        ))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn selu_lanes(a: V<f32>, alpha: V<f32>, gamma: V<f32>) -> V<f32> {
        cast::<f64, f32>(<f64 as ActivationLanes>::selu_lanes(
            cast::<f32, f64>(a),
            cast::<f32, f64>(alpha),
            cast::<f32, f64>(gamma),
        ))
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn swish_lanes(a: V<f32>, alpha: V<f32>) -> V<f32> {
        cast::<f64, f32>(<f64 as ActivationLanes>::swish_lanes(
            cast::<f32, f64>(a),
            cast::<f32, f64>(alpha),
        ))
    }
}

/// Comparisons lane by lane (see [`Compare`]); each result lane is a `bool`.
pub trait CompareLanes: Compare {
    default_compare!(eq_lanes => eq, ne_lanes => ne, lt_lanes => lt, le_lanes => le,
        gt_lanes => gt, ge_lanes => ge);
}

/// `& | ^ !` lane by lane (see [`Bitwise`]).
pub trait BitwiseLanes: Bitwise {
    default_binary!(Bitwise: and_lanes => and, or_lanes => or, xor_lanes => xor);
    default_unary!(Bitwise: not_lanes => not);
}

/// `<< >>` lane by lane (see [`Shift`]).
pub trait ShiftLanes: Shift {
    default_binary!(Shift: shl_lanes => shl, shr_lanes => shr);
}

/// The `FloatLanes` default of each `unary` row of the function table (functions.rs): the
/// scalar reference on each lane (`default_unary!`).
macro_rules! float_lane_defaults {
    (() $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        $(float_lane_defaults!(@row $name $lane $kind);)*
    };
    (@row $name:ident $lane:ident unary) => {
        default_unary!(Float: $lane => $name);
    };
    (@row $name:ident $lane:ident hand) => {};
}

/// The float functions lane by lane (see [`Float`]); vector implementations replace the
/// scalar default where they exist.
pub trait FloatLanes: Float + NumLanes {
    crate::functions::for_each_float_function!(float_lane_defaults);
    /// max(a, b) where neither is NaN; where one is, `a` or `b`, unspecified: softmax's
    /// shift (the graph macro's `ReduceKind::MaxNoNan`), which a NaN need not reach because
    /// the NaN makes the row's sum and outputs NaN anyway. `a > b ? a : b`; `maxps` on
    /// float vectors (one instruction, against `max_lanes`' compares and blends). Equal
    /// values of different signs (±0) give either.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn max_no_nan_lanes(a: V<Self>, b: V<Self>) -> V<Self> {
        a.zip(b, Self::max_no_nan)
    }
    /// The scalar `max_no_nan_lanes` (the last fold of a row's lanes).
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn max_no_nan(a: Self, b: Self) -> Self {
        if a > b {
            a
        } else {
            b
        }
    }
    /// min(a, b) where neither is NaN; where one is, `a` or `b`, unspecified: the
    /// minimum beside softmax's shift (the graph macro's `ReduceKind::MinNoNan`), which a
    /// NaN need not reach for the reason `max_no_nan_lanes` gives. `a < b ? a : b`;
    /// `minps` on float vectors.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn min_no_nan_lanes(a: V<Self>, b: V<Self>) -> V<Self> {
        a.zip(b, Self::min_no_nan)
    }
    /// The scalar `min_no_nan_lanes` (the last fold of a row's lanes).
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn min_no_nan(a: Self, b: Self) -> Self {
        if a < b {
            a
        } else {
            b
        }
    }
    /// e^a for a <= 0, NaN for NaN: softmax's `exp(x - max)`, whose argument is <= 0 or
    /// NaN (the graph macro emits it there only), within exp's bound (1 ULP). A positive a
    /// is outside the domain: e^min(a, 0) = 1 here, in the f64 lanes and the 8-lane f32
    /// kernels; in the 16-lane AVX-512 table kernel (no upper clamp) e^a up to 88.72,
    /// +inf above it up to about 10^9, and no meaningful value beyond (-inf at 10^10,
    /// where the reduction x·32/ln2 loses its integer); the f32 lanes
    /// run a kernel that is cheaper by what the sign allows (`vmath::exp_nonpos_f32`),
    /// f64 lanes their vector `exp` of min(x, 0); this default (each lane through the
    /// scalar reference) serves no float type.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn exp_nonpos_lanes(a: V<Self>) -> V<Self> {
        let zero = Self::default();
        a.map(|v| <Self as Float>::exp(if v > zero { zero } else { v }))
    }
    /// `a / b` where `b` is the same in every lane and loop-invariant (a row's sum in
    /// softmax, `x / sum(x, keepdims)`): bit-identical to `div_lanes`. The macro emits it
    /// for a division whose divisor is computed per row or per call, so that LLVM hoists
    /// the reciprocal out of the inner loop (see `div_invariant_f32`).
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn div_invariant_lanes(a: V<Self>, b: V<Self>) -> V<Self> {
        Self::div_lanes(a, b)
    }
    /// Softmax's normalisation `e / sum`, bit-identical to `div_lanes`, for `a` in [0, 1]
    /// or NaN (a row's `exp(x - max)`) and `b` the same in every lane and loop-invariant
    /// (the row's sum: at least 1, or NaN). Outside that contract, a quotient that may be
    /// off (never UB). The macro emits it only for softmax (`ops::DIV_SOFTMAX`); cheaper
    /// than `div_invariant_lanes` on AVX-512 builds (`div_softmax_m512`; on default x86-64 builds the
    /// dispatched `vmath::block::div_softmax_f32` runs it on AVX-512 CPUs).
    ///
    /// `in_range` (lane 0; the same in every lane, fixed for the row) may be true only if
    /// every dividend of the row is NaN or at least 2^-76 (softmax: the row's minimum is
    /// within 50 of its maximum, so every `exp(x - max)` is at least e^-50): the AVX-512
    /// lanes and the block entry then skip the per-vector test of the dividends. Outside
    /// that promise, a quotient that may be off in its last bits (never UB).
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn div_softmax_lanes(a: V<Self>, b: V<Self>, in_range: V<bool>) -> V<Self> {
        let _ = in_range;
        Self::div_invariant_lanes(a, b)
    }
    /// `a / b`, `div_lanes`: softmax's normalisation where the sum varies along the inner
    /// loop (`softmax(x, axis = 0)`), whose `in_range` flag (see `div_softmax_lanes`) goes
    /// unused.
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn div_softmax_plain_lanes(a: V<Self>, b: V<Self>, in_range: V<bool>) -> V<Self> {
        let _ = in_range;
        Self::div_lanes(a, b)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// Whether each lane is NaN.
    fn is_nan_lanes(a: V<Self>) -> V<bool> {
        a.map(<Self as Float>::is_nan)
    }
    #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    /// Whether each lane is infinite.
    fn is_inf_lanes(a: V<Self>) -> V<bool> {
        a.map(<Self as Float>::is_inf)
    }
}

impl SelectLanes for bool {}
impl CompareLanes for bool {}
impl BitwiseLanes for bool {}

macro_rules! integer_lanes {
    ($($t:ty),*) => {$(
        impl SelectLanes for $t {}
        impl NumLanes for $t {}
        impl CompareLanes for $t {}
        impl BitwiseLanes for $t {}
        impl ShiftLanes for $t {}
    )*};
}
integer_lanes!(u8, u16, u32, u64, i8, i16, i32, i64);

// `bitwise_count` lanes: the SWAR popcount over the whole chunk instead of a count per lane,
// in whichever layout measured fastest per width (`benches/bitcount.rs`, BENCHMARKS.md
// "bitwise_count"; on AVX-512 builds with the vector popcount, see `swar_bit_count`):
// 8- and 32-bit lanes packed into u64 words (one word holds all eight
// byte lanes; four hold the 32-bit ones), 16-bit lanes as one `wide::u16x8`. 64-bit lanes
// keep the per-lane `count_ones` map (the trait's default): both SWAR layouts measured
// slower there (0.3-0.7x on the default build). Signed lanes count their magnitude
// (NumPy's |a|), taken in place as (x ^ s) + (sign bit), s all ones in negative lanes: the
// same bits as the wrapping absolute value, which are the magnitude's also for MIN.

/// The ones in each `bits`-wide field (8, 16 or 32) of `w`, each count in its field's low
/// bits; with `signed`, of each field's two's complement magnitude. Pairs, nibbles, bytes,
/// then 16-bit fields are summed in place: a count never carries into the next field
/// (it is at most the width), nor does the magnitude's `+ sign` (a negative field's
/// x ^ s has its top bit clear) or `(sign << bits) - sign` (no field borrows from another).
#[cfg_attr(
    all(target_feature = "avx512bitalg", target_feature = "avx512vpopcntdq"),
    allow(dead_code)
)]
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn ones_per_field(w: u64, bits: u32, signed: bool) -> u64 {
    let w = if signed {
        let low = match bits {
            8 => 0x0101_0101_0101_0101u64,
            16 => 0x0001_0001_0001_0001,
            _ => 0x0000_0001_0000_0001,
        };
        let sign = (w >> (bits - 1)) & low;
        (w ^ (sign << bits).wrapping_sub(sign)) + sign
    } else {
        w
    };
    let w = w - ((w >> 1) & 0x5555_5555_5555_5555);
    let w = (w & 0x3333_3333_3333_3333) + ((w >> 2) & 0x3333_3333_3333_3333);
    let mut w = (w + (w >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    if bits >= 16 {
        w = (w + (w >> 8)) & 0x00ff_00ff_00ff_00ff;
    }
    if bits >= 32 {
        w = (w + (w >> 16)) & 0x0000_ffff_0000_ffff;
    }
    w
}

/// `LANES` lanes `BITS` wide (8 or 32) packed 64/BITS to a u64 word (`WORDS` =
/// `LANES · BITS / 64` words), counted word by word,
/// each lane's count read back from its field. Packing and unpacking are shifts, so the
/// lane order does not depend on endianness.
#[cfg_attr(
    all(target_feature = "avx512bitalg", target_feature = "avx512vpopcntdq"),
    allow(dead_code)
)]
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn count_packed<const BITS: u32, const WORDS: usize>(m: [u64; LANES], signed: bool) -> [u8; LANES] {
    let per_word = LANES / WORDS;
    let words: [u64; WORDS] = core::array::from_fn(|j| {
        (0..per_word).fold(0u64, |w, k| w | m[j * per_word + k] << (BITS * k as u32))
    });
    let counts = words.map(|w| ones_per_field(w, BITS, signed));
    core::array::from_fn(|i| (counts[i / per_word] >> (BITS * (i % per_word) as u32)) as u8)
}

/// 16-bit lanes, eight at a time as one `wide::u16x8`: the steps of `ones_per_field` on vector lanes
/// (SSE2 has 16-bit shifts, adds and subs).
#[cfg_attr(
    all(target_feature = "avx512bitalg", target_feature = "avx512vpopcntdq"),
    allow(dead_code)
)]
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn count_u16x8(m: [u16; LANES], signed: bool) -> [u8; LANES] {
    use wide::u16x8;
    let mut out = [0u8; LANES];
    // Eight lanes per `u16x8`: one vector on 8-lane builds, two on 16-lane ones.
    for (chunk, lanes) in out.chunks_exact_mut(8).zip(m.chunks_exact(8)) {
        // `chunks_exact(8)`: the `expect` cannot fire.
        let x = u16x8::from(<[u16; 8]>::try_from(lanes).expect("eight lanes"));
        let x = if signed {
            let sign: u16x8 = x >> 15;
            (x ^ (u16x8::splat(0) - sign)) + sign
        } else {
            x
        };
        let x = x - ((x >> 1) & u16x8::splat(0x5555));
        let x = (x & u16x8::splat(0x3333)) + ((x >> 2) & u16x8::splat(0x3333));
        let x = (x + (x >> 4)) & u16x8::splat(0x0f0f);
        let x: u16x8 = (x + (x >> 8)) & u16x8::splat(0x00ff);
        for (c, v) in chunk.iter_mut().zip(x.to_array()) {
            *c = v as u8;
        }
    }
    out
}

/// The SWAR count of eight lanes (`bitwise_count_lanes` of every build without the
/// AVX-512 vector popcount for the width; tested on every build).
#[cfg_attr(
    all(target_feature = "avx512bitalg", target_feature = "avx512vpopcntdq"),
    allow(dead_code)
)]
trait SwarBitCount: Sized {
    fn swar_count(m: [Self; LANES]) -> [u8; LANES];
}

/// `bitwise_count_lanes` is the SWAR count, except on builds with the AVX-512 vector
/// popcount for the lane width (`$feature`: BITALG for 8- and 16-bit lanes, VPOPCNTDQ for
/// 32-bit), where the per-lane `count_ones` map compiles to one `vpopcnt` and measured
/// 2.5-4x faster than the SWAR (BENCHMARKS.md).
macro_rules! swar_bit_count {
    ($($t:ty, $feature:literal => |$m:ident| $count:expr;)*) => {$(
        impl SwarBitCount for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn swar_count($m: [$t; LANES]) -> [u8; LANES] {
                $count
            }
        }
        #[cfg(not(target_feature = $feature))]
        impl BitCountLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn bitwise_count_lanes(a: V<$t>) -> V<u8> {
                V(<$t as SwarBitCount>::swar_count(a.0))
            }
        }
        #[cfg(target_feature = $feature)]
        impl BitCountLanes for $t {}
    )*};
}
swar_bit_count! {
    u8, "avx512bitalg" => |m| count_packed::<8, { LANES / 8 }>(m.map(|v| v as u64), false);
    i8, "avx512bitalg" => |m| count_packed::<8, { LANES / 8 }>(m.map(|v| v as u8 as u64), true);
    u16, "avx512bitalg" => |m| count_u16x8(m, false);
    i16, "avx512bitalg" => |m| count_u16x8(m.map(|v| v as u16), true);
    u32, "avx512vpopcntdq" => |m| count_packed::<32, { LANES / 2 }>(m.map(|v| v as u64), false);
    i32, "avx512vpopcntdq" => |m| count_packed::<32, { LANES / 2 }>(m.map(|v| v as u32 as u64), true);
}
impl BitCountLanes for u64 {}
impl BitCountLanes for i64 {}

/// `a / b` on f32 lanes (`$w`: wide's `f32x8` or `f32x16`) for a `b` that is the same in
/// every lane and loop-invariant, bit-identical to `a / b`. FMA builds divide by
/// Markstein's correction instead of `divps`, by |b| with b's sign put back at the end
/// (a / b = −(a / |b|) exactly): `r = 1/|b|` (correctly rounded, one division that LLVM
/// hoists out of the loop with `b`), `q0 = a·r`, the exact residual `ρ = q0·|b| − a`
/// (one FMA), `q = q0 − ρ·r` (one FMA). When r is 1/|b| correctly rounded and q0 within
/// one ULP of a/|b|, q is a/|b| correctly rounded, provided nothing underflows or
/// overflows (Markstein 1990; Muller et al., Handbook of Floating-Point Arithmetic, 2nd
/// ed., §4.7). For a = ±0 the same steps give ±0 with a's sign (q0 = ±0, ρ = +0,
/// q0 − (+0) = q0), so zeros of either sign take the fast path. The fast path is taken
/// for a vector only inside that range: 2^-20 ≤ |b| ≤ 2^20 and every lane of a either ±0
/// or 2^-76 ≤ |a| ≤ 2^100 (the quotient stays normal, q0·|b| cannot overflow); any other
/// vector (NaN, ±inf, tiny or huge lanes) divides. Measured against `a / b` (the
/// +0-only form before this one): every a in [1, 2) for 29 divisors and 4·10^8 random
/// pairs over the whole fast-path range, no bit differs (`div_invariant_is_division`
/// repeats a sample of it, with both zeros against both signs of b). Cost per vector: 1
/// multiply, 2 FMAs, a sign `xor`, the range test and a branch against a `divps`; on
/// AVX-512 the test of a is two integer compares on |a|'s bits (`div_invariant_m512`,
/// which those builds use instead).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
macro_rules! div_invariant_f32 {
    ($w:ident) => {
        |a: $w, b: $w| -> $w {
            if cfg!(target_feature = "fma") {
                let (lo, hi) = (
                    $w::splat(f32::from_bits(0x1980_0000)),
                    $w::splat(f32::from_bits(0x7180_0000)),
                );
                let (b_lo, b_hi) = (
                    $w::splat(f32::from_bits(0x3580_0000)),
                    $w::splat(f32::from_bits(0x4980_0000)),
                );
                let (aa, bs) = (a.abs(), b.abs());
                let b_ok = (bs.simd_ge(b_lo) & bs.simd_le(b_hi)).all();
                let a_ok = (aa.simd_ge(lo) & aa.simd_le(hi)) | aa.simd_eq($w::splat(0.0));
                if b_ok && a_ok.all() {
                    let r = $w::splat(1.0) / bs;
                    let q0 = a * r;
                    let rho = q0.mul_sub(bs, a);
                    return rho.mul_neg_add(r, q0) ^ (b & $w::splat(-0.0));
                }
            }
            a / b
        }
    };
}

/// Where the zmm forms of the row divisions below are compiled: AVX-512 builds (the f32x16
/// lanes) and x86-64 builds without AVX2, whose graph kernels call them through the
/// dispatched block entry points (`vmath::block::div_invariant_f32`, `div_softmax_f32`) on
/// CPUs with AVX-512.
macro_rules! zmm_division {
    ($($item:item)*) => {$(
        #[cfg(all(
            target_arch = "x86_64",
            any(target_feature = "avx512f", not(target_feature = "avx2"))
        ))]
        $item
    )*};
}

zmm_division! {
/// Whether a row divisor |b| (lane 0 of a splat; as a scalar, so LLVM hoists the test
/// with b out of the row's loop) is in the Markstein fast path's range [2^-20, 2^20]
/// (`div_invariant_m512`, `div_softmax_m512`).
///
/// # Safety
/// The CPU must support avx512f (as for every function of `zmm_division!`): AVX-512
/// builds, or code that runs after the dispatch found it.
#[inline(always)]
unsafe fn divisor_in_fast_range(b: core::arch::x86_64::__m512) -> bool {
    use core::arch::x86_64::*;
    // SAFETY: avx512f, the caller's contract; a register move.
    let b0 = unsafe { _mm_cvtss_f32(_mm512_castps512_ps128(b)) };
    (f32::from_bits(0x3580_0000)..=f32::from_bits(0x4980_0000)).contains(&b0)
}

/// a / b for positive b and the a of the fast path (the callers' tests): q0 = a·(1/b)
/// corrected once by the exact residual a − q0·b (Markstein), the correctly rounded
/// quotient when nothing under- or overflows.
///
/// # Safety
/// The CPU must support avx512f.
#[inline(always)]
unsafe fn markstein_m512(
    a: core::arch::x86_64::__m512,
    b: core::arch::x86_64::__m512,
) -> core::arch::x86_64::__m512 {
    use core::arch::x86_64::*;
    // SAFETY: avx512f (FMA forms included), the caller's contract; the intrinsics read
    // and write registers only.
    unsafe {
        let r = _mm512_div_ps(_mm512_set1_ps(1.0), b);
        let q0 = _mm512_mul_ps(a, r);
        let rho = _mm512_fmsub_ps(q0, b, a);
        _mm512_fnmadd_ps(rho, r, q0)
    }
}

/// `div_invariant_f32!` on one zmm register (b must be the same in every lane, as for
/// `div_invariant_lanes`: its range is tested on lane 0), with the test of a on the
/// integer lanes of |a|: v = bits(|a|) − 1 is −1 for ±0 and runs from bits(2^-76) − 1
/// to bits(2^100) − 1 over the fast-path range, so "v ≤ bits(2^100) − 1 as signed and
/// v ≥ bits(2^-76) − 1 as unsigned" is exactly "±0 or 2^-76 ≤ |a| ≤ 2^100" (subnormals
/// fail the unsigned test, |a| above 2^100, inf and NaN the signed one): an `and`, a
/// subtract and two compares into one mask, against the float form's five mask
/// operations (W3 softmax's scale pass: ~30% of its time with them; BENCHMARKS.md).
///
/// # Safety
/// The CPU must support avx512f.
#[inline(always)]
pub(crate) unsafe fn div_invariant_m512(
    a: core::arch::x86_64::__m512,
    b: core::arch::x86_64::__m512,
) -> core::arch::x86_64::__m512 {
    use core::arch::x86_64::*;
    // SAFETY: every intrinsic here needs avx512f (FMA forms included), the caller's
    // contract; they read and write registers only.
    unsafe {
        let abs = _mm512_set1_epi32(0x7fff_ffff);
        let bs = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(b), abs));
        // b is one value in every lane: tested as a scalar, out of the loop with b (the
        // vector test stayed in it, three operations per vector).
        let b_ok = divisor_in_fast_range(bs);
        let v = _mm512_sub_epi32(
            _mm512_and_si512(_mm512_castps_si512(a), abs),
            _mm512_set1_epi32(1),
        );
        // b's test folds into the upper bound of a's, a value LLVM hoists with b (as a
        // branch, `b_ok && …`, it stayed in the loop): out of range, no v ≤ i32::MIN (v is
        // at least −1), so every lane fails.
        let upper = if b_ok { 0x7180_0000 - 1 } else { i32::MIN };
        let below = _mm512_cmp_epi32_mask::<_MM_CMPINT_LE>(v, _mm512_set1_epi32(upper));
        let ok = _mm512_mask_cmp_epu32_mask::<_MM_CMPINT_NLT>(
            below,
            v,
            _mm512_set1_epi32(0x1980_0000 - 1),
        );
        if ok == 0xffff {
            let q = markstein_m512(a, bs);
            let sign = _mm512_and_si512(_mm512_castps_si512(b), _mm512_set1_epi32(i32::MIN));
            return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(q), sign));
        }
        _mm512_div_ps(a, b)
    }
}

/// `FloatLanes::div_softmax_lanes` on one zmm register: the fast path of
/// `div_invariant_m512` without what softmax's contract makes dead. `b` (the row's sum)
/// is tested once as a scalar, as there, so on the fast path b > 0 and no sign is put
/// back; `a` (an `exp(x - max)`) is +0, in (0, 1] or NaN, so neither |a| nor an upper
/// bound is needed: within the contract, v = bits(a) − 1 as unsigned is at least
/// bits(2^-76) − 1 exactly for +0 (v wraps to 2^32 − 1), a ≥ 2^-76 and NaN (which the fast
/// path carries, as `divps` does). (Every a with its sign bit set passes the test too, and
/// so does +inf: outside the contract, where ±inf would give NaN, not ±inf.) One subtract and one compare per
/// vector against `div_invariant_m512`'s `and`, subtract, two compares and sign `xor`
/// (W3 softmax's scale pass, BENCHMARKS.md "Peers"). Bit-identical to the division under
/// the contract (`lanes::tests::div_softmax_is_division`).
///
/// # Safety
/// The CPU must support avx512f.
#[inline(always)]
pub(crate) unsafe fn div_softmax_m512(
    a: core::arch::x86_64::__m512,
    b: core::arch::x86_64::__m512,
) -> core::arch::x86_64::__m512 {
    use core::arch::x86_64::*;
    // SAFETY: every intrinsic here needs avx512f (FMA forms included), the caller's
    // contract; they read and write registers only.
    unsafe {
        let b_ok = divisor_in_fast_range(b);
        // b's test folds into the threshold of a's: v > bits(2^-76) − 2 (unsigned) is the
        // test above when b is in range, and v > 2^32 − 1 fails every lane when it is not.
        // The threshold is a value, not a branch, so LLVM hoists it with b out of the
        // row's loop; with `b_ok && …` a compare and a branch on b stayed in the loop, per
        // vector.
        let threshold = if b_ok { 0x1980_0000 - 2 } else { -1 };
        let v = _mm512_sub_epi32(_mm512_castps_si512(a), _mm512_set1_epi32(1));
        let ok = _mm512_cmp_epu32_mask::<_MM_CMPINT_NLE>(v, _mm512_set1_epi32(threshold));
        if ok == 0xffff {
            return markstein_m512(a, b);
        }
        _mm512_div_ps(a, b)
    }
}

/// `div_softmax_m512` for a row whose every dividend is NaN or at least 2^-76 (the
/// `in_range` promise of `FloatLanes::div_softmax_lanes`): no test of the dividends, only
/// of the divisor, once per row (scalar, hoisted with b): Markstein's correction for a
/// divisor in [2^-20, 2^20], else `divps`. Three operations per vector against the
/// test's five (W3 softmax's scale pass, BENCHMARKS.md "Peers", seventh session).
///
/// # Safety
/// The CPU must support avx512f.
#[inline(always)]
pub(crate) unsafe fn div_softmax_in_range_m512(
    a: core::arch::x86_64::__m512,
    b: core::arch::x86_64::__m512,
) -> core::arch::x86_64::__m512 {
    // SAFETY: avx512f, the caller's contract; the intrinsics read and write registers only.
    unsafe {
        if divisor_in_fast_range(b) {
            markstein_m512(a, b)
        } else {
            core::arch::x86_64::_mm512_div_ps(a, b)
        }
    }
}
}

/// `div_invariant_m512` on wide's f32x16 (AVX-512 builds: one zmm register).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn div_invariant_f32x16(a: wide::f32x16, b: wide::f32x16) -> wide::f32x16 {
    // SAFETY: avx512f is enabled for the whole build (the `cfg` above).
    bytemuck::cast(unsafe { div_invariant_m512(bytemuck::cast(a), bytemuck::cast(b)) })
}

/// `div_softmax_m512` on wide's f32x16 (AVX-512 builds: one zmm register).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn div_softmax_f32x16(a: wide::f32x16, b: wide::f32x16, in_range: bool) -> wide::f32x16 {
    let (a, b) = (bytemuck::cast(a), bytemuck::cast(b));
    // SAFETY: avx512f is enabled for the whole build (the `cfg` above).
    bytemuck::cast(unsafe {
        if in_range {
            div_softmax_in_range_m512(a, b)
        } else {
            div_softmax_m512(a, b)
        }
    })
}

/// The vector `FloatLanes` method of each `unary` row of the function table (functions.rs)
/// whose lanes are not written by hand: the row's `vmath` kernel for the lane type `$t` on
/// `$w` (`kernels`: which of the row's kernels, `f32x8`, `f64x8`, `f32x16` or `f64x16`).
macro_rules! float_lane_kernels {
    (($t:ty, $w:ident, $kernels:ident) $($(#[$doc:meta])* $name:ident:
       $lane_trait:ident::$lane:ident, $bound:tt, $kind:ident $args:tt;)*) => {
        $(float_lane_kernels!(@row $t, $w, $kernels, $lane, $kind $args);)*
    };
    (@row $t:ty, $w:ident, $kernels:ident, $lane:ident,
     unary ($r:ident, $family:ident::{$k32:ident, $k64:ident}, hand)) => {};
    (@row $t:ty, $w:ident, $kernels:ident, $lane:ident,
     unary ($r:ident, $family:ident::{$k32:ident, $k64:ident}, $($k16:ident)+)) => {
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $lane(a: V<$t>) -> V<$t> {
            let f: fn($w) -> $w = float_lane_kernels!(@kernel $kernels, $k32, $k64, $($k16)+);
            V::from_wide(f(a.wide()))
        }
    };
    (@row $t:ty, $w:ident, $kernels:ident, $lane:ident, hand $args:tt) => {};
    (@kernel f32x8, $k32:ident, $k64:ident, $($k16:ident)+) => {
        $crate::vmath::$k32
    };
    (@kernel f64x8, $k32:ident, $k64:ident, $($k16:ident)+) => {
        $crate::vmath::$k64
    };
    // The f32x8 kernel on each half, or the row's 16-lane kernel.
    (@kernel f32x16, $k32:ident, $k64:ident, halves) => {
        |x: wide::f32x16| $crate::vmath::x16::halves($crate::vmath::$k32, x)
    };
    (@kernel f32x16, $k32:ident, $k64:ident, kernel $k16:ident) => {
        $crate::vmath::x16::$k16
    };
    // The f64x8 kernel on each half of an `F64x16`.
    (@kernel f64x16, $k32:ident, $k64:ident, $($k16:ident)+) => {
        |x: F64x16| F64x16([$crate::vmath::$k64(x.0[0]), $crate::vmath::$k64(x.0[1])])
    };
}

/// Explicit `wide` implementations for `f32` and `f64` lanes: the function table's kernels
/// of the lane type (`kernels`, see `float_lane_kernels!`), and the methods written here.
macro_rules! float_lanes {
    ($t:ty, $w:ident, $bits:ty, kernels: $kernels:ident, pow: $pow:expr, rsqrt: $rsqrt:expr,
     div_invariant: $div:expr, div_softmax: $div_softmax:expr, exp_nonpos: $exp_nonpos:expr) => {
        impl $crate::lanes::V<$t> {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn wide(self) -> $w {
                $w::from(self.0)
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn from_wide(w: $w) -> Self {
                V(w.to_array())
            }
        }

        /// A mask vector (all-ones lanes are true) from bools.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn mask_from_bools(cond: V<bool>) -> $w {
            $w::from(cond.map(|c| <$t>::from_bits((c as $bits).wrapping_neg())).0)
        }

        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn bools_from_mask(mask: $w) -> V<bool> {
            let bits = mask.to_bitmask();
            let mut lanes = [false; LANES];
            for (i, lane) in lanes.iter_mut().enumerate() {
                *lane = (bits >> i) & 1 != 0;
            }
            V(lanes)
        }

        impl SelectLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn select_lanes(cond: V<bool>, a: V<$t>, b: V<$t>) -> V<$t> {
                V::from_wide(mask_from_bools(cond).select(a.wide(), b.wide()))
            }
        }

        impl NumLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn add_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                V::from_wide(a.wide() + b.wide())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sub_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                V::from_wide(a.wide() - b.wide())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn mul_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                V::from_wide(a.wide() * b.wide())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn div_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                V::from_wide(a.wide() / b.wide())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn neg_lanes(a: V<$t>) -> V<$t> {
                V::from_wide(-a.wide())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn abs_lanes(a: V<$t>) -> V<$t> {
                V::from_wide(a.wide().abs())
            }
            /// NaN if either is NaN; equal values (including ±0) combine by bits, so
            /// `max(+0, -0) = +0 & -0 = +0`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn max_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                let (a, b) = (a.wide(), b.wide());
                let unordered = a.is_nan() | b.is_nan();
                let ordered = a.simd_gt(b).select(a, b.simd_gt(a).select(b, a & b));
                V::from_wide(unordered.select(a + b, ordered))
            }
            /// As `max_lanes`, with `min(+0, -0) = +0 | -0 = -0`.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn min_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                let (a, b) = (a.wide(), b.wide());
                let unordered = a.is_nan() | b.is_nan();
                let ordered = a.simd_lt(b).select(a, b.simd_lt(a).select(b, a | b));
                V::from_wide(unordered.select(a + b, ordered))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn pow_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                let f: fn($w, $w) -> $w = $pow;
                V::from_wide(f(a.wide(), b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn relu_lanes(a: V<$t>) -> V<$t> {
                <$t as NumLanes>::max_lanes(a, V::splat(0.0))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn floor_lanes(a: V<$t>) -> V<$t> {
                let x = a.wide();
                V::from_wide(x.floor() | (x & $w::splat(-0.0)))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn ceil_lanes(a: V<$t>) -> V<$t> {
                let x = a.wide();
                V::from_wide(x.ceil() | (x & $w::splat(-0.0)))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn trunc_lanes(a: V<$t>) -> V<$t> {
                let x = a.wide();
                V::from_wide(x.trunc() | (x & $w::splat(-0.0)))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            /// Rounding never changes the sign, so the input's sign bit is put back: `wide`
            /// loses it for results of zero (`roundeven(-0.3)` must be `-0.0`).
            fn roundeven_lanes(a: V<$t>) -> V<$t> {
                let x = a.wide();
                V::from_wide(x.round_ties_even() | (x & $w::splat(-0.0)))
            }
            /// −1, +1, or `x` itself for ±0 and NaN (as `reference::Num::sign`): two
            /// compares and two blends.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sign_lanes(a: V<$t>) -> V<$t> {
                let x = a.wide();
                let zero = $w::splat(0.0);
                let positive = x.simd_gt(zero).select($w::splat(1.0), x);
                V::from_wide(x.simd_lt(zero).select($w::splat(-1.0), positive))
            }
            /// Half away from zero: the truncation, plus ±1 when the dropped fraction is at
            /// least one half. `x - trunc(x)` is exact for every finite x.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn round_lanes(a: V<$t>) -> V<$t> {
                let x = a.wide();
                let t = x.trunc();
                let away = (x - t).abs().simd_ge($w::splat(0.5));
                let step = $w::splat(1.0) | (x & $w::splat(-0.0));
                V::from_wide(away.select(t + step, t))
            }
        }

        impl CompareLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn eq_lanes(a: V<$t>, b: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().simd_eq(b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn ne_lanes(a: V<$t>, b: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().simd_ne(b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn lt_lanes(a: V<$t>, b: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().simd_lt(b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn le_lanes(a: V<$t>, b: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().simd_le(b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn gt_lanes(a: V<$t>, b: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().simd_gt(b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn ge_lanes(a: V<$t>, b: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().simd_ge(b.wide()))
            }
        }

        impl FloatLanes for $t {
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn sqrt_lanes(a: V<$t>) -> V<$t> {
                V::from_wide(a.wide().sqrt())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn rsqrt_lanes(a: V<$t>) -> V<$t> {
                let f: fn($w) -> $w = $rsqrt;
                V::from_wide(f(a.wide()))
            }
            crate::functions::for_each_float_function!(float_lane_kernels, $t, $w, $kernels);
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn exp_nonpos_lanes(a: V<$t>) -> V<$t> {
                let f: fn($w) -> $w = $exp_nonpos;
                V::from_wide(f(a.wide()))
            }
            /// `maxps`: `b` where either is NaN.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn max_no_nan_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                V::from_wide(a.wide().fast_max(b.wide()))
            }
            /// `minps`: `b` where either is NaN.
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn min_no_nan_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                V::from_wide(a.wide().fast_min(b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn div_invariant_lanes(a: V<$t>, b: V<$t>) -> V<$t> {
                let f: fn($w, $w) -> $w = $div;
                V::from_wide(f(a.wide(), b.wide()))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn div_softmax_lanes(a: V<$t>, b: V<$t>, in_range: V<bool>) -> V<$t> {
                let f: fn($w, $w, bool) -> $w = $div_softmax;
                V::from_wide(f(a.wide(), b.wide(), in_range.0[0]))
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn is_nan_lanes(a: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().is_nan())
            }
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn is_inf_lanes(a: V<$t>) -> V<bool> {
                bools_from_mask(a.wide().is_inf())
            }
        }
    };
}

/// The f32 and f64 lane functions on 8 lanes: wide's `f32x8`, `f64x8` and the vmath
/// functions on them.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
mod lanes8 {
    use super::*;
    use crate::vmath as vm;
    use wide::{f32x8, f64x8};
    mod f32_lanes {
        use super::*;
        float_lanes!(f32, f32x8, u32, kernels: f32x8, pow: vm::pow_f32, rsqrt: vm::rsqrt_f32,
            div_invariant: div_invariant_f32!(f32x8),
            div_softmax: |a: f32x8, b: f32x8, _in_range: bool| div_invariant_f32!(f32x8)(a, b),
            exp_nonpos: vm::exp_nonpos_f32);
    }
    mod f64_lanes {
        use super::*;
        float_lanes!(f64, f64x8, u64, kernels: f64x8, pow: vm::pow_f64,
            rsqrt: |x: f64x8| f64x8::splat(1.0) / x.sqrt(),
            div_invariant: |a: f64x8, b: f64x8| a / b,
            div_softmax: |a: f64x8, b: f64x8, _in_range: bool| a / b,
            // e^min(x, 0): `minpd(0, x)` returns x where x is NaN.
            exp_nonpos: |x: f64x8| vm::exp_f64(f64x8::ZERO.fast_min(x)));
    }
}

/// The f32 and f64 lane functions on 16 lanes (AVX-512 builds): f32 on wide's `f32x16`,
/// with the five f32-lane kernels (exp, tanh, sigmoid, erf, gelu) on all 16 lanes and the
/// other vmath functions on each half; f64 on `F64x16`, two `f64x8`.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod lanes16 {
    use super::*;
    use crate::vmath as vm;
    use wide::{f32x16, f32x8, f64x8};

    /// An f32x8 vmath function on each half of 16 lanes.
    macro_rules! h {
        ($f:path) => {
            |x: f32x16| vm::x16::halves($f, x)
        };
    }
    /// An f64x8 vmath function on each half of an `F64x16`.
    macro_rules! h64 {
        ($f:path) => {
            |x: F64x16| F64x16([$f(x.0[0]), $f(x.0[1])])
        };
    }

    mod f32_lanes {
        use super::*;
        float_lanes!(f32, f32x16, u32, kernels: f32x16,
            pow: |a: f32x16, b: f32x16| {
                let [a0, a1]: [f32x8; 2] = bytemuck::cast(a);
                let [b0, b1]: [f32x8; 2] = bytemuck::cast(b);
                bytemuck::cast([vm::pow_f32(a0, b0), vm::pow_f32(a1, b1)])
            },
            rsqrt: h!(vm::rsqrt_f32),
            div_invariant: div_invariant_f32x16,
            div_softmax: div_softmax_f32x16,
            exp_nonpos: vm::x16::exp_nonpos_f32x16);
    }
    mod f64_lanes {
        use super::*;
        float_lanes!(f64, F64x16, u64, kernels: f64x16,
            pow: |a: F64x16, b: F64x16| F64x16([vm::pow_f64(a.0[0], b.0[0]), vm::pow_f64(a.0[1], b.0[1])]),
            rsqrt: |x: F64x16| F64x16::splat(1.0) / x.sqrt(),
            div_invariant: |a: F64x16, b: F64x16| a / b,
            div_softmax: |a: F64x16, b: F64x16, _in_range: bool| a / b,
            // e^min(x, 0): `minpd(0, x)` returns x where x is NaN.
            exp_nonpos: |x: F64x16| h64!(vm::exp_f64)(F64x16::splat(0.0).fast_min(x)));
    }

    /// 16 f64 lanes as two wide `f64x8` (wide has no f64x16): each operation on both
    /// halves. Only what `float_lanes!` uses.
    #[derive(Clone, Copy)]
    pub(super) struct F64x16(pub(super) [f64x8; 2]);

    macro_rules! both {
        ($($m:ident),*) => {$(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            pub(super) fn $m(self) -> Self {
                F64x16([self.0[0].$m(), self.0[1].$m()])
            }
        )*};
    }
    macro_rules! both_cmp {
        ($($m:ident),*) => {$(
            #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            pub(super) fn $m(self, o: Self) -> Self {
                F64x16([self.0[0].$m(o.0[0]), self.0[1].$m(o.0[1])])
            }
        )*};
    }
    macro_rules! both_op {
        ($($tr:ident :: $m:ident),*) => {$(
            impl core::ops::$tr for F64x16 {
                type Output = F64x16;
                #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
                #[cfg_attr(not(debug_assertions), inline(always))]
                fn $m(self, o: Self) -> Self {
                    F64x16([core::ops::$tr::$m(self.0[0], o.0[0]), core::ops::$tr::$m(self.0[1], o.0[1])])
                }
            }
        )*};
    }
    both_op!(
        Add::add,
        Sub::sub,
        Mul::mul,
        Div::div,
        BitAnd::bitand,
        BitOr::bitor
    );
    impl core::ops::Neg for F64x16 {
        type Output = F64x16;
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn neg(self) -> Self {
            F64x16([-self.0[0], -self.0[1]])
        }
    }
    impl From<[f64; 16]> for F64x16 {
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn from(a: [f64; 16]) -> Self {
            F64x16(bytemuck::cast(a))
        }
    }
    impl F64x16 {
        both!(
            abs,
            is_nan,
            is_inf,
            floor,
            ceil,
            trunc,
            round_ties_even,
            sqrt
        );
        both_cmp!(simd_eq, simd_ne, simd_lt, simd_le, simd_gt, simd_ge, fast_max, fast_min);
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        pub(super) fn splat(v: f64) -> Self {
            F64x16([f64x8::splat(v); 2])
        }
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        pub(super) fn to_array(self) -> [f64; 16] {
            bytemuck::cast(self.0)
        }
        /// `a` in the lanes of the mask `self`, else `b`.
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        pub(super) fn select(self, a: Self, b: Self) -> Self {
            F64x16([
                self.0[0].select(a.0[0], b.0[0]),
                self.0[1].select(a.0[1], b.0[1]),
            ])
        }
        #[cfg_attr(all(debug_assertions, not(tensorgraph_opt0)), inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        pub(super) fn to_bitmask(self) -> u32 {
            (self.0[0].to_bitmask() as u32) | ((self.0[1].to_bitmask() as u32) << 8)
        }
    }
}

/// Softmax's division operands for the tests of `div_softmax_lanes` (here and in
/// lanes_avx512.rs): the `k`-th row sum `b`, at least 1 (small and large integers, every
/// float up to 2^24, NaN, inf and sums past the fast path's 2^20), and `N` dividends in [0, 1]
/// or NaN (+0, 1, 2^-76 and its neighbours, and any float in between).
#[cfg(test)]
pub(crate) fn softmax_division_operands<const N: usize>(
    k: usize,
    next: &mut impl FnMut() -> u64,
) -> (f32, [f32; N]) {
    let one = 1.0f32.to_bits() as u64;
    let b = match k % 5 {
        0 => 1.0 + (next() % (1 << 20)) as f32,
        1 => f32::from_bits(0x3f80_0000 + (next() % (0x4b80_0000 - 0x3f80_0000)) as u32),
        2 => [f32::NAN, f32::INFINITY, 1.0, 2e6, 3e38][(next() % 5) as usize],
        _ => 1.0 + (next() % 4096) as f32 * 0.125,
    };
    let a = core::array::from_fn(|_| match next() % 8 {
        0 => 0.0,
        1 => f32::NAN,
        2 => 1.0,
        3 => f32::from_bits(0x1980_0000 + (next() % 3) as u32 - 1),
        _ => f32::from_bits((next() % (one + 1)) as u32),
    });
    (b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A prefetch is a hint: any index, inside the slice, past its end or far past it, of
    /// an empty slice too, leaves the data as it was and does not fault.
    #[test]
    fn prefetch_chunk_takes_any_index() {
        let data: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        for at in [0, 1, 15, 16, 999, 1000, 1016, 4096, 1 << 20] {
            prefetch_chunk(&data, at);
            prefetch_chunk::<f32>(&[], at);
        }
        assert!(data.iter().enumerate().all(|(i, &v)| v == i as f32));
    }

    /// A group's values are chunk 0, 1, …, W-1's, each computed once, in that order.
    #[test]
    fn group_values_computes_each_chunk_once_in_order() {
        let mut calls = Vec::new();
        let group: [(usize, V<f32>); 4] = group_values(|u| {
            calls.push(u);
            (u * 3, V::splat(u as f32 + 0.5))
        });
        assert_eq!(calls, [0, 1, 2, 3]);
        for (u, (i, v)) in group.into_iter().enumerate() {
            assert_eq!((i, v), (u * 3, V::splat(u as f32 + 0.5)));
        }
        let pair: [u8; 2] = group_values(|u| 10 + u as u8);
        assert_eq!(pair, [10, 11]);
    }

    /// Edge values of each integer type (0, ±1, the extremes and their neighbours, powers
    /// of two, alternating and sparse bit patterns) then random values.
    fn values<T: Copy>(from_bits: impl Fn(u64) -> T, bits: u32, edges: &[T]) -> Vec<T> {
        let mut v = edges.to_vec();
        for k in 0..bits {
            v.push(from_bits(1u64 << k));
            v.push(from_bits(!(1u64 << k)));
        }
        for pattern in [
            0x5555_5555_5555_5555u64,
            0xaaaa_aaaa_aaaa_aaaa,
            0x8080_8080_0101_0101,
        ] {
            v.push(from_bits(pattern));
        }
        let mut rng = crate::testing::Rng::new(0x2545_f491_4f6c_dd1d);
        // 16 under Miri (NOTES.md, "Undefined-behaviour checks").
        for _ in 0..(if cfg!(miri) { 16 } else { 500 }) {
            v.push(from_bits(rng.next_u64()));
        }
        v
    }

    /// `bitwise_count_lanes` bit for bit against `count_ones` of the magnitude taken in
    /// i128 (so `MIN` of a signed type counts 2^(BITS-1)): every value in every lane
    /// position of a full chunk, and every tail length 0..=8 through `load` (whose lanes
    /// past the tail hold 0 and count 0).
    macro_rules! bit_count_case {
        ($($test:ident: $t:ty, $swar:expr, [$($edge:expr),*];)*) => {$(
            #[test]
            fn $test() {
                let xs = values::<$t>(|b| b as $t, <$t>::BITS, &[$($edge),*]);
                let want = |v: $t| (v as i128).unsigned_abs().count_ones() as u8;
                // The SWAR count also where this build's lane function is the map.
                let swar: Option<fn([$t; LANES]) -> [u8; LANES]> = $swar;
                for start in 0..xs.len() {
                    let chunk: [$t; LANES] = core::array::from_fn(|i| xs[(start + i) % xs.len()]);
                    let got = <$t as BitCountLanes>::bitwise_count_lanes(V(chunk)).0;
                    let got_swar = swar.map(|f| f(chunk));
                    for i in 0..LANES {
                        assert_eq!(got[i], want(chunk[i]), "bitwise_count({}) in lane {i}", chunk[i]);
                        if let Some(g) = got_swar {
                            assert_eq!(g[i], want(chunk[i]), "SWAR bitwise_count({}) in lane {i}", chunk[i]);
                        }
                    }
                }
                for n in 0..=LANES {
                    for start in 0..xs.len() - LANES {
                        let got = <$t as BitCountLanes>::bitwise_count_lanes(load(&xs, start, n)).0;
                        for i in 0..LANES {
                            let w = if i < n { want(xs[start + i]) } else { 0 };
                            assert_eq!(got[i], w, "tail of {n}: lane {i}");
                        }
                    }
                }
            }
        )*};
    }
    bit_count_case! {
        bit_count_u8: u8, Some(<u8 as SwarBitCount>::swar_count), [0, 1, 2, u8::MAX, u8::MAX - 1, 0x80, 0x7f];
        bit_count_i8: i8, Some(<i8 as SwarBitCount>::swar_count), [0, 1, -1, i8::MIN, i8::MIN + 1, i8::MAX, -2];
        bit_count_u16: u16, Some(<u16 as SwarBitCount>::swar_count), [0, 1, u16::MAX, u16::MAX - 1, 0x8000, 0x7fff, 0x00ff, 0xff00];
        bit_count_i16: i16, Some(<i16 as SwarBitCount>::swar_count), [0, 1, -1, i16::MIN, i16::MIN + 1, i16::MAX, -256];
        bit_count_u32: u32, Some(<u32 as SwarBitCount>::swar_count), [0, 1, u32::MAX, u32::MAX - 1, 1 << 31, u32::MAX >> 1];
        bit_count_i32: i32, Some(<i32 as SwarBitCount>::swar_count), [0, 1, -1, i32::MIN, i32::MIN + 1, i32::MAX, -65536];
        bit_count_u64: u64, None, [0, 1, u64::MAX, u64::MAX - 1, 1 << 63, u64::MAX >> 1];
        bit_count_i64: i64, None, [0, 1, -1, i64::MIN, i64::MIN + 1, i64::MAX, -(1 << 32)];
    }

    /// The tests' generator (`crate::testing::Rng`) from `seed`: deterministic bit patterns.
    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut rng = crate::testing::Rng::new(seed);
        move || rng.next_u64()
    }

    /// Each lane of `got` is `a / b`'s bits (any NaN for a NaN).
    fn assert_quotients(got: [f32; LANES], a: [f32; LANES], b: f32) {
        for i in 0..LANES {
            let want = a[i] / b;
            assert!(
                got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()),
                "{:e} / {:e}: {:e}, want {:e}",
                a[i],
                b,
                got[i],
                want
            );
        }
    }

    /// `div_softmax_lanes` is the division for softmax's operands: every class of dividend
    /// in [0, 1] (+0, subnormals, below and above 2^-76, 1) and NaN, against row sums from 1
    /// to past the fast path's 2^20, NaN and inf.
    #[test]
    fn div_softmax_is_division() {
        // Softmax's contract: a in [0, 1] or NaN (every f32 there: +0, subnormals, tiny and
        // normal values, 1, NaN), b a row sum: at least 1 (or NaN, inf, and huge sums
        // outside the fast path's range).
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let rounds = if cfg!(miri) {
            8
        } else if cfg!(debug_assertions) {
            20_000
        } else {
            400_000
        };
        for k in 0..rounds {
            let (b, a) = softmax_division_operands::<LANES>(k, &mut next);
            let got = <f32 as FloatLanes>::div_softmax_lanes(V(a), V::splat(b), V::splat(false)).0;
            assert_quotients(got, a, b);
            // With the row's promise where it holds (every a NaN or at least 2^-76).
            if a.iter()
                .all(|&x| x.is_nan() || x >= f32::from_bits(0x1980_0000))
            {
                let got =
                    <f32 as FloatLanes>::div_softmax_lanes(V(a), V::splat(b), V::splat(true)).0;
                assert_quotients(got, a, b);
            }
        }
        // Every class of b against the edges of a's test: b at and just past both ends of
        // the fast path's range [2^-20, 2^20] (its test folds into a's threshold), below 1
        // (not a row sum, but in range), tiny, huge, ±0, ±inf, NaN and negative; a at
        // 2^-76 and its neighbours, +0, the smallest subnormal, 1 and NaN, alone in a
        // vector and in one lane of a vector of fast-path values.
        let edges_b = [
            f32::from_bits(0x3580_0000),
            f32::from_bits(0x357f_ffff),
            f32::from_bits(0x4980_0000),
            f32::from_bits(0x4980_0001),
            0.75,
            1e-30,
            3e38,
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -1.0,
            -3.0,
        ];
        let edges_a = [
            f32::from_bits(0x1980_0000),
            f32::from_bits(0x197f_ffff),
            f32::from_bits(0x1980_0001),
            0.0,
            1e-45,
            1.0,
            0.3,
            f32::NAN,
        ];
        for &b in &edges_b {
            for &special in &edges_a {
                // The promise (`in_range`) only where it holds.
                let promises: &[bool] =
                    if special.is_nan() || special >= f32::from_bits(0x1980_0000) {
                        &[false, true]
                    } else {
                        &[false]
                    };
                for &in_range in promises {
                    let flag = V::splat(in_range);
                    let got = <f32 as FloatLanes>::div_softmax_lanes(
                        V([special; LANES]),
                        V::splat(b),
                        flag,
                    );
                    assert_quotients(got.0, [special; LANES], b);
                    let mut a = [0.6f32; LANES];
                    a[LANES / 2] = special;
                    let got = <f32 as FloatLanes>::div_softmax_lanes(V(a), V::splat(b), flag);
                    assert_quotients(got.0, a, b);
                }
            }
        }
    }

    /// `div_invariant_lanes` bit for bit against the scalar division, f32 and f64: every
    /// mantissa of a in [1, 2) (every 7th under debug) for divisors with hard mantissas
    /// (all ones, 1 + ulp, 1023.98…), then random a over every exponent (zeros, subnormals,
    /// inf, NaN included: the lanes outside Markstein's range take the division) against
    /// random b over every exponent, and vectors mixing fast-path and slow-path lanes.
    #[test]
    fn div_invariant_is_division() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        let step = if cfg!(miri) {
            1 << 18
        } else if cfg!(debug_assertions) {
            7
        } else {
            1
        };
        let divisors = [
            f32::from_bits(0x3fff_ffff),
            f32::from_bits(0x3f80_0001),
            1.0,
            3.0,
            1024.0 - 1.0 / 64.0,
            0.1,
            -7.0,
        ];
        let check32 = |a: [f32; LANES], b: f32| {
            let got = <f32 as FloatLanes>::div_invariant_lanes(V(a), V::splat(b)).0;
            assert_quotients(got, a, b);
        };
        for &b in &divisors {
            let mut m = 0u32;
            while m < 1 << 23 {
                let a: [f32; LANES] = core::array::from_fn(|i| {
                    f32::from_bits(0x3f80_0000 | ((m + i as u32) & 0x7f_ffff))
                });
                check32(a, b);
                m += LANES as u32 * step;
            }
        }
        let rounds = if cfg!(miri) { 4 } else { 200_000 };
        for _ in 0..rounds {
            let b = f32::from_bits(next() as u32);
            // Lanes from the fast-path range, with one lane anywhere in half the vectors.
            let mut a: [f32; LANES] = core::array::from_fn(|_| {
                let x = next();
                f32::from_bits((((27 + x % 201) as u32) << 23) | ((x >> 20) as u32 & 0x807f_ffff))
            });
            if next() & 1 == 0 {
                a[(next() % LANES as u64) as usize] = f32::from_bits(next() as u32);
            }
            check32(a, b);
            check32(a, 1.0 + (next() % 4096) as f32 * 0.25);
        }
        for _ in 0..rounds {
            let b = f64::from_bits(next());
            let a: [f64; LANES] = core::array::from_fn(|_| f64::from_bits(next()));
            let got = <f64 as FloatLanes>::div_invariant_lanes(V(a), V::splat(b)).0;
            for i in 0..LANES {
                let want = a[i] / b;
                assert!(got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()));
            }
        }
        for special in [
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            1e-45,
            // Both ends of a's fast-path range [2^-76, 2^100] and their outer neighbours.
            f32::from_bits(0x1980_0000),
            f32::from_bits(0x197f_ffff),
            f32::from_bits(0x7180_0000),
            f32::from_bits(0x7180_0001),
            -f32::from_bits(0x7180_0000),
            -f32::from_bits(0x197f_ffff),
        ] {
            // Both signs of b: the fast path divides by |b| and puts b's sign back, so
            // ±0 numerators must keep the quotient's sign either way.
            for &b in &[
                1.0f32,
                3.0,
                -1.0,
                -3.0,
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NAN,
                1e-30,
                1e30,
                // -inf, and both ends of the fast path's range [2^-20, 2^20] of |b| with
                // their outer neighbours (b's test folds into a's upper bound), both signs.
                f32::NEG_INFINITY,
                f32::from_bits(0x3580_0000),
                f32::from_bits(0x357f_ffff),
                f32::from_bits(0x4980_0000),
                f32::from_bits(0x4980_0001),
                -f32::from_bits(0x3580_0000),
                -f32::from_bits(0x357f_ffff),
                -f32::from_bits(0x4980_0000),
                -f32::from_bits(0x4980_0001),
            ] {
                check32([special; LANES], b);
                let mut a = [1.5f32; LANES];
                a[LANES - 1] = special;
                check32(a, b);
            }
        }
    }
    /// Softmax's exp (`exp_nonpos_lanes`, f32 and f64) against the f64 exponential,
    /// within exp's 1 ULP: random x <= 0 over every exponent (2^20 in release, 2^14 in
    /// debug), the subnormal-result range [-104, -87] densely, and the specials (NaN stays
    /// NaN; -inf and below -104 give +0; ±0 give exactly 1). Positive x, outside the
    /// domain: 1 (e^min(x, 0)), but e^x within 1 ULP up to 88 in the f32 lanes of native
    /// AVX-512 builds, whose table kernel has no upper clamp.
    #[test]
    fn exp_nonpos_is_exp_of_the_non_positive_part() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let n = if cfg!(miri) {
            64
        } else if cfg!(debug_assertions) {
            1 << 14
        } else {
            1 << 20
        };
        let mut xs: Vec<f32> = (0..n)
            .map(|i| match i % 3 {
                0 => -f32::from_bits(next() as u32 & 0x7fff_ffff),
                1 => -87.0 - (next() % (1 << 24)) as f32 / (1u64 << 24) as f32 * 17.0,
                _ => -((next() % (1 << 24)) as f32) / (1u64 << 24) as f32 * 20.0,
            })
            .collect();
        xs.extend([
            0.0,
            -0.0,
            1e-45,
            1.0,
            88.0,
            f32::INFINITY,
            f32::MAX,
            f32::NEG_INFINITY,
            -f32::MAX,
            -103.97,
            -104.0,
            -87.33,
            f32::NAN,
        ]);
        for chunk in xs.chunks(LANES) {
            let mut a = [0.0f32; LANES];
            a[..chunk.len()].copy_from_slice(chunk);
            let got = <f32 as FloatLanes>::exp_nonpos_lanes(V(a)).0;
            let got64 = <f64 as FloatLanes>::exp_nonpos_lanes(V(a.map(|v| v as f64))).0;
            for i in 0..chunk.len() {
                let x = a[i];
                if x.is_nan() {
                    assert!(got[i].is_nan() && got64[i].is_nan(), "exp_nonpos(NaN)");
                    continue;
                }
                let want = (x.min(0.0) as f64).exp();
                let table =
                    cfg!(all(target_arch = "x86_64", target_feature = "avx512f")) && LANES == 16;
                if x > 0.0 && table {
                    if x <= 88.0 {
                        let want = (x as f64).exp();
                        let err = crate::ulp::err_f32(got[i], want);
                        assert!(err <= 1.0, "exp_nonpos({x:e}) = {:e}: {err} ULP", got[i]);
                    }
                } else {
                    let err = crate::ulp::err_f32(got[i], want);
                    assert!(
                        err <= 1.0,
                        "exp_nonpos({x:e}) = {:e}: {err} ULP from {want:e}",
                        got[i]
                    );
                    if x >= 0.0 {
                        assert_eq!(got[i], 1.0, "exp_nonpos({x:e})");
                    }
                }
                if x <= -104.0 {
                    assert_eq!(got[i].to_bits(), 0, "exp_nonpos({x:e})");
                }
                let err64 = crate::ulp::err_f64(got64[i], want);
                assert!(err64 <= 1.0, "f64 exp_nonpos({x:e}): {err64} ULP");
            }
        }
    }

    /// `max_no_nan_lanes` and its scalar fold: the max wherever no lane is NaN (either
    /// zero where +0 meets -0), on f32 and f64 lanes.
    #[test]
    fn max_no_nan_is_max_without_nans() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        let edges = [
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            -f32::MAX,
            1e-45,
        ];
        for round in 0..2000 {
            let pick = |r: u64| -> f32 {
                let v = f32::from_bits(r as u32);
                if v.is_nan() || r % 5 == 0 {
                    edges[(r >> 40) as usize % edges.len()]
                } else {
                    v
                }
            };
            let a: [f32; LANES] = core::array::from_fn(|_| pick(next()));
            let b: [f32; LANES] = core::array::from_fn(|_| pick(next()));
            let got = <f32 as FloatLanes>::max_no_nan_lanes(V(a), V(b)).0;
            let got64 =
                <f64 as FloatLanes>::max_no_nan_lanes(V(a.map(f64::from)), V(b.map(f64::from))).0;
            for i in 0..LANES {
                let want = if a[i] > b[i] { a[i] } else { b[i] };
                assert!(
                    got[i] == want,
                    "round {round}: max({:e}, {:e}) = {:e}",
                    a[i],
                    b[i],
                    got[i]
                );
                assert!(got64[i] == want as f64);
                assert!(<f32 as FloatLanes>::max_no_nan(a[i], b[i]) == want);
            }
        }
    }
}
