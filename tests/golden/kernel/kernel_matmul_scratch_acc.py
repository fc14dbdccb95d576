# tiled matmul over an (m, n, k) grid with an f32 VMEM scratch accumulator
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(a_ref, b_ref, o_ref, acc_ref):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]


M, K, N, bm, bk, bn = 4, 6, 6, 2, 2, 3
a = (jnp.arange(M * K).reshape(M, K) % 5 - 2).astype(jnp.float32)
b = (jnp.arange(K * N).reshape(K, N) % 7 - 3).astype(jnp.float32)
out = pl.pallas_call(
    matmul_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
    grid=(M // bm, N // bn, K // bk),
    in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
              pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
    scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)], interpret=True)(a, b)
print(out)
print(jnp.array_equal(out, a @ b))
# expect: [[  6.  11.   9.   0. -16.  -4.]
# expect:  [  8.   7.  -1. -16.  -3.   3.]
# expect:  [  5.  -2. -16.  -2.   5.   5.]
# expect:  [ -3. -16.  -1.   7.   8.   2.]]
# expect: True
