# a value computed inside a pl.when body is used after it: the body is traced as a branch
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    saved = []

    @pl.when(pl.program_id(0) == 0)
    def _():
        saved.append(x_ref[...] * 2)

    o_ref[...] = saved[0]  # error: UnexpectedTracerError: Encountered an unexpected tracer


x = jnp.arange(8).astype(jnp.float32)
print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(1,),
                     interpret=True)(x))
