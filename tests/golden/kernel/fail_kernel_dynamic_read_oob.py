# a load window that starts at a traced offset and runs past the block on a later grid step
# real JAX interpret=True silently clamps the window (step 2 reads rows 4..7); on a TPU this reads
# out of bounds; interpret=pltpu.InterpretParams() raises IndexError: Out-of-bounds read of ...
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    start = pl.program_id(0) * 3
    o_ref[...] = x_ref[pl.ds(start, 4)]  # error: Out-of-bounds read


x = jnp.arange(8).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32), grid=(3,),
                     in_specs=[pl.BlockSpec((8,), lambda i: (0,))],
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)(x)
print(out)
