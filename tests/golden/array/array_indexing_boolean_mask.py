# boolean masks select elements (outside jit)
import jax.numpy as jnp

x = jnp.array([5, -2, 8, -1, 0])
print(x[x > 0])  # expect: [5 8]
print(x[x < -5])  # expect: []
m = jnp.arange(6).reshape(2, 3)
print(m[m % 2 == 0])  # expect: [0 2 4]
print(m[jnp.array([True, False])])  # expect: [[0 1 2]]
