//! What a graph accepts for each tensor parameter (docs/language.md, "Dim names and call
//! entry"), and the traits its generated argument checks are built on:
//! - [`Lend`] / [`LendMut`] (graphs with dim names), [`StaticInput`] / [`StaticOutput`] /
//!   [`StaticPointee`] (graphs with only literal dims, by name and in the closure form): every
//!   form an argument may take, whatever its dtype and shape, with both as associated types.
//!   Each generated parameter trait (`rows_takes_x`) has one blanket impl over one of them
//!   and checks `Elem` and `Shape` itself, through [`UnderLiteral`], [`Checked`] and
//!   [`SameDtype`], so that its errors name the parameter and print what was passed in the
//!   graph's notation (NOTES.md, "Call-site errors").
//! - [`TensorArg`] / [`TensorArgMut`]: the same acceptance rules for a graph with names as
//!   one trait over the declared pattern, for generic code:
//!   `x: impl TensorArg<f32, Rank2<Sym, Fixed<768>>, SliceOk>`.
//!
//! The declared type becomes a *pattern*: a rank struct whose dims are [`Sym`] (a name: any
//! size, checked at call entry) or a literal ([`Fixed`]). What the compiler checks here:
//! - the dtype is the declared one;
//! - a tensor's shape type has the declared rank, and each of its dims accepts the declared
//!   one ([`DimAccepts`]): the same literal, or [`Dyn`] (checked at call entry), or anything
//!   under a name;
//! - a flat slice only where the declared type has at most one name ([`SliceOk`]).
//!
//! Everything else (the sizes of names and of run-time dims) is checked once per call by
//! [`bind_dims`](crate::bind::bind_dims), from the [`ArgParts`] each argument hands over.
//! No argument is ever copied: each one lends its buffer as a row-major slice.
//!
#![cfg_attr(not(doctest), doc = include_str!("doc_examples/args_checked.md"))]

use crate::bind::ArgShape;
use crate::dtype::Element;
use crate::shape::{Dim, Dyn, Fixed, Rank0, Rank1, Rank2, Rank3, Rank4, Rank5, Rank6, Shape};
use crate::tensor::{Tensor, TensorView, TensorViewMut};

/// A declared dim that is a name (`B` in `f32[B, 768]`): any size is accepted at compile time,
/// and call entry checks that every occurrence of the name agrees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sym;

/// `Self` (a dim of an argument's shape type) may stand where `Declared` (a dim of the
/// parameter's pattern) is declared: anything under a name, a literal under the same
/// literal, a run-time dim under a literal (checked at call entry).
pub trait DimAccepts<Declared> {}

impl<D: Dim> DimAccepts<Sym> for D {}
impl<const N: usize> DimAccepts<Fixed<N>> for Fixed<N> {}
impl<const N: usize> DimAccepts<Fixed<N>> for Dyn {}

/// A dim of an argument's shape under a literal dim of the declared type, as the generated
/// checks compare it: a literal stays itself (`Out = Fixed<M>`, which must equal the
/// declared `N`), a run-time dim becomes the declared literal (its size is checked at call
/// entry). One bound per literal dim then covers both, where an impl per choice would cost
/// `2^k` impls for `k` literal dims.
pub trait UnderLiteral<const N: usize> {
    /// `Fixed<M>` for `Fixed<M>`, `Fixed<N>` for `Dyn`.
    type Out;
}

impl<const N: usize, const M: usize> UnderLiteral<N> for Fixed<M> {
    type Out = Fixed<M>;
}

impl<const N: usize> UnderLiteral<N> for Dyn {
    type Out = Fixed<N>;
}

/// `Self` (an argument's shape type) may stand for the parameter pattern `Pattern`: the same
/// rank, and each dim accepts the declared one ([`DimAccepts`]).
pub trait ShapeAccepts<Pattern> {}

/// A parameter pattern: a rank struct over [`Sym`] and [`Fixed`] literals. Its rank is what
/// an `ndarray::IxDyn` argument is checked against at call entry.
pub trait ShapePattern {
    /// The declared rank.
    const RANK: usize;
    /// The shape an argument without a shape type (a flat slice, an `IxDyn` array) stands for
    /// in the generated checks: each name a run-time [`Dyn`], each literal itself.
    type Runtime;
}

/// A dim of a parameter pattern, in its [`ShapePattern::Runtime`] shape: [`Sym`] is [`Dyn`].
pub trait PatternDim {
    /// `Dyn` for `Sym`, `Fixed<N>` for `Fixed<N>`.
    type Runtime;
}

impl PatternDim for Sym {
    type Runtime = Dyn;
}

impl<const N: usize> PatternDim for Fixed<N> {
    type Runtime = Fixed<N>;
}

impl ShapeAccepts<Rank0> for Rank0 {}
impl ShapePattern for Rank0 {
    const RANK: usize = 0;
    type Runtime = Rank0;
}

macro_rules! accepts {
    ($rank:ident, $n:literal; $($d:ident $p:ident),+) => {
        impl<$($d: DimAccepts<$p>, $p),+> ShapeAccepts<$rank<$($p),+>> for $rank<$($d),+> {}
        impl<$($p: PatternDim),+> ShapePattern for $rank<$($p),+> {
            const RANK: usize = $n;
            type Runtime = $rank<$($p::Runtime),+>;
        }
    };
}
accepts!(Rank1, 1; A PA);
accepts!(Rank2, 2; A PA, B PB);
accepts!(Rank3, 3; A PA, B PB, C PC);
accepts!(Rank4, 4; A PA, B PB, C PC, D PD);
accepts!(Rank5, 5; A PA, B PB, C PC, D PD, E PE);
accepts!(Rank6, 6; A PA, B PB, C PC, D PD, E PE, F PF);

