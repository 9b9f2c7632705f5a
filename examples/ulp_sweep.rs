//! Measures the accuracy of tensorgraph's vector math (ACCURACY.md is its output).
//!
//! ```text
//! cargo run --release --example ulp_sweep -- exp          # one function
//! cargo run --release --example ulp_sweep -- all          # every function
//! cargo run --release --example ulp_sweep -- all --f64    # f64 lanes: dense random sweep
//! cargo run --release --example ulp_sweep -- exp --wide   # wide's own function instead
//! cargo run --release --example ulp_sweep -- exp --stride 101   # every 101st pattern only
//! cargo run --release --example ulp_sweep -- exp gelu --x16  # the 16-lane kernels (vmath::x16)
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example ulp_sweep -- all
//! ```
//!
//! f32: every one of the 2^32 bit patterns (NaNs and infinities included) goes through the
//! f32x8 function and is compared with the f64 reference, in f32 ULPs of the reference
//! value (the ULP of 2^-149 below the normal range; an infinity counts as 2^128). "CR" is
//! the fraction of inputs whose result equals the reference rounded to f32 (correctly
//! rounded as far as the reference is: the f64 reference carries < 1 f64 ULP, ~2^-29 f32
//! ULP). A NaN where the reference is not NaN (or the converse) is an infinite error.
//! `pow` walks every x for a fixed set of exponents, then random (x, y) pairs.
//! `elu celu selu swish` run at their default parameters (ONNX's: alpha = 1, selu's f32
//! alpha and gamma) through the lane functions graphs use (`lanes::ActivationLanes`)
//! against `reference::Activation`.
//!
//! f64 (`--f64`): 2^24 random inputs per function (a third uniform over the interesting
//! interval, a third log-uniform in magnitude, a third random bit patterns), in f64 ULPs
//! against std's f64 function (glibc: < 1 ULP itself) or the fdlibm scalar reference.

use std::time::Instant;
use tensorgraph::functions::ulp_bound;
use tensorgraph::lanes::{ActivationLanes, V};
use tensorgraph::reference::{Activation, Float};
use tensorgraph::ulp::{err_f32, err_f64};
use tensorgraph::vmath as vm;
use wide::{f32x8, f64x8};

type V32 = fn(f32x8) -> f32x8;
type V64 = fn(f64x8) -> f64x8;

struct Func {
    name: &'static str,
    v32: V32,
    v64: V64,
    /// f64 reference (std or the crate's scalar reference).
    reference: fn(f64) -> f64,
    /// ULP bound of the f32 lanes (the function table's, `bound`).
    bound: f64,
    /// ULP bound of the f64 lanes (the function table's, `bound`).
    bound64: f64,
    /// wide's own f32x8 function, where wide has one.
    wide: Option<V32>,
    /// f64 random sweep: the interval of interest, and whether inputs are positive only.
    interval: (f64, f64),
    /// The symmetry of the exact values: `Some(-1.0)` for odd (f(-x) = -f(x)), `Some(1.0)`
    /// for even. The f32 sweep then evaluates the reference once for x and -x (it is most
    /// of a sweep's time); both signs still go through the vector function and are checked.
    parity: Option<f64>,
}

/// The bound of `name` in ULP (f64 lanes or f32 lanes) from the function table
/// (`functions::ulp_bound`, ACCURACY.md's numbers): softmax's `exp_nonpos` has exp's, and a
/// function the table calls exact (sqrt: correctly rounded) is within 0.5 ULP.
fn bound(name: &str, f64_lanes: bool) -> f64 {
    let row = if name == "exp_nonpos" { "exp" } else { name };
    match ulp_bound(row, f64_lanes) {
        Some(b) if b == 0.0 => 0.5,
        Some(b) => b,
        None => panic!("`{name}` has no row in the function table"),
    }
}

fn rsqrt_ref(x: f64) -> f64 {
    1.0 / x.sqrt()
}
fn rsqrt_wide(x: f32x8) -> f32x8 {
    f32x8::splat(1.0) / x.sqrt()
}
fn sigmoid_wide(x: f32x8) -> f32x8 {
    f32x8::splat(1.0) / (f32x8::splat(1.0) + (-x).exp())
}

