//! `grad fn` and `vjp fn` items (tensor-macros/src/derive/): every rule's gradient against
//! central finite differences of the forward graph in f64 (JAX's `check_grads` method: the
//! directional derivative along a random direction, and every coordinate of small
//! parameters), hand-derived formulas where ties make finite differences meaningless
//! (`max`, `relu` at 0, `abs` at 0), f32 gradients against the f64 ones, and a `vjp`.

use tensor_core::testing::Rng;
use tensorgraph::prelude::*;

graph! {
    fn mlp(x: f64[5, 3], w: f64[3, 4], b: f64[4], v: f64[4]) -> f64[] {
        let h = tanh(x @ w + b);
        mean(square(h @ v - 0.5))
    }
    grad fn mlp_grad = value_and_grad(mlp, wrt = [w, b, v, x]);

    fn mlp32(x: f32[5, 3], w: f32[3, 4], b: f32[4], v: f32[4]) -> f32[] {
        let h = tanh(x @ w + b);
        mean(square(h @ v - 0.5))
    }
    grad fn mlp32_grad = value_and_grad(mlp32, wrt = [w, b, v, x]);

    /// Elementwise functions on (0, 1) (every function's domain holds it), weighted so the
    /// gradients differ per element.
    fn unary_a(x: f64[7], c: f64[7]) -> f64[] {
        sum((exp(x) + exp2(x) + expm1(x) + log(x) + log2(x) + log1p(x) + sqrt(x) + rsqrt(x)
            + cbrt(x) + reciprocal(x) + square(x)) * c)
    }
    grad fn unary_a_grad = value_and_grad(unary_a, wrt = [x]);

    fn unary_b(x: f64[7], c: f64[7]) -> f64[] {
        sum((sin(x) + cos(x) + tan(x) + sinh(x) + cosh(x) + tanh(x) + atan(x) + asin(x)
            + acos(x) + asinh(x) + atanh(x) + acosh(x + 1.5)) * c)
    }
    grad fn unary_b_grad = value_and_grad(unary_b, wrt = [x]);

    fn unary_c(x: f64[7], c: f64[7]) -> f64[] {
        sum((sigmoid(x) + erf(x) + erfc(x) + softplus(x) + silu(x) + gelu(x) + relu(x)
            + abs(x) + leaky_relu(x, alpha = 0.2) + elu(x, alpha = 0.7) - x / (x + 2.0)
            + pow(x + 1.5, x) + floor(x) * x) * c)
    }
    grad fn unary_c_grad = value_and_grad(unary_c, wrt = [x]);

    /// Broadcasting both ways, reductions with and without keepdims, casts.
    fn shapes(a: f64[2, 3, 4], b: f64[3, 1], c: f64[4]) -> f64[] {
        let t = a * b + c;
        let s = sum(t, axis = [0, 2]);
        let m = mean(t, axis = -1, keepdims = true);
        sum(s * s) + sum(m * a) + reduce_log_sum_exp(t) + mean(reduce_sum_square(t, axis = 1))
    }
    grad fn shapes_grad = value_and_grad(shapes, wrt = [a, b, c]);

    fn rows(x: f64[3, 5], y: f64[3, 5]) -> f64[] {
        let p = softmax(x, axis = 1);
        let q = logsoftmax(x - y, axis = -1);
        sum(p * y) + sum(q * transpose(y, [0, 1])) + sum(reshape(transpose(x, [1, 0]), [15]) * reshape(y, [15]))
    }
    grad fn rows_grad = value_and_grad(rows, wrt = [x, y]);

    fn mixed(x: f32[4], w: f64[4]) -> f64[] {
        sum((x as f64) * w + where(x > 0.0, x * x, -x) as f64)
    }
    grad fn mixed_grad = value_and_grad(mixed, wrt = [x, w]);

    fn vec_mat(a: f64[3], m: f64[3, 2], u: f64[2]) -> f64[] {
        sum(a @ m) + sum(m @ u) + a @ a
    }
    grad fn vec_mat_grad = value_and_grad(vec_mat, wrt = [a, m, u]);

    fn cut(x: f64[3]) -> f64[] {
        sum(x * stop_gradient(x * 2.0))
    }
    grad fn cut_grad = value_and_grad(cut, wrt = [x]);

    fn ties(x: f64[2, 3]) -> f64[] {
        sum(max(x, axis = 1)) + sum(max(x, 0.5)) + sum(relu(x)) + sum(abs(x))
    }
    grad fn ties_grad = value_and_grad(ties, wrt = [x]);

    /// The rest of the activations, away from their kinks (the draws below), and scans.
    fn acts(x: f64[6], c: f64[6], s: f64[6]) -> f64[] {
        sum((mish(x) + gelu_tanh(x) + softsign(x) + hard_sigmoid(x) + hard_swish(x) + selu(x)
            + celu(x, alpha = 0.5) + swish(x, alpha = 1.5) + thresholded_relu(x, alpha = 0.3)
            + shrink(x, lambd = 0.2) + prelu(x, s) + cumsum(x, axis = 0)
            + cumsum(x * x, axis = 0, exclusive = true, reverse = true) + flip(x, axis = 0)
            + max(x, s, c) + add(x, s, x * c) + mean_of(x, s)) * c)
    }
    grad fn acts_grad = value_and_grad(acts, wrt = [x, s]);

    fn norms(x: f64[2, 3, 4], g: f64[4], b: f64[4], h: f64[3, 4]) -> f64[] {
        sum(layer_norm(x, g, b) * x) + sum(rms_norm(x, h, axis = -2, eps = 0.01) * x)
    }
    grad fn norms_grad = value_and_grad(norms, wrt = [x, g, b, h]);

    fn losses(x: f64[4, 5], y: i64[4], w: f64[5], z: f64[2, 3, 2], t: u8[2, 2]) -> f64[] {
        softmax_cross_entropy(x, y) + softmax_cross_entropy(x, y, weight = w, ignore_index = 1)
            + sum(softmax_cross_entropy(x * 2.0, y, reduction = none) * w[0:4])
            + softmax_cross_entropy(z, t, reduction = sum)
            + nll_loss(logsoftmax(x, axis = 1), y, weight = w)
    }
    grad fn losses_grad = value_and_grad(losses, wrt = [x, z]);

    /// Reorganisation and gathers: concat, constant pad, slice (sugar too), tile, gather
    /// with duplicate and negative ids, gather_elements.
    fn reorg(x: f64[3, 4], y: f64[2, 4], e: f64[5, 2], ids: i64[6], ge: i64[3, 2], c: f64[5, 4]) -> f64[] {
        let z = concat([x, y * 2.0], axis = 0);
        let p = pad(x, [1, 1, 0, 2]);
        let s = slice(z, axis = 1, start = 1, end = -1);
        let t = tile(y, [2, 1]);
        let g = gather(e, ids);
        sum(z * c) + sum(p * p) + sum(s * e) + sum(t * t * c[0:4]) + sum(g * g * g)
            + sum(square(gather_elements(x, ge, axis = 1))) + sum(x[1:, 2] * 3.0)
    }
    grad fn reorg_grad = value_and_grad(reorg, wrt = [x, y, e]);

    fn products(a: f64[2, 3, 4], b: f64[2, 4, 5], v: f64[5]) -> f64[] {
        let c = einsum("bij,bjk->bik", a, b);
        sum(einsum("bik,k->bi", c, v) * einsum("bij,bj->bi", a, a[:, 0, :])) + sum(a @ b) + sum(einsum("bik,bik->b", c, c))
    }
    grad fn products_grad = value_and_grad(products, wrt = [a, b, v]);

    /// Attention: causal with a key cache longer than the queries; grouped-query heads with
    /// a bool mask (one row wholly masked), a softcap and a scale; an additive float mask.
    fn att(q: f64[1, 2, 3, 4], k: f64[1, 2, 5, 4], v: f64[1, 2, 5, 3], c: f64[1, 2, 3, 3]) -> f64[] {
        sum(attention(q, k, v, is_causal = true) * c)
    }
    grad fn att_grad = value_and_grad(att, wrt = [q, k, v]);
    fn att_gqa(q: f64[2, 4, 3, 4], k: f64[2, 2, 5, 4], v: f64[2, 2, 5, 3], m: bool[3, 5], c: f64[2, 4, 3, 3]) -> f64[] {
        sum(attention(q, k, v, attn_mask = m, softcap = 2.0, scale = 0.3) * c)
    }
    grad fn att_gqa_grad = value_and_grad(att_gqa, wrt = [q, k, v]);
    fn att_add(q: f64[1, 2, 3, 4], k: f64[1, 2, 5, 4], v: f64[1, 2, 5, 3], m: f64[1, 1, 3, 5]) -> f64[] {
        sum(square(attention(q, k, v, attn_mask = m)))
    }
    grad fn att_add_grad = value_and_grad(att_add, wrt = [q, k, v]);

    /// The rest of the reduction family and `l2_normalize`.
    fn reduce_more(x: f64[3, 4], z: f64[2, 3]) -> f64[] {
        sum(prod(x, axis = 1)) + prod(z) + sum(reduce_l1(x, axis = 0) * x[0]) + reduce_l2(x)
            + sum(reduce_log_sum(x * x + 1.0, axis = [0, 1], keepdims = true))
            + sum(l2_normalize(x, axis = 0) * x) + sum(prod(z, axis = [0, 1], keepdims = true))
    }
    grad fn reduce_more_grad = value_and_grad(reduce_more, wrt = [x, z]);

    fn prods(x: f64[3, 3], z: f64[2, 2, 2]) -> f64[] {
        sum(prod(x, axis = 1)) + sum(prod(z, axis = [0, 2]))
    }
    grad fn prods_grad = value_and_grad(prods, wrt = [x, z]);

    /// Padding modes and crops, stepped slices, gathers along other axes, scatters.
    fn reorg2(x: f64[5, 4], e: f64[3, 6], u: f64[4, 4], w: f64[5, 2], ids: i64[2, 2], ix: i64[4, 1], ie: i64[5, 2], c: f64[8, 9]) -> f64[] {
        let r = pad(x, [2, 1, 3, 2], mode = reflect);
        let g = pad(x, [1, 2, 0, 3], mode = edge);
        let k = pad(x, [-1, 2, 1, -2]);
        let s = slice(x, axis = 0, start = 4, end = 0, step = -2);
        let s2 = slice(x, axis = 1, start = 1, step = 2);
        let s3 = slice(x, axis = 0, step = -3);
        let ge = gather(e, ids, axis = 1);
        let sn = scatter_nd(x, ix, u, reduction = add);
        let se = scatter_elements(x, ie, w, axis = 1, reduction = add);
        let s0 = scatter_elements(x * 2.0, ie, c[0:5, 0:2]);
        sum(r * r * c[:, 0:9]) + sum(g * g * g) + sum(square(k)) + sum(s * s * x[1:3])
            + sum(s2 * s2 * s2) + sum(s3 * x[0:2] * x[0:2]) + sum(ge * ge * ge[0])
            + sum(sn * sn) + sum(se * se * x) + sum(s0 * s0) + sum(square(gather_nd(x, ix)))
            + sum(x[::2, ::3] * 5.0) + sum(x[::-1, 3:0:-2] * x[0:5, 0:2])
            + sum(square(scatter_elements(x, ie, w * 3.0, axis = 1)))
            + sum(square(scatter_nd(x * x, ix, u * 0.5)))
    }
    grad fn reorg2_grad = value_and_grad(reorg2, wrt = [x, e, u, w]);

    /// Named axes: a unit-step slice with literal pads, a reversed axis.
    fn named_slices(x: f64[N, 3]) -> f64[] {
        sum(square(slice(x, axis = 0, start = 1, end = -1))) + sum(x[::-1] * x)
    }
    grad fn named_slices_grad = value_and_grad(named_slices, wrt = [x]);

    /// Convolution, pooling and the vision normalisations, differentiated through the
    /// expressions they are built as. (Small windows: a 3×3 pool's backward is nine
    /// strided scatters, about 5× the forward's code; NOTES.md.)
    fn vision(x: f64[2, 4, 5, 5], w: f64[6, 2, 2, 3], b: f64[6], s: f64[4], t: f64[4], m: f64[4], v: f64[4], c: f64[2, 6, 3, 2]) -> f64[] {
        let y = conv(x, w, b, group = 2, strides = [2, 2], pads = [1, 0, 1, 1], dilations = [1, 2]);
        let n = batch_norm(x, s, t, m, v);
        let p = max_pool(n, kernel_shape = [2, 2], strides = [2, 2], pads = [0, 0, 1, 1]);
        let a = average_pool(x * x, kernel_shape = [2, 2], strides = [1, 2]);
        sum(y * c) + sum(p * p) + sum(a) + sum(group_norm(x, s, t, num_groups = 2) * x)
            + sum(instance_norm(x, s, t) * x) + sum(square(global_average_pool(x * w[0, 0, 0, 0])))
            + sum(lrn(x, size = 3) * x)
    }
    grad fn vision_grad = value_and_grad(vision, wrt = [x, w, b, s, t, m, v]);

    /// The pools by their dedicated rule (derive/pooling.rs): strided, padded, dilated,
    /// ceil mode, 1-D; average with and without `count_include_pad`.
    fn pools(x: f64[2, 3, 7, 6], y: f64[1, 2, 9], c: f64[2, 3, 4, 3]) -> f64[] {
        let m = max_pool(x, kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]);
        let d = max_pool(x, kernel_shape = [2, 3], dilations = [2, 1], strides = [1, 2], ceil_mode = true);
        let a = average_pool(x, kernel_shape = [3, 2], strides = [2, 2], pads = [1, 0, 1, 1]);
        let i = average_pool(x * x, kernel_shape = [2, 3], strides = [2, 1], pads = [0, 1, 1, 1], count_include_pad = true);
        let p = max_pool(y, kernel_shape = [3], strides = [2], pads = [1, 1]);
        sum(m * c) + sum(square(d)) + sum(a * a * a) + sum(i) + sum(square(p))
    }
    grad fn pools_grad = value_and_grad(pools, wrt = [x, y]);

    fn pool_ties(x: f64[1, 1, 3, 3]) -> f64[] {
        sum(max_pool(x, kernel_shape = [2, 2]))
    }
    grad fn pool_ties_grad = value_and_grad(pool_ties, wrt = [x]);

    /// Ranking: the gradient follows the permutation.
    fn ranks(x: f64[3, 5], c: f64[3, 5], e: f64[3, 2]) -> f64[] {
        let (v, i) = top_k(x, k = 2);
        sum(sort(x, axis = 1) * c) + sum(sort(x, axis = 0, descending = true) * c) + sum(v * v * e)
            + sum(i as f64)
    }
    grad fn ranks_grad = value_and_grad(ranks, wrt = [x]);

    fn sort_ties(x: f64[3], c: f64[3]) -> f64[] {
        let (v, i) = top_k(x, k = 2);
        sum(sort(x) * c) + sum(sort(x, descending = true) * c * 10.0)
            + sum(v * c[0:2] * 100.0) + sum(i as f64)
    }
    grad fn sort_ties_grad = value_and_grad(sort_ties, wrt = [x]);

    /// Named axes: concat parts with literal lengths on one side, a tile along the
    /// literal axis.
    fn named_reorg(x: f64[N, 3], y: f64[2, 3]) -> f64[] {
        let z = concat([y, x, y * 2.0], axis = 0);
        let t = tile(x, [1, 2]);
        sum(z * z * z) + sum(square(concat([x, y], axis = 0))) + sum(square(concat([y, x], axis = 0)) * 0.5)
            + sum(t * t * t)
    }
    grad fn named_reorg_grad = value_and_grad(named_reorg, wrt = [x, y]);

    /// `gather_nd` with `batch_dims`: duplicate and negative indices, a whole tuple.
    fn batched_gather(d: f64[2, 4, 3], ids: i64[2, 5, 1], e: f64[2, 3, 2], jd: i64[2, 2]) -> f64[] {
        sum(square(gather_nd(d, ids, batch_dims = 1))) + sum(square(gather_nd(e, jd, batch_dims = 1)) * 3.0)
    }
    grad fn batched_gather_grad = value_and_grad(batched_gather, wrt = [d, e]);

    /// `scatter_nd` (`reduction = none`) with updates of a named dim; `resize` through
    /// its expansion.
    fn named_scatter(x: f64[5, 3], ids: i64[K, 1], u: f64[K, 3], r: f64[1, 2, 5]) -> f64[] {
        sum(square(scatter_nd(x, ids, u * 2.0))) + sum(square(scatter_nd(x * x, ids, u)) * 0.5)
            + sum(square(resize(reshape(r, [1, 1, 2, 5]), scales = [2.0, 1.5], axes = [2, 3], mode = linear)))
            + sum(square(resize(r, sizes = [8], axes = [2], mode = linear)))
            + sum(square(resize(r, scales = [1.5], axes = [2], mode = cubic)) * r[0, 0, 0])
            + sum(square(resize(r, scales = [2.0], axes = [2], mode = nearest)))
    }
    grad fn named_scatter_grad = value_and_grad(named_scatter, wrt = [x, u, r]);

    fn layer(x: f64[B, 3], w: f64[3, 2]) -> f64[B, 2] {
        sigmoid(x @ w)
    }
    vjp fn layer_vjp = vjp(layer, wrt = [x, w]);

    fn symbolic_loss(x: f64[B, 3], w: f64[3]) -> f64[] {
        mean(exp(x * w))
    }
    grad fn symbolic_loss_grad = value_and_grad(symbolic_loss, wrt = [x, w]);
}

