//! The derivatives of the ops that move elements: scans, views, reorganisation, gathers
//! and `einsum`. Each sends the cotangent back to where its elements came from (a reverse
//! scan, the inverse view, the slice a `concat` part fills, a scatter-add of a gather).

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{BinOp, Expr, LitValue, NamedArg};
use crate::dtype::DType;
use crate::shape::Dim;

use super::build::*;
use super::{no_rule, Backward};

/// A call being differentiated by `Backward::structure_rule`: its result's type `out`, the
/// function and its arguments (`x` the first, or `0.0` without one), and the result's
/// cotangent `g`.
struct StructureCall<'a> {
    name: String,
    out: &'a (DType, Vec<Dim>),
    func: &'a Ident,
    args: &'a [Expr],
    named: &'a [NamedArg],
    g: Expr,
    x: Expr,
    /// Whether each argument carries a cotangent.
    arg_live: Vec<bool>,
}

impl Backward<'_> {
    /// The rules of `STRUCTURE_OPS`: a method per op (`StructureCall`: the call being
    /// differentiated).
    pub(super) fn structure_rule(
        &mut self,
        v: &str,
        out: &(DType, Vec<Dim>),
        func: &Ident,
        args: &[Expr],
        named: &[NamedArg],
        g: Expr,
    ) -> Result<(), syn::Error> {
        let name = func.to_string();
        let x = args.first().cloned().unwrap_or_else(|| lit_f(0.0));
        let arg_live = args
            .iter()
            .map(|a| self.live_operand(a).is_some())
            .collect();
        let c = StructureCall {
            name,
            out,
            func,
            args,
            named,
            g,
            x,
            arg_live,
        };
        match (c.name.as_str(), args.len()) {
            ("cumsum", 1) => self.rule_cumsum(&c),
            ("sort" | "top_k", 1) => self.rule_sort(v, &c),
            ("flip", _) => self.rule_flip(&c),
            ("einsum", n) if n >= 2 => self.rule_einsum(&c),
            ("gather" | "gather_elements", 2) => self.rule_gather(&c),
            ("gather_nd", 2) => self.rule_gather_nd(&c),
            ("scatter_elements" | "scatter_nd", 3) => self.rule_scatter(&c),
            ("concat", 1) => self.rule_concat(&c),
            ("pad", 2) => self.rule_pad(&c),
            ("slice", 1) => self.rule_slice(&c),
            ("tile", 2) => self.rule_tile(&c),
            ("transpose", _) => self.rule_transpose(&c),
            ("dimshuffle", 2) => self.rule_dimshuffle(&c),
            ("reshape" | "expand_dims" | "squeeze", _) => self.rule_reshape(&c),
            ("broadcast_to", _) => self.send(&c.x, c.g, out),
            // No rule: an error only if a cotangent would have to pass.
            _ if !self.any_live(&args.iter().collect::<Vec<_>>()) => Ok(()),
            _ => Err(no_rule(self.function, self.graph, func, "its operands")),
        }
    }

    /// `cumsum`: the reverse scan of the cotangent.
    fn rule_cumsum(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let out = c.out;
        let named = c.named;
        let g = c.g.clone();
        let x = c.x.clone();
        let (xt, xd) = self.ty_of(&x)?;
        // The reverse scan: each input feeds every later (or earlier) output.
        let reverse = named_bool(named, "reverse").unwrap_or(false);
        let mut keep: Vec<(&str, Expr)> = Vec::new();
        if let Some(axis) = named_value(named, "axis") {
            keep.push(("axis", axis));
        }
        if let Some(e) = named_value(named, "exclusive") {
            keep.push(("exclusive", e));
        }
        keep.push((
            "reverse",
            Expr::Lit(LitValue::Bool(!reverse), Span::call_site()),
        ));
        let d = with_named(call("cumsum", vec![g.clone()]), keep);
        self.send(&x, d, &(out.0, xd)).map(|_| {
            let _ = xt;
        })
    }

    /// `sort` and `top_k`'s values: the gradient follows the permutation (JAX's): the
    /// element that went to position `i` gets `g[i]`, so ties are not shared but routed
    /// as the ranking placed them (stable, the lower position first). Written without
    /// a scatter of computed indices (the language has none): `dx[j] = Σ_i g[i]·[idx[i]
    /// == j]`, a reduction over a one-hot comparison (`O(K·n)` per row, fused, no
    /// temp of that size), `idx` the ranking's positions (`argsort` recomputed for
    /// `sort`; `top_k`'s own second part).
    fn rule_sort(&mut self, v: &str, c: &StructureCall) -> Result<(), syn::Error> {
        let (out, func, named, x) = (c.out, c.func, c.named, c.x.clone());
        let err = |m: String| syn::Error::new(func.span(), m);
        let (xt, xd) = self.ty_of(&x)?;
        let rank = xd.len();
        let axis = literal_axis(named, -1, rank).map_err(err)?;
        if rank + 1 > 6 {
            return Err(err(format!(
                "`{}`: the derivative of `{}` of rank 6 is not written yet (it needs rank 7)",
                self.function, c.name
            )));
        }
        let idx = if c.name == "sort" {
            let mut e = call("argsort", vec![x.clone()]);
            if let Expr::Call { named: n, .. } = &mut e {
                n.extend(named.iter().cloned());
            }
            e
        } else {
            let parts = self
                .anf
                .lets
                .iter()
                .find(|l| l.name == v)
                .and_then(|l| l.tuple.clone());
            match parts.as_deref() {
                Some([_, indices]) => Expr::Var(indices.clone()),
                _ => return Err(no_rule(self.function, self.graph, func, "its values")),
            }
        };
        let Expr::Call { args: mut n, .. } = dims_list(&xd[axis..=axis]).map_err(err)? else {
            unreachable!("dims_list gives a list")
        };
        let mut column = vec![Dim::Static(1); rank + 1];
        column[axis + 1] = xd[axis].clone();
        let positions = reshape(call("arange", vec![n.remove(0)]), &column).map_err(err)?;
        let hit = binary(
            BinOp::Eq,
            call("expand_dims", vec![idx, int(axis + 1)]),
            positions,
        );
        let routed = call(
            "where",
            vec![
                hit,
                call("expand_dims", vec![c.g.clone(), int(axis + 1)]),
                cast(lit_f(0.0), out.0),
            ],
        );
        let d = with_named(call("sum", vec![routed]), vec![("axis", int_list(&[axis]))]);
        self.send(&x, d, &(out.0, xd)).map(|_| {
            let _ = xt;
        })
    }

    /// `flip`: the cotangent flipped back.
    fn rule_flip(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let out = c.out;
        let args = c.args;
        let named = c.named;
        let g = c.g.clone();
        let x = c.x.clone();
        let (_, xd) = self.ty_of(&x)?;
        let mut d = call("flip", vec![g.clone()]);
        if let Expr::Call {
            args: fargs,
            named: fnamed,
            ..
        } = &mut d
        {
            fargs.extend(args[1..].iter().cloned());
            fnamed.extend(named.iter().cloned());
        }
        self.send(&x, d, &(out.0, xd))
    }

    /// `einsum`: each operand's cotangent is the einsum of the cotangent with the other operands.
    fn rule_einsum(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let out = c.out;
        let func = c.func;
        let args = c.args;
        let g = c.g.clone();
        // d operand = einsum of the cotangent with the other operands into the
        // operand's subscripts: a product's derivative is a product. Written when
        // every index of the operand appears in the output or another operand and
        // none repeats within it (no diagonals, no `...`).
        let Some(Expr::Lit(LitValue::Str(spec), _)) = args.first() else {
            return Err(no_rule(self.function, self.graph, func, "its operands"));
        };
        let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
        let (ins, output) = match spec.split_once("->") {
            Some((i, o)) => (i.to_string(), o.to_string()),
            None => {
                return Err(syn::Error::new(
                    func.span(),
                    format!(
                        "`{}`: the derivative of an `einsum` without `->` is not written yet",
                        self.function
                    ),
                ));
            }
        };
        let subs: Vec<&str> = ins.split(',').collect();
        let operands = &args[1..];
        if subs.len() != operands.len() || spec.contains('.') {
            return Err(syn::Error::new(
                func.span(),
                format!(
                    "`{}`: the derivative of this `einsum` is not written yet",
                    self.function
                ),
            ));
        }
        for (k, operand) in operands.iter().enumerate() {
            if self.live_operand(operand).is_none() {
                continue;
            }
            let mine = subs[k];
            let others: String = subs
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, s)| *s)
                .collect::<Vec<_>>()
                .concat();
            let repeated = mine.chars().any(|c| mine.matches(c).count() > 1);
            let reachable = mine
                .chars()
                .all(|c| output.contains(c) || others.contains(c));
            if repeated || !reachable {
                return Err(syn::Error::new(
                    func.span(),
                    format!("`{}`: the derivative of `einsum(\"{spec}\")` with respect to operand {k} is not written yet (a repeated index, or one summed within that operand alone)", self.function),
                ));
            }
            let mut parts = vec![output.clone()];
            let mut inputs = vec![g.clone()];
            for (j, s) in subs.iter().enumerate() {
                if j != k {
                    parts.push(s.to_string());
                    inputs.push(operands[j].clone());
                }
            }
            let spec_k = format!("{}->{mine}", parts.join(","));
            let mut all = vec![Expr::Lit(LitValue::Str(spec_k), Span::call_site())];
            all.extend(inputs);
            let (_, od) = self.ty_of(operand)?;
            self.send(operand, call("einsum", all), &(out.0, od))?;
        }
        Ok(())
    }

    /// `gather` (any axis) and `gather_elements`: a scatter-add of the cotangent into zeros.
    fn rule_gather(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let (out, func, args, named) = (c.out, c.func, c.args, c.named);
        let (g, name) = (c.g.clone(), c.name.as_str());

        // Each read position gets the cotangent of every output element that read
        // it: a scatter-add of `g` into zeros (duplicate indices add up).
        let (data, ids) = (&args[0], &args[1]);
        let (_, dd) = self.ty_of(data)?;
        let axis = literal_axis(named, 0, dd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
        let zeros = broadcast_to(cast(lit_f(0.0), out.0), &dd)
            .map_err(|e| syn::Error::new(func.span(), e))?;
        let add = ("reduction", var("add"));
        let d = if name == "gather_elements" {
            with_named(
                call("scatter_elements", vec![zeros, ids.clone(), g.clone()]),
                vec![("axis", int(axis)), add],
            )
        } else if axis == 0 {
            let (_, idims) = self.ty_of(ids)?;
            let tuples = call("expand_dims", vec![ids.clone(), int(idims.len())]);
            with_named(
                call("scatter_nd", vec![zeros, tuples, g.clone()]),
                vec![add],
            )
        } else {
            // Along axis k: the axis moved to the front, gathered along 0, moved
            // back. `g` has the ids' q axes at k; they go first.
            let (_, idims) = self.ty_of(ids)?;
            let (q, r) = (idims.len(), dd.len());
            let ids_first: Vec<usize> = (axis..axis + q)
                .chain(0..axis)
                .chain(axis + q..r - 1 + q)
                .collect();
            let moved_g = call("transpose", vec![g.clone(), int_list(&ids_first)]);
            let mut moved: Vec<Dim> = vec![dd[axis].clone()];
            moved.extend(
                dd.iter()
                    .enumerate()
                    .filter(|(j, _)| *j != axis)
                    .map(|(_, d)| d.clone()),
            );
            let zeros = broadcast_to(cast(lit_f(0.0), out.0), &moved)
                .map_err(|e| syn::Error::new(func.span(), e))?;
            let tuples = call("expand_dims", vec![ids.clone(), int(q)]);
            let scattered = with_named(call("scatter_nd", vec![zeros, tuples, moved_g]), vec![add]);
            let back: Vec<usize> = (0..r)
                .map(|j| match j.cmp(&axis) {
                    std::cmp::Ordering::Less => j + 1,
                    std::cmp::Ordering::Equal => 0,
                    std::cmp::Ordering::Greater => j,
                })
                .collect();
            call("transpose", vec![scattered, int_list(&back)])
        };
        self.send(data, d, &(out.0, dd))
    }

    /// `concat`: each part gets the slice of the cotangent it fills.
    fn rule_concat(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let out = c.out;
        let func = c.func;
        let args = c.args;
        let named = c.named;
        let g = c.g.clone();
        // Each part's cotangent is its slice of `g` along the axis.
        let Expr::Call { args: parts, .. } = &args[0] else {
            return Err(no_rule(self.function, self.graph, func, "its operands"));
        };
        let rank = out.1.len();
        let axis = literal_axis(named, 0, rank).map_err(|e| syn::Error::new(func.span(), e))?;
        // Bounds from the front while the lengths before a part are literals, from the
        // back while those after it are (a slice bound is a literal, not an expression).
        let mut lens: Vec<Option<i128>> = Vec::new();
        for part in parts.iter() {
            let (_, pd) = self.ty_of(part)?;
            lens.push(pd[axis].as_static().map(|n| n as i128));
        }
        let sum = |range: &[Option<i128>]| range.iter().copied().sum::<Option<i128>>();
        for (k, part) in parts.iter().enumerate() {
            if self.live_operand(part).is_none() {
                continue;
            }
            let (before, after) = (sum(&lens[..k]), sum(&lens[k + 1..]));
            let bounds = match (before, lens[k], after) {
                (Some(b), Some(n), _) => Some((b, Some(b + n))),
                (Some(b), None, Some(a)) => Some((b, (a > 0).then_some(-a))),
                (None, Some(n), Some(a)) => Some((-(a + n), (a > 0).then_some(-a))),
                _ => None,
            };
            let Some((start, end)) = bounds else {
                return Err(syn::Error::new(
                    func.span(),
                    format!(
                        "`{}`: the derivative of `concat` along a named axis is written when each differentiated part has only literal lengths before it or after it",
                        self.function
                    ),
                ));
            };
            let mut at = vec![("axis", int(axis)), ("start", sint(start))];
            if let Some(end) = end {
                at.push(("end", sint(end)));
            }
            let piece = with_named(call("slice", vec![g.clone()]), at);
            let (_, pd) = self.ty_of(part)?;
            self.send(part, piece, &(out.0, pd))?;
        }
        Ok(())
    }

    /// `pad`: per axis, the cotangent cropped back (constant), the copies' cotangents added to what they copied (reflect, edge), a zero pad (a crop).
    fn rule_pad(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let (out, func, args, named) = (c.out, c.func, c.args, c.named);
        let (g, x) = (c.g.clone(), c.x.clone());

        // Per padded axis: a constant pad's cotangent is `g` cropped back; `reflect`
        // and `edge` add the cotangents of the copies to the elements they copied
        // (mirrored, or summed into the edge element); a crop's is `g` padded back
        // with zeros. Axis by axis, as each acts on its own axis.
        let mode = match named_value(named, "mode") {
            None => "constant".to_string(),
            Some(Expr::Var(m)) => m.to_string(),
            Some(_) => return Err(no_rule(self.function, self.graph, func, "its mode")),
        };
        let (_, xd) = self.ty_of(&x)?;
        let rank = xd.len();
        let counts = int_list_value(&args[1])
            .ok_or_else(|| syn::Error::new(func.span(), "derive: literal pad counts"))?;
        let function = self.function;
        let not_yet = |what: &str| {
            syn::Error::new(
                func.span(),
                format!("`{function}`: the derivative of {what} is not written yet"),
            )
        };
        let mut d = g.clone();
        for (k, pair) in counts.chunks(2).enumerate() {
            let (before, after) = (pair[0], pair[1]);
            if before == 0 && after == 0 {
                continue;
            }
            if before < 0 || after < 0 {
                if mode != "constant" {
                    return Err(not_yet("a cropping `pad` in `reflect` or `edge` mode"));
                }
                d = pad_axis(d, rank, k, -before, -after);
                continue;
            }
            let piece = |e: &Expr, start: i128, end: Option<i128>| {
                let mut at = vec![("axis", int(k)), ("start", sint(start))];
                if let Some(end) = end {
                    at.push(("end", sint(end)));
                }
                with_named(call("slice", vec![e.clone()]), at)
            };
            let middle = piece(&d, before, (after > 0).then_some(-after));
            if mode == "constant" {
                d = middle;
                continue;
            }
            let Some(n) = xd[k].as_static().map(|n| n as i128) else {
                return Err(not_yet(&format!("a `{mode}` pad of a named axis")));
            };
            let mut total = middle;
            if before > 0 {
                let front = piece(&d, 0, Some(before));
                total = add(
                    total,
                    if mode == "reflect" {
                        // Padded element i < before copied x[before - i].
                        pad_axis(along("flip", front, k), rank, k, 1, n - 1 - before)
                    } else {
                        let s = with_named(
                            call("sum", vec![front]),
                            vec![("axis", int_list(&[k])), keepdims()],
                        );
                        pad_axis(s, rank, k, 0, n - 1)
                    },
                );
            }
            if after > 0 {
                let back = piece(&d, -after, None);
                total = add(
                    total,
                    if mode == "reflect" {
                        // Padded element n + before + j copied x[n - 2 - j].
                        pad_axis(along("flip", back, k), rank, k, n - 1 - after, 1)
                    } else {
                        let s = with_named(
                            call("sum", vec![back]),
                            vec![("axis", int_list(&[k])), keepdims()],
                        );
                        pad_axis(s, rank, k, n - 1, 0)
                    },
                );
            }
            d = self.let_(total);
        }
        self.send(&x, d, &(out.0, xd))
    }

    /// `slice`: the cotangent put back where the slice read, zeros elsewhere.
    fn rule_slice(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let (out, func, named) = (c.out, c.func, c.named);
        let (g, x) = (c.g.clone(), c.x.clone());

        // The cotangent goes back to the elements the slice read, zeros elsewhere.
        // Along a literal axis any step: flipped for a negative step, spread by
        // the step (each element followed by step - 1 zeros: expand, pad,
        // merge), then padded (or cropped) into place. Along a named axis, a unit
        // step whose zero pads are literal counts, or the whole axis reversed.
        let (_, xd) = self.ty_of(&x)?;
        let rank = xd.len();
        let get = |k: &str| named_value(named, k).map(|e| int_value(&e));
        let axis = normalise(get("axis").flatten().unwrap_or(0), rank)
            .map_err(|e| syn::Error::new(func.span(), e))?;
        let step = get("step").flatten().unwrap_or(1);
        let (start, end) = (get("start").flatten(), get("end").flatten());
        let Some(len) = xd[axis].as_static().map(|n| n as i128) else {
            let d = match (start, end, step) {
                        (None | Some(0..), None | Some(..=-1), 1) => {
                            pad_axis(g.clone(), rank, axis, start.unwrap_or(0), -end.unwrap_or(0))
                        }
                        (None | Some(-1), None, -1) => along("flip", g.clone(), axis),
                        _ => {
                            return Err(syn::Error::new(
                                func.span(),
                                format!("`{}`: the derivative of `slice` of a named axis is written for a step of 1 with `start` from the front and `end` from the back (or the whole axis reversed) only", self.function),
                            ))
                        }
                    };
            return self.send(&x, d, &(out.0, xd));
        };
        // NumPy's clamped bounds and length.
        let (first, count) = if step > 0 {
            let at = |v: i128| if v < 0 { (v + len).max(0) } else { v.min(len) };
            let s = start.map_or(0, at);
            let e = end.map_or(len, at);
            (s, ((e - s + step - 1) / step).max(0))
        } else {
            let at = |v: i128| {
                if v < 0 {
                    (v + len).max(-1)
                } else {
                    v.min(len - 1)
                }
            };
            let s = start.map_or(len - 1, at);
            let e = end.map_or(-1, at);
            let count = ((s - e - step - 1) / -step).max(0);
            // The elements read, in ascending order, start here.
            (s + (count - 1).max(0) * step, count)
        };
        if count == 0 {
            let zeros = broadcast_to(cast(lit_f(0.0), out.0), &xd)
                .map_err(|e| syn::Error::new(func.span(), e))?;
            return self.send(&x, zeros, &(out.0, xd));
        }
        let stride = step.abs();
        let mut d = if step > 0 {
            g.clone()
        } else {
            along("flip", g.clone(), axis)
        };
        if stride > 1 {
            let wide = call("expand_dims", vec![d, int(axis + 1)]);
            let wide = pad_axis(wide, rank + 1, axis + 1, 0, stride - 1);
            let mut merged = out.1.clone();
            merged[axis] = Dim::Static((count * stride) as usize);
            d = reshape(wide, &merged).map_err(|e| syn::Error::new(func.span(), e))?;
        }
        let d = pad_axis(d, rank, axis, first, len - first - count * stride);
        self.send(&x, d, &(out.0, xd))
    }

    /// `tile`: the cotangent summed over the copies.
    fn rule_tile(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let out = c.out;
        let func = c.func;
        let args = c.args;
        let g = c.g.clone();
        let x = c.x.clone();
        // Each element's cotangent is the sum over its copies: `g` reshaped to
        // [r0, d0, r1, d1, …] and summed over the repeat axes.
        let (_, xd) = self.ty_of(&x)?;
        let reps = int_list_value(&args[1])
            .ok_or_else(|| syn::Error::new(func.span(), "derive: literal repeats"))?;
        // A named axis stays whole when its repeat is 1 (a reshape never splits a
        // symbolic dim, and a slice bound cannot be `N`: a named axis repeated has no
        // spelling for its copies yet).
        let mut split = Vec::new();
        let mut axes = Vec::new();
        for (k, d) in xd.iter().enumerate() {
            if d.as_static().is_none() {
                if reps[k] != 1 {
                    return Err(syn::Error::new(
                        func.span(),
                        format!(
                            "`{}`: the derivative of `tile` repeating a named axis is not written yet (only a repeat of 1 along one)",
                            self.function
                        ),
                    ));
                }
                split.push(d.clone());
                continue;
            }
            axes.push(split.len());
            split.push(Dim::Static(reps[k] as usize));
            split.push(d.clone());
        }
        let r = reshape(g.clone(), &split).map_err(|e| syn::Error::new(func.span(), e))?;
        let summed = with_named(call("sum", vec![r]), vec![("axis", int_list(&axes))]);
        self.send(&x, summed, &(out.0, xd))
    }

    /// `transpose`: the cotangent transposed back.
    fn rule_transpose(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let func = c.func;
        let args = c.args;
        let named = c.named;
        let g = c.g.clone();
        let x = c.x.clone();
        let (xt, xd) = self.ty_of(&x)?;
        let perm = match named_value(named, "perm").or_else(|| args.get(1).cloned()) {
            Some(p) => int_list_value(&p)
                .ok_or_else(|| syn::Error::new(func.span(), "derive: a literal permutation"))?,
            None => (0..xd.len() as i128).rev().collect(),
        };
        let mut inverse = vec![0usize; perm.len()];
        for (k, &p) in perm.iter().enumerate() {
            let p = normalise(p, xd.len()).map_err(|e| syn::Error::new(func.span(), e))?;
            inverse[p] = k;
        }
        let d = call("transpose", vec![g.clone(), int_list(&inverse)]);
        self.send(&x, d, &(xt, xd))
    }

    /// `gather_nd` (no batch dims): a scatter-add of the cotangent.
    fn rule_gather_nd(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let (out, func, args, named) = (c.out, c.func, c.args, c.named);
        let g = c.g.clone();

        let batch = named_value(named, "batch_dims")
            .and_then(|e| int_value(&e))
            .unwrap_or(0);
        if batch != 0 {
            return self.rule_gather_nd_batched(c, batch as usize);
        }
        let (data, ids) = (&args[0], &args[1]);
        let (_, dd) = self.ty_of(data)?;
        let zeros = broadcast_to(cast(lit_f(0.0), out.0), &dd)
            .map_err(|e| syn::Error::new(func.span(), e))?;
        let d = with_named(
            call("scatter_nd", vec![zeros, ids.clone(), g.clone()]),
            vec![("reduction", var("add"))],
        );
        self.send(data, d, &(out.0, dd))
    }

    /// `gather_nd` with `batch_dims = b`: data `[B…, D_1…D_q, R…]`, indices `[B…, I…, q]`.
    /// A scatter would need the batch positions joined to the indices, a computed index
    /// tensor, which the scatters do not take; so, as `sort`'s rule, a reduction over a
    /// one-hot comparison: `dx[B, d, R] = Σ_I g[B, I, R]·Π_t [idx_t[B, I] = d_t]`, a
    /// negative index matched counted from the end (`-1 - flip(arange(D_t))`, so named
    /// `D_t` need no dim as a value). `O(|I|·Π D_t·|R|)` per batch element, fused.
    fn rule_gather_nd_batched(&mut self, c: &StructureCall, b: usize) -> Result<(), syn::Error> {
        let (out, func, args) = (c.out, c.func, c.args);
        let err = |m: String| syn::Error::new(func.span(), m);
        let (data, ids) = (&args[0], &args[1]);
        let (_, dd) = self.ty_of(data)?;
        let (_, idims) = self.ty_of(ids)?;
        let Some(q) = idims.last().and_then(Dim::as_static) else {
            return Err(no_rule(self.function, self.graph, func, "its operands"));
        };
        if q == 0 {
            return Err(no_rule(self.function, self.graph, func, "its operands"));
        }
        let (ni, nr) = (idims.len() - 1 - b, dd.len() - b - q);
        let wide = b + ni + q + nr;
        if wide > 6 {
            return Err(err(format!(
                "`{}`: the derivative of `gather_nd` with `batch_dims` needs a rank-{wide} comparison here; tensors have rank 6 at most",
                self.function
            )));
        }
        let last = idims.len() - 1;
        let mut hit: Option<Expr> = None;
        for t in 0..q {
            // [B…, I…, 1] → [B…, I…, 1 (q slots), 1 (R…)].
            let mut idx = cast(
                with_named(
                    call("slice", vec![ids.clone()]),
                    vec![("axis", int(last)), ("start", int(t)), ("end", int(t + 1))],
                ),
                DType::I64,
            );
            for _ in 1..q + nr {
                idx = call("expand_dims", vec![idx, int(b + ni + 1)]);
            }
            let idx = self.let_(idx);
            let axis_t = dd[b + t].clone();
            let Expr::Call { args: mut n, .. } =
                dims_list(std::slice::from_ref(&axis_t)).map_err(err)?
            else {
                unreachable!("dims_list gives a list")
            };
            let n = n.remove(0);
            let mut shape = vec![Dim::Static(1); wide];
            shape[b + ni + t] = axis_t;
            let place = |e: Expr| reshape(e, &shape).map_err(err);
            let front = place(call("arange", vec![n.clone()]))?;
            let back = place(neg(add(
                with_named(
                    call("flip", vec![call("arange", vec![n])]),
                    vec![("axis", int(0))],
                ),
                int(1),
            )))?;
            let at = binary(
                BinOp::Or,
                binary(BinOp::Eq, idx.clone(), front),
                binary(BinOp::Eq, idx, back),
            );
            hit = Some(match hit {
                None => at,
                Some(h) => binary(BinOp::And, h, at),
            });
        }
        let mut gw = c.g.clone();
        for _ in 0..q {
            gw = call("expand_dims", vec![gw, int(b + ni)]);
        }
        let routed = call(
            "where",
            vec![
                hit.expect("a tuple of at least one index"),
                gw,
                cast(lit_f(0.0), out.0),
            ],
        );
        let d = if ni == 0 {
            routed
        } else {
            let axes: Vec<usize> = (b..b + ni).collect();
            with_named(call("sum", vec![routed]), vec![("axis", int_list(&axes))])
        };
        self.send(data, d, &(out.0, dd))
    }

    /// `scatter_elements`/`scatter_nd` with `add` or `none`.
    fn rule_scatter(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let (out, func, args, named) = (c.out, c.func, c.args, c.named);
        let (g, name, arg_live) = (c.g.clone(), c.name.as_str(), &c.arg_live);

        // `add`: the data's cotangent is `g`, each update's the cotangent at the
        // place it went (a gather). `none`: the data's is `g` with the written
        // places zeroed (a scatter of zeros); an update's would be `g` there only
        // for the update that won among duplicate indices, not written yet.
        let (data, ids, updates) = (&args[0], &args[1], &args[2]);
        let reduction = match named_value(named, "reduction") {
            None => "none".to_string(),
            Some(Expr::Var(r)) => r.to_string(),
            Some(_) => String::new(),
        };
        let axis_arg: Vec<(&str, Expr)> = named_value(named, "axis")
            .map(|a| vec![("axis", a)])
            .unwrap_or_default();
        if !matches!(reduction.as_str(), "none" | "add") {
            return Err(syn::Error::new(
                        func.span(),
                        format!("`{}`: the derivative of `{name}` with `reduction = {reduction}` is not written yet", self.function),
                    ));
        }
        if arg_live[0] {
            let (_, dd) = self.ty_of(data)?;
            let d = if reduction == "add" {
                g.clone()
            } else {
                let (_, ud) = self.ty_of(updates)?;
                let zeros = broadcast_to(cast(lit_f(0.0), out.0), &ud)
                    .map_err(|e| syn::Error::new(func.span(), e))?;
                with_named(
                    call(name, vec![g.clone(), ids.clone(), zeros]),
                    axis_arg.clone(),
                )
            };
            self.send(data, d, &(out.0, dd))?;
        }
        if arg_live[2] {
            let (_, ud) = self.ty_of(updates)?;
            let gather = |e: Expr| {
                if name == "scatter_elements" {
                    with_named(
                        call("gather_elements", vec![e, ids.clone()]),
                        axis_arg.clone(),
                    )
                } else {
                    call("gather_nd", vec![e, ids.clone()])
                }
            };
            let mut d = gather(g.clone());
            if reduction == "none" {
                // Only the update that was written (the last of duplicates) gets
                // the cotangent: each update's position number is scattered the
                // same way and read back; where it is its own, it won (JAX's
                // scheme for scatters with duplicate indices).
                // Position numbers row-major: Σ_k arange(d_k)·(product of the later
                // dims), a named dim's size counted as a value (a sum of ones).
                let (_, dd) = self.ty_of(data)?;
                let rank = ud.len();
                let mut number: Option<Expr> = None;
                let mut stride = 1usize;
                let mut named_stride: Option<Expr> = None;
                for k in (0..rank).rev() {
                    let mut shape = vec![Dim::Static(1); rank];
                    shape[k] = ud[k].clone();
                    let Expr::Call { args: mut n, .. } =
                        dims_list(&ud[k..=k]).map_err(|e| syn::Error::new(func.span(), e))?
                    else {
                        unreachable!("dims_list gives a list")
                    };
                    let along = reshape(call("arange", vec![n.remove(0)]), &shape)
                        .map_err(|e| syn::Error::new(func.span(), e))?;
                    let mut term = if stride == 1 {
                        along
                    } else {
                        mul(along, int(stride))
                    };
                    if let Some(s) = &named_stride {
                        term = mul(term, s.clone());
                    }
                    number = Some(match number {
                        None => term,
                        Some(n) => add(n, term),
                    });
                    match ud[k].as_static() {
                        Some(n) => stride *= n,
                        None => {
                            let size = count(DType::I64, &ud, &[k])
                                .map_err(|e| syn::Error::new(func.span(), e))?;
                            named_stride = Some(match named_stride {
                                None => size,
                                Some(s) => mul(s, size),
                            });
                        }
                    }
                }
                let number = broadcast_to(number.unwrap_or_else(|| int(0)), &ud)
                    .map_err(|e| syn::Error::new(func.span(), e))?;
                let number = self.let_(number);
                let none_yet = broadcast_to(cast(neg(int(1)), DType::I64), &dd)
                    .map_err(|e| syn::Error::new(func.span(), e))?;
                let written = with_named(
                    call(name, vec![none_yet, ids.clone(), number.clone()]),
                    axis_arg.clone(),
                );
                let won = binary(BinOp::Eq, gather(written), number);
                d = call("where", vec![won, d, lit_f(0.0)]);
            }
            self.send(updates, d, &(out.0, ud))?;
        }
        Ok(())
    }

    /// `dimshuffle`: new axes dropped, kept axes put back in input order, dropped 1s restored.
    fn rule_dimshuffle(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let (func, args) = (c.func, c.args);
        let (g, x) = (c.g.clone(), c.x.clone());

        // Output axis i is input axis pattern[i] or a new axis ('x'); size-1 input
        // axes may be dropped. Back: drop the new axes, put the kept ones in input
        // order, and reshape to the input's dims (restoring dropped 1s).
        let (xt, xd) = self.ty_of(&x)?;
        let Expr::Call { args: items, .. } = &args[1] else {
            return Err(no_rule(self.function, self.graph, func, "its pattern"));
        };
        let mut kept: Vec<usize> = Vec::new();
        for item in items {
            if let Some(a) = int_value(item) {
                kept.push(a as usize);
            }
        }
        let kept_dims: Vec<Dim> = kept.iter().map(|&a| xd[a].clone()).collect();
        let squeezed =
            reshape(g.clone(), &kept_dims).map_err(|e| syn::Error::new(func.span(), e))?;
        let mut order: Vec<usize> = (0..kept.len()).collect();
        order.sort_by_key(|&j| kept[j]);
        let ordered = call("transpose", vec![squeezed, int_list(&order)]);
        let d = reshape(ordered, &xd).map_err(|e| syn::Error::new(func.span(), e))?;
        self.send(&x, d, &(xt, xd))
    }

    /// `reshape`, `expand_dims`, `squeeze`: the cotangent reshaped back.
    fn rule_reshape(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let func = c.func;
        let g = c.g.clone();
        let x = c.x.clone();
        let (xt, xd) = self.ty_of(&x)?;
        let d = reshape(g.clone(), &xd).map_err(|m| syn::Error::new(func.span(), m))?;
        self.send(&x, d, &(xt, xd))
    }
}