/// The parameter's declared type has at most one name, so a flat slice (`&[T]`, `&Vec<T>`)
/// can give its dims from its length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SliceOk;

/// The parameter's declared type has two or more names, which one length cannot give: only
/// arguments that carry their dims are accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NoSlice;

/// Completes "`x` …" for a row-strided argument (`ArgParts::pitch`) where the graph reads
/// or writes it as one contiguous buffer (the kernels of that parameter take no row pitch).
pub const ROW_STRIDED: &str = "is an ndarray view with a row stride (rows apart in memory, \
                               e.g. a column block `a.slice(s![.., ..k])`), which this graph \
                               parameter does not take in place: pass \
                               `&array.as_standard_layout()` (it copies only when the layout \
                               differs), or for an output a standard-layout array assigned \
                               into the view afterwards";

/// An input argument lent to a graph call: its buffer, row-major, and its dims if it carries
/// them.
#[derive(Debug)]
pub struct ArgParts<'a, T> {
    /// The elements, row-major (empty when `layout_error` is set). With a `pitch`, the
    /// region from the first row's first element to the last row's last one.
    pub data: &'a [T],
    /// The dims, outermost first; `None` for a flat slice.
    pub dims: Option<&'a [usize]>,
    /// Set when the argument's layout cannot be read in place; the text completes "`x` …"
    /// and says how to fix it. Call entry turns it into `ShapeError::Layout` before any
    /// kernel reads `data`.
    pub layout_error: Option<&'static str>,
    /// A row-strided argument (an ndarray view of a column block): its rows (the product of
    /// every dim but the last) start `pitch` elements apart, each `dims[-1]` contiguous
    /// elements, and `data` holds `(rows - 1) · pitch + dims[-1]` elements. `None`:
    /// row-major and contiguous. Only kernels that address this parameter by a row pitch
    /// may read it (`arg_shape_pitched`); `arg_shape` refuses it. Graphs get such a kernel
    /// only when this crate has the `ndarray` feature (whose views are the only shipped
    /// source of a pitch): without it, a pitch is refused.
    pub pitch: Option<usize>,
}

/// The `ArgShape` of lent parts: a row pitch passes only where `pitched`, else it is the
/// layout error [`ROW_STRIDED`].
#[inline]
fn shape_of<'a>(
    len: usize,
    dims: Option<&'a [usize]>,
    layout_error: Option<&'static str>,
    pitch: Option<usize>,
    pitched: bool,
) -> ArgShape<'a> {
    match pitch {
        Some(_) if !pitched => ArgShape {
            len,
            dims,
            layout_error: layout_error.or(Some(ROW_STRIDED)),
            pitch,
        },
        _ => ArgShape {
            len,
            dims,
            layout_error,
            pitch,
        },
    }
}

impl<'a, T> ArgParts<'a, T> {
    /// What call entry checks of this argument, for a parameter read as one contiguous
    /// buffer: a row-strided argument is a layout error.
    #[inline]
    pub fn arg_shape(&self) -> ArgShape<'a> {
        shape_of(
            self.data.len(),
            self.dims,
            self.layout_error,
            self.pitch,
            false,
        )
    }

    /// What call entry checks of this argument, for a parameter whose kernels take a row
    /// pitch: a row-strided argument binds as its dims, its length checked against them.
    #[inline]
    pub fn arg_shape_pitched(&self) -> ArgShape<'a> {
        shape_of(
            self.data.len(),
            self.dims,
            self.layout_error,
            self.pitch,
            true,
        )
    }
}

/// An output argument lent to a graph call's `_into`: its buffer, row-major and writable, and
/// its dims if it carries them.
#[derive(Debug)]
pub struct ArgPartsMut<'a, T> {
    /// The elements, row-major (empty when `layout_error` is set).
    pub data: &'a mut [T],
    /// The dims, outermost first; `None` for a flat slice.
    pub dims: Option<&'a [usize]>,
    /// As in [`ArgParts::layout_error`].
    pub layout_error: Option<&'static str>,
    /// As in [`ArgParts::pitch`]: the kernels write only the rows' elements.
    pub pitch: Option<usize>,
}

impl<'a, T> ArgPartsMut<'a, T> {
    /// What call entry checks of this argument, written as one contiguous buffer: a
    /// row-strided output is a layout error.
    #[inline]
    pub fn arg_shape(&self) -> ArgShape<'a> {
        shape_of(
            self.data.len(),
            self.dims,
            self.layout_error,
            self.pitch,
            false,
        )
    }

    /// As [`ArgParts::arg_shape_pitched`], for an output whose kernels take a row pitch.
    #[inline]
    pub fn arg_shape_pitched(&self) -> ArgShape<'a> {
        shape_of(
            self.data.len(),
            self.dims,
            self.layout_error,
            self.pitch,
            true,
        )
    }
}

