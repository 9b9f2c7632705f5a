//! Error of a computed value against a higher-precision reference, in units in the last
//! place of the computed value's format. The vector-math tests and the `ulp_sweep` example
//! measure with these.

/// One f32 ULP at the (f64) value r: 2^-149 below the normal range, 2^104 at and above 2^127.
#[inline]
pub fn ulp_f32_at(r: f64) -> f64 {
    let a = r.abs();
    if a < f32::MIN_POSITIVE as f64 {
        return f64::from_bits((1023 - 149) << 52);
    }
    let e = (((a.to_bits() >> 52) & 0x7ff) as i64 - 1023).min(127);
    f64::from_bits(((e - 23 + 1023) as u64) << 52)
}

/// |got - r| in f32 ULPs of r. Infinities count as ±2^128 (one ULP past f32::MAX).
#[inline]
pub fn err_f32(got: f32, r: f64) -> f64 {
    if r.is_nan() || got.is_nan() {
        return if r.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if got as f64 == r {
        return 0.0;
    }
    // Past 2^128 every value rounds to infinity: one ULP beyond f32::MAX.
    const TWO128: f64 = 3.402823669209385e38;
    let clamp = |v: f64| {
        if v.abs() >= TWO128 {
            TWO128.copysign(v)
        } else {
            v
        }
    };
    let (g, rr) = (clamp(got as f64), clamp(r));
    if g == rr {
        return 0.0;
    }
    (g - rr).abs() / ulp_f32_at(rr)
}

/// The spacing of f64 values at `r` (one ULP), subnormal spacing below `f64::MIN_POSITIVE`.
pub fn ulp_f64_at(r: f64) -> f64 {
    let a = r.abs();
    if a < f64::MIN_POSITIVE {
        return f64::from_bits(1); // 2^-1074, the smallest subnormal
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    if e - 52 >= -1022 {
        f64::from_bits(((e - 52 + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e - 52 + 1074))
    }
}

/// The error of `got` against the reference `r`, in ULPs of `r`: 0 when equal or both NaN,
/// infinite when only one is NaN.
pub fn err_f64(got: f64, r: f64) -> f64 {
    if r.is_nan() || got.is_nan() {
        return if r.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if got == r {
        return 0.0;
    }
    if got.is_infinite() || r.is_infinite() {
        let g = if got.is_infinite() {
            f64::MAX.copysign(got)
        } else {
            got
        };
        let rr = if r.is_infinite() {
            f64::MAX.copysign(r)
        } else {
            r
        };
        return 1.0 + ((g - rr) / ulp_f64_at(f64::MAX)).abs();
    }
    (got - r).abs() / ulp_f64_at(r)
}
