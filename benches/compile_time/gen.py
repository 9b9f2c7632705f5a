#!/usr/bin/env python3
"""Generates the compile-time benchmark crates of issue 6 (see run.sh).

    gen.py OUT_DIR TENSORGRAPH_PATH

writes a cargo workspace into OUT_DIR with
  with_graphs/   50 `graph!` invocations (one item each, about 10 ops each), plus
                 `run_all()` that calls every kernel once on concrete tensors so every
                 kernel is monomorphised and code-generated inside this crate;
  hand_written/  the same 50 kernels as plain scalar Rust loops over slices (`k_into`
                 writing into `&mut [T]`, `k` returning `Vec`s), and the same `run_all()`;
  size_small/    four graphs at small shapes ([8], [4, 8], [2, 1, 8] ...) and
  size_large/    the same four graphs at large shapes ([1 << 20], [4096, 1024] ...), to
                 check that the expansion does not grow with tensor sizes.

The hand-written kernels have the same semantics as the graphs for finite inputs
(wrapping integer arithmetic, f32 reductions accumulated in f64, f16/bf16 computed in f32
and rounded on store); they use std's scalar `exp`/`tanh`/`cos` (the graphs use
tensorgraph's vector math, equal within ACCURACY.md's bounds) and do not reproduce the
NaN rules of float max/min. They are meant to be the code a user would write by hand,
not a bit-exact oracle.
"""

import os
import sys

N_GRAPHS = 50

# (rows, cols) pairs and 1-D lengths, cycled through so that no two graphs are identical.
SHAPES_2D = [(4, 8), (8, 64), (16, 128), (32, 256), (64, 32), (3, 1000), (128, 16), (8, 768), (12, 40), (2, 4096)]
SHAPES_1D = [8, 100, 1024, 4096, 77, 65536]
SHAPES_3D = [(2, 3, 8), (4, 5, 16), (3, 7, 33), (8, 2, 128)]
CONSTS = ["0.5", "0.25", "1.5", "0.125", "2.0", "0.75", "3.0"]


def lit(c, dtype):
    return f"{c}{dtype}" if dtype in ("f32", "f64") else c


class Kernel:
    """One graph and its hand-written twin."""

    def __init__(self, name, graph, hand, call_graph, call_hand, ops):
        self.name, self.graph, self.hand = name, graph, hand
        self.call_graph, self.call_hand, self.ops = call_graph, call_hand, ops


def tensor(dtype, dims):
    d = ", ".join(str(x) for x in dims)
    return f"Tensor::<{dtype}, Shape![{d}]>::zeros()"


def zero(dtype):
    if dtype in ("f16", "bf16"):
        return f"{dtype}::from_f32(0.0)"
    if dtype == "bool":
        return "false"
    return f"0 as {dtype}"


def vec(dtype, n):
    return f"vec![{zero(dtype)}; {n}]"


def call(name, graph_args, hand_args, fallible=False):
    """The calls of a graph (`fallible`: one with dim names, which returns a `Result`) and of
    its hand-written twin."""
    ok = ".ok()" if fallible else ""
    g = f"black_box({name}({', '.join(graph_args)}){ok});"
    h = f"black_box({name}({', '.join(hand_args)}));"
    return g, h