/// An argument a graph with symbolic dims reads as a tensor of dtype `T` whose declared type
/// is the pattern `P` (`F` is [`SliceOk`] or [`NoSlice`]): the acceptance rules of the
/// generated checks as one trait, for generic code (the generated signatures check the same
/// rules with their own traits, whose errors name the parameter).
///
/// Implemented, with no copy, by every [`Lend`] of dtype `T` whose shape type [`Accepts`]
/// `P`: `&Tensor`, `&TensorView`, `TensorView`, `&TensorViewMut` of a shape type that
/// [`ShapeAccepts`] `P`; `&[T]`, `&Vec<T>` and `&[T; N]` where `F` is [`SliceOk`]; and with
/// the `ndarray` feature `&Array`, `&ArrayView`, `ArrayView` and `&ArrayRef` of `P`'s rank
/// (or `IxDyn`).
///
/// Contract: `data.len()` is the product of `dims` when `dims` is `Some`. Call entry checks it
/// anyway and refuses an argument that breaks it.
#[diagnostic::on_unimplemented(
    message = "this argument is not a tensor of the dtype and shape the graph parameter declares",
    label = "expected a tensor of `{T}` with the parameter's dims",
    note = "a parameter takes `&Tensor`, `&TensorView` or `TensorView` of the declared dtype whose literal dims match (or are `_`), `&[T]` or `&Vec<T>` if its type has at most one dim name, and with the `ndarray` feature `&Array` or `ArrayView` of its rank"
)]
pub trait TensorArg<T, P, F> {
    /// Lends the buffer and dims.
    fn tensor_parts(&self) -> ArgParts<'_, T>;
}

/// An output a graph's `_into` writes as a tensor of dtype `T` whose declared type is the
/// pattern `P` (`F` is [`SliceOk`] or [`NoSlice`]), for generic code: every [`LendMut`] whose
/// shape type [`Accepts`] `P`.
///
/// Implemented, with no copy, by `&mut Tensor`, `&mut TensorViewMut` and `TensorViewMut` of a
/// shape type that [`ShapeAccepts`] `P`; by `&mut [T]`, `&mut Vec<T>` (written in place at its
/// current length, never resized) and `&mut [T; N]` where `F` is [`SliceOk`]; and with the
/// `ndarray` feature by `&mut Array`, `&mut ArrayViewMut`, `ArrayViewMut` and `&mut ArrayRef`
/// of `P`'s rank (or `IxDyn`).
///
/// Contract: as for [`TensorArg`].
#[diagnostic::on_unimplemented(
    message = "this argument is not a writable tensor of the dtype and shape the graph output declares",
    label = "expected a writable tensor of `{T}` with the output's dims",
    note = "an output takes `&mut Tensor`, `&mut TensorViewMut` or `TensorViewMut` of the declared dtype whose literal dims match (or are `_`), `&mut [T]` or `&mut Vec<T>` if its type has at most one dim name, and with the `ndarray` feature `&mut Array` or `ArrayViewMut` of its rank"
)]
pub trait TensorArgMut<T, P, F> {
    /// Lends the buffer, writable, and the dims.
    fn tensor_parts_mut(&mut self) -> ArgPartsMut<'_, T>;
}

/// An input of a graph with only literal dims, as its generated argument trait reads it:
/// `&Tensor`, `&TensorView`, `&TensorViewMut` or a `TensorView`, whatever its dtype and
/// shape. The generated trait (`scale_takes_x`) has one blanket impl over this trait that
/// hands `Elem` and `Shape` to its own checks, so the four forms are written once here and
/// not per argument (NOTES.md, "Call-site errors"). Any `Shape`: an argument of another
/// rank, or with a run-time dim, must reach the generated checks to be reported in the
/// graph's notation.
pub trait StaticInput {
    /// The argument's dtype.
    type Elem;
    /// The argument's shape type (`Rank2<Fixed<4>, Fixed<8>>`).
    type Shape;
    /// The shape in Rust's array notation, for messages ([`Notation`]).
    type Notation: ?Sized;
    /// The elements, row-major.
    fn elements(&self) -> &[Self::Elem];
}

/// An `_into` output of a graph with only literal dims, as its generated argument trait
/// writes it: the `Tensor` or `TensorViewMut` behind the `&mut` (outputs are `&mut impl`, so
/// a `&mut Tensor` variable is reborrowed by each call). As [`StaticInput`].
pub trait StaticOutput {
    /// The output's dtype.
    type Elem;
    /// The output's shape type.
    type Shape;
    /// The shape in Rust's array notation, for messages ([`Notation`]).
    type Notation: ?Sized;
    /// The elements, row-major, writable.
    fn elements_mut(&mut self) -> &mut [Self::Elem];
}

