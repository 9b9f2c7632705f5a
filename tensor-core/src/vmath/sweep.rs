//! Test helpers shared by the vmath families' tests: ULP statistics, a small PRNG,
//! strided f32 walks and random f64 inputs, and the runners that hold a kernel to a bound
//! against a scalar reference.

use super::*;

pub(super) use crate::ulp::{err_f32, err_f64};

// ------------------------------------------------------------------ stats
pub(super) struct Stats {
    name: String,
    max: f64,
    at: (f64, f64),
    n: u64,
    cr: u64,
}
impl Stats {
    pub(super) fn new(name: &str) -> Self {
        Stats {
            name: name.to_string(),
            max: 0.0,
            at: (0.0, 0.0),
            n: 0,
            cr: 0,
        }
    }
    pub(super) fn add(&mut self, x: f64, y: f64, err: f64, cr: bool) {
        self.n += 1;
        if cr {
            self.cr += 1;
        }
        if err > self.max || err.is_nan() {
            self.max = err;
            self.at = (x, y);
        }
    }
    pub(super) fn report(&self, bound: f64) {
        println!(
            "| {:<12} | {:>8.3} | {:>24} | {:>10.6} | {:>9} | {}",
            self.name,
            self.max,
            if self.at.1 == 0.0 {
                format!("{:e}", self.at.0)
            } else {
                format!("{:e},{:e}", self.at.0, self.at.1)
            },
            self.cr as f64 / self.n.max(1) as f64,
            self.n,
            if self.max <= bound { "ok" } else { "FAIL" }
        );
        assert!(
            self.max <= bound,
            "{}: max ulp {} at {:?} exceeds {}",
            self.name,
            self.max,
            self.at,
            bound
        );
    }
}

// ------------------------------------------------------------------ inputs
/// 2^e from its bits (subnormal below 2^-1022, 0 below 2^-1074, inf from 2^1024): exact,
/// as `powi` is not promised to be (Miri models it as inexact).
pub(super) fn exact_pow2(e: i32) -> f64 {
    match e {
        1024.. => f64::INFINITY,
        -1022..=1023 => f64::from_bits(((1023 + e) as u64) << 52),
        -1074..=-1023 => f64::from_bits(1u64 << (e + 1074)),
        _ => 0.0,
    }
}

/// The tests' generator (`crate::testing::Rng`) with the sweeps' input shapes.
pub(super) struct Rng(crate::testing::Rng);
impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(crate::testing::Rng::new(seed))
    }
    pub(super) fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    pub(super) fn unif(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * ((self.next() >> 11) as f64 * exact_pow2(-53))
    }
    /// |x| log-uniform in [2^emin, 2^emax), random sign if `signed`.
    pub(super) fn logu(&mut self, emin: i32, emax: i32, signed: bool) -> f64 {
        let r = self.next();
        let e = emin + (r % ((emax - emin) as u64)) as i32;
        let m = 1.0 + (self.next() >> 12) as f64 * exact_pow2(-52);
        let v = m * exact_pow2(e);
        if signed && (r >> 40) & 1 == 1 {
            -v
        } else {
            v
        }
    }
}

/// Every `stride`-th f32 bit pattern (finite only), plus `extra` points and
/// +-`nb` bit neighbours of each extra point (at most ±2 under Miri).
pub(super) fn f32_inputs(stride: u64, extra: &[f32], nb: i64) -> Vec<f32> {
    let nb = if cfg!(miri) { nb.min(2) } else { nb };
    let mut v = Vec::new();
    let mut b: u64 = 0;
    while b < (1u64 << 32) {
        let x = f32::from_bits(b as u32);
        if x.is_finite() {
            v.push(x);
        }
        b += stride;
    }
    for &e in extra {
        for d in -nb..=nb {
            let bb = (e.to_bits() as i64 + d) as u32;
            let x = f32::from_bits(bb);
            if x.is_finite() {
                v.push(x);
            }
        }
    }
    v
}

/// How far std's f64 functions, the references of most sweeps, may be from the true value,
/// in f64 ulps, on top of what the bounds already allow.
///
/// Rust promises no precision for `exp`, `sin`, `tanh`, …: std calls the platform libm.
/// The bounds of these tests were measured against glibc on x86-64, so 0 there (glibc
/// promises no bound either: its manual says its test suite flags errors above 9 ulp).
/// Miri models
/// Rust's freedom by adding up to 4 ulp of random error to every call of one of these
/// functions; sqrt, `mul_add` and the arithmetic operators are exact there too.
pub(super) const LIBM_ULP: f64 = if cfg!(miri) { 4.0 } else { 0.0 };

