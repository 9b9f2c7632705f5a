//! Prototype for issue 17 (helper-19, 2026-11-25): precompiled block kernels, one
//! non-generic function per (op, dtype, operand form), compiled once in this crate (it
//! stands for tensor-core). A graph lowered to them is a sequence of calls over row or
//! L1-sized blocks, so the user's crate compiles calls only, no inlined SIMD.
//!
//! Each function applies tensor-core's own lane op (`tensorgraph::__private`) chunk by
//! chunk, so its results are the fused kernel's bit for bit; only the fusion differs
//! (each op makes a pass over the block through L1 instead of keeping values in
//! registers). Every slice argument has the length of `dst` (checked by the slicing).
use tensorgraph::__private::{
    fold, load, store, BitwiseLanes, CompareLanes, FloatLanes, Num, NumLanes, SelectLanes,
    ShiftLanes, LANES, V,
};

/// `dst[i] = f(dst[i])` chunk by chunk.
#[inline(always)]
fn map_in<T: tensorgraph::__private::Element<Compute = T> + tensorgraph::__private::Element>(
    dst: &mut [T],
    f: impl Fn(V<T>) -> V<T>,
) where
    T: Copy,
{
    let len = dst.len();
    let mut j = 0;
    while j + LANES <= len {
        let v = f(load::<T>(dst, j, LANES));
        store::<T>(dst, j, LANES, v);
        j += LANES;
    }
    if j < len {
        let v = f(load::<T>(dst, j, len - j));
        store::<T>(dst, j, len - j, v);
    }
}

/// `dst[i] = f(dst[i], b[i])` chunk by chunk.
#[inline(always)]
fn zip_in<T: tensorgraph::__private::Element<Compute = T>>(
    dst: &mut [T],
    b: &[T],
    f: impl Fn(V<T>, V<T>) -> V<T>,
) {
    let len = dst.len();
    let b = &b[..len];
    let mut j = 0;
    while j + LANES <= len {
        let v = f(load::<T>(dst, j, LANES), load::<T>(b, j, LANES));
        store::<T>(dst, j, LANES, v);
        j += LANES;
    }
    if j < len {
        let v = f(load::<T>(dst, j, len - j), load::<T>(b, j, len - j));
        store::<T>(dst, j, len - j, v);
    }
}

/// `dst[i] = f(a[i])` chunk by chunk.
#[inline(always)]
fn map_to<T: tensorgraph::__private::Element<Compute = T>>(
    dst: &mut [T],
    a: &[T],
    f: impl Fn(V<T>) -> V<T>,
) {
    let len = dst.len();
    let a = &a[..len];
    let mut j = 0;
    while j + LANES <= len {
        store::<T>(dst, j, LANES, f(load::<T>(a, j, LANES)));
        j += LANES;
    }
    if j < len {
        store::<T>(dst, j, len - j, f(load::<T>(a, j, len - j)));
    }
}

macro_rules! binary_ops {
    ($t:ty: $($name:ident, $name_s:ident => $tr:ident::$lane:ident;)*) => {$(
        /// `dst = dst op b`, elementwise.
        pub fn $name(dst: &mut [$t], b: &[$t]) {
            zip_in(dst, b, <$t as $tr>::$lane)
        }
        /// `dst = dst op s`.
        pub fn $name_s(dst: &mut [$t], s: $t) {
            let s = V::splat(s);
            map_in(dst, |v| <$t as $tr>::$lane(v, s))
        }
    )*};
}
macro_rules! unary_ops {
    ($t:ty: $($name:ident => $tr:ident::$lane:ident;)*) => {$(
        /// `dst = op(dst)`.
        pub fn $name(dst: &mut [$t]) {
            map_in(dst, <$t as $tr>::$lane)
        }
    )*};
}

binary_ops!(f32:
    add_f32, add_s_f32 => NumLanes::add_lanes;
    sub_f32, sub_s_f32 => NumLanes::sub_lanes;
    mul_f32, mul_s_f32 => NumLanes::mul_lanes;
);
unary_ops!(f32:
    relu_f32 => NumLanes::relu_lanes;
    abs_f32 => NumLanes::abs_lanes;
    neg_f32 => NumLanes::neg_lanes;
    sqrt_f32 => FloatLanes::sqrt_lanes;
    exp_f32 => FloatLanes::exp_lanes;
);
binary_ops!(i32:
    add_i32, add_s_i32 => NumLanes::add_lanes;
    sub_i32, sub_s_i32 => NumLanes::sub_lanes;
    mul_i32, mul_s_i32 => NumLanes::mul_lanes;
    max_i32, max_s_i32 => NumLanes::max_lanes;
    and_i32, and_s_i32 => BitwiseLanes::and_lanes;
    xor_i32, xor_s_i32 => BitwiseLanes::xor_lanes;
    shr_i32, shr_s_i32 => ShiftLanes::shr_lanes;
);
unary_ops!(i32:
    neg_i32 => NumLanes::neg_lanes;
);

/// `dst = a`.
pub fn copy_f32(dst: &mut [f32], a: &[f32]) {
    dst.copy_from_slice(&a[..dst.len()]);
}
/// `dst = a`.
pub fn copy_i32(dst: &mut [i32], a: &[i32]) {
    dst.copy_from_slice(&a[..dst.len()]);
}

