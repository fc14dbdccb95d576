# range() of a traced grid index: a Python loop needs a static trip count (use lax.fori_loop)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    acc = x_ref[...]
    for _ in range(pl.program_id(0)):  # error: TracerIntegerConversionError
        acc = acc * 2.0
    o_ref[...] = acc


x = jnp.arange(8).astype(jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)
