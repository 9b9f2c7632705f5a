//! `einsum("bij,bjk->bik", a, b, …)`: NumPy's subscripts, parsed and checked while
//! compiling, written in terms of the language's own nodes.
//! - Subscripts: one group of letters per operand, `,`-separated, then `->` and the output
//!   letters; without `->` the output is every letter used once, in alphabetical order.
//!   `...` stands for leading batch dims, which broadcast as in `a + b` and lead the output.
//! - Every letter has one size across the operands (the same literal or the same name).
//! - A letter repeated in one operand takes its diagonal (`ii->i`); a letter in one operand
//!   only and not in the output is summed there first (`ij->i`).
//! - Operands contract pairwise, in an order chosen here: at each step the pair whose
//!   result has the fewest elements (named dims count as 1024). A pair's shared letters that
//!   nothing later needs are contracted by `matmul` (several of them are merged into one
//!   axis by a reshape, which needs literal sizes; with names, they are multiplied and
//!   summed instead); letters of one side only ride along as `matmul`'s batch dims.
//! - dtypes: as `matmul` (operands converted to the promoted dtype first; `f16`/`bf16` and
//!   `f32` accumulate in `f32`, integers in and as `i64`/`u64`), also for the sums of one
//!   operand's letters; one operand that nothing sums or multiplies (a permutation, a
//!   diagonal) keeps its dtype.

use std::collections::BTreeSet;

use proc_macro2::Span;

use super::matmul::product_dtypes;
use super::tensor_ops::expr_span;
use super::{type_text, Checker, Typed};
use crate::ast::{Expr, LitValue, NamedArg};
use crate::dtype::DType;
use crate::ir::{NodeId, NodeKind, ReduceKind};
use crate::ops::TensorOp;
use crate::shape::Dim;

/// A letter, or the `k`-th batch dim of `...` counted from the right.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Label {
    Batch(usize),
    Letter(char),
}

/// An operand on the way: its node and the label of each axis (distinct).
#[derive(Clone)]
struct Term {
    node: NodeId,
    labels: Vec<Label>,
}

/// The subscripts of one operand as written: letters, with `...` at most once.
struct Group {
    before: Vec<char>,
    ellipsis: bool,
    after: Vec<char>,
}

fn parse_group(text: &str) -> Result<Group, String> {
    let mut group = Group {
        before: Vec::new(),
        ellipsis: false,
        after: Vec::new(),
    };
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            if group.ellipsis {
                return Err(format!("`...` appears twice in `{text}`"));
            }
            group.ellipsis = true;
            rest = r;
            continue;
        }
        let c = rest.chars().next().expect("not empty");
        if c.is_ascii_alphabetic() {
            if group.ellipsis {
                group.after.push(c);
            } else {
                group.before.push(c);
            }
        } else if !c.is_whitespace() {
            return Err(format!(
                "`{c}` is not a subscript: `einsum` takes letters, `,`, `->` and `...`"
            ));
        }
        rest = &rest[c.len_utf8()..];
    }
    Ok(group)
}

/// `einsum`'s parsed subscripts (`Checker::einsum_subscripts`).
struct Subscripts<'a> {
    /// The subscripts as written, and where.
    text: &'a str,
    span: Span,
    /// One group per operand, and the output's (after `->`), if given.
    groups: Vec<Group>,
    output: Option<Group>,
}