def t_elementwise(i, k):
    """Float elementwise with a row broadcast and a run-time scalar: 12 ops."""
    f = ["f32", "f64"][k % 2]
    r, c = SHAPES_2D[k % len(SHAPES_2D)]
    c1, c2 = CONSTS[k % 7], CONSTS[(k + 3) % 7]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {f}[{r}, {c}], b: {f}[{c}], s: {f}) -> {f}[{r}, {c}] {{
        let h = x * s + b;
        let r = relu(h - {c1});
        let e = exp(-abs(r));
        r * e + sqrt(abs(x)) * {c2}
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{f}], b: &[{f}], s: {f}, out: &mut [{f}]) {{
    assert!(x.len() == {r * c} && b.len() == {c} && out.len() == {r * c});
    for i in 0..{r} {{
        for j in 0..{c} {{
            let xv = x[i * {c} + j];
            let h = xv * s + b[j];
            let r = (h - {lit(c1, f)}).max(0.0);
            let e = (-r.abs()).exp();
            out[i * {c} + j] = r * e + xv.abs().sqrt() * {lit(c2, f)};
        }}
    }}
}}
pub fn {name}(x: &[{f}], b: &[{f}], s: {f}) -> Vec<{f}> {{
    let mut out = {vec(f, r * c)};
    {name}_into(x, b, s, &mut out);
    out
}}"""
    g, h = call(name, [f"&black_box({tensor(f, [r, c])})", f"&black_box({tensor(f, [c])})", f"black_box(1.5 as {f})"],
                [f"&black_box({vec(f, r * c)})", f"&black_box({vec(f, c)})", f"black_box(1.5 as {f})"])
    return Kernel(name, graph, hand, g, h, 12)


def t_layernorm(i, k):
    """Two mean reductions fused with their producers and consumers, two outputs: 10 ops."""
    f = ["f32", "f64"][(k // 2) % 2]
    r, c = SHAPES_2D[(k + 1) % len(SHAPES_2D)]
    eps = ["1e-5", "1e-6", "0.001"][k % 3]
    acc = "f64"
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {f}[{r}, {c}], g: {f}[{c}], beta: {f}[{c}]) -> ({f}[{r}, {c}], {f}[{r}]) {{
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        let y = d * rsqrt(v + {eps}) * g + beta;
        (y, max(x, axis = 1))
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{f}], g: &[{f}], beta: &[{f}], y: &mut [{f}], mx: &mut [{f}]) {{
    assert!(x.len() == {r * c} && g.len() == {c} && beta.len() == {c} && y.len() == {r * c} && mx.len() == {r});
    for i in 0..{r} {{
        let row = &x[i * {c}..(i + 1) * {c}];
        let mut s: {acc} = 0.0;
        for &v in row {{
            s += v as {acc};
        }}
        let m = (s / {c}.0) as {f};
        let mut s2: {acc} = 0.0;
        for &v in row {{
            let d = v - m;
            s2 += (d * d) as {acc};
        }}
        let var = (s2 / {c}.0) as {f};
        let inv = 1.0 / (var + {eps}).sqrt();
        let mut best = {f}::NEG_INFINITY;
        for j in 0..{c} {{
            let d = row[j] - m;
            y[i * {c} + j] = d * inv * g[j] + beta[j];
            best = best.max(row[j]);
        }}
        mx[i] = best;
    }}
}}
pub fn {name}(x: &[{f}], g: &[{f}], beta: &[{f}]) -> (Vec<{f}>, Vec<{f}>) {{
    let (mut y, mut mx) = ({vec(f, r * c)}, {vec(f, r)});
    {name}_into(x, g, beta, &mut y, &mut mx);
    (y, mx)
}}"""
    g, h = call(name, [f"&black_box({tensor(f, [r, c])})", f"&black_box({tensor(f, [c])})", f"&black_box({tensor(f, [c])})"],
                [f"&black_box({vec(f, r * c)})", f"&black_box({vec(f, c)})", f"&black_box({vec(f, c)})"])
    return Kernel(name, graph, hand, g, h, 10)


def t_integer(i, k):
    """Wrapping integer arithmetic, bit ops, a row and a column broadcast: 11 ops."""
    t = ["i32", "i64", "i16"][k % 3]
    r, c = SHAPES_2D[(k + 2) % len(SHAPES_2D)]
    m = [3, 5, 7, 11][k % 4]
    mask = [7, 15, 255][k % 3]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(a: {t}[{r}, {c}], b: {t}[{c}], c: {t}[{r}, 1]) -> {t}[{r}, {c}] {{
        let t = a * {m} + b;
        let u = (t >> 1) ^ c;
        let w = max(u, a) - (a & {mask});
        where(w > 0, w, -w) + c
    }}
}}"""
    hand = f"""pub fn {name}_into(a: &[{t}], b: &[{t}], c: &[{t}], out: &mut [{t}]) {{
    assert!(a.len() == {r * c} && b.len() == {c} && c.len() == {r} && out.len() == {r * c});
    for i in 0..{r} {{
        for j in 0..{c} {{
            let av = a[i * {c} + j];
            let t = av.wrapping_mul({m}).wrapping_add(b[j]);
            let u = (t >> 1) ^ c[i];
            let w = u.max(av).wrapping_sub(av & {mask});
            let w = if w > 0 {{ w }} else {{ w.wrapping_neg() }};
            out[i * {c} + j] = w.wrapping_add(c[i]);
        }}
    }}
}}
pub fn {name}(a: &[{t}], b: &[{t}], c: &[{t}]) -> Vec<{t}> {{
    let mut out = {vec(t, r * c)};
    {name}_into(a, b, c, &mut out);
    out
}}"""
    g, h = call(name, [f"&black_box({tensor(t, [r, c])})", f"&black_box({tensor(t, [c])})", f"&black_box({tensor(t, [r, 1])})"],
                [f"&black_box({vec(t, r * c)})", f"&black_box({vec(t, c)})", f"&black_box({vec(t, r)})"])
    return Kernel(name, graph, hand, g, h, 11)


def t_cast(i, k):
    """An integer-to-float cast, a column and a row broadcast, tanh, sigmoid: 10 ops."""
    src = ["i16", "u8", "i32"][k % 3]
    r, c = SHAPES_2D[(k + 3) % len(SHAPES_2D)]
    c1 = CONSTS[(k + 1) % 7]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {src}[{r}, {c}], y: f32[{r}, 1], z: f32[{c}]) -> f32[{r}, {c}] {{
        let f = x as f32;
        let t = f * y + z;
        tanh(t) * 0.5 + min(t, {c1}) - sigmoid(z) / 3.0
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{src}], y: &[f32], z: &[f32], out: &mut [f32]) {{
    assert!(x.len() == {r * c} && y.len() == {r} && z.len() == {c} && out.len() == {r * c});
    for i in 0..{r} {{
        for j in 0..{c} {{
            let f = x[i * {c} + j] as f32;
            let t = f * y[i] + z[j];
            let sig = 1.0 / (1.0 + (-z[j]).exp());
            out[i * {c} + j] = t.tanh() * 0.5 + t.min({c1}) - sig / 3.0;
        }}
    }}
}}
pub fn {name}(x: &[{src}], y: &[f32], z: &[f32]) -> Vec<f32> {{
    let mut out = {vec("f32", r * c)};
    {name}_into(x, y, z, &mut out);
    out
}}"""
    g, h = call(name, [f"&black_box({tensor(src, [r, c])})", f"&black_box({tensor('f32', [r, 1])})", f"&black_box({tensor('f32', [c])})"],
                [f"&black_box({vec(src, r * c)})", f"&black_box({vec('f32', r)})", f"&black_box({vec('f32', c)})"])
    return Kernel(name, graph, hand, g, h, 10)


