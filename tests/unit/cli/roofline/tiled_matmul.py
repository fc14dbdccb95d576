# A float32 tiled matmul, 256 x 256 x 256 in 128-blocks (grid (2, 2, 2)): the roofline test's
# first hand-computed kernel (tests/unit/cli/roofline_test.cpp). Also the program `tune` sweeps.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pallas_check import check

M = 256
N = 256
K = 256
bm = 128
bn = 128
bk = 128


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]


kx, ky = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (M, K))
y = jax.random.normal(ky, (K, N))
out = pl.pallas_call(
    matmul_kernel,
    out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
    grid=(M // bm, N // bn, K // bk),
    in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
              pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
    scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
    interpret=True,
)(x, y)
check(out, x @ y, atol=1e-3, rtol=1e-3, name="matmul")
