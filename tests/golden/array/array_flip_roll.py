# flip and roll, on all axes or one
import jax.numpy as jnp

x = jnp.arange(6).reshape(2, 3)
print(jnp.flip(x))  # expect: [[5 4 3]
# expect:  [2 1 0]]
print(jnp.flip(x, axis=1))  # expect: [[2 1 0]
# expect:  [5 4 3]]
print(jnp.roll(jnp.arange(5), 2))  # expect: [3 4 0 1 2]
print(jnp.roll(jnp.arange(5), -1))  # expect: [1 2 3 4 0]
print(jnp.roll(x, 1, axis=1))  # expect: [[2 0 1]
# expect:  [5 3 4]]
print(jnp.roll(x, 1))  # expect: [[5 0 1]
# expect:  [2 3 4]]
