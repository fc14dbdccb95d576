# stack needs arrays of the same shape
import jax.numpy as jnp

print(jnp.stack([jnp.ones(2), jnp.ones(3)]))  # error: ValueError: All input arrays must have the
