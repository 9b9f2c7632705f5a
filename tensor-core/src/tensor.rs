//! Owned tensors and borrowed views. Each one owns its extents (`dims`, one `usize` per axis):
//! a literal dim of the shape type is a compile-time fact that the stored extent repeats, a
//! run-time dim ([`Dyn`](crate::shape::Dyn)) is known only from the stored extent.
//!
//! Invariant of every type here, checked by every constructor (which return `ShapeError`
//! otherwise), so kernels and indexing may rely on it:
//! - the buffer holds exactly the product of `dims` elements, row-major;
//! - every literal dim of `S` equals the stored extent on that axis;
//! - the nonzero extents multiply to at most `isize::MAX` (ndarray's rule), so index
//!   arithmetic cannot overflow even when another extent is 0.

use crate::dtype::DType;
use crate::dtype::Element;
pub use crate::error::{LengthReason, ShapeError};
use crate::shape::{dims_text, flat_offset, static_dims_text, unravel, Rank0, Shape, StaticShape};
use core::fmt;

// The checks behind the constructors. Each is one non-generic function over slices, so the
// many tensor types share one copy of the code; the generic wrappers only convert `S::Index`.

/// The element count of `dims` if they are addressable, else `None`. Addressable (ndarray's
/// rule too): the nonzero dims multiply to at most `isize::MAX`, so every index computation a
/// kernel makes, even over an empty tensor (`[0, n, m]` with huge `n·m`), fits in `usize`,
/// and `into_ndarray` cannot fail.
fn addressable_len(dims: &[usize]) -> Option<usize> {
    let nonzero = dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&p| p <= isize::MAX as usize)?;
    Some(if dims.contains(&0) { 0 } else { nonzero })
}

/// Checks that `dims` fit the shape type (rank and literal dims) and are addressable, and
/// returns their element count.
fn fit_dims(static_dims: &[Option<usize>], dims: &[usize]) -> Result<usize, ShapeError> {
    if static_dims.len() != dims.len() {
        return Err(ShapeError::TensorRank {
            shape: static_dims_text(static_dims),
            expected: static_dims.len(),
            found: dims.len(),
        });
    }
    for (axis, (&fixed, &given)) in static_dims.iter().zip(dims).enumerate() {
        if let Some(expected) = fixed {
            if expected != given {
                return Err(ShapeError::FixedDim {
                    dims: dims_text(dims),
                    shape: static_dims_text(static_dims),
                    axis,
                    expected,
                    found: given,
                });
            }
        }
    }
    addressable_len(dims).ok_or_else(|| ShapeError::TooLarge {
        dims: dims_text(dims),
    })
}

/// Checks that `dims` fit the shape type and a buffer of `len` elements.
pub(crate) fn check_dims(
    static_dims: &[Option<usize>],
    dims: &[usize],
    len: usize,
) -> Result<(), ShapeError> {
    let expected = fit_dims(static_dims, dims)?;
    if expected == len {
        Ok(())
    } else {
        Err(ShapeError::Length {
            expected,
            found: len,
            dims: dims_text(dims),
        })
    }
}

/// Checks that `dims` fit the shape type and that a buffer of that many `elem_size`-byte
/// elements can be allocated (at most `isize::MAX` bytes, Rust's limit for one allocation), so
/// building it cannot panic on a capacity overflow. Returns the element count.
fn alloc_len(
    static_dims: &[Option<usize>],
    dims: &[usize],
    elem_size: usize,
) -> Result<usize, ShapeError> {
    let len = fit_dims(static_dims, dims)?;
    match len.checked_mul(elem_size) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(len),
        _ => Err(ShapeError::TooLarge {
            dims: dims_text(dims),
        }),
    }
}

/// Writes into `out` the dims of the shape type that a buffer of `len` elements fills.
///
/// Rules: with no run-time dim, `len` must be the product of the literal dims. With one, it is
/// `len / product of the literal dims`, with no remainder; if the literal dims multiply to 0,
/// a length cannot fix it (0 fits every size, others fit none), so that is an error too. Two
/// or more run-time dims cannot be solved from one length (`from_shape_vec` gives them).
/// Literal dims that are not addressable fit no buffer.
fn solve_dims(
    static_dims: &[Option<usize>],
    len: usize,
    out: &mut [usize],
) -> Result<(), ShapeError> {
    let text = || static_dims_text(static_dims);
    if out.len() != static_dims.len() {
        return Err(ShapeError::TensorRank {
            shape: text(),
            expected: static_dims.len(),
            found: out.len(),
        });
    }
    let mut run_time = static_dims.iter().enumerate().filter(|(_, d)| d.is_none());
    let unknown = run_time.next().map(|(axis, _)| axis);
    if run_time.next().is_some() {
        return Err(ShapeError::Solve {
            len,
            dims: text(),
            reason: LengthReason::SeveralUnknown,
        });
    }
    let fixed: Vec<usize> = static_dims.iter().flatten().copied().collect();
    let Some(product) = addressable_len(&fixed) else {
        return Err(ShapeError::TooLarge { dims: text() });
    };
    let solve_error = |reason| ShapeError::Solve {
        len,
        dims: text(),
        reason,
    };
    let solved = match unknown {
        None if product == len => None,
        None => {
            return Err(ShapeError::Length {
                expected: product,
                found: len,
                dims: text(),
            })
        }
        Some(_) if product == 0 => return Err(solve_error(LengthReason::ZeroProduct)),
        Some(_) if !len.is_multiple_of(product) => {
            return Err(solve_error(LengthReason::NotMultiple { of: product }))
        }
        Some(axis) => Some((axis, len / product)),
    };
    for (slot, &fixed) in out.iter_mut().zip(static_dims) {
        *slot = fixed.unwrap_or(0);
    }
    if let Some((axis, size)) = solved {
        // `axis` indexes `static_dims`, which has `out`'s length (checked above).
        if let Some(slot) = out.get_mut(axis) {
            *slot = size;
        }
    }
    Ok(())
}

/// The zeroed buffer of [`Tensor::zeros_with_dims`], checked as there. Generic over the
/// dtype only: a user's crate instantiates it once per dtype, not once per shape (issue 17).
pub(crate) fn zeroed_data<T: Element>(
    static_dims: &[Option<usize>],
    dims: &[usize],
) -> Result<Vec<T>, ShapeError> {
    let len = alloc_len(static_dims, dims, core::mem::size_of::<T>())?;
    Ok(crate::hugepages::filled(len, T::default()))
}

/// The buffer of [`Tensor::full_with_dims`], checked as in `zeroed_data`; generic over the
/// dtype only, as it is.
fn filled_data<T: Element>(
    static_dims: &[Option<usize>],
    dims: &[usize],
    value: T,
) -> Result<Vec<T>, ShapeError> {
    let len = alloc_len(static_dims, dims, core::mem::size_of::<T>())?;
    Ok(crate::hugepages::filled(len, value))
}

/// An output of a graph with names, allocated by its allocating form: all elements zero,
/// with the given extents, as [`Tensor::zeros_with_dims`] makes it (the same checks and
/// errors, boxed). Generic over the shape only in this wrapper, which inlines: the
/// allocation and its checks are one function per dtype (`zeroed_entry`), where
/// `zeros_with_dims` is compiled once per output type (issue 17).
#[doc(hidden)]
#[inline]
pub fn graph_output<T: Element, S: Shape>(
    dims: S::Index,
) -> Result<Tensor<T, S>, crate::bind::EntryError> {
    match zeroed_entry::<T>(S::STATIC_DIMS, dims.as_ref()) {
        Ok(data) => Ok(Tensor { data, dims }),
        Err(e) => Err(e),
    }
}

/// `zeroed_data` with its error boxed, out of line: one function per dtype.
#[inline(never)]
pub(crate) fn zeroed_entry<T: Element>(
    static_dims: &[Option<usize>],
    dims: &[usize],
) -> Result<Vec<T>, crate::bind::EntryError> {
    match zeroed_data::<T>(static_dims, dims) {
        Ok(data) => Ok(data),
        Err(e) => Err(crate::bind::EntryError::new(e)),
    }
}

