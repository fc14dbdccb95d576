# .item() needs exactly one element
import jax.numpy as jnp

x = jnp.arange(3)
v = x.item()  # error: ValueError: can only convert an array of size 1 to a Python scalar
