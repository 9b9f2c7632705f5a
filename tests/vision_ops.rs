//! Issue 31's vision ops (ONNX semantics, NCHW) against references written here from the
//! ONNX operator specs, in f64 loops over any number of spatial axes: `auto_pad` for `conv`
//! and the pools, `conv_transpose`, `max_pool_with_indices`, `resize`.

use tensorgraph::prelude::*;
use tensorgraph::{f16, Element};

fn data(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7919 % 113) as f64) * 0.05 - 2.5)
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * b.abs().max(1.0)
}

fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w, tol), "{what} [{i}]: {g} vs {w}");
    }
}

/// A tensor of the shape the call expects.
fn t<T: Element, S: Shape>(v: &[T]) -> Tensor<T, S> {
    Tensor::from_vec(v.to_vec()).unwrap()
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

fn wide<T: Copy + Into<f64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

/// ONNX's `auto_pad` rule (Conv and the pools): `valid` no padding; `same_upper`/`same_lower`
/// output `ceil(L / s)`, `pad = (out - 1)·s + (k - 1)·d + 1 - L`, the odd one at the end for
/// `same_upper`, at the beginning for `same_lower`. Returns every begin, then every end.
fn onnx_auto_pad(mode: &str, lens: &[usize], k: &[usize], s: &[usize], d: &[usize]) -> Vec<usize> {
    let r = lens.len();
    let mut pads = vec![0; 2 * r];
    if mode == "valid" {
        return pads;
    }
    for a in 0..r {
        let out = lens[a].div_ceil(s[a]);
        let need = ((out - 1) * s[a] + (k[a] - 1) * d[a] + 1) as isize - lens[a] as isize;
        let need = need.max(0) as usize;
        let (head, tail) = if mode == "same_upper" {
            (need / 2, need - need / 2)
        } else {
            (need - need / 2, need / 2)
        };
        pads[a] = head;
        pads[r + a] = tail;
    }
    pads
}

/// Row-major strides of `dims`.
fn strides_of(dims: &[usize]) -> Vec<usize> {
    let mut st = vec![1; dims.len()];
    for a in (0..dims.len().saturating_sub(1)).rev() {
        st[a] = st[a + 1] * dims[a + 1];
    }
    st
}

/// Every multi-index of `dims`, the last fastest.
fn positions(dims: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = dims.iter().product();
    let st = strides_of(dims);
    (0..total)
        .map(|f| dims.iter().zip(&st).map(|(&n, &s)| f / s % n).collect())
        .collect()
}

/// ONNX `Conv` over any number of spatial axes (pads: every begin, then every end).
#[allow(clippy::too_many_arguments)]
fn conv_ref(
    x: &[f64],
    xd: &[usize],
    w: &[f64],
    wd: &[usize],
    b: Option<&[f64]>,
    s: &[usize],
    p: &[usize],
    d: &[usize],
    g: usize,
) -> (Vec<f64>, Vec<usize>) {
    let r = xd.len() - 2;
    let (n, c, o, cg) = (xd[0], xd[1], wd[0], wd[1]);
    let mut od = vec![n, o];
    for a in 0..r {
        od.push((xd[2 + a] + p[a] + p[r + a] - (wd[2 + a] - 1) * d[a] - 1) / s[a] + 1);
    }
    let (xs, ws) = (strides_of(xd), strides_of(wd));
    let opg = o / g;
    let kpos = positions(&wd[2..]);
    let mut y = Vec::new();
    for at in positions(&od) {
        let (bn, oc) = (at[0], at[1]);
        let mut acc = b.map_or(0.0, |b| b[oc]);
        for ci in 0..cg {
            let ic = (oc / opg) * cg + ci;
            'k: for k in &kpos {
                let mut xi = bn * xs[0] + ic * xs[1];
                for a in 0..r {
                    let q = (at[2 + a] * s[a] + k[a] * d[a]) as isize - p[a] as isize;
                    if q < 0 || q as usize >= xd[2 + a] {
                        continue 'k;
                    }
                    xi += q as usize * xs[2 + a];
                }
                let mut wi = oc * ws[0] + ci * ws[1];
                for a in 0..r {
                    wi += k[a] * ws[2 + a];
                }
                acc += x[xi] * w[wi];
            }
        }
        y.push(acc);
    }
    let _ = c;
    (y, od)
}

#[derive(Clone, Copy, PartialEq)]
enum Pool {
    Max,
    Average { include_pad: bool },
    Lp(f64),
}

/// ONNX's pools over any number of spatial axes: the values, and for `Max` the flat NCHW
/// index of each window's maximum (the first one in window order; the first NaN when the
/// window holds one, whose value is then NaN). Output lengths as ONNX (`ceil_mode`).
#[allow(clippy::too_many_arguments)]
fn pool_ref(
    x: &[f64],
    xd: &[usize],
    kind: Pool,
    k: &[usize],
    s: &[usize],
    p: &[usize],
    d: &[usize],
    ceil: bool,
) -> (Vec<f64>, Vec<i64>, Vec<usize>) {
    let r = xd.len() - 2;
    let mut od = vec![xd[0], xd[1]];
    for a in 0..r {
        let room = xd[2 + a] + p[a] + p[r + a] - (k[a] - 1) * d[a] - 1;
        od.push(
            if ceil {
                room.div_ceil(s[a])
            } else {
                room / s[a]
            } + 1,
        );
    }
    let xs = strides_of(xd);
    let kpos = positions(k);
    let (mut y, mut idx) = (Vec::new(), Vec::new());
    for at in positions(&od) {
        let base = at[0] * xs[0] + at[1] * xs[1];
        let (mut best, mut best_i): (Option<f64>, i64) = (None, -1);
        let (mut sum, mut count) = (0.0, 0usize);
        'k: for kk in &kpos {
            let mut xi = base;
            for a in 0..r {
                let q = (at[2 + a] * s[a] + kk[a] * d[a]) as isize - p[a] as isize;
                if q < 0 || q as usize >= xd[2 + a] {
                    continue 'k;
                }
                xi += q as usize * xs[2 + a];
            }
            let v = x[xi];
            count += 1;
            match kind {
                Pool::Max => {
                    let take = match best {
                        None => true,
                        Some(b) => !b.is_nan() && (v.is_nan() || v > b),
                    };
                    if take {
                        best = Some(v);
                        best_i = xi as i64;
                    }
                }
                Pool::Average { .. } => sum += v,
                Pool::Lp(pw) => sum += v.abs().powf(pw),
            }
        }
        y.push(match kind {
            Pool::Max => best.unwrap_or(f64::NEG_INFINITY),
            Pool::Average { include_pad: false } => sum / count as f64,
            Pool::Average { include_pad: true } => sum / kpos.len() as f64,
            Pool::Lp(pw) => sum.powf(1.0 / pw),
        });
        idx.push(best_i);
    }
    (y, idx, od)
}

// ---------------------------------------------------------------------------------------
// auto_pad

graph! {
    fn conv_upper(x: f32[1, 2, 7, 5], w: f32[3, 2, 4, 3], b: f32[3]) -> f32[1, 3, 7, 5] {
        conv(x, w, b, auto_pad = same_upper)
    }
    fn conv_lower(x: f32[1, 2, 7, 5], w: f32[3, 2, 4, 3], b: f32[3]) -> f32[1, 3, 7, 5] {
        conv(x, w, b, auto_pad = same_lower)
    }
    fn conv_upper_strided(x: f64[2, 4, 9, 7], w: f64[2, 2, 3, 2]) -> f64[2, 2, 5, 3] {
        conv(x, w, strides = [2, 3], dilations = [2, 1], group = 2, auto_pad = same_upper)
    }
    fn conv_lower_strided(x: f64[2, 4, 9, 7], w: f64[2, 2, 3, 2]) -> f64[2, 2, 5, 3] {
        conv(x, w, strides = [2, 3], dilations = [2, 1], group = 2, auto_pad = same_lower)
    }
    fn conv_valid(x: f64[1, 2, 8], w: f64[1, 2, 3]) -> f64[1, 1, 2] {
        conv(x, w, strides = [3], auto_pad = valid)
    }
    fn conv_notset(x: f64[1, 2, 8], w: f64[1, 2, 3]) -> f64[1, 1, 6] {
        conv(x, w, auto_pad = notset)
    }
    fn conv3d_lower(x: f32[1, 1, 3, 4, 1], w: f32[2, 1, 2, 3, 1]) -> f32[1, 2, 3, 4, 1] {
        conv(x, w, auto_pad = same_lower)
    }
    fn depthwise_upper(x: f32[1, 3, 5, 5], w: f32[3, 1, 2, 2]) -> f32[1, 3, 5, 5] {
        conv(x, w, group = 3, auto_pad = same_upper)
    }
    fn conv_half(x: f16[1, 1, 4, 3], w: f16[1, 1, 2, 2]) -> f16[1, 1, 4, 3] {
        conv(x, w, auto_pad = same_lower)
    }
    fn conv_stride_past(x: f64[1, 1, 5], w: f64[1, 1, 1]) -> f64[1, 1, 2] {
        conv(x, w, strides = [3], auto_pad = same_upper)
    }
    fn max_upper(x: f32[1, 2, 5, 6]) -> f32[1, 2, 3, 3] {
        max_pool(x, kernel_shape = [2, 3], strides = [2, 2], auto_pad = same_upper)
    }
    fn max_lower(x: f32[1, 2, 5, 6]) -> f32[1, 2, 3, 3] {
        max_pool(x, kernel_shape = [2, 3], strides = [2, 2], auto_pad = same_lower)
    }
    fn avg_lower(x: f64[2, 1, 5, 5]) -> (f64[2, 1, 3, 3], f64[2, 1, 3, 3]) {
        (average_pool(x, kernel_shape = [2, 3], strides = [2, 2], auto_pad = same_lower),
         average_pool(x, kernel_shape = [2, 3], strides = [2, 2], auto_pad = same_lower,
                      count_include_pad = true))
    }
    fn lp_valid(x: f64[1, 2, 7]) -> f64[1, 2, 3] {
        lp_pool(x, kernel_shape = [3], strides = [2], auto_pad = valid, p = 3.0)
    }
    fn max3d_upper(x: f64[1, 1, 3, 1, 4]) -> f64[1, 1, 3, 1, 4] {
        max_pool(x, kernel_shape = [2, 1, 2], dilations = [1, 1, 2], auto_pad = same_upper)
    }
}

#[allow(clippy::too_many_arguments)]
fn check_conv(
    what: &str,
    got: &[f64],
    x: &[f64],
    xd: &[usize],
    w: &[f64],
    wd: &[usize],
    b: Option<&[f64]>,
    s: &[usize],
    d: &[usize],
    g: usize,
    mode: &str,
    tol: f64,
) {
    let p = onnx_auto_pad(mode, &xd[2..], &wd[2..], s, d);
    let (want, _) = conv_ref(x, xd, w, wd, b, s, &p, d, g);
    assert_close(what, got, &want, tol);
}

#[test]
fn conv_auto_pad_as_onnx() {
    let x = f32s(&data(70));
    let w = f32s(&data(72).iter().map(|v| v * 0.3).collect::<Vec<_>>());
    let b = [0.5f32, -0.25, 1.0];
    let (xw, ww, bw) = (wide(&x), wide(&w), wide(&b));
    let y = conv_upper(&t(&x), &t(&w), &t(&b));
    let (xd, wd) = ([1, 2, 7, 5], [3, 2, 4, 3]);
    check_conv(
        "same_upper",
        &wide(y.as_slice()),
        &xw,
        &xd,
        &ww,
        &wd,
        Some(&bw),
        &[1, 1],
        &[1, 1],
        1,
        "same_upper",
        1e-5,
    );
    let y = conv_lower(&t(&x), &t(&w), &t(&b));
    check_conv(
        "same_lower",
        &wide(y.as_slice()),
        &xw,
        &xd,
        &ww,
        &wd,
        Some(&bw),
        &[1, 1],
        &[1, 1],
        1,
        "same_lower",
        1e-5,
    );
    // The two differ (an odd total padding on the first axis).
    assert_ne!(conv_upper(&t(&x), &t(&w), &t(&b)).as_slice(), y.as_slice());

    let x = data(2 * 4 * 63);
    let w = data(2 * 2 * 6);
    let (xd, wd) = ([2, 4, 9, 7], [2, 2, 3, 2]);
    let y = conv_upper_strided(&t(&x), &t(&w));
    check_conv(
        "strided upper",
        y.as_slice(),
        &x,
        &xd,
        &w,
        &wd,
        None,
        &[2, 3],
        &[2, 1],
        2,
        "same_upper",
        1e-12,
    );
    let y = conv_lower_strided(&t(&x), &t(&w));
    check_conv(
        "strided lower",
        y.as_slice(),
        &x,
        &xd,
        &w,
        &wd,
        None,
        &[2, 3],
        &[2, 1],
        2,
        "same_lower",
        1e-12,
    );

    let x = data(16);
    let w = data(6);
    let y = conv_valid(&t(&x), &t(&w));
    check_conv(
        "valid",
        y.as_slice(),
        &x,
        &[1, 2, 8],
        &w,
        &[1, 2, 3],
        None,
        &[3],
        &[1],
        1,
        "valid",
        1e-12,
    );
    let y = conv_notset(&t(&x), &t(&w));
    check_conv(
        "notset",
        y.as_slice(),
        &x,
        &[1, 2, 8],
        &w,
        &[1, 2, 3],
        None,
        &[1],
        &[1],
        1,
        "valid",
        1e-12,
    );

    let x = f32s(&data(12));
    let w = f32s(&data(12));
    let y = conv3d_lower(&t(&x), &t(&w));
    check_conv(
        "3-D",
        &wide(y.as_slice()),
        &wide(&x),
        &[1, 1, 3, 4, 1],
        &wide(&w),
        &[2, 1, 2, 3, 1],
        None,
        &[1, 1, 1],
        &[1, 1, 1],
        1,
        "same_lower",
        1e-5,
    );

    let x = f32s(&data(75));
    let w = f32s(&data(12));
    let y = depthwise_upper(&t(&x), &t(&w));
    check_conv(
        "depthwise",
        &wide(y.as_slice()),
        &wide(&x),
        &[1, 3, 5, 5],
        &wide(&w),
        &[3, 1, 2, 2],
        None,
        &[1, 1],
        &[1, 1],
        3,
        "same_upper",
        1e-5,
    );

    let h = |v: &[f64]| v.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>();
    let (x, w) = (h(&data(12)), h(&[0.5, -1.0, 0.25, 2.0]));
    let y = conv_half(&t(&x), &t(&w));
    let back = |v: &[f16]| v.iter().map(|x| x.to_f64()).collect::<Vec<_>>();
    check_conv(
        "f16",
        &back(y.as_slice()),
        &back(&x),
        &[1, 1, 4, 3],
        &back(&w),
        &[1, 1, 2, 2],
        None,
        &[1, 1],
        &[1, 1],
        1,
        "same_lower",
        4e-3,
    );

    // A stride longer than the kernel: ONNX's padding would be negative; none is taken
    // and the output is still ceil(5 / 3) = 2 long.
    let x = data(5);
    let y = conv_stride_past(&t(&x), &t(&[2.0]));
    assert_eq!(y.as_slice(), &[2.0 * x[0], 2.0 * x[3]]);
}