/// The dims of `S` that a buffer of `len` elements fills (see `solve_dims`).
fn solved_index<S: Shape>(len: usize) -> Result<S::Index, ShapeError> {
    let mut index = S::Index::default();
    solve_dims(S::STATIC_DIMS, len, index.as_mut())?;
    Ok(index)
}

/// The extents of a static shape (`S::DIMS`), as its index type `I`. Generic over the
/// index type only (`[usize; RANK]`), not the shape: a user's crate instantiates it once
/// per rank, not once per shape (issue 17).
fn static_index<I: Default + AsMut<[usize]>>(dims: &[usize]) -> I {
    let mut index = I::default();
    for (slot, &d) in index.as_mut().iter_mut().zip(dims) {
        *slot = d;
    }
    index
}

/// The panic of `Index`/`IndexMut`, shaped like slice indexing's: out of range is a bug in
/// the caller, `get` is the checked form.
#[cold]
#[track_caller]
fn index_out_of_range(index: &[usize], dims: &[usize]) -> ! {
    panic!(
        "index {:?} is out of range for shape {}",
        index,
        dims_text(dims)
    )
}

// `data` and `dims` are visible to the crate: the argument traits of args.rs lend the buffer
// (writable for an output) and the extents at once, reading the fields directly (issue 17).

/// An owned tensor of dtype `T` and shape type `S`, row-major, with its extents stored.
pub struct Tensor<T: Element, S: Shape> {
    pub(crate) data: Vec<T>,
    pub(crate) dims: S::Index,
}

/// A read-only view over a borrowed slice, checked against `S` when built.
pub struct TensorView<'a, T: Element, S: Shape> {
    pub(crate) data: &'a [T],
    pub(crate) dims: S::Index,
}

/// A writable view over a borrowed slice, checked against `S` when built.
pub struct TensorViewMut<'a, T: Element, S: Shape> {
    pub(crate) data: &'a mut [T],
    pub(crate) dims: S::Index,
}

// `zeros`, `full` and `from_fn` put `S: StaticShape` on each method, not on the impl block:
// called on a shape with a run-time dim, a bound on the block is rustc's E0599 ("exists …
// but its trait bounds were not satisfied"), which ignores `StaticShape`'s
// `#[diagnostic::on_unimplemented]`; a bound on the method is an E0277, which prints it and
// so names the constructor to use instead (`zeros_with_dims`, `full_with_dims`,
// `from_shape_fn`).
impl<T: Element, S: Shape> Tensor<T, S> {
    /// All elements zero (`false` for `bool`). Every dim of `S` must be a literal; a shape
    /// with a run-time dim (`Shape![_, 64]`) takes its extents in
    /// [`Tensor::zeros_with_dims`], and `zeros()` on it is a compile error that says so.
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(zeros))]
    pub fn zeros() -> Self
    where
        S: StaticShape,
    {
        // Written out rather than `Self::full(T::default())`: one function per tensor type
        // in a user's crate instead of two (issue 17). The dims first: with the buffer
        // allocated before a call that might unwind, each instance (one per tensor type in
        // a user's debug build) carried a landing pad that drops it (half its IR).
        let dims = static_index(S::DIMS);
        Tensor {
            data: crate::hugepages::filled(S::LEN, T::default()),
            dims,
        }
    }

    /// Every element the same value. Every dim of `S` must be a literal; with a run-time
    /// dim use [`Tensor::full_with_dims`].
    pub fn full(value: T) -> Self
    where
        S: StaticShape,
    {
        let dims = static_index(S::DIMS);
        Tensor {
            data: crate::hugepages::filled(S::LEN, value),
            dims,
        }
    }

    /// Element `index` is `f(index)`, with `index` an array `[i0, i1, …]` of the shape's rank.
    /// Every dim of `S` must be a literal; with a run-time dim use
    /// [`Tensor::from_shape_fn`].
    pub fn from_fn(mut f: impl FnMut(S::Index) -> T) -> Self
    where
        S: StaticShape,
    {
        let dims: S::Index = static_index(S::DIMS);
        let mut data = crate::hugepages::with_capacity(S::LEN);
        let mut index = S::Index::default();
        for offset in 0..S::LEN {
            unravel(S::DIMS, offset, index.as_mut());
            data.push(f(index));
        }
        Tensor { data, dims }
    }
}

impl<T: Element, S: StaticShape> Default for Tensor<T, S> {
    /// All elements zero, as [`Tensor::zeros`].
    fn default() -> Self {
        Self::zeros()
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// Takes ownership of `data`, row-major. A static shape needs exactly its element count;
    /// one run-time dim (`Shape![_, 768]`) is solved as `len / product of the literal dims`
    /// (a remainder is an error, and so is a literal dim of 0, which leaves it open). With
    /// several run-time dims use [`Tensor::from_shape_vec`].
    pub fn from_vec(data: Vec<T>) -> Result<Self, ShapeError> {
        let dims = solved_index::<S>(data.len())?;
        Ok(Tensor { data, dims })
    }

    /// Takes ownership of `data` with the given extents, which must agree with every literal
    /// dim of `S` and multiply to `data.len()`.
    pub fn from_shape_vec(dims: S::Index, data: Vec<T>) -> Result<Self, ShapeError> {
        check_dims(S::STATIC_DIMS, dims.as_ref(), data.len())?;
        Ok(Tensor { data, dims })
    }

    /// Copies `data`; its length gives the dims as in [`Tensor::from_vec`].
    pub fn from_slice(data: &[T]) -> Result<Self, ShapeError> {
        let dims = solved_index::<S>(data.len())?;
        Ok(Tensor {
            data: data.to_vec(),
            dims,
        })
    }

    /// All elements zero, with the given extents (which must agree with the literal dims of
    /// `S` and fit in memory's address range): [`Tensor::zeros`] for shapes with run-time
    /// dims.
    pub fn zeros_with_dims(dims: S::Index) -> Result<Self, ShapeError> {
        // A `match`, not `?`: instantiated per tensor type in a user's crate (every output of
        // a graph with dim names), where `?` adds a `Try::branch` and a `FromResidual`.
        match zeroed_data::<T>(S::STATIC_DIMS, dims.as_ref()) {
            Ok(data) => Ok(Tensor { data, dims }),
            Err(e) => Err(e),
        }
    }

    /// Every element `value`, with the given extents (checked as in
    /// [`Tensor::zeros_with_dims`]): [`Tensor::full`] for shapes with run-time dims.
    pub fn full_with_dims(dims: S::Index, value: T) -> Result<Self, ShapeError> {
        match filled_data::<T>(S::STATIC_DIMS, dims.as_ref(), value) {
            Ok(data) => Ok(Tensor { data, dims }),
            Err(e) => Err(e),
        }
    }

    /// Element `index` is `f(index)`, with the given extents (checked as in
    /// [`Tensor::zeros_with_dims`]).
    pub fn from_shape_fn(
        dims: S::Index,
        mut f: impl FnMut(S::Index) -> T,
    ) -> Result<Self, ShapeError> {
        let len = alloc_len(S::STATIC_DIMS, dims.as_ref(), core::mem::size_of::<T>())?;
        let mut data = crate::hugepages::with_capacity(len);
        let mut index = S::Index::default();
        for offset in 0..len {
            unravel(dims.as_ref(), offset, index.as_mut());
            data.push(f(index));
        }
        Ok(Tensor { data, dims })
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_ref()
    }

    /// The extents as an index-type array (`[usize; RANK]`).
    pub fn dims(&self) -> S::Index {
        self.dims
    }

    /// The elements, row-major.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The elements, row-major, writable (the extents stay as they are).
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The buffer, row-major, without a copy.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// A borrowed view of the whole tensor.
    pub fn view(&self) -> TensorView<'_, T, S> {
        TensorView {
            data: &self.data,
            dims: self.dims,
        }
    }

