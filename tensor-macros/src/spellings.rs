//! Other libraries' names for the graph language's functions (NumPy, PyTorch), for the
//! errors that tell a user the language's spelling. A leaf: the parser and the checker read it.

/// The graph language's name for another library's function name, when it is a plain
/// rename (`maximum` -> `max`).
pub fn our_function_name(theirs: &str) -> Option<&'static str> {
    OTHER_LIBRARY_NAMES
        .iter()
        .find(|(t, ours)| *t == theirs && !ours.contains('('))
        .map(|(_, ours)| *ours)
}

/// NumPy's and PyTorch's names for functions the graph language spells otherwise: an
/// unknown function by one of them gets the language's name as its help.
pub const OTHER_LIBRARY_NAMES: &[(&str, &str)] = &[
    ("maximum", "max"),
    ("minimum", "min"),
    ("amax", "max"),
    ("amin", "min"),
    ("clamp_min", "clip(…, min = …)"),
    ("clamp_max", "clip(…, max = …)"),
    ("power", "pow"),
    ("absolute", "abs"),
    ("divide", "div"),
    ("true_divide", "div"),
    ("multiply", "mul"),
    ("subtract", "sub"),
    ("negative", "neg"),
    ("remainder", "rem"),
    ("arcsin", "asin"),
    ("arccos", "acos"),
    ("arctan", "atan"),
    ("arcsinh", "asinh"),
    ("arccosh", "acosh"),
    ("arctanh", "atanh"),
    ("rint", "roundeven"),
    ("fix", "trunc"),
    ("isnan", "is_nan"),
    ("isinf", "is_inf"),
    ("isfinite", "is_finite"),
    ("log_softmax", "logsoftmax"),
    ("hardswish", "hard_swish"),
    ("hardsigmoid", "hard_sigmoid"),
    ("select", "where"),
    ("cat", "concat"),
    ("concatenate", "concat"),
    ("permute", "transpose"),
    ("unsqueeze", "expand_dims"),
    ("view", "reshape"),
    ("expand", "broadcast_to"),
    ("cumulative_sum", "cumsum"),
    ("cumulative_prod", "cumprod"),
];