#[test]
fn pool_auto_pad_as_onnx() {
    let mut x = data(60);
    x[7] = f64::NAN;
    x[40] = f64::INFINITY;
    x[45] = f64::NEG_INFINITY;
    let x32 = f32s(&x);
    let xd = [1, 2, 5, 6];
    for (mode, y) in [
        ("same_upper", max_upper(&t(&x32))),
        ("same_lower", max_lower(&t(&x32))),
    ] {
        let p = onnx_auto_pad(mode, &xd[2..], &[2, 3], &[2, 2], &[1, 1]);
        let (want, _, od) = pool_ref(
            &wide(&x32),
            &xd,
            Pool::Max,
            &[2, 3],
            &[2, 2],
            &p,
            &[1, 1],
            false,
        );
        assert_eq!(od, [1, 2, 3, 3]);
        assert_close(mode, &wide(y.as_slice()), &want, 0.0);
    }
    let x = data(50);
    let (a, b) = avg_lower(&t(&x));
    let p = onnx_auto_pad("same_lower", &[5, 5], &[2, 3], &[2, 2], &[1, 1]);
    assert_eq!(p, [1, 1, 0, 1]);
    let (want, _, _) = pool_ref(
        &x,
        &[2, 1, 5, 5],
        Pool::Average { include_pad: false },
        &[2, 3],
        &[2, 2],
        &p,
        &[1, 1],
        false,
    );
    assert_close("average", a.as_slice(), &want, 1e-12);
    let (want, _, _) = pool_ref(
        &x,
        &[2, 1, 5, 5],
        Pool::Average { include_pad: true },
        &[2, 3],
        &[2, 2],
        &p,
        &[1, 1],
        false,
    );
    assert_close("average with pads", b.as_slice(), &want, 1e-12);

    let x = data(14);
    let y = lp_valid(&t(&x));
    let (want, _, _) = pool_ref(
        &x,
        &[1, 2, 7],
        Pool::Lp(3.0),
        &[3],
        &[2],
        &[0, 0],
        &[1],
        false,
    );
    assert_close("lp valid", y.as_slice(), &want, 1e-12);

    let x = data(12);
    let y = max3d_upper(&t(&x));
    let p = onnx_auto_pad("same_upper", &[3, 1, 4], &[2, 1, 2], &[1, 1, 1], &[1, 1, 2]);
    let (want, _, _) = pool_ref(
        &x,
        &[1, 1, 3, 1, 4],
        Pool::Max,
        &[2, 1, 2],
        &[1, 1, 1],
        &p,
        &[1, 1, 2],
        false,
    );
    assert_close("3-D", y.as_slice(), &want, 0.0);
}

// ---------------------------------------------------------------------------------------
// conv_transpose

/// ONNX `ConvTranspose` as its definition scatters it: each input element times the
/// kernel lands at `i·stride + k·dilation - pad_begin`; output length `stride·(L - 1) +
/// output_padding + dilation·(k - 1) + 1 - pads`. `w` is `[C, M / group, k…]`.
#[allow(clippy::too_many_arguments)]
fn conv_transpose_ref(
    x: &[f64],
    xd: &[usize],
    w: &[f64],
    wd: &[usize],
    b: Option<&[f64]>,
    s: &[usize],
    p: &[isize],
    op: &[usize],
    d: &[usize],
    g: usize,
) -> (Vec<f64>, Vec<usize>) {
    let r = xd.len() - 2;
    let (n, c, mg) = (xd[0], xd[1], wd[1]);
    let m = mg * g;
    let cg = c / g;
    let mut od = vec![n, m];
    for a in 0..r {
        let full = s[a] * (xd[2 + a] - 1) + op[a] + d[a] * (wd[2 + a] - 1) + 1;
        od.push((full as isize - p[a] - p[r + a]) as usize);
    }
    let (xs, ws, ys) = (strides_of(xd), strides_of(wd), strides_of(&od));
    let mut y = vec![0.0; od.iter().product()];
    for at in positions(xd) {
        let v = x[at.iter().zip(&xs).map(|(i, s)| i * s).sum::<usize>()];
        let (bn, ic) = (at[0], at[1]);
        let grp = ic / cg;
        for oc in 0..mg {
            'k: for k in positions(&wd[2..]) {
                let mut yi = bn * ys[0] + (grp * mg + oc) * ys[1];
                for a in 0..r {
                    let q = (at[2 + a] * s[a] + k[a] * d[a]) as isize - p[a];
                    if q < 0 || q as usize >= od[2 + a] {
                        continue 'k;
                    }
                    yi += q as usize * ys[2 + a];
                }
                let mut wi = ic * ws[0] + oc * ws[1];
                for a in 0..r {
                    wi += k[a] * ws[2 + a];
                }
                y[yi] += v * w[wi];
            }
        }
    }
    if let Some(b) = b {
        for (i, v) in y.iter_mut().enumerate() {
            *v += b[i / ys[1] % m];
        }
    }
    (y, od)
}

/// ONNX's pads of a `ConvTranspose` given `output_shape` (or, with `same_*` and none,
/// `L·stride`): `total = full - output_shape`, `total / 2` (floor) at the beginning for
/// `same_upper`, `total - total / 2` otherwise.
fn transpose_pads(
    mode: &str,
    xd: &[usize],
    wd: &[usize],
    s: &[usize],
    op: &[usize],
    d: &[usize],
    shape: Option<&[usize]>,
) -> Vec<isize> {
    let r = xd.len() - 2;
    let mut p = vec![0isize; 2 * r];
    for a in 0..r {
        let full = (s[a] * (xd[2 + a] - 1) + op[a] + d[a] * (wd[2 + a] - 1) + 1) as isize;
        let target = shape.map_or(xd[2 + a] * s[a], |t| t[a]) as isize;
        let total = full - target;
        let (head, tail) = if mode == "same_upper" {
            (total.div_euclid(2), total - total.div_euclid(2))
        } else {
            (total - total.div_euclid(2), total.div_euclid(2))
        };
        p[a] = head;
        p[r + a] = tail;
    }
    p
}

graph! {
    fn ct1d(x: f64[1, 2, 5], w: f64[2, 3, 3]) -> f64[1, 3, 11] {
        conv_transpose(x, w, strides = [2], pads = [1, 0], output_padding = [1])
    }
    fn ct2d(x: f32[N, 3, 4, 3], w: f32[3, 2, 3, 2], b: f32[2]) -> f32[N, 2, 6, 8] {
        relu(conv_transpose(x, w, b, strides = [2, 3], dilations = [1, 2], pads = [1, 0, 2, 1]))
    }
    fn ct_grouped(x: f64[1, 4, 3, 3], w: f64[4, 3, 2, 2]) -> f64[1, 6, 7, 6] {
        conv_transpose(x, w, group = 2, strides = [2, 2], output_padding = [1, 0])
    }
    fn ct_depthwise(x: f64[1, 3, 3, 4], w: f64[3, 1, 3, 3], b: f64[3]) -> f64[1, 3, 3, 7] {
        conv_transpose(x, w, b, group = 3, strides = [1, 2], pads = [1, 1, 1, 1])
    }
    fn ct3d(x: f32[1, 2, 2, 3, 1], w: f32[2, 1, 2, 2, 1]) -> f32[1, 1, 4, 4, 1] {
        conv_transpose(x, w, strides = [2, 1, 1])
    }
    fn ct_shape(x: f64[1, 1, 3, 3], w: f64[1, 1, 3, 3]) -> f64[1, 1, 6, 5] {
        conv_transpose(x, w, strides = [2, 2], output_shape = [6, 5])
    }
    fn ct_same(x: f64[1, 1, 3, 3], w: f64[1, 1, 3, 3]) -> (f64[1, 1, 6, 6], f64[1, 1, 6, 6]) {
        (conv_transpose(x, w, strides = [2, 2], auto_pad = same_upper),
         conv_transpose(x, w, strides = [2, 2], auto_pad = same_lower))
    }
    fn ct_wide_stride(x: f64[1, 1, 3], w: f64[1, 1, 1], b: f64[1]) -> (f64[1, 1, 6], f64[1, 1, 6]) {
        (conv_transpose(x, w, b, strides = [2], auto_pad = same_upper),
         conv_transpose(x, w, b, strides = [2], auto_pad = same_lower))
    }
    fn ct_half(x: f16[1, 1, 2, 3], w: f16[1, 2, 2, 2]) -> f16[1, 2, 3, 7] {
        conv_transpose(x, w, strides = [1, 2], output_padding = [0, 1])
    }
    fn ct_valid(x: f64[2, 1, 1, 1], w: f64[1, 2, 2, 3]) -> f64[2, 2, 2, 3] {
        conv_transpose(x, w, auto_pad = valid)
    }
}

#[test]
fn conv_transpose_as_onnx() {
    let x = data(10);
    let w = data(18);
    let y = ct1d(&t(&x), &t(&w));
    let (want, od) = conv_transpose_ref(
        &x,
        &[1, 2, 5],
        &w,
        &[2, 3, 3],
        None,
        &[2],
        &[1, 0],
        &[1],
        &[1],
        1,
    );
    assert_eq!(od, [1, 3, 11]);
    assert_close("1-D", y.as_slice(), &want, 1e-12);

    for n in [1usize, 2] {
        let mut x = data(n * 36);
        x[5] = f64::NAN;
        x[20] = f64::INFINITY;
        let (x, w, b) = (f32s(&x), f32s(&data(36)), [0.25f32, -0.5]);
        let xt =
            Tensor::<f32, Shape![_, 3, 4, 3]>::from_shape_vec([n, 3, 4, 3], x.clone()).unwrap();
        let y = ct2d(&xt, &w[..], &b[..]).unwrap();
        let (want, od) = conv_transpose_ref(
            &wide(&x),
            &[n, 3, 4, 3],
            &wide(&w),
            &[3, 2, 3, 2],
            Some(&wide(&b)),
            &[2, 3],
            &[1, 0, 2, 1],
            &[0, 0],
            &[1, 2],
            1,
        );
        assert_eq!(od, [n, 2, 6, 8]);
        let want: Vec<f64> = want
            .iter()
            .map(|&v| if v.is_nan() { v } else { v.max(0.0) })
            .collect();
        assert!(want.iter().any(|v| v.is_nan()) && want.iter().any(|v| v.is_infinite()));
        assert_close("2-D", &wide(y.as_slice()), &want, 1e-5);
    }

    let (x, w) = (data(36), data(48));
    let y = ct_grouped(&t(&x), &t(&w));
    let (want, _) = conv_transpose_ref(
        &x,
        &[1, 4, 3, 3],
        &w,
        &[4, 3, 2, 2],
        None,
        &[2, 2],
        &[0; 4],
        &[1, 0],
        &[1, 1],
        2,
    );
    assert_close("grouped", y.as_slice(), &want, 1e-12);

    let (x, w, b) = (data(36), data(27), [1.0, 2.0, -3.0]);
    let y = ct_depthwise(&t(&x), &t(&w), &t(&b));
    let (want, _) = conv_transpose_ref(
        &x,
        &[1, 3, 3, 4],
        &w,
        &[3, 1, 3, 3],
        Some(&b),
        &[1, 2],
        &[1, 1, 1, 1],
        &[0, 0],
        &[1, 1],
        3,
    );
    assert_close("depthwise", y.as_slice(), &want, 1e-12);

    let (x, w) = (f32s(&data(12)), f32s(&data(8)));
    let y = ct3d(&t(&x), &t(&w));
    let (want, _) = conv_transpose_ref(
        &wide(&x),
        &[1, 2, 2, 3, 1],
        &wide(&w),
        &[2, 1, 2, 2, 1],
        None,
        &[2, 1, 1],
        &[0; 6],
        &[0; 3],
        &[1; 3],
        1,
    );
    assert_close("3-D", &wide(y.as_slice()), &want, 1e-5);

    let (x, w) = (data(9), data(9));
    let y = ct_shape(&t(&x), &t(&w));
    let p = transpose_pads(
        "notset",
        &[1, 1, 3, 3],
        &[1, 1, 3, 3],
        &[2, 2],
        &[0, 0],
        &[1, 1],
        Some(&[6, 5]),
    );
    assert_eq!(p, [1, 1, 0, 1]);
    let (want, od) = conv_transpose_ref(
        &x,
        &[1, 1, 3, 3],
        &w,
        &[1, 1, 3, 3],
        None,
        &[2, 2],
        &p,
        &[0, 0],
        &[1, 1],
        1,
    );
    assert_eq!(od, [1, 1, 6, 5]);
    assert_close("output_shape", y.as_slice(), &want, 1e-12);

    let (upper, lower) = ct_same(&t(&x), &t(&w));
    for (mode, got) in [("same_upper", &upper), ("same_lower", &lower)] {
        let p = transpose_pads(
            mode,
            &[1, 1, 3, 3],
            &[1, 1, 3, 3],
            &[2, 2],
            &[0, 0],
            &[1, 1],
            None,
        );
        let (want, _) = conv_transpose_ref(
            &x,
            &[1, 1, 3, 3],
            &w,
            &[1, 1, 3, 3],
            None,
            &[2, 2],
            &p,
            &[0, 0],
            &[1, 1],
            1,
        );
        assert_close(mode, got.as_slice(), &want, 1e-12);
    }
    assert_ne!(upper.as_slice(), lower.as_slice());

    // A stride longer than the kernel: the output is longer than the full one, and the
    // pad that ONNX derives is negative (bias only there).
    let x = [1.0, 2.0, 3.0];
    let (upper, lower) = ct_wide_stride(&t(&x), &t(&[10.0]), &t(&[0.5]));
    assert_eq!(upper.as_slice(), &[0.5, 10.5, 0.5, 20.5, 0.5, 30.5]);
    assert_eq!(lower.as_slice(), &[10.5, 0.5, 20.5, 0.5, 30.5, 0.5]);
    for (mode, got) in [("same_upper", &upper), ("same_lower", &lower)] {
        let p = transpose_pads(mode, &[1, 1, 3], &[1, 1, 1], &[2], &[0], &[1], None);
        let (want, _) = conv_transpose_ref(
            &x,
            &[1, 1, 3],
            &[10.0],
            &[1, 1, 1],
            Some(&[0.5]),
            &[2],
            &p,
            &[0],
            &[1],
            1,
        );
        assert_close(mode, got.as_slice(), &want, 0.0);
    }

    let h = |v: &[f64]| v.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>();
    let back = |v: &[f16]| v.iter().map(|x| x.to_f64()).collect::<Vec<_>>();
    let (x, w) = (h(&data(6)), h(&data(8)));
    let y = ct_half(&t(&x), &t(&w));
    let (want, _) = conv_transpose_ref(
        &back(&x),
        &[1, 1, 2, 3],
        &back(&w),
        &[1, 2, 2, 2],
        None,
        &[1, 2],
        &[0; 4],
        &[0, 1],
        &[1, 1],
        1,
    );
    assert_close("f16", &back(y.as_slice()), &want, 1e-2);

    let (x, w) = ([2.0, -1.0], data(12));
    let y = ct_valid(&t(&x), &t(&w));
    let (want, _) = conv_transpose_ref(
        &x,
        &[2, 1, 1, 1],
        &w,
        &[1, 2, 2, 3],
        None,
        &[1, 1],
        &[0; 4],
        &[0, 0],
        &[1, 1],
        1,
    );
    assert_close("valid, size-1 input", y.as_slice(), &want, 0.0);
}

