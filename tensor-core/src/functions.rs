//! The precision of the language's float functions, in one table: each function that is not
//! exact, with the bound its kernels are held to, in ULP of the result, for `f32` lanes
//! (`f16` and `bf16` compute in them and round once: within 1 ULP of their own) and `f64`
//! lanes. ACCURACY.md's "Bounds" table states the same numbers with how each kernel meets
//! them; the tests read their bounds here (tests/elementwise.rs, tests/transcendentals.rs, the
//! random-graph interpreter), and tensor-macros checks that this table, the op registry,
//! ACCURACY.md, docs/language.md and the random-graph generator agree (every float function
//! of the registry is a row here or in [`EXACT_FLOAT_FUNCTIONS`]).

/// A float function with a stated error bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatFunction {
    /// The name in the language (the op registry's row).
    pub name: &'static str,
    /// The bound in ULP of an `f32` result.
    pub ulp_f32: f64,
    /// The bound in ULP of an `f64` result.
    pub ulp_f64: f64,
}

const fn row(name: &'static str, ulp_f32: f64, ulp_f64: f64) -> FloatFunction {
    FloatFunction {
        name,
        ulp_f32,
        ulp_f64,
    }
}

/// Every float function whose kernels are not bit-identical to the scalar reference, with
/// its bound (ACCURACY.md, "Bounds").
pub const FLOAT_FUNCTIONS: &[FloatFunction] = &[
    row("exp", 1.0, 1.0),
    row("exp2", 1.0, 1.0),
    row("expm1", 1.0, 1.0),
    row("log", 1.0, 1.0),
    row("log2", 1.0, 1.0),
    row("log1p", 1.0, 1.0),
    row("rsqrt", 1.0, 1.0),
    row("sin", 2.0, 2.0),
    row("cos", 2.0, 2.0),
    row("tan", 2.0, 2.0),
    row("atan", 2.0, 2.0),
    row("asin", 2.0, 2.0),
    row("acos", 2.0, 2.0),
    row("sinh", 2.0, 2.0),
    row("cosh", 2.0, 2.0),
    row("tanh", 2.0, 2.0),
    row("erf", 2.0, 2.0),
    row("sigmoid", 2.0, 2.0),
    row("silu", 2.0, 2.0),
    row("softplus", 2.0, 2.0),
    row("gelu", 2.0, 2.0),
    row("pow", 2.0, 2.0),
    row("asinh", 1.0, 2.0),
    row("acosh", 1.0, 2.0),
    row("atanh", 1.0, 2.0),
    row("erfc", 1.0, 2.0),
    row("cbrt", 1.0, 1.0),
    row("mish", 2.0, 2.0),
    row("gelu_tanh", 2.0, 2.0),
    row("elu", 2.0, 2.0),
    row("celu", 2.0, 2.0),
    row("selu", 2.0, 2.0),
    row("swish", 2.0, 2.0),
];

/// The float functions whose kernels give the scalar reference's value bit for bit on every
/// build (correctly rounded, or the same sequence of roundings as the reference states):
/// the other float rows of the op registry.
pub const EXACT_FLOAT_FUNCTIONS: &[&str] = &[
    "sqrt",
    "reciprocal",
    "softsign",
    "hard_swish",
    "leaky_relu",
    "thresholded_relu",
    "hard_sigmoid",
    "shrink",
];

/// The bound of `name` in ULP of its result (`f64` lanes or `f32` lanes), `Some(0.0)` for an
/// exact float function, `None` for a name that is neither.
pub fn ulp_bound(name: &str, f64_lanes: bool) -> Option<f64> {
    if EXACT_FLOAT_FUNCTIONS.contains(&name) {
        return Some(0.0);
    }
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
        names.extend(EXACT_FLOAT_FUNCTIONS);
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "a function listed twice");
        assert_eq!(ulp_bound("cbrt", false), Some(1.0));
        assert_eq!(ulp_bound("erfc", true), Some(2.0));
        assert_eq!(ulp_bound("sqrt", true), Some(0.0));
        assert_eq!(ulp_bound("add", false), None);
    }
}