    /// A writable borrowed view of the whole tensor.
    pub fn view_mut(&mut self) -> TensorViewMut<'_, T, S> {
        TensorViewMut {
            data: &mut self.data,
            dims: self.dims,
        }
    }

    /// The element at `index`, or `None` if it is out of range.
    pub fn get(&self, index: S::Index) -> Option<&T> {
        flat_offset(self.dims.as_ref(), index.as_ref()).and_then(|o| self.data.get(o))
    }

    /// The element at `index`, writable, or `None` if it is out of range.
    pub fn get_mut(&mut self, index: S::Index) -> Option<&mut T> {
        flat_offset(self.dims.as_ref(), index.as_ref()).and_then(|o| self.data.get_mut(o))
    }
}

impl<T: Element, S: Shape> Clone for Tensor<T, S> {
    fn clone(&self) -> Self {
        Tensor {
            data: self.data.clone(),
            dims: self.dims,
        }
    }
}

impl<T: Element, S: Shape> PartialEq for Tensor<T, S> {
    /// Equal extents and equal elements (a `[2, 3]` and a `[3, 2]` tensor of one shape type
    /// `Shape![_, _]` differ even with the same buffer).
    fn eq(&self, other: &Self) -> bool {
        self.dims == other.dims && self.data == other.data
    }
}

impl<'a, T: Element, S: Shape> TensorView<'a, T, S> {
    /// Views `data` (no copy), row-major; its length gives the dims as in
    /// [`Tensor::from_vec`].
    pub fn new(data: &'a [T]) -> Result<Self, ShapeError> {
        let dims = solved_index::<S>(data.len())?;
        Ok(TensorView { data, dims })
    }

    /// Views `data` (no copy) with the given extents, checked as in
    /// [`Tensor::from_shape_vec`].
    pub fn with_dims(dims: S::Index, data: &'a [T]) -> Result<Self, ShapeError> {
        check_dims(S::STATIC_DIMS, dims.as_ref(), data.len())?;
        Ok(TensorView { data, dims })
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_ref()
    }

    /// The extents as an index-type array (`[usize; RANK]`).
    pub fn dims(&self) -> S::Index {
        self.dims
    }

    /// The viewed elements, row-major.
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    /// The element at `index`, or `None` if it is out of range. Views index like tensors
    /// (`view[[i, j]]`, which panics out of range as a slice does):
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(view_get))]
    pub fn get(&self, index: S::Index) -> Option<&'a T> {
        let data: &'a [T] = self.data;
        flat_offset(self.dims.as_ref(), index.as_ref()).and_then(|o| data.get(o))
    }

    /// Copies the viewed elements into an owned tensor.
    pub fn to_tensor(&self) -> Tensor<T, S> {
        Tensor {
            data: self.data.to_vec(),
            dims: self.dims,
        }
    }
}

impl<T: Element, S: Shape> Clone for TensorView<'_, T, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element, S: Shape> Copy for TensorView<'_, T, S> {}

impl<'a, T: Element, S: Shape> TensorViewMut<'a, T, S> {
    /// Views `data` mutably (no copy), row-major; its length gives the dims as in
    /// [`Tensor::from_vec`].
    pub fn new(data: &'a mut [T]) -> Result<Self, ShapeError> {
        let dims = solved_index::<S>(data.len())?;
        Ok(TensorViewMut { data, dims })
    }

    /// Views `data` mutably (no copy) with the given extents, checked as in
    /// [`Tensor::from_shape_vec`].
    pub fn with_dims(dims: S::Index, data: &'a mut [T]) -> Result<Self, ShapeError> {
        check_dims(S::STATIC_DIMS, dims.as_ref(), data.len())?;
        Ok(TensorViewMut { data, dims })
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_ref()
    }

    /// The extents as an index-type array (`[usize; RANK]`).
    pub fn dims(&self) -> S::Index {
        self.dims
    }

    /// The viewed elements, row-major.
    pub fn as_slice(&self) -> &[T] {
        self.data
    }

    /// The viewed elements, row-major, writable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }

    /// A read-only view of the same elements, for as long as this one is borrowed.
    pub fn view(&self) -> TensorView<'_, T, S> {
        TensorView {
            data: self.data,
            dims: self.dims,
        }
    }

    /// The element at `index`, or `None` if it is out of range.
    pub fn get(&self, index: S::Index) -> Option<&T> {
        flat_offset(self.dims.as_ref(), index.as_ref()).and_then(|o| self.data.get(o))
    }

    /// The element at `index`, writable, or `None` if it is out of range.
    pub fn get_mut(&mut self, index: S::Index) -> Option<&mut T> {
        flat_offset(self.dims.as_ref(), index.as_ref()).and_then(|o| self.data.get_mut(o))
    }

    /// Copies the viewed elements into an owned tensor.
    pub fn to_tensor(&self) -> Tensor<T, S> {
        Tensor {
            data: self.data.to_vec(),
            dims: self.dims,
        }
    }
}

/// Anything a generated graph function with only literal dims reads as an input tensor of
/// dtype `T`, shape `S`: `Tensor`, `TensorView`, `TensorViewMut`. Implementors guarantee
/// `as_slice().len() == S::LEN`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor of the dtype and shape this graph parameter declares",
    label = "expected a tensor with element type `{T}` and the parameter's shape",
    note = "graph parameters take `&Tensor<T, Shape![...]>` or `&TensorView<T, Shape![...]>` of exactly the declared dtype and dims"
)]
pub trait TensorRef<T: Element, S: StaticShape> {
    /// The elements, row-major: exactly `S::LEN` of them.
    fn as_slice(&self) -> &[T];
}

/// Anything a generated `…_into` function with only literal dims writes an output into.
/// Implementors guarantee `as_mut_slice().len() == S::LEN`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a writable tensor of the dtype and shape this graph output declares",
    label = "expected `&mut Tensor` or `&mut TensorViewMut` with element type `{T}` and the output's shape"
)]
pub trait TensorMut<T: Element, S: StaticShape> {
    /// The elements, row-major, writable: exactly `S::LEN` of them.
    fn as_mut_slice(&mut self) -> &mut [T];
}

// A static shape's literal dims are its stored extents (the invariant), so the buffer length
// is `S::LEN`.
impl<T: Element, S: StaticShape> TensorRef<T, S> for Tensor<T, S> {
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        &self.data
    }
}
impl<T: Element, S: StaticShape> TensorRef<T, S> for TensorView<'_, T, S> {
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self.data
    }
}
impl<T: Element, S: StaticShape> TensorRef<T, S> for TensorViewMut<'_, T, S> {
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self.data
    }
}
impl<T: Element, S: StaticShape> TensorMut<T, S> for Tensor<T, S> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
}
impl<T: Element, S: StaticShape> TensorMut<T, S> for TensorViewMut<'_, T, S> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }
}

// Indexing by `S::Index` panics, like slice indexing, when the index is out of range; `get`
// is the checked form.
macro_rules! index_impls {
    ($ty:ty; $($mutable:ident)?) => {
        impl<T: Element, S: Shape> core::ops::Index<S::Index> for $ty {
            type Output = T;
            #[track_caller]
            fn index(&self, index: S::Index) -> &T {
                match self.get(index) {
                    Some(value) => value,
                    None => index_out_of_range(index.as_ref(), self.dims.as_ref()),
                }
            }
        }
        $(
            impl<T: Element, S: Shape> core::ops::IndexMut<S::Index> for $ty {
                #[track_caller]
                fn $mutable(&mut self, index: S::Index) -> &mut T {
                    let dims = self.dims;
                    match self.get_mut(index) {
                        Some(value) => value,
                        None => index_out_of_range(index.as_ref(), dims.as_ref()),
                    }
                }
            }
        )?
    };
}
index_impls!(Tensor<T, S>; index_mut);
index_impls!(TensorView<'_, T, S>;);
index_impls!(TensorViewMut<'_, T, S>; index_mut);

// Rank 0: the one element. `t[[]]` (the empty index) reads it too; `item()` says so by name,
// and `.into()` converts an owned rank-0 tensor to its element type.

impl<T: Element> Tensor<T, Rank0> {
    /// The one element of a rank-0 tensor (a graph's `f32[]` output, such as `sum(x)`), by
    /// value; the same as `t[[]]`, indexing by the empty index. `T::from(t)` (or
    /// `let n: T = t.into()`) takes it from an owned tensor.
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(item))]
    pub fn item(&self) -> T {
        // A rank-0 tensor holds exactly one element (the invariant: the empty product is 1).
        self.data[0]
    }
}