// ---------------------------------------------------------------------------------------
// max_pool_with_indices

graph! {
    fn mpi(x: f32[2, 3, 5, 6]) -> (f32[2, 3, 3, 3], i64[2, 3, 3, 3]) {
        max_pool_with_indices(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1])
    }
    fn mpi_dilated(x: f64[1, 2, 7, 5]) -> (f64[1, 2, 3, 4], i64[1, 2, 3, 4]) {
        let (v, i) = max_pool_with_indices(x, kernel_shape = [2, 2], strides = [2, 1],
                                           dilations = [2, 1], ceil_mode = true, storage_order = 0);
        (v * 2.0, i + 0)
    }
    fn mpi_named(x: f32[N, 2, 4, 4]) -> (f32[N, 2, 2, 2], i64[N, 2, 2, 2]) {
        max_pool_with_indices(x, kernel_shape = [2, 2], strides = [2, 2], auto_pad = same_lower)
    }
    fn mpi_1d(x: f64[3, 1, 7]) -> (f64[3, 1, 4], i64[3, 1, 4]) {
        max_pool_with_indices(x, kernel_shape = [3], strides = [2], pads = [1, 1])
    }
    fn mpi_3d(x: f32[1, 2, 3, 1, 4]) -> (f32[1, 2, 2, 1, 2], i64[1, 2, 2, 1, 2]) {
        max_pool_with_indices(x, kernel_shape = [2, 1, 3], strides = [2, 1, 2], pads = [0, 0, 1, 1, 0, 0], ceil_mode = true)
    }
    fn mpi_pad_only(x: f64[1, 1, 2, 2]) -> (f64[1, 1, 4, 4], i64[1, 1, 4, 4]) {
        max_pool_with_indices(x, kernel_shape = [1, 1], pads = [1, 1, 1, 1])
    }
    fn mpi_half(x: f16[1, 2, 3, 3]) -> (f16[1, 2, 2, 2], i64[1, 2, 2, 2]) {
        max_pool_with_indices(x, kernel_shape = [2, 2])
    }
}

fn check_indices(
    what: &str,
    values: &[f64],
    indices: &[i64],
    x: &[f64],
    xd: &[usize],
    k: &[usize],
    s: &[usize],
    p: &[usize],
    d: &[usize],
    ceil: bool,
) {
    let (want, want_i, _) = pool_ref(x, xd, Pool::Max, k, s, p, d, ceil);
    assert_close(what, values, &want, 0.0);
    assert_eq!(indices, &want_i[..], "{what}: indices");
    // Each index reads its value back (the flat NCHW convention).
    for (v, &i) in values.iter().zip(indices) {
        if i >= 0 {
            assert!(
                close(x[i as usize], *v, 0.0),
                "{what}: x[{i}] = {} vs {v}",
                x[i as usize]
            );
        }
    }
}

#[test]
fn max_pool_with_indices_as_onnx() {
    let mut x = data(180);
    // Ties (the first in window order wins), NaN (its own first position), infinities.
    x[8] = 3.0;
    x[9] = 3.0;
    x[14] = 3.0;
    x[40] = f64::NAN;
    x[47] = f64::NAN;
    x[70] = f64::INFINITY;
    x[100] = f64::NEG_INFINITY;
    for v in &mut x[120..150] {
        *v = f64::NEG_INFINITY;
    }
    let x = wide(&f32s(&x));
    let (v, i) = mpi(&t(&f32s(&x)));
    check_indices(
        "2-D",
        &wide(v.as_slice()),
        i.as_slice(),
        &x,
        &[2, 3, 5, 6],
        &[3, 3],
        &[2, 2],
        &[1, 1, 1, 1],
        &[1, 1],
        false,
    );
    assert!(i.as_slice().iter().all(|&i| i >= 0 && i < 180));

    let x = data(70);
    let (v, i) = mpi_dilated(&t(&x));
    let halves: Vec<f64> = v.as_slice().iter().map(|v| v / 2.0).collect();
    check_indices(
        "dilated, ceil",
        &halves,
        i.as_slice(),
        &x,
        &[1, 2, 7, 5],
        &[2, 2],
        &[2, 1],
        &[0; 4],
        &[2, 1],
        true,
    );

    for n in [1usize, 3] {
        let x = f32s(&data(n * 32));
        let xt =
            Tensor::<f32, Shape![_, 2, 4, 4]>::from_shape_vec([n, 2, 4, 4], x.clone()).unwrap();
        let (v, i) = mpi_named(&xt).unwrap();
        let p = onnx_auto_pad("same_lower", &[4, 4], &[2, 2], &[2, 2], &[1, 1]);
        check_indices(
            "named batch",
            &wide(v.as_slice()),
            i.as_slice(),
            &wide(&x),
            &[n, 2, 4, 4],
            &[2, 2],
            &[2, 2],
            &p,
            &[1, 1],
            false,
        );
    }

    let mut x = data(21);
    x[13] = f64::NAN;
    let (v, i) = mpi_1d(&t(&x));
    check_indices(
        "1-D",
        v.as_slice(),
        i.as_slice(),
        &x,
        &[3, 1, 7],
        &[3],
        &[2],
        &[1, 1],
        &[1],
        false,
    );

    let x = f32s(&data(24));
    let (v, i) = mpi_3d(&t(&x));
    check_indices(
        "3-D",
        &wide(v.as_slice()),
        i.as_slice(),
        &wide(&x),
        &[1, 2, 3, 1, 4],
        &[2, 1, 3],
        &[2, 1, 2],
        &[0, 0, 1, 1, 0, 0],
        &[1, 1, 1],
        true,
    );

    let x = [1.0, -2.0, f64::NEG_INFINITY, 4.0];
    let (v, i) = mpi_pad_only(&t(&x));
    check_indices(
        "windows of padding",
        v.as_slice(),
        i.as_slice(),
        &x,
        &[1, 1, 2, 2],
        &[1, 1],
        &[1, 1],
        &[1, 1, 1, 1],
        &[1, 1],
        false,
    );
    assert_eq!(i.as_slice().iter().filter(|&&i| i == -1).count(), 12);

    let h: Vec<f16> = data(18).iter().map(|&v| f16::from_f64(v)).collect();
    let (v, i) = mpi_half(&t(&h));
    let xb: Vec<f64> = h.iter().map(|v| v.to_f64()).collect();
    let vb: Vec<f64> = v.as_slice().iter().map(|v| v.to_f64()).collect();
    check_indices(
        "f16",
        &vb,
        i.as_slice(),
        &xb,
        &[1, 2, 3, 3],
        &[2, 2],
        &[1, 1],
        &[0; 4],
        &[1, 1],
        false,
    );
}

// ---------------------------------------------------------------------------------------
// resize

#[derive(Clone, Copy)]
struct Rs {
    mode: &'static str,
    ctm: &'static str,
    nearest: &'static str,
    a: f64,
    exclude: bool,
}

const HALF_PIXEL_NEAREST: Rs = Rs {
    mode: "nearest",
    ctm: "half_pixel",
    nearest: "round_prefer_floor",
    a: -0.75,
    exclude: false,
};

/// ONNX Resize's coordinate transform (the operator spec's formulas).
fn x_original(ctm: &str, x: f64, scale: f64, len: usize, out: usize) -> f64 {
    let len = len as f64;
    match ctm {
        "half_pixel" => (x + 0.5) / scale - 0.5,
        "half_pixel_symmetric" => {
            let output_width = scale * len;
            let adjustment = out as f64 / output_width;
            let center = len / 2.0;
            let offset = center * (1.0 - adjustment);
            offset + (x + 0.5) / scale - 0.5
        }
        "pytorch_half_pixel" => {
            if out > 1 {
                (x + 0.5) / scale - 0.5
            } else {
                0.0
            }
        }
        "align_corners" => {
            if out == 1 {
                0.0
            } else {
                x * (len - 1.0) / (out as f64 - 1.0)
            }
        }
        "asymmetric" => x / scale,
        _ => unreachable!(),
    }
}

/// ONNX's reference 1-D interpolation at `x_ori`: the coefficients of `ratio` (1 at an
/// integer), the `n` positions of the edge-padded data nearest `x_ori` (ties to the lower),
/// their dot product (`nearest` picks its point instead of the reference's dot product).
fn interp1d(data: &[f64], x_ori: f64, m: Rs) -> f64 {
    let fl = x_ori.floor();
    let ratio = if x_ori == fl { 1.0 } else { x_ori - fl };
    let integer = x_ori == fl;
    let mut coeffs: Vec<f64> = match m.mode {
        "nearest" => {
            let second = integer
                || match m.nearest {
                    "round_prefer_floor" => ratio > 0.5,
                    "round_prefer_ceil" => ratio >= 0.5,
                    "floor" => false,
                    _ => true,
                };
            if second {
                vec![0.0, 1.0]
            } else {
                vec![1.0, 0.0]
            }
        }
        "linear" => vec![1.0 - ratio, ratio],
        _ => {
            let (a, r) = (m.a, ratio);
            vec![
                ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
                ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                ((a + 2.0) * (1.0 - r) - (a + 3.0)) * (1.0 - r) * (1.0 - r) + 1.0,
                ((a * ((1.0 - r) + 1.0) - 5.0 * a) * ((1.0 - r) + 1.0) + 8.0 * a)
                    * ((1.0 - r) + 1.0)
                    - 4.0 * a,
            ]
        }
    };
    let n = coeffs.len();
    let pad = n.div_ceil(2);
    let padded: Vec<f64> = (0..data.len() + 2 * pad)
        .map(|i| data[(i as isize - pad as isize).clamp(0, data.len() as isize - 1) as usize])
        .collect();
    let xp = x_ori + pad as f64;
    let mut order: Vec<usize> = (0..padded.len()).collect();
    order.sort_by(|&i, &j| {
        ((xp - i as f64).abs(), i)
            .partial_cmp(&((xp - j as f64).abs(), j))
            .unwrap()
    });
    let mut idx: Vec<usize> = order[..n].to_vec();
    idx.sort();
    if m.exclude && m.mode != "nearest" {
        for (c, &i) in coeffs.iter_mut().zip(&idx) {
            let orig = i as isize - pad as isize;
            if orig < 0 || orig >= data.len() as isize {
                *c = 0.0;
            }
        }
        let total: f64 = coeffs.iter().sum();
        for c in &mut coeffs {
            *c /= total;
        }
    }
    if m.mode == "nearest" {
        return padded[idx[coeffs.iter().position(|&c| c == 1.0).unwrap()]];
    }
    coeffs.iter().zip(&idx).map(|(c, &i)| c * padded[i]).sum()
}

