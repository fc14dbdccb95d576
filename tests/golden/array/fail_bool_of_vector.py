# an array of several elements has no single truth value
import jax.numpy as jnp

x = jnp.array([1, 2, 3])
if x > 1:  # error: ValueError: The truth value of an array with more than one element is ambiguous.
    print("big")
