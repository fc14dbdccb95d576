# jax.vmap: in_axes / out_axes (ints, None, pytree prefixes), keywords, nesting, over a pallas_call
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

x = jnp.arange(12.0).reshape(3, 4)
y = jnp.arange(4.0)
print(jax.vmap(lambda a, b: a * b)(x, jnp.arange(3.0)[:, None])[1])
print(jax.vmap(lambda a, b: a + b, in_axes=(0, None))(x, y))
print(jax.vmap(jnp.sum, in_axes=1)(x))
print(jax.vmap(lambda a: a * 2, out_axes=1)(x).shape)
print(jax.vmap(jax.vmap(lambda a, b: a * b))(x, x)[2, 3])
d = jax.vmap(lambda t: {"s": t[0] + t[1], "p": t[0] * t[1]})((x, x))
print(sorted(d), d["p"][1])
print(jax.vmap(lambda a, b: (a, b), in_axes=(0, None), out_axes=(0, None))(x, y)[1])
print(jax.vmap(lambda a, scale: a * scale)(x, scale=jnp.array([1.0, 2.0, 3.0]))[2])


def add_kernel(x_ref, y_ref, o_ref):
  o_ref[...] = x_ref[...] + y_ref[...]


def add(a, b):
  return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
                        interpret=True)(a, b)


xs = jnp.arange(2 * 8 * 128, dtype=jnp.float32).reshape(2, 8, 128)
out = jax.vmap(add)(xs, xs)
print(out.shape, float(out.sum()), bool(jnp.array_equal(out, xs * 2)))
try:
  jax.vmap(lambda a, b: a + b)(x, jnp.ones(5))
except ValueError as e:
  print(str(e).splitlines()[0][:60])
try:
  jax.vmap(lambda a: a)(3.0)
except ValueError as e:
  print(str(e)[:50])
# expect: [4. 5. 6. 7.]
# expect: [[ 0.  2.  4.  6.]
# expect:  [ 4.  6.  8. 10.]
# expect:  [ 8. 10. 12. 14.]]
# expect: [12. 15. 18. 21.]
# expect: (4, 3)
# expect: 121.0
# expect: ['p', 's'] [16. 25. 36. 49.]
# expect: [0. 1. 2. 3.]
# expect: [24. 27. 30. 33.]
# expect: (2, 8, 128) 4192256.0 True
# expect: vmap got inconsistent sizes for array axes to be mapped:
# expect: vmap was requested to map its argument along axis 
