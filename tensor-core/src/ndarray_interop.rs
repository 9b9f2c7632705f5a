//! ndarray's arrays as graph arguments and outputs, and conversions to and from `Tensor`,
//! all without copies (the `ndarray` feature).
//!
//! Rules:
//! - An array in standard layout (row-major and contiguous: `as_slice()` is `Some`) is read
//!   and written in place.
//! - So is a row-strided one (issue 35, item 7): every axis but the last merges into rows
//!   (`strides[k] = dims[k + 1] · strides[k + 1]` for the outer axes, axes of length 1
//!   aside), the last axis has a unit stride, and the rows start a uniform `pitch ≥
//!   dims[-1]` elements apart: a column block `a.slice(s![.., ..768])` of a wider array,
//!   every other row, a 3-D array sliced on its last axis. It is lent as the region from its
//!   first element to its last (`(rows - 1) · pitch + dims[-1]` elements) with the pitch
//!   (`ArgParts::pitch`); a graph with names runs it through a second kernel that addresses
//!   that parameter or output by the run-time pitch and touches only the rows' elements
//!   (NOTES.md, "Row-strided ndarray views"). Inputs and `_into` outputs alike; not index
//!   parameters (`gather`'s indices) nor outputs of only literal dims, which refuse it as
//!   below.
//! - Any other layout (transposed, broadcast with zero strides, negative strides, a strided
//!   last axis, outer axes that do not merge into rows) is refused at call entry with a
//!   `ShapeError` that says to pass `.as_standard_layout()`: never a silent copy, so the
//!   cost of a call is what its arguments suggest.
//! - The array's rank is checked at compile time for `Ix0`…`Ix6` (it must be the parameter's)
//!   and at call entry for `IxDyn`.

use crate::args::{
    Accepts, AnyRank, ArgParts, ArgPartsMut, Checked, Lend, LendMut, NdRank, Notation, ShapeAccepts,
};
use crate::dtype::Element;
use crate::error::ShapeError;
use crate::shape::{
    static_dims_text, Dim, Dyn, Rank0, Rank1, Rank2, Rank3, Rank4, Rank5, Rank6, Shape,
};
use crate::tensor::Tensor;
use ndarray::{
    Array, ArrayBase, ArrayRef, ArrayView, ArrayViewMut, Data, DataMut, Dimension, Ix0, Ix1, Ix2,
    Ix3, Ix4, Ix5, Ix6, IxDyn,
};

/// Completes "`x` …" in the call-entry error for an array the kernels cannot read in place.
const NOT_STANDARD: &str = "is an ndarray array that is not in standard (row-major, contiguous) \
                            layout, which the kernels read in place: pass \
                            `&array.as_standard_layout()` (it copies only when the layout \
                            differs)";

/// Completes "`out` …" for an `_into` output array the kernels cannot write in place.
const NOT_STANDARD_OUTPUT: &str = "is an ndarray array that is not in standard (row-major, \
                                   contiguous) layout, which the kernels write in place: \
                                   pass a standard-layout array (`Array::zeros(…)`) and \
                                   assign it into the view afterwards";

/// The shape type an ndarray dimension type lends its arrays as: `Ix2` is [`NdRank`]`<2>`
/// (checked as `Rank2<Dyn, Dyn>`, every dim a run-time one, against a declared rank-2
/// pattern), `IxDyn` is [`AnyRank`].
pub trait NdLendShape {
    /// `NdRank<0>` … `NdRank<6>`, or `AnyRank`.
    type Shape;
}

impl NdLendShape for IxDyn {
    type Shape = AnyRank;
}

