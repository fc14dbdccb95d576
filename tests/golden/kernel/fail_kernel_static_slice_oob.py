# a static pl.ds window must fit in the ref: 4 rows from row 6 run past an 8-row block
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    tail = x_ref[pl.ds(6, 4), :]  # error: Out of bound slice
    o_ref[...] = tail


x = jnp.arange(32).reshape(8, 4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
                     interpret=True)(x)
print(out)
