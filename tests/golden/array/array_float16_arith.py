# float16 and bfloat16 arithmetic rounds to the narrow format
import jax.numpy as jnp

h = jnp.array([1000.0, 0.1], dtype=jnp.float16)
print(h + 0.05)  # expect: [1.000e+03 1.499e-01]
b = jnp.array([256.0, 1.0], dtype=jnp.bfloat16)
print(b + 1, b * 3)  # expect: [256 2] [768 3]
print((b / 3).dtype, b / 3)  # expect: bfloat16 [85.5 0.333984]
print(jnp.array([65504.0], jnp.float16) * 2)  # expect: [inf]
