//! The language's float functions, in one table (issue 34, item 1; SLEEF's `funcproto.h`):
//! `for_each_float_function!` (crate-internal) has a row per function, and the lists that
//! used to be written out once per place are generated from it:
//! - the precision table [`FLOAT_FUNCTIONS`] (the bound each function's kernels are held
//!   to, in ULP of the result, for `f32` lanes (`f16` and `bf16` compute in them and round
//!   once: within 1 ULP of their own) and `f64` lanes; `0` for a function whose kernels give
//!   the scalar reference's value bit for bit) and [`ulp_bound`], which the tests read
//!   (tests/elementwise.rs, tests/transcendentals.rs, vmath's `check_fn`, the random-graph
//!   interpreter);
//! - for the `unary` rows: the `reference::Float` trait's method declarations, the `f32`
//!   reference of the ones computed through `f64` (`via_f64`), the scalar defaults of
//!   `lanes::FloatLanes`, the vector `FloatLanes` methods of the f32 and f64 lanes on 8 and
//!   16 lanes, the re-exports of their `vmath` kernels, and `reference::float_unary` (the
//!   reference by name, for the random-graph interpreter).
//!
//! What is not generated is checked: tensor-macros' registry_check.rs tests that the op
//! registry (ops.rs: rows, lane traits and methods), the graph macro's block functions, this
//! table, ACCURACY.md, docs/language.md, the random-graph generator and the ULP sweep agree.
//! Adding a float function is one row here, its kernels (a `vmath` family file), its f64
//! reference body (`impl Float for f64`), one line of docs/language.md and the ops.rs row.
//!
//! A row: `name: LaneTrait::lane_method, bound, kind;` where `bound` is `[f32, f64]` in ULP
//! or `exact`, and `kind` is
//! - `unary(f32 reference, family::{f32x8 kernel, f64x8 kernel}, 16 f32 lanes)`: a
//!   `reference::Float` function with `vmath` kernels. The `f32` reference is `via_f64` (the
//!   f64 one rounded once) or `own` (written in `impl Float for f32`); the 16-lane form is
//!   `halves` (the f32x8 kernel on each half), `kernel NAME` (`vmath::x16::NAME`, one of the
//!   dispatched f32-lane kernels of `f32_kernels.rs`) or `hand` (every lane method written
//!   in lanes.rs `float_lanes!`: sqrt, rsqrt);
//! - `hand()`: a function whose reference and lanes are written by hand (`pow`, the
//!   activations with parameters): the table holds its bound and lane method.