/// selu's defaults: ONNX's, the f32 values of 1.6732632… and 1.0507010… (exact in f64),
/// written as the exact decimals tensor-macros' op table uses.
#[allow(clippy::excessive_precision)]
const SELU_ALPHA: f64 = 1.67326319217681884765625;
#[allow(clippy::excessive_precision)]
const SELU_GAMMA: f64 = 1.05070102214813232421875;

/// A parameterised activation at fixed parameters as a sweep function: the f32x8 and
/// f64x8 forms through `ActivationLanes` (f32: the f64 formula, rounded once), and the
/// scalar reference with the same parameters in f64 (they are f32 values, so the f32
/// kernel sees exactly them).
macro_rules! activation_at {
    ($v32:ident, $v64:ident, $r:ident, $lanes:ident, $scalar:ident, $($p:expr),+) => {
        fn $v32(x: f32x8) -> f32x8 {
            let a = x.to_array();
            let o = <f32 as ActivationLanes>::$lanes(V(core::array::from_fn(|i| a[i % 8])), $(V::splat($p as f32)),+);
            f32x8::from(core::array::from_fn::<f32, 8, _>(|i| o.0[i]))
        }
        fn $v64(x: f64x8) -> f64x8 {
            let a = x.to_array();
            let o = <f64 as ActivationLanes>::$lanes(V(core::array::from_fn(|i| a[i % 8])), $(V::splat($p)),+);
            f64x8::from(core::array::from_fn::<f64, 8, _>(|i| o.0[i]))
        }
        fn $r(x: f64) -> f64 {
            <f64 as Activation>::$scalar(x, $($p),+)
        }
    };
}
activation_at!(elu_f32, elu_f64, elu_ref, elu_lanes, elu, 1.0);
activation_at!(celu_f32, celu_f64, celu_ref, celu_lanes, celu, 1.0);
activation_at!(selu_f32, selu_f64, selu_ref, selu_lanes, selu, SELU_ALPHA, SELU_GAMMA);
activation_at!(swish_f32, swish_f64, swish_ref, swish_lanes, swish, 1.0);

/// The 16-lane instantiations of the f32-lane kernels (`vmath::x16`, what `V<f32>` runs
/// on AVX-512 builds) as f32x8 sweep functions (`--x16`): the 8 inputs in both halves,
/// the first half's results.
macro_rules! x16_as_x8 {
    ($($name:ident => $f:path),*) => {$(
        fn $name(x: f32x8) -> f32x8 {
            let a = x.to_array();
            let o = $f(wide::f32x16::from(core::array::from_fn(|i| a[i % 8]))).to_array();
            f32x8::from(core::array::from_fn::<f32, 8, _>(|i| o[i]))
        }
    )*};
}
x16_as_x8!(exp_x16 => vm::x16::exp_f32x16, tanh_x16 => vm::x16::tanh_f32x16,
    sigmoid_x16 => vm::x16::sigmoid_f32x16, erf_x16 => vm::x16::erf_f32x16,
    gelu_x16 => vm::x16::gelu_f32x16, exp_nonpos_x16_all => vm::x16::exp_nonpos_f32x16);

/// `exp_nonpos` on 16 lanes over its domain, x <= 0 and NaN: a positive x is outside it
/// (softmax's `x - max` is never positive) and the AVX-512 table kernel, which has no
/// upper clamp, gives e^x there, so the walk passes it as +0, where the reference
/// e^min(x, 0) is 1 too. Every x <= 0 and NaN is walked as itself.
fn exp_nonpos_x16(x: f32x8) -> f32x8 {
    exp_nonpos_x16_all(x.simd_gt(f32x8::ZERO).select(f32x8::ZERO, x))
}

