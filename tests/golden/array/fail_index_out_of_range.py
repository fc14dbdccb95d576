# indexing past the end of an axis is an IndexError in this engine
import jax.numpy as jnp

x = jnp.arange(5)
print(x[2])
print(x[5])  # error: IndexError: index 5 is out of bounds for axis 0 with size 5
# expect: 2
