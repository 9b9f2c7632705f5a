//! Shapes as types. `Shape![4, 8]` (the `tensorgraph` macro) is `Rank2<Fixed<4>, Fixed<8>>`,
//! so generic code can name shapes in bounds and compiler messages print them as written. A
//! dim may instead be [`Dyn`] (`Shape![_, 768]` is `Rank2<Dyn, Fixed<768>>`): its size is
//! chosen at run time and stored in the tensor, which then owns its extents.
//!
//! Two traits split what is known when:
//! - [`Shape`]: every shape type. Its rank and which dims are fixed are compile-time facts
//!   (`STATIC_DIMS`); the extents themselves live in the tensor (`S::Index`).
//! - [`StaticShape`]: shapes whose every dim is a literal, so the extents and the element
//!   count are constants too (`DIMS`, `LEN`). Infallible constructors (`zeros`, `from_fn`)
//!   and the graph traits of graphs with only literal dims need it.
//!
//! Literal dims are const generics (`Fixed<768>`), not type-level integers: a rustc message
//! about a wrong argument then prints `Tensor<f64, Rank2<Fixed<4>, Fixed<8>>>`, where
//! typenum's binary integers printed `Rank2<UInt<UInt<UInt<UTerm, B1>, B0>, B0>, …>`
//! (NOTES.md, "Call-site errors"). The name is `Fixed`, not nalgebra's `Const`: rustc
//! prints a type by its bare name only when no other visible item has that name, and the
//! standard library has a `Const`, so messages read `tensorgraph::Const<4>`.

use core::fmt::{self, Debug};
use core::marker::PhantomData;

/// A literal dim of size `N`: `Shape![4, 8]` writes `Rank2<Fixed<4>, Fixed<8>>`. Any `usize`
/// works, including a `const` item or a const generic parameter (`Shape![N, 4]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fixed<const N: usize>;

/// A run-time dim: its size is stored in each tensor and checked where the tensor is built
/// and where a graph is called. `Shape![_, 768]` writes `Rank2<Dyn, Fixed<768>>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dyn;

/// One dim of a shape type: [`Fixed`] (a literal size) or [`Dyn`].
pub trait Dim: Copy + Default + Send + Sync + 'static {
    /// `Some(n)` for a literal dim, `None` for a run-time one.
    const SIZE: Option<usize>;
}

impl<const N: usize> Dim for Fixed<N> {
    const SIZE: Option<usize> = Some(N);
}

impl Dim for Dyn {
    const SIZE: Option<usize> = None;
}

/// A row-major shape type: its rank and which of its dims are literals.
pub trait Shape: Copy + Default + Send + Sync + 'static {
    /// The number of axes.
    const RANK: usize;
    /// Per axis, outermost first: `Some(n)` for a literal dim, `None` for a run-time one.
    const STATIC_DIMS: &'static [Option<usize>];
    /// The index type and the type of a tensor's stored extents: `[usize; RANK]`.
    type Index: AsRef<[usize]> + AsMut<[usize]> + Copy + Debug + Default + PartialEq + Send + Sync;
}

/// A shape whose every dim is a literal: its extents and element count are constants.
///
/// Its diagnostic is what `Tensor::<f32, Shape![_, 64]>::zeros()` prints: `zeros`, `full`
/// and `from_fn` bound their shape by it (on each method, so rustc reports this trait), and
/// the fix is the constructor that takes the extents.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a shape of literal dims only: a run-time dim (`_`) has no size until the program runs",
    label = "this needs every dim of the shape to be a literal, as in `Shape![4, 64]`",
    note = "with a `_` dim, give the extents (one per axis: `[n, 64]` for `Shape![_, 64]`) when the tensor is built: `Tensor::zeros_with_dims(dims)` for `zeros()`, `Tensor::full_with_dims(dims, value)` for `full(value)`, `Tensor::from_shape_fn(dims, f)` for `from_fn(f)`, or `Tensor::from_vec(data)`, which solves one `_` from the length; each returns `Result<_, ShapeError>`"
)]
pub trait StaticShape: Shape {
    /// The dims, outermost first.
    const DIMS: &'static [usize];
    /// The element count (1 for rank 0).
    const LEN: usize;
}

/// Rank 0: one element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rank0;

impl Shape for Rank0 {
    const RANK: usize = 0;
    const STATIC_DIMS: &'static [Option<usize>] = &[];
    type Index = [usize; 0];
}

impl StaticShape for Rank0 {
    const DIMS: &'static [usize] = &[];
    const LEN: usize = 1;
}