fn t1<const N: usize>(v: &[f64]) -> Tensor<f64, Shape![N]> {
    Tensor::from_vec(v.to_vec()).unwrap()
}

fn t2<const M: usize, const N: usize>(v: &[f64]) -> Tensor<f64, Shape![M, N]> {
    Tensor::from_vec(v.to_vec()).unwrap()
}

fn t3<const L: usize, const M: usize, const N: usize>(v: &[f64]) -> Tensor<f64, Shape![L, M, N]> {
    Tensor::from_vec(v.to_vec()).unwrap()
}

fn uniform(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| lo + (hi - lo) * rng.unit()).collect()
}

/// Checks `grad` (the analytic gradient of `f` at `params[k]`) against central finite
/// differences of `f`, coordinate by coordinate, with step `eps` and a relative tolerance.
fn check_fd(
    what: &str,
    f: &dyn Fn(&[Vec<f64>]) -> f64,
    params: &[Vec<f64>],
    grads: &[&[f64]],
    eps: f64,
    tol: f64,
) {
    for (k, grad) in grads.iter().enumerate() {
        assert_eq!(
            grad.len(),
            params[k].len(),
            "{what}: gradient {k} has the wrong length"
        );
        for i in 0..params[k].len() {
            let mut plus = params.to_vec();
            plus[k][i] += eps;
            let mut minus = params.to_vec();
            minus[k][i] -= eps;
            let fd = (f(&plus) - f(&minus)) / (2.0 * eps);
            let scale = fd.abs().max(grad[i].abs()).max(1.0);
            assert!(
                (fd - grad[i]).abs() <= tol * scale,
                "{what}: d/dparam{k}[{i}]: analytic {} vs finite difference {fd}",
                grad[i]
            );
        }
    }
}

