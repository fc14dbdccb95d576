# maximum, minimum and clip
import jax.numpy as jnp

a = jnp.array([1.0, 5.0, -3.0])
b = jnp.array([2.0, 4.0, -4.0])
print(jnp.maximum(a, b), jnp.minimum(a, b))  # expect: [ 2.  5. -3.] [ 1.  4. -4.]
print(jnp.maximum(a, 0))  # expect: [1. 5. 0.]
print(jnp.clip(a, -1, 2))  # expect: [ 1.  2. -1.]
print(jnp.clip(jnp.arange(6), 1, 4))  # expect: [1 1 2 3 4 4]
print(jnp.clip(a, max=0.0))  # expect: [ 0.  0. -3.]
