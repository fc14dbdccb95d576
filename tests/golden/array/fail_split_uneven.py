# split into equal sections needs a divisible axis
import jax.numpy as jnp

x = jnp.arange(7)
parts = jnp.split(x, 3)  # error: ValueError: array split does not result in an equal division: rest
