//! The derivatives of `max_pool` and `average_pool` over literal spatial axes, written as
//! one pass over the cotangent instead of through the pools' expansions (one strided view
//! per kernel position, whose derivatives are one strided scatter each: a 3×3/2
//! `max_pool`'s backward was ~15× its forward's code; NOTES.md, issue 32).
//!
//! Rule (per spatial axis, stride `s`, dilation `d`, kernel `k`, front pad `pb`, input
//! length `L`, output length `Lo`): output `o` read padded position `o·s + j·d` for each
//! kernel position `j`. Its cotangent share `G_j[o]` goes back there, so the padded input's
//! cotangent is `Σ_j U_j[p − j·d]` with `U_j` the share spread by the stride (`s − 1` zeros
//! after each element). With `V` = `U` padded by `(k − 1)·d` in front, `U_j[p − j·d]` is
//! `V[p + (k − 1 − j)·d]`: a unit-step view. So: spread once (expand_dims, pad, reshape),
//! pad once, and add the kernel's unit-step views in one fused pass.
//! - `max_pool`: the share of kernel position `j` is `g` where `j` is the window's first
//!   maximum (row-major over the kernel; a NaN window's first NaN), else 0: JAX's
//!   convention (`select_and_scatter_add`, the first of equal maxima) and PyTorch's
//!   indices, where the pool's expansion would share ties evenly. The shares are stacked on
//!   a kernel axis `[N, C, K, out…]` (one `where` against `arange(K)`), so the spread and
//!   the pad run once for all positions.
//! - `average_pool`: every position's share is `g / count`, `count` the window's size, or
//!   without `count_include_pad` its count of real elements, a product over the axes of
//!   `max(min(k, ⌈(pb + L − o·s)/d⌉) − max(0, ⌈(pb − o·s)/d⌉), 0)` (from `arange(Lo)`).
//!
//! Taken only when every spatial length is a literal and `auto_pad` is absent or
//! `notset`; otherwise the pool is differentiated through its expansion as before.

use crate::ast::{BinOp, Expr, NamedArg};
use crate::dtype::DType;
use crate::shape::Dim;

use super::build::*;
use super::composites::CompositeCall;
use super::Backward;

/// The language's rank bound (ast.rs: "tensors have rank 6 at most").
const MAX_RANK: usize = 6;

/// A pool's windows along its literal spatial axes.
pub(super) struct Geometry {
    kernel: Vec<i128>,
    strides: Vec<i128>,
    dilations: Vec<i128>,
    /// The pad before each spatial axis.
    front: Vec<i128>,
    /// The input's and the output's spatial lengths.
    lens: Vec<i128>,
    outs: Vec<i128>,
}

/// The windows of `func(x, named…)` (input dims `xd`, output dims `od`) when it has the
/// dedicated rule: `max_pool` or `average_pool` over literal spatial lengths with explicit
/// (or no) `pads`.
pub(super) fn geometry(func: &str, named: &[NamedArg], xd: &[Dim], od: &[Dim]) -> Option<Geometry> {
    if !matches!(func, "max_pool" | "average_pool") || xd.len() < 3 || od.len() != xd.len() {
        return None;
    }
    match named_value(named, "auto_pad") {
        None => {}
        Some(Expr::Var(v)) if v == "notset" => {}
        Some(_) => return None,
    }
    let r = xd.len() - 2;
    let literal = |dims: &[Dim]| -> Option<Vec<i128>> {
        dims[2..]
            .iter()
            .map(|d| d.as_static().map(|n| n as i128))
            .collect()
    };
    let (lens, outs) = (literal(xd)?, literal(od)?);
    let list = |key: &str, default: i128, n: usize| -> Option<Vec<i128>> {
        match named_value(named, key) {
            None => Some(vec![default; n]),
            Some(e) => int_list_value(&e).filter(|l| l.len() == n),
        }
    };
    let kernel = list("kernel_shape", 0, r)?;
    let pads = list("pads", 0, 2 * r)?;
    let geo = Geometry {
        kernel,
        strides: list("strides", 1, r)?,
        dilations: list("dilations", 1, r)?,
        front: pads[..r].to_vec(),
        lens,
        outs,
    };
    let lead = if func == "max_pool" { 2 } else { 1 };
    (geo.spread_rank(lead) <= MAX_RANK).then_some(geo)
}

