# a kernel may not close over a non-scalar array: pass it as an input instead
# real JAX raises ValueError (... captures constants [f32[4]]. You should pass them as inputs.) at
# the pl.pallas_call line, where the kernel is traced; the engine points at the use
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

scale = jnp.array([1.0, 2.0, 3.0, 4.0])


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * scale  # error: captures constants


x = jnp.arange(4).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
                     interpret=True)(x)
print(out)
