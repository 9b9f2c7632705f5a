//! Call entry of a graph with symbolic dims (docs/language.md, "Dim names and call entry"): before any
//! kernel runs, the generated function hands [`bind_dims`] its signature and the shape of every
//! tensor argument and `_into` output; `bind_dims` gives each dim name its size or says, in a
//! [`ShapeError`], which name, argument and axis disagree.
//!
//! The rules, in the order they are applied:
//! - Arguments are walked in order, each one's axes outermost first. A name is bound at its
//!   first occurrence and checked at every later one (`DimMismatch` names where it was bound).
//! - An argument with dims (a tensor, a view, an ndarray) must have the declared rank, and each
//!   declared literal must equal its dim there.
//! - A flat slice has only a length. If the parameter's names are all bound, the length must be
//!   the product of its dims; when it is not, and one axis holds a name whose size the length
//!   gives, the error is that name's two sizes (as for a tensor), else the length the dims
//!   need. If exactly one name is unbound (standing on one axis), it is
//!   solved as `len / product of the other dims`, with no remainder; the other dims multiplying
//!   to 0 leave it open, which is an error. Two unbound names cannot come from one length.
//! - Every name must end up bound, and the names that `max`/`min`/`argmax`/`argmin` reduce
//!   over must not be 0 (an empty axis has no maximum).
//!
//! Generated code calls this from every graph function (through [`bind_entry`], which boxes
//! the error), so it is one non-generic function behind a wrapper that only fixes the
//! number of names.

use crate::error::{LengthReason, ShapeError};
use crate::shape::checked_product;

/// One declared dim of a graph parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclDim {
    /// A literal size: `768` in `f32[B, 768]`.
    Static(usize),
    /// A dim name, as an index into [`GraphSignature::syms`]: `B` in `f32[B, 768]`.
    Sym(usize),
    /// A dim expression: `N + M` in `f32[N + M, 64]`.
    Expr(&'static DimExpr),
}

/// One step of a dim expression's program, which runs on a stack of `i128`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimOp {
    /// Pushes the literal.
    Lit(i128),
    /// Pushes the size of name `k` of [`GraphSignature::syms`].
    Sym(usize),
    /// Pops two values, pushes their sum.
    Add,
    /// Pops two values, pushes their product.
    Mul,
    /// Pops one value, pushes its floor division by the (positive) literal.
    FloorDiv(u64),
    /// Pops two values, pushes the larger.
    Max,
    /// Pops two values, pushes the smaller.
    Min,
}

/// A dim expression (docs/language.md, "Dim expressions") as call entry evaluates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimExpr {
    /// The expression in the DSL notation: `"M + N"`.
    pub text: &'static str,
    /// Its postfix program.
    pub code: &'static [DimOp],
    /// The names (indices into [`GraphSignature::syms`]) the expression reads.
    pub names: &'static [usize],
    /// The names in which it is affine (`c·N + rest`, `rest` free of `N`): an argument's
    /// size on an axis declared this way solves such a name when no other occurrence binds
    /// it.
    pub solvable: &'static [usize],
}

impl DimExpr {
    /// The value for `sizes` (indexed by name), `sym` taken as `value` if given; `None`
    /// when a name it reads is unbound or the arithmetic leaves `i128`.
    fn eval(&self, sizes: &[Option<usize>], with: Option<(usize, i128)>) -> Option<i128> {
        let mut stack = [0i128; 16];
        let mut top = 0usize;
        for op in self.code {
            let value = match *op {
                DimOp::Lit(v) => v,
                DimOp::Sym(k) => match with {
                    Some((sym, v)) if sym == k => v,
                    _ => (*sizes.get(k)?)? as i128,
                },
                DimOp::FloorDiv(d) => {
                    top = top.checked_sub(1)?;
                    stack[top].checked_div_euclid(d as i128)?
                }
                DimOp::Add | DimOp::Mul | DimOp::Max | DimOp::Min => {
                    top = top.checked_sub(2)?;
                    let (a, b) = (stack[top], stack[top + 1]);
                    match *op {
                        DimOp::Add => a.checked_add(b)?,
                        DimOp::Mul => a.checked_mul(b)?,
                        DimOp::Max => a.max(b),
                        _ => a.min(b),
                    }
                }
            };
            *stack.get_mut(top)? = value;
            top += 1;
        }
        (top == 1).then_some(stack[0])
    }

    /// `N = 5, M = 3`: the sizes of the names the expression reads, for its errors.
    fn bindings(&self, sig: &GraphSignature, sizes: &[Option<usize>]) -> String {
        let parts: Vec<String> = self
            .names
            .iter()
            .map(|&k| match sizes.get(k).copied().flatten() {
                Some(size) => format!("{} = {size}", sym_name(sig, k)),
                None => format!("{} unbound", sym_name(sig, k)),
            })
            .collect();
        parts.join(", ")
    }
}

/// One tensor parameter (or `_into` output) of a graph, as declared.
#[derive(Clone, Copy, Debug)]
pub struct ParamSig {
    /// The parameter's name (`"x"`), or a description of an output (`"output 0"`).
    pub name: &'static str,
    /// Its declared type in the DSL notation: `"f32[B, 768]"`.
    pub ty: &'static str,
    /// Its declared dims, outermost first.
    pub dims: &'static [DeclDim],
}

/// What call entry needs to know of a graph with symbolic dims. Generated code builds one
/// `static` per graph function.
#[derive(Clone, Copy, Debug)]
pub struct GraphSignature {
    /// The graph function's name: `"ln"`.
    pub name: &'static str,
    /// The signature in the DSL notation: `"ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"`.
    pub text: &'static str,
    /// The dim names, each once, in order of first occurrence: `["B"]`.
    pub syms: &'static [&'static str],
    /// The tensor parameters in order, then the `_into` outputs.
    pub params: &'static [ParamSig],
    /// `(size index, least size, op)`: a name (or, past the names, an expression of
    /// `exprs`) that must be at least that long in a call.
    /// `max`/`min`/`argmax`/`argmin` over a symbolic axis need 1 (an empty axis has no
    /// maximum); a `slice` of a named axis with literal bounds needs the axis to reach
    /// them (`start = -4` needs 4).
    pub at_least: &'static [(usize, usize, &'static str)],
    /// The dim expressions the kernels use whose value is not a product of names (`N + M`,
    /// `(N + 1) / 2`): call entry computes each after binding the names, and returns their
    /// values after the names' sizes. A negative one is an error.
    pub exprs: &'static [DimExpr],
}

