# stack needs arrays of the same shape
import jax.numpy as jnp

a, b = jnp.ones(2), jnp.ones(3)
print(jnp.stack([a, b]))  # error: ValueError: All input arrays must have the
