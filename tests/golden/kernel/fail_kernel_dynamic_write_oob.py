# a store window that starts at a traced offset and runs past the block on a later grid step
# real JAX interpret=True silently clamps the window (step 2 writes rows 4..7); on a TPU this
# writes out of bounds; interpret=pltpu.InterpretParams() fails with an AssertionError
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    start = pl.program_id(0) * 3
    o_ref[pl.ds(start, 4)] = x_ref[...]  # error: Out-of-bounds write


x = jnp.arange(12).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(3,),
                     in_specs=[pl.BlockSpec((4,), lambda i: (i,))],
                     out_specs=pl.BlockSpec((8,), lambda i: (0,)), interpret=True)(x)
print(out)