impl Checker<'_> {
    /// `einsum(subscripts, operands…)`: the subscripts parsed (`einsum_subscripts`), each
    /// operand's axes labelled (`einsum_terms`), one size per label, the output's labels;
    /// then the graph: operands promoted, diagonals and lone sums (`einsum_prepare`),
    /// pairwise contractions (`einsum_contract_all`), and the output's sums and axis order.
    pub(super) fn check_einsum(
        &mut self,
        _op: &'static TensorOp,
        span: Span,
        args: &[Expr],
        named: &[NamedArg],
    ) -> Typed {
        let Some(parsed) = self.einsum_subscripts(span, args, named) else {
            return Typed::Poison;
        };
        let Subscripts {
            text: subscripts,
            span: sub_span,
            groups,
            output: output_group,
        } = parsed;
        let operands_expr = &args[1..];
        let Some((mut terms, dtype, batch_rank)) = self.einsum_terms(span, &groups, operands_expr)
        else {
            return Typed::Poison;
        };
        let Some(sizes) = self.einsum_sizes(&terms, operands_expr) else {
            return Typed::Poison;
        };
        let Some(output) = self.einsum_output(
            &output_group,
            &terms,
            &sizes,
            batch_rank,
            subscripts,
            sub_span,
        ) else {
            return Typed::Poison;
        };
        self.einsum_prepare(&mut terms, dtype, &output);
        let Some(t) = self.einsum_contract_all(terms, &sizes, &output) else {
            return Typed::Poison;
        };
        Typed::Strong(self.einsum_result(t, &output, dtype))
    }

    /// The subscripts (the first argument, a string) parsed into a group per operand and
    /// the output's group (after `->`, if given); `None` after an error (named arguments,
    /// no subscripts, no operands, a group that does not parse, a count that differs).
    fn einsum_subscripts<'a>(
        &mut self,
        span: Span,
        args: &'a [Expr],
        named: &[NamedArg],
    ) -> Option<Subscripts<'a>> {
        if let Some(n) = named.first() {
            self.errors.push(
                n.name.span(),
                format!("`einsum` has no named arguments; `{}` is not one", n.name),
            );
            return None;
        }
        let Some(Expr::Lit(LitValue::Str(subscripts), sub_span)) = args.first() else {
            let at = args.first().map(expr_span).unwrap_or(span);
            self.errors.push(
                at,
                "`einsum` takes its subscripts first, as a string: `einsum(\"ij,jk->ik\", a, b)`",
            );
            return None;
        };
        let sub_span = *sub_span;
        let operands_expr = &args[1..];
        if operands_expr.is_empty() {
            self.errors.push(
                span,
                "`einsum` needs at least one tensor after its subscripts",
            );
            return None;
        }
        // Parse.
        let (inputs_text, output_text) = match subscripts.split_once("->") {
            Some((i, o)) => (i, Some(o)),
            None => (subscripts.as_str(), None),
        };
        let mut groups = Vec::new();
        for g in inputs_text.split(',') {
            match parse_group(g) {
                Ok(g) => groups.push(g),
                Err(e) => {
                    self.errors.push(sub_span, e);
                    return None;
                }
            }
        }
        let output_group = match output_text.map(parse_group) {
            Some(Err(e)) => {
                self.errors.push(sub_span, e);
                return None;
            }
            Some(Ok(g)) => Some(g),
            None => None,
        };
        if groups.len() != operands_expr.len() {
            self.errors.push(
                sub_span,
                format!(
                    "the subscripts `{subscripts}` name {} operand(s), but `einsum` got {}",
                    groups.len(),
                    operands_expr.len()
                ),
            );
            return None;
        }
        Some(Subscripts {
            text: subscripts,
            span: sub_span,
            groups,
            output: output_group,
        })
    }

    /// Each operand with the labels of its axes (its letters, and `...`'s batch axes), the
    /// operands' promoted dtype and the most batch axes any has.
    fn einsum_terms(
        &mut self,
        span: Span,
        groups: &[Group],
        operands_expr: &[Expr],
    ) -> Option<(Vec<Term>, DType, usize)> {
        let mut terms: Vec<Term> = Vec::new();
        let mut dtype: Option<DType> = None;
        let mut batch_rank = 0usize;
        for (k, (g, e)) in groups.iter().zip(operands_expr).enumerate() {
            let x = self.tensor_arg("einsum", e)?;
            let rank = self.node(x).dims.len();
            let letters = g.before.len() + g.after.len();
            if rank < letters || (!g.ellipsis && rank != letters) {
                self.errors.push(
                    expr_span(e),
                    format!(
                        "operand {k} of `einsum` is {}, but its subscripts give {letters} axes{}",
                        type_text(self.node(x).dtype, &self.node(x).dims),
                        if g.ellipsis { " and `...`" } else { "" }
                    ),
                );
                return None;
            }
            let batch = rank - letters;
            batch_rank = batch_rank.max(batch);
            let labels: Vec<Label> = g
                .before
                .iter()
                .map(|&c| Label::Letter(c))
                .chain((0..batch).rev().map(Label::Batch))
                .chain(g.after.iter().map(|&c| Label::Letter(c)))
                .collect();
            let xd = self.node(x).dtype;
            dtype = Some(match dtype {
                None => xd,
                Some(d) => match crate::dtype::promote(d, xd) {
                    Ok(p) => p,
                    Err(err) => {
                        let message = super::promotion_message(
                            "`einsum`",
                            d,
                            xd,
                            err,
                            [&operands_expr[0], e],
                        );
                        self.errors.push(expr_span(e), message);
                        return None;
                    }
                },
            });
            terms.push(Term { node: x, labels });
        }
        let dtype = dtype.expect("at least one operand");
        if dtype == DType::Bool {
            self.errors.push(
                span,
                "`einsum` of `bool` operands: cast them to a number first, e.g. `a as i32`",
            );
            return None;
        }
        Some((terms, dtype, batch_rank))
    }

    /// One size per label, and the operand it was first found in: operands must agree on
    /// a letter; batch labels broadcast (a 1 takes the other size).
    fn einsum_sizes(
        &mut self,
        terms: &[Term],
        operands_expr: &[Expr],
    ) -> Option<Vec<(Label, Dim, usize)>> {
        let mut sizes: Vec<(Label, Dim, usize)> = Vec::new();
        for (k, t) in terms.iter().enumerate() {
            for (axis, l) in t.labels.iter().enumerate() {
                let d = self.node(t.node).dims[axis].clone();
                match sizes.iter_mut().find(|(m, _, _)| m == l) {
                    None => sizes.push((l.clone(), d, k)),
                    Some((_, prev, pk)) => {
                        if *prev == d || (matches!(l, Label::Batch(_)) && d.is_static(1)) {
                            continue;
                        }
                        if matches!(l, Label::Batch(_)) && prev.is_static(1) {
                            *prev = d;
                            *pk = k;
                            continue;
                        }
                        let what = match l {
                            Label::Letter(c) => format!("letter `{c}`"),
                            Label::Batch(_) => "a `...` dim".to_string(),
                        };
                        self.errors.push(
                            expr_span(&operands_expr[k]),
                            format!(
                                "`einsum`: {what} is {prev} in operand {pk} but {d} in operand {k} ({})",
                                type_text(self.node(t.node).dtype, &self.node(t.node).dims)
                            ),
                        );
                        return None;
                    }
                }
            }
        }
        Some(sizes)
    }

    /// The output's labels: the given ones (each letter once, found in an operand, with
    /// `...` when the operands have batch axes), or by default the batch axes then every
    /// letter found once, in alphabetical order.
    fn einsum_output(
        &mut self,
        output_group: &Option<Group>,
        terms: &[Term],
        sizes: &[(Label, Dim, usize)],
        batch_rank: usize,
        subscripts: &str,
        sub_span: Span,
    ) -> Option<Vec<Label>> {
        let output: Vec<Label> = match output_group {
            Some(g) => {
                let mut out: Vec<Label> = g.before.iter().map(|&c| Label::Letter(c)).collect();
                if g.ellipsis || (batch_rank > 0 && output_group.is_none()) {
                    out.extend((0..batch_rank).rev().map(Label::Batch));
                }
                out.extend(g.after.iter().map(|&c| Label::Letter(c)));
                let mut seen = BTreeSet::new();
                for l in &out {
                    if let Label::Letter(c) = l {
                        if !seen.insert(*c) {
                            self.errors.push(
                                sub_span,
                                format!(
                                    "letter `{c}` appears twice in the output of `{subscripts}`"
                                ),
                            );
                            return None;
                        }
                        if !sizes.iter().any(|(m, _, _)| m == l) {
                            self.errors.push(
                                sub_span,
                                format!("output letter `{c}` of `{subscripts}` is in no operand"),
                            );
                            return None;
                        }
                    }
                }
                if batch_rank > 0 && !g.ellipsis {
                    self.errors.push(
                        sub_span,
                        format!("the operands of `{subscripts}` have `...` dims, so the output needs `...` too"),
                    );
                    return None;
                }
                out
            }
            None => {
                let mut counts: std::collections::BTreeMap<char, usize> = Default::default();
                for t in terms {
                    for l in &t.labels {
                        if let Label::Letter(c) = l {
                            *counts.entry(*c).or_default() += 1;
                        }
                    }
                }
                (0..batch_rank)
                    .rev()
                    .map(Label::Batch)
                    .chain(
                        counts
                            .iter()
                            .filter(|(_, &n)| n == 1)
                            .map(|(&c, _)| Label::Letter(c)),
                    )
                    .collect()
            }
        };
        Some(output)
    }

    /// Before contracting: every operand in the promoted dtype, its repeated letters as a
    /// diagonal, and its letters nothing else needs summed.
    fn einsum_prepare(&mut self, terms: &mut [Term], dtype: DType, output: &[Label]) {
        // Every operand in the promoted dtype first, as `matmul`'s operands are: an
        // operand's own sums (its lone letters) then accumulate as the product does. Summed
        // in its own dtype, an `i8` operand's sum (`i64`) would not promote with an `f32`
        // operand, nor a `u16` one's (`u64`) with an `i32` (issue 18's generator found it).
        for t in terms.iter_mut() {
            if self.node(t.node).dtype != dtype {
                t.node = self.convert(t.node, dtype);
            }
        }
        // Diagonals of repeated letters, then sums of letters nothing else needs.
        for k in 0..terms.len() {
            let t = terms[k].clone();
            let mut unique: Vec<Label> = Vec::new();
            let of: Vec<usize> = t
                .labels
                .iter()
                .map(|l| match unique.iter().position(|u| u == l) {
                    Some(at) => at,
                    None => {
                        unique.push(l.clone());
                        unique.len() - 1
                    }
                })
                .collect();
            let mut node = t.node;
            if unique.len() < t.labels.len() {
                let dims = unique.iter().map(|l| self.own_dim(&t, l)).collect();
                let d = self.node(node).dtype;
                node = self.add(NodeKind::Diagonal { input: node, of }, d, dims);
            }
            terms[k] = Term {
                node,
                labels: unique,
            };
        }
        for k in 0..terms.len() {
            let needed = needed_labels(terms, k, output);
            let t = terms[k].clone();
            let lone: Vec<usize> = (0..t.labels.len())
                .filter(|&a| !needed.contains(&t.labels[a]))
                .collect();
            if !lone.is_empty() {
                let node = self.einsum_sum(t.node, &lone);
                let labels = (0..t.labels.len())
                    .filter(|a| !lone.contains(a))
                    .map(|a| t.labels[a].clone())
                    .collect();
                terms[k] = Term { node, labels };
            }
        }
    }

    /// Pairwise contractions, smallest result first, down to one term; `None` after an
    /// error (`contract`).
    fn einsum_contract_all(
        &mut self,
        mut terms: Vec<Term>,
        sizes: &[(Label, Dim, usize)],
        output: &[Label],
    ) -> Option<Term> {
        while terms.len() > 1 {
            let mut best: Option<(usize, usize, u128)> = None;
            for i in 0..terms.len() {
                for j in i + 1..terms.len() {
                    let keep = pair_keep(&terms, i, j, output);
                    let cost = keep
                        .iter()
                        .map(|l| match label_size(sizes, l) {
                            Dim::Static(n) => *n as u128,
                            Dim::Named(_) | Dim::Expr(_) => 1024,
                        })
                        .product::<u128>();
                    if best.is_none_or(|b| cost < b.2) {
                        best = Some((i, j, cost));
                    }
                }
            }
            let (i, j, _) = best.expect("two terms");
            let keep = pair_keep(&terms, i, j, output);
            let (y, x) = (terms.remove(j), terms.remove(i));
            let t = self.contract(sizes, x, y, &keep)?;
            terms.insert(i, t);
        }
        Some(terms.pop().expect("one term"))
    }

    /// The last term as the output: summed over what the output drops (a lone operand's
    /// letters), its axes in the output's order, in the output dtype.
    fn einsum_result(&mut self, t: Term, output: &[Label], dtype: DType) -> NodeId {
        // Sum what the output drops (a lone operand's letters), then order the axes.
        let lone: Vec<usize> = (0..t.labels.len())
            .filter(|&a| !output.contains(&t.labels[a]))
            .collect();
        let (mut node, mut labels) = (t.node, t.labels);
        if !lone.is_empty() {
            node = self.einsum_sum(node, &lone);
            labels = labels
                .into_iter()
                .enumerate()
                .filter(|(a, _)| !lone.contains(a))
                .map(|(_, l)| l)
                .collect();
        }
        let map: Vec<Option<usize>> = output
            .iter()
            .map(|l| labels.iter().position(|m| m == l))
            .collect();
        let dims: Vec<Dim> = map
            .iter()
            .map(|m| match m {
                Some(a) => self.node(node).dims[*a].clone(),
                None => Dim::Static(1),
            })
            .collect();
        let identity =
            map.iter().enumerate().all(|(k, m)| *m == Some(k)) && map.len() == labels.len();
        let mut result = node;
        if !identity {
            let d = self.node(node).dtype;
            result = self.add(NodeKind::View { input: node, map }, d, dims);
        }
        // Integers come out as their accumulator (`i64`/`u64`); floats as the operands'.
        let out_dtype = if dtype.is_float() {
            dtype
        } else {
            self.node(result).dtype
        };
        self.convert(result, out_dtype)
    }

    /// The size of label `l` in term `t` (1 where it lacks it).
    fn own_dim(&self, t: &Term, l: &Label) -> Dim {
        match t.labels.iter().position(|m| m == l) {
            Some(a) => self.node(t.node).dims[a].clone(),
            None => Dim::Static(1),
        }
    }

    /// The size of `l` in a product of `x` and `y`: the one that is not a broadcast 1.
    fn pair_dim(&self, x: &Term, y: &Term, l: &Label) -> Dim {
        let dx = self.own_dim(x, l);
        if dx.is_static(1) {
            self.own_dim(y, l)
        } else {
            dx
        }
    }

    /// `sum` over `axes` (dropped), accumulating as `matmul` does.
    fn einsum_sum(&mut self, x: NodeId, axes: &[usize]) -> NodeId {
        let d = self.node(x).dtype;
        let (acc, out) = product_dtypes(d);
        let xa = self.convert(x, acc);
        let r = self.reduce_node(xa, ReduceKind::Sum, axes, acc);
        let r = self.drop_axes(r, axes);
        self.convert(r, out)
    }

    /// `x · y` over their shared labels not in `keep`; the result's labels are `keep`'s in
    /// the order batch (shared), x's own, y's own.
    fn contract(
        &mut self,
        sizes: &[(Label, Dim, usize)],
        x: Term,
        y: Term,
        keep: &[Label],
    ) -> Option<Term> {
        let shared = select(&x.labels, |l| y.labels.contains(l));
        let batch = select(&shared, |l| keep.contains(l));
        let contracted = select(&shared, |l| !keep.contains(l));
        let x_own = select(&x.labels, |l| !shared.contains(l));
        let y_own = select(&y.labels, |l| !shared.contains(l));
        let size = |l: &Label| label_size(sizes, l).clone();
        let k_static: Option<usize> = contracted
            .iter()
            .map(|l| size(l).as_static())
            .try_fold(1usize, |acc, d| d.and_then(|d| acc.checked_mul(d)));
        let out_labels: Vec<Label> = batch.iter().chain(&x_own).chain(&y_own).cloned().collect();
        if contracted.is_empty() || (contracted.len() > 1 && k_static.is_none()) {
            // A broadcast product, summed over the contracted labels.
            let all: Vec<Label> = out_labels.iter().chain(&contracted).cloned().collect();
            let xv = self.arrange(&x, &all);
            let yv = self.arrange(&y, &all);
            let (xd, yd) = (self.node(xv).dtype, self.node(yv).dtype);
            let d = crate::dtype::promote(xd, yd).ok()?;
            let (acc, out) = product_dtypes(d);
            let (xa, ya) = (self.convert(xv, acc), self.convert(yv, acc));
            let dims: Vec<Dim> = all.iter().map(|l| self.pair_dim(&x, &y, l)).collect();
            let op = crate::ops::function("mul").expect("mul");
            let mut prod = self.add(
                NodeKind::Op {
                    op,
                    args: vec![xa, ya],
                },
                acc,
                dims,
            );
            if !contracted.is_empty() {
                let axes: Vec<usize> = (out_labels.len()..all.len()).collect();
                prod = self.reduce_node(prod, ReduceKind::Sum, &axes, acc);
                prod = self.drop_axes(prod, &axes);
            }
            let node = self.convert(prod, out);
            return Some(Term {
                node,
                labels: out_labels,
            });
        }
        // matmul: x → [batch, x_extra, 1…, M, K], y → [batch, 1…, y_extra, K, N].
        let (x_extra, m) = split_last(&x_own);
        let (y_extra, n) = split_last(&y_own);
        let mut x_order: Vec<Option<Label>> = batch.iter().cloned().map(Some).collect();
        x_order.extend(x_extra.iter().cloned().map(Some));
        x_order.extend(y_extra.iter().map(|_| None));
        x_order.push(m.clone());
        let mut y_order: Vec<Option<Label>> = batch.iter().cloned().map(Some).collect();
        y_order.extend(x_extra.iter().map(|_| None));
        y_order.extend(y_extra.iter().cloned().map(Some));
        let xm = self.matrix_operand(&x, &x_order, &contracted, false, sizes);
        y_order.push(n.clone());
        let ym = self.matrix_operand(&y, &y_order, &contracted, true, sizes);
        let (xd, yd) = (self.node(xm).dtype, self.node(ym).dtype);
        let d = crate::dtype::promote(xd, yd).ok()?;
        let (acc, out) = product_dtypes(d);
        let (xa, ya) = (self.packable(xm, acc), self.packable(ym, acc));
        let mut dims: Vec<Dim> = batch
            .iter()
            .chain(&x_extra)
            .chain(&y_extra)
            .map(|l| self.pair_dim(&x, &y, l))
            .collect();
        dims.push(m.as_ref().map(size).unwrap_or(Dim::Static(1)));
        dims.push(n.as_ref().map(size).unwrap_or(Dim::Static(1)));
        let prod = self.add(NodeKind::MatMul { a: xa, b: ya }, acc, dims.clone());
        let mut node = self.convert(prod, out);
        // Drop the unit M/N axes that stood in for a missing side.
        let rank = dims.len();
        let mut drop = Vec::new();
        if m.is_none() {
            drop.push(rank - 2);
        }
        if n.is_none() {
            drop.push(rank - 1);
        }
        node = self.drop_axes(node, &drop);
        // The product's axes are batch, x's extra, y's extra, M, N: x's own letters are
        // not contiguous when y has extra ones (labelled as `batch, x_own, y_own`, an
        // `ip,qpj->iqj` came out with `i` and `q` swapped; issue 18's generator found it).
        let labels = batch
            .iter()
            .chain(&x_extra)
            .chain(&y_extra)
            .chain(&m)
            .chain(&n)
            .cloned()
            .collect();
        Some(Term { node, labels })
    }

    /// `t` viewed with axes in `order` (a label, or a new unit axis), then its contracted
    /// labels merged into one axis K, placed last (`k_first`: K before the last axis).
    fn matrix_operand(
        &mut self,
        t: &Term,
        order: &[Option<Label>],
        contracted: &[Label],
        k_first: bool,
        sizes: &[(Label, Dim, usize)],
    ) -> NodeId {
        let size = |l: &Label| label_size(sizes, l).clone();
        let (lead, last) = order.split_at(order.len() - 1);
        let mut full: Vec<Option<Label>> = lead.to_vec();
        if k_first {
            full.extend(contracted.iter().cloned().map(Some));
            full.extend(last.iter().cloned());
        } else {
            full.extend(last.iter().cloned());
            full.extend(contracted.iter().cloned().map(Some));
        }
        let map: Vec<Option<usize>> = full
            .iter()
            .map(|l| {
                l.as_ref()
                    .and_then(|l| t.labels.iter().position(|m| m == l))
            })
            .collect();
        let dims: Vec<Dim> = full
            .iter()
            .map(|l| {
                l.as_ref()
                    .map(|l| self.own_dim(t, l))
                    .unwrap_or(Dim::Static(1))
            })
            .collect();
        let d = self.node(t.node).dtype;
        let identity =
            map.len() == t.labels.len() && map.iter().enumerate().all(|(k, m)| *m == Some(k));
        let mut node = if identity {
            t.node
        } else {
            self.add(NodeKind::View { input: t.node, map }, d, dims.clone())
        };
        if contracted.len() > 1 {
            // Merge the contracted axes (literal sizes) into one: a reshape.
            let kk: usize = contracted
                .iter()
                .map(|l| size(l).as_static().expect("literal"))
                .product();
            let at = if k_first {
                lead.len()
            } else {
                lead.len() + last.len()
            };
            let mut merged = dims[..at].to_vec();
            merged.push(Dim::Static(kk));
            merged.extend(dims[at + contracted.len()..].iter().cloned());
            node = self.add(NodeKind::Reshape { input: node }, d, merged);
        }
        node
    }

    /// `t` viewed with its axes in the order of `all` (new unit axes for missing labels).
    fn arrange(&mut self, t: &Term, all: &[Label]) -> NodeId {
        let map: Vec<Option<usize>> = all
            .iter()
            .map(|l| t.labels.iter().position(|m| m == l))
            .collect();
        let dims: Vec<Dim> = map
            .iter()
            .map(|m| match m {
                Some(a) => self.node(t.node).dims[*a].clone(),
                None => Dim::Static(1),
            })
            .collect();
        let d = self.node(t.node).dtype;
        self.add(NodeKind::View { input: t.node, map }, d, dims)
    }
}