impl<T: Element> TensorView<'_, T, Rank0> {
    /// The one element of a rank-0 view, as [`Tensor::item`].
    pub fn item(&self) -> T {
        self.data[0]
    }
}

impl<T: Element> TensorViewMut<'_, T, Rank0> {
    /// The one element of a rank-0 view, as [`Tensor::item`].
    pub fn item(&self) -> T {
        self.data[0]
    }
}

// `impl<T: Element> From<Tensor<T, Rank0>> for T` is refused by the orphan rule (the
// uncovered `T` comes before the local type), so one impl per dtype.
macro_rules! rank0_into_element {
    ($($t:ty),*) => {$(
        impl From<Tensor<$t, Rank0>> for $t {
            /// The one element of a rank-0 tensor, as [`Tensor::item`].
            fn from(tensor: Tensor<$t, Rank0>) -> $t {
                tensor.item()
            }
        }
    )*};
}
rank0_into_element!(
    bool,
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    crate::dtype::f16,
    crate::dtype::bf16,
    f32,
    f64
);

// Iteration along an axis. The sub-tensors along axis 0 are contiguous (`rows` yields them as
// slices); along another axis they are strided, so `axis_iter` yields `AxisView`s, which read
// through the stride. Both work on every shape type, with literal or run-time dims.

/// The contiguous pieces of the sub-tensors along `axis` of a row-major buffer with extents
/// `dims`: `(outer, len, stride)`, where `outer` is the product of the extents before `axis`,
/// `len` the product of those after it (one piece's length) and `stride` the distance
/// between two pieces of one sub-tensor (`dims[axis] · len`).
#[track_caller]
fn axis_geometry(dims: &[usize], axis: usize) -> (usize, usize, usize) {
    if axis >= dims.len() {
        axis_out_of_range(axis, dims);
    }
    // No product overflows: each is over some of the extents, and the nonzero extents
    // multiply to at most `isize::MAX` (the invariant), with a 0 making the product 0.
    let outer: usize = dims[..axis].iter().product();
    let len: usize = dims[axis + 1..].iter().product();
    (outer, len, dims[axis] * len)
}

/// `rows()` of a rank-0 shape is a compile error (a constant that fails to evaluate when
/// `rows` is instantiated for it): rank 0 has no axis to iterate.
struct HasAxis<S>(S);

impl<S: Shape> HasAxis<S> {
    const CHECK: () = assert!(
        S::RANK > 0,
        "`rows()` of a rank-0 tensor: it has no axis to iterate (`item()` reads its element)"
    );
}

#[cold]
#[track_caller]
fn axis_out_of_range(axis: usize, dims: &[usize]) -> ! {
    panic!(
        "axis {axis} is out of range for a tensor of rank {} (shape {})",
        dims.len(),
        dims_text(dims)
    )
}

/// The elements of a tensor whose index on one axis is fixed: the sub-tensor of rank one
/// lower that [`Tensor::axis_iter`] yields, read in place (no copy) in row-major order of
/// the remaining axes. Along axis 0 it is one contiguous run ([`AxisView::as_slice`] is
/// `Some`); along another axis it is strided (a column of a matrix).
pub struct AxisView<'a, T: Element> {
    /// The whole buffer of the tensor.
    data: &'a [T],
    /// Where the first piece starts.
    start: usize,
    /// The number of contiguous pieces.
    pieces: usize,
    /// The length of each piece.
    piece_len: usize,
    /// The distance between the starts of two pieces.
    stride: usize,
}

impl<T: Element> Clone for AxisView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element> Copy for AxisView<'_, T> {}

impl<'a, T: Element> AxisView<'a, T> {
    /// The number of elements: the product of the other axes' extents.
    pub fn len(&self) -> usize {
        self.pieces * self.piece_len
    }

    /// Whether it holds no element (another axis has extent 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at position `i` in row-major order of the remaining axes, or `None` if
    /// `i >= len()`.
    pub fn get(&self, i: usize) -> Option<&'a T> {
        if i >= self.len() {
            return None;
        }
        let (piece, at) = (i / self.piece_len, i % self.piece_len);
        self.data.get(self.start + piece * self.stride + at)
    }

    /// The elements in row-major order of the remaining axes.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &'a T> + Clone + 'a {
        let AxisView {
            data,
            start,
            pieces,
            piece_len,
            stride,
        } = *self;
        // Every piece lies in the buffer: the last ends at `start + (pieces - 1) · stride +
        // piece_len`, at most the element count.
        (0..pieces).flat_map(move |p| {
            let from = start + p * stride;
            &data[from..from + piece_len]
        })
    }

    /// The elements, copied, in row-major order of the remaining axes.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().copied().collect()
    }

    /// The elements as one slice when they are contiguous in the tensor's buffer (always
    /// along axis 0, or when every axis before this one has extent 1), else `None`.
    pub fn as_slice(&self) -> Option<&'a [T]> {
        match self.pieces {
            _ if self.is_empty() => Some(&[]),
            1 => self.data.get(self.start..self.start + self.piece_len),
            _ => None,
        }
    }
}

impl<T: Element> core::ops::Index<usize> for AxisView<'_, T> {
    type Output = T;
    /// The element at position `i` in row-major order of the remaining axes; panics if
    /// `i >= len()`, as slice indexing does ([`AxisView::get`] is the checked form).
    #[track_caller]
    fn index(&self, i: usize) -> &T {
        match self.get(i) {
            Some(value) => value,
            None => panic!(
                "index {i} is out of range for an axis view of {} elements",
                self.len()
            ),
        }
    }
}

impl<T: Element> fmt::Debug for AxisView<'_, T> {
    /// Its elements as a list: `[1, 4]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Element> PartialEq for AxisView<'_, T> {
    /// The same elements in the same order (wherever they lie in their buffers).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<'a, T: Element, S: Shape> TensorView<'a, T, S> {
    /// The sub-tensors along the outermost axis as slices, as [`Tensor::rows`]; they borrow
    /// the viewed buffer, not the view.
    pub fn rows(
        &self,
    ) -> impl ExactSizeIterator<Item = &'a [T]> + DoubleEndedIterator + Clone + 'a {
        let () = HasAxis::<S>::CHECK;
        let data: &'a [T] = self.data;
        let (_, len, _) = axis_geometry(self.dims.as_ref(), 0);
        (0..self.dims.as_ref()[0]).map(move |i| &data[i * len..(i + 1) * len])
    }

    /// The sub-tensors along `axis` as [`AxisView`]s, as [`Tensor::axis_iter`]; they
    /// borrow the viewed buffer, not the view. Panics if `axis` is not below the rank.
    #[track_caller]
    pub fn axis_iter(
        &self,
        axis: usize,
    ) -> impl ExactSizeIterator<Item = AxisView<'a, T>> + DoubleEndedIterator + Clone + 'a {
        let data: &'a [T] = self.data;
        let (pieces, piece_len, stride) = axis_geometry(self.dims.as_ref(), axis);
        (0..self.dims.as_ref()[axis]).map(move |i| AxisView {
            data,
            start: i * piece_len,
            pieces,
            piece_len,
            stride,
        })
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// The sub-tensors along the outermost axis, in order, each as the slice of its
    /// elements (row-major): `shape()[0]` slices of the product of the other extents each.
    /// For a matrix these are its rows; for `[2, 3, 4]` two slices of 12 (each `[3, 4]`
    /// block flattened); for a vector each element as a one-element slice. Rank 0 has no
    /// axis: `rows()` on it is a compile error, reported by `cargo build` (not `cargo
    /// check`: a constant that fails when `rows` is compiled for that shape).
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(rows))]
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[T]> + DoubleEndedIterator + Clone + '_ {
        // Checked here too, so that rustc's note on a rank-0 call names the caller's line.
        let () = HasAxis::<S>::CHECK;
        self.view().rows()
    }

    /// The sub-tensors along `axis`, in order: for each index `i` of that axis, the
    /// elements whose index there is `i`, as an [`AxisView`] (in place, row-major over the
    /// other axes). `axis_iter(0)` gives what [`rows`](Tensor::rows) gives; on a matrix
    /// `axis_iter(1)` gives its columns. Panics if `axis` is not below the rank, as slice
    /// indexing does.
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(axis_iter))]
    #[track_caller]
    pub fn axis_iter(
        &self,
        axis: usize,
    ) -> impl ExactSizeIterator<Item = AxisView<'_, T>> + DoubleEndedIterator + Clone + '_ {
        self.view().axis_iter(axis)
    }
}

