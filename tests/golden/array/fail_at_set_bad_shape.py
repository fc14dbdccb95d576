# .at[].set needs values that broadcast to the indexed slice
import jax.numpy as jnp

x = jnp.zeros((2, 3))
y = x.at[0].set(jnp.ones(2))  # error: ValueError: cannot update a slice of shape (3,) with values
