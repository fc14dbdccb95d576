# a strided `.at[...]` view cannot be made on a TPU; load with the stride instead
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def evens(x_ref, o_ref):
    view = x_ref.at[pl.ds(0, 4, stride=2)]  # error: ValueError: Strided slices of references are unsupported.
    o_ref[...] = view[...]


x = jnp.arange(8).astype(jnp.float32)
print(pl.pallas_call(evens, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32), interpret=True)(x))
