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
pub trait AttentionFloat: Copy + Default + PartialOrd + Send + Sync + crate::scratch::Scratch {
    /// `C = A · B` on the GEMM engine, one thread.
    fn product(a: &MatRef<'_, Self>, b: &MatRef<'_, Self>, c: &mut [Self], ldc: usize);
    /// `exp` of each element of `x` (vector math), in place.
    fn exp_in_place(x: &mut [Self]);
    /// From `f64`.
    fn of(v: f64) -> Self;
    /// To `f64`.
    fn to(self) -> f64;
}

impl AttentionFloat for f32 {
    fn product(a: &MatRef<'_, f32>, b: &MatRef<'_, f32>, c: &mut [f32], ldc: usize) {
        // The views were built inside their buffers and `c` holds `rows × ldc`: the shapes
        // agree by construction, so the engine's checks pass.
        let _ = gemm::matmul_f32_with(a, b, c, ldc, Options::SINGLE, &|_| {});
    }
    fn exp_in_place(x: &mut [f32]) {
        let mut chunks = x.chunks_exact_mut(8);
        for chunk in &mut chunks {
            let v = wide::f32x8::from(<[f32; 8]>::try_from(&*chunk).expect("8 lanes"));
            chunk.copy_from_slice(&crate::vmath::exp_f32(v).to_array());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let mut lanes = [0.0f32; 8];
            lanes[..rest.len()].copy_from_slice(rest);
            let e = crate::vmath::exp_f32(wide::f32x8::from(lanes)).to_array();
            rest.copy_from_slice(&e[..rest.len()]);
        }
    }
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn to(self) -> f64 {
        self as f64
    }
}

impl AttentionFloat for f64 {
    fn product(a: &MatRef<'_, f64>, b: &MatRef<'_, f64>, c: &mut [f64], ldc: usize) {
        let _ = gemm::matmul_f64_with(a, b, c, ldc, Options::SINGLE, &|_| {});
    }
    fn exp_in_place(x: &mut [f64]) {
        let mut chunks = x.chunks_exact_mut(8);
        for chunk in &mut chunks {
            let v = wide::f64x8::from(<[f64; 8]>::try_from(&*chunk).expect("8 lanes"));
            chunk.copy_from_slice(&crate::vmath::exp_f64(v).to_array());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let mut lanes = [0.0f64; 8];
            lanes[..rest.len()].copy_from_slice(rest);
            let e = crate::vmath::exp_f64(wide::f64x8::from(lanes)).to_array();
            rest.copy_from_slice(&e[..rest.len()]);
        }
    }
    fn of(v: f64) -> f64 {
        v
    }
    fn to(self) -> f64 {
        self
    }
}

