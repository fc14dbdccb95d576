# gather with integer arrays and lists
import jax.numpy as jnp

x = jnp.arange(10) * 10
print(x[jnp.array([0, 3, -1])])  # expect: [ 0 30 90]
print(x[jnp.array([[1, 2], [3, 4]])])  # expect: [[10 20]
# expect:  [30 40]]
m = jnp.arange(12).reshape(3, 4)
print(m[jnp.array([2, 0])])  # expect: [[ 8  9 10 11]
# expect:  [ 0  1  2  3]]
print(m[jnp.array([0, 1, 2]), jnp.array([3, 2, 1])])  # expect: [3 6 9]
print(m[:, jnp.array([0, 0])])  # expect: [[0 0]
# expect:  [4 4]
# expect:  [8 8]]
