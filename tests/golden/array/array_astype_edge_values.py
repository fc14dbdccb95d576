# float to int conversion truncates toward zero; nonzero becomes True
import jax.numpy as jnp

x = jnp.array([-2.9, -0.5, 0.5, 2.9])
print(x.astype(jnp.int32), x.astype(jnp.uint8)[2:])  # expect: [-2  0  0  2] [0 2]
print(x.astype(bool), jnp.array([0, 3, -1]).astype(bool))
# expect: [ True  True  True  True] [False  True  True]
print(jnp.array([True, False]).astype(jnp.float32))  # expect: [1. 0.]
print(jnp.array([1.0, 2.0]).astype(float).dtype, jnp.array([1, 2]).astype(int).dtype)
# expect: float32 int32
