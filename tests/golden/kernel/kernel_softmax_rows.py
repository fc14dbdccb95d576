# softmax of whole rows, one block of rows per grid step (checked with allclose)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def softmax_kernel(x_ref, o_ref):
    x = x_ref[...]
    m = jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(x - m)
    o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)


x = jnp.sin(jnp.arange(64).reshape(8, 8).astype(jnp.float32)) * 4.0
x = x.at[3].set(1000.0 + jnp.arange(8.0))  # large values: needs the max subtraction
spec = pl.BlockSpec((2, 8), lambda i: (i, 0))
out = pl.pallas_call(softmax_kernel, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32),
                     grid=(4,), in_specs=[spec], out_specs=spec, interpret=True)(x)
print(out.shape, out.dtype)  # expect: (8, 8) float32
print(jnp.allclose(out, jax.nn.softmax(x, axis=-1), atol=1e-6, rtol=1e-5))  # expect: True
print(jnp.allclose(jnp.sum(out, axis=-1), 1.0, atol=1e-5))  # expect: True
print(jnp.argmax(out, axis=-1))  # expect: [2 6 4 7 1 6 4 2]
print(bool(jnp.isfinite(out).all()))  # expect: True
