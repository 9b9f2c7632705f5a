//! The derivatives of the elementwise functions of one tensor argument: `g · f'(x)`, with
//! `f'` written from the result `v` where that is cheaper (`exp`, `tanh`, `sigmoid`), in the
//! language's own functions. Conventions at kinks are JAX's (the module doc of `derive`).

use crate::ast::{BinOp, Expr, NamedArg};
use crate::dtype::DType;

use super::build::*;

/// What an elementwise function passes back to its argument.
pub(super) enum Elementwise {
    /// This contribution, of the result's type.
    Contribution(Expr),
    /// Nothing: a rounding, `sign`, or `stop_gradient`.
    Zero,
}

/// The derivative of `name(x)` (result `vv`, cotangent `g`, named arguments `named`,
/// result dtype `dtype`), or `None` when `name` is not an elementwise function of one
/// tensor argument. The functions come in three groups, a function each: the
/// mathematical functions (`math`), the activations without parameters (`activation`),
/// and those with named parameters (`parameterised`).
pub(super) fn elementwise(
    name: &str,
    x: Expr,
    vv: Expr,
    g: &Expr,
    named: &[NamedArg],
    dtype: DType,
) -> Option<Elementwise> {
    if matches!(
        name,
        "stop_gradient" | "floor" | "ceil" | "round" | "roundeven" | "trunc" | "sign"
    ) {
        return Some(Elementwise::Zero);
    }
    let d = math(name, x.clone(), vv.clone(), g)
        .or_else(|| activation(name, x.clone(), vv.clone(), g))
        .or_else(|| parameterised(name, x, vv, g, named, dtype))?;
    Some(Elementwise::Contribution(d))
}

/// Exponentials, logarithms, roots, powers and the trigonometric and hyperbolic
/// functions.
fn math(name: &str, x: Expr, vv: Expr, g: &Expr) -> Option<Expr> {
    let unary = |d: Expr| mul(g.clone(), d);
    let ln2 = std::f64::consts::LN_2;
    let g = g.clone();
    Some(match name {
        "exp" => unary(vv),
        "exp2" => unary(mul(vv, lit_f(ln2))),
        "expm1" => unary(add(vv, lit_f(1.0))),
        "log" => div(g.clone(), x.clone()),
        "log2" => div(g.clone(), mul(x.clone(), lit_f(ln2))),
        "log1p" => div(g.clone(), add(x.clone(), lit_f(1.0))),
        "sqrt" => div(mul(g.clone(), lit_f(0.5)), vv),
        "rsqrt" => mul(mul(g.clone(), lit_f(-0.5)), div(vv, x.clone())),
        "cbrt" => div(g.clone(), mul(lit_f(3.0), mul(vv.clone(), vv))),
        "reciprocal" => neg(mul(g.clone(), mul(vv.clone(), vv))),
        "square" => unary(mul(lit_f(2.0), x.clone())),
        "sin" => unary(call("cos", vec![x.clone()])),
        "cos" => neg(unary(call("sin", vec![x.clone()]))),
        "tan" => unary(add(lit_f(1.0), mul(vv.clone(), vv))),
        "sinh" => unary(call("cosh", vec![x.clone()])),
        "cosh" => unary(call("sinh", vec![x.clone()])),
        "tanh" => unary(sub(lit_f(1.0), mul(vv.clone(), vv))),
        "atan" => div(g.clone(), add(lit_f(1.0), mul(x.clone(), x.clone()))),
        "asin" => unary(call(
            "rsqrt",
            vec![sub(lit_f(1.0), mul(x.clone(), x.clone()))],
        )),
        "acos" => neg(unary(call(
            "rsqrt",
            vec![sub(lit_f(1.0), mul(x.clone(), x.clone()))],
        ))),
        "asinh" => unary(call(
            "rsqrt",
            vec![add(mul(x.clone(), x.clone()), lit_f(1.0))],
        )),
        "acosh" => unary(call(
            "rsqrt",
            vec![sub(mul(x.clone(), x.clone()), lit_f(1.0))],
        )),
        "atanh" => div(g.clone(), sub(lit_f(1.0), mul(x.clone(), x.clone()))),
        _ => return None,
    })
}

