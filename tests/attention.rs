//! `attention` in graphs against the whole-matrix reference written out here in f64:
//! causal with a longer key cache, grouped-query heads, boolean and additive masks,
//! softcap and scale, symbolic lengths, f16 inputs, and a fused consumer.

use tensorgraph::f16;
use tensorgraph::prelude::*;

graph! {
    fn causal(q: f32[1, 2, S, 8], k: f32[1, 2, T, 8], v: f32[1, 2, T, 8]) -> f32[1, 2, S, 8] {
        attention(q, k, v, is_causal = true)
    }
    fn gqa(q: f64[2, 6, 5, 4], k: f64[2, 2, 7, 4], v: f64[2, 2, 7, 3], m: bool[5, 7]) -> f64[2, 6, 5, 3] {
        attention(q, k, v, attn_mask = m, scale = 0.7, softcap = 3.0) * 2.0
    }
    fn biased(q: f32[1, 1, 4, 16], k: f32[1, 1, 9, 16], v: f32[1, 1, 9, 16], bias: f32[1, 1, 4, 9]) -> f32[1, 1, 4, 16] {
        attention(q, k, v, attn_mask = bias)
    }
    fn half(q: f16[1, 1, 3, 8], k: f16[1, 1, 3, 8], v: f16[1, 1, 3, 8]) -> f16[1, 1, 3, 8] {
        attention(q, k, v)
    }
    // Parameters passed unchanged are read in place; computed operands go through temps
    // (each of q, k, v and the mask once, all of them, and one parameter as all three).
    fn plain(q: f32[1, 2, 6, 8], k: f32[1, 2, 9, 8], v: f32[1, 2, 9, 8], bias: f32[6, 9]) -> f32[1, 2, 6, 8] {
        attention(q, k, v, attn_mask = bias)
    }
    fn computed_q(q: f32[1, 2, 6, 8], k: f32[1, 2, 9, 8], v: f32[1, 2, 9, 8], bias: f32[6, 9]) -> f32[1, 2, 6, 8] {
        attention(q * 0.5, k, v, attn_mask = bias)
    }
    fn computed_k(q: f32[1, 2, 6, 8], k: f32[1, 2, 9, 8], v: f32[1, 2, 9, 8], bias: f32[6, 9]) -> f32[1, 2, 6, 8] {
        attention(q, k - 0.25, v, attn_mask = bias)
    }
    fn computed_v(q: f32[1, 2, 6, 8], k: f32[1, 2, 9, 8], v: f32[1, 2, 9, 8], bias: f32[6, 9]) -> f32[1, 2, 6, 8] {
        attention(q, k, v * 3.0, attn_mask = bias)
    }
    fn computed_mask(q: f32[1, 2, 6, 8], k: f32[1, 2, 9, 8], v: f32[1, 2, 9, 8], bias: f32[6, 9]) -> f32[1, 2, 6, 8] {
        attention(q, k, v, attn_mask = bias * 2.0)
    }
    fn computed_all(q: f32[1, 2, 6, 8], k: f32[1, 2, 9, 8], v: f32[1, 2, 9, 8], bias: f32[6, 9]) -> f32[1, 2, 6, 8] {
        attention(q * 0.5, k - 0.25, v * 3.0, attn_mask = bias * 2.0)
    }
    fn one_for_all(x: f32[1, 2, 9, 8]) -> f32[1, 2, 9, 8] {
        attention(x, x, x, is_causal = true)
    }
}

struct Shape4 {
    b: usize,
    hq: usize,
    hk: usize,
    sq: usize,
    sk: usize,
    d: usize,
    dv: usize,
}