impl Geometry {
    fn rank(&self) -> usize {
        self.lens.len() + 2
    }

    /// The rank of `spread_back`'s widest tensor: `lead` axes (`N·C`, and `K` for
    /// `max_pool`), the spatial axes, and a spread axis after each strided one.
    fn spread_rank(&self, lead: usize) -> usize {
        lead + self.lens.len() + self.strides.iter().filter(|&&s| s > 1).count()
    }

    /// `pad`'s counts for the input (`rank` axes): the front pads, and at the end what
    /// the last window reaches past the input (ceil mode reaches past the given pads).
    fn full_pads(&self, rank: usize) -> Expr {
        let mut counts = vec![0usize; 2 * rank];
        for a in 0..self.lens.len() {
            let reach =
                (self.outs[a] - 1) * self.strides[a] + (self.kernel[a] - 1) * self.dilations[a] + 1;
            counts[2 * (a + 2)] = self.front[a] as usize;
            counts[2 * (a + 2) + 1] = (reach - self.front[a] - self.lens[a]).max(0) as usize;
        }
        int_list(&counts)
    }

    /// Every kernel position, the last axis fastest (the forward's order).
    fn offsets(&self) -> Vec<Vec<i128>> {
        let mut offsets: Vec<Vec<i128>> = vec![Vec::new()];
        for &k in &self.kernel {
            offsets = offsets
                .into_iter()
                .flat_map(|o| (0..k).map(move |i| [o.clone(), vec![i]].concat()))
                .collect();
        }
        offsets
    }

    /// The strided view of the padded input `xp` that kernel position `offset` reads.
    fn view(&self, xp: Expr, offset: &[i128]) -> Expr {
        let mut e = xp;
        for (a, &o) in offset.iter().enumerate() {
            let start = o * self.dilations[a];
            let end = start + (self.outs[a] - 1) * self.strides[a] + 1;
            e = with_named(
                call("slice", vec![e]),
                vec![
                    ("axis", int(a + 2)),
                    ("start", sint(start)),
                    ("end", sint(end)),
                    ("step", sint(self.strides[a])),
                ],
            );
        }
        e
    }