// Per static rank: its `Ix`, the `Rank` type of that many run-time dims, and the declared
// patterns of every other rank (each with its generic parameters). Against a pattern of its
// own rank an array is checked as `Rank{R}<Dyn, …>` (as a tensor of run-time dims); against
// another rank it stays `NdRank<R>`, the generated checks' key for the ndarray rank message.
macro_rules! nd_rank {
    ($r:literal, $ix:ty, $rank:ident [$($same:ident)*] $dyn:ty;
     $($other:ident [$($op:ident)*]),+) => {
        impl NdLendShape for $ix {
            type Shape = NdRank<$r>;
        }
        impl<T> Notation<T> for NdRank<$r> {
            type Out = <$dyn as Notation<T>>::Out;
        }
        impl<P, F> Accepts<P, F> for NdRank<$r> where $dyn: ShapeAccepts<P> {}
        impl<$($same,)* F> Checked<$rank<$($same),*>, F> for NdRank<$r> {
            type Out = $dyn;
        }
        $(
            impl<$($op,)* F> Checked<$other<$($op),*>, F> for NdRank<$r> {
                type Out = NdRank<$r>;
            }
        )+
    };
}
nd_rank!(0, Ix0, Rank0 [] Rank0;
    Rank1 [A], Rank2 [A B], Rank3 [A B C], Rank4 [A B C D], Rank5 [A B C D E],
    Rank6 [A B C D E G]);
nd_rank!(1, Ix1, Rank1 [A] Rank1<Dyn>;
    Rank0 [], Rank2 [A B], Rank3 [A B C], Rank4 [A B C D], Rank5 [A B C D E],
    Rank6 [A B C D E G]);
nd_rank!(2, Ix2, Rank2 [A B] Rank2<Dyn, Dyn>;
    Rank0 [], Rank1 [A], Rank3 [A B C], Rank4 [A B C D], Rank5 [A B C D E],
    Rank6 [A B C D E G]);
nd_rank!(3, Ix3, Rank3 [A B C] Rank3<Dyn, Dyn, Dyn>;
    Rank0 [], Rank1 [A], Rank2 [A B], Rank4 [A B C D], Rank5 [A B C D E],
    Rank6 [A B C D E G]);
nd_rank!(4, Ix4, Rank4 [A B C D] Rank4<Dyn, Dyn, Dyn, Dyn>;
    Rank0 [], Rank1 [A], Rank2 [A B], Rank3 [A B C], Rank5 [A B C D E],
    Rank6 [A B C D E G]);
nd_rank!(5, Ix5, Rank5 [A B C D E] Rank5<Dyn, Dyn, Dyn, Dyn, Dyn>;
    Rank0 [], Rank1 [A], Rank2 [A B], Rank3 [A B C], Rank4 [A B C D],
    Rank6 [A B C D E G]);
nd_rank!(6, Ix6, Rank6 [A B C D E G] Rank6<Dyn, Dyn, Dyn, Dyn, Dyn, Dyn>;
    Rank0 [], Rank1 [A], Rank2 [A B], Rank3 [A B C], Rank4 [A B C D],
    Rank5 [A B C D E]);

/// A shape type's ndarray dimension type of the same rank: `Rank2<Dyn, Fixed<768>>` is `Ix2`.
pub trait NdShape: Shape {
    /// `Ix0` … `Ix6`.
    type NdDim: Dimension;
}

impl NdShape for Rank0 {
    type NdDim = Ix0;
}
impl<A: Dim> NdShape for Rank1<A> {
    type NdDim = Ix1;
}
impl<A: Dim, B: Dim> NdShape for Rank2<A, B> {
    type NdDim = Ix2;
}
impl<A: Dim, B: Dim, C: Dim> NdShape for Rank3<A, B, C> {
    type NdDim = Ix3;
}
impl<A: Dim, B: Dim, C: Dim, D: Dim> NdShape for Rank4<A, B, C, D> {
    type NdDim = Ix4;
}
impl<A: Dim, B: Dim, C: Dim, D: Dim, E: Dim> NdShape for Rank5<A, B, C, D, E> {
    type NdDim = Ix5;
}
impl<A: Dim, B: Dim, C: Dim, D: Dim, E: Dim, F: Dim> NdShape for Rank6<A, B, C, D, E, F> {
    type NdDim = Ix6;
}

