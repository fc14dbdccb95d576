# unary minus, abs and bitwise invert
import jax.numpy as jnp

x = jnp.array([-2.5, 0.0, 3.0])
print(-x, abs(x), jnp.abs(x))  # expect: [ 2.5 -0.  -3. ] [2.5 0.  3. ] [2.5 0.  3. ]
i = jnp.array([0, 5, -6])
print(-i, ~i, abs(i))  # expect: [ 0 -5  6] [-1 -6  5] [0 5 6]
b = jnp.array([True, False])
print(~b)  # expect: [False  True]
print(~jnp.array([0, 255], dtype=jnp.uint8))  # expect: [255   0]
