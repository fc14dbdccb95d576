# one BlockSpec per input: two inputs but a single in_spec
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


x = jnp.arange(8).astype(jnp.float32)
y = jnp.ones((8,), jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),  # error: in_specs
                     in_specs=[spec], out_specs=spec, interpret=True)(x, y)
print(out)
