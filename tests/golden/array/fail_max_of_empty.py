# max of an empty array has no identity value
import jax.numpy as jnp

x = jnp.zeros((0,))
print(x.max())  # error: ValueError: zero-size array to reduction operation max which has no
