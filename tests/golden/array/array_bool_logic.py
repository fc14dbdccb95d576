# logical_and, logical_or, logical_not and boolean arithmetic
import jax.numpy as jnp

a = jnp.array([True, True, False, False])
b = jnp.array([True, False, True, False])
print(jnp.logical_and(a, b), jnp.logical_or(a, b), jnp.logical_not(a))
# expect: [ True False False False] [ True  True  True False] [False False  True  True]
print(a + b, (a * 1).dtype, a.sum(), (a & b).dtype)
# expect: [ True  True  True False] int32 2 bool
print(jnp.logical_and(jnp.array([2, 0]), jnp.array([1, 1])))  # expect: [ True False]
print(a == b, a != b, ~(a | b))
# expect: [ True False False  True] [False  True  True False] [False False False  True]
