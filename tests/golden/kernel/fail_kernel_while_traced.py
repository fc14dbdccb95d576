# a Python `while` whose condition depends on a loaded value cannot run at trace time
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    total = x_ref[0]
    while total < 100.0:  # error: TracerBoolConversionError: Attempted boolean conversion of traced array
        total = total * 2.0
    o_ref[...] = jnp.full(o_ref.shape, total, jnp.float32)


x = jnp.arange(1, 9).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     interpret=True)(x)
print(out)