/// The row pitch of an array whose rows are contiguous and evenly spaced: every dim but the
/// last merges into rows (`strides[k] = dims[k + 1] · strides[k + 1]` for the outer axes,
/// axes of length 1 aside), the last axis has a unit stride, and the rows start `pitch ≥
/// dims[-1]` elements apart (a column block `a.slice(s![.., ..k])` of a wider array).
/// `None` for any other layout (transposed, broadcast, negative strides, outer axes that do
/// not merge), for a single row and for an empty array (which are standard or refused as
/// they are).
fn row_pitch(shape: &[usize], strides: &[isize]) -> Option<usize> {
    let (&cols, outer) = shape.split_last()?;
    if outer.is_empty() || shape.contains(&0) {
        return None;
    }
    if cols > 1 && strides[outer.len()] != 1 {
        return None;
    }
    let mut pitch: Option<usize> = None;
    // Rows spanned by one step of the axes inside axis `k`, among the outer axes.
    let mut span = 1usize;
    for k in (0..outer.len()).rev() {
        let d = outer[k];
        if d == 1 {
            continue;
        }
        let stride = usize::try_from(strides[k]).ok().filter(|&s| s > 0)?;
        match pitch {
            // The innermost outer axis that moves (`span` is 1 here): rows must not overlap.
            None if stride >= cols => pitch = Some(stride),
            None => return None,
            Some(p) if p.checked_mul(span) == Some(stride) => {}
            Some(_) => return None,
        }
        span = span.checked_mul(d)?;
    }
    pitch
}

/// The elements from an array's first element to its last, for a row pitch (`row_pitch`):
/// `(rows - 1) · pitch + cols`, `rows` the product of the outer dims.
fn pitched_len(shape: &[usize], pitch: usize) -> usize {
    let (&cols, outer) = shape.split_last().expect("a row pitch has rank 2 or more");
    let rows: usize = outer.iter().product();
    // ndarray keeps every element's offset within `isize::MAX`, and the last element is at
    // `(rows - 1) · pitch + cols - 1` (every stride positive), so this does not overflow.
    (rows - 1) * pitch + cols
}

/// The parts of an array to read: its buffer in place (the rows' region with their pitch
/// for a row-strided view), or a layout error.
fn array_parts<T, D: Dimension>(array: &ArrayRef<T, D>) -> ArgParts<'_, T> {
    if let Some(data) = array.as_slice() {
        return ArgParts {
            data,
            dims: Some(array.shape()),
            layout_error: None,
            pitch: None,
        };
    }
    let Some(pitch) = row_pitch(array.shape(), array.strides()) else {
        return ArgParts {
            data: &[],
            dims: Some(array.shape()),
            layout_error: Some(NOT_STANDARD),
            pitch: None,
        };
    };
    let len = pitched_len(array.shape(), pitch);
    // SAFETY: every stride of `array` is positive (`row_pitch`), so its first element is at
    // `as_ptr()` and its last at `as_ptr() + len - 1`: the region lies between two of its
    // elements, in the one allocation ndarray requires all of an array's elements to be in
    // (`ArrayView::from_shape_ptr`'s contract), aligned (`as_ptr` is an element's address)
    // and within `isize::MAX` bytes of it. The elements between rows belong to the storage
    // the view was sliced from (an `Array`'s `Vec`, initialised), not to the view; the
    // kernels that take a pitch read only the rows' elements (`row · pitch + col`, col <
    // dims[-1]), and the borrow of `array` keeps the storage alive and unwritten for the
    // slice's lifetime. (A view built with `from_shape_ptr` over memory whose gaps between
    // rows are uninitialised would break this; NOTES.md, "Row-strided ndarray views".)
    let data = unsafe { core::slice::from_raw_parts(array.as_ptr(), len) };
    ArgParts {
        data,
        dims: Some(array.shape()),
        layout_error: None,
        pitch: Some(pitch),
    }
}

