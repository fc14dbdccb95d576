# Python scalars are weakly typed: they do not widen an array's dtype
import jax.numpy as jnp

xb = jnp.ones(3, dtype=jnp.bfloat16)
print((xb * 2.0).dtype, xb * 2.0)  # expect: bfloat16 [2 2 2]
xi = jnp.array([1, 2, 3])
print((xi + 1.5).dtype, xi + 1.5)  # expect: float32 [2.5 3.5 4.5]
print((xi * 2).dtype)  # expect: int32
u = jnp.array([250, 3], dtype=jnp.uint8)
print((u + 1).dtype, u + 10)  # expect: uint8 [ 4 13]
h = jnp.ones(2, dtype=jnp.float16)
print((h + 1).dtype, (h / 3).dtype)  # expect: float16 float16