/// The shape of one argument at call entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgShape<'a> {
    /// The element count of its buffer.
    pub len: usize,
    /// Its dims, outermost first, if it carries them (a tensor, a view, an ndarray); `None`
    /// for a flat slice or `Vec`, whose dims come from its length.
    pub dims: Option<&'a [usize]>,
    /// Set when the kernels cannot read the argument in place (an ndarray layout other than
    /// standard); the text completes "`x` …" and says how to fix it.
    pub layout_error: Option<&'static str>,
    /// The row pitch of a row-strided argument (an ndarray view of a column block: rows
    /// `pitch` elements apart, each contiguous): its buffer then holds
    /// `(rows - 1) · pitch + dims[-1]` elements, `rows` the product of the other dims.
    /// `None`: row-major and contiguous (the product of `dims` elements).
    pub pitch: Option<usize>,
}

/// Why an argument with dims whose product is not its length is refused. Every `TensorArg`
/// in this crate keeps the two equal; the check guards the kernels against one that does not.
const BROKEN_PARTS: &str = "has a buffer length that differs from the product of its dims (its \
                            `TensorArg` implementation breaks the trait's contract)";

/// The buffer length an argument of `dims` (whose product is `product`) holds: `product`
/// when contiguous, `(rows - 1) · pitch + dims[-1]` for a row pitch (`ArgShape::pitch`);
/// `None` where that overflows or the pitch is shorter than a row (no such argument exists).
fn strided_len(dims: &[usize], product: usize, pitch: Option<usize>) -> Option<usize> {
    let Some(pitch) = pitch else {
        return Some(product);
    };
    let (&cols, outer) = dims.split_last()?;
    if product == 0 {
        return Some(0);
    }
    let rows: usize = outer.iter().product();
    if pitch < cols {
        return None;
    }
    (rows - 1).checked_mul(pitch)?.checked_add(cols)
}

