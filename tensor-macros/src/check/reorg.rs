//! Data reorganisation: `slice`, `flip`, `pad`, `tile`, `concat`. Each becomes one
//! `Reorg` node whose axes say how an output index reads its inputs (`ir::AxisMap`); no
//! op here copies anything: lowering reads the inputs through the index map inside each
//! consumer's loop nest (see `lower`). Rules (ONNX semantics; docs/language.md wins where they
//! differ, see NOTES.md):
//! - `slice(x, axis = k, start = s, end = e, step = t)`: ONNX `Slice` on one axis
//!   (several axes by nesting). Negative `s`/`e` count from the end; both clamp to the
//!   axis (`[0, n]` for `t > 0`, `[-1, n - 1]` for `t < 0`); `t ≠ 0`. Defaults as
//!   NumPy's `x[::t]`: `start` is the first element in the walking direction, `end` runs
//!   past the last. A named axis may be sliced when the result's length does not depend
//!   on the name: literal bounds (`start = 2, end = 10`, or `start = -4` for the last
//!   four), which need the axis to be at least that long at call entry (else `Err`), or
//!   the whole axis (`step = -1` reverses it).
//! - `flip(x, axis = k)` (a list of axes, or all axes when absent): `x[..., ::-1, ...]`.
//! - `pad(x, [before0, after0, before1, after1, …], value = v, mode = constant)`: one
//!   (before, after) pair per axis, in axis order (ONNX lists all befores, then all
//!   afters). Negative counts crop. `value` (default 0) is a literal or a scalar/rank-0
//!   parameter of `x`'s dtype; `mode = reflect` mirrors without repeating the edge
//!   (counts below the axis length), `mode = edge` repeats it.
//! - `tile(x, [r0, r1, …])`: one repeat count per axis (ONNX `Tile`); 0 empties the axis.
//! - `concat([a, b, …], axis = k)`: parts promote as binary operands do and must agree on
//!   every other axis (no broadcasting, as ONNX `Concat`).
//!
//! `pad`, `tile` and `concat` cut their axis into pieces, so that axis must be literal.

use proc_macro2::Span;

use super::tensor_ops::{expr_span, int_literal, list_items};
use super::{type_text, Checker, Typed};
use crate::ast::{Expr, NamedArg};
use crate::dim_expr::Poly;
use crate::ir::{
    AxisMap, NodeId, NodeKind, Offset, Piece, PieceSource, Size, SymbolicPiece, SymbolicSource,
    MAX_REGIONS,
};
use crate::ops::{ArgKind, TensorOp};
use crate::shape::Dim;

/// The most loop-nest regions a `tile` cuts its readers into (the product of its repeat
/// counts over the tiled axes); more are lowered as a broadcast and a reshape (`check_tile`).
/// Eight regions keep `tile(x, [2, 2, 2])` and `tile(x, [8])` fused into their consumers.
const TILE_MAX_REGIONS: usize = 8;

/// The named arguments of a reorganisation op, read against its row.
#[derive(Default)]
struct ReorgArgs {
    /// The `axis` argument: each axis and where it is written.
    axes: Option<Vec<(i128, Span)>>,
    ints: Vec<(&'static str, i128, Span)>,
    value: Option<NamedArg>,
    mode: Option<(String, Span)>,
}

impl ReorgArgs {
    fn int(&self, name: &str) -> Option<(i128, Span)> {
        self.ints
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|&(_, v, s)| (v, s))
    }
}

