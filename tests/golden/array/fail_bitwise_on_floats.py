# & is defined only for integer and bool arrays
import jax.numpy as jnp

x = jnp.array([1.0, 2.0])
print(x & x)  # error: TypeError: and does not accept dtype float32 at position 0. Accepted dtypes