def t_where(i, k):
    """Comparisons, `where`, log1p, a bool output next to a float one: 10 ops."""
    f = ["f32", "f64"][k % 2]
    n = SHAPES_1D[k % len(SHAPES_1D)]
    c1 = CONSTS[(k + 2) % 7]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {f}[{n}], y: {f}[{n}]) -> ({f}[{n}], bool[{n}]) {{
        let m = x > y;
        let z = where(m, x - y, y * 0.5);
        (log1p(z * z) + {c1}, m & (x > 0.0))
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{f}], y: &[{f}], o: &mut [{f}], mask: &mut [bool]) {{
    assert!(x.len() == {n} && y.len() == {n} && o.len() == {n} && mask.len() == {n});
    for j in 0..{n} {{
        let m = x[j] > y[j];
        let z = if m {{ x[j] - y[j] }} else {{ y[j] * 0.5 }};
        o[j] = (z * z).ln_1p() + {lit(c1, f)};
        mask[j] = m & (x[j] > 0.0);
    }}
}}
pub fn {name}(x: &[{f}], y: &[{f}]) -> (Vec<{f}>, Vec<bool>) {{
    let (mut o, mut mask) = ({vec(f, n)}, {vec("bool", n)});
    {name}_into(x, y, &mut o, &mut mask);
    (o, mask)
}}"""
    g, h = call(name, [f"&black_box({tensor(f, [n])})", f"&black_box({tensor(f, [n])})"],
                [f"&black_box({vec(f, n)})", f"&black_box({vec(f, n)})"])
    return Kernel(name, graph, hand, g, h, 10)


def t_half(i, k):
    """f16/bf16 input cast to f32, a sum and a max reduction over rows: 10 ops."""
    hdt = ["f16", "bf16"][k % 2]
    r, c = SHAPES_2D[(k + 4) % len(SHAPES_2D)]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {hdt}[{r}, {c}], w: f32[{c}]) -> (f32[{r}], f32[{r}]) {{
        let h = (x as f32) * w;
        let a = abs(h);
        (sum(a, axis = 1) / {c}.0 + 1.0, max(h - a * 0.5, axis = 1))
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{hdt}], w: &[f32], s: &mut [f32], mx: &mut [f32]) {{
    assert!(x.len() == {r * c} && w.len() == {c} && s.len() == {r} && mx.len() == {r});
    for i in 0..{r} {{
        let mut acc = 0.0f64;
        let mut best = f32::NEG_INFINITY;
        for j in 0..{c} {{
            let h = x[i * {c} + j].to_f32() * w[j];
            let a = h.abs();
            acc += a as f64;
            best = best.max(h - a * 0.5);
        }}
        s[i] = acc as f32 / {c}.0 + 1.0;
        mx[i] = best;
    }}
}}
pub fn {name}(x: &[{hdt}], w: &[f32]) -> (Vec<f32>, Vec<f32>) {{
    let (mut s, mut mx) = ({vec("f32", r)}, {vec("f32", r)});
    {name}_into(x, w, &mut s, &mut mx);
    (s, mx)
}}"""
    g, h = call(name, [f"&black_box({tensor(hdt, [r, c])})", f"&black_box({tensor('f32', [c])})"],
                [f"&black_box({vec(hdt, r * c)})", f"&black_box({vec('f32', c)})"])
    return Kernel(name, graph, hand, g, h, 10)


