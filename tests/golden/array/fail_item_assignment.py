# JAX arrays are immutable: use x.at[0].set(1) instead
import jax.numpy as jnp

x = jnp.zeros(3)
x[0] = 1  # error: TypeError: JAX arrays are immutable and do not support in-place item assignment
