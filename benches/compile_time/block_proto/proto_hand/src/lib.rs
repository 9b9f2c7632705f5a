//! The hand-written twins of k2, k9, k16 of gen.py set 1 with their callers.
#![allow(clippy::all, unused_parens)]
#![allow(unused_imports)]
use tensorgraph::prelude::*;
use std::hint::black_box;

pub fn k2_into(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    assert!(a.len() == 2048 && b.len() == 128 && c.len() == 16 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let av = a[i * 128 + j];
            let t = av.wrapping_mul(3).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & 7);
            let w = if w > 0 { w } else { w.wrapping_neg() };
            out[i * 128 + j] = w.wrapping_add(c[i]);
        }
    }
}
pub fn k2(a: &[i32], b: &[i32], c: &[i32]) -> Vec<i32> {
    let mut out = vec![0 as i32; 2048];
    k2_into(a, b, c, &mut out);
    out
}

pub fn k9_into(x: &[f32], g: &[f32], beta: &[f32], y: &mut [f32], mx: &mut [f32]) {
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
        let inv = 1.0 / (var + 1e-6).sqrt();
        let mut best = f32::NEG_INFINITY;
        for j in 0..128 {
            let d = row[j] - m;
            y[i * 128 + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }
        mx[i] = best;
    }
}
pub fn k9(x: &[f32], g: &[f32], beta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut mx) = (vec![0 as f32; 2048], vec![0 as f32; 16]);
    k9_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}

pub fn k16_into(x: &[f32], b: &[f32], s: f32, out: &mut [f32]) {
    assert!(x.len() == 2048 && b.len() == 128 && out.len() == 2048);
    for i in 0..16 {
        for j in 0..128 {
            let xv = x[i * 128 + j];
            let h = xv * s + b[j];
            let r = (h - 1.5f32).max(0.0);
            let e = (-r.abs()).exp();
            out[i * 128 + j] = r * e + xv.abs().sqrt() * 0.75f32;
        }
    }
}
pub fn k16(x: &[f32], b: &[f32], s: f32) -> Vec<f32> {
    let mut out = vec![0 as f32; 2048];
    k16_into(x, b, s, &mut out);
    out
}

#[inline(never)]
pub fn run_2() {
    black_box(k2(&black_box(vec![0 as i32; 2048]), &black_box(vec![0 as i32; 128]), &black_box(vec![0 as i32; 16])));
}

#[inline(never)]
pub fn run_9() {
    black_box(k9(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), &black_box(vec![0 as f32; 128])));
}

#[inline(never)]
pub fn run_16() {
    black_box(k16(&black_box(vec![0 as f32; 2048]), &black_box(vec![0 as f32; 128]), black_box(1.5 as f32)));
}

#[cfg(feature = "many")]
pub mod many;