def t_u8_argmax(i, k):
    """u8 casts to u32, %, |, where, and an argmax over axis 0: 10 ops."""
    r, c = SHAPES_2D[(k + 5) % len(SHAPES_2D)]
    m = [251, 127, 97][k % 3]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(p: u8[{r}, {c}], q: u8[{c}]) -> (u32[{r}, {c}], i64[{c}]) {{
        let s = p as u32 + q as u32;
        let t = (s * 3) % {m};
        (where(t > 200, t - 200, t) | 1, argmax(p, axis = 0))
    }}
}}"""
    hand = f"""pub fn {name}_into(p: &[u8], q: &[u8], o: &mut [u32], am: &mut [i64]) {{
    assert!(p.len() == {r * c} && q.len() == {c} && o.len() == {r * c} && am.len() == {c});
    for i in 0..{r} {{
        for j in 0..{c} {{
            let s = p[i * {c} + j] as u32 + q[j] as u32;
            let t = s.wrapping_mul(3) % {m};
            o[i * {c} + j] = (if t > 200 {{ t - 200 }} else {{ t }}) | 1;
        }}
    }}
    for j in 0..{c} {{
        let mut best = p[j];
        let mut idx = 0i64;
        for i in 1..{r} {{
            if p[i * {c} + j] > best {{
                best = p[i * {c} + j];
                idx = i as i64;
            }}
        }}
        am[j] = idx;
    }}
}}
pub fn {name}(p: &[u8], q: &[u8]) -> (Vec<u32>, Vec<i64>) {{
    let (mut o, mut am) = ({vec("u32", r * c)}, {vec("i64", c)});
    {name}_into(p, q, &mut o, &mut am);
    (o, am)
}}"""
    g, h = call(name, [f"&black_box({tensor('u8', [r, c])})", f"&black_box({tensor('u8', [c])})"],
                [f"&black_box({vec('u8', r * c)})", f"&black_box({vec('u8', c)})"])
    return Kernel(name, graph, hand, g, h, 8)


def t_rank3(i, k):
    """Rank-3 broadcast of [A,1,C] with [B,1] and [C], floor, cos: 10 ops."""
    a, b, c = SHAPES_3D[k % len(SHAPES_3D)]
    c1 = CONSTS[(k + 4) % 7]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(a: f32[{a}, 1, {c}], b: f32[{b}, 1], c: f32[{c}]) -> f32[{a}, {b}, {c}] {{
        let t = (a + b) * c;
        let u = t - floor(t);
        u * u * {c1} + cos(t) * 0.1 - c
    }}
}}"""
    hand = f"""pub fn {name}_into(a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {{
    assert!(a.len() == {a * c} && b.len() == {b} && c.len() == {c} && out.len() == {a * b * c});
    for i in 0..{a} {{
        for j in 0..{b} {{
            for l in 0..{c} {{
                let t = (a[i * {c} + l] + b[j]) * c[l];
                let u = t - t.floor();
                out[(i * {b} + j) * {c} + l] = u * u * {c1} + t.cos() * 0.1 - c[l];
            }}
        }}
    }}
}}
pub fn {name}(a: &[f32], b: &[f32], c: &[f32]) -> Vec<f32> {{
    let mut out = {vec("f32", a * b * c)};
    {name}_into(a, b, c, &mut out);
    out
}}"""
    g, h = call(name, [f"&black_box({tensor('f32', [a, 1, c])})", f"&black_box({tensor('f32', [b, 1])})", f"&black_box({tensor('f32', [c])})"],
                [f"&black_box({vec('f32', a * c)})", f"&black_box({vec('f32', b)})", f"&black_box({vec('f32', c)})"])
    return Kernel(name, graph, hand, g, h, 10)


TEMPLATES = [t_elementwise, t_layernorm, t_integer, t_cast, t_where, t_half, t_u8_argmax, t_rank3]