#[test]
fn mlp_matches_finite_differences() {
    let mut rng = Rng::new(1);
    let p = vec![
        uniform(&mut rng, 15, -1.0, 1.0),
        uniform(&mut rng, 12, -1.0, 1.0),
        uniform(&mut rng, 4, -1.0, 1.0),
        uniform(&mut rng, 4, -1.0, 1.0),
    ];
    let f = |p: &[Vec<f64>]| {
        mlp(
            &t2::<5, 3>(&p[0]),
            &t2::<3, 4>(&p[1]),
            &t1::<4>(&p[2]),
            &t1::<4>(&p[3]),
        )
        .item()
    };
    let (value, gw, gb, gv, gx) = mlp_grad(
        &t2::<5, 3>(&p[0]),
        &t2::<3, 4>(&p[1]),
        &t1::<4>(&p[2]),
        &t1::<4>(&p[3]),
    );
    assert_eq!(value.item(), f(&p));
    let reordered = vec![p[1].clone(), p[2].clone(), p[3].clone(), p[0].clone()];
    let g = |q: &[Vec<f64>]| f(&[q[3].clone(), q[0].clone(), q[1].clone(), q[2].clone()]);
    check_fd(
        "mlp",
        &g,
        &reordered,
        &[gw.as_slice(), gb.as_slice(), gv.as_slice(), gx.as_slice()],
        1e-6,
        1e-7,
    );

    // The f32 graph's gradients against the f64 ones.
    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let (v32, gw32, gb32, gv32, gx32) = mlp32_grad(
        &Tensor::from_vec(f32s(&p[0])).unwrap(),
        &Tensor::from_vec(f32s(&p[1])).unwrap(),
        &Tensor::from_vec(f32s(&p[2])).unwrap(),
        &Tensor::from_vec(f32s(&p[3])).unwrap(),
    );
    assert!((v32.item() as f64 - value.item()).abs() <= 1e-6);
    for (a, b) in [
        (gw32.as_slice(), gw.as_slice()),
        (gb32.as_slice(), gb.as_slice()),
        (gv32.as_slice(), gv.as_slice()),
        (gx32.as_slice(), gx.as_slice()),
    ] {
        for (x, y) in a.iter().zip(b) {
            assert!(
                (*x as f64 - y).abs() <= 1e-5 * y.abs().max(1.0),
                "f32 {x} vs f64 {y}"
            );
        }
    }
}

