# A tiled matmul kernel: each grid step multiplies one (bm, bk) block of x by one (bk, bn) block
# of y and accumulates into an f32 scratch buffer; the last step along k writes the output block.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

M, K, N = 256, 512, 384
bm, bk, bn = 128, 128, 128


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _store():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


x = jax.random.normal(jax.random.key(0), (M, K), jnp.float32)
y = jax.random.normal(jax.random.key(1), (K, N), jnp.float32)
out = pl.pallas_call(
    matmul_kernel,
    out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
    grid=(M // bm, N // bn, K // bk),
    in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
              pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
    scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "arbitrary")),
    interpret=True,
)(x, y)
print("matches x @ y:", jnp.allclose(out, x @ y, atol=1e-3, rtol=1e-3))