def kernels():
    return [TEMPLATES[i % len(TEMPLATES)](i, i // len(TEMPLATES)) for i in range(N_GRAPHS)]


# ---------------------------------------------------------------------------------------
# Template set 2 (issue 17): symbolic dims fed from `Vec`s, the wider op table
# (clip, leaky_relu, hard_swish, cumsum, slice/flip/concat/pad, layer_norm, softmax,
# quantize_linear) and products (`@` with an epilogue, `einsum`). Every graph has a
# run-time batch `B`; the hand-written twins take slices and solve B from the length, as
# `&[T]` arguments do. Run `B` is 4 in `run_i()`.

B_RUN = 4
SHAPES_V2 = [8, 64, 16, 100, 32, 768, 24, 40]


def vcall(name, graph_args, hand_args):
    """Calls of a symbolic graph (`Result`) and of its hand-written twin."""
    return call(name, graph_args, hand_args, fallible=True)


def t2_mlp(i, k):
    """`leaky_relu(x @ w + b)` over a run-time batch: a product with a fused epilogue."""
    f = ["f32", "f64"][k % 2]
    kk = SHAPES_V2[k % len(SHAPES_V2)]
    n = SHAPES_V2[(k + 3) % len(SHAPES_V2)]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {f}[B, {kk}], w: {f}[{kk}, {n}], b: {f}[{n}]) -> {f}[B, {n}] {{
        leaky_relu(x @ w + b, alpha = 0.1) * 2.0
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{f}], w: &[{f}], b: &[{f}], out: &mut [{f}]) {{
    let rows = x.len() / {kk};
    assert!(x.len() == rows * {kk} && w.len() == {kk * n} && b.len() == {n} && out.len() == rows * {n});
    for i in 0..rows {{
        let o = &mut out[i * {n}..(i + 1) * {n}];
        o.fill(0.0);
        for p in 0..{kk} {{
            let a = x[i * {kk} + p];
            for j in 0..{n} {{
                o[j] += a * w[p * {n} + j];
            }}
        }}
        for j in 0..{n} {{
            let h = o[j] + b[j];
            o[j] = if h < 0.0 {{ 0.1 * h }} else {{ h }} * 2.0;
        }}
    }}
}}
pub fn {name}(x: &[{f}], w: &[{f}], b: &[{f}]) -> Vec<{f}> {{
    let mut out = vec![0.0; x.len() / {kk} * {n}];
    {name}_into(x, w, b, &mut out);
    out
}}"""
    g, h = vcall(name, [f"&black_box({vec(f, B_RUN * kk)})", f"&black_box({tensor(f, [kk, n])})", f"&black_box({tensor(f, [n])})"],
                 [f"&black_box({vec(f, B_RUN * kk)})", f"&black_box({vec(f, kk * n)})", f"&black_box({vec(f, n)})"])
    return Kernel(name, graph, hand, g, h, 5)


def t2_activations(i, k):
    """clip with a run-time bound, hard_swish, leaky_relu: 8 ops."""
    f = ["f32", "f64"][(k + 1) % 2]
    c = SHAPES_V2[(k + 1) % len(SHAPES_V2)]
    c1 = CONSTS[k % 7]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {f}[B, {c}], lo: {f}) -> {f}[B, {c}] {{
        let y = clip(x * {c1}, min = lo, max = 6.0);
        hard_swish(y) + leaky_relu(x, alpha = 0.2) - abs(y)
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{f}], lo: {f}, out: &mut [{f}]) {{
    assert!(x.len() % {c} == 0 && out.len() == x.len());
    for (o, &v) in out.iter_mut().zip(x) {{
        let y = (v * {lit(c1, f)}).max(lo).min(6.0);
        let hs = y * (y / 6.0 + 0.5).max(0.0).min(1.0);
        let lr = if v < 0.0 {{ 0.2 * v }} else {{ v }};
        *o = hs + lr - y.abs();
    }}
}}
pub fn {name}(x: &[{f}], lo: {f}) -> Vec<{f}> {{
    let mut out = vec![0.0; x.len()];
    {name}_into(x, lo, &mut out);
    out
}}"""
    g, h = vcall(name, [f"&black_box({vec(f, B_RUN * c)})", f"black_box(-1.0)"],
                 [f"&black_box({vec(f, B_RUN * c)})", f"black_box(-1.0)"])
    return Kernel(name, graph, hand, g, h, 8)


def t2_cumsum(i, k):
    """An inner-axis cumsum between elementwise producers and consumers: 5 ops."""
    f = ["f32", "f64"][k % 2]
    c = SHAPES_V2[(k + 2) % len(SHAPES_V2)]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {f}[B, {c}]) -> {f}[B, {c}] {{
        cumsum(x * 2.0, axis = 1) - x
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{f}], out: &mut [{f}]) {{
    assert!(x.len() % {c} == 0 && out.len() == x.len());
    for (row, orow) in x.chunks_exact({c}).zip(out.chunks_exact_mut({c})) {{
        let mut acc = 0.0f64;
        for (o, &v) in orow.iter_mut().zip(row) {{
            acc += (v * 2.0) as f64;
            *o = acc as {f} - v;
        }}
    }}
}}
pub fn {name}(x: &[{f}]) -> Vec<{f}> {{
    let mut out = vec![0.0; x.len()];
    {name}_into(x, &mut out);
    out
}}"""
    g, h = vcall(name, [f"&black_box({vec(f, B_RUN * c)})"], [f"&black_box({vec(f, B_RUN * c)})"])
    return Kernel(name, graph, hand, g, h, 4)


def t2_reorg(i, k):
    """slice, flip, concat and pad along the literal axis of a run-time batch: 8 ops."""
    t = ["f32", "i32", "u8", "f64"][k % 4]
    c = SHAPES_V2[(k + 4) % len(SHAPES_V2)]
    name = f"k{i}"
    one = "1.0" if t[0] == "f" else "1"
    graph = f"""graph! {{
    pub fn {name}(x: {t}[B, {c}]) -> ({t}[B, {2 * c - 1}], {t}[B, {c + 2}]) {{
        (concat([slice(x, axis = 1, start = 1), flip(x, axis = 1)], axis = 1),
         pad(x, [0, 0, 1, 1]) + {one})
    }}
}}"""
    add = "v + 1.0" if t[0] == "f" else "v.wrapping_add(1)"
    hand = f"""pub fn {name}_into(x: &[{t}], cat: &mut [{t}], padded: &mut [{t}]) {{
    let rows = x.len() / {c};
    assert!(x.len() == rows * {c} && cat.len() == rows * {2 * c - 1} && padded.len() == rows * {c + 2});
    for i in 0..rows {{
        let row = &x[i * {c}..(i + 1) * {c}];
        let crow = &mut cat[i * {2 * c - 1}..(i + 1) * {2 * c - 1}];
        crow[..{c - 1}].copy_from_slice(&row[1..]);
        for (o, &v) in crow[{c - 1}..].iter_mut().zip(row.iter().rev()) {{
            *o = v;
        }}
        let prow = &mut padded[i * {c + 2}..(i + 1) * {c + 2}];
        let z = {zero(t)};
        prow[0] = {add.replace("v", "z")};
        prow[{c + 1}] = {add.replace("v", "z")};
        for (o, &v) in prow[1..{c + 1}].iter_mut().zip(row) {{
            *o = {add};
        }}
    }}
}}
pub fn {name}(x: &[{t}]) -> (Vec<{t}>, Vec<{t}>) {{
    let rows = x.len() / {c};
    let (mut cat, mut padded) = (vec![{zero(t)}; rows * {2 * c - 1}], vec![{zero(t)}; rows * {c + 2}]);
    {name}_into(x, &mut cat, &mut padded);
    (cat, padded)
}}"""
    g, h = vcall(name, [f"&black_box({vec(t, B_RUN * c)})"], [f"&black_box({vec(t, B_RUN * c)})"])
    return Kernel(name, graph, hand, g, h, 6)


def t2_norm_softmax(i, k):
    """layer_norm then softmax over rows of a run-time batch: ~14 ops."""
    f = ["f32", "f64"][(k + 1) % 2]
    c = SHAPES_V2[(k + 5) % len(SHAPES_V2)]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: {f}[B, {c}], g: {f}[{c}], b: {f}[{c}]) -> {f}[B, {c}] {{
        softmax(layer_norm(x, g, b), axis = -1)
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[{f}], g: &[{f}], b: &[{f}], out: &mut [{f}]) {{
    assert!(x.len() % {c} == 0 && g.len() == {c} && b.len() == {c} && out.len() == x.len());
    for (row, orow) in x.chunks_exact({c}).zip(out.chunks_exact_mut({c})) {{
        let mut s = 0.0f64;
        for &v in row {{
            s += v as f64;
        }}
        let m = (s / {c}.0) as {f};
        let mut s2 = 0.0f64;
        for &v in row {{
            s2 += ((v - m) * (v - m)) as f64;
        }}
        let inv = 1.0 / ((s2 / {c}.0) as {f} + 1e-5).sqrt();
        let mut mx = {f}::NEG_INFINITY;
        for j in 0..{c} {{
            orow[j] = (row[j] - m) * inv * g[j] + b[j];
            mx = mx.max(orow[j]);
        }}
        let mut tot = 0.0f64;
        for o in orow.iter_mut() {{
            *o = (*o - mx).exp();
            tot += *o as f64;
        }}
        for o in orow.iter_mut() {{
            *o /= tot as {f};
        }}
    }}
}}
pub fn {name}(x: &[{f}], g: &[{f}], b: &[{f}]) -> Vec<{f}> {{
    let mut out = vec![0.0; x.len()];
    {name}_into(x, g, b, &mut out);
    out
}}"""
    g, h = vcall(name, [f"&black_box({vec(f, B_RUN * c)})", f"&black_box({tensor(f, [c])})", f"&black_box({tensor(f, [c])})"],
                 [f"&black_box({vec(f, B_RUN * c)})", f"&black_box({vec(f, c)})", f"&black_box({vec(f, c)})"])
    return Kernel(name, graph, hand, g, h, 14)


