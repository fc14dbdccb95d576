# argmax and argmin, flat and along an axis
import jax.numpy as jnp

x = jnp.array([[3, 9, 2], [7, 1, 8]])
print(jnp.argmax(x), jnp.argmin(x))  # expect: 1 4
print(x.argmax(axis=0), x.argmin(axis=1))  # expect: [1 0 1] [2 1]
print(jnp.argmax(x, axis=-1, keepdims=True))  # expect: [[1]
# expect:  [2]]
print(jnp.argmax(jnp.array([1.0, 5.0, 5.0])).dtype)  # expect: int32
