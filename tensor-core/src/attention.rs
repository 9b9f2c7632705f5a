//! Scaled dot-product attention in tiles with an online softmax (docs/language.md,
//! "Attention"; ONNX `Attention`, opset 23): for each batch, query head and tile of query
//! rows, the key/value tiles are visited once; each tile's scores `Q·Kᵀ` (a GEMM on the
//! engine of [`crate::gemm`]) are scaled, soft-capped, masked, turned into `exp(s - max)`
//! with the running maximum of the row, and their product with the value tile (a second
//! GEMM) is added to the row's accumulator after rescaling it by `exp(old max - new max)`.
//! No `S × S` matrix exists: the extra memory is a few tiles per call (the thread's scratch
//! pool, so a repeated call allocates nothing).
//!
//! The semantics are ONNX's reference: `softcap · tanh(s / softcap)` on the scaled scores
//! before the mask; a boolean mask is `-inf` where `false`, a float mask is added; with
//! `causal`, query `i` sees key `j ≤ i + (kv_len - q_len)` (bottom-right aligned, a past
//! cache before the queries); grouped-query heads share a key/value head
//! (`q_head / (q_heads / kv_heads)`). A row whose every key is masked is 0 (ONNX).

use crate::gemm::{self, MatRef, Options};
use crate::scratch::ScratchVec;

/// The sizes of one attention call: `q` is `[batch, q_heads, q_len, head_dim]`, `k`
/// `[batch, kv_heads, kv_len, head_dim]`, `v` `[batch, kv_heads, kv_len, v_dim]` and the
/// output `[batch, q_heads, q_len, v_dim]`, all row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionShape {
    /// Batch.
    pub batch: usize,
    /// Query heads.
    pub q_heads: usize,
    /// Key/value heads (divides `q_heads`).
    pub kv_heads: usize,
    /// Query rows.
    pub q_len: usize,
    /// Key rows.
    pub kv_len: usize,
    /// The query/key row length.
    pub head_dim: usize,
    /// The value row length.
    pub v_dim: usize,
}

/// A mask over the scores `[batch, q_heads, q_len, kv_len]`, broadcast: element `(b, h, i,
/// j)` is `data[b·s[0] + h·s[1] + i·s[2] + j·s[3]]` (a stride of 0 on a broadcast axis).
#[derive(Clone, Copy, Debug)]
pub enum AttentionMask<'a, T> {
    /// No mask.
    None,
    /// `false`: the key takes no part.
    Bool(&'a [bool], [usize; 4]),
    /// Added to the scaled (and soft-capped) scores.
    Add(&'a [T], [usize; 4]),
}

impl AttentionShape {
    /// Where batch `b`, query head `h` start in `q`, `k`, `v` and the output (its key/value
    /// head is `h / (q_heads / kv_heads)`).
    fn head_bases(&self, b: usize, h: usize) -> [usize; 4] {
        let kv = h / (self.q_heads / self.kv_heads);
        [
            (b * self.q_heads + h) * self.q_len * self.head_dim,
            (b * self.kv_heads + kv) * self.kv_len * self.head_dim,
            (b * self.kv_heads + kv) * self.kv_len * self.v_dim,
            (b * self.q_heads + h) * self.q_len * self.v_dim,
        ]
    }
}

/// What a call does besides the product: `scale` multiplies the scores (ONNX's default is
/// `1 / sqrt(head_dim)`), `softcap > 0` caps them, `causal` masks the future.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttentionOptions {
    /// The scores' scale.
    pub scale: f64,
    /// `softcap · tanh(s / softcap)` when positive.
    pub softcap: f64,
    /// Query `i` sees keys `j ≤ i + kv_len - q_len` only.
    pub causal: bool,
}

/// The float types attention runs in (the compute types of its dtypes).
pub trait AttentionFloat:
    Copy + Default + PartialOrd + Send + Sync + crate::scratch::Scratch
{
    /// [`attention`] after its checks: shapes and buffers agree.
    #[doc(hidden)]
    fn attend(
        q: &[Self],
        k: &[Self],
        v: &[Self],
        mask: AttentionMask<'_, Self>,
        out: &mut [Self],
        shape: AttentionShape,
        options: AttentionOptions,
    );
}

impl AttentionFloat for f32 {
    fn attend(
        q: &[f32],
        k: &[f32],
        v: &[f32],
        mask: AttentionMask<'_, f32>,
        out: &mut [f32],
        shape: AttentionShape,
        options: AttentionOptions,
    ) {
        attention_f32(q, k, v, mask, out, shape, options);
    }
}

