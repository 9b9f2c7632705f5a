//! The runtime entry of `matmul` / `a @ b`: one GEMM call per batch index of a graph's
//! product, from two strided operands into a row-major block of a temp. Generated code
//! calls [`matmul`] with offsets and signed strides that lowering derived from the
//! operands' views (a transposed operand is a column stride, not a copy).
//!
//! The product runs on the GEMM engine ([`crate::gemm`]); see [`GemmInto`] for the
//! accumulator types and the operand conversions done while packing.

use crate::gemm::{self, Block, Convert, IntOperand, MatRef, Options, PackedB};
use crate::scratch::Scratch;

/// Where one GEMM operand is: element `(row, col)` is at
/// `offset + row × row_stride + col × col_stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixAt {
    /// Index of element `(0, 0)`.
    pub offset: usize,
    /// Elements between rows (negative for a flipped view, 0 where it broadcasts).
    pub row_stride: isize,
    /// Elements between columns.
    pub col_stride: isize,
}

/// The accumulator types of a product of `A` and `B` elements, each backed by the GEMM
/// engine ([`crate::gemm`]): `f32` from `f32`/`f16`/`bf16` operands, `f64` from `f64` and
/// narrower floats, `i64` and `u64` from any integers (exact in 64 bits, wrapping past
/// them; the `u64` bits are those of the `i64` sum). The operands are converted while they
/// are packed, so no converted copy of them exists.
pub trait GemmInto<A, B>: Copy + Default + Send + Sync + 'static {
    /// The element of a buffer for a packed right operand (see [`pack_rhs`]).
    type PackElem: Scratch + Default;
    /// A right operand made ready for many products (packed for the float kernels, the
    /// view itself for integers, whose kernels pack per call).
    type Packed<'a>: Sync
    where
        B: 'a;

    /// `c = a · b`, `c` row-major with leading dimension `ldc`.
    fn product(a: &MatRef<'_, A>, b: &MatRef<'_, B>, c: &mut [Self], ldc: usize, options: Options);

    /// Elements of the buffer [`pack`](GemmInto::pack) needs for a `k × n` operand.
    fn pack_len(k: usize, n: usize) -> usize;

    /// `b` made ready, in `buf` (at least `pack_len` elements).
    fn pack<'a>(
        b: MatRef<'a, B>,
        buf: &'a mut [Self::PackElem],
        options: Options,
    ) -> Self::Packed<'a>;

    /// [`product`](GemmInto::product) with a right operand from [`pack`](GemmInto::pack).
    fn product_packed(
        a: &MatRef<'_, A>,
        b: &Self::Packed<'_>,
        c: &mut [Self],
        ldc: usize,
        options: Options,
    );
}

