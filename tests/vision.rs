//! The normalisations, global pools and block rearrangements (ONNX semantics, NCHW)
//! against loops over their ONNX definitions in f64.

use tensorgraph::prelude::*;

graph! {
    fn bn(x: f32[N, 3, 2, 5], s: f32[3], b: f32[3], m: f32[3], v: f32[3]) -> f32[N, 3, 2, 5] {
        batch_norm(x, s, b, m, v, epsilon = 1e-3)
    }
    fn inorm(x: f64[2, 3, 4, 5], s: f64[3], b: f64[3]) -> f64[2, 3, 4, 5] { instance_norm(x, s, b) }
    fn gnorm(x: f64[N, 6, 2, 3], s: f64[6], b: f64[6]) -> f64[N, 6, 2, 3] { group_norm(x, s, b, num_groups = 3) }
    fn mvn(x: f64[2, 3, 4, 5]) -> f64[2, 3, 4, 5] { mean_variance_normalization(x) }
    fn local(x: f64[2, 7, 3, 3]) -> f64[2, 7, 3, 3] { lrn(x, size = 3, alpha = 0.001, beta = 0.75, bias = 2.0) }
    fn pools(x: f32[2, 3, 4, 5]) -> (f32[2, 3, 1, 1], f32[2, 3, 1, 1], f32[2, 3, 1, 1]) {
        (global_average_pool(x), global_max_pool(x), global_lp_pool(x, p = 3.0))
    }
    fn s2d(x: i32[N, 2, 4, 6]) -> i32[N, 8, 2, 3] { space_to_depth(x, blocksize = 2) }
    fn d2s(x: i32[1, 8, 2, 3]) -> (i32[1, 2, 4, 6], i32[1, 2, 4, 6]) {
        (depth_to_space(x, blocksize = 2), depth_to_space(x, blocksize = 2, mode = crd))
    }
}

fn data(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7919 % 113) as f64) * 0.05 - 2.5)
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// Mean and (population) variance over the elements `at` picks.
fn stats(x: &[f64], at: &[usize]) -> (f64, f64) {
    let n = at.len() as f64;
    let m = at.iter().map(|&i| x[i]).sum::<f64>() / n;
    (m, at.iter().map(|&i| (x[i] - m).powi(2)).sum::<f64>() / n)
}

#[test]
fn normalisations() {
    let n = 3;
    let x = data(n * 30);
    let p = |k: usize| -> Vec<f32> { (0..3).map(|c| (c + k) as f32 * 0.5 + 0.25).collect() };
    let (s, b, m, v) = (p(1), p(2), p(3), p(4));
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let y = bn(&x32, &s[..], &b[..], &m[..], &v[..]).unwrap();
    for i in 0..n * 30 {
        let c = (i / 10) % 3;
        let want =
            (x32[i] as f64 - m[c] as f64) / (v[c] as f64 + 1e-3).sqrt() * s[c] as f64 + b[c] as f64;
        assert!(close(y.as_slice()[i] as f64, want, 1e-5), "bn {i}");
    }

    let x = data(120);
    let (s, b) = ([0.5, 1.0, 2.0], [0.0, -1.0, 0.25]);
    let y = inorm(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(s.to_vec()).unwrap(),
        &Tensor::from_vec(b.to_vec()).unwrap(),
    );
    for nc in 0..6 {
        let at: Vec<usize> = (nc * 20..(nc + 1) * 20).collect();
        let (m, v) = stats(&x, &at);
        for &i in &at {
            let want = (x[i] - m) / (v + 1e-5).sqrt() * s[nc % 3] + b[nc % 3];
            assert!(close(y.as_slice()[i], want, 1e-12), "instance_norm {i}");
        }
    }

    for n in [1usize, 2] {
        let x = data(n * 36);
        let s: Vec<f64> = (0..6).map(|c| 1.0 + c as f64 * 0.1).collect();
        let b: Vec<f64> = (0..6).map(|c| c as f64 * -0.2).collect();
        let xt =
            Tensor::<f64, Shape![_, 6, 2, 3]>::from_shape_vec([n, 6, 2, 3], x.clone()).unwrap();
        let y = gnorm(&xt, &s[..], &b[..]).unwrap();
        for ng in 0..n * 3 {
            let at: Vec<usize> = (ng * 12..(ng + 1) * 12).collect();
            let (m, v) = stats(&x, &at);
            for &i in &at {
                let c = (i / 6) % 6;
                let want = (x[i] - m) / (v + 1e-5).sqrt() * s[c] + b[c];
                assert!(close(y.as_slice()[i], want, 1e-12), "group_norm {i}");
            }
        }
    }

    let x = data(120);
    let y = mvn(&Tensor::from_vec(x.clone()).unwrap());
    for c in 0..3 {
        let at: Vec<usize> = (0..120).filter(|i| (i / 20) % 3 == c).collect();
        let (m, v) = stats(&x, &at);
        for &i in &at {
            let want = (x[i] - m) / (v.sqrt() + 1e-9);
            assert!(close(y.as_slice()[i], want, 1e-12), "mvn {i}");
        }
    }

    let x = data(2 * 7 * 9);
    let y = local(&Tensor::from_vec(x.clone()).unwrap());
    for i in 0..x.len() {
        let (n, c, p) = (i / 63, (i / 9) % 7, i % 9);
        let lo = c.saturating_sub(1);
        let hi = (c + 1).min(6);
        let sq: f64 = (lo..=hi).map(|k| x[n * 63 + k * 9 + p].powi(2)).sum();
        let want = x[i] / (2.0 + 0.001 / 3.0 * sq).powf(0.75);
        assert!(close(y.as_slice()[i], want, 1e-12), "lrn {i}");
    }
}