    /// `shares` (`[N·C, out…]`, or with `kernel` `[N·C, K, out…]`) sent back to the
    /// input: spread by the strides and padded into one temp, then for each kernel
    /// position its unit-step view (with `kernel`, of its own slice of the kernel axis),
    /// summed: `[N·C, (1,) L…]`. (`N·C` merged keeps the spread within rank 6.)
    ///
    /// The spread is `where` over a broadcast (each output element gets a new axis of
    /// `s`, the share at its position 0), and the pad is in whole strides before the
    /// merge, so the temp's nest has at most 3 regions per axis (a pad of the spread
    /// axis would double them, and views of a pad after the merge would cut the views'
    /// nest into regions each).
    fn spread_back(&self, shares: Expr, kernel: Option<usize>) -> Result<Expr, String> {
        let mut merged: Vec<Expr> = vec![sint(-1)];
        merged.extend(kernel.map(int));
        let first = merged.len();
        let r = self.lens.len();
        // [N·C, (K,) Lo_1, (1,) Lo_2, (1,) …] (a new axis after each strided one), then
        // `where` against the first-of-stride mask broadcasts it to [… Lo_1, s_1, …].
        let mut e = shares;
        let mut mask: Option<Expr> = None;
        let wide_rank = self.spread_rank(first);
        // Each spatial axis's place in the wide shape.
        let mut at = Vec::new();
        let mut next = first;
        for a in 0..r {
            at.push(next);
            next += 1;
            let s = self.strides[a];
            if s > 1 {
                let axis = next;
                next += 1;
                e = call("expand_dims", vec![e, int(axis)]);
                let mut shape = vec![Dim::Static(1); wide_rank];
                shape[axis] = Dim::Static(s as usize);
                let at = binary(
                    BinOp::Eq,
                    reshape(call("arange", vec![int(s as usize)]), &shape)?,
                    int(0),
                );
                mask = Some(match mask {
                    None => at,
                    Some(m) => binary(BinOp::And, m, at),
                });
            }
        }
        if let Some(m) = mask {
            e = call("where", vec![m, e, lit_f(0.0)]);
        }
        // Pads in whole strides: `fronts` in front (so that the first view starts at or
        // after 0), enough behind for the last view's end.
        let mut counts = vec![0i128; 2 * wide_rank];
        let mut fronts = Vec::new();
        for a in 0..r {
            let s = self.strides[a];
            let reach = (self.kernel[a] - 1) * self.dilations[a];
            let front = (reach + s - 1) / s;
            let back = ((self.front[a] + self.lens[a] - self.outs[a] * s + s - 1) / s).max(0);
            counts[2 * at[a]] = front;
            counts[2 * at[a] + 1] = back;
            merged.push(int(((self.outs[a] + front + back) * s) as usize));
            fronts.push(front * s);
        }
        let list = list_of(counts.iter().map(|&c| sint(c)).collect());
        // The reshape merges each spread into its axis and puts the result in a temp.
        let merged = list_of(merged);
        let v = call("reshape", vec![call("pad", vec![e, list]), merged]);
        let terms = self.offsets().into_iter().enumerate().map(|(j, offset)| {
            let mut t = v.clone();
            if kernel.is_some() {
                t = with_named(
                    call("slice", vec![t]),
                    vec![("axis", int(1)), ("start", int(j)), ("end", int(j + 1))],
                );
            }
            for (a, &o) in offset.iter().enumerate() {
                // U_j[p − j·d] with p = pb + h, U starting at `fronts[a]`.
                let start = fronts[a] + self.front[a] - o * self.dilations[a];
                t = with_named(
                    call("slice", vec![t]),
                    vec![
                        ("axis", int(first + a)),
                        ("start", sint(start)),
                        ("end", sint(start + self.lens[a])),
                    ],
                );
            }
            t
        });
        Ok(terms.reduce(add).expect("a kernel position"))
    }

    /// `average_pool`'s divisor per output position without `count_include_pad`: the
    /// count of real elements of each window, a product over the spatial axes (`[out…]`
    /// with 1s for `N, C`), in `dtype`.
    fn real_counts(&self, dtype: DType) -> Result<Expr, String> {
        let r = self.lens.len();
        let mut total: Option<Expr> = None;
        for a in 0..r {
            let (k, s, d) = (self.kernel[a], self.strides[a], self.dilations[a]);
            let (pb, l) = (self.front[a], self.lens[a]);
            // Kernel positions j with 0 <= o·s + j·d − pb < L: ⌈(pb − o·s)/d⌉ <= j <
            // ⌈(pb + L − o·s)/d⌉, within [0, k).
            let os = self.let_free_positions(a, s, dtype)?;
            let bound = |shift: i128| {
                call(
                    "ceil",
                    vec![div(
                        sub(cast(lit_f(shift as f64), dtype), os.clone()),
                        lit_f(d as f64),
                    )],
                )
            };
            let hi = call("min", vec![bound(pb + l), cast(lit_f(k as f64), dtype)]);
            let lo = call("max", vec![bound(pb), cast(lit_f(0.0), dtype)]);
            let count = call("max", vec![sub(hi, lo), cast(lit_f(0.0), dtype)]);
            total = Some(match total {
                None => count,
                Some(t) => mul(t, count),
            });
        }
        Ok(total.expect("a spatial axis"))
    }

    /// `o·s` for the output positions along spatial axis `a`, shaped to broadcast
    /// against `[N, C, out…]` (`[1, 1, …, Lo, …, 1]`), in `dtype`.
    fn let_free_positions(&self, a: usize, s: i128, dtype: DType) -> Result<Expr, String> {
        let rank = self.rank();
        let mut shape = vec![Dim::Static(1); rank];
        shape[a + 2] = Dim::Static(self.outs[a] as usize);
        let line = mul(
            cast(call("arange", vec![int(self.outs[a] as usize)]), dtype),
            lit_f(s as f64),
        );
        reshape(line, &shape)
    }
}

