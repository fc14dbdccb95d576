# round to decimals, including negative decimals and half-even ties
import jax.numpy as jnp

x = jnp.array([0.125, 0.375, 2.5, 3.5, 1234.5678])
print(jnp.round(x, 2))  # expect: [1.20000e-01 3.80000e-01 2.50000e+00 3.50000e+00 1.23457e+03]
print(jnp.round(x, -2))  # expect: [   0.    0.    0.    0. 1200.]
print(x.round(1))  # expect: [1.0000e-01 4.0000e-01 2.5000e+00 3.5000e+00 1.2346e+03]