/// Calls `$callback! { ($($context)*) rows… }` with every row of the function table (see
/// the module doc for a row's form); `context` is passed through to the callback as it is.
macro_rules! for_each_float_function {
    ($callback:ident $(, $($context:tt)*)?) => {
        $callback! {
            ($($($context)*)?)
            /// Square root.
            sqrt: FloatLanes::sqrt_lanes, exact, unary(own, sqrt::{sqrt_f32, sqrt_f64}, hand);
            /// `1 / sqrt(a)`.
            rsqrt: FloatLanes::rsqrt_lanes, [1.0, 1.0],
                unary(via_f64, sqrt::{rsqrt_f32, rsqrt_f64}, hand);
            /// `e^a`.
            exp: FloatLanes::exp_lanes, [1.0, 1.0],
                unary(via_f64, exp_log::{exp_f32, exp_f64}, kernel exp_f32x16);
            /// Natural logarithm.
            log: FloatLanes::log_lanes, [1.0, 1.0],
                unary(via_f64, exp_log::{log_f32, log_f64}, halves);
            /// `log(1 + a)`, accurate near 0.
            log1p: FloatLanes::log1p_lanes, [1.0, 1.0],
                unary(via_f64, exp_log::{log1p_f32, log1p_f64}, halves);
            /// Sine (radians).
            sin: FloatLanes::sin_lanes, [2.0, 2.0],
                unary(via_f64, trig::{sin_f32, sin_f64}, halves);
            /// Cosine (radians).
            cos: FloatLanes::cos_lanes, [2.0, 2.0],
                unary(via_f64, trig::{cos_f32, cos_f64}, halves);
            /// Hyperbolic tangent.
            tanh: FloatLanes::tanh_lanes, [2.0, 2.0],
                unary(via_f64, hyperbolic::{tanh_f32, tanh_f64}, kernel tanh_f32x16);
            /// The error function.
            erf: FloatLanes::erf_lanes, [2.0, 2.0],
                unary(via_f64, erf_gelu::{erf_f32, erf_f64}, kernel erf_f32x16);
            /// `1 / (1 + e^-a)`.
            sigmoid: FloatLanes::sigmoid_lanes, [2.0, 2.0],
                unary(via_f64, sigmoid::{sigmoid_f32, sigmoid_f64}, kernel sigmoid_f32x16);
            /// Exact GELU: `x/2 · (1 + erf(x/√2))`, computed as `x/2 · erfc(-x/√2)`.
            gelu: FloatLanes::gelu_lanes, [2.0, 2.0],
                unary(via_f64, erf_gelu::{gelu_f32, gelu_f64}, kernel gelu_f32x16);
            /// `x · sigmoid(x)`.
            silu: FloatLanes::silu_lanes, [2.0, 2.0],
                unary(via_f64, sigmoid::{silu_f32, silu_f64}, halves);
            /// `2^a`.
            exp2: FloatLanes::exp2_lanes, [1.0, 1.0],
                unary(via_f64, exp_log::{exp2_f32, exp2_f64}, halves);
            /// Base-2 logarithm.
            log2: FloatLanes::log2_lanes, [1.0, 1.0],
                unary(via_f64, exp_log::{log2_f32, log2_f64}, halves);
            /// `e^x - 1`.
            expm1: FloatLanes::expm1_lanes, [1.0, 1.0],
                unary(via_f64, exp_log::{expm1_f32, expm1_f64}, halves);
            /// Tangent (radians).
            tan: FloatLanes::tan_lanes, [2.0, 2.0],
                unary(via_f64, trig::{tan_f32, tan_f64}, halves);
            /// Arctangent (radians).
            atan: FloatLanes::atan_lanes, [2.0, 2.0],
                unary(via_f64, trig::{atan_f32, atan_f64}, halves);
            /// Arcsine (radians; NaN outside [-1, 1]).
            asin: FloatLanes::asin_lanes, [2.0, 2.0],
                unary(via_f64, trig::{asin_f32, asin_f64}, halves);
            /// Arccosine (radians; NaN outside [-1, 1]).
            acos: FloatLanes::acos_lanes, [2.0, 2.0],
                unary(via_f64, trig::{acos_f32, acos_f64}, halves);
            /// Hyperbolic sine.
            sinh: FloatLanes::sinh_lanes, [2.0, 2.0],
                unary(via_f64, hyperbolic::{sinh_f32, sinh_f64}, halves);
            /// Hyperbolic cosine.
            cosh: FloatLanes::cosh_lanes, [2.0, 2.0],
                unary(via_f64, hyperbolic::{cosh_f32, cosh_f64}, halves);
            /// `log(1 + e^x)`, computed as `max(x, 0) + log1p(e^-|x|)` (no overflow).
            softplus: FloatLanes::softplus_lanes, [2.0, 2.0],
                unary(via_f64, sigmoid::{softplus_f32, softplus_f64}, halves);
            /// Inverse hyperbolic sine; `asinh(±0) = ±0`, `asinh(±inf) = ±inf`.
            asinh: FloatLanes::asinh_lanes, [1.0, 2.0],
                unary(via_f64, inverse_hyperbolic::{asinh_f32, asinh_f64}, halves);
            /// Inverse hyperbolic cosine; NaN below 1, `acosh(1) = +0`, `acosh(inf) = inf`.
            acosh: FloatLanes::acosh_lanes, [1.0, 2.0],
                unary(via_f64, inverse_hyperbolic::{acosh_f32, acosh_f64}, halves);
            /// Inverse hyperbolic tangent; `atanh(±1) = ±inf`, NaN for `|x| > 1`.
            atanh: FloatLanes::atanh_lanes, [1.0, 2.0],
                unary(via_f64, inverse_hyperbolic::{atanh_f32, atanh_f64}, halves);
            /// `1 - erf(x)` without cancellation; `erfc(inf) = 0`, `erfc(-inf) = 2`.
            erfc: FloatLanes::erfc_lanes, [1.0, 2.0],
                unary(via_f64, erfc_cbrt::{erfc_f32, erfc_f64}, halves);
            /// Real cube root; `cbrt(-8) = -2`, `cbrt(±0) = ±0`.
            cbrt: FloatLanes::cbrt_lanes, [1.0, 1.0],
                unary(via_f64, erfc_cbrt::{cbrt_f32, cbrt_f64}, halves);
            /// `x · tanh(softplus(x))` (ONNX `Mish`); `mish(-inf) = -0` (the limit).
            mish: FloatLanes::mish_lanes, [2.0, 2.0],
                unary(via_f64, mish_gelu_tanh::{mish_f32, mish_f64}, halves);
            /// `0.5x(1 + tanh(√(2/π)(x + 0.044715x³)))` (tanh-approximated GELU), computed as
            /// `x · sigmoid(2√(2/π)(x + 0.044715x³))`; `gelu_tanh(-inf) = -0` (the limit).
            gelu_tanh: FloatLanes::gelu_tanh_lanes, [2.0, 2.0],
                unary(via_f64, mish_gelu_tanh::{gelu_tanh_f32, gelu_tanh_f64}, halves);
            /// `a` to the power `b` (`reference::Num::pow`).
            pow: NumLanes::pow_lanes, [2.0, 2.0], hand();
            // The wider operator table's float rows (`reference::Activation`).
            reciprocal: ActivationLanes::reciprocal_lanes, exact, hand();
            softsign: ActivationLanes::softsign_lanes, exact, hand();
            hard_swish: ActivationLanes::hard_swish_lanes, exact, hand();
            leaky_relu: ActivationLanes::leaky_relu_lanes, exact, hand();
            thresholded_relu: ActivationLanes::thresholded_relu_lanes, exact, hand();
            hard_sigmoid: ActivationLanes::hard_sigmoid_lanes, exact, hand();
            shrink: ActivationLanes::shrink_lanes, exact, hand();
            elu: ActivationLanes::elu_lanes, [2.0, 2.0], hand();
            celu: ActivationLanes::celu_lanes, [2.0, 2.0], hand();
            selu: ActivationLanes::selu_lanes, [2.0, 2.0], hand();
            swish: ActivationLanes::swish_lanes, [2.0, 2.0], hand();
        }
    };
}
pub(crate) use for_each_float_function;

