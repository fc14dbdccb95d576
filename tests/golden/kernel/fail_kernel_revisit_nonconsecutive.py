# an output block visited again after other blocks were written in between
# real JAX interpret=True re-reads the block and gives the right answer; on a TPU the revisited
# block starts from garbage; interpret=pltpu.InterpretParams() raises RuntimeError: Revisited block
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


x = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2, 2),
                     in_specs=[pl.BlockSpec((2, 4), lambda i, j: (j, 0))],
                     out_specs=pl.BlockSpec((2, 4), lambda i, j: (j, 0)),  # error: Revisited block
                     interpret=True)(x)
print(out)