#[allow(clippy::too_many_arguments)]
fn reference(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    s: &Shape4,
    scale: f64,
    softcap: f64,
    causal: bool,
    bias: &dyn Fn(usize, usize, usize, usize) -> f64,
) -> Vec<f64> {
    let g = s.hq / s.hk;
    let mut out = vec![0.0; s.b * s.hq * s.sq * s.dv];
    for b in 0..s.b {
        for h in 0..s.hq {
            let kh = h / g;
            for i in 0..s.sq {
                let mut sc: Vec<f64> = (0..s.sk)
                    .map(|j| {
                        let mut x: f64 = (0..s.d)
                            .map(|d| {
                                q[((b * s.hq + h) * s.sq + i) * s.d + d]
                                    * k[((b * s.hk + kh) * s.sk + j) * s.d + d]
                            })
                            .sum::<f64>()
                            * scale;
                        if softcap > 0.0 {
                            x = softcap * (x / softcap).tanh();
                        }
                        // A bias of -inf masks the key whatever its score (docs/language.md).
                        let m = bias(b, h, i, j);
                        x = if m == f64::NEG_INFINITY { m } else { x + m };
                        if causal && j + s.sq > i + s.sk {
                            x = f64::NEG_INFINITY;
                        }
                        x
                    })
                    .collect();
                let m = sc.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if m == f64::NEG_INFINITY {
                    continue;
                }
                sc.iter_mut().for_each(|x| *x = (*x - m).exp());
                let z: f64 = sc.iter().sum();
                for c in 0..s.dv {
                    out[((b * s.hq + h) * s.sq + i) * s.dv + c] = (0..s.sk)
                        .map(|j| sc[j] * v[((b * s.hk + kh) * s.sk + j) * s.dv + c])
                        .sum::<f64>()
                        / z;
                }
            }
        }
    }
    out
}

fn data(n: usize, seed: u32) -> Vec<f64> {
    (0..n)
        .map(|i| {
            (((i as u32)
                .wrapping_mul(2_654_435_761)
                .wrapping_add(seed.wrapping_mul(40503)))
                % 2001) as f64
                / 1000.0
                - 1.0
        })
        .collect()
}

#[test]
fn causal_with_a_cache() {
    for (sq, sk) in [
        (1usize, 1usize),
        (1, 9),
        (5, 5),
        (70, 200),
        (130, 130),
        (3, 300),
    ] {
        let s = Shape4 {
            b: 1,
            hq: 2,
            hk: 2,
            sq,
            sk,
            d: 8,
            dv: 8,
        };
        let (q, k, v) = (
            data(2 * sq * 8, 1),
            data(2 * sk * 8, 2),
            data(2 * sk * 8, 3),
        );
        let f = |x: &[f64]| x.iter().map(|&v| v as f32).collect::<Vec<_>>();
        let t = |x: &[f64], l: usize| {
            Tensor::<f32, Shape![1, 2, _, 8]>::from_shape_vec([1, 2, l, 8], f(x)).unwrap()
        };
        let y = causal(&t(&q, sq), &t(&k, sk), &t(&v, sk)).unwrap();
        let want = reference(
            &q,
            &k,
            &v,
            &s,
            1.0 / 8f64.sqrt(),
            0.0,
            true,
            &|_, _, _, _| 0.0,
        );
        for (g, w) in y.as_slice().iter().zip(&want) {
            assert!((*g as f64 - w).abs() <= 1e-5, "sq={sq} sk={sk}: {g} vs {w}");
        }
    }
    // More queries than keys: the first rows see nothing and are 0.
    let (q, k, v) = (data(2 * 4 * 8, 4), data(2 * 2 * 8, 5), data(2 * 2 * 8, 6));
    let f = |x: &[f64]| x.iter().map(|&v| v as f32).collect::<Vec<_>>();
    let y = causal(
        &Tensor::<f32, Shape![1, 2, _, 8]>::from_shape_vec([1, 2, 4, 8], f(&q)).unwrap(),
        &Tensor::<f32, Shape![1, 2, _, 8]>::from_shape_vec([1, 2, 2, 8], f(&k)).unwrap(),
        &Tensor::<f32, Shape![1, 2, _, 8]>::from_shape_vec([1, 2, 2, 8], f(&v)).unwrap(),
    )
    .unwrap();
    assert!(y.as_slice()[..16].iter().all(|&x| x == 0.0));
}

