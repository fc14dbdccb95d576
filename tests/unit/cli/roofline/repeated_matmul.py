# One (256, 256) float32 block multiplied by itself 64 times in a fori_loop: many FLOPs on few
# bytes, the roofline test's compute-bound kernel.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from pallas_check import check


def power_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = lax.fori_loop(0, 64, lambda i, acc: jnp.dot(acc, x), x)


x = jnp.eye(256, dtype=jnp.float32) * 0.5 + jnp.eye(256, k=1, dtype=jnp.float32) * 0.25
out = pl.pallas_call(power_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     interpret=True)(x)
expected = lax.fori_loop(0, 64, lambda i, acc: acc @ x, x)
check(out, expected, atol=1e-6, rtol=1e-4, name="x ** 65")
