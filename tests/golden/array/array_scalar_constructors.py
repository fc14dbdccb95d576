# dtype objects called on values build 0-d arrays
import jax.numpy as jnp

print(repr(jnp.float32(1.5)), repr(jnp.int32(3.9)))
# expect: Array(1.5, dtype=float32) Array(3, dtype=int32)
print(repr(jnp.bfloat16(0.1)), repr(jnp.uint8(255)))
# expect: Array(0.100098, dtype=bfloat16) Array(255, dtype=uint8)
print(jnp.float32(jnp.array([1, 2])))  # expect: [1. 2.]
print(jnp.bool_(1), jnp.int8(-5) * 2)  # expect: True -10
