# concatenate needs equal sizes on every axis but the joined one
import jax.numpy as jnp

a = jnp.ones((2, 3))
b = jnp.ones((2, 4))
print(jnp.concatenate([a, b], axis=0))  # error: TypeError: Cannot concatenate arrays with shapes