// The rank structs put no bound on their parameters, so the graph macro's argument patterns
// (`Rank2<Sym, Fixed<768>>`, see `args.rs`) can reuse them; they are shapes only over `Dim`s.
macro_rules! rank {
    ($name:ident, $n:literal; $($d:ident),+) => {
        #[doc = concat!(
            "Rank ", stringify!($n), ": each dim is [`Fixed`] (a literal size) or [`Dyn`] \
             (a run-time size)."
        )]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name<$($d),+>(PhantomData<($($d,)+)>);

        impl<$($d: Dim),+> Shape for $name<$($d),+> {
            const RANK: usize = $n;
            const STATIC_DIMS: &'static [Option<usize>] = &[$($d::SIZE),+];
            type Index = [usize; $n];
        }

        impl<$(const $d: usize),+> StaticShape for $name<$(Fixed<$d>),+> {
            const DIMS: &'static [usize] = &[$($d),+];
            const LEN: usize = 1 $(* $d)+;
        }
    };
}
rank!(Rank1, 1; A);
rank!(Rank2, 2; A, B);
rank!(Rank3, 3; A, B, C);
rank!(Rank4, 4; A, B, C, D);
rank!(Rank5, 5; A, B, C, D, E);
rank!(Rank6, 6; A, B, C, D, E, F);

/// The row-major flat offset of `index` in `dims`, or `None` if any coordinate is out of range.
pub fn flat_offset(dims: &[usize], index: &[usize]) -> Option<usize> {
    if dims.len() != index.len() {
        return None;
    }
    let mut offset = 0usize;
    for (&i, &d) in index.iter().zip(dims) {
        if i >= d {
            return None;
        }
        // Cannot overflow: `offset * d + i < product(dims so far)`, which is at most the
        // element count of a tensor that exists.
        offset = offset * d + i;
    }
    Some(offset)
}

/// The multi-index of flat offset `offset` in `dims` (row-major), written into `index`.
/// `offset` must be below the product of `dims` (so no dim is 0).
pub fn unravel(dims: &[usize], mut offset: usize, index: &mut [usize]) {
    for (slot, &d) in index.iter_mut().zip(dims).rev() {
        *slot = offset % d;
        offset /= d;
    }
}

/// The product of `dims`, or `None` if it overflows `usize`. 1 for no dims; 0 whenever a dim
/// is 0, even if the others alone would overflow (`[usize::MAX, 2, 0]` holds no elements).
pub fn checked_product(dims: &[usize]) -> Option<usize> {
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// `[4, 8]`-style shape text, as the graph language writes it.
pub fn dims_text(dims: &[usize]) -> String {
    let inner: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", inner.join(", "))
}

/// `[_, 768]`-style text of a shape type: `_` marks a run-time dim, as in `Shape![_, 768]`.
pub fn static_dims_text(dims: &[Option<usize>]) -> String {
    struct Axis(Option<usize>);
    impl fmt::Display for Axis {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self.0 {
                Some(n) => write!(f, "{n}"),
                None => f.write_str("_"),
            }
        }
    }
    let inner: Vec<String> = dims.iter().map(|&d| Axis(d).to_string()).collect();
    format!("[{}]", inner.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_dims_mark_run_time_axes() {
        assert_eq!(
            <Rank2<Dyn, Fixed<768>> as Shape>::STATIC_DIMS,
            &[None, Some(768)]
        );
        assert_eq!(
            <Rank2<Fixed<3>, Fixed<768>> as Shape>::STATIC_DIMS,
            &[Some(3), Some(768)]
        );
        assert_eq!(
            <Rank2<Fixed<3>, Fixed<768>> as StaticShape>::DIMS,
            &[3, 768]
        );
        assert_eq!(<Rank2<Fixed<3>, Fixed<768>> as StaticShape>::LEN, 2304);
        assert_eq!(
            <Rank3<Fixed<3>, Fixed<0>, Fixed<768>> as StaticShape>::LEN,
            0
        );
        assert_eq!(<Rank0 as StaticShape>::LEN, 1);
        assert_eq!(<Rank6<Dyn, Dyn, Dyn, Dyn, Dyn, Dyn> as Shape>::RANK, 6);
        assert_eq!(<Dyn as Dim>::SIZE, None);
        assert_eq!(<Fixed<768> as Dim>::SIZE, Some(768));
    }

    #[test]
    fn texts() {
        assert_eq!(static_dims_text(&[None, Some(768)]), "[_, 768]");
        assert_eq!(static_dims_text(&[]), "[]");
        assert_eq!(dims_text(&[4, 8]), "[4, 8]");
    }

    #[test]
    fn products_and_offsets() {
        assert_eq!(checked_product(&[]), Some(1));
        assert_eq!(checked_product(&[4, 0, usize::MAX]), Some(0));
        assert_eq!(checked_product(&[usize::MAX, 2, 0]), Some(0));
        assert_eq!(checked_product(&[usize::MAX, 2]), None);
        assert_eq!(checked_product(&[3, 5]), Some(15));
        assert_eq!(flat_offset(&[2, 3], &[1, 2]), Some(5));
        assert_eq!(flat_offset(&[2, 3], &[2, 0]), None);
        assert_eq!(flat_offset(&[2, 3], &[1]), None);
        let mut index = [0; 2];
        unravel(&[2, 3], 4, &mut index);
        assert_eq!(index, [1, 1]);
    }
}