/// ONNX Resize over every axis (nested 1-D interpolations, the last axis innermost, as
/// the reference); `scales[k]` is the scale the transform divides by (ONNX's float32
/// scale, or `out / len` with sizes). An axis of scale 1 and unchanged length is copied.
fn resize_ref(x: &[f64], xd: &[usize], scales: &[f64], outs: &[usize], m: Rs) -> Vec<f64> {
    let xs = strides_of(xd);
    let rank = xd.len();
    fn rec(
        x: &[f64],
        xd: &[usize],
        xs: &[usize],
        at: &[usize],
        coords: &[Option<f64>],
        level: usize,
        base: usize,
        m: Rs,
    ) -> f64 {
        if level == xd.len() {
            return x[base];
        }
        match coords[level] {
            None => rec(
                x,
                xd,
                xs,
                at,
                coords,
                level + 1,
                base + at[level] * xs[level],
                m,
            ),
            Some(c) => {
                let line: Vec<f64> = (0..xd[level])
                    .map(|i| rec(x, xd, xs, at, coords, level + 1, base + i * xs[level], m))
                    .collect();
                interp1d(&line, c, m)
            }
        }
    }
    positions(outs)
        .into_iter()
        .map(|at| {
            let coords: Vec<Option<f64>> = (0..rank)
                .map(|k| {
                    (outs[k] != xd[k] || scales[k] != 1.0)
                        .then(|| x_original(m.ctm, at[k] as f64, scales[k], xd[k], outs[k]))
                })
                .collect();
            rec(x, xd, &xs, &at, &coords, 0, 0, m)
        })
        .collect()
}

/// The scales ONNX's transform divides by: float32 `scales`, or `sizes / len`.
fn by_scales(s: &[f64]) -> Vec<f64> {
    s.iter().map(|&v| v as f32 as f64).collect()
}
fn by_sizes(xd: &[usize], outs: &[usize]) -> Vec<f64> {
    xd.iter()
        .zip(outs)
        .map(|(&l, &o)| o as f64 / l as f64)
        .collect()
}

graph! {
    fn rs_nearest(x: f32[1, 2, 3, 4]) -> (f32[1, 2, 6, 12], f32[1, 2, 6, 12], f32[1, 2, 6, 12], f32[1, 2, 6, 12]) {
        (resize(x, scales = [1.0, 1.0, 2.0, 3.0]),
         resize(x, scales = [1.0, 1.0, 2.0, 3.0], coordinate_transformation_mode = asymmetric, nearest_mode = floor),
         resize(x, scales = [1.0, 1.0, 2.0, 3.0], coordinate_transformation_mode = asymmetric, nearest_mode = round_prefer_ceil),
         resize(x, scales = [1.0, 1.0, 2.0, 3.0], coordinate_transformation_mode = align_corners, nearest_mode = ceil))
    }
    fn rs_nearest_down(x: f32[1, 1, 5, 7]) -> f32[1, 1, 3, 4] {
        resize(x, scales = [1.0, 1.0, 0.6, 0.6], mode = nearest)
    }
    fn rs_int(x: i32[2, 3, 4]) -> i32[2, 3, 7] {
        resize(x, sizes = [2, 3, 7], coordinate_transformation_mode = pytorch_half_pixel)
    }
    fn rs_bool(x: bool[1, 1, 2, 3]) -> bool[1, 1, 5, 3] {
        resize(x, sizes = [5, 3], axes = [2, 3], mode = nearest)
    }
    fn rs_linear(x: f64[1, 2, 4, 5]) -> f64[1, 2, 7, 3] {
        resize(x, sizes = [1, 2, 7, 3], mode = linear)
    }
    fn rs_linear_corners(x: f32[1, 1, 3, 3]) -> f32[1, 1, 6, 6] {
        resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear, coordinate_transformation_mode = align_corners)
    }
    fn rs_pytorch(x: f64[1, 1, 4, 4]) -> (f64[1, 1, 3, 1], f64[1, 1, 3, 1]) {
        (resize(x, sizes = [1, 1, 3, 1], mode = linear, coordinate_transformation_mode = pytorch_half_pixel),
         resize(x, sizes = [1, 1, 3, 1], mode = cubic, coordinate_transformation_mode = pytorch_half_pixel))
    }
    fn rs_named(x: f32[N, 2, 3, 4]) -> f32[N, 2, 5, 8] {
        resize(x, sizes = [5, 8], axes = [2, 3], mode = linear, coordinate_transformation_mode = asymmetric)
    }
    fn rs_cubic(x: f64[1, 1, 4, 4]) -> (f64[1, 1, 8, 8], f64[1, 1, 8, 8], f64[1, 1, 8, 8]) {
        (resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = cubic),
         resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = cubic, cubic_coeff_a = -0.5,
                coordinate_transformation_mode = align_corners),
         resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = cubic, exclude_outside = true))
    }
    fn rs_cubic_down(x: f64[1, 1, 4, 5]) -> f64[1, 1, 3, 4] {
        resize(x, scales = [0.8, 0.8], axes = [-2, -1], mode = cubic, exclude_outside = true)
    }
    fn rs_symmetric(x: f64[1, 1, 4, 5]) -> (f64[1, 1, 6, 2], f64[1, 1, 6, 2]) {
        (resize(x, scales = [1.0, 1.0, 1.7, 0.5], mode = linear, coordinate_transformation_mode = half_pixel_symmetric),
         resize(x, scales = [1.0, 1.0, 1.7, 0.5], coordinate_transformation_mode = half_pixel_symmetric))
    }
    fn rs_1d(x: f64[2, 2, 5]) -> f64[2, 2, 7] {
        resize(x, scales = [1.0, 1.0, 1.5], mode = cubic)
    }
    fn rs_3d(x: f32[1, 1, 2, 3, 4]) -> f32[1, 1, 4, 3, 2] {
        resize(x, scales = [1.0, 1.0, 2.0, 1.0, 0.5], mode = linear)
    }
    fn rs_inf(x: f64[1, 1, 3]) -> (f64[1, 1, 6], f64[1, 1, 6]) {
        (resize(x, scales = [1.0, 1.0, 2.0], mode = linear, coordinate_transformation_mode = align_corners),
         resize(x, scales = [1.0, 1.0, 2.0], mode = nearest))
    }
    fn rs_half(x: f16[1, 1, 3, 3]) -> f16[1, 1, 7, 5] {
        resize(x, sizes = [7, 5], axes = [2, 3], mode = linear)
    }
    fn rs_big(x: f32[1, 2, 16, 16]) -> (f32[1, 2, 32, 32], f32[1, 2, 48, 24]) {
        (resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear),
         resize(x, scales = [1.0, 1.0, 3.0, 1.5], mode = cubic))
    }
}

fn check_resize(
    what: &str,
    got: &[f64],
    x: &[f64],
    xd: &[usize],
    scales: &[f64],
    outs: &[usize],
    m: Rs,
    tol: f64,
) {
    let want = resize_ref(x, xd, scales, outs, m);
    assert_close(what, got, &want, tol);
}

#[test]
fn resize_as_onnx() {
    let nearest = HALF_PIXEL_NEAREST;
    let x = f32s(&data(24));
    let xw = wide(&x);
    let (a, b, c, d) = rs_nearest(&t(&x));
    let (xd, od, sc) = (
        [1, 2, 3, 4],
        [1, 2, 6, 12],
        by_scales(&[1.0, 1.0, 2.0, 3.0]),
    );
    check_resize(
        "nearest",
        &wide(a.as_slice()),
        &xw,
        &xd,
        &sc,
        &od,
        nearest,
        0.0,
    );
    check_resize(
        "nearest asymmetric floor",
        &wide(b.as_slice()),
        &xw,
        &xd,
        &sc,
        &od,
        Rs {
            ctm: "asymmetric",
            nearest: "floor",
            ..nearest
        },
        0.0,
    );
    check_resize(
        "nearest prefer ceil",
        &wide(c.as_slice()),
        &xw,
        &xd,
        &sc,
        &od,
        Rs {
            ctm: "asymmetric",
            nearest: "round_prefer_ceil",
            ..nearest
        },
        0.0,
    );
    check_resize(
        "nearest align_corners ceil",
        &wide(d.as_slice()),
        &xw,
        &xd,
        &sc,
        &od,
        Rs {
            ctm: "align_corners",
            nearest: "ceil",
            ..nearest
        },
        0.0,
    );
    // Ties (x / 2 at odd x) split floor from ceil.
    assert_ne!(b.as_slice(), c.as_slice());

    let x = f32s(&data(35));
    let y = rs_nearest_down(&t(&x));
    check_resize(
        "nearest down",
        &wide(y.as_slice()),
        &wide(&x),
        &[1, 1, 5, 7],
        &by_scales(&[1.0, 1.0, 0.6, 0.6]),
        &[1, 1, 3, 4],
        nearest,
        0.0,
    );

    let x: Vec<i32> = (0..24).map(|i| i * 3 - 20).collect();
    let y = rs_int(&t(&x));
    let want = resize_ref(
        &wide(&x),
        &[2, 3, 4],
        &by_sizes(&[2, 3, 4], &[2, 3, 7]),
        &[2, 3, 7],
        Rs {
            ctm: "pytorch_half_pixel",
            ..nearest
        },
    );
    assert_eq!(wide(y.as_slice()), want, "i32 nearest");

    let x = [true, false, false, true, true, false];
    let y = rs_bool(&t(&x));
    let xb: Vec<f64> = x.iter().map(|&b| b as u8 as f64).collect();
    let want = resize_ref(
        &xb,
        &[1, 1, 2, 3],
        &by_sizes(&[1, 1, 2, 3], &[1, 1, 5, 3]),
        &[1, 1, 5, 3],
        nearest,
    );
    assert_eq!(
        y.as_slice()
            .iter()
            .map(|&b| b as u8 as f64)
            .collect::<Vec<_>>(),
        want,
        "bool nearest"
    );

    let linear = Rs {
        mode: "linear",
        ..nearest
    };
    let cubic = Rs {
        mode: "cubic",
        ..nearest
    };
    let x = data(40);
    let y = rs_linear(&t(&x));
    check_resize(
        "linear",
        y.as_slice(),
        &x,
        &[1, 2, 4, 5],
        &by_sizes(&[1, 2, 4, 5], &[1, 2, 7, 3]),
        &[1, 2, 7, 3],
        linear,
        1e-12,
    );

    let x = f32s(&data(9));
    let y = rs_linear_corners(&t(&x));
    check_resize(
        "linear align_corners",
        &wide(y.as_slice()),
        &wide(&x),
        &[1, 1, 3, 3],
        &by_scales(&[1.0, 1.0, 2.0, 2.0]),
        &[1, 1, 6, 6],
        Rs {
            ctm: "align_corners",
            ..linear
        },
        1e-6,
    );

    let x = data(16);
    let (l, c) = rs_pytorch(&t(&x));
    let sc = by_sizes(&[1, 1, 4, 4], &[1, 1, 3, 1]);
    check_resize(
        "linear pytorch_half_pixel",
        l.as_slice(),
        &x,
        &[1, 1, 4, 4],
        &sc,
        &[1, 1, 3, 1],
        Rs {
            ctm: "pytorch_half_pixel",
            ..linear
        },
        1e-12,
    );
    check_resize(
        "cubic pytorch_half_pixel",
        c.as_slice(),
        &x,
        &[1, 1, 4, 4],
        &sc,
        &[1, 1, 3, 1],
        Rs {
            ctm: "pytorch_half_pixel",
            ..cubic
        },
        1e-12,
    );

    for n in [1usize, 2] {
        let x = f32s(&data(n * 24));
        let xt =
            Tensor::<f32, Shape![_, 2, 3, 4]>::from_shape_vec([n, 2, 3, 4], x.clone()).unwrap();
        let y = rs_named(&xt).unwrap();
        check_resize(
            "named batch",
            &wide(y.as_slice()),
            &wide(&x),
            &[n, 2, 3, 4],
            &by_sizes(&[n, 2, 3, 4], &[n, 2, 5, 8]),
            &[n, 2, 5, 8],
            Rs {
                ctm: "asymmetric",
                ..linear
            },
            1e-6,
        );
    }

    let x = data(16);
    let (a, b, c) = rs_cubic(&t(&x));
    let sc = by_scales(&[1.0, 1.0, 2.0, 2.0]);
    check_resize(
        "cubic",
        a.as_slice(),
        &x,
        &[1, 1, 4, 4],
        &sc,
        &[1, 1, 8, 8],
        cubic,
        1e-12,
    );
    check_resize(
        "cubic A -0.5 align_corners",
        b.as_slice(),
        &x,
        &[1, 1, 4, 4],
        &sc,
        &[1, 1, 8, 8],
        Rs {
            a: -0.5,
            ctm: "align_corners",
            ..cubic
        },
        1e-12,
    );
    check_resize(
        "cubic exclude_outside",
        c.as_slice(),
        &x,
        &[1, 1, 4, 4],
        &sc,
        &[1, 1, 8, 8],
        Rs {
            exclude: true,
            ..cubic
        },
        1e-12,
    );
    // Ties (x / 2 at odd x) split floor from ceil.
    assert_ne!(b.as_slice(), c.as_slice());

    let x = data(20);
    let y = rs_cubic_down(&t(&x));
    check_resize(
        "cubic down",
        y.as_slice(),
        &x,
        &[1, 1, 4, 5],
        &by_scales(&[1.0, 1.0, 0.8, 0.8]),
        &[1, 1, 3, 4],
        Rs {
            exclude: true,
            ..cubic
        },
        1e-12,
    );

    let (l, n) = rs_symmetric(&t(&x));
    let sc = by_scales(&[1.0, 1.0, 1.7, 0.5]);
    check_resize(
        "linear half_pixel_symmetric",
        l.as_slice(),
        &x,
        &[1, 1, 4, 5],
        &sc,
        &[1, 1, 6, 2],
        Rs {
            ctm: "half_pixel_symmetric",
            ..linear
        },
        1e-12,
    );
    check_resize(
        "nearest half_pixel_symmetric",
        n.as_slice(),
        &x,
        &[1, 1, 4, 5],
        &sc,
        &[1, 1, 6, 2],
        Rs {
            ctm: "half_pixel_symmetric",
            ..nearest
        },
        0.0,
    );

    let x = data(20);
    let y = rs_1d(&t(&x));
    check_resize(
        "1-D cubic",
        y.as_slice(),
        &x,
        &[2, 2, 5],
        &by_scales(&[1.0, 1.0, 1.5]),
        &[2, 2, 7],
        cubic,
        1e-12,
    );

    let x = f32s(&data(24));
    let y = rs_3d(&t(&x));
    check_resize(
        "3-D linear",
        &wide(y.as_slice()),
        &wide(&x),
        &[1, 1, 2, 3, 4],
        &by_scales(&[1.0, 1.0, 2.0, 1.0, 0.5]),
        &[1, 1, 4, 3, 2],
        linear,
        1e-6,
    );

    // An infinity meets a coefficient 0 where the coordinate is an integer (ONNX's
    // reference reads the pair before it): NaN there, as the reference.
    let x = [f64::INFINITY, 1.0, f64::NAN];
    let (l, n) = rs_inf(&t(&x));
    let sc = by_scales(&[1.0, 1.0, 2.0]);
    check_resize(
        "linear inf",
        l.as_slice(),
        &x,
        &[1, 1, 3],
        &sc,
        &[1, 1, 6],
        Rs {
            ctm: "align_corners",
            ..linear
        },
        0.0,
    );
    assert!(l.as_slice()[0].is_nan());
    check_resize(
        "nearest inf",
        n.as_slice(),
        &x,
        &[1, 1, 3],
        &sc,
        &[1, 1, 6],
        nearest,
        0.0,
    );
    assert_eq!(n.as_slice()[0], f64::INFINITY);

    let h: Vec<f16> = data(9).iter().map(|&v| f16::from_f64(v)).collect();
    let y = rs_half(&t(&h));
    let hb: Vec<f64> = h.iter().map(|v| v.to_f64()).collect();
    check_resize(
        "f16 linear",
        &y.as_slice().iter().map(|v| v.to_f64()).collect::<Vec<_>>(),
        &hb,
        &[1, 1, 3, 3],
        &by_sizes(&[1, 1, 3, 3], &[1, 1, 7, 5]),
        &[1, 1, 7, 5],
        linear,
        4e-3,
    );

    let x = f32s(&data(512));
    let (a, b) = rs_big(&t(&x));
    check_resize(
        "big linear",
        &wide(a.as_slice()),
        &wide(&x),
        &[1, 2, 16, 16],
        &by_scales(&[1.0, 1.0, 2.0, 2.0]),
        &[1, 2, 32, 32],
        linear,
        1e-6,
    );
    check_resize(
        "big cubic",
        &wide(b.as_slice()),
        &wide(&x),
        &[1, 2, 16, 16],
        &by_scales(&[1.0, 1.0, 3.0, 1.5]),
        &[1, 2, 48, 24],
        cubic,
        1e-5,
    );
}