/// Binds every dim name of `sig` from the arguments (`args[i]` belongs to `sig.params[i]`)
/// and returns their sizes, in the order of `sig.syms`. `N` is `sig.syms.len()`.
///
/// The rules are in the module docs; every failure is an `Err` naming the graph, the
/// argument, the axis and the signature.
pub fn bind_dims<const N: usize>(
    sig: &'static GraphSignature,
    args: &[ArgShape<'_>],
) -> Result<[usize; N], ShapeError> {
    let mut sizes = [None; N];
    bind(sig, args, &mut sizes)?;
    // `bind` returned `Ok`, so every size is `Some`.
    Ok(sizes.map(|size| size.unwrap_or(0)))
}

/// A failed call entry of a graph with names, boxed: what generated code passes between the
/// steps of its call entry (binding, allocating the outputs, checking sizes) instead of a
/// `ShapeError`, so each failing step hands on one pointer where a `ShapeError` is over a
/// hundred bytes copied through every frame (issue 17). The graph function turns it back
/// into the `ShapeError` once, at its one exit, with [`entry_error`]; the error's value is
/// the one the step built.
#[derive(Debug)]
pub struct EntryError(Box<ShapeError>);

impl EntryError {
    /// Boxes `error` (out of line: the calls of it are the cold paths of call entry).
    #[cold]
    #[inline(never)]
    pub fn new(error: ShapeError) -> EntryError {
        EntryError(Box::new(error))
    }
}

/// The error a graph function returns for a failed call entry.
#[cold]
#[inline(never)]
pub fn entry_error(error: EntryError) -> ShapeError {
    *error.0
}

/// [`bind_dims`] for generated code: the same sizes and, boxed, the same error.
#[inline]
pub fn bind_entry<const N: usize>(
    sig: &'static GraphSignature,
    args: &[ArgShape<'_>],
) -> Result<[usize; N], EntryError> {
    let mut sizes = [None; N];
    match bind_boxed(sig, args, &mut sizes) {
        // `bind` returned `Ok`, so every size is `Some`.
        None => Ok(sizes.map(|size| size.unwrap_or(0))),
        Some(error) => Err(error),
    }
}

/// `bind` with its error boxed: not generic, so compiled once here.
fn bind_boxed(
    sig: &'static GraphSignature,
    args: &[ArgShape<'_>],
    sizes: &mut [Option<usize>],
) -> Option<EntryError> {
    match bind(sig, args, sizes) {
        Ok(()) => None,
        Err(error) => Some(EntryError::new(error)),
    }
}

/// `bind_dims` over a slice of sizes: `None` until a name is bound. `sizes` holds the
/// names' sizes, then the values of `sig.exprs`.
fn bind(
    sig: &'static GraphSignature,
    args: &[ArgShape<'_>],
    sizes: &mut [Option<usize>],
) -> Result<(), ShapeError> {
    let syms = sig.syms.len().min(sizes.len());
    for (param, arg) in sig.params.iter().zip(args) {
        if let Some(reason) = arg.layout_error {
            return Err(ShapeError::Layout {
                graph: sig.name,
                arg: param.name,
                reason,
                signature: sig.text,
            });
        }
    }
    // The first pass binds names from their plain occurrences and checks every dim whose
    // names are bound; an expression with a name still unbound waits. Later passes may solve
    // a name from an affine expression (`2 * N + 1`) that no plain occurrence binds. Each
    // pass that leaves something waiting binds at least one more name, or the walk ends.
    let mut solve = false;
    loop {
        let bound_before = sizes[..syms].iter().filter(|s| s.is_some()).count();
        let mut waiting = false;
        for (param, arg) in sig.params.iter().zip(args) {
            let walk = Walk {
                sig,
                param,
                solve,
                waiting: &mut waiting,
            };
            match arg.dims {
                Some(dims) => walk.tensor(dims, arg.len, arg.pitch, &mut sizes[..syms])?,
                None => walk.slice(arg.len, &mut sizes[..syms])?,
            }
        }
        let bound_after = sizes[..syms].iter().filter(|s| s.is_some()).count();
        if !waiting || (solve && bound_after == bound_before) {
            break;
        }
        solve = true;
    }
    for (sym, size) in sizes[..syms].iter().enumerate() {
        if size.is_none() {
            return Err(unbound(sig, sym));
        }
    }
    let (names, values) = sizes.split_at_mut(syms);
    for (expr, slot) in sig.exprs.iter().zip(values) {
        *slot = Some(expr_value(sig, expr, names)?);
    }
    for &(sym, least, op) in sig.at_least {
        match sizes.get(sym) {
            Some(&Some(size)) if size >= least => {}
            // `max`/`min`/`argmax`/`argmin` need a non-empty axis; `slice` and `pad` need a
            // length.
            Some(&Some(size)) if !matches!(op, "max" | "min" | "argmax" | "argmin") => {
                return Err(ShapeError::TooShort {
                    graph: sig.name,
                    dim: size_name(sig, sym),
                    size,
                    least,
                    op,
                    signature: sig.text,
                })
            }
            Some(Some(_)) => {
                return Err(ShapeError::EmptyAxis {
                    graph: sig.name,
                    dim: size_name(sig, sym),
                    op,
                    signature: sig.text,
                })
            }
            _ => return Err(unbound(sig, sym)),
        }
    }
    Ok(())
}

/// The name of call entry's size `k`: a dim name, or past them, an expression's text.
fn size_name(sig: &GraphSignature, k: usize) -> &'static str {
    match k.checked_sub(sig.syms.len()) {
        None => sym_name(sig, k),
        Some(e) => sig.exprs.get(e).map_or("?", |e| e.text),
    }
}

/// The value of `expr` once its names are bound: an error when it is negative, or larger
/// than [`MAX_ELEMENTS`] (no value of the graph can be that long).
fn expr_value(
    sig: &'static GraphSignature,
    expr: &'static DimExpr,
    names: &[Option<usize>],
) -> Result<usize, ShapeError> {
    match expr.eval(names, None) {
        Some(v) if v < 0 => Err(ShapeError::NegativeDim {
            graph: sig.name,
            dim: expr.text,
            value: v,
            sizes: expr.bindings(sig, names),
            signature: sig.text,
        }),
        Some(v) if v <= MAX_ELEMENTS as i128 => Ok(v as usize),
        _ => Err(ShapeError::Overflow {
            graph: sig.name,
            arg: "an intermediate value",
            signature: sig.text,
        }),
    }
}

/// One argument's walk in one pass of `bind`.
struct Walk<'w> {
    sig: &'static GraphSignature,
    param: &'static ParamSig,
    /// Whether an unbound name may be solved from an affine expression in this pass.
    solve: bool,
    /// Set when a dim waits for a name another argument binds.
    waiting: &'w mut bool,
}

impl Walk<'_> {
    /// Checks (or solves from) `size` on `axis`, declared as the expression `expr`.
    fn expr_dim(
        &mut self,
        expr: &'static DimExpr,
        axis: usize,
        size: usize,
        sizes: &mut [Option<usize>],
    ) -> Result<(), ShapeError> {
        let sig = self.sig;
        let unbound: Option<usize> = {
            let mut open = expr
                .names
                .iter()
                .filter(|&&k| sizes.get(k).is_some_and(Option::is_none));
            match (open.next(), open.next()) {
                (None, _) => None,
                (Some(&k), None) if self.solve && expr.solvable.contains(&k) => Some(k),
                _ => {
                    *self.waiting = true;
                    return Ok(());
                }
            }
        };
        let Some(sym) = unbound else {
            return match expr.eval(sizes, None) {
                Some(v) if v == size as i128 => Ok(()),
                value => Err(ShapeError::ExprMismatch {
                    graph: sig.name,
                    dim: expr.text,
                    value,
                    sizes: expr.bindings(sig, sizes),
                    arg: self.param.name,
                    axis,
                    size,
                    signature: sig.text,
                }),
            };
        };
        // `c·N + r`: `r` is the value at `N = 0`, `c` the step to `N = 1`.
        let solved = expr.eval(sizes, Some((sym, 0))).and_then(|r| {
            let c = expr.eval(sizes, Some((sym, 1)))? - r;
            let rest = (size as i128).checked_sub(r)?;
            (c != 0 && rest % c == 0 && rest / c >= 0).then(|| rest / c)
        });
        match solved.and_then(|n| usize::try_from(n).ok()) {
            Some(n) => {
                sizes[sym] = Some(n);
                Ok(())
            }
            None => Err(ShapeError::ExprSolve {
                graph: sig.name,
                dim: expr.text,
                name: sym_name(sig, sym),
                sizes: expr.bindings(sig, sizes),
                arg: self.param.name,
                axis,
                size,
                signature: sig.text,
            }),
        }
    }
    /// Checks and binds an argument that carries its dims.
    fn tensor(
        mut self,
        dims: &[usize],
        len: usize,
        pitch: Option<usize>,
        sizes: &mut [Option<usize>],
    ) -> Result<(), ShapeError> {
        let (sig, param) = (self.sig, self.param);
        if dims.len() != param.dims.len() {
            return Err(ShapeError::Rank {
                graph: sig.name,
                arg: param.name,
                ty: param.ty,
                expected: param.dims.len(),
                found: dims.len(),
                signature: sig.text,
            });
        }
        for (axis, (decl, &size)) in param.dims.iter().zip(dims).enumerate() {
            match *decl {
                DeclDim::Static(expected) if expected != size => {
                    return Err(ShapeError::StaticDim {
                        graph: sig.name,
                        arg: param.name,
                        ty: param.ty,
                        axis,
                        expected,
                        found: size,
                        signature: sig.text,
                    })
                }
                DeclDim::Static(_) => {}
                DeclDim::Expr(expr) => self.expr_dim(expr, axis, size, sizes)?,
                DeclDim::Sym(sym) => match sizes.get_mut(sym) {
                    None => return Err(unbound(sig, sym)),
                    Some(slot @ None) => *slot = Some(size),
                    Some(Some(bound)) if *bound != size => {
                        let (bound_arg, bound_axis) = first_occurrence(sig, sym);
                        return Err(ShapeError::DimMismatch {
                            graph: sig.name,
                            dim: sym_name(sig, sym),
                            size,
                            arg: param.name,
                            axis,
                            bound_size: *bound,
                            bound_arg,
                            bound_axis,
                            signature: sig.text,
                        });
                    }
                    Some(Some(_)) => {}
                },
            }
        }
        match checked_product(dims) {
            None => Err(ShapeError::Overflow {
                graph: sig.name,
                arg: param.name,
                signature: sig.text,
            }),
            Some(product) if strided_len(dims, product, pitch) != Some(len) => {
                Err(ShapeError::Layout {
                    graph: sig.name,
                    arg: param.name,
                    reason: BROKEN_PARTS,
                    signature: sig.text,
                })
            }
            Some(_) => Ok(()),
        }
    }

    /// Checks a flat slice's length against its parameter's dims and solves its one unbound
    /// name (or, in a solving pass, the one unbound name of its one expression axis).
    fn slice(mut self, len: usize, sizes: &mut [Option<usize>]) -> Result<(), ShapeError> {
        let (sig, param) = (self.sig, self.param);
        let slice_error = |reason| ShapeError::SliceLength {
            graph: sig.name,
            arg: param.name,
            len,
            ty: param.ty,
            reason,
            signature: sig.text,
        };
        // The product of the known dims (0 if any is 0, `None` past `usize::MAX`), and the
        // unknown axis (an unbound name, or an expression reading one) with how often its
        // name stands in this parameter.
        let mut known = Some(1usize);
        let mut has_zero = false;
        let mut unknown: Option<(usize, DeclDim)> = None;
        let mut repeated = false;
        let mut several = false;
        for (axis, decl) in param.dims.iter().enumerate() {
            let size = match *decl {
                DeclDim::Static(n) => n,
                DeclDim::Sym(sym) => match sizes.get(sym) {
                    None => return Err(unbound(sig, sym)),
                    Some(Some(n)) => *n,
                    Some(None) => {
                        match unknown {
                            None => unknown = Some((axis, *decl)),
                            Some((_, first)) if first == *decl => repeated = true,
                            Some(_) => several = true,
                        }
                        continue;
                    }
                },
                DeclDim::Expr(expr) => match expr.eval(sizes, None) {
                    Some(v) => match usize::try_from(v) {
                        Ok(v) => v,
                        Err(_) => {
                            return Err(ShapeError::NegativeDim {
                                graph: sig.name,
                                dim: expr.text,
                                value: v,
                                sizes: expr.bindings(sig, sizes),
                                signature: sig.text,
                            })
                        }
                    },
                    None if expr
                        .names
                        .iter()
                        .all(|&k| sizes.get(k).is_some_and(Option::is_some)) =>
                    {
                        known = None;
                        continue;
                    }
                    None => {
                        match unknown {
                            None => unknown = Some((axis, *decl)),
                            Some(_) => several = true,
                        }
                        continue;
                    }
                },
            };
            has_zero |= size == 0;
            known = known.and_then(|k| k.checked_mul(size));
        }
        if several {
            return Err(slice_error(LengthReason::SeveralUnknown));
        }
        if repeated {
            return Err(slice_error(LengthReason::RepeatedName));
        }
        let known = if has_zero { Some(0) } else { known };
        match (unknown, known) {
            // The known dims multiply past `usize::MAX`: no slice fills them, and the name would
            // have to be 0 with more rows than memory holds.
            (_, None) => Err(ShapeError::Overflow {
                graph: sig.name,
                arg: param.name,
                signature: sig.text,
            }),
            (None, Some(needs)) if needs == len => Ok(()),
            (None, Some(needs)) => Err(implied_mismatch(sig, param, len, sizes)
                .unwrap_or_else(|| slice_error(LengthReason::Exact { needs }))),
            // An expression axis waits for the names plain occurrences bind.
            (Some((_, DeclDim::Expr(_))), _) if !self.solve => {
                *self.waiting = true;
                Ok(())
            }
            (Some(_), Some(0)) => Err(slice_error(LengthReason::ZeroProduct)),
            (Some(_), Some(of)) if !len.is_multiple_of(of) => {
                Err(slice_error(LengthReason::NotMultiple { of }))
            }
            (Some((axis, DeclDim::Expr(expr))), Some(of)) => {
                self.expr_dim(expr, axis, len / of, sizes)
            }
            (Some((_, decl)), Some(of)) => {
                if let DeclDim::Sym(sym) = decl {
                    if let Some(slot) = sizes.get_mut(sym) {
                        *slot = Some(len / of);
                    }
                }
                Ok(())
            }
        }
    }
}

/// A slice whose names are all bound but whose length differs from their product: if one
/// axis holds a name and the length gives it a size (a whole multiple of the other dims), the
/// error is that name's two sizes, as for a tensor argument (``dim `B` is 5 in `g` (axis 0)
/// but 4 in `x` (axis 0)``). `None` when the length says nothing about one name.
fn implied_mismatch(
    sig: &'static GraphSignature,
    param: &'static ParamSig,
    len: usize,
    sizes: &[Option<usize>],
) -> Option<ShapeError> {
    let mut syms = param
        .dims
        .iter()
        .enumerate()
        .filter(|(_, d)| !matches!(d, DeclDim::Static(_)));
    let (axis, decl) = syms.next()?;
    if syms.next().is_some() {
        return None;
    }
    let others = param
        .dims
        .iter()
        .try_fold(1usize, |acc, d| match *d {
            DeclDim::Static(n) => acc.checked_mul(n),
            DeclDim::Sym(_) | DeclDim::Expr(_) => Some(acc),
        })
        .filter(|&p| p != 0 && len.is_multiple_of(p))?;
    let sym = match *decl {
        DeclDim::Expr(expr) => {
            return Some(ShapeError::ExprMismatch {
                graph: sig.name,
                dim: expr.text,
                value: expr.eval(sizes, None),
                sizes: expr.bindings(sig, sizes),
                arg: param.name,
                axis,
                size: len / others,
                signature: sig.text,
            })
        }
        DeclDim::Sym(sym) => sym,
        DeclDim::Static(_) => return None,
    };
    let bound_size = (*sizes.get(sym)?)?;
    let (bound_arg, bound_axis) = first_occurrence(sig, sym);
    Some(ShapeError::DimMismatch {
        graph: sig.name,
        dim: sym_name(sig, sym),
        size: len / others,
        arg: param.name,
        axis,
        bound_size,
        bound_arg,
        bound_axis,
        signature: sig.text,
    })
}

/// Where a name was bound: its first occurrence in argument order, then axis order. (A slice
/// that holds a name first either solves it there or fails, so the first occurrence is always
/// where the name got its size.)
fn first_occurrence(sig: &GraphSignature, sym: usize) -> (&'static str, usize) {
    sig.params
        .iter()
        .find_map(|param| {
            let axis = param.dims.iter().position(|&d| d == DeclDim::Sym(sym))?;
            Some((param.name, axis))
        })
        .unwrap_or(("?", 0))
}

/// The name of dim `sym`, or `"?"` if generated code passed an index past `sig.syms`.
fn sym_name(sig: &GraphSignature, sym: usize) -> &'static str {
    sig.syms.get(sym).copied().unwrap_or("?")
}

