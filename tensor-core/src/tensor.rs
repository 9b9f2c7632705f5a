//! Owned tensors and borrowed views with static shapes.
//!
//! Invariant of every type here: the backing slice holds exactly `S::LEN` elements,
//! row-major. Constructors check it and return `ShapeError` otherwise, so kernels may
//! rely on it.

use crate::dtype::Element;
use crate::shape::{dims_text, flat_offset, unravel, Shape};
use core::fmt;
use core::marker::PhantomData;

/// A buffer whose length does not match the static shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The element count the shape needs.
    pub expected: usize,
    /// The element count given.
    pub found: usize,
    /// The static dims.
    pub dims: &'static [usize],
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a tensor of shape {} needs {} elements, but {} were given",
            dims_text(self.dims),
            self.expected,
            self.found
        )
    }
}

impl std::error::Error for ShapeError {}

fn check_len<S: Shape>(found: usize) -> Result<(), ShapeError> {
    if found == S::LEN {
        Ok(())
    } else {
        Err(ShapeError {
            expected: S::LEN,
            found,
            dims: S::DIMS,
        })
    }
}

/// An owned tensor of dtype `T` and static shape `S`.
#[derive(Clone, PartialEq)]
pub struct Tensor<T: Element, S: Shape> {
    data: Vec<T>,
    shape: PhantomData<S>,
}

/// A read-only view over a borrowed slice, checked against `S` when built.
#[derive(Clone, Copy)]
pub struct TensorView<'a, T: Element, S: Shape> {
    data: &'a [T],
    shape: PhantomData<S>,
}

/// A writable view over a borrowed slice, checked against `S` when built.
pub struct TensorViewMut<'a, T: Element, S: Shape> {
    data: &'a mut [T],
    shape: PhantomData<S>,
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// Takes ownership of `data`, which must hold `S::LEN` elements in row-major order.
    pub fn from_vec(data: Vec<T>) -> Result<Self, ShapeError> {
        check_len::<S>(data.len())?;
        Ok(Tensor {
            data,
            shape: PhantomData,
        })
    }

    /// Copies `data`, which must hold `S::LEN` elements.
    pub fn from_slice(data: &[T]) -> Result<Self, ShapeError> {
        check_len::<S>(data.len())?;
        Ok(Tensor {
            data: data.to_vec(),
            shape: PhantomData,
        })
    }

    /// All elements zero (`false` for `bool`).
    pub fn zeros() -> Self {
        Tensor {
            data: vec![T::default(); S::LEN],
            shape: PhantomData,
        }
    }

    /// Every element the same value.
    pub fn full(value: T) -> Self {
        Tensor {
            data: vec![value; S::LEN],
            shape: PhantomData,
        }
    }

    /// Element `index` is `f(index)`, with `index` an array `[i0, i1, …]` of the shape's rank.
    pub fn from_fn(mut f: impl FnMut(S::Index) -> T) -> Self
    where
        S::Index: Default + AsMut<[usize]>,
    {
        let mut data = Vec::with_capacity(S::LEN);
        let mut index = S::Index::default();
        for offset in 0..S::LEN {
            unravel(S::DIMS, offset, index.as_mut());
            data.push(f(index));
        }
        Tensor {
            data,
            shape: PhantomData,
        }
    }

    /// The dims, outermost first.
    pub fn shape(&self) -> &'static [usize] {
        S::DIMS
    }

    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// A borrowed view of the whole tensor.
    pub fn view(&self) -> TensorView<'_, T, S> {
        TensorView {
            data: &self.data,
            shape: PhantomData,
        }
    }

    /// The element at `index`, or `None` if it is out of range.
    pub fn get(&self, index: S::Index) -> Option<&T> {
        flat_offset(S::DIMS, index.as_ref()).map(|o| &self.data[o])
    }
}

impl<T: Element, S: Shape> Default for Tensor<T, S> {
    fn default() -> Self {
        Self::zeros()
    }
}

impl<'a, T: Element, S: Shape> TensorView<'a, T, S> {
    /// Views `data` (no copy), which must hold `S::LEN` elements in row-major order.
    pub fn new(data: &'a [T]) -> Result<Self, ShapeError> {
        check_len::<S>(data.len())?;
        Ok(TensorView {
            data,
            shape: PhantomData,
        })
    }

    pub fn shape(&self) -> &'static [usize] {
        S::DIMS
    }

    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    pub fn get(&self, index: S::Index) -> Option<&'a T> {
        flat_offset(S::DIMS, index.as_ref()).map(|o| &self.data[o])
    }

    /// Copies the viewed elements into an owned tensor.
    pub fn to_tensor(&self) -> Tensor<T, S> {
        Tensor {
            data: self.data.to_vec(),
            shape: PhantomData,
        }
    }
}