#[test]
fn pools_and_rearrangements() {
    let x: Vec<f32> = data(120).iter().map(|&v| v as f32).collect();
    let (avg, mx, lp) = pools(&Tensor::from_vec(x.clone()).unwrap());
    for nc in 0..6 {
        let part = &x[nc * 20..(nc + 1) * 20];
        let mean = part.iter().map(|&v| v as f64).sum::<f64>() / 20.0;
        assert!(close(avg.as_slice()[nc] as f64, mean, 1e-6));
        assert_eq!(
            mx.as_slice()[nc],
            part.iter().copied().fold(f32::NEG_INFINITY, f32::max)
        );
        let l3 = part
            .iter()
            .map(|&v| (v as f64).abs().powi(3))
            .sum::<f64>()
            .powf(1.0 / 3.0);
        assert!(
            close(lp.as_slice()[nc] as f64, l3, 1e-5),
            "{} vs {l3}",
            lp.as_slice()[nc]
        );
    }
    // ONNX SpaceToDepth / DepthToSpace: index maps written out.
    for n in [1usize, 2] {
        let x: Vec<i32> = (0..(n * 48) as i32).collect();
        let xt =
            Tensor::<i32, Shape![_, 2, 4, 6]>::from_shape_vec([n, 2, 4, 6], x.clone()).unwrap();
        let y = s2d(&xt).unwrap();
        for b in 0..n {
            for c in 0..2 {
                for h in 0..4 {
                    for w in 0..6 {
                        let oc = ((h % 2) * 2 + w % 2) * 2 + c;
                        assert_eq!(y[[b, oc, h / 2, w / 2]], x[((b * 2 + c) * 4 + h) * 6 + w]);
                    }
                }
            }
        }
    }
    let x: Vec<i32> = (0..48).collect();
    let (dcr, crd) = d2s(&Tensor::from_vec(x.clone()).unwrap());
    for c in 0..2 {
        for h in 0..4 {
            for w in 0..6 {
                let (bh, bw) = (h % 2, w % 2);
                let dcr_c = (bh * 2 + bw) * 2 + c;
                let crd_c = c * 4 + bh * 2 + bw;
                assert_eq!(dcr[[0, c, h, w]], x[(dcr_c * 2 + h / 2) * 3 + w / 2]);
                assert_eq!(crd[[0, c, h, w]], x[(crd_c * 2 + h / 2) * 3 + w / 2]);
            }
        }
    }
}

graph! {
    fn maxp(x: f32[1, 2, 5, 6]) -> (f32[1, 2, 3, 3], f32[1, 2, 3, 3]) {
        (max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]),
         max_pool(x, kernel_shape = [2, 2], strides = [2, 2], ceil_mode = true))
    }
    fn avgp(x: f64[2, 1, 4, 4]) -> (f64[2, 1, 4, 4], f64[2, 1, 4, 4], f64[2, 1, 1, 1]) {
        (average_pool(x, kernel_shape = [3, 3], pads = [1, 1, 1, 1]),
         average_pool(x, kernel_shape = [3, 3], pads = [1, 1, 1, 1], count_include_pad = true),
         lp_pool(x, kernel_shape = [2, 2], strides = [2, 2], dilations = [2, 2], p = 2.0))
    }
    fn pool1d(x: f32[3, 2, 9]) -> f32[3, 2, 3] { max_pool(x, kernel_shape = [3], strides = [2], dilations = [2]) }
}