def t2_quantize(i, k):
    """relu then quantize_linear to u8 with run-time scale and zero point: 7 ops."""
    c = SHAPES_V2[(k + 6) % len(SHAPES_V2)]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(x: f32[B, {c}], s: f32, z: u8) -> u8[B, {c}] {{
        quantize_linear(relu(x), s, z)
    }}
}}"""
    hand = f"""pub fn {name}_into(x: &[f32], s: f32, z: u8, out: &mut [u8]) {{
    assert!(x.len() % {c} == 0 && out.len() == x.len());
    for (o, &v) in out.iter_mut().zip(x) {{
        let q = (v.max(0.0) / s).round_ties_even() + z as f32;
        *o = q.clamp(0.0, 255.0) as u8;
    }}
}}
pub fn {name}(x: &[f32], s: f32, z: u8) -> Vec<u8> {{
    let mut out = vec![0u8; x.len()];
    {name}_into(x, s, z, &mut out);
    out
}}"""
    g, h = vcall(name, [f"&black_box({vec('f32', B_RUN * c)})", "black_box(0.5)", "black_box(3)"],
                 [f"&black_box({vec('f32', B_RUN * c)})", "black_box(0.5)", "black_box(3)"])
    return Kernel(name, graph, hand, g, h, 7)


def t2_einsum(i, k):
    """A batched `einsum("bij,bjk->bik")` over a run-time batch, plus a scale: 2 ops."""
    f = ["f32", "f64"][k % 2]
    m, kk, n = [(4, 8, 4), (8, 16, 8), (3, 5, 7), (16, 16, 16)][k % 4]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(a: {f}[B, {m}, {kk}], b: {f}[B, {kk}, {n}]) -> {f}[B, {m}, {n}] {{
        einsum("bij,bjk->bik", a, b) * 0.5
    }}
}}"""
    hand = f"""pub fn {name}_into(a: &[{f}], b: &[{f}], out: &mut [{f}]) {{
    let batch = a.len() / {m * kk};
    assert!(a.len() == batch * {m * kk} && b.len() == batch * {kk * n} && out.len() == batch * {m * n});
    for t in 0..batch {{
        for i in 0..{m} {{
            for j in 0..{n} {{
                let mut acc = 0.0;
                for p in 0..{kk} {{
                    acc += a[(t * {m} + i) * {kk} + p] * b[(t * {kk} + p) * {n} + j];
                }}
                out[(t * {m} + i) * {n} + j] = acc * 0.5;
            }}
        }}
    }}
}}
pub fn {name}(a: &[{f}], b: &[{f}]) -> Vec<{f}> {{
    let mut out = vec![0.0; a.len() / {m * kk} * {m * n}];
    {name}_into(a, b, &mut out);
    out
}}"""
    g, h = vcall(name, [f"&black_box({vec(f, B_RUN * m * kk)})", f"&black_box({vec(f, B_RUN * kk * n)})"],
                 [f"&black_box({vec(f, B_RUN * m * kk)})", f"&black_box({vec(f, B_RUN * kk * n)})"])
    return Kernel(name, graph, hand, g, h, 2)


