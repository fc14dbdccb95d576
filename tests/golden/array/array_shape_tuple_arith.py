# shapes are tuples of ints that work in ordinary Python code
import jax.numpy as jnp

x = jnp.zeros((4, 6))
rows, cols = x.shape
print(rows * cols, x.shape + (1,), x.shape[::-1])  # expect: 24 (4, 6, 1) (6, 4)
y = jnp.zeros(x.shape[:1] + (3,))
print(y.shape, y.reshape(*x.shape[:1], 3, 1).shape)  # expect: (4, 3) (4, 3, 1)
print(jnp.ones(x.shape[1]).shape, x.size // x.shape[0])  # expect: (6,) 6