impl AttentionFloat for f64 {
    fn attend(
        q: &[f64],
        k: &[f64],
        v: &[f64],
        mask: AttentionMask<'_, f64>,
        out: &mut [f64],
        shape: AttentionShape,
        options: AttentionOptions,
    ) {
        attention_f64(q, k, v, mask, out, shape, options);
    }
}

/// Attention over `q`, `k`, `v` into `out` (shapes in [`AttentionShape`]). Buffers shorter
/// than their shapes or a `kv_heads` that does not divide `q_heads` write nothing (generated
/// code passes buffers its shapes were checked against).
pub fn attention<T: AttentionFloat>(
    q: &[T],
    k: &[T],
    v: &[T],
    mask: AttentionMask<'_, T>,
    out: &mut [T],
    shape: AttentionShape,
    options: AttentionOptions,
) {
    let AttentionShape {
        batch,
        q_heads,
        kv_heads,
        q_len,
        kv_len,
        head_dim,
        v_dim,
    } = shape;
    let fits = |len: usize, dims: [usize; 4]| {
        dims.iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .is_some_and(|n| n <= len)
    };
    if kv_heads == 0
        || q_heads % kv_heads != 0
        || !fits(q.len(), [batch, q_heads, q_len, head_dim])
        || !fits(k.len(), [batch, kv_heads, kv_len, head_dim])
        || !fits(v.len(), [batch, kv_heads, kv_len, v_dim])
        || !fits(out.len(), [batch, q_heads, q_len, v_dim])
    {
        return;
    }
    T::attend(q, k, v, mask, out, shape, options);
}

/// The last key a tile of query rows `i0..i0 + tq` sees with `causal` (bottom-right
/// alignment: `offset = kv_len - q_len`), cutting a key tile `j0..j0 + tk`: the keys of the
/// tile to compute (0: this and every later key tile are masked for all the rows).
fn causal_cut(causal: bool, i0: usize, tq: usize, j0: usize, tk: usize, offset: i64) -> usize {
    if !causal {
        return tk;
    }
    let last = (i0 + tq - 1) as i64 + offset;
    if j0 as i64 > last {
        0
    } else {
        tk.min((last - j0 as i64 + 1) as usize)
    }
}

// ---------------------------------------------------------------------------------------
// f32: the scores transposed, softmax in f32 lanes across query rows.

/// The f32 lanes of the score loop: 16 (one zmm register) on AVX-512 builds, else 8; their
/// `exp` is softmax's `exp_nonpos` (every argument is `x - max ≤ 0`), ≤ 1 ulp.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
mod lanes32 {
    pub type L = wide::f32x16;
    pub const N: usize = 16;
    #[inline(always)]
    pub fn exp_nonpos(x: L) -> L {
        crate::vmath::x16::exp_nonpos_f32x16(x)
    }
    #[inline(always)]
    pub fn tanh(x: L) -> L {
        crate::vmath::x16::tanh_f32x16(x)
    }
}
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
mod lanes32 {
    pub type L = wide::f32x8;
    pub const N: usize = 8;
    #[inline(always)]
    pub fn exp_nonpos(x: L) -> L {
        crate::vmath::exp_nonpos_f32(x)
    }
    #[inline(always)]
    pub fn tanh(x: L) -> L {
        crate::vmath::tanh_f32(x)
    }
}
use lanes32::{L as F32Lanes, N as LANES};

#[inline(always)]
fn load32(x: &[f32]) -> F32Lanes {
    F32Lanes::from(<[f32; LANES]>::try_from(&x[..LANES]).expect("a whole vector"))
}