/// A float function of the table, with the bound its kernels are held to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatFunction {
    /// The name in the language (the op registry's row).
    pub name: &'static str,
    /// The bound in ULP of an `f32` result (0: bit-identical to the scalar reference).
    pub ulp_f32: f64,
    /// The bound in ULP of an `f64` result (0: bit-identical to the scalar reference).
    pub ulp_f64: f64,
    /// The lane trait (`lanes::FloatLanes`, `NumLanes`, `ActivationLanes`) and its method
    /// that the graph macro calls (ops.rs states the same).
    pub lane_trait: &'static str,
    /// See `lane_trait`.
    pub lane_fn: &'static str,
    /// The name of the f32-lane kernel's block entry point (`vmath::block::NAME`), for the
    /// functions with a dispatched f32-lane kernel (`unary(…, kernel …)` rows).
    pub block_entry: Option<&'static str>,
}

impl FloatFunction {
    /// Whether the kernels give the scalar reference's value bit for bit on every build
    /// (correctly rounded, or the same sequence of roundings as the reference states).
    pub fn is_exact(&self) -> bool {
        self.ulp_f32 == 0.0 && self.ulp_f64 == 0.0
    }
}

/// The table's rows as [`FloatFunction`]s.
macro_rules! precision_rows {
    (() $($(#[$doc:meta])* $name:ident: $lane_trait:ident::$lane:ident, $bound:tt,
       $kind:ident $args:tt;)*) => {
        &[$(FloatFunction {
            name: stringify!($name),
            ulp_f32: precision_rows!(@bound $bound).0,
            ulp_f64: precision_rows!(@bound $bound).1,
            lane_trait: stringify!($lane_trait),
            lane_fn: stringify!($lane),
            block_entry: precision_rows!(@block $kind $args),
        }),*]
    };
    (@bound exact) => { (0.0, 0.0) };
    (@bound [$f32:literal, $f64:literal]) => { ($f32, $f64) };
    (@block unary ($r:ident, $family:ident::{$k32:ident, $k64:ident}, kernel $k16:ident)) => {
        Some(stringify!($k32))
    };
    (@block $kind:ident $args:tt) => { None };
}

/// Every float function of the language (the op registry's float-only rows and `pow`),
/// with its bound (ACCURACY.md, "Bounds"; 0 for the exact ones).
pub const FLOAT_FUNCTIONS: &[FloatFunction] = for_each_float_function!(precision_rows);

/// The bound of `name` in ULP of its result (`f64` lanes or `f32` lanes), `Some(0.0)` for an
/// exact float function, `None` for a name that is neither.
pub fn ulp_bound(name: &str, f64_lanes: bool) -> Option<f64> {
    FLOAT_FUNCTIONS.iter().find(|f| f.name == name).map(|f| {
        if f64_lanes {
            f.ulp_f64
        } else {
            f.ulp_f32
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_function() {
        let mut names: Vec<&str> = FLOAT_FUNCTIONS.iter().map(|f| f.name).collect();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "a function listed twice");
        assert_eq!(ulp_bound("cbrt", false), Some(1.0));
        assert_eq!(ulp_bound("erfc", true), Some(2.0));
        assert_eq!(ulp_bound("erfc", false), Some(1.0));
        assert_eq!(ulp_bound("sqrt", true), Some(0.0));
        assert_eq!(ulp_bound("shrink", false), Some(0.0));
        assert_eq!(ulp_bound("add", false), None);
        let exp = FLOAT_FUNCTIONS.iter().find(|f| f.name == "exp").unwrap();
        assert_eq!((exp.lane_trait, exp.lane_fn), ("FloatLanes", "exp_lanes"));
        assert_eq!(exp.block_entry, Some("exp_f32"));
        let log = FLOAT_FUNCTIONS.iter().find(|f| f.name == "log").unwrap();
        assert_eq!(log.block_entry, None);
    }

    /// Each row's lane method is its name and `_lanes` (the registry's convention).
    #[test]
    fn lane_methods_follow_the_names() {
        for f in FLOAT_FUNCTIONS {
            assert_eq!(f.lane_fn, format!("{}_lanes", f.name), "{}", f.name);
        }
    }
}
