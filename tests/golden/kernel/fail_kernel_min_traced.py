# Python's min() compares its arguments with `<`, which needs a truth value: use jnp.minimum
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    a = x_ref[0]
    b = x_ref[1]
    smaller = min(a, b)  # error: TracerBoolConversionError: Attempted boolean conversion of traced array
    o_ref[...] = jnp.full(o_ref.shape, smaller, jnp.float32)


x = jnp.array([5.0, 3.0, 1.0, 2.0])
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
                     interpret=True)(x)
print(out)
