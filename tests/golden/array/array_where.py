# jnp.where with three arguments selects; with one it returns indices
import jax.numpy as jnp

x = jnp.array([3, -1, 0, 4, -2])
print(jnp.where(x > 0, x, 0))  # expect: [3 0 0 4 0]
print(jnp.where(x > 0, 1.0, -1.0))  # expect: [ 1. -1. -1.  1. -1.]
print(jnp.where(x != 0))  # expect: (Array([0, 1, 3, 4], dtype=int32),)
m = jnp.array([[True, False], [False, True]])
print(jnp.where(m))  # expect: (Array([0, 1], dtype=int32), Array([0, 1], dtype=int32))
print(jnp.where(m, 10, jnp.array([1, 2])))  # expect: [[10  2]
# expect:  [ 1 10]]
