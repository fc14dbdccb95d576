# a negative dimension is not a shape
import jax.numpy as jnp

n = -3
x = jnp.zeros((2, n))  # error: ValueError: negative dimensions are not allowed: (2, -3)
