# dtypes can be named by strings and compared to jnp dtype objects
import jax.numpy as jnp

x = jnp.arange(4)
print(x.astype("float32").dtype)  # expect: float32
print(x.astype("bfloat16"))  # expect: [0 1 2 3]
print(x.astype(jnp.float32).dtype == jnp.float32)  # expect: True
print(jnp.zeros(2, dtype="int8").dtype)  # expect: int8
print(jnp.dtype("float16"))  # expect: float16