impl Checker<'_> {
    /// A row of kind `Reorg`; `args` are the positional arguments as written.
    pub(super) fn check_reorg(
        &mut self,
        op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let name = op.name;
        let Some(ra) = self.read_reorg_args(op, named) else {
            return Typed::Poison;
        };
        if name == "concat" {
            return self.check_concat(span, args, &ra);
        }
        let usage = match name {
            "slice" => "`slice(x, axis = 0, start = 1, end = 3)`",
            "flip" => "`flip(x, axis = 0)`",
            "pad" => "`pad(x, [1, 1, 0, 2])`: a (before, after) pair per axis",
            _ => "`tile(x, [2, 1])`: a repeat count per axis",
        };
        let positional = if matches!(name, "pad" | "tile") { 2 } else { 1 };
        if args.len() != positional {
            let at = args.get(positional).map(expr_span).unwrap_or(span);
            self.errors.push(at, format!("`{name}` takes {usage}"));
            return Typed::Poison;
        }
        let Some(x) = self.tensor_arg(name, &args[0]) else {
            return Typed::Poison;
        };
        match name {
            "slice" => self.check_slice(span, x, &ra),
            "flip" => self.check_flip(x, &ra),
            "pad" => self.check_pad(x, &args[1], &ra),
            _ => self.check_tile(x, &args[1]),
        }
    }

    /// A tensor argument (not a literal).
    pub(super) fn tensor_arg(&mut self, name: &str, e: &Expr) -> Option<NodeId> {
        match self.check_expr(e) {
            Typed::Strong(n) => Some(n),
            Typed::Poison => None,
            Typed::Weak(w, ws) => {
                self.errors.push(
                    ws,
                    format!(
                        "`{name}` needs a tensor, but got the untyped {}\nhelp: give it a dtype, e.g. `(… as f32)`",
                        w.describe()
                    ),
                );
                None
            }
        }
    }

    fn read_reorg_args(&mut self, op: &TensorOp, named: &[NamedArg]) -> Option<ReorgArgs> {
        let name = op.name;
        let mut ra = ReorgArgs::default();
        let mut ok = true;
        for n in named {
            let arg = n.name.to_string();
            let vspan = expr_span(&n.value);
            let Some(spec) = self.param_spec(op, n) else {
                ok = false;
                continue;
            };
            match spec.ty {
                ArgKind::Axes => {
                    let items: Vec<&Expr> = match list_items(&n.value) {
                        Some(items) if name == "flip" => items.iter().collect(),
                        _ => vec![&n.value],
                    };
                    let mut axes = Vec::new();
                    for item in items {
                        match int_literal(item) {
                            Some(v) => axes.push((v, expr_span(item))),
                            None => {
                                let list = if name == "flip" {
                                    " or a list of them"
                                } else {
                                    ""
                                };
                                self.errors.push(
                                    expr_span(item),
                                    format!("`axis` of `{name}` is an integer literal{list}, e.g. `axis = 1` or `axis = -1`"),
                                );
                                ok = false;
                            }
                        }
                    }
                    ra.axes = Some(axes);
                }
                ArgKind::Int => match int_literal(&n.value) {
                    Some(v) => ra.ints.push((spec.name, v, vspan)),
                    None => {
                        self.errors.push(
                            vspan,
                            format!("`{arg}` of `{name}` is an integer literal, e.g. `{arg} = -1`"),
                        );
                        ok = false;
                    }
                },
                ArgKind::Scalar => ra.value = Some(n.clone()),
                ArgKind::Word(words) => match &n.value {
                    Expr::Var(w) if words.contains(&w.to_string().as_str()) => {
                        ra.mode = Some((w.to_string(), vspan));
                    }
                    _ => {
                        let list: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
                        self.errors.push(
                            vspan,
                            format!("`{arg}` of `{name}` is one of {}", list.join(", ")),
                        );
                        ok = false;
                    }
                },
                ArgKind::Bool | ArgKind::DType | ArgKind::Float | ArgKind::Operand => {
                    unreachable!("reorganisation rows take axes, integers, a value and a mode")
                }
            }
        }
        ok.then_some(ra)
    }

    /// `axis` in range for rank `rank`, normalised.
    pub(super) fn reorg_axis(
        &mut self,
        name: &str,
        x: NodeId,
        axis: (i128, Span),
    ) -> Option<usize> {
        let dims = &self.node(x).dims;
        let rank = dims.len() as i128;
        let (a, s) = axis;
        if a < -rank || a >= rank {
            let shown = type_text(self.node(x).dtype, dims);
            let valid = if rank == 0 {
                "a rank-0 tensor has no axes".to_string()
            } else {
                format!("valid: -{rank}..={}", rank - 1)
            };
            self.errors.push(
                s,
                format!("`{name}`: axis {a} is out of range for {shown} ({valid})"),
            );
            return None;
        }
        Some(if a < 0 {
            (a + rank) as usize
        } else {
            a as usize
        })
    }

    /// A `Reorg` over `inputs` with every axis `Same` but `axis`.
    pub(super) fn reorg_node(
        &mut self,
        inputs: Vec<NodeId>,
        fill: Option<NodeId>,
        axes: Vec<AxisMap>,
        dims: Vec<Dim>,
    ) -> Typed {
        let dtype = self.node(inputs[0]).dtype;
        Typed::Strong(self.add(NodeKind::Reorg { inputs, fill, axes }, dtype, dims))
    }

    fn check_slice(&mut self, span: Span, x: NodeId, ra: &ReorgArgs) -> Typed {
        let Some(axis) = ra.axes.as_ref().and_then(|a| a.first().copied()) else {
            self.errors.push(
                span,
                "`slice` needs `axis = …`: `slice(x, axis = 0, start = 1, end = 3)` (nest slices for several axes)",
            );
            return Typed::Poison;
        };
        let Some(k) = self.reorg_axis("slice", x, axis) else {
            return Typed::Poison;
        };
        let (step, step_span) = ra.int("step").unwrap_or((1, span));
        if step == 0 {
            self.errors
                .push(step_span, "`step` of `slice` is a non-zero integer");
            return Typed::Poison;
        }
        let start = ra.int("start");
        let end = ra.int("end");
        let mut dims = self.node(x).dims.clone();
        let shown = type_text(self.node(x).dtype, &dims);
        let (map, len) = match dims[k].clone() {
            Dim::Static(n) => {
                let (s, len) = slice_bounds(n as i128, start.map(|s| s.0), end.map(|e| e.0), step);
                (
                    AxisMap::Affine {
                        start: Offset::lit(s),
                        step: step as isize,
                    },
                    Dim::Static(len as usize),
                )
            }
            axis @ (Dim::Named(_) | Dim::Expr(_)) => {
                match symbolic_slice(&axis, start.map(|s| s.0), end.map(|e| e.0), step) {
                    Ok((start, len, at_least)) => {
                        if let Some(m) = at_least {
                            self.graph.at_least.push((axis.clone(), m, "slice"));
                        }
                        (
                            AxisMap::Affine {
                                start,
                                step: step as isize,
                            },
                            len,
                        )
                    }
                    Err(why) => {
                        let at = start.or(end).map(|s| s.1).unwrap_or(span);
                        self.errors.push(
                            at,
                            format!("`slice` of the axis `{axis}` of {shown}: {why}"),
                        );
                        return Typed::Poison;
                    }
                }
            }
        };
        dims[k] = len;
        let mut axes = vec![AxisMap::Same; dims.len()];
        axes[k] = map;
        self.reorg_node(vec![x], None, axes, dims)
    }

    fn check_flip(&mut self, x: NodeId, ra: &ReorgArgs) -> Typed {
        let dims = self.node(x).dims.clone();
        let flipped: Vec<usize> = match &ra.axes {
            None => (0..dims.len()).collect(),
            Some(axes) => {
                let mut out = Vec::new();
                for &a in axes {
                    let Some(k) = self.reorg_axis("flip", x, a) else {
                        return Typed::Poison;
                    };
                    if out.contains(&k) {
                        self.errors
                            .push(a.1, format!("axis {k} is repeated in `flip`"));
                        return Typed::Poison;
                    }
                    out.push(k);
                }
                out
            }
        };
        let axes = (0..dims.len())
            .map(|k| {
                if !flipped.contains(&k) {
                    return AxisMap::Same;
                }
                // The last element first: `start = n - 1`, which holds the name.
                let start = Offset::size(&crate::ir::Size::of(&dims[k])).add(&Offset::lit(-1));
                AxisMap::Affine { start, step: -1 }
            })
            .collect();
        self.reorg_node(vec![x], None, axes, dims)
    }

    /// A list of integer literals, `count` of them (when given).
    fn int_list(
        &mut self,
        name: &str,
        e: &Expr,
        count: usize,
        what: &str,
    ) -> Option<Vec<(i128, Span)>> {
        let Some(items) = list_items(e) else {
            self.errors.push(
                expr_span(e),
                format!("`{name}` takes {what} as a list of integer literals, e.g. `[1, 2]`"),
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            match int_literal(item) {
                Some(v) => out.push((v, expr_span(item))),
                None => {
                    self.errors
                        .push(expr_span(item), "expected an integer literal");
                    return None;
                }
            }
        }
        if out.len() != count {
            self.errors.push(
                expr_span(e),
                format!(
                    "`{name}` takes {what}: {count} integers here, got {}",
                    out.len()
                ),
            );
            return None;
        }
        Some(out)
    }

    /// The literal size of axis `k` of `x`, or an error naming the op.
    fn literal_axis(&mut self, name: &str, x: NodeId, k: usize, at: Span) -> Option<usize> {
        let dims = &self.node(x).dims;
        match &dims[k] {
            Dim::Static(n) => Some(*n),
            b @ (Dim::Named(_) | Dim::Expr(_)) => {
                let shown = type_text(self.node(x).dtype, dims);
                self.errors.push(
                    at,
                    format!("`{name}` along the named axis `{b}` of {shown}: its result's length would depend on `{b}` plus a literal, which a dim cannot be\nhelp: `{name}` works along literal axes; slice or reshape the named axis elsewhere"),
                );
                None
            }
        }
    }

    fn check_pad(&mut self, x: NodeId, list: &Expr, ra: &ReorgArgs) -> Typed {
        let dims = self.node(x).dims.clone();
        let dtype = self.node(x).dtype;
        let rank = dims.len();
        let Some(counts) = self.int_list("pad", list, 2 * rank, "a (before, after) pair per axis")
        else {
            return Typed::Poison;
        };
        let mode = ra.mode.as_ref().map(|m| m.0.as_str()).unwrap_or("constant");
        if mode != "constant" {
            if let Some(v) = &ra.value {
                self.errors.push(
                    v.name.span(),
                    format!("`value` is only for `mode = constant`; `mode = {mode}` copies the tensor's own elements"),
                );
                return Typed::Poison;
            }
        }
        let fill = if mode == "constant" {
            let Some(v) = self.pad_value(x, ra) else {
                return Typed::Poison;
            };
            Some(v)
        } else {
            None
        };
        let mut out_dims = dims.clone();
        let mut axes = Vec::new();
        for k in 0..rank {
            let ((before, bs), (after, _)) = (counts[2 * k], counts[2 * k + 1]);
            if before == 0 && after == 0 {
                axes.push(AxisMap::Same);
                continue;
            }
            if dims[k].is_symbolic() {
                let Some((map, len)) = self.symbolic_pad(x, k, before, after, mode, bs) else {
                    return Typed::Poison;
                };
                axes.push(map);
                out_dims[k] = len;
                continue;
            }
            let Some(n) = self.literal_axis("pad", x, k, bs) else {
                return Typed::Poison;
            };
            let n = n as i128;
            let total = n + before + after;
            if total < 0 {
                self.errors.push(
                    expr_span(list),
                    format!(
                        "`pad` crops axis {k} of {} below nothing: {n} + {before} + {after} < 0",
                        type_text(dtype, &dims)
                    ),
                );
                return Typed::Poison;
            }
            if mode != "constant" {
                let limit = if mode == "reflect" { n - 1 } else { i128::MAX };
                if n == 0 || before > limit || after > limit {
                    let why = if mode == "reflect" {
                        format!("`mode = reflect` mirrors at most {} elements on each side of axis {k} (its length {n} minus 1)", (n - 1).max(0))
                    } else {
                        format!("`mode = edge` repeats an edge, and axis {k} is empty")
                    };
                    self.errors.push(bs, format!("`pad`: {why}"));
                    return Typed::Poison;
                }
            }
            // An empty result reads nothing: no pieces to find.
            axes.push(if total == 0 {
                AxisMap::Same
            } else {
                AxisMap::Pieces(pad_pieces(n, before, after, mode))
            });
            out_dims[k] = Dim::Static(total as usize);
        }
        // The pieces of several axes multiply into regions (a reflect pad of all six axes
        // is 3^6 = 729 loop nests): past `MAX_REGIONS` the pad is one pad per axis, in
        // order, each reading the last, which lowering then puts in temps where a box would
        // be cut into more (`build_regions`). Per axis the maps are unchanged: every mode's
        // index map is separable, `out[i, j] = x[m0(i), m1(j)]` or the fill.
        let regions = axes.iter().try_fold(1usize, |acc, a| match a {
            AxisMap::Pieces(p) => acc.checked_mul(p.len()),
            AxisMap::SymbolicPieces(p) => acc.checked_mul(p.len()),
            _ => Some(acc),
        });
        if regions.is_none_or(|n| n > MAX_REGIONS) {
            let mut input = x;
            let mut step_dims = dims;
            for (k, map) in axes.into_iter().enumerate() {
                if matches!(map, AxisMap::Same) {
                    continue;
                }
                let mut step_axes = vec![AxisMap::Same; rank];
                step_axes[k] = map;
                step_dims[k] = out_dims[k].clone();
                let node = NodeKind::Reorg {
                    inputs: vec![input],
                    fill,
                    axes: step_axes,
                };
                input = self.add(node, dtype, step_dims.clone());
            }
            return Typed::Strong(input);
        }
        self.reorg_node(vec![x], fill, axes, out_dims)
    }

    /// `pad` of the symbolic axis `k` (`n`) by literal counts: the pieces (fill or the
    /// input's mirrored/edge elements before and after, the input between) and the length
    /// `n + before + after`. Counts are not negative here: a crop of a symbolic axis is a
    /// `slice`. `edge` needs `n ≥ 1` and `reflect` `n > before, after`, checked at call
    /// entry.
    fn symbolic_pad(
        &mut self,
        x: NodeId,
        k: usize,
        before: i128,
        after: i128,
        mode: &str,
        at: Span,
    ) -> Option<(AxisMap, Dim)> {
        let dim = self.node(x).dims[k].clone();
        if before < 0 || after < 0 {
            let shown = type_text(self.node(x).dtype, &self.node(x).dims);
            self.errors.push(
                at,
                format!("`pad` crops the symbolic axis `{dim}` of {shown} (a negative count)\nhelp: crop a symbolic axis with `slice` (`slice(x, axis = {k}, start = 1, end = -1)`), which checks its length at call entry"),
            );
            return None;
        }
        let n = Offset::size(&Size::of(&dim));
        let lit = |v: i128| Offset::lit(v);
        let input = |start: Offset, step: isize| SymbolicSource::Input {
            input: 0,
            start,
            step,
        };
        // Output index i reads input index i - before in the middle.
        let (left, right) = match mode {
            // i < before reads before - i; i ≥ before + n reads 2(n - 1) - (i - before).
            "reflect" => (
                input(lit(before), -1),
                input(n.scale(2).add(&lit(before - 2)), -1),
            ),
            "edge" => (input(lit(0), 0), input(n.add(&lit(-1)), 0)),
            _ => (SymbolicSource::Fill, SymbolicSource::Fill),
        };
        let least = match mode {
            "reflect" => before.max(after) + 1,
            "edge" => 1,
            _ => 0,
        };
        if least > 0 {
            self.graph
                .at_least
                .push((dim.clone(), least as usize, "pad"));
        }
        let mut pieces = Vec::new();
        if before > 0 {
            pieces.push(SymbolicPiece {
                lo: lit(0),
                len: Size::lit(before as usize),
                source: left,
            });
        }
        pieces.push(SymbolicPiece {
            lo: lit(before),
            len: Size::of(&dim),
            source: input(lit(-before), 1),
        });
        if after > 0 {
            pieces.push(SymbolicPiece {
                lo: n.add(&lit(before)),
                len: Size::lit(after as usize),
                source: right,
            });
        }
        let len = Dim::from_poly(dim.poly().add(&Poly::constant(before + after)))
            .expect("a size plus non-negative counts");
        Some((AxisMap::SymbolicPieces(pieces), len))
    }

    /// `pad`'s `value`: a literal in `x`'s dtype, or a scalar/rank-0 parameter of it.
    fn pad_value(&mut self, x: NodeId, ra: &ReorgArgs) -> Option<NodeId> {
        let dtype = self.node(x).dtype;
        let Some(n) = &ra.value else {
            let zero = if dtype.is_float() {
                super::Weak::Float(0.0, Some("0.0".into()))
            } else if dtype == crate::dtype::DType::Bool {
                super::Weak::Bool(false)
            } else {
                super::Weak::Int(0)
            };
            return self.materialize(&zero, Span::call_site(), dtype, None);
        };
        match self.check_expr(&n.value) {
            Typed::Poison => None,
            Typed::Weak(w, ws) => self.materialize(&w, ws, dtype, None),
            Typed::Strong(v) => {
                let (vd, rank) = (self.node(v).dtype, self.node(v).dims.len());
                if vd == dtype && rank == 0 {
                    return Some(v);
                }
                let found = match self.node(v).kind {
                    NodeKind::Scalar { .. } => format!("the scalar `{}`", vd.name()),
                    _ => format!("`{}`", type_text(vd, &self.node(v).dims)),
                };
                self.errors.push(
                    expr_span(&n.value),
                    format!(
                        "`value` of `pad` is a literal or a scalar of the tensor's dtype `{}`, found {found}\nhelp: pass a literal (`value = 0`) or a scalar parameter `v: {}`",
                        dtype.name(),
                        dtype.name()
                    ),
                );
                None
            }
        }
    }

    fn check_tile(&mut self, x: NodeId, list: &Expr) -> Typed {
        let dims = self.node(x).dims.clone();
        let Some(reps) = self.int_list("tile", list, dims.len(), "a repeat count per axis") else {
            return Typed::Poison;
        };
        let mut out_dims = dims.clone();
        let mut axes = Vec::new();
        // A `Pieces` axis cuts every nest reading the value into one region per piece, and
        // the regions of several axes multiply: `tile(x, [7, 6, 4, 2])` was 336 loop nests
        // in one function, which overflowed rustc's stack in LLVM's ScalarEvolution in a
        // release build (issue 33). Past `TILE_MAX_REGIONS` regions the tile is instead
        // `x` broadcast along a new axis of `r` before each tiled axis, then reshaped: one
        // nest materialises it (a temp read by its consumers) whatever the counts.
        let regions = reps
            .iter()
            .enumerate()
            .filter(|&(k, &(r, _))| r >= 2 && !dims[k].is_static(0))
            .try_fold(1usize, |acc, (_, &(r, _))| acc.checked_mul(r as usize));
        let by_broadcast = regions.is_none_or(|n| n > TILE_MAX_REGIONS);
        let mut view_map = Vec::new();
        let mut view_dims = Vec::new();
        for (k, &(r, rs)) in reps.iter().enumerate() {
            if r < 0 {
                self.errors
                    .push(rs, "a repeat count of `tile` is 0 or more");
                return Typed::Poison;
            }
            if r == 1 {
                axes.push(AxisMap::Same);
                view_map.push(Some(k));
                view_dims.push(dims[k].clone());
                continue;
            }
            if dims[k].is_symbolic() {
                // `r` copies of a symbolic axis: piece `c` starts at `c·n`.
                let n = Offset::size(&Size::of(&dims[k]));
                let pieces = (0..r)
                    .map(|c| SymbolicPiece {
                        lo: n.scale(c as isize),
                        len: Size::of(&dims[k]),
                        source: SymbolicSource::Input {
                            input: 0,
                            start: n.scale(-(c as isize)),
                            step: 1,
                        },
                    })
                    .collect();
                axes.push(AxisMap::SymbolicPieces(pieces));
                out_dims[k] =
                    Dim::from_poly(dims[k].poly().scale(r)).expect("a size times a count");
                view_map.extend([None, Some(k)]);
                view_dims.extend([Dim::Static(r as usize), dims[k].clone()]);
                continue;
            }
            let Some(n) = self.literal_axis("tile", x, k, rs) else {
                return Typed::Poison;
            };
            let Some(total) = n.checked_mul(r as usize) else {
                self.errors.push(rs, "the tiled axis overflows usize");
                return Typed::Poison;
            };
            view_map.extend([None, Some(k)]);
            view_dims.extend([Dim::Static(r as usize), Dim::Static(n)]);
            let pieces = (0..r as usize)
                .filter(|_| n > 0)
                .map(|c| Piece {
                    lo: c * n,
                    hi: (c + 1) * n,
                    source: PieceSource::Input {
                        input: 0,
                        start: -((c * n) as isize),
                        step: 1,
                    },
                })
                .collect::<Vec<_>>();
            axes.push(if pieces.is_empty() {
                AxisMap::Same
            } else {
                AxisMap::Pieces(pieces)
            });
            out_dims[k] = Dim::Static(total);
        }
        if by_broadcast {
            let dtype = self.node(x).dtype;
            let view = self.add(
                NodeKind::View {
                    input: x,
                    map: view_map,
                },
                dtype,
                view_dims,
            );
            return Typed::Strong(self.add(NodeKind::Reshape { input: view }, dtype, out_dims));
        }
        self.reorg_node(vec![x], None, axes, out_dims)
    }

    fn check_concat(&mut self, span: Span, args: &[Expr], ra: &ReorgArgs) -> Typed {
        let parts_expr = match args {
            [list] => list_items(list),
            _ => None,
        };
        let Some(parts_expr) = parts_expr else {
            let at = args.first().map(expr_span).unwrap_or(span);
            self.errors.push(
                at,
                "`concat` takes a list of tensors and an axis: `concat([a, b], axis = 0)`",
            );
            return Typed::Poison;
        };
        if parts_expr.is_empty() {
            self.errors
                .push(span, "`concat` needs at least one tensor in its list");
            return Typed::Poison;
        }
        let mut parts = Vec::new();
        for e in parts_expr {
            match self.tensor_arg("concat", e) {
                Some(n) => parts.push(n),
                None => return Typed::Poison,
            }
        }
        let Some(axis) = ra.axes.as_ref().and_then(|a| a.first().copied()) else {
            self.errors.push(
                span,
                "`concat` needs `axis = …`: `concat([a, b], axis = 0)`",
            );
            return Typed::Poison;
        };
        let Some(k) = self.reorg_axis("concat", parts[0], axis) else {
            return Typed::Poison;
        };
        // Promotion, as a chain of binary operands.
        let mut dtype = self.node(parts[0]).dtype;
        for (i, &p) in parts.iter().enumerate().skip(1) {
            let pd = self.node(p).dtype;
            match crate::dtype::promote(dtype, pd) {
                Ok(d) => dtype = d,
                Err(e) => {
                    let message = super::promotion_message(
                        "`concat`",
                        dtype,
                        pd,
                        e,
                        [&parts_expr[0], &parts_expr[i]],
                    );
                    self.errors.push(expr_span(&parts_expr[i]), message);
                    return Typed::Poison;
                }
            }
        }
        let first_dims = self.node(parts[0]).dims.clone();
        let symbolic = parts
            .iter()
            .any(|&p| self.node(p).dims.get(k).is_some_and(Dim::is_symbolic));
        let mut pieces = Vec::new();
        let mut symbolic_pieces = Vec::new();
        let mut total = Poly::constant(0);
        let mut lo_offset = Offset::zero();
        let mut at = 0usize;
        for (i, &p) in parts.iter().enumerate() {
            let dims = self.node(p).dims.clone();
            let agrees = dims.len() == first_dims.len()
                && dims
                    .iter()
                    .zip(&first_dims)
                    .enumerate()
                    .all(|(j, (a, b))| j == k || a == b);
            if !agrees {
                self.errors.push(
                    expr_span(&parts_expr[i]),
                    format!(
                        "`concat` along axis {k}: {} does not match {} on the other axes",
                        type_text(self.node(p).dtype, &dims),
                        type_text(self.node(parts[0]).dtype, &first_dims)
                    ),
                );
                return Typed::Poison;
            }
            if symbolic {
                // Along names: piece `i` starts where the lengths before it end (`N`, then
                // `N + M`), and the result's length is their sum. Offsets are sums of the
                // parts' own sizes, so every size a nest uses is the dim of some node (the
                // sizes call entry computes).
                let d = &dims[k];
                let lo = lo_offset.clone();
                lo_offset = lo_offset.add(&Offset::size(&Size::of(d)));
                symbolic_pieces.push(SymbolicPiece {
                    lo: lo.clone(),
                    len: Size::of(d),
                    source: SymbolicSource::Input {
                        input: i,
                        start: lo.scale(-1),
                        step: 1,
                    },
                });
                total = total.add(&d.poly());
                continue;
            }
            let Some(n) = self.literal_axis("concat", p, k, expr_span(&parts_expr[i])) else {
                return Typed::Poison;
            };
            if n > 0 {
                pieces.push(Piece {
                    lo: at,
                    hi: at + n,
                    source: PieceSource::Input {
                        input: i,
                        start: -(at as isize),
                        step: 1,
                    },
                });
            }
            at += n;
        }
        let inputs: Vec<NodeId> = parts.iter().map(|&p| self.convert(p, dtype)).collect();
        let mut out_dims = first_dims;
        let mut axes = vec![AxisMap::Same; out_dims.len()];
        if symbolic {
            out_dims[k] = Dim::from_poly(total).expect("a sum of sizes is no negative constant");
            axes[k] = AxisMap::SymbolicPieces(symbolic_pieces);
        } else {
            out_dims[k] = Dim::Static(at);
            if !pieces.is_empty() {
                axes[k] = AxisMap::Pieces(pieces);
            }
        }
        if inputs.len() > MAX_REGIONS {
            return Typed::Strong(self.concat_groups(inputs, k, dtype));
        }
        self.reorg_node(inputs, None, axes, out_dims)
    }

    /// A `concat` of more than `MAX_REGIONS` parts (each a region of its readers' boxes,
    /// `ir::MAX_REGIONS`) as a `concat` of `concat`s of at most `MAX_REGIONS` consecutive
    /// parts, nested as deep as it takes; lowering puts the inner ones in temps where a box
    /// would be cut into more. `inputs` are checked and of one dtype.
    fn concat_groups(
        &mut self,
        inputs: Vec<NodeId>,
        k: usize,
        dtype: crate::dtype::DType,
    ) -> NodeId {
        let mut level = inputs;
        loop {
            let mut next = Vec::new();
            for group in level.chunks(MAX_REGIONS) {
                let mut dims = self.node(group[0]).dims.clone();
                let mut pieces = Vec::new();
                let mut symbolic_pieces = Vec::new();
                let symbolic = group.iter().any(|&p| self.node(p).dims[k].is_symbolic());
                let (mut at, mut lo_offset, mut total) =
                    (0usize, Offset::zero(), Poly::constant(0));
                for (i, &p) in group.iter().enumerate() {
                    let d = self.node(p).dims[k].clone();
                    if symbolic {
                        let lo = lo_offset.clone();
                        lo_offset = lo_offset.add(&Offset::size(&Size::of(&d)));
                        symbolic_pieces.push(SymbolicPiece {
                            lo: lo.clone(),
                            len: Size::of(&d),
                            source: SymbolicSource::Input {
                                input: i,
                                start: lo.scale(-1),
                                step: 1,
                            },
                        });
                        total = total.add(&d.poly());
                        continue;
                    }
                    let n = match d {
                        Dim::Static(n) => n,
                        _ => unreachable!("a literal concat's parts have literal lengths"),
                    };
                    if n > 0 {
                        pieces.push(Piece {
                            lo: at,
                            hi: at + n,
                            source: PieceSource::Input {
                                input: i,
                                start: -(at as isize),
                                step: 1,
                            },
                        });
                    }
                    at += n;
                }
                let mut axes = vec![AxisMap::Same; dims.len()];
                if symbolic {
                    dims[k] =
                        Dim::from_poly(total).expect("a sum of sizes is no negative constant");
                    axes[k] = AxisMap::SymbolicPieces(symbolic_pieces);
                } else {
                    dims[k] = Dim::Static(at);
                    if !pieces.is_empty() {
                        axes[k] = AxisMap::Pieces(pieces);
                    }
                }
                let kind = NodeKind::Reorg {
                    inputs: group.to_vec(),
                    fill: None,
                    axes,
                };
                next.push(self.add(kind, dtype, dims));
            }
            if next.len() == 1 {
                return next[0];
            }
            level = next;
        }
    }
}

