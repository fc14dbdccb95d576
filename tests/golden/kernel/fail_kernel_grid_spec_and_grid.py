# grid_spec already holds the grid and the specs: do not pass grid= as well
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


x = jnp.arange(8).astype(jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
gs = pl.GridSpec(grid=(2,), in_specs=[spec], out_specs=spec)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),  # error: If `grid_spec` is specified
                     grid_spec=gs, interpret=True)(x)
print(out)