// ---------------------------------------------------------------------------------------
// conv and pools over named spatial dims (dim-expression output sizes)

graph! {
    fn conv_named(x: f32[N, 3, H, W], w: f32[4, 3, 3, 3], b: f32[4]) -> f32[N, 4, (H + 1) / 2, (W + 1) / 2] {
        relu(conv(x, w, b, strides = [2, 2], pads = [1, 1, 1, 1]))
    }
    fn conv_named_same(x: f64[1, 2, H, W], w: f64[2, 2, 2, 3]) -> f64[1, 2, H, W] {
        conv(x, w, auto_pad = same_lower)
    }
    fn conv_named_dilated(x: f64[1, 2, H, 4], w: f64[3, 2, 3, 2]) -> f64[1, 3, H - 4, 3] {
        conv(x, w, dilations = [2, 1])
    }
    fn conv_named_depthwise(x: f64[2, 3, H, W], w: f64[3, 1, 3, 3]) -> f64[2, 3, H, W] {
        conv(x, w, group = 3, pads = [1, 1, 1, 1])
    }
    fn conv_named_1d(x: f64[1, 2, L], w: f64[2, 2, 3]) -> f64[1, 2, (L + 2) / 3] {
        conv(x, w, strides = [3], pads = [2, 0])
    }
    // No padding: a 3×3 window needs H, W ≥ 3; at H = 2 the slices alone would give an
    // empty output.
    fn max_pool_unpadded(x: f32[1, 2, H, W]) -> f32[1, 2, H - 2, W - 2] {
        max_pool(x, kernel_shape = [3, 3])
    }
    fn average_pool_unpadded(x: f64[1, 2, H, W]) -> f64[1, 2, H - 2, W - 1] {
        average_pool(x, kernel_shape = [3, 2])
    }
    fn lp_pool_unpadded(x: f32[1, 2, L]) -> f32[1, 2, L - 3] {
        lp_pool(x, kernel_shape = [4])
    }
    fn pools_named(x: f32[1, 2, H, W]) -> (f32[1, 2, (H + 1) / 2, (W + 1) / 2], f32[1, 2, H, W], f32[1, 2, H, W]) {
        (max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]),
         average_pool(x, kernel_shape = [3, 3], pads = [1, 1, 1, 1]),
         lp_pool(x, kernel_shape = [2, 2], auto_pad = same_lower))
    }
}

#[test]
fn conv_and_pools_over_named_spatial_dims() {
    for (h, w) in [(1usize, 1usize), (5, 4), (6, 7), (9, 3)] {
        let x = f32s(&data(2 * 3 * h * w));
        let wt = f32s(&data(108).iter().map(|v| v * 0.2).collect::<Vec<_>>());
        let b = [0.5f32, -0.5, 0.0, 1.0];
        let xt =
            Tensor::<f32, Shape![_, 3, _, _]>::from_shape_vec([2, 3, h, w], x.clone()).unwrap();
        let y = conv_named(&xt, &wt[..], &b[..]).unwrap();
        let (want, od) = conv_ref(
            &wide(&x),
            &[2, 3, h, w],
            &wide(&wt),
            &[4, 3, 3, 3],
            Some(&wide(&b)),
            &[2, 2],
            &[1, 1, 1, 1],
            &[1, 1],
            1,
        );
        assert_eq!(od, [2, 4, h.div_ceil(2), w.div_ceil(2)]);
        let want: Vec<f64> = want.iter().map(|v| v.max(0.0)).collect();
        assert_close(&format!("conv {h}x{w}"), &wide(y.as_slice()), &want, 1e-5);

        let x = data(2 * h * w);
        let wt = data(24);
        let xt =
            Tensor::<f64, Shape![1, 2, _, _]>::from_shape_vec([1, 2, h, w], x.clone()).unwrap();
        let y = conv_named_same(&xt, &wt[..]).unwrap();
        check_conv(
            &format!("same_lower {h}x{w}"),
            y.as_slice(),
            &x,
            &[1, 2, h, w],
            &wt,
            &[2, 2, 2, 3],
            None,
            &[1, 1],
            &[1, 1],
            1,
            "same_lower",
            1e-12,
        );

        let x = data(2 * 3 * h * w);
        let wt = data(27);
        let xt =
            Tensor::<f64, Shape![2, 3, _, _]>::from_shape_vec([2, 3, h, w], x.clone()).unwrap();
        let y = conv_named_depthwise(&xt, &wt[..]).unwrap();
        let (want, _) = conv_ref(
            &x,
            &[2, 3, h, w],
            &wt,
            &[3, 1, 3, 3],
            None,
            &[1, 1],
            &[1, 1, 1, 1],
            &[1, 1],
            3,
        );
        assert_close(&format!("depthwise {h}x{w}"), y.as_slice(), &want, 1e-12);

        let mut x = f32s(&data(2 * h * w));
        x[0] = f32::NAN;
        let xt =
            Tensor::<f32, Shape![1, 2, _, _]>::from_shape_vec([1, 2, h, w], x.clone()).unwrap();
        let (m, a, l) = pools_named(&xt).unwrap();
        let xd = [1, 2, h, w];
        let (want, _, _) = pool_ref(
            &wide(&x),
            &xd,
            Pool::Max,
            &[3, 3],
            &[2, 2],
            &[1, 1, 1, 1],
            &[1, 1],
            false,
        );
        assert_close("max named", &wide(m.as_slice()), &want, 0.0);
        let (want, _, _) = pool_ref(
            &wide(&x),
            &xd,
            Pool::Average { include_pad: false },
            &[3, 3],
            &[1, 1],
            &[1, 1, 1, 1],
            &[1, 1],
            false,
        );
        assert_close("average named", &wide(a.as_slice()), &want, 1e-6);
        let p = onnx_auto_pad("same_lower", &[h, w], &[2, 2], &[1, 1], &[1, 1]);
        let (want, _, _) = pool_ref(
            &wide(&x),
            &xd,
            Pool::Lp(2.0),
            &[2, 2],
            &[1, 1],
            &p,
            &[1, 1],
            false,
        );
        assert_close("lp named", &wide(l.as_slice()), &want, 1e-6);
    }
    for h in [5usize, 6, 11] {
        let x = data(2 * h * 4);
        let wt = data(36);
        let xt =
            Tensor::<f64, Shape![1, 2, _, 4]>::from_shape_vec([1, 2, h, 4], x.clone()).unwrap();
        let y = conv_named_dilated(&xt, &wt[..]).unwrap();
        let (want, _) = conv_ref(
            &x,
            &[1, 2, h, 4],
            &wt,
            &[3, 2, 3, 2],
            None,
            &[1, 1],
            &[0; 4],
            &[2, 1],
            1,
        );
        assert_close("dilated named", y.as_slice(), &want, 1e-12);
    }
    // A window longer than the padded axis is the call's error (3 < 5).
    let xt = Tensor::<f64, Shape![1, 2, _, 4]>::from_shape_vec([1, 2, 3, 4], data(24)).unwrap();
    assert!(conv_named_dilated(&xt, &data(36)[..]).is_err());
    for l in [1usize, 2, 3, 7, 10] {
        let x = data(2 * l);
        let wt = data(12);
        let xt = Tensor::<f64, Shape![1, 2, _]>::from_shape_vec([1, 2, l], x.clone()).unwrap();
        let y = conv_named_1d(&xt, &wt[..]).unwrap();
        let (want, od) = conv_ref(
            &x,
            &[1, 2, l],
            &wt,
            &[2, 2, 3],
            None,
            &[3],
            &[2, 0],
            &[1],
            1,
        );
        assert_eq!(od[2], (l + 2) / 3);
        assert_close(&format!("1-D named {l}"), y.as_slice(), &want, 1e-12);
    }
}

graph! {
    fn conv_bn_relu_res(x: f32[1, 8, 9, 11], w: f32[12, 8, 3, 3], b: f32[12], s: f32[12], t: f32[12], m: f32[12], v: f32[12], r: f32[1, 12, 9, 11]) -> f32[1, 12, 9, 11] {
        relu(batch_norm(conv(x, w, b, pads = [1, 1, 1, 1]), s, t, m, v) + r)
    }
    fn conv3d_computed(x: f64[2, 4, 5, 6, 7], w: f64[6, 2, 2, 3, 2]) -> f64[2, 6, 3, 3, 3] {
        conv(x * 2.0, w - 1.0, group = 2, strides = [2, 1, 3], dilations = [1, 2, 1], pads = [1, 0, 2, 0, 1, 1])
    }
    fn depthwise_strided(x: f32[1, 5, 9, 8], w: f32[5, 1, 3, 3]) -> f32[1, 5, 5, 4] {
        conv(x, w, group = 5, strides = [2, 2], pads = [1, 1, 1, 1])
    }
    fn conv_nonfinite(x: f64[2, 3, 6, 5], w: f64[4, 3, 3, 3]) -> f64[2, 4, 6, 5] {
        conv(x, w, pads = [1, 1, 1, 1])
    }
}

/// `conv` on the GEMM engine (implicit im2col, issue 31 item 2) with its epilogue fused
/// (bias, batch norm, relu, residual), 3-D with strides, dilations, uneven pads, groups and
/// computed operands, depthwise with a stride, and NaN/inf inputs, against `conv_ref`.
#[test]
fn conv_on_the_gemm_engine_as_onnx() {
    let x = f32s(&data(8 * 99));
    let w = f32s(&data(12 * 72).iter().map(|v| v * 0.1).collect::<Vec<_>>());
    let ch = |k: usize| f32s(&data(12 + k)[k..]);
    let (b, s, t_, m) = (ch(1), ch(2), ch(3), ch(4));
    let v: Vec<f32> = ch(5).iter().map(|x| x.abs() + 0.5).collect();
    let r = f32s(&data(12 * 99)[..].iter().rev().copied().collect::<Vec<_>>());
    let y = conv_bn_relu_res(
        &t(&x),
        &t(&w),
        &t(&b),
        &t(&s),
        &t(&t_),
        &t(&m),
        &t(&v),
        &t(&r),
    );
    let conv = same_conv_ref(
        &wide(&x),
        &[1, 8, 9, 11],
        &wide(&w),
        &[12, 8, 3, 3],
        &wide(&b),
    );
    let bn = [&wide(&s)[..], &wide(&t_), &wide(&m), &wide(&v)];
    let want = bn_res_relu(&conv, 99, 12, bn, &wide(&r));
    assert_close("conv-bn-relu-residual", &wide(y.as_slice()), &want, 1e-5);

    let x = data(2 * 4 * 210);
    let w = data(6 * 24);
    let y = conv3d_computed(&t(&x), &t(&w));
    let x2: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    let w1: Vec<f64> = w.iter().map(|v| v - 1.0).collect();
    let (want, od) = conv_ref(
        &x2,
        &[2, 4, 5, 6, 7],
        &w1,
        &[6, 2, 2, 3, 2],
        None,
        &[2, 1, 3],
        &[1, 0, 2, 0, 1, 1],
        &[1, 2, 1],
        2,
    );
    assert_eq!(od, [2, 6, 3, 3, 3]);
    assert_close("3-D grouped", y.as_slice(), &want, 1e-12);

    let x = f32s(&data(5 * 72));
    let w = f32s(&data(45));
    let y = depthwise_strided(&t(&x), &t(&w));
    let (want, _) = conv_ref(
        &wide(&x),
        &[1, 5, 9, 8],
        &wide(&w),
        &[5, 1, 3, 3],
        None,
        &[2, 2],
        &[1, 1, 1, 1],
        &[1, 1],
        5,
    );
    assert_close("depthwise strided", &wide(y.as_slice()), &want, 1e-5);

    // NaN and ±inf in the input, at corners (read by padded windows) and inside.
    let mut x = data(180);
    for (i, v) in [
        (0, f64::NAN),
        (29, f64::INFINITY),
        (77, f64::NEG_INFINITY),
        (179, f64::NAN),
    ] {
        x[i] = v;
    }
    let w = data(108);
    let y = conv_nonfinite(&t(&x), &t(&w));
    let (want, _) = conv_ref(
        &x,
        &[2, 3, 6, 5],
        &w,
        &[4, 3, 3, 3],
        None,
        &[1, 1],
        &[1, 1, 1, 1],
        &[1, 1],
        1,
    );
    assert_close("non-finite inputs", y.as_slice(), &want, 1e-12);
}

