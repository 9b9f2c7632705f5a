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


def call(name, graph_args, hand_args):
    g = f"black_box({name}({', '.join(graph_args)}));"
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
    members = ["with_graphs", "hand_written", "graphs_only", "graphs_one", "graphs_none", "size_small", "size_large"]
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


if __name__ == "__main__":
    main()
