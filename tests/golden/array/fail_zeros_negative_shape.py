# a negative dimension is not a shape
import jax.numpy as jnp

x = jnp.zeros((2, -3))  # error: ValueError: negative dimensions are not allowed: (2, -3)
