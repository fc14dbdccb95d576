# shapes (3,) and (4,) do not broadcast
import jax.numpy as jnp

x = jnp.arange(3)
y = jnp.arange(4)
print(x + y)  # error: ValueError: Incompatible shapes for broadcasting: shapes=[(3,), (4,)]