impl<T: Element, S: Shape> TensorViewMut<'_, T, S> {
    /// The sub-tensors along the outermost axis as slices, as [`Tensor::rows`].
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[T]> + DoubleEndedIterator + Clone + '_ {
        // Checked here too, so that rustc's note on a rank-0 call names the caller's line.
        let () = HasAxis::<S>::CHECK;
        self.view().rows()
    }

    /// The sub-tensors along `axis` as [`AxisView`]s, as [`Tensor::axis_iter`]. Panics
    /// if `axis` is not below the rank.
    #[track_caller]
    pub fn axis_iter(
        &self,
        axis: usize,
    ) -> impl ExactSizeIterator<Item = AxisView<'_, T>> + DoubleEndedIterator + Clone + '_ {
        self.view().axis_iter(axis)
    }
}

/// Beyond this many elements `Debug` shows the first and last `EDGE_ITEMS` of each axis,
/// as NumPy does.
const SUMMARY_THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;

/// One element, formatted with the formatter's options (width, fill, alignment, precision,
/// sign, `x?`), as `Vec`'s `Debug` hands them to its elements: with none it is `{:?}`
/// (`1.0`, `7`, `true`). A precision counts decimals, so it does not cut a `bool`'s text
/// (`str` padding would print `{:.3}` of `true` as `tru`).
fn fmt_element<T: Element>(f: &mut fmt::Formatter<'_>, value: &T) -> fmt::Result {
    if T::DTYPE == DType::Bool && f.precision().is_some() {
        return pad_ignoring_precision(f, &format!("{value:?}"));
    }
    fmt::Debug::fmt(value, f)
}

/// `text` padded to the formatter's width with its fill and alignment (left by default, as
/// for a `str`), whatever its precision.
fn pad_ignoring_precision(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    use core::fmt::Write as _;
    let padding = f.width().unwrap_or(0).saturating_sub(text.chars().count());
    let (before, after) = match f.align() {
        Some(fmt::Alignment::Right) => (padding, 0),
        Some(fmt::Alignment::Center) => (padding / 2, padding - padding / 2),
        _ => (0, padding),
    };
    let fill = f.fill();
    for _ in 0..before {
        f.write_char(fill)?;
    }
    f.write_str(text)?;
    for _ in 0..after {
        f.write_char(fill)?;
    }
    Ok(())
}

fn fmt_nested<T: Element>(
    f: &mut fmt::Formatter<'_>,
    data: &[T],
    dims: &[usize],
    depth: usize,
    summarize: bool,
    indent: usize,
) -> fmt::Result {
    if dims.is_empty() {
        return fmt_element(f, &data[0]);
    }
    let n = dims[0];
    let stride: usize = dims[1..].iter().product();
    let sep_newlines = dims.len() - 1;
    f.write_str("[")?;
    let mut first = true;
    let mut i = 0;
    while i < n {
        if summarize && n > 2 * EDGE_ITEMS && i == EDGE_ITEMS {
            f.write_str(", ...")?;
            i = n - EDGE_ITEMS;
            first = false;
            continue;
        }
        if !first {
            f.write_str(",")?;
            if sep_newlines == 0 {
                f.write_str(" ")?;
            } else {
                for _ in 0..sep_newlines {
                    f.write_str("\n")?;
                }
                // After the prefix ("tensor(" is 7 columns), one per nesting level.
                write!(f, "{:width$}", "", width = indent + depth + 1)?;
            }
        }
        first = false;
        fmt_nested(
            f,
            &data[i * stride..(i + 1) * stride],
            &dims[1..],
            depth + 1,
            summarize,
            indent,
        )?;
        i += 1;
    }
    f.write_str("]")
}

fn fmt_tensor<T: Element>(f: &mut fmt::Formatter<'_>, data: &[T], dims: &[usize]) -> fmt::Result {
    f.write_str("tensor(")?;
    if data.is_empty() {
        write!(f, "[], shape={}", dims_text(dims))?;
    } else {
        fmt_nested(f, data, dims, 0, data.len() > SUMMARY_THRESHOLD, 7)?;
    }
    write!(f, ", dtype={})", T::DTYPE)
}

/// The elements nested by axis, as `Debug` shows them without `tensor(…, dtype=…)`:
/// `[[1.0, 2.0],\n [3.0, 4.0]]`; a rank-0 tensor is its element.
fn fmt_plain<T: Element>(f: &mut fmt::Formatter<'_>, data: &[T], dims: &[usize]) -> fmt::Result {
    if data.is_empty() {
        return f.write_str("[]");
    }
    fmt_nested(f, data, dims, 0, data.len() > SUMMARY_THRESHOLD, 0)
}

impl<T: Element, S: Shape> fmt::Display for Tensor<T, S> {
    /// The elements nested by axis (long axes summarised as NumPy does), each as its `Debug`
    /// writes it. The formatter's width, fill, alignment, precision and sign apply to each
    /// element, as `Vec`'s `Debug` passes them on: `{:.3}` writes three decimals per
    /// element, `{:8.2}` also pads each to 8 columns; with none the output is as below.
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(display))]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_plain(f, &self.data, self.dims.as_ref())
    }
}

impl<T: Element, S: Shape> fmt::Display for TensorView<'_, T, S> {
    /// As the owned tensor's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_plain(f, self.data, self.dims.as_ref())
    }
}

impl<T: Element, S: Shape> fmt::Display for TensorViewMut<'_, T, S> {
    /// As the owned tensor's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_plain(f, self.data, self.dims.as_ref())
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// The elements in row-major order.
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(iter))]
    pub fn iter(&self) -> core::slice::Iter<'_, T> {
        self.data.iter()
    }

    /// The elements in row-major order, mutably.
    pub fn iter_mut(&mut self) -> core::slice::IterMut<'_, T> {
        self.data.iter_mut()
    }

    /// A new tensor of the same shape with `f` applied to each element (any element
    /// type: `t.map(|x| x as f64)`, `t.map(|x| x > 0.0)`).
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(map))]
    pub fn map<U: Element>(&self, f: impl FnMut(T) -> U) -> Tensor<U, S> {
        self.view().map(f)
    }
}

impl<'a, T: Element, S: Shape> TensorView<'a, T, S> {
    /// The viewed elements in row-major order.
    pub fn iter(&self) -> core::slice::Iter<'a, T> {
        self.data.iter()
    }

    /// A new tensor of the same shape with `f` applied to each viewed element, as
    /// [`Tensor::map`].
    pub fn map<U: Element>(&self, f: impl FnMut(T) -> U) -> Tensor<U, S> {
        Tensor {
            data: self.data.iter().copied().map(f).collect(),
            dims: self.dims,
        }
    }
}