// ---------------------------------------------------------------------------------------
// The GEMM convolution over named spatial dims (issue 31 items 2/6): the im2col's window
// built at call time from the call's lengths. Every case against `conv_ref` (f64 loops).

graph! {
    // Grouped, strides 2 and 3, a dilation on W, pads at H's beginning and W's end only.
    fn conv_gemm_grouped(x: f32[N, 4, H, W], w: f32[6, 2, 3, 2], b: f32[6]) -> f32[N, 6, H / 2, (W + 2) / 3] {
        conv(x, w, b, strides = [2, 3], pads = [1, 0, 0, 2], dilations = [1, 2], group = 2)
    }
    // Every pad different: H padded by 0 + 1, W by 2 + 1.
    fn conv_gemm_pads(x: f64[1, 3, H, W], w: f64[2, 3, 3, 3]) -> f64[1, 2, H - 1, W + 1] {
        conv(x, w, pads = [0, 2, 1, 1])
    }
    fn conv_gemm_1d(x: f64[B, 4, L], w: f64[4, 4, 3]) -> f64[B, 4, (L - 1) / 2] {
        conv(x, w, strides = [2], pads = [1, 1], dilations = [2])
    }
    fn conv_gemm_3d(x: f32[1, 2, D, H, W], w: f32[3, 2, 2, 3, 1]) -> f32[1, 3, D + 1, H, W + 2] {
        conv(x, w, pads = [1, 1, 1, 1, 1, 1])
    }
}

#[test]
fn gemm_conv_over_named_spatial_dims_as_onnx() {
    // (N, H, W): lengths where the output is 1 (H = 2, 3; W = 1), odd and even ones.
    for (n, h, w) in [
        (1, 2, 1),
        (2, 3, 2),
        (1, 4, 4),
        (2, 5, 6),
        (1, 7, 11),
        (1, 16, 9),
    ] {
        let x = f32s(&data(n * 4 * h * w));
        let wt = f32s(&data(72).iter().map(|v| v * 0.3).collect::<Vec<_>>());
        let b = f32s(&[0.25, -0.5, 1.0, 0.0, 2.0, -1.5]);
        let xt =
            Tensor::<f32, Shape![_, 4, _, _]>::from_shape_vec([n, 4, h, w], x.clone()).unwrap();
        let y = conv_gemm_grouped(&xt, &wt[..], &b[..]).unwrap();
        let (want, od) = conv_ref(
            &wide(&x),
            &[n, 4, h, w],
            &wide(&wt),
            &[6, 2, 3, 2],
            Some(&wide(&b)),
            &[2, 3],
            &[1, 0, 0, 2],
            &[1, 2],
            2,
        );
        assert_eq!(y.dims(), &od[..], "grouped {n}x{h}x{w}");
        assert_close(
            &format!("grouped {n}x{h}x{w}"),
            &wide(y.as_slice()),
            &want,
            1e-5,
        );
    }
    for (h, w) in [(2, 1), (3, 1), (2, 5), (6, 2), (9, 8)] {
        let x = data(3 * h * w);
        let wt = data(54);
        let xt =
            Tensor::<f64, Shape![1, 3, _, _]>::from_shape_vec([1, 3, h, w], x.clone()).unwrap();
        let y = conv_gemm_pads(&xt, &wt[..]).unwrap();
        let (want, od) = conv_ref(
            &x,
            &[1, 3, h, w],
            &wt,
            &[2, 3, 3, 3],
            None,
            &[1, 1],
            &[0, 2, 1, 1],
            &[1, 1],
            1,
        );
        assert_eq!(y.dims(), &od[..], "pads {h}x{w}");
        assert_close(&format!("pads {h}x{w}"), y.as_slice(), &want, 1e-12);
    }
    for (n, l) in [(1, 3), (2, 4), (1, 5), (3, 8), (1, 13)] {
        let x = data(n * 4 * l);
        let wt = data(48);
        let xt = Tensor::<f64, Shape![_, 4, _]>::from_shape_vec([n, 4, l], x.clone()).unwrap();
        let y = conv_gemm_1d(&xt, &wt[..]).unwrap();
        let (want, od) = conv_ref(
            &x,
            &[n, 4, l],
            &wt,
            &[4, 4, 3],
            None,
            &[2],
            &[1, 1],
            &[2],
            1,
        );
        assert_eq!(y.dims(), &od[..], "1-D {n}x{l}");
        assert_close(&format!("1-D {n}x{l}"), y.as_slice(), &want, 1e-12);
    }
    for (d, h, w) in [(1, 1, 1), (2, 3, 4), (3, 5, 2)] {
        let x = f32s(&data(2 * d * h * w));
        let wt = f32s(&data(36));
        let xt = Tensor::<f32, Shape![1, 2, _, _, _]>::from_shape_vec([1, 2, d, h, w], x.clone())
            .unwrap();
        let y = conv_gemm_3d(&xt, &wt[..]).unwrap();
        let (want, od) = conv_ref(
            &wide(&x),
            &[1, 2, d, h, w],
            &wide(&wt),
            &[3, 2, 2, 3, 1],
            None,
            &[1, 1, 1],
            &[1; 6],
            &[1, 1, 1],
            1,
        );
        assert_eq!(y.dims(), &od[..], "3-D {d}x{h}x{w}");
        assert_close(
            &format!("3-D {d}x{h}x{w}"),
            &wide(y.as_slice()),
            &want,
            1e-5,
        );
    }
}

/// A window longer than its padded axis is the call's `Err` (`TooShort`, naming `conv`
/// and the axis) at call entry, on the GEMM form and the einsum form (depthwise) alike;
/// one element more and the call runs.
#[test]
fn a_named_axis_too_short_for_the_window_is_the_calls_err() {
    let too_short = |e: tensorgraph::ShapeError, dim: &str, least: usize| {
        let text = e.to_string();
        assert!(
            matches!(e, tensorgraph::ShapeError::TooShort { .. }),
            "{text}"
        );
        let want = format!("`conv` needs dim `{dim}` to be at least {least}");
        assert!(text.contains(&want), "{text}");
    };
    // H padded by 1 against a window of 3: H ≥ 2 (H = 1 is one short: padded 2 = window − 1).
    let xt =
        Tensor::<f32, Shape![_, 4, _, _]>::from_shape_vec([1, 4, 1, 5], vec![0.0; 20]).unwrap();
    let e = conv_gemm_grouped(&xt, &[0.0; 72][..], &[0.0; 6][..]).unwrap_err();
    too_short(e, "H", 2);
    // W padded by 2 against a window of 3: W = 0 is one short.
    let xt = Tensor::<f32, Shape![_, 4, _, _]>::from_shape_vec([1, 4, 4, 0], vec![]).unwrap();
    let e = conv_gemm_grouped(&xt, &[0.0; 72][..], &[0.0; 6][..]).unwrap_err();
    too_short(e, "W", 1);
    // 1-D: a window of 5 padded by 2: L ≥ 3.
    let xt = Tensor::<f64, Shape![_, 4, _]>::from_shape_vec([2, 4, 2], vec![0.0; 16]).unwrap();
    let e = conv_gemm_1d(&xt, &[0.0; 48][..]).unwrap_err();
    too_short(e, "L", 3);
    let xt = Tensor::<f64, Shape![_, 4, _]>::from_shape_vec([2, 4, 3], vec![1.0; 24]).unwrap();
    assert_eq!(conv_gemm_1d(&xt, &[1.0; 48][..]).unwrap().dims(), [2, 4, 1]);
    // Depthwise (the einsum form), 3×3 padded by 1 + 1: H = 0 is one short of the window
    // (its slices alone would give an empty output).
    let xt = Tensor::<f64, Shape![2, 3, _, _]>::from_shape_vec([2, 3, 0, 4], vec![]).unwrap();
    let e = conv_named_depthwise(&xt, &data(27)[..]).unwrap_err();
    too_short(e, "H", 1);
}

/// The pools over named axes keep the same rule: a window longer than its padded axis is
/// `TooShort` at call entry naming the pool, even where the slices alone would give an
/// empty output (an axis exactly one short); at the window's length the call runs.
#[test]
fn a_named_axis_too_short_for_a_pool_window_is_the_calls_err() {
    let too_short = |e: tensorgraph::ShapeError, op: &str, dim: &str, least: usize| {
        let text = e.to_string();
        assert!(
            matches!(e, tensorgraph::ShapeError::TooShort { .. }),
            "{text}"
        );
        let want = format!("`{op}` needs dim `{dim}` to be at least {least}");
        assert!(text.contains(&want), "{text}");
    };
    let x = |h: usize, w: usize| {
        Tensor::<f32, Shape![1, 2, _, _]>::from_shape_vec([1, 2, h, w], f32s(&data(2 * h * w)))
            .unwrap()
    };
    too_short(max_pool_unpadded(&x(2, 5)).unwrap_err(), "max_pool", "H", 3);
    too_short(max_pool_unpadded(&x(5, 2)).unwrap_err(), "max_pool", "W", 3);
    // At the window's length: one output, the window's maximum.
    let xs = data(2 * 3 * 3);
    let y = max_pool_unpadded(&x(3, 3)).unwrap();
    assert_eq!(y.dims(), [1, 2, 1, 1]);
    for c in 0..2 {
        let want = xs[9 * c..9 * c + 9]
            .iter()
            .map(|&v| v as f32)
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(y.as_slice()[c], want);
    }
    let x64 = |h: usize, w: usize| {
        Tensor::<f64, Shape![1, 2, _, _]>::from_shape_vec([1, 2, h, w], data(2 * h * w)).unwrap()
    };
    too_short(
        average_pool_unpadded(&x64(2, 4)).unwrap_err(),
        "average_pool",
        "H",
        3,
    );
    too_short(
        average_pool_unpadded(&x64(3, 1)).unwrap_err(),
        "average_pool",
        "W",
        2,
    );
    assert_eq!(
        average_pool_unpadded(&x64(3, 2)).unwrap().dims(),
        [1, 2, 1, 1]
    );
    let x1 = |l: usize| {
        Tensor::<f32, Shape![1, 2, _]>::from_shape_vec([1, 2, l], f32s(&data(2 * l))).unwrap()
    };
    too_short(lp_pool_unpadded(&x1(3)).unwrap_err(), "lp_pool", "L", 4);
    assert_eq!(lp_pool_unpadded(&x1(4)).unwrap().dims(), [1, 2, 1]);
}

// ---------------------------------------------------------------------------------------
// max_pool on the runtime's pass (check/pool_kernel.rs; tensor-core pool.rs): f32/f64 with
// literal spatial lengths. Against `pool_ref` (ONNX's definition), exactly: a maximum is
// one of its inputs.

graph! {
    fn pool_fast_2d(x: f32[2, 3, 11, 13]) -> f32[2, 3, 6, 7] {
        max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1])
    }
    fn pool_fast_f64(x: f64[1, 2, 9, 20]) -> f64[1, 2, 8, 7] {
        max_pool(x, kernel_shape = [2, 3], strides = [1, 3], dilations = [2, 2], pads = [0, 2, 1, 1])
    }
    fn pool_fast_ceil(x: f32[1, 2, 8, 9]) -> f32[1, 2, 4, 4] {
        max_pool(x, kernel_shape = [3, 3], strides = [2, 2], ceil_mode = true)
    }
    fn pool_fast_1d(x: f64[2, 3, 17]) -> f64[2, 3, 6] {
        max_pool(x, kernel_shape = [4], strides = [3], dilations = [2], pads = [2, 1], ceil_mode = true)
    }
    fn pool_fast_3d(x: f32[1, 2, 5, 6, 7]) -> f32[1, 2, 3, 5, 4] {
        max_pool(x, kernel_shape = [2, 3, 2], strides = [2, 1, 2], pads = [1, 0, 1, 0, 1, 1])
    }
    fn pool_fast_named(x: f32[N, C, 9, 10]) -> f32[N, C, 5, 5] {
        max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1])
    }
    fn pool_fast_fused(x: f32[1, 2, 7, 8]) -> (f32[1, 2, 4, 4], f32[1, 2, 4, 4]) {
        let p = max_pool(x * 2.0 - 1.0, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]);
        (p + 1.0, max_pool(x, kernel_shape = [2, 2], strides = [2, 2], pads = [1, 0, 0, 0]))
    }
    fn pool_half(x: f16[1, 2, 5, 6]) -> f16[1, 2, 3, 3] {
        max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1])
    }
}