/// The float impls: `B` packed once per call (`PackedB`), one engine entry point per use.
macro_rules! packed_float_gemm_into {
    ($t:ty, $product:ident, $pack_len:ident, $pack:ident, $product_packed:ident) => {
        impl<A: Convert<$t> + Sync, B: Convert<$t> + Sync> GemmInto<A, B> for $t {
            type PackElem = $t;
            type Packed<'a>
                = PackedB<'a, $t>
            where
                B: 'a;
            fn product(
                a: &MatRef<'_, A>,
                b: &MatRef<'_, B>,
                c: &mut [$t],
                ldc: usize,
                options: Options,
            ) {
                // Cannot fail from `matmul` below: one `k` for both operands, `ldc = n`
                // and a block of exactly `m·n` elements rule out each of `check_dims`'s
                // errors (NOTES.md "Panics in kernels").
                gemm::$product(a, b, c, ldc, options, &|_: Block<'_, $t>| {})
                    .expect("lowering builds consistent products");
            }
            fn pack_len(k: usize, n: usize) -> usize {
                gemm::$pack_len(k, n).expect("the operand's size fits in memory")
            }
            fn pack<'a>(b: MatRef<'a, B>, buf: &'a mut [$t], options: Options) -> PackedB<'a, $t> {
                // Cannot fail from `pack_rhs`: generated code sizes `buf` with
                // `pack_rhs_len` of the same `k` and `n` (emit/stages.rs, a stage's prelude).
                gemm::$pack(&b, buf, options).expect("pack_len sized the buffer")
            }
            fn product_packed(
                a: &MatRef<'_, A>,
                b: &PackedB<'_, $t>,
                c: &mut [$t],
                ldc: usize,
                options: Options,
            ) {
                // As `product`; `b` was packed (`pack_rhs`) with the `k` and `n` that the
                // stage's `matmul_packed` calls pass.
                gemm::$product_packed(a, b, c, ldc, options, &|_: Block<'_, $t>| {})
                    .expect("lowering builds consistent products");
            }
        }
    };
}
packed_float_gemm_into!(
    f32,
    matmul_f32_with,
    packed_b_len_f32,
    pack_b_f32,
    matmul_f32_packed_with
);
packed_float_gemm_into!(
    f64,
    matmul_f64_with,
    packed_b_len_f64,
    pack_b_f64,
    matmul_f64_packed_with
);

/// The integer impls keep the view (their kernels pack `B` per call).
macro_rules! unpacked_rhs {
    () => {
        type PackElem = u8;
        type Packed<'a>
            = MatRef<'a, B>
        where
            B: 'a;
        fn pack_len(_: usize, _: usize) -> usize {
            0
        }
        fn pack<'a>(b: MatRef<'a, B>, _: &'a mut [u8], _: Options) -> MatRef<'a, B> {
            b
        }
        fn product_packed(
            a: &MatRef<'_, A>,
            b: &MatRef<'_, B>,
            c: &mut [Self],
            ldc: usize,
            options: Options,
        ) {
            Self::product(a, b, c, ldc, options)
        }
    };
}

impl<A: IntOperand, B: IntOperand> GemmInto<A, B> for i64 {
    unpacked_rhs!();
    fn product(a: &MatRef<'_, A>, b: &MatRef<'_, B>, c: &mut [i64], ldc: usize, options: Options) {
        // Cannot fail: as the float impls' `product`.
        gemm::matmul_i64_with(a, b, c, ldc, options, &|_: Block<'_, i64>| {})
            .expect("lowering builds consistent products");
    }
}

impl<A: IntOperand, B: IntOperand> GemmInto<A, B> for u64 {
    unpacked_rhs!();
    fn product(a: &MatRef<'_, A>, b: &MatRef<'_, B>, c: &mut [u64], ldc: usize, options: Options) {
        // Two's complement: the wrapping i64 sum has the bits of the wrapping u64 sum.
        let c: &mut [i64] = bytemuck::cast_slice_mut(c);
        // Cannot fail: as the float impls' `product`.
        gemm::matmul_i64_with(a, b, c, ldc, options, &|_: Block<'_, i64>| {})
            .expect("lowering builds consistent products");
    }
}

/// `c[c_offset..][i × n + j] = Σ_p a(i, p) · b(p, j)` for `i < m`, `j < n`, `p < k`: the
/// `m × n` row-major block at `c_offset` is overwritten. `parallel`: the engine may split
/// the rows across threads (a product computed whole); a product computed block by block
/// inside a stage's tasks runs on the calling thread.
///
/// Panics (never reads or writes out of bounds) if an operand's map leaves its slice or
/// the block does not fit in `c`: generated code builds only consistent calls.
#[allow(clippy::too_many_arguments)]
pub fn matmul<A, B, C: GemmInto<A, B>>(
    a: &[A],
    a_at: MatrixAt,
    b: &[B],
    b_at: MatrixAt,
    c: &mut [C],
    c_offset: usize,
    m: usize,
    n: usize,
    k: usize,
    parallel: bool,
) {
    // In bounds (tensor-macros lower/products.rs `lower_matmul`, emit/gemm.rs `emit_gemm_block`): the offsets and
    // strides are the operands' views; a batch counter stays below the product's batch
    // extent, which is the operand's own dim there or broadcasts from a missing dim or a
    // literal 1, both stride 0 (issue 37: a sliced size-1 axis kept its view's stride;
    // names never broadcast, shape.rs); a call's `m` rows start at row `i` with
    // `m ≤ M - i`. NOTES.md "Panics in kernels".
    let a = MatRef::new(a, m, k, a_at.row_stride, a_at.col_stride, a_at.offset)
        .expect("lowering builds in-bounds views");
    let b = MatRef::new(b, k, n, b_at.row_stride, b_at.col_stride, b_at.offset)
        .expect("lowering builds in-bounds views");
    // `c` is the product's temp (all `batch·M` rows, or a block of `GEMM_BLOCK_ROWS` rows
    // in a fused stage) and the call's rows `c_offset / n ..` lie inside it.
    let block = &mut c[c_offset..c_offset + m * n];
    C::product(&a, &b, block, n, options(parallel));
}

/// Elements of the buffer [`pack_rhs`] needs for a `k × n` right operand.
pub fn pack_rhs_len<A, B, C: GemmInto<A, B>>(k: usize, n: usize) -> usize {
    C::pack_len(k, n)
}

/// The right operand of a product packed once for every row block and task of a stage
/// (the weight of an MLP layer), into `buf` from the scratch pool; `parallel`: packed on
/// rayon's threads when large. Panics like [`matmul`] on an inconsistent map.
pub fn pack_rhs<'a, A, B, C: GemmInto<A, B>>(
    b: &'a [B],
    b_at: MatrixAt,
    k: usize,
    n: usize,
    buf: &'a mut [C::PackElem],
    parallel: bool,
) -> C::Packed<'a> {
    // In bounds as in `matmul`: packed once per stage only when `b` has no batch stride.
    let b = MatRef::new(b, k, n, b_at.row_stride, b_at.col_stride, b_at.offset)
        .expect("lowering builds in-bounds views");
    C::pack(b, buf, options(parallel))
}

/// [`matmul`] with the right operand from [`pack_rhs`]: rows `m` of `A` at `a_at` times
/// the packed `k × n` operand into the row-major block at `c_offset`.
#[allow(clippy::too_many_arguments)]
pub fn matmul_packed<A, B, C: GemmInto<A, B>>(
    a: &[A],
    a_at: MatrixAt,
    b: &C::Packed<'_>,
    c: &mut [C],
    c_offset: usize,
    m: usize,
    n: usize,
    k: usize,
    parallel: bool,
) {
    // In bounds as in `matmul`.
    let a = MatRef::new(a, m, k, a_at.row_stride, a_at.col_stride, a_at.offset)
        .expect("lowering builds in-bounds views");
    C::product_packed(
        &a,
        b,
        &mut c[c_offset..c_offset + m * n],
        n,
        options(parallel),
    );
}

/// The products whose operands already have the accumulator's type (`f32 · f32 -> f32`,
/// `f64`, `i64`, `u64`), which is every product the graph macro emits today: it converts
/// other operands into an accumulator-typed temp first. The same three entry points as
/// [`matmul`], [`pack_rhs`] and [`matmul_packed`], but not generic: each impl is compiled
/// once, here, so a user's crate calls the GEMM engine instead of instantiating its driver,
/// packing and thread splitting per element type (issue 17: set 2 of the compile-time
/// benchmark compiled 4 copies of the driver). Same arguments, same results.
pub trait PlainGemm: GemmInto<Self, Self> {
    /// [`matmul`] with `A = B = C = Self`.
    #[allow(clippy::too_many_arguments)]
    fn plain_matmul(
        a: &[Self],
        a_at: MatrixAt,
        b: &[Self],
        b_at: MatrixAt,
        c: &mut [Self],
        c_offset: usize,
        m: usize,
        n: usize,
        k: usize,
        parallel: bool,
    );
    /// [`pack_rhs_len`] with `A = B = C = Self`.
    fn plain_pack_rhs_len(k: usize, n: usize) -> usize;
    /// [`pack_rhs`] with `A = B = C = Self`.
    fn plain_pack_rhs<'a>(
        b: &'a [Self],
        b_at: MatrixAt,
        k: usize,
        n: usize,
        buf: &'a mut [Self::PackElem],
        parallel: bool,
    ) -> Self::Packed<'a>;
    /// [`matmul_packed`] with `A = B = C = Self`.
    #[allow(clippy::too_many_arguments)]
    fn plain_matmul_packed(
        a: &[Self],
        a_at: MatrixAt,
        b: &Self::Packed<'_>,
        c: &mut [Self],
        c_offset: usize,
        m: usize,
        n: usize,
        k: usize,
        parallel: bool,
    );
}

macro_rules! plain_gemm {
    ($($t:ty),*) => {$(
        impl PlainGemm for $t {
            fn plain_matmul(
                a: &[$t],
                a_at: MatrixAt,
                b: &[$t],
                b_at: MatrixAt,
                c: &mut [$t],
                c_offset: usize,
                m: usize,
                n: usize,
                k: usize,
                parallel: bool,
            ) {
                matmul::<$t, $t, $t>(a, a_at, b, b_at, c, c_offset, m, n, k, parallel)
            }
            fn plain_pack_rhs_len(k: usize, n: usize) -> usize {
                pack_rhs_len::<$t, $t, $t>(k, n)
            }
            fn plain_pack_rhs<'a>(
                b: &'a [$t],
                b_at: MatrixAt,
                k: usize,
                n: usize,
                buf: &'a mut [<$t as GemmInto<$t, $t>>::PackElem],
                parallel: bool,
            ) -> <$t as GemmInto<$t, $t>>::Packed<'a> {
                pack_rhs::<$t, $t, $t>(b, b_at, k, n, buf, parallel)
            }
            fn plain_matmul_packed(
                a: &[$t],
                a_at: MatrixAt,
                b: &<$t as GemmInto<$t, $t>>::Packed<'_>,
                c: &mut [$t],
                c_offset: usize,
                m: usize,
                n: usize,
                k: usize,
                parallel: bool,
            ) {
                matmul_packed::<$t, $t, $t>(a, a_at, b, c, c_offset, m, n, k, parallel)
            }
        }
    )*};
}
plain_gemm!(f32, f64, i64, u64);

