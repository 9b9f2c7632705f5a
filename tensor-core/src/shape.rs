//! Static shapes as types. `Shape![4, 8]` (the `tensorgraph` macro) is `Rank2<U4, U8>`
//! over typenum unsigned integers, so generic code can name shapes in bounds; the element count
//! and the row-major dims are associated constants.

use core::marker::PhantomData;
use typenum::Unsigned;

/// A static row-major shape.
pub trait Shape: Copy + Default + Send + Sync + 'static {
    /// The dims, outermost first.
    const DIMS: &'static [usize];
    const RANK: usize = Self::DIMS.len();
    /// The element count (1 for rank 0).
    const LEN: usize;
    /// The index type: `[usize; RANK]`.
    type Index: AsRef<[usize]> + Copy + core::fmt::Debug;
}

/// Rank 0: one element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rank0;

impl Shape for Rank0 {
    const DIMS: &'static [usize] = &[];
    const LEN: usize = 1;
    type Index = [usize; 0];
}

macro_rules! rank {
    ($name:ident, $n:literal; $($d:ident),+) => {
        #[doc = concat!("Rank ", stringify!($n), ": dims are typenum unsigned integers.")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name<$($d),+>(PhantomData<($($d,)+)>);

        impl<$($d: Unsigned + Copy + Default + Send + Sync + 'static),+> Shape for $name<$($d),+> {
            const DIMS: &'static [usize] = &[$($d::USIZE),+];
            const LEN: usize = 1 $(* $d::USIZE)+;
            type Index = [usize; $n];
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
        offset = offset * d + i;
    }
    Some(offset)
}

/// The multi-index of flat offset `offset` in `dims` (row-major), written into `index`.
pub fn unravel(dims: &[usize], mut offset: usize, index: &mut [usize]) {
    for (slot, &d) in index.iter_mut().zip(dims).rev() {
        *slot = offset % d;
        offset /= d;
    }
}

/// `f32[4, 8]`-style shape text, as the graph language writes it.
pub fn dims_text(dims: &[usize]) -> String {
    let inner: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", inner.join(", "))
}
