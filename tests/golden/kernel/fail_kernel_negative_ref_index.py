# a negative integer index on a ref does not count from the end on a TPU: the engine rejects it
# (real JAX interpret=True wraps it like NumPy; the TPU lowering reads before the buffer)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def last_row(x_ref, o_ref):
    o_ref[...] = x_ref[-1]  # error: IndexError: Out of bound indexer: idx=-1, dim=4


x = jnp.arange(12).reshape(4, 3).astype(jnp.float32)
print(pl.pallas_call(last_row, out_shape=jax.ShapeDtypeStruct((3,), jnp.float32),
                     interpret=True)(x))
