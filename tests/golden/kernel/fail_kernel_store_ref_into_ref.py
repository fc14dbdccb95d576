# storing a ref instead of its value: the load `[...]` is missing
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def copy(x_ref, o_ref):
    o_ref[...] = x_ref  # error: ValueError: Cannot store a Ref into another Ref


x = jnp.arange(8).astype(jnp.float32)
print(pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), interpret=True)(x))
