# a random function needs a PRNG key, not a float array
import jax
import jax.numpy as jnp

print(jax.random.uniform(jnp.array([1.0, 2.0, 3.0]), (2,)))  # error: TypeError: expected a PRNG key
