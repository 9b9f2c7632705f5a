//! Three set-1 graphs (k2, k9, k16 of gen.py) lowered by hand to calls of the precompiled
//! block kernels of `blockops`: what a code generator of that design would emit.
#![allow(clippy::all)]
use blockops as bk;
use std::hint::black_box;

/// k2: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    let (a, b, c, out) = (&a[..2048], &b[..128], &c[..16], &mut out[..2048]);
    let mut t = [0i32; 128];
    for row in 0..16 {
        let ar = &a[row * 128..][..128];
        let o = &mut out[row * 128..][..128];
        bk::copy_i32(o, ar);
        bk::mul_s_i32(o, 3);
        bk::add_i32(o, b);
        bk::shr_s_i32(o, 1);
        bk::xor_s_i32(o, c[row]);
        bk::max_i32(o, ar);
        bk::copy_i32(&mut t, ar);
        bk::and_s_i32(&mut t, 7);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 1e-6)
/// and the row max.
pub fn k9_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    let (x, g, beta, y, mx) = (
        &x[..2048],
        &g[..128],
        &beta[..128],
        &mut y[..2048],
        &mut mx[..16],
    );
    let mut d = [0f32; 128];
    for row in 0..16 {
        let xr = &x[row * 128..][..128];
        let m = bk::mean_f32(bk::sum_f32_f64(xr), 128);
        bk::copy_f32(&mut d, xr);
        bk::sub_s_f32(&mut d, m);
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 1e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    let (x, b, out) = (&x[..2048], &b[..128], &mut out[..2048]);
    let mut r = [0f32; 128];
    let mut e = [0f32; 128];
    for row in 0..16 {
        let xr = &x[row * 128..][..128];
        let o = &mut out[row * 128..][..128];
        bk::mul_s_to_f32(&mut r, xr, s);
        bk::add_f32(&mut r, b);
        bk::sub_s_f32(&mut r, 1.5);
        bk::relu_f32(&mut r);
        bk::copy_f32(&mut e, &r);
        bk::abs_f32(&mut e);
        bk::neg_f32(&mut e);
        bk::exp_f32(&mut e);
        bk::mul_f32(&mut e, &r);
        bk::abs_to_f32(o, xr);
        bk::sqrt_f32(o);
        bk::mul_s_f32(o, 0.75);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2() {
    let mut o = vec![0i32; 2048];
    k2_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16() {
    let mut o = vec![0f32; 2048];
    k16_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

#[cfg(feature = "many")]
pub mod many;
