# & | ^ on ints and bools, and shifts
import jax.numpy as jnp

a = jnp.array([12, 10, 7])
b = jnp.array([10, 6, 1])
print(a & b, a | b, a ^ b)  # expect: [8 2 1] [14 14  7] [ 6 12  6]
print(a << 1, a >> 2)  # expect: [24 20 14] [3 2 1]
m = jnp.array([True, False, True])
n = jnp.array([True, True, False])
print(m & n, m | n, m ^ n)  # expect: [ True False False] [ True  True  True] [False  True  True]
print(jnp.bitwise_and(a, 3), jnp.logical_or(m, n))  # expect: [0 2 3] [ True  True  True]