#[test]
fn unary_rules_match_finite_differences() {
    let mut rng = Rng::new(2);
    let x = uniform(&mut rng, 7, 0.1, 0.9);
    let c = uniform(&mut rng, 7, -1.0, 1.0);
    let ct = t1::<7>(&c);
    macro_rules! case {
        ($what:literal, $f:ident, $grad:ident) => {{
            let (value, gx) = $grad(&t1::<7>(&x), &ct);
            assert_eq!(value.item(), $f(&t1::<7>(&x), &ct).item(), $what);
            let fx = |p: &[Vec<f64>]| $f(&t1::<7>(&p[0]), &ct).item();
            check_fd($what, &fx, &[x.clone()], &[gx.as_slice()], 1e-6, 1e-7);
        }};
    }
    case!("unary_a", unary_a, unary_a_grad);
    case!("unary_b", unary_b, unary_b_grad);
    case!("unary_c", unary_c, unary_c_grad);
}

#[test]
fn broadcasts_and_reductions_match_finite_differences() {
    let mut rng = Rng::new(3);
    let p = vec![
        uniform(&mut rng, 24, -1.0, 1.0),
        uniform(&mut rng, 3, -1.0, 1.0),
        uniform(&mut rng, 4, -1.0, 1.0),
    ];
    let f =
        |p: &[Vec<f64>]| shapes(&t3::<2, 3, 4>(&p[0]), &t2::<3, 1>(&p[1]), &t1::<4>(&p[2])).item();
    let (value, ga, gb, gc) =
        shapes_grad(&t3::<2, 3, 4>(&p[0]), &t2::<3, 1>(&p[1]), &t1::<4>(&p[2]));
    assert_eq!(value.item(), f(&p));
    check_fd(
        "shapes",
        &f,
        &p,
        &[ga.as_slice(), gb.as_slice(), gc.as_slice()],
        1e-6,
        1e-7,
    );

    let q = vec![
        uniform(&mut rng, 15, -2.0, 2.0),
        uniform(&mut rng, 15, -2.0, 2.0),
    ];
    let f = |p: &[Vec<f64>]| rows(&t2::<3, 5>(&p[0]), &t2::<3, 5>(&p[1])).item();
    let (_, gx, gy) = rows_grad(&t2::<3, 5>(&q[0]), &t2::<3, 5>(&q[1]));
    check_fd("rows", &f, &q, &[gx.as_slice(), gy.as_slice()], 1e-6, 1e-7);

    let r = vec![
        uniform(&mut rng, 3, -1.0, 1.0),
        uniform(&mut rng, 6, -1.0, 1.0),
        uniform(&mut rng, 2, -1.0, 1.0),
    ];
    let f = |p: &[Vec<f64>]| vec_mat(&t1::<3>(&p[0]), &t2::<3, 2>(&p[1]), &t1::<2>(&p[2])).item();
    let (_, ga, gm, gu) = vec_mat_grad(&t1::<3>(&r[0]), &t2::<3, 2>(&r[1]), &t1::<2>(&r[2]));
    check_fd(
        "vec_mat",
        &f,
        &r,
        &[ga.as_slice(), gm.as_slice(), gu.as_slice()],
        1e-6,
        1e-7,
    );
}

#[test]
fn casts_and_where_follow_the_dtypes() {
    let x = [0.5f32, -1.25, 2.0, -0.0];
    let w = [0.25f64, 1.5, -2.0, 3.0];
    let (value, gx, gw) = mixed_grad(&Tensor::from_vec(x.to_vec()).unwrap(), &t1::<4>(&w));
    let expected_value: f64 = x
        .iter()
        .zip(&w)
        .map(|(&a, &b)| a as f64 * b + if a > 0.0 { (a * a) as f64 } else { -a as f64 })
        .sum();
    assert_eq!(value.item(), expected_value);
    // d/dx = w + (x > 0 ? 2x : -1), in f32; d/dw = x.
    for i in 0..4 {
        let d = w[i] + if x[i] > 0.0 { 2.0 * x[i] as f64 } else { -1.0 };
        assert_eq!(gx.as_slice()[i], d as f32, "d/dx[{i}]");
        assert_eq!(gw.as_slice()[i], x[i] as f64, "d/dw[{i}]");
    }
}

#[test]
fn stop_gradient_cuts_and_ties_share() {
    let (value, g) = cut_grad(&t1::<3>(&[1.0, -2.0, 3.0]));
    assert_eq!(value.item(), 2.0 * (1.0 + 4.0 + 9.0));
    // x · stop_gradient(2x): the derivative is 2x, not 4x.
    assert_eq!(g.as_slice(), &[2.0, -4.0, 6.0]);

    // Rows [1, 3, 3] and [0, -1, 0.5]: the row max ties in row 0 (each gets 1/2); `max(x,
    // 0.5)` ties at 0.5 (1/2); relu'(0) = 0; abs'(0) = 1.
    let x = [1.0, 3.0, 3.0, 0.0, -1.0, 0.5];
    let (_, g) = ties_grad(&t2::<2, 3>(&x));
    let row_max = [0.0, 0.5, 0.5, 0.0, 0.0, 1.0];
    let max_half = [1.0, 1.0, 1.0, 0.0, 0.0, 0.5];
    let relu = [1.0, 1.0, 1.0, 0.0, 0.0, 1.0];
    let abs = [1.0, 1.0, 1.0, 1.0, -1.0, 1.0];
    for i in 0..6 {
        assert_eq!(
            g.as_slice()[i],
            row_max[i] + max_half[i] + relu[i] + abs[i],
            "element {i}"
        );
    }
}

