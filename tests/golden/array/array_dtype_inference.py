# jnp.array infers int32, float32 and bool from Python values
import jax.numpy as jnp

print(jnp.array([1, 2, 3]).dtype)  # expect: int32
print(jnp.array([1.0, 2, 3]).dtype)  # expect: float32
print(jnp.array([True, False]).dtype)  # expect: bool
print(jnp.array(7).dtype, jnp.array(7.5).dtype)  # expect: int32 float32
print(jnp.asarray([[1, 2], [3, 4]]).shape)  # expect: (2, 2)
print(jnp.array([1, 2], dtype=jnp.float32))  # expect: [1. 2.]
print(jnp.asarray(3.0, dtype=jnp.int32))  # expect: 3
