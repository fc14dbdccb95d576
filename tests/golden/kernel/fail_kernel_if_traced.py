# a Python `if` on pl.program_id inside a kernel: the kernel is traced, so this cannot be decided
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    if pl.program_id(0) == 0:  # error: TracerBoolConversionError: Attempted boolean conversion of traced array
        o_ref[...] = x_ref[...]
    else:
        o_ref[...] = x_ref[...] * 2.0


x = jnp.arange(8).astype(jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out)
