# concatenate joins along an existing axis, stack along a new one
import jax.numpy as jnp

a = jnp.array([[1, 2], [3, 4]])
b = jnp.array([[5, 6]])
print(jnp.concatenate([a, b]))  # expect: [[1 2]
# expect:  [3 4]
# expect:  [5 6]]
print(jnp.concatenate([a, a], axis=1))  # expect: [[1 2 1 2]
# expect:  [3 4 3 4]]
print(jnp.concatenate((a, a), axis=-1).shape)  # expect: (2, 4)
print(jnp.stack([a, a]).shape, jnp.stack([a, a], axis=-1).shape)  # expect: (2, 2, 2) (2, 2, 2)
print(jnp.stack([jnp.array(1), jnp.array(2)]))  # expect: [1 2]
