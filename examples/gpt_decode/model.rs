//! A two-layer GPT-style decoder as one `graph!` per step (examples/gpt_decode): token
//! ids of run-time length `M` → token and position embeddings (`gather`) → two pre-norm
//! blocks with 4-head causal `attention` over a key/value cache that grows by `concat`
//! (`N + M` rows) → tied logits → the 8 best next tokens (`top_k`). No mask is built in
//! Rust (`is_causal` aligns the new queries after the cache), and attention never stores
//! an `S × S` matrix. Shared with tests/gpt_decode.rs, which checks a step against a
//! scalar implementation.

use tensorgraph::prelude::*;

/// Vocabulary, model width, heads, head width, MLP width, positions, layers.
pub const VOCAB: usize = 256;
pub const DIM: usize = 64;
pub const HEADS: usize = 4;
pub const HEAD_DIM: usize = 16;
pub const HIDDEN: usize = 256;
pub const MAX_POS: usize = 128;
pub const LAYERS: usize = 2;
/// Candidates kept for sampling.
pub const TOP: usize = 8;

graph! {
    /// One step: `M` new tokens at positions `pos` after a cache of `N` tokens. Returns the
    /// 8 best next-token logits and their ids, and each layer's grown key and value caches.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    pub fn step(
        ids: i64[M], pos: i64[M], tok: f32[256, 64], pos_emb: f32[128, 64],
        k0: f32[1, 4, N, 16], v0: f32[1, 4, N, 16], k1: f32[1, 4, N, 16], v1: f32[1, 4, N, 16],
        a_g1: f32[64], a_b1: f32[64], a_wqkv: f32[64, 192], a_wo: f32[64, 64],
        a_g2: f32[64], a_b2: f32[64], a_w1: f32[64, 256], a_c1: f32[256], a_w2: f32[256, 64], a_c2: f32[64],
        b_g1: f32[64], b_b1: f32[64], b_wqkv: f32[64, 192], b_wo: f32[64, 64],
        b_g2: f32[64], b_b2: f32[64], b_w1: f32[64, 256], b_c1: f32[256], b_w2: f32[256, 64], b_c2: f32[64],
        gf: f32[64], bf: f32[64]
    ) -> (f32[8], i64[8], f32[1, 4, N + M, 16], f32[1, 4, N + M, 16], f32[1, 4, N + M, 16], f32[1, 4, N + M, 16]) {
        let x = gather(tok, ids) + gather(pos_emb, pos);
        // Layer 0.
        let (q, k, v) = split(layer_norm(x, a_g1, a_b1) @ a_wqkv, [64, 64, 64], axis = 1);
        let kc0 = concat([k0, dimshuffle(reshape(k, [M, 4, 16]), ['x', 1, 0, 2])], axis = 2);
        let vc0 = concat([v0, dimshuffle(reshape(v, [M, 4, 16]), ['x', 1, 0, 2])], axis = 2);
        let att = attention(dimshuffle(reshape(q, [M, 4, 16]), ['x', 1, 0, 2]), kc0, vc0, is_causal = true);
        let x = x + reshape(dimshuffle(att, [2, 1, 3]), [M, 64]) @ a_wo;
        let x = x + gelu(layer_norm(x, a_g2, a_b2) @ a_w1 + a_c1) @ a_w2 + a_c2;
        // Layer 1.
        let (q, k, v) = split(layer_norm(x, b_g1, b_b1) @ b_wqkv, [64, 64, 64], axis = 1);
        let kc1 = concat([k1, dimshuffle(reshape(k, [M, 4, 16]), ['x', 1, 0, 2])], axis = 2);
        let vc1 = concat([v1, dimshuffle(reshape(v, [M, 4, 16]), ['x', 1, 0, 2])], axis = 2);
        let att = attention(dimshuffle(reshape(q, [M, 4, 16]), ['x', 1, 0, 2]), kc1, vc1, is_causal = true);
        let x = x + reshape(dimshuffle(att, [2, 1, 3]), [M, 64]) @ b_wo;
        let x = x + gelu(layer_norm(x, b_g2, b_b2) @ b_w1 + b_c1) @ b_w2 + b_c2;
        // Tied logits of the last token, its 8 best.
        let logits = layer_norm(x, gf, bf)[-1] @ transpose(tok);
        let (best, ids_out) = top_k(logits, k = 8);
        (best, ids_out, kc0, vc0, kc1, vc1)
    }
}

