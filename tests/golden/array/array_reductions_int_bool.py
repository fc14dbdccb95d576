# reductions over int and bool arrays keep or promote dtypes like JAX
import jax.numpy as jnp

i = jnp.arange(5)
print(i.sum(), i.sum().dtype, i.mean(), i.mean().dtype)  # expect: 10 int32 2.0 float32
b = jnp.array([True, True, False])
print(b.sum(), b.sum().dtype)  # expect: 2 int32
print(jnp.any(b), jnp.all(b))  # expect: True False
m = jnp.array([[True, False], [True, True]])
print(m.any(axis=1), m.all(axis=0))  # expect: [ True  True] [ True False]
print(jnp.arange(4, dtype=jnp.int8).sum().dtype)  # expect: int32