/// ONNX pooling over one [H, W] plane, written out: `kind` 0 max, 1 average without pads,
/// 2 average with pads, 3 L2; windows clipped to the padded input (ceil mode).
#[allow(clippy::too_many_arguments)]
fn pool2d(
    x: &[f64],
    h: usize,
    w: usize,
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 4],
    d: [usize; 2],
    ceil: bool,
    kind: u8,
) -> Vec<f64> {
    let out = |len: usize, a: usize| {
        let span = (k[a] - 1) * d[a] + 1;
        let room = len + p[a] + p[2 + a] - span;
        if ceil {
            room.div_ceil(s[a]) + 1
        } else {
            room / s[a] + 1
        }
    };
    let (oh, ow) = (out(h, 0), out(w, 1));
    let mut y = Vec::new();
    for i in 0..oh {
        for j in 0..ow {
            let (mut acc, mut n) = (if kind == 0 { f64::NEG_INFINITY } else { 0.0 }, 0usize);
            for a in 0..k[0] {
                for b in 0..k[1] {
                    let r = (i * s[0] + a * d[0]) as isize - p[0] as isize;
                    let c = (j * s[1] + b * d[1]) as isize - p[1] as isize;
                    let inside = r >= 0 && c >= 0 && (r as usize) < h && (c as usize) < w;
                    let v = if inside {
                        x[r as usize * w + c as usize]
                    } else {
                        0.0
                    };
                    match kind {
                        0 if inside => acc = acc.max(v),
                        0 => {}
                        3 => acc += v * v,
                        _ => acc += v,
                    }
                    n += inside as usize;
                }
            }
            y.push(match kind {
                1 => acc / n as f64,
                2 => acc / (k[0] * k[1]) as f64,
                3 => acc.sqrt(),
                _ => acc,
            });
        }
    }
    y
}

#[test]
fn pooling() {
    let x: Vec<f32> = data(60).iter().map(|&v| v as f32).collect();
    let (a, b) = maxp(&Tensor::from_vec(x.clone()).unwrap());
    for c in 0..2 {
        let plane: Vec<f64> = x[c * 30..(c + 1) * 30].iter().map(|&v| v as f64).collect();
        let want = pool2d(&plane, 5, 6, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], false, 0);
        assert_eq!(
            a.as_slice()[c * 9..(c + 1) * 9]
                .iter()
                .map(|&v| v as f64)
                .collect::<Vec<_>>(),
            want
        );
        let want = pool2d(&plane, 5, 6, [2, 2], [2, 2], [0; 4], [1, 1], true, 0);
        assert_eq!(
            b.as_slice()[c * 9..(c + 1) * 9]
                .iter()
                .map(|&v| v as f64)
                .collect::<Vec<_>>(),
            want
        );
    }
    let x = data(32);
    let (avg, avg_pad, lp) = avgp(&Tensor::from_vec(x.clone()).unwrap());
    for n in 0..2 {
        let plane = &x[n * 16..(n + 1) * 16];
        for (got, kind) in [(&avg, 1u8), (&avg_pad, 2)] {
            let want = pool2d(
                plane,
                4,
                4,
                [3, 3],
                [1, 1],
                [1, 1, 1, 1],
                [1, 1],
                false,
                kind,
            );
            for (g, w) in got.as_slice()[n * 16..(n + 1) * 16].iter().zip(&want) {
                assert!(close(*g, *w, 1e-12), "average kind {kind}: {g} vs {w}");
            }
        }
        let want = pool2d(plane, 4, 4, [2, 2], [2, 2], [0; 4], [2, 2], false, 3);
        assert_eq!(want.len(), 1);
        for (g, w) in lp.as_slice()[n..n + 1].iter().zip(&want) {
            assert!(close(*g, *w, 1e-12), "lp: {g} vs {w}");
        }
    }
    let x: Vec<f32> = data(54).iter().map(|&v| v as f32).collect();
    let y = pool1d(&Tensor::from_vec(x.clone()).unwrap());
    for line in 0..6 {
        for o in 0..3 {
            let want = (0..3)
                .map(|k| x[line * 9 + o * 2 + k * 2])
                .fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(y.as_slice()[line * 3 + o], want);
        }
    }
}

graph! {
    fn conv2d(x: f32[N, 3, 7, 6], w: f32[4, 3, 3, 3], b: f32[4]) -> f32[N, 4, 4, 3] {
        relu(conv(x, w, b, strides = [2, 2], pads = [1, 1, 1, 1]))
    }
    fn conv_grouped(x: f64[1, 4, 5, 5], w: f64[6, 2, 2, 2]) -> f64[1, 6, 3, 4] {
        conv(x, w, group = 2, dilations = [2, 1], strides = [1, 1])
    }
    fn depthwise(x: f32[2, 3, 6, 6], w: f32[3, 1, 3, 3]) -> f32[2, 3, 6, 6] {
        conv(x, w, group = 3, pads = [1, 1, 1, 1])
    }
    fn conv1d(x: f64[2, 2, 9], w: f64[3, 2, 4]) -> f64[2, 3, 3] { conv(x, w, strides = [2]) }
}

