# a block shape needs one entry per array dimension: a 1-D block for a 2-D array
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


x = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((2,), lambda i: (i,))],  # error: must have the same number of dimensions
                     out_specs=pl.BlockSpec((2, 4), lambda i: (i, 0)), interpret=True)(x)
print(out)
