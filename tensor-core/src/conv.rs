//! The runtime entry of `conv` on the GEMM engine: one call per batch element and group
//! (and block of output channels) of a graph's convolution, `out = W · im2col(x)` with the
//! im2col implicit (gemm/im2col.rs: the packers read the input's windows, zeros for the
//! padding). Generated code (tensor-macros emit/gemm.rs `emit_gemm_block`) passes the
//! weight's and the input's offsets and strides, which lowering derived from their views,
//! and the window, which the checker computed.
//!
//! Not generic over the element type: [`ConvGemm`] is implemented for `f32` and `f64`
//! here, so a user's crate calls the engine compiled once in the runtime (issue 17).

use crate::gemm::{self, Block, ConvInput, ConvWeights, ConvWindow, Im2col, Options};

/// Where the weight of a convolution is: output channel `o`, input channel `c` and kernel
/// index `t` at `offset + o·row_stride + c·col_strides[0] + Σ t_a·col_strides[1 + a]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvWeightAt {
    /// Index of the group's first output channel's first element.
    pub offset: usize,
    /// Elements between output channels.
    pub row_stride: isize,
    /// `[C / group, k0, k1, k2]`: the extents of a weight row.
    pub col_dims: [usize; 4],
    /// Elements between neighbours along each of `col_dims`.
    pub col_strides: [isize; 4],
}

/// Where the input of a convolution's batch element and group is: channel `c`, spatial
/// index `y` at `offset + c·chan_stride + Σ y_a·strides[a]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvInputAt {
    /// Index of the group's first channel's first element.
    pub offset: usize,
    /// Elements between channels.
    pub chan_stride: isize,
    /// Spatial lengths (led by 1s below 3-D).
    pub lens: [usize; 3],
    /// Elements between neighbours along each spatial axis.
    pub strides: [isize; 3],
}

/// Where the bias of a convolution's call is: the bias of the call's output channel `i`
/// (row `i` of its block) at `offset + i·stride` of its slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvBiasAt {
    /// Index of the bias of the call's first output channel.
    pub offset: usize,
    /// Elements between the biases of neighbouring output channels.
    pub stride: isize,
}

/// The element types of convolutions on the GEMM engine.
pub trait ConvGemm: Sized {
    /// `c[c_offset..][i × n + j] = Σ_p w(i, p) · im2col(x)(p, j) (+ bias(i))` for the `m`
    /// output channels at `w_at`, `n` output positions, `k = C/group · K` products: the
    /// `m × n` row-major block at `c_offset` is overwritten. The bias, if any, is added to
    /// each finished sum (`fl(Σ + bias(i))`, the value of `conv + b` computed after the
    /// product) while its tile or block is in cache. `parallel`: the engine may split the
    /// rows across threads.
    ///
    /// Panics (never reads or writes out of bounds) if an operand's map leaves its slice
    /// or the block does not fit in `c`: generated code builds only consistent calls.
    #[allow(clippy::too_many_arguments)]
    fn conv_gemm(
        w: &[Self],
        w_at: ConvWeightAt,
        x: &[Self],
        x_at: ConvInputAt,
        window: ConvWindow,
        bias: Option<(&[Self], ConvBiasAt)>,
        c: &mut [Self],
        c_offset: usize,
        mnk: (usize, usize, usize),
        parallel: bool,
    );
}

/// Bytes of a packed `B` block a convolution's product aims for: half of L2 on the
/// machines of BENCHMARKS.md (2 MiB), leaving room for the packed weight and the output
/// tile rows. Under Miri 4 KiB, so that the tests' small products still cross chunks.
const B_BLOCK_BYTES: usize = if cfg!(miri) { 1 << 12 } else { 1 << 20 };

/// Output positions per product: `B_BLOCK_BYTES` of `k`-long columns of `elem` bytes,
/// a multiple of 64 (the widest micro-tile is 32), at least 64.
fn chunk_columns(k: usize, elem: usize) -> usize {
    (B_BLOCK_BYTES / (k.max(1) * elem))
        .next_multiple_of(64)
        .max(64)
}

/// Whether a weight row's axes `[C, k0, k1, k2]` are row-major and contiguous (axes of
/// length 1 aside): the row is then `k` consecutive elements.
fn contiguous(dims: [usize; 4], strides: [isize; 4]) -> bool {
    let mut expect = 1isize;
    for a in (0..4).rev() {
        if dims[a] != 1 && strides[a] != expect {
            return false;
        }
        expect = expect.saturating_mul(dims[a] as isize);
    }
    true
}

