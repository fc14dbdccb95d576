# lax.select and lax.convert_element_type
import jax.numpy as jnp
from jax import lax

p = jnp.array([True, False, True])
print(lax.select(p, jnp.array([1, 2, 3]), jnp.array([-1, -2, -3])))  # expect: [ 1 -2  3]
x = jnp.array([1.9, -1.9, 2.5])
print(lax.convert_element_type(x, jnp.int32))  # expect: [ 1 -1  2]
print(lax.convert_element_type(x, jnp.bfloat16).dtype)  # expect: bfloat16
print(lax.convert_element_type(jnp.array([0, 3]), jnp.bool_))  # expect: [False  True]
