# A print whose format does not fit its value fails at the print's line on both backends (on
# CUDA when the host replays the device's log of prints).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    jax.debug.print("x {:d}", x_ref[0])
    o_ref[...] = x_ref[...]


print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32))(jnp.ones(8)))