#[test]
fn vjp_and_names() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(4);
    let x = uniform(&mut rng, 4 * 3, -1.0, 1.0);
    let w = uniform(&mut rng, 6, -1.0, 1.0);
    let ct = uniform(&mut rng, 8, -1.0, 1.0);
    let xt = Tensor::<f64, Shape![_, 3]>::from_shape_vec([4, 3], x.clone())?;
    let ctt = Tensor::<f64, Shape![_, 2]>::from_shape_vec([4, 2], ct.clone())?;
    let (gx, gw) = layer_vjp(&xt, &t2::<3, 2>(&w), &ctt)?;
    assert_eq!(gx.shape(), &[4, 3]);
    // <ct, layer(x)> is the scalar whose gradient the vjp is.
    let f = |p: &[Vec<f64>]| {
        let y = layer(
            &Tensor::<f64, Shape![_, 3]>::from_shape_vec([4, 3], p[0].clone()).unwrap(),
            &t2::<3, 2>(&p[1]),
        )
        .unwrap();
        y.as_slice()
            .iter()
            .zip(&ct)
            .map(|(a, b)| a * b)
            .sum::<f64>()
    };
    check_fd(
        "layer_vjp",
        &f,
        &[x.clone(), w.clone()],
        &[gx.as_slice(), gw.as_slice()],
        1e-6,
        1e-7,
    );

    let (value, gx, gw) = symbolic_loss_grad(&xt, &t1::<3>(&w[..3]))?;
    let f = |p: &[Vec<f64>]| {
        symbolic_loss(
            &Tensor::<f64, Shape![_, 3]>::from_shape_vec([4, 3], p[0].clone()).unwrap(),
            &t1::<3>(&p[1]),
        )
        .unwrap()
        .item()
    };
    assert_eq!(value.item(), f(&[x.clone(), w[..3].to_vec()]));
    check_fd(
        "symbolic_loss",
        &f,
        &[x, w[..3].to_vec()],
        &[gx.as_slice(), gw.as_slice()],
        1e-6,
        1e-7,
    );
    Ok(())
}

#[test]
fn activations_scans_and_folds_match_finite_differences() {
    let mut rng = Rng::new(5);
    // Away from every kink (0, ±0.2, 0.3, ±2.5, ±3): a kink within eps would break the
    // finite difference, not the rule.
    let x = vec![-2.1, -0.9, -0.45, 0.12, 0.71, 1.9];
    let c = uniform(&mut rng, 6, -1.0, 1.0);
    let s_ = uniform(&mut rng, 6, -1.0, 1.0);
    let ct = t1::<6>(&c);
    let f = |p: &[Vec<f64>]| acts(&t1::<6>(&p[0]), &ct, &t1::<6>(&p[1])).item();
    let (value, gx, gs) = acts_grad(&t1::<6>(&x), &ct, &t1::<6>(&s_));
    assert_eq!(value.item(), f(&[x.clone(), s_.clone()]));
    check_fd(
        "acts",
        &f,
        &[x, s_],
        &[gx.as_slice(), gs.as_slice()],
        1e-6,
        1e-7,
    );
}

#[test]
fn norms_match_finite_differences() {
    let mut rng = Rng::new(6);
    let p = vec![
        uniform(&mut rng, 24, -2.0, 2.0),
        uniform(&mut rng, 4, 0.5, 1.5),
        uniform(&mut rng, 4, -1.0, 1.0),
        uniform(&mut rng, 12, 0.5, 1.5),
    ];
    let f = |p: &[Vec<f64>]| {
        norms(
            &t3::<2, 3, 4>(&p[0]),
            &t1::<4>(&p[1]),
            &t1::<4>(&p[2]),
            &t2::<3, 4>(&p[3]),
        )
        .item()
    };
    let (value, gx, gg, gb, gh) = norms_grad(
        &t3::<2, 3, 4>(&p[0]),
        &t1::<4>(&p[1]),
        &t1::<4>(&p[2]),
        &t2::<3, 4>(&p[3]),
    );
    assert_eq!(value.item(), f(&p));
    check_fd(
        "norms",
        &f,
        &p,
        &[gx.as_slice(), gg.as_slice(), gb.as_slice(), gh.as_slice()],
        1e-6,
        1e-7,
    );
}

#[test]
fn losses_match_finite_differences() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(7);
    let p = vec![
        uniform(&mut rng, 20, -2.0, 2.0),
        uniform(&mut rng, 5, 0.5, 1.5),
        uniform(&mut rng, 12, -2.0, 2.0),
    ];
    let y = Tensor::<i64, Shape![4]>::from_vec(vec![3, 1, 0, 4])?;
    let t = Tensor::<u8, Shape![2, 2]>::from_vec(vec![2, 0, 1, 1])?;
    let f = |p: &[Vec<f64>]| {
        losses(
            &t2::<4, 5>(&p[0]),
            &y,
            &t1::<5>(&p[1]),
            &t3::<2, 3, 2>(&p[2]),
            &t,
        )
        .unwrap()
        .item()
    };
    let (value, gx, gz) = losses_grad(
        &t2::<4, 5>(&p[0]),
        &y,
        &t1::<5>(&p[1]),
        &t3::<2, 3, 2>(&p[2]),
        &t,
    )?;
    assert_eq!(value.item(), f(&p));
    let g = |q: &[Vec<f64>]| f(&[q[0].clone(), p[1].clone(), q[1].clone()]);
    check_fd(
        "losses",
        &g,
        &[p[0].clone(), p[2].clone()],
        &[gx.as_slice(), gz.as_slice()],
        1e-6,
        1e-7,
    );
    // A label out of range is the forward's error.
    let bad = Tensor::<i64, Shape![4]>::from_vec(vec![3, 1, 0, 5])?;
    assert!(losses_grad(
        &t2::<4, 5>(&p[0]),
        &bad,
        &t1::<5>(&p[1]),
        &t3::<2, 3, 2>(&p[2]),
        &t
    )
    .is_err());
    Ok(())
}

