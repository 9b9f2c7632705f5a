#!/usr/bin/env python3
"""NumPy + OpenBLAS (one thread) on the GEMM workloads, timed by this process's CPU time
(`time.process_time`), as the `cpu/` groups of benches/gemm_peers and benches/matmul_graph.rs
are: on a shared machine the time spent descheduled is left out.

    OPENBLAS_NUM_THREADS=1 PYTHON benches/gemm_peers/numpy_peer.py

M1: f32[1024,1024] @ f32[1024,1024]; M2: gelu(x @ w + b), x f32[512,768], w f32[768,3072],
bias and gelu as benches/peers/peers.py does them (SciPy's erf, in place, out= buffers),
plus the same with relu (np.maximum) for the cheap-epilogue comparison. Prints the median
and the best of the per-call CPU times in ms.
"""

import time

import numpy as np
import threadpoolctl
from scipy.special import erf

threadpoolctl.threadpool_limits(1)
f32 = np.float32
rng = np.random.default_rng(1)


def mat(r, c):
    return (rng.random((r, c), dtype=f32) - f32(0.5)).astype(f32)


def timed(f, secs=3.0):
    for _ in range(3):
        f()
    samples = []
    t0 = time.perf_counter()
    while len(samples) < 10 or time.perf_counter() - t0 < secs:
        t = time.process_time()
        f()
        samples.append((time.process_time() - t) * 1e3)
    samples.sort()
    return samples[len(samples) // 2], samples[0]


a, b = mat(1024, 1024), mat(1024, 1024)
c = np.empty((1024, 1024), f32)
x, w, bias = mat(512, 768), mat(768, 3072), mat(1, 3072)[0]
h, t = np.empty((512, 3072), f32), np.empty((512, 3072), f32)
s2 = f32(1 / np.sqrt(2))


def gelu_inplace(h, t):
    np.multiply(h, s2, out=t)
    erf(t, out=t)
    np.add(t, f32(1), out=t)
    np.multiply(t, f32(0.5), out=t)
    return np.multiply(h, t, out=h)


def m2():
    np.matmul(x, w, out=h)
    np.add(h, bias, out=h)
    return gelu_inplace(h, t)


def m2_relu():
    np.matmul(x, w, out=h)
    np.add(h, bias, out=h)
    return np.maximum(h, f32(0), out=h)


print(threadpoolctl.threadpool_info())
for name, f in [
    ("M1 1024^3", lambda: np.matmul(a, b, out=c)),
    ("M2 product alone", lambda: np.matmul(x, w, out=h)),
    ("M2 gelu(x @ w + b)", m2),
    ("M2 relu(x @ w + b)", m2_relu),
]:
    med, best = timed(f)
    print(f"{name}: median {med:.2f} ms, best {best:.2f} ms (CPU time)")