impl<T: Element, S: Shape> TensorViewMut<'_, T, S> {
    /// The viewed elements in row-major order. Writable views iterate, map and index as
    /// owned tensors do:
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(view_mut_iter))]
    pub fn iter(&self) -> core::slice::Iter<'_, T> {
        self.data.iter()
    }

    /// The viewed elements in row-major order, mutably.
    pub fn iter_mut(&mut self) -> core::slice::IterMut<'_, T> {
        self.data.iter_mut()
    }

    /// A new tensor of the same shape with `f` applied to each viewed element, as
    /// [`Tensor::map`].
    pub fn map<U: Element>(&self, f: impl FnMut(T) -> U) -> Tensor<U, S> {
        self.view().map(f)
    }
}

impl<T: Element, S: Shape> IntoIterator for Tensor<T, S> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    /// The elements in row-major order, by value (`&tensor`, `&mut tensor` and views iterate
    /// by reference):
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(into_iter))]
    fn into_iter(self) -> Self::IntoIter {
        self.data.into_iter()
    }
}

impl<'t, T: Element, S: Shape> IntoIterator for &'t Tensor<T, S> {
    type Item = &'t T;
    type IntoIter = core::slice::Iter<'t, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter()
    }
}

impl<'t, T: Element, S: Shape> IntoIterator for &'t mut Tensor<T, S> {
    type Item = &'t mut T;
    type IntoIter = core::slice::IterMut<'t, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter_mut()
    }
}

impl<'a, T: Element, S: Shape> IntoIterator for TensorView<'a, T, S> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter()
    }
}

impl<'t, T: Element, S: Shape> IntoIterator for &'t TensorView<'_, T, S> {
    type Item = &'t T;
    type IntoIter = core::slice::Iter<'t, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter()
    }
}

impl<'a, T: Element, S: Shape> IntoIterator for TensorViewMut<'a, T, S> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter_mut()
    }
}

impl<'t, T: Element, S: Shape> IntoIterator for &'t TensorViewMut<'_, T, S> {
    type Item = &'t T;
    type IntoIter = core::slice::Iter<'t, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter()
    }
}

impl<'t, T: Element, S: Shape> IntoIterator for &'t mut TensorViewMut<'_, T, S> {
    type Item = &'t mut T;
    type IntoIter = core::slice::IterMut<'t, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter_mut()
    }
}

impl<T: Element, S: Shape> TryFrom<Vec<T>> for Tensor<T, S> {
    type Error = ShapeError;
    /// [`Tensor::from_vec`]: no copy; one run-time dim is solved from the length.
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(try_from))]
    fn try_from(data: Vec<T>) -> Result<Self, ShapeError> {
        Tensor::from_vec(data)
    }
}

impl<T: Element, S: Shape> fmt::Debug for Tensor<T, S> {
    /// NumPy-like: `tensor([[1.0, 2.0],\n        [3.0, 4.0]], dtype=f32)`. The
    /// formatter's options apply to each element as in `Display` (`{:.2?}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_tensor(f, &self.data, self.dims.as_ref())
    }
}

impl<T: Element, S: Shape> fmt::Debug for TensorView<'_, T, S> {
    /// As the owned tensor's: `tensor([1, 2], dtype=u8)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_tensor(f, self.data, self.dims.as_ref())
    }
}

impl<T: Element, S: Shape> fmt::Debug for TensorViewMut<'_, T, S> {
    /// As the owned tensor's: `tensor([1, 2], dtype=u8)`.
    #[cfg_attr(not(doctest), doc = crate::__user_doc_examples!(debug))]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_tensor(f, self.data, self.dims.as_ref())
    }
}

// The doc examples of this module's public items and of `ShapeError`, written as a user
// writes them: `tensorgraph::` paths, its prelude and `Shape!`. This crate cannot compile
// them (`tensorgraph` depends on it, so a dev-dependency on it would be a cycle), so each
// item takes its example from this macro in a `#[cfg_attr(not(doctest), doc = …)]`:
// `cargo doc` renders it (here and where `tensorgraph` re-exports the item), this crate's
// doctests skip it, and the `tensorgraph` crate's doctests compile and run every one (its
// `src/lib.rs` documents a `#[cfg(doctest)]` item with the `all` arm), so `cargo test`
// (CI's first command) checks them against the crate users depend on, not against
// `tensor_core` under another name (a hidden `extern crate tensor_core as tensorgraph`
// would, and could not name `prelude` or `Shape!`). An example added here goes in `all`
// too; the test `user_doc_examples_are_all_compiled` checks that every arm is listed there
// and used on an item.