/// Proof that dtype `A` is dtype `B`, with the identity on their elements: one impl, for
/// `A == B`. The generated checks of each argument are its subtraits
/// (`trait scale_x_dims<E, const D0: usize, const D1: usize>: SameDtype<E, f32>`), so the
/// one impl of the checks that can hold (for `E = f32`) proves it, and the generated blanket
/// impl reads the argument's elements as the declared dtype through it: no cast, no
/// `unsafe`, and no method body in the checks themselves.
pub trait SameDtype<A, B> {
    /// The elements, as `B`.
    fn slice(elements: &[A]) -> &[B];
    /// The elements, writable, as `B`.
    fn slice_mut(elements: &mut [A]) -> &mut [B];
    /// The lent parts, as `B`.
    fn parts(parts: ArgParts<'_, A>) -> ArgParts<'_, B>;
    /// The lent writable parts, as `B`.
    fn parts_mut(parts: ArgPartsMut<'_, A>) -> ArgPartsMut<'_, B>;
}

impl<T> SameDtype<T, T> for () {
    #[inline(always)]
    fn slice(elements: &[T]) -> &[T] {
        elements
    }
    #[inline(always)]
    fn slice_mut(elements: &mut [T]) -> &mut [T] {
        elements
    }
    #[inline(always)]
    fn parts(parts: ArgParts<'_, T>) -> ArgParts<'_, T> {
        parts
    }
    #[inline(always)]
    fn parts_mut(parts: ArgPartsMut<'_, T>) -> ArgPartsMut<'_, T> {
        parts
    }
}

/// Step 1 of a by-name argument's checks, read: an input of a graph with only literal dims
/// (`StaticInput`) as its declared dtype `T`. The generated form trait (`scale_takes_x`) is
/// a subtrait of `ReadsAs<f32>` with no method of its own, and its blanket impl's bounds
/// (its step 2, a subtrait of [`SameDtype`]) prove this impl's: so the read is written once
/// here and instantiated once per argument type, not once per argument (NOTES.md, "Where the
/// non-program build cost is"). The messages are the form trait's: a call site proves
/// `X: scale_takes_x` by its impl, never this trait.
pub trait ReadsAs<T> {
    /// The elements, row-major, as `T`.
    fn read_as(&self) -> &[T];
}

impl<T, X: StaticInput> ReadsAs<T> for X
where
    (): SameDtype<X::Elem, T>,
{
    #[inline]
    fn read_as(&self) -> &[T] {
        <() as SameDtype<X::Elem, T>>::slice(StaticInput::elements(self))
    }
}

/// As [`ReadsAs`], for an `_into` output of a graph with only literal dims (`StaticOutput`).
pub trait WritesAs<T> {
    /// The elements, row-major, writable, as `T`.
    fn write_as(&mut self) -> &mut [T];
}

impl<T, X: StaticOutput> WritesAs<T> for X
where
    (): SameDtype<X::Elem, T>,
{
    #[inline]
    fn write_as(&mut self) -> &mut [T] {
        <() as SameDtype<X::Elem, T>>::slice_mut(StaticOutput::elements_mut(self))
    }
}

/// As [`ReadsAs`], for an input of a graph with names called by name ([`Lend`]).
pub trait LendsAs<T> {
    /// The lent parts, as `T`.
    fn lend_as(&self) -> ArgParts<'_, T>;
}

impl<T, X: Lend> LendsAs<T> for X
where
    (): SameDtype<X::Elem, T>,
{
    #[inline]
    fn lend_as(&self) -> ArgParts<'_, T> {
        <() as SameDtype<X::Elem, T>>::parts(Lend::lend(self))
    }
}

/// As [`ReadsAs`], for an `_into` output of a graph with names ([`LendMut`]).
pub trait LendsMutAs<T> {
    /// The lent writable parts, as `T`.
    fn lend_mut_as(&mut self) -> ArgPartsMut<'_, T>;
}

impl<T, X: LendMut> LendsMutAs<T> for X
where
    (): SameDtype<X::Elem, T>,
{
    #[inline]
    fn lend_mut_as(&mut self) -> ArgPartsMut<'_, T> {
        <() as SameDtype<X::Elem, T>>::parts_mut(LendMut::lend_mut(self))
    }
}

/// An input of the closure form of a graph with only literal dims: the `Tensor`,
/// `TensorView` or `TensorViewMut` behind the `&dyn` the closure takes (a closure cannot be
/// generic, so its tensor parameters are `&dyn` the generated argument trait, whose blanket
/// impl is over this trait). As [`StaticInput`].
pub trait StaticPointee {
    /// The tensor's dtype.
    type Elem;
    /// The tensor's shape type.
    type Shape;
    /// The shape in Rust's array notation, for messages ([`Notation`]).
    type Notation: ?Sized;
    /// The elements, row-major.
    fn elements(&self) -> &[Self::Elem];
}

impl<T: Element, S: Shape + Notation<T>> StaticPointee for Tensor<T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        &self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticPointee for TensorView<'_, T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticPointee for TensorViewMut<'_, T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        &*self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticInput for &Tensor<T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        &self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticInput for &TensorView<'_, T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticInput for &TensorViewMut<'_, T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        &*self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticInput for TensorView<'_, T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticOutput for Tensor<T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [T] {
        &mut self.data
    }
}

impl<T: Element, S: Shape + Notation<T>> StaticOutput for TensorViewMut<'_, T, S> {
    type Elem = T;
    type Shape = S;
    type Notation = <S as Notation<T>>::Out;
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [T] {
        &mut *self.data
    }
}

fn tensor_parts<'a, T: Element>(data: &'a [T], dims: &'a [usize]) -> ArgParts<'a, T> {
    ArgParts {
        data,
        dims: Some(dims),
        layout_error: None,
        pitch: None,
    }
}

fn slice_parts<T>(data: &[T]) -> ArgParts<'_, T> {
    ArgParts {
        data,
        dims: None,
        layout_error: None,
        pitch: None,
    }
}

fn slice_parts_mut<T>(data: &mut [T]) -> ArgPartsMut<'_, T> {
    ArgPartsMut {
        data,
        dims: None,
        layout_error: None,
        pitch: None,
    }
}