/// ONNX `Slice` on an axis of literal length `n`: the first index read and the length.
pub(super) fn slice_bounds(
    n: i128,
    start: Option<i128>,
    end: Option<i128>,
    step: i128,
) -> (i128, i128) {
    let norm = |v: i128| if v < 0 { v + n } else { v };
    let (s, e) = if step > 0 {
        (
            start.map(norm).unwrap_or(0).clamp(0, n),
            end.map(norm).unwrap_or(n).clamp(0, n),
        )
    } else {
        (
            start.map(norm).unwrap_or(n - 1).clamp(-1, n - 1),
            end.map(norm).unwrap_or(-1).clamp(-1, n - 1),
        )
    };
    let len = if step > 0 {
        ((e - s + step - 1) / step).max(0)
    } else {
        ((s - e + (-step) - 1) / -step).max(0)
    };
    (if len == 0 { 0 } else { s }, len)
}

/// `slice` of the symbolic axis `axis` (a name or an expression, `n` below) with literal
/// bounds: (start, length, the least size of `n` those bounds need). A bound counts from
/// the end when negative, as NumPy's; unlike NumPy's, a bound past the axis is not clamped
/// but an `Err` at call entry (the `at_least` requirement): the length is then `n` plus a
/// literal, divided by the step (`slice(x, step = 2)` of `[N]` is `[(N + 1) / 2]`), and a
/// length that would be negative is an `Err` too (call entry evaluates every expression).
fn symbolic_slice(
    axis: &Dim,
    start: Option<i128>,
    end: Option<i128>,
    step: i128,
) -> Result<(Offset, Dim, Option<usize>), String> {
    let name = Offset::size(&crate::ir::Size::of(axis));
    let n = axis.poly();
    let at = |v: i128| -> Offset {
        if v < 0 {
            name.add(&Offset::lit(v))
        } else {
            Offset::lit(v)
        }
    };
    // Both ends on the same side of the axis: a literal length.
    let len = |s: i128, e: i128| -> i128 {
        if step > 0 {
            ((e - s + step - 1) / step).max(0)
        } else {
            ((s - e - step - 1) / -step).max(0)
        }
    };
    let need = |v: i128| -> usize { v.unsigned_abs() as usize };
    match (start, end, step) {
        // The whole axis, forwards or backwards.
        (None | Some(0), None, 1) => return Ok((Offset::zero(), axis.clone(), None)),
        (None | Some(-1), None, -1) => return Ok((at(-1), axis.clone(), None)),
        (Some(s), Some(e), _) if (s >= 0) == (e >= 0) => {
            let l = len(s, e);
            // The least length at which neither bound is clamped.
            let least = match (s >= 0, step > 0) {
                (true, true) => e,
                (true, false) => s + 1,
                (false, true) => -s,
                (false, false) => -e - 1,
            } as usize;
            if l == 0 {
                return Ok((Offset::zero(), Dim::Static(0), None));
            }
            return Ok((at(s), Dim::Static(l as usize), Some(least)));
        }
        // From a literal index from the end to the end (forwards), or from a literal index
        // from the start back to the start (backwards).
        (Some(s), None, _) if s < 0 && step > 0 => {
            let l = len(s, 0);
            return Ok((at(s), Dim::Static(l as usize), Some(need(s))));
        }
        (Some(s), None, _) if s >= 0 && step < 0 => {
            let l = len(s, -1);
            return Ok((at(s), Dim::Static(l as usize), Some(s as usize + 1)));
        }
        (None, Some(e), _) if e >= 0 && step > 0 => {
            let l = len(0, e);
            return Ok((Offset::zero(), Dim::Static(l as usize), Some(e as usize)));
        }
        (None, Some(e), _) if e < 0 && step < 0 => {
            let l = len(-1, e);
            return Ok((at(-1), Dim::Static(l as usize), Some(need(e) - 1)));
        }
        _ => {}
    }
    // The length depends on `n`: each bound is a literal or `n` plus a literal, and the
    // length `ceil((end - start) / step)`. Reads stay inside the axis when the start is
    // at or after index 0 and a forward end at most `n` (a backward start at most `n - 1`,
    // a backward end at least -1): the least `n` for that is required at call entry.
    let lit = Poly::constant;
    let from_end = |v: i128| if v < 0 { n.add(&lit(v)) } else { lit(v) };
    let (first, length, least) = if step > 0 {
        let s = start.map_or(lit(0), from_end);
        let e = end.map_or(n.clone(), from_end);
        (
            s.clone(),
            e.sub(&s).add(&lit(step - 1)).floor_div(step as u64),
            least_unclamped(start, end, step),
        )
    } else {
        let u = -step;
        let s = start.map_or(n.add(&lit(-1)), from_end);
        let e = end.map_or(lit(-1), from_end);
        (
            s.clone(),
            s.sub(&e).add(&lit(u - 1)).floor_div(u as u64),
            least_unclamped(start, end, step),
        )
    };
    let length = Dim::from_poly(length).map_err(|v| format!("the slice would have length {v}"))?;
    let first = match first.as_constant() {
        Some(v) => Offset::lit(v),
        None => at(first.sub(&n).as_constant().unwrap_or(0)),
    };
    let least = usize::try_from(least).ok().filter(|&l| l > 0);
    Ok((first, length, least))
}