/// The doc examples of `Tensor`, its views and `ShapeError` (tensor.rs says how they are
/// compiled). Not a stable API.
#[doc(hidden)]
#[macro_export]
macro_rules! __user_doc_examples {
    (all) => {
        concat!(
            $crate::__user_doc_examples!(zeros),
            $crate::__user_doc_examples!(view_get),
            $crate::__user_doc_examples!(item),
            $crate::__user_doc_examples!(rows),
            $crate::__user_doc_examples!(axis_iter),
            $crate::__user_doc_examples!(display),
            $crate::__user_doc_examples!(iter),
            $crate::__user_doc_examples!(map),
            $crate::__user_doc_examples!(view_mut_iter),
            $crate::__user_doc_examples!(into_iter),
            $crate::__user_doc_examples!(try_from),
            $crate::__user_doc_examples!(debug),
            $crate::__user_doc_examples!(shape_error_debug),
        )
    };
    (zeros) => {
        r#"
```
use tensorgraph::prelude::*;
let z = Tensor::<f32, Shape![2, 64]>::zeros();
assert_eq!(z.shape(), &[2, 64]);
// A run-time dim (`_`) takes its extents when the tensor is built; `zeros()` on such a
// shape is a compile error that names these constructors.
let rows = Tensor::<f32, Shape![_, 64]>::zeros_with_dims([3, 64])?;
let ones = Tensor::<f32, Shape![_, 64]>::full_with_dims([3, 64], 1.0)?;
assert_eq!((rows.shape(), ones[[2, 63]]), (&[3, 64][..], 1.0));
# Ok::<(), tensorgraph::ShapeError>(())
```

```compile_fail,E0277
use tensorgraph::prelude::*;
// error[E0277]: `Rank2<Dyn, Fixed<64>>` is not a shape of literal dims only: …
// note: … `Tensor::zeros_with_dims(dims)` for `zeros()` …
let t = Tensor::<f32, Shape![_, 64]>::zeros();
```
"#
    };
    (view_get) => {
        r#"
```
use tensorgraph::prelude::*;
let mut t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
let v = t.view();
assert_eq!(v[[1, 2]], 6);
assert_eq!(v.get([0, 1]), Some(&2));
assert_eq!(v.get([2, 0]), None);
let mut m = t.view_mut();
m[[0, 0]] = 10;
assert_eq!(m.get([0, 0]), Some(&10));
assert_eq!(m.get([0, 3]), None);
assert_eq!(t[[0, 0]], 10);
```
"#
    };
    (item) => {
        r#"
```
use tensorgraph::prelude::*;

graph! {
    /// How many values are positive: a rank-0 `i64`.
    fn count_positive(x: f32[N]) -> i64[] { sum(x > 0.0) }
}

fn main() -> Result<(), tensorgraph::ShapeError> {
    let count = count_positive(&vec![1.0f32, -2.0, 3.0, 0.5])?;
    assert_eq!(count.item(), 3);
    assert_eq!(count[[]], 3); // indexing by the empty index reads the same element
    let n: i64 = count.into();
    assert_eq!(n, 3);
    Ok(())
}
```
"#
    };
    (rows) => {
        r#"
```
use tensorgraph::prelude::*;
let m = Tensor::<i32, Shape![_, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
let rows: Vec<&[i32]> = m.rows().collect();
assert_eq!(rows, [[1, 2, 3], [4, 5, 6]]);
let sums: Vec<i32> = m.rows().map(|row| row.iter().sum()).collect();
assert_eq!(sums, [6, 15]);
// Rank 3: each item is one `[2, 2]` block, flattened.
let cube = Tensor::<u8, Shape![2, 2, 2]>::from_vec((0..8).collect()).unwrap();
assert_eq!(cube.rows().last(), Some(&[4, 5, 6, 7][..]));
```

```compile_fail,E0080
use tensorgraph::prelude::*;
// error[E0080]: evaluation panicked: `rows()` of a rank-0 tensor: it has no axis to iterate …
let scalar = Tensor::<f32, Shape![]>::full(1.0);
let rows = scalar.rows().count();
```
"#
    };
    (axis_iter) => {
        r#"
```
use tensorgraph::prelude::*;
let m = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
let columns: Vec<Vec<i32>> = m.axis_iter(1).map(|column| column.to_vec()).collect();
assert_eq!(columns, [[1, 4], [2, 5], [3, 6]]);
let last = m.axis_iter(1).next_back().unwrap();
assert_eq!((last.len(), last[1], last.as_slice()), (2, 6, None));
// Along axis 0 each view is contiguous: a row.
assert_eq!(m.axis_iter(0).next().unwrap().as_slice(), Some(&[1, 2, 3][..]));
```
"#
    };
    (display) => {
        r#"
```
use tensorgraph::prelude::*;
let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
assert_eq!(t.to_string(), "[[1, 2, 3],\n [4, 5, 6]]");
let x = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, 2.5, -1.0 / 3.0]).unwrap();
assert_eq!(x.to_string(), "[1.0, 2.5, -0.33333334]");
assert_eq!(format!("{x:.2}"), "[1.00, 2.50, -0.33]");
assert_eq!(format!("{x:6.1}"), "[   1.0,    2.5,   -0.3]");
```
"#
    };
    (iter) => {
        r#"
```
use tensorgraph::prelude::*;
let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
assert_eq!(t.iter().sum::<f32>(), 10.0);
```
"#
    };
    (map) => {
        r#"
```
use tensorgraph::prelude::*;
let t = Tensor::<f32, Shape![_, 2]>::from_vec(vec![1.0, -2.0, 3.0, -4.0]).unwrap();
let positive = t.map(|x| x > 0.0);
assert_eq!(positive.shape(), &[2, 2]);
assert_eq!(positive.as_slice(), &[true, false, true, false]);
```
"#
    };
    (view_mut_iter) => {
        r#"
```
use tensorgraph::prelude::*;
let mut buffer = [1.0f32, 2.0, 3.0, 4.0];
let mut view = TensorViewMut::<f32, Shape![2, 2]>::new(&mut buffer).unwrap();
for x in view.iter_mut() {
    *x *= 2.0;
}
for x in &mut view {
    *x += 1.0;
}
assert_eq!(view.iter().sum::<f32>(), 24.0);
let halves = view.map(|x| x / 2.0);
assert_eq!(halves[[1, 1]], 4.5);
assert_eq!(view.view().map(|x| x > 5.0).as_slice(), &[false, false, true, true]);
assert_eq!((&view).into_iter().count(), 4);
assert_eq!(buffer, [3.0, 5.0, 7.0, 9.0]);
```
"#
    };
    (into_iter) => {
        r#"
```
use tensorgraph::prelude::*;
let mut t = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]).unwrap();
for x in &mut t {
    *x *= 10;
}
let mut total = 0;
for x in &t {
    total += x;
}
assert_eq!(total, 100);
assert_eq!(t.view().into_iter().max(), Some(&40));
assert_eq!(t.into_iter().collect::<Vec<_>>(), vec![10, 20, 30, 40]);
```
"#
    };
    (try_from) => {
        r#"
```
use tensorgraph::prelude::*;
let t: Tensor<u8, Shape![_, 3]> = vec![1u8, 2, 3, 4, 5, 6].try_into().unwrap();
assert_eq!(t.shape(), &[2, 3]);
let bad: Result<Tensor<u8, Shape![_, 3]>, _> = vec![1u8, 2].try_into();
assert!(bad.is_err());
```
"#
    };
    (debug) => {
        r#"
```
use tensorgraph::prelude::*;
let mut t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1.0, 2.0, 3.0, 4.5]).unwrap();
let expected = "tensor([[1.0, 2.0],\n        [3.0, 4.5]], dtype=f32)";
assert_eq!(format!("{t:?}"), expected);
assert_eq!(format!("{:?}", t.view()), expected);
assert_eq!(format!("{:?}", t.view_mut()), expected);
```
"#
    };
    (shape_error_debug) => {
        r#"
```
use tensorgraph::prelude::*;
use tensorgraph::ShapeError;
let err = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0.0; 5]).unwrap_err();
let text = "a tensor of shape [2, 3] needs 6 elements, but 5 were given";
assert_eq!(err.to_string(), text);
assert_eq!(format!("{err:?}"), text); // what `main` prints for an `Err` it returns
assert!(matches!(err, ShapeError::Length { expected: 6, found: 5, .. }));
```
"#
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Fixed;
    use crate::shape::{Dyn, Rank0, Rank1, Rank2, Rank3};

    type Rows = Rank2<Dyn, Fixed<768>>;

    #[test]
    fn from_vec_solves_one_run_time_dim() {
        let t = Tensor::<f32, Rows>::from_vec(vec![0.5; 3 * 768]).unwrap();
        assert_eq!(t.shape(), &[3, 768]);
        assert_eq!(t.dims(), [3, 768]);
        let empty = Tensor::<f32, Rows>::from_vec(vec![]).unwrap();
        assert_eq!(empty.shape(), &[0, 768]);
        let err = Tensor::<f32, Rows>::from_vec(vec![0.0; 10]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Solve {
                len: 10,
                dims: "[_, 768]".into(),
                reason: LengthReason::NotMultiple { of: 768 },
            }
        );
        assert_eq!(
            err.to_string(),
            "10 elements do not fill [_, 768]: 10 is not a multiple of 768"
        );
        // The run-time dim may stand anywhere.
        let t = Tensor::<u8, Rank3<Fixed<2>, Dyn, Fixed<3>>>::from_vec((0..12).collect()).unwrap();
        assert_eq!(t.shape(), &[2, 2, 3]);
        assert_eq!(t[[1, 0, 2]], 8);
    }

    #[test]
    fn from_vec_refuses_what_a_length_cannot_give() {
        let err = Tensor::<f32, Rank2<Dyn, Fixed<0>>>::from_vec(vec![]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Solve {
                len: 0,
                dims: "[_, 0]".into(),
                reason: LengthReason::ZeroProduct,
            }
        );
        assert_eq!(
            err.to_string(),
            "0 elements do not fix the run-time dim of [_, 0]: its other dims multiply to 0, so \
             every size fits; give the dims with `from_shape_vec`"
        );
        let err = Tensor::<f32, Rank2<Dyn, Fixed<0>>>::from_vec(vec![1.0]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1 elements do not fill [_, 0]: its other dims multiply to 0, so only 0 elements fit"
        );
        let err = Tensor::<f32, Rank2<Dyn, Dyn>>::from_vec(vec![0.0; 6]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Solve {
                len: 6,
                dims: "[_, _]".into(),
                reason: LengthReason::SeveralUnknown,
            }
        );
        assert_eq!(
            err.to_string(),
            "6 elements cannot give the dims of [_, _]: a length fixes at most one run-time \
             dim; give the dims with `from_shape_vec`"
        );
        // Static shapes keep v1's check and text.
        let err = Tensor::<f32, Rank2<Fixed<2>, Fixed<3>>>::from_vec(vec![1.0; 5]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Length {
                expected: 6,
                found: 5,
                dims: "[2, 3]".into(),
            }
        );
        assert_eq!(
            err.to_string(),
            "a tensor of shape [2, 3] needs 6 elements, but 5 were given"
        );
    }

    #[test]
    fn from_shape_vec_checks_dims() {
        let t = Tensor::<i32, Rank2<Dyn, Dyn>>::from_shape_vec([2, 3], (0..6).collect()).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        assert_eq!(t[[1, 1]], 4);
        let err = Tensor::<i32, Rank2<Dyn, Dyn>>::from_shape_vec([2, 3], vec![0; 5]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Length {
                expected: 6,
                found: 5,
                dims: "[2, 3]".into(),
            }
        );
        let err = Tensor::<f32, Rows>::from_shape_vec([4, 700], vec![0.0; 2800]).unwrap_err();
        assert_eq!(
            err,
            ShapeError::FixedDim {
                dims: "[4, 700]".into(),
                shape: "[_, 768]".into(),
                axis: 1,
                expected: 768,
                found: 700,
            }
        );
        assert_eq!(
            err.to_string(),
            "dims [4, 700] do not fit shape [_, 768]: axis 1 is 768 in the type, but 700 was given"
        );
        // Dims past memory's reach, even with an empty buffer.
        let err = Tensor::<f32, Rank3<Dyn, Dyn, Dyn>>::from_shape_vec([usize::MAX, 2, 0], vec![])
            .unwrap_err();
        assert_eq!(
            err,
            ShapeError::TooLarge {
                dims: format!("[{}, 2, 0]", usize::MAX),
            }
        );
        assert!(Tensor::<f32, Rank2<Dyn, Dyn>>::from_shape_vec([1 << 20, 0], vec![]).is_ok());
    }

    #[test]
    fn constructors_with_dims() {
        let z = Tensor::<f64, Rows>::zeros_with_dims([2, 768]).unwrap();
        assert_eq!(z.shape(), &[2, 768]);
        assert!(z.as_slice().iter().all(|&v| v == 0.0));
        assert_eq!(z.as_slice().len(), 1536);
        assert!(matches!(
            Tensor::<f64, Rows>::zeros_with_dims([2, 767]),
            Err(ShapeError::FixedDim { axis: 1, .. })
        ));
        // An allocation past `isize::MAX` bytes is an error, not a capacity-overflow panic.
        assert_eq!(
            Tensor::<f64, Rank1<Dyn>>::zeros_with_dims([usize::MAX / 8]),
            Err(ShapeError::TooLarge {
                dims: format!("[{}]", usize::MAX / 8),
            })
        );
        let f = Tensor::<u16, Rank2<Dyn, Dyn>>::from_shape_fn([2, 3], |[i, j]| (10 * i + j) as u16)
            .unwrap();
        assert_eq!(f.as_slice(), &[0, 1, 2, 10, 11, 12]);
        let s = Tensor::<u16, Rank1<Dyn>>::from_slice(&[5, 6, 7]).unwrap();
        assert_eq!(s.shape(), &[3]);
        assert_eq!(s.into_vec(), vec![5, 6, 7]);
    }

    #[test]
    fn indexing_dynamic_tensors_and_views() {
        let mut t = Tensor::<i32, Rank2<Dyn, Fixed<3>>>::from_vec((0..6).collect()).unwrap();
        assert_eq!(t[[1, 2]], 5);
        assert_eq!(t.get([2, 0]), None);
        assert_eq!(t.get([0, 3]), None);
        t[[0, 1]] = -1;
        *t.get_mut([1, 0]).unwrap() = -3;
        assert_eq!(t.as_slice(), &[0, -1, 2, -3, 4, 5]);
        let v = t.view();
        assert_eq!(v[[1, 2]], 5);
        assert_eq!(v.get([1, 1]), Some(&4));
        assert_eq!(v.shape(), &[2, 3]);
        let mut data = [1u8, 2, 3, 4];
        let mut m = TensorViewMut::<u8, Rank2<Dyn, Dyn>>::with_dims([2, 2], &mut data).unwrap();
        m[[1, 0]] = 30;
        assert_eq!(m[[1, 0]], 30);
        assert_eq!(m.view()[[0, 1]], 2);
        assert_eq!(
            format!("{m:?}"),
            "tensor([[1, 2],\n        [30, 4]], dtype=u8)"
        );
        assert_eq!(m.to_tensor().as_slice(), &[1, 2, 30, 4]);
        assert_eq!(data, [1, 2, 30, 4]);
        let v = TensorView::<u8, Rank1<Dyn>>::new(&data).unwrap();
        assert_eq!(v.shape(), &[4]);
        assert!(TensorView::<u8, Rank2<Dyn, Fixed<3>>>::new(&data).is_err());
        assert!(TensorView::<u8, Rank2<Dyn, Dyn>>::with_dims([3, 1], &data).is_err());
    }

    #[test]
    #[should_panic(expected = "index [2, 0] is out of range for shape [2, 3]")]
    fn out_of_range_index_panics_like_a_slice() {
        let t = Tensor::<i32, Rank2<Dyn, Fixed<3>>>::from_vec((0..6).collect()).unwrap();
        let _ = t[[2, 0]];
    }

    #[test]
    #[should_panic(expected = "index [0, 3] is out of range for shape [1, 3]")]
    fn out_of_range_view_index_panics_like_a_slice() {
        let data = [1.0f32, 2.0, 3.0];
        let v = TensorView::<f32, Rank2<Dyn, Fixed<3>>>::new(&data).unwrap();
        let _ = v[[0, 3]];
    }

    #[test]
    fn debug_uses_stored_dims() {
        let t = Tensor::<f32, Rank2<Dyn, Fixed<2>>>::from_vec(vec![1.0, 2.0, 3.0, 4.5]).unwrap();
        assert_eq!(
            format!("{t:?}"),
            "tensor([[1.0, 2.0],\n        [3.0, 4.5]], dtype=f32)"
        );
        assert_eq!(format!("{:?}", t.view()), format!("{t:?}"));
        let e = Tensor::<f32, Rows>::from_vec(vec![]).unwrap();
        assert_eq!(format!("{e:?}"), "tensor([], shape=[0, 768], dtype=f32)");
        let r0 = Tensor::<i64, Rank0>::from_vec(vec![7]).unwrap();
        assert_eq!(format!("{r0:?}"), "tensor(7, dtype=i64)");
    }

    /// Every arm of `__user_doc_examples` is in its `all` arm (which the `tensorgraph`
    /// crate's doctests compile) and on an item of tensor.rs or error.rs, and every item's
    /// example is an arm: an example cannot be shown without being compiled.
    #[test]
    fn user_doc_examples_are_all_compiled() {
        use std::collections::BTreeSet;
        let sources = [include_str!("tensor.rs"), include_str!("error.rs")];
        let call = ["__user_doc", "_examples!("].concat();
        let (mut listed, mut used, mut arms) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        for source in sources {
            for (at, _) in source.match_indices(&call) {
                let name: String = source[at + call.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if source[..at].ends_with("$crate::") {
                    listed.insert(name);
                } else if source[..at].ends_with("crate::") {
                    used.insert(name);
                }
            }
        }
        let definition = ["macro_rules! __user_doc", "_examples {"].concat();
        let body = sources[0].split(&definition).nth(1).unwrap_or_default();
        let body = body.split("#[cfg(test)]").next().unwrap_or_default();
        {
            for line in body.lines() {
                if let Some(rest) = line.strip_prefix("    (") {
                    if let Some(name) = rest.strip_suffix(") => {") {
                        if name != "all" {
                            arms.insert(name.to_string());
                        }
                    }
                }
            }
        }
        assert_eq!(arms.len(), 13, "{arms:?}");
        assert_eq!(listed, arms, "arms missing from `all`");
        assert_eq!(used, arms, "arms on no item, or items naming no arm");
    }

    #[test]
    fn equality_includes_dims() {
        let a = Tensor::<u8, Rank2<Dyn, Dyn>>::from_shape_vec([2, 3], vec![0; 6]).unwrap();
        let b = Tensor::<u8, Rank2<Dyn, Dyn>>::from_shape_vec([3, 2], vec![0; 6]).unwrap();
        assert_ne!(a, b);
        assert_eq!(a, a.clone());
        assert_eq!(
            Tensor::<u8, Rank2<Fixed<2>, Fixed<3>>>::zeros(),
            Tensor::<u8, Rank2<Fixed<2>, Fixed<3>>>::from_vec(vec![0; 6]).unwrap()
        );
    }
}