/// A DSL list of `items`.
fn list_of(items: Vec<Expr>) -> Expr {
    Expr::Call {
        func: syn::Ident::new("__list", proc_macro2::Span::call_site()),
        args: items,
        named: Vec::new(),
    }
}

impl Backward<'_> {
    /// The dedicated rule of `max_pool`/`average_pool` (`geometry` said it applies).
    pub(super) fn pool_rule(&mut self, c: &CompositeCall) -> Result<(), syn::Error> {
        let (out, func, args, named, g) = (c.out, c.func, c.args, c.named, c.g.clone());
        let err = |m: String| syn::Error::new(func.span(), m);
        let x = &args[0];
        let (xt, xd) = self.ty_of(x)?;
        let Some(geo) = geometry(&func.to_string(), named, &xd, &out.1) else {
            return Err(err(format!(
                "internal error of `graph!`: `{}` took `{func}`'s dedicated rule outside its conditions",
                self.function
            )));
        };
        let k: usize = geo.kernel.iter().map(|&k| k as usize).product();
        let summed = if func == "max_pool" {
            // The first maximum's kernel position per window (K where none, a window of
            // padding alone), then the cotangent stacked on a kernel axis at it.
            let never = cast(lit_f(k as f64), xt);
            let inf = crate::ast::Expr::Lit(
                crate::ast::LitValue::Float(f64::INFINITY, "inf".into()),
                proc_macro2::Span::call_site(),
            );
            let xp = with_named(
                call("pad", vec![x.clone(), geo.full_pads(xd.len())]),
                vec![("value", neg(inf))],
            );
            let xp = self.let_(xp);
            let y = c.v.clone();
            let first = geo
                .offsets()
                .iter()
                .enumerate()
                .map(|(j, o)| {
                    let xv = geo.view(xp.clone(), o);
                    let hit = binary(
                        BinOp::Or,
                        binary(BinOp::Eq, xv.clone(), y.clone()),
                        binary(
                            BinOp::And,
                            call("is_nan", vec![xv]),
                            call("is_nan", vec![y.clone()]),
                        ),
                    );
                    call("where", vec![hit, cast(lit_f(j as f64), xt), never.clone()])
                })
                .reduce(|a, b| call("min", vec![a, b]))
                .expect("a kernel position");
            // In a temp (a reshape to its own dims): the stacked shares read it K times.
            let first = self.let_(reshape(first, &out.1).map_err(err)?);
            let mut axis_k = vec![Dim::Static(1); xd.len() + 1];
            axis_k[2] = Dim::Static(k);
            let positions =
                reshape(cast(call("arange", vec![int(k)]), xt), &axis_k).map_err(err)?;
            let shares = call(
                "where",
                vec![
                    binary(
                        BinOp::Eq,
                        call("expand_dims", vec![first, int(2)]),
                        positions,
                    ),
                    call("expand_dims", vec![g, int(2)]),
                    cast(lit_f(0.0), xt),
                ],
            );
            let shares = self.let_(shares);
            let mut merged = vec![sint(-1), int(k)];
            merged.extend(out.1[2..].iter().map(|d| int(d.as_static().unwrap_or(1))));
            let merged = self.let_(call("reshape", vec![shares, list_of(merged)]));
            geo.spread_back(merged, Some(k)).map_err(err)?
        } else {
            let divisor = if named_bool(named, "count_include_pad").unwrap_or(false) {
                lit_f(k as f64)
            } else {
                geo.real_counts(xt).map_err(err)?
            };
            let mut merged = vec![sint(-1)];
            merged.extend(out.1[2..].iter().map(|d| int(d.as_static().unwrap_or(1))));
            let shares = self.let_(call("reshape", vec![div(g, divisor), list_of(merged)]));
            geo.spread_back(shares, None).map_err(err)?
        };
        let d = reshape(summed, &xd).map_err(err)?;
        self.send(x, d, &(xt, xd))
    }
}
