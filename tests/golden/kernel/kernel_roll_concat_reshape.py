# pltpu.roll works like jnp.roll (element i moves to i + shift); concatenate and reshape in-kernel
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def shape_kernel(x_ref, r1_ref, r0_ref, c_ref, m_ref):
    x = x_ref[...]
    r1_ref[...] = pltpu.roll(x, 1, 1)
    r0_ref[...] = pltpu.roll(x, shift=2, axis=0)
    c_ref[...] = jnp.concatenate([x[:, 2:], x[:, :2] * -1.0], axis=1)
    m_ref[...] = x.reshape(4, 3) + jnp.concatenate([x[0], x[2]]).reshape(4, 2)[:, :1]


x = jnp.arange(12).reshape(3, 4).astype(jnp.float32)
f32 = jnp.float32
shapes = (jax.ShapeDtypeStruct((3, 4), f32), jax.ShapeDtypeStruct((3, 4), f32),
          jax.ShapeDtypeStruct((3, 4), f32), jax.ShapeDtypeStruct((4, 3), f32))
r1, r0, c, m = pl.pallas_call(shape_kernel, out_shape=shapes, interpret=True)(x)
print(r1)
print(r0)
print(jnp.array_equal(r1, jnp.roll(x, 1, 1)), jnp.array_equal(r0, jnp.roll(x, 2, 0)))
print(c)
print(m)
# expect: [[ 3.  0.  1.  2.]
# expect:  [ 7.  4.  5.  6.]
# expect:  [11.  8.  9. 10.]]
# expect: [[ 4.  5.  6.  7.]
# expect:  [ 8.  9. 10. 11.]
# expect:  [ 0.  1.  2.  3.]]
# expect: True True
# expect: [[ 2.  3. -0. -1.]
# expect:  [ 6.  7. -4. -5.]
# expect:  [10. 11. -8. -9.]]
# expect: [[ 0.  1.  2.]
# expect:  [ 5.  6.  7.]
# expect:  [14. 15. 16.]
# expect:  [19. 20. 21.]]
