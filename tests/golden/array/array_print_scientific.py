# widely spread magnitudes switch printing to scientific notation
import jax.numpy as jnp

print(jnp.array([1e-5, 1.0, 1000.0]))  # expect: [1.e-05 1.e+00 1.e+03]
print(jnp.array([1e9, 2.0]))  # expect: [1.e+09 2.e+00]
print(jnp.array([0.001, 0.5]))  # expect: [0.001 0.5  ]
print(jnp.array([123456.0, 0.25]))  # expect: [1.23456e+05 2.50000e-01]
print(jnp.array([1e20]))  # expect: [1.e+20]
print(repr(jnp.array([1e-8, 3.0])))  # expect: Array([1.e-08, 3.e+00], dtype=float32)
