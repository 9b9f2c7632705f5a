//! Copies 1.. of the kernels of lib.rs with other constants (timing resolution).
use blockops as bk;
use std::hint::black_box;

/// k2_1: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_1_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 9);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_1: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 2e-6)
/// and the row max.
pub fn k9_1_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 2e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_1: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_1_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.76);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_1() {
    let mut o = vec![0i32; 2048];
    k2_1_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_1() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_1_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_1() {
    let mut o = vec![0f32; 2048];
    k16_1_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_2: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_2_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 11);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_2: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 3e-6)
/// and the row max.
pub fn k9_2_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 3e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_2: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_2_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.77);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_2() {
    let mut o = vec![0i32; 2048];
    k2_2_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_2() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_2_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_2() {
    let mut o = vec![0f32; 2048];
    k16_2_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_3: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_3_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 13);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_3: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 4e-6)
/// and the row max.
pub fn k9_3_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 4e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_3: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_3_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.78);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_3() {
    let mut o = vec![0i32; 2048];
    k2_3_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_3() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_3_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_3() {
    let mut o = vec![0f32; 2048];
    k16_3_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_4: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_4_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 15);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_4: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 5e-6)
/// and the row max.
pub fn k9_4_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 5e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_4: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_4_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.79);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_4() {
    let mut o = vec![0i32; 2048];
    k2_4_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_4() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_4_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_4() {
    let mut o = vec![0f32; 2048];
    k16_4_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_5: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_5_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 17);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_5: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 6e-6)
/// and the row max.
pub fn k9_5_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 6e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_5: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_5_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.80);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_5() {
    let mut o = vec![0i32; 2048];
    k2_5_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_5() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_5_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_5() {
    let mut o = vec![0f32; 2048];
    k16_5_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_6: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_6_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 19);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_6: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 7e-6)
/// and the row max.
pub fn k9_6_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 7e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_6: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_6_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.81);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_6() {
    let mut o = vec![0i32; 2048];
    k2_6_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_6() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_6_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_6() {
    let mut o = vec![0f32; 2048];
    k16_6_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_7: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_7_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 21);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_7: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 8e-6)
/// and the row max.
pub fn k9_7_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 8e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_7: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_7_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.82);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_7() {
    let mut o = vec![0i32; 2048];
    k2_7_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_7() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_7_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_7() {
    let mut o = vec![0f32; 2048];
    k16_7_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_8: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_8_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 23);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_8: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 9e-6)
/// and the row max.
pub fn k9_8_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 9e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_8: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_8_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.83);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_8() {
    let mut o = vec![0i32; 2048];
    k2_8_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_8() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_8_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_8() {
    let mut o = vec![0f32; 2048];
    k16_8_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}

/// k2_9: `a: i32[16, 128], b: i32[128], c: i32[16, 1]`:
/// `t = a * 3 + b; u = (t >> 1) ^ c; w = max(u, a) - (a & 7); where(w > 0, w, -w) + c`.
pub fn k2_9_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
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
        bk::and_s_i32(&mut t, 25);
        bk::sub_i32(o, &t);
        bk::where_gt0_neg_i32(o);
        bk::add_s_i32(o, c[row]);
    }
}

/// k9_9: `x: f32[16, 128], g: f32[128], beta: f32[128]`: a layer norm (f64 sums, eps 10e-6)
/// and the row max.
pub fn k9_9_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let r = bk::norm_scalars_f32(0.0, bk::sum_sq_f32_f64(&d), 128, 10e-6);
        let yr = &mut y[row * 128..][..128];
        bk::copy_f32(yr, &d);
        bk::mul_s_f32(yr, r);
        bk::mul_f32(yr, g);
        bk::add_f32(yr, beta);
        mx[row] = bk::max_f32(xr);
    }
}

/// k16_9: `x: f32[16, 128], b: f32[128], s: f32`:
/// `h = x * s + b; r = relu(h - 1.5); e = exp(-abs(r)); r * e + sqrt(abs(x)) * 0.75`.
pub fn k16_9_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
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
        bk::mul_s_f32(o, 0.84);
        bk::add_f32(o, &e);
    }
}

#[inline(never)]
pub fn run_2_9() {
    let mut o = vec![0i32; 2048];
    k2_9_into(
        &black_box(vec![0i32; 2048]),
        &black_box(vec![0i32; 128]),
        &black_box(vec![0i32; 16]),
        &mut o,
    );
    black_box(o);
}
#[inline(never)]
pub fn run_9_9() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_9_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        &black_box(vec![0f32; 128]),
        &mut y,
        &mut m,
    );
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_9() {
    let mut o = vec![0f32; 2048];
    k16_9_into(
        &black_box(vec![0f32; 2048]),
        &black_box(vec![0f32; 128]),
        black_box(1.5),
        &mut o,
    );
    black_box(o);
}