/// The f64 convolutions have no shifted path (gemm/shifted.rs is f32 on AVX-512F).
fn no_shifted_path<S>(
    _: &S,
    _: &Im2col<'_, f64>,
    _: Option<&[f64]>,
    _: &mut [f64],
    _: Options,
) -> bool {
    false
}

/// The call's `m` biases, gathered from their strided places: a checked index per
/// channel, so a map outside the slice panics (never reads outside it).
fn gather_bias<T: Copy>((data, at): (&[T], ConvBiasAt), m: usize) -> Vec<T> {
    (0..m)
        .map(|i| {
            let index = (i as isize)
                .checked_mul(at.stride)
                .and_then(|d| at.offset.checked_add_signed(d))
                .expect("lowering builds in-bounds views");
            data[index]
        })
        .collect()
}

macro_rules! conv_gemm {
    ($t:ty, $product:ident, $shifted:path) => {
        impl ConvGemm for $t {
            fn conv_gemm(
                w: &[$t],
                w_at: ConvWeightAt,
                x: &[$t],
                x_at: ConvInputAt,
                window: ConvWindow,
                bias: Option<(&[$t], ConvBiasAt)>,
                c: &mut [$t],
                c_offset: usize,
                (m, n, k): (usize, usize, usize),
                parallel: bool,
            ) {
                // In bounds (tensor-macros lower/products.rs `lower_conv`): the offsets and
                // strides are the operands' views at a batch index and group below their
                // extents, the call's `m` rows start at a row of the group with `m` ≤ the
                // rows left in it; the window's output lengths are the node's (checked
                // by the checker's `Windows::plan`). The sources check every element they
                // can name against their slices anyway.
                let a = ConvWeights::new(
                    w,
                    w_at.offset,
                    (m, w_at.row_stride),
                    w_at.col_dims,
                    w_at.col_strides,
                )
                .expect("lowering builds in-bounds views");
                let input = ConvInput {
                    data: x,
                    offset: x_at.offset,
                    channels: w_at.col_dims[0],
                    chan_stride: x_at.chan_stride,
                    lens: x_at.lens,
                    strides: x_at.strides,
                };
                let b = Im2col::new(input, window).expect("lowering builds in-bounds views");
                let block = &mut c[c_offset..c_offset + m * n];
                let options = if parallel {
                    Options::default()
                } else {
                    Options::SINGLE
                };
                debug_assert_eq!(k, window.taps() * w_at.col_dims[0]);
                // A weight whose rows are contiguous (every graph's, unless pitched) is a
                // plain matrix: `MatRef`'s panel packing is the engine's fastest.
                let flat = contiguous(w_at.col_dims, w_at.col_strides)
                    .then(|| gemm::MatRef::new(w, m, k, w_at.row_stride, 1, w_at.offset))
                    .and_then(Result::ok);
                // A "same" convolution of stride 1 (every im2col row a shifted copy of the
                // input), or a strided one through a copy of its input's stride phases,
                // packs one micro-panel at a time (gemm/shifted.rs), f32 on AVX-512F; the
                // others take the chunked product below.
                let bias = bias.map(|at| gather_bias(at, m));
                let bias = bias.as_deref();
                let shifted = match &flat {
                    Some(a) => $shifted(a, &b, bias, block, options),
                    None => $shifted(&a, &b, bias, block, options),
                };
                if shifted {
                    return;
                }
                // The engine hands each finished block of `C` to the epilogue (never
                // written again), so the bias goes on the finished sums, in cache.
                let add_bias = |mut blk: Block<'_, $t>| {
                    if let Some(bias) = bias {
                        blk.for_each_row(|i, _, row| {
                            for v in row {
                                *v += bias[i];
                            }
                        });
                    }
                };
                // One product per chunk of output positions, so that the packed `B`
                // block (`k × chunk`) stays in L2 between its packing and its use.
                let chunk = chunk_columns(k, core::mem::size_of::<$t>());
                for j0 in (0..n).step_by(chunk) {
                    let part = b.columns(j0, chunk);
                    // Cannot fail: `k` is `C/group · K` on both sides, `ldc = n ≥` the
                    // chunk's columns, and the block from `j0` holds `(m - 1)·n + chunk`
                    // elements at least.
                    let c = &mut block[j0..];
                    match &flat {
                        Some(a) => gemm::$product(a, &part, c, n, options, &add_bias),
                        None => gemm::$product(&a, &part, c, n, options, &add_bias),
                    }
                    .expect("lowering builds consistent products");
                }
            }
        }
    };
}
conv_gemm!(f32, matmul_f32_with, gemm::try_conv_f32);
conv_gemm!(f64, matmul_f64_with, no_shifted_path);
