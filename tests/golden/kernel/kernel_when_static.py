# pl.when with a Python bool decides at trace time; with a traced bool it runs per step
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ADD_BIAS = True
DOUBLE = False


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]

    @pl.when(ADD_BIAS)
    def _():
        o_ref[...] += 100.0

    @pl.when(DOUBLE)
    def _():
        o_ref[...] *= 2.0

    @pl.when(pl.program_id(0) % 2 == 1)
    def _():
        o_ref[...] = -o_ref[...]

    @pl.when(jnp.logical_and(pl.program_id(0) > 0, x_ref[0] > 5.0))
    def _():
        o_ref[0] = 0.0


x = jnp.arange(12).astype(jnp.float32)
spec = pl.BlockSpec((3,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32), grid=(4,),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)  # expect: [ 100.  101.  102. -103. -104. -105.    0.  107.  108.    0. -110. -111.]
