# reductions of empty arrays and of 0-d arrays
import jax.numpy as jnp

e = jnp.zeros((0,))
print(e.sum(), e.prod(), jnp.any(e > 0), jnp.all(e > 0))  # expect: 0.0 1.0 False True
s = jnp.array(5.0)
print(s.sum(), s.max(), s.mean())  # expect: 5.0 5.0 5.0
print(jnp.zeros((2, 0)).sum(axis=1))  # expect: [0. 0.]
