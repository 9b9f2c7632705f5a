//! The derivatives of the ops that move elements: scans, views, reorganisation, gathers
//! and `einsum`. Each sends the cotangent back to where its elements came from (a reverse
//! scan, the inverse view, the slice a `concat` part fills, a scatter-add of a gather).

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{Expr, LitValue, NamedArg};
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
}

impl Backward<'_> {
    /// The rules of `STRUCTURE_OPS`: a method per op (`StructureCall`: the call being
    /// differentiated).
    pub(super) fn structure_rule(
        &mut self,
        out: &(DType, Vec<Dim>),
        func: &Ident,
        args: &[Expr],
        named: &[NamedArg],
        g: Expr,
    ) -> Result<(), syn::Error> {
        let name = func.to_string();
        let x = args.first().cloned().unwrap_or_else(|| lit_f(0.0));
        let c = StructureCall {
            name,
            out,
            func,
            args,
            named,
            g,
            x,
        };
        match (c.name.as_str(), args.len()) {
            ("cumsum", 1) => self.rule_cumsum(&c),
            ("flip", _) => self.rule_flip(&c),
            ("einsum", n) if n >= 2 => self.rule_einsum(&c),
            ("gather" | "gather_elements", 2) => self.rule_gather(&c),
            ("concat", 1) => self.rule_concat(&c),
            ("pad", 2) => self.rule_pad(&c),
            ("slice", 1) => self.rule_slice(&c),
            ("tile", 2) => self.rule_tile(&c),
            ("transpose", _) => self.rule_transpose(&c),
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

    /// `gather` and `gather_elements`: a scatter-add of the cotangent into the data's shape.
    fn rule_gather(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let name = c.name.as_str();
        let out = c.out;
        let func = c.func;
        let args = c.args;
        let named = c.named;
        let g = c.g.clone();
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
            return Err(syn::Error::new(
                func.span(),
                format!("`{}`: the derivative of `gather` along an axis other than 0 is not written yet", self.function),
            ));
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
        let mut start = 0usize;
        for part in parts {
            let (pt, pd) = self.ty_of(part)?;
            let Some(len) = pd[axis].as_static() else {
                return Err(syn::Error::new(
                    func.span(),
                    format!(
                        "`{}`: the derivative of `concat` along a named axis is not written yet",
                        self.function
                    ),
                ));
            };
            if self.live_operand(part).is_some() {
                let piece = with_named(
                    call("slice", vec![g.clone()]),
                    vec![
                        ("axis", int(axis)),
                        ("start", int(start)),
                        ("end", int(start + len)),
                    ],
                );
                let mut from = pd.clone();
                from[axis] = Dim::Static(len);
                self.send(part, piece, &(out.0, from))?;
            }
            let _ = pt;
            start += len;
        }
        Ok(())
    }

    /// `pad`: the slice of the cotangent the input fills.
    fn rule_pad(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let out = c.out;
        let func = c.func;
        let args = c.args;
        let named = c.named;
        let g = c.g.clone();
        let x = c.x.clone();
        // A constant pad's cotangent is `g` cropped back: a slice per padded axis.
        if let Some(mode) = named_value(named, "mode") {
            if !matches!(&mode, Expr::Var(m) if m == "constant") {
                return Err(no_rule(
                    self.function,
                    self.graph,
                    func,
                    "its operand (modes other than `constant`)",
                ));
            }
        }
        let (xt, xd) = self.ty_of(&x)?;
        let counts = int_list_value(&args[1])
            .ok_or_else(|| syn::Error::new(func.span(), "derive: literal pad counts"))?;
        if counts.iter().any(|&c| c < 0) {
            return Err(syn::Error::new(
                func.span(),
                format!(
                    "`{}`: the derivative of a cropping `pad` is not written yet",
                    self.function
                ),
            ));
        }
        let mut d = g.clone();
        for (k, pair) in counts.chunks(2).enumerate() {
            let (before, after) = (pair[0] as usize, pair[1] as usize);
            if before == 0 && after == 0 {
                continue;
            }
            let mut named_args = vec![("axis", int(k)), ("start", int(before))];
            if after > 0 {
                named_args.push(("end", neg(int(after))));
            }
            d = with_named(call("slice", vec![d]), named_args);
        }
        self.send(&x, d, &(out.0, xd)).map(|_| {
            let _ = xt;
        })
    }

    /// `slice`: the cotangent padded back to the input's shape.
    fn rule_slice(&mut self, c: &StructureCall) -> Result<(), syn::Error> {
        let out = c.out;
        let func = c.func;
        let named = c.named;
        let g = c.g.clone();
        let x = c.x.clone();
        // A unit-step slice of a literal axis: `g` padded back with zeros.
        let (_, xd) = self.ty_of(&x)?;
        let rank = xd.len();
        let get = |k: &str| named_value(named, k).map(|e| int_value(&e));
        let axis = normalise(get("axis").flatten().unwrap_or(0), rank)
            .map_err(|e| syn::Error::new(func.span(), e))?;
        let step = get("step").flatten().unwrap_or(1);
        let (Some(len), 1) = (xd[axis].as_static(), step) else {
            return Err(syn::Error::new(
                func.span(),
                format!("`{}`: the derivative of `slice` is written for a step of 1 along a literal axis only", self.function),
            ));
        };
        let len = len as i128;
        let clamp = |v: i128| if v < 0 { (v + len).max(0) } else { v.min(len) };
        let start = clamp(get("start").flatten().unwrap_or(0));
        let end = clamp(get("end").flatten().unwrap_or(len)).max(start);
        let mut counts = vec![int(0); 2 * rank];
        counts[2 * axis] = int(start as usize);
        counts[2 * axis + 1] = int((len - end) as usize);
        let list = Expr::Call {
            func: Ident::new("__list", Span::call_site()),
            args: counts,
            named: Vec::new(),
        };
        let d = call("pad", vec![g.clone(), list]);
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
        let mut split = Vec::new();
        let mut axes = Vec::new();
        for (k, d) in xd.iter().enumerate() {
            let Some(n) = d.as_static() else {
                return Err(syn::Error::new(
                    func.span(),
                    format!(
                        "`{}`: the derivative of `tile` of a named axis is not written yet",
                        self.function
                    ),
                ));
            };
            axes.push(2 * k);
            split.push(Dim::Static(reps[k] as usize));
            split.push(Dim::Static(n));
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