/// One layer's weights, row-major.
pub struct Layer {
    pub g1: Vec<f32>,
    pub b1: Vec<f32>,
    pub wqkv: Vec<f32>,
    pub wo: Vec<f32>,
    pub g2: Vec<f32>,
    pub b2: Vec<f32>,
    pub w1: Vec<f32>,
    pub c1: Vec<f32>,
    pub w2: Vec<f32>,
    pub c2: Vec<f32>,
}

/// The model's weights.
pub struct Model {
    pub tok: Vec<f32>,
    pub pos: Vec<f32>,
    pub layers: [Layer; LAYERS],
    pub gf: Vec<f32>,
    pub bf: Vec<f32>,
}

/// Each layer's key and value cache, `[1, HEADS, n, HEAD_DIM]` row-major.
#[derive(Clone, Default)]
pub struct Cache {
    pub k: [Vec<f32>; LAYERS],
    pub v: [Vec<f32>; LAYERS],
}

impl Cache {
    /// Tokens cached.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.k[0].len() / (HEADS * HEAD_DIM)
    }
}

/// A small xorshift generator: the weights and the sampling are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[-scale, scale)`.
    pub fn symmetric(&mut self, scale: f32) -> f32 {
        (self.next_f32() * 2.0 - 1.0) * scale
    }
}

impl Model {
    /// Random weights of a sensible scale (`1/√fan_in`), from `seed`.
    pub fn random(seed: u64) -> Model {
        let mut rng = Rng(seed | 1);
        let mut v = |n: usize, scale: f32, offset: f32| -> Vec<f32> {
            (0..n).map(|_| offset + rng.symmetric(scale)).collect()
        };
        let d = (DIM as f32).sqrt();
        let mut layer = || Layer {
            g1: v(DIM, 0.1, 1.0),
            b1: v(DIM, 0.1, 0.0),
            wqkv: v(DIM * 3 * DIM, 1.0 / d, 0.0),
            wo: v(DIM * DIM, 1.0 / d, 0.0),
            g2: v(DIM, 0.1, 1.0),
            b2: v(DIM, 0.1, 0.0),
            w1: v(DIM * HIDDEN, 1.0 / d, 0.0),
            c1: v(HIDDEN, 0.1, 0.0),
            w2: v(HIDDEN * DIM, 1.0 / (HIDDEN as f32).sqrt(), 0.0),
            c2: v(DIM, 0.1, 0.0),
        };
        let layers = [layer(), layer()];
        Model {
            tok: v(VOCAB * DIM, 1.0, 0.0),
            pos: v(MAX_POS * DIM, 0.5, 0.0),
            layers,
            gf: v(DIM, 0.1, 1.0),
            bf: v(DIM, 0.1, 0.0),
        }
    }

    /// One step over `ids` after `cache`: the 8 best next tokens (logits, ids), and the
    /// grown cache.
    pub fn step(
        &self,
        ids: &[i64],
        cache: &Cache,
    ) -> Result<(Vec<f32>, Vec<i64>, Cache), tensorgraph::ShapeError> {
        let start = cache.len() as i64;
        let pos: Vec<i64> = (start..start + ids.len() as i64).collect();
        let [a, b] = &self.layers;
        let (best, best_ids, k0, v0, k1, v1) = step(
            ids,
            &pos,
            &self.tok[..],
            &self.pos[..],
            &cache.k[0][..],
            &cache.v[0][..],
            &cache.k[1][..],
            &cache.v[1][..],
            &a.g1[..],
            &a.b1[..],
            &a.wqkv[..],
            &a.wo[..],
            &a.g2[..],
            &a.b2[..],
            &a.w1[..],
            &a.c1[..],
            &a.w2[..],
            &a.c2[..],
            &b.g1[..],
            &b.b1[..],
            &b.wqkv[..],
            &b.wo[..],
            &b.g2[..],
            &b.b2[..],
            &b.w1[..],
            &b.c1[..],
            &b.w2[..],
            &b.c2[..],
            &self.gf[..],
            &self.bf[..],
        )?;
        let grown = Cache {
            k: [k0.as_slice().to_vec(), k1.as_slice().to_vec()],
            v: [v0.as_slice().to_vec(), v1.as_slice().to_vec()],
        };
        Ok((
            best.as_slice().to_vec(),
            best_ids.as_slice().to_vec(),
            grown,
        ))
    }
}
