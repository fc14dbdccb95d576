# reducing over an axis that a 2-d array does not have
import jax.numpy as jnp

x = jnp.ones((2, 3))
print(x.sum(axis=2))  # error: ValueError: axis 2 is out of bounds for array of dimension 2
