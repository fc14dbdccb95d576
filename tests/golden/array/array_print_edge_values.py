# negative zero, integer extremes and float16 scientific printing
import jax.numpy as jnp

print(jnp.array([-0.0, 0.0]), jnp.array([-128, 127], dtype=jnp.int8))
# expect: [-0.  0.] [-128  127]
print(jnp.array([2147483647, -2147483648]))  # expect: [ 2147483647 -2147483648]
print(jnp.array([4294967295], dtype=jnp.uint32))  # expect: [4294967295]
print(jnp.array([0.0001, 60000.0], dtype=jnp.float16))  # expect: [1.e-04 6.e+04]
print(jnp.array([1e10, 3.0], dtype=jnp.bfloat16))  # expect: [9.99922e+09 3]
print(repr(jnp.array([1.5, jnp.nan], dtype=jnp.bfloat16)))
# expect: Array([1.5, nan], dtype=bfloat16)
