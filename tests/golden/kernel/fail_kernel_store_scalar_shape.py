# a store does not broadcast: a scalar cannot be stored into a whole (8, 128) block
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = 0.0  # error: Invalid shape for `swap`


x = jnp.ones((8, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                     interpret=True)(x)
print(out.shape)
