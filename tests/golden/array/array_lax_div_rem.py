# lax.div and lax.rem round toward zero, unlike // and %
import jax.numpy as jnp
from jax import lax

a = jnp.array([7, -7, 7, -7])
b = jnp.array([2, 2, -2, -2])
print(lax.div(a, b), a // b)  # expect: [ 3 -3 -3  3] [ 3 -4 -4  3]
print(lax.rem(a, b), a % b)  # expect: [ 1 -1  1 -1] [ 1  1 -1 -1]
print(lax.rem(jnp.array([-5.5]), jnp.array([2.0])))  # expect: [-1.5]
print(lax.max(a, b), lax.min(a, b))  # expect: [ 7  2  7 -2] [ 2 -7 -2 -7]
