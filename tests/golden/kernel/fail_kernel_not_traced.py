# `not` on a traced value needs its truth value: use `~` or jnp.logical_not
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    first = pl.program_id(0) == 0
    later = not first  # error: TracerBoolConversionError: Attempted boolean conversion of traced array
    o_ref[...] = jnp.where(later, x_ref[...], -x_ref[...])


x = jnp.arange(8).astype(jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)
