# jnp.array of a Python scalar is weakly typed, so it adopts the other operand's dtype
import jax.numpy as jnp

s = jnp.array(2.0)
print(repr(s), repr(jnp.array(2.0, dtype=jnp.float32)))
# expect: Array(2., dtype=float32, weak_type=True) Array(2., dtype=float32)
xb = jnp.ones(2, jnp.bfloat16)
print((xb * s).dtype, (xb * jnp.float32(2)).dtype)  # expect: bfloat16 float32
print(repr(jnp.array(3) + jnp.ones(2, jnp.int8)))  # expect: Array([4, 4], dtype=int8)
print(repr(jnp.ones(2) * 3.0))  # expect: Array([3., 3.], dtype=float32)
