# Two products in one kernel, one of bfloat16 and one of float32, both with operands too large for
# the 48 KiB of shared memory the CUDA backend plans for, so both stage tiles in shared memory.
# The float32 product's staged form is written for blocks of 512 threads, so the kernel keeps 512
# whatever warp tile PZ_CUDA_WARP_TILE asks of its tensor-core product; with a tile other than
# 32 x 32 the bf16 product then takes the unstaged tensor-core form. The operands are small
# integers, so every sum is exact and the same in any order.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, a_ref, b_ref, o_ref, p_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    p_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


n = 256
ints = jnp.arange(n * n, dtype=jnp.int32).reshape(n, n)
x, y = (ints % 7 - 3).astype(jnp.bfloat16), (ints % 5 - 2).astype(jnp.bfloat16)
a, b = (ints % 3 - 1).astype(jnp.float32), (ints % 9 - 4).astype(jnp.float32)
whole = pl.BlockSpec((n, n), lambda i: (0, 0))
columns = pl.BlockSpec((n, 128), lambda i: (0, i))
o, p = pl.pallas_call(
    kernel, out_shape=[jax.ShapeDtypeStruct((n, n), jnp.float32)] * 2, grid=(2,),
    in_specs=[whole, columns, whole, columns], out_specs=[columns, columns])(x, y, a, b)
print(o[::37, ::41])
print(p[::37, ::41])
print(jnp.array_equal(o, jnp.dot(x, y, preferred_element_type=jnp.float32)),
      jnp.array_equal(p, jnp.dot(a, b, preferred_element_type=jnp.float32)))
