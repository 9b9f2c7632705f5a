//! Copies 1.. of the kernels of lib.rs with other constants (timing resolution).
use tensorgraph::prelude::*;
use std::hint::black_box;

pub fn k2_1_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 9);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_1(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_1_into(a, b, c, &mut out);
    out
}

pub fn k9_1_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 2e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_1(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_1_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_1_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.76f32;
        }
    }
}
pub fn k16_1(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_1_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_1() {
    black_box(k2_1(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_1() {
    black_box(k9_1(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_1() {
    black_box(k16_1(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_2_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 11);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_2(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_2_into(a, b, c, &mut out);
    out
}

pub fn k9_2_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 3e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_2(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_2_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_2_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.77f32;
        }
    }
}
pub fn k16_2(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_2_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_2() {
    black_box(k2_2(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_2() {
    black_box(k9_2(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_2() {
    black_box(k16_2(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_3_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 13);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_3(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_3_into(a, b, c, &mut out);
    out
}

pub fn k9_3_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 4e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_3(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_3_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_3_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.78f32;
        }
    }
}
pub fn k16_3(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_3_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_3() {
    black_box(k2_3(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_3() {
    black_box(k9_3(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_3() {
    black_box(k16_3(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_4_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 15);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_4(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_4_into(a, b, c, &mut out);
    out
}

pub fn k9_4_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 5e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_4(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_4_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_4_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.79f32;
        }
    }
}
pub fn k16_4(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_4_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_4() {
    black_box(k2_4(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_4() {
    black_box(k9_4(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_4() {
    black_box(k16_4(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_5_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 17);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_5(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_5_into(a, b, c, &mut out);
    out
}

pub fn k9_5_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 6e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_5(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_5_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_5_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.80f32;
        }
    }
}
pub fn k16_5(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_5_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_5() {
    black_box(k2_5(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_5() {
    black_box(k9_5(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_5() {
    black_box(k16_5(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_6_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 19);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_6(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_6_into(a, b, c, &mut out);
    out
}

pub fn k9_6_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 7e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_6(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_6_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_6_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.81f32;
        }
    }
}
pub fn k16_6(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_6_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_6() {
    black_box(k2_6(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_6() {
    black_box(k9_6(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_6() {
    black_box(k16_6(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_7_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 21);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_7(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_7_into(a, b, c, &mut out);
    out
}

pub fn k9_7_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 8e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_7(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_7_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_7_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.82f32;
        }
    }
}
pub fn k16_7(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_7_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_7() {
    black_box(k2_7(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_7() {
    black_box(k9_7(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_7() {
    black_box(k16_7(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_8_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 23);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_8(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_8_into(a, b, c, &mut out);
    out
}

pub fn k9_8_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 9e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_8(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_8_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_8_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.83f32;
        }
    }
}
pub fn k16_8(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_8_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_8() {
    black_box(k2_8(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_8() {
    black_box(k9_8(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_8() {
    black_box(k16_8(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}


pub fn k2_9_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 25);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2_9(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_9_into(a, b, c, &mut out);
    out
}

pub fn k9_9_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
    assert!(x.len() == 2048 && g.len() == 128 && beta.len() == 128 && y.len() == 2048 && mx.len() == 16);
    for i in 0..16 {
        let row = &x[i * 128..(i + 1) * 128];
        let mut s: f64 = 0.0;
        for &v in row {
            s += v as f64;
        }
        let m = (s / 128.0) as f32;
        let mut s2: f64 = 0.0;
        for &v in row {
            let d = v - m;
            s2 += (d * d) as f64;
        }
        let var = (s2 / 128.0) as f32;
        let inv = 1.0 / (var + 10e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9_9(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_9_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_9_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.84f32;
        }
    }
}
pub fn k16_9(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_9_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2_9() {
    black_box(k2_9(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9_9() {
    black_box(k9_9(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16_9() {
    black_box(k16_9(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}
