# an index map that asks for block i + 1: on the last step that block lies past the array
# real JAX interpret=True silently clamps the block index (block 3 reads block 2); on a TPU this
# reads out of bounds; interpret=pltpu.InterpretParams() raises IndexError: Out-of-bounds block index
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


x = jnp.arange(12).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32), grid=(3,),
                     in_specs=[pl.BlockSpec((4,), lambda i: (i + 1,))],  # error: Out-of-bounds block index
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)(x)
print(out)