/// The parts of an array to write: its buffer in place (with its pitch for a row-strided
/// view), or a layout error.
fn array_parts_mut<T, D: Dimension>(array: &mut ArrayRef<T, D>) -> ArgPartsMut<'_, T> {
    let (ptr, len, pitch) = match array.as_slice_mut() {
        Some(data) => (data.as_mut_ptr(), data.len(), None),
        None => match row_pitch(array.shape(), array.strides()) {
            Some(pitch) => (
                array.as_mut_ptr(),
                pitched_len(array.shape(), pitch),
                Some(pitch),
            ),
            None => {
                return ArgPartsMut {
                    data: Default::default(),
                    dims: Some(array.shape()),
                    layout_error: Some(NOT_STANDARD_OUTPUT),
                    pitch: None,
                }
            }
        },
    };
    let dims = array.shape();
    // SAFETY: without a pitch, `ptr..ptr + len` is the array's element buffer, which
    // `as_slice_mut` just lent us as one `&mut [T]` for the borrow of `array` (so it is
    // valid, initialised, aligned and unique for that borrow: `&mut ArrayRef` guarantees
    // the data is unshared). With a pitch (`row_pitch`: every stride positive),
    // `ptr..ptr + len` runs from the array's first element (`as_mut_ptr`, which for a
    // `&mut` array is its own, unshared data) to its last, within the one allocation
    // ndarray requires its elements to be in; the elements between rows belong to the
    // storage the view was sliced from, not to it, and the kernels that take a pitch write
    // and read only the rows' elements (`row · pitch + col`, col < dims[-1]), never the
    // gaps (NOTES.md, "Row-strided ndarray views", on sibling views of the gaps). `dims`
    // borrows the array's shape, which lives in the `ArrayRef` header, not in the element
    // buffer, so the two borrows are disjoint; ndarray's methods offer no safe way to
    // borrow both at once. Both are tied to the one borrow of `array`, so nothing else can
    // reach either.
    let data = unsafe { core::slice::from_raw_parts_mut(ptr, len) };
    ArgPartsMut {
        data,
        dims: Some(dims),
        layout_error: None,
        pitch,
    }
}

impl<T: Element, D: Dimension + NdLendShape> Lend for ArrayView<'_, T, D>
where
    D::Shape: crate::args::Notation<T>,
{
    type Elem = T;
    type Shape = D::Shape;
    type Notation = <D::Shape as crate::args::Notation<T>>::Out;
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        array_parts(self)
    }
}

impl<T: Element, S: Data<Elem = T>, D: Dimension + NdLendShape> crate::args::LendPointee
    for ArrayBase<S, D>
where
    D::Shape: crate::args::Notation<T>,
{
    type Elem = T;
    type Shape = D::Shape;
    type Notation = <D::Shape as crate::args::Notation<T>>::Out;
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        array_parts(self)
    }
}

impl<T: Element, D: Dimension + NdLendShape> crate::args::LendPointee for ArrayRef<T, D>
where
    D::Shape: crate::args::Notation<T>,
{
    type Elem = T;
    type Shape = D::Shape;
    type Notation = <D::Shape as crate::args::Notation<T>>::Out;
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        array_parts(self)
    }
}

impl<T: Element, S: DataMut<Elem = T>, D: Dimension + NdLendShape> LendMut for &mut ArrayBase<S, D>
where
    D::Shape: crate::args::Notation<T>,
{
    type Elem = T;
    type Shape = D::Shape;
    type Notation = <D::Shape as crate::args::Notation<T>>::Out;
    #[inline]
    fn lend_mut(&mut self) -> ArgPartsMut<'_, T> {
        array_parts_mut(self)
    }
}