def t2_integer(i, k):
    """Integer clip, a row sum into i64 and a shift over a run-time batch: 7 ops."""
    t = ["i32", "i16", "i64"][k % 3]
    c = SHAPES_V2[(k + 7) % len(SHAPES_V2)]
    name = f"k{i}"
    graph = f"""graph! {{
    pub fn {name}(a: {t}[B, {c}], b: {t}[{c}]) -> (i64[B], {t}[B, {c}]) {{
        let t = clip(a - b, min = -100, max = 100);
        (sum(t * t, axis = 1), t >> 2)
    }}
}}"""
    hand = f"""pub fn {name}_into(a: &[{t}], b: &[{t}], s: &mut [i64], sh: &mut [{t}]) {{
    let rows = a.len() / {c};
    assert!(a.len() == rows * {c} && b.len() == {c} && s.len() == rows && sh.len() == a.len());
    for i in 0..rows {{
        let mut acc = 0i64;
        for j in 0..{c} {{
            let t = a[i * {c} + j].wrapping_sub(b[j]).max(-100).min(100);
            acc = acc.wrapping_add(t.wrapping_mul(t) as i64);
            sh[i * {c} + j] = t >> 2;
        }}
        s[i] = acc;
    }}
}}
pub fn {name}(a: &[{t}], b: &[{t}]) -> (Vec<i64>, Vec<{t}>) {{
    let rows = a.len() / {c};
    let (mut s, mut sh) = (vec![0i64; rows], vec![0 as {t}; a.len()]);
    {name}_into(a, b, &mut s, &mut sh);
    (s, sh)
}}"""
    g, h = vcall(name, [f"&black_box({vec(t, B_RUN * c)})", f"&black_box({tensor(t, [c])})"],
                 [f"&black_box({vec(t, B_RUN * c)})", f"&black_box({vec(t, c)})"])
    return Kernel(name, graph, hand, g, h, 7)


TEMPLATES_V2 = [t2_mlp, t2_activations, t2_cumsum, t2_reorg, t2_norm_softmax, t2_quantize, t2_einsum, t2_integer]


