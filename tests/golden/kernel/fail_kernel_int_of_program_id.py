# int() of pl.program_id: the grid index is only known when the kernel runs, not when it is traced
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    i = int(pl.program_id(0))  # error: ConcretizationTypeError
    o_ref[...] = x_ref[...] + i


x = jnp.arange(8).astype(jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)
