# stores need the exact shape: fill with jnp.full / jnp.zeros_like; integer values cast to int refs
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def fill_kernel(x_ref, f_ref, i_ref, s_ref):
    f_ref[...] = jnp.full(f_ref.shape, 2.5, f_ref.dtype)
    f_ref[0, 0] = 7.0
    i_ref[...] = jnp.zeros_like(i_ref)
    i_ref[1, :] = x_ref[1, :] * 3
    i_ref[0, 2] = 9
    s_ref[...] = x_ref[...] * 1000


x = jnp.arange(6, dtype=jnp.int32).reshape(2, 3) * 10
shapes = (jax.ShapeDtypeStruct((2, 3), jnp.float32), jax.ShapeDtypeStruct((2, 3), jnp.int32),
          jax.ShapeDtypeStruct((2, 3), jnp.int16))
f, i, s = pl.pallas_call(fill_kernel, out_shape=shapes, interpret=True)(x)
print(f)
print(i)
print(s, s.dtype)
# expect: [[7.  2.5 2.5]
# expect:  [2.5 2.5 2.5]]
# expect: [[  0   0   9]
# expect:  [ 90 120 150]]
# expect: [[     0  10000  20000]
# expect:  [ 30000 -25536 -15536]] int16
