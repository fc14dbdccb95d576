# bfloat16 products whose blocks are too large for the 48 KiB of shared memory the CUDA backend
# plans for: the operands stay in HBM and the product stages tiles of them in shared memory.
# Here the lhs block is (k, m) with m contiguous and the rhs block (n, k) with k contiguous, the
# two layouts the tiled matmul does not have; the last lhs block lies partly past the array's
# edge, so part of it is staged element by element (reads past the edge give the poison, which
# only reaches rows that are never written back). Split into parts of 128 rows (the backend's
# grid-point split), one part of that block straddles the edge and the other lies wholly past it.
# The operands are small integers, so every sum is exact and the same in any order.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = lax.dot_general(x_ref[...], y_ref[...], (((0,), (1,)), ((), ())),
                                 preferred_element_type=jnp.float32)


k, m, n = 256, 320, 256
x = (jnp.arange(k * m, dtype=jnp.int32).reshape(k, m) % 7 - 3).astype(jnp.bfloat16)
y = (jnp.arange(n * k, dtype=jnp.int32).reshape(n, k) % 5 - 2).astype(jnp.bfloat16)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32), grid=(2,),
    in_specs=[pl.BlockSpec((k, 256), lambda i: (0, i)), pl.BlockSpec((n, k), lambda i: (0, 0))],
    out_specs=pl.BlockSpec((256, n), lambda i: (i, 0)))(x, y)
print(out[::29, ::31])
print(jnp.array_equal(out, lax.dot_general(x, y, (((0,), (1,)), ((), ())),
                                           preferred_element_type=jnp.float32)))