impl<T: Element, D: Dimension + NdLendShape> LendMut for ArrayViewMut<'_, T, D>
where
    D::Shape: crate::args::Notation<T>,
{
    type Elem = T;
    type Shape = D::Shape;
    type Notation = <D::Shape as crate::args::Notation<T>>::Out;
    #[inline]
    fn lend_mut(&mut self) -> ArgPartsMut<'_, T> {
        array_parts_mut(self)
    }
}

impl<T: Element, D: Dimension + NdLendShape> LendMut for &mut ArrayRef<T, D>
where
    D::Shape: crate::args::Notation<T>,
{
    type Elem = T;
    type Shape = D::Shape;
    type Notation = <D::Shape as crate::args::Notation<T>>::Out;
    #[inline]
    fn lend_mut(&mut self) -> ArgPartsMut<'_, T> {
        array_parts_mut(self)
    }
}

impl<T: Element, S: Shape, D: Dimension> TryFrom<Array<T, D>> for Tensor<T, S> {
    type Error = ShapeError;

    /// Takes the array's buffer (no copy) if it is in standard layout and its dims fit `S`
    /// (rank, literal dims). An array sliced in place keeps a buffer larger than its elements:
    /// they are moved to its front within the same allocation.
    #[cfg_attr(not(doctest), doc = include_str!("doc_examples/ndarray_try_from.md"))]
    fn try_from(array: Array<T, D>) -> Result<Self, ShapeError> {
        if array.ndim() != S::RANK {
            return Err(ShapeError::TensorRank {
                shape: static_dims_text(S::STATIC_DIMS),
                expected: S::RANK,
                found: array.ndim(),
            });
        }
        if !array.is_standard_layout() {
            return Err(ShapeError::ArrayLayout);
        }
        let mut dims = S::Index::default();
        for (slot, &d) in dims.as_mut().iter_mut().zip(array.shape()) {
            *slot = d;
        }
        let len = array.len();
        let (mut data, offset) = array.into_raw_vec_and_offset();
        // Standard layout: the elements are `data[offset..offset + len]`, in order.
        let offset = offset.unwrap_or(0);
        if offset != 0 || data.len() != len {
            data.truncate(offset.saturating_add(len));
            data.drain(..offset.min(data.len()));
        }
        Tensor::from_shape_vec(dims, data)
    }
}