/// `dst = where(dst > 0, dst, -dst)` on i32 (the integer template's `where`), as the
/// fused kernel's compare, negate and select lanes.
pub fn where_gt0_neg_i32(dst: &mut [i32]) {
    let zero = V::splat(0i32);
    map_in(dst, |w| {
        let m = <i32 as CompareLanes>::gt_lanes(w, zero);
        <i32 as SelectLanes>::select_lanes(m, w, <i32 as NumLanes>::neg_lanes(w))
    })
}

/// `dst = a · s` on f32 from a separate source (the first op of a chain).
pub fn mul_s_to_f32(dst: &mut [f32], a: &[f32], s: f32) {
    let s = V::splat(s);
    map_to(dst, a, |v| <f32 as NumLanes>::mul_lanes(v, s))
}
/// `dst = |a|` from a separate source.
pub fn abs_to_f32(dst: &mut [f32], a: &[f32]) {
    map_to(dst, a, <f32 as NumLanes>::abs_lanes)
}

/// Σ a (f32 values accumulated in f64), with the fused reduction's four accumulators and
/// order: chunk `u` of each group of four into accumulator `u`, the rest into the first.
pub fn sum_f32_f64(a: &[f32]) -> f64 {
    sum_by(a, |v| tensorgraph::__private::cast::<f32, f64>(v))
}
/// Σ a² (squares in f32, accumulated in f64), in the same order.
pub fn sum_sq_f32_f64(a: &[f32]) -> f64 {
    sum_by(a, |v| {
        tensorgraph::__private::cast::<f32, f64>(<f32 as NumLanes>::mul_lanes(v, v))
    })
}
#[inline(always)]
fn sum_by(a: &[f32], f: impl Fn(V<f32>) -> V<f64>) -> f64 {
    let len = a.len();
    let mut acc = [V::splat(0.0f64); 4];
    let mut j = 0;
    while j + 4 * LANES <= len {
        for (u, slot) in acc.iter_mut().enumerate() {
            *slot = <f64 as NumLanes>::add_lanes(*slot, f(load::<f32>(a, j + u * LANES, LANES)));
        }
        j += 4 * LANES;
    }
    while j + LANES <= len {
        acc[0] = <f64 as NumLanes>::add_lanes(acc[0], f(load::<f32>(a, j, LANES)));
        j += LANES;
    }
    if j < len {
        let v = tensorgraph::__private::mask_or(
            tensorgraph::__private::lane_mask(len - j),
            f(load::<f32>(a, j, len - j)),
            0.0,
        );
        acc[0] = <f64 as NumLanes>::add_lanes(acc[0], v);
    }
    let all = <f64 as NumLanes>::add_lanes(
        <f64 as NumLanes>::add_lanes(acc[0], acc[1]),
        <f64 as NumLanes>::add_lanes(acc[2], acc[3]),
    );
    // The fused kernel adds the fold to the temp's 0 (so a -0 sum is +0).
    <f64 as Num>::add(0.0, fold(all, <f64 as Num>::add))
}
/// max a (the float rules of `max`), in the fused reduction's order.
pub fn max_f32(a: &[f32]) -> f32 {
    let len = a.len();
    let lowest = f32::NEG_INFINITY;
    let mut acc = [V::splat(lowest); 4];
    let mut j = 0;
    while j + 4 * LANES <= len {
        for (u, slot) in acc.iter_mut().enumerate() {
            *slot = <f32 as NumLanes>::max_lanes(*slot, load::<f32>(a, j + u * LANES, LANES));
        }
        j += 4 * LANES;
    }
    while j + LANES <= len {
        acc[0] = <f32 as NumLanes>::max_lanes(acc[0], load::<f32>(a, j, LANES));
        j += LANES;
    }
    if j < len {
        let v = tensorgraph::__private::mask_or(
            tensorgraph::__private::lane_mask(len - j),
            load::<f32>(a, j, len - j),
            lowest,
        );
        acc[0] = <f32 as NumLanes>::max_lanes(acc[0], v);
    }
    let all = <f32 as NumLanes>::max_lanes(
        <f32 as NumLanes>::max_lanes(acc[0], acc[1]),
        <f32 as NumLanes>::max_lanes(acc[2], acc[3]),
    );
    <f32 as Num>::max(lowest, fold(all, <f32 as Num>::max))
}
/// The layer norm's per-row scalars on lanes, as the fused kernel computes them:
/// `(mean, rsqrt(var + eps))` from the two f64 sums over `n` values.
pub fn norm_scalars_f32(sum: f64, sum_sq: f64, n: usize, eps: f32) -> f32 {
    let _ = sum;
    let var = tensorgraph::__private::cast::<f64, f32>(<f64 as NumLanes>::div_lanes(
        V::splat(sum_sq),
        V::splat(n as f64),
    ));
    <f32 as FloatLanes>::rsqrt_lanes(<f32 as NumLanes>::add_lanes(var, V::splat(eps))).0[0]
}
/// `(sum / n) as f32` on lanes, as the fused kernel's mean.
pub fn mean_f32(sum: f64, n: usize) -> f32 {
    tensorgraph::__private::cast::<f64, f32>(<f64 as NumLanes>::div_lanes(
        V::splat(sum),
        V::splat(n as f64),
    ))
    .0[0]
}
