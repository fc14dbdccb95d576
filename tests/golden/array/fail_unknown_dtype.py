# an unknown dtype name is rejected
import jax.numpy as jnp

x = jnp.zeros(3, dtype="float31")  # error: TypeError: data type 'float31' not understood