/// `sigmoid`, `erf`/`erfc` and the activations without parameters (relu'(0) = 0,
/// abs'(0) = 1).
fn activation(name: &str, x: Expr, vv: Expr, g: &Expr) -> Option<Expr> {
    let unary = |d: Expr| mul(g.clone(), d);
    let g = g.clone();
    Some(match name {
        "sigmoid" => unary(mul(vv.clone(), sub(lit_f(1.0), vv))),
        "erf" => unary(mul(
            lit_f(std::f64::consts::FRAC_2_SQRT_PI),
            call("exp", vec![neg(mul(x.clone(), x.clone()))]),
        )),
        "erfc" => neg(unary(mul(
            lit_f(std::f64::consts::FRAC_2_SQRT_PI),
            call("exp", vec![neg(mul(x.clone(), x.clone()))]),
        ))),
        "softplus" => unary(call("sigmoid", vec![x.clone()])),
        "silu" => {
            let s = call("sigmoid", vec![x.clone()]);
            unary(mul(
                s.clone(),
                add(lit_f(1.0), mul(x.clone(), sub(lit_f(1.0), s))),
            ))
        }
        "gelu" => {
            // Φ(x) + x·φ(x)
            let cdf = mul(
                lit_f(0.5),
                add(
                    lit_f(1.0),
                    call(
                        "erf",
                        vec![mul(x.clone(), lit_f(std::f64::consts::FRAC_1_SQRT_2))],
                    ),
                ),
            );
            let pdf = mul(
                lit_f(0.398_942_280_401_432_7),
                call("exp", vec![mul(lit_f(-0.5), mul(x.clone(), x.clone()))]),
            );
            unary(add(cdf, mul(x.clone(), pdf)))
        }
        "relu" => call(
            "where",
            vec![
                binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                g.clone(),
                lit_f(0.0),
            ],
        ),
        "abs" => call(
            "where",
            vec![
                binary(BinOp::Ge, x.clone(), lit_f(0.0)),
                g.clone(),
                neg(g.clone()),
            ],
        ),
        "neg" => neg(g.clone()),
        "mish" => {
            let t = call("tanh", vec![call("softplus", vec![x.clone()])]);
            let d = add(
                t.clone(),
                mul(
                    mul(x.clone(), sub(lit_f(1.0), mul(t.clone(), t))),
                    call("sigmoid", vec![x.clone()]),
                ),
            );
            unary(d)
        }
        "gelu_tanh" => {
            // 0.5·(1 + t) + 0.5·x·(1 - t²)·k·(1 + 3·0.044715·x²), t = tanh(k·(x + 0.044715·x³))
            let k = (2.0 / std::f64::consts::PI).sqrt();
            let x3 = mul(x.clone(), mul(x.clone(), x.clone()));
            let t = call(
                "tanh",
                vec![mul(lit_f(k), add(x.clone(), mul(lit_f(0.044715), x3)))],
            );
            let dt = mul(
                mul(lit_f(k), sub(lit_f(1.0), mul(t.clone(), t.clone()))),
                add(
                    lit_f(1.0),
                    mul(lit_f(3.0 * 0.044715), mul(x.clone(), x.clone())),
                ),
            );
            unary(add(
                mul(lit_f(0.5), add(lit_f(1.0), t)),
                mul(mul(lit_f(0.5), x.clone()), dt),
            ))
        }
        "softsign" => {
            let d = add(lit_f(1.0), call("abs", vec![x.clone()]));
            div(g.clone(), mul(d.clone(), d))
        }
        _ => return None,
    })
}

