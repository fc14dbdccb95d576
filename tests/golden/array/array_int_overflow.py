# fixed-width integers wrap around
import jax.numpy as jnp

i8 = jnp.array([120, -120], dtype=jnp.int8)
print(i8 + 10)  # expect: [-126 -110]
u8 = jnp.array([250, 5], dtype=jnp.uint8)
print(u8 + 10, u8 - 10)  # expect: [ 4 15] [240 251]
i32 = jnp.array([2147483647])
print(i32 + 1)  # expect: [-2147483648]
print(jnp.array([3], jnp.uint32) - 5)  # expect: [4294967294]