/// Query rows per tile and key rows per tile.
const Q_TILE: usize = 64;
const K_TILE: usize = 128;

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
    let fits = |len: usize, dims: [usize; 4]| dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).is_some_and(|n| n <= len);
    if kv_heads == 0
        || q_heads % kv_heads != 0
        || !fits(q.len(), [batch, q_heads, q_len, head_dim])
        || !fits(k.len(), [batch, kv_heads, kv_len, head_dim])
        || !fits(v.len(), [batch, kv_heads, kv_len, v_dim])
        || !fits(out.len(), [batch, q_heads, q_len, v_dim])
    {
        return;
    }
    let group = q_heads / kv_heads;
    // Keys a query row may see past its own index (bottom-right causal alignment).
    let offset = kv_len as i64 - q_len as i64;
    let (scale, softcap) = (options.scale, options.softcap);
    let mut scores = ScratchVec::<T>::new(Q_TILE * K_TILE, T::default());
    let mut acc = ScratchVec::<T>::new(Q_TILE * v_dim.max(1), T::default());
    let mut pv = ScratchVec::<T>::new(Q_TILE * v_dim.max(1), T::default());
    let mut row_max = [f64::NEG_INFINITY; Q_TILE];
    let mut row_sum = [0.0f64; Q_TILE];
    for b in 0..batch {
        for h in 0..q_heads {
            let kv = h / group;
            let q_base = (b * q_heads + h) * q_len * head_dim;
            let k_base = (b * kv_heads + kv) * kv_len * head_dim;
            let v_base = (b * kv_heads + kv) * kv_len * v_dim;
            let o_base = (b * q_heads + h) * q_len * v_dim;
            for i0 in (0..q_len).step_by(Q_TILE) {
                let tq = Q_TILE.min(q_len - i0);
                row_max[..tq].fill(f64::NEG_INFINITY);
                row_sum[..tq].fill(0.0);
                acc[..tq * v_dim].fill(T::default());
                for j0 in (0..kv_len).step_by(K_TILE) {
                    // Causal: no row of this query tile sees a key from `j0` on.
                    if options.causal && j0 as i64 > (i0 + tq - 1) as i64 + offset {
                        break;
                    }
                    let tk = K_TILE.min(kv_len - j0);
                    let s = &mut scores[..tq * tk];
                    if head_dim == 0 {
                        s.fill(T::default());
                    } else {
                        let (Ok(qa), Ok(kb)) = (
                            MatRef::new(q, tq, head_dim, head_dim as isize, 1, q_base + i0 * head_dim),
                            MatRef::new(k, head_dim, tk, 1, head_dim as isize, k_base + j0 * head_dim),
                        ) else {
                            return;
                        };
                        T::product(&qa, &kb, s, tk);
                    }
                    for r in 0..tq {
                        let i = i0 + r;
                        let line = &mut s[r * tk..(r + 1) * tk];
                        let mut best = f64::NEG_INFINITY;
                        for (c, slot) in line.iter_mut().enumerate() {
                            let j = j0 + c;
                            let mut x = slot.to() * scale;
                            if softcap > 0.0 {
                                x = softcap * (x / softcap).tanh();
                            }
                            match mask {
                                AttentionMask::None => {}
                                AttentionMask::Bool(m, st) => {
                                    if !m[b * st[0] + h * st[1] + i * st[2] + j * st[3]] {
                                        x = f64::NEG_INFINITY;
                                    }
                                }
                                AttentionMask::Add(m, st) => x += m[b * st[0] + h * st[1] + i * st[2] + j * st[3]].to(),
                            }
                            if options.causal && j as i64 > i as i64 + offset {
                                x = f64::NEG_INFINITY;
                            }
                            best = if x > best { x } else { best };
                            *slot = T::of(x);
                        }
                        let new_max = if best > row_max[r] { best } else { row_max[r] };
                        if new_max == f64::NEG_INFINITY {
                            // Nothing seen yet in this row: its probabilities are all 0.
                            line.fill(T::default());
                            continue;
                        }
                        let shift = T::of(new_max);
                        for slot in line.iter_mut() {
                            *slot = T::of(slot.to() - shift.to());
                        }
                        T::exp_in_place(line);
                        let alpha = (row_max[r] - new_max).exp();
                        row_max[r] = new_max;
                        row_sum[r] = row_sum[r] * alpha + line.iter().map(|p| p.to()).sum::<f64>();
                        if alpha != 1.0 {
                            for a in &mut acc[r * v_dim..(r + 1) * v_dim] {
                                *a = T::of(a.to() * alpha);
                            }
                        }
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
                    T::product(&pa, &vb, &mut pv[..tq * v_dim], v_dim);
                    for (a, p) in acc[..tq * v_dim].iter_mut().zip(&pv[..tq * v_dim]) {
                        *a = T::of(a.to() + p.to());
                    }
                }
                for r in 0..tq {
                    let row = &mut out[o_base + (i0 + r) * v_dim..o_base + (i0 + r + 1) * v_dim];
                    let sum = row_sum[r];
                    for (o, a) in row.iter_mut().zip(&acc[r * v_dim..(r + 1) * v_dim]) {
                        // A row with every key masked is 0 (ONNX).
                        *o = if sum > 0.0 { T::of(a.to() / sum) } else { T::default() };
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
    fn naive(q: &[f64], k: &[f64], v: &[f64], mask: &dyn Fn(usize, usize, usize, usize) -> f64, s: AttentionShape, o: AttentionOptions) -> Vec<f64> {
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
            let s = AttentionShape { batch, q_heads: qh, kv_heads: kvh, q_len: ql, kv_len: kl, head_dim: hd, v_dim: vd };
            let o = AttentionOptions { scale: 1.0 / (hd as f64).sqrt(), softcap, causal };
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
            attention(&f(&q), &f(&k), &f(&v), AttentionMask::None, &mut got32, s, o);
            for (g, w) in got32.iter().zip(&want) {
                assert!((*g as f64 - w).abs() <= 2e-6, "case {case} f32: {g} vs {w}");
            }
            // A boolean mask over (i, j) broadcast over batch and heads, and an additive one.
            let keep: Vec<bool> = (0..ql * kl).map(|x| x % 3 != 1).collect();
            let want = naive(&q, &k, &v, &|_, _, i, j| if keep[i * kl + j] { 0.0 } else { f64::NEG_INFINITY }, s, o);
            let mut got = vec![f64::NAN; want.len()];
            attention(&q, &k, &v, AttentionMask::Bool(&keep, [0, 0, kl, 1]), &mut got, s, o);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12, "case {case} bool mask: {g} vs {w}");
            }
            let add = data(qh * ql * kl, 300);
            let want = naive(&q, &k, &v, &|_, h, i, j| add[(h * ql + i) * kl + j], s, o);
            attention(&q, &k, &v, AttentionMask::Add(&add, [0, ql * kl, kl, 1]), &mut got, s, o);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12, "case {case} add mask: {g} vs {w}");
            }
        }
    }

    #[test]
    fn fully_masked_rows_are_zero() {
        let s = AttentionShape { batch: 1, q_heads: 1, kv_heads: 1, q_len: 2, kv_len: 3, head_dim: 2, v_dim: 2 };
        let o = AttentionOptions { scale: 1.0, softcap: 0.0, causal: false };
        let keep = [false, false, false, true, false, true];
        let (q, k, v) = (data(4, 1), data(6, 2), data(6, 3));
        let mut out = vec![f64::NAN; 4];
        attention(&q, &k, &v, AttentionMask::Bool(&keep, [0, 0, 3, 1]), &mut out, s, o);
        assert_eq!(&out[..2], &[0.0, 0.0]);
        assert!(out[2..].iter().all(|x| x.is_finite()));
    }
}