/// The shape type of a flat slice argument (`&[T]`, `&Vec<T>`, `&[T; N]`): no dims, only a
/// length, which gives the dims of a declared type with at most one name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flat;

/// The shape type of an ndarray array of static rank `R` (`Ix0` … `Ix6`), every dim a
/// run-time one. [`Checked`] against a declared pattern of rank `R` it is `Rank{R}<Dyn, …>`
/// (checked at call entry); of another rank it stays `NdRank<R>`, which the generated checks
/// of a graph with names send to a message of their own (the parameter, its declared type,
/// the passed rank as a number, and the reshape that fixes it: NOTES.md, "Call-site errors").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NdRank<const R: usize>;

/// No type implements it: the bound of the generated checks' `#[diagnostic::do_not_recommend]`
/// impls, which exist only so that rustc does not add "this trait has no implementations,
/// consider adding one" to an error whose message is the trait's own.
pub trait NoImpl {}

/// The shape type of an argument whose rank is known only at run time (an ndarray `IxDyn`
/// array): its rank and dims are checked at call entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AnyRank;

/// An argument's shape in Rust's array notation, for the generated checks' messages only:
/// `Rank2<Fixed<4>, Fixed<8>>` of `f32` is `[[f32; 8]; 4]`, a run-time outermost dim a slice
/// (`Rank2<Dyn, Fixed<8>>` is `[[f32; 8]]`), a run-time inner dim a `Vec` (`Rank2<Fixed<4>,
/// Dyn>` is `[Vec<f32>; 4]`), a [`Flat`] slice `[f32]`, rank 0 the dtype itself.
///
/// rustc prints a type with its generic arguments (`Rank1<Fixed<32>>`) and a const generic
/// argument as its value, and a message's format is fixed per trait: the graph's own notation
/// (`f32[32]`) for an argument of another rank than declared would need a trait per
/// parameter and rank (measured at twice the `cargo check` instructions: NOTES.md,
/// "Call-site errors"). Nested arrays print every rank in one format, from one projection
/// (each argument form's `Notation` associated type).
pub trait Notation<E> {
    /// The array type (unsized for a run-time outermost dim).
    type Out: ?Sized;
}

impl<T> Notation<T> for Rank0 {
    type Out = T;
}

impl<T> Notation<T> for Flat {
    type Out = [T];
}

impl<T> Notation<T> for AnyRank {
    type Out = [T];
}

// One impl per rank and choice of `Fixed` or `Dyn` for each dim (126), so that a call
// normalizes `Out` with one impl selection and no nested projections: measured cheaper than
// one impl per rank over per-dim helper traits (NOTES.md, "Call-site errors").
macro_rules! notation {
    ($rank:ident; $($dim:ident)+) => {
        notation!(@choose $rank [] [] [] [$($dim)+]);
    };
    // Each dim is `Fixed<$d>` (a const parameter) or `Dyn`.
    (@choose $rank:ident [$($consts:tt)*] [$($dims:tt)*] [$($kinds:tt)*] [$d:ident $($rest:ident)*]) => {
        notation!(@choose $rank [$($consts)* const $d: usize,] [$($dims)* Fixed<$d>,] [$($kinds)* (F $d)] [$($rest)*]);
        notation!(@choose $rank [$($consts)*] [$($dims)* Dyn,] [$($kinds)* (D)] [$($rest)*]);
    };
    (@choose $rank:ident [$($consts:tt)*] [$($dims:tt)*] [$($kinds:tt)*] []) => {
        impl<T, $($consts)*> Notation<T> for $rank<$($dims)*> {
            type Out = notation!(@outer $($kinds)*);
        }
    };
    // The outermost dim: an array, or a slice for a run-time dim.
    (@outer (F $n:ident) $($rest:tt)*) => { [notation!(@inner $($rest)*); $n] };
    (@outer (D) $($rest:tt)*) => { [notation!(@inner $($rest)*)] };
    // Inner dims: an array, or a `Vec` for a run-time dim (an element type is sized).
    (@inner) => { T };
    (@inner (F $n:ident) $($rest:tt)*) => { [notation!(@inner $($rest)*); $n] };
    (@inner (D) $($rest:tt)*) => { Vec<notation!(@inner $($rest)*)> };
}
notation!(Rank1; A);
notation!(Rank2; A B);
notation!(Rank3; A B C);
notation!(Rank4; A B C D);
notation!(Rank5; A B C D F);
notation!(Rank6; A B C D F G);

/// An argument a graph with dim names reads, whatever its dtype and shape: its elements
/// (`Elem`), its shape type (`Shape`: a rank struct over [`Fixed`] and [`Dyn`], [`Flat`],
/// [`NdRank`] or [`AnyRank`]) and its parts, lent without a copy.
///
/// Implemented by `&Tensor`, `&TensorView`, `TensorView`, `&TensorViewMut` (their shape
/// type), `&[T]`, `&Vec<T>`, `&[T; N]` ([`Flat`]), and with the `ndarray` feature by
/// `&Array`, `&ArrayView`, `ArrayView` and `&ArrayRef` (`Ix2` is [`NdRank`]`<2>`, checked as
/// `Rank2<Dyn, Dyn>`; `IxDyn` [`AnyRank`]). The generated argument trait of each parameter (`rows_takes_x`) has one
/// blanket impl over this trait and checks `Elem` and `Shape` against the declared type
/// itself, so that its errors can print what was passed in the graph's notation; so does
/// [`TensorArg`] for generic code.
///
/// Contract: `data.len()` is the product of `dims` when `dims` is `Some`. Call entry checks it
/// anyway and refuses an argument that breaks it.
pub trait Lend {
    /// The argument's dtype.
    type Elem;
    /// The argument's shape type.
    type Shape;
    /// The shape in Rust's array notation, for messages ([`Notation`]).
    type Notation: ?Sized;
    /// Lends the buffer and dims.
    fn lend(&self) -> ArgParts<'_, Self::Elem>;
}

