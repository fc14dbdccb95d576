# float() needs a single-element array
import jax.numpy as jnp

x = jnp.array([1.0, 2.0])
v = float(x)  # error: TypeError: only scalar arrays can be converted to Python scalars; got an
