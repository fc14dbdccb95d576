# int() of a 2-element array
import jax.numpy as jnp

x = jnp.arange(2)
n = int(x)  # error: TypeError: only scalar arrays can be converted to Python scalars
