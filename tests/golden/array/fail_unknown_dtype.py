# an unknown dtype name is rejected
import jax.numpy as jnp

print(jnp.zeros(3, dtype="float32"))  # expect: [0. 0. 0.]
x = jnp.zeros(3, dtype="float31")  # error: TypeError: data type 'float31' not understood
