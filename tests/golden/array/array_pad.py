# jnp.pad with constant values and per-axis widths
import jax.numpy as jnp

x = jnp.array([1, 2, 3])
print(jnp.pad(x, 2))  # expect: [0 0 1 2 3 0 0]
print(jnp.pad(x, (1, 3)))  # expect: [0 1 2 3 0 0 0]
print(jnp.pad(x, (1, 0), constant_values=9))  # expect: [9 1 2 3]
m = jnp.ones((2, 2))
print(jnp.pad(m, ((1, 0), (0, 2))))  # expect: [[0. 0. 0. 0.]
# expect:  [1. 1. 0. 0.]
# expect:  [1. 1. 0. 0.]]
