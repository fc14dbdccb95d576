# `and` on two traced comparisons needs their truth values: use `&` (jnp.logical_and) instead
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    i = pl.program_id(0)
    j = pl.program_id(1)
    both = (i > 0) and (j > 0)  # error: TracerBoolConversionError: Attempted boolean conversion of traced array
    o_ref[...] = jnp.where(both, x_ref[...], 0.0)


x = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
spec = pl.BlockSpec((2, 2), lambda i, j: (i, j))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2, 2),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)
