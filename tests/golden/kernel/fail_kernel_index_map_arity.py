# an index map returns one block index per block dimension: two here, not one
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


x = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((2, 4), lambda i: (i,))],  # error: must return
                     out_specs=pl.BlockSpec((2, 4), lambda i: (i, 0)), interpret=True)(x)
print(out)