/// [`LIBM_ULP`] f64 ulps in f32 ulps (2⁻²⁹ of one), plus the case where the reference
/// crosses a power of two (one more factor of 2).
pub(super) const LIBM_ULP_IN_F32: f64 = LIBM_ULP * 2.0 / (1u64 << 29) as f64;

/// Holds `f` within `bound` f32 ulps of `r` (plus [`LIBM_ULP_IN_F32`]) on `xs`.
pub(super) fn run_f32(
    name: &str,
    f: fn(f32x8) -> f32x8,
    r: fn(f64) -> f64,
    xs: &[f32],
    bound: f64,
) {
    let bound = bound + LIBM_ULP_IN_F32;
    let mut st = Stats::new(name);
    for ch in xs.chunks(8) {
        let mut a = [0f32; 8];
        a[..ch.len()].copy_from_slice(ch);
        let out = f(f32x8::from(a)).to_array();
        for i in 0..ch.len() {
            let rf = r(a[i] as f64);
            let e = err_f32(out[i], rf);
            st.add(
                a[i] as f64,
                0.0,
                e,
                out[i] == rf as f32 || (out[i].is_nan() && rf.is_nan()),
            );
        }
    }
    st.report(bound);
}

/// Holds `f` within `bound` f64 ulps of `r` (plus [`LIBM_ULP`]) on `xs`.
pub(super) fn run_f64(name: &str, f: fn(F) -> F, r: fn(f64) -> f64, xs: &[f64], bound: f64) {
    let bound = bound + LIBM_ULP;
    let mut st = Stats::new(name);
    for ch in xs.chunks(8) {
        let mut a = [0f64; 8];
        a[..ch.len()].copy_from_slice(ch);
        let out = f(F::from(a)).to_array();
        for i in 0..ch.len() {
            let rf = r(a[i]);
            let e = err_f64(out[i], rf);
            st.add(
                a[i],
                0.0,
                e,
                out[i] == rf || (out[i].is_nan() && rf.is_nan()),
            );
        }
    }
    st.report(bound);
}

// ------------------------------------------------------------------ references
/// The scalar references of `reference.rs` (double-double e^x, rounded once).
pub(super) fn sigmoid_ref(x: f64) -> f64 {
    <f64 as crate::reference::Float>::sigmoid(x)
}
pub(super) fn gelu_ref(x: f64) -> f64 {
    <f64 as crate::reference::Float>::gelu(x)
}

// ------------------------------------------------------------------ f32 sweeps
// The release-mode sweep (`cargo test --release -p tensorgraph-core`) visits every 1021st f32;
// the default test profile thins it so `cargo test` stays fast, and Miri to 256 patterns.
pub(super) const STRIDE: u64 = if cfg!(miri) {
    (1 << 24) + 1
} else if cfg!(debug_assertions) {
    16381
} else {
    1021
};

pub(super) fn pio2_multiples() -> Vec<f32> {
    let mut v = vec![];
    for k in 1..200 {
        v.push((k as f64 * std::f64::consts::FRAC_PI_2) as f32);
        v.push(-(k as f64 * std::f64::consts::FRAC_PI_2) as f32);
    }
    v.extend_from_slice(&[1e6, 1.6e6, 1.7e6, 1e10, 1e30, f32::MAX, 25735.0, 102_943.0]);
    v
}

// ------------------------------------------------------------------ f64 random
pub(super) const N64: usize = if cfg!(miri) {
    1 << 8
} else if cfg!(debug_assertions) {
    1 << 16
} else {
    1 << 20
};

pub(super) fn make_inputs(seed: u64, f: impl Fn(&mut Rng, usize) -> f64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..N64).map(|i| f(&mut rng, i)).collect()
}

// ------------------------------------------------------------------ special values
pub(super) fn s32(f: fn(f32x8) -> f32x8, x: f32) -> f32 {
    f(f32x8::splat(x)).to_array()[0]
}
pub(super) fn s64(f: fn(F) -> F, x: f64) -> f64 {
    f(F::splat(x)).to_array()[0]
}
pub(super) fn same32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}
pub(super) fn same64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

