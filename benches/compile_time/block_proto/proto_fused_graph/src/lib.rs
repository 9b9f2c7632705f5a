//! Graphs k2, k9, k16 of gen.py set 1 with their callers (issue 17 prototype baseline).
#![allow(clippy::all, unused_parens)]
use tensorgraph::prelude::*;
use std::hint::black_box;

graph! {
    pub fn k2(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 7);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 1e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.75
    }
}

#[inline(never)]
pub fn run_2() {
    black_box(k2(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9() {
    black_box(k9(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16() {
    black_box(k16(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}

#[cfg(feature = "many")]
pub mod many;
