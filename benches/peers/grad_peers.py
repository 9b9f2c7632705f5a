#!/usr/bin/env python3
"""Issue 32 item 8: the peers of benches/gradients.rs in JAX (jit, XLA CPU), pinned to one
core, one thread (peers.py's environment and timing: median ms per call after a warm-up).

    /work/peers-venv/bin/python benches/peers/grad_peers.py [--core 1] [--secs 5]

Workloads (the inputs are benches/gradients.rs's formulas):
- F32, F256 / G32, G256: the MLP `gelu(x @ w1 + b1) @ w2 + b2 -> softmax cross-entropy
  (mean)`, 768 -> 3072 -> 768, f32, batch 32 and 256: the forward alone (F), and
  `jax.value_and_grad` with respect to w1, b1, w2, b2 (G). JAX's `gelu` is called with
  `approximate=False` (the erf form, as the graph's `gelu`).
- LN, SM: the vjp of `layer_norm` (eps 1e-5, over the last axis) and of `softmax` over
  f32[4096, 768] with respect to x, given a cotangent.
- P xw1, P hw2, P dh: the three products of 32 rows alone (`jax.jit(a @ b)`; benches/gradients.rs
  "parts" group): x·w1 (32x768 . 768x3072), h·w2 (32x3072 . 3072x768), d·w2ᵀ (32x768 .
  768x3072, w2 read transposed).
- `GRAD_BENCH=mlp,parts,rows` picks the groups, as for benches/gradients.rs.
- R32, R256: the bytes JAX keeps between forward and backward of G (the residuals of
  `jax.vjp`, summed over its saved arrays), for item 8's "bytes saved" comparison.
Not run by CI.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peers import ENV_ONE_THREAD, time_call  # noqa: E402


def fill(np, n, a, m, scale):
    i = np.arange(n, dtype=np.int64)
    return (((i * a) % m).astype(np.float32) / np.float32(m) * np.float32(scale) - np.float32(scale / 2.0)).astype(np.float32)


def worker(secs):
    import numpy as np
    import jax
    import jax.numpy as jnp

    w1 = fill(np, 768 * 3072, 31, 197, 0.1).reshape(768, 3072)
    b1 = fill(np, 3072, 7, 101, 0.1)
    w2 = fill(np, 3072 * 768, 17, 193, 0.05).reshape(3072, 768)
    b2 = fill(np, 768, 5, 103, 0.1)

    def loss(x, y, w1, b1, w2, b2):
        h = jax.nn.gelu(x @ w1 + b1, approximate=False)
        lp = jax.nn.log_softmax(h @ w2 + b2, axis=1)
        return -jnp.mean(jnp.take_along_axis(lp, y[:, None], axis=1))

    groups = os.environ.get("GRAD_BENCH")
    wanted = lambda g: groups is None or g in groups.split(",")

    fwd = jax.jit(loss)
    vg = jax.jit(jax.value_and_grad(loss, argnums=(2, 3, 4, 5)))
    for batch in (32, 256) if wanted("mlp") else ():
        x = fill(np, batch * 768, 13, 199, 2.0).reshape(batch, 768)
        y = (np.arange(batch, dtype=np.int64) * 7919) % 768
        args = [jax.device_put(a) for a in (x, y, w1, b1, w2, b2)]
        run = lambda: fwd(*args).block_until_ready()
        ms = time_call(run, secs)
        print(f"F{batch} {ms:.4f} loss={float(run()):.6f}", flush=True)

        def run_g():
            v, g = vg(*args)
            jax.block_until_ready(g)
            return v, g

        ms = time_call(run_g, secs)
        v, g = run_g()
        norms = " ".join(f"{float(jnp.sqrt(jnp.sum(jnp.asarray(t, jnp.float64) ** 2))):.6e}" for t in g)
        print(f"G{batch} {ms:.4f} loss={float(v):.6f} norms={norms}", flush=True)
        # Residuals JAX saves for the backward: the leaves of the vjp function's closure.
        _, f_vjp = jax.vjp(lambda w1, b1, w2, b2: loss(args[0], args[1], w1, b1, w2, b2), *args[2:])
        leaves = jax.tree_util.tree_leaves(f_vjp)
        inputs = {id(a) for a in args}
        saved = sum(l.size * l.dtype.itemsize for l in leaves if hasattr(l, "size") and id(l) not in inputs)
        print(f"R{batch} {saved} bytes in {len(leaves)} leaves (parameters included where JAX keeps them)", flush=True)

    if wanted("parts"):
        x32 = jax.device_put(fill(np, 32 * 768, 13, 199, 2.0).reshape(32, 768))
        d3 = jax.device_put(fill(np, 32 * 3072, 11, 197, 0.01).reshape(32, 3072))
        d7 = jax.device_put(fill(np, 32 * 768, 19, 191, 0.01).reshape(32, 768))
        w1d, w2d = jax.device_put(w1), jax.device_put(w2)
        mm = jax.jit(lambda a, b: a @ b)
        mmt = jax.jit(lambda a, b: a @ b.T)
        for name, f, a, b in (("xw1", mm, x32, w1d), ("hw2", mm, d3, w2d), ("dh", mmt, d7, w2d)):
            run = lambda: f(a, b).block_until_ready()
            ms = time_call(run, secs)
            print(f"P {name} {ms:.4f} sum={float(np.asarray(run(), np.float64).sum()):.6e}", flush=True)

    if not wanted("rows"):
        return
    x = fill(np, 4096 * 768, 13, 199, 4.0).reshape(4096, 768)
    ct = fill(np, 4096 * 768, 29, 211, 2.0).reshape(4096, 768)
    gamma = fill(np, 768, 7, 101, 1.0)
    beta = fill(np, 768, 5, 103, 1.0)

    def ln(x):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
        return (x - mu) / jnp.sqrt(var + 1e-5) * gamma + beta

    ln_vjp = jax.jit(lambda x, ct: jax.vjp(ln, x)[1](ct)[0])
    sm_vjp = jax.jit(lambda x, ct: jax.vjp(lambda x: jax.nn.softmax(x, axis=-1), x)[1](ct)[0])
    xa, cta = jax.device_put(x), jax.device_put(ct)
    for name, f in (("LN", ln_vjp), ("SM", sm_vjp)):
        run = lambda: f(xa, cta).block_until_ready()
        ms = time_call(run, secs)
        print(f"{name} {ms:.4f} sum={float(np.asarray(run(), np.float64).sum()):.6e}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--core", default="1")
    ap.add_argument("--secs", type=float, default=5.0)
    args = ap.parse_args()
    if args.worker:
        worker(args.secs)
        return
    env = dict(os.environ)
    env.update(ENV_ONE_THREAD)
    cmd = ["taskset", "-c", args.core, sys.executable, os.path.abspath(__file__), "--worker", "--secs", str(args.secs)]
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in res.stdout.splitlines():
        print(f"jax {line}", flush=True)
    if res.returncode != 0:
        print(f"jax failed: {res.stderr.strip().splitlines()[-3:]}", flush=True)


if __name__ == "__main__":
    main()