impl<T: Element, S: NdShape> Tensor<T, S> {
    /// The tensor as an `ndarray::Array` of the same rank (`Ix2` for `Shape![_, 768]`), taking
    /// its buffer without a copy.
    #[cfg_attr(not(doctest), doc = include_str!("doc_examples/ndarray_into_ndarray.md"))]
    pub fn into_ndarray(self) -> Array<T, S::NdDim> {
        let mut dim = S::NdDim::zeros(S::RANK);
        for (slot, &d) in dim.slice_mut().iter_mut().zip(self.shape()) {
            *slot = d;
        }
        match Array::from_shape_vec(dim, self.into_vec()) {
            Ok(array) => array,
            // ndarray refuses a buffer whose length differs from the dims' product, or dims
            // whose nonzero extents multiply past `isize::MAX`; the tensor invariant rules
            // out both.
            Err(error) => unreachable!("a tensor's dims always fit ndarray: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{NoSlice, SliceOk, Sym, TensorArg, TensorArgMut};
    use crate::bind::{bind_dims, DeclDim, GraphSignature, ParamSig};
    use crate::shape::Fixed;
    use ndarray::{array, s, ArrayD, ShapeBuilder};

    /// What a generated `f(x: f32[B, 3])` does at call entry: lend parts, bind, read.
    static F: GraphSignature = GraphSignature {
        name: "f",
        text: "f(x: f32[B, 3]) -> f32[B]",
        syms: &["B"],
        params: &[ParamSig {
            name: "x",
            ty: "f32[B, 3]",
            dims: &[DeclDim::Sym(0), DeclDim::Static(3)],
        }],
        at_least: &[],
        exprs: &[],
    };

    fn read<X: TensorArg<f32, Rank2<Sym, Fixed<3>>, NoSlice>>(
        x: X,
    ) -> Result<(usize, Vec<f32>), ShapeError> {
        let parts = x.tensor_parts();
        let [b] = bind_dims::<1>(&F, &[parts.arg_shape()])?;
        Ok((b, parts.data.to_vec()))
    }

    fn write<X: TensorArgMut<f32, Rank2<Sym, Fixed<3>>, SliceOk>>(
        mut x: X,
    ) -> Result<usize, ShapeError> {
        let parts = x.tensor_parts_mut();
        let [b] = bind_dims::<1>(&F, &[parts.arg_shape()])?;
        for (i, v) in parts.data.iter_mut().enumerate() {
            *v = i as f32;
        }
        Ok(b)
    }

    #[test]
    // `&a.view()` is borrowed on purpose: `&ArrayView` is an accepted argument of its own.
    #[allow(clippy::needless_borrows_for_generic_args)]
    fn standard_arrays_are_read_in_place() {
        let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
        assert_eq!(read(&a), Ok((2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])));
        assert_eq!(read(a.view()), Ok((2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])));
        assert_eq!(read(&a.view()), Ok((2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])));
        let r: &ArrayRef<f32, Ix2> = &a;
        assert_eq!(read(r), Ok((2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])));
        // The second row alone is standard too (a view starting mid-buffer).
        assert_eq!(read(a.slice(s![1.., ..])), Ok((1, vec![4.0, 5.0, 6.0])));
        // The slice is the array's own buffer: no copy.
        fn lent<X: TensorArg<f32, Rank2<Sym, Fixed<3>>, NoSlice>>(x: X) -> *const f32 {
            x.tensor_parts().data.as_ptr()
        }
        assert_eq!(lent(&a), a.as_ptr());
        assert_eq!(lent(a.view()), a.as_ptr());
        // IxDyn: the rank is checked at call entry.
        let d: ArrayD<f32> = ArrayD::zeros(vec![4, 3]);
        assert_eq!(read(&d).map(|(b, _)| b), Ok(4));
        let d3: ArrayD<f32> = ArrayD::zeros(vec![4, 3, 1]);
        assert!(matches!(
            read(&d3),
            Err(ShapeError::Rank {
                expected: 2,
                found: 3,
                ..
            })
        ));
        // A literal dim of the array that differs from the declared one.
        let wide = Array::<f32, Ix2>::zeros((2, 4));
        assert!(matches!(
            read(&wide),
            Err(ShapeError::StaticDim {
                axis: 1,
                expected: 3,
                found: 4,
                ..
            })
        ));
    }

    #[test]
    fn other_layouts_are_refused_not_copied() {
        let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]];
        let row = array![1.0f32, 2.0, 3.0];
        let fortran = Array::<f32, Ix2>::zeros((2, 3).f());
        let refused: [ArrayView<'_, f32, Ix2>; 5] = [
            a.t(),
            row.broadcast((2, 3)).expect("(3) broadcasts to (2, 3)"),
            a.slice(s![..;-1, ..]),
            a.slice(s![.., ..;2]),
            fortran.view(),
        ];
        for view in refused {
            for err in [read(view).unwrap_err(), read(view.into_dyn()).unwrap_err()] {
                assert_eq!(
                    err,
                    ShapeError::Layout {
                        graph: "f",
                        arg: "x",
                        reason: NOT_STANDARD,
                        signature: F.text,
                    }
                );
                assert!(err.to_string().starts_with(
                    "graph `f`: `x` is an ndarray array that is not in standard (row-major, \
                     contiguous) layout"
                ));
                assert!(err
                    .to_string()
                    .contains("pass `&array.as_standard_layout()`"));
            }
        }
        // `.as_standard_layout()` is the fix.
        assert_eq!(
            read(&a.t().as_standard_layout()),
            Ok((3, vec![1.0, 4.0, 7.0, 2.0, 5.0, 8.0, 3.0, 6.0, 9.0]))
        );
        // An output in another layout: refused, and nothing is written.
        let mut t = a.clone();
        assert!(matches!(
            write(t.view_mut().reversed_axes()),
            Err(ShapeError::Layout { .. })
        ));
        assert_eq!(t, a);
    }

    #[test]
    fn row_pitches() {
        // A column block, every other row, a 3-D block sliced on the last axis.
        assert_eq!(row_pitch(&[4, 3], &[8, 1]), Some(8));
        assert_eq!(row_pitch(&[4, 3], &[6, 1]), Some(6));
        assert_eq!(row_pitch(&[2, 3, 4], &[24, 8, 1]), Some(8));
        // Outer axes of length 1 take any stride; one column any inner stride.
        assert_eq!(row_pitch(&[1, 3, 4], &[5, 8, 1]), Some(8));
        assert_eq!(row_pitch(&[3, 1, 4], &[8, 99, 1]), Some(8));
        assert_eq!(row_pitch(&[3, 1], &[4, 7]), Some(4));
        // Not rows of one pitch: the outer axes do not merge, rows overlap or run
        // backwards, broadcast, a strided inner axis; a single row, an empty array, rank 1.
        assert_eq!(row_pitch(&[2, 2, 4], &[32, 8, 1]), None);
        assert_eq!(row_pitch(&[4, 3], &[2, 1]), None);
        assert_eq!(row_pitch(&[4, 3], &[-8, 1]), None);
        assert_eq!(row_pitch(&[4, 3], &[0, 1]), None);
        assert_eq!(row_pitch(&[4, 3], &[8, 2]), None);
        assert_eq!(row_pitch(&[1, 3], &[8, 1]), None);
        assert_eq!(row_pitch(&[0, 3], &[8, 1]), None);
        assert_eq!(row_pitch(&[5], &[2]), None);
        assert_eq!(row_pitch(&[], &[]), None);
    }

    #[test]
    fn row_strided_views_lend_their_rows_region() {
        let wide = Array::from_shape_fn((4, 8), |(i, j)| (i * 8 + j) as f32);
        // Columns 2..5: rows 8 apart, the region from (0, 2) to (3, 4).
        let v = wide.slice(s![.., 2..5]);
        let parts = array_parts(&v);
        assert_eq!(parts.pitch, Some(8));
        assert_eq!(parts.layout_error, None);
        assert_eq!(parts.data.len(), 3 * 8 + 3);
        assert_eq!(parts.data.as_ptr(), v.as_ptr());
        assert_eq!(parts.data[0], 2.0);
        assert_eq!(*parts.data.last().unwrap(), 28.0);
        // `arg_shape` (a parameter read contiguously) refuses it; `arg_shape_pitched`
        // binds it and checks its length against the dims.
        assert_eq!(
            parts.arg_shape().layout_error,
            Some(crate::args::ROW_STRIDED)
        );
        let shape = parts.arg_shape_pitched();
        assert_eq!((shape.layout_error, shape.pitch), (None, Some(8)));
        let err = read(v).unwrap_err();
        assert!(err.to_string().contains("`&array.as_standard_layout()`"));
        // The last row ends the region: a block at the right edge reads nothing past it.
        let right = wide.slice(s![1.., 5..]);
        let parts = array_parts(&right);
        assert_eq!(parts.data.len(), 2 * 8 + 3);
        assert_eq!(*parts.data.last().unwrap(), 31.0);
        // Outputs too, with the same region.
        let mut w = wide.clone();
        let mut view = w.slice_mut(s![.., 2..5]);
        let parts = array_parts_mut(&mut view);
        assert_eq!((parts.pitch, parts.data.len()), (Some(8), 27));
        assert_eq!(
            parts.arg_shape().layout_error,
            Some(crate::args::ROW_STRIDED)
        );
    }

    #[test]
    fn outputs_are_written_in_place() {
        let mut a = Array::<f32, Ix2>::zeros((2, 3));
        assert_eq!(write(&mut a), Ok(2));
        assert_eq!(a, array![[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]);
        let mut b = Array::<f32, Ix2>::zeros((4, 3));
        assert_eq!(write(b.slice_mut(s![2.., ..])), Ok(2));
        assert_eq!(b.row(3).to_vec(), vec![3.0, 4.0, 5.0]);
        assert_eq!(b.row(1).to_vec(), vec![0.0, 0.0, 0.0]);
        let mut view = b.view_mut();
        assert_eq!(write(&mut view), Ok(4));
        let r: &mut ArrayRef<f32, Ix2> = &mut b;
        assert_eq!(write(r), Ok(4));
        assert_eq!(b[[3, 2]], 11.0);
        let mut d = ArrayD::<f32>::zeros(vec![1, 3]);
        assert_eq!(write(&mut d), Ok(1));
        assert_eq!(d.as_slice(), Some(&[0.0f32, 1.0, 2.0][..]));
    }

    #[test]
    fn try_from_takes_the_buffer() {
        let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let ptr = a.as_ptr();
        let t = Tensor::<f32, Rank2<Dyn, Fixed<3>>>::try_from(a).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        assert_eq!(t[[1, 0]], 4.0);
        assert_eq!(t.as_slice().as_ptr(), ptr);
        // Dynamic rank in, fixed rank out.
        let d = ArrayD::from_shape_vec(vec![2, 3], vec![0u8, 1, 2, 3, 4, 5]).unwrap();
        let t = Tensor::<u8, Rank2<Dyn, Dyn>>::try_from(d).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        assert_eq!(t[[1, 2]], 5);
        // An array sliced in place: its rows move to the front of the same buffer.
        let mut s = array![[1i32, 2], [3, 4], [5, 6]];
        s.slice_collapse(s![1.., ..]);
        let t = Tensor::<i32, Rank2<Dyn, Dyn>>::try_from(s).unwrap();
        assert_eq!(t.as_slice(), &[3, 4, 5, 6]);
        assert_eq!(t.shape(), &[2, 2]);
    }

    #[test]
    fn try_from_refuses() {
        let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let err = Tensor::<f32, Rank2<Dyn, Fixed<768>>>::try_from(a.clone()).unwrap_err();
        assert_eq!(
            err,
            ShapeError::FixedDim {
                dims: "[2, 3]".into(),
                shape: "[_, 768]".into(),
                axis: 1,
                expected: 768,
                found: 3,
            }
        );
        let err = Tensor::<f32, Rank1<Dyn>>::try_from(a.clone()).unwrap_err();
        assert_eq!(
            err,
            ShapeError::TensorRank {
                shape: "[_]".into(),
                expected: 1,
                found: 2,
            }
        );
        assert_eq!(
            err.to_string(),
            "dims of rank 2 do not fit shape [_], which has rank 1"
        );
        let err = Tensor::<f32, Rank2<Dyn, Dyn>>::try_from(a.reversed_axes()).unwrap_err();
        assert_eq!(err, ShapeError::ArrayLayout);
        assert!(err
            .to_string()
            .contains("`.as_standard_layout().into_owned()`"));
    }

    #[test]
    fn into_ndarray_gives_the_buffer() {
        let t = Tensor::<f32, Rank2<Dyn, Fixed<3>>>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
            .unwrap();
        let ptr = t.as_slice().as_ptr();
        let a: Array<f32, Ix2> = t.into_ndarray();
        assert_eq!(a, array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        assert_eq!(a.as_ptr(), ptr);
        let r0 = Tensor::<i64, Rank0>::from_vec(vec![7])
            .unwrap()
            .into_ndarray();
        assert_eq!(r0.into_scalar(), 7);
        let empty = Tensor::<u8, Rank2<Dyn, Dyn>>::from_shape_vec([0, 5], vec![]).unwrap();
        assert_eq!(empty.into_ndarray().shape(), &[0, 5]);
    }
}
