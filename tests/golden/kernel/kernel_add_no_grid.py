# elementwise add with no grid and no specs: one kernel invocation sees the whole arrays
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


x = jnp.arange(6).reshape(2, 3).astype(jnp.float32)
y = jnp.array([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
out = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((2, 3), jnp.float32),
                     interpret=True)(x, y)
print(out)
print(out.shape, out.dtype)

a = jnp.array([1, 2, 3, 4], dtype=jnp.int32)
b = jnp.array([40, 30, 20, 10], dtype=jnp.int32)
sums = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.int32),
                      interpret=True)(a, b)
print(sums, sums.dtype)
# expect: [[10. 21. 32.]
# expect:  [43. 54. 65.]]
# expect: (2, 3) float32
# expect: [41 32 23 14] int32
