# pallas_call inside user functions: a @jax.jit-decorated wrapper and a plain helper
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def mul_add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] * y_ref[...] + 1.0


def mul_add(x, y, block):
    spec = pl.BlockSpec((block,), lambda i: (i,))
    return pl.pallas_call(mul_add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(x.shape[0] // block,), in_specs=[spec, spec], out_specs=spec,
                          interpret=True)(x, y)


@jax.jit
def mul_add_twice(x, y):
    once = mul_add(x, y, 2)
    return mul_add(once, y, 4)


x = jnp.arange(8).astype(jnp.float32)
y = jnp.array([2.0, 1.0, 0.0, -1.0, 3.0, 1.0, 0.5, 2.0])
print(mul_add(x, y, 4))  # expect: [ 1.  2.  1. -2. 13.  6.  4. 15.]
print(mul_add_twice(x, y))  # expect: [ 3.  3.  1.  3. 40.  7.  3. 31.]
print(mul_add_twice(y, x))  # expect: [  1.   3.   3.  -5.  53.  31.  25. 106.]
print(jnp.array_equal(mul_add_twice(x, y), (x * y + 1.0) * y + 1.0))  # expect: True
