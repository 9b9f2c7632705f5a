#!/usr/bin/env python3
"""tensorgraph against NumPy, numexpr, JAX (jit, XLA CPU) and ONNX Runtime (issue 16).

Every contestant runs in its own process pinned to one core (`taskset -c CORE`; XLA keeps
a thread pool of its own whatever its flags say, so the process is pinned), one thread
where the library has a knob for it. The tensorgraph side is benches/peers.rs, built twice:
the default build (x86-64 baseline) and `RUSTFLAGS="-C target-cpu=native"`, each in its own
target dir. All contestants run back to back, twice; the table is from the second round.

    python3 -m venv benches/peers/.venv
    benches/peers/.venv/bin/pip install -r benches/peers/requirements.txt
    benches/peers/.venv/bin/python benches/peers/peers.py            # build, then measure
    benches/peers/.venv/bin/python benches/peers/peers.py --threads  # + 2-thread speedups

Figures: ms per call, median of per-call times after a warm-up.
Not run by CI.

`--svg FILE` also draws the table as a chart (the README's); `--chart-from TABLE.md --svg
FILE` draws it from a table this script printed before (benches/peers/last_run.md holds the
last run's), without measuring:

    python3 benches/peers/peers.py --chart-from benches/peers/last_run.md --svg benches/peers/peers.svg
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

WORKLOADS = [
    ("W1", "relu(a+b)*2 f32[16M]"),
    ("W2", "tanh(x)*exp(-x*x) f32[1M]"),
    ("W3", "softmax(x, axis=1) f32[4096,1024]"),
    ("W4", "layer norm rows f32[4096,1024]"),
    ("W5", "sum(x, axis=1, acc=f32) f32[4096,1024]"),
    ("W5D", "sum(x, axis=1) f32[4096,1024]: tg with the language's default f64 accumulator, peers as W5"),
    ("W6", "gelu(x + bias) f32[4096,1024]"),
    ("S3", "softmax(x, axis=1) f32[B,1024], B=4096 at run time, from a Vec"),
    ("S4", "layer norm rows f32[B,1024], B=4096 at run time, from a Vec"),
    ("S6", "gelu(x + bias) f32[B,1024], B=4096 at run time, from a Vec"),
    ("M1", "f32[1024,1024] @ f32[1024,1024]"),
    ("M2", "gelu(x @ w + b) [512,768]@[768,3072]"),
]
PEERS = ["numpy", "numexpr", "jax", "onnxruntime"]
# Symbolic-dim workloads: tensorgraph binds `B` at call entry from a slice's length; for the
# peers, whose shapes are always run-time values, they are the same computation as these.
SAME_AS = {"S3": "W3", "S4": "W4", "S6": "W6", "W5D": "W5"}
PEER_NAMES = {"numpy": "NumPy", "numexpr": "numexpr", "jax": "JAX", "onnxruntime": "ORT"}

# One thread everywhere a library listens. OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are unset
# (some machines here set them for old OpenBLAS builds; they slow a current NumPy).
ENV_ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "JAX_PLATFORMS": "cpu",
}


# ---------------------------------------------------------------------------------------
# Inputs: the same formulas as benches/peers.rs.


def inputs(np):
    f32 = np.float32
    i = np.arange(4096, dtype=np.int64)[:, None]
    j = np.arange(1024, dtype=np.int64)[None, :]
    x = (((i * 7 + j * 13) % 101).astype(f32) * f32(0.05) - f32(2.5)).astype(f32)
    jj = np.arange(1024)
    gamma = (f32(1.0) + (jj % 4).astype(f32) * f32(0.25)).astype(f32)
    beta = ((jj % 3).astype(f32) - f32(1.0)).astype(f32)
    bias = ((jj % 17).astype(f32) * f32(0.01) - f32(0.08)).astype(f32)
    n1 = np.arange(1 << 24)
    a1 = ((n1 % 1000).astype(f32) - f32(500.0)).astype(f32)
    b1 = (n1 % 7).astype(f32)
    n2 = np.arange(1 << 20)
    x2 = (((n2 % 2001).astype(f32) - f32(1000.0)) * f32(0.003)).astype(f32)

    def mat(r, c, p):
        ii = np.arange(r)[:, None]
        kk = np.arange(c)[None, :]
        return (((ii * 3 + kk * 5) % p).astype(f32) * f32(1.0 / p) - f32(0.5)).astype(f32)

    jb = np.arange(3072)
    return {
        "W1": (a1, b1),
        "W2": (x2,),
        "W3": (x,),
        "W4": (x, gamma, beta),
        "W5": (x,),
        "W6": (x, bias),
        "M1": (mat(1024, 1024, 17), mat(1024, 1024, 13)),
        "M2": (
            mat(512, 768, 17),
            (mat(768, 3072, 13) * f32(0.1)).astype(f32),
            ((jb % 17).astype(f32) * f32(0.01) - f32(0.08)).astype(f32),
        ),
    }


def time_call(f, secs):
    """Median per-call ms: warm-up ~secs/5, then calls for ~secs (at least 5). With
    PEERS_CPU=1 in the environment (`--cpu`): the process's CPU time over the timed calls
    (every thread's, `time.process_time`) divided by their number."""
    f()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < secs / 5:
        f()
    samples = []
    t0 = time.perf_counter()
    c0 = time.process_time_ns()
    while len(samples) < 5 or time.perf_counter() - t0 < secs:
        t = time.perf_counter_ns()
        f()
        samples.append((time.perf_counter_ns() - t) / 1e6)
    if os.environ.get("PEERS_CPU") == "1":
        return (time.process_time_ns() - c0) / 1e6 / len(samples)
    samples.sort()
    return samples[len(samples) // 2]


# ---------------------------------------------------------------------------------------
# Peers: each returns {workload: zero-argument callable returning the output array}.


def numpy_fns(np, inp):
    from scipy.special import erf  # NumPy has no erf: SciPy's ufunc, as a NumPy user would

    f32 = np.float32
    fns = {}
    a, b = inp["W1"]
    o1 = np.empty_like(a)

    def w1():
        np.add(a, b, out=o1)
        np.maximum(o1, f32(0), out=o1)
        return np.multiply(o1, f32(2), out=o1)

    (x2,) = inp["W2"]
    t2, o2 = np.empty_like(x2), np.empty_like(x2)

    def w2():
        np.multiply(x2, x2, out=t2)
        np.negative(t2, out=t2)
        np.exp(t2, out=t2)
        np.tanh(x2, out=o2)
        return np.multiply(o2, t2, out=o2)

    (x,) = inp["W3"]
    o3 = np.empty_like(x)

    def w3():
        m = x.max(axis=1, keepdims=True)
        np.subtract(x, m, out=o3)
        np.exp(o3, out=o3)
        s = o3.sum(axis=1, keepdims=True)
        return np.divide(o3, s, out=o3)

    _, g, be = inp["W4"]
    o4, t4 = np.empty_like(x), np.empty_like(x)

    def w4():
        mu = x.mean(axis=1, keepdims=True)
        np.subtract(x, mu, out=o4)
        np.multiply(o4, o4, out=t4)
        var = t4.mean(axis=1, keepdims=True)
        r = f32(1) / np.sqrt(var + f32(1e-5))
        np.multiply(o4, r, out=o4)
        np.multiply(o4, g, out=o4)
        return np.add(o4, be, out=o4)

    def w5():
        return x.sum(axis=1, dtype=f32)

    _, bias = inp["W6"]
    o6, t6 = np.empty_like(x), np.empty_like(x)
    s2 = f32(1 / np.sqrt(2))

    def gelu_inplace(h, t):
        np.multiply(h, s2, out=t)
        erf(t, out=t)
        np.add(t, f32(1), out=t)
        np.multiply(t, f32(0.5), out=t)
        return np.multiply(h, t, out=h)

    def w6():
        np.add(x, bias, out=o6)
        return gelu_inplace(o6, t6)

    ma, mb = inp["M1"]
    om1 = np.empty((1024, 1024), np.float32)

    def m1():
        return np.matmul(ma, mb, out=om1)

    xm, wm, bm = inp["M2"]
    om2, tm2 = np.empty((512, 3072), np.float32), np.empty((512, 3072), np.float32)

    def m2():
        np.matmul(xm, wm, out=om2)
        np.add(om2, bm, out=om2)
        return gelu_inplace(om2, tm2)

    fns.update(W1=w1, W2=w2, W3=w3, W4=w4, W5=w5, W6=w6, M1=m1, M2=m2)
    return fns


def numexpr_fns(np, inp):
    import numexpr as ne

    ne.set_num_threads(1)
    a, b = inp["W1"]
    o1 = np.empty_like(a)
    (x2,) = inp["W2"]
    o2 = np.empty_like(x2)
    (x,) = inp["W5"]
    # numexpr has no erf (W6, M2), no max reduction along an axis usable for softmax in one
    # expression (W3) and no keepdims mean (W4): those are NumPy's column.
    return {
        "W1": lambda: ne.evaluate("where(a + b > 0, a + b, 0) * 2", local_dict={"a": a, "b": b}, out=o1),
        "W2": lambda: ne.evaluate("tanh(x) * exp(-(x * x))", local_dict={"x": x2}, out=o2),
        "W5": lambda: ne.evaluate("sum(x, axis=1)", local_dict={"x": x}),
    }


def jax_fns(np, inp):
    import jax
    import jax.numpy as jnp

    def ln(x, g, b):
        mu = jnp.mean(x, axis=1, keepdims=True)
        d = x - mu
        var = jnp.mean(d * d, axis=1, keepdims=True)
        return d * jax.lax.rsqrt(var + 1e-5) * g + b

    defs = {
        "W1": lambda a, b: jnp.maximum(a + b, 0) * 2,
        "W2": lambda x: jnp.tanh(x) * jnp.exp(-(x * x)),
        "W3": lambda x: jax.nn.softmax(x, axis=1),
        "W4": ln,
        "W5": lambda x: jnp.sum(x, axis=1, dtype=jnp.float32),
        "W6": lambda x, b: jax.nn.gelu(x + b, approximate=False),
        "M1": lambda a, b: a @ b,
        "M2": lambda x, w, b: jax.nn.gelu(x @ w + b, approximate=False),
    }
    fns = {}
    for k, f in defs.items():
        jf = jax.jit(f)
        args = [jax.device_put(v) for v in inp[k]]
        fns[k] = (lambda jf=jf, args=args: jf(*args).block_until_ready())
    return fns


def onnx_model(k):
    import onnx
    from onnx import TensorProto, helper

    F = TensorProto.FLOAT
    shapes = {
        "W1": ([("a", [1 << 24]), ("b", [1 << 24])], [1 << 24]),
        "W2": ([("x", [1 << 20])], [1 << 20]),
        "W3": ([("x", [4096, 1024])], [4096, 1024]),
        "W4": ([("x", [4096, 1024]), ("g", [1024]), ("bb", [1024])], [4096, 1024]),
        "W5": ([("x", [4096, 1024])], [4096]),
        "W6": ([("x", [4096, 1024]), ("bias", [1024])], [4096, 1024]),
        "M1": ([("a", [1024, 1024]), ("b", [1024, 1024])], [1024, 1024]),
        "M2": ([("x", [512, 768]), ("w", [768, 3072]), ("b", [3072])], [512, 3072]),
    }
    ins, out_shape = shapes[k]
    c = lambda name, v: helper.make_tensor(name, F, [], [v])
    inits = []
    N = helper.make_node

    def gelu(h, out):
        # The exact erf form; ORT's optimiser fuses it (with a preceding bias Add) into
        # its Gelu / BiasGelu kernels.
        inits.extend([c("rsqrt2", 0.7071067811865476), c("one", 1.0), c("half", 0.5)])
        return [
            N("Mul", [h, "rsqrt2"], ["g_s"]),
            N("Erf", ["g_s"], ["g_e"]),
            N("Add", ["g_e", "one"], ["g_p"]),
            N("Mul", [h, "g_p"], ["g_m"]),
            N("Mul", ["g_m", "half"], [out]),
        ]

    if k == "W1":
        inits.append(c("two", 2.0))
        nodes = [N("Add", ["a", "b"], ["s"]), N("Relu", ["s"], ["r"]), N("Mul", ["r", "two"], ["y"])]
    elif k == "W2":
        nodes = [
            N("Tanh", ["x"], ["t"]),
            N("Mul", ["x", "x"], ["sq"]),
            N("Neg", ["sq"], ["n"]),
            N("Exp", ["n"], ["e"]),
            N("Mul", ["t", "e"], ["y"]),
        ]
    elif k == "W3":
        nodes = [N("Softmax", ["x"], ["y"], axis=1)]
    elif k == "W4":
        nodes = [N("LayerNormalization", ["x", "g", "bb"], ["y"], axis=-1, epsilon=1e-5)]
    elif k == "W5":
        inits.append(helper.make_tensor("axes", TensorProto.INT64, [1], [1]))
        nodes = [N("ReduceSum", ["x", "axes"], ["y"], keepdims=0)]
    elif k == "W6":
        nodes = [N("Add", ["x", "bias"], ["h"])] + gelu("h", "y")
    elif k == "M1":
        nodes = [N("MatMul", ["a", "b"], ["y"])]
    elif k == "M2":
        nodes = [N("MatMul", ["x", "w"], ["mm"]), N("Add", ["mm", "b"], ["h"])] + gelu("h", "y")
    graph = helper.make_graph(
        nodes,
        k,
        [helper.make_tensor_value_info(n, F, s) for n, s in ins],
        [helper.make_tensor_value_info("y", F, out_shape)],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, [n for n, _ in ins], out_shape


def onnxruntime_fns(np, inp):
    import onnxruntime as ort

    fns = {}
    for k in inp:
        model, names, out_shape = onnx_model(k)
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        # Inputs and the output bound once, like tensorgraph's `_into`.
        binding = sess.io_binding()
        for n, v in zip(names, inp[k]):
            binding.bind_cpu_input(n, v)
        out = np.empty(out_shape, np.float32)
        binding.bind_output("y", "cpu", 0, np.float32, out_shape, out.ctypes.data)

        def run(sess=sess, binding=binding, out=out):
            sess.run_with_iobinding(binding)
            return out

        fns[k] = run
    return fns


def worker(peer, secs, only):
    import numpy as np

    inp = inputs(np)
    # Every peer builds all its workloads from `inp`; the filter only skips timing them
    # (building a jit function or a session for an unused workload costs little).
    fns = {"numpy": numpy_fns, "numexpr": numexpr_fns, "jax": jax_fns, "onnxruntime": onnxruntime_fns}[peer](np, inp)
    for k, same in SAME_AS.items():
        if same in fns:
            fns[k], inp[k] = fns[same], inp[same]
    for k, _ in WORKLOADS:
        if k not in fns or k not in inp:
            continue
        ms = time_call(fns[k], secs)
        out = np.asarray(fns[k]())
        print(f"{k} {ms:.4f} {float(np.abs(out.astype(np.float64)).sum()):.6e}", flush=True)
    if peer == "numpy":
        try:
            from threadpoolctl import threadpool_info

            info = [(d.get("internal_api"), d.get("architecture"), d.get("num_threads")) for d in threadpool_info()]
            print("# blas", json.dumps(info), file=sys.stderr)
        except ImportError:
            pass


# ---------------------------------------------------------------------------------------
# Driver.


def build(target_dir, native):
    env = dict(os.environ)
    if native:
        env["RUSTFLAGS"] = "-C target-cpu=native"
    else:
        env.pop("RUSTFLAGS", None)
    env["CARGO_TARGET_DIR"] = target_dir
    cmd = ["nice", "-n", "10", "cargo", "bench", "--bench", "peers", "--no-run", "--message-format=json"]
    res = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, check=True, text=True)
    exe = None
    for line in res.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "peers" and msg.get("executable"):
            exe = msg["executable"]
    if exe is None:
        sys.exit(f"no peers executable from {cmd}")
    return exe


def run_proc(cmd, env_extra=None):
    env = dict(os.environ)
    env.update(ENV_ONE_THREAD)
    for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(v, None)
    if env_extra:
        env.update(env_extra)
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        print(f"# {' '.join(cmd)} failed:\n{res.stderr}", file=sys.stderr)
    for line in res.stderr.splitlines():
        if line.startswith("# "):
            print(line, file=sys.stderr)
    out = {}
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].split("@")[0] in dict(WORKLOADS):
            out[parts[0]] = (float(parts[1]), float(parts[2]))
    return out


def fmt(v):
    return "—" if v is None else (f"{v:.3f}" if v < 10 else f"{v:.2f}")


def table_rows(text):
    """(workload, tg default, tg native, best peer ms, best peer name) from the first table
    in `text` that this script printed (the full form, or the shorter one BENCHMARKS.md keeps:
    the columns are found by their headers)."""
    lines = [l.strip() for l in text.splitlines()]
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[:3] == ["workload", "tg default", "tg native"] and "best peer" in cells:
            col = {name: k for k, name in enumerate(cells)}
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                c = [x.strip() for x in row.strip("|").split("|")]
                num = lambda x: None if x in ("—", "") else float(x.split()[0].rstrip("*"))
                best = c[col["best peer"]].split()
                rows.append((c[0].split()[0], num(c[1]), num(c[2]), float(best[0]), best[1]))
            return rows
    sys.exit("no table with the columns `workload | tg default | tg native | … | best peer` found")


def chart_svg(rows, caption):
    """A horizontal bar chart of speed relative to the best peer (best peer time / tensorgraph
    time, so > 1 is faster than every peer), default and native builds per workload."""
    descs = dict(WORKLOADS)
    width, left, right, bar, gap, top = 780, 300, 70, 11, 12, 58
    group = 2 * bar + gap
    height = top + group * len(rows) + 46
    ratios = [r[3] / t for r in rows for t in (r[1], r[2]) if t]
    vmax = max(2.0, max(ratios) * 1.12)
    x = lambda v: left + (width - left - right) * v / vmax
    esc = lambda t: t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="18" font-size="14" font-weight="bold">Speed against the fastest of NumPy, numexpr, JAX, ONNX Runtime</text>',
           f'<text x="10" y="34" fill="#555">best peer\'s time / tensorgraph\'s, one core; right of 1 is faster than every peer</text>',
           f'<rect x="10" y="42" width="10" height="10" fill="#9bbbd9"/><text x="24" y="51">default build</text>',
           f'<rect x="120" y="42" width="10" height="10" fill="#1f5f99"/><text x="134" y="51">target-cpu=native</text>']
    step = 0.5 if vmax <= 4 else 1.0
    v = 0.0
    while v <= vmax + 1e-9:
        xv = x(v)
        out.append(f'<line x1="{xv:.1f}" y1="{top - 4}" x2="{xv:.1f}" y2="{height - 40}" stroke="{"#333" if v == 1.0 else "#ddd"}" stroke-width="{1.5 if v == 1.0 else 1}"/>')
        out.append(f'<text x="{xv:.1f}" y="{height - 26}" text-anchor="middle" fill="#555">{v:g}</text>')
        v += step
    for i, (key, default, native, best, peer) in enumerate(rows):
        y0 = top + i * group
        label = esc(f"{key} {descs.get(key, '').split(', B=')[0]}")
        out.append(f'<text x="{left - 8}" y="{y0 + bar + 4}" text-anchor="end" font-size="11">{label}</text>')
        for j, (t, colour) in enumerate(((default, "#9bbbd9"), (native, "#1f5f99"))):
            if not t:
                continue
            r = best / t
            yb = y0 + j * bar
            out.append(f'<rect x="{left}" y="{yb}" width="{x(r) - left:.1f}" height="{bar - 1}" fill="{colour}"/>')
            out.append(f'<text x="{x(r) + 4:.1f}" y="{yb + bar - 2}" font-size="10" fill="#333">{r:.2f}</text>')
        out.append(f'<text x="{width - 4}" y="{y0 + bar + 4}" text-anchor="end" font-size="10" fill="#777">vs {esc(peer)}</text>')
    out.append(f'<text x="10" y="{height - 8}" font-size="10" fill="#777">{esc(caption)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", choices=PEERS, help=argparse.SUPPRESS)
    ap.add_argument("--time", type=float, default=1.0, help="seconds of timed calls per workload (default 1)")
    ap.add_argument("--core", default="1", help="core to pin every contestant to (default 1)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds; the table is the last (default 2)")
    ap.add_argument("--threads", action="store_true", help="also time tensorgraph on 2 threads (both cores)")
    ap.add_argument("--cpu", action="store_true",
                    help="CPU ms per call (the process's CPU time over the timed calls / calls) instead "
                    "of the median wall time: on a shared machine a call longer than a scheduler "
                    "slice is preempted every time, a short one rarely, which biases wall medians")
    ap.add_argument("--exe-default", help="a prebuilt benches/peers.rs binary (default build)")
    ap.add_argument("--exe-native", help="a prebuilt benches/peers.rs binary (native build)")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated subset of " + ",".join(PEERS))
    ap.add_argument("--svg", help="also write the table as an SVG chart to this file")
    ap.add_argument("--chart-from", help="draw the chart (--svg) from a table this script printed, without measuring")
    ap.add_argument("--caption", default="", help="the chart's source line")
    ap.add_argument("only", nargs="*", help="workloads (default all): W1 .. W6 S3 S4 S6 M1 M2")
    args = ap.parse_args()
    only = [o.upper() for o in args.only]
    if args.worker:
        return worker(args.worker, args.time, only)
    if args.chart_from:
        if not args.svg:
            sys.exit("--chart-from needs --svg FILE")
        with open(args.chart_from) as f:
            text = f.read()
        caption = args.caption or next((l.strip() for l in text.splitlines() if l.startswith("Source:")), args.chart_from)
        with open(args.svg, "w") as f:
            f.write(chart_svg([r for r in table_rows(text) if not only or r[0] in only], caption))
        return

    if shutil.which("taskset") is None:
        sys.exit("taskset (util-linux) is needed to pin the contestants")
    if args.cpu:
        os.environ["PEERS_CPU"] = "1"  # read by every contestant's timer
        print("# figures: CPU ms per call (--cpu)", file=sys.stderr)
    exe_default = args.exe_default or build(os.path.join(ROOT, "target"), native=False)
    exe_native = args.exe_native or build(os.path.join(ROOT, "target", "native"), native=True)
    pin = ["taskset", "-c", args.core]
    peers = [p for p in args.peers.split(",") if p]
    contestants = [("tg default", pin + [exe_default, "--time", str(args.time)] + only),
                   ("tg native", pin + [exe_native, "--time", str(args.time)] + only)]
    contestants += [(p, pin + [sys.executable, os.path.abspath(__file__), "--worker", p, "--time", str(args.time)] + only) for p in peers]
    if args.threads:
        # Both cores, no pinning: each workload timed in a 1-thread pool, then a 2-thread
        # pool, in one process (`NAME` and `NAME@2t` lines).
        contestants += [("tg default 1t,2t", [exe_default, "--threads", "1,2", "--time", str(args.time)] + only),
                        ("tg native 1t,2t", [exe_native, "--threads", "1,2", "--time", str(args.time)] + only)]

    rounds = []
    for r in range(args.rounds):
        res = {}
        for name, cmd in contestants:
            print(f"# round {r + 1}: {name}", file=sys.stderr, flush=True)
            res[name] = run_proc(cmd)
        rounds.append(res)
        if r + 1 < args.rounds:
            brief = {n: {k: v[0] for k, v in d.items()} for n, d in res.items()}
            print(f"# round {r + 1} (ms): {json.dumps(brief)}", file=sys.stderr)
    res = rounds[-1]

    # Checksums: every contestant's |output| summed in f64, relative to tensorgraph native's.
    for k, _ in WORKLOADS:
        ref = res.get("tg native", {}).get(k)
        if not ref:
            continue
        for name in res:
            v = res[name].get(k)
            if v and abs(v[1] - ref[1]) > 1e-3 * max(1.0, abs(ref[1])):
                print(f"# checksum {k}: {name} {v[1]:.6e} vs tg native {ref[1]:.6e}", file=sys.stderr)

    chart = []
    hdr = ["workload", "tg default", "tg native"] + [PEER_NAMES[p] for p in peers] + ["best peer", "best peer / tg default", "best peer / tg native"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" + "---:|" * (len(hdr) - 1))
    for k, desc in WORKLOADS:
        if only and k not in only:
            continue
        g = lambda n: res.get(n, {}).get(k, (None,))[0]
        td, tn = g("tg default"), g("tg native")
        pv = [(g(p), PEER_NAMES[p]) for p in peers]
        have = [(v, n) for v, n in pv if v is not None]
        best = min(have) if have else (None, "")
        ratio = lambda t: "—" if (t is None or best[0] is None) else f"{best[0] / t:.2f}"
        row = [f"{k} `{desc}`", fmt(td), fmt(tn)] + [fmt(v) for v, _ in pv]
        row += [f"{fmt(best[0])} {best[1]}", ratio(td), ratio(tn)]
        print("| " + " | ".join(row) + " |")
        if best[0] is not None:
            chart.append((k, td, tn, best[0], best[1]))
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(chart_svg(chart, args.caption or time.strftime("peers.py, %Y-%m-%d %H:%M UTC", time.gmtime())))
    if args.threads:
        print()
        print("\n2 threads (unpinned, 1-thread and 2-thread pools back to back in one process):\n")
        print("| workload | default 1t | default 2t | speedup | native 1t | native 2t | speedup |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for k, desc in WORKLOADS:
            if only and k not in only:
                continue
            g = lambda n: res.get(n, {}).get(k, (None,))[0]
            cells = []
            for b in ("default", "native"):
                one = res.get(f"tg {b} 1t,2t", {}).get(k, (None,))[0]
                two = res.get(f"tg {b} 1t,2t", {}).get(f"{k}@2t", (None,))[0]
                cells += [fmt(one), fmt(two), "—" if not (one and two) else f"{one / two:.2f}"]
            print(f"| {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
