#!/usr/bin/env python3
"""Issue 30 item 10: the peers of benches/models.rs (embedding gather, causal attention,
softmax cross-entropy) in JAX (jit, XLA CPU), ONNX Runtime and NumPy, each in its own process
pinned to one core, one thread (peers.py's environment and timing: median ms per call after
a warm-up).

    python3 -m venv /work/peers-venv
    /work/peers-venv/bin/pip install numpy 'jax[cpu]' jaxlib onnxruntime onnx
    /work/peers-venv/bin/python benches/peers/models_peers.py [--core 1] [--secs 5] [--only jax,onnxruntime]

Workloads (the inputs are benches/models.rs's formulas):
- G: `gather` of 4096 ids from an f32[50257, 768] table (jnp.take, ORT Gather, np.take into
  a preallocated output), and a NumPy copy of the same bytes (the bound).
- A1024, A2048: causal attention B=1, H=12, S, D=64, f32: `jax.nn.dot_product_attention(q, k,
  v, is_causal=True)` (JAX's layout is [B, S, H, D]: the inputs are transposed once, outside
  the timing), ORT's ONNX `Attention` (opset 23, [B, H, S, D], is_causal=1).
- X: softmax cross-entropy (mean) over f32[4096, 50257]: JAX `-mean(take_along_axis(
  log_softmax(x), labels))` jitted; ORT's `SoftmaxCrossEntropyLoss` (opset 13, mean).
Not run by CI.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peers import ENV_ONE_THREAD, time_call  # noqa: E402

VOCAB, WIDTH, IDS, HEADS, HEAD_DIM = 50257, 768, 4096, 12, 64
WORKLOADS = ["G", "A1024", "A2048", "X"]


def inputs(np, which):
    f32 = np.float32
    if which == "G":
        r = np.arange(VOCAB, dtype=np.int64)[:, None]
        c = np.arange(WIDTH, dtype=np.int64)[None, :]
        table = (((r * 31 + c * 17) % 199).astype(f32) / f32(199.0) - f32(0.5)).astype(f32)
        ids = (np.arange(IDS, dtype=np.int64) * 7919 + 13) % VOCAB
        return table, ids
    if which.startswith("A"):
        s = int(which[1:])
        n = np.arange(HEADS * s * HEAD_DIM, dtype=np.int64)
        mk = lambda seed: (((n * 2654435761 + seed * 40503) % 2001).astype(f32) / f32(1000.0) - f32(1.0)).astype(f32).reshape(1, HEADS, s, HEAD_DIM)
        return mk(1), mk(2), mk(3)
    if which == "X":
        r = np.arange(IDS, dtype=np.int64)[:, None]
        c = np.arange(VOCAB, dtype=np.int64)[None, :]
        x = (((r * 7 + c * 13) % 101).astype(f32) * f32(0.05) - f32(2.5)).astype(f32)
        labels = (np.arange(IDS, dtype=np.int64) * 7919) % VOCAB
        return x, labels
    raise ValueError(which)


def jax_fn(np, which, inp):
    import jax
    import jax.numpy as jnp

    if which == "G":
        f = jax.jit(lambda t, i: jnp.take(t, i, axis=0))
    elif which.startswith("A"):
        # [B, H, S, D] -> JAX's [B, S, H, D], once.
        inp = tuple(np.ascontiguousarray(a.transpose(0, 2, 1, 3)) for a in inp)
        f = jax.jit(lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True))
    else:
        def xent(x, labels):
            lp = jax.nn.log_softmax(x, axis=1)
            return -jnp.mean(jnp.take_along_axis(lp, labels[:, None], axis=1))

        f = jax.jit(xent)
    args = [jax.device_put(a) for a in inp]
    run = lambda: f(*args).block_until_ready()
    check = lambda out: np.asarray(out).transpose(0, 2, 1, 3) if which.startswith("A") else np.asarray(out)
    return run, check


def ort_model(which, inp):
    import onnx
    from onnx import TensorProto, helper

    F, I = TensorProto.FLOAT, TensorProto.INT64
    N = helper.make_node
    if which == "G":
        nodes = [N("Gather", ["t", "i"], ["y"], axis=0)]
        ins = [("t", F, [VOCAB, WIDTH]), ("i", I, [IDS])]
        outs = [("y", F, [IDS, WIDTH])]
        opset = 13
    elif which.startswith("A"):
        s = int(which[1:])
        shp = [1, HEADS, s, HEAD_DIM]
        nodes = [N("Attention", ["q", "k", "v"], ["y"], is_causal=1)]
        ins = [("q", F, shp), ("k", F, shp), ("v", F, shp)]
        outs = [("y", F, shp)]
        opset = 23
    else:
        nodes = [N("SoftmaxCrossEntropyLoss", ["x", "l"], ["y"], reduction="mean")]
        ins = [("x", F, [IDS, VOCAB]), ("l", I, [IDS])]
        outs = [("y", F, [])]
        opset = 13
    graph = helper.make_graph(
        nodes,
        which,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model, [n for n, _, _ in ins], outs[0][2]


def ort_fn(np, which, inp):
    import onnxruntime as ort

    model, names, out_shape = ort_model(which, inp)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    binding = sess.io_binding()
    for n, v in zip(names, inp):
        binding.bind_cpu_input(n, v)
    out = np.empty(out_shape, np.float32)
    binding.bind_output("y", "cpu", 0, np.float32, out_shape, out.ctypes.data)

    def run():
        sess.run_with_iobinding(binding)
        return out

    return run, np.asarray


def numpy_fn(np, which, inp):
    if which != "G":
        return None, None
    table, ids = inp
    out = np.empty((IDS, WIDTH), np.float32)
    return (lambda: np.take(table, ids, axis=0, out=out)), np.asarray


def worker(peer, secs, only):
    import numpy as np

    for which in WORKLOADS:
        if only and which not in only:
            continue
        inp = inputs(np, which)
        make = {"jax": jax_fn, "onnxruntime": ort_fn, "numpy": numpy_fn}[peer]
        try:
            run, check = make(np, which, inp)
        except Exception as e:  # an op the installed version lacks: say so, go on
            print(f"{which} error {type(e).__name__}: {str(e).splitlines()[0][:200]}", flush=True)
            continue
        if run is None:
            continue
        ms = time_call(run, secs)
        out = check(run()).astype(np.float64)
        print(f"{which} {ms:.4f} sum={out.sum():.6e}", flush=True)
        if peer == "numpy" and which == "G":
            src = np.ascontiguousarray(inp[0][:IDS])
            dst = np.empty_like(src)
            ms = time_call(lambda: np.copyto(dst, src), secs)
            print(f"G-copy {ms:.4f} sum={float(dst.astype(np.float64).sum()):.6e}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--core", default="1")
    ap.add_argument("--secs", type=float, default=5.0)
    ap.add_argument("--only", default="", help="workloads, comma-separated (G,A1024,A2048,X)")
    ap.add_argument("--peers", default="numpy,jax,onnxruntime")
    args = ap.parse_args()
    only = [w for w in args.only.split(",") if w]
    if args.worker:
        worker(args.worker, args.secs, only)
        return
    env = dict(os.environ)
    env.update(ENV_ONE_THREAD)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    for peer in args.peers.split(","):
        cmd = ["taskset", "-c", args.core, sys.executable, os.path.abspath(__file__), "--worker", peer, "--secs", str(args.secs)]
        if only:
            cmd += ["--only", ",".join(only)]
        res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in res.stdout.splitlines():
            print(f"{peer} {line}", flush=True)
        if res.returncode != 0:
            print(f"{peer} failed: {res.stderr.strip().splitlines()[-1:]}", flush=True)


if __name__ == "__main__":
    main()