// ------------------------------------------------------------------ issue 5 functions
pub(super) fn softplus_ref(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// Each of `odd` in each lane position, the other seven lanes ordinary positive
/// values: for kernels whose fast path hands some lanes to an out-of-line path.
pub(super) fn mixed_lanes(odd: &[f32]) -> Vec<f32> {
    let mut xs = vec![];
    for (k, &o) in odd.iter().enumerate() {
        for pos in 0..8 {
            xs.extend((0..8).map(|i| {
                if i == pos {
                    o
                } else {
                    0.75 + (k * 8 + i) as f32
                }
            }));
        }
    }
    xs
}

// ------------------------------------------------------------------ tails
/// Short chunks, as a kernel's last chunk reaches a vector function: for every tail
/// length n in 1..8 and every window of `xs`, lanes 0..n hold inputs and the rest hold 0
/// (what `lanes::load` puts there). Each input lane must give the same bits as when the
/// value sits in a full chunk of other inputs, and stay within `bound` of the reference
/// (plus [`LIBM_ULP_IN_F32`]). Under Miri every 8th window.
pub(super) fn check_tails_f32(
    name: &str,
    f: fn(f32x8) -> f32x8,
    r: fn(f64) -> f64,
    xs: &[f32],
    bound: f64,
) {
    let windows = if cfg!(miri) { 8 } else { 1 };
    for n in 1..8 {
        for start in (0..xs.len().saturating_sub(8)).step_by(windows) {
            let full: [f32; 8] = core::array::from_fn(|i| xs[start + i]);
            let short: [f32; 8] = core::array::from_fn(|i| if i < n { full[i] } else { 0.0 });
            let (of, os) = (
                f(f32x8::from(full)).to_array(),
                f(f32x8::from(short)).to_array(),
            );
            for i in 0..n {
                assert!(
                    same32(of[i], os[i]),
                    "{name}: tail of {n} changed lane {i} ({:e}): {:e} vs {:e}",
                    full[i],
                    os[i],
                    of[i]
                );
                let e = err_f32(os[i], r(full[i] as f64));
                assert!(
                    e <= bound + LIBM_ULP_IN_F32,
                    "{name}({:e}) in a tail of {n}: {e} ulp",
                    full[i]
                );
            }
        }
    }
}

/// `check_tails_f32` for f64 lanes (plus [`LIBM_ULP`]).
pub(super) fn check_tails_f64(
    name: &str,
    f: fn(F) -> F,
    r: fn(f64) -> f64,
    xs: &[f64],
    bound: f64,
) {
    let windows = if cfg!(miri) { 8 } else { 1 };
    for n in 1..8 {
        for start in (0..xs.len().saturating_sub(8)).step_by(windows) {
            let full: [f64; 8] = core::array::from_fn(|i| xs[start + i]);
            let short: [f64; 8] = core::array::from_fn(|i| if i < n { full[i] } else { 0.0 });
            let (of, os) = (f(F::from(full)).to_array(), f(F::from(short)).to_array());
            for i in 0..n {
                assert!(
                    same64(of[i], os[i]),
                    "{name}: tail of {n} changed lane {i} ({:e}): {:e} vs {:e}",
                    full[i],
                    os[i],
                    of[i]
                );
                let e = err_f64(os[i], r(full[i]));
                assert!(
                    e <= bound + LIBM_ULP,
                    "{name}({:e}) in a tail of {n}: {e} ulp",
                    full[i]
                );
            }
        }
    }
}

/// Edge inputs for the tail checks: each of `edges`, its negation and its two f64
/// neighbours, then `random` uniform values in `interval` (`Rng` seeded with `seed`; at most
/// 8 under Miri).
pub(super) fn edge_and_random(
    edges: &[f64],
    interval: (f64, f64),
    random: usize,
    seed: u64,
) -> Vec<f64> {
    let random = if cfg!(miri) { random.min(8) } else { random };
    let mut v = Vec::new();
    for &e in edges {
        for s in [e, -e] {
            v.push(s);
            if s.is_finite() {
                v.push(f64::from_bits(s.to_bits().wrapping_add(1)));
                v.push(f64::from_bits(s.to_bits().wrapping_sub(1)));
            }
        }
    }
    let mut rng = Rng::new(seed);
    v.extend((0..random).map(|_| rng.unif(interval.0, interval.1)));
    v
}