/// An `_into` output a graph with dim names writes, whatever its dtype and shape: as [`Lend`],
/// for `&mut Tensor`, `&mut TensorViewMut`, `TensorViewMut`, `&mut [T]`, `&mut Vec<T>`
/// (written in place at its current length, never resized), `&mut [T; N]` and with the
/// `ndarray` feature `&mut Array`, `&mut ArrayViewMut`, `ArrayViewMut` and `&mut ArrayRef`.
pub trait LendMut {
    /// The output's dtype.
    type Elem;
    /// The output's shape type.
    type Shape;
    /// The shape in Rust's array notation, for messages ([`Notation`]).
    type Notation: ?Sized;
    /// Lends the buffer, writable, and the dims.
    fn lend_mut(&mut self) -> ArgPartsMut<'_, Self::Elem>;
}

macro_rules! lend_tensor {
    ($($ty:ty),+) => {$(
        impl<T: Element, S: Shape + Notation<T>> Lend for $ty {
            type Elem = T;
            type Shape = S;
            type Notation = <S as Notation<T>>::Out;
            #[inline]
            fn lend(&self) -> ArgParts<'_, T> {
                // The fields, not `parts()`: one function per tensor type in a user's crate
                // instead of two (issue 17).
                tensor_parts(&self.data, self.dims.as_ref())
            }
        }
    )+};
}
lend_tensor!(TensorView<'_, T, S>);

/// A reference lends what it points at: `&Tensor`, `&TensorView`, `&TensorViewMut`, `&[T]`,
/// `&Vec<T>`, `&[T; N]` and with the `ndarray` feature `&Array`, `&ArrayView` and `&ArrayRef`,
/// through their [`LendPointee`] impls (the closure form of a graph with names reads the same
/// impls behind its `&`), so each form is written once.
impl<X: LendPointee + ?Sized> Lend for &X {
    type Elem = X::Elem;
    type Shape = X::Shape;
    type Notation = X::Notation;
    #[inline]
    fn lend(&self) -> ArgParts<'_, X::Elem> {
        X::lend(self)
    }
}

macro_rules! lend_tensor_mut {
    ($($ty:ty),+) => {$(
        impl<T: Element, S: Shape + Notation<T>> LendMut for $ty {
            type Elem = T;
            type Shape = S;
            type Notation = <S as Notation<T>>::Out;
            #[inline]
            fn lend_mut(&mut self) -> ArgPartsMut<'_, T> {
                // The fields, not `parts_mut()`, as in `lend`.
                ArgPartsMut {
                    data: &mut self.data,
                    dims: Some(self.dims.as_ref()),
                    layout_error: None,
                    pitch: None,
                }
            }
        }
    )+};
}
lend_tensor_mut!(&mut Tensor<T, S>, &mut TensorViewMut<'_, T, S>, TensorViewMut<'_, T, S>);

/// The value behind the `&` that the closure form of a graph with names takes for each tensor
/// parameter: `Tensor`, `TensorView`, `TensorViewMut`, `[T]`, `Vec<T>`, `[T; N]` and with the
/// `ndarray` feature `ArrayBase` (an array or a view) and `ArrayRef`; as [`Lend`] for the
/// reference to it. The closure form's value is a generic function item whose type parameters
/// the first call fixes; a parameter `&X` with `X` this trait's implementor leaves the
/// borrow's lifetime free at each call, where `impl Lend` would fix it with the argument type
/// (`&'v [f32]`), so that every later call must lend as long as the closure lives.
pub trait LendPointee {
    /// The argument's dtype.
    type Elem;
    /// The argument's shape type.
    type Shape;
    /// The shape in Rust's array notation, for messages ([`Notation`]).
    type Notation: ?Sized;
    /// Lends the buffer and dims.
    fn lend(&self) -> ArgParts<'_, Self::Elem>;
}

macro_rules! lend_pointee_tensor {
    ($($ty:ty),+) => {$(
        impl<T: Element, S: Shape + Notation<T>> LendPointee for $ty {
            type Elem = T;
            type Shape = S;
            type Notation = <S as Notation<T>>::Out;
            #[inline]
            fn lend(&self) -> ArgParts<'_, T> {
                tensor_parts(&self.data, self.dims.as_ref())
            }
        }
    )+};
}
lend_pointee_tensor!(Tensor<T, S>, TensorView<'_, T, S>, TensorViewMut<'_, T, S>);

impl<T: Element> LendPointee for [T] {
    type Elem = T;
    type Shape = Flat;
    type Notation = [T];
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        slice_parts(self)
    }
}

impl<T: Element> LendPointee for Vec<T> {
    type Elem = T;
    type Shape = Flat;
    type Notation = [T];
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        slice_parts(self)
    }
}

impl<T: Element, const N: usize> LendPointee for [T; N] {
    type Elem = T;
    type Shape = Flat;
    type Notation = [T];
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        slice_parts(&self[..])
    }
}