fn unbound(sig: &'static GraphSignature, sym: usize) -> ShapeError {
    ShapeError::Unbound {
        graph: sig.name,
        dim: sym_name(sig, sym),
        signature: sig.text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DeclDim::{Static, Sym};

    /// `ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]`, with `_into`'s output.
    static LN: GraphSignature = GraphSignature {
        name: "ln",
        text: "ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]",
        syms: &["B"],
        params: &[
            ParamSig {
                name: "x",
                ty: "f32[B, 768]",
                dims: &[Sym(0), Static(768)],
            },
            ParamSig {
                name: "g",
                ty: "f32[B]",
                dims: &[Sym(0)],
            },
            ParamSig {
                name: "output 0",
                ty: "f32[B, 768]",
                dims: &[Sym(0), Static(768)],
            },
        ],
        at_least: &[],
        exprs: &[],
    };

    fn tensor(dims: &[usize]) -> ArgShape<'_> {
        ArgShape {
            len: dims.iter().product(),
            dims: Some(dims),
            layout_error: None,
            pitch: None,
        }
    }

    fn slice(len: usize) -> ArgShape<'static> {
        ArgShape {
            len,
            dims: None,
            layout_error: None,
            pitch: None,
        }
    }

    #[test]
    fn binds_row_strided_arguments_by_their_rows() {
        // 4 rows of 768, 800 apart: 3 · 800 + 768 elements.
        let pitched = |len| ArgShape {
            len,
            dims: Some(&[4, 768][..]),
            layout_error: None,
            pitch: Some(800),
        };
        let sizes = bind_dims::<1>(
            &LN,
            &[pitched(3 * 800 + 768), tensor(&[4]), tensor(&[4, 768])],
        );
        assert_eq!(sizes, Ok([4]));
        for len in [4 * 768, 4 * 800, 3 * 800 + 767] {
            let err = bind_dims::<1>(&LN, &[pitched(len), tensor(&[4]), tensor(&[4, 768])]);
            assert!(
                matches!(err, Err(ShapeError::Layout { arg: "x", .. })),
                "{len}"
            );
        }
        assert_eq!(strided_len(&[4, 768], 4 * 768, Some(700)), None);
        assert_eq!(strided_len(&[0, 768], 0, Some(800)), Some(0));
        assert_eq!(strided_len(&[2, 3, 4], 24, Some(10)), Some(5 * 10 + 4));
        assert_eq!(strided_len(&[], 1, Some(10)), None);
    }

    #[test]
    fn binds_from_tensors() {
        let sizes = bind_dims::<1>(&LN, &[tensor(&[4, 768]), tensor(&[4]), tensor(&[4, 768])]);
        assert_eq!(sizes, Ok([4]));
    }

    #[test]
    fn mismatch_names_both_places() {
        let err =
            bind_dims::<1>(&LN, &[tensor(&[4, 768]), tensor(&[5]), tensor(&[4, 768])]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::DimMismatch {
                graph: "ln",
                dim: "B",
                size: 5,
                arg: "g",
                axis: 0,
                bound_size: 4,
                bound_arg: "x",
                bound_axis: 0,
                signature: LN.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `ln`: dim `B` is 5 in `g` (axis 0) but 4 in `x` (axis 0); \
             signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
        );
        // An output is checked like an input.
        let err =
            bind_dims::<1>(&LN, &[tensor(&[4, 768]), tensor(&[4]), tensor(&[3, 768])]).unwrap_err();
        assert!(matches!(
            err,
            ShapeError::DimMismatch {
                arg: "output 0",
                size: 3,
                bound_size: 4,
                ..
            }
        ));
    }

    #[test]
    fn repeated_name_in_one_argument() {
        static SQ: GraphSignature = GraphSignature {
            name: "sq",
            text: "sq(a: f32[N, N]) -> f32[N]",
            syms: &["N"],
            params: &[ParamSig {
                name: "a",
                ty: "f32[N, N]",
                dims: &[Sym(0), Sym(0)],
            }],
            at_least: &[],
            exprs: &[],
        };
        assert_eq!(bind_dims::<1>(&SQ, &[tensor(&[3, 3])]), Ok([3]));
        let err = bind_dims::<1>(&SQ, &[tensor(&[3, 4])]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "graph `sq`: dim `N` is 4 in `a` (axis 1) but 3 in `a` (axis 0); \
             signature sq(a: f32[N, N]) -> f32[N]"
        );
        // A slice gives only N·N.
        let err = bind_dims::<1>(&SQ, &[slice(9)]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::SliceLength {
                graph: "sq",
                arg: "a",
                len: 9,
                ty: "f32[N, N]",
                reason: LengthReason::RepeatedName,
                signature: SQ.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `sq`: `a` is a slice of 9 elements, which cannot give the dims of f32[N, N] \
             (its unbound name stands on several axes and a length gives only their product; \
             pass a tensor, which carries its dims); signature sq(a: f32[N, N]) -> f32[N]"
        );
    }

    #[test]
    fn static_dim_and_rank() {
        let err =
            bind_dims::<1>(&LN, &[tensor(&[4, 767]), tensor(&[4]), tensor(&[4, 768])]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::StaticDim {
                graph: "ln",
                arg: "x",
                ty: "f32[B, 768]",
                axis: 1,
                expected: 768,
                found: 767,
                signature: LN.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `ln`: `x` has 767 at axis 1 but its type f32[B, 768] says 768; \
             signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
        );
        let err = bind_dims::<1>(
            &LN,
            &[tensor(&[4, 768]), tensor(&[4, 1]), tensor(&[4, 768])],
        )
        .unwrap_err();
        assert_eq!(
            err,
            ShapeError::Rank {
                graph: "ln",
                arg: "g",
                ty: "f32[B]",
                expected: 1,
                found: 2,
                signature: LN.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `ln`: `g` has rank 2 but its type f32[B] has rank 1; \
             signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
        );
    }

    #[test]
    fn slices_solve_one_name() {
        // x gives B = 3072 / 768.
        assert_eq!(
            bind_dims::<1>(&LN, &[slice(3072), slice(4), slice(3072)]),
            Ok([4])
        );
        // x's name bound by a tensor first: the slice g needs exactly B elements.
        assert_eq!(
            bind_dims::<1>(&LN, &[tensor(&[2, 768]), slice(2), slice(1536)]),
            Ok([2])
        );
        // A slice whose length gives its one name another size: the name's two sizes.
        let err = bind_dims::<1>(&LN, &[tensor(&[2, 768]), slice(3), slice(1536)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "graph `ln`: dim `B` is 3 in `g` (axis 0) but 2 in `x` (axis 0); \
             signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
        );
        let err = bind_dims::<1>(&LN, &[tensor(&[2, 768]), slice(2), slice(768)]).unwrap_err();
        assert!(matches!(
            err,
            ShapeError::DimMismatch {
                arg: "output 0",
                size: 1,
                bound_size: 2,
                ..
            }
        ));
        // A length that gives no size of the name: the length the bound dims need.
        let err = bind_dims::<1>(&LN, &[tensor(&[2, 768]), slice(2), slice(1000)]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::SliceLength {
                graph: "ln",
                arg: "output 0",
                len: 1000,
                ty: "f32[B, 768]",
                reason: LengthReason::Exact { needs: 1536 },
                signature: LN.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `ln`: `output 0` is a slice of 1000 elements, which does not fill \
             f32[B, 768] (its dims need exactly 1536); \
             signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
        );
        let err = bind_dims::<1>(&LN, &[slice(10), slice(0), slice(0)]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::SliceLength {
                graph: "ln",
                arg: "x",
                len: 10,
                ty: "f32[B, 768]",
                reason: LengthReason::NotMultiple { of: 768 },
                signature: LN.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `ln`: `x` is a slice of 10 elements, which does not fill f32[B, 768] (10 is \
             not a multiple of 768); signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
        );
    }

    #[test]
    fn a_slice_cannot_give_two_names() {
        static OUTER: GraphSignature = GraphSignature {
            name: "outer",
            text: "outer(a: f32[M, N], b: f32[N]) -> f32[M, N]",
            syms: &["M", "N"],
            params: &[
                ParamSig {
                    name: "a",
                    ty: "f32[M, N]",
                    dims: &[Sym(0), Sym(1)],
                },
                ParamSig {
                    name: "b",
                    ty: "f32[N]",
                    dims: &[Sym(1)],
                },
            ],
            at_least: &[],
            exprs: &[],
        };
        let err = bind_dims::<2>(&OUTER, &[slice(12), slice(4)]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::SliceLength {
                graph: "outer",
                arg: "a",
                len: 12,
                ty: "f32[M, N]",
                reason: LengthReason::SeveralUnknown,
                signature: OUTER.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `outer`: `a` is a slice of 12 elements, which cannot give the dims of \
             f32[M, N] (a slice gives at most one name that no earlier argument bound; pass a \
             tensor, which carries its dims); signature outer(a: f32[M, N], b: f32[N]) -> \
             f32[M, N]"
        );
        // With N bound by a tensor first the slice solves M (params in another order).
        static OUTER2: GraphSignature = GraphSignature {
            name: "outer2",
            text: "outer2(b: f32[N], a: f32[M, N]) -> f32[M, N]",
            syms: &["N", "M"],
            params: &[
                ParamSig {
                    name: "b",
                    ty: "f32[N]",
                    dims: &[Sym(0)],
                },
                ParamSig {
                    name: "a",
                    ty: "f32[M, N]",
                    dims: &[Sym(1), Sym(0)],
                },
            ],
            at_least: &[],
            exprs: &[],
        };
        assert_eq!(
            bind_dims::<2>(&OUTER2, &[tensor(&[4]), slice(12)]),
            Ok([4, 3])
        );
        assert_eq!(bind_dims::<2>(&OUTER2, &[slice(4), slice(12)]), Ok([4, 3]));
    }

    #[test]
    fn zero_sizes() {
        // B = 0 binds fine, from a tensor or a slice.
        assert_eq!(
            bind_dims::<1>(&LN, &[tensor(&[0, 768]), tensor(&[0]), slice(0)]),
            Ok([0])
        );
        assert_eq!(
            bind_dims::<1>(&LN, &[slice(0), slice(0), slice(0)]),
            Ok([0])
        );
        // `f32[B, 0]` from a slice: every B fits 0 elements.
        static Z: GraphSignature = GraphSignature {
            name: "z",
            text: "z(x: f32[B, 0], y: f32[B]) -> f32[B]",
            syms: &["B"],
            params: &[
                ParamSig {
                    name: "x",
                    ty: "f32[B, 0]",
                    dims: &[Sym(0), Static(0)],
                },
                ParamSig {
                    name: "y",
                    ty: "f32[B]",
                    dims: &[Sym(0)],
                },
            ],
            at_least: &[],
            exprs: &[],
        };
        let err = bind_dims::<1>(&Z, &[slice(0), slice(3)]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::SliceLength {
                graph: "z",
                arg: "x",
                len: 0,
                ty: "f32[B, 0]",
                reason: LengthReason::ZeroProduct,
                signature: Z.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `z`: `x` is a slice of 0 elements, which cannot give the dims of f32[B, 0] \
             (its other dims multiply to 0, so every size fits; pass a tensor, which carries \
             its dims); signature z(x: f32[B, 0], y: f32[B]) -> f32[B]"
        );
        let err = bind_dims::<1>(&Z, &[slice(5), slice(3)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "graph `z`: `x` is a slice of 5 elements, which does not fill f32[B, 0] (its other \
             dims multiply to 0, so only an empty slice fits); signature z(x: f32[B, 0], y: \
             f32[B]) -> f32[B]"
        );
        // Bound by a tensor first, the slice needs exactly B·0 = 0 elements.
        assert_eq!(bind_dims::<1>(&Z, &[tensor(&[3, 0]), slice(3)]), Ok([3]));
    }

    #[test]
    fn nonempty_axes() {
        static M: GraphSignature = GraphSignature {
            name: "f",
            text: "f(x: f32[B, 4]) -> f32[4]",
            syms: &["B"],
            params: &[ParamSig {
                name: "x",
                ty: "f32[B, 4]",
                dims: &[Sym(0), Static(4)],
            }],
            at_least: &[(0, 1, "max")],
            exprs: &[],
        };
        assert_eq!(bind_dims::<1>(&M, &[tensor(&[2, 4])]), Ok([2]));
        let err = bind_dims::<1>(&M, &[tensor(&[0, 4])]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::EmptyAxis {
                graph: "f",
                dim: "B",
                op: "max",
                signature: M.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `f`: `max` over dim `B`, which is 0 in this call: an empty axis has no max; \
             signature f(x: f32[B, 4]) -> f32[4]"
        );
    }

    #[test]
    fn overflow() {
        static O: GraphSignature = GraphSignature {
            name: "o",
            text: "o(a: f32[N], b: f32[M], x: f32[N, M]) -> f32[N, M]",
            syms: &["N", "M"],
            params: &[
                ParamSig {
                    name: "a",
                    ty: "f32[N]",
                    dims: &[Sym(0)],
                },
                ParamSig {
                    name: "b",
                    ty: "f32[M]",
                    dims: &[Sym(1)],
                },
                ParamSig {
                    name: "x",
                    ty: "f32[N, M]",
                    dims: &[Sym(0), Sym(1)],
                },
            ],
            at_least: &[],
            exprs: &[],
        };
        let big = usize::MAX / 2;
        // Sizes from tensors that hold nothing (another axis is 0), then a slice of N·M.
        let a = [big, 0];
        let err = bind_dims::<2>(
            &O,
            &[
                ArgShape {
                    len: 0,
                    dims: Some(&a[..1]),
                    layout_error: None,
                    pitch: None,
                },
                slice(0),
                slice(0),
            ],
        )
        .unwrap_err();
        // `a` claims `big` elements but holds none: a broken argument is refused too.
        assert!(matches!(err, ShapeError::Layout { arg: "a", .. }));
        // N and M from tensors, then a slice whose dims multiply past `usize::MAX`.
        let err = bind_dims::<2>(&O, &[tensor(&[big]), tensor(&[3]), slice(0)]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Overflow {
                graph: "o",
                arg: "x",
                signature: O.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `o`: the dims of `x` multiply past the largest usize; \
             signature o(a: f32[N], b: f32[M], x: f32[N, M]) -> f32[N, M]"
        );
    }

    #[test]
    fn layout_errors_come_first() {
        let err = bind_dims::<1>(
            &LN,
            &[
                ArgShape {
                    len: 0,
                    dims: Some(&[4, 768]),
                    layout_error: Some("is transposed"),
                    pitch: None,
                },
                tensor(&[5]),
                tensor(&[4, 768]),
            ],
        )
        .unwrap_err();
        assert_eq!(
            err,
            ShapeError::Layout {
                graph: "ln",
                arg: "x",
                reason: "is transposed",
                signature: LN.text,
            }
        );
        assert_eq!(
            err.to_string(),
            "graph `ln`: `x` is transposed; signature ln(x: f32[B, 768], g: f32[B]) -> f32[B, 768]"
        );
    }

    #[test]
    fn unbound_names_are_errors_not_panics() {
        static U: GraphSignature = GraphSignature {
            name: "u",
            text: "u(x: f32[4]) -> f32[4]",
            syms: &["B"],
            params: &[ParamSig {
                name: "x",
                ty: "f32[4]",
                dims: &[Static(4)],
            }],
            at_least: &[],
            exprs: &[],
        };
        let err = bind_dims::<1>(&U, &[tensor(&[4])]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Unbound {
                graph: "u",
                dim: "B",
                signature: U.text,
            }
        );
        // A name index past `syms` (generated code and runtime out of step).
        static V: GraphSignature = GraphSignature {
            name: "v",
            text: "v(x: f32[B]) -> f32[B]",
            syms: &["B"],
            params: &[ParamSig {
                name: "x",
                ty: "f32[B]",
                dims: &[Sym(3)],
            }],
            at_least: &[],
            exprs: &[],
        };
        assert!(matches!(
            bind_dims::<1>(&V, &[tensor(&[4])]),
            Err(ShapeError::Unbound { dim: "?", .. })
        ));
        assert!(matches!(
            bind_dims::<1>(&V, &[slice(4)]),
            Err(ShapeError::Unbound { dim: "?", .. })
        ));
    }
}

/// The most elements a value inside a graph may have: 2^53. Memory cannot hold more of
/// any element type (2^56 bytes of `f64`), the GEMM engine's packing of that many stays
/// within `isize::MAX` bytes, and `mean`'s element count is exact in `f64` up to there. The
/// checker holds every value of literal dims to it at compile time; call entry holds the
/// rest (`check_sizes`).
pub const MAX_ELEMENTS: usize = 1 << 53;

/// Checks, before any kernel runs, that every size a graph's kernels allocate or compute
/// from names (`coeff · A · C`: a temp's length, a packed operand, a loop nest's element
/// count) is at most [`MAX_ELEMENTS`]. Arguments give each name a size whose own product
/// fits `usize`, but a name bound from an empty argument (`[2^62, 0]`) can be any size, and
/// names from different arguments can multiply past `usize` (`[A, 0]` and `[C, 0]` with
/// huge `A` and `C`): such a call is an `Err`, never a failed allocation or an overflow.
pub fn check_sizes(
    sig: &'static GraphSignature,
    sizes: &[(usize, &[usize])],
) -> Result<(), ShapeError> {
    for &(coeff, names) in sizes {
        let product = names.iter().try_fold(coeff, |acc, &n| acc.checked_mul(n));
        if product.is_none_or(|p| p > MAX_ELEMENTS) {
            return Err(ShapeError::Overflow {
                graph: sig.name,
                arg: "an intermediate value",
                signature: sig.text,
            });
        }
    }
    Ok(())
}

/// Checks, before any kernel reads through them, that every index in `indices` (a
/// parameter `arg` of dims `dims`, row-major) lies in `-len..len`, the positions of an axis
/// of `len` elements (ONNX: a negative index counts from the end), or in `0..len` when
/// `!negative` (a loss's class labels); an index equal to `skip` (a loss's
/// `ignore_index`) is allowed too. Generated code calls it once per index parameter of
/// `gather`-family ops and losses; the kernels then normalise each index and read in range.
/// One pass over the indices, none over the data.
pub fn check_indices<E: Copy + Into<i128>>(
    sig: &'static GraphSignature,
    op: &'static str,
    arg: &'static str,
    indices: &[E],
    dims: &[usize],
    len: usize,
    negative: bool,
    skip: Option<i128>,
) -> Result<(), EntryError> {
    let len_i = len as i128;
    let low_bound = if negative { -len_i } else { 0 };
    let bad = |v: i128| (v < low_bound || v >= len_i) && Some(v) != skip;
    // The common case in one pass the compiler can vectorise: the extremes are in range.
    let (low, high) = indices.iter().fold((i128::MAX, i128::MIN), |(lo, hi), &v| {
        let v: i128 = v.into();
        (lo.min(v), hi.max(v))
    });
    if indices.is_empty() || (low >= low_bound && high < len_i) {
        return Ok(());
    }
    let Some(at) = indices.iter().position(|&v| bad(v.into())) else {
        return Ok(());
    };
    let value = indices.get(at).map_or(0, |&v| v.into());
    Err(index_error(sig, op, arg, dims, at, value, len))
}

/// [`check_indices`] for index tuples (`gather_nd`, `scatter_nd`): the last axis of
/// `indices` holds tuples whose component `c` indexes an axis of `bounds[c]` elements
/// (`-len..len`, a negative index counting from the end).
pub fn check_index_tuples<E: Copy + Into<i128>>(
    sig: &'static GraphSignature,
    op: &'static str,
    arg: &'static str,
    indices: &[E],
    dims: &[usize],
    bounds: &[usize],
) -> Result<(), EntryError> {
    let q = bounds.len().max(1);
    let bad = indices.iter().enumerate().find_map(|(at, &v)| {
        let v: i128 = v.into();
        let len = *bounds.get(at % q)? as i128;
        (v < -len || v >= len).then_some((at, v, len as usize))
    });
    let Some((at, value, len)) = bad else {
        return Ok(());
    };
    Err(index_error(sig, op, arg, dims, at, value, len))
}

/// `IndexOutOfRange` for the index `value` at flat position `at` of an index parameter of
/// dims `dims` (the position shown as a multi-index: `[1, 2]`).
#[cold]
fn index_error(
    sig: &'static GraphSignature,
    op: &'static str,
    arg: &'static str,
    dims: &[usize],
    at: usize,
    value: i128,
    len: usize,
) -> EntryError {
    let mut rest = at;
    let mut position = vec![0usize; dims.len()];
    for (axis, &d) in dims.iter().enumerate().rev() {
        if d > 0 {
            position[axis] = rest % d;
            rest /= d;
        }
    }
    let position: Vec<String> = position.iter().map(|p| p.to_string()).collect();
    EntryError::new(ShapeError::IndexOutOfRange {
        graph: sig.name,
        op,
        arg,
        position: format!("[{}]", position.join(", ")),
        value,
        len,
        signature: sig.text,
    })
}

/// [`check_sizes`] for generated code: the same check and, boxed, the same error.
pub fn check_entry_sizes(
    sig: &'static GraphSignature,
    sizes: &[(usize, &[usize])],
) -> Result<(), EntryError> {
    match check_sizes(sig, sizes) {
        Ok(()) => Ok(()),
        Err(error) => Err(EntryError::new(error)),
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    static SIG: GraphSignature = GraphSignature {
        name: "cross",
        text: "cross(a: f32[A, Z], c: f32[C, Z]) -> f32[]",
        syms: &["A", "Z", "C"],
        params: &[],
        at_least: &[],
        exprs: &[],
    };

    #[test]
    fn products_of_names_are_checked() {
        assert!(check_sizes(&SIG, &[(4, &[1 << 20, 1 << 20])]).is_ok());
        assert!(check_sizes(&SIG, &[(1, &[0, usize::MAX])]).is_ok());
        assert!(check_sizes(&SIG, &[(8, &[1 << 50])]).is_ok());
        // One name past 2^53 elements: no allocation can hold it (a name bound from an
        // empty argument, `[2^62, 0]`, can be any size).
        assert!(check_sizes(&SIG, &[(1, &[1 << 62])]).is_err());
        assert!(check_sizes(&SIG, &[(2, &[1 << 53])]).is_err());
        let err = check_sizes(&SIG, &[(1, &[1 << 20]), (2, &[1 << 33, 1 << 31])]).unwrap_err();
        assert!(matches!(err, ShapeError::Overflow { graph: "cross", .. }));
        assert!(err.to_string().contains("cross(a: f32[A, Z]"), "{err}");
    }
}
