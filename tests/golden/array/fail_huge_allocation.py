# an array of 10^12 elements is refused with an error, not a crash
import jax.numpy as jnp

shape = (100000, 100000, 100)
x = jnp.zeros(shape)  # error: float32 needs 3725.3 GiB, above the limit of 4.0 GiB