#[test]
fn grouped_heads_masks_and_caps() {
    let s = Shape4 {
        b: 2,
        hq: 6,
        hk: 2,
        sq: 5,
        sk: 7,
        d: 4,
        dv: 3,
    };
    let (q, k, v) = (
        data(2 * 6 * 5 * 4, 7),
        data(2 * 2 * 7 * 4, 8),
        data(2 * 2 * 7 * 3, 9),
    );
    let keep: Vec<bool> = (0..35).map(|x| x % 4 != 2).collect();
    let y = gqa(
        &Tensor::from_vec(q.clone()).unwrap(),
        &Tensor::from_vec(k.clone()).unwrap(),
        &Tensor::from_vec(v.clone()).unwrap(),
        &Tensor::from_vec(keep.clone()).unwrap(),
    );
    let want = reference(&q, &k, &v, &s, 0.7, 3.0, false, &|_, _, i, j| {
        if keep[i * 7 + j] {
            0.0
        } else {
            f64::NEG_INFINITY
        }
    });
    for (g, w) in y.as_slice().iter().zip(&want) {
        assert!((g - w * 2.0).abs() <= 1e-12, "{g} vs {}", w * 2.0);
    }

    let s = Shape4 {
        b: 1,
        hq: 1,
        hk: 1,
        sq: 4,
        sk: 9,
        d: 16,
        dv: 16,
    };
    let (q, k, v, bias) = (data(64, 10), data(144, 11), data(144, 12), data(36, 13));
    let f = |x: &[f64]| x.iter().map(|&v| v as f32).collect::<Vec<_>>();
    let y = biased(
        &Tensor::from_vec(f(&q)).unwrap(),
        &Tensor::from_vec(f(&k)).unwrap(),
        &Tensor::from_vec(f(&v)).unwrap(),
        &Tensor::from_vec(f(&bias)).unwrap(),
    );
    let bias32: Vec<f64> = f(&bias).iter().map(|&b| b as f64).collect();
    let want = reference(&q, &k, &v, &s, 0.25, 0.0, false, &|_, _, i, j| {
        bias32[i * 9 + j]
    });
    for (g, w) in y.as_slice().iter().zip(&want) {
        assert!((*g as f64 - w).abs() <= 1e-5, "{g} vs {w}");
    }
}

#[test]
fn half_precision_inputs() {
    let s = Shape4 {
        b: 1,
        hq: 1,
        hk: 1,
        sq: 3,
        sk: 3,
        d: 8,
        dv: 8,
    };
    let h = |x: &[f64]| x.iter().map(|&v| f16::from_f64(v)).collect::<Vec<_>>();
    let (q, k, v) = (h(&data(24, 14)), h(&data(24, 15)), h(&data(24, 16)));
    let y = half(
        &Tensor::from_vec(q.clone()).unwrap(),
        &Tensor::from_vec(k.clone()).unwrap(),
        &Tensor::from_vec(v.clone()).unwrap(),
    );
    let back = |x: &[f16]| x.iter().map(|v| v.to_f64()).collect::<Vec<_>>();
    let want = reference(
        &back(&q),
        &back(&k),
        &back(&v),
        &s,
        1.0 / 8f64.sqrt(),
        0.0,
        false,
        &|_, _, _, _| 0.0,
    );
    for (g, w) in y.as_slice().iter().zip(&want) {
        assert!(
            (g.to_f64() - w).abs() <= 1e-3 * w.abs().max(1.0),
            "{g} vs {w}"
        );
    }
}

