# a print inside a kernel has no CUDA mapping: a clear error at the print, not a wrong answer
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    jax.debug.print("x = {}", x_ref[0])  # cuda-error: cannot print from a kernel
    o_ref[...] = x_ref[...] + 1.0


x = jnp.arange(8, dtype=jnp.float32)
print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32))(x))
