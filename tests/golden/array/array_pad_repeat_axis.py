# pad a 2-d array on one side, repeat along an axis and tile a matrix
import jax.numpy as jnp

m = jnp.array([[1, 2], [3, 4]])
print(jnp.pad(m, ((0, 1), (2, 0)), constant_values=-1))  # expect: [[-1 -1  1  2]
# expect:  [-1 -1  3  4]
# expect:  [-1 -1 -1 -1]]
print(jnp.repeat(m, 3, axis=1))  # expect: [[1 1 1 2 2 2]
# expect:  [3 3 3 4 4 4]]
print(jnp.repeat(m, jnp.array([1, 2]), axis=0))  # expect: [[1 2]
# expect:  [3 4]
# expect:  [3 4]]
print(jnp.tile(m, (1, 2)).shape, jnp.tile(m, 2))  # expect: (2, 4) [[1 2 1 2]
# expect:  [3 4 3 4]]
