//! examples/resnet_block: the network's logits against the same network written as f64
//! loops here (ONNX's Conv, BatchNormalization, GlobalAveragePool, Gemm definitions), for
//! images of several run-time sizes, 1 × 1 included (every window mostly padding).

#[path = "../examples/resnet_block/model.rs"]
#[allow(dead_code)]
mod model;

use model::{image, imagenet_stats, preprocess, Norm, Rng, Weights, C, CLASSES};

/// `[ch, h, w]` planes in f64.
struct Planes {
    ch: usize,
    h: usize,
    w: usize,
    v: Vec<f64>,
}

impl Planes {
    fn at(&self, c: usize, i: isize, j: isize) -> f64 {
        if i < 0 || j < 0 || i >= self.h as isize || j >= self.w as isize {
            0.0
        } else {
            self.v[(c * self.h + i as usize) * self.w + j as usize]
        }
    }
}

/// A 3 × 3 convolution, stride 1, one pixel of zero padding on every side.
fn conv3(x: &Planes, w: &[f32], outs: usize) -> Planes {
    let mut v = vec![0.0; outs * x.h * x.w];
    for o in 0..outs {
        for i in 0..x.h {
            for j in 0..x.w {
                let mut acc = 0.0;
                for c in 0..x.ch {
                    for di in 0..3 {
                        for dj in 0..3 {
                            let wv = w[((o * x.ch + c) * 3 + di) * 3 + dj] as f64;
                            acc += wv
                                * x.at(
                                    c,
                                    i as isize + di as isize - 1,
                                    j as isize + dj as isize - 1,
                                );
                        }
                    }
                }
                v[(o * x.h + i) * x.w + j] = acc;
            }
        }
    }
    Planes {
        ch: outs,
        h: x.h,
        w: x.w,
        v,
    }
}

/// Inference batch norm (epsilon 1e-5), then `relu` when asked.
fn norm(x: &mut Planes, n: &Norm, relu: bool) {
    let f =
        |t: &tensorgraph::Tensor<f32, tensorgraph::Shape![16]>, c: usize| t.as_slice()[c] as f64;
    let hw = x.h * x.w;
    for c in 0..x.ch {
        for e in &mut x.v[c * hw..(c + 1) * hw] {
            let y = (*e - f(&n.mean, c)) / (f(&n.var, c) + 1e-5).sqrt() * f(&n.scale, c)
                + f(&n.bias, c);
            *e = if relu { y.max(0.0) } else { y };
        }
    }
}

fn reference(img: &[u8], h: usize, w: usize, wt: &Weights) -> Vec<f64> {
    let (mean, std) = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
    let mut x = Planes {
        ch: 3,
        h,
        w,
        v: vec![0.0; 3 * h * w],
    };
    for i in 0..h {
        for j in 0..w {
            for c in 0..3 {
                let p = img[(i * w + j) * 3 + c] as f64 / 255.0;
                x.v[(c * h + i) * w + j] = (p - mean[c] as f32 as f64) / (std[c] as f32 as f64);
            }
        }
    }
    let mut h0 = conv3(&x, wt.w0.as_slice(), C);
    norm(&mut h0, &wt.n0, true);
    let mut h1 = conv3(&h0, wt.w1.as_slice(), C);
    norm(&mut h1, &wt.n1, true);
    let mut h2 = conv3(&h1, wt.w2.as_slice(), C);
    norm(&mut h2, &wt.n2, false);
    let hw = h * w;
    let pooled: Vec<f64> = (0..C)
        .map(|c| {
            (0..hw)
                .map(|e| (h2.v[c * hw + e] + h0.v[c * hw + e]).max(0.0))
                .sum::<f64>()
                / hw as f64
        })
        .collect();
    (0..CLASSES)
        .map(|k| {
            wt.bc.as_slice()[k] as f64
                + (0..C)
                    .map(|c| pooled[c] * wt.wc.as_slice()[c * CLASSES + k] as f64)
                    .sum::<f64>()
        })
        .collect()
}

#[test]
fn logits_match_the_network_in_f64() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(7);
    let weights = Weights::new(&mut rng)?;
    let (mean, std) = imagenet_stats()?;
    for (h, w) in [(5, 7), (1, 1), (8, 3), (16, 16)] {
        let img = image(h, w, &mut rng)?;
        let x = preprocess(&img, &mean, &std)?;
        let got = weights.logits(&x)?;
        let want = reference(img.as_slice(), h, w, &weights);
        let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let spread = want.iter().fold(f64::MIN, |m, &v| m.max(v))
            - want.iter().fold(f64::MAX, |m, &v| m.min(v));
        assert!(
            spread > 1e-3,
            "{h}x{w}: the logits should differ ({want:?})"
        );
        for (k, (&g, &r)) in got.iter().zip(&want).enumerate() {
            // f32 sums of at most 144 products per layer, three layers: well inside 1e-4.
            assert!(
                (g as f64 - r).abs() <= 1e-4 * scale,
                "{h}x{w} class {k}: {g} vs {r}"
            );
        }
    }
    Ok(())
}
