# shape, dtype, ndim, size and len
import jax.numpy as jnp

x = jnp.zeros((2, 3, 4), jnp.bfloat16)
print(x.shape, x.dtype, x.ndim, x.size, len(x))  # expect: (2, 3, 4) bfloat16 3 24 2
print(x.shape[1:], type(x.shape).__name__)  # expect: (3, 4) tuple
s = jnp.array(1.0)
print(s.shape, s.ndim, s.size)  # expect: () 0 1
print(jnp.shape(x), jnp.ndim(x), jnp.size(x))  # expect: (2, 3, 4) 3 24
print(x.dtype == jnp.bfloat16, str(x.dtype), x.dtype.name)  # expect: True bfloat16 bfloat16
