//! examples/gpt_decode: one prefill step and one decode step of the graph against a
//! straightforward scalar implementation of the same model in f64 (loops over tokens,
//! heads and keys, the whole causal score matrix, `erf` from its series).

#[path = "../examples/gpt_decode/model.rs"]
#[allow(dead_code)]
mod model;

use model::{Cache, Layer, Model, DIM, HEADS, HEAD_DIM, HIDDEN, LAYERS, TOP, VOCAB};

fn erf(x: f64) -> f64 {
    // The Maclaurin series to 1e-16 for |x| < 3, the complement's continued fraction beyond.
    if x.abs() < 3.0 {
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        while term.abs() > 1e-17 * sum.abs().max(1e-300) {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        return sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    let t = x.abs();
    let mut f = t;
    for k in (1..60).rev() {
        f = t + (k as f64 / 2.0) / f;
    }
    let erfc = (-t * t).exp() / (std::f64::consts::PI.sqrt() * f);
    (1.0 - erfc) * x.signum()
}

fn layer_norm(x: &[f64], g: &[f32], b: &[f32]) -> Vec<f64> {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    x.iter()
        .zip(g.iter().zip(b))
        .map(|(v, (g, b))| (v - mean) / (var + 1e-5).sqrt() * *g as f64 + *b as f64)
        .collect()
}

/// `x @ w` for a row `x` and a row-major `w` of `x.len()` rows.
fn matvec(x: &[f64], w: &[f32]) -> Vec<f64> {
    let cols = w.len() / x.len();
    (0..cols)
        .map(|c| {
            x.iter()
                .enumerate()
                .map(|(r, v)| v * w[r * cols + c] as f64)
                .sum()
        })
        .collect()
}

fn block(xs: &mut [Vec<f64>], l: &Layer, k_cache: &mut Vec<f64>, v_cache: &mut Vec<f64>) {
    let n_old = k_cache.len() / (HEADS * HEAD_DIM);
    let m = xs.len();
    let total = n_old + m;
    // New keys/values appended per head: cache layout [head][token][d].
    let mut k_new = vec![0.0; HEADS * total * HEAD_DIM];
    let mut v_new = vec![0.0; HEADS * total * HEAD_DIM];
    let mut qs = Vec::new();
    for h in 0..HEADS {
        for t in 0..n_old {
            for d in 0..HEAD_DIM {
                k_new[(h * total + t) * HEAD_DIM + d] = k_cache[(h * n_old + t) * HEAD_DIM + d];
                v_new[(h * total + t) * HEAD_DIM + d] = v_cache[(h * n_old + t) * HEAD_DIM + d];
            }
        }
    }
    for (t, x) in xs.iter().enumerate() {
        let qkv = matvec(&layer_norm(x, &l.g1, &l.b1), &l.wqkv);
        for h in 0..HEADS {
            for d in 0..HEAD_DIM {
                k_new[(h * total + n_old + t) * HEAD_DIM + d] = qkv[DIM + h * HEAD_DIM + d];
                v_new[(h * total + n_old + t) * HEAD_DIM + d] = qkv[2 * DIM + h * HEAD_DIM + d];
            }
        }
        qs.push(qkv[..DIM].to_vec());
    }
    for (t, x) in xs.iter_mut().enumerate() {
        let mut att = vec![0.0; DIM];
        for h in 0..HEADS {
            let visible = n_old + t + 1;
            let scores: Vec<f64> = (0..visible)
                .map(|j| {
                    (0..HEAD_DIM)
                        .map(|d| qs[t][h * HEAD_DIM + d] * k_new[(h * total + j) * HEAD_DIM + d])
                        .sum::<f64>()
                        / (HEAD_DIM as f64).sqrt()
                })
                .collect();
            let mx = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let p: Vec<f64> = scores.iter().map(|s| (s - mx).exp()).collect();
            let z: f64 = p.iter().sum();
            for d in 0..HEAD_DIM {
                att[h * HEAD_DIM + d] = (0..visible)
                    .map(|j| p[j] * v_new[(h * total + j) * HEAD_DIM + d])
                    .sum::<f64>()
                    / z;
            }
        }
        let o = matvec(&att, &l.wo);
        for (a, b) in x.iter_mut().zip(&o) {
            *a += b;
        }
        let h1: Vec<f64> = matvec(&layer_norm(x, &l.g2, &l.b2), &l.w1)
            .iter()
            .zip(&l.c1)
            .map(|(v, c)| {
                let z = v + *c as f64;
                0.5 * z * (1.0 + erf(z / std::f64::consts::SQRT_2))
            })
            .collect();
        assert_eq!(h1.len(), HIDDEN);
        let out = matvec(&h1, &l.w2);
        for ((a, b), c) in x.iter_mut().zip(&out).zip(&l.c2) {
            *a += b + *c as f64;
        }
    }
    *k_cache = k_new;
    *v_cache = v_new;
}

/// The model's step, scalar: all logits of the last token, and the grown caches.
fn scalar_step(model: &Model, ids: &[i64], cache: &[Vec<f64>; 4]) -> (Vec<f64>, [Vec<f64>; 4]) {
    let start = cache[0].len() / (HEADS * HEAD_DIM);
    let mut xs: Vec<Vec<f64>> = ids
        .iter()
        .enumerate()
        .map(|(t, &id)| {
            (0..DIM)
                .map(|d| {
                    model.tok[id as usize * DIM + d] as f64
                        + model.pos[(start + t) * DIM + d] as f64
                })
                .collect()
        })
        .collect();
    let mut caches = cache.clone();
    for l in 0..LAYERS {
        let (k, rest) = caches.split_at_mut(2 * l + 1);
        block(&mut xs, &model.layers[l], &mut k[2 * l], &mut rest[0]);
    }
    let last = layer_norm(xs.last().unwrap(), &model.gf, &model.bf);
    let logits = (0..VOCAB)
        .map(|v| {
            (0..DIM)
                .map(|d| last[d] * model.tok[v * DIM + d] as f64)
                .sum()
        })
        .collect();
    (logits, caches)
}

fn check(model: &Model, ids: &[i64], cache: &Cache) -> Cache {
    let (best, best_ids, grown) = model.step(ids, cache).unwrap();
    let as64 = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let scalar_cache = [
        as64(&cache.k[0]),
        as64(&cache.v[0]),
        as64(&cache.k[1]),
        as64(&cache.v[1]),
    ];
    let (logits, caches) = scalar_step(model, ids, &scalar_cache);
    let mut order: Vec<usize> = (0..VOCAB).collect();
    order.sort_by(|&a, &b| logits[b].partial_cmp(&logits[a]).unwrap());
    for j in 0..TOP {
        assert!(
            (best[j] as f64 - logits[order[j]]).abs() <= 2e-3 * logits[order[j]].abs().max(1.0),
            "logit {j}: {} vs {}",
            best[j],
            logits[order[j]]
        );
        // The same token, unless two logits are closer than the rounding.
        if (logits[order[j]] - logits[order[(j + 1).min(VOCAB - 1)]]).abs() > 1e-2
            && (j == 0 || (logits[order[j - 1]] - logits[order[j]]).abs() > 1e-2)
        {
            assert_eq!(best_ids[j], order[j] as i64, "token {j}");
        }
    }
    let got = [&grown.k[0], &grown.v[0], &grown.k[1], &grown.v[1]];
    for (g, w) in got.iter().zip(&caches) {
        assert_eq!(g.len(), w.len());
        for (a, b) in g.iter().zip(w) {
            assert!(
                (*a as f64 - b).abs() <= 1e-4 * b.abs().max(1.0),
                "cache: {a} vs {b}"
            );
        }
    }
    grown
}

#[test]
fn prefill_and_decode_steps_match_the_scalar_model() {
    let model = Model::random(42);
    let prompt: Vec<i64> = (0..8).map(|i| (i * 37 + 11) % VOCAB as i64).collect();
    let cache = check(&model, &prompt, &Cache::default());
    assert_eq!(cache.len(), 8);
    let cache = check(&model, &[200], &cache);
    let cache = check(&model, &[3, 250], &cache);
    assert_eq!(cache.len(), 11);
    // A token id outside the vocabulary is an `Err`, not a panic.
    assert!(model.step(&[VOCAB as i64], &cache).is_err());
}