#[test]
fn reorganisation_and_gathers_match_finite_differences() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(8);
    let p = vec![
        uniform(&mut rng, 12, -1.0, 1.0),
        uniform(&mut rng, 8, -1.0, 1.0),
        uniform(&mut rng, 10, -1.0, 1.0),
    ];
    let ids = Tensor::<i64, Shape![6]>::from_vec(vec![0, 4, -1, 2, 0, 4])?;
    let ge = Tensor::<i64, Shape![3, 2]>::from_vec(vec![3, 3, 0, -1, 2, 1])?;
    let c = t2::<5, 4>(&uniform(&mut rng, 20, -1.0, 1.0));
    let f = |q: &[Vec<f64>]| {
        reorg(
            &t2::<3, 4>(&q[0]),
            &t2::<2, 4>(&q[1]),
            &t2::<5, 2>(&q[2]),
            &ids,
            &ge,
            &c,
        )
        .unwrap()
        .item()
    };
    let (value, gx, gy, ge_) = reorg_grad(
        &t2::<3, 4>(&p[0]),
        &t2::<2, 4>(&p[1]),
        &t2::<5, 2>(&p[2]),
        &ids,
        &ge,
        &c,
    )?;
    assert_eq!(value.item(), f(&p));
    check_fd(
        "reorg",
        &f,
        &p,
        &[gx.as_slice(), gy.as_slice(), ge_.as_slice()],
        1e-6,
        1e-7,
    );
    // An id out of range is the call's error, as in the forward.
    let bad = Tensor::<i64, Shape![6]>::from_vec(vec![0, 5, 0, 0, 0, 0])?;
    assert!(reorg_grad(
        &t2::<3, 4>(&p[0]),
        &t2::<2, 4>(&p[1]),
        &t2::<5, 2>(&p[2]),
        &bad,
        &ge,
        &c
    )
    .is_err());
    Ok(())
}

#[test]
fn einsum_and_batched_products_match_finite_differences() {
    let mut rng = Rng::new(9);
    let p = vec![
        uniform(&mut rng, 24, -1.0, 1.0),
        uniform(&mut rng, 40, -1.0, 1.0),
        uniform(&mut rng, 5, -1.0, 1.0),
    ];
    let f = |q: &[Vec<f64>]| {
        products(
            &t3::<2, 3, 4>(&q[0]),
            &t3::<2, 4, 5>(&q[1]),
            &t1::<5>(&q[2]),
        )
        .item()
    };
    let (value, ga, gb, gv) = products_grad(
        &t3::<2, 3, 4>(&p[0]),
        &t3::<2, 4, 5>(&p[1]),
        &t1::<5>(&p[2]),
    );
    assert_eq!(value.item(), f(&p));
    check_fd(
        "products",
        &f,
        &p,
        &[ga.as_slice(), gb.as_slice(), gv.as_slice()],
        1e-6,
        1e-7,
    );
}

#[test]
fn attention_matches_finite_differences() {
    let mut rng = Rng::new(10);
    let p = vec![
        uniform(&mut rng, 24, -1.0, 1.0),
        uniform(&mut rng, 40, -1.0, 1.0),
        uniform(&mut rng, 30, -1.0, 1.0),
    ];
    let c = t::<1, 2, 3, 3>(&uniform(&mut rng, 18, -1.0, 1.0));
    let f = |q: &[Vec<f64>]| {
        att(
            &t::<1, 2, 3, 4>(&q[0]),
            &t::<1, 2, 5, 4>(&q[1]),
            &t::<1, 2, 5, 3>(&q[2]),
            &c,
        )
        .item()
    };
    let (value, gq, gk, gv) = att_grad(
        &t::<1, 2, 3, 4>(&p[0]),
        &t::<1, 2, 5, 4>(&p[1]),
        &t::<1, 2, 5, 3>(&p[2]),
        &c,
    );
    assert_eq!(value.item(), f(&p));
    check_fd(
        "att",
        &f,
        &p,
        &[gq.as_slice(), gk.as_slice(), gv.as_slice()],
        1e-6,
        1e-7,
    );

    let p = vec![
        uniform(&mut rng, 96, -1.0, 1.0),
        uniform(&mut rng, 80, -1.0, 1.0),
        uniform(&mut rng, 60, -1.0, 1.0),
    ];
    // Row 1 sees no key: its output and its gradients are 0.
    let m = Tensor::<bool, Shape![3, 5]>::from_vec(vec![
        true, false, true, true, false, false, false, false, false, false, true, true, true, true,
        true,
    ])
    .unwrap();
    let c = t::<2, 4, 3, 3>(&uniform(&mut rng, 72, -1.0, 1.0));
    let f = |q: &[Vec<f64>]| {
        att_gqa(
            &t::<2, 4, 3, 4>(&q[0]),
            &t::<2, 2, 5, 4>(&q[1]),
            &t::<2, 2, 5, 3>(&q[2]),
            &m,
            &c,
        )
        .item()
    };
    let (value, gq, gk, gv) = att_gqa_grad(
        &t::<2, 4, 3, 4>(&p[0]),
        &t::<2, 2, 5, 4>(&p[1]),
        &t::<2, 2, 5, 3>(&p[2]),
        &m,
        &c,
    );
    assert_eq!(value.item(), f(&p));
    check_fd(
        "att_gqa",
        &f,
        &p,
        &[gq.as_slice(), gk.as_slice(), gv.as_slice()],
        1e-6,
        1e-7,
    );

    let p = vec![
        uniform(&mut rng, 24, -1.0, 1.0),
        uniform(&mut rng, 40, -1.0, 1.0),
        uniform(&mut rng, 30, -1.0, 1.0),
    ];
    let m = t::<1, 1, 3, 5>(&uniform(&mut rng, 15, -2.0, 2.0));
    let f = |q: &[Vec<f64>]| {
        att_add(
            &t::<1, 2, 3, 4>(&q[0]),
            &t::<1, 2, 5, 4>(&q[1]),
            &t::<1, 2, 5, 3>(&q[2]),
            &m,
        )
        .item()
    };
    let (value, gq, gk, gv) = att_add_grad(
        &t::<1, 2, 3, 4>(&p[0]),
        &t::<1, 2, 5, 4>(&p[1]),
        &t::<1, 2, 5, 3>(&p[2]),
        &m,
    );
    assert!((value.item() - f(&p)).abs() <= 1e-12 * value.item().abs().max(1.0));
    check_fd(
        "att_add",
        &f,
        &p,
        &[gq.as_slice(), gk.as_slice(), gv.as_slice()],
        1e-6,
        1e-7,
    );
}

fn t<const A: usize, const B: usize, const C: usize, const D: usize>(
    v: &[f64],
) -> Tensor<f64, Shape![A, B, C, D]> {
    Tensor::from_vec(v.to_vec()).unwrap()
}

