//! `_into` of graphs with temps (reduction accumulators, a materialised value, a product's
//! row block) allocates on its first call on a thread and never after: the temps come from
//! the thread's scratch pool. Counted with a global allocator that counts this thread's
//! allocations.

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations;
use tensorgraph::prelude::*;
graph! {
    fn normalise(x: f32[64, 100]) -> (f32[64, 100], f32[100], f32[64, 100]) {
        let centred = x - mean(x, axis = 1, keepdims = true);
        (softmax(centred, axis = 1), sum(x, axis = 0), reshape(cumsum(centred, axis = 0), [64, 100]))
    }
    fn layer(x: f32[40, 16], w: f32[16, 24], b: f32[24]) -> f32[40, 24] { relu(x @ w + b) }
}

#[test]
fn into_allocates_only_on_the_first_call() {
    let x = Tensor::<f32, Shape![64, 100]>::from_fn(|[i, j]| (i * 7 + j) as f32 * 0.01);
    let (mut a, mut b, mut c) = (Tensor::zeros(), Tensor::zeros(), Tensor::zeros());
    normalise_into(&x, &mut a, &mut b, &mut c);
    let before = allocations();
    normalise_into(&x, &mut a, &mut b, &mut c);
    normalise_into(&x, &mut a, &mut b, &mut c);
    assert_eq!(
        allocations() - before,
        0,
        "normalise_into allocated on a repeated call"
    );
    // The results are still right after reuse: column sums of x.
    for j in 0..100 {
        let want: f32 = (0..64).map(|i| (i * 7 + j) as f32 * 0.01).sum();
        assert!((b[[j]] - want).abs() <= 1e-3, "column {j}");
    }

    let (xw, w, bias) = (
        Tensor::<f32, Shape![40, 16]>::from_fn(|[i, j]| (i + j) as f32 * 0.1),
        Tensor::<f32, Shape![16, 24]>::from_fn(|[i, j]| (i as f32 - j as f32) * 0.05),
        Tensor::<f32, Shape![24]>::full(0.25),
    );
    let mut out = Tensor::zeros();
    layer_into(&xw, &w, &bias, &mut out);
    let before = allocations();
    layer_into(&xw, &w, &bias, &mut out);
    assert_eq!(
        allocations() - before,
        0,
        "layer_into allocated on a repeated call"
    );
    let want: f32 = (0..16)
        .map(|k| (3 + k) as f32 * 0.1 * (k as f32 - 5.0) * 0.05)
        .sum::<f32>()
        + 0.25;
    assert!((out[[3, 5]] - want.max(0.0)).abs() <= 1e-4);
}

graph! {
    fn scale(x: f32[64, 100], s: f32) -> f32[64, 100] { x * s }
    fn layer_norm(x: f32[8, 768], gamma: f32[768]) -> f32[8, 768] {
        let d = x - mean(x, axis = 1, keepdims = true);
        d * rsqrt(mean(d * d, axis = 1, keepdims = true) + 1e-5) * gamma
    }
}

#[test]
fn into_documented_as_allocating_nothing_allocates_nothing_on_its_first_call() {
    // Both docs say "allocates nothing" (their temps are rows on the stack): not even the
    // first call on a thread allocates.
    let x = Tensor::<f32, Shape![64, 100]>::from_fn(|[i, j]| (i + j) as f32);
    let mut y = Tensor::zeros();
    let rows = Tensor::<f32, Shape![8, 768]>::from_fn(|[i, j]| ((i * 768 + j) % 7) as f32);
    let gamma = Tensor::<f32, Shape![768]>::full(2.0);
    let mut normed = Tensor::zeros();
    let before = allocations();
    scale_into(&x, 0.5, &mut y);
    layer_norm_into(&rows, &gamma, &mut normed);
    assert_eq!(allocations() - before, 0, "a first call allocated");
    assert_eq!(y[[3, 7]], 5.0);
    // Row 0 holds (j % 7) for j < 768: mean and variance in f64.
    let row: Vec<f64> = (0..768).map(|j| (j % 7) as f64).collect();
    let mean = row.iter().sum::<f64>() / 768.0;
    let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 768.0;
    let want = (row[5] - mean) / (var + 1e-5).sqrt() * 2.0;
    assert!(
        (normed[[0, 5]] as f64 - want).abs() <= 1e-4,
        "{} vs {want}",
        normed[[0, 5]]
    );
}

graph! {
    // One loop nest of more than 32 fused values (`blocks::MAX_VALUES` registers on the
    // stack): in a debug build its program keeps its registers in the thread's buffer
    // (tensor-core blocks `with_registers`).
    fn wide(a: f32[300], b: f32[300]) -> f32[300] {
        let t0 = a * b + 1.5;
        let t1 = t0 - a * 0.5;
        let t2 = max(t1, b) / 3.0;
        let t3 = t2 + abs(b - a);
        let t4 = min(t3, 2.0) * a;
        let t5 = t4 * t4 - b;
        let t6 = (t5 + a) * 0.25;
        let t7 = t6 - b / 7.0;
        let t8 = max(t7 * 2.0, a - 1.0);
        let t9 = t8 + b * b;
        let t10 = (t9 - 0.75) * a;
        let t11 = -t10 + b;
        let t12 = t11 * 1.125 + a;
        let t13 = min(t12, a + b);
        t13 / 5.0 - b
    }
}

#[test]
fn into_of_a_nest_of_more_than_32_values_allocates_only_on_its_first_call() {
    let a = Tensor::<f32, Shape![300]>::from_fn(|[i]| (i as f32 - 150.0) * 0.03);
    let b = Tensor::<f32, Shape![300]>::from_fn(|[i]| ((i * 7) % 23) as f32 * 0.1 - 1.0);
    let mut y = Tensor::zeros();
    #[cfg(debug_assertions)]
    let nests = tensorgraph::__private::blocks::nests_run();
    wide_into(&a, &b, &mut y);
    // A debug build runs it through the backend (the program, not the fused kernel).
    #[cfg(debug_assertions)]
    assert!(tensorgraph::__private::blocks::nests_run() > nests);
    let before = allocations();
    wide_into(&a, &b, &mut y);
    wide_into(&a, &b, &mut y);
    assert_eq!(
        allocations() - before,
        0,
        "wide_into allocated on a repeated call"
    );
    // The same IEEE operations on scalars, in the graph's order.
    for i in 0..300 {
        let (a, b) = (a[[i]], b[[i]]);
        let t0 = a * b + 1.5;
        let t1 = t0 - a * 0.5;
        let t2 = t1.max(b) / 3.0;
        let t3 = t2 + (b - a).abs();
        let t4 = t3.min(2.0) * a;
        let t5 = t4 * t4 - b;
        let t6 = (t5 + a) * 0.25;
        let t7 = t6 - b / 7.0;
        let t8 = (t7 * 2.0).max(a - 1.0);
        let t9 = t8 + b * b;
        let t10 = (t9 - 0.75) * a;
        let t11 = -t10 + b;
        let t12 = t11 * 1.125 + a;
        let t13 = t12.min(a + b);
        assert_eq!(y[[i]], t13 / 5.0 - b, "element {i}");
    }
}
