# bfloat16 and float16 values print with their reduced precision
import jax.numpy as jnp

x = jnp.array([0.1, 1.0 / 3, 100.7, -2.0])
print(x.astype(jnp.bfloat16))  # expect: [0.100098 0.333984 100.5 -2]
print(repr(x.astype(jnp.bfloat16)))
# expect: Array([0.100098, 0.333984, 100.5, -2], dtype=bfloat16)
print(x.astype(jnp.float16))  # expect: [ 9.998e-02  3.333e-01  1.007e+02 -2.000e+00]
print(repr(x.astype(jnp.float16)))
# expect: Array([ 9.998e-02,  3.333e-01,  1.007e+02, -2.000e+00], dtype=float16)
print(jnp.arange(3, dtype=jnp.bfloat16) / 3)  # expect: [0 0.333984 0.667969]
