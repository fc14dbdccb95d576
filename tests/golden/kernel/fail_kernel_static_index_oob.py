# a static int index must lie inside the ref: rows 0..7 of an 8-row block
# real JAX 0.10.2 does not catch this: the int index becomes a traced value before the bounds
# check, and interpret=True clamps the load to row 7; on a TPU it reads out of bounds
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    last = x_ref[8]  # error: Out of bound indexer
    o_ref[...] = x_ref[...] + last


x = jnp.arange(32).reshape(8, 4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 4), jnp.float32),
                     interpret=True)(x)
print(out)
