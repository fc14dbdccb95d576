# 0-d arrays print like numbers; repr shows the dtype
import jax.numpy as jnp

print(jnp.array(3.5))  # expect: 3.5
print(repr(jnp.array(3.5)))  # expect: Array(3.5, dtype=float32, weak_type=True)
print(jnp.array(-7))  # expect: -7
print(repr(jnp.array(-7)))  # expect: Array(-7, dtype=int32, weak_type=True)
print(jnp.array(True), repr(jnp.array(False)))  # expect: True Array(False, dtype=bool)
print(repr(jnp.array(1.5, dtype=jnp.bfloat16)))  # expect: Array(1.5, dtype=bfloat16)
print(jnp.float32(2))  # expect: 2.0