#[test]
fn reduction_family_and_l2_normalize_match_finite_differences() {
    let mut rng = Rng::new(21);
    let p = vec![
        uniform(&mut rng, 12, 0.3, 1.5),
        uniform(&mut rng, 6, -1.2, 1.2),
    ];
    let f = |q: &[Vec<f64>]| reduce_more(&t2::<3, 4>(&q[0]), &t2::<2, 3>(&q[1])).item();
    let (value, gx, gz) = reduce_more_grad(&t2::<3, 4>(&p[0]), &t2::<2, 3>(&p[1]));
    assert_eq!(value.item(), f(&p));
    check_fd(
        "reduce_more",
        &f,
        &p,
        &[gx.as_slice(), gz.as_slice()],
        1e-6,
        1e-7,
    );
    // Negative entries for the L1 norm's sign.
    let p = vec![
        uniform(&mut rng, 12, -1.5, 1.5),
        uniform(&mut rng, 6, -1.2, 1.2),
    ];
    let (_, gx, gz) = reduce_more_grad(&t2::<3, 4>(&p[0]), &t2::<2, 3>(&p[1]));
    check_fd(
        "reduce_more, signs",
        &f,
        &p,
        &[gx.as_slice(), gz.as_slice()],
        1e-6,
        1e-7,
    );
}

/// `prod`'s derivative at zeros, by hand: the product of the others.
#[test]
fn prod_at_zeros_is_the_product_of_the_others() {
    let x = [0.0, 2.0, 3.0, 0.0, 0.0, 5.0, 1.0, -2.0, 3.0];
    // z[i][j][k], reduced over i and k for each j: group j = 0 has one zero, j = 1 none.
    let z = [0.0, 2.0, 1.5, -1.0, 3.0, 4.0, 0.5, 2.0];
    let (_, gx, gz) = prods_grad(&t2::<3, 3>(&x), &t3::<2, 2, 2>(&z));
    assert_eq!(
        gx.as_slice(),
        &[6.0, 0.0, 0.0, 0.0, 0.0, 0.0, -6.0, 3.0, -2.0]
    );
    // Group j = 0: z000 = 0, z001 = 2, z100 = 3, z101 = 4: the zero gets 2·3·4 = 24.
    // Group j = 1: 1.5, -1, 0.5, 2 (product -1.5): each gets -1.5 / itself.
    let want = [24.0, 0.0, -1.0, 1.5, 0.0, 0.0, -3.0, -0.75];
    assert_eq!(gz.as_slice(), &want);
}

#[test]
fn pads_strides_and_scatters_match_finite_differences() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(22);
    let p = vec![
        uniform(&mut rng, 20, -1.0, 1.0),
        uniform(&mut rng, 18, -1.0, 1.0),
        uniform(&mut rng, 16, -1.0, 1.0),
        uniform(&mut rng, 10, -1.0, 1.0),
    ];
    let ids = Tensor::<i64, Shape![2, 2]>::from_vec(vec![5, 0, -1, 2])?;
    let ix = Tensor::<i64, Shape![4, 1]>::from_vec(vec![1, 3, 1, -1])?;
    let ie = Tensor::<i64, Shape![5, 2]>::from_vec(vec![0, 3, 1, 1, 2, 0, -1, 3, 0, 0])?;
    let c = t2::<8, 9>(&uniform(&mut rng, 72, -1.0, 1.0));
    let args = |q: &[Vec<f64>]| {
        (
            t2::<5, 4>(&q[0]),
            t2::<3, 6>(&q[1]),
            t2::<4, 4>(&q[2]),
            t2::<5, 2>(&q[3]),
        )
    };
    let f = |q: &[Vec<f64>]| {
        let (x, e, u, w) = args(q);
        reorg2(&x, &e, &u, &w, &ids, &ix, &ie, &c).unwrap().item()
    };
    let (x, e, u, w) = args(&p);
    let (value, gx, ge, gu, gw) = reorg2_grad(&x, &e, &u, &w, &ids, &ix, &ie, &c)?;
    assert_eq!(value.item(), f(&p));
    check_fd(
        "reorg2",
        &f,
        &p,
        &[gx.as_slice(), ge.as_slice(), gu.as_slice(), gw.as_slice()],
        1e-6,
        1e-7,
    );

    for n in [2usize, 3, 6] {
        let v = uniform(&mut rng, 3 * n, -1.0, 1.0);
        let view =
            |v: &[f64]| Tensor::<f64, Shape![_, 3]>::from_shape_vec([n, 3], v.to_vec()).unwrap();
        let f = |q: &[Vec<f64>]| named_slices(&view(&q[0])).unwrap().item();
        let (value, gx) = named_slices_grad(&view(&v))?;
        assert_eq!(value.item(), f(std::slice::from_ref(&v)));
        check_fd(
            "named slices",
            &f,
            std::slice::from_ref(&v),
            &[gx.as_slice()],
            1e-6,
            1e-7,
        );
    }
    Ok(())
}

#[test]
fn vision_ops_match_finite_differences() {
    let mut rng = Rng::new(23);
    let shapes = [200usize, 72, 6, 4, 4, 4, 4];
    let mut p: Vec<Vec<f64>> = shapes
        .iter()
        .map(|&n| uniform(&mut rng, n, -1.0, 1.0))
        .collect();
    // Variances positive.
    p[6] = uniform(&mut rng, 4, 0.5, 1.5);
    let c = Tensor::<f64, Shape![2, 6, 3, 2]>::from_vec(uniform(&mut rng, 72, -1.0, 1.0)).unwrap();
    let args = |q: &[Vec<f64>]| {
        (
            Tensor::<f64, Shape![2, 4, 5, 5]>::from_vec(q[0].clone()).unwrap(),
            Tensor::<f64, Shape![6, 2, 2, 3]>::from_vec(q[1].clone()).unwrap(),
            t1::<6>(&q[2]),
            t1::<4>(&q[3]),
            t1::<4>(&q[4]),
            t1::<4>(&q[5]),
            t1::<4>(&q[6]),
        )
    };
    let f = |q: &[Vec<f64>]| {
        let (x, w, b, s, t, m, v) = args(q);
        vision(&x, &w, &b, &s, &t, &m, &v, &c).item()
    };
    let (x, w, b, s, t, m, v) = args(&p);
    let (value, gx, gw, gb, gs, gt, gm, gv) = vision_grad(&x, &w, &b, &s, &t, &m, &v, &c);
    assert_eq!(value.item(), f(&p));
    check_fd(
        "vision",
        &f,
        &p,
        &[
            gx.as_slice(),
            gw.as_slice(),
            gb.as_slice(),
            gs.as_slice(),
            gt.as_slice(),
            gm.as_slice(),
            gv.as_slice(),
        ],
        1e-6,
        1e-6,
    );
}