/// The online softmax of `NC` vectors of query rows (lanes `c0..c0 + NC·LANES` of every key
/// row of the transposed tile `s`, row length `ld`): the tile's maximum per query row, the
/// new running maximum (`row_max`) and the old state's rescaling factor (`alphas`), then
/// `exp(x - max)` in place and its compensated sum into `row_sum` (rescaled first). With
/// `FOLD`, `s` holds unscaled scores and `scale > 0` is applied inside the exponent.
#[inline(always)]
fn softmax_lanes<const NC: usize, const FOLD: bool>(
    s: &mut [f32],
    ld: usize,
    c0: usize,
    scale: f32,
    (row_max, row_sum, alphas): (&mut [f32], &mut [f64], &mut [f32]),
) {
    let neg_inf = F32Lanes::splat(f32::NEG_INFINITY);
    let zero = F32Lanes::splat(0.0);
    let sc = F32Lanes::splat(scale);
    let mut top = [neg_inf; NC];
    for line in s.chunks_exact(ld) {
        for (c, t) in top.iter_mut().enumerate() {
            *t = t.fast_max(load32(&line[c0 + c * LANES..]));
        }
    }
    let mut shift = [zero; NC];
    let mut alpha = [zero; NC];
    for c in 0..NC {
        let at = c0 + c * LANES;
        let t = if FOLD { top[c] * sc } else { top[c] };
        let old = load32(&row_max[at..]);
        let new = old.max(t);
        // A row that has seen no key yet keeps max -inf; its shift is 0, so its p (all
        // exp(-inf)) and its alpha are 0.
        shift[c] = new.simd_eq(neg_inf).select(zero, new);
        alpha[c] = lanes32::exp_nonpos(old - shift[c]);
        row_max[at..at + LANES].copy_from_slice(new.as_array());
        alphas[at..at + LANES].copy_from_slice(alpha[c].as_array());
    }
    let (mut sum, mut comp) = ([zero; NC], [zero; NC]);
    for line in s.chunks_exact_mut(ld) {
        for c in 0..NC {
            let at = c0 + c * LANES;
            let x = load32(&line[at..]);
            let p = lanes32::exp_nonpos(if FOLD {
                x.mul_sub(sc, shift[c])
            } else {
                x - shift[c]
            });
            line[at..at + LANES].copy_from_slice(p.as_array());
            let y = p - comp[c];
            let t = sum[c] + y;
            comp[c] = (t - sum[c]) - y;
            sum[c] = t;
        }
    }
    for c in 0..NC {
        let at = c0 + c * LANES;
        for (l, (&sv, &a)) in row_sum[at..at + LANES]
            .iter_mut()
            .zip(sum[c].as_array().iter().zip(alpha[c].as_array()))
        {
            *l = *l * a as f64 + sv as f64;
        }
    }
}

/// Query rows per tile (f32): a multiple of every lane count. Measured (thread CPU time, one
/// thread, AVX-512, B=1 H=12 D=64 causal, min of 4-8 calls): 32×128 16.8 / 59.5 ms at
/// S=1024 / 2048, 48×128 17.6 / 60.6, 64×128 18.7 / 64.9, 128×128 20.9 / 69.6, 64×64
/// 19.2 / -, 32×256 21.0 / 83.8, 16×128 21.6 / 80.1.
/// The element of a mask with strides `st` for batch `b`, head `h`, query `i`, key `j`.
fn mask_at(st: [usize; 4], b: usize, h: usize, i: usize, j: usize) -> usize {
    b * st[0] + h * st[1] + i * st[2] + j * st[3]
}

/// `acc = acc · alpha + pv`, row by row (`v_dim` wide): a tile's `P·V` added to the rows'
/// accumulators after rescaling them to the new running maximum.
fn rescale_and_add<T: Copy + core::ops::Mul<Output = T> + core::ops::Add<Output = T>>(
    acc: &mut [T],
    pv: &[T],
    alphas: &[T],
    v_dim: usize,
) {
    for (r, &alpha) in alphas.iter().enumerate() {
        let rows = r * v_dim..(r + 1) * v_dim;
        acc[rows.clone()]
            .iter_mut()
            .zip(&pv[rows])
            .for_each(|(a, &p)| *a = *a * alpha + p);
    }
}

const Q_TILE_32: usize = 32;
/// Key rows per tile (f32).
const K_TILE_32: usize = 128;

/// f32 attention. Per tile of `tq` query rows, `Qᵀ` is copied once (`head_dim × tq`); each
/// key tile's scores come transposed, `Sᵀ = K_tile · Qᵀ` (`tk × tq`, keys down, queries
/// across), so both products read their operands in place on the GEMM engine's unpacked
/// AVX-512 path (`Sᵀ`'s `B` and `P·V`'s `B` have contiguous rows) and the softmax runs with
/// one query row per lane: the running maximum, `exp(x - max)` and the sum are lane-wise
/// over the key rows, with no horizontal reduction. A causal tile on the diagonal is cut at
/// the tile's last visible key, and each key row's hidden queries (a prefix of the row) are
/// set to `-inf`; no other tile is masked.
///
/// Row statistics: the running maximum is exact (a maximum of f32 scores); each tile's
/// row sum is a compensated (Kahan) sum in f32 lanes, `|error| ≤ 2u·Σp + O(tk·u²)` with
/// `u = 2⁻²⁴`, added into an f64 total; the rescaling factor `exp(old - new)` (≤ 1 ulp)
/// multiplies the total and the accumulator alike, so its error cancels in their ratio.
fn attention_f32(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    mask: AttentionMask<'_, f32>,
    out: &mut [f32],
    shape: AttentionShape,
    options: AttentionOptions,
) {
    attention_f32_tiles(q, k, v, mask, out, shape, options, (Q_TILE_32, K_TILE_32));
}