fn functions() -> Vec<Func> {
    macro_rules! parity {
        () => {
            None
        };
        (odd) => {
            Some(-1.0)
        };
        (even) => {
            Some(1.0)
        };
    }
    macro_rules! f {
        ($name:literal, $v32:expr, $v64:expr, $r:expr, $wide:expr, $iv:expr
         $(, $par:ident)?) => {
            Func {
                name: $name,
                v32: $v32,
                v64: $v64,
                reference: $r,
                bound: bound($name, false),
                bound64: bound($name, true),
                wide: $wide,
                interval: $iv,
                parity: parity!($($par)?),
            }
        };
    }
    vec![
        f!(
            "exp",
            vm::exp_f32,
            vm::exp_f64,
            f64::exp,
            Some(|x: f32x8| x.exp()),
            (-745.0, 709.8)
        ),
        // Softmax's exp (`x - max`, never positive): e^min(x, 0), so every positive x is
        // exp(0) = 1 in the function and the reference alike; f64 lanes run `exp`.
        f!(
            "exp_nonpos",
            vm::exp_nonpos_f32,
            |x: f64x8| vm::exp_f64(x.fast_min(f64x8::ZERO)),
            |x: f64| f64::exp(if x > 0.0 { 0.0 } else { x }),
            None,
            (-745.0, 0.0)
        ),
        f!(
            "exp2",
            vm::exp2_f32,
            vm::exp2_f64,
            f64::exp2,
            Some(|x: f32x8| x.exp2()),
            (-1075.0, 1024.0)
        ),
        f!(
            "expm1",
            vm::expm1_f32,
            vm::expm1_f64,
            f64::exp_m1,
            Some(|x: f32x8| x.exp_m1()),
            (-40.0, 709.0)
        ),
        f!(
            "log",
            vm::log_f32,
            vm::log_f64,
            f64::ln,
            Some(|x: f32x8| x.ln()),
            (0.0, 4.0)
        ),
        f!(
            "log2",
            vm::log2_f32,
            vm::log2_f64,
            f64::log2,
            Some(|x: f32x8| x.log2()),
            (0.0, 4.0)
        ),
        f!(
            "log1p",
            vm::log1p_f32,
            vm::log1p_f64,
            f64::ln_1p,
            Some(|x: f32x8| x.ln_1p()),
            (-1.0, 4.0)
        ),
        f!(
            "sqrt",
            vm::sqrt_f32,
            vm::sqrt_f64,
            f64::sqrt,
            Some(|x: f32x8| x.sqrt()),
            (0.0, 4.0)
        ),
        f!(
            "rsqrt",
            vm::rsqrt_f32,
            vm::rsqrt_f64,
            rsqrt_ref,
            Some(rsqrt_wide),
            (0.0, 4.0)
        ),
        f!(
            "sin",
            vm::sin_f32,
            vm::sin_f64,
            f64::sin,
            Some(|x: f32x8| x.sin()),
            (-1e6, 1e6),
            odd
        ),
        f!(
            "cos",
            vm::cos_f32,
            vm::cos_f64,
            f64::cos,
            Some(|x: f32x8| x.cos()),
            (-1e6, 1e6),
            even
        ),
        f!(
            "tan",
            vm::tan_f32,
            vm::tan_f64,
            f64::tan,
            Some(|x: f32x8| x.tan()),
            (-1e6, 1e6),
            odd
        ),
        f!(
            "atan",
            vm::atan_f32,
            vm::atan_f64,
            f64::atan,
            Some(|x: f32x8| x.atan()),
            (-4.0, 4.0),
            odd
        ),
        f!(
            "asin",
            vm::asin_f32,
            vm::asin_f64,
            f64::asin,
            Some(|x: f32x8| x.asin()),
            (-1.0, 1.0),
            odd
        ),
        f!(
            "acos",
            vm::acos_f32,
            vm::acos_f64,
            f64::acos,
            Some(|x: f32x8| x.acos()),
            (-1.0, 1.0)
        ),
        f!(
            "sinh",
            vm::sinh_f32,
            vm::sinh_f64,
            f64::sinh,
            Some(|x: f32x8| x.sinh()),
            (-711.0, 711.0),
            odd
        ),
        f!(
            "cosh",
            vm::cosh_f32,
            vm::cosh_f64,
            f64::cosh,
            Some(|x: f32x8| x.cosh()),
            (-711.0, 711.0),
            even
        ),
        f!(
            "tanh",
            vm::tanh_f32,
            vm::tanh_f64,
            f64::tanh,
            Some(|x: f32x8| x.tanh()),
            (-25.0, 25.0),
            odd
        ),
        f!(
            "erf",
            vm::erf_f32,
            vm::erf_f64,
            vm::erf_scalar_f64,
            None,
            (-7.0, 7.0),
            odd
        ),
        f!(
            "sigmoid",
            vm::sigmoid_f32,
            vm::sigmoid_f64,
            <f64 as Float>::sigmoid,
            Some(sigmoid_wide),
            (-750.0, 40.0)
        ),
        f!(
            "softplus",
            vm::softplus_f32,
            vm::softplus_f64,
            <f64 as Float>::softplus,
            None,
            (-750.0, 40.0)
        ),
        f!(
            "silu",
            vm::silu_f32,
            vm::silu_f64,
            <f64 as Float>::silu,
            None,
            (-750.0, 40.0)
        ),
        f!(
            "gelu",
            vm::gelu_f32,
            vm::gelu_f64,
            <f64 as Float>::gelu,
            None,
            (-28.0, 10.0)
        ),
        // The wider op table's float unaries: references in reference.rs (double-double up
        // to one glibc log1p/log call, or fully double-double), bounds as ACCURACY.md.
        f!(
            "asinh",
            vm::asinh_f32,
            vm::asinh_f64,
            <f64 as Float>::asinh,
            None,
            (-1e3, 1e3),
            odd
        ),
        f!(
            "acosh",
            vm::acosh_f32,
            vm::acosh_f64,
            <f64 as Float>::acosh,
            None,
            (1.0, 1e3)
        ),
        f!(
            "atanh",
            vm::atanh_f32,
            vm::atanh_f64,
            <f64 as Float>::atanh,
            None,
            (-1.0, 1.0),
            odd
        ),
        f!(
            "erfc",
            vm::erfc_f32,
            vm::erfc_f64,
            <f64 as Float>::erfc,
            None,
            (-6.0, 27.0)
        ),
        f!(
            "cbrt",
            vm::cbrt_f32,
            vm::cbrt_f64,
            <f64 as Float>::cbrt,
            None,
            (-100.0, 100.0),
            odd
        ),
        f!(
            "mish",
            vm::mish_f32,
            vm::mish_f64,
            <f64 as Float>::mish,
            None,
            (-750.0, 40.0)
        ),
        f!(
            "gelu_tanh",
            vm::gelu_tanh_f32,
            vm::gelu_tanh_f64,
            <f64 as Float>::gelu_tanh,
            None,
            (-25.0, 10.0)
        ),
        // The parameterised activations, at their defaults (`activation_at!`).
        f!("elu", elu_f32, elu_f64, elu_ref, None, (-40.0, 40.0)),
        f!("celu", celu_f32, celu_f64, celu_ref, None, (-40.0, 40.0)),
        f!("selu", selu_f32, selu_f64, selu_ref, None, (-40.0, 40.0)),
        f!(
            "swish",
            swish_f32,
            swish_f64,
            swish_ref,
            None,
            (-750.0, 40.0)
        ),
    ]
}

