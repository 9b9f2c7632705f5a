#!/usr/bin/env python3
"""Issue 32 item 4: what JAX keeps between the forward and the backward of the MLP step
(`gelu(x @ w1 + b1) @ w2 + b2 -> softmax cross-entropy (mean)`, 768 -> 3072 -> 768, f32),
with respect to w1, b1, w2, b2: `jax.ad_checkpoint.print_saved_residuals` (each saved
array and where it comes from), the leaves of `jax.vjp`'s function (bytes; includes the
arguments `x` and `w2`), and the temps of `jax.jit(jax.value_and_grad(loss))` and of
`jax.jit(loss)` (`memory_analysis`). Compared in NOTES.md with the temps that cross from
the forward into the backward of the derived function.

    /work/peers-venv/bin/python benches/peers/grad_residuals.py [B]
Not run by CI.
"""
import sys
import jax, jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals
jax.config.update('jax_enable_x64', True)
B = int(sys.argv[1]) if len(sys.argv) > 1 else 32
D, H = 768, 3072
def loss(params, x, y):
    w1, b1, w2, b2 = params
    h = jax.nn.gelu(x @ w1 + b1, approximate=False)
    z = h @ w2 + b2
    lp = jax.nn.log_softmax(z, axis=1)
    return -jnp.mean(jnp.take_along_axis(lp, y[:, None], axis=1))
k = jax.random.PRNGKey(0)
f32 = jnp.float32
x = jax.random.normal(k, (B, D), f32)
y = jax.random.randint(k, (B,), 0, D)
params = (jax.random.normal(k, (D, H), f32) * 0.02, jnp.zeros(H, f32), jax.random.normal(k, (H, D), f32) * 0.02, jnp.zeros(D, f32))
print("print_saved_residuals (wrt params; x, y closed over):")
print_saved_residuals(lambda p: loss(p, x, y), params)
# Residuals of jax.vjp: the leaves of the vjp function's closure.
_, vjp_fn = jax.vjp(lambda p: loss(p, x, y), params)
leaves = jax.tree_util.tree_leaves(vjp_fn)
tot = 0
for l in leaves:
    if hasattr(l, 'shape'):
        print('  vjp residual', l.shape, l.dtype, l.nbytes)
        tot += l.nbytes
print('vjp residual bytes total', tot)
vg = jax.jit(jax.value_and_grad(loss))
c = vg.lower(params, x, y).compile()
m = c.memory_analysis()
print('jit(value_and_grad) memory_analysis: temp', m.temp_size_in_bytes, 'args', m.argument_size_in_bytes, 'out', m.output_size_in_bytes)
fw = jax.jit(loss).lower(params, x, y).compile().memory_analysis()
print('jit(loss) temp', fw.temp_size_in_bytes)
