# jnp.dot of (2, 3) and (2, 3): the contracted sizes differ
import jax.numpy as jnp

a = jnp.ones((2, 3))
print(jnp.dot(a, a))  # error: TypeError: `jnp.dot` cannot contract shapes (2, 3) and (2, 3): 3 != 2
