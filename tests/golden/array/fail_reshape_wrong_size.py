# reshape must keep the number of elements
import jax.numpy as jnp

x = jnp.arange(10)
y = x.reshape(3, 4)  # error: TypeError: cannot reshape array of shape (10,) (size 10) into shape