// ---------------------------------------------------------------------------- ULPs

// ---------------------------------------------------------------------------- stats

#[derive(Clone, Copy)]
struct Stats {
    max: f64,
    at_x: f64,
    at_y: f64,
    got: f64,
    want: f64,
    n: u64,
    cr: u64,
}

impl Stats {
    fn new() -> Self {
        Stats {
            max: 0.0,
            at_x: f64::NAN,
            at_y: f64::NAN,
            got: 0.0,
            want: 0.0,
            n: 0,
            cr: 0,
        }
    }
    #[inline]
    fn add(&mut self, x: f64, y: f64, got: f64, want: f64, err: f64, cr: bool) {
        self.n += 1;
        self.cr += cr as u64;
        if err > self.max || (self.at_x.is_nan() && err == self.max && self.n == 1) {
            self.max = err;
            self.at_x = x;
            self.at_y = y;
            self.got = got;
            self.want = want;
        }
    }
    /// One f32 result `got` against the f64 reference `want`. A correctly rounded result is
    /// within 0.5 ULP, so once the maximum has reached 0.5 it is only counted: the exact
    /// error is computed for the results that can move the maximum.
    #[inline]
    fn add_f32(&mut self, x: f32, y: f32, got: f32, want: f64) {
        let cr = got.to_bits() == (want as f32).to_bits() || (got.is_nan() && want.is_nan());
        if cr && self.max >= 0.5 {
            self.n += 1;
            self.cr += 1;
            return;
        }
        let e = err_f32(got, want);
        self.add(x as f64, y as f64, got as f64, want, e, cr);
    }
    fn merge(mut self, o: Stats) -> Stats {
        if o.max > self.max || self.at_x.is_nan() {
            let (n, cr) = (self.n, self.cr);
            self = o;
            self.n += n;
            self.cr += cr;
        } else {
            self.n += o.n;
            self.cr += o.cr;
        }
        self
    }
}

