# lax.div and lax.rem round toward zero, exactly, even for ints beyond float32's 2**24.
import jax.numpy as jnp
from jax import lax

x = jnp.array([16777217, -7, 7, -7, 100000007], jnp.int32)
y = jnp.array([1, 2, -2, -2, 3], jnp.int32)
print(lax.div(x, y))
print(lax.rem(x, y))
print(lax.div(jnp.array([7.5, -7.5]), 2.0), lax.rem(jnp.array([7.5, -7.5]), 2.0))
print(x // y, x % y)
# expect: [16777217       -3       -3        3 33333335]
# expect: [ 0 -1  1 -1  2]
# expect: [ 3.75 -3.75] [ 1.5 -1.5]
# expect: [16777217       -4       -4        3 33333335] [ 0  1 -1 -1  2]