impl<T: Element> LendMut for &mut [T] {
    type Elem = T;
    type Shape = Flat;
    type Notation = [T];
    #[inline]
    fn lend_mut(&mut self) -> ArgPartsMut<'_, T> {
        slice_parts_mut(self)
    }
}

// A `Vec` is written at its current length: a graph never resizes a caller's buffer (a wrong
// length is a call-entry error, as for a slice).
impl<T: Element> LendMut for &mut Vec<T> {
    type Elem = T;
    type Shape = Flat;
    type Notation = [T];
    #[inline]
    fn lend_mut(&mut self) -> ArgPartsMut<'_, T> {
        slice_parts_mut(self)
    }
}

impl<T: Element, const N: usize> LendMut for &mut [T; N] {
    type Elem = T;
    type Shape = Flat;
    type Notation = [T];
    #[inline]
    fn lend_mut(&mut self) -> ArgPartsMut<'_, T> {
        slice_parts_mut(&mut self[..])
    }
}

/// An argument's shape type `Self` may stand for the parameter pattern `P` when flat slices
/// are `F`: a rank struct that [`ShapeAccepts`] `P`, a [`Flat`] slice where `F` is
/// [`SliceOk`], an [`AnyRank`] array always (its rank is checked at call entry).
pub trait Accepts<P, F> {}

impl<S: Shape + ShapeAccepts<P>, P, F> Accepts<P, F> for S {}
impl<P> Accepts<P, SliceOk> for Flat {}
impl<P: ShapePattern, F> Accepts<P, F> for AnyRank {}

/// The shape type an argument's checks in a generated signature compare with the parameter
/// pattern `P` (flat slices `F`): a rank struct is itself; a [`Flat`] slice where `F` is
/// [`SliceOk`], and an [`AnyRank`] array, stand for `P`'s [`ShapePattern::Runtime`] shape
/// (their dims come from their length or are checked at call entry); a [`Flat`] slice where
/// `F` is [`NoSlice`] stays `Flat`, which no generated check takes. One projection in the
/// generated blanket impl, so each parameter needs a single impl of its rank check.
pub trait Checked<P, F> {
    /// The shape type to check.
    type Out;
}

impl<S: Shape, P, F> Checked<P, F> for S {
    type Out = S;
}

impl<P: ShapePattern> Checked<P, SliceOk> for Flat {
    type Out = P::Runtime;
}

impl<P> Checked<P, NoSlice> for Flat {
    type Out = Flat;
}

impl<P: ShapePattern, F> Checked<P, F> for AnyRank {
    type Out = P::Runtime;
}

impl<X: Lend<Elem = T>, T: Element, P, F> TensorArg<T, P, F> for X
where
    X::Shape: Accepts<P, F>,
{
    #[inline]
    fn tensor_parts(&self) -> ArgParts<'_, T> {
        self.lend()
    }
}