#[test]
fn pools_match_finite_differences_and_route_ties_to_the_first_maximum() {
    let mut rng = Rng::new(24);
    let p = vec![
        uniform(&mut rng, 2 * 3 * 7 * 6, -1.0, 1.0),
        uniform(&mut rng, 18, -1.0, 1.0),
    ];
    let c = Tensor::<f64, Shape![2, 3, 4, 3]>::from_vec(uniform(&mut rng, 72, -1.0, 1.0)).unwrap();
    let args = |q: &[Vec<f64>]| {
        (
            Tensor::<f64, Shape![2, 3, 7, 6]>::from_vec(q[0].clone()).unwrap(),
            t3::<1, 2, 9>(&q[1]),
        )
    };
    let f = |q: &[Vec<f64>]| {
        let (x, y) = args(q);
        pools(&x, &y, &c).item()
    };
    let (x, y) = args(&p);
    let (value, gx, gy) = pools_grad(&x, &y, &c);
    assert_eq!(value.item(), f(&p));
    check_fd("pools", &f, &p, &[gx.as_slice(), gy.as_slice()], 1e-6, 1e-7);

    // A constant input: every window's maximum is a tie, and its first position (the
    // top-left) gets the window's cotangent, as JAX's `select_and_scatter_add`.
    let ones = Tensor::<f64, Shape![1, 1, 3, 3]>::from_vec(vec![1.0; 9]).unwrap();
    let (_, g) = pool_ties_grad(&ones);
    assert_eq!(g.as_slice(), &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn sorts_follow_the_permutation() {
    let mut rng = Rng::new(25);
    let p = vec![uniform(&mut rng, 15, -1.0, 1.0)];
    let c = t2::<3, 5>(&uniform(&mut rng, 15, -1.0, 1.0));
    let e = t2::<3, 2>(&uniform(&mut rng, 6, -1.0, 1.0));
    let f = |q: &[Vec<f64>]| ranks(&t2::<3, 5>(&q[0]), &c, &e).item();
    let (value, gx) = ranks_grad(&t2::<3, 5>(&p[0]), &c, &e);
    assert_eq!(value.item(), f(&p));
    check_fd("ranks", &f, &p, &[gx.as_slice()], 1e-6, 1e-7);

    // Ties: x = [1, 1, 0], c = [1, 2, 3]. Ascending, stable: positions [2, 0, 1], so
    // dx = [c1, c2, c0] = [2, 3, 1]; descending (and top_k), the lower position first:
    // positions [0, 1, 2], dx = 10·[1, 2, 3]; top_k(k = 2): [0, 1], 100·[1, 2, 0].
    // (JAX's `jnp.sort(descending=True)` reverses a stable ascending sort, [2, 1, 3]
    // there; its `lax.top_k` agrees with ours.)
    let (_, g) = sort_ties_grad(&t1::<3>(&[1.0, 1.0, 0.0]), &t1::<3>(&[1.0, 2.0, 3.0]));
    assert_eq!(
        g.as_slice(),
        &[2.0 + 10.0 + 100.0, 3.0 + 20.0 + 200.0, 1.0 + 30.0]
    );
}

#[test]
fn named_concats_and_tiles_match_finite_differences() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(26);
    let y = uniform(&mut rng, 6, -1.0, 1.0);
    for n in [1usize, 2, 5] {
        let p = vec![uniform(&mut rng, 3 * n, -1.0, 1.0), y.clone()];
        let view =
            |v: &[f64]| Tensor::<f64, Shape![_, 3]>::from_shape_vec([n, 3], v.to_vec()).unwrap();
        let f = |q: &[Vec<f64>]| {
            named_reorg(&view(&q[0]), &t2::<2, 3>(&q[1]))
                .unwrap()
                .item()
        };
        let (value, gx, gy) = named_reorg_grad(&view(&p[0]), &t2::<2, 3>(&p[1]))?;
        // Not bit for bit: the derived function reads `z` twice, so its sums run in
        // another order than the forward's fused ones.
        assert!((value.item() - f(&p)).abs() <= 1e-14 * f(&p).abs().max(1.0));
        check_fd(
            "named reorg",
            &f,
            &p,
            &[gx.as_slice(), gy.as_slice()],
            1e-6,
            1e-7,
        );
    }
    Ok(())
}

#[test]
fn batched_gather_nd_matches_finite_differences() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(27);
    let p = vec![
        uniform(&mut rng, 24, -1.0, 1.0),
        uniform(&mut rng, 12, -1.0, 1.0),
    ];
    let ids = Tensor::<i64, Shape![2, 5, 1]>::from_vec(vec![1, 3, -1, 1, 0, 2, 2, 0, -4, 1])?;
    let jd = Tensor::<i64, Shape![2, 2]>::from_vec(vec![2, -1, 0, 1])?;
    let args = |q: &[Vec<f64>]| (t3::<2, 4, 3>(&q[0]), t3::<2, 3, 2>(&q[1]));
    let f = |q: &[Vec<f64>]| {
        let (d, e) = args(q);
        batched_gather(&d, &ids, &e, &jd).unwrap().item()
    };
    let (d, e) = args(&p);
    let (value, gd, ge) = batched_gather_grad(&d, &ids, &e, &jd)?;
    assert_eq!(value.item(), f(&p));
    check_fd(
        "batched gather_nd",
        &f,
        &p,
        &[gd.as_slice(), ge.as_slice()],
        1e-6,
        1e-7,
    );
    Ok(())
}

#[test]
fn named_scatters_and_resizes_match_finite_differences() -> Result<(), tensorgraph::ShapeError> {
    let mut rng = Rng::new(28);
    let x = uniform(&mut rng, 15, -1.0, 1.0);
    let r = uniform(&mut rng, 10, -1.0, 1.0);
    // Duplicates: the last update written wins, and only it gets a cotangent.
    for ids in [vec![3i64, 1], vec![0, -1, 0, 2], vec![4, 4, 4]] {
        let k = ids.len();
        let ids = Tensor::<i64, Shape![_, 1]>::from_shape_vec([k, 1], ids)?;
        let p = vec![x.clone(), uniform(&mut rng, 3 * k, -1.0, 1.0), r.clone()];
        let args = |q: &[Vec<f64>]| {
            (
                t2::<5, 3>(&q[0]),
                Tensor::<f64, Shape![_, 3]>::from_shape_vec([k, 3], q[1].clone()).unwrap(),
                t3::<1, 2, 5>(&q[2]),
            )
        };
        let f = |q: &[Vec<f64>]| {
            let (x, u, r) = args(q);
            named_scatter(&x, &ids, &u, &r).unwrap().item()
        };
        let (xt, u, rt) = args(&p);
        let (value, gx, gu, gr) = named_scatter_grad(&xt, &ids, &u, &rt)?;
        assert!((value.item() - f(&p)).abs() <= 1e-14 * f(&p).abs().max(1.0));
        check_fd(
            "named scatter",
            &f,
            &p,
            &[gx.as_slice(), gu.as_slice(), gr.as_slice()],
            1e-6,
            1e-7,
        );
    }
    Ok(())
}