/// The activations with named parameters (their registry defaults when not written) and
/// `clip`, whose bounds share ties as `max`/`min`.
fn parameterised(
    name: &str,
    x: Expr,
    vv: Expr,
    g: &Expr,
    named: &[NamedArg],
    dtype: DType,
) -> Option<Expr> {
    let unary = |d: Expr| mul(g.clone(), d);
    let g = g.clone();
    Some(match name {
        "hard_sigmoid" => {
            // alpha inside (0, 1), 0 on the flat parts and at their edges (as relu6).
            let alpha = param_value(name, named, "alpha");
            let beta = param_value(name, named, "beta");
            let u = add(mul(alpha.clone(), x.clone()), beta);
            let inside = binary(
                BinOp::And,
                binary(BinOp::Gt, u.clone(), lit_f(0.0)),
                binary(BinOp::Lt, u, lit_f(1.0)),
            );
            call(
                "where",
                vec![inside, mul(g.clone(), alpha), cast(lit_f(0.0), dtype)],
            )
        }
        "hard_swish" => {
            // x·hs(x), hs = hard_sigmoid(alpha = 1/6, beta = 1/2): hs(x) + x/6 on (-3, 3).
            let inside = binary(
                BinOp::And,
                binary(BinOp::Gt, x.clone(), lit_f(-3.0)),
                binary(BinOp::Lt, x.clone(), lit_f(3.0)),
            );
            let hs = call("hard_sigmoid", vec![x.clone()]);
            let hs = with_named(hs, vec![("alpha", lit_f(1.0 / 6.0)), ("beta", lit_f(0.5))]);
            let slope = call(
                "where",
                vec![inside, div(x.clone(), lit_f(6.0)), cast(lit_f(0.0), dtype)],
            );
            unary(add(hs, slope))
        }
        "selu" => {
            let alpha = param_value(name, named, "alpha");
            let gamma = param_value(name, named, "gamma");
            call(
                "where",
                vec![
                    binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                    mul(g.clone(), gamma.clone()),
                    mul(g.clone(), add(vv, mul(gamma, alpha))),
                ],
            )
        }
        "celu" => {
            let alpha = param_value(name, named, "alpha");
            call(
                "where",
                vec![
                    binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                    g.clone(),
                    mul(g.clone(), call("exp", vec![div(x.clone(), alpha)])),
                ],
            )
        }
        "swish" => {
            let alpha = param_value(name, named, "alpha");
            let s = call("sigmoid", vec![mul(alpha.clone(), x.clone())]);
            unary(add(
                s.clone(),
                mul(mul(alpha, x.clone()), mul(s.clone(), sub(lit_f(1.0), s))),
            ))
        }
        "thresholded_relu" => {
            let alpha = param_value(name, named, "alpha");
            call(
                "where",
                vec![
                    binary(BinOp::Gt, x.clone(), alpha),
                    g.clone(),
                    cast(lit_f(0.0), dtype),
                ],
            )
        }
        "shrink" => {
            let lambd = param_value(name, named, "lambd");
            let outside = binary(
                BinOp::Or,
                binary(BinOp::Lt, x.clone(), neg(lambd.clone())),
                binary(BinOp::Gt, x.clone(), lambd),
            );
            call("where", vec![outside, g.clone(), cast(lit_f(0.0), dtype)])
        }
        "leaky_relu" => {
            let alpha = named_value(named, "alpha").unwrap_or_else(|| lit_f(0.01));
            call(
                "where",
                vec![
                    binary(BinOp::Lt, x.clone(), lit_f(0.0)),
                    mul(g.clone(), alpha),
                    g.clone(),
                ],
            )
        }
        "elu" => {
            let alpha = named_value(named, "alpha").unwrap_or_else(|| lit_f(1.0));
            call(
                "where",
                vec![
                    binary(BinOp::Gt, x.clone(), lit_f(0.0)),
                    g.clone(),
                    mul(g.clone(), add(vv, alpha)),
                ],
            )
        }
        "clip" | "clamp" => {
            // min(max(x, lo), hi), ties sharing evenly as `max`/`min` do.
            let mut d = g.clone();
            if let Some(lo) = named_value(named, "min") {
                d = mul(d, tie_share(dtype, BinOp::Gt, x.clone(), lo));
            }
            if let Some(hi) = named_value(named, "max") {
                d = mul(d, tie_share(dtype, BinOp::Lt, x.clone(), hi));
            }
            d
        }
        _ => return None,
    })
}
