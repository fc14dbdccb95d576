# tiled matmul accumulating straight into the output block, which stays resident across k
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def matmul_kernel(a_ref, b_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += a_ref[...] @ b_ref[...]


M, K, N = 4, 8, 4
a = (jnp.arange(M * K).reshape(M, K) % 7 - 3).astype(jnp.float32)
b = (jnp.arange(K * N).reshape(K, N) % 5).astype(jnp.float32)
out = pl.pallas_call(matmul_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
                     grid=(2, 2, 4),
                     in_specs=[pl.BlockSpec((2, 2), lambda i, j, k: (i, k)),
                               pl.BlockSpec((2, 2), lambda i, j, k: (k, j))],
                     out_specs=pl.BlockSpec((2, 2), lambda i, j, k: (i, j)), interpret=True)(a, b)
print(out)
print(jnp.array_equal(out, a @ b))

ai = jnp.arange(M * K, dtype=jnp.int32).reshape(M, K) % 5
bi = jnp.arange(K * N, dtype=jnp.int32).reshape(K, N) % 3 - 1
outi = pl.pallas_call(matmul_kernel, out_shape=jax.ShapeDtypeStruct((M, N), jnp.int32),
                      grid=(1, 1, 2), in_specs=[pl.BlockSpec((4, 4), lambda i, j, k: (i, k)),
                                                pl.BlockSpec((4, 4), lambda i, j, k: (k, j))],
                      out_specs=pl.BlockSpec((4, 4), lambda i, j, k: (i, j)), interpret=True)(ai, bi)
print(outi)
# expect: [[ -7. -15.   2.  -1.]
# expect:  [-18.   0.   8.   1.]
# expect:  [ -1.   8.   7.  -4.]
# expect:  [  9.   9.  -1. -16.]]
# expect: True
# expect: [[-2  5 -3 -2]
# expect:  [-5  3  2 -5]
# expect:  [-3  1  2 -3]
# expect:  [-1 -1  2 -1]]