/// [`attention_f32`] with tiles of `qtile` query rows (a multiple of the lane count, at
/// most 128) and `ktile` keys.
///
/// One function of ~180 lines on purpose (issue 34's bound is ~150): every phase of the
/// key-tile loop (scores, scale/cap/mask, running maximum and rescale, `exp`, the `P·V`
/// product) reads and writes the same per-row state and tile buffers, so a split passes
/// them all to each part; it is the hot loop of `benches/models.rs`'s attention, to be
/// split only with that benchmark run beside it on a quiet machine.
#[allow(clippy::too_many_arguments)]
fn attention_f32_tiles(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    mask: AttentionMask<'_, f32>,
    out: &mut [f32],
    shape: AttentionShape,
    options: AttentionOptions,
    (qtile, ktile): (usize, usize),
) {
    debug_assert!(qtile <= 128 && qtile % LANES == 0);
    let AttentionShape {
        batch,
        q_heads,
        kv_heads: _,
        q_len,
        kv_len,
        head_dim,
        v_dim,
    } = shape;
    let offset = kv_len as i64 - q_len as i64;
    let scale = options.scale as f32;
    // Without softcap or mask, and with a positive scale, the scale is folded into the
    // exponent (`exp(x·scale - max)`, one FMA): max(x·scale) = max(x)·scale.
    let folded = options.softcap <= 0.0 && matches!(mask, AttentionMask::None) && scale > 0.0;
    let mut qt = ScratchVec::<f32>::new(head_dim.max(1) * qtile, 0.0);
    let mut st = ScratchVec::<f32>::new(ktile * qtile, 0.0);
    let mut acc = ScratchVec::<f32>::new(qtile * v_dim.max(1), 0.0);
    let mut pv = ScratchVec::<f32>::new(qtile * v_dim.max(1), 0.0);
    let mut row_max = [f32::NEG_INFINITY; 128];
    let mut row_sum = [0.0f64; 128];
    let mut alphas = [1.0f32; 128];
    for b in 0..batch {
        for h in 0..q_heads {
            let [q_base, k_base, v_base, o_base] = shape.head_bases(b, h);
            for i0 in (0..q_len).step_by(qtile) {
                let tq = qtile.min(q_len - i0);
                // The lanes' row length: `tq` rounded up to whole vectors (the padding
                // columns hold stale finite values and are never read back).
                let ld = tq.div_ceil(LANES) * LANES;
                for r in 0..tq {
                    let row = &q[q_base + (i0 + r) * head_dim..q_base + (i0 + r + 1) * head_dim];
                    for (d, &x) in row.iter().enumerate() {
                        qt[d * ld + r] = x;
                    }
                }
                row_max.fill(f32::NEG_INFINITY);
                row_sum.fill(0.0);
                acc[..tq * v_dim].fill(0.0);
                for j0 in (0..kv_len).step_by(ktile) {
                    let tk = causal_cut(options.causal, i0, tq, j0, ktile.min(kv_len - j0), offset);
                    if tk == 0 {
                        break;
                    }
                    let s = &mut st[..tk * ld];
                    if head_dim == 0 {
                        s.fill(0.0);
                    } else {
                        let (Ok(ka), Ok(qb)) = (
                            MatRef::new(
                                k,
                                tk,
                                head_dim,
                                head_dim as isize,
                                1,
                                k_base + j0 * head_dim,
                            ),
                            MatRef::new(&qt[..head_dim * ld], head_dim, tq, ld as isize, 1, 0),
                        ) else {
                            return;
                        };
                        // The views lie inside their buffers and `s` holds `tk × ld`: the
                        // engine's checks pass.
                        let _ = gemm::matmul_f32_with(&ka, &qb, s, ld, Options::SINGLE, &|_| {});
                    }
                    if !folded {
                        for (r, line) in s.chunks_exact_mut(ld).enumerate() {
                            let cap = options.softcap as f32;
                            let (capv, inv, sc) = (
                                F32Lanes::splat(cap),
                                F32Lanes::splat((1.0 / options.softcap) as f32),
                                F32Lanes::splat(scale),
                            );
                            for chunk in line.chunks_exact_mut(LANES) {
                                let mut x = load32(chunk) * sc;
                                if options.softcap > 0.0 {
                                    x = capv * lanes32::tanh(x * inv);
                                }
                                chunk.copy_from_slice(x.as_array());
                            }
                            let j = j0 + r;
                            match mask {
                                AttentionMask::None => {}
                                AttentionMask::Bool(m, stv) => {
                                    for (c, x) in line[..tq].iter_mut().enumerate() {
                                        if !m[mask_at(stv, b, h, i0 + c, j)] {
                                            *x = f32::NEG_INFINITY;
                                        }
                                    }
                                }
                                AttentionMask::Add(m, stv) => {
                                    for (c, x) in line[..tq].iter_mut().enumerate() {
                                        *x = masked_add(*x, m[mask_at(stv, b, h, i0 + c, j)]);
                                    }
                                }
                            }
                        }
                    }
                    if options.causal {
                        // Key `j` is hidden from query rows `i < j - offset`: a prefix of
                        // its line, growing down the tile (only tiles that reach past the
                        // first row's diagonal have any).
                        let first =
                            (offset + i0 as i64 - j0 as i64 + 1).clamp(0, tk as i64) as usize;
                        for (r, line) in s.chunks_exact_mut(ld).enumerate().skip(first) {
                            let hidden =
                                ((j0 + r) as i64 - offset - i0 as i64).clamp(0, tq as i64) as usize;
                            line[..hidden].fill(f32::NEG_INFINITY);
                        }
                    }
                    // Up to four vectors of query rows at a time (independent chains for
                    // the maximum and the compensated sum, one pass down the tile each).
                    let vectors = ld / LANES;
                    for g in (0..vectors).step_by(4) {
                        let state = (&mut row_max[..ld], &mut row_sum[..ld], &mut alphas[..ld]);
                        let c0 = g * LANES;
                        match ((vectors - g).min(4), folded) {
                            (4, true) => softmax_lanes::<4, true>(s, ld, c0, scale, state),
                            (4, false) => softmax_lanes::<4, false>(s, ld, c0, scale, state),
                            (3, true) => softmax_lanes::<3, true>(s, ld, c0, scale, state),
                            (3, false) => softmax_lanes::<3, false>(s, ld, c0, scale, state),
                            (2, true) => softmax_lanes::<2, true>(s, ld, c0, scale, state),
                            (2, false) => softmax_lanes::<2, false>(s, ld, c0, scale, state),
                            (_, true) => softmax_lanes::<1, true>(s, ld, c0, scale, state),
                            (_, false) => softmax_lanes::<1, false>(s, ld, c0, scale, state),
                        }
                    }
                    if v_dim == 0 {
                        continue;
                    }
                    let (Ok(pa), Ok(vb)) = (
                        MatRef::new(&st[..tk * ld], tq, tk, 1, ld as isize, 0),
                        MatRef::new(v, tk, v_dim, v_dim as isize, 1, v_base + j0 * v_dim),
                    ) else {
                        return;
                    };
                    let _ = gemm::matmul_f32_with(
                        &pa,
                        &vb,
                        &mut pv[..tq * v_dim],
                        v_dim,
                        Options::SINGLE,
                        &|_| {},
                    );
                    rescale_and_add(
                        &mut acc[..tq * v_dim],
                        &pv[..tq * v_dim],
                        &alphas[..tq],
                        v_dim,
                    );
                }
                for r in 0..tq {
                    let row = &mut out[o_base + (i0 + r) * v_dim..o_base + (i0 + r + 1) * v_dim];
                    let sum = row_sum[r];
                    // A row with every key masked sums to 0 and is 0 (ONNX); a NaN sum (a
                    // NaN or +inf score among the keys it sees) makes the row NaN.
                    if sum != 0.0 {
                        let inv = (1.0 / sum) as f32;
                        row.iter_mut()
                            .zip(&acc[r * v_dim..(r + 1) * v_dim])
                            .for_each(|(o, &a)| *o = a * inv);
                    } else {
                        // A row with every key masked is 0 (ONNX).
                        row.fill(0.0);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// f64: row by row, in f64.

/// Query rows per tile and key rows per tile (f64).
const Q_TILE: usize = 64;
const K_TILE: usize = 128;

/// A score plus its additive mask value, where a mask value of −∞ masks the key whatever
/// the score: a boolean mask arrives as 0 / −∞ and must hide a key whose score overflowed
/// to +∞ (`+∞ + −∞` would be NaN and poison the row), as JAX's and PyTorch's `where`.
#[inline]
fn masked_add<F: Copy + PartialEq + std::ops::Add<Output = F> + NegInf>(x: F, m: F) -> F {
    if m == F::NEG_INF {
        m
    } else {
        x + m
    }
}

/// −∞ of a float type.
trait NegInf {
    const NEG_INF: Self;
}
impl NegInf for f32 {
    const NEG_INF: f32 = f32::NEG_INFINITY;
}
impl NegInf for f64 {
    const NEG_INF: f64 = f64::NEG_INFINITY;
}

/// f64 attention: `S = Q·Kᵀ` per tile on the GEMM engine, each row scaled, soft-capped and
/// masked in f64, `exp` in f64 lanes, the row's statistics in f64. Long (~165 lines) for
/// the reason [`attention_f32_tiles`] gives: its phases share one row state.
fn attention_f64(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    mask: AttentionMask<'_, f64>,
    out: &mut [f64],
    shape: AttentionShape,
    options: AttentionOptions,
) {
    let AttentionShape {
        batch,
        q_heads,
        kv_heads: _,
        q_len,
        kv_len,
        head_dim,
        v_dim,
    } = shape;
    let offset = kv_len as i64 - q_len as i64;
    let (scale, softcap) = (options.scale, options.softcap);
    let mut scores = ScratchVec::<f64>::new(Q_TILE * K_TILE, 0.0);
    let mut acc = ScratchVec::<f64>::new(Q_TILE * v_dim.max(1), 0.0);
    let mut pv = ScratchVec::<f64>::new(Q_TILE * v_dim.max(1), 0.0);
    let mut row_max = [f64::NEG_INFINITY; Q_TILE];
    let mut row_sum = [0.0f64; Q_TILE];
    let mut alphas = [1.0f64; Q_TILE];
    for b in 0..batch {
        for h in 0..q_heads {
            let [q_base, k_base, v_base, o_base] = shape.head_bases(b, h);
            for i0 in (0..q_len).step_by(Q_TILE) {
                let tq = Q_TILE.min(q_len - i0);
                row_max[..tq].fill(f64::NEG_INFINITY);
                row_sum[..tq].fill(0.0);
                acc[..tq * v_dim].fill(0.0);
                for j0 in (0..kv_len).step_by(K_TILE) {
                    let tk =
                        causal_cut(options.causal, i0, tq, j0, K_TILE.min(kv_len - j0), offset);
                    if tk == 0 {
                        break;
                    }
                    let s = &mut scores[..tq * tk];
                    if head_dim == 0 {
                        s.fill(0.0);
                    } else {
                        let (Ok(qa), Ok(kb)) = (
                            MatRef::new(
                                q,
                                tq,
                                head_dim,
                                head_dim as isize,
                                1,
                                q_base + i0 * head_dim,
                            ),
                            MatRef::new(
                                k,
                                head_dim,
                                tk,
                                1,
                                head_dim as isize,
                                k_base + j0 * head_dim,
                            ),
                        ) else {
                            return;
                        };
                        let _ = gemm::matmul_f64_with(&qa, &kb, s, tk, Options::SINGLE, &|_| {});
                    }
                    for r in 0..tq {
                        let i = i0 + r;
                        let line = &mut s[r * tk..(r + 1) * tk];
                        // Causal: keys `j ≤ i + offset` only (the diagonal tile's rows).
                        let visible = if options.causal {
                            (i as i64 + offset - j0 as i64 + 1).clamp(0, tk as i64) as usize
                        } else {
                            tk
                        };
                        let (seen, hidden) = line.split_at_mut(visible);
                        hidden.fill(0.0);
                        let mut best = f64::NEG_INFINITY;
                        for (c, slot) in seen.iter_mut().enumerate() {
                            let j = j0 + c;
                            let mut x = *slot * scale;
                            if softcap > 0.0 {
                                x = softcap * (x / softcap).tanh();
                            }
                            match mask {
                                AttentionMask::None => {}
                                AttentionMask::Bool(m, st) => {
                                    if !m[mask_at(st, b, h, i, j)] {
                                        x = f64::NEG_INFINITY;
                                    }
                                }
                                AttentionMask::Add(m, st) => {
                                    x = masked_add(x, m[mask_at(st, b, h, i, j)])
                                }
                            }
                            // A NaN score (not masked) is kept as the maximum: its row is NaN.
                            best = if x > best || x.is_nan() { x } else { best };
                            *slot = x;
                        }
                        let new_max = if best > row_max[r] || best.is_nan() {
                            best
                        } else {
                            row_max[r]
                        };
                        if new_max == f64::NEG_INFINITY {
                            // Nothing seen yet in this row: its probabilities are all 0.
                            seen.fill(0.0);
                            alphas[r] = 1.0;
                            continue;
                        }
                        let shift = wide::f64x8::splat(new_max);
                        let mut chunks = seen.chunks_exact_mut(8);
                        for chunk in &mut chunks {
                            let x =
                                wide::f64x8::from(<[f64; 8]>::try_from(&*chunk).expect("8 lanes"));
                            chunk.copy_from_slice(&crate::vmath::exp_f64(x - shift).to_array());
                        }
                        let rest = chunks.into_remainder();
                        if !rest.is_empty() {
                            let mut lanes = [f64::NEG_INFINITY; 8];
                            lanes[..rest.len()].copy_from_slice(rest);
                            let e =
                                crate::vmath::exp_f64(wide::f64x8::from(lanes) - shift).to_array();
                            rest.copy_from_slice(&e[..rest.len()]);
                        }
                        let alpha = (row_max[r] - new_max).exp();
                        row_max[r] = new_max;
                        row_sum[r] = row_sum[r] * alpha + seen.iter().sum::<f64>();
                        alphas[r] = alpha;
                    }
                    if v_dim == 0 {
                        continue;
                    }
                    let (Ok(pa), Ok(vb)) = (
                        MatRef::new(&scores[..tq * tk], tq, tk, tk as isize, 1, 0),
                        MatRef::new(v, tk, v_dim, v_dim as isize, 1, v_base + j0 * v_dim),
                    ) else {
                        return;
                    };
                    let _ = gemm::matmul_f64_with(
                        &pa,
                        &vb,
                        &mut pv[..tq * v_dim],
                        v_dim,
                        Options::SINGLE,
                        &|_| {},
                    );
                    rescale_and_add(
                        &mut acc[..tq * v_dim],
                        &pv[..tq * v_dim],
                        &alphas[..tq],
                        v_dim,
                    );
                }
                for r in 0..tq {
                    let row = &mut out[o_base + (i0 + r) * v_dim..o_base + (i0 + r + 1) * v_dim];
                    let sum = row_sum[r];
                    for (o, &a) in row.iter_mut().zip(&acc[r * v_dim..(r + 1) * v_dim]) {
                        // A row with every key masked is 0 (ONNX); a NaN sum gives NaN.
                        *o = if sum != 0.0 { a / sum } else { 0.0 };
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ONNX's reference, written out in f64 with the whole score matrix.
    #[allow(clippy::too_many_arguments)]
    fn naive(
        q: &[f64],
        k: &[f64],
        v: &[f64],
        mask: &dyn Fn(usize, usize, usize, usize) -> f64,
        s: AttentionShape,
        o: AttentionOptions,
    ) -> Vec<f64> {
        let g = s.q_heads / s.kv_heads;
        let mut out = vec![0.0; s.batch * s.q_heads * s.q_len * s.v_dim];
        for b in 0..s.batch {
            for h in 0..s.q_heads {
                let kv = h / g;
                for i in 0..s.q_len {
                    let mut scores = vec![0.0; s.kv_len];
                    for (j, sc) in scores.iter_mut().enumerate() {
                        let mut x = 0.0;
                        for d in 0..s.head_dim {
                            x += q[((b * s.q_heads + h) * s.q_len + i) * s.head_dim + d]
                                * k[((b * s.kv_heads + kv) * s.kv_len + j) * s.head_dim + d];
                        }
                        x *= o.scale;
                        if o.softcap > 0.0 {
                            x = o.softcap * (x / o.softcap).tanh();
                        }
                        x += mask(b, h, i, j);
                        if o.causal && j as i64 > i as i64 + s.kv_len as i64 - s.q_len as i64 {
                            x = f64::NEG_INFINITY;
                        }
                        *sc = x;
                    }
                    let m = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    if m == f64::NEG_INFINITY {
                        continue;
                    }
                    let p: Vec<f64> = scores.iter().map(|x| (x - m).exp()).collect();
                    let z: f64 = p.iter().sum();
                    for c in 0..s.v_dim {
                        let mut a = 0.0;
                        for (j, pj) in p.iter().enumerate() {
                            a += pj * v[((b * s.kv_heads + kv) * s.kv_len + j) * s.v_dim + c];
                        }
                        out[((b * s.q_heads + h) * s.q_len + i) * s.v_dim + c] = a / z;
                    }
                }
            }
        }
        out
    }

    fn data(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn tiles_agree_with_the_whole_matrix() {
        let cases = [
            (1, 1, 1, 1, 1, 1, 1, false, 0.0),
            (2, 4, 2, 5, 7, 8, 3, false, 0.0),
            (1, 2, 2, 70, 200, 16, 16, true, 0.0),
            (1, 3, 1, 33, 33, 8, 8, true, 2.5),
            (2, 2, 1, 3, 130, 4, 5, true, 0.0),
            (1, 1, 1, 129, 64, 8, 8, true, 0.0),
        ];
        for (case, &(batch, qh, kvh, ql, kl, hd, vd, causal, softcap)) in cases.iter().enumerate() {
            let s = AttentionShape {
                batch,
                q_heads: qh,
                kv_heads: kvh,
                q_len: ql,
                kv_len: kl,
                head_dim: hd,
                v_dim: vd,
            };
            let o = AttentionOptions {
                scale: 1.0 / (hd as f64).sqrt(),
                softcap,
                causal,
            };
            let q = data(batch * qh * ql * hd, 1 + case as u64);
            let k = data(batch * kvh * kl * hd, 100 + case as u64);
            let v = data(batch * kvh * kl * vd, 200 + case as u64);
            let want = naive(&q, &k, &v, &|_, _, _, _| 0.0, s, o);
            let mut got = vec![f64::NAN; want.len()];
            attention(&q, &k, &v, AttentionMask::None, &mut got, s, o);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12, "case {case}: {g} vs {w}");
            }
            // In f32, within a few ulps of the scale of the values.
            let f = |x: &[f64]| x.iter().map(|&v| v as f32).collect::<Vec<f32>>();
            let mut got32 = vec![f32::NAN; want.len()];
            attention(
                &f(&q),
                &f(&k),
                &f(&v),
                AttentionMask::None,
                &mut got32,
                s,
                o,
            );
            for (g, w) in got32.iter().zip(&want) {
                assert!((*g as f64 - w).abs() <= 2e-6, "case {case} f32: {g} vs {w}");
            }
            // A boolean mask over (i, j) broadcast over batch and heads, and an additive one.
            let keep: Vec<bool> = (0..ql * kl).map(|x| x % 3 != 1).collect();
            let want = naive(
                &q,
                &k,
                &v,
                &|_, _, i, j| {
                    if keep[i * kl + j] {
                        0.0
                    } else {
                        f64::NEG_INFINITY
                    }
                },
                s,
                o,
            );
            let mut got = vec![f64::NAN; want.len()];
            attention(
                &q,
                &k,
                &v,
                AttentionMask::Bool(&keep, [0, 0, kl, 1]),
                &mut got,
                s,
                o,
            );
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12, "case {case} bool mask: {g} vs {w}");
            }
            attention(
                &f(&q),
                &f(&k),
                &f(&v),
                AttentionMask::Bool(&keep, [0, 0, kl, 1]),
                &mut got32,
                s,
                o,
            );
            for (g, w) in got32.iter().zip(&want) {
                assert!(
                    (*g as f64 - w).abs() <= 2e-6,
                    "case {case} f32 bool mask: {g} vs {w}"
                );
            }
            let add = data(qh * ql * kl, 300);
            let want = naive(&q, &k, &v, &|_, h, i, j| add[(h * ql + i) * kl + j], s, o);
            attention(
                &q,
                &k,
                &v,
                AttentionMask::Add(&add, [0, ql * kl, kl, 1]),
                &mut got,
                s,
                o,
            );
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12, "case {case} add mask: {g} vs {w}");
            }
            let want = naive(
                &f(&q).iter().map(|&x| x as f64).collect::<Vec<_>>(),
                &f(&k).iter().map(|&x| x as f64).collect::<Vec<_>>(),
                &f(&v).iter().map(|&x| x as f64).collect::<Vec<_>>(),
                &|_, h, i, j| add[(h * ql + i) * kl + j] as f32 as f64,
                s,
                o,
            );
            attention(
                &f(&q),
                &f(&k),
                &f(&v),
                AttentionMask::Add(&f(&add), [0, ql * kl, kl, 1]),
                &mut got32,
                s,
                o,
            );
            for (g, w) in got32.iter().zip(&want) {
                assert!(
                    (*g as f64 - w).abs() <= 2e-6,
                    "case {case} f32 add mask: {g} vs {w}"
                );
            }
        }
    }

    #[test]
    fn fully_masked_rows_are_zero() {
        let s = AttentionShape {
            batch: 1,
            q_heads: 1,
            kv_heads: 1,
            q_len: 2,
            kv_len: 3,
            head_dim: 2,
            v_dim: 2,
        };
        let o = AttentionOptions {
            scale: 1.0,
            softcap: 0.0,
            causal: false,
        };
        let keep = [false, false, false, true, false, true];
        let (q, k, v) = (data(4, 1), data(6, 2), data(6, 3));
        let mut out = vec![f64::NAN; 4];
        attention(
            &q,
            &k,
            &v,
            AttentionMask::Bool(&keep, [0, 0, 3, 1]),
            &mut out,
            s,
            o,
        );
        assert_eq!(&out[..2], &[0.0, 0.0]);
        assert!(out[2..].iter().all(|x| x.is_finite()));
    }
}