impl<X: LendMut<Elem = T>, T: Element, P, F> TensorArgMut<T, P, F> for X
where
    X::Shape: Accepts<P, F>,
{
    #[inline]
    fn tensor_parts_mut(&mut self) -> ArgPartsMut<'_, T> {
        self.lend_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::{bind_dims, DeclDim, GraphSignature, ParamSig};
    use crate::error::ShapeError;
    use crate::shape::Fixed;

    type Pattern = Rank2<Sym, Fixed<768>>;

    /// The notation messages print, for each kind of dim and rank (compile-time checks:
    /// each line fails to compile if `Out` is another type).
    #[test]
    fn notation_writes_shapes_as_rust_arrays() {
        use core::marker::PhantomData as P;
        let _: P<<Rank0 as Notation<f32>>::Out> = P::<f32>;
        let _: P<<Rank1<Fixed<32>> as Notation<u8>>::Out> = P::<[u8; 32]>;
        let _: P<<Rank1<Dyn> as Notation<f32>>::Out> = P::<[f32]>;
        let _: P<<Rank2<Fixed<4>, Fixed<8>> as Notation<f64>>::Out> = P::<[[f64; 8]; 4]>;
        let _: P<<Rank2<Dyn, Fixed<8>> as Notation<f32>>::Out> = P::<[[f32; 8]]>;
        let _: P<<Rank2<Fixed<4>, Dyn> as Notation<f32>>::Out> = P::<[Vec<f32>; 4]>;
        let _: P<<Rank3<Dyn, Dyn, Fixed<2>> as Notation<i8>>::Out> = P::<[Vec<[i8; 2]>]>;
        let _: P<<Rank6<Fixed<1>, Dyn, Fixed<3>, Dyn, Dyn, Fixed<6>> as Notation<bool>>::Out> =
            P::<[Vec<[Vec<Vec<[bool; 6]>>; 3]>; 1]>;
        let _: P<<Flat as Notation<f32>>::Out> = P::<[f32]>;
        let _: P<<&Tensor<f32, Rank1<Fixed<3>>> as StaticInput>::Notation> = P::<[f32; 3]>;
        let _: P<<&Vec<f32> as Lend>::Notation> = P::<[f32]>;
    }

    fn lent<X: TensorArg<f32, Pattern, SliceOk>>(x: X) -> (usize, Option<Vec<usize>>) {
        let parts = x.tensor_parts();
        (parts.data.len(), parts.dims.map(<[usize]>::to_vec))
    }

    #[test]
    // `&view` is borrowed on purpose: `&TensorView` is an accepted argument of its own.
    #[allow(clippy::needless_borrows_for_generic_args)]
    fn inputs_lend_buffer_and_dims() {
        let fixed = Tensor::<f32, Rank2<Fixed<4>, Fixed<768>>>::zeros();
        assert_eq!(lent(&fixed), (3072, Some(vec![4, 768])));
        assert_eq!(lent(fixed.view()), (3072, Some(vec![4, 768])));
        assert_eq!(lent(&fixed.view()), (3072, Some(vec![4, 768])));
        let rows = Tensor::<f32, Rank2<Dyn, Fixed<768>>>::from_vec(vec![1.0; 768]).unwrap();
        assert_eq!(lent(&rows), (768, Some(vec![1, 768])));
        let any = Tensor::<f32, Rank2<Dyn, Dyn>>::zeros_with_dims([2, 768]).unwrap();
        assert_eq!(lent(&any), (1536, Some(vec![2, 768])));
        let mut buffer = vec![0.0f32; 768];
        let view_mut = TensorViewMut::<f32, Rank2<Dyn, Fixed<768>>>::new(&mut buffer).unwrap();
        assert_eq!(lent(&view_mut), (768, Some(vec![1, 768])));
        let v = vec![0.5f32; 1536];
        assert_eq!(lent(&v), (1536, None));
        assert_eq!(lent(&v[..]), (1536, None));
        assert_eq!(lent(&[0.0f32; 768]), (768, None));
        // The lent slice is the argument's own buffer (here through `NoSlice`, which takes
        // tensors as `SliceOk` does).
        fn lent_ptr<X: TensorArg<f32, Pattern, NoSlice>>(x: X) -> *const f32 {
            x.tensor_parts().data.as_ptr()
        }
        assert_eq!(lent_ptr(&rows), rows.as_slice().as_ptr());
        assert_eq!(lent_ptr(rows.view()), rows.as_slice().as_ptr());
    }

    /// What a generated `f_into(x: f32[B, 768]) -> f32[B, 768]` does: bind, then write.
    static COPY: GraphSignature = GraphSignature {
        name: "copy",
        text: "copy(x: f32[B, 768]) -> f32[B, 768]",
        syms: &["B"],
        params: &[
            ParamSig {
                name: "x",
                ty: "f32[B, 768]",
                dims: &[DeclDim::Sym(0), DeclDim::Static(768)],
            },
            ParamSig {
                name: "output 0",
                ty: "f32[B, 768]",
                dims: &[DeclDim::Sym(0), DeclDim::Static(768)],
            },
        ],
        at_least: &[],
        exprs: &[],
    };

    fn copy_into(
        x: impl TensorArg<f32, Pattern, SliceOk>,
        mut out: impl TensorArgMut<f32, Pattern, SliceOk>,
    ) -> Result<usize, ShapeError> {
        let x = x.tensor_parts();
        let out = out.tensor_parts_mut();
        let [b] = bind_dims::<1>(&COPY, &[x.arg_shape(), out.arg_shape()])?;
        out.data.copy_from_slice(x.data);
        Ok(b)
    }

    #[test]
    fn outputs_are_written_in_place() {
        let x: Vec<f32> = (0..1536).map(|i| i as f32).collect();
        let mut t = Tensor::<f32, Rank2<Dyn, Fixed<768>>>::zeros_with_dims([2, 768]).unwrap();
        assert_eq!(copy_into(&x, &mut t), Ok(2));
        assert_eq!(t[[1, 767]], 1535.0);
        let mut s = Tensor::<f32, Rank2<Fixed<2>, Fixed<768>>>::zeros();
        assert_eq!(copy_into(&t, &mut s), Ok(2));
        assert_eq!(s.as_slice(), &x[..]);
        let mut v = vec![0.0f32; 1536];
        assert_eq!(copy_into(&x, &mut v), Ok(2));
        assert_eq!(v, x);
        let mut buffer = vec![0.0f32; 1536];
        assert_eq!(copy_into(&x[..], &mut buffer[..]), Ok(2));
        assert_eq!(buffer, x);
        let mut buffer = vec![0.0f32; 1536];
        let mut view = TensorViewMut::<f32, Rank2<Dyn, Fixed<768>>>::new(&mut buffer).unwrap();
        assert_eq!(copy_into(&x, &mut view), Ok(2));
        assert_eq!(copy_into(&x, view), Ok(2));
        assert_eq!(buffer, x);
        // A `Vec` of the wrong length is an error, and is neither written nor resized.
        let mut short = vec![7.0f32; 768];
        assert_eq!(
            copy_into(&x, &mut short),
            Err(ShapeError::DimMismatch {
                graph: "copy",
                dim: "B",
                size: 1,
                arg: "output 0",
                axis: 0,
                bound_size: 2,
                bound_arg: "x",
                bound_axis: 0,
                signature: COPY.text,
            })
        );
        assert_eq!(short, vec![7.0f32; 768]);
        let mut odd = vec![7.0f32; 1000];
        assert_eq!(
            copy_into(&x, &mut odd),
            Err(ShapeError::SliceLength {
                graph: "copy",
                arg: "output 0",
                len: 1000,
                ty: "f32[B, 768]",
                reason: crate::error::LengthReason::Exact { needs: 1536 },
                signature: COPY.text,
            })
        );
        assert_eq!(odd.len(), 1000);
    }
}
