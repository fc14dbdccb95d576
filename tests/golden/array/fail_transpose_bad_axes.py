# transpose needs a permutation of all the axes
import jax.numpy as jnp

x = jnp.ones((2, 3))
print(x.transpose(0, 0))  # error: TypeError: transpose permutation isn't a permutation of operand