#[test]
fn operands_in_place_or_computed() {
    let s = Shape4 {
        b: 1,
        hq: 2,
        hk: 2,
        sq: 6,
        sk: 9,
        d: 8,
        dv: 8,
    };
    let f = |x: Vec<f64>| x.iter().map(|&v| v as f32).collect::<Vec<_>>();
    let (q, k, v, bias) = (
        f(data(2 * 6 * 8, 17)),
        f(data(2 * 9 * 8, 18)),
        f(data(2 * 9 * 8, 19)),
        f(data(6 * 9, 20)),
    );
    let (tq, tk, tv, tb) = (
        Tensor::from_vec(q.clone()).unwrap(),
        Tensor::from_vec(k.clone()).unwrap(),
        Tensor::from_vec(v.clone()).unwrap(),
        Tensor::from_vec(bias.clone()).unwrap(),
    );
    // The reference over the operands each graph computes (in f32, as the graph does).
    let check = |name: &str, y: &[f32], qm: f32, ka: f32, vm: f32, bm: f32| {
        let wide =
            |x: &[f32], g: &dyn Fn(f32) -> f32| x.iter().map(|&v| g(v) as f64).collect::<Vec<_>>();
        let b = wide(&bias, &|x| x * bm);
        let want = reference(
            &wide(&q, &|x| x * qm),
            &wide(&k, &|x| x - ka),
            &wide(&v, &|x| x * vm),
            &s,
            1.0 / 8f64.sqrt(),
            0.0,
            false,
            &|_, _, i, j| b[i * 9 + j],
        );
        assert_eq!(y.len(), want.len());
        for (g, w) in y.iter().zip(&want) {
            assert!(
                (*g as f64 - w).abs() <= 1e-5 * w.abs().max(1.0),
                "{name}: {g} vs {w}"
            );
        }
    };
    check(
        "plain",
        plain(&tq, &tk, &tv, &tb).as_slice(),
        1.0,
        0.0,
        1.0,
        1.0,
    );
    check(
        "q",
        computed_q(&tq, &tk, &tv, &tb).as_slice(),
        0.5,
        0.0,
        1.0,
        1.0,
    );
    check(
        "k",
        computed_k(&tq, &tk, &tv, &tb).as_slice(),
        1.0,
        0.25,
        1.0,
        1.0,
    );
    check(
        "v",
        computed_v(&tq, &tk, &tv, &tb).as_slice(),
        1.0,
        0.0,
        3.0,
        1.0,
    );
    check(
        "mask",
        computed_mask(&tq, &tk, &tv, &tb).as_slice(),
        1.0,
        0.0,
        1.0,
        2.0,
    );
    check(
        "all",
        computed_all(&tq, &tk, &tv, &tb).as_slice(),
        0.5,
        0.25,
        3.0,
        2.0,
    );

    // One parameter as q, k and v, causal.
    let s = Shape4 { sq: 9, ..s };
    let y = one_for_all(&tk);
    let kw: Vec<f64> = k.iter().map(|&x| x as f64).collect();
    let want = reference(
        &kw,
        &kw,
        &kw,
        &s,
        1.0 / 8f64.sqrt(),
        0.0,
        true,
        &|_, _, _, _| 0.0,
    );
    for (g, w) in y.as_slice().iter().zip(&want) {
        assert!(
            (*g as f64 - w).abs() <= 1e-5 * w.abs().max(1.0),
            "one_for_all: {g} vs {w}"
        );
    }
}

graph! {
    /// A boolean mask per batch, broadcast over heads (seed 41, graph 1828).
    fn batch_mask(q: f64[3, 6, 5, 2], k: f64[3, 6, 2, 2], v: f64[3, 6, 2, 3], m: bool[3, 1, 5, 2]) -> f64[3, 6, 5, 3] {
        attention(q, k, v, attn_mask = m)
    }
}

#[test]
fn a_mask_per_batch_broadcast_over_heads() {
    let s = Shape4 {
        b: 3,
        hq: 6,
        hk: 6,
        sq: 5,
        sk: 2,
        d: 2,
        dv: 3,
    };
    let (mut q, mut k, v) = (data(180, 1), data(72, 2), data(108, 3));
    // A masked key whose score overflows to +inf (graph 1828): masked all the same.
    q[((6 + 5) * 5 + 1) * 2..][..2].copy_from_slice(&[-1.372, 2.616]);
    k[((6 + 5) * 2) * 2..][..4].copy_from_slice(&[0.5, f64::MAX, -3.912, 0.7]);
    // Every pattern over the two keys, rows wholly masked included.
    let mut mask: Vec<bool> = (0..30usize).map(|i| (i * 7 + i / 3) % 3 != 0).collect();
    mask[(5 + 1) * 2] = false;
    mask[(5 + 1) * 2 + 1] = true;
    let got = batch_mask(
        &Tensor::<f64, Shape![3, 6, 5, 2]>::from_vec(q.clone()).unwrap(),
        &Tensor::<f64, Shape![3, 6, 2, 2]>::from_vec(k.clone()).unwrap(),
        &Tensor::<f64, Shape![3, 6, 2, 3]>::from_vec(v.clone()).unwrap(),
        &Tensor::<bool, Shape![3, 1, 5, 2]>::from_vec(mask.clone()).unwrap(),
    );
    let want = reference(
        &q,
        &k,
        &v,
        &s,
        1.0 / 2f64.sqrt(),
        0.0,
        false,
        &|b, _h, i, j| {
            if mask[(b * 5 + i) * 2 + j] {
                0.0
            } else {
                f64::NEG_INFINITY
            }
        },
    );
    for (n, (g, w)) in got.as_slice().iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-12, "element {n}: {g} vs {w}");
    }
}

