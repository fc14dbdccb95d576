# .astype converts between float32, bfloat16, float16, int32, uint32, int8, uint8 and bool
import jax.numpy as jnp

x = jnp.array([-1.7, 0.0, 2.5, 300.25])
for dt in [jnp.bfloat16, jnp.float16, jnp.int32, jnp.int8, jnp.bool_]:
    y = x.astype(dt)
    print(y.dtype, y)  # expect: bfloat16 [-1.70312 0 2.5 300]
    # expect: float16 [ -1.7   0.    2.5 300.2]
    # expect: int32 [ -1   0   2 300]
    # expect: int8 [ -1   0   2 127]
    # expect: bool [ True False  True  True]
print(jnp.array([1, 2, 250]).astype(jnp.uint8))  # expect: [  1   2 250]
print(jnp.array([0, 7, 9]).astype(jnp.uint32))  # expect: [0 7 9]
