# a kernel writes its results into the output refs and must return None
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0
    return o_ref[...]  # error: should return None


x = jnp.arange(4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
                     interpret=True)(x)
print(out)