#[test]
fn max_pool_on_the_runtime_pass_as_onnx() {
    let pool =
        |x: &[f64], xd: &[usize], k: &[usize], s: &[usize], p: &[usize], d: &[usize], ceil| {
            pool_ref(x, xd, Pool::Max, k, s, p, d, ceil)
        };
    // NaN and ±inf at corners (read by padded windows) and inside.
    let mut x = f32s(&data(2 * 3 * 11 * 13));
    for (i, v) in [
        (0, f32::NAN),
        (12, f32::INFINITY),
        (140, f32::NEG_INFINITY),
        (857, f32::NAN),
    ] {
        x[i] = v;
    }
    let y = pool_fast_2d(&t(&x));
    let (want, _, od) = pool(
        &wide(&x),
        &[2, 3, 11, 13],
        &[3, 3],
        &[2, 2],
        &[1, 1, 1, 1],
        &[1, 1],
        false,
    );
    assert_eq!(od, [2, 3, 6, 7]);
    assert_close(
        "2-D 3x3/2 with NaN and inf",
        &wide(y.as_slice()),
        &want,
        0.0,
    );
    assert!(y.as_slice()[0].is_nan() && y.as_slice()[y.as_slice().len() - 1].is_nan());

    let x = data(2 * 9 * 20);
    let y = pool_fast_f64(&t(&x));
    let (want, _, od) = pool(
        &x,
        &[1, 2, 9, 20],
        &[2, 3],
        &[1, 3],
        &[0, 2, 1, 1],
        &[2, 2],
        false,
    );
    assert_eq!(od, [1, 2, 8, 7]);
    assert_close("f64 dilated, uneven pads", y.as_slice(), &want, 0.0);

    let x = f32s(&data(2 * 8 * 9));
    let y = pool_fast_ceil(&t(&x));
    let (want, _, od) = pool(
        &wide(&x),
        &[1, 2, 8, 9],
        &[3, 3],
        &[2, 2],
        &[0; 4],
        &[1, 1],
        true,
    );
    assert_eq!(od, [1, 2, 4, 4]);
    assert_close("ceil_mode", &wide(y.as_slice()), &want, 0.0);

    let x = data(2 * 3 * 17);
    let y = pool_fast_1d(&t(&x));
    let (want, _, od) = pool(&x, &[2, 3, 17], &[4], &[3], &[2, 1], &[2], true);
    assert_eq!(od, [2, 3, 6]);
    assert_close("1-D", y.as_slice(), &want, 0.0);

    let x = f32s(&data(2 * 5 * 6 * 7));
    let y = pool_fast_3d(&t(&x));
    let (want, _, od) = pool(
        &wide(&x),
        &[1, 2, 5, 6, 7],
        &[2, 3, 2],
        &[2, 1, 2],
        &[1, 0, 1, 0, 1, 1],
        &[1; 3],
        false,
    );
    assert_eq!(od, [1, 2, 3, 5, 4]);
    assert_close("3-D", &wide(y.as_slice()), &want, 0.0);

    // Named batch and channels: the step runs over `N·C` planes, none at all for N = 0.
    for (n, c) in [(2usize, 3usize), (1, 1), (0, 4)] {
        let x = f32s(&data(n * c * 90));
        let xt =
            Tensor::<f32, Shape![_, _, 9, 10]>::from_shape_vec([n, c, 9, 10], x.clone()).unwrap();
        let y = pool_fast_named(&xt).unwrap();
        let (want, _, _) = pool(
            &wide(&x),
            &[n, c, 9, 10],
            &[3, 3],
            &[2, 2],
            &[1; 4],
            &[1, 1],
            false,
        );
        assert_close(&format!("named {n}x{c}"), &wide(y.as_slice()), &want, 0.0);
    }

    // A computed input (read from its temp) and a consumer of the pool (which then keeps
    // its temp), next to a pool written straight into its output.
    let x = f32s(&data(2 * 7 * 8));
    let (a, b) = pool_fast_fused(&t(&x));
    let scaled: Vec<f64> = x.iter().map(|&v| (v * 2.0 - 1.0) as f64).collect();
    let (want, _, _) = pool(
        &scaled,
        &[1, 2, 7, 8],
        &[3, 3],
        &[2, 2],
        &[1; 4],
        &[1, 1],
        false,
    );
    let want: Vec<f64> = want.iter().map(|&v| (v as f32 + 1.0) as f64).collect();
    assert_close(
        "computed input, fused consumer",
        &wide(a.as_slice()),
        &want,
        0.0,
    );
    let (want, _, _) = pool(
        &wide(&x),
        &[1, 2, 7, 8],
        &[2, 2],
        &[2, 2],
        &[1, 0, 0, 0],
        &[1, 1],
        false,
    );
    assert_close("into its output", &wide(b.as_slice()), &want, 0.0);

    // f16 keeps the expression form (the runtime pass is f32/f64): the same values.
    let x: Vec<f16> = data(60).iter().map(|&v| f16::from_f64(v)).collect();
    let y = pool_half(&t(&x));
    let (want, _, _) = pool(
        &wide(&x),
        &[1, 2, 5, 6],
        &[3, 3],
        &[2, 2],
        &[1; 4],
        &[1, 1],
        false,
    );
    assert_close("f16", &wide(y.as_slice()), &want, 0.0);
}

graph! {
    // ResNet's conv-bn-relu-residual with a batch: the epilogue runs in the product's
    // stage image by image (NOTES.md "Every convolution fused with its epilogue").
    fn conv_bn_res_b2(x: f32[2, 8, 9, 11], w: f32[12, 8, 3, 3], b: f32[12], s: f32[12], t: f32[12], m: f32[12], v: f32[12], r: f32[2, 12, 9, 11]) -> f32[2, 12, 9, 11] {
        relu(batch_norm(conv(x, w, b, pads = [1, 1, 1, 1]), s, t, m, v) + r)
    }
    fn conv_bn_res_b3(x: f64[3, 8, 9, 11], w: f64[12, 8, 3, 3], b: f64[12], s: f64[12], t: f64[12], m: f64[12], v: f64[12], r: f64[3, 12, 9, 11]) -> f64[3, 12, 9, 11] {
        relu(batch_norm(conv(x, w, b, pads = [1, 1, 1, 1]), s, t, m, v) + r)
    }
    fn conv_bn_res_named(x: f32[N, 8, 9, 11], w: f32[12, 8, 3, 3], b: f32[12], s: f32[12], t: f32[12], m: f32[12], v: f32[12], r: f32[N, 12, 9, 11]) -> f32[N, 12, 9, 11] {
        relu(batch_norm(conv(x, w, b, pads = [1, 1, 1, 1]), s, t, m, v) + r)
    }
    // No per-channel operand after the conv; large enough (3 × 16 × 64²) to be cut into
    // tasks of images on two threads.
    fn conv_relu_res_b3(x: f32[3, 4, 64, 64], w: f32[16, 4, 3, 3], b: f32[16], r: f32[3, 16, 64, 64]) -> f32[3, 16, 64, 64] {
        relu(conv(x, w, b, pads = [1, 1, 1, 1]) + r)
    }
    // Grouped, uneven pads, a computed bias and a per-channel scale.
    fn conv_grouped_scaled_b2(x: f64[2, 6, 7, 8], w: f64[4, 3, 3, 2], b: f64[4], s: f64[4, 1, 1]) -> f64[2, 4, 6, 8] {
        conv(x, w, b * 2.0 - 1.0, group = 2, pads = [0, 0, 1, 1]) * s
    }
}

/// `conv_ref` of a 2-D 3×3 "same" convolution with a bias: pads 1, strides and dilations
/// 1, one group.
fn same_conv_ref(x: &[f64], xd: &[usize], w: &[f64], wd: &[usize], b: &[f64]) -> Vec<f64> {
    let (conv, _) = conv_ref(x, xd, w, wd, Some(b), &[1, 1], &[1, 1, 1, 1], &[1, 1], 1);
    conv
}

/// The ONNX batch norm over `conv` (`[N, O, P…]` flattened, `per` = positions per channel),
/// plus `r`, through relu, in f64.
fn bn_res_relu(conv: &[f64], per: usize, o: usize, bn: [&[f64]; 4], r: &[f64]) -> Vec<f64> {
    let [s, t, m, v] = bn;
    conv.iter()
        .enumerate()
        .map(|(i, &c)| {
            let k = i / per % o;
            let y = (c - m[k]) / (v[k] + 1e-5).sqrt() * s[k] + t[k];
            (y + r[i]).max(0.0)
        })
        .collect()
}

/// Convolutions with a batch of several (literal 2 and 3, named 1 to 3) and their epilogue
/// (bias, batch norm, relu, residual; a per-channel scale of a grouped conv with a computed
/// bias) against `conv_ref` and the epilogue in f64.
#[test]
fn batched_conv_epilogues_as_onnx() {
    let ch = |k: usize| data(12 + k)[k..].to_vec();
    let (b, t_, m) = (ch(1), ch(3), ch(4));
    let s: Vec<f64> = ch(2).iter().map(|x| x.abs() + 0.25).collect();
    let v: Vec<f64> = ch(5).iter().map(|x| x.abs() + 0.5).collect();
    let w = data(12 * 72).iter().map(|v| v * 0.1).collect::<Vec<_>>();
    let reference = |n: usize, x: &[f64], w: &[f64], r: &[f64], bn: [&[f64]; 4], b: &[f64]| {
        let conv = same_conv_ref(x, &[n, 8, 9, 11], w, &[12, 8, 3, 3], b);
        let want = bn_res_relu(&conv, 99, 12, bn, r);
        // Every image's every channel has outputs above relu's zero, so a channel row the
        // product skipped or misplaced shows.
        for (row, values) in want.chunks(99).enumerate() {
            assert!(
                values.iter().any(|&v| v > 0.0),
                "reference row {row} all clipped"
            );
        }
        want
    };
    // f32, batch 2: the graph's inputs are f32, the reference takes the same values.
    {
        let x = f32s(&data(2 * 8 * 99));
        let r = f32s(&data(2 * 12 * 99).iter().rev().copied().collect::<Vec<_>>());
        let (w32, b32, s32, t32, m32, v32) =
            (f32s(&w), f32s(&b), f32s(&s), f32s(&t_), f32s(&m), f32s(&v));
        let y = conv_bn_res_b2(
            &t(&x),
            &t(&w32),
            &t(&b32),
            &t(&s32),
            &t(&t32),
            &t(&m32),
            &t(&v32),
            &t(&r),
        );
        let bn = [&wide(&s32)[..], &wide(&t32), &wide(&m32), &wide(&v32)];
        let want = reference(2, &wide(&x), &wide(&w32), &wide(&r), bn, &wide(&b32));
        assert_close("batch 2", &wide(y.as_slice()), &want, 1e-5);
    }
    // f64, batch 3.
    {
        let x = data(3 * 8 * 99);
        let r: Vec<f64> = data(3 * 12 * 99).iter().map(|v| v * -0.5).collect();
        let y = conv_bn_res_b3(
            &t(&x),
            &t(&w),
            &t(&b),
            &t(&s),
            &t(&t_),
            &t(&m),
            &t(&v),
            &t(&r),
        );
        let want = reference(3, &x, &w, &r, [&s, &t_, &m, &v], &b);
        assert_close("batch 3", y.as_slice(), &want, 1e-12);
    }
    // f32, a named batch of 1, 2 and 3.
    for n in 1..=3 {
        let x = f32s(&data(n * 8 * 99 + 5)[5..]);
        let r = f32s(&data(n * 12 * 99));
        let (w32, b32, s32, t32, m32, v32) =
            (f32s(&w), f32s(&b), f32s(&s), f32s(&t_), f32s(&m), f32s(&v));
        let xt =
            Tensor::<f32, Shape![_, 8, 9, 11]>::from_shape_vec([n, 8, 9, 11], x.clone()).unwrap();
        let rt =
            Tensor::<f32, Shape![_, 12, 9, 11]>::from_shape_vec([n, 12, 9, 11], r.clone()).unwrap();
        let y = conv_bn_res_named(
            &xt,
            &w32[..],
            &b32[..],
            &s32[..],
            &t32[..],
            &m32[..],
            &v32[..],
            &rt,
        )
        .unwrap();
        let bn = [&wide(&s32)[..], &wide(&t32), &wide(&m32), &wide(&v32)];
        let want = reference(n, &wide(&x), &wide(&w32), &wide(&r), bn, &wide(&b32));
        assert_close(
            &format!("named batch {n}"),
            &wide(y.as_slice()),
            &want,
            1e-5,
        );
    }
    // Bias, residual and relu only, split into tasks of images.
    {
        let x = f32s(&data(3 * 4 * 4096));
        let w4 = f32s(&data(16 * 36).iter().map(|v| v * 0.2).collect::<Vec<_>>());
        let b16 = f32s(&data(17)[1..]);
        let r = f32s(
            &data(3 * 16 * 4096)
                .iter()
                .map(|v| v * 0.5)
                .collect::<Vec<_>>(),
        );
        let y = conv_relu_res_b3(&t(&x), &t(&w4), &t(&b16), &t(&r));
        let conv = same_conv_ref(
            &wide(&x),
            &[3, 4, 64, 64],
            &wide(&w4),
            &[16, 4, 3, 3],
            &wide(&b16),
        );
        let want: Vec<f64> = conv
            .iter()
            .zip(wide(&r))
            .map(|(c, r)| (c + r).max(0.0))
            .collect();
        assert_close(
            "bias + residual + relu, batch 3",
            &wide(y.as_slice()),
            &want,
            1e-5,
        );
    }
    // Grouped with a computed bias and a per-channel scale, uneven pads.
    {
        let x = data(2 * 6 * 56);
        let w = data(4 * 18);
        let b = [0.5, -1.0, 2.0, 0.25];
        let s = [1.5, -0.5, 2.0, 0.75];
        let y = conv_grouped_scaled_b2(&t(&x), &t(&w), &t(&b), &t(&s));
        let b2: Vec<f64> = b.iter().map(|v| v * 2.0 - 1.0).collect();
        let (conv, od) = conv_ref(
            &x,
            &[2, 6, 7, 8],
            &w,
            &[4, 3, 3, 2],
            Some(&b2),
            &[1, 1],
            &[0, 0, 1, 1],
            &[1, 1],
            2,
        );
        assert_eq!(od, [2, 4, 6, 8]);
        let want: Vec<f64> = conv
            .iter()
            .enumerate()
            .map(|(i, c)| c * s[i / 48 % 4])
            .collect();
        assert_close("grouped, computed bias, scaled", y.as_slice(), &want, 1e-12);
    }
}

