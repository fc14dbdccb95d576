# lax.dot_general contracting dimensions of different sizes
import jax.numpy as jnp
from jax import lax

a = jnp.ones((2, 3))
b = jnp.ones((4, 2))
dims = (((1,), (0,)), ((), ()))
c = lax.dot_general(a, b, dims)  # error: `jax.lax.dot_general` cannot contract shapes (2, 3) and (4, 2): 3 != 4
