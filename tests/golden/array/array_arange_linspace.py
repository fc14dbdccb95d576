# arange and linspace
import jax.numpy as jnp

print(jnp.arange(5), jnp.arange(2, 8, 2), jnp.arange(5, 0, -2))
# expect: [0 1 2 3 4] [2 4 6] [5 3 1]
print(jnp.arange(0.0, 1.0, 0.25))  # expect: [0.   0.25 0.5  0.75]
print(jnp.arange(3, dtype=jnp.float32))  # expect: [0. 1. 2.]
print(jnp.linspace(0, 1, 5))  # expect: [0.   0.25 0.5  0.75 1.  ]
print(jnp.linspace(-1.0, 1.0, 4, endpoint=False))  # expect: [-1.  -0.5  0.   0.5]
print(jnp.linspace(0, 10, 3).dtype)  # expect: float32
