//! The normalisations, global pools and block rearrangements of the vision operator set
//! (docs/language.md, "Normalisation, pooling and rearrangement"; ONNX semantics and
//! attribute names, NCHW): `batch_norm` (inference), `instance_norm`, `group_norm`,
//! `mean_variance_normalization`, `lrn`, `global_average_pool`, `global_max_pool`,
//! `global_lp_pool`, `space_to_depth`, `depth_to_space`. Each is its hand-written graph of
//! existing ops (reductions, elementwise, views, reshapes, slices), built as an expression
//! and checked like one: the same dtype rules, the same fusion, the same errors. The
//! convolutions (`conv`, `conv_transpose`), poolings (`max_pool`, `average_pool`,
//! `lp_pool`, `max_pool_with_indices`) and `resize` are built the same way, from strided
//! views of a padded input.
//!
//! Layout: `Checker::check_vision_parts` reads the named arguments into `VisionArgs`
//! (`vision_named_args`), checks the operands' count, dtypes and per-channel shapes, binds
//! the operands to hidden names (`__tg_vision{k}`) and hands a `Vision` to the op's builder:
//! a `Vision` method per op that returns the expression (`Vision::build`), or for `resize`
//! and `max_pool_with_indices` a `Checker` method that checks its stages itself. A builder's
//! refusal is a `Refusal` (most are `fail(why)`, reported after the op and `x`'s type),
//! reported by `vision_refusal`; the hidden names stay bound after one, as they always have
//! (a layout change must not change any expansion, errors included). A convolution's
//! lowering, the sum over kernel positions of a view times the weight (`einsum` per group,
//! elementwise when depthwise), is `Windows::conv_sum` alone.

use proc_macro2::Span;

use super::{type_text, Checker, Typed};
use crate::ast::BinOp::{Add, Div, Mul, Sub};
use crate::ast::{Expr, LitValue, NamedArg, UnOp};
use crate::dtype::DType;
use crate::ir::NodeId;
use crate::ops::TensorOp;
use crate::shape::Dim;

/// Builds expressions at one span.
struct Build {
    span: Span,
}

impl Build {
    fn ident(&self, name: &str) -> syn::Ident {
        syn::Ident::new(name, self.span)
    }
    fn var(&self, name: &str) -> Expr {
        Expr::Var(self.ident(name))
    }
    fn int(&self, v: i128) -> Expr {
        let magnitude = Expr::Lit(LitValue::Int(v.unsigned_abs()), self.span);
        if v < 0 {
            Expr::Unary {
                op: UnOp::Neg,
                op_span: self.span,
                expr: Box::new(magnitude),
            }
        } else {
            magnitude
        }
    }
    fn float(&self, v: f64) -> Expr {
        let text = format!("{v:?}");
        let magnitude = Expr::Lit(
            LitValue::Float(v.abs(), format!("{:?}", v.abs())),
            self.span,
        );
        if v < 0.0 {
            let _ = text;
            Expr::Unary {
                op: UnOp::Neg,
                op_span: self.span,
                expr: Box::new(magnitude),
            }
        } else {
            magnitude
        }
    }
    fn list(&self, items: Vec<Expr>) -> Expr {
        self.call("__list", items, Vec::new())
    }
    fn ints(&self, items: impl IntoIterator<Item = i128>) -> Expr {
        let items = items.into_iter().map(|v| self.int(v)).collect();
        self.list(items)
    }
    fn call(&self, name: &str, args: Vec<Expr>, named: Vec<(&str, Expr)>) -> Expr {
        Expr::Call {
            func: self.ident(name),
            args,
            named: named
                .into_iter()
                .map(|(n, value)| NamedArg {
                    name: self.ident(n),
                    value,
                })
                .collect(),
        }
    }
    fn bin(&self, op: crate::ast::BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary {
            op,
            op_span: self.span,
            lhs: Box::new(a),
            rhs: Box::new(b),
        }
    }
    /// `[C]` as `[C, 1, …]` against a rank-`rank` NCHW tensor.
    fn per_channel(&self, v: Expr, rank: usize) -> Expr {
        if rank <= 2 {
            return v;
        }
        let mut pattern = vec![self.int(0)];
        pattern.extend((2..rank).map(|_| Expr::Lit(LitValue::Char('x'), self.span)));
        self.call("dimshuffle", vec![v, self.list(pattern)], Vec::new())
    }
}

/// The windows of a convolution or a pooling over the literal spatial axes of a rank-`rank`
/// NCHW tensor: each kernel position's strided view of the padded input.
struct Windows {
    strides: Vec<i128>,
    dilations: Vec<i128>,
    kernel: Vec<i128>,
    /// The output length per spatial axis.
    outs: Vec<i128>,
    /// `pad`'s counts for every axis: the given pads, plus at the end what a ceil-mode
    /// window needs.
    pads: Vec<i128>,
    /// Per spatial axis, whether its length is symbolic (a name or an expression): its
    /// views end counted from the axis's end, so every view has the same length
    /// expression, `(L + pads - dilation·(k - 1) - 1) / stride + 1`; a window longer than
    /// the padded axis is the call's `Err` (the slice's bounds).
    open: Vec<bool>,
}

impl Windows {
    /// The plan as check/conv_gemm.rs and check/pool_kernel.rs read it.
    fn as_plan(&self) -> super::conv_gemm::WindowPlan<'_> {
        super::conv_gemm::WindowPlan {
            kernel: &self.kernel,
            strides: &self.strides,
            dilations: &self.dilations,
            pads: &self.pads,
            outs: &self.outs,
            open: &self.open,
        }
    }

    /// `Σ_k einsum(view_k, w_k)`: the convolution of the padded input `padded` (`[N, C,
    /// spatial…]`) with `weight` (`[O, C / g, k…]`), one product per kernel position over
    /// that position's strided view; per group, concatenated along the channels;
    /// depthwise as an elementwise product.
    fn conv_sum(&self, b: &Build, padded: Expr, weight: Expr, c: i128, o: i128, g: i128) -> Expr {
        use crate::ast::BinOp::{Add, Mul};
        let span = b.span;
        let r = self.kernel.len();
        // The weight at one kernel position: `[O, C / group]`.
        let tap = |offset: &[i128]| -> Expr {
            let mut e = weight.clone();
            for (a, &k) in offset.iter().enumerate().rev() {
                let one = b.call(
                    "slice",
                    vec![e],
                    vec![
                        ("axis", b.int(a as i128 + 2)),
                        ("start", b.int(k)),
                        ("end", b.int(k + 1)),
                    ],
                );
                e = b.call("squeeze", vec![one, b.int(a as i128 + 2)], Vec::new());
            }
            e
        };
        let offsets = self.offsets();
        let letters = ["w", "hw", "dhw"][r - 1];
        let depthwise = g == c && o == c;
        let mut terms = Vec::new();
        for off in &offsets {
            let view = self.view(b, padded.clone(), off);
            let w_k = tap(off);
            let term = if depthwise {
                // out[n, c] = Σ x[n, c] · w[c, 0, k]: elementwise, one fused pass.
                let mut pattern = vec![b.int(0)];
                pattern.extend((0..r).map(|_| Expr::Lit(LitValue::Char('x'), span)));
                let col = b.call("squeeze", vec![w_k, b.int(1)], Vec::new());
                b.bin(
                    Mul,
                    view,
                    b.call("dimshuffle", vec![col, b.list(pattern)], Vec::new()),
                )
            } else if g == 1 {
                b.call(
                    "einsum",
                    vec![
                        Expr::Lit(LitValue::Str(format!("nc{letters},oc->no{letters}")), span),
                        view,
                        w_k,
                    ],
                    Vec::new(),
                )
            } else {
                let (cpg, opg) = (c / g, o / g);
                let parts: Vec<Expr> = (0..g)
                    .map(|gi| {
                        let vg = b.call(
                            "slice",
                            vec![view.clone()],
                            vec![
                                ("axis", b.int(1)),
                                ("start", b.int(gi * cpg)),
                                ("end", b.int((gi + 1) * cpg)),
                            ],
                        );
                        let wg = b.call(
                            "slice",
                            vec![w_k.clone()],
                            vec![
                                ("axis", b.int(0)),
                                ("start", b.int(gi * opg)),
                                ("end", b.int((gi + 1) * opg)),
                            ],
                        );
                        b.call(
                            "einsum",
                            vec![
                                Expr::Lit(
                                    LitValue::Str(format!("nc{letters},oc->no{letters}")),
                                    span,
                                ),
                                vg,
                                wg,
                            ],
                            Vec::new(),
                        )
                    })
                    .collect();
                b.call("concat", vec![b.list(parts)], vec![("axis", b.int(1))])
            };
            terms.push(term);
        }
        terms
            .into_iter()
            .reduce(|a, t| b.bin(Add, a, t))
            .expect("a kernel position")
    }
    /// ONNX's output lengths `floor((L + pads - dilation·(k - 1) - 1) / stride) + 1`
    /// (`ceil` with `ceil`), or why a window does not fit.
    fn plan(
        rank: usize,
        kernel: &[i128],
        strides: &[i128],
        dilations: &[i128],
        pads: &[i128],
        lens: &[i128],
        ceil: bool,
    ) -> Result<Windows, String> {
        let r = rank - 2;
        let mut outs = Vec::new();
        let mut full_pads = vec![0i128; 2 * rank];
        for a in 0..r {
            let span_a = (kernel[a] - 1) * dilations[a] + 1;
            let padded = lens[a] + pads[a] + pads[r + a];
            if span_a > padded {
                return Err(format!(
                    "a window of {span_a} (kernel {} × dilation {}) is longer than spatial axis {a} padded to {padded}",
                    kernel[a], dilations[a]
                ));
            }
            let room = padded - span_a;
            let out = if ceil {
                (room + strides[a] - 1) / strides[a] + 1
            } else {
                room / strides[a] + 1
            };
            outs.push(out);
            full_pads[2 * (a + 2)] = pads[a];
            full_pads[2 * (a + 2) + 1] =
                pads[r + a] + ((out - 1) * strides[a] + span_a - padded).max(0);
        }
        Ok(Windows {
            strides: strides.to_vec(),
            dilations: dilations.to_vec(),
            kernel: kernel.to_vec(),
            outs,
            pads: full_pads,
            open: vec![false; r],
        })
    }

    /// Every kernel position, the last axis fastest.
    fn offsets(&self) -> Vec<Vec<i128>> {
        let mut offsets: Vec<Vec<i128>> = vec![Vec::new()];
        for &k in &self.kernel {
            offsets = offsets
                .into_iter()
                .flat_map(|o| {
                    (0..k).map(move |i| {
                        let mut o = o.clone();
                        o.push(i);
                        o
                    })
                })
                .collect();
        }
        offsets
    }

    /// The strided view of the padded `base` that kernel position `offset` reads: one
    /// element per output position.
    fn view(&self, b: &Build, base: Expr, offset: &[i128]) -> Expr {
        let mut e = base;
        for (a, &o) in offset.iter().enumerate() {
            let start = o * self.dilations[a];
            if self.open[a] {
                let window = (self.kernel[a] - 1) * self.dilations[a] + 1;
                let from_end = window - 1 - start;
                let mut named = vec![
                    ("axis", b.int(a as i128 + 2)),
                    ("start", b.int(start)),
                    ("step", b.int(self.strides[a])),
                ];
                if from_end > 0 {
                    named.push(("end", b.int(-from_end)));
                }
                e = b.call("slice", vec![e], named);
                continue;
            }
            let end = start + (self.outs[a] - 1) * self.strides[a] + 1;
            e = b.call(
                "slice",
                vec![e],
                vec![
                    ("axis", b.int(a as i128 + 2)),
                    ("start", b.int(start)),
                    ("end", b.int(end)),
                    ("step", b.int(self.strides[a])),
                ],
            );
        }
        e
    }
}

