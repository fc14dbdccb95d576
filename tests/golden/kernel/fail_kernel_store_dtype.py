# a store does not convert between float types: an f32 value cannot go into a bf16 ref
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0  # error: Invalid dtype for `swap`


x = jnp.arange(8).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.bfloat16),
                     interpret=True)(x)
print(out)