graph! {
    fn nan_rows64(q: f64[1, 1, 3, 2], k: f64[1, 1, 4, 2], v: f64[1, 1, 4, 2]) -> f64[1, 1, 3, 2] {
        attention(q, k, v)
    }
    fn nan_rows32(q: f32[1, 1, 3, 2], k: f32[1, 1, 4, 2], v: f32[1, 1, 4, 2]) -> f32[1, 1, 3, 2] {
        attention(q, k, v)
    }
}

/// A NaN score of a key that is not masked makes its row NaN (softmax of a NaN), whether
/// every score of the row is NaN (a NaN query) or one (a NaN key element) — seed 48, graph
/// 754: an all-NaN row was written as 0, as if every key were masked.
#[test]
fn nan_scores_make_their_rows_nan() {
    let q = [f64::NAN, 1.0, 0.5, -0.5, 1.0, 2.0];
    let k = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, -1.0, 0.5];
    let v = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let y = nan_rows64(
        &Tensor::<f64, Shape![1, 1, 3, 2]>::from_vec(q.to_vec()).unwrap(),
        &Tensor::<f64, Shape![1, 1, 4, 2]>::from_vec(k.to_vec()).unwrap(),
        &Tensor::<f64, Shape![1, 1, 4, 2]>::from_vec(v.to_vec()).unwrap(),
    );
    let f32s = |a: &[f64]| a.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let y32 = nan_rows32(
        &Tensor::<f32, Shape![1, 1, 3, 2]>::from_vec(f32s(&q)).unwrap(),
        &Tensor::<f32, Shape![1, 1, 4, 2]>::from_vec(f32s(&k)).unwrap(),
        &Tensor::<f32, Shape![1, 1, 4, 2]>::from_vec(f32s(&v)).unwrap(),
    );
    // Row 0 has a NaN query: every score NaN. Rows 1 and 2 are finite.
    assert!(
        y.as_slice()[..2].iter().all(|x| x.is_nan()),
        "{:?}",
        y.as_slice()
    );
    assert!(
        y.as_slice()[2..].iter().all(|x| x.is_finite()),
        "{:?}",
        y.as_slice()
    );
    assert!(
        y32.as_slice()[..2].iter().all(|x| x.is_nan()),
        "{:?}",
        y32.as_slice()
    );
    assert!(
        y32.as_slice()[2..].iter().all(|x| x.is_finite()),
        "{:?}",
        y32.as_slice()
    );
    // One NaN key element: every row that sees that key is NaN.
    let mut k2 = k;
    k2[3] = f64::NAN;
    let q2 = [1.0, 1.0, 0.5, -0.5, 1.0, 2.0];
    let y = nan_rows64(
        &Tensor::<f64, Shape![1, 1, 3, 2]>::from_vec(q2.to_vec()).unwrap(),
        &Tensor::<f64, Shape![1, 1, 4, 2]>::from_vec(k2.to_vec()).unwrap(),
        &Tensor::<f64, Shape![1, 1, 4, 2]>::from_vec(v.to_vec()).unwrap(),
    );
    let y32 = nan_rows32(
        &Tensor::<f32, Shape![1, 1, 3, 2]>::from_vec(f32s(&q2)).unwrap(),
        &Tensor::<f32, Shape![1, 1, 4, 2]>::from_vec(f32s(&k2)).unwrap(),
        &Tensor::<f32, Shape![1, 1, 4, 2]>::from_vec(f32s(&v)).unwrap(),
    );
    assert!(
        y.as_slice().iter().all(|x| x.is_nan()),
        "{:?}",
        y.as_slice()
    );
    assert!(
        y32.as_slice().iter().all(|x| x.is_nan()),
        "{:?}",
        y32.as_slice()
    );
}
