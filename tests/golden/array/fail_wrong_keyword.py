# misspelt keyword argument to jnp.sum
import jax.numpy as jnp

x = jnp.ones((2, 2))
print(jnp.sum(x, axes=0))  # error: TypeError: 'axes' is an invalid keyword argument for sum()
