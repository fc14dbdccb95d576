# the @ operator needs matching inner dimensions
import jax.numpy as jnp

a = jnp.ones((4, 3))
b = jnp.ones((4, 5))
c = a @ b  # error: TypeError: `jnp.matmul` cannot contract shapes (4, 3) and (4, 5): 3 != 4
