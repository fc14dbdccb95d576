# accumulating into an output block that was never initialised: the first += reads garbage
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] += x_ref[...]  # warning: uninitialised


x = jnp.arange(16).reshape(2, 8).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((2, 4), lambda k: (0, k))],
                     out_specs=pl.BlockSpec((2, 4), lambda k: (0, 0)), interpret=True)(x)
print(out.shape, out.dtype)
print(jnp.isnan(out).any())
# expect: (2, 4) float32
# expect: True
