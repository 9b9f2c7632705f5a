//! Copies 1.. of the kernels of lib.rs with other constants (timing resolution).
use tensorgraph::prelude::*;
use std::hint::black_box;

graph! {
    pub fn k2_1(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 9);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_1(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 2e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_1(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.76
    }
}

#[inline(never)]
pub fn run_2_1() {
    black_box(k2_1(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_1() {
    black_box(k9_1(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_1() {
    black_box(k16_1(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_2(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 11);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_2(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 3e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_2(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.77
    }
}

#[inline(never)]
pub fn run_2_2() {
    black_box(k2_2(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_2() {
    black_box(k9_2(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_2() {
    black_box(k16_2(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_3(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 13);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_3(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 4e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_3(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.78
    }
}

#[inline(never)]
pub fn run_2_3() {
    black_box(k2_3(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_3() {
    black_box(k9_3(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_3() {
    black_box(k16_3(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_4(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 15);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_4(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 5e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_4(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.79
    }
}

#[inline(never)]
pub fn run_2_4() {
    black_box(k2_4(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_4() {
    black_box(k9_4(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_4() {
    black_box(k16_4(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_5(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 17);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_5(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 6e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_5(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.80
    }
}

#[inline(never)]
pub fn run_2_5() {
    black_box(k2_5(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_5() {
    black_box(k9_5(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_5() {
    black_box(k16_5(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_6(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 19);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_6(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 7e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_6(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.81
    }
}

#[inline(never)]
pub fn run_2_6() {
    black_box(k2_6(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_6() {
    black_box(k9_6(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_6() {
    black_box(k16_6(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_7(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 21);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_7(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 8e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_7(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.82
    }
}

#[inline(never)]
pub fn run_2_7() {
    black_box(k2_7(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_7() {
    black_box(k9_7(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_7() {
    black_box(k16_7(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_8(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 23);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_8(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 9e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_8(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.83
    }
}

#[inline(never)]
pub fn run_2_8() {
    black_box(k2_8(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_8() {
    black_box(k9_8(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_8() {
    black_box(k16_8(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}


graph! {
    pub fn k2_9(a: i32[16, 128], b: i32[128], c: i32[16, 1]) -> i32[16, 128] {
        let t = a * 3 + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & 25);
        where(w > 0, w, -w) + c
    }
}

graph! {
    pub fn k9_9(x: f32[16, 128], g: f32[128], beta: f32[128]) -> (f32[16, 128], f32[16]) {
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + 10e-6) * g + beta;
        (y, max(x, axis = 1))
    }
}

graph! {
    pub fn k16_9(x: f32[16, 128], b: f32[128], s: f32) -> f32[16, 128] {
        let h = x * s + b;
        let r = relu(h - 1.5);
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * 0.84
    }
}

#[inline(never)]
pub fn run_2_9() {
    black_box(k2_9(&black_box(Tensor::<i32, Shape![16, 128]>::zeros()), &black_box(Tensor::<i32, Shape![128]>::zeros()), &black_box(Tensor::<i32, Shape![16, 1]>::zeros())));
}

#[inline(never)]
pub fn run_9_9() {
    black_box(k9_9(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros())));
}

#[inline(never)]
pub fn run_16_9() {
    black_box(k16_9(&black_box(Tensor::<f32, Shape![16, 128]>::zeros()), &black_box(Tensor::<f32, Shape![128]>::zeros()), black_box(1.5 as f32)));
}