def kernels_v2():
    return [TEMPLATES_V2[i % len(TEMPLATES_V2)](i, i // len(TEMPLATES_V2)) for i in range(N_GRAPHS)]


HEADER = """//! Generated by benches/compile_time/gen.py: do not edit.
#![allow(clippy::all, unused_parens)]
"""


def cargo_toml(name, tg):
    return f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
tensorgraph = {{ path = "{tg}" }}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run_all(calls):
    """`run_i()` calls kernel i once, so each is monomorphised and code-generated in this
    crate (the graph functions are generic over their `&impl` parameters), each in a
    function of its own as a caller would have it; `run_all()` calls them all."""
    runs = "".join(f"""
#[inline(never)]
pub fn run_{i}() {{
    {c}
}}
""" for i, c in enumerate(calls))
    all_ = "\n    ".join(f"run_{i}();" for i in range(len(calls)))
    return f"""
use std::hint::black_box;
{runs}
pub fn run_all() {{
    {all_}
}}
"""


def size_graphs(large):
    """The same four graphs at small and at large shapes."""
    n = 1 << 20 if large else 8
    r, c = (4096, 1024) if large else (4, 8)
    a, b, d = (64, 256, 1024) if large else (2, 3, 8)
    return f"""graph! {{
    pub fn s1(x: f32[{n}], y: f32[{n}], s: f32) -> f32[{n}] {{
        let h = x * s + y;
        relu(h - 0.5) * exp(-abs(h)) + sqrt(abs(x))
    }}
}}
graph! {{
    pub fn s2(x: f32[{r}, {c}], b: f32[{c}], s: f32) -> f32[{r}, {c}] {{
        let h = x * s + b;
        let r = relu(h - 0.5);
        r * exp(-abs(r)) + sqrt(abs(x)) * 0.25
    }}
}}
graph! {{
    pub fn s3(x: f32[{r}, {c}], g: f32[{c}], beta: f32[{c}]) -> (f32[{r}, {c}], f32[{r}]) {{
        let m = mean(x, axis = 1, keepdims = true);
        let d = x - m;
        let v = mean(d * d, axis = 1, keepdims = true);
        (d * rsqrt(v + 1e-5) * g + beta, max(x, axis = 1))
    }}
}}
graph! {{
    pub fn s4(a: f32[{a}, 1, {d}], b: f32[{b}, 1], c: f32[{d}]) -> f32[{a}, {b}, {d}] {{
        let t = (a + b) * c;
        t - floor(t) + cos(t) * 0.1
    }}
}}
"""


def size_run_all(large):
    n = 1 << 20 if large else 8
    r, c = (4096, 1024) if large else (4, 8)
    a, b, d = (64, 256, 1024) if large else (2, 3, 8)
    calls = [
        f"black_box(s1(&black_box({tensor('f32', [n])}), &black_box({tensor('f32', [n])}), black_box(1.5)));",
        f"black_box(s2(&black_box({tensor('f32', [r, c])}), &black_box({tensor('f32', [c])}), black_box(1.5)));",
        f"black_box(s3(&black_box({tensor('f32', [r, c])}), &black_box({tensor('f32', [c])}), &black_box({tensor('f32', [c])})));",
        f"black_box(s4(&black_box({tensor('f32', [a, 1, d])}), &black_box({tensor('f32', [b, 1])}), &black_box({tensor('f32', [d])})));",
    ]
    return run_all(calls)


def main():
    out, tg = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    ks = kernels()
    members = ["with_graphs", "hand_written", "graphs_only", "graphs_one", "graphs_none", "size_small", "size_large",
               "with_graphs_v2", "hand_written_v2", "graphs_only_v2"]
    write(os.path.join(out, "Cargo.toml"), "# Generated by benches/compile_time/gen.py\n[workspace]\nresolver = \"2\"\nmembers = [" + ", ".join(f'"{m}"' for m in members) + "]\n")
    for m in members:
        write(os.path.join(out, m, "Cargo.toml"), cargo_toml(m, tg))

    graphs = "\n\n".join(k.graph for k in ks)
    write(os.path.join(out, "with_graphs", "src", "lib.rs"),
          HEADER + "use tensorgraph::prelude::*;\n\n" + graphs + "\n" + run_all([k.call_graph for k in ks]))
    hands = "\n\n".join(k.hand for k in ks)
    write(os.path.join(out, "hand_written", "src", "lib.rs"),
          HEADER + "#![allow(unused_imports)]\nuse tensorgraph::prelude::*;\n\n" + hands + "\n" + run_all([k.call_hand for k in ks]))
    # The graphs alone (no `run_all`, no `Shape!`), and the first of them alone: what the
    # expansion-time measurement compiles.
    write(os.path.join(out, "graphs_only", "src", "lib.rs"), HEADER + "use tensorgraph::prelude::*;\n\n" + graphs + "\n")
    write(os.path.join(out, "graphs_one", "src", "lib.rs"), HEADER + "use tensorgraph::prelude::*;\n\n" + ks[0].graph + "\n")
    write(os.path.join(out, "graphs_none", "src", "lib.rs"), HEADER + "#![allow(unused_imports)]\nuse tensorgraph::prelude::*;\n")
    for m, large in (("size_small", False), ("size_large", True)):
        write(os.path.join(out, m, "src", "lib.rs"),
              HEADER + "use tensorgraph::prelude::*;\n\n" + size_graphs(large) + size_run_all(large))
    ops = [k.ops for k in ks]
    print(f"generated {len(ks)} kernels, {sum(ops)} ops ({min(ops)}..{max(ops)} per graph) in {out}")

    # Template set 2: symbolic dims, the wider op table, products.
    ks2 = kernels_v2()
    graphs2 = "\n\n".join(k.graph for k in ks2)
    write(os.path.join(out, "with_graphs_v2", "src", "lib.rs"),
          HEADER + "use tensorgraph::prelude::*;\n\n" + graphs2 + "\n" + run_all([k.call_graph for k in ks2]))
    write(os.path.join(out, "hand_written_v2", "src", "lib.rs"),
          HEADER + "#![allow(unused_imports)]\nuse tensorgraph::prelude::*;\n\n" + "\n\n".join(k.hand for k in ks2)
          + "\n" + run_all([k.call_hand for k in ks2]))
    write(os.path.join(out, "graphs_only_v2", "src", "lib.rs"), HEADER + "use tensorgraph::prelude::*;\n\n" + graphs2 + "\n")
    ops2 = [k.ops for k in ks2]
    print(f"set 2: generated {len(ks2)} kernels, {sum(ops2)} ops ({min(ops2)}..{max(ops2)} per graph)")


if __name__ == "__main__":
    main()