/// ONNX Conv (NCHW, 2-D), written out in f64.
#[allow(clippy::too_many_arguments)]
fn conv_ref(
    x: &[f64],
    xd: [usize; 4],
    w: &[f64],
    wd: [usize; 4],
    b: Option<&[f64]>,
    s: [usize; 2],
    p: [usize; 4],
    d: [usize; 2],
    g: usize,
) -> (Vec<f64>, [usize; 4]) {
    let [n, c, h, wi] = xd;
    let [o, cg, kh, kw] = wd;
    let oh = (h + p[0] + p[2] - (kh - 1) * d[0] - 1) / s[0] + 1;
    let ow = (wi + p[1] + p[3] - (kw - 1) * d[1] - 1) / s[1] + 1;
    let opg = o / g;
    let mut y = vec![0.0; n * o * oh * ow];
    for bn in 0..n {
        for oc in 0..o {
            let grp = oc / opg;
            for i in 0..oh {
                for j in 0..ow {
                    let mut acc = b.map_or(0.0, |b| b[oc]);
                    for ci in 0..cg {
                        let ic = grp * cg + ci;
                        for a in 0..kh {
                            for e in 0..kw {
                                let r = (i * s[0] + a * d[0]) as isize - p[0] as isize;
                                let q = (j * s[1] + e * d[1]) as isize - p[1] as isize;
                                if r >= 0 && q >= 0 && (r as usize) < h && (q as usize) < wi {
                                    acc += x[((bn * c + ic) * h + r as usize) * wi + q as usize]
                                        * w[((oc * cg + ci) * kh + a) * kw + e];
                                }
                            }
                        }
                    }
                    y[((bn * o + oc) * oh + i) * ow + j] = acc;
                }
            }
        }
    }
    (y, [n, o, oh, ow])
}

#[test]
fn convolutions_as_onnx() {
    for n in [1usize, 2] {
        let x = data(n * 3 * 42);
        let w: Vec<f64> = data(108).iter().map(|v| v * 0.3).collect();
        let b = [0.5, -0.25, 0.0, 1.0];
        let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
        let xt = Tensor::<f32, Shape![_, 3, 7, 6]>::from_shape_vec([n, 3, 7, 6], f(&x)).unwrap();
        let y = conv2d(&xt, &f(&w)[..], &f(&b)[..]).unwrap();
        let x64: Vec<f64> = f(&x).iter().map(|&v| v as f64).collect();
        let w64: Vec<f64> = f(&w).iter().map(|&v| v as f64).collect();
        let (want, dims) = conv_ref(
            &x64,
            [n, 3, 7, 6],
            &w64,
            [4, 3, 3, 3],
            Some(&b),
            [2, 2],
            [1, 1, 1, 1],
            [1, 1],
            1,
        );
        assert_eq!(dims, [n, 4, 4, 3]);
        for (g, wv) in y.as_slice().iter().zip(&want) {
            assert!(
                close(*g as f64, wv.max(0.0), 1e-5),
                "{g} vs {}",
                wv.max(0.0)
            );
        }
    }
    let x = data(100);
    let w = data(48);
    let y = conv_grouped(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(w.clone()).unwrap(),
    );
    let (want, _) = conv_ref(
        &x,
        [1, 4, 5, 5],
        &w,
        [6, 2, 2, 2],
        None,
        [1, 1],
        [0; 4],
        [2, 1],
        2,
    );
    for (g, wv) in y.as_slice().iter().zip(&want) {
        assert!(close(*g, *wv, 1e-12), "grouped: {g} vs {wv}");
    }
    let x: Vec<f32> = data(216).iter().map(|&v| v as f32).collect();
    let w: Vec<f32> = data(27).iter().map(|&v| v as f32).collect();
    let y = depthwise(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(w.clone()).unwrap(),
    );
    let (want, _) = conv_ref(
        &x.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        [2, 3, 6, 6],
        &w.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        [3, 1, 3, 3],
        None,
        [1, 1],
        [1, 1, 1, 1],
        [1, 1],
        3,
    );
    for (g, wv) in y.as_slice().iter().zip(&want) {
        assert!(close(*g as f64, *wv, 1e-5), "depthwise: {g} vs {wv}");
    }
    // 1-D as 2-D with a height of 1.
    let x = data(36);
    let w = data(24);
    let y = conv1d(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(w.clone()).unwrap(),
    );
    let (want, _) = conv_ref(
        &x,
        [2, 2, 1, 9],
        &w,
        [3, 2, 1, 4],
        None,
        [1, 2],
        [0; 4],
        [1, 1],
        1,
    );
    for (g, wv) in y.as_slice().iter().zip(&want) {
        assert!(close(*g, *wv, 1e-12), "1-D: {g} vs {wv}");
    }
}