impl<'a, T: Element, S: Shape> TensorViewMut<'a, T, S> {
    /// Views `data` mutably (no copy); it must hold `S::LEN` elements.
    pub fn new(data: &'a mut [T]) -> Result<Self, ShapeError> {
        check_len::<S>(data.len())?;
        Ok(TensorViewMut {
            data,
            shape: PhantomData,
        })
    }

    pub fn shape(&self) -> &'static [usize] {
        S::DIMS
    }

    pub fn as_slice(&self) -> &[T] {
        self.data
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }
}

/// Anything a generated graph function reads as an input tensor of dtype `T`, shape `S`:
/// `Tensor`, `TensorView`, `TensorViewMut`. Implementors guarantee `as_slice().len() == S::LEN`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor of the dtype and shape this graph parameter declares",
    label = "expected a tensor with element type `{T}` and the parameter's shape",
    note = "graph parameters take `&Tensor<T, Shape![...]>` or `&TensorView<T, Shape![...]>` of exactly the declared dtype and dims"
)]
pub trait TensorRef<T: Element, S: Shape> {
    fn as_slice(&self) -> &[T];
}

/// Anything a generated `…_into` function writes an output into. Implementors guarantee
/// `as_mut_slice().len() == S::LEN`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a writable tensor of the dtype and shape this graph output declares",
    label = "expected `&mut Tensor` or `&mut TensorViewMut` with element type `{T}` and the output's shape"
)]
pub trait TensorMut<T: Element, S: Shape> {
    fn as_mut_slice(&mut self) -> &mut [T];
}

impl<T: Element, S: Shape> TensorRef<T, S> for Tensor<T, S> {
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        &self.data
    }
}
impl<T: Element, S: Shape> TensorRef<T, S> for TensorView<'_, T, S> {
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self.data
    }
}
impl<T: Element, S: Shape> TensorRef<T, S> for TensorViewMut<'_, T, S> {
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self.data
    }
}
impl<T: Element, S: Shape> TensorMut<T, S> for Tensor<T, S> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
}
impl<T: Element, S: Shape> TensorMut<T, S> for TensorViewMut<'_, T, S> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }
}

impl<T: Element, S: Shape> core::ops::Index<S::Index> for Tensor<T, S> {
    type Output = T;
    /// Panics (like slice indexing) when `index` is out of range; `get` returns `None`.
    fn index(&self, index: S::Index) -> &T {
        match flat_offset(S::DIMS, index.as_ref()) {
            Some(o) => &self.data[o],
            None => panic!(
                "index {:?} is out of range for shape {}",
                index,
                dims_text(S::DIMS)
            ),
        }
    }
}

impl<T: Element, S: Shape> core::ops::IndexMut<S::Index> for Tensor<T, S> {
    fn index_mut(&mut self, index: S::Index) -> &mut T {
        match flat_offset(S::DIMS, index.as_ref()) {
            Some(o) => &mut self.data[o],
            None => panic!(
                "index {:?} is out of range for shape {}",
                index,
                dims_text(S::DIMS)
            ),
        }
    }
}

/// Beyond this many elements `Debug` shows the first and last `EDGE_ITEMS` of each axis,
/// as NumPy does.
const SUMMARY_THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;

fn fmt_nested<T: fmt::Debug>(
    f: &mut fmt::Formatter<'_>,
    data: &[T],
    dims: &[usize],
    depth: usize,
    summarize: bool,
) -> fmt::Result {
    if dims.is_empty() {
        return write!(f, "{:?}", data[0]);
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
                // "tensor(" is 7 columns, then one per nesting level.
                write!(f, "{:width$}", "", width = 7 + depth + 1)?;
            }
        }
        first = false;
        fmt_nested(
            f,
            &data[i * stride..(i + 1) * stride],
            &dims[1..],
            depth + 1,
            summarize,
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
        fmt_nested(f, data, dims, 0, data.len() > SUMMARY_THRESHOLD)?;
    }
    write!(f, ", dtype={})", T::DTYPE)
}

impl<T: Element, S: Shape> fmt::Debug for Tensor<T, S> {
    /// NumPy-like: `tensor([[1.0, 2.0],\n        [3.0, 4.0]], dtype=f32)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_tensor(f, &self.data, S::DIMS)
    }
}

impl<T: Element, S: Shape> fmt::Debug for TensorView<'_, T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_tensor(f, self.data, S::DIMS)
    }
}
