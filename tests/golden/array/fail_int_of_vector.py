# int() of a 2-element array
import jax.numpy as jnp

n = int(jnp.arange(2))  # error: TypeError: only scalar arrays can be converted to Python scalars