fn options(parallel: bool) -> Options {
    if parallel {
        Options::default()
    } else {
        Options::SINGLE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::f16;

    #[test]
    fn strided_transposed_flipped_and_converted_operands() {
        // a = [[1, 2, 3], [4, 5, 6]] (2×3), b = aᵀ read through strides (3×2).
        let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut c = [0.0f64; 5];
        let at = MatrixAt {
            offset: 0,
            row_stride: 3,
            col_stride: 1,
        };
        let bt = MatrixAt {
            offset: 0,
            row_stride: 1,
            col_stride: 3,
        };
        matmul(&a, at, &a, bt, &mut c, 1, 2, 2, 3, false);
        assert_eq!(c, [0.0, 14.0, 32.0, 32.0, 77.0]);
        // A flipped `a` (rows reversed): offset at the last row, negative row stride; i8
        // operands into i64.
        let flipped = MatrixAt {
            offset: 3,
            row_stride: -3,
            col_stride: 1,
        };
        let ai: Vec<i8> = a.iter().map(|&v| v as i8).collect();
        let mut d = [0i64; 4];
        matmul(&ai, flipped, &ai, bt, &mut d, 0, 2, 2, 3, false);
        assert_eq!(d, [32, 77, 14, 32]);
        // f16 operands into f32.
        let ah: Vec<f16> = a.iter().map(|&v| f16::from_f64(v)).collect();
        let mut e = [0.0f32; 4];
        matmul(&ah, at, &ah, bt, &mut e, 0, 2, 2, 3, true);
        assert_eq!(e, [14.0, 32.0, 32.0, 77.0]);
    }

    #[test]
    fn unsigned_products_wrap_in_64_bits() {
        let a = [u64::MAX, 2];
        let at = MatrixAt {
            offset: 0,
            row_stride: 2,
            col_stride: 1,
        };
        let bt = MatrixAt {
            offset: 0,
            row_stride: 1,
            col_stride: 1,
        };
        let mut c = [0u64; 1];
        matmul(&a, at, &[3u64, 5], bt, &mut c, 0, 1, 1, 2, false);
        assert_eq!(c[0], u64::MAX.wrapping_mul(3).wrapping_add(10));
    }
}