// The runtime pass (tensor-core resize.rs) against the expression form: each `rp_*` graph
// resizes spatial axes of `[N, C, spatial…]` (the pass); its `re_*` twin resizes the same
// planes as a tensor whose resized axes start before axis 2, which keeps the expression
// form (check/resize_kernel.rs). Their values must agree bit for bit, and with the f64
// ONNX reference within rounding.
graph! {
    fn rp_linear(x: f32[2, 3, 7, 9]) -> f32[2, 3, 14, 18] {
        resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear)
    }
    fn re_linear(x: f32[6, 7, 9]) -> f32[6, 14, 18] {
        resize(x, scales = [1.0, 2.0, 2.0], mode = linear)
    }
    fn rp_corners_down(x: f64[1, 2, 9, 13]) -> f64[1, 2, 4, 5] {
        resize(x, sizes = [4, 5], axes = [2, 3], mode = linear, coordinate_transformation_mode = align_corners)
    }
    fn re_corners_down(x: f64[2, 9, 13]) -> f64[2, 4, 5] {
        resize(x, sizes = [4, 5], axes = [1, 2], mode = linear, coordinate_transformation_mode = align_corners)
    }
    fn rp_cubic(x: f32[1, 1, 5, 7]) -> (f32[1, 1, 12, 17], f32[1, 1, 12, 17]) {
        (resize(x, scales = [1.0, 1.0, 2.5, 2.5], mode = cubic, coordinate_transformation_mode = asymmetric),
         resize(x, scales = [1.0, 1.0, 2.5, 2.5], mode = cubic, exclude_outside = true, cubic_coeff_a = -0.5))
    }
    fn re_cubic(x: f32[5, 7]) -> (f32[12, 17], f32[12, 17]) {
        (resize(x, scales = [2.5, 2.5], mode = cubic, coordinate_transformation_mode = asymmetric),
         resize(x, scales = [2.5, 2.5], mode = cubic, exclude_outside = true, cubic_coeff_a = -0.5))
    }
    fn rp_nearest(x: f32[1, 2, 9, 11]) -> (f32[1, 2, 5, 6], f32[1, 2, 5, 6], f32[1, 2, 27, 22], f32[1, 2, 27, 22]) {
        (resize(x, scales = [1.0, 1.0, 0.6, 0.6], coordinate_transformation_mode = half_pixel_symmetric, nearest_mode = round_prefer_ceil),
         resize(x, scales = [1.0, 1.0, 0.6, 0.6], coordinate_transformation_mode = pytorch_half_pixel, nearest_mode = floor),
         resize(x, scales = [1.0, 1.0, 3.0, 2.0], coordinate_transformation_mode = align_corners, nearest_mode = ceil),
         resize(x, scales = [1.0, 1.0, 3.0, 2.0], coordinate_transformation_mode = asymmetric))
    }
    fn re_nearest(x: f32[2, 9, 11]) -> (f32[2, 5, 6], f32[2, 5, 6], f32[2, 27, 22], f32[2, 27, 22]) {
        (resize(x, scales = [1.0, 0.6, 0.6], coordinate_transformation_mode = half_pixel_symmetric, nearest_mode = round_prefer_ceil),
         resize(x, scales = [1.0, 0.6, 0.6], coordinate_transformation_mode = pytorch_half_pixel, nearest_mode = floor),
         resize(x, scales = [1.0, 3.0, 2.0], coordinate_transformation_mode = align_corners, nearest_mode = ceil),
         resize(x, scales = [1.0, 3.0, 2.0], coordinate_transformation_mode = asymmetric))
    }
    fn rp_1d(x: f64[2, 3, 11]) -> f64[2, 3, 16] {
        resize(x, scales = [1.0, 1.0, 1.5], mode = cubic, coordinate_transformation_mode = half_pixel_symmetric)
    }
    fn re_1d(x: f64[6, 11]) -> f64[6, 16] {
        resize(x, scales = [1.0, 1.5], mode = cubic, coordinate_transformation_mode = half_pixel_symmetric)
    }
    fn rp_3d(x: f32[1, 1, 3, 4, 5]) -> f32[1, 1, 6, 6, 10] {
        resize(x, scales = [1.0, 1.0, 2.0, 1.5, 2.0], mode = linear)
    }
    fn re_3d(x: f32[3, 4, 5]) -> f32[6, 6, 10] {
        resize(x, scales = [2.0, 1.5, 2.0], mode = linear)
    }
    fn rp_named(x: f32[N, C, 5, 6]) -> f32[N, C, 10, 12] {
        resize(x, scales = [1.0, 1.0, 2.0, 2.0], mode = linear, coordinate_transformation_mode = pytorch_half_pixel)
    }
    fn re_named(x: f32[M, 5, 6]) -> f32[M, 10, 12] {
        resize(x, scales = [1.0, 2.0, 2.0], mode = linear, coordinate_transformation_mode = pytorch_half_pixel)
    }
}

/// `got` and `want` are the same bits (any NaN for a NaN).
fn assert_same_bits<T: Copy + Into<f64>>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w): (f64, f64) = (g.into(), w.into());
        assert!(
            (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits(),
            "{what} [{i}]: {g} vs {w}"
        );
    }
}

/// `data(n)` with NaN and infinities at a few places (`specials`), so that they meet
/// every tap.
fn with_specials(n: usize, specials: bool) -> Vec<f64> {
    let mut x = data(n);
    if specials {
        for (at, v) in [
            (4, f64::NAN),
            (n / 3, f64::INFINITY),
            (n / 2, f64::NEG_INFINITY),
            (n - 1, f64::NAN),
        ] {
            x[at] = v;
        }
    }
    x
}

#[test]
fn resize_on_the_runtime_pass_as_the_expression_form_and_onnx() {
    let linear = Rs {
        mode: "linear",
        ..HALF_PIXEL_NEAREST
    };
    let cubic = Rs {
        mode: "cubic",
        ..HALF_PIXEL_NEAREST
    };
    for specials in [false, true] {
        // Against ONNX only without infinities: the reference's weights of 0 meet them
        // where the taps are clamped, as the pass's do, but the f32 rounding of a sum
        // next to an infinity is no tolerance question.
        let tol = |t: f64| if specials { None } else { Some(t) };
        let onnx = |what: &str,
                    got: &[f64],
                    x: &[f64],
                    xd: &[usize],
                    sc: &[f64],
                    od: &[usize],
                    m: Rs,
                    t: Option<f64>| {
            if let Some(t) = t {
                check_resize(what, got, x, xd, sc, od, m, t);
            }
        };

        let x = with_specials(2 * 3 * 7 * 9, specials);
        let x32 = f32s(&x);
        let got = rp_linear(&t(&x32));
        assert_same_bits("linear", got.as_slice(), re_linear(&t(&x32)).as_slice());
        onnx(
            "linear",
            &wide(got.as_slice()),
            &wide(&x32),
            &[2, 3, 7, 9],
            &by_scales(&[1.0, 1.0, 2.0, 2.0]),
            &[2, 3, 14, 18],
            linear,
            tol(1e-6),
        );

        let x = with_specials(2 * 9 * 13, specials);
        let got = rp_corners_down(&t(&x));
        assert_same_bits(
            "align_corners down",
            got.as_slice(),
            re_corners_down(&t(&x)).as_slice(),
        );
        let m = Rs {
            ctm: "align_corners",
            ..linear
        };
        onnx(
            "align_corners down",
            got.as_slice(),
            &x,
            &[1, 2, 9, 13],
            &by_sizes(&[1, 2, 9, 13], &[1, 2, 4, 5]),
            &[1, 2, 4, 5],
            m,
            tol(1e-12),
        );

        let x32 = f32s(&with_specials(35, specials));
        let (a, b) = rp_cubic(&t(&x32));
        let (ea, eb) = re_cubic(&t(&x32));
        assert_same_bits("cubic asymmetric", a.as_slice(), ea.as_slice());
        assert_same_bits("cubic exclude_outside", b.as_slice(), eb.as_slice());
        let sc = by_scales(&[1.0, 1.0, 2.5, 2.5]);
        let (xd, od) = ([1, 1, 5, 7], [1, 1, 12, 17]);
        onnx(
            "cubic asymmetric",
            &wide(a.as_slice()),
            &wide(&x32),
            &xd,
            &sc,
            &od,
            Rs {
                ctm: "asymmetric",
                ..cubic
            },
            tol(1e-5),
        );
        onnx(
            "cubic exclude_outside",
            &wide(b.as_slice()),
            &wide(&x32),
            &xd,
            &sc,
            &od,
            Rs {
                a: -0.5,
                exclude: true,
                ..cubic
            },
            tol(1e-5),
        );

        let x32 = f32s(&with_specials(2 * 9 * 11, specials));
        let got = rp_nearest(&t(&x32));
        let want = re_nearest(&t(&x32));
        let xd = [1, 2, 9, 11];
        for (what, g, w, ctm, nearest, s, od) in [
            (
                "nearest symmetric",
                got.0.as_slice(),
                want.0.as_slice(),
                "half_pixel_symmetric",
                "round_prefer_ceil",
                0.6,
                [1, 2, 5, 6],
            ),
            (
                "nearest pytorch",
                got.1.as_slice(),
                want.1.as_slice(),
                "pytorch_half_pixel",
                "floor",
                0.6,
                [1, 2, 5, 6],
            ),
        ] {
            assert_same_bits(what, g, w);
            check_resize(
                what,
                &wide(g),
                &wide(&x32),
                &xd,
                &by_scales(&[1.0, 1.0, s, s]),
                &od,
                Rs {
                    ctm,
                    nearest,
                    ..HALF_PIXEL_NEAREST
                },
                0.0,
            );
        }
        let sc = by_scales(&[1.0, 1.0, 3.0, 2.0]);
        assert_same_bits("nearest corners", got.2.as_slice(), want.2.as_slice());
        check_resize(
            "nearest corners",
            &wide(got.2.as_slice()),
            &wide(&x32),
            &xd,
            &sc,
            &[1, 2, 27, 22],
            Rs {
                ctm: "align_corners",
                nearest: "ceil",
                ..HALF_PIXEL_NEAREST
            },
            0.0,
        );
        assert_same_bits("nearest asymmetric", got.3.as_slice(), want.3.as_slice());
        check_resize(
            "nearest asymmetric",
            &wide(got.3.as_slice()),
            &wide(&x32),
            &xd,
            &sc,
            &[1, 2, 27, 22],
            Rs {
                ctm: "asymmetric",
                ..HALF_PIXEL_NEAREST
            },
            0.0,
        );

        let x = with_specials(66, specials);
        let got = rp_1d(&t(&x));
        assert_same_bits("1-D cubic", got.as_slice(), re_1d(&t(&x)).as_slice());
        let m = Rs {
            ctm: "half_pixel_symmetric",
            ..cubic
        };
        onnx(
            "1-D cubic",
            got.as_slice(),
            &x,
            &[2, 3, 11],
            &by_scales(&[1.0, 1.0, 1.5]),
            &[2, 3, 16],
            m,
            tol(1e-12),
        );

        let x32 = f32s(&with_specials(60, specials));
        let got = rp_3d(&t(&x32));
        assert_same_bits("3-D linear", got.as_slice(), re_3d(&t(&x32)).as_slice());
        onnx(
            "3-D linear",
            &wide(got.as_slice()),
            &wide(&x32),
            &[1, 1, 3, 4, 5],
            &by_scales(&[1.0, 1.0, 2.0, 1.5, 2.0]),
            &[1, 1, 6, 6, 10],
            linear,
            tol(1e-6),
        );

        // Named batch and channels: `N·C` planes, none for N = 0.
        for (n, c) in [(2, 3), (0, 3), (1, 1)] {
            let x32 = f32s(&with_specials(n * c * 30 + 30, specials))[..n * c * 30].to_vec();
            let xt = Tensor::<f32, Shape![_, _, 5, 6]>::from_shape_vec([n, c, 5, 6], x32.clone())
                .unwrap();
            let got = rp_named(&xt).unwrap();
            let xe =
                Tensor::<f32, Shape![_, 5, 6]>::from_shape_vec([n * c, 5, 6], x32.clone()).unwrap();
            assert_same_bits(
                &format!("named {n}x{c}"),
                got.as_slice(),
                re_named(&xe).unwrap().as_slice(),
            );
            assert_eq!(got.as_slice().len(), n * c * 120);
            let m = Rs {
                ctm: "pytorch_half_pixel",
                ..linear
            };
            onnx(
                &format!("named {n}x{c}"),
                &wide(got.as_slice()),
                &wide(&x32),
                &[n, c, 5, 6],
                &by_scales(&[1.0, 1.0, 2.0, 2.0]),
                &[n, c, 10, 12],
                m,
                tol(1e-6),
            );
        }
    }
}
