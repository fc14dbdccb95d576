# A jax.debug.print whose first operand has no elements: its record in the kernel's log still
# takes a word, and the host, replaying the log, must step over that word to find the operand
# after it (it once stepped over none, and printed 0.0 for the second value).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    v = x_ref[...]
    jax.debug.print("empty {} then {}", v[0:0, 0], v[1, 2])
    o_ref[...] = v


x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)[1, 2])
