# Integer floor division and remainder by zero, signed and unsigned, as jnp defines them: `x // 0`
# is XLA's quotient by zero (all ones; -1 floored to -2 where x is not 0 for signed dtypes) and
# `x % 0` is 0 (jnp.remainder takes a zero divisor as 1). A fuzzed program (seed 61929) found
# the CUDA backend's unsigned remainder returning x.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(a_ref, b_ref, q_ref, r_ref):
    q_ref[...] = (a_ref[...] // b_ref[...]).astype(jnp.int32)
    r_ref[...] = (a_ref[...] % b_ref[...]).astype(jnp.int32)


for dtype in (jnp.int32, jnp.int16, jnp.uint8, jnp.uint16, jnp.uint32):
    a = (jnp.arange(16, dtype=jnp.int32) * 37 - 200).astype(dtype).reshape(2, 8)
    b = (jnp.arange(16, dtype=jnp.int32) % 4 * 3 - 3 * (jnp.arange(16) % 3 == 0)).astype(dtype)
    b = b.reshape(2, 8)
    out = jax.ShapeDtypeStruct((2, 8), jnp.int32)
    q, r = pl.pallas_call(kernel, out_shape=(out, out))(a, b)
    print(jnp.dtype(dtype).name, q[0], r[1])
