#!/usr/bin/env python3
"""Issue 31 item 7: ONNX Runtime on the workloads of benches/vision.rs (conv 3x3 64->64
56x56, depthwise 3x3 32x112x112, max_pool 3x3/2, resize linear x2, and RB: the ResNet
block of examples/resnet_block at 224x224, its preprocessing included), one intra-op
thread, in a process pinned with taskset to one core (peers.py's environment and timing:
median ms per call after a warm-up).

    /work/peers-venv/bin/python benches/peers/vision_peers.py [--core 1] [--secs 5] [--only C3,DW,RB]

The inputs are benches/vision.rs's formula `((i * 2654435761 + seed * 40503) mod 2001) /
1000 - 1`, times a scale; each line prints the output's sum, to compare with the bench's.
Not run by CI.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peers import ENV_ONE_THREAD, time_call  # noqa: E402

WORKLOADS = ["C3", "S2", "DW", "MP", "RS", "RB"]


def values(np, shape, seed, scale):
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.uint64)
    v = ((i * np.uint64(2654435761) + np.uint64(seed * 40503)) % np.uint64(2001)).astype(np.float32)
    return ((v / np.float32(1000.0) - np.float32(1.0)) * np.float32(scale)).astype(np.float32).reshape(shape)


def model(np, which):
    """(onnx model, {input name: array}, output shape)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    F = TensorProto.FLOAT
    N = helper.make_node
    inits = []
    if which == "C3":
        x = values(np, (1, 64, 56, 56), 1, 1.0)
        inits = [("w", values(np, (64, 64, 3, 3), 2, 0.05)), ("b", values(np, (64,), 3, 1.0))]
        nodes = [N("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1])]
        out = [1, 64, 56, 56]
    elif which == "S2":
        x = values(np, (1, 64, 56, 56), 1, 1.0)
        inits = [("w", values(np, (128, 64, 3, 3), 2, 0.05)), ("b", values(np, (128,), 3, 1.0))]
        nodes = [N("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2])]
        out = [1, 128, 28, 28]
    elif which == "DW":
        x = values(np, (1, 32, 112, 112), 1, 1.0)
        inits = [("w", values(np, (32, 1, 3, 3), 2, 0.3)), ("b", values(np, (32,), 3, 1.0))]
        nodes = [N("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1], group=32)]
        out = [1, 32, 112, 112]
    elif which == "MP":
        x = values(np, (1, 64, 112, 112), 1, 1.0)
        nodes = [N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])]
        out = [1, 64, 56, 56]
    elif which == "RS":
        x = values(np, (1, 64, 56, 56), 1, 1.0)
        inits = [("scales", np.array([1, 1, 2, 2], np.float32))]
        nodes = [N("Resize", ["x", "", "scales"], ["y"], mode="linear", coordinate_transformation_mode="half_pixel")]
        out = [1, 64, 112, 112]
    elif which == "RB":
        x, inits, nodes, out = resnet_block(np, helper)
    else:
        raise ValueError(which)
    x_type = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph(
        nodes,
        which,
        [helper.make_tensor_value_info("x", x_type, list(x.shape))],
        [helper.make_tensor_value_info("y", F, out)],
        initializer=[numpy_helper.from_array(a, n) for n, a in inits],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    return m, {"x": x}, out


def pixels(np, n, seed):
    """benches/vision.rs `pixels`: byte `i` is `(i · 2654435761 + seed · 40503) mod 256`."""
    i = np.arange(n, dtype=np.uint64)
    return ((i * np.uint64(2654435761) + np.uint64(seed * 40503)) % np.uint64(256)).astype(np.uint8)


def resnet_block(np, helper):
    """examples/resnet_block's network (benches/vision.rs `RB`): `u8[224, 224, 3]` pixels,
    `(x / 255 - mean) / std`, HWC -> NCHW, stem conv 3->16 + batch norm + relu, the basic
    block (conv-bn-relu, conv-bn, + the stem's output, relu), global average pool, `[1, 16]
    @ wc + bc`. The weights are benches/vision.rs's (same formula and seeds); ONNX Runtime
    folds each batch norm into its conv (constant weights), tensorgraph computes it."""
    N = helper.make_node
    x = pixels(np, 224 * 224 * 3, 1).reshape(224, 224, 3)
    f32 = lambda v: np.array(v, np.float32)  # noqa: E731
    inits = [
        ("c255", f32(255.0)),
        ("mean", f32([0.485, 0.456, 0.406])),
        ("std", f32([0.229, 0.224, 0.225])),
        ("axes0", np.array([0], np.int64)),
        ("shape16", np.array([1, 16], np.int64)),
    ]
    nodes = [
        N("Cast", ["x"], ["xf"], to=1),
        N("Div", ["xf", "c255"], ["x1"]),
        N("Sub", ["x1", "mean"], ["x2"]),
        N("Div", ["x2", "std"], ["x3"]),
        N("Transpose", ["x3"], ["x4"], perm=[2, 0, 1]),
        N("Unsqueeze", ["x4", "axes0"], ["h"]),
    ]
    seed = 2
    for k, c_in in enumerate([3, 16, 16]):
        inits.append((f"w{k}", values(np, (16, c_in, 3, 3), seed, 0.3 if c_in == 3 else 0.1)))
        norm = [("s", 0.1, 1.0), ("b", 0.1, 0.0), ("m", 0.1, 0.0), ("v", 0.2, 1.0)]
        for j, (name, scale, plus) in enumerate(norm):
            inits.append((f"{name}{k}", values(np, (16,), seed + 1 + j, scale) + np.float32(plus)))
        seed += 5
        src = ["h", "h0", "h1"][k]
        nodes += [
            N("Conv", [src, f"w{k}"], [f"c{k}"], pads=[1, 1, 1, 1]),
            N("BatchNormalization", [f"c{k}", f"s{k}", f"b{k}", f"m{k}", f"v{k}"], [f"n{k}"], epsilon=1e-5),
        ]
        if k < 2:
            nodes.append(N("Relu", [f"n{k}"], [f"h{k}"]))
    inits += [("wc", values(np, (16, 10), seed, 0.3)), ("bc", values(np, (10,), seed + 1, 0.1))]
    nodes += [
        N("Add", ["n2", "h0"], ["a"]),
        N("Relu", ["a"], ["r"]),
        N("GlobalAveragePool", ["r"], ["gp"]),
        N("Reshape", ["gp", "shape16"], ["flat"]),
        N("MatMul", ["flat", "wc"], ["mm"]),
        N("Add", ["mm", "bc"], ["y"]),
    ]
    return x, inits, nodes, [1, 10]


def worker(secs, only):
    import numpy as np
    import onnxruntime as ort

    for which in WORKLOADS:
        if only and which not in only:
            continue
        try:
            m, feeds, out_shape = model(np, which)
        except Exception as e:  # noqa: BLE001 (say so, go on)
            print(f"{which} error {type(e).__name__}: {str(e).splitlines()[0][:200]}", flush=True)
            continue
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
        binding = sess.io_binding()
        for n, v in feeds.items():
            binding.bind_cpu_input(n, v)
        out = np.empty(out_shape, np.float32)
        binding.bind_output("y", "cpu", 0, np.float32, out_shape, out.ctypes.data)
        run = lambda: sess.run_with_iobinding(binding)  # noqa: E731
        ms = time_call(run, secs)
        run()
        print(f"{which} {ms:.4f} sum={out.astype(np.float64).sum():.6e}", flush=True)


def save(out_dir, only):
    """Writes the models `model` builds, the same ONNX Runtime times, for the tract peer."""
    import numpy as np

    os.makedirs(out_dir, exist_ok=True)
    for which in WORKLOADS:
        if only and which not in only:
            continue
        m, _, _ = model(np, which)
        path = os.path.join(out_dir, f"{which}.onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        print(f"wrote {path}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--core", default="1")
    ap.add_argument("--secs", type=float, default=5.0)
    ap.add_argument("--only", default="", help="workloads, comma-separated (C3,S2,DW,MP,RS,RB)")
    ap.add_argument("--cpu", action="store_true", help="CPU time per call (peers.py PEERS_CPU=1), as benches/vision.rs")
    ap.add_argument("--save", default="", help="write each workload's model to DIR/<name>.onnx (for benches/vision_tract) and stop")
    args = ap.parse_args()
    only = [w for w in args.only.split(",") if w]
    if args.save:
        save(args.save, only)
        return
    if args.worker:
        worker(args.secs, only)
        return
    env = dict(os.environ)
    env.update(ENV_ONE_THREAD)
    if args.cpu:
        env["PEERS_CPU"] = "1"
    cmd = ["taskset", "-c", args.core, sys.executable, os.path.abspath(__file__), "--worker", "--secs", str(args.secs)]
    if only:
        cmd += ["--only", ",".join(only)]
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in res.stdout.splitlines():
        print(f"onnxruntime {line}", flush=True)
    if res.returncode != 0:
        print(f"onnxruntime failed: {res.stderr.strip().splitlines()[-3:]}", flush=True)


if __name__ == "__main__":
    main()