/// The literal spatial lengths of `dims[2..]`, a symbolic one as the window's own length
/// (a placeholder that fits; its views are planned from the axis's end), and which are
/// symbolic.
fn spatial_lens(dims: &[Dim], kernel: &[i128], dilations: &[i128]) -> (Vec<i128>, Vec<bool>) {
    dims[2..]
        .iter()
        .enumerate()
        .map(|(a, d)| match d.as_static() {
            Some(n) => (n as i128, false),
            None => ((kernel[a] - 1) * dilations[a] + 1, true),
        })
        .unzip()
}

/// `auto_pads` over axes some of which are symbolic: there only a stride of 1 has literal
/// `same_*` pads (`dilation·(k - 1)` in all), else why not.
fn auto_pads_open(
    mode: &str,
    lens: &[i128],
    open: &[bool],
    kernel: &[i128],
    strides: &[i128],
    dilations: &[i128],
) -> Result<Vec<i128>, String> {
    let r = lens.len();
    if mode.starts_with("same") {
        if let Some(a) = (0..r).find(|&a| open[a] && strides[a] != 1) {
            return Err(format!("`auto_pad = {mode}` over the symbolic spatial axis {a} needs a stride of 1 (its pads would depend on the length modulo {})", strides[a]));
        }
    }
    // A symbolic axis with stride 1: any length gives the same total, `window - 1`.
    Ok(auto_pads(mode, lens, kernel, strides, dilations))
}

/// ONNX's `auto_pad` values, lower-case.
const AUTO_PADS: &[&str] = &["notset", "same_upper", "same_lower", "valid"];

/// The `pads` (every begin, then every end) that `auto_pad` gives a convolution or a pool
/// over spatial lengths `lens` (ONNX's rule): `valid` none; `same_upper`/`same_lower` the
/// padding that makes the output `ceil(L / stride)` long, `(out - 1)·stride + dilation·(k - 1)
/// + 1 - L` in all (never negative), split in half with the odd one at the end
/// (`same_upper`) or at the beginning (`same_lower`).
fn auto_pads(
    mode: &str,
    lens: &[i128],
    kernel: &[i128],
    strides: &[i128],
    dilations: &[i128],
) -> Vec<i128> {
    let r = lens.len();
    let mut pads = vec![0i128; 2 * r];
    if mode == "same_upper" || mode == "same_lower" {
        for a in 0..r {
            let out = (lens[a] + strides[a] - 1) / strides[a];
            let span = (kernel[a] - 1) * dilations[a] + 1;
            let total = ((out - 1) * strides[a] + span - lens[a]).max(0);
            let head = if mode == "same_upper" {
                total / 2
            } else {
                total - total / 2
            };
            pads[a] = head;
            pads[r + a] = total - head;
        }
    }
    pads
}

/// ONNX `Resize`'s attribute words, lower-case.
const RESIZE_MODES: &[&str] = &["nearest", "linear", "cubic"];
const COORDINATE_MODES: &[&str] = &[
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
];
const NEAREST_MODES: &[&str] = &["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"];

/// What one output position of a 1-D resize reads: input positions (clamped to the axis)
/// and their coefficients, `None` for `nearest` (its one position, selected).
#[derive(Clone, Debug)]
struct Taps {
    idx: Vec<i128>,
    coeffs: Option<Vec<f64>>,
}

/// The resize settings that do not change along an axis.
struct ResizeMode<'a> {
    mode: &'a str,
    coordinates: &'a str,
    nearest: &'a str,
    cubic_a: f64,
    exclude_outside: bool,
}

/// ONNX `Resize` along one axis of length `len` to `out` at `scale` (`out / len` when
/// `sizes` is given), in f64 as the operator's spec and reference: the coordinate
/// transform, then the neighbours (`floor(x)`, `floor(x) + 1` for `linear`; `floor(x) - 1
/// ..= floor(x) + 2` for `cubic`; an integer `x` is read as ratio 1 of the pair or quad
/// before it, so its neighbours still count with a coefficient 0), edge-clamped.
fn resize_taps(m: &ResizeMode, len: i128, out: i128, scale: f64) -> Vec<Taps> {
    let lenf = len as f64;
    (0..out)
        .map(|o| {
            let x = o as f64;
            let x_ori = match m.coordinates {
                "half_pixel" => (x + 0.5) / scale - 0.5,
                "half_pixel_symmetric" => {
                    let adjustment = out as f64 / (scale * lenf);
                    let center = lenf / 2.0;
                    let offset = center * (1.0 - adjustment);
                    offset + (x + 0.5) / scale - 0.5
                }
                "pytorch_half_pixel" => {
                    if out > 1 {
                        (x + 0.5) / scale - 0.5
                    } else {
                        0.0
                    }
                }
                "align_corners" => {
                    if out == 1 {
                        0.0
                    } else {
                        x * (lenf - 1.0) / (out as f64 - 1.0)
                    }
                }
                _ => x / scale,
            };
            let fl = x_ori.floor();
            let integer = x_ori == fl;
            let ratio = if integer { 1.0 } else { x_ori - fl };
            let fl = fl as i128;
            let clamp = |i: i128| i.clamp(0, len - 1);
            match m.mode {
                "nearest" => {
                    let pick = if integer {
                        fl
                    } else {
                        match m.nearest {
                            "round_prefer_floor" if ratio <= 0.5 => fl,
                            "round_prefer_ceil" if ratio < 0.5 => fl,
                            "floor" => fl,
                            _ => fl + 1,
                        }
                    };
                    Taps {
                        idx: vec![clamp(pick)],
                        coeffs: None,
                    }
                }
                mode => {
                    let (raw, mut c): (Vec<i128>, Vec<f64>) = if mode == "linear" {
                        let base = if integer { fl - 1 } else { fl };
                        (vec![base, base + 1], vec![1.0 - ratio, ratio])
                    } else {
                        let base = if integer { fl - 2 } else { fl - 1 };
                        let (a, r, s) = (m.cubic_a, ratio, 1.0 - ratio);
                        (
                            (base..base + 4).collect(),
                            vec![
                                ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0)
                                    - 4.0 * a,
                                ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                                ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
                                ((a * (s + 1.0) - 5.0 * a) * (s + 1.0) + 8.0 * a) * (s + 1.0)
                                    - 4.0 * a,
                            ],
                        )
                    };
                    if m.exclude_outside {
                        for (cj, &i) in c.iter_mut().zip(&raw) {
                            if i < 0 || i >= len {
                                *cj = 0.0;
                            }
                        }
                        let total: f64 = c.iter().sum();
                        for cj in &mut c {
                            *cj /= total;
                        }
                    }
                    Taps {
                        idx: raw.into_iter().map(clamp).collect(),
                        coeffs: Some(c),
                    }
                }
            }
        })
        .collect()
}

/// Runs of outputs that repeat with a period: `p` phases, each `count` long, whose
/// positions advance by `q ≥ 1` per period and whose coefficients repeat (to 1e-13). Each
/// run is `(first output, p, q, count)`; an output that repeats nothing is a run of one.
fn resize_runs(taps: &[Taps]) -> Vec<(usize, usize, i128, usize)> {
    let out = taps.len();
    let mut runs = Vec::new();
    let mut o0 = 0;
    while o0 < out {
        let mut best = (1usize, 1i128, 1usize);
        for p in 1..=(out - o0) / 2 {
            let q = taps[o0 + p].idx[0] - taps[o0].idx[0];
            if q < 1 {
                continue;
            }
            let same = |a: &Taps, b: &Taps, t: i128| {
                a.idx.iter().zip(&b.idx).all(|(&i, &j)| j == i + q * t)
                    && match (&a.coeffs, &b.coeffs) {
                        (Some(x), Some(y)) => x.iter().zip(y).all(|(u, v)| (u - v).abs() <= 1e-13),
                        _ => true,
                    }
            };
            let mut count = usize::MAX;
            for phase in 0..p {
                let first = &taps[o0 + phase];
                let mut t = 1;
                while count > t
                    && o0 + phase + p * t < out
                    && same(first, &taps[o0 + phase + p * t], t as i128)
                {
                    t += 1;
                }
                count = count.min(t);
            }
            if count >= 2 && p * count > best.0 * best.2 {
                best = (p, q, count);
            }
        }
        runs.push((o0, best.0, best.1, best.2));
        o0 += best.0 * best.2;
    }
    runs
}

/// One resized axis as the runtime's pass reads it (`ir::ResizeTaps`): every output's taps
/// exactly as the expression form built from `runs` reads them (output `o0 + f + p·t` of a
/// run reads `taps[o0 + f]`'s positions plus `q·t` with `taps[o0 + f]`'s weights: within a
/// run the later periods' f64 weights may differ from the first's by an ulp, and the
/// expression uses the first's), and the runs of two or more periods.
fn pass_taps(
    taps: &[Taps],
    runs: &[(usize, usize, i128, usize)],
    len: i128,
    out: i128,
) -> crate::ir::ResizeTaps {
    let width = taps[0].idx.len();
    let (mut index, mut weights) = (vec![0; taps.len() * width], Vec::new());
    if taps[0].coeffs.is_some() {
        weights = vec![0.0; taps.len() * width];
    }
    let mut kept = Vec::new();
    for &(o0, p, q, count) in runs {
        for f in 0..p {
            let lead = &taps[o0 + f];
            for t in 0..count {
                let o = o0 + f + p * t;
                for (j, &i) in lead.idx.iter().enumerate() {
                    index[o * width + j] = (i + q * t as i128) as usize;
                    if let Some(c) = &lead.coeffs {
                        weights[o * width + j] = c[j];
                    }
                }
            }
        }
        if count >= 2 {
            kept.push([o0, p, q as usize, count]);
        }
    }
    crate::ir::ResizeTaps {
        len: len as usize,
        out: out as usize,
        taps: width,
        index,
        weights,
        runs: kept,
    }
}

/// Why a vision op's builder refused its operands. `Why` is reported at the op after the op
/// and `x`'s type (what `fail` builds, the message of most refusals); `At` at its own span as
/// it is (`auto_pad` next to `pads`, `resize`'s count of values); `Reported`: a part already
/// checked to `Poison`, whose error is out.
enum Refusal {
    Why(String),
    At(Span, String),
    Reported,
}

/// A `Refusal::Why`: every builder's `return fail(why)`.
fn fail<T>(why: String) -> Result<T, Refusal> {
    Err(Refusal::Why(why))
}