/// The tests' generator (tensor-core's `testing::Rng`, xorshift64*) from `seed`: the sweeps'
/// random inputs.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = tensor_core::testing::Rng::new(seed);
    move || rng.next_u64()
}

fn threads() -> u64 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u64)
        .unwrap_or(1)
}

/// Runs `work(lo, hi)` over `0..total`, split into 256 blocks per thread that the threads
/// take in turn (thread i: blocks i, i + t, ...). The cost per input varies by orders of
/// magnitude across the bit patterns (huge trig arguments take the exact reduction), so
/// one contiguous range per thread left a thread idle for most of a sweep.
fn parallel(total: u64, work: impl Fn(u64, u64) -> Stats + Sync) -> Stats {
    let t = threads();
    let blocks = 256 * t;
    let per = total.div_ceil(blocks);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..t)
            .map(|i| {
                let work = &work;
                s.spawn(move || {
                    (i..blocks).step_by(t as usize).fold(Stats::new(), |st, b| {
                        st.merge(work((b * per).min(total), ((b + 1) * per).min(total)))
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .fold(Stats::new(), Stats::merge)
    })
}

// ---------------------------------------------------------------------------- f32 sweeps

/// Every `stride`-th f32 bit pattern (all 2^32 with stride 1) through `v`, against `r`.
fn sweep_f32(v: V32, r: fn(f64) -> f64, stride: u64, parity: Option<f64>) -> Stats {
    if let Some(sign) = parity {
        return sweep_f32_symmetric(v, r, stride, sign);
    }
    let chunks = (1u64 << 32).div_ceil(8 * stride);
    parallel(chunks, |lo, hi| {
        let mut st = Stats::new();
        for c in lo..hi {
            let xs: [f32; 8] =
                core::array::from_fn(|i| f32::from_bits(((c * 8 + i as u64) * stride) as u32));
            let out = v(f32x8::from(xs)).to_array();
            for i in 0..8 {
                if (c * 8 + i as u64) * stride >= 1u64 << 32 {
                    break;
                }
                st.add_f32(xs[i], f32::NAN, out[i], r(xs[i] as f64));
            }
        }
        st
    })
}

/// `sweep_f32` for an odd (`sign` -1) or even (`sign` 1) function: every `stride`-th
/// pattern with the sign bit clear, and its negation, against one reference evaluation.
fn sweep_f32_symmetric(v: V32, r: fn(f64) -> f64, stride: u64, sign: f64) -> Stats {
    let chunks = (1u64 << 31).div_ceil(8 * stride);
    parallel(chunks, |lo, hi| {
        let mut st = Stats::new();
        for c in lo..hi {
            let bits: [u64; 8] = core::array::from_fn(|i| (c * 8 + i as u64) * stride);
            let pos: [f32; 8] = bits.map(|b| f32::from_bits(b as u32));
            let neg: [f32; 8] = pos.map(|x| -x);
            let out_pos = v(f32x8::from(pos)).to_array();
            let out_neg = v(f32x8::from(neg)).to_array();
            for i in 0..8 {
                if bits[i] >= 1u64 << 31 {
                    break;
                }
                let want = r(pos[i] as f64);
                for (x, got, want) in [
                    (pos[i], out_pos[i], want),
                    (neg[i], out_neg[i], sign * want),
                ] {
                    st.add_f32(x, f32::NAN, got, want);
                }
            }
        }
        st
    })
}

const POW_EXPONENTS: [f32; 12] = [
    2.0,
    3.0,
    -1.0,
    0.5,
    -0.5,
    1.0 / 3.0,
    1.5,
    -2.5,
    7.0,
    12.3,
    -40.0,
    127.5,
];

fn sweep_pow(stride: u64) -> Vec<(String, Stats)> {
    let mut out = vec![];
    for &y in &POW_EXPONENTS {
        let chunks = (1u64 << 32).div_ceil(8 * stride);
        let st = parallel(chunks, |lo, hi| {
            let mut st = Stats::new();
            for c in lo..hi {
                let xs: [f32; 8] =
                    core::array::from_fn(|i| f32::from_bits(((c * 8 + i as u64) * stride) as u32));
                let o = vm::pow_f32(f32x8::from(xs), f32x8::splat(y)).to_array();
                for i in 0..8 {
                    st.add_f32(xs[i], y, o[i], (xs[i] as f64).powf(y as f64));
                }
            }
            st
        });
        out.push((format!("pow(x, {y})"), st));
    }
    // Random pairs: x any positive finite, y scaled so that x^y spans the whole f32 range;
    // x near 1 with y scaled the same way; negative x with integer y; any bit patterns.
    let pairs = (1u64 << 28) / stride;
    let st = parallel(pairs / 8, |lo, hi| {
        let mut st = Stats::new();
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64 ^ lo);
        for _ in lo..hi {
            let mut xs = [0f32; 8];
            let mut ys = [0f32; 8];
            for i in 0..8 {
                let r = next();
                let x = f32::from_bits((r as u32) & 0x7f7f_ffff);
                let l = (x as f64).log2().abs().max(1e-3);
                let u = (r >> 32) as f64 / 4294967296.0;
                let (x, y) = match r >> 62 {
                    0 => (x, ((u * 300.0 - 150.0) / l) as f32),
                    // x within 2^15 ulps of 1, |y| up to ~1e11: |y·log2 x| still spans
                    // [-150, 150], so log2 x's relative error is multiplied by up to 150
                    1 => {
                        let x = f32::from_bits(0x3f80_0000 + (r as u32 & 0xffff) - 0x8000);
                        let l1 = (x as f64).log2().abs().max(1e-30);
                        (x, ((u * 300.0 - 150.0) / l1) as f32)
                    }
                    2 => (-x, ((u * 300.0 - 150.0) / l).round() as f32),
                    _ => (f32::from_bits(r as u32), f32::from_bits((r >> 32) as u32)),
                };
                xs[i] = x;
                ys[i] = y;
            }
            let o = vm::pow_f32(f32x8::from(xs), f32x8::from(ys)).to_array();
            for i in 0..8 {
                st.add_f32(xs[i], ys[i], o[i], (xs[i] as f64).powf(ys[i] as f64));
            }
        }
        st
    });
    out.push(("pow(x, y) random".into(), st));
    out
}

fn special_inputs() -> Vec<f32> {
    vec![
        f32::NAN,
        f32::NEG_INFINITY,
        -f32::MAX,
        -1e30,
        -100.0,
        -1.0,
        -0.5,
        -f32::MIN_POSITIVE,
        -1e-45,
        -0.0,
        0.0,
        1e-45,
        f32::MIN_POSITIVE,
        0.5,
        1.0,
        2.0,
        100.0,
        1e30,
        f32::MAX,
        f32::INFINITY,
    ]
}

fn special_table(f: &Func, v: V32) -> (String, usize) {
    let mut s = String::new();
    let mut bad = 0;
    let xs = special_inputs();
    for ch in xs.chunks(8) {
        let mut a = [0f32; 8];
        a[..ch.len()].copy_from_slice(ch);
        let o = v(f32x8::from(a)).to_array();
        for i in 0..ch.len() {
            let want = (f.reference)(a[i] as f64) as f32;
            let exact = want.to_bits() == o[i].to_bits() || (want.is_nan() && o[i].is_nan());
            let ok = exact || err_f32(o[i], (f.reference)(a[i] as f64)) <= f.bound;
            if !ok {
                bad += 1;
            }
            s.push_str(&format!(
                "    {:>13e} -> {:>14e}  (ref {:>14e}) {}\n",
                a[i],
                o[i],
                want,
                if exact {
                    "exact"
                } else if ok {
                    "within bound"
                } else {
                    "WRONG"
                }
            ));
        }
    }
    (s, bad)
}

fn report_line(name: &str, st: &Stats, bound: f64, secs: f64) -> bool {
    let ok = st.max <= bound;
    let at = if st.at_y.is_nan() {
        format!("x = {:e}", st.at_x)
    } else {
        format!("x = {:e}, y = {:e}", st.at_x, st.at_y)
    };
    println!(
        "| {:<18} | {:>7.3} | {:>5} | {:<40} | {:>9.6} | {:>10} | {:>5.1}s | {}",
        name,
        st.max,
        bound,
        at,
        st.cr as f64 / st.n.max(1) as f64,
        st.n,
        secs,
        if ok { "ok" } else { "OVER" }
    );
    if st.max > 0.0 && !ok {
        println!("|   got {:e}, reference {:e}", st.got, st.want);
    }
    ok
}

// ---------------------------------------------------------------------------- f64 sweep

fn sweep_f64(f: &Func, n: u64) -> Stats {
    let (lo_i, hi_i) = f.interval;
    let positive = lo_i >= 0.0;
    parallel(n / 8, |lo, hi| {
        let mut st = Stats::new();
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64 ^ (lo.wrapping_mul(0x9e37_79b9)));
        for k in lo..hi {
            let xs: [f64; 8] = core::array::from_fn(|i| {
                let r = next();
                let u = (r >> 11) as f64 / (1u64 << 53) as f64;
                match (k as usize * 8 + i) % 3 {
                    0 => lo_i + (hi_i - lo_i) * u,
                    1 => {
                        let e = (next() % 80) as i32 - 60;
                        let m = 1.0 + u;
                        let v = m * 2f64.powi(e) * hi_i.abs().max(1.0).log2().max(1.0);
                        if !positive && r & 1 == 1 {
                            -v
                        } else {
                            v
                        }
                    }
                    _ => {
                        let v = f64::from_bits(r & 0x7fef_ffff_ffff_ffff);
                        if !positive && r >> 63 == 1 {
                            -v
                        } else {
                            v
                        }
                    }
                }
            });
            let o = (f.v64)(f64x8::from(xs)).to_array();
            for i in 0..8 {
                let want = (f.reference)(xs[i]);
                let e = err_f64(o[i], want);
                st.add(
                    xs[i],
                    f64::NAN,
                    o[i],
                    want,
                    e,
                    o[i] == want || (o[i].is_nan() && want.is_nan()),
                );
            }
        }
        st
    })
}

fn sweep_pow_f64(n: u64) -> Stats {
    parallel(n / 8, |lo, hi| {
        let mut st = Stats::new();
        let mut next = xorshift(0x5851_f42d_4c95_7f2du64 ^ (lo.wrapping_mul(0x9e37_79b9)));
        for k in lo..hi {
            let mut xs = [0f64; 8];
            let mut ys = [0f64; 8];
            for i in 0..8 {
                let r = next();
                let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
                let x = f64::from_bits(r & 0x7fef_ffff_ffff_ffff);
                let l = x.log2().abs().max(1e-6);
                let (x, y) = match (k as usize * 8 + i) % 4 {
                    0 => (x, (u * 2200.0 - 1100.0) / l),
                    1 => (-x, ((u * 2000.0 - 1000.0) / l).round()),
                    2 => (1.0 + (u - 0.5) * 2e-6, (u * 2e8 - 1e8)),
                    _ => (f64::from_bits(r), f64::from_bits(next())),
                };
                xs[i] = x;
                ys[i] = y;
            }
            let o = vm::pow_f64(f64x8::from(xs), f64x8::from(ys)).to_array();
            for i in 0..8 {
                let want = xs[i].powf(ys[i]);
                let e = err_f64(o[i], want);
                st.add(
                    xs[i],
                    ys[i],
                    o[i],
                    want,
                    e,
                    o[i] == want || (o[i].is_nan() && want.is_nan()),
                );
            }
        }
        st
    })
}

// ---------------------------------------------------------------------------- main

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let stride: u64 = args
        .iter()
        .position(|a| a == "--stride")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse().expect("--stride N"))
        .unwrap_or(1);
    let names: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--stride"))
        .map(|(_, a)| a.as_str())
        .collect();
    let mut funcs = functions();
    if flag("--x16") {
        for f in &mut funcs {
            f.v32 = match f.name {
                "exp" => exp_x16,
                "tanh" => tanh_x16,
                "sigmoid" => sigmoid_x16,
                "erf" => erf_x16,
                "gelu" => gelu_x16,
                "exp_nonpos" => exp_nonpos_x16,
                _ => continue,
            };
        }
    }
    let all_names: Vec<&str> = funcs.iter().map(|f| f.name).chain(["pow"]).collect();
    if names.is_empty() {
        eprintln!(
            "usage: ulp_sweep <fn>... | all [--f64] [--wide] [--x16] [--stride N]\nfunctions: {}",
            all_names.join(" ")
        );
        std::process::exit(2);
    }
    let wanted = |n: &str| names.contains(&"all") || names.contains(&n);
    for n in &names {
        if *n != "all" && !all_names.contains(n) {
            eprintln!("unknown function `{n}`; functions: {}", all_names.join(" "));
            std::process::exit(2);
        }
    }
    let native = cfg!(target_feature = "avx2");
    println!(
        "build: {} (avx2: {}, fma: {}, avx512f: {}), {} threads; f32 exp/tanh/sigmoid/erf/gelu kernels: {} (TENSORGRAPH_SIMD=baseline forces the baseline ones)",
        if native {
            "target-cpu with AVX2+"
        } else {
            "default x86-64"
        },
        cfg!(target_feature = "avx2"),
        cfg!(target_feature = "fma"),
        cfg!(target_feature = "avx512f"),
        threads(),
        vm::f32_kernel_isa()
    );
    let mut all_ok = true;
    if flag("--f64") {
        let n = 1u64 << 24;
        println!("f64 lanes, {n} random inputs per function, error in f64 ULPs");
        println!("| function           | max ulp | bound | where                                    | frac CR   | n          | time   |");
        for f in funcs.iter().filter(|f| wanted(f.name)) {
            let t = Instant::now();
            let st = sweep_f64(f, n);
            all_ok &= report_line(f.name, &st, f.bound64, t.elapsed().as_secs_f64());
        }
        if wanted("pow") {
            let t = Instant::now();
            let st = sweep_pow_f64(n);
            all_ok &= report_line("pow", &st, bound("pow", true), t.elapsed().as_secs_f64());
        }
    } else {
        let which = if flag("--wide") {
            "wide's own f32x8 functions"
        } else {
            "tensorgraph f32x8"
        };
        println!(
            "{which}, every {}f32 bit pattern, error in f32 ULPs vs the f64 reference",
            if stride == 1 {
                String::new()
            } else {
                format!("{stride}th ")
            }
        );
        println!("| function           | max ulp | bound | where                                    | frac CR   | n          | time   |");
        let mut specials = String::new();
        for f in funcs.iter().filter(|f| wanted(f.name)) {
            let v = if flag("--wide") {
                match f.wide {
                    Some(w) => w,
                    None => continue,
                }
            } else {
                f.v32
            };
            let t = Instant::now();
            let st = sweep_f32(v, f.reference, stride, f.parity);
            all_ok &= report_line(f.name, &st, f.bound, t.elapsed().as_secs_f64());
            let (table, bad) = special_table(f, v);
            all_ok &= bad == 0 || flag("--wide");
            specials.push_str(&format!(
                "{}:{}\n{table}",
                f.name,
                if bad == 0 { "" } else { " (WRONG values)" }
            ));
        }
        if wanted("pow") && !flag("--wide") {
            let t = Instant::now();
            let results = sweep_pow(stride);
            let secs = t.elapsed().as_secs_f64() / results.len() as f64;
            for (name, st) in results {
                all_ok &= report_line(&name, &st, bound("pow", false), secs);
            }
        }
        if flag("--specials") || !specials.is_empty() && !names.contains(&"all") {
            println!("\nspecial values (x -> result, reference rounded to f32):\n{specials}");
        } else if !specials.is_empty() {
            println!("\n(special-value tables: add --specials)");
        }
    }
    if !all_ok && !flag("--wide") {
        println!("\nSOME FUNCTION EXCEEDS ITS BOUND");
        std::process::exit(1);
    }
}