/// The size every operand gives `l` (checked equal; a broadcast 1 gives way).
fn label_size<'s>(sizes: &'s [(Label, Dim, usize)], l: &Label) -> &'s Dim {
    &sizes
        .iter()
        .find(|(m, _, _)| m == l)
        .expect("every label is sized")
        .1
}

/// The labels of `labels` that `keep` accepts, in order.
fn select(labels: &[Label], keep: impl Fn(&Label) -> bool) -> Vec<Label> {
    labels.iter().filter(|l| keep(l)).cloned().collect()
}

/// The last label and the others; `None` when there are none.
fn split_last(labels: &[Label]) -> (Vec<Label>, Option<Label>) {
    match labels.split_last() {
        Some((last, rest)) => (rest.to_vec(), Some(last.clone())),
        None => (Vec::new(), None),
    }
}

/// Labels of term `k` that the output or another term needs.
fn needed_labels(terms: &[Term], k: usize, output: &[Label]) -> BTreeSet<Label> {
    terms
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .flat_map(|(_, t)| t.labels.iter().cloned())
        .chain(output.iter().cloned())
        .collect()
}

/// The labels a contraction of terms `i` and `j` keeps: those the output or another term
/// needs.
fn pair_keep(terms: &[Term], i: usize, j: usize, output: &[Label]) -> Vec<Label> {
    let others: BTreeSet<Label> = terms
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != i && *k != j)
        .flat_map(|(_, t)| t.labels.iter().cloned())
        .chain(output.iter().cloned())
        .collect();
    let mut keep: Vec<Label> = Vec::new();
    for l in terms[i].labels.iter().chain(&terms[j].labels) {
        if others.contains(l) && !keep.contains(l) {
            keep.push(l.clone());
        }
    }
    keep
}