/// The named arguments of a vision op (`Checker::vision_named_args`), by parameter name.
struct VisionArgs {
    floats: Vec<(&'static str, f64)>,
    ints: Vec<(&'static str, i128)>,
    axes: Option<Vec<i128>>,
    /// `depth_to_space`'s `mode`: `dcr` or `crd`.
    mode: String,
    lists: Vec<(&'static str, Vec<i128>)>,
    flags: Vec<(&'static str, bool)>,
    /// `auto_pad`'s word and span (the op's span when it is not given).
    auto_pad: (&'static str, Span),
    /// `resize`'s words: `mode`, `coordinate_transformation_mode`, `nearest_mode`.
    words: Vec<(&'static str, &'static str)>,
    /// `resize`'s `scales` and their span.
    scales: Option<(Vec<f64>, Span)>,
}

impl VisionArgs {
    fn float(&self, key: &str, default: f64) -> f64 {
        self.floats
            .iter()
            .find(|f| f.0 == key)
            .map_or(default, |f| f.1)
    }
    fn list(&self, key: &str) -> Option<Vec<i128>> {
        self.lists.iter().find(|f| f.0 == key).map(|f| f.1.clone())
    }
    fn flag(&self, key: &str) -> bool {
        self.flags.iter().find(|f| f.0 == key).is_some_and(|f| f.1)
    }
    fn int(&self, key: &str) -> Option<i128> {
        self.ints.iter().find(|f| f.0 == key).map(|f| f.1)
    }
    fn word(&self, key: &str, default: &'static str) -> String {
        self.words
            .iter()
            .find(|w| w.0 == key)
            .map_or(default, |w| w.1)
            .to_string()
    }
}

/// A vision op whose operands passed `Checker::check_vision_parts`'s checks, bound to hidden
/// names (`__tg_vision{k}`): what each op's builder reads. A builder returns the op's
/// expression, or a `Refusal`.
struct Vision<'a> {
    b: Build,
    name: &'static str,
    span: Span,
    args: VisionArgs,
    /// The operands' nodes, the hidden names they are bound to, and their types.
    nodes: &'a [NodeId],
    names: &'a [String],
    operands: Vec<(DType, Vec<Dim>)>,
    /// `x`'s dtype, dims and rank, its spatial axes (2..rank) and `epsilon`.
    xd: DType,
    dims: &'a [Dim],
    rank: usize,
    spatial: Vec<i128>,
    eps: f64,
}

/// `conv_transpose`'s checked operands and attributes: its literal lengths, the pads (given,
/// or derived from `output_shape` / `auto_pad`) and the output lengths.
struct TransposedConv {
    r: usize,
    c: i128,
    g: i128,
    /// The output channels (`group` × the weight's axis 1) and the weight's axis 1.
    m: i128,
    mg: i128,
    kernel: Vec<i128>,
    lens: Vec<i128>,
    strides: Vec<i128>,
    dilations: Vec<i128>,
    /// `output_padding`.
    extra: Vec<i128>,
    pads: Vec<i128>,
    outs: Vec<i128>,
}

/// A pooling's windows (`Vision::pool_windows`): the plan, the padded source, the kernel
/// positions and their combination (max or sum; of `|x|^p` for `lp_pool`).
struct PoolWindows {
    r: usize,
    lens: Vec<i128>,
    open: Vec<bool>,
    plan: Windows,
    padded: Expr,
    offsets: Vec<Vec<i128>>,
    total: Expr,
    p: f64,
}

impl Vision<'_> {
    /// Operand `k`, by its hidden name.
    fn v(&self, k: usize) -> Expr {
        self.b.var(&self.names[k])
    }

    /// `(x - m) / sqrt(var + eps) * scale + bias`, the last two per channel.
    fn normalise(&self, centred: Expr, var: Expr, eps: f64, affine: Option<(Expr, Expr)>) -> Expr {
        let (b, rank) = (&self.b, self.rank);
        let sd = b.call("sqrt", vec![b.bin(Add, var, b.float(eps))], Vec::new());
        let y = b.bin(Div, centred, sd);
        match affine {
            Some((s, t)) => b.bin(
                Add,
                b.bin(Mul, y, b.per_channel(s, rank)),
                b.per_channel(t, rank),
            ),
            None => y,
        }
    }

    /// The mean of `e` over `axes`, kept as axes of length 1.
    fn mean_over(&self, e: Expr, axes: &[i128]) -> Expr {
        let b = &self.b;
        b.call(
            "mean",
            vec![e],
            vec![
                ("axis", b.ints(axes.iter().copied())),
                ("keepdims", Expr::Lit(LitValue::Bool(true), self.span)),
            ],
        )
    }

    /// The expression of an op whose value is one tensor (all but `conv`, the pools,
    /// `resize` and `max_pool_with_indices`, which `Checker`'s `*_parts` build).
    fn build(&self) -> Result<Expr, Refusal> {
        match self.name {
            "batch_norm" => Ok(self.batch_norm()),
            "instance_norm" | "mean_variance_normalization" => self.instance_norm(),
            "group_norm" => self.group_norm(),
            "conv_transpose" => self.conv_transpose(),
            "global_average_pool" => Ok(self.mean_over(self.v(0), &self.spatial)),
            "global_max_pool" => Ok(self.global_max_pool()),
            "global_lp_pool" => Ok(self.global_lp_pool()),
            "lrn" => self.lrn(),
            _ => self.rearrange(),
        }
    }

    /// `batch_norm`: `(x - mean) / sqrt(var + eps) * scale + bias` with the given statistics.
    fn batch_norm(&self) -> Expr {
        let rank = self.rank;
        let eps = self.eps;
        let b = &self.b;
        let v = |k: usize| self.v(k);
        let normalise = |centred: Expr, var: Expr, eps: f64, affine: Option<(Expr, Expr)>| {
            self.normalise(centred, var, eps, affine)
        };
        let centred = b.bin(Sub, v(0), b.per_channel(v(3), rank));
        normalise(centred, b.per_channel(v(4), rank), eps, Some((v(1), v(2))))
    }

    /// `instance_norm` and `mean_variance_normalization`: centred and divided by the
    /// standard deviation over `axes` (by default the spatial axes for `instance_norm`, which
    /// then scales and shifts per channel; `N` and the spatial axes for the other).
    fn instance_norm(&self) -> Result<Expr, Refusal> {
        let name = self.name;
        let rank = self.rank;
        let eps = self.eps;
        let b = &self.b;
        let spatial = &self.spatial;
        let axes = &self.args.axes;
        let v = |k: usize| self.v(k);
        let mean_over = |e: Expr, axes: &[i128]| self.mean_over(e, axes);
        let normalise = |centred: Expr, var: Expr, eps: f64, affine: Option<(Expr, Expr)>| {
            self.normalise(centred, var, eps, affine)
        };
        let over = match (&axes, name) {
            (Some(a), _) => a.clone(),
            (None, "instance_norm") => spatial.clone(),
            (None, _) => [0i128].into_iter().chain(2..rank as i128).collect(),
        };
        if over.is_empty() {
            return fail("there are no axes to normalise over".into());
        }
        let m = mean_over(v(0), &over);
        let d = b.bin(Sub, v(0), m);
        let var = mean_over(b.bin(Mul, d.clone(), d.clone()), &over);
        Ok(if name == "instance_norm" {
            normalise(d, var, eps, Some((v(1), v(2))))
        } else {
            // ONNX's function body: `(x - mean) / (sqrt(var) + 1e-9)`.
            let sd = b.bin(Add, b.call("sqrt", vec![var], Vec::new()), b.float(1e-9));
            b.bin(Div, d, sd)
        })
    }

    /// `group_norm`: the channels regrouped into `num_groups` groups, normalised over each
    /// group and its spatial axes, then scaled and shifted per channel.
    fn group_norm(&self) -> Result<Expr, Refusal> {
        let rank = self.rank;
        let eps = self.eps;
        let b = &self.b;
        let dims = self.dims;
        let v = |k: usize| self.v(k);
        let int = |key: &str| self.args.int(key);
        let mean_over = |e: Expr, axes: &[i128]| self.mean_over(e, axes);
        let normalise = |centred: Expr, var: Expr, eps: f64, affine: Option<(Expr, Expr)>| {
            self.normalise(centred, var, eps, affine)
        };
        let Some(g) = int("num_groups") else {
            return fail("it needs `num_groups = G`".into());
        };
        let (Some(c), true) = (
            dims[1].as_static(),
            dims[2..].iter().all(|d| d.as_static().is_some()),
        ) else {
            return fail(
                "its channels and spatial dims must be literals (groups regroup them)".into(),
            );
        };
        if c as i128 % g != 0 {
            return fail(format!("{g} groups do not divide {c} channels"));
        }
        let n = match &dims[0] {
            Dim::Static(n) => b.int(*n as i128),
            Dim::Named(n) => b.var(n),
            Dim::Expr(_) => {
                return fail(
                    "its batch dim is an expression, which a reshape target cannot name".into(),
                )
            }
        };
        let grouped = b.call(
            "reshape",
            vec![v(0), b.list(vec![n.clone(), b.int(g), b.int(-1)])],
            Vec::new(),
        );
        let m = mean_over(grouped.clone(), &[2]);
        let d = b.bin(Sub, grouped, m);
        let var = mean_over(b.bin(Mul, d.clone(), d.clone()), &[2]);
        let y = normalise(d, var, eps, None);
        let mut back = vec![n];
        back.extend(
            dims[1..]
                .iter()
                .map(|d| b.int(d.as_static().expect("literal") as i128)),
        );
        let y = b.call("reshape", vec![y, b.list(back)], Vec::new());
        Ok(b.bin(
            Add,
            b.bin(Mul, y, b.per_channel(v(1), rank)),
            b.per_channel(v(2), rank),
        ))
    }

    /// What `conv` and `conv_transpose` check first, in this order: `[N, C, spatial…]` with
    /// 1 to 3 spatial axes, and a weight of the input's dtype and rank (`axes`: its axes as
    /// the message names them); the weight's dims.
    fn conv_weight_dims(&self, axes: &str) -> Result<Vec<Dim>, Refusal> {
        let rank = self.rank;
        if !(3..=5).contains(&rank) {
            return fail("it takes `[N, C, spatial…]` with 1 to 3 spatial axes".into());
        }
        let (wd, wdims) = self.operands[1].clone();
        if wd != self.xd || wdims.len() != rank {
            return fail(format!(
                "the weight is `{}[{axes}]` of rank {rank}, found {}",
                self.xd.name(),
                type_text(wd, &wdims)
            ));
        }
        Ok(wdims)
    }

    /// A `kernel_shape` given to `conv` or `conv_transpose` must be the weight's kernel.
    fn check_kernel_shape(&self, kernel: &[i128]) -> Result<(), Refusal> {
        match self.args.list("kernel_shape") {
            Some(k) if k != kernel => fail(format!(
                "`kernel_shape = {k:?}` differs from the weight's {kernel:?}"
            )),
            _ => Ok(()),
        }
    }

    /// [`conv`](Vision::conv)'s einsum form of the planned windows.
    fn conv_sum_form(&self, plan: &Windows, c: i128, o: i128, g: i128) -> Expr {
        let b = &self.b;
        let padded = b.call(
            "pad",
            vec![self.v(0), b.ints(plan.pads.clone())],
            Vec::new(),
        );
        self.conv_with_bias(plan.conv_sum(b, padded, self.v(1), c, o, g))
    }

    /// `total` plus `conv`'s bias, when it has one.
    fn conv_with_bias(&self, total: Expr) -> Expr {
        if self.nodes.len() == 3 {
            self.b
                .bin(Add, total, self.b.per_channel(self.v(2), self.rank))
        } else {
            total
        }
    }

    /// `conv`: the operands' and attributes' checks, the pads (given or `auto_pad`'s) and the
    /// windows, with the channels `c`, the outputs `o` and the `group`.
    fn conv_windows(&self) -> Result<(Windows, i128, i128, i128), Refusal> {
        let name = self.name;
        let rank = self.rank;
        let xd = self.xd;
        let dims = self.dims;
        let nodes = self.nodes;
        let auto_pad = self.args.auto_pad;
        let list = |key: &str| self.args.list(key);
        let int = |key: &str| self.args.int(key);
        let wdims = self.conv_weight_dims("O, C / group, k…")?;
        let r = rank - 2;
        let g = int("group").unwrap_or(1);
        let lit = |d: &Dim| d.as_static().map(|n| n as i128);
        let (Some(c), Some(o), Some(cg)) = (lit(&dims[1]), lit(&wdims[0]), lit(&wdims[1])) else {
            return fail("its channels and the weight's dims must be literals".into());
        };
        if c % g != 0 || o % g != 0 || cg != c / g {
            return fail(format!("`group = {g}` must divide the {c} input and {o} output channels, and the weight's axis 1 ({cg}) is the channels per group ({})", c / g.max(1)));
        }
        if nodes.len() == 3 {
            let (bd, bdims) = self.operands[2].clone();
            if bd != xd || bdims != [wdims[0].clone()] {
                return fail(format!(
                    "the bias is `{}[{o}]`, found {}",
                    xd.name(),
                    type_text(bd, &bdims)
                ));
            }
        }
        let kernel: Option<Vec<i128>> = wdims[2..].iter().map(lit).collect();
        let Some(kernel) = kernel else {
            return fail("the kernel's spatial dims must be literals".into());
        };
        self.check_kernel_shape(&kernel)?;
        let strides = list("strides").unwrap_or(vec![1; r]);
        let dilations = list("dilations").unwrap_or(vec![1; r]);
        if dilations.len() != r {
            return fail(format!("`dilations` takes {r} values"));
        }
        let (lens, open) = spatial_lens(dims, &kernel, &dilations);
        let mut pads = list("pads").unwrap_or(vec![0; 2 * r]);
        if strides.len() != r
            || dilations.len() != r
            || pads.len() != 2 * r
            || strides.iter().chain(&dilations).any(|&s| s == 0)
        {
            return fail(format!("`strides`, `dilations` take {r} values ≥ 1 and `pads` {} (every begin, then every end)", 2 * r));
        }
        if auto_pad.0 != "notset" {
            if list("pads").is_some() {
                return Err(Refusal::At(
                    auto_pad.1,
                    format!("`{name}` takes `pads` or `auto_pad`, not both (ONNX)"),
                ));
            }
            pads = match auto_pads_open(auto_pad.0, &lens, &open, &kernel, &strides, &dilations) {
                Ok(p) => p,
                Err(why) => return fail(why),
            };
        }
        let mut plan = match Windows::plan(rank, &kernel, &strides, &dilations, &pads, &lens, false)
        {
            Ok(plan) => plan,
            Err(why) => return fail(why),
        };
        plan.open = open;
        Ok((plan, c, o, g))
    }

    /// `conv_transpose`'s checks, pads and output lengths (ONNX's rules; see `TransposedConv`).
    fn conv_transpose_geometry(&self) -> Result<TransposedConv, Refusal> {
        let name = self.name;
        let rank = self.rank;
        let xd = self.xd;
        let dims = self.dims;
        let nodes = self.nodes;
        let auto_pad = self.args.auto_pad;
        let list = |key: &str| self.args.list(key);
        let int = |key: &str| self.args.int(key);
        let wdims = self.conv_weight_dims("C, M / group, k…")?;
        let r = rank - 2;
        let g = int("group").unwrap_or(1);
        let lit = |d: &Dim| d.as_static().map(|n| n as i128);
        let (Some(c), Some(wc), Some(mg)) = (lit(&dims[1]), lit(&wdims[0]), lit(&wdims[1])) else {
            return fail("its channels and the weight's dims must be literals".into());
        };
        if c % g != 0 || wc != c {
            return fail(format!("`group = {g}` must divide the {c} input channels, and the weight's axis 0 ({wc}) is the input channels ({c})"));
        }
        let m = mg * g;
        if nodes.len() == 3 {
            let (bd, bdims) = self.operands[2].clone();
            if bd != xd || bdims != [Dim::Static(m as usize)] {
                return fail(format!(
                    "the bias is `{}[{m}]` (group × the weight's axis 1), found {}",
                    xd.name(),
                    type_text(bd, &bdims)
                ));
            }
        }
        let kernel: Option<Vec<i128>> = wdims[2..].iter().map(lit).collect();
        let lens: Option<Vec<i128>> = dims[2..].iter().map(lit).collect();
        let (Some(kernel), Some(lens)) = (kernel, lens) else {
            return fail("its spatial dims and the kernel's must be literals (`conv_transpose` over symbolic spatial dims is not supported)".into());
        };
        self.check_kernel_shape(&kernel)?;
        let strides = list("strides").unwrap_or(vec![1; r]);
        let dilations = list("dilations").unwrap_or(vec![1; r]);
        let extra = list("output_padding").unwrap_or(vec![0; r]);
        let given_pads = list("pads");
        let shape = list("output_shape");
        if strides.len() != r
            || dilations.len() != r
            || extra.len() != r
            || shape.as_ref().is_some_and(|s| s.len() != r)
            || given_pads.as_ref().is_some_and(|p| p.len() != 2 * r)
            || strides.iter().chain(&dilations).any(|&s| s == 0)
        {
            return fail(format!("`strides`, `dilations` take {r} values ≥ 1, `output_padding` and `output_shape` {r} values, and `pads` {} (every begin, then every end)", 2 * r));
        }
        for a in 0..r {
            if extra[a] >= strides[a] && extra[a] >= dilations[a] {
                return fail(format!("`output_padding` {} of spatial axis {a} must be less than its stride ({}) or its dilation ({})", extra[a], strides[a], dilations[a]));
            }
        }
        // ONNX: the full output length `stride·(L - 1) + output_padding + dilation·(k -
        // 1) + 1`, less the pads; `output_shape` (or `same_*`: `L·stride`) sets the
        // pads, the odd one at the beginning unless `same_upper`.
        let full: Vec<i128> = (0..r)
            .map(|a| strides[a] * (lens[a] - 1) + extra[a] + dilations[a] * (kernel[a] - 1) + 1)
            .collect();
        let same = auto_pad.0.starts_with("same");
        if given_pads.is_some() && (shape.is_some() || auto_pad.0 != "notset") {
            return Err(Refusal::At(auto_pad.1, format!("`{name}` takes `pads`, or `output_shape` / `auto_pad` to derive them, not both (ONNX)")));
        }
        let pads: Vec<i128> = match (given_pads, &shape) {
            (Some(p), _) => p,
            (None, target) if target.is_some() || same => {
                let target: Vec<i128> = match target {
                    Some(t) => t.clone(),
                    None => (0..r).map(|a| lens[a] * strides[a]).collect(),
                };
                let mut p = vec![0i128; 2 * r];
                for a in 0..r {
                    let total = full[a] - target[a];
                    let head = if auto_pad.0 == "same_upper" {
                        total.div_euclid(2)
                    } else {
                        total - total.div_euclid(2)
                    };
                    p[a] = head;
                    p[r + a] = total - head;
                }
                p
            }
            _ => vec![0; 2 * r],
        };
        let outs: Vec<i128> = (0..r).map(|a| full[a] - pads[a] - pads[r + a]).collect();
        if let Some(a) = (0..r).find(|&a| outs[a] < 1) {
            return fail(format!("its output along spatial axis {a} would be {} long: the full length {} (stride {} × ({} − 1) + output_padding {} + the window {}) less the pads {} and {}", outs[a], full[a], strides[a], lens[a], extra[a], dilations[a] * (kernel[a] - 1) + 1, pads[a], pads[r + a]));
        }
        Ok(TransposedConv {
            r,
            c,
            g,
            m,
            mg,
            kernel,
            lens,
            strides,
            dilations,
            extra,
            pads,
            outs,
        })
    }

    /// `conv_transpose`: the input zero-stuffed along each strided axis and padded, then a
    /// convolution (`Windows::conv_sum`) with the flipped weight, its axes 0 and 1 swapped
    /// (per group).
    fn conv_transpose(&self) -> Result<Expr, Refusal> {
        let rank = self.rank;
        let b = &self.b;
        let dims = self.dims;
        let nodes = self.nodes;
        let v = |k: usize| self.v(k);
        let TransposedConv {
            r,
            c,
            g,
            m,
            mg,
            kernel,
            lens,
            strides,
            dilations,
            extra,
            pads,
            outs,
        } = self.conv_transpose_geometry()?;
        let n = match &dims[0] {
            Dim::Static(n) => b.int(*n as i128),
            Dim::Named(n) => b.var(n),
            Dim::Expr(_) => {
                return fail(
                    "its batch dim is an expression, which a reshape target cannot name".into(),
                )
            }
        };
        // Zeros between the elements along each strided axis (each element and
        // `stride - 1` zeros after it, the last zeros cut): `expand_dims`, `pad`,
        // `reshape`, `slice`.
        let mut z = v(0);
        let mut cur = lens.clone();
        for a in 0..r {
            let s = strides[a];
            if s == 1 {
                continue;
            }
            let ax = 2 + a as i128;
            z = b.call("expand_dims", vec![z, b.int(ax + 1)], Vec::new());
            let mut p = vec![0i128; 2 * (rank + 1)];
            p[2 * (ax as usize + 1) + 1] = s - 1;
            z = b.call("pad", vec![z, b.ints(p)], Vec::new());
            cur[a] = lens[a] * s;
            let mut target = vec![n.clone(), b.int(c)];
            target.extend(cur.iter().map(|&l| b.int(l)));
            z = b.call("reshape", vec![z, b.list(target)], Vec::new());
            cur[a] = (lens[a] - 1) * s + 1;
            z = b.call(
                "slice",
                vec![z],
                vec![
                    ("axis", b.int(ax)),
                    ("start", b.int(0)),
                    ("end", b.int(cur[a])),
                ],
            );
        }
        // Then a correlation with the flipped kernel over the zero-stuffed input
        // padded by `window - 1 - pad` at the beginning and `window - 1 +
        // output_padding - pad` at the end (negative counts crop).
        let mut zp = vec![0i128; 2 * rank];
        let mut inner = Vec::new();
        for a in 0..r {
            let window = dilations[a] * (kernel[a] - 1) + 1;
            zp[2 * (2 + a)] = window - 1 - pads[a];
            zp[2 * (2 + a) + 1] = window - 1 + extra[a] - pads[r + a];
            inner.push(cur[a] + zp[2 * (2 + a)] + zp[2 * (2 + a) + 1]);
        }
        let padded = b.call("pad", vec![z, b.ints(zp)], Vec::new());
        // The weight `[C, M / g, k…]` as a convolution's `[M, C / g, k…]`, flipped.
        let spatial_axes: Vec<i128> = (2..rank as i128).collect();
        let flipped = b.call(
            "flip",
            vec![v(1)],
            vec![("axis", b.ints(spatial_axes.iter().copied()))],
        );
        let weight = if g == 1 {
            let mut perm = vec![1, 0];
            perm.extend(spatial_axes.iter().copied());
            b.call("transpose", vec![flipped, b.ints(perm)], Vec::new())
        } else {
            let mut split = vec![g, c / g, mg];
            split.extend(kernel.iter().copied());
            let grouped = b.call("reshape", vec![flipped, b.ints(split)], Vec::new());
            let mut perm = vec![0, 2, 1];
            perm.extend((3..rank as i128 + 1).collect::<Vec<_>>());
            let swapped = b.call("transpose", vec![grouped, b.ints(perm)], Vec::new());
            let mut back = vec![m, c / g];
            back.extend(kernel.iter().copied());
            b.call("reshape", vec![swapped, b.ints(back)], Vec::new())
        };
        let plan = match Windows::plan(
            rank,
            &kernel,
            &vec![1; r],
            &dilations,
            &vec![0; 2 * r],
            &inner,
            false,
        ) {
            Ok(plan) => plan,
            Err(why) => return fail(why),
        };
        debug_assert_eq!(plan.outs, outs);
        let total = plan.conv_sum(b, padded, weight, c, m, g);
        Ok(if nodes.len() == 3 {
            b.bin(Add, total, b.per_channel(v(2), rank))
        } else {
            total
        })
    }

    /// `resize`'s resized axes: `(axis, length, output length, scale)` per axis that changes
    /// (from `scales` or `sizes`, over `axes` or every axis).
    fn resize_plan(&self) -> Result<Vec<(usize, i128, i128, f64)>, Refusal> {
        let span = self.span;
        let rank = self.rank;
        let xd = self.xd;
        let dims = self.dims;
        let axes = &self.args.axes;
        let scales = &self.args.scales;
        let list = |key: &str| self.args.list(key);
        let over: Vec<usize> = match &axes {
            None => (0..rank).collect(),
            Some(list) => {
                let mut out = Vec::new();
                for &a in list {
                    let k = if a < 0 { a + rank as i128 } else { a };
                    if k < 0 || k >= rank as i128 || out.contains(&(k as usize)) {
                        return fail(format!(
                            "`axes` names axis {a} twice or out of range for rank {rank}"
                        ));
                    }
                    out.push(k as usize);
                }
                out
            }
        };
        let sizes = list("sizes");
        let (count, span_of) = match (&scales, &sizes) {
            (Some((v, at)), None) => (v.len(), *at),
            (None, Some(v)) => (v.len(), span),
            _ => return fail("it takes `scales = [...]` or `sizes = [...]` (one of them)".into()),
        };
        if count != over.len() {
            return Err(Refusal::At(span_of, format!("`resize` of {}: {} values for {} axes (`axes` picks the axes; all of them without it)", type_text(xd, dims), count, over.len())));
        }
        // Per resized axis: (axis, length, output length, scale), the last first.
        let mut plan = Vec::new();
        for (i, &k) in over.iter().enumerate() {
            let len = dims[k].as_static().map(|n| n as i128);
            let (out, scale) = match (&scales, &sizes, len) {
                (Some((v, _)), _, Some(len)) => {
                    // ONNX carries `scales` as float32.
                    let s = v[i] as f32 as f64;
                    ((len as f64 * s).floor() as i128, s)
                }
                (Some((v, _)), _, None) if v[i] as f32 == 1.0 => continue,
                (None, Some(v), Some(len)) => (v[i], v[i] as f64 / len as f64),
                _ => return fail(format!("axis {k} is `{}`: a resized axis has a literal length (leave it out of `axes`, or scale it by 1)", dims[k])),
            };
            let len = len.expect("literal");
            if out < 1 || len < 1 {
                return fail(format!("axis {k} of length {len} would resize to {out}"));
            }
            if out == len && scale == 1.0 {
                continue;
            }
            plan.push((k, len, out, scale));
        }
        Ok(plan)
    }

    /// The pooling ops' windows (`max_pool`, `max_pool_with_indices`, `average_pool`,
    /// `lp_pool`): one strided view of the padded input (of `|x|^p` for `lp_pool`) per kernel
    /// position, combined by `max` or a sum.
    fn pool_windows(&self) -> Result<PoolWindows, Refusal> {
        let name = self.name;
        let rank = self.rank;
        let b = &self.b;
        let dims = self.dims;
        let auto_pad = self.args.auto_pad;
        let v = |k: usize| self.v(k);
        let float = |key: &str, default: f64| self.args.float(key, default);
        let list = |key: &str| self.args.list(key);
        let flag = |key: &str| self.args.flag(key);
        let is_max = name.starts_with("max_pool");
        let r = rank - 2;
        let Some(kernel) = list("kernel_shape") else {
            return fail("it needs `kernel_shape = [k, …]`, one size per spatial axis".into());
        };
        let strides = list("strides").unwrap_or(vec![1; r]);
        let dilations = list("dilations").unwrap_or(vec![1; r]);
        let pads = list("pads").unwrap_or(vec![0; 2 * r]);
        if r == 0
            || kernel.len() != r
            || strides.len() != r
            || dilations.len() != r
            || pads.len() != 2 * r
        {
            return fail(format!("`kernel_shape`, `strides`, `dilations` take {r} values and `pads` {} (every begin, then every end)", 2 * r));
        }
        if kernel
            .iter()
            .chain(&strides)
            .chain(&dilations)
            .any(|&k| k == 0)
        {
            return fail("kernel sizes, strides and dilations are at least 1".into());
        }
        let (lens, open) = spatial_lens(dims, &kernel, &dilations);
        let any_open = open.iter().any(|&o| o);
        if any_open && name == "max_pool_with_indices" {
            return fail("its spatial dims must be literals (the indices count them)".into());
        }
        let mut pads = pads;
        if auto_pad.0 != "notset" {
            if list("pads").is_some() {
                return Err(Refusal::At(
                    auto_pad.1,
                    format!("`{name}` takes `pads` or `auto_pad`, not both (ONNX)"),
                ));
            }
            pads = match auto_pads_open(auto_pad.0, &lens, &open, &kernel, &strides, &dilations) {
                Ok(p) => p,
                Err(why) => return fail(why),
            };
        }
        let ceil = flag("ceil_mode");
        if ceil && any_open {
            return fail("`ceil_mode = true` needs literal spatial dims".into());
        }
        if ceil && !is_max {
            return fail("`ceil_mode = true` is supported by `max_pool` only so far".into());
        }
        let mut plan = match Windows::plan(rank, &kernel, &strides, &dilations, &pads, &lens, ceil)
        {
            Ok(plan) => plan,
            Err(why) => return fail(why),
        };
        plan.open = open.clone();
        let p = float("p", 2.0);
        let source = match name {
            "lp_pool" => b.call(
                "pow",
                vec![b.call("abs", vec![v(0)], Vec::new()), b.float(p)],
                Vec::new(),
            ),
            _ => v(0),
        };
        let fill = if is_max {
            b.float(f64::NEG_INFINITY)
        } else {
            b.float(0.0)
        };
        let padded = b.call(
            "pad",
            vec![source, b.ints(plan.pads.clone())],
            vec![("value", fill)],
        );
        // One strided view per kernel offset.
        let offsets = plan.offsets();
        let combine = |a: Expr, c: Expr| {
            if is_max {
                b.call("max", vec![a, c], Vec::new())
            } else {
                b.bin(Add, a, c)
            }
        };
        let total = offsets
            .iter()
            .map(|o| plan.view(b, padded.clone(), o))
            .reduce(combine)
            .expect("a kernel has a position");
        Ok(PoolWindows {
            r,
            lens,
            open,
            plan,
            padded,
            offsets,
            total,
            p,
        })
    }

    /// `average_pool` and `lp_pool`: the windows combined; an average divides
    /// by the window's count of real elements unless `count_include_pad`.
    fn pool(&self, windows: PoolWindows) -> Result<Expr, Refusal> {
        let name = self.name;
        let span = self.span;
        let xd = self.xd;
        let b = &self.b;
        let dims = self.dims;
        let flag = |key: &str| self.args.flag(key);
        let PoolWindows {
            r,
            lens,
            open,
            plan,
            offsets,
            total,
            p,
            ..
        } = windows;
        Ok(match name {
            "lp_pool" => b.call("pow", vec![total, b.float(1.0 / p)], Vec::new()),
            _ if flag("count_include_pad") => b.bin(Div, total, b.float(offsets.len() as f64)),
            _ => {
                // The count of real elements per window: the same windows over a
                // padded tensor of ones (built from positions: no NaN from `x`).
                let mut ones: Option<Expr> = None;
                for (a, &len) in lens.iter().enumerate() {
                    let size = match &dims[2 + a] {
                        _ if !open[a] => b.int(len),
                        Dim::Named(n) => b.var(n),
                        _ => {
                            return fail(format!("`average_pool` without `count_include_pad` over the expression dim `{}`: `arange` of the real-element count cannot name it yet", dims[2 + a]));
                        }
                    };
                    let line = b.bin(
                        Add,
                        b.bin(
                            Mul,
                            b.call("arange", vec![size], vec![("dtype", b.var(xd.name()))]),
                            b.float(0.0),
                        ),
                        b.float(1.0),
                    );
                    let mut pattern: Vec<Expr> = (0..r)
                        .map(|_| Expr::Lit(LitValue::Char('x'), span))
                        .collect();
                    pattern[a] = b.int(0);
                    let line = b.call("dimshuffle", vec![line, b.list(pattern)], Vec::new());
                    ones = Some(match ones {
                        None => line,
                        Some(o) => b.bin(Mul, o, line),
                    });
                }
                let ones = ones.expect("a spatial axis");
                let lead = vec![
                    Expr::Lit(LitValue::Char('x'), span),
                    Expr::Lit(LitValue::Char('x'), span),
                ];
                let ones = b.call(
                    "dimshuffle",
                    vec![
                        ones,
                        b.list(
                            lead.into_iter()
                                .chain((0..r as i128).map(|a| b.int(a)))
                                .collect(),
                        ),
                    ],
                    Vec::new(),
                );
                let padded_ones = b.call("pad", vec![ones, b.ints(plan.pads.clone())], Vec::new());
                let count = offsets
                    .iter()
                    .map(|o| plan.view(b, padded_ones.clone(), o))
                    .reduce(|a, c| b.bin(Add, a, c))
                    .expect("a kernel has a position");
                b.bin(Div, total, count)
            }
        })
    }

    /// `global_max_pool`: the max over the spatial axes.
    fn global_max_pool(&self) -> Expr {
        let b = &self.b;
        b.call(
            "max",
            vec![self.v(0)],
            vec![
                ("axis", b.ints(self.spatial.iter().copied())),
                ("keepdims", Expr::Lit(LitValue::Bool(true), self.span)),
            ],
        )
    }

    /// `global_lp_pool`: `(Σ |x|^p)^(1/p)` over the spatial axes.
    fn global_lp_pool(&self) -> Expr {
        let span = self.span;
        let b = &self.b;
        let spatial = &self.spatial;
        let v = |k: usize| self.v(k);
        let float = |key: &str, default: f64| self.args.float(key, default);
        let p = float("p", 2.0);
        let powered = b.call(
            "pow",
            vec![b.call("abs", vec![v(0)], Vec::new()), b.float(p)],
            Vec::new(),
        );
        let s = b.call(
            "sum",
            vec![powered],
            vec![
                ("axis", b.ints(spatial.iter().copied())),
                ("keepdims", Expr::Lit(LitValue::Bool(true), span)),
            ],
        );
        b.call("pow", vec![s, b.float(1.0 / p)], Vec::new())
    }

    /// `lrn`: `x / (bias + alpha / size · Σ x²)^beta`, the sum over a window of `size`
    /// channels.
    fn lrn(&self) -> Result<Expr, Refusal> {
        let rank = self.rank;
        let b = &self.b;
        let dims = self.dims;
        let v = |k: usize| self.v(k);
        let float = |key: &str, default: f64| self.args.float(key, default);
        let int = |key: &str| self.args.int(key);
        let Some(size) = int("size") else {
            return fail("it needs `size = n`".into());
        };
        let Some(c) = dims[1].as_static() else {
            return fail("its channel dim must be a literal (the window slides over it)".into());
        };
        let (alpha, beta, bias) = (
            float("alpha", 1e-4),
            float("beta", 0.75),
            float("bias", 1.0),
        );
        // Σ over channels c - floor((size-1)/2) ..= c + ceil((size-1)/2) of x², with
        // zeros past the ends: `size` shifted slices of the padded squares.
        let (before, after) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
        let mut pads = vec![0i128; 2 * rank];
        pads[2] = before;
        pads[3] = after;
        let sq = b.bin(Mul, v(0), v(0));
        let padded = b.call("pad", vec![sq, b.ints(pads)], Vec::new());
        let mut sum: Option<Expr> = None;
        for i in 0..size {
            let s = b.call(
                "slice",
                vec![padded.clone()],
                vec![
                    ("axis", b.int(1)),
                    ("start", b.int(i)),
                    ("end", b.int(i + c as i128)),
                ],
            );
            sum = Some(match sum {
                None => s,
                Some(acc) => b.bin(Add, acc, s),
            });
        }
        let sum = sum.expect("size ≥ 1");
        let scale = b.bin(
            Add,
            b.float(bias),
            b.bin(Mul, b.float(alpha / size as f64), sum),
        );
        Ok(b.bin(
            Div,
            v(0),
            b.call("pow", vec![scale, b.float(beta)], Vec::new()),
        ))
    }

    /// `space_to_depth` and `depth_to_space`: a reshape, a transpose and a reshape.
    fn rearrange(&self) -> Result<Expr, Refusal> {
        let name = self.name;
        let rank = self.rank;
        let b = &self.b;
        let dims = self.dims;
        let mode = &self.args.mode;
        let v = |k: usize| self.v(k);
        let int = |key: &str| self.args.int(key);
        // space_to_depth / depth_to_space.
        let Some(bs) = int("blocksize") else {
            return fail("it needs `blocksize = b`".into());
        };
        if rank != 4 {
            return fail("it takes `[N, C, H, W]` tensors".into());
        }
        let lits: Option<Vec<i128>> = dims[1..]
            .iter()
            .map(|d| d.as_static().map(|n| n as i128))
            .collect();
        let Some(l) = lits else {
            return fail("its channel and spatial dims must be literals".into());
        };
        let (c, h, w) = (l[0], l[1], l[2]);
        let n = match &dims[0] {
            Dim::Static(n) => b.int(*n as i128),
            Dim::Named(n) => b.var(n),
            Dim::Expr(_) => {
                return fail(
                    "its batch dim is an expression, which a reshape target cannot name".into(),
                )
            }
        };
        let reshape = |e: Expr, to: Vec<Expr>| b.call("reshape", vec![e, b.list(to)], Vec::new());
        let transpose = |e: Expr, perm: &[i128]| {
            b.call(
                "transpose",
                vec![e, b.ints(perm.iter().copied())],
                Vec::new(),
            )
        };
        Ok(if name == "space_to_depth" {
            if h % bs != 0 || w % bs != 0 {
                return fail(format!(
                    "blocksize {bs} does not divide its height {h} and width {w}"
                ));
            }
            let t = reshape(
                v(0),
                vec![
                    n.clone(),
                    b.int(c),
                    b.int(h / bs),
                    b.int(bs),
                    b.int(w / bs),
                    b.int(bs),
                ],
            );
            let t = transpose(t, &[0, 3, 5, 1, 2, 4]);
            reshape(t, vec![n, b.int(c * bs * bs), b.int(h / bs), b.int(w / bs)])
        } else {
            if c % (bs * bs) != 0 {
                return fail(format!(
                    "blocksize² = {} does not divide its {c} channels",
                    bs * bs
                ));
            }
            let (t, perm) = if mode == "dcr" {
                (
                    reshape(
                        v(0),
                        vec![
                            n.clone(),
                            b.int(bs),
                            b.int(bs),
                            b.int(c / (bs * bs)),
                            b.int(h),
                            b.int(w),
                        ],
                    ),
                    [0, 3, 4, 1, 5, 2],
                )
            } else {
                (
                    reshape(
                        v(0),
                        vec![
                            n.clone(),
                            b.int(c / (bs * bs)),
                            b.int(bs),
                            b.int(bs),
                            b.int(h),
                            b.int(w),
                        ],
                    ),
                    [0, 1, 4, 2, 5, 3],
                )
            };
            let t = transpose(t, &perm);
            reshape(
                t,
                vec![n, b.int(c / (bs * bs)), b.int(h * bs), b.int(w * bs)],
            )
        })
    }
}

impl Checker<'_> {
    pub(super) fn check_vision(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        self.check_vision_parts(op, span, args, named)
            .into_iter()
            .next()
            .unwrap_or(Typed::Poison)
    }

    /// `max_pool_with_indices(x, …)` → `(values, indices)` (a tuple-valued op).
    pub(super) fn check_pool_with_indices(
        &mut self,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Option<Vec<Typed>> {
        let op = crate::ops::registry_row("max_pool_with_indices");
        let parts = self.check_vision_parts(op, span, args, named);
        if parts.len() != 2 || parts.iter().any(|p| matches!(p, Typed::Poison)) {
            return None;
        }
        Some(parts)
    }

    /// The vision op's value: one tensor, or for `max_pool_with_indices` two. Its named
    /// arguments (`vision_named_args`), its operands' count, dtypes and per-channel shapes,
    /// then the op's expression (a `Vision` builder; `resize` and `max_pool_with_indices`
    /// check theirs in stages), checked like any expression with the operands bound to
    /// hidden names. After a refusal the hidden names stay bound (as they always have: the
    /// graph is in error, and its expansion must not change with this layout).
    fn check_vision_parts(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Vec<Typed> {
        let name = op.name;
        let Some(named_args) = self.vision_named_args(op, span, named) else {
            return vec![Typed::Poison];
        };
        let want = match name {
            "batch_norm" => 5,
            "instance_norm" | "group_norm" => 3,
            "conv" | "conv_transpose" => args.len().clamp(2, 3),
            _ => 1,
        };
        if args.len() != want {
            let usage = match name {
                "batch_norm" => "`batch_norm(x, scale, bias, mean, var, epsilon = 1e-5)`",
                "instance_norm" => "`instance_norm(x, scale, bias, epsilon = 1e-5)`",
                "group_norm" => "`group_norm(x, scale, bias, num_groups = G, epsilon = 1e-5)`",
                _ => "one tensor and its named arguments",
            };
            self.errors.push(span, format!("`{name}` takes {usage}"));
            return vec![Typed::Poison];
        }
        // The arguments, checked once and bound to hidden names the built graph reads.
        let mut nodes = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let Some(n) = self.tensor_arg(name, a) else {
                return vec![Typed::Poison];
            };
            nodes.push(n);
            let _ = k;
        }
        let x = nodes[0];
        let (xd, dims) = (self.node(x).dtype, self.node(x).dims.clone());
        let rank = dims.len();
        let fail = |this: &mut Self, why: String| {
            this.vision_refusal(name, span, xd, &dims, Refusal::Why(why))
        };
        let rearranges = matches!(name, "space_to_depth" | "depth_to_space")
            || (name == "resize" && named_args.word("mode", "nearest") == "nearest");
        if !xd.is_float() && !rearranges {
            return fail(
                self,
                if name == "resize" {
                    "`linear` and `cubic` take float tensors (`nearest` takes every dtype)".into()
                } else {
                    "it takes float tensors".into()
                },
            );
        }
        if rank < 2 && name != "mean_variance_normalization" && !(name == "resize" && rank == 1) {
            return fail(
                self,
                "it takes `[N, C, …]` tensors of rank 2 or more".into(),
            );
        }
        for (k, &n) in nodes.iter().enumerate().skip(if name.starts_with("conv") {
            usize::MAX
        } else {
            1
        }) {
            let (d, nd) = (self.node(n).dtype, self.node(n).dims.clone());
            let expected =
                if name == "group_norm" || name == "instance_norm" || name == "batch_norm" {
                    vec![dims[1].clone()]
                } else {
                    nd.clone()
                };
            if d != xd || nd != expected {
                self.errors.push(
                    args[k].span(),
                    format!(
                        "`{name}`'s per-channel parameters are `{}`, found `{}`",
                        type_text(xd, &expected),
                        type_text(d, &nd)
                    ),
                );
                return vec![Typed::Poison];
            }
        }
        if name.starts_with("global_") && rank < 3 {
            return fail(
                self,
                "a global pool takes `[N, C, spatial…]` with at least one spatial axis".into(),
            );
        }
        let names: Vec<String> = (0..nodes.len())
            .map(|k| format!("__tg_vision{k}"))
            .collect();
        let saved: Vec<Option<Typed>> = names
            .iter()
            .zip(&nodes)
            .map(|(n, &id)| self.scope.insert(n.clone(), Typed::Strong(id)))
            .collect();
        let operands = nodes
            .iter()
            .map(|&n| (self.node(n).dtype, self.node(n).dims.clone()))
            .collect();
        let cx = Vision {
            b: Build { span },
            name,
            span,
            eps: named_args.float("epsilon", 1e-5),
            args: named_args,
            nodes: &nodes,
            names: &names,
            operands,
            xd,
            dims: &dims,
            rank,
            spatial: (2..rank as i128).collect(),
        };
        let parts = match name {
            "conv" => self.conv_parts(&cx),
            "max_pool" => self.max_pool_parts(&cx),
            "average_pool" => self.pool_parts(&cx, "average_pool"),
            "lp_pool" => self.pool_parts(&cx, "lp_pool"),
            "resize" => self.resize(&cx),
            "max_pool_with_indices" => self.max_pool_with_indices(&cx),
            _ => cx.build().map(|expr| {
                if let Some(at) = self.expanding.take() {
                    self.expansions.insert(at, expr.clone());
                }
                vec![self.check_expr(&expr)]
            }),
        };
        let parts = match parts {
            Ok(parts) => parts,
            Err(refusal) => return self.vision_refusal(name, span, xd, &dims, refusal),
        };
        for (n, old) in names.iter().zip(saved) {
            match old {
                Some(t) => self.scope.insert(n.clone(), t),
                None => self.scope.remove(n),
            };
        }
        parts
    }

    /// Reports a vision op's refusal (`Refusal`); the op's value is `Poison`.
    fn vision_refusal(
        &mut self,
        name: &str,
        span: Span,
        xd: DType,
        dims: &[Dim],
        refusal: Refusal,
    ) -> Vec<Typed> {
        match refusal {
            Refusal::Why(why) => self
                .errors
                .push(span, format!("`{name}` of {}: {why}", type_text(xd, dims))),
            Refusal::At(at, message) => self.errors.push(at, message),
            Refusal::Reported => {}
        }
        vec![Typed::Poison]
    }

    /// The named arguments of a vision op, each checked against the op's parameters and
    /// its kind of literal; `None` after an error.
    fn vision_named_args(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        named: &[NamedArg],
    ) -> Option<VisionArgs> {
        let mut args = VisionArgs {
            floats: Vec::new(),
            ints: Vec::new(),
            axes: None,
            mode: "dcr".to_string(),
            lists: Vec::new(),
            flags: Vec::new(),
            auto_pad: ("notset", span),
            words: Vec::new(),
            scales: None,
        };
        for n in named {
            self.param_spec(op, n)?;
            let key = op
                .params
                .iter()
                .find(|p| n.name == p.name)
                .map_or("", |p| p.name);
            let at = n.value.span();
            self.vision_named_arg(op.name, key, &n.value, at, &mut args)?;
        }
        Some(args)
    }

    /// One named argument of a vision op: the words (`resize`'s, `depth_to_space`'s `mode`,
    /// `auto_pad`), `scales` and `storage_order` here, the numbers in `vision_number_arg`.
    fn vision_named_arg(
        &mut self,
        name: &'static str,
        key: &'static str,
        value: &Expr,
        at: Span,
        args: &mut VisionArgs,
    ) -> Option<()> {
        match (key, value) {
            ("mode" | "coordinate_transformation_mode" | "nearest_mode", Expr::Var(v))
                if name == "resize" =>
            {
                let allowed = match key {
                    "mode" => RESIZE_MODES,
                    "nearest_mode" => NEAREST_MODES,
                    _ => COORDINATE_MODES,
                };
                match allowed.iter().find(|w| v == *w) {
                    Some(w) => args.words.push((key, w)),
                    None => {
                        self.errors.push(
                            at,
                            format!(
                                "`{key}` of `resize` is one of {} (ONNX's, lower-case)",
                                allowed
                                    .iter()
                                    .map(|w| format!("`{w}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        );
                        return None;
                    }
                }
            }
            ("mode" | "coordinate_transformation_mode" | "nearest_mode", _) if name == "resize" => {
                self.errors.push(
                    at,
                    format!(
                        "`{key}` of `resize` is a word, e.g. `{key} = {}`",
                        match key {
                            "mode" => "linear",
                            "nearest_mode" => "floor",
                            _ => "align_corners",
                        }
                    ),
                );
                return None;
            }
            ("scales", e) => {
                let items: Option<Vec<f64>> = super::tensor_ops::list_items(e)
                    .and_then(|items| items.iter().map(super::tensor_ops::float_literal).collect());
                match items {
                    Some(v) if v.iter().all(|&x| x.is_finite() && x > 0.0) => {
                        args.scales = Some((v, at))
                    }
                    _ => {
                        self.errors.push(at, "`scales` of `resize` is a list of positive float literals, one per resized axis");
                        return None;
                    }
                }
            }
            ("mode", Expr::Var(v)) if ["dcr", "crd"].contains(&v.to_string().as_str()) => {
                args.mode = v.to_string()
            }
            ("mode", _) => {
                self.errors
                    .push(at, "`mode` of `depth_to_space` is `dcr` or `crd` (ONNX's)");
                return None;
            }
            ("auto_pad", Expr::Var(v)) if AUTO_PADS.contains(&v.to_string().as_str()) => {
                args.auto_pad = (AUTO_PADS.iter().find(|m| v == *m).expect("listed"), at)
            }
            ("auto_pad", _) => {
                self.errors.push(
                    at,
                    format!("`auto_pad` of `{name}` is one of `notset`, `same_upper`, `same_lower`, `valid` (ONNX's, lower-case)"),
                );
                return None;
            }
            ("storage_order", e) => {
                if super::tensor_ops::int_literal(e) != Some(0) {
                    self.errors.push(at, "`storage_order` of `max_pool_with_indices` is 0 (row-major indices; ONNX's column-major 1 is not supported)");
                    return None;
                }
            }
            (_, value) => return self.vision_number_arg(name, key, value, at, args),
        }
        Some(())
    }

    /// A numeric named argument of a vision op: the integer lists, the flags, `axes`, the
    /// positive integers and the floats.
    fn vision_number_arg(
        &mut self,
        name: &'static str,
        key: &'static str,
        value: &Expr,
        at: Span,
        args: &mut VisionArgs,
    ) -> Option<()> {
        match (key, value) {
            (
                "kernel_shape" | "strides" | "pads" | "dilations" | "output_padding"
                | "output_shape" | "sizes",
                e,
            ) => {
                let items: Option<Vec<i128>> = super::tensor_ops::list_items(e)
                    .and_then(|items| items.iter().map(super::tensor_ops::int_literal).collect());
                match items {
                    Some(v) if v.iter().all(|&x| x >= 0) => args.lists.push((key, v)),
                    _ => {
                        self.errors.push(
                            at,
                            format!(
                                "`{key}` of `{name}` is a list of non-negative integer literals"
                            ),
                        );
                        return None;
                    }
                }
            }
            (
                "ceil_mode" | "count_include_pad" | "exclude_outside",
                Expr::Lit(LitValue::Bool(v), _),
            ) => args.flags.push((key, *v)),
            ("ceil_mode" | "count_include_pad" | "exclude_outside", _) => {
                self.errors
                    .push(at, format!("`{key}` is `true` or `false`"));
                return None;
            }
            ("axes", e) => match super::tensor_ops::list_items(e) {
                Some(items) => {
                    let mut out = Vec::new();
                    for item in items {
                        match super::tensor_ops::int_literal(item) {
                            Some(v) => out.push(v),
                            None => {
                                self.errors
                                    .push(item.span(), "an axis is an integer literal");
                                return None;
                            }
                        }
                    }
                    args.axes = Some(out);
                }
                None => {
                    self.errors
                        .push(at, "`axes` is a list of integer literals, e.g. `[0, 2, 3]`");
                    return None;
                }
            },
            ("blocksize" | "num_groups" | "size" | "group", e) => {
                match super::tensor_ops::int_literal(e) {
                    Some(v) if v > 0 => args.ints.push((key, v)),
                    _ => {
                        self.errors.push(
                            at,
                            format!("`{key}` of `{name}` is a positive integer literal"),
                        );
                        return None;
                    }
                }
            }
            (_, e) => match super::tensor_ops::float_literal(e) {
                Some(v) if v.is_finite() => args.floats.push((key, v)),
                _ => {
                    self.errors
                        .push(at, format!("`{key}` of `{name}` is a float literal"));
                    return None;
                }
            },
        }
        Some(())
    }

    /// `conv`: on the GEMM engine when check/conv_gemm.rs's rules allow it (its node, bias
    /// included, bound to `CONV_NODE_NAME`, is what the op computes), else the einsum form
    /// (`Vision::conv`); the einsum form is `derive`'s expansion either way.
    fn conv_parts(&mut self, cx: &Vision) -> Result<Vec<Typed>, Refusal> {
        use super::conv_gemm::{ConvPlan, CONV_NODE_NAME};
        let (plan, c, o, g) = cx.conv_windows()?;
        let einsum_form = cx.conv_sum_form(&plan, c, o, g);
        let gemm = ConvPlan {
            w: plan.as_plan(),
            group: g,
        };
        self.axes_hold_window(cx.nodes[0], &gemm.w, "conv");
        let operands = (cx.nodes[0], cx.nodes[1], cx.nodes.get(2).copied());
        let expr = if self.conv_on_gemm(operands, &gemm) {
            cx.b.var(CONV_NODE_NAME)
        } else {
            einsum_form.clone()
        };
        if let Some(at) = self.expanding.take() {
            self.expansions.insert(at, einsum_form);
        }
        let typed = self.check_expr(&expr);
        self.scope.remove(CONV_NODE_NAME);
        Ok(vec![typed])
    }

    /// `max_pool`: the runtime's pass when check/pool_kernel.rs's rules allow it (its node,
    /// bound to `POOL_NODE_NAME`), else the windows' expression (`Vision::pool`), which is
    /// `derive`'s expansion either way.
    /// `average_pool` and `lp_pool`: the windows' expression (`Vision::pool`), its named
    /// axes required to hold the window at call entry (as `conv`'s and `max_pool`'s).
    fn pool_parts(&mut self, cx: &Vision, op: &'static str) -> Result<Vec<Typed>, Refusal> {
        let windows = cx.pool_windows()?;
        self.axes_hold_window(cx.nodes[0], &windows.plan.as_plan(), op);
        let expr = cx.pool(windows)?;
        if let Some(at) = self.expanding.take() {
            self.expansions.insert(at, expr.clone());
        }
        Ok(vec![self.check_expr(&expr)])
    }

    fn max_pool_parts(&mut self, cx: &Vision) -> Result<Vec<Typed>, Refusal> {
        use super::pool_kernel::POOL_NODE_NAME;
        let windows = cx.pool_windows()?;
        let plan = &windows.plan;
        let kernel = plan.as_plan();
        self.axes_hold_window(cx.nodes[0], &kernel, "max_pool");
        let expr = if self.max_pool_on_kernel(cx.nodes[0], &kernel) {
            cx.b.var(POOL_NODE_NAME)
        } else {
            windows.total.clone()
        };
        if let Some(at) = self.expanding.take() {
            self.expansions.insert(at, windows.total);
        }
        let typed = self.check_expr(&expr);
        self.scope.remove(POOL_NODE_NAME);
        Ok(vec![typed])
    }

    /// `resize`: per resized axis (the last first) the phases of its taps (`resize_taps`,
    /// `resize_runs`) as strided slices, weighted and interleaved; each axis's result is
    /// checked and bound to a hidden name (`__tg_resize{k}`) the next axis reads. When
    /// check/resize_kernel.rs's rules allow it, the runtime's pass computes the same values
    /// instead (its node, bound to `RESIZE_NODE_NAME`); the stages stay `derive`'s
    /// expansion either way.
    fn resize(&mut self, cx: &Vision) -> Result<Vec<Typed>, Refusal> {
        use super::resize_kernel::RESIZE_NODE_NAME;
        let b = &cx.b;
        let dims = cx.dims;
        let v = |k: usize| cx.v(k);
        let float = |key: &str, default: f64| cx.args.float(key, default);
        let flag = |key: &str| cx.args.flag(key);
        let word = |key: &str, default: &'static str| cx.args.word(key, default);
        let m = ResizeMode {
            mode: &word("mode", "nearest"),
            coordinates: &word("coordinate_transformation_mode", "half_pixel"),
            nearest: &word("nearest_mode", "round_prefer_floor"),
            cubic_a: float("cubic_coeff_a", -0.75),
            exclude_outside: flag("exclude_outside"),
        };
        let plan = cx.resize_plan()?;
        let mut shape: Vec<Expr> = Vec::new();
        let mut cur = v(0);
        for d in dims {
            shape.push(match d {
                Dim::Static(n) => b.int(*n as i128),
                Dim::Named(n) => b.var(n),
                Dim::Expr(_) => b.int(-1),
            });
        }
        // Each stage's hidden name and expression, and per resized axis what the pass reads.
        let mut staged: Vec<(String, Expr)> = Vec::new();
        let mut pass_axes: Vec<(usize, crate::ir::ResizeTaps)> = Vec::new();
        for &(k, len, out, scale) in plan.iter().rev() {
            let taps = resize_taps(&m, len, out, scale);
            let runs = resize_runs(&taps);
            pass_axes.push((k, pass_taps(&taps, &runs, len, out)));
            let one = |e: Expr, start: i128, end: i128, step: i128| {
                b.call(
                    "slice",
                    vec![e],
                    vec![
                        ("axis", b.int(k as i128)),
                        ("start", b.int(start)),
                        ("end", b.int(end)),
                        ("step", b.int(step)),
                    ],
                )
            };
            // The outputs `o, o + p, …` (`count` of them) of one phase.
            let phase = |t: &Taps, q: i128, count: usize| -> Expr {
                let view = |i: i128| one(cur.clone(), i, i + q * (count as i128 - 1) + 1, q);
                match &t.coeffs {
                    None => view(t.idx[0]),
                    Some(c) => t
                        .idx
                        .iter()
                        .zip(c)
                        .map(|(&i, &cj)| b.bin(Mul, b.float(cj), view(i)))
                        .reduce(|a, e| b.bin(Add, a, e))
                        .expect("a neighbour"),
                }
            };
            let mut pieces = Vec::new();
            for (o0, p, q, count) in runs {
                if p == 1 {
                    pieces.push(phase(&taps[o0], q, count));
                    continue;
                }
                // Interleave the phases: `[…, count, p, …]` merged into `count·p`.
                if shape.iter().any(|e| matches!(e, Expr::Unary { .. })) {
                    return fail(
                        "a dim that is an expression cannot be named by the interleaving reshape"
                            .into(),
                    );
                }
                let parts: Vec<Expr> = (0..p)
                    .map(|f| {
                        b.call(
                            "expand_dims",
                            vec![phase(&taps[o0 + f], q, count), b.int(k as i128 + 1)],
                            Vec::new(),
                        )
                    })
                    .collect();
                let stacked = b.call(
                    "concat",
                    vec![b.list(parts)],
                    vec![("axis", b.int(k as i128 + 1))],
                );
                let mut target = shape.clone();
                target[k] = b.int((count * p) as i128);
                pieces.push(b.call("reshape", vec![stacked, b.list(target)], Vec::new()));
            }
            let resized = if pieces.len() == 1 {
                pieces.pop().expect("one piece")
            } else {
                b.call(
                    "concat",
                    vec![b.list(pieces)],
                    vec![("axis", b.int(k as i128))],
                )
            };
            shape[k] = b.int(out);
            let hidden = format!("__tg_resize{k}");
            staged.push((hidden.clone(), resized));
            cur = b.var(&hidden);
        }
        // For `derive` (its rule is this expression's): the stages as a chain of
        // `__tg_let(name, value, rest)`, which derive binds as `let`s; the checker never
        // reads it.
        let chain = staged.iter().rev().fold(cur.clone(), |rest, (n, e)| {
            b.call("__tg_let", vec![b.var(n), e.clone(), rest], Vec::new())
        });
        if self.resize_on_kernel(cx.nodes[0], &pass_axes) {
            if let Some(at) = self.expanding.take() {
                self.expansions.insert(at, chain);
            }
            let typed = self.check_expr(&b.var(RESIZE_NODE_NAME));
            self.scope.remove(RESIZE_NODE_NAME);
            return Ok(vec![typed]);
        }
        // Each stage checked once and read by name by the next axis's slices (not a copy
        // of the expression per slice).
        let mut stages: Vec<(String, Option<Typed>)> = Vec::new();
        for (hidden, resized) in staged {
            let typed = self.check_expr(&resized);
            if matches!(typed, Typed::Poison) {
                return Err(Refusal::Reported);
            }
            let old = self.scope.insert(hidden.clone(), typed);
            stages.push((hidden, old));
        }
        if let Some(at) = self.expanding.take() {
            self.expansions.insert(at, chain);
        }
        let typed = self.check_expr(&cur);
        for (n, old) in stages.into_iter().rev() {
            match old {
                Some(t) => self.scope.insert(n, t),
                None => self.scope.remove(&n),
            };
        }
        Ok(vec![typed])
    }

    /// `max_pool_with_indices`: the values (checked and bound to `__tg_vision_max`) and, per
    /// window, the least flat NCHW index (`i64`) of a position holding the maximum (or a
    /// NaN); -1 for a window of padding alone.
    fn max_pool_with_indices(&mut self, cx: &Vision) -> Result<Vec<Typed>, Refusal> {
        let span = cx.span;
        let rank = cx.rank;
        let b = &cx.b;
        let dims = cx.dims;
        let PoolWindows {
            lens,
            plan,
            padded,
            offsets,
            total,
            ..
        } = cx.pool_windows()?;
        let Some(cn) = dims[1].as_static() else {
            return fail("its channel dim must be a literal (the indices count it)".into());
        };
        let n =
            match &dims[0] {
                Dim::Static(n) => b.int(*n as i128),
                Dim::Named(n) => b.var(n),
                Dim::Expr(_) => return fail(
                    "its batch dim is an expression, which `arange` of the indices cannot name yet"
                        .into(),
                ),
            };
        // The flat NCHW index of every input element, `i64`: a sum of
        // positions along each axis times the axis's stride.
        let mut sizes = vec![n, b.int(cn as i128)];
        sizes.extend(lens.iter().map(|&l| b.int(l)));
        let mut stride = 1i128;
        let mut steps = vec![0i128; rank];
        for a in (0..rank).rev() {
            steps[a] = stride;
            stride *= if a == 0 {
                1
            } else if a == 1 {
                cn as i128
            } else {
                lens[a - 2]
            };
        }
        let mut flat: Option<Expr> = None;
        for (a, size) in sizes.into_iter().enumerate() {
            let line = b.bin(
                Mul,
                b.call("arange", vec![size], vec![("dtype", b.var("i64"))]),
                b.int(steps[a]),
            );
            let mut pattern: Vec<Expr> = (0..rank)
                .map(|_| Expr::Lit(LitValue::Char('x'), span))
                .collect();
            pattern[a] = b.int(0);
            let line = b.call("dimshuffle", vec![line, b.list(pattern)], Vec::new());
            flat = Some(match flat {
                None => line,
                Some(f) => b.bin(Add, f, line),
            });
        }
        let never = b.int(i64::MAX as i128);
        let padded_flat = b.call(
            "pad",
            vec![flat.expect("an axis"), b.ints(plan.pads.clone())],
            vec![("value", never.clone())],
        );
        // The values, checked once and read by name.
        let values = self.check_expr(&total);
        if matches!(values, Typed::Poison) {
            return Err(Refusal::Reported);
        }
        let vname = "__tg_vision_max".to_string();
        let saved_v = self.scope.insert(vname.clone(), values.clone());
        let m = b.var(&vname);
        // Each window's first position holding its maximum (or its first NaN):
        // the least flat index among the hits, padding never one.
        let picks = offsets
            .iter()
            .map(|o| {
                let xv = plan.view(b, padded.clone(), o);
                let hit = b.call(
                    "logical_or",
                    vec![
                        b.call("equal", vec![xv.clone(), m.clone()], Vec::new()),
                        b.call(
                            "logical_and",
                            vec![
                                b.call("is_nan", vec![xv], Vec::new()),
                                b.call("is_nan", vec![m.clone()], Vec::new()),
                            ],
                            Vec::new(),
                        ),
                    ],
                    Vec::new(),
                );
                b.call(
                    "where",
                    vec![hit, plan.view(b, padded_flat.clone(), o), never.clone()],
                    Vec::new(),
                )
            })
            .reduce(|a, c| b.call("min", vec![a, c], Vec::new()))
            .expect("a kernel has a position");
        // A window of padding alone has no element: -1, as ONNX's reference.
        let indices = b.call(
            "where",
            vec![
                b.call("equal", vec![picks.clone(), never.clone()], Vec::new()),
                b.int(-1),
                picks,
            ],
            Vec::new(),
        );
        let idx = self.check_expr(&indices);
        match saved_v {
            Some(t) => self.scope.insert(vname, t),
            None => self.scope.remove(&vname),
        };
        Ok(vec![values, idx])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode<'a>(mode: &'a str, coordinates: &'a str) -> ResizeMode<'a> {
        ResizeMode {
            mode,
            coordinates,
            nearest: "round_prefer_floor",
            cubic_a: -0.75,
            exclude_outside: false,
        }
    }

    /// A 2× linear upsample is a clamped output at each end and two interleaved phases
    /// between (not one piece per output).
    #[test]
    fn resize_runs_find_the_period() {
        let taps = resize_taps(&mode("linear", "half_pixel"), 16, 32, 2.0);
        assert_eq!(taps[0].idx, [0, 0]);
        assert_eq!(taps[1].idx, [0, 1]);
        assert_eq!(taps[1].coeffs.as_deref(), Some(&[0.75, 0.25][..]));
        assert_eq!(
            resize_runs(&taps),
            [(0, 1, 1, 1), (1, 2, 1, 15), (31, 1, 1, 1)]
        );
        // Nearest 3× asymmetric (rounding): three phases, then the outputs whose position
        // rounds past the end (clamped) one by one.
        let taps = resize_taps(&mode("nearest", "asymmetric"), 5, 15, 3.0);
        assert_eq!(
            resize_runs(&taps),
            [(0, 3, 1, 4), (12, 1, 1, 1), (13, 1, 1, 1), (14, 1, 1, 1)]
        );
        // A 0.5× downsample: one strided view.
        let taps = resize_taps(&mode("nearest", "asymmetric"), 8, 4, 0.5);
        assert_eq!(resize_runs(&taps), [(0, 1, 2, 4)]);
        // An integer coordinate reads the pair before it with a coefficient 0 (ONNX).
        let taps = resize_taps(&mode("linear", "align_corners"), 3, 5, 5.0 / 3.0);
        assert_eq!(taps[2].idx, [0, 1]);
        assert_eq!(taps[2].coeffs.as_deref(), Some(&[0.0, 1.0][..]));
    }
}