/// The least axis length `n` at which no given bound of a slice is clamped: NumPy clamps a
/// forward bound into `0..=n` and a backward one into `-1..=n - 1` (after a negative bound
/// has `n` added). Every bound counts, not only those that decide the length: with a step
/// above 1 a clamped end can leave the length's expression at 0 (`start = 0, end = -5,
/// step = 3` of `n = 3`), which must still be an `Err` as the language states.
fn least_unclamped(start: Option<i128>, end: Option<i128>, step: i128) -> i128 {
    let least = |v: i128| match (v >= 0, step > 0) {
        (true, true) => v,
        (false, true) => -v,
        (true, false) => v + 1,
        (false, false) => -v - 1,
    };
    start.map_or(0, least).max(end.map_or(0, least))
}

/// The pieces of a padded axis of length `n`: fill (or mirrored/edge copies) before and
/// after, the input in the middle; negative counts crop.
fn pad_pieces(n: i128, before: i128, after: i128, mode: &str) -> Vec<Piece> {
    let total = n + before + after;
    let mut pieces = Vec::new();
    let mut push = |lo: i128, hi: i128, source: PieceSource| {
        let (lo, hi) = (lo.max(0), hi.min(total));
        if lo < hi {
            pieces.push(Piece {
                lo: lo as usize,
                hi: hi as usize,
                source,
            });
        }
    };
    let input = |start: i128, step: isize| PieceSource::Input {
        input: 0,
        start: start as isize,
        step,
    };
    // Output index i reads input index i - before in the middle.
    let (left, right) = match mode {
        // i < before reads before - i; i ≥ before + n reads 2(n - 1) - (i - before).
        "reflect" => (input(before, -1), input(2 * (n - 1) + before, -1)),
        "edge" => (input(0, 0), input(n - 1, 0)),
        _ => (PieceSource::Fill, PieceSource::Fill),
    };
    push(0, before, left);
    push(before, before + n, input(-before, 1));
    push(before + n, total, right);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NumPy's `len(range(n)[s:e:t])` and first index, written out independently.
    fn numpy(n: i128, s: Option<i128>, e: Option<i128>, t: i128) -> (i128, i128) {
        let idx: Vec<i128> = {
            let norm = |v: i128| if v < 0 { v + n } else { v };
            let mut out = Vec::new();
            if t > 0 {
                let s = s.map(norm).unwrap_or(0).clamp(0, n);
                let e = e.map(norm).unwrap_or(n).clamp(0, n);
                let mut i = s;
                while i < e {
                    out.push(i);
                    i += t;
                }
            } else {
                let s = s.map(norm).unwrap_or(n - 1).clamp(-1, n - 1);
                let e = e.map(norm).unwrap_or(-1).clamp(-1, n - 1);
                let mut i = s;
                while i > e {
                    out.push(i);
                    i += t;
                }
            }
            out
        };
        (idx.first().copied().unwrap_or(0), idx.len() as i128)
    }

    #[test]
    fn slice_bounds_match_numpy() {
        let ends: Vec<Option<i128>> = (-9..=9).map(Some).chain([None]).collect();
        for n in 0..7 {
            for &s in &ends {
                for &e in &ends {
                    for t in [-3, -2, -1, 1, 2, 3] {
                        assert_eq!(
                            slice_bounds(n, s, e, t),
                            numpy(n, s, e, t),
                            "n={n} s={s:?} e={e:?} t={t}"
                        );
                    }
                }
            }
        }
    }

    /// Every slice of a named axis types (a literal or an expression length), and for
    /// every size at least its `at_least`, the length is NumPy's, or negative (an `Err` at
    /// call entry) where NumPy's is empty; the first index is NumPy's.
    #[test]
    fn named_slices_agree_with_numpy_when_long_enough() {
        let ends: Vec<Option<i128>> = (-6..=6).map(Some).chain([None]).collect();
        let axes = [
            Dim::Named("B".into()),
            Dim::from_poly(Poly::name("B").scale(2).add(&Poly::constant(1))).unwrap(),
        ];
        for axis in &axes {
            for &s in &ends {
                for &e in &ends {
                    for t in [-3, -2, -1, 1, 2, 3] {
                        let (start, len, least) = symbolic_slice(axis, s, e, t)
                            .unwrap_or_else(|why| panic!("s={s:?} e={e:?} t={t}: {why}"));
                        let least = least.unwrap_or(0) as i128;
                        for b in 0..10i128 {
                            let n = axis.poly().eval(&|_| b).unwrap();
                            if n < least {
                                continue;
                            }
                            let (first, l) = numpy(n, s, e, t);
                            let got_len = len.poly().eval(&|_| b).unwrap();
                            let case = format!("{axis}: s={s:?} e={e:?} t={t} n={n}");
                            if got_len < 0 {
                                assert_eq!(l, 0, "{case}");
                                continue;
                            }
                            assert_eq!(got_len, l, "{case}");
                            if l > 0 {
                                let got_first: i128 = start
                                    .terms
                                    .iter()
                                    .map(|(c, names)| if names.is_empty() { *c } else { c * n })
                                    .sum();
                                assert_eq!(got_first, first, "{case}");
                            }
                        }
                    }
                }
            }
        }
    }
}
